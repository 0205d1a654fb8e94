// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round-trip tests for the i16 and unsigned (ui8, ui16, ui32, ui64) element
// types and the shift ops. test/codegen/cpu/differential-ops.mlir also runs
// these functions on both backends.

// CHECK-LABEL: func.func @constants(
// CHECK-NEXT:    %[[A:.*]] = tgc.constant dense<[0, 255]> : tensor<2xui8>
// CHECK-NEXT:    %[[B:.*]] = tgc.constant dense<[-32768, 32767]> : tensor<2xi16>
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<18446744073709551615> : tensor<3xui64>
// CHECK-NEXT:    %[[D:.*]] = tgc.constant dense<[65535, 4294967295]> : tensor<2xui32>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @constants() -> (tensor<2xui8>, tensor<2xi16>, tensor<3xui64>, tensor<2xui32>) {
  %0 = tgc.constant dense<[0, 255]> : tensor<2xui8>
  %1 = tgc.constant dense<[-32768, 32767]> : tensor<2xi16>
  %2 = tgc.constant dense<18446744073709551615> : tensor<3xui64>
  %3 = tgc.constant dense<[65535, 4294967295]> : tensor<2xui32>
  return %0, %1, %2, %3 : tensor<2xui8>, tensor<2xi16>, tensor<3xui64>, tensor<2xui32>
}

// CHECK-LABEL: func.func @ui8_arith(
// CHECK:         tgc.add %{{.*}}, %{{.*}} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK:         tgc.sub %{{.*}}, %{{.*}} : tensor<2x3xui8>
// CHECK:         tgc.mul %{{.*}}, %{{.*}} : tensor<2x3xui8>
// CHECK:         tgc.max %{{.*}}, %{{.*}} : tensor<2x3xui8>
// CHECK:         tgc.min %{{.*}}, %{{.*}} : tensor<2x3xui8>
// CHECK:         tgc.neg %{{.*}} : tensor<2x3xui8>
// CHECK:         tgc.abs %{{.*}} : tensor<2x3xui8>
// CHECK:         tgc.relu %{{.*}} : tensor<2x3xui8>
// CHECK:         tgc.sign %{{.*}} : tensor<2x3xui8>
// CHECK:         tgc.clamp %{{.*}} {max = 2.000000e+02 : f64, min = 3.000000e+00 : f64} : tensor<2x3xui8>
func.func @ui8_arith(%x: tensor<2x3xui8>, %y: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = tgc.add %x, %y : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  %1 = tgc.sub %0, %x : tensor<2x3xui8>
  %2 = tgc.mul %1, %0 : tensor<2x3xui8>
  %3 = tgc.max %2, %x : tensor<2x3xui8>
  %4 = tgc.min %3, %1 : tensor<2x3xui8>
  %5 = tgc.neg %4 : tensor<2x3xui8>
  %6 = tgc.abs %5 : tensor<2x3xui8>
  %7 = tgc.relu %6 : tensor<2x3xui8>
  %8 = tgc.sign %7 : tensor<2x3xui8>
  %9 = tgc.add %7, %8 : tensor<2x3xui8>
  %10 = tgc.clamp %9 {max = 200.0 : f64, min = 3.0 : f64} : tensor<2x3xui8>
  return %10 : tensor<2x3xui8>
}

// CHECK-LABEL: func.func @ui64_divide_compare(
// CHECK:         tgc.div %{{.*}}, %{{.*}} : (tensor<?xui64>, tensor<ui64>) -> tensor<?xui64>
// CHECK:         tgc.compare gt, %{{.*}}, %{{.*}} : (tensor<?xui64>, tensor<?xui64>) -> tensor<?xi1>
// CHECK:         tgc.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?xi1>, tensor<?xui64>, tensor<?xui64>) -> tensor<?xui64>
func.func @ui64_divide_compare(%x: tensor<?xui64>, %y: tensor<?xui64>) -> tensor<?xui64> {
  %c = tgc.constant dense<3> : tensor<ui64>
  %0 = tgc.div %x, %c : (tensor<?xui64>, tensor<ui64>) -> tensor<?xui64>
  %1 = tgc.compare gt, %0, %y : (tensor<?xui64>, tensor<?xui64>) -> tensor<?xi1>
  %2 = tgc.select %1, %0, %y : (tensor<?xi1>, tensor<?xui64>, tensor<?xui64>) -> tensor<?xui64>
  return %2 : tensor<?xui64>
}

// CHECK-LABEL: func.func @shifts(
// CHECK:         tgc.shift_left %{{.*}}, %{{.*}} : tensor<4xui16>
// CHECK:         tgc.shift_right %{{.*}}, %{{.*}} : (tensor<4xui16>, tensor<ui16>) -> tensor<4xui16>
// CHECK:         tgc.shift_right %{{.*}}, %{{.*}} : tensor<4xi16>
func.func @shifts(%x: tensor<4xui16>, %y: tensor<4xui16>, %z: tensor<4xi16>) -> (tensor<4xui16>, tensor<4xi16>) {
  %0 = tgc.shift_left %x, %y : tensor<4xui16>
  %c = tgc.constant dense<3> : tensor<ui16>
  %1 = tgc.shift_right %0, %c : (tensor<4xui16>, tensor<ui16>) -> tensor<4xui16>
  %2 = tgc.shift_right %z, %z : tensor<4xi16>
  return %1, %2 : tensor<4xui16>, tensor<4xi16>
}

