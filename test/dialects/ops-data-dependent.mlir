// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s
// RUN: tgc-run %s --differential --dynamic-size=0 | FileCheck %s --check-prefix=DIFF
// RUN: tgc-run %s --differential --dynamic-size=3 | FileCheck %s --check-prefix=DIFF

// Round trip of the ops whose result shape depends on values
// (OpTrait::DataDependentShape), and the CPU backend against the
// interpreter on them: the ops before a nonzero run as one plan, the nonzero
// on the host, the rest compiled for the count it finds
// (codegen/Staged.h).

// CHECK-LABEL: func.func @nonzero(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:    %[[I:.*]] = tgc.nonzero %[[X]] : (tensor<2x3xf32>) -> tensor<2x?xi64>
// CHECK-NEXT:    %[[J:.*]] = tgc.nonzero %{{.*}} : (tensor<?xi1>) -> tensor<1x?xi64>
// CHECK-NEXT:    return %[[I]], %[[J]]
// DIFF: @nonzero: ok
func.func @nonzero(%x: tensor<2x3xf32>, %m: tensor<?xi1>) -> (tensor<2x?xi64>, tensor<1x?xi64>) {
  %0 = tgc.nonzero %x : (tensor<2x3xf32>) -> tensor<2x?xi64>
  %1 = tgc.nonzero %m : (tensor<?xi1>) -> tensor<1x?xi64>
  return %0, %1 : tensor<2x?xi64>, tensor<1x?xi64>
}

// Compress (the ONNX importer's form): the rows where the mask is set,
// then more work on them, and a value computed before the nonzero used
// after it.
// CHECK-LABEL: func.func @compress(
// DIFF: @compress: ok
func.func @compress(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>) -> (tensor<?x4xf32>, tensor<?x8xf32>) {
  %s = tgc.reduce_sum %x {axes = array<i64: 1>} : (tensor<?x8xf32>) -> tensor<?xf32>
  %z = tgc.constant dense<0.0> : tensor<f32>
  %m = tgc.compare gt, %s, %z : (tensor<?xf32>, tensor<f32>) -> tensor<?xi1>
  %i = tgc.nonzero %m : (tensor<?xi1>) -> tensor<1x?xi64>
  %j = tgc.reshape %i : tensor<1x?xi64> to tensor<?xi64>
  %r = tgc.gather %x, %j {axis = 0 : i64} : (tensor<?x8xf32>, tensor<?xi64>) -> tensor<?x8xf32>
  %y = tgc.matmul %r, %w : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  %e = tgc.exp %x : tensor<?x8xf32>
  return %y, %e : tensor<?x4xf32>, tensor<?x8xf32>
}

// Two in a row: stage 2 splits again at the second.
// DIFF: @twice: ok

func.func @twice(%x: tensor<?xf32>) -> tensor<1x?xi64> {
  %i = tgc.nonzero %x : (tensor<?xf32>) -> tensor<1x?xi64>
  %f = tgc.cast %i : tensor<1x?xi64> to tensor<1x?xf32>
  %h = tgc.constant dense<1.0> : tensor<f32>
  %d = tgc.sub %f, %h : (tensor<1x?xf32>, tensor<f32>) -> tensor<1x?xf32>
  %j = tgc.nonzero %d : (tensor<1x?xf32>) -> tensor<2x?xi64>
  %k = tgc.slice %j {starts = array<i64: 1, 0>, ends = array<i64: 2, 9223372036854775807>, steps = array<i64: 1, 1>} : (tensor<2x?xi64>) -> tensor<1x?xi64>
  return %k : tensor<1x?xi64>
}

