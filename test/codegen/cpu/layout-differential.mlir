// tgc-convert-layout never changes results: every function runs on the
// reference interpreter and the cpu backend before and after the pass, and
// the cpu backend after the pass is compared with the reference interpreter
// on the original function (same seed, so the same inputs).
// RUN: rm -rf %t && mkdir -p %t
// RUN: tgc-opt --tgc-convert-layout %s -o %t/nhwc.mlir
// RUN: tgc-opt --tgc-convert-layout --tgc-cleanup %s -o %t/nhwc-clean.mlir
// RUN: FileCheck %s --check-prefix=IR --input-file=%t/nhwc-clean.mlir
// RUN: tgc-run --differential %s | FileCheck %s
// RUN: tgc-run --differential %t/nhwc.mlir | FileCheck %s
// RUN: tgc-run --differential %t/nhwc-clean.mlir --threads=1 | FileCheck %s
// RUN: tgc-run --differential %t/nhwc-clean.mlir --dynamic-size=5 --inter-op=2 | FileCheck %s
// RUN: tgc-run %s --function=conv_bias_relu --backend=reference --seed=7 --output=%t/a.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=conv_bias_relu --seed=7 --expected=%t/a.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --function=residual --backend=reference --seed=7 --output=%t/b.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=residual --seed=7 --expected=%t/b.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --function=pools --backend=reference --seed=7 --output=%t/c.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=pools --seed=7 --expected=%t/c.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --function=batch_norm --backend=reference --seed=7 --output=%t/d.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=batch_norm --seed=7 --expected=%t/d.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --function=grouped_depthwise --backend=reference --seed=7 --output=%t/e.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=grouped_depthwise --seed=7 --expected=%t/e.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --function=classifier_head --backend=reference --seed=7 --output=%t/f.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=classifier_head --seed=7 --expected=%t/f.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --function=flatten_head --backend=reference --seed=7 --output=%t/g.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=flatten_head --seed=7 --expected=%t/g.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --function=channel_ops --backend=reference --seed=7 --output=%t/h.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=channel_ops --seed=7 --expected=%t/h.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --function=hoist_and_keep --backend=reference --seed=7 --output=%t/i.npy
// RUN: tgc-run %t/nhwc-clean.mlir --function=hoist_and_keep --seed=7 --expected=%t/i.npy | FileCheck %s --check-prefix=MATCH

// CHECK-DAG: @conv_bias_relu: ok
// CHECK-DAG: @residual: ok
// CHECK-DAG: @pools: ok
// CHECK-DAG: @batch_norm: ok
// CHECK-DAG: @grouped_depthwise: ok
// CHECK-DAG: @classifier_head: ok
// CHECK-DAG: @flatten_head: ok
// CHECK-DAG: @channel_ops: ok
// CHECK-DAG: @hoist_and_keep: ok
// CHECK-DAG: @dynamic_batch: ok
// CHECK: differential: 10 functions, 0 mismatches
// MATCH: result #0: matches

// The converted functions: NHWC convolutions, activation transposes only at
// the boundaries (filters given as arguments get a 2, 3, 1, 0 transpose).
// IR-LABEL: func.func @conv_bias_relu(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, {{[23]}}, {{[13]}}, {{[12]}}>
// IR:        permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   return
// IR-LABEL: func.func @residual(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, {{[23]}}, {{[13]}}, {{[12]}}>
// IR:        permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   return
// IR-LABEL: func.func @pools(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, {{[23]}}, {{[13]}}, {{[12]}}>
// IR:        permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   return
// IR-LABEL: func.func @batch_norm(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, {{[23]}}, {{[13]}}, {{[12]}}>
// IR:        permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   return
// IR-LABEL: func.func @grouped_depthwise(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, {{[23]}}, {{[13]}}, {{[12]}}>
// IR:        permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   return
// IR-LABEL: func.func @classifier_head(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, 3, 1, 2>
// IR:        tgc.global_avg_pool2d {{.*}}layout = #tgc.layout<NHWC>
// IR-NEXT:   tgc.reshape {{.*}} : tensor<2x1x1x16xf32> to tensor<2x16xf32>
// IR-NOT:    permutation = array<i64: 0, 3, 1, 2>
// IR:        return
// IR-LABEL: func.func @flatten_head(
// IR:        permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   tgc.reshape {{.*}} : tensor<2x5x3x3xf32> to tensor<2x45xf32>
// IR-LABEL: func.func @channel_ops(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, {{[23]}}, {{[13]}}, {{[12]}}>
// IR:        permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   return
// IR-LABEL: func.func @hoist_and_keep(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, 3, 1, 2>
// IR:        tgc.pad
// IR:        tgc.conv2d
// IR-NEXT:   tgc.slice
// IR-NEXT:   permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   tgc.gather
// IR-LABEL: func.func @dynamic_batch(
// IR:        permutation = array<i64: 0, 2, 3, 1>
// IR-NOT:    permutation = array<i64: 0, {{[23]}}, {{[13]}}, {{[12]}}>
// IR:        permutation = array<i64: 0, 3, 1, 2>
// IR-NEXT:   return

