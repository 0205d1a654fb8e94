// A CUDA artifact runs on the GPU like the JIT path (within float
// tolerance of the CPU backend), on machines with a CUDA driver.
// REQUIRES: cuda-toolkit
// UNSUPPORTED: no-cuda-driver
// RUN: tgc-compile --backend=cuda %s -o %t.tgcx
// RUN: tgc-run %s --backend=cpu --output=%t.cpu.npy
// RUN: tgc-run %s --backend=cuda --output=%t.jit.npy
// RUN: tgc-run %t.tgcx --output=%t.aot.npy --expected=%t.cpu.npy --rtol=1e-4 --atol=1e-6
// RUN: cmp %t.jit.npy %t.aot.npy
func.func @mlp(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %h = tgc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %r = tgc.relu %h : tensor<8x32xf32>
  %s = tgc.softmax %r {axis = 1 : i64} : tensor<8x32xf32>
  return %s : tensor<8x32xf32>
}
