// Lazy filter transposes (tgc-convert-layout's OIHW -> HWIO of a constant
// filter): the cpu backend's convolutions read the OIHW constant in its
// order (no transpose step, no second copy of the weights); a lazy
// transpose that anything but NHWC convolution filters reads runs as a
// transpose. Results always match the reference interpreter.
// RUN: tgc-run --differential %s | FileCheck %s
// RUN: tgc-run --differential --threads=1 --seed=5 %s | FileCheck %s
// RUN: env TGC_BLOCKED_LAYOUTS=blocked tgc-run --differential %s | FileCheck %s
// RUN: tgc-run %s --function=fused --print-plan | FileCheck %s --check-prefix=FUSED
// RUN: tgc-run %s --function=shared --print-plan | FileCheck %s --check-prefix=SHARED
// RUN: tgc-run %s --function=batch_norm --print-plan | FileCheck %s --check-prefix=BN

// CHECK-DAG: @fused: ok
// CHECK-DAG: @plain: ok
// CHECK-DAG: @grouped: ok
// CHECK-DAG: @shared: ok
// CHECK-DAG: @batch_norm: ok
// CHECK: differential: 5 functions, 0 mismatches

// FUSED-NOT: tgc.transpose {{.*}}tensor<8x4x3x3xf32>
// FUSED:     tgc.fusion(tgc.conv2d + bias + eltwise_relu) {{.*}}: (tensor<1x6x6x4xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
// FUSED-NOT: tgc.transpose {{.*}}tensor<8x4x3x3xf32>
// FUSED:     arena:
func.func @fused(%x: tensor<1x4x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %w = tgc.constant dense<[[[[0.5, -0.25, 0.125], [1.0, 0.0, -1.0], [0.25, 0.5, 0.75]]], [[[-0.5, 0.25, 1.0], [0.0, 2.0, -0.125], [1.5, -1.0, 0.5]]], [[[0.3, 0.1, -0.2], [0.4, -0.6, 0.2], [0.1, 0.9, -0.3]]], [[[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0], [0.5, 0.5, 0.5]]]]> : tensor<4x1x3x3xf32>
  %w8 = tgc.concat %w, %w, %w, %w, %w, %w, %w, %w {axis = 1 : i64} : (tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>, tensor<4x1x3x3xf32>) -> tensor<4x8x3x3xf32>
  %f = tgc.transpose %w8 {permutation = array<i64: 1, 0, 2, 3>} : (tensor<4x8x3x3xf32>) -> tensor<8x4x3x3xf32>
  %b = tgc.constant dense<[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]> : tensor<8xf32>
  %c = tgc.conv2d %x, %f, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %r = tgc.relu %c : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

// A convolution without post-ops, strided.
func.func @plain(%x: tensor<2x3x9x9xf32>, %y: tensor<3x1x1xf32>) -> tensor<2x6x4x4xf32> {
  %w = tgc.constant dense<[[[[0.5, -1.0], [0.25, 2.0]], [[1.0, 0.0], [-0.5, 0.125]], [[0.75, -0.25], [1.5, -2.0]]], [[[1.0, 1.0], [1.0, 1.0]], [[-1.0, -1.0], [-1.0, -1.0]], [[0.5, 0.5], [0.5, 0.5]]], [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]], [[8.0, 9.0], [10.0, 11.0]]], [[[0.1, 0.2], [0.3, 0.4]], [[0.5, 0.6], [0.7, 0.8]], [[0.9, 1.0], [1.1, 1.2]]], [[[-0.1, 0.2], [-0.3, 0.4]], [[-0.5, 0.6], [-0.7, 0.8]], [[-0.9, 1.0], [-1.1, 1.2]]], [[[2.0, -2.0], [0.0, 1.0]], [[-1.0, 0.5], [0.25, -0.125]], [[3.0, 0.0], [0.0, -3.0]]]]> : tensor<6x3x2x2xf32>
  %xs = tgc.mul %x, %y : (tensor<2x3x9x9xf32>, tensor<3x1x1xf32>) -> tensor<2x3x9x9xf32>
  %c = tgc.conv2d %xs, %w {strides = array<i64: 2, 2>} : (tensor<2x3x9x9xf32>, tensor<6x3x2x2xf32>) -> tensor<2x6x4x4xf32>
  return %c : tensor<2x6x4x4xf32>
}

