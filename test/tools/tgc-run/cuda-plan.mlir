// tgc-run --backend=cuda compiles (specialize, tgc-cuda pipeline, generated
// kernels, NVRTC, device executable plan) without a GPU: --compile-only
// stops there, --print-plan prints the plan. Running needs a device.
// REQUIRES: cuda-toolkit
// RUN: tgc-run %s --function=chain --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 --input=4x8xf32=1 | FileCheck %s --check-prefix=CHAIN
// RUN: tgc-run %s --function=chain --backend=cuda --compile-only --print-plan --cuda-arch=sm_80 --input=4x8xf32=1 | FileCheck %s --check-prefix=SM80
// RUN: tgc-run %s --function=chain --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 --pipeline=tgc-cpu-unfused --input=4x8xf32=1 | FileCheck %s --check-prefix=UNFUSED
// RUN: tgc-run %s --function=softmax --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 | FileCheck %s --check-prefix=SOFTMAX
// RUN: tgc-run %s --function=layer_norm --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 | FileCheck %s --check-prefix=LN
// RUN: tgc-run %s --function=mlp --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 --pipeline=tgc-cpu-unfused | FileCheck %s --check-prefix=VIEW
// RUN: tgc-run %s --function=mlp --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 | FileCheck %s --check-prefix=FUSED
// RUN: tgc-run %s --function=dense --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 | FileCheck %s --check-prefix=MATMUL
// RUN: tgc-run %s --function=outer --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 | FileCheck %s --check-prefix=OUTER
// RUN: tgc-run %s --function=integer --backend=cuda --compile-only --print-plan --cuda-arch=sm_90 | FileCheck %s --check-prefix=INT
// RUN: not tgc-run %s --function=softmax --backend=cuda --compile-only --cuda-arch=sm_10 2>&1 | FileCheck %s --check-prefix=ARCH
// Without a device, --print-plan compiles and prints the plan, then running
// fails clearly; without --print-plan it fails before compiling.
// RUN: env TGC_CUDA_DRIVER=libtgc-no-such-driver.so.1 not tgc-run %s --function=softmax --backend=cuda --print-plan --cuda-arch=sm_90 2>%t.err | FileCheck %s --check-prefix=SOFTMAX
// RUN: FileCheck %s --check-prefix=NODEV < %t.err
// RUN: env TGC_CUDA_DRIVER=libtgc-no-such-driver.so.1 not tgc-run %s --function=softmax --backend=cuda 2>&1 | FileCheck %s --check-prefix=NODEV
// NODEV: tgc-run: error: no CUDA device: no CUDA driver (libtgc-no-such-driver.so.1 not found)
// RUN: tgc-run %s --function=chain --backend=cpu --compile-only --print-plan --input=4x8xf32=1 | FileCheck %s --check-prefix=CPU

// An elementwise chain with a dynamic dim: specialized for 4x8, fused into
// one grid-stride kernel with two results (one a reshape).
// CHAIN:      cuda plan for @chain (sm_90, cubin + ptx fallback, NVRTC {{[0-9.]+}}): 1 kernel, one synchronization per call
// CHAIN-NEXT: buffers: b0 input 4x8xf32; b1 input 8xf32; b2 intermediate 128 B; b3 intermediate 128 B;
// CHAIN-NEXT: [0] tgc_chain_0 <<<1, 256>>> elementwise (32 elements) [add,tanh,mul,reshape,exp] at {{.*}}cuda-plan.mlir:[[@LINE+9]]:8 (b0:4x8xf32, b1:8xf32) -> (b2:32xf32, b3:4x8xf32)
// CHAIN-NEXT: results: b3:4x8xf32, b2:32xf32
// CHAIN-NEXT: intermediates: 2 buffers, 256 bytes
// SM80:       cuda plan for @chain (sm_80, cubin + ptx fallback,
// UNFUSED:    4 kernels
// UNFUSED:    [2] tgc_chain_2 <<<1, 256>>> elementwise (32 elements) [mul] at {{.*}} (b3:4x8xf32) -> (b2:4x8xf32)
// UNFUSED:    intermediates: 2 buffers, 256 bytes
// CPU:        [0] jit tgc.fusion <loop>
func.func @chain(%x: tensor<4x?xf32>, %b: tensor<8xf32>) -> (tensor<4x?xf32>, tensor<32xf32>) {
  %0 = tgc.add %x, %b : (tensor<4x?xf32>, tensor<8xf32>) -> tensor<4x?xf32>
  %1 = tgc.tanh %0 : tensor<4x?xf32>
  %2 = tgc.mul %1, %1 : tensor<4x?xf32>
  %3 = tgc.reshape %2 : tensor<4x?xf32> to tensor<32xf32>
  %4 = tgc.exp %2 : tensor<4x?xf32>
  return %4, %3 : tensor<4x?xf32>, tensor<32xf32>
}