func.func @conv_bias_relu(%x: tensor<2x3x10x10xf32>, %w1: tensor<8x3x3x3xf32>, %b1: tensor<8xf32>,
                          %w2: tensor<8x8x3x3xf32>) -> tensor<2x8x5x5xf32> {
  %bias = tgc.constant dense<[[[0.5]], [[-1.5]], [[2.5]], [[-3.5]], [[0.25]], [[1.0]], [[-0.75]], [[0.0]]]> : tensor<8x1x1xf32>
  %w2c = tgc.constant dense<[[[[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, 0.8, 0.9]]]]> : tensor<1x1x3x3xf32>
  %0 = tgc.conv2d %x, %w1, %b1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x10x10xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x10x10xf32>
  %1 = tgc.relu %0 : tensor<2x8x10x10xf32>
  %w = tgc.add %w2, %w2c : (tensor<8x8x3x3xf32>, tensor<1x1x3x3xf32>) -> tensor<8x8x3x3xf32>
  %2 = tgc.conv2d %1, %w {padding = array<i64: 1, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x10x10xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x5x5xf32>
  %3 = tgc.add %2, %bias : (tensor<2x8x5x5xf32>, tensor<8x1x1xf32>) -> tensor<2x8x5x5xf32>
  %4 = tgc.clamp %3 {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x8x5x5xf32>
  return %4 : tensor<2x8x5x5xf32>
}

// A bottleneck residual block with a projection shortcut, then an identity
// block whose shortcut is the first block's output.
func.func @residual(%x: tensor<1x8x8x8xf32>, %w1: tensor<4x8x1x1xf32>, %w2: tensor<4x4x3x3xf32>,
                    %w3: tensor<16x4x1x1xf32>, %ws: tensor<16x8x1x1xf32>,
                    %w4: tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32> {
  %0 = tgc.conv2d %x, %w1 : (tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>) -> tensor<1x4x8x8xf32>
  %1 = tgc.relu %0 : tensor<1x4x8x8xf32>
  %2 = tgc.conv2d %1, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %3 = tgc.relu %2 : tensor<1x4x8x8xf32>
  %4 = tgc.conv2d %3, %w3 : (tensor<1x4x8x8xf32>, tensor<16x4x1x1xf32>) -> tensor<1x16x8x8xf32>
  %5 = tgc.conv2d %x, %ws : (tensor<1x8x8x8xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x8x8xf32>
  %6 = tgc.add %4, %5 : tensor<1x16x8x8xf32>
  %7 = tgc.relu %6 : tensor<1x16x8x8xf32>
  %8 = tgc.conv2d %7, %w4 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %9 = tgc.add %8, %7 : tensor<1x16x8x8xf32>
  %10 = tgc.relu %9 : tensor<1x16x8x8xf32>
  return %10 : tensor<1x16x8x8xf32>
}

func.func @pools(%x: tensor<1x4x13x13xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x13x13xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x13x13xf32>
  %1 = tgc.max_pool2d %0 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x6x13x13xf32>) -> tensor<1x6x7x7xf32>
  %2 = tgc.avg_pool2d %1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode} : (tensor<1x6x7x7xf32>) -> tensor<1x6x4x4xf32>
  %3 = tgc.avg_pool2d %2 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, count_include_pad} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %4 = tgc.global_avg_pool2d %3 : (tensor<1x6x4x4xf32>) -> tensor<1x6x1x1xf32>
  %5 = tgc.mul %3, %4 : (tensor<1x6x4x4xf32>, tensor<1x6x1x1xf32>) -> tensor<1x6x4x4xf32>
  return %5 : tensor<1x6x4x4xf32>
}

func.func @batch_norm(%x: tensor<2x5x6x6xf32>, %w: tensor<7x5x3x3xf32>, %scale: tensor<7xf32>,
                      %shift: tensor<7xf32>, %mean: tensor<7xf32>) -> tensor<2x7x4x4xf32> {
  %var = tgc.constant dense<[0.5, 1.0, 1.5, 2.0, 0.25, 3.0, 0.75]> : tensor<7xf32>
  %0 = tgc.conv2d %x, %w : (tensor<2x5x6x6xf32>, tensor<7x5x3x3xf32>) -> tensor<2x7x4x4xf32>
  %1 = tgc.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 1.0e-03 : f64} : (tensor<2x7x4x4xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) -> tensor<2x7x4x4xf32>
  %2 = tgc.sigmoid %1 : tensor<2x7x4x4xf32>
  %3 = tgc.mul %1, %2 : tensor<2x7x4x4xf32>
  return %3 : tensor<2x7x4x4xf32>
}

