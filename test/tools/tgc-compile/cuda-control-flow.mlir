// The CUDA planner compiles no tgc.if / tgc.while regions: a function
// holding one is staged (codegen/Staged.h): the ops before it as a device
// plan, the control flow on the cpu backend, the rest as a device plan
// compiled when a call brings its shapes. --print-plan says so (no GPU
// needed); such a staged function cannot be saved as an artifact, and
// tgc-compile says why, naming the op and where it is.
// REQUIRES: cuda-toolkit
// RUN: tgc-run %s --backend=cuda --cuda-arch=sm_90 --compile-only --print-plan --function=branch --input=i1=1 --input=4xf32=1 | FileCheck %s --check-prefix=PLAN
// PLAN: staged plan: 'tgc.if' at {{.*}}cuda-control-flow.mlir:17:8 runs on the cpu backend (the cuda planner does not compile regions)
// PLAN-NEXT: stage 1 (the ops before it):
// PLAN-NEXT: cuda plan for @branch__stage1
// PLAN: then 'tgc.if' on the cpu backend (compiled for the shapes of its operands)
// PLAN-NEXT: stage 2 (the ops after it): compiled for each shape a call brings; 0 so far
// RUN: not tgc-compile --backend=cuda --cuda-arch=sm_80 %s --function=branch --input=i1=1 --input=4xf32=1 -o %t.tgcx 2>&1 | FileCheck %s
// CHECK: tgc-compile: error: a function whose control flow runs on the cpu backend ('tgc.if' at {{.*}}cuda-control-flow.mlir:17:8) is compiled in stages when it runs and cannot be saved as a plan
func.func @branch(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tgc.if %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %s = tgc.relu %a : tensor<4xf32>
    tgc.yield %s : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tgc.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
