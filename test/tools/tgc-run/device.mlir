// tgc-run --device=cpu|cuda|cuda:N: cuda:N is --backend=cuda on GPU N; bad
// strings and conflicts with --backend are errors. TGC_CUDA_DRIVER points the
// loader at a library that does not exist, so the no-device result does not
// depend on the machine.
// RUN: tgc-run %s --device=cpu --input=4xf32=1,2,3,4 | FileCheck %s
// RUN: tgc-run %s --device=cpu --backend=reference --input=4xf32=1,2,3,4 | FileCheck %s
// RUN: not tgc-run %s --device=gpu 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tgc-run %s --device=cuda:x 2>&1 | FileCheck %s --check-prefix=BADORD
// RUN: not tgc-run %s --device=cuda:1 --backend=cpu 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: env TGC_CUDA_DRIVER=libtgc-no-such-driver.so.1 not tgc-run %s --device=cuda:1 --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=NODRIVER

// CHECK: result #0: tensor<4xf32> = [2, 4, 6, 8]
// BAD: tgc-run: error: --device: invalid device 'gpu': unknown device kind (expected cpu, cuda or cuda:N)
// BADORD: tgc-run: error: --device: invalid device 'cuda:x': the ordinal must be a non-negative decimal number (expected cpu, cuda or cuda:N)
// CONFLICT: tgc-run: error: --device=cuda:1 conflicts with --backend=cpu
// NODRIVER: tgc-run: error: no CUDA device: no CUDA driver (libtgc-no-such-driver.so.1 not found)
func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