// A grouped convolution (2 groups, dilated) and a depthwise one with channel
// multiplier 2 (strided), with constant and argument filters.
func.func @grouped_depthwise(%x: tensor<1x4x9x9xf32>, %w1: tensor<6x2x3x3xf32>) -> tensor<1x12x3x3xf32> {
  %w2 = tgc.constant dense<[[[[1.0, -1.0], [0.5, 2.0]]], [[[0.0, 1.0], [1.0, 0.0]]], [[[0.25, 0.5], [0.75, 1.0]]],
                             [[[-1.0, 0.0], [0.0, -1.0]]], [[[2.0, 1.0], [1.0, 2.0]]], [[[0.1, 0.2], [0.3, 0.4]]],
                             [[[1.5, -0.5], [0.5, -1.5]]], [[[0.0, 0.0], [1.0, 1.0]]], [[[1.0, 1.0], [0.0, 0.0]]],
                             [[[0.3, -0.3], [0.6, -0.6]]], [[[2.0, 0.0], [0.0, 2.0]]], [[[0.5, 0.5], [0.5, 0.5]]]]> : tensor<12x1x2x2xf32>
  %0 = tgc.conv2d %x, %w1 {groups = 2 : i64, dilations = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x7x7xf32>
  %1 = tgc.elu %0 {alpha = 0.5 : f64} : tensor<1x6x7x7xf32>
  %2 = tgc.conv2d %1, %w2 {groups = 6 : i64, strides = array<i64: 2, 2>} : (tensor<1x6x7x7xf32>, tensor<12x1x2x2xf32>) -> tensor<1x12x3x3xf32>
  return %2 : tensor<1x12x3x3xf32>
}

// Global average pool, flatten and a dense layer: no transpose at the end.
func.func @classifier_head(%x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %fc: tensor<10x16xf32>,
                           %fb: tensor<10xf32>) -> tensor<2x10xf32> {
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x8x8xf32>
  %1 = tgc.relu %0 : tensor<2x16x8x8xf32>
  %2 = tgc.global_avg_pool2d %1 : (tensor<2x16x8x8xf32>) -> tensor<2x16x1x1xf32>
  %3 = tgc.reshape %2 : tensor<2x16x1x1xf32> to tensor<2x16xf32>
  %4 = tgc.matmul %3, %fc {transpose_b} : (tensor<2x16xf32>, tensor<10x16xf32>) -> tensor<2x10xf32>
  %5 = tgc.add %4, %fb : (tensor<2x10xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  return %5 : tensor<2x10xf32>
}

// A flatten of a 3x3 map keeps the transpose back to NCHW before it.
func.func @flatten_head(%x: tensor<2x4x6x6xf32>, %w: tensor<5x4x2x2xf32>, %fc: tensor<45x3xf32>) -> tensor<2x3xf32> {
  %0 = tgc.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<2x4x6x6xf32>, tensor<5x4x2x2xf32>) -> tensor<2x5x3x3xf32>
  %1 = tgc.tanh %0 : tensor<2x5x3x3xf32>
  %2 = tgc.reshape %1 : tensor<2x5x3x3xf32> to tensor<2x45xf32>
  %3 = tgc.matmul %2, %fc : (tensor<2x45xf32>, tensor<45x3xf32>) -> tensor<2x3xf32>
  return %3 : tensor<2x3xf32>
}

// Softmax over channels, reductions, concat with a constant, compare and
// select.
func.func @channel_ops(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<1x8x5x5xf32> {
  %c = tgc.constant dense<0.5> : tensor<1x4x5x5xf32>
  %z = tgc.constant dense<0.0> : tensor<f32>
  %0 = tgc.conv2d %x, %w : (tensor<1x3x5x5xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x5x5xf32>
  %1 = tgc.softmax %0 {axis = 1 : i64} : tensor<1x4x5x5xf32>
  %2 = tgc.reduce_max %0 {axes = array<i64: 1>, keepdims} : (tensor<1x4x5x5xf32>) -> tensor<1x1x5x5xf32>
  %3 = tgc.sub %1, %2 : (tensor<1x4x5x5xf32>, tensor<1x1x5x5xf32>) -> tensor<1x4x5x5xf32>
  %4 = tgc.compare gt, %0, %z : (tensor<1x4x5x5xf32>, tensor<f32>) -> tensor<1x4x5x5xi1>
  %5 = tgc.select %4, %3, %c : (tensor<1x4x5x5xi1>, tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
  %6 = tgc.concat %5, %c {axis = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>) -> tensor<1x8x5x5xf32>
  %7 = tgc.reduce_mean %6 {axes = array<i64: 2>, keepdims} : (tensor<1x8x5x5xf32>) -> tensor<1x8x1x5xf32>
  %8 = tgc.add %6, %7 : (tensor<1x8x5x5xf32>, tensor<1x8x1x5xf32>) -> tensor<1x8x5x5xf32>
  return %8 : tensor<1x8x5x5xf32>
}

// Transposes hoisted through per-channel preprocessing and a pad; a slice
// follows the convolution into NHWC; a value used by an op that is not
// converted (a gather) keeps its transpose.
func.func @hoist_and_keep(%x: tensor<1x3x6x6xf32>, %mean: tensor<3x1x1xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x2x3xf32> {
  %std = tgc.constant dense<[[[0.5]], [[0.25]], [[2.0]]]> : tensor<3x1x1xf32>
  %idx = tgc.constant dense<[3, 0, 2]> : tensor<3xi64>
  %0 = tgc.sub %x, %mean : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32>
  %1 = tgc.div %0, %std : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32>
  %p = tgc.pad %1 {low = array<i64: 0, 0, 2, 1>, high = array<i64: 0, 0, 0, 1>, value = 1.5 : f64} : (tensor<1x3x6x6xf32>) -> tensor<1x3x8x8xf32>
  %2 = tgc.conv2d %p, %w {strides = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x3xf32>
  %3 = tgc.slice %2 {starts = array<i64: 0, 0, 1, 0>, ends = array<i64: 1, 4, 6, 3>, steps = array<i64: 1, 1, 3, 1>} : (tensor<1x4x6x3xf32>) -> tensor<1x4x2x3xf32>
  %4 = tgc.gather %3, %idx {axis = 1 : i64} : (tensor<1x4x2x3xf32>, tensor<3xi64>) -> tensor<1x3x2x3xf32>
  return %4 : tensor<1x3x2x3xf32>
}

// A dynamic batch (random inputs use --dynamic-size).
func.func @dynamic_batch(%x: tensor<?x4x6x6xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4x1x1xf32>) -> tensor<?x4x3x3xf32> {
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x4x6x6xf32>, tensor<4x4x3x3xf32>) -> tensor<?x4x6x6xf32>
  %1 = tgc.add %0, %b : (tensor<?x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<?x4x6x6xf32>
  %2 = tgc.relu %1 : tensor<?x4x6x6xf32>
  %3 = tgc.max_pool2d %2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x4x6x6xf32>) -> tensor<?x4x3x3xf32>
  return %3 : tensor<?x4x3x3xf32>
}
