// Small graphs on the cpu backend against the reference interpreter.
// RUN: tgc-run --differential %s | FileCheck %s
// RUN: tgc-run --differential --pipeline=tgc-cpu-unfused %s | FileCheck %s
// RUN: env TGC_FUSION=0 tgc-run --differential --threads=1 %s | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=5 %s | FileCheck %s
// RUN: tgc-run --differential --inter-op=2 %s | FileCheck %s
// RUN: tgc-run --differential --inter-op=3 --threads=1 --dynamic-size=4 %s | FileCheck %s
// CHECK-DAG: @mlp: ok
// CHECK-DAG: @conv_bn_relu: ok
// CHECK-DAG: @conv_bn_relu_nhwc: ok
// CHECK-DAG: @attention: ok
// CHECK: differential: 4 functions, 0 mismatches

func.func @mlp(%x: tensor<?x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
               %w2: tensor<128x10xf32>, %b2: tensor<10xf32>) -> tensor<?x10xf32> {
  %0 = tgc.matmul %x, %w1 : (tensor<?x64xf32>, tensor<64x128xf32>) -> tensor<?x128xf32>
  %1 = tgc.add %0, %b1 : (tensor<?x128xf32>, tensor<128xf32>) -> tensor<?x128xf32>
  %2 = tgc.relu %1 : tensor<?x128xf32>
  %3 = tgc.matmul %2, %w2 : (tensor<?x128xf32>, tensor<128x10xf32>) -> tensor<?x10xf32>
  %4 = tgc.add %3, %b2 : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  %5 = tgc.softmax %4 {axis = 1 : i64} : tensor<?x10xf32>
  return %5 : tensor<?x10xf32>
}

func.func @conv_bn_relu(%x: tensor<?x8x12x12xf32>, %w: tensor<16x8x3x3xf32>,
                        %scale: tensor<16xf32>, %bias: tensor<16xf32>,
                        %mean: tensor<16xf32>) -> tensor<?x16x6x6xf32> {
  %var = tgc.constant dense<0.5> : tensor<16xf32>
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x8x12x12xf32>, tensor<16x8x3x3xf32>) -> tensor<?x16x12x12xf32>
  %1 = tgc.batch_norm %0, %scale, %bias, %mean, %var {epsilon = 1.0e-03 : f64} : (tensor<?x16x12x12xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x16x12x12xf32>
  %2 = tgc.relu %1 : tensor<?x16x12x12xf32>
  %3 = tgc.max_pool2d %2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x16x12x12xf32>) -> tensor<?x16x6x6xf32>
  return %3 : tensor<?x16x6x6xf32>
}

func.func @conv_bn_relu_nhwc(%x: tensor<?x12x12x8xf32>, %w: tensor<3x3x8x16xf32>,
                             %b: tensor<16xf32>, %scale: tensor<16xf32>) -> tensor<?x16xf32> {
  %shift = tgc.constant dense<0.1> : tensor<16xf32>
  %mean = tgc.constant dense<0.0> : tensor<16xf32>
  %var = tgc.constant dense<1.0> : tensor<16xf32>
  %0 = tgc.conv2d %x, %w, %b {layout = #tgc.layout<NHWC>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<?x12x12x8xf32>, tensor<3x3x8x16xf32>, tensor<16xf32>) -> tensor<?x6x6x16xf32>
  %1 = tgc.batch_norm %0, %scale, %shift, %mean, %var {axis = 3 : i64} : (tensor<?x6x6x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x6x6x16xf32>
  %2 = tgc.relu %1 : tensor<?x6x6x16xf32>
  %3 = tgc.global_avg_pool2d %2 {layout = #tgc.layout<NHWC>} : (tensor<?x6x6x16xf32>) -> tensor<?x1x1x16xf32>
  %4 = tgc.squeeze %3 {axes = array<i64: 1, 2>} : (tensor<?x1x1x16xf32>) -> tensor<?x16xf32>
  return %4 : tensor<?x16xf32>
}

// Single-head attention with a residual connection and layer norm.
func.func @attention(%x: tensor<2x?x32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>,
                     %wv: tensor<32x32xf32>, %gamma: tensor<32xf32>, %beta: tensor<32xf32>) -> tensor<2x?x32xf32> {
  %q = tgc.matmul %x, %wq : (tensor<2x?x32xf32>, tensor<32x32xf32>) -> tensor<2x?x32xf32>
  %k = tgc.matmul %x, %wk : (tensor<2x?x32xf32>, tensor<32x32xf32>) -> tensor<2x?x32xf32>
  %v = tgc.matmul %x, %wv : (tensor<2x?x32xf32>, tensor<32x32xf32>) -> tensor<2x?x32xf32>
  %s = tgc.matmul %q, %k {transpose_b} : (tensor<2x?x32xf32>, tensor<2x?x32xf32>) -> tensor<2x?x?xf32>
  %scale = tgc.constant dense<0.17677669> : tensor<f32>
  %ss = tgc.mul %s, %scale : (tensor<2x?x?xf32>, tensor<f32>) -> tensor<2x?x?xf32>
  %p = tgc.softmax %ss {axis = 2 : i64} : tensor<2x?x?xf32>
  %o = tgc.matmul %p, %v : (tensor<2x?x?xf32>, tensor<2x?x32xf32>) -> tensor<2x?x32xf32>
  %r = tgc.add %o, %x : tensor<2x?x32xf32>
  %n = tgc.layer_norm %r scale %gamma bias %beta {axis = 2 : i64} : (tensor<2x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x?x32xf32>
  %g = tgc.gelu %n : tensor<2x?x32xf32>
  return %g : tensor<2x?x32xf32>
}
