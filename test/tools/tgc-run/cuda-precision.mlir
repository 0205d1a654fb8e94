// Precision policies on the cuda backend (no GPU needed: plans are compiled
// and printed, or refused, before anything runs). f16 and bf16 run the
// matmul on narrow operands with the bias and relu in its cuBLASLt epilogue,
// behind one cast of the input and one of the result; int8 without a
// calibration table quantizes only a QDQ model's contractions (none here,
// and a 2-column matmul has no int8 cuBLASLt call anyway), and the plan
// says so; the cpu backend refuses f16.
// REQUIRES: cuda-toolkit
// RUN: tgc-run %s --backend=cuda --compile-only --cuda-arch=sm_90 --precision=f16 --print-plan | FileCheck %s --check-prefix=F16
// RUN: tgc-run %s --backend=cuda --compile-only --cuda-arch=sm_90 --precision=bf16 --print-plan | FileCheck %s --check-prefix=BF16
// RUN: TGC_PRECISION=half tgc-run %s --backend=cuda --compile-only --cuda-arch=sm_90 --print-plan | FileCheck %s --check-prefix=F16
// RUN: tgc-run %s --backend=cuda --compile-only --cuda-arch=sm_90 --precision=f32 --print-plan | FileCheck %s --check-prefix=F32
// RUN: tgc-run %s --backend=cuda --compile-only --cuda-arch=sm_90 --precision=int8 --print-plan 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: not tgc-run %s --backend=cpu --precision=f16 2>&1 | FileCheck %s --check-prefix=CPU

// F16: [0] {{.*}} elementwise {{.*}} [cast] {{.*}} (b0:4x8xf32) -> ([[X:b[0-9]+]]:4x8xf16)
// F16-NEXT: [1] cublasLt matmul (4x8 * 8x2) + bias + relu {{.*}} ([[X]]:4x8xf16, [[W:b[0-9]+]]:8x2xf16, [[B:b[0-9]+]]:2xf16) -> ([[Y:b[0-9]+]]:4x2xf16)
// F16-NEXT: [2] {{.*}} elementwise {{.*}} [cast] {{.*}} ([[Y]]:4x2xf16) -> ([[R:b[0-9]+]]:4x2xf32)
// F16-NEXT: results: [[R]]:4x2xf32
// BF16: [1] cublasLt matmul (4x8 * 8x2) + bias + relu {{.*}}xbf16) -> ({{b[0-9]+}}:4x2xbf16)
// F32: [0] cublasLt matmul (4x8 * 8x2) + bias + relu {{.*}} (b0:4x8xf32, {{.*}}) -> ({{b[0-9]+}}:4x2xf32)
// INT8: int8: 0 of 1 library call (the others f32: no QDQ grid or calibration entry, or not expressible as an int8 call)
// INT8-NEXT: buffers:
// INT8-NEXT: [0] cublasLt matmul (4x8 * 8x2) + bias + relu {{.*}} (b0:4x8xf32, {{.*}}) -> ({{b[0-9]+}}:4x2xf32)
// CPU: tgc-run: error: {{.*}}precision f16 runs on the cuda backend (half tensor cores); the cpu backend multiplies in f32, bf16
func.func @main(%a: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %w = tgc.constant dense<[[0.5, -0.25], [1.0, 2.0], [0.125, 0.5], [-1.0, 0.75], [0.5, 0.5], [0.25, -0.5], [1.5, 0.0], [-0.75, 1.0]]> : tensor<8x2xf32>
  %b = tgc.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %c = tgc.matmul %a, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %d = tgc.add %c, %b : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %e = tgc.relu %d : tensor<4x2xf32>
  return %e : tensor<4x2xf32>
}
