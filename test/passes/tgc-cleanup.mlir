// RUN: tgc-opt %s -tgc-cleanup -split-input-file | FileCheck %s
// RUN: tgc-opt %s -pass-pipeline='builtin.module(tgc-cleanup)' -split-input-file | FileCheck %s

// The tgc-cleanup pipeline: canonicalize, CSE, infer shapes, canonicalize.

// CSE merges the two exps, inference makes the types static, and only then
// can the second canonicalization fold x + (-0.0), which needs the type of x
// to equal the result type.
// CHECK-LABEL: func.func @cleanup(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = tgc.exp %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[E]], %[[E]] : tensor<4xf32>
// CHECK-NEXT:    return %[[A]] : tensor<4xf32>
func.func @cleanup(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = tgc.constant dense<-0.0> : tensor<4xf32>
  %0 = tgc.exp %x : tensor<4xf32>
  %1 = tgc.exp %x : tensor<4xf32>
  %2 = tgc.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  %3 = tgc.neg %2 : tensor<?xf32>
  %4 = tgc.neg %3 : tensor<?xf32>
  %5 = tgc.cast %4 : tensor<?xf32> to tensor<?xf32>
  %6 = tgc.add %5, %z : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %6 : tensor<4xf32>
}

// -----

// Constants are folded and deduplicated.
// CHECK-LABEL: func.func @constants(
// CHECK-SAME:    %[[X:.*]]: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<6> : tensor<3xi32>
// CHECK-NEXT:    %[[M:.*]] = tgc.mul %[[X]], %[[C]] : tensor<3xi32>
// CHECK-NEXT:    return %[[M]], %[[M]] : tensor<3xi32>, tensor<3xi32>
func.func @constants(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %a = tgc.constant dense<2> : tensor<3xi32>
  %b = tgc.constant dense<3> : tensor<3xi32>
  %c = tgc.mul %a, %b : tensor<3xi32>
  %0 = tgc.mul %c, %x : tensor<3xi32>
  %1 = tgc.mul %x, %c : tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}

// -----

// Inference after squeeze-to-reshape: the called function keeps its
// signature through a tensor.cast.
// CHECK-LABEL: func.func @callee(
// CHECK-SAME:    %[[X:.*]]: tensor<1x8xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %[[R:.*]] = tgc.reshape %[[X]] : tensor<1x8xf32> to tensor<8xf32>
// CHECK-NEXT:    %[[S:.*]] = tgc.softmax %[[R]] {axis = 0 : i64} : tensor<8xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[S]], %[[S]] : tensor<8xf32>
// CHECK-NEXT:    %[[D:.*]] = tgc.sub %[[A]], %[[S]] : tensor<8xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[D]] : tensor<8xf32> to tensor<?xf32>
// CHECK-NEXT:    return %[[C]] : tensor<?xf32>
// CHECK-LABEL: func.func @caller(
// CHECK-NEXT:    call @callee
func.func @callee(%x: tensor<1x8xf32>) -> tensor<?xf32> {
  %0 = tgc.squeeze %x {axes = array<i64: 0>} : (tensor<1x8xf32>) -> tensor<8xf32>
  %1 = tgc.exp %0 : tensor<8xf32>
  %2 = tgc.log %1 : tensor<8xf32>
  %3 = tgc.softmax %0 {axis = 0 : i64} : tensor<8xf32>
  %4 = tgc.add %3, %3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<?xf32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %5 = tgc.mul %4, %one : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %6 = tgc.div %5, %one : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %7 = tgc.sub %6, %3 : (tensor<?xf32>, tensor<8xf32>) -> tensor<?xf32>
  return %7 : tensor<?xf32>
}
func.func @caller(%x: tensor<1x8xf32>) -> tensor<?xf32> {
  %0 = call @callee(%x) : (tensor<1x8xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
