// Without a GPU (no libcuda.so.1 on these machines) --backend=cuda says so
// with a non-zero exit. On a machine with a GPU this test is unsupported.
// REQUIRES: no-cuda-driver
// RUN: not tgc-run %s --backend=cuda 2>&1 | FileCheck %s
// CHECK: tgc-run: error: no CUDA device: no CUDA {{driver|device}}
func.func @id(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
