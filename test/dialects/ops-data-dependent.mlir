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
// DIFF: differential: 3 functions, 0 mismatches
func.func @twice(%x: tensor<?xf32>) -> tensor<1x?xi64> {
  %i = tgc.nonzero %x : (tensor<?xf32>) -> tensor<1x?xi64>
  %f = tgc.cast %i : tensor<1x?xi64> to tensor<1x?xf32>
  %h = tgc.constant dense<1.0> : tensor<f32>
  %d = tgc.sub %f, %h : (tensor<1x?xf32>, tensor<f32>) -> tensor<1x?xf32>
  %j = tgc.nonzero %d : (tensor<1x?xf32>) -> tensor<2x?xi64>
  %k = tgc.slice %j {starts = array<i64: 1, 0>, ends = array<i64: 2, 9223372036854775807>, steps = array<i64: 1, 1>} : (tensor<2x?xi64>) -> tensor<1x?xi64>
  return %k : tensor<1x?xi64>
}