// SOFTMAX:      cuda plan for @softmax (sm_90, cubin + ptx fallback, NVRTC {{[0-9.]+}}): 1 kernel, one synchronization per call
// SOFTMAX-NEXT: buffers: b0 input 33x1000xf32; b1 intermediate 132000 B;
// SOFTMAX-NEXT: [0] tgc_softmax_0 <<<33, 256>>> row (33 rows of 1000, one block per row) [reduce_max,sub,exp,reduce_sum,div] at {{.*}} (b0:33x1000xf32) -> (b1:33x1000xf32)
// SOFTMAX-NEXT: results: b1:33x1000xf32
func.func @softmax(%x: tensor<33x1000xf32>) -> tensor<33x1000xf32> {
  %m = tgc.reduce_max %x {axes = array<i64: 1>, keepdims} : (tensor<33x1000xf32>) -> tensor<33x1xf32>
  %d = tgc.sub %x, %m : (tensor<33x1000xf32>, tensor<33x1xf32>) -> tensor<33x1000xf32>
  %e = tgc.exp %d : tensor<33x1000xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<33x1000xf32>) -> tensor<33x1xf32>
  %y = tgc.div %e, %s : (tensor<33x1000xf32>, tensor<33x1xf32>) -> tensor<33x1000xf32>
  return %y : tensor<33x1000xf32>
}

