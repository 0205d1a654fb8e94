// The cuda backend runs f32 only: another precision policy is an error that
// says so (no GPU needed: it is refused when the plan is compiled).
// REQUIRES: cuda-toolkit
// RUN: not tgc-run %s --backend=cuda --compile-only --cuda-arch=sm_90 --precision=bf16 2>&1 | FileCheck %s
// RUN: tgc-run %s --backend=cuda --compile-only --cuda-arch=sm_90 --precision=f32
// CHECK: tgc-run: error: the cuda backend runs precision f32 only, not bf16
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %c = tgc.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %c : tensor<4x2xf32>
}
