// Contractions on the cuda backend (compile only: no GPU needed). The
// tgc-cuda pipeline grows post-op fusions from the same table as the CPU;
// the compiler puts what cuBLASLt's epilogues (alpha, bias, residual C,
// relu, tanh-GELU) and cuDNN's fused conv-bias-activation (bias, residual,
// relu) compute into the library call, and the rest of the chain into a
// generated kernel right after it.
// REQUIRES: cuda-toolkit
// RUN: tgc-run %s --function=mlp --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=MLP
// RUN: tgc-run %s --function=epilogue_split --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=SPLIT
// RUN: tgc-run %s --function=attention --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=ATTN
// RUN: tgc-run %s --function=residual --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=RESIDUAL
// RUN: tgc-run %s --function=broadcast_batch --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=BCAST
// RUN: tgc-run %s --function=conv_block --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=CONV
// RUN: tgc-run %s --function=conv_nhwc --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=NHWC
// RUN: tgc-run %s --function=conv_asymmetric --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=ASYM
// RUN: tgc-run %s --function=mlp --backend=cuda --compile-only --print-plan --pipeline=tgc-cpu-unfused | FileCheck %s --check-prefix=UNFUSED
// RUN: not tgc-run %s --function=integer --backend=cuda --compile-only 2>&1 | FileCheck %s --check-prefix=INT

