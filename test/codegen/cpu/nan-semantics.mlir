// NaN propagates through every op (docs/TgcDialect.md, "NaN and
// infinities"): relu, clamp, max/min, max pooling, reductions, softmax and
// exp of NaN are NaN, on every backend. oneDNN's kernels drop NaN (its
// max/min/clip return the number, its exp saturates): the CPU backend runs
// such inputs on its native kernels. Values checked by hand on [nan, 1, -2];
// NaN made inside the function (sqrt of the negative half of the random
// inputs) checked against the reference interpreter, fused and unfused.
// RUN: tgc-run --differential %s | FileCheck %s
// RUN: tgc-run --differential --pipeline=tgc-cpu-unfused %s | FileCheck %s
// RUN: tgc-run --differential --threads=1 --seed=7 %s | FileCheck %s
// RUN: tgc-run --differential --inter-op=2 --seed=9 %s | FileCheck %s
// RUN: tgc-run %s --function=softmax --input=3xf32=nan,1,-2 | FileCheck %s --check-prefix=ALL-NAN
// RUN: tgc-run %s --function=log_softmax --input=3xf32=nan,1,-2 | FileCheck %s --check-prefix=ALL-NAN
// RUN: tgc-run %s --function=relu --input=3xf32=nan,1,-2 | FileCheck %s --check-prefix=RELU
// RUN: tgc-run %s --function=exp --input=3xf32=nan,0,-inf | FileCheck %s --check-prefix=EXP
// RUN: tgc-run %s --function=clamp --input=3xf32=nan,2,-2 | FileCheck %s --check-prefix=CLAMP
// RUN: tgc-run %s --function=reduce_min --input=3xf32=nan,1,-2 | FileCheck %s --check-prefix=SCALAR-NAN
// RUN: tgc-run %s --function=reduce_max --input=3xf32=nan,1,-2 | FileCheck %s --check-prefix=SCALAR-NAN
// RUN: tgc-run %s --function=max_pool --input=1x1x1x3xf32=nan,1,-2 | FileCheck %s --check-prefix=SCALAR-NAN
// RUN: tgc-run %s --function=max_pool --input=1x1x1x3xf32=-inf,-inf,-inf | FileCheck %s --check-prefix=NEG-INF
// RUN: tgc-run %s --function=neg_then_rsqrt --pipeline=tgc-cpu-unfused --input=3xf32=0,-0,-4 | FileCheck %s --check-prefix=NEG-ZERO
// RUN: tgc-run %s --function=neg_then_rsqrt --input=3xf32=0,-0,-4 | FileCheck %s --check-prefix=NEG-ZERO
// RUN: tgc-run %s --function=reduce_max --input=3xf32=-inf,-inf,-inf | FileCheck %s --check-prefix=MAX-NEG-INF
// RUN: tgc-run %s --function=reduce_min --input=3xf32=inf,inf,inf | FileCheck %s --check-prefix=MIN-INF
// RUN: tgc-run %s --function=conv_relu --input=1x1x1x3xf32=nan,1,-2 --input=2x1x1x1xf32=1,-1 | FileCheck %s --check-prefix=CONV
// RUN: tgc-run %s --function=matmul_clamp --input=1x3xf32=inf,0,1 --input=3x2xf32=1,0,1,0,1,0 | FileCheck %s --check-prefix=MATMUL
// RUN: tgc-run %s --function=padding_only_windows --input=1x1x2x2xf32=1 | FileCheck %s --check-prefix=PADDING
// RUN: tgc-run %s --function=nan_filter_over_padding --input=1x1x1x2xf32=1 | FileCheck %s --check-prefix=PAD-FILTER
// RUN: tgc-run %s --function=batch_norm_zero_variance --input=1x2xf32=3,-1 --input=2xf32=2,1 | FileCheck %s --check-prefix=BN-ZERO

// CHECK-DAG: @softmax: ok
// CHECK-DAG: @log_softmax: ok
// CHECK-DAG: @relu: ok
// CHECK-DAG: @exp: ok
// CHECK-DAG: @clamp: ok
// CHECK-DAG: @reduce_min: ok
// CHECK-DAG: @reduce_max: ok
// CHECK-DAG: @max_pool: ok
// CHECK-DAG: @neg_then_rsqrt: ok
// CHECK-DAG: @conv_relu: ok
// CHECK-DAG: @matmul_clamp: ok
// CHECK-DAG: @padding_only_windows: ok
// CHECK-DAG: @made_nan: ok
// CHECK-DAG: @made_nan_conv_chain: ok
// CHECK-DAG: @nan_filter_over_padding: ok
// CHECK-DAG: @nan_filter_argument_over_padding: ok
// CHECK-DAG: @inf_filter_constant_blocked: ok
// CHECK-DAG: @batch_norm_zero_variance: ok
// CHECK-DAG: @batch_norm_zero_variance_bf16: ok
// CHECK-DAG: @conv_batch_norm_zero_variance: ok
// CHECK: differential: 20 functions, 0 mismatches

