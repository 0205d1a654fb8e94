// UNSUPPORTED: cpu-bf16
// --precision=bf16 on a CPU without native bf16 (AVX2, or
// DNNL_MAX_CPU_ISA=AVX2): an error that says what is missing; auto keeps
// f32, bitwise.
// RUN: not tgc-run %s --precision=bf16 2>&1 | FileCheck %s
// RUN: tgc-run %s --precision=f32 --threads=1 --output=%t.f32.npy
// RUN: tgc-run %s --precision=auto --threads=1 --output=%t.auto.npy
// RUN: cmp %t.f32.npy %t.auto.npy
// CHECK: precision bf16 needs a CPU with native bfloat16 (AVX512_BF16 or AMX); this one runs
func.func @main(%x: tensor<1x16x8x8xf32>, %f: tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %c = tgc.conv2d %x, %f {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  return %c : tensor<1x32x8x8xf32>
}