// LN:      1 kernel
// LN:      [0] tgc_layer_norm_0 <<<64, 256>>> row (64 rows of 768, one block per row) [reduce_mean,sub,mul,reduce_mean,add,rsqrt,mul,mul,add] at {{.*}} (b0:64x768xf32, b1:768xf32, b2:768xf32) -> (b3:64x768xf32)
func.func @layer_norm(%x: tensor<64x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<64x768xf32> {
  %eps = tgc.constant dense<1.0e-05> : tensor<f32>
  %mean = tgc.reduce_mean %x {axes = array<i64: 1>, keepdims} : (tensor<64x768xf32>) -> tensor<64x1xf32>
  %d = tgc.sub %x, %mean : (tensor<64x768xf32>, tensor<64x1xf32>) -> tensor<64x768xf32>
  %sq = tgc.mul %d, %d : tensor<64x768xf32>
  %var = tgc.reduce_mean %sq {axes = array<i64: 1>, keepdims} : (tensor<64x768xf32>) -> tensor<64x1xf32>
  %ve = tgc.add %var, %eps : (tensor<64x1xf32>, tensor<f32>) -> tensor<64x1xf32>
  %r = tgc.rsqrt %ve : tensor<64x1xf32>
  %n = tgc.mul %d, %r : (tensor<64x768xf32>, tensor<64x1xf32>) -> tensor<64x768xf32>
  %s = tgc.mul %n, %g : (tensor<64x768xf32>, tensor<768xf32>) -> tensor<64x768xf32>
  %y = tgc.add %s, %b : (tensor<64x768xf32>, tensor<768xf32>) -> tensor<64x768xf32>
  return %y : tensor<64x768xf32>
}

// Unfused (--pipeline=tgc-cpu-unfused), single ops become one-op kernels; a
// reshape between them is a view (no kernel, same buffer); a constant
// operand is a constant buffer; the first kernel's buffer is reused by the
// third. Fused, all of it is one row kernel with two results.
// FUSED:     [0] tgc_mlp_0 <<<1, 32>>> row (1 rows of 6, one block per row) [relu,reshape,add,reduce_sum] at {{.*}} (b0:2x3xf32) -> (b1:6xf32, b2:f32)
// FUSED:     results: b2:f32, b1:6xf32
// VIEW:      3 kernels
// VIEW-NEXT: buffers: b0 input 2x3xf32; b1 constant 6xf32; b2 intermediate 24 B; b3 intermediate 24 B;
// VIEW-NEXT: [0] tgc_mlp_0 <<<1, 256>>> elementwise (6 elements) [relu] at {{.*}} (b0:2x3xf32) -> (b2:2x3xf32)
// VIEW-NEXT: [1] tgc_mlp_1 <<<1, 256>>> elementwise (6 elements) [add] at {{.*}} (b2:6xf32, b1:6xf32) -> (b3:6xf32)
// VIEW-NEXT: [2] tgc_mlp_2 <<<1, 32>>> row (1 rows of 6, one block per row) [reduce_sum] at {{.*}} (b3:6xf32) -> (b2:f32)
// VIEW-NEXT: results: b2:f32, b3:6xf32
func.func @mlp(%x: tensor<2x3xf32>) -> (tensor<f32>, tensor<6xf32>) {
  %c = tgc.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %0 = tgc.relu %x : tensor<2x3xf32>
  %1 = tgc.reshape %0 : tensor<2x3xf32> to tensor<6xf32>
  %2 = tgc.add %1, %c : tensor<6xf32>
  %3 = tgc.reduce_sum %2 {axes = array<i64: 0>} : (tensor<6xf32>) -> tensor<f32>
  return %3, %2 : tensor<f32>, tensor<6xf32>
}

// A matmul with its bias and relu is one cuBLASLt call (epilogue
// BIAS_RELU); the tanh before it a kernel (more in cuda-contractions.mlir).
// MATMUL:      1 kernel, 1 cuBLASLt matmul, one synchronization per call
// MATMUL:      [0] tgc_dense_0 <<<1, 256>>> elementwise (8 elements) [tanh] at {{.*}}cuda-plan.mlir:[[@LINE+4]]:8 (b0:2x4xf32) -> (b3:2x4xf32)
// MATMUL-NEXT: [1] cublasLt matmul (2x4 * 4x8) + bias + relu at {{.*}}cuda-plan.mlir:[[@LINE+4]]:8 (b3:2x4xf32, b1:4x8xf32, b2:8xf32) -> (b4:2x8xf32)
// MATMUL-NEXT: results: b4:2x8xf32
func.func @dense(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = tgc.tanh %x : tensor<2x4xf32>
  %1 = tgc.matmul %0, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  %2 = tgc.add %1, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %3 = tgc.relu %2 : tensor<2x8xf32>
  return %3 : tensor<2x8xf32>
}

// A reduction over an outer axis: one thread per output element loops over
// the reduced dim, with the exp before it and the sqrt after it fused.
// OUTER:      1 kernel, one synchronization per call
// OUTER:      [0] tgc_outer_0 <<<1, 256>>> elementwise (7 elements) [exp,reduce_sum,sqrt] at {{.*}}cuda-plan.mlir:[[@LINE+3]]:8 (b0:5x7xf32) -> (b1:7xf32)
// OUTER-NEXT: results: b1:7xf32
func.func @outer(%x: tensor<5x7xf32>) -> tensor<7xf32> {
  %0 = tgc.exp %x : tensor<5x7xf32>
  %1 = tgc.reduce_sum %0 {axes = array<i64: 0>} : (tensor<5x7xf32>) -> tensor<7xf32>
  %2 = tgc.sqrt %1 : tensor<7xf32>
  return %2 : tensor<7xf32>
}

// Integer elementwise ops are generated kernels too (wrapping arithmetic).
// INT: [0] tgc_integer_0 <<<1, 256>>> elementwise (4 elements) [add] at {{.*}}cuda-plan.mlir:[[@LINE+2]]:8 (b0:4xi32) -> (b1:4xi32)
func.func @integer(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tgc.add %x, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// ARCH: tgc-run: error: CUDA arch 'sm_10' is not supported by NVRTC
