// --backend=cuda on a machine without a driver or GPU (these CI machines)
// reports why, with a non-zero exit, and never crashes; the other backends
// keep working. TGC_CUDA_DRIVER points the loader at libraries that are not
// a driver, so the result does not depend on the machine.
// RUN: env TGC_CUDA_DRIVER=libtgc-no-such-driver.so.1 not tgc-run %s --backend=cuda --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=NODRIVER
// RUN: env TGC_CUDA_DRIVER=libm.so.6 not tgc-run %s --backend=cuda 2>&1 | FileCheck %s --check-prefix=NOTDRIVER
// RUN: tgc-run %s --backend=reference --input=4xf32=1,2,3,4 | FileCheck %s
// RUN: tgc-run %s --backend=cpu --input=4xf32=1,2,3,4 | FileCheck %s

// NODRIVER: tgc-run: error: no CUDA device: no CUDA driver (libtgc-no-such-driver.so.1 not found)
// NOTDRIVER: tgc-run: error: no CUDA device: no CUDA driver (libm.so.6 lacks cuInit)
// CHECK: result #0: tensor<4xf32> = [2, 4, 6, 8]
func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
