// RUN: tgc-opt %s -tgc-absorb-fake-quant -canonicalize -split-input-file | FileCheck %s

// tgc-absorb-fake-quant: QuantizeLinear + DequantizeLinear (ui8, scale
// 0.02, zero point 128, as the ONNX importer spells them) on a conv2d's
// input fold into the conv2d, which reads the float input.

// CHECK-LABEL: func.func @conv_ui8(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK:         %[[W:.*]] = tgc.constant
// CHECK:         %[[C:.*]] = tgc.conv2d %[[X]], %[[W]] {tgc.input_quantization = {scale = 0.019999999552965164 : f64, storage = ui8, zero_point = 128 : i64}}
// CHECK-NEXT:    return %[[C]]
// CHECK-NOT:     tgc.round
func.func @conv_ui8(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %s = tgc.constant dense<0.02> : tensor<f32>
  %z = tgc.constant dense<128.0> : tensor<f32>
  %w = tgc.constant dense<0.5> : tensor<3x2x1x1xf32>
  %0 = tgc.div %x, %s : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %1 = tgc.round %0 : tensor<1x2x4x4xf32>
  %2 = tgc.add %1, %z : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %3 = tgc.clamp %2 {max = 2.550000e+02 : f64, min = 0.000000e+00 : f64} : tensor<1x2x4x4xf32>
  %4 = tgc.cast %3 : tensor<1x2x4x4xf32> to tensor<1x2x4x4xui8>
  %5 = tgc.cast %4 : tensor<1x2x4x4xui8> to tensor<1x2x4x4xf32>
  %6 = tgc.sub %5, %z : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %7 = tgc.mul %6, %s : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %8 = tgc.conv2d %7, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  return %8 : tensor<1x3x4x4xf32>
}

// -----

// Symmetric i8 without a zero point, into a matmul; the pair's float result
// is also returned, so the pair stays for that use.
// CHECK-LABEL: func.func @matmul_i8(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>)
// CHECK:         tgc.round
// CHECK:         %[[F:.*]] = tgc.mul
// CHECK:         %[[M:.*]] = tgc.matmul %[[X]], %{{.*}} {tgc.input_quantization = {scale = 5.000000e-01 : f64, storage = i8, zero_point = 0 : i64}}
// CHECK-NEXT:    return %[[M]], %[[F]]
func.func @matmul_i8(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x8xf32>) {
  %s = tgc.constant dense<0.5> : tensor<f32>
  %w = tgc.constant dense<0.25> : tensor<8x2xf32>
  %0 = tgc.div %x, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = tgc.round %0 : tensor<4x8xf32>
  %2 = tgc.clamp %1 {max = 1.270000e+02 : f64, min = -1.280000e+02 : f64} : tensor<4x8xf32>
  %3 = tgc.cast %2 : tensor<4x8xf32> to tensor<4x8xi8>
  %4 = tgc.cast %3 : tensor<4x8xi8> to tensor<4x8xf32>
  %5 = tgc.mul %4, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %6 = tgc.matmul %5, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %6, %5 : tensor<4x2xf32>, tensor<4x8xf32>
}

// -----

