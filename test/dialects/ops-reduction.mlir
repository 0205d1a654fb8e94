// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round-trip tests for the reductions and arg-reductions.

// CHECK-LABEL: func.func @reduce_sum(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<4x?xf32>
// CHECK-SAME:  ) -> (tensor<4x1xf32>, tensor<4xf32>, tensor<f32>, tensor<1x1xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.reduce_sum %[[ARG0]] {axes = array<i64: 1>, keepdims} : (tensor<4x?xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.reduce_sum %[[ARG0]] {axes = array<i64: 1>} : (tensor<4x?xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.reduce_sum %[[ARG0]] {axes = array<i64: 0, 1>} : (tensor<4x?xf32>) -> tensor<f32>
// CHECK-NEXT:    %[[V3:.*]] = tgc.reduce_sum %[[ARG0]] {axes = array<i64: 0, 1>, keepdims} : (tensor<4x?xf32>) -> tensor<1x1xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4x1xf32>, tensor<4xf32>, tensor<f32>, tensor<1x1xf32>
func.func @reduce_sum(%x: tensor<4x?xf32>) -> (tensor<4x1xf32>, tensor<4xf32>, tensor<f32>, tensor<1x1xf32>) {
  %0 = tgc.reduce_sum %x {axes = array<i64: 1>, keepdims} : (tensor<4x?xf32>) -> tensor<4x1xf32>
  %1 = tgc.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x?xf32>) -> tensor<4xf32>
  %2 = tgc.reduce_sum %x {axes = array<i64: 0, 1>} : (tensor<4x?xf32>) -> tensor<f32>
  %3 = tgc.reduce_sum %x {axes = array<i64: 0, 1>, keepdims} : (tensor<4x?xf32>) -> tensor<1x1xf32>
  return %0, %1, %2, %3 : tensor<4x1xf32>, tensor<4xf32>, tensor<f32>, tensor<1x1xf32>
}

// CHECK-LABEL: func.func @reduce_all_kinds(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3x4xbf16>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?x5xi8>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<0x3xi64>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<6xi32>
// CHECK-SAME:    %[[ARG4:[^:]+]]: tensor<3x?xf64>
// CHECK-SAME:  ) -> (tensor<3xbf16>, tensor<?x1xi8>, tensor<3xi64>, tensor<i32>, tensor<?xf64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.reduce_mean %[[ARG0]] {axes = array<i64: 0, 2>} : (tensor<2x3x4xbf16>) -> tensor<3xbf16>
// CHECK-NEXT:    %[[V1:.*]] = tgc.reduce_max %[[ARG1]] {axes = array<i64: 1>, keepdims} : (tensor<?x5xi8>) -> tensor<?x1xi8>
// CHECK-NEXT:    %[[V2:.*]] = tgc.reduce_min %[[ARG2]] {axes = array<i64: 0>} : (tensor<0x3xi64>) -> tensor<3xi64>
// CHECK-NEXT:    %[[V3:.*]] = tgc.reduce_prod %[[ARG3]] {axes = array<i64: 0>} : (tensor<6xi32>) -> tensor<i32>
// CHECK-NEXT:    %[[V4:.*]] = tgc.reduce_sum %[[ARG4]] {axes = array<i64: 0>} : (tensor<3x?xf64>) -> tensor<?xf64>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]] : tensor<3xbf16>, tensor<?x1xi8>, tensor<3xi64>, tensor<i32>, tensor<?xf64>
func.func @reduce_all_kinds(%a: tensor<2x3x4xbf16>, %b: tensor<?x5xi8>, %c: tensor<0x3xi64>, %d: tensor<6xi32>, %e: tensor<3x?xf64>) -> (tensor<3xbf16>, tensor<?x1xi8>, tensor<3xi64>, tensor<i32>, tensor<?xf64>) {
  %0 = tgc.reduce_mean %a {axes = array<i64: 0, 2>} : (tensor<2x3x4xbf16>) -> tensor<3xbf16>
  %1 = tgc.reduce_max %b {axes = array<i64: 1>, keepdims} : (tensor<?x5xi8>) -> tensor<?x1xi8>
  %2 = tgc.reduce_min %c {axes = array<i64: 0>} : (tensor<0x3xi64>) -> tensor<3xi64>
  %3 = tgc.reduce_prod %d {axes = array<i64: 0>} : (tensor<6xi32>) -> tensor<i32>
  %4 = tgc.reduce_sum %e {axes = array<i64: 0>} : (tensor<3x?xf64>) -> tensor<?xf64>
  return %0, %1, %2, %3, %4 : tensor<3xbf16>, tensor<?x1xi8>, tensor<3xi64>, tensor<i32>, tensor<?xf64>
}

