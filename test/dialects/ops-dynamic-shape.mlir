// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s

// Round trip of the shape ops: shape_of and dynamic_reshape (with and without
// copy_zeros; declared result types may refine the inferred dims).

// CHECK-LABEL: func.func @shape_of(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x16xf32>
// CHECK-NEXT:    %[[S:.*]] = tgc.shape_of %[[X]] : tensor<?x16xf32> -> tensor<2xi64>
// CHECK-NEXT:    %[[T:.*]] = tgc.shape_of %{{.*}} : tensor<i1> -> tensor<0xi64>
// CHECK-NEXT:    return %[[S]], %[[T]]
func.func @shape_of(%x: tensor<?x16xf32>, %b: tensor<i1>) -> (tensor<2xi64>, tensor<0xi64>) {
  %0 = tgc.shape_of %x : tensor<?x16xf32> -> tensor<2xi64>
  %1 = tgc.shape_of %b : tensor<i1> -> tensor<0xi64>
  return %0, %1 : tensor<2xi64>, tensor<0xi64>
}

// CHECK-LABEL: func.func @dynamic_reshape(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x?x64xf32>
// CHECK-SAME:    %[[S:[^:]+]]: tensor<4xi64>
// CHECK-NEXT:    %[[A:.*]] = tgc.dynamic_reshape %[[X]], %[[S]] : (tensor<?x?x64xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT:    %[[B:.*]] = tgc.dynamic_reshape %[[X]], %[[S]] copy_zeros : (tensor<?x?x64xf32>, tensor<4xi64>) -> tensor<?x?x4x16xf32>
// CHECK-NEXT:    return %[[A]], %[[B]]
func.func @dynamic_reshape(%x: tensor<?x?x64xf32>, %s: tensor<4xi64>) -> (tensor<?x?x?x?xf32>, tensor<?x?x4x16xf32>) {
  %0 = tgc.dynamic_reshape %x, %s : (tensor<?x?x64xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %1 = tgc.dynamic_reshape %x, %s copy_zeros : (tensor<?x?x64xf32>, tensor<4xi64>) -> tensor<?x?x4x16xf32>
  return %0, %1 : tensor<?x?x?x?xf32>, tensor<?x?x4x16xf32>
}

// A constant shape gives static dims (-1 inferred from a static input).
// CHECK-LABEL: func.func @constant_shape(
// CHECK:         tgc.dynamic_reshape %{{.*}}, %{{.*}} : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<3x2x2xf32>
func.func @constant_shape(%x: tensor<2x6xf32>) -> tensor<3x2x2xf32> {
  %s = tgc.constant dense<[3, -1, 2]> : tensor<3xi64>
  %0 = tgc.dynamic_reshape %x, %s : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}