// Not a pair: the dequantize's scale differs from the quantize's; and a
// contraction whose weights are not constant.
// CHECK-LABEL: func.func @mismatched(
// CHECK-NOT:     tgc.input_quantization
// CHECK:         return
func.func @mismatched(%x: tensor<4x8xf32>, %v: tensor<8x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %s = tgc.constant dense<0.5> : tensor<f32>
  %t = tgc.constant dense<0.25> : tensor<f32>
  %w = tgc.constant dense<0.25> : tensor<8x2xf32>
  %0 = tgc.div %x, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = tgc.round %0 : tensor<4x8xf32>
  %2 = tgc.clamp %1 {max = 1.270000e+02 : f64, min = -1.280000e+02 : f64} : tensor<4x8xf32>
  %3 = tgc.cast %2 : tensor<4x8xf32> to tensor<4x8xi8>
  %4 = tgc.cast %3 : tensor<4x8xi8> to tensor<4x8xf32>
  %5 = tgc.mul %4, %t : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %6 = tgc.matmul %5, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %7 = tgc.mul %4, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %8 = tgc.matmul %7, %v : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %6, %8 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A QDQ model's weights: int8 behind a per-channel dequantize, which the
// generic folds leave alone above a million elements; computed here, as
// the f32 ops would (q * scale per output channel).
// CHECK-LABEL: func.func @dequantized_weights(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x1x1xf32>)
// CHECK:         %[[W:.*]] = tgc.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+00]], {{\[}}[-2.000000e+00]]], {{\[}}{{\[}}[6.000000e+00]], {{\[}}[1.500000e+01]]]]> : tensor<2x2x1x1xf32>
// CHECK:         tgc.conv2d %[[X]], %[[W]] {tgc.input_quantization = {scale = 2.500000e-01 : f64, storage = ui8, zero_point = 0 : i64}}
func.func @dequantized_weights(%x: tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  %s = tgc.constant dense<0.25> : tensor<f32>
  %q = tgc.constant dense<[[[[2]], [[-4]]], [[[2]], [[5]]]]> : tensor<2x2x1x1xi8>
  %ws = tgc.constant dense<[[[[0.5]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %wf = tgc.cast %q : tensor<2x2x1x1xi8> to tensor<2x2x1x1xf32>
  %w = tgc.mul %wf, %ws : (tensor<2x2x1x1xf32>, tensor<2x1x1x1xf32>) -> tensor<2x2x1x1xf32>
  %0 = tgc.div %x, %s : (tensor<1x2x1x1xf32>, tensor<f32>) -> tensor<1x2x1x1xf32>
  %1 = tgc.round %0 : tensor<1x2x1x1xf32>
  %3 = tgc.clamp %1 {max = 2.550000e+02 : f64, min = 0.000000e+00 : f64} : tensor<1x2x1x1xf32>
  %4 = tgc.cast %3 : tensor<1x2x1x1xf32> to tensor<1x2x1x1xui8>
  %5 = tgc.cast %4 : tensor<1x2x1x1xui8> to tensor<1x2x1x1xf32>
  %7 = tgc.mul %5, %s : (tensor<1x2x1x1xf32>, tensor<f32>) -> tensor<1x2x1x1xf32>
  %8 = tgc.conv2d %7, %w : (tensor<1x2x1x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  return %8 : tensor<1x2x1x1xf32>
}

// -----

// ONNX Runtime's QOperator format flattens the quantized tensor itself
// before a QLinearMatMul: the matmul reads the float input reshaped.
// CHECK-LABEL: func.func @reshaped_between_casts(
// CHECK-SAME:    %[[X:.*]]: tensor<2x2x2xf32>)
// CHECK:         %[[R:.*]] = tgc.reshape %[[X]] : tensor<2x2x2xf32> to tensor<2x4xf32>
// CHECK:         tgc.matmul %[[R]], %{{.*}} {tgc.input_quantization = {scale = 5.000000e-01 : f64, storage = ui8, zero_point = 3 : i64}}
func.func @reshaped_between_casts(%x: tensor<2x2x2xf32>) -> tensor<2x3xf32> {
  %s = tgc.constant dense<0.5> : tensor<f32>
  %z = tgc.constant dense<3.0> : tensor<f32>
  %w = tgc.constant dense<0.25> : tensor<4x3xf32>
  %0 = tgc.div %x, %s : (tensor<2x2x2xf32>, tensor<f32>) -> tensor<2x2x2xf32>
  %1 = tgc.round %0 : tensor<2x2x2xf32>
  %2 = tgc.add %1, %z : (tensor<2x2x2xf32>, tensor<f32>) -> tensor<2x2x2xf32>
  %3 = tgc.clamp %2 {max = 2.550000e+02 : f64, min = 0.000000e+00 : f64} : tensor<2x2x2xf32>
  %4 = tgc.cast %3 : tensor<2x2x2xf32> to tensor<2x2x2xui8>
  %5 = tgc.reshape %4 : tensor<2x2x2xui8> to tensor<2x4xui8>
  %6 = tgc.cast %5 : tensor<2x4xui8> to tensor<2x4xf32>
  %7 = tgc.sub %6, %z : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %8 = tgc.mul %7, %s : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  %9 = tgc.matmul %8, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %9 : tensor<2x3xf32>
}
