// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round-trip tests for constants, casts and the elementwise ops.

// CHECK-LABEL: func.func @constant_dense(
// CHECK-SAME:  ) -> tensor<2x2xf32>
// CHECK-NEXT:    %[[V0:.*]] = tgc.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:    return %[[V0]] : tensor<2x2xf32>
func.func @constant_dense() -> tensor<2x2xf32> {
  %0 = tgc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @constant_splat(
// CHECK-SAME:  ) -> (tensor<16xi32>, tensor<1024x1024xf16>, tensor<bf16>, tensor<3xi1>, tensor<0x4xf64>, tensor<2xi64>, tensor<2xi8>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.constant dense<0> : tensor<16xi32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.constant dense<1.500000e+00> : tensor<1024x1024xf16>
// CHECK-NEXT:    %[[V2:.*]] = tgc.constant dense<-2.000000e+00> : tensor<bf16>
// CHECK-NEXT:    %[[V3:.*]] = tgc.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT:    %[[V4:.*]] = tgc.constant dense<> : tensor<0x4xf64>
// CHECK-NEXT:    %[[V5:.*]] = tgc.constant dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>
// CHECK-NEXT:    %[[V6:.*]] = tgc.constant dense<[127, -128]> : tensor<2xi8>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]] : tensor<16xi32>, tensor<1024x1024xf16>, tensor<bf16>, tensor<3xi1>, tensor<0x4xf64>, tensor<2xi64>, tensor<2xi8>
func.func @constant_splat() -> (tensor<16xi32>, tensor<1024x1024xf16>, tensor<bf16>, tensor<3xi1>, tensor<0x4xf64>, tensor<2xi64>, tensor<2xi8>) {
  %0 = tgc.constant dense<0> : tensor<16xi32>
  %1 = tgc.constant dense<1.5> : tensor<1024x1024xf16>
  %2 = tgc.constant dense<-2.0> : tensor<bf16>
  %3 = tgc.constant dense<[true, false, true]> : tensor<3xi1>
  %4 = tgc.constant dense<> : tensor<0x4xf64>
  %5 = tgc.constant dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>
  %6 = tgc.constant dense<[127, -128]> : tensor<2xi8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<16xi32>, tensor<1024x1024xf16>, tensor<bf16>, tensor<3xi1>, tensor<0x4xf64>, tensor<2xi64>, tensor<2xi8>
}

// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x?xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<i1>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<?xi64>
// CHECK-SAME:  ) -> (tensor<2x?xbf16>, tensor<2x3xi8>, tensor<f64>, tensor<4xi32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.cast %[[ARG0]] : tensor<2x?xf32> to tensor<2x?xbf16>
// CHECK-NEXT:    %[[V1:.*]] = tgc.cast %[[ARG0]] : tensor<2x?xf32> to tensor<2x3xi8>
// CHECK-NEXT:    %[[V2:.*]] = tgc.cast %[[ARG1]] : tensor<i1> to tensor<f64>
// CHECK-NEXT:    %[[V3:.*]] = tgc.cast %[[ARG2]] : tensor<?xi64> to tensor<4xi32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<2x?xbf16>, tensor<2x3xi8>, tensor<f64>, tensor<4xi32>
func.func @cast(%a: tensor<2x?xf32>, %b: tensor<i1>, %c: tensor<?xi64>) -> (tensor<2x?xbf16>, tensor<2x3xi8>, tensor<f64>, tensor<4xi32>) {
  %0 = tgc.cast %a : tensor<2x?xf32> to tensor<2x?xbf16>
  %1 = tgc.cast %a : tensor<2x?xf32> to tensor<2x3xi8>
  %2 = tgc.cast %b : tensor<i1> to tensor<f64>
  %3 = tgc.cast %c : tensor<?xi64> to tensor<4xi32>
  return %0, %1, %2, %3 : tensor<2x?xbf16>, tensor<2x3xi8>, tensor<f64>, tensor<4xi32>
}

// CHECK-LABEL: func.func @unary_float(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x4xf32>
// CHECK-SAME:  ) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[V0:.*]] = tgc.exp %[[ARG0]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.log %[[V0]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.sqrt %[[V1]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.rsqrt %[[V2]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V4:.*]] = tgc.reciprocal %[[V3]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V5:.*]] = tgc.tanh %[[V4]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V6:.*]] = tgc.sigmoid %[[V5]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V7:.*]] = tgc.erf %[[V6]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V8:.*]] = tgc.sin %[[V7]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V9:.*]] = tgc.cos %[[V8]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V10:.*]] = tgc.floor %[[V9]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V11:.*]] = tgc.ceil %[[V10]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[V12:.*]] = tgc.round %[[V11]] : tensor<?x4xf32>
// CHECK-NEXT:    return %[[V12]] : tensor<?x4xf32>
func.func @unary_float(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = tgc.exp %x : tensor<?x4xf32>
  %1 = tgc.log %0 : tensor<?x4xf32>
  %2 = tgc.sqrt %1 : tensor<?x4xf32>
  %3 = tgc.rsqrt %2 : tensor<?x4xf32>
  %4 = tgc.reciprocal %3 : tensor<?x4xf32>
  %5 = tgc.tanh %4 : tensor<?x4xf32>
  %6 = tgc.sigmoid %5 : tensor<?x4xf32>
  %7 = tgc.erf %6 : tensor<?x4xf32>
  %8 = tgc.sin %7 : tensor<?x4xf32>
  %9 = tgc.cos %8 : tensor<?x4xf32>
  %10 = tgc.floor %9 : tensor<?x4xf32>
  %11 = tgc.ceil %10 : tensor<?x4xf32>
  %12 = tgc.round %11 : tensor<?x4xf32>
  return %12 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @unary_float_types(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<f16>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<3xbf16>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<0xf64>
// CHECK-SAME:  ) -> (tensor<f16>, tensor<3xbf16>, tensor<0xf64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.exp %[[ARG0]] : tensor<f16>
// CHECK-NEXT:    %[[V1:.*]] = tgc.tanh %[[ARG1]] : tensor<3xbf16>
// CHECK-NEXT:    %[[V2:.*]] = tgc.sqrt %[[ARG2]] : tensor<0xf64>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<f16>, tensor<3xbf16>, tensor<0xf64>
func.func @unary_float_types(%a: tensor<f16>, %b: tensor<3xbf16>, %c: tensor<0xf64>) -> (tensor<f16>, tensor<3xbf16>, tensor<0xf64>) {
  %0 = tgc.exp %a : tensor<f16>
  %1 = tgc.tanh %b : tensor<3xbf16>
  %2 = tgc.sqrt %c : tensor<0xf64>
  return %0, %1, %2 : tensor<f16>, tensor<3xbf16>, tensor<0xf64>
}

// CHECK-LABEL: func.func @unary_numeric(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<8xi32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?xf16>
// CHECK-SAME:  ) -> (tensor<8xi32>, tensor<?xf16>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.neg %[[ARG0]] : tensor<8xi32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.abs %[[V0]] : tensor<8xi32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.relu %[[V1]] : tensor<8xi32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.sign %[[V2]] : tensor<8xi32>
// CHECK-NEXT:    %[[V4:.*]] = tgc.neg %[[ARG1]] : tensor<?xf16>
// CHECK-NEXT:    %[[V5:.*]] = tgc.abs %[[V4]] : tensor<?xf16>
// CHECK-NEXT:    %[[V6:.*]] = tgc.relu %[[V5]] : tensor<?xf16>
// CHECK-NEXT:    %[[V7:.*]] = tgc.sign %[[V6]] : tensor<?xf16>
// CHECK-NEXT:    return %[[V3]], %[[V7]] : tensor<8xi32>, tensor<?xf16>
func.func @unary_numeric(%x: tensor<8xi32>, %y: tensor<?xf16>) -> (tensor<8xi32>, tensor<?xf16>) {
  %0 = tgc.neg %x : tensor<8xi32>
  %1 = tgc.abs %0 : tensor<8xi32>
  %2 = tgc.relu %1 : tensor<8xi32>
  %3 = tgc.sign %2 : tensor<8xi32>
  %4 = tgc.neg %y : tensor<?xf16>
  %5 = tgc.abs %4 : tensor<?xf16>
  %6 = tgc.relu %5 : tensor<?xf16>
  %7 = tgc.sign %6 : tensor<?xf16>
  return %3, %7 : tensor<8xi32>, tensor<?xf16>
}

// CHECK-LABEL: func.func @logical_not(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x?xi1>
// CHECK-SAME:  ) -> tensor<2x?xi1>
// CHECK-NEXT:    %[[V0:.*]] = tgc.logical_not %[[ARG0]] : tensor<2x?xi1>
// CHECK-NEXT:    return %[[V0]] : tensor<2x?xi1>
func.func @logical_not(%x: tensor<2x?xi1>) -> tensor<2x?xi1> {
  %0 = tgc.logical_not %x : tensor<2x?xi1>
  return %0 : tensor<2x?xi1>
}

// CHECK-LABEL: func.func @leaky_relu_elu(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<4xf32>
// CHECK-SAME:  ) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.leaky_relu %[[ARG0]] : tensor<4xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.leaky_relu %[[ARG0]] {alpha = 2.000000e-01 : f64} : tensor<4xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.elu %[[ARG0]] : tensor<4xf32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.elu %[[ARG0]] {alpha = 5.000000e-01 : f64} : tensor<4xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @leaky_relu_elu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tgc.leaky_relu %x : tensor<4xf32>
  %1 = tgc.leaky_relu %x {alpha = 2.000000e-01 : f64} : tensor<4xf32>
  %2 = tgc.elu %x : tensor<4xf32>
  %3 = tgc.elu %x {alpha = 5.000000e-01 : f64} : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @clamp(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<8xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?xi8>
// CHECK-SAME:  ) -> (tensor<8xf32>, tensor<?xi8>, tensor<8xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.clamp %[[ARG0]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<8xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.clamp %[[ARG1]] {max = 1.000000e+03 : f64, min = -1.000000e+03 : f64} : tensor<?xi8>
// CHECK-NEXT:    %[[V2:.*]] = tgc.clamp %[[ARG0]] {max = 1.000000e+00 : f64, min = 1.000000e+00 : f64} : tensor<8xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<8xf32>, tensor<?xi8>, tensor<8xf32>
func.func @clamp(%x: tensor<8xf32>, %y: tensor<?xi8>) -> (tensor<8xf32>, tensor<?xi8>, tensor<8xf32>) {
  %0 = tgc.clamp %x {max = 6.0 : f64, min = 0.0 : f64} : tensor<8xf32>
  %1 = tgc.clamp %y {max = 1.0e+03 : f64, min = -1.0e+03 : f64} : tensor<?xi8>
  %2 = tgc.clamp %x {max = 1.0 : f64, min = 1.0 : f64} : tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<?xi8>, tensor<8xf32>
}

// CHECK-LABEL: func.func @gelu(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<4xf32>
// CHECK-SAME:  ) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.gelu %[[ARG0]] : tensor<4xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.gelu %[[ARG0]] : tensor<4xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.gelu %[[ARG0]] {approximate = #tgc.gelu_approximation<tanh>} : tensor<4xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @gelu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tgc.gelu %x : tensor<4xf32>
  %1 = tgc.gelu %x {approximate = #tgc.gelu_approximation<none>} : tensor<4xf32>
  %2 = tgc.gelu %x {approximate = #tgc.gelu_approximation<tanh>} : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @binary_short(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?xi64>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<i1>
// CHECK-SAME:  ) -> (tensor<2x3xf32>, tensor<?xi64>, tensor<i1>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.add %[[ARG0]], %[[ARG0]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.sub %[[V0]], %[[ARG0]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.mul %[[V1]], %[[ARG0]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.div %[[V2]], %[[ARG0]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[V4:.*]] = tgc.pow %[[V3]], %[[ARG0]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[V5:.*]] = tgc.max %[[V4]], %[[ARG0]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[V6:.*]] = tgc.min %[[V5]], %[[ARG0]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[V7:.*]] = tgc.add %[[ARG1]], %[[ARG1]] : tensor<?xi64>
// CHECK-NEXT:    %[[V8:.*]] = tgc.div %[[V7]], %[[ARG1]] : tensor<?xi64>
// CHECK-NEXT:    %[[V9:.*]] = tgc.pow %[[V8]], %[[ARG1]] : tensor<?xi64>
// CHECK-NEXT:    %[[V10:.*]] = tgc.logical_and %[[ARG2]], %[[ARG2]] : tensor<i1>
// CHECK-NEXT:    %[[V11:.*]] = tgc.logical_or %[[V10]], %[[ARG2]] : tensor<i1>
// CHECK-NEXT:    return %[[V6]], %[[V9]], %[[V11]] : tensor<2x3xf32>, tensor<?xi64>, tensor<i1>
func.func @binary_short(%x: tensor<2x3xf32>, %i: tensor<?xi64>, %b: tensor<i1>) -> (tensor<2x3xf32>, tensor<?xi64>, tensor<i1>) {
  %0 = tgc.add %x, %x : tensor<2x3xf32>
  %1 = tgc.sub %0, %x : tensor<2x3xf32>
  %2 = tgc.mul %1, %x : tensor<2x3xf32>
  %3 = tgc.div %2, %x : tensor<2x3xf32>
  %4 = tgc.pow %3, %x : tensor<2x3xf32>
  %5 = tgc.max %4, %x : tensor<2x3xf32>
  %6 = tgc.min %5, %x : tensor<2x3xf32>
  %7 = tgc.add %i, %i : tensor<?xi64>
  %8 = tgc.div %7, %i : tensor<?xi64>
  %9 = tgc.pow %8, %i : tensor<?xi64>
  %10 = tgc.logical_and %b, %b : tensor<i1>
  %11 = tgc.logical_or %10, %b : tensor<i1>
  return %6, %9, %11 : tensor<2x3xf32>, tensor<?xi64>, tensor<i1>
}

// CHECK-LABEL: func.func @binary_broadcast(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<3xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<f32>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<?x1xf32>
// CHECK-SAME:  ) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V0:.*]] = tgc.add %[[ARG0]], %[[ARG1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.sub %[[V0]], %[[ARG2]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.mul %[[ARG1]], %[[V1]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.div %[[V2]], %[[ARG1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V4:.*]] = tgc.pow %[[V3]], %[[ARG2]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V5:.*]] = tgc.max %[[ARG3]], %[[ARG1]] : (tensor<?x1xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:    %[[V6:.*]] = tgc.min %[[V5]], %[[V4]] : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[V6]] : tensor<2x3xf32>
func.func @binary_broadcast(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %s: tensor<f32>, %d: tensor<?x1xf32>) -> tensor<2x3xf32> {
  %0 = tgc.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = tgc.sub %0, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = tgc.mul %y, %1 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tgc.div %2, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = tgc.pow %3, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %5 = tgc.max %d, %y : (tensor<?x1xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %6 = tgc.min %5, %4 : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %6 : tensor<2x3xf32>
}

// A written-out result type may refine a dynamic inferred dim.
// CHECK-LABEL: func.func @binary_refined(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x4xi8>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<4xi8>
// CHECK-SAME:  ) -> tensor<5x4xi8>
// CHECK-NEXT:    %[[V0:.*]] = tgc.add %[[ARG0]], %[[ARG1]] : (tensor<?x4xi8>, tensor<4xi8>) -> tensor<5x4xi8>
// CHECK-NEXT:    return %[[V0]] : tensor<5x4xi8>
func.func @binary_refined(%x: tensor<?x4xi8>, %y: tensor<4xi8>) -> tensor<5x4xi8> {
  %0 = tgc.add %x, %y : (tensor<?x4xi8>, tensor<4xi8>) -> tensor<5x4xi8>
  return %0 : tensor<5x4xi8>
}

// CHECK-LABEL: func.func @logical_broadcast(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x1xi1>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<3xi1>
// CHECK-SAME:  ) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[V0:.*]] = tgc.logical_and %[[ARG0]], %[[ARG1]] : (tensor<2x1xi1>, tensor<3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[V1:.*]] = tgc.logical_or %[[V0]], %[[ARG1]] : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    return %[[V1]] : tensor<2x3xi1>
func.func @logical_broadcast(%a: tensor<2x1xi1>, %b: tensor<3xi1>) -> tensor<2x3xi1> {
  %0 = tgc.logical_and %a, %b : (tensor<2x1xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  %1 = tgc.logical_or %0, %b : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  return %1 : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @binary_zero_size(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<0x3xbf16>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<1x3xbf16>
// CHECK-SAME:  ) -> tensor<0x3xbf16>
// CHECK-NEXT:    %[[V0:.*]] = tgc.add %[[ARG0]], %[[ARG1]] : (tensor<0x3xbf16>, tensor<1x3xbf16>) -> tensor<0x3xbf16>
// CHECK-NEXT:    return %[[V0]] : tensor<0x3xbf16>
func.func @binary_zero_size(%x: tensor<0x3xbf16>, %y: tensor<1x3xbf16>) -> tensor<0x3xbf16> {
  %0 = tgc.add %x, %y : (tensor<0x3xbf16>, tensor<1x3xbf16>) -> tensor<0x3xbf16>
  return %0 : tensor<0x3xbf16>
}

// CHECK-LABEL: func.func @compare(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<3xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<?xi32>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<4xi1>
// CHECK-SAME:  ) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<?xi1>, tensor<4xi1>, tensor<4xi1>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.compare  eq, %[[ARG0]], %[[ARG1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[V1:.*]] = tgc.compare  ne, %[[ARG0]], %[[ARG1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[V2:.*]] = tgc.compare  lt, %[[ARG0]], %[[ARG1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[V3:.*]] = tgc.compare  le, %[[ARG0]], %[[ARG1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[V4:.*]] = tgc.compare  gt, %[[ARG0]], %[[ARG1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[V5:.*]] = tgc.compare  ge, %[[ARG0]], %[[ARG1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[V6:.*]] = tgc.compare  lt, %[[ARG2]], %[[ARG2]] : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
// CHECK-NEXT:    %[[V7:.*]] = tgc.compare  eq, %[[ARG3]], %[[ARG3]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    %[[V8:.*]] = tgc.compare  ne, %[[ARG3]], %[[ARG3]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]], %[[V8]] : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<?xi1>, tensor<4xi1>, tensor<4xi1>
func.func @compare(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %i: tensor<?xi32>, %b: tensor<4xi1>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<?xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = tgc.compare eq, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = tgc.compare ne, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %2 = tgc.compare lt, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = tgc.compare le, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %4 = tgc.compare gt, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %5 = tgc.compare ge, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %6 = tgc.compare lt, %i, %i : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
  %7 = tgc.compare eq, %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %8 = tgc.compare ne, %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<?xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x1xi1>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<2x3xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<f32>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<?xi1>
// CHECK-SAME:    %[[ARG4:[^:]+]]: tensor<?xi64>
// CHECK-SAME:  ) -> (tensor<2x3xf32>, tensor<?xi64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.select %[[ARG0]], %[[ARG1]], %[[ARG2]] : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.select %[[ARG3]], %[[ARG4]], %[[ARG4]] : (tensor<?xi1>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
// CHECK-NEXT:    return %[[V0]], %[[V1]] : tensor<2x3xf32>, tensor<?xi64>
func.func @select(%c: tensor<2x1xi1>, %x: tensor<2x3xf32>, %y: tensor<f32>, %d: tensor<?xi1>, %i: tensor<?xi64>) -> (tensor<2x3xf32>, tensor<?xi64>) {
  %0 = tgc.select %c, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = tgc.select %d, %i, %i : (tensor<?xi1>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %0, %1 : tensor<2x3xf32>, tensor<?xi64>
}
