// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round-trip tests for the pooling ops.

// CHECK-LABEL: func.func @max_pool2d(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x64x112x112xf32>
// CHECK-SAME:  ) -> (tensor<1x64x56x56xf32>, tensor<1x64x111x111xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.max_pool2d %[[ARG0]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.max_pool2d %[[ARG0]] {kernel = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x111x111xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]] : tensor<1x64x56x56xf32>, tensor<1x64x111x111xf32>
func.func @max_pool2d(%x: tensor<1x64x112x112xf32>) -> (tensor<1x64x56x56xf32>, tensor<1x64x111x111xf32>) {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  %1 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x111x111xf32>
  return %0, %1 : tensor<1x64x56x56xf32>, tensor<1x64x111x111xf32>
}

// CHECK-LABEL: func.func @max_pool2d_ceil_mode(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x1x5x5xf16>
// CHECK-SAME:  ) -> (tensor<1x1x2x2xf16>, tensor<1x1x3x3xf16>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.max_pool2d %[[ARG0]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf16>) -> tensor<1x1x2x2xf16>
// CHECK-NEXT:    %[[V1:.*]] = tgc.max_pool2d %[[ARG0]] {ceil_mode, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf16>) -> tensor<1x1x3x3xf16>
// CHECK-NEXT:    return %[[V0]], %[[V1]] : tensor<1x1x2x2xf16>, tensor<1x1x3x3xf16>
func.func @max_pool2d_ceil_mode(%x: tensor<1x1x5x5xf16>) -> (tensor<1x1x2x2xf16>, tensor<1x1x3x3xf16>) {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf16>) -> tensor<1x1x2x2xf16>
  %1 = tgc.max_pool2d %x {ceil_mode, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf16>) -> tensor<1x1x3x3xf16>
  return %0, %1 : tensor<1x1x2x2xf16>, tensor<1x1x3x3xf16>
}

// CHECK-LABEL: func.func @max_pool2d_nhwc_dilated(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x7x7x3xbf16>
// CHECK-SAME:  ) -> tensor<2x3x3x3xbf16>
// CHECK-NEXT:    %[[V0:.*]] = tgc.max_pool2d %[[ARG0]] {dilations = array<i64: 2, 2>, kernel = array<i64: 3, 3>, layout = #tgc.layout<NHWC>} : (tensor<2x7x7x3xbf16>) -> tensor<2x3x3x3xbf16>
// CHECK-NEXT:    return %[[V0]] : tensor<2x3x3x3xbf16>
func.func @max_pool2d_nhwc_dilated(%x: tensor<2x7x7x3xbf16>) -> tensor<2x3x3x3xbf16> {
  %0 = tgc.max_pool2d %x {dilations = array<i64: 2, 2>, kernel = array<i64: 3, 3>, layout = #tgc.layout<NHWC>} : (tensor<2x7x7x3xbf16>) -> tensor<2x3x3x3xbf16>
  return %0 : tensor<2x3x3x3xbf16>
}

// CHECK-LABEL: func.func @max_pool2d_dynamic(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x?x?x9xf64>
// CHECK-SAME:  ) -> (tensor<?x?x?x4xf64>, tensor<?x?x3x4xf64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.max_pool2d %[[ARG0]] {kernel = array<i64: 1, 3>, padding = array<i64: 0, 0, 0, 1>, strides = array<i64: 1, 2>} : (tensor<?x?x?x9xf64>) -> tensor<?x?x?x4xf64>
// CHECK-NEXT:    %[[V1:.*]] = tgc.max_pool2d %[[ARG0]] {kernel = array<i64: 1, 3>, padding = array<i64: 0, 0, 0, 1>, strides = array<i64: 1, 2>} : (tensor<?x?x?x9xf64>) -> tensor<?x?x3x4xf64>
// CHECK-NEXT:    return %[[V0]], %[[V1]] : tensor<?x?x?x4xf64>, tensor<?x?x3x4xf64>
func.func @max_pool2d_dynamic(%x: tensor<?x?x?x9xf64>) -> (tensor<?x?x?x4xf64>, tensor<?x?x3x4xf64>) {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 1, 3>, padding = array<i64: 0, 0, 0, 1>, strides = array<i64: 1, 2>} : (tensor<?x?x?x9xf64>) -> tensor<?x?x?x4xf64>
  %1 = tgc.max_pool2d %x {kernel = array<i64: 1, 3>, padding = array<i64: 0, 0, 0, 1>, strides = array<i64: 1, 2>} : (tensor<?x?x?x9xf64>) -> tensor<?x?x3x4xf64>
  return %0, %1 : tensor<?x?x?x4xf64>, tensor<?x?x3x4xf64>
}

