// RUN: tgc-opt %s -tgc-fold-batch-norm -split-input-file | FileCheck %s

// tgc-fold-batch-norm: s = scale / sqrt(var + eps) scales the weights per
// output channel, and the bias becomes (b - mean) * s + shift. Here
// s = [2 / sqrt(3 + 1), 0.5 / sqrt(0 + 1)] = [1, 0.5].

// NCHW/OIHW: the filter's dim 0 is scaled.
// CHECK-LABEL: func.func @conv_nchw(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-DAG:     %[[W:.*]] = tgc.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00]], {{\[}}[2.000000e+00]]], {{\[}}{{\[}}[2.000000e+00]], {{\[}}[-4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<[5.000000e-01, -1.125000e+00]> : tensor<2xf32>
// CHECK:         %[[C:.*]] = tgc.conv2d %[[X]], %[[W]], %[[B]] : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[C]]
// CHECK-NEXT:    return %[[R]]
// CHECK-NOT:     tgc.batch_norm
func.func @conv_nchw(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tgc.constant dense<[[[[1.0]], [[2.0]]], [[[4.0]], [[-8.0]]]]> : tensor<2x2x1x1xf32>
  %scale = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %shift = tgc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = tgc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %var = tgc.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = tgc.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tgc.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 1.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = tgc.relu %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// NHWC/HWIO with the conv's own bias and a constant bias add after it: the
// filter's dim 3 is scaled; both biases join: (0.5 + 1.5 - 0.5) * 1 + 1 and
// (-1 + 0.25 - 0.25) * 0.5 - 1.
// CHECK-LABEL: func.func @conv_nhwc_bias(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x3x2xf32>)
// CHECK-DAG:     %[[W:.*]] = tgc.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00], [2.000000e+00, -4.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<[2.500000e+00, -1.500000e+00]> : tensor<2xf32>
// CHECK:         %[[C:.*]] = tgc.conv2d %[[X]], %[[W]], %[[B]] {layout = #tgc.layout<NHWC>}
// CHECK-NEXT:    return %[[C]]
func.func @conv_nhwc_bias(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = tgc.constant dense<[[[[1.0, 4.0], [2.0, -8.0]]]]> : tensor<1x1x2x2xf32>
  %b = tgc.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %c = tgc.constant dense<[[[[1.5, 0.25]]]]> : tensor<1x1x1x2xf32>
  %scale = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %shift = tgc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = tgc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %var = tgc.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = tgc.conv2d %x, %w, %b {layout = #tgc.layout<NHWC>} : (tensor<1x3x3x2xf32>, tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  %1 = tgc.add %c, %0 : (tensor<1x1x1x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %2 = tgc.batch_norm %1, %scale, %shift, %mean, %var {axis = 3 : i64, epsilon = 1.0 : f64} : (tensor<1x3x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  return %2 : tensor<1x3x3x2xf32>
}

// -----

// The same through a lazy transpose of an OIHW constant filter (as
// tgc-convert-layout leaves it): the OIHW constant is scaled along its dim 0
// and stays behind a lazy transpose.
// CHECK-LABEL: func.func @conv_nhwc_lazy_filter(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x3x2xf32>)
// CHECK-DAG:     %[[W:.*]] = tgc.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00]], {{\[}}[2.000000e+00]]], {{\[}}{{\[}}[2.000000e+00]], {{\[}}[-4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<[2.500000e+00, -1.500000e+00]> : tensor<2xf32>
// CHECK:         %[[WT:.*]] = tgc.transpose %[[W]] {lazy, permutation = array<i64: 2, 3, 1, 0>} : (tensor<2x2x1x1xf32>) -> tensor<1x1x2x2xf32>
// CHECK:         %[[C:.*]] = tgc.conv2d %[[X]], %[[WT]], %[[B]] {layout = #tgc.layout<NHWC>}
// CHECK-NEXT:    return %[[C]]
func.func @conv_nhwc_lazy_filter(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %oihw = tgc.constant dense<[[[[1.0]], [[2.0]]], [[[4.0]], [[-8.0]]]]> : tensor<2x2x1x1xf32>
  %w = tgc.transpose %oihw {lazy, permutation = array<i64: 2, 3, 1, 0>} : (tensor<2x2x1x1xf32>) -> tensor<1x1x2x2xf32>
  %b = tgc.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %c = tgc.constant dense<[[[[1.5, 0.25]]]]> : tensor<1x1x1x2xf32>
  %scale = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %shift = tgc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = tgc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %var = tgc.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = tgc.conv2d %x, %w, %b {layout = #tgc.layout<NHWC>} : (tensor<1x3x3x2xf32>, tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  %1 = tgc.add %c, %0 : (tensor<1x1x1x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %2 = tgc.batch_norm %1, %scale, %shift, %mean, %var {axis = 3 : i64, epsilon = 1.0 : f64} : (tensor<1x3x3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  return %2 : tensor<1x3x3x2xf32>
}

// -----

// Depthwise (groups = channels): still dim 0 of the filter.
// CHECK-LABEL: func.func @depthwise(
// CHECK-DAG:     %[[W:.*]] = tgc.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]], {{\[}}{{\[}}[1.000000e+00, 1.000000e+00], [-1.000000e+00, -1.000000e+00]]]]> : tensor<2x1x2x2xf32>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<[5.000000e-01, -1.125000e+00]> : tensor<2xf32>
// CHECK:         %[[C:.*]] = tgc.conv2d %{{.*}}, %[[W]], %[[B]] {groups = 2 : i64, strides = array<i64: 2, 2>}
// CHECK-NEXT:    return %[[C]]
func.func @depthwise(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = tgc.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[2.0, 2.0], [-2.0, -2.0]]]]> : tensor<2x1x2x2xf32>
  %scale = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %shift = tgc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = tgc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %var = tgc.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = tgc.conv2d %x, %w {groups = 2 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %1 = tgc.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %1 : tensor<1x2x2x2xf32>
}

// -----

// matmul with transposed constant weights (the transpose folds first) and
// a constant bias: the rhs columns are scaled; the result gets an add.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[X:.*]]: tensor<3x2xf32>)
// CHECK-DAG:     %[[W:.*]] = tgc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [2.000000e+00, -4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<[1.000000e+00, -1.625000e+00]> : tensor<2xf32>
// CHECK:         %[[M:.*]] = tgc.matmul %[[X]], %[[W]] : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[M]], %[[B]] : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[A]]
func.func @matmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wt = tgc.constant dense<[[1.0, 2.0], [4.0, -8.0]]> : tensor<2x2xf32>
  %w = tgc.transpose %wt {permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = tgc.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %scale = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %shift = tgc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = tgc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %var = tgc.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = tgc.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %1 = tgc.add %0, %b : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %2 = tgc.batch_norm %1, %scale, %shift, %mean, %var {epsilon = 1.0 : f64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// transpose_b: the rhs rows are scaled.
// CHECK-LABEL: func.func @matmul_transpose_b(
// CHECK-DAG:     %[[W:.*]] = tgc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [2.000000e+00, -4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<[5.000000e-01, -1.125000e+00]> : tensor<2xf32>
// CHECK:         %[[M:.*]] = tgc.matmul %{{.*}}, %[[W]] {transpose_b}
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[M]], %[[B]]
// CHECK-NEXT:    return %[[A]]
func.func @matmul_transpose_b(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = tgc.constant dense<[[1.0, 2.0], [4.0, -8.0]]> : tensor<2x2xf32>
  %scale = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %shift = tgc.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %mean = tgc.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %var = tgc.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %0 = tgc.matmul %x, %w {transpose_b} : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %1 = tgc.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 1.0 : f64} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Negative: the conv result has another user.
// CHECK-LABEL: func.func @other_user(
// CHECK:         %[[C:.*]] = tgc.conv2d
// CHECK-NEXT:    %[[N:.*]] = tgc.batch_norm %[[C]]
// CHECK-NEXT:    return %[[C]], %[[N]]
func.func @other_user(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = tgc.constant dense<1.0> : tensor<2x2x1x1xf32>
  %s = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %0 = tgc.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tgc.batch_norm %0, %s, %s, %s, %s : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %0, %1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Negative: weights that are not constants, statistics that are not
// constants, a batch norm over another axis than the channels, and a bias
// add that is not per channel.
// CHECK-LABEL: func.func @not_foldable(
// CHECK-COUNT-3: tgc.batch_norm
// CHECK:         tgc.add
// CHECK-NEXT:    tgc.batch_norm
// CHECK-NEXT:    return
func.func @not_foldable(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>, %m: tensor<2xf32>, %y: tensor<4x2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %k = tgc.constant dense<1.0> : tensor<2x2x1x1xf32>
  %s = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %s4 = tgc.constant dense<[2.0, 0.5, 1.0, 1.0]> : tensor<4xf32>
  %full = tgc.constant dense<[[0.5], [1.0], [1.5], [2.0]]> : tensor<4x1xf32>
  %0 = tgc.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tgc.batch_norm %0, %s, %s, %s, %s : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %2 = tgc.conv2d %x, %k : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %3 = tgc.batch_norm %2, %s, %s, %m, %s : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %4 = tgc.conv2d %x, %k : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %5 = tgc.batch_norm %4, %s4, %s4, %s4, %s4 {axis = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  %6 = tgc.conv2d %x, %k : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %7 = tgc.add %6, %full : (tensor<1x2x4x4xf32>, tensor<4x1xf32>) -> tensor<1x2x4x4xf32>
  %8 = tgc.batch_norm %7, %s, %s, %s, %s : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1, %3, %5, %8 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Splat constants too large to expand (3e9 channels: 24 GB as doubles) are
// left unfolded instead of exhausting memory ("LLVM ERROR: out of memory").
// CHECK-LABEL: func.func @huge_splat_statistics(
// CHECK:         tgc.matmul
// CHECK:         tgc.batch_norm
func.func @huge_splat_statistics(%x: tensor<1x1xf32>) -> tensor<1x3000000000xf32> {
  %w = tgc.constant dense<0.5> : tensor<1x3000000000xf32>
  %0 = tgc.matmul %x, %w : (tensor<1x1xf32>, tensor<1x3000000000xf32>) -> tensor<1x3000000000xf32>
  %s = tgc.constant dense<0.5> : tensor<3000000000xf32>
  %1 = tgc.batch_norm %0, %s, %s, %s, %s {axis = 1 : i64, epsilon = 1.0 : f64} : (tensor<1x3000000000xf32>, tensor<3000000000xf32>, tensor<3000000000xf32>, tensor<3000000000xf32>, tensor<3000000000xf32>) -> tensor<1x3000000000xf32>
  return %1 : tensor<1x3000000000xf32>
}

// -----

// A zero variance without epsilon (an infinite factor) is not folded: the
// filter times inf would make NaN where the batch norm makes +-inf.
// CHECK-LABEL: func.func @zero_variance(
// CHECK:         %[[C:.*]] = tgc.conv2d
// CHECK-NEXT:    tgc.batch_norm %[[C]]
func.func @zero_variance(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tgc.constant dense<1.0> : tensor<2x2x1x1xf32>
  %s = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %v = tgc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = tgc.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tgc.batch_norm %0, %s, %s, %s, %v {epsilon = 0.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}
