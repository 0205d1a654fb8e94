// REQUIRES: cpu-bf16
// --precision=bf16 on a CPU with native bf16: the convolution and the
// matmul multiply in bf16 (the plan says so per kernel), softmax stays
// f32, and the results are near the f32 ones but not the same bits.
// RUN: tgc-run %s --precision=f32 --threads=1 --output=%t.f32.npy --output=%t.f32s.npy
// RUN: tgc-run %s --precision=bf16 --threads=1 --output=%t.bf16.npy --output=%t.bf16s.npy --expected=%t.f32.npy --expected=%t.f32s.npy --rtol=0.05 --atol=0.05
// RUN: not cmp -s %t.f32.npy %t.bf16.npy
// RUN: TGC_PRECISION=auto tgc-run %s --threads=1 --output=%t.auto.npy --output=%t.autos.npy
// RUN: cmp %t.bf16.npy %t.auto.npy
// RUN: tgc-run %s --precision=bf16 --print-plan --compile-only | FileCheck %s
// CHECK: onednn tgc.fusion(tgc.conv2d + eltwise_relu)
// CHECK-SAME: [onednn.conv2d[bf16]]
// CHECK: onednn tgc.matmul
// CHECK-SAME: [onednn.matmul[bf16]]
// CHECK: tgc.softmax
// CHECK-NOT: [bf16]
func.func @main(%x: tensor<1x16x8x8xf32>, %f: tensor<32x16x3x3xf32>, %a: tensor<4x64xf32>, %w: tensor<64x8xf32>) -> (tensor<1x32x8x8xf32>, tensor<4x8xf32>) {
  %c = tgc.conv2d %x, %f {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %r = tgc.relu %c : tensor<1x32x8x8xf32>
  %m = tgc.matmul %a, %w : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
  %s = tgc.softmax %m {axis = 1 : i64} : tensor<4x8xf32>
  return %r, %s : tensor<1x32x8x8xf32>, tensor<4x8xf32>
}
