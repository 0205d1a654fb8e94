// Without a GPU, running a CUDA artifact says so (printing its plan works:
// cuda-artifact.mlir).
// REQUIRES: cuda-toolkit, no-cuda-driver
// RUN: tgc-compile --backend=cuda %s -o %t.tgcx
// RUN: not tgc-run %t.tgcx 2>&1 | FileCheck %s
// CHECK: tgc-run: error: no CUDA device: no CUDA {{driver|device}}
func.func @neg(%x: tensor<16xf32>) -> tensor<16xf32> {
  %y = tgc.neg %x : tensor<16xf32>
  return %y : tensor<16xf32>
}
