// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round-trip tests for the normalization ops.

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x1000xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<2x3x4xf16>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<5xbf16>
// CHECK-SAME:  ) -> (tensor<?x1000xf32>, tensor<2x3x4xf16>, tensor<5xbf16>, tensor<?x1000xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.softmax %[[ARG0]] {axis = 1 : i64} : tensor<?x1000xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.softmax %[[ARG1]] {axis = 0 : i64} : tensor<2x3x4xf16>
// CHECK-NEXT:    %[[V2:.*]] = tgc.log_softmax %[[ARG2]] {axis = 0 : i64} : tensor<5xbf16>
// CHECK-NEXT:    %[[V3:.*]] = tgc.log_softmax %[[ARG0]] {axis = 0 : i64} : tensor<?x1000xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<?x1000xf32>, tensor<2x3x4xf16>, tensor<5xbf16>, tensor<?x1000xf32>
func.func @softmax(%x: tensor<?x1000xf32>, %y: tensor<2x3x4xf16>, %z: tensor<5xbf16>) -> (tensor<?x1000xf32>, tensor<2x3x4xf16>, tensor<5xbf16>, tensor<?x1000xf32>) {
  %0 = tgc.softmax %x {axis = 1 : i64} : tensor<?x1000xf32>
  %1 = tgc.softmax %y {axis = 0 : i64} : tensor<2x3x4xf16>
  %2 = tgc.log_softmax %z {axis = 0 : i64} : tensor<5xbf16>
  %3 = tgc.log_softmax %x {axis = 0 : i64} : tensor<?x1000xf32>
  return %0, %1, %2, %3 : tensor<?x1000xf32>, tensor<2x3x4xf16>, tensor<5xbf16>, tensor<?x1000xf32>
}

// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x128x768xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<768xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<768xf32>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<128x768xf32>
// CHECK-SAME:  ) -> (tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.layer_norm %[[ARG0]] scale %[[ARG1]] bias %[[ARG2]] {axis = 2 : i64} : (tensor<?x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.layer_norm %[[ARG0]] scale %[[ARG1]] {axis = 2 : i64, epsilon = 9.9999999999999995E-7 : f64} : (tensor<?x128x768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.layer_norm %[[ARG0]] bias %[[ARG2]] {axis = 2 : i64} : (tensor<?x128x768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.layer_norm %[[ARG0]] {axis = 0 : i64, epsilon = 0.000000e+00 : f64} : (tensor<?x128x768xf32>) -> tensor<?x128x768xf32>
// CHECK-NEXT:    %[[V4:.*]] = tgc.layer_norm %[[ARG0]] scale %[[ARG3]] bias %[[ARG3]] {axis = 1 : i64} : (tensor<?x128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>) -> tensor<?x128x768xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>
func.func @layer_norm(%x: tensor<?x128x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>, %g2: tensor<128x768xf32>) -> (tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>) {
  %0 = tgc.layer_norm %x scale %g bias %b {axis = 2 : i64} : (tensor<?x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
  %1 = tgc.layer_norm %x scale %g {axis = 2 : i64, epsilon = 1.0e-06 : f64} : (tensor<?x128x768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
  %2 = tgc.layer_norm %x bias %b {axis = 2 : i64} : (tensor<?x128x768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
  %3 = tgc.layer_norm %x {axis = 0 : i64, epsilon = 0.0 : f64} : (tensor<?x128x768xf32>) -> tensor<?x128x768xf32>
  %4 = tgc.layer_norm %x scale %g2 bias %g2 {axis = 1 : i64} : (tensor<?x128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>) -> tensor<?x128x768xf32>
  return %0, %1, %2, %3, %4 : tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>, tensor<?x128x768xf32>
}

// CHECK-LABEL: func.func @layer_norm_dynamic(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x?xf64>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<5xf64>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<?x?xf16>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<?xf16>
// CHECK-SAME:  ) -> (tensor<2x?xf64>, tensor<?x?xf16>, tensor<3x4xf16>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.layer_norm %[[ARG0]] scale %[[ARG1]] {axis = 1 : i64} : (tensor<2x?xf64>, tensor<5xf64>) -> tensor<2x?xf64>
// CHECK-NEXT:    %[[V1:.*]] = tgc.layer_norm %[[ARG2]] scale %[[ARG3]] bias %[[ARG3]] {axis = 1 : i64} : (tensor<?x?xf16>, tensor<?xf16>, tensor<?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT:    %[[V2:.*]] = tgc.layer_norm %[[ARG2]] {axis = 1 : i64} : (tensor<?x?xf16>) -> tensor<3x4xf16>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<2x?xf64>, tensor<?x?xf16>, tensor<3x4xf16>
func.func @layer_norm_dynamic(%x: tensor<2x?xf64>, %g: tensor<5xf64>, %y: tensor<?x?xf16>, %h: tensor<?xf16>) -> (tensor<2x?xf64>, tensor<?x?xf16>, tensor<3x4xf16>) {
  %0 = tgc.layer_norm %x scale %g {axis = 1 : i64} : (tensor<2x?xf64>, tensor<5xf64>) -> tensor<2x?xf64>
  %1 = tgc.layer_norm %y scale %h bias %h {axis = 1 : i64} : (tensor<?x?xf16>, tensor<?xf16>, tensor<?xf16>) -> tensor<?x?xf16>
  %2 = tgc.layer_norm %y {axis = 1 : i64} : (tensor<?x?xf16>) -> tensor<3x4xf16>
  return %0, %1, %2 : tensor<2x?xf64>, tensor<?x?xf16>, tensor<3x4xf16>
}

// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x64x56x56xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<64xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<2x7x7x32xbf16>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<32xbf16>
// CHECK-SAME:    %[[ARG4:[^:]+]]: tensor<8x?xf16>
// CHECK-SAME:    %[[ARG5:[^:]+]]: tensor<?xf16>
// CHECK-SAME:  ) -> (tensor<?x64x56x56xf32>, tensor<?x64x56x56xf32>, tensor<2x7x7x32xbf16>, tensor<8x?xf16>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.batch_norm %[[ARG0]], %[[ARG1]], %[[ARG1]], %[[ARG1]], %[[ARG1]] {epsilon = 1.000000e-03 : f64} : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.batch_norm %[[ARG0]], %[[ARG1]], %[[ARG1]], %[[ARG1]], %[[ARG1]] : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.batch_norm %[[ARG2]], %[[ARG3]], %[[ARG3]], %[[ARG3]], %[[ARG3]] {axis = 3 : i64} : (tensor<2x7x7x32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<2x7x7x32xbf16>
// CHECK-NEXT:    %[[V3:.*]] = tgc.batch_norm %[[ARG4]], %[[ARG5]], %[[ARG5]], %[[ARG5]], %[[ARG5]] : (tensor<8x?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>) -> tensor<8x?xf16>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<?x64x56x56xf32>, tensor<?x64x56x56xf32>, tensor<2x7x7x32xbf16>, tensor<8x?xf16>
func.func @batch_norm(%x: tensor<?x64x56x56xf32>, %s: tensor<64xf32>, %y: tensor<2x7x7x32xbf16>, %t: tensor<32xbf16>, %z: tensor<8x?xf16>, %u: tensor<?xf16>) -> (tensor<?x64x56x56xf32>, tensor<?x64x56x56xf32>, tensor<2x7x7x32xbf16>, tensor<8x?xf16>) {
  %0 = tgc.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-03 : f64} : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
  %1 = tgc.batch_norm %x, %s, %s, %s, %s : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
  %2 = tgc.batch_norm %y, %t, %t, %t, %t {axis = 3 : i64} : (tensor<2x7x7x32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> tensor<2x7x7x32xbf16>
  %3 = tgc.batch_norm %z, %u, %u, %u, %u : (tensor<8x?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>, tensor<?xf16>) -> tensor<8x?xf16>
  return %0, %1, %2, %3 : tensor<?x64x56x56xf32>, tensor<?x64x56x56xf32>, tensor<2x7x7x32xbf16>, tensor<8x?xf16>
}
