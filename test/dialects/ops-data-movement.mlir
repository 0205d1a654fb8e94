// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round-trip tests for the data movement ops.

// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x4x4xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<2x3xi8>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<1x1xi1>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<0x4xf16>
// CHECK-SAME:  ) -> (tensor<?x16xf32>, tensor<6xi8>, tensor<3x?xi8>, tensor<i1>, tensor<0x2x2xf16>, tensor<4x4x?xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.reshape %[[ARG0]] : tensor<?x4x4xf32> to tensor<?x16xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.reshape %[[ARG1]] : tensor<2x3xi8> to tensor<6xi8>
// CHECK-NEXT:    %[[V2:.*]] = tgc.reshape %[[ARG1]] : tensor<2x3xi8> to tensor<3x?xi8>
// CHECK-NEXT:    %[[V3:.*]] = tgc.reshape %[[ARG2]] : tensor<1x1xi1> to tensor<i1>
// CHECK-NEXT:    %[[V4:.*]] = tgc.reshape %[[ARG3]] : tensor<0x4xf16> to tensor<0x2x2xf16>
// CHECK-NEXT:    %[[V5:.*]] = tgc.reshape %[[ARG0]] : tensor<?x4x4xf32> to tensor<4x4x?xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]] : tensor<?x16xf32>, tensor<6xi8>, tensor<3x?xi8>, tensor<i1>, tensor<0x2x2xf16>, tensor<4x4x?xf32>
func.func @reshape(%x: tensor<?x4x4xf32>, %y: tensor<2x3xi8>, %z: tensor<1x1xi1>, %w: tensor<0x4xf16>) -> (tensor<?x16xf32>, tensor<6xi8>, tensor<3x?xi8>, tensor<i1>, tensor<0x2x2xf16>, tensor<4x4x?xf32>) {
  %0 = tgc.reshape %x : tensor<?x4x4xf32> to tensor<?x16xf32>
  %1 = tgc.reshape %y : tensor<2x3xi8> to tensor<6xi8>
  %2 = tgc.reshape %y : tensor<2x3xi8> to tensor<3x?xi8>
  %3 = tgc.reshape %z : tensor<1x1xi1> to tensor<i1>
  %4 = tgc.reshape %w : tensor<0x4xf16> to tensor<0x2x2xf16>
  %5 = tgc.reshape %x : tensor<?x4x4xf32> to tensor<4x4x?xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?x16xf32>, tensor<6xi8>, tensor<3x?xi8>, tensor<i1>, tensor<0x2x2xf16>, tensor<4x4x?xf32>
}

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3x4xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?x5xi64>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<bf16>
// CHECK-SAME:  ) -> (tensor<2x4x3xf32>, tensor<4x2x3xf32>, tensor<5x?xi64>, tensor<bf16>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.transpose %[[ARG0]] {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.transpose %[[ARG0]] {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.transpose %[[ARG1]] {permutation = array<i64: 1, 0>} : (tensor<?x5xi64>) -> tensor<5x?xi64>
// CHECK-NEXT:    %[[V3:.*]] = tgc.transpose %[[ARG2]] {permutation = array<i64>} : (tensor<bf16>) -> tensor<bf16>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<2x4x3xf32>, tensor<4x2x3xf32>, tensor<5x?xi64>, tensor<bf16>
func.func @transpose(%x: tensor<2x3x4xf32>, %y: tensor<?x5xi64>, %s: tensor<bf16>) -> (tensor<2x4x3xf32>, tensor<4x2x3xf32>, tensor<5x?xi64>, tensor<bf16>) {
  %0 = tgc.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = tgc.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %2 = tgc.transpose %y {permutation = array<i64: 1, 0>} : (tensor<?x5xi64>) -> tensor<5x?xi64>
  %3 = tgc.transpose %s {permutation = array<i64>} : (tensor<bf16>) -> tensor<bf16>
  return %0, %1, %2, %3 : tensor<2x4x3xf32>, tensor<4x2x3xf32>, tensor<5x?xi64>, tensor<bf16>
}

