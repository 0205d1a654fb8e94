// What the loop code generator makes of a fusion region, compile only:
// linalg on tensors after elementwise fusion, the per-thread chunk function,
// and the LLVM dialect the JIT compiles.
// RUN: tgc-opt --tgc-lower-loop-fusions-to-linalg %s | FileCheck %s
// RUN: tgc-opt --tgc-lower-loop-fusions-to-linalg=fuse=false %s | FileCheck %s --check-prefix=UNFUSED
// RUN: tgc-opt --tgc-lower-loop-fusions-to-linalg=chunk-rows=3 %s | FileCheck %s --check-prefix=CHUNK
// RUN: tgc-opt --tgc-lower-loop-fusions-to-linalg=to-llvm %s | FileCheck %s --check-prefix=LLVM

// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG:   #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax_bias(
// CHECK:         call @loop_fusion_0(%{{.*}}, %{{.*}}) : (tensor<8x17xf32>, tensor<17xf32>) -> tensor<8x17xf32>
// CHECK-LABEL: func.func private @loop_fusion_0(
// CHECK-SAME:      %[[X:.*]]: tensor<8x17xf32>, %[[B:.*]]: tensor<17xf32>) -> tensor<8x17xf32>
// The max reduction, with the bias add fused in:
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[X]], %[[B]] : tensor<8x17xf32>, tensor<17xf32>)
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// The sum of exponentials:
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:           math.exp
// CHECK:           arith.addf {{.*}} fastmath<reassoc>
// The elementwise tail, one generic:
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[B]], %[[MAX]], %[[SUM]]
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:         return %[[Y]]

// Before linalg fusion every tgc op is its own generic.
// UNFUSED-LABEL: func.func private @loop_fusion_0(
// UNFUSED-COUNT-6: linalg.generic
// UNFUSED-NOT:   linalg.generic
// UNFUSED:       return

// One chunk of 3 rows (the split dim is 0; the bias is read whole).
// CHUNK:       func.func private @loop_fusion_0(%{{.*}}: tensor<3x17xf32>, %{{.*}}: tensor<17xf32>) -> tensor<3x17xf32> attributes {tgc.split_dim = 0 : i64}

// LLVM:        llvm.func @loop_fusion_0(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias})
// LLVM-NOT:    math.
// LLVM-NOT:    linalg.
// LLVM:        llvm.return

func.func @softmax_bias(%x: tensor<8x17xf32>, %b: tensor<17xf32>) -> tensor<8x17xf32> {
  %0 = tgc.fusion <loop> (%x, %b) : (tensor<8x17xf32>, tensor<17xf32>) -> tensor<8x17xf32> {
  ^bb0(%a: tensor<8x17xf32>, %c: tensor<17xf32>):
    %1 = tgc.add %a, %c : (tensor<8x17xf32>, tensor<17xf32>) -> tensor<8x17xf32>
    %m = tgc.reduce_max %1 {axes = array<i64: 1>, keepdims} : (tensor<8x17xf32>) -> tensor<8x1xf32>
    %d = tgc.sub %1, %m : (tensor<8x17xf32>, tensor<8x1xf32>) -> tensor<8x17xf32>
    %e = tgc.exp %d : tensor<8x17xf32>
    %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<8x17xf32>) -> tensor<8x1xf32>
    %y = tgc.div %e, %s : (tensor<8x17xf32>, tensor<8x1xf32>) -> tensor<8x17xf32>
    tgc.yield %y : tensor<8x17xf32>
  }
  return %0 : tensor<8x17xf32>
}