// CHECK-LABEL: func.func @casts(
// CHECK:         tgc.cast %{{.*}} : tensor<4xf32> to tensor<4xui8>
// CHECK:         tgc.cast %{{.*}} : tensor<4xui8> to tensor<4xi16>
// CHECK:         tgc.cast %{{.*}} : tensor<4xi16> to tensor<4xui32>
// CHECK:         tgc.cast %{{.*}} : tensor<4xui32> to tensor<4xf64>
func.func @casts(%x: tensor<4xf32>) -> tensor<4xf64> {
  %0 = tgc.cast %x : tensor<4xf32> to tensor<4xui8>
  %1 = tgc.cast %0 : tensor<4xui8> to tensor<4xi16>
  %2 = tgc.cast %1 : tensor<4xi16> to tensor<4xui32>
  %3 = tgc.cast %2 : tensor<4xui32> to tensor<4xf64>
  return %3 : tensor<4xf64>
}

// CHECK-LABEL: func.func @reductions_and_matmul(
// CHECK:         tgc.reduce_sum %{{.*}} {axes = array<i64: 1>} : (tensor<2x3xui32>) -> tensor<2xui32>
// CHECK:         tgc.reduce_max %{{.*}} {axes = array<i64: 0>, keepdims} : (tensor<2x3xui32>) -> tensor<1x3xui32>
// CHECK:         tgc.argmin %{{.*}} {axis = 1 : i64} : (tensor<2x3xui32>) -> tensor<2xi64>
// CHECK:         tgc.matmul %{{.*}}, %{{.*}} : (tensor<2x3xui32>, tensor<3x2xui32>) -> tensor<2x2xui32>
func.func @reductions_and_matmul(%x: tensor<2x3xui32>, %w: tensor<3x2xui32>) -> (tensor<2xui32>, tensor<1x3xui32>, tensor<2xi64>, tensor<2x2xui32>) {
  %0 = tgc.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3xui32>) -> tensor<2xui32>
  %1 = tgc.reduce_max %x {axes = array<i64: 0>, keepdims} : (tensor<2x3xui32>) -> tensor<1x3xui32>
  %2 = tgc.argmin %x {axis = 1 : i64} : (tensor<2x3xui32>) -> tensor<2xi64>
  %3 = tgc.matmul %x, %w : (tensor<2x3xui32>, tensor<3x2xui32>) -> tensor<2x2xui32>
  return %0, %1, %2, %3 : tensor<2xui32>, tensor<1x3xui32>, tensor<2xi64>, tensor<2x2xui32>
}

// CHECK-LABEL: func.func @data_movement(
// CHECK:         tgc.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<2x3xi16>) -> tensor<3x2xi16>
// CHECK:         tgc.pad %{{.*}} {high = array<i64: 1, 0>, low = array<i64: 0, 1>, value = -7.000000e+00 : f64} : (tensor<3x2xi16>) -> tensor<4x3xi16>
// CHECK:         tgc.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4x3xi16>, tensor<4x3xi16>) -> tensor<8x3xi16>
// CHECK:         tgc.slice %{{.*}} {ends = array<i64: 8, 3>, starts = array<i64: 1, 0>, steps = array<i64: 2, 1>} : (tensor<8x3xi16>) -> tensor<4x3xi16>
// CHECK:         tgc.reshape %{{.*}} : tensor<4x3xi16> to tensor<12xi16>
// CHECK:         tgc.pad %{{.*}} {high = array<i64: 2>, low = array<i64: 0>, value = 3.000000e+02 : f64} : (tensor<2xui8>) -> tensor<4xui8>
func.func @data_movement(%x: tensor<2x3xi16>, %u: tensor<2xui8>) -> (tensor<12xi16>, tensor<4xui8>) {
  %0 = tgc.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xi16>) -> tensor<3x2xi16>
  %1 = tgc.pad %0 {high = array<i64: 1, 0>, low = array<i64: 0, 1>, value = -7.0 : f64} : (tensor<3x2xi16>) -> tensor<4x3xi16>
  %2 = tgc.concat %1, %1 {axis = 0 : i64} : (tensor<4x3xi16>, tensor<4x3xi16>) -> tensor<8x3xi16>
  %3 = tgc.slice %2 {ends = array<i64: 8, 3>, starts = array<i64: 1, 0>, steps = array<i64: 2, 1>} : (tensor<8x3xi16>) -> tensor<4x3xi16>
  %4 = tgc.reshape %3 : tensor<4x3xi16> to tensor<12xi16>
  %5 = tgc.pad %u {high = array<i64: 2>, low = array<i64: 0>, value = 300.0 : f64} : (tensor<2xui8>) -> tensor<4xui8>
  return %4, %5 : tensor<12xi16>, tensor<4xui8>
}