// CHECK-LABEL: func.func @reduce_refined(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x?xf16>
// CHECK-SAME:  ) -> tensor<7xf16>
// CHECK-NEXT:    %[[V0:.*]] = tgc.reduce_max %[[ARG0]] {axes = array<i64: 1>} : (tensor<?x?xf16>) -> tensor<7xf16>
// CHECK-NEXT:    return %[[V0]] : tensor<7xf16>
func.func @reduce_refined(%x: tensor<?x?xf16>) -> tensor<7xf16> {
  %0 = tgc.reduce_max %x {axes = array<i64: 1>} : (tensor<?x?xf16>) -> tensor<7xf16>
  return %0 : tensor<7xf16>
}

// CHECK-LABEL: func.func @argmax(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<4x10xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<?x3xi32>
// CHECK-SAME:  ) -> (tensor<4xi64>, tensor<4x1xi64>, tensor<10xi64>, tensor<?x1xi64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.argmax %[[ARG0]] {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4xi64>
// CHECK-NEXT:    %[[V1:.*]] = tgc.argmax %[[ARG0]] {axis = 1 : i64, keepdims} : (tensor<4x10xf32>) -> tensor<4x1xi64>
// CHECK-NEXT:    %[[V2:.*]] = tgc.argmax %[[ARG0]] {axis = 0 : i64, select_last_index} : (tensor<4x10xf32>) -> tensor<10xi64>
// CHECK-NEXT:    %[[V3:.*]] = tgc.argmax %[[ARG1]] {axis = 1 : i64, keepdims, select_last_index} : (tensor<?x3xi32>) -> tensor<?x1xi64>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<4xi64>, tensor<4x1xi64>, tensor<10xi64>, tensor<?x1xi64>
func.func @argmax(%x: tensor<4x10xf32>, %y: tensor<?x3xi32>) -> (tensor<4xi64>, tensor<4x1xi64>, tensor<10xi64>, tensor<?x1xi64>) {
  %0 = tgc.argmax %x {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4xi64>
  %1 = tgc.argmax %x {axis = 1 : i64, keepdims} : (tensor<4x10xf32>) -> tensor<4x1xi64>
  %2 = tgc.argmax %x {axis = 0 : i64, select_last_index} : (tensor<4x10xf32>) -> tensor<10xi64>
  %3 = tgc.argmax %y {axis = 1 : i64, keepdims, select_last_index} : (tensor<?x3xi32>) -> tensor<?x1xi64>
  return %0, %1, %2, %3 : tensor<4xi64>, tensor<4x1xi64>, tensor<10xi64>, tensor<?x1xi64>
}

// CHECK-LABEL: func.func @argmin(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<7xf16>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<2x?xi8>
// CHECK-SAME:  ) -> (tensor<i64>, tensor<1xi64>, tensor<2xi64>, tensor<1x?xi64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.argmin %[[ARG0]] {axis = 0 : i64} : (tensor<7xf16>) -> tensor<i64>
// CHECK-NEXT:    %[[V1:.*]] = tgc.argmin %[[ARG0]] {axis = 0 : i64, keepdims, select_last_index} : (tensor<7xf16>) -> tensor<1xi64>
// CHECK-NEXT:    %[[V2:.*]] = tgc.argmin %[[ARG1]] {axis = 1 : i64, select_last_index} : (tensor<2x?xi8>) -> tensor<2xi64>
// CHECK-NEXT:    %[[V3:.*]] = tgc.argmin %[[ARG1]] {axis = 0 : i64, keepdims} : (tensor<2x?xi8>) -> tensor<1x?xi64>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]], %[[V3]] : tensor<i64>, tensor<1xi64>, tensor<2xi64>, tensor<1x?xi64>
func.func @argmin(%x: tensor<7xf16>, %y: tensor<2x?xi8>) -> (tensor<i64>, tensor<1xi64>, tensor<2xi64>, tensor<1x?xi64>) {
  %0 = tgc.argmin %x {axis = 0 : i64} : (tensor<7xf16>) -> tensor<i64>
  %1 = tgc.argmin %x {axis = 0 : i64, keepdims, select_last_index} : (tensor<7xf16>) -> tensor<1xi64>
  %2 = tgc.argmin %y {axis = 1 : i64, select_last_index} : (tensor<2x?xi8>) -> tensor<2xi64>
  %3 = tgc.argmin %y {axis = 0 : i64, keepdims} : (tensor<2x?xi8>) -> tensor<1x?xi64>
  return %0, %1, %2, %3 : tensor<i64>, tensor<1xi64>, tensor<2xi64>, tensor<1x?xi64>
}

// CHECK-LABEL: func.func @topk(
// CHECK:         %[[V0:.*]], %[[I0:.*]] = tgc.topk %{{.*}} {axis = 1 : i64, k = 3 : i64} : (tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
// CHECK-NEXT:    %[[V1:.*]], %[[I1:.*]] = tgc.topk %{{.*}} {axis = 0 : i64, k = 2 : i64, largest = false, sorted = false} : (tensor<?x6xi32>) -> (tensor<2x6xi32>, tensor<2x6xi64>)
// CHECK-NEXT:    %[[V2:.*]], %[[I2:.*]] = tgc.topk %{{.*}} {axis = 1 : i64, k = 0 : i64} : (tensor<3x?xbf16>) -> (tensor<3x0xbf16>, tensor<3x0xi64>)
// CHECK-NEXT:    return %[[V0]], %[[I0]], %[[V1]], %[[I1]], %[[V2]], %[[I2]] :
func.func @topk(%x: tensor<4x10xf32>, %y: tensor<?x6xi32>, %z: tensor<3x?xbf16>) -> (tensor<4x3xf32>, tensor<4x3xi64>, tensor<2x6xi32>, tensor<2x6xi64>, tensor<3x0xbf16>, tensor<3x0xi64>) {
  %0, %1 = tgc.topk %x {axis = 1 : i64, k = 3 : i64} : (tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
  %2, %3 = tgc.topk %y {axis = 0 : i64, k = 2 : i64, largest = false, sorted = false} : (tensor<?x6xi32>) -> (tensor<2x6xi32>, tensor<2x6xi64>)
  %4, %5 = tgc.topk %z {axis = 1 : i64, k = 0 : i64} : (tensor<3x?xbf16>) -> (tensor<3x0xbf16>, tensor<3x0xi64>)
  return %0, %1, %2, %3, %4, %5 : tensor<4x3xf32>, tensor<4x3xi64>, tensor<2x6xi32>, tensor<2x6xi64>, tensor<3x0xbf16>, tensor<3x0xi64>
}

// k = -1: every element, a sort; the result's dim is the input's.
// CHECK-LABEL: func.func @topk_all(
// CHECK:         tgc.topk %{{.*}} {axis = 1 : i64, k = -1 : i64} : (tensor<3x?xf32>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
// CHECK-NEXT:    tgc.topk %{{.*}} {axis = 0 : i64, k = -1 : i64, largest = false} : (tensor<3x?xf32>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
func.func @topk_all(%x: tensor<3x?xf32>) -> (tensor<3x?xf32>, tensor<3x?xi64>, tensor<3x?xf32>, tensor<3x?xi64>) {
  %0, %1 = tgc.topk %x {axis = 1 : i64, k = -1 : i64} : (tensor<3x?xf32>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  %2, %3 = tgc.topk %x {axis = 0 : i64, k = -1 : i64, largest = false} : (tensor<3x?xf32>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return %0, %1, %2, %3 : tensor<3x?xf32>, tensor<3x?xi64>, tensor<3x?xf32>, tensor<3x?xi64>
}
