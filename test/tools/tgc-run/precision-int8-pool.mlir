// int8 chains through a max pool (docs/precision.md, "int8 chains"): max
// pooling commutes with quantization, so the convolution before it writes
// u8 for the pool's two int8 consumers, the pool runs on the bytes, and
// both read them as they are. Results stay near f32's, and match the
// plan's own run from a saved table.
// RUN: rm -f %t.table
// RUN: tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --calibration-table=%t.table --calibrator=minmax --print-plan --compile-only | FileCheck %s --check-prefix=PLAN
// PLAN: tgc.fusion(tgc.conv2d + bias + eltwise_relu [nhwc u8])
// PLAN-SAME: [onednn.conv2d[int8]]
// PLAN-NEXT: tgc.max_pool2d {{.*}}[nhwc u8 -> nhwc u8]
// PLAN-SAME: [onednn.pool2d]
// PLAN-NEXT: (tensor<1x3x3x16xf32> (nhwc u8)
// PLAN-SAME: [onednn.conv2d[int8]]
// PLAN-NEXT: (tensor<1x3x3x16xf32> (nhwc u8)
// PLAN-SAME: [onednn.conv2d[int8]]
// RUN: tgc-run %s --input=%S/Inputs/calibration/s0002.npy --output=%t.f32.npy
// RUN: tgc-run %s --precision=int8 --calibration-table=%t.table --input=%S/Inputs/calibration/s0002.npy --expected=%t.f32.npy --rtol=0.05 --atol=0.1 --output=%t.int8.npy
// RUN: not cmp -s %t.int8.npy %t.f32.npy
func.func @main(%x: tensor<1x8x6x6xf32>) -> tensor<1x4x3x3xf32> {
  %f = tgc.constant dense<0.125> : tensor<16x8x3x3xf32>
  %b = tgc.constant dense<[0.5, -0.5, 0.25, -0.25, 0.0, 1.0, -1.0, 0.75, 0.5, -0.5, 0.25, -0.25, 0.0, 1.0, -1.0, 0.75]> : tensor<16xf32>
  %c = tgc.conv2d %x, %f, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
  %r = tgc.relu %c : tensor<1x16x6x6xf32>
  %p = tgc.max_pool2d %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x6x6xf32>) -> tensor<1x16x3x3xf32>
  %w1 = tgc.constant dense<[[[[0.5]], [[-0.25]], [[0.125]], [[0.0]], [[0.75]], [[-0.5]], [[0.25]], [[0.1]], [[-0.1]], [[0.3]], [[0.2]], [[-0.2]], [[0.4]], [[-0.4]], [[0.6]], [[-0.6]]], [[[0.1]], [[0.2]], [[0.3]], [[0.4]], [[0.5]], [[0.6]], [[0.7]], [[0.8]], [[-0.1]], [[-0.2]], [[-0.3]], [[-0.4]], [[-0.5]], [[-0.6]], [[-0.7]], [[-0.8]]], [[[1.0]], [[0.0]], [[-1.0]], [[0.0]], [[1.0]], [[0.0]], [[-1.0]], [[0.0]], [[0.5]], [[0.5]], [[0.5]], [[0.5]], [[-0.5]], [[-0.5]], [[-0.5]], [[-0.5]]], [[[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]], [[0.25]]]]> : tensor<4x16x1x1xf32>
  %a = tgc.conv2d %p, %w1 : (tensor<1x16x3x3xf32>, tensor<4x16x1x1xf32>) -> tensor<1x4x3x3xf32>
  %w2 = tgc.constant dense<0.0625> : tensor<4x16x3x3xf32>
  %d = tgc.conv2d %p, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x3x3xf32>, tensor<4x16x3x3xf32>) -> tensor<1x4x3x3xf32>
  %y = tgc.add %a, %d : tensor<1x4x3x3xf32>
  return %y : tensor<1x4x3x3xf32>
}
