// RUN: tgc-opt --tgc-cpu-inline-fusions %s | FileCheck %s
// RUN: tgc-opt --tgc-cpu-inline-fusions=compile-loops=false %s | FileCheck %s --check-prefix=NOLOOPS

// A loop fusion the loop code generator compiles stays one kernel; without
// loop compilation its ops run one by one.
// CHECK-LABEL: func.func @loop
// CHECK: tgc.fusion <loop>
// CHECK: tgc.exp
// CHECK: tgc.tanh
// NOLOOPS-LABEL: func.func @loop
// NOLOOPS-NOT: tgc.fusion
// NOLOOPS: %[[E:.*]] = tgc.exp %arg0
// NOLOOPS: %[[T:.*]] = tgc.tanh %[[E]]
// NOLOOPS: return %[[T]]
func.func @loop(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tgc.fusion <loop>(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    %1 = tgc.exp %a : tensor<4x8xf32>
    %2 = tgc.tanh %1 : tensor<4x8xf32>
    tgc.yield %2 : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}



// A contraction whose post-op chain the post-op table describes stays one
// kernel (oneDNN matmul with bias and ReLU) either way.
// CHECK-LABEL: func.func @contraction
// CHECK: tgc.fusion <contraction>
// NOLOOPS-LABEL: func.func @contraction
// NOLOOPS: tgc.fusion <contraction>
func.func @contraction(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = tgc.fusion <contraction>(%x, %w, %b) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8x16xf32>, %d: tensor<16xf32>):
    %1 = tgc.matmul %a, %c : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = tgc.add %1, %d : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %3 = tgc.relu %2 : tensor<4x16xf32>
    tgc.yield %3 : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}

// A contraction fusion whose chain no kernel takes (a matmul feeding an exp
// and then a matmul) runs as its ops.
// CHECK-LABEL: func.func @unkernelled
// CHECK-NOT: tgc.fusion
// CHECK: tgc.matmul
// CHECK: tgc.exp
// CHECK: tgc.matmul
func.func @unkernelled(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tgc.fusion <contraction>(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %c: tensor<4x4xf32>):
    %1 = tgc.matmul %a, %c : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %2 = tgc.exp %1 : tensor<4x4xf32>
    %3 = tgc.matmul %2, %c : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    tgc.yield %3 : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}