// Grouped (2 groups of 2 input channels, 4 outputs each).
func.func @grouped(%x: tensor<1x4x5x5xf32>) -> tensor<1x8x5x5xf32> {
  %w = tgc.constant dense<[[[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]], [[[-1.0, 0.5, 0.0]], [[0.25, -0.75, 1.0]]], [[[0.1, 0.2, 0.3]], [[0.4, 0.5, 0.6]]], [[[2.0, 0.0, -2.0]], [[1.0, 1.0, 1.0]]], [[[0.5, 0.5, 0.5]], [[-0.5, -0.5, -0.5]]], [[[3.0, -1.0, 0.0]], [[0.0, 1.0, -3.0]]], [[[0.9, 0.8, 0.7]], [[0.6, 0.5, 0.4]]], [[[-2.0, 1.0, 0.5]], [[0.25, 0.125, -1.0]]]]> : tensor<8x2x1x3xf32>
  %c = tgc.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 0, 1, 0, 1>} : (tensor<1x4x5x5xf32>, tensor<8x2x1x3xf32>) -> tensor<1x8x5x5xf32>
  return %c : tensor<1x8x5x5xf32>
}

// The transposed filter is also a result: its transpose runs, and the
// convolution reads the transpose's (HWIO) result like any other filter.
// SHARED:     native tgc.transpose {{.*}}: (tensor<2x3x1x1xf32>) -> tensor<1x1x3x2xf32> [native.transpose]
// SHARED:     tgc.conv2d {{.*}}: (tensor<1x4x4x3xf32>, tensor<1x1x3x2xf32>) -> tensor<1x4x4x2xf32>
func.func @shared(%x: tensor<1x4x4x3xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x1x3x2xf32>) {
  %w = tgc.constant dense<[[[[1.0]], [[2.0]], [[3.0]]], [[[-1.0]], [[0.5]], [[0.25]]]]> : tensor<2x3x1x1xf32>
  %f = tgc.transpose %w {lazy, permutation = array<i64: 2, 3, 1, 0>} : (tensor<2x3x1x1xf32>) -> tensor<1x1x3x2xf32>
  %c = tgc.conv2d %x, %f {layout = #tgc.layout<NHWC>} : (tensor<1x4x4x3xf32>, tensor<1x1x3x2xf32>) -> tensor<1x4x4x2xf32>
  return %c, %f : tensor<1x4x4x2xf32>, tensor<1x1x3x2xf32>
}

// A batch norm folds into the lazy filter's constant.
// BN-NOT: tgc.transpose {{.*}}tensor<4x2x3x3xf32>
// BN-NOT: batch_norm
// BN:     onednn tgc.conv2d {{.*}}: (tensor<1x5x5x2xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x3x3x4xf32>
func.func @batch_norm(%x: tensor<1x2x5x5xf32>) -> tensor<1x4x3x3xf32> {
  %w = tgc.constant dense<[[[[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]], [[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [-0.5, -0.5, -0.5]]], [[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]], [[-0.1, -0.2, -0.3], [-0.4, -0.5, -0.6], [-0.7, -0.8, -0.9]]], [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]], [[[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]], [[0.25, -0.25, 0.25], [-0.25, 0.25, -0.25], [0.25, -0.25, 0.25]]]]> : tensor<4x2x3x3xf32>
  %scale = tgc.constant dense<[2.0, 0.5, 1.5, -1.0]> : tensor<4xf32>
  %shift = tgc.constant dense<[1.0, -1.0, 0.25, 0.0]> : tensor<4xf32>
  %mean = tgc.constant dense<[0.5, 0.25, -0.5, 1.0]> : tensor<4xf32>
  %var = tgc.constant dense<[3.0, 1.0, 0.5, 2.0]> : tensor<4xf32>
  %c = tgc.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  %n = tgc.batch_norm %c, %scale, %shift, %mean, %var {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  return %n : tensor<1x4x3x3xf32>
}
