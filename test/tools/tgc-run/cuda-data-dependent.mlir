// A data-dependent shape on the cuda backend (no GPU needed: the plan is
// compiled and printed): the ops before the nonzero as one device plan, the
// nonzero on the host, the rest compiled for each count when it runs.
// REQUIRES: cuda-toolkit
// RUN: tgc-run %s --backend=cuda --compile-only --cuda-arch=sm_90 --input=6xf32=1,-2,3,-4,5,-6 --print-plan | FileCheck %s
// CHECK: staged plan: the shape of 'tgc.nonzero' at {{.*}}cuda-data-dependent.mlir:14:8 depends on values
// CHECK-NEXT: stage 1 (the ops before it):
// CHECK-NEXT: cuda plan for @main__stage1 (sm_90
// CHECK: then 'tgc.nonzero' on the host (its result allocated when it runs)
// CHECK-NEXT: stage 2 (the ops after it): compiled for each shape a call brings; 0 so far
func.func @main(%x: tensor<6xf32>) -> tensor<?xf32> {
  %z = tgc.constant dense<0.0> : tensor<f32>
  %p = tgc.compare gt, %x, %z : (tensor<6xf32>, tensor<f32>) -> tensor<6xi1>
  %i = tgc.nonzero %p : (tensor<6xi1>) -> tensor<1x?xi64>
  %j = tgc.reshape %i : tensor<1x?xi64> to tensor<?xi64>
  %y = tgc.gather %x, %j {axis = 0 : i64} : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
  %r = tgc.relu %y : tensor<?xf32>
  return %r : tensor<?xf32>
}
