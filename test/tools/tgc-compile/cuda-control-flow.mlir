// The CUDA planner does not compile tgc.if / tgc.while regions: compiling
// one for CUDA says so, naming the op and where it is (the CPU backend
// compiles them: test/dialects/ops-control-flow.mlir).
// REQUIRES: cuda-toolkit
// RUN: not tgc-compile --backend=cuda --cuda-arch=sm_80 %s --function=branch --input=i1=1 --input=4xf32=1 -o %t.tgcx 2>&1 | FileCheck %s
// CHECK: tgc-compile: error: tgc.if at {{.*}}cuda-control-flow.mlir:[[@LINE+2]]:8 is not supported by the cuda backend yet: control flow runs on the CPU backend (the CUDA planner does not compile regions)
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