// CHECK-LABEL: func.func @avg_pool2d(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x8x?x?xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<1x8x6x6xf32>
// CHECK-SAME:  ) -> (tensor<1x8x?x?xf32>, tensor<1x8x3x3xf32>, tensor<1x4x5x6xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.avg_pool2d %[[ARG0]] {count_include_pad, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.avg_pool2d %[[ARG1]] {ceil_mode, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.avg_pool2d %[[ARG1]] {kernel = array<i64: 2, 2>, layout = #tgc.layout<NHWC>, strides = array<i64: 2, 1>} : (tensor<1x8x6x6xf32>) -> tensor<1x4x5x6xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<1x8x?x?xf32>, tensor<1x8x3x3xf32>, tensor<1x4x5x6xf32>
func.func @avg_pool2d(%x: tensor<1x8x?x?xf32>, %y: tensor<1x8x6x6xf32>) -> (tensor<1x8x?x?xf32>, tensor<1x8x3x3xf32>, tensor<1x4x5x6xf32>) {
  %0 = tgc.avg_pool2d %x {count_include_pad, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32>
  %1 = tgc.avg_pool2d %y {ceil_mode, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x8x6x6xf32>) -> tensor<1x8x3x3xf32>
  %2 = tgc.avg_pool2d %y {kernel = array<i64: 2, 2>, layout = #tgc.layout<NHWC>, strides = array<i64: 2, 1>} : (tensor<1x8x6x6xf32>) -> tensor<1x4x5x6xf32>
  return %0, %1, %2 : tensor<1x8x?x?xf32>, tensor<1x8x3x3xf32>, tensor<1x4x5x6xf32>
}

// CHECK-LABEL: func.func @global_avg_pool2d(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x2048x7x7xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<2x7x7x512xf16>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<1x3x0x4xf32>
// CHECK-SAME:  ) -> (tensor<?x2048x1x1xf32>, tensor<2x1x1x512xf16>, tensor<1x3x1x1xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.global_avg_pool2d %[[ARG0]] : (tensor<?x2048x7x7xf32>) -> tensor<?x2048x1x1xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.global_avg_pool2d %[[ARG1]] {layout = #tgc.layout<NHWC>} : (tensor<2x7x7x512xf16>) -> tensor<2x1x1x512xf16>
// CHECK-NEXT:    %[[V2:.*]] = tgc.global_avg_pool2d %[[ARG2]] : (tensor<1x3x0x4xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<?x2048x1x1xf32>, tensor<2x1x1x512xf16>, tensor<1x3x1x1xf32>
func.func @global_avg_pool2d(%x: tensor<?x2048x7x7xf32>, %y: tensor<2x7x7x512xf16>, %z: tensor<1x3x0x4xf32>) -> (tensor<?x2048x1x1xf32>, tensor<2x1x1x512xf16>, tensor<1x3x1x1xf32>) {
  %0 = tgc.global_avg_pool2d %x : (tensor<?x2048x7x7xf32>) -> tensor<?x2048x1x1xf32>
  %1 = tgc.global_avg_pool2d %y {layout = #tgc.layout<NHWC>} : (tensor<2x7x7x512xf16>) -> tensor<2x1x1x512xf16>
  %2 = tgc.global_avg_pool2d %z : (tensor<1x3x0x4xf32>) -> tensor<1x3x1x1xf32>
  return %0, %1, %2 : tensor<?x2048x1x1xf32>, tensor<2x1x1x512xf16>, tensor<1x3x1x1xf32>
}
