// RUN: tgc-opt %s -canonicalize | FileCheck %s

// Folds read dense_resource constants (what the ONNX importer makes of
// large initializers) as they read dense ones: a reshape keeps the blob
// under the new type, a transpose and a cast compute dense constants.

// CHECK-LABEL: func.func @reshape_keeps_the_blob(
// CHECK:         %[[C:.*]] = tgc.constant dense_resource<w> : tensor<6xf32>
// CHECK:         return %[[C]]
func.func @reshape_keeps_the_blob() -> tensor<6xf32> {
  %w = tgc.constant dense_resource<w> : tensor<2x3xf32>
  %r = tgc.reshape %w : tensor<2x3xf32> to tensor<6xf32>
  return %r : tensor<6xf32>
}

// CHECK-LABEL: func.func @transpose_computes_it(
// CHECK:         tgc.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NOT:     tgc.transpose
func.func @transpose_computes_it() -> tensor<3x2xf32> {
  %w = tgc.constant dense_resource<w> : tensor<2x3xf32>
  %t = tgc.transpose %w {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @cast_computes_it(
// CHECK:         tgc.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NOT:     tgc.cast
func.func @cast_computes_it() -> tensor<2x3xi32> {
  %w = tgc.constant dense_resource<w> : tensor<2x3xf32>
  %c = tgc.cast %w : tensor<2x3xf32> to tensor<2x3xi32>
  return %c : tensor<2x3xi32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}
