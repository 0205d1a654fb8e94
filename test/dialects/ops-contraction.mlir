// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round-trip tests for tgc.matmul and tgc.conv2d.

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<4x8xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<8x16xf32>
// CHECK-SAME:  ) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[V0:.*]] = tgc.matmul %[[ARG0]], %[[ARG1]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    return %[[V0]] : tensor<4x16xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = tgc.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @matmul_transposes(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<8x4xf16>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<16x8xf16>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<4x8xf16>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<8x16xf16>
// CHECK-SAME:  ) -> (tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.matmul %[[ARG0]], %[[ARG3]] {transpose_a} : (tensor<8x4xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:    %[[V1:.*]] = tgc.matmul %[[ARG2]], %[[ARG1]] {transpose_b} : (tensor<4x8xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:    %[[V2:.*]] = tgc.matmul %[[ARG0]], %[[ARG1]] {transpose_a, transpose_b} : (tensor<8x4xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>
func.func @matmul_transposes(%a: tensor<8x4xf16>, %b: tensor<16x8xf16>, %c: tensor<4x8xf16>, %d: tensor<8x16xf16>) -> (tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>) {
  %0 = tgc.matmul %a, %d {transpose_a} : (tensor<8x4xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  %1 = tgc.matmul %c, %b {transpose_b} : (tensor<4x8xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  %2 = tgc.matmul %a, %b {transpose_a, transpose_b} : (tensor<8x4xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  return %0, %1, %2 : tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>
}

// CHECK-LABEL: func.func @matmul_batch_broadcast(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x1x4x8xbf16>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<3x8x16xbf16>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<8x16xbf16>
// CHECK-SAME:  ) -> (tensor<2x3x4x16xbf16>, tensor<2x1x4x16xbf16>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.matmul %[[ARG0]], %[[ARG1]] : (tensor<2x1x4x8xbf16>, tensor<3x8x16xbf16>) -> tensor<2x3x4x16xbf16>
// CHECK-NEXT:    %[[V1:.*]] = tgc.matmul %[[ARG0]], %[[ARG2]] : (tensor<2x1x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x4x16xbf16>
// CHECK-NEXT:    return %[[V0]], %[[V1]] : tensor<2x3x4x16xbf16>, tensor<2x1x4x16xbf16>
func.func @matmul_batch_broadcast(%a: tensor<2x1x4x8xbf16>, %b: tensor<3x8x16xbf16>, %c: tensor<8x16xbf16>) -> (tensor<2x3x4x16xbf16>, tensor<2x1x4x16xbf16>) {
  %0 = tgc.matmul %a, %b : (tensor<2x1x4x8xbf16>, tensor<3x8x16xbf16>) -> tensor<2x3x4x16xbf16>
  %1 = tgc.matmul %a, %c : (tensor<2x1x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x1x4x16xbf16>
  return %0, %1 : tensor<2x3x4x16xbf16>, tensor<2x1x4x16xbf16>
}

// CHECK-LABEL: func.func @matmul_dynamic(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<8x?x64xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<128x64xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<?x?xf64>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<?x?xf64>
// CHECK-SAME:  ) -> (tensor<8x?x128xf32>, tensor<?x?xf64>, tensor<3x5xf64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.matmul %[[ARG0]], %[[ARG1]] {transpose_b} : (tensor<8x?x64xf32>, tensor<128x64xf32>) -> tensor<8x?x128xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.matmul %[[ARG2]], %[[ARG3]] : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
// CHECK-NEXT:    %[[V2:.*]] = tgc.matmul %[[ARG2]], %[[ARG3]] : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<3x5xf64>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<8x?x128xf32>, tensor<?x?xf64>, tensor<3x5xf64>
func.func @matmul_dynamic(%a: tensor<8x?x64xf32>, %b: tensor<128x64xf32>, %c: tensor<?x?xf64>, %d: tensor<?x?xf64>) -> (tensor<8x?x128xf32>, tensor<?x?xf64>, tensor<3x5xf64>) {
  %0 = tgc.matmul %a, %b {transpose_b} : (tensor<8x?x64xf32>, tensor<128x64xf32>) -> tensor<8x?x128xf32>
  %1 = tgc.matmul %c, %d : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  %2 = tgc.matmul %c, %d : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<3x5xf64>
  return %0, %1, %2 : tensor<8x?x128xf32>, tensor<?x?xf64>, tensor<3x5xf64>
}

// CHECK-LABEL: func.func @matmul_int(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x3xi8>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<3x2xi8>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<2x3xi32>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<3x0xi32>
// CHECK-SAME:    %[[ARG4:[^:]+]]: tensor<1x1xi64>
// CHECK-SAME:  ) -> (tensor<2x2xi8>, tensor<2x0xi32>, tensor<1x1xi64>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.matmul %[[ARG0]], %[[ARG1]] : (tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi8>
// CHECK-NEXT:    %[[V1:.*]] = tgc.matmul %[[ARG2]], %[[ARG3]] : (tensor<2x3xi32>, tensor<3x0xi32>) -> tensor<2x0xi32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.matmul %[[ARG4]], %[[ARG4]] : (tensor<1x1xi64>, tensor<1x1xi64>) -> tensor<1x1xi64>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<2x2xi8>, tensor<2x0xi32>, tensor<1x1xi64>
func.func @matmul_int(%a: tensor<2x3xi8>, %b: tensor<3x2xi8>, %c: tensor<2x3xi32>, %d: tensor<3x0xi32>, %e: tensor<1x1xi64>) -> (tensor<2x2xi8>, tensor<2x0xi32>, tensor<1x1xi64>) {
  %0 = tgc.matmul %a, %b : (tensor<2x3xi8>, tensor<3x2xi8>) -> tensor<2x2xi8>
  %1 = tgc.matmul %c, %d : (tensor<2x3xi32>, tensor<3x0xi32>) -> tensor<2x0xi32>
  %2 = tgc.matmul %e, %e : (tensor<1x1xi64>, tensor<1x1xi64>) -> tensor<1x1xi64>
  return %0, %1, %2 : tensor<2x2xi8>, tensor<2x0xi32>, tensor<1x1xi64>
}

// CHECK-LABEL: func.func @conv2d_nchw(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x3x224x224xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<64x3x3x3xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<64xf32>
// CHECK-SAME:  ) -> (tensor<1x64x112x112xf32>, tensor<1x64x222x222xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]], %[[ARG2]] {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]] : (tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>) -> tensor<1x64x222x222xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]] : tensor<1x64x112x112xf32>, tensor<1x64x222x222xf32>
func.func @conv2d_nchw(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x3x3xf32>, %b: tensor<64xf32>) -> (tensor<1x64x112x112xf32>, tensor<1x64x222x222xf32>) {
  %0 = tgc.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  %1 = tgc.conv2d %x, %w : (tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>) -> tensor<1x64x222x222xf32>
  return %0, %1 : tensor<1x64x112x112xf32>, tensor<1x64x222x222xf32>
}

// CHECK-LABEL: func.func @conv2d_explicit_defaults(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x3x8x8xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<4x3x3x3xf32>
// CHECK-SAME:  ) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    %[[V0:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    return %[[V0]] : tensor<1x4x6x6xf32>
func.func @conv2d_explicit_defaults(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = tgc.conv2d %x, %w {dilations = array<i64: 1, 1>, groups = 1 : i64, layout = #tgc.layout<NCHW>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func @conv2d_nhwc(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x32x32x16xf16>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<3x3x16x8xf16>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<8xf16>
// CHECK-SAME:  ) -> (tensor<1x30x30x8xf16>, tensor<1x28x28x8xf16>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]], %[[ARG2]] {layout = #tgc.layout<NHWC>} : (tensor<1x32x32x16xf16>, tensor<3x3x16x8xf16>, tensor<8xf16>) -> tensor<1x30x30x8xf16>
// CHECK-NEXT:    %[[V1:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]] {dilations = array<i64: 2, 2>, layout = #tgc.layout<NHWC>} : (tensor<1x32x32x16xf16>, tensor<3x3x16x8xf16>) -> tensor<1x28x28x8xf16>
// CHECK-NEXT:    return %[[V0]], %[[V1]] : tensor<1x30x30x8xf16>, tensor<1x28x28x8xf16>
func.func @conv2d_nhwc(%x: tensor<1x32x32x16xf16>, %w: tensor<3x3x16x8xf16>, %b: tensor<8xf16>) -> (tensor<1x30x30x8xf16>, tensor<1x28x28x8xf16>) {
  %0 = tgc.conv2d %x, %w, %b {layout = #tgc.layout<NHWC>} : (tensor<1x32x32x16xf16>, tensor<3x3x16x8xf16>, tensor<8xf16>) -> tensor<1x30x30x8xf16>
  %1 = tgc.conv2d %x, %w {dilations = array<i64: 2, 2>, layout = #tgc.layout<NHWC>} : (tensor<1x32x32x16xf16>, tensor<3x3x16x8xf16>) -> tensor<1x28x28x8xf16>
  return %0, %1 : tensor<1x30x30x8xf16>, tensor<1x28x28x8xf16>
}

// CHECK-LABEL: func.func @conv2d_asymmetric(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<2x4x9x7xf64>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<6x4x2x3xf64>
// CHECK-SAME:  ) -> tensor<2x6x5x2xf64>
// CHECK-NEXT:    %[[V0:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]] {dilations = array<i64: 1, 2>, padding = array<i64: 1, 0, 0, 2>, strides = array<i64: 2, 3>} : (tensor<2x4x9x7xf64>, tensor<6x4x2x3xf64>) -> tensor<2x6x5x2xf64>
// CHECK-NEXT:    return %[[V0]] : tensor<2x6x5x2xf64>
func.func @conv2d_asymmetric(%x: tensor<2x4x9x7xf64>, %w: tensor<6x4x2x3xf64>) -> tensor<2x6x5x2xf64> {
  // H: (9 + 1 + 0 - 2) / 2 + 1 = 5; W: (7 + 0 + 2 - 5) / 3 + 1 = 2.
  %0 = tgc.conv2d %x, %w {dilations = array<i64: 1, 2>, padding = array<i64: 1, 0, 0, 2>, strides = array<i64: 2, 3>} : (tensor<2x4x9x7xf64>, tensor<6x4x2x3xf64>) -> tensor<2x6x5x2xf64>
  return %0 : tensor<2x6x5x2xf64>
}

// CHECK-LABEL: func.func @conv2d_grouped(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x8x10x10xbf16>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<4x4x3x3xbf16>
// CHECK-SAME:  ) -> tensor<1x4x8x8xbf16>
// CHECK-NEXT:    %[[V0:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]] {groups = 2 : i64} : (tensor<1x8x10x10xbf16>, tensor<4x4x3x3xbf16>) -> tensor<1x4x8x8xbf16>
// CHECK-NEXT:    return %[[V0]] : tensor<1x4x8x8xbf16>
func.func @conv2d_grouped(%x: tensor<1x8x10x10xbf16>, %w: tensor<4x4x3x3xbf16>) -> tensor<1x4x8x8xbf16> {
  %0 = tgc.conv2d %x, %w {groups = 2 : i64} : (tensor<1x8x10x10xbf16>, tensor<4x4x3x3xbf16>) -> tensor<1x4x8x8xbf16>
  return %0 : tensor<1x4x8x8xbf16>
}

// CHECK-LABEL: func.func @conv2d_depthwise(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<1x8x10x10xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<16x1x3x3xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<16xf32>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<1x10x10x8xf32>
// CHECK-SAME:    %[[ARG4:[^:]+]]: tensor<3x3x1x8xf32>
// CHECK-SAME:  ) -> (tensor<1x16x8x8xf32>, tensor<1x8x8x8xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]], %[[ARG2]] {groups = 8 : i64} : (tensor<1x8x10x10xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.conv2d %[[ARG3]], %[[ARG4]] {groups = 8 : i64, layout = #tgc.layout<NHWC>} : (tensor<1x10x10x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]] : tensor<1x16x8x8xf32>, tensor<1x8x8x8xf32>
func.func @conv2d_depthwise(%x: tensor<1x8x10x10xf32>, %w: tensor<16x1x3x3xf32>, %b: tensor<16xf32>, %y: tensor<1x10x10x8xf32>, %v: tensor<3x3x1x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x8x8x8xf32>) {
  %0 = tgc.conv2d %x, %w, %b {groups = 8 : i64} : (tensor<1x8x10x10xf32>, tensor<16x1x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %1 = tgc.conv2d %y, %v {groups = 8 : i64, layout = #tgc.layout<NHWC>} : (tensor<1x10x10x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x8x8x8xf32>
  return %0, %1 : tensor<1x16x8x8xf32>, tensor<1x8x8x8xf32>
}

// CHECK-LABEL: func.func @conv2d_dynamic(
// CHECK-SAME:    %[[ARG0:[^:]+]]: tensor<?x3x?x?xf32>
// CHECK-SAME:    %[[ARG1:[^:]+]]: tensor<8x3x3x3xf32>
// CHECK-SAME:    %[[ARG2:[^:]+]]: tensor<?x?x?x?xf32>
// CHECK-SAME:    %[[ARG3:[^:]+]]: tensor<?xf32>
// CHECK-SAME:  ) -> (tensor<?x8x?x?xf32>, tensor<?x?x?x?xf32>, tensor<2x8x5x5xf32>)
// CHECK-NEXT:    %[[V0:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]] : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
// CHECK-NEXT:    %[[V1:.*]] = tgc.conv2d %[[ARG0]], %[[ARG2]], %[[ARG3]] : (tensor<?x3x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?xf32>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT:    %[[V2:.*]] = tgc.conv2d %[[ARG0]], %[[ARG1]] : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x5x5xf32>
// CHECK-NEXT:    return %[[V0]], %[[V1]], %[[V2]] : tensor<?x8x?x?xf32>, tensor<?x?x?x?xf32>, tensor<2x8x5x5xf32>
func.func @conv2d_dynamic(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>, %v: tensor<?x?x?x?xf32>, %b: tensor<?xf32>) -> (tensor<?x8x?x?xf32>, tensor<?x?x?x?xf32>, tensor<2x8x5x5xf32>) {
  %0 = tgc.conv2d %x, %w : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
  %1 = tgc.conv2d %x, %v, %b : (tensor<?x3x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?xf32>) -> tensor<?x?x?x?xf32>
  %2 = tgc.conv2d %x, %w : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x5x5xf32>
  return %0, %1, %2 : tensor<?x8x?x?xf32>, tensor<?x?x?x?xf32>, tensor<2x8x5x5xf32>
}