// CHECK-LABEL: func.func @unique(
// CHECK:         tgc.unique %{{.*}} {sorted = false} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
// CHECK:         tgc.unique %{{.*}} {axis = 0 : i64} : (tensor<3x2xi32>) -> (tensor<?x2xi32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
// DIFF: @unique: ok
func.func @unique(%x: tensor<6xf32>, %y: tensor<3x2xi32>) -> (tensor<?xf32>, tensor<6xi64>, tensor<?x2xi32>, tensor<?xi64>) {
  %v, %i, %inv, %c = tgc.unique %x {sorted = false} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  %w, %j, %inw, %d = tgc.unique %y {axis = 0 : i64} : (tensor<3x2xi32>) -> (tensor<?x2xi32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  return %v, %inv, %w, %d : tensor<?xf32>, tensor<6xi64>, tensor<?x2xi32>, tensor<?xi64>
}

// CHECK-LABEL: func.func @nms(
// CHECK:         tgc.non_max_suppression %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {center_point_box = true} : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
// DIFF: @nms: ok
func.func @nms(%b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>) -> tensor<?x3xi64> {
  %m = tgc.constant dense<2> : tensor<1xi64>
  %iou = tgc.constant dense<0.5> : tensor<1xf32>
  %min = tgc.constant dense<0.0> : tensor<1xf32>
  %r = tgc.non_max_suppression %b, %s, %m, %iou, %min {center_point_box = true} : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  return %r : tensor<?x3xi64>
}

// Bounds computed by the function (ONNX Slice with non-constant starts,
// TopK with a run-time K): here the first n rows, n = the number of
// positive row sums, reversed along the columns.
// CHECK-LABEL: func.func @dynamic_slice(
// CHECK:         tgc.dynamic_slice %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {axes = array<i64: 0, 1>} : (tensor<?x5xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
// DIFF: @dynamic_slice: ok
func.func @dynamic_slice(%x: tensor<?x5xf32>) -> tensor<?x?xf32> {
  %s = tgc.reduce_sum %x {axes = array<i64: 1>} : (tensor<?x5xf32>) -> tensor<?xf32>
  %z = tgc.constant dense<0.0> : tensor<f32>
  %p = tgc.compare gt, %s, %z : (tensor<?xf32>, tensor<f32>) -> tensor<?xi1>
  %c = tgc.cast %p : tensor<?xi1> to tensor<?xi64>
  %n = tgc.reduce_sum %c {axes = array<i64: 0>, keepdims} : (tensor<?xi64>) -> tensor<1xi64>
  %minus1 = tgc.constant dense<-1> : tensor<1xi64>
  %ends = tgc.concat %n, %minus1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %starts = tgc.constant dense<[0, -1]> : tensor<2xi64>
  %big = tgc.constant dense<[1, -1]> : tensor<2xi64>
  %e2 = tgc.mul %ends, %big : tensor<2xi64>
  %low = tgc.constant dense<[0, -9]> : tensor<2xi64>
  %e3 = tgc.add %e2, %low : tensor<2xi64>
  %steps = tgc.constant dense<[1, -1]> : tensor<2xi64>
  %y = tgc.dynamic_slice %x, %starts, %e3, %steps {axes = array<i64: 0, 1>} : (tensor<?x5xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// A broadcast to a shape computed from values: as many copies of the row x
// as m has positive elements (ONNX Expand / ConstantOfShape).
// CHECK-LABEL: func.func @dynamic_broadcast_to(
// CHECK:         tgc.dynamic_broadcast_to %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// DIFF: @dynamic_broadcast_to: ok
func.func @dynamic_broadcast_to(%x: tensor<4xf32>, %m: tensor<?xf32>) -> tensor<?x4xf32> {
  %zero = tgc.constant dense<0.0> : tensor<f32>
  %up = tgc.compare gt, %m, %zero : (tensor<?xf32>, tensor<f32>) -> tensor<?xi1>
  %c = tgc.cast %up : tensor<?xi1> to tensor<?xi64>
  %n = tgc.reduce_sum %c {axes = array<i64: 0>, keepdims} : (tensor<?xi64>) -> tensor<1xi64>
  %one = tgc.constant dense<1> : tensor<1xi64>
  %shape = tgc.concat %n, %one {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %y = tgc.dynamic_broadcast_to %x, %shape : (tensor<4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
// DIFF: differential: 7 functions, 0 mismatches
