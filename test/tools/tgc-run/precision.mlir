// --precision (docs/precision.md) on every CPU: f32 is the default, int8
// and unknown policies are errors, auto runs bf16 only where it is native.
// RUN: tgc-run %s --precision=f32 --threads=1 --output=%t.f32.npy --output=%t.f32s.npy
// RUN: tgc-run %s --threads=1 --output=%t.default.npy
// RUN: cmp %t.f32.npy %t.default.npy
// RUN: TGC_PRECISION=f32 tgc-run %s --threads=1 --output=%t.env.npy
// RUN: cmp %t.f32.npy %t.env.npy
// RUN: tgc-run %s --precision=auto --threads=1 --expected=%t.f32.npy --expected=%t.f32s.npy --rtol=0.05 --atol=0.05
// RUN: not tgc-run %s --precision=int8 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: not tgc-run %s --precision=fp8 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tgc-run %s --precision=f32 --print-plan --compile-only | FileCheck %s --check-prefix=F32
// INT8: tgc-run: error: --precision=int8 needs a calibration
// BAD: tgc-run: error: unknown --precision 'fp8' (f32, bf16, f16, int8 or auto)
// F32-NOT: [bf16]
// F32: onednn tgc.fusion(tgc.conv2d
// F32-NOT: [bf16]
func.func @main(%x: tensor<1x16x8x8xf32>, %f: tensor<32x16x3x3xf32>, %a: tensor<4x64xf32>, %w: tensor<64x8xf32>) -> (tensor<1x32x8x8xf32>, tensor<4x8xf32>) {
  %c = tgc.conv2d %x, %f {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %r = tgc.relu %c : tensor<1x32x8x8xf32>
  %m = tgc.matmul %a, %w : (tensor<4x64xf32>, tensor<64x8xf32>) -> tensor<4x8xf32>
  %s = tgc.softmax %m {axis = 1 : i64} : tensor<4x8xf32>
  return %r, %s : tensor<1x32x8x8xf32>, tensor<4x8xf32>
}