// Bias + relu and bias alone are cuBLASLt epilogues; three matmuls in a
// row share two buffers.
// MLP:      cuda plan for @mlp ({{.*}}): 0 kernels, 2 cuBLASLt matmuls, one synchronization per call
// MLP:      [0] cublasLt matmul (8x64 * 64x32) + bias + relu at {{.*}}cuda-contractions.mlir:[[@LINE+6]]:8 (b0:8x64xf32, b1:64x32xf32, b2:32xf32) -> (b5:8x32xf32)
// MLP-NEXT: [1] cublasLt matmul (8x32 * 32x10) + bias at {{.*}}cuda-contractions.mlir:[[@LINE+8]]:8 (b5:8x32xf32, b3:32x10xf32, b4:10xf32) -> (b6:8x10xf32)
// MLP-NEXT: results: b6:8x10xf32
// UNFUSED:  cuda plan for @mlp ({{.*}}): 3 kernels, 2 cuBLASLt matmuls
// UNFUSED:  [0] cublasLt matmul (8x64 * 64x32) at
func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<64x32xf32>, %b1: tensor<32xf32>, %w2: tensor<32x10xf32>, %b2: tensor<10xf32>) -> tensor<8x10xf32> {
  %0 = tgc.matmul %x, %w1 : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %1 = tgc.add %0, %b1 : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %2 = tgc.relu %1 : tensor<8x32xf32>
  %3 = tgc.matmul %2, %w2 : (tensor<8x32xf32>, tensor<32x10xf32>) -> tensor<8x10xf32>
  %4 = tgc.add %3, %b2 : (tensor<8x10xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  return %4 : tensor<8x10xf32>
}

// GELU in its erf form and a following sigmoid have no cuBLASLt epilogue:
// the bias stays in the call, the rest of the fused chain becomes one
// kernel after it.
// SPLIT:      1 kernel, 1 cuBLASLt matmul
// SPLIT:      [0] cublasLt matmul (4x16 * 16x8) + bias at {{.*}}cuda-contractions.mlir:[[@LINE+4]]:8 (b0:4x16xf32, b1:16x8xf32, b2:8xf32) -> (b3:4x8xf32)
// SPLIT-NEXT: [1] tgc_epilogue_split_0 <<<1, 256>>> elementwise (32 elements) [gelu,sigmoid] at {{.*}} (b3:4x8xf32) -> (b4:4x8xf32)
// SPLIT-NEXT: results: b4:4x8xf32
func.func @epilogue_split(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tgc.gelu %1 : tensor<4x8xf32>
  %3 = tgc.sigmoid %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// Attention scores: a batched matmul with the transposed keys (one
// cuBLASLt call, 12 strided batches), the scale fused as alpha, softmax
// decomposed (tgc-decompose-normalizations) into one row kernel, and the
// second batched matmul.
// ATTN:      1 kernel, 2 cuBLASLt matmuls
// ATTN:      [0] cublasLt matmul 12x(16x8 * 8x16) transB + scale at {{.*}} (b0:12x16x8xf32, b1:12x16x8xf32) -> (b3:12x16x16xf32)
// ATTN-NEXT: [1] tgc_attention_0 <<<192, {{[0-9]+}}>>> row (192 rows of 16, one block per row) [reduce_max,sub,exp,reduce_sum,div] at
// ATTN-NEXT: [2] cublasLt matmul 12x(16x16 * 16x8) at {{.*}} -> (b3:12x16x8xf32)
func.func @attention(%q: tensor<12x16x8xf32>, %k: tensor<12x16x8xf32>, %v: tensor<12x16x8xf32>) -> tensor<12x16x8xf32> {
  %s = tgc.matmul %q, %k {transpose_b} : (tensor<12x16x8xf32>, tensor<12x16x8xf32>) -> tensor<12x16x16xf32>
  %c = tgc.constant dense<0.125> : tensor<f32>
  %scaled = tgc.mul %s, %c : (tensor<12x16x16xf32>, tensor<f32>) -> tensor<12x16x16xf32>
  %p = tgc.softmax %scaled {axis = 2 : i64} : tensor<12x16x16xf32>
  %o = tgc.matmul %p, %v : (tensor<12x16x16xf32>, tensor<12x16x8xf32>) -> tensor<12x16x8xf32>
  return %o : tensor<12x16x8xf32>
}

// A residual add joins the call as cuBLASLt's C (beta = 1); a [B, M, K] x
// [K, N] matmul is one GEMM of B*M rows.
// RESIDUAL: 0 kernels, 1 cuBLASLt matmul
// RESIDUAL: [0] cublasLt matmul (32x16 * 16x16) + bias + residual add + relu at {{.*}} (b0:2x16x16xf32, b1:16x16xf32, b3:2x16x16xf32, b2:16xf32) -> (b4:2x16x16xf32)
func.func @residual(%x: tensor<2x16x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>, %r: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %0 = tgc.matmul %x, %w : (tensor<2x16x16xf32>, tensor<16x16xf32>) -> tensor<2x16x16xf32>
  %1 = tgc.add %0, %b : (tensor<2x16x16xf32>, tensor<16xf32>) -> tensor<2x16x16xf32>
  %2 = tgc.add %1, %r : tensor<2x16x16xf32>
  %3 = tgc.relu %2 : tensor<2x16x16xf32>
  return %3 : tensor<2x16x16xf32>
}

// Batch dims that broadcast only in part (2x1 against 3) have no single
// cuBLASLt stride (nor does 3 against 2x3): both operands are broadcast
// by a kernel first.
// BCAST:      2 kernels, 1 cuBLASLt matmul
// BCAST:      [0] tgc_broadcast_batch_0 {{.*}} [broadcast_to] at {{.*}} (b0:2x1x4x8xf32) -> (b2:2x3x4x8xf32)
// BCAST-NEXT: [1] tgc_broadcast_batch_1 {{.*}} [broadcast_to] at {{.*}} (b1:3x8x5xf32) -> (b3:2x3x8x5xf32)
// BCAST-NEXT: [2] cublasLt matmul 6x(4x8 * 8x5) at {{.*}} (b2:2x3x4x8xf32, b3:2x3x8x5xf32) -> (b4:2x3x4x5xf32)
func.func @broadcast_batch(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = tgc.matmul %a, %b : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// A ResNet block: conv + bias + relu, then conv + bias + residual + relu,
// each one cuDNN call; the batch norm after the first folds into it.
// CONV:      0 kernels, 2 cuDNN convolutions
// CONV:      [0] cudnn conv2d 1x8x8x8 * 8x8x3x3 pad 1 + bias + relu at {{.*}}cuda-contractions.mlir:[[@LINE+9]]:8
// CONV-NEXT: [1] cudnn conv2d 1x8x8x8 * 8x8x3x3 pad 1 + bias + residual add + relu at {{.*}}cuda-contractions.mlir:[[@LINE+11]]:8 ({{.*}}, b0:1x8x8x8xf32) -> ({{.*}})
func.func @conv_block(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = tgc.constant dense<0.01> : tensor<8x8x3x3xf32>
  %s = tgc.constant dense<2.0> : tensor<8xf32>
  %t = tgc.constant dense<0.5> : tensor<8xf32>
  %m = tgc.constant dense<0.1> : tensor<8xf32>
  %v = tgc.constant dense<4.0> : tensor<8xf32>
  %b = tgc.constant dense<0.25> : tensor<8xf32>
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = tgc.batch_norm %0, %s, %t, %m, %v : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %2 = tgc.relu %1 : tensor<1x8x8x8xf32>
  %3 = tgc.conv2d %2, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %4 = tgc.add %3, %x : tensor<1x8x8x8xf32>
  %5 = tgc.relu %4 : tensor<1x8x8x8xf32>
  return %5 : tensor<1x8x8x8xf32>
}

// In NHWC layout cuDNN wants the filter as OHWI. A constant filter is permuted at
// compile time (a constant buffer of its own); a computed one by a
// transpose kernel before the call. Clamp (relu6) is no cuDNN activation:
// a kernel after the call.
// NHWC:      2 kernels, 2 cuDNN convolutions
// NHWC:      cudnn conv2d NHWC 1x6x6x4 * 8x4x3x3 + bias at {{.*}} (b0:1x6x6x4xf32, b[[C:[0-9]+]]:8x3x3x4xf32 (OHWI), b{{[0-9]+}}:8xf32)
// NHWC:      [transpose] at {{.*}} (b1:3x3x4x8xf32) -> (b{{[0-9]+}}:8x3x3x4xf32)
// NHWC-NEXT: cudnn conv2d NHWC 1x6x6x4 * 8x4x3x3 at {{.*}} (b0:1x6x6x4xf32, b{{[0-9]+}}:8x3x3x4xf32 (OHWI))
// NHWC-NEXT: [clamp] at
func.func @conv_nhwc(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x8xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) {
  %wc = tgc.constant dense<0.5> : tensor<3x3x4x8xf32>
  %b = tgc.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %0 = tgc.conv2d %x, %wc, %b {layout = #tgc.layout<NHWC>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %1 = tgc.conv2d %x, %w {layout = #tgc.layout<NHWC>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x4x4x8xf32>
  %2 = tgc.clamp %1 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x4x4x8xf32>
  return %0, %2 : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>
}

// Asymmetric padding (ONNX SAME_UPPER): cuDNN pads symmetrically, so the
// extra row and column come from a pad kernel before the call.
// ASYM:      1 kernel, 1 cuDNN convolution
// ASYM:      [0] {{.*}} [pad] at {{.*}} (b0:1x2x6x6xf32) -> (b{{[0-9]+}}:1x2x7x7xf32)
// ASYM-NEXT: [1] cudnn conv2d 1x2x7x7 * 2x2x3x3 stride 2 at {{.*}} -> (b{{[0-9]+}}:1x2x3x3xf32)
func.func @conv_asymmetric(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %0 = tgc.conv2d %x, %w {padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// Integer matmuls have no library call (cuBLASLt takes floats here).
// INT: tgc-run: error: tgc.matmul at {{.*}}cuda-contractions.mlir:[[@LINE+2]]:8 is not supported by the cuda backend yet: cuBLASLt and cuDNN calls take f32, f16 or bf16 here, got tensor<2x4xi32>
func.func @integer(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  %0 = tgc.matmul %a, %b : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// Empty tensors: an empty result needs no call (an empty constant stands
// for it); an empty K gives zeros, on which the post-ops still run.
// RUN: tgc-run %s --function=empty --backend=cuda --compile-only --print-plan --input=0x16xf32= | FileCheck %s --check-prefix=EMPTY
// RUN: tgc-run %s --function=empty_k --backend=cuda --compile-only --print-plan --input=4x0xf32= --input=0x8xf32= | FileCheck %s --check-prefix=EMPTYK
// EMPTY:      0 kernels, one synchronization per call
// EMPTY-NEXT: buffers: b0 input 0x16xf32; b1 input 16x8xf32; b2 constant 0x8xf32;
// EMPTY-NEXT: results: b2:0x8xf32
// EMPTYK:      2 kernels, one synchronization per call
// EMPTYK:      [0] tgc_empty_k_0 <<<1, 256>>> elementwise (32 elements) [add] at {{.*}} -> (b3:4x8xf32)
// EMPTYK-NEXT: [1] tgc_empty_k_1 <<<1, 256>>> elementwise (32 elements) [sigmoid] at {{.*}} (b3:4x8xf32) -> (b4:4x8xf32)
func.func @empty(%x: tensor<?x16xf32>, %w: tensor<16x8xf32>) -> tensor<?x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
func.func @empty_k(%x: tensor<4x?xf32>, %w: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<4x?xf32>, tensor<?x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tgc.sigmoid %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// The part of a chain the library does not compute fuses with what follows:
// erf-GELU after the matmul's bias and the softmax after it are one row
// kernel.
// RUN: tgc-run %s --function=gelu_softmax --backend=cuda --compile-only --print-plan | FileCheck %s --check-prefix=GELUSM
// GELUSM:      1 kernel, 1 cuBLASLt matmul
// GELUSM:      [0] cublasLt matmul (2x16 * 16x8) + bias at
// GELUSM-NEXT: [1] tgc_gelu_softmax_0 <<<2, 32>>> row (2 rows of 8, one block per row) [gelu,reduce_max,sub,exp,reduce_sum,div] at
func.func @gelu_softmax(%x: tensor<2x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<2x16xf32>, tensor<16x8xf32>) -> tensor<2x8xf32>
  %1 = tgc.add %0, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %2 = tgc.gelu %1 : tensor<2x8xf32>
  %3 = tgc.softmax %2 {axis = 1 : i64} : tensor<2x8xf32>
  return %3 : tensor<2x8xf32>
}