// CHECK-LABEL: func.func @broadcast_to(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x1xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<i32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<3xi1>
// CHECK-SAME:  ) -> (tensor<4x?x8xf32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<0x3xi1>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.broadcast_to %[[ARG0]] : tensor<?x1xf32> to tensor<4x?x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.broadcast_to %[[ARG1]] : tensor<i32> to tensor<2x3xi32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.broadcast_to %[[ARG2]] : tensor<3xi1> to tensor<2x3xi1>
// CHECK-NEXT:    %[[V3:.*]] = tgc.broadcast_to %[[ARG2]] : tensor<3xi1> to tensor<0x3xi1>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x?x8xf32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<0x3xi1>
func.func @broadcast_to(%x: tensor<?x1xf32>, %s: tensor<i32>, %y: tensor<3xi1>) -> (tensor<4x?x8xf32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<0x3xi1>) {
  %0 = tgc.broadcast_to %x : tensor<?x1xf32> to tensor<4x?x8xf32>
  %1 = tgc.broadcast_to %s : tensor<i32> to tensor<2x3xi32>
  %2 = tgc.broadcast_to %y : tensor<3xi1> to tensor<2x3xi1>
  %3 = tgc.broadcast_to %y : tensor<3xi1> to tensor<0x3xi1>
  return %0, %1, %2, %3 : tensor<4x?x8xf32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<0x3xi1>
}

// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<2x?xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<?x5xf32>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<0x3xf32>
// CHECK-SAME:  ) -> (tensor<2x?xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x11xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.concat %[[ARG0]], %[[ARG1]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.concat %[[ARG0]] {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.concat %[[ARG0]], %[[ARG3]], %[[ARG0]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.concat %[[ARG0]], %[[ARG2]], %[[ARG0]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<?x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
// CHECK-NEXT:    %[[V4:.*]] = tgc.concat %[[ARG0]], %[[ARG3]] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : tensor<2x?xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x11xf32>, tensor<2x3xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x?xf32>, %c: tensor<?x5xf32>, %d: tensor<0x3xf32>) -> (tensor<2x?xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x11xf32>, tensor<2x3xf32>) {
  %0 = tgc.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = tgc.concat %a {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = tgc.concat %a, %d, %a {axis = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %3 = tgc.concat %a, %c, %a {axis = 1 : i64} : (tensor<2x3xf32>, tensor<?x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  %4 = tgc.concat %a, %d {axis = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x?xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x11xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @slice(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<4x5xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?x6xi32>
// CHECK-SAME:  ) -> (tensor<2x4xf32>, tensor<4x3xf32>, tensor<0x5xf32>, tensor<?x2xi32>, tensor<1x1xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.slice %[[ARG0]] {ends = array<i64: 4, 9223372036854775807>, starts = array<i64: 0, 1>, steps = array<i64: 2, 1>} : (tensor<4x5xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.slice %[[ARG0]] {ends = array<i64: -5, -9223372036854775808>, starts = array<i64: 3, -1>, steps = array<i64: -1, -2>} : (tensor<4x5xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.slice %[[ARG0]] {ends = array<i64: 1, 5>, starts = array<i64: 3, 0>} : (tensor<4x5xf32>) -> tensor<0x5xf32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.slice %[[ARG1]] {ends = array<i64: 2, -1>, starts = array<i64: 0, -3>} : (tensor<?x6xi32>) -> tensor<?x2xi32>
// CHECK-NEXT:    %[[V4:.*]] = tgc.slice %[[ARG0]] {ends = array<i64: -1, 100>, starts = array<i64: -2, 4>, steps = array<i64: 3, 7>} : (tensor<4x5xf32>) -> tensor<1x1xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : tensor<2x4xf32>, tensor<4x3xf32>, tensor<0x5xf32>, tensor<?x2xi32>, tensor<1x1xf32>
func.func @slice(%x: tensor<4x5xf32>, %y: tensor<?x6xi32>) -> (tensor<2x4xf32>, tensor<4x3xf32>, tensor<0x5xf32>, tensor<?x2xi32>, tensor<1x1xf32>) {
  %0 = tgc.slice %x {ends = array<i64: 4, 9223372036854775807>, starts = array<i64: 0, 1>, steps = array<i64: 2, 1>} : (tensor<4x5xf32>) -> tensor<2x4xf32>
  // Negative steps walk backwards: the whole of dim 0 reversed, and elements 4, 2, 0 of dim 1.
  %1 = tgc.slice %x {ends = array<i64: -5, -9223372036854775808>, starts = array<i64: 3, -1>, steps = array<i64: -1, -2>} : (tensor<4x5xf32>) -> tensor<4x3xf32>
  %2 = tgc.slice %x {ends = array<i64: 1, 5>, starts = array<i64: 3, 0>} : (tensor<4x5xf32>) -> tensor<0x5xf32>
  %3 = tgc.slice %y {ends = array<i64: 2, -1>, starts = array<i64: 0, -3>} : (tensor<?x6xi32>) -> tensor<?x2xi32>
  %4 = tgc.slice %x {ends = array<i64: -1, 100>, starts = array<i64: -2, 4>, steps = array<i64: 3, 7>} : (tensor<4x5xf32>) -> tensor<1x1xf32>
  return %0, %1, %2, %3, %4 : tensor<2x4xf32>, tensor<4x3xf32>, tensor<0x5xf32>, tensor<?x2xi32>, tensor<1x1xf32>
}

// CHECK-LABEL: func.func @pad(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x2xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?x3xi32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<0xi1>
// CHECK-SAME:  ) -> (tensor<3x3xf32>, tensor<?x5xi32>, tensor<2xi1>, tensor<2x2xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.pad %[[ARG0]] {high = array<i64: 0, 1>, low = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<3x3xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.pad %[[ARG1]] {high = array<i64: 1, 0>, low = array<i64: 0, 2>, value = 7.000000e+00 : f64} : (tensor<?x3xi32>) -> tensor<?x5xi32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.pad %[[ARG2]] {high = array<i64: 1>, low = array<i64: 1>, value = 1.000000e+00 : f64} : (tensor<0xi1>) -> tensor<2xi1>
// CHECK-NEXT:    %[[V3:.*]] = tgc.pad %[[ARG0]] {high = array<i64: 0, 0>, low = array<i64: 0, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<3x3xf32>, tensor<?x5xi32>, tensor<2xi1>, tensor<2x2xf32>
func.func @pad(%x: tensor<2x2xf32>, %y: tensor<?x3xi32>, %z: tensor<0xi1>) -> (tensor<3x3xf32>, tensor<?x5xi32>, tensor<2xi1>, tensor<2x2xf32>) {
  %0 = tgc.pad %x {high = array<i64: 0, 1>, low = array<i64: 1, 0>, value = 0.0 : f64} : (tensor<2x2xf32>) -> tensor<3x3xf32>
  %1 = tgc.pad %y {high = array<i64: 1, 0>, low = array<i64: 0, 2>, value = 7.0 : f64} : (tensor<?x3xi32>) -> tensor<?x5xi32>
  %2 = tgc.pad %z {high = array<i64: 1>, low = array<i64: 1>, value = 1.0 : f64} : (tensor<0xi1>) -> tensor<2xi1>
  %3 = tgc.pad %x {high = array<i64: 0, 0>, low = array<i64: 0, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<3x3xf32>, tensor<?x5xi32>, tensor<2xi1>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @gather(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1000x64xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?x8xi64>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<2x5x3xbf16>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<4xi32>
// CHECK-SAME:    %[[ARG4:[^:]+]]: tensor<i64>
// CHECK-SAME:  ) -> (tensor<?x8x64xf32>, tensor<2x4x3xbf16>, tensor<1000xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.gather %[[ARG0]], %[[ARG1]] {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<?x8xi64>) -> tensor<?x8x64xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.gather %[[ARG2]], %[[ARG3]] {axis = 1 : i64} : (tensor<2x5x3xbf16>, tensor<4xi32>) -> tensor<2x4x3xbf16>
// CHECK-NEXT:    %[[V2:.*]] = tgc.gather %[[ARG0]], %[[ARG4]] {axis = 1 : i64} : (tensor<1000x64xf32>, tensor<i64>) -> tensor<1000xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<?x8x64xf32>, tensor<2x4x3xbf16>, tensor<1000xf32>
func.func @gather(%t: tensor<1000x64xf32>, %ids: tensor<?x8xi64>, %d: tensor<2x5x3xbf16>, %j: tensor<4xi32>, %s: tensor<i64>) -> (tensor<?x8x64xf32>, tensor<2x4x3xbf16>, tensor<1000xf32>) {
  %0 = tgc.gather %t, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<?x8xi64>) -> tensor<?x8x64xf32>
  %1 = tgc.gather %d, %j {axis = 1 : i64} : (tensor<2x5x3xbf16>, tensor<4xi32>) -> tensor<2x4x3xbf16>
  %2 = tgc.gather %t, %s {axis = 1 : i64} : (tensor<1000x64xf32>, tensor<i64>) -> tensor<1000xf32>
  return %0, %1, %2 : tensor<?x8x64xf32>, tensor<2x4x3xbf16>, tensor<1000xf32>
}

// CHECK-LABEL: func.func @squeeze(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x3x1xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?x4xi8>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<1xf64>
// CHECK-SAME:  ) -> (tensor<3xf32>, tensor<3x1xf32>, tensor<4xi8>, tensor<f64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.squeeze %[[ARG0]] {axes = array<i64: 0, 2>} : (tensor<1x3x1xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.squeeze %[[ARG0]] {axes = array<i64: 0>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.squeeze %[[ARG1]] {axes = array<i64: 0>} : (tensor<?x4xi8>) -> tensor<4xi8>
// CHECK-NEXT:    %[[V3:.*]] = tgc.squeeze %[[ARG2]] {axes = array<i64: 0>} : (tensor<1xf64>) -> tensor<f64>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<3xf32>, tensor<3x1xf32>, tensor<4xi8>, tensor<f64>
func.func @squeeze(%x: tensor<1x3x1xf32>, %y: tensor<?x4xi8>, %z: tensor<1xf64>) -> (tensor<3xf32>, tensor<3x1xf32>, tensor<4xi8>, tensor<f64>) {
  %0 = tgc.squeeze %x {axes = array<i64: 0, 2>} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %1 = tgc.squeeze %x {axes = array<i64: 0>} : (tensor<1x3x1xf32>) -> tensor<3x1xf32>
  %2 = tgc.squeeze %y {axes = array<i64: 0>} : (tensor<?x4xi8>) -> tensor<4xi8>
  %3 = tgc.squeeze %z {axes = array<i64: 0>} : (tensor<1xf64>) -> tensor<f64>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3x1xf32>, tensor<4xi8>, tensor<f64>
}

// CHECK-LABEL: func.func @unsqueeze(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<3x?xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<i1>
// CHECK-SAME:  ) -> (tensor<1x3x1x?xf32>, tensor<3x?x1xf32>, tensor<1x1xi1>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.unsqueeze %[[ARG0]] {axes = array<i64: 0, 2>} : (tensor<3x?xf32>) -> tensor<1x3x1x?xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.unsqueeze %[[ARG0]] {axes = array<i64: 2>} : (tensor<3x?xf32>) -> tensor<3x?x1xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.unsqueeze %[[ARG1]] {axes = array<i64: 0, 1>} : (tensor<i1>) -> tensor<1x1xi1>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<1x3x1x?xf32>, tensor<3x?x1xf32>, tensor<1x1xi1>
func.func @unsqueeze(%x: tensor<3x?xf32>, %s: tensor<i1>) -> (tensor<1x3x1x?xf32>, tensor<3x?x1xf32>, tensor<1x1xi1>) {
  %0 = tgc.unsqueeze %x {axes = array<i64: 0, 2>} : (tensor<3x?xf32>) -> tensor<1x3x1x?xf32>
  %1 = tgc.unsqueeze %x {axes = array<i64: 2>} : (tensor<3x?xf32>) -> tensor<3x?x1xf32>
  %2 = tgc.unsqueeze %s {axes = array<i64: 0, 1>} : (tensor<i1>) -> tensor<1x1xi1>
  return %0, %1, %2 : tensor<1x3x1x?xf32>, tensor<3x?x1xf32>, tensor<1x1xi1>
}

// Constant in-range indices, so that the differential runs compare values
// (random indices are mostly out of range: both backends fail).
// CHECK-LABEL: func.func @scatter_elements(
// CHECK:         %[[I:.*]] = tgc.constant dense<{{\[}}[0, 4], [2, 2], [-1, 3]]> : tensor<3x2xi64>
// CHECK-NEXT:    tgc.scatter_elements %{{.*}}, %[[I]], %{{.*}} {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    tgc.scatter_elements %{{.*}}, %[[I]], %{{.*}} {axis = 1 : i64, reduction = #tgc.scatter_reduction<add>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    tgc.scatter_elements %{{.*}}, %[[I]], %{{.*}} {axis = 1 : i64, reduction = #tgc.scatter_reduction<min>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
func.func @scatter_elements(%x: tensor<3x5xf32>, %u: tensor<3x2xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %i = tgc.constant dense<[[0, 4], [2, 2], [-1, 3]]> : tensor<3x2xi64>
  %0 = tgc.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  %1 = tgc.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #tgc.scatter_reduction<add>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  %2 = tgc.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #tgc.scatter_reduction<min>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0, %1, %2 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}

// CHECK-LABEL: func.func @scatter_elements_types(
// CHECK:         tgc.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64, reduction = #tgc.scatter_reduction<max>} : (tensor<?x4xi32>, tensor<?x4xi32>, tensor<?x4xi32>) -> tensor<?x4xi32>
// CHECK-NEXT:    tgc.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
func.func @scatter_elements_types(%y: tensor<?x4xi32>, %j: tensor<?x4xi32>, %v: tensor<?x4xi32>, %b: tensor<4xi1>, %k: tensor<2xi64>, %c: tensor<2xi1>) -> (tensor<?x4xi32>, tensor<4xi1>) {
  %0 = tgc.scatter_elements %y, %j, %v {axis = 0 : i64, reduction = #tgc.scatter_reduction<max>} : (tensor<?x4xi32>, tensor<?x4xi32>, tensor<?x4xi32>) -> tensor<?x4xi32>
  %1 = tgc.scatter_elements %b, %k, %c {axis = 0 : i64} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
  return %0, %1 : tensor<?x4xi32>, tensor<4xi1>
}

// CHECK-LABEL: func.func @scatter_nd(
// CHECK:         tgc.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = #tgc.scatter_reduction<mul>} : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
// CHECK-NEXT:    tgc.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x4x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>) -> tensor<4x4x4xf32>
func.func @scatter_nd(%x: tensor<4x4x4xf32>, %u: tensor<2x4x4xf32>, %w: tensor<3x4xf32>) -> (tensor<4x4x4xf32>, tensor<4x4x4xf32>) {
  %i = tgc.constant dense<[[3], [-4]]> : tensor<2x1xi64>
  %j = tgc.constant dense<[[0, 1], [3, -1], [0, 1]]> : tensor<3x2xi64>
  %0 = tgc.scatter_nd %x, %i, %u {reduction = #tgc.scatter_reduction<mul>} : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
  %1 = tgc.scatter_nd %x, %j, %w : (tensor<4x4x4xf32>, tensor<3x2xi64>, tensor<3x4xf32>) -> tensor<4x4x4xf32>
  return %0, %1 : tensor<4x4x4xf32>, tensor<4x4x4xf32>
}

// CHECK-LABEL: func.func @scatter_nd_types(
// CHECK:         tgc.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = #tgc.scatter_reduction<min>} : (tensor<5x?xi64>, tensor<3x2xi32>, tensor<3xi64>) -> tensor<5x?xi64>
// CHECK-NEXT:    tgc.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8xf16>, tensor<?x1xi64>, tensor<?xf16>) -> tensor<8xf16>
func.func @scatter_nd_types(%y: tensor<5x?xi64>, %j: tensor<3x2xi32>, %v: tensor<3xi64>, %w: tensor<8xf16>, %k: tensor<?x1xi64>, %z: tensor<?xf16>) -> (tensor<5x?xi64>, tensor<8xf16>) {
  %0 = tgc.scatter_nd %y, %j, %v {reduction = #tgc.scatter_reduction<min>} : (tensor<5x?xi64>, tensor<3x2xi32>, tensor<3xi64>) -> tensor<5x?xi64>
  %1 = tgc.scatter_nd %w, %k, %z : (tensor<8xf16>, tensor<?x1xi64>, tensor<?xf16>) -> tensor<8xf16>
  return %0, %1 : tensor<5x?xi64>, tensor<8xf16>
}
