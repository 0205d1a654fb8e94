// tgc-run --differential --backend=cuda: on a GPU every function runs on the
// device and on the reference interpreter (test/gpu/cuda-differential.sh,
// ctest cuda-differential); without one it says so and exits with
// --no-device-exit-code (77 makes ctest report a skip). --compile-only
// compiles every function for cuda, GPU or not, and lists what the backend
// refuses.
// REQUIRES: cuda-toolkit
// RUN: env TGC_CUDA_DRIVER=libtgc-no-such-driver.so.1 tgc-run --differential --backend=cuda --no-device-exit-code=0 %s 2>&1 | FileCheck %s --check-prefix=NODEV
// RUN: env TGC_CUDA_DRIVER=libtgc-no-such-driver.so.1 not tgc-run --differential --backend=cuda %s 2>&1 | FileCheck %s --check-prefix=NODEV
// RUN: tgc-run --differential --backend=cuda --compile-only %s | FileCheck %s --check-prefix=COMPILE
// RUN: not tgc-run --differential --backend=reference %s 2>&1 | FileCheck %s --check-prefix=BADBACKEND

// NODEV-DAG: differential: skipped (no CUDA device: no CUDA driver (libtgc-no-such-driver.so.1 not found))
// NODEV-DAG: tgc-run: error: no CUDA device: no CUDA driver (libtgc-no-such-driver.so.1 not found)

// COMPILE-DAG: @mlp: compiles
// COMPILE-DAG: @pooled: compiles
// COMPILE-DAG: @sorted: unsupported: tgc.topk at {{.*}}cuda-differential.mlir:{{[0-9]+}}:{{[0-9]+}} is not supported by the cuda backend yet: 'tgc.topk' is not supported in a loop fusion
// COMPILE:     cuda compile: 3 functions, 2 compile, 1 unsupported, 0 failed

// BADBACKEND: tgc-run: error: --differential compares --backend=cpu or cuda with the reference interpreter, not 'reference'

func.func @mlp(%x: tensor<?x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  %1 = tgc.add %0, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %2 = tgc.gelu %1 : tensor<?x8xf32>
  return %2 : tensor<?x8xf32>
}

func.func @pooled(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

func.func @sorted(%x: tensor<6xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  %v, %i = tgc.topk %x {k = 2 : i64, axis = 0 : i64} : (tensor<6xf32>) -> (tensor<2xf32>, tensor<2xi64>)
  return %v, %i : tensor<2xf32>, tensor<2xi64>
}
