// RUN: tgc-opt --tgc-cuda-trim-contraction-chains %s | FileCheck %s
// RUN: tgc-opt --tgc-cuda %s | FileCheck %s --check-prefix=PIPELINE

// A contraction fusion keeps the post-ops its library call computes (a
// cuBLASLt relu epilogue); the rest of its chain goes back into the
// function.
// CHECK-LABEL: func.func @chain
// CHECK: %[[F:.*]] = tgc.fusion <contraction>
// CHECK: tgc.matmul
// CHECK: tgc.relu
// CHECK-NOT: tgc.sigmoid
// CHECK: tgc.yield
// CHECK: %[[S:.*]] = tgc.sigmoid %[[F]]
// CHECK: return %[[S]]
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = tgc.fusion <contraction>(%x, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8x16xf32>):
    %1 = tgc.matmul %a, %c : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = tgc.relu %1 : tensor<4x16xf32>
    %3 = tgc.sigmoid %2 : tensor<4x16xf32>
    tgc.yield %3 : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}

// A chain the library call computes whole (bias and relu) stays.
// CHECK-LABEL: func.func @whole
// CHECK: tgc.fusion <contraction>
// CHECK: tgc.matmul
// CHECK: tgc.add
// CHECK: tgc.relu
// CHECK: tgc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @whole(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = tgc.fusion <contraction>(%x, %w, %b) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32> {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8x16xf32>, %d: tensor<16xf32>):
    %1 = tgc.matmul %a, %c : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = tgc.add %1, %d : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %3 = tgc.relu %2 : tensor<4x16xf32>
    tgc.yield %3 : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}

// The tgc-cuda pipeline trims before its loop fusion: the sigmoid the
// epilogue does not compute and the exp after it form one loop fusion.
// PIPELINE-LABEL: func.func @unfused
// PIPELINE: %[[F:.*]] = tgc.fusion <contraction>
// PIPELINE-NOT: tgc.sigmoid
// PIPELINE: tgc.relu
// PIPELINE: tgc.yield
// PIPELINE: tgc.fusion <loop>(%[[F]])
// PIPELINE: tgc.sigmoid
// PIPELINE: tgc.exp
func.func @unfused(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %1 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %2 = tgc.relu %1 : tensor<4x16xf32>
  %3 = tgc.sigmoid %2 : tensor<4x16xf32>
  %4 = tgc.exp %3 : tensor<4x16xf32>
  return %4 : tensor<4x16xf32>
}
