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
// RUN: tgc-run %s --function=conv_relu --input=1x1x1x3xf32=nan,1,-2 --input=2x1x1x1xf32=1,-1 | FileCheck %s --check-prefix=CONV
// RUN: tgc-run %s --function=matmul_clamp --input=1x3xf32=inf,0,1 --input=3x2xf32=1,0,1,0,1,0 | FileCheck %s --check-prefix=MATMUL
// RUN: tgc-run %s --function=padding_only_windows --input=1x1x2x2xf32=1 | FileCheck %s --check-prefix=PADDING

// CHECK-DAG: @softmax: ok
// CHECK-DAG: @log_softmax: ok
// CHECK-DAG: @relu: ok
// CHECK-DAG: @exp: ok
// CHECK-DAG: @clamp: ok
// CHECK-DAG: @reduce_min: ok
// CHECK-DAG: @reduce_max: ok
// CHECK-DAG: @max_pool: ok
// CHECK-DAG: @conv_relu: ok
// CHECK-DAG: @matmul_clamp: ok
// CHECK-DAG: @padding_only_windows: ok
// CHECK-DAG: @made_nan: ok
// CHECK-DAG: @made_nan_conv_chain: ok
// CHECK: differential: 13 functions, 0 mismatches

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
