// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s
// RUN: tgc-run %s --backend=reference --function=dense --input=1x2xf32=1,-2 --input=2x3xf32=1,2,3,4,5,6 --input=3xf32=0.5,0.5,-20 | FileCheck %s --check-prefix=OUT
// RUN: tgc-run %s --backend=reference --function=two_results --input=2xf32=4,9 | FileCheck %s --check-prefix=TWO
// RUN: tgc-run %s --backend=cpu --function=two_results --input=2xf32=4,9 | FileCheck %s --check-prefix=TWO
// RUN: tgc-run %s --backend=cpu --function=dense --input=1x2xf32=1,-2 --input=2x3xf32=1,2,3,4,5,6 --input=3xf32=0.5,0.5,-20 | FileCheck %s --check-prefix=OUT

// Round trip of fusion regions (both kinds, several results); the reference
// interpreter runs a fusion as its body.

// CHECK-LABEL: func.func @dense(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x2xf32>, %[[W:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<3xf32>
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>(%[[X]], %[[W]], %[[B]]) : (tensor<1x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<1x3xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<1x2xf32>, %[[A1:.*]]: tensor<2x3xf32>, %[[A2:.*]]: tensor<3xf32>):
// CHECK-NEXT:      %[[M:.*]] = tgc.matmul %[[A0]], %[[A1]]
// CHECK-NEXT:      %[[S:.*]] = tgc.add %[[M]], %[[A2]]
// CHECK-NEXT:      %[[R:.*]] = tgc.relu %[[S]]
// CHECK-NEXT:      tgc.yield %[[R]] : tensor<1x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
// OUT: result #0: tensor<1x3xf32> = [0, 0, 0]
func.func @dense(%x: tensor<1x2xf32>, %w: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<1x3xf32> {
  %0 = tgc.fusion <contraction> (%x, %w, %b) : (tensor<1x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<1x3xf32> {
  ^bb0(%a: tensor<1x2xf32>, %c: tensor<2x3xf32>, %d: tensor<3xf32>):
    %1 = tgc.matmul %a, %c : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
    %2 = tgc.add %1, %d : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
    %3 = tgc.relu %2 : tensor<1x3xf32>
    tgc.yield %3 : tensor<1x3xf32>
  }
  return %0 : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @two_results(
// CHECK:         %[[F:.*]]:2 = tgc.fusion <loop>(%{{.*}}) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
// CHECK:           tgc.yield %{{.*}}, %{{.*}} : tensor<2xf32>, tensor<f32>
// CHECK:         return %[[F]]#0, %[[F]]#1
// TWO: result #0: tensor<2xf32> = [2, 3]
// TWO: result #1: tensor<f32> = [5]
func.func @two_results(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
  %0:2 = tgc.fusion <loop> (%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
  ^bb0(%a: tensor<2xf32>):
    %1 = tgc.sqrt %a : tensor<2xf32>
    %2 = tgc.reduce_sum %1 {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<f32>
    tgc.yield %1, %2 : tensor<2xf32>, tensor<f32>
  }
  return %0#0, %0#1 : tensor<2xf32>, tensor<f32>
}