// ALL-NAN: result #0: tensor<3xf32> = [nan, nan, nan]
// RELU: result #0: tensor<3xf32> = [nan, 1, 0]
// EXP: result #0: tensor<3xf32> = [nan, 1, 0]
// CLAMP: result #0: tensor<3xf32> = [nan, 1, -1]
// SCALAR-NAN: result #0: tensor<{{.*}}> = [nan]
// The NaN in the window of output channel 0 and 1 (weights 1 and -1).
// CONV: result #0: tensor<1x2x1x3xf32> = [nan, 1, 0, nan, 0, 2]
// inf * 0 is NaN: [inf*1 + 0*0 + 1*1, inf*0 + 0*1 + 1*0] = [inf, nan].
// MATMUL: result #0: tensor<1x2xf32> = [5, {{-?}}nan]
// A dilated window over padding only: -inf (the identity of max).
// PADDING: result #0: tensor<1x1x3x3xf32> = [1, -inf, 1, -inf, -inf, -inf, 1, -inf, 1]

// Negation flips the sign of zero, and rsqrt(-0) is -inf: oneDNN's
// eltwise_linear (-1 * x + 0) made +0 of -0, so the CPU backend gave +inf
// (tgc-smith seed 9128 index 11873).
// NEG-ZERO: result #0: tensor<3xf32> = [-inf, inf, 0.5]
func.func @neg_then_rsqrt(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tgc.neg %x : tensor<3xf32>
  %1 = tgc.rsqrt %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

func.func @softmax(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tgc.softmax %x {axis = 0 : i64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @log_softmax(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tgc.log_softmax %x {axis = 0 : i64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @relu(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tgc.relu %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @exp(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tgc.exp %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @clamp(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tgc.clamp %x {min = -1.0 : f64, max = 1.0 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @reduce_min(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tgc.reduce_min %x {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @reduce_max(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = tgc.reduce_max %x {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
// oneDNN's max pooling starts from the lowest finite value: a window of
// -inf gave -3.40282e+38 (tgc-smith seeds 9128/9129); inputs with an
// infinity run natively too.
// NEG-INF: result #0: tensor<1x1x1x1xf32> = [-inf]
// Its max and min reductions too (tgc-smith seed 9130 index 7890):
// MAX-NEG-INF: result #0: tensor<f32> = [-inf]
// MIN-INF: result #0: tensor<f32> = [inf]
func.func @max_pool(%x: tensor<1x1x1x3xf32>) -> tensor<1x1x1x1xf32> {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 1, 3>} : (tensor<1x1x1x3xf32>) -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}
func.func @conv_relu(%x: tensor<1x1x1x3xf32>, %w: tensor<2x1x1x1xf32>) -> tensor<1x2x1x3xf32> {
  %0 = tgc.conv2d %x, %w : (tensor<1x1x1x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x1x3xf32>
  %1 = tgc.relu %0 : tensor<1x2x1x3xf32>
  return %1 : tensor<1x2x1x3xf32>
}
func.func @matmul_clamp(%x: tensor<1x3xf32>, %w: tensor<3x2xf32>) -> tensor<1x2xf32> {
  %0 = tgc.matmul %x, %w : (tensor<1x3xf32>, tensor<3x2xf32>) -> tensor<1x2xf32>
  %1 = tgc.clamp %0 {min = -5.0 : f64, max = 5.0 : f64} : tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}
func.func @padding_only_windows(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32> {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, dilations = array<i64: 3, 3>, padding = array<i64: 2, 2, 2, 2>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// NaN made inside the function reaching every kind of kernel.
func.func @made_nan(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<8xf32>) {
  %s = tgc.sqrt %x : tensor<4x8xf32>
  %r = tgc.relu %s : tensor<4x8xf32>
  %m = tgc.reduce_max %s {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %sm = tgc.softmax %s {axis = 1 : i64} : tensor<4x8xf32>
  %e = tgc.exp %s : tensor<4x8xf32>
  %mn = tgc.reduce_min %e {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<8xf32>
  return %r, %m, %sm, %mn : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<8xf32>
}
func.func @made_nan_conv_chain(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4xf32>, %v: tensor<4x5xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x2x5xf32>) {
  %s = tgc.sqrt %x : tensor<1x4x6x6xf32>
  %c = tgc.conv2d %s, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  %r = tgc.relu %c : tensor<1x4x6x6xf32>
  %p = tgc.max_pool2d %r {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
  %sl = tgc.slice %s {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 4, 2, 4>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x2x4xf32>
  %mm = tgc.matmul %sl, %v : (tensor<1x4x2x4xf32>, tensor<4x5xf32>) -> tensor<1x4x2x5xf32>
  %cl = tgc.clamp %mm {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x4x2x5xf32>
  return %p, %cl : tensor<1x4x3x3xf32>, tensor<1x4x2x5xf32>
}

// conv2d's padding adds no terms: a NaN filter tap that only meets padding
// adds nothing (oneDNN multiplies padding by the filter: 0 * NaN). Column 2
// of the result sees padding only; columns 0 and 1 meet the NaN.
// PAD-FILTER: result #0: tensor<1x1x1x3xf32> = [nan, nan, 0]
func.func @nan_filter_over_padding(%x: tensor<1x1x1x2xf32>) -> tensor<1x1x1x3xf32> {
  %w = tgc.constant dense<0x7FC00000> : tensor<1x1x1x1xf32>
  %0 = tgc.conv2d %x, %w {padding = array<i64: 0, 0, 0, 1>} : (tensor<1x1x1x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x3xf32>
  return %0 : tensor<1x1x1x3xf32>
}
// The filter an argument: its NaN appears at run time (sqrt of a negative).
func.func @nan_filter_argument_over_padding(%x: tensor<2x3x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x7x7xf32> {
  %s = tgc.sqrt %w : tensor<4x3x3x3xf32>
  %0 = tgc.conv2d %x, %s {padding = array<i64: 2, 2, 2, 2>} : (tensor<2x3x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x7x7xf32>
  return %0 : tensor<2x4x7x7xf32>
}
// A constant filter with an infinity where blocked layouts (and Winograd on
// AVX-512) would otherwise run it.
func.func @inf_filter_constant_blocked(%x: tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32> {
  %w0 = tgc.constant dense<0.25> : tensor<16x16x3x3xf32>
  %inf = tgc.constant dense<0x7F800000> : tensor<16x16x3x3xf32>
  %pos = tgc.constant dense<1.0> : tensor<16x16x3x3xf32>
  %w = tgc.mul %inf, %pos : tensor<16x16x3x3xf32>
  %c0 = tgc.conv2d %x, %w0 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x6x6xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x6x6xf32>
  %r = tgc.relu %c0 : tensor<1x16x6x6xf32>
  %1 = tgc.conv2d %r, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x6x6xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %1 : tensor<1x16x6x6xf32>
}

// batch_norm is (x - mean) / sqrt(variance + eps) * scale + bias: a zero
// variance without epsilon gives +-inf (NaN where x == mean), not the NaN
// of the folded x * a + (bias - mean * a) = inf - inf.
// BN-ZERO: result #0: tensor<1x2xf32> = [inf, -inf]
func.func @batch_norm_zero_variance(%x: tensor<1x2xf32>, %scale: tensor<2xf32>) -> tensor<1x2xf32> {
  %b = tgc.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %m = tgc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %v = tgc.constant dense<0.0> : tensor<2xf32>
  %0 = tgc.batch_norm %x, %scale, %b, %m, %v {epsilon = 0.0 : f64} : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
func.func @batch_norm_zero_variance_bf16(%x: tensor<6x16x2xbf16>, %s: tensor<16xbf16>, %b: tensor<16xbf16>, %m: tensor<16xbf16>) -> tensor<6x16x2xbf16> {
  %v = tgc.constant dense<[0.5, 0.0, 0.75, 0.0, 1.0, 0.25, 0.0, 0.0, 0.25, 0.25, 1.5, 2.0, 0.0, 1.25, 0.25, 0.0]> : tensor<16xbf16>
  %0 = tgc.batch_norm %x, %s, %b, %m, %v {epsilon = 0.0 : f64} : (tensor<6x16x2xbf16>, tensor<16xbf16>, tensor<16xbf16>, tensor<16xbf16>, tensor<16xbf16>) -> tensor<6x16x2xbf16>
  return %0 : tensor<6x16x2xbf16>
}
// Constant statistics after a conv (tgc-fold-batch-norm leaves them).
func.func @conv_batch_norm_zero_variance(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tgc.constant dense<[[[[1.0]], [[0.5]]], [[[-1.0]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %s = tgc.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %b = tgc.constant dense<[0.25, -0.25]> : tensor<2xf32>
  %m = tgc.constant dense<[0.1, -0.1]> : tensor<2xf32>
  %v = tgc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = tgc.conv2d %x, %w : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = tgc.batch_norm %0, %s, %b, %m, %v {epsilon = 0.0 : f64} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}
