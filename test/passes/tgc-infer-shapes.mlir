// RUN: tgc-opt %s -tgc-infer-shapes -split-input-file | FileCheck %s

// Static argument shapes flow through ops written with dynamic result types,
// and the function result type of an uncalled function follows.
// CHECK-LABEL: func.func @propagate(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>, %[[Y:[^:]*]]: tensor<3xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tgc.exp %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = tgc.transpose %[[E]] {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[R:.*]] = tgc.reduce_sum %[[T]] {axes = array<i64: 1>, keepdims} : (tensor<3x2xf32>) -> tensor<3x1xf32>
// CHECK-NEXT:    %[[S:.*]] = tgc.softmax %[[R]] {axis = 0 : i64} : tensor<3x1xf32>
// CHECK-NEXT:    return %[[S]] : tensor<3x1xf32>
func.func @propagate(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<?x?xf32> {
  %0 = tgc.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  %1 = tgc.exp %0 : tensor<?x?xf32>
  %2 = tgc.transpose %1 {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = tgc.reduce_sum %2 {axes = array<i64: 1>, keepdims} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %4 = tgc.softmax %3 {axis = 0 : i64} : tensor<?x?xf32>
  return %4 : tensor<?x?xf32>
}

// -----

// Only the dims that inference knows become static.
// CHECK-LABEL: func.func @partial(
// CHECK-SAME:    -> tensor<?x16xf32>
// CHECK-NEXT:    %[[M:.*]] = tgc.matmul %{{.*}}, %{{.*}} : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
// CHECK-NEXT:    return %[[M]] : tensor<?x16xf32>
func.func @partial(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>) -> tensor<?x?xf32> {
  %0 = tgc.matmul %x, %w : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Ops whose result type is given (reshape, cast) are refined from their
// operand too, and so are the ops after them.
// CHECK-LABEL: func.func @explicit_result_types(
// CHECK-SAME:    -> tensor<6xf32>
// CHECK-NEXT:    tgc.reshape %{{.*}} : tensor<2x3xf32> to tensor<6xf32>
// CHECK-NEXT:    tgc.neg %{{.*}} : tensor<6xf32>
// CHECK-NEXT:    tgc.cast %{{.*}} : tensor<6xf32> to tensor<6xf16>
// CHECK-NEXT:    tgc.cast %{{.*}} : tensor<6xf16> to tensor<6xf32>
// CHECK-NEXT:    return
func.func @explicit_result_types(%x: tensor<2x3xf32>) -> tensor<?xf32> {
  %0 = tgc.reshape %x : tensor<2x3xf32> to tensor<?xf32>
  %1 = tgc.neg %0 : tensor<?xf32>
  %2 = tgc.cast %1 : tensor<?xf32> to tensor<?xf16>
  %3 = tgc.cast %2 : tensor<?xf16> to tensor<?xf32>
  return %3 : tensor<?xf32>
}

// -----

// A called function keeps its signature: a tensor.cast goes back to the
// declared result type.
// CHECK-LABEL: func.func @callee(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[R]], %[[R]] : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[A]] : tensor<4xf32> to tensor<?xf32>
// CHECK-NEXT:    return %[[C]] : tensor<?xf32>
func.func @callee(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = tgc.relu %x : tensor<4xf32>
  %1 = tgc.add %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// CHECK-LABEL: func.func @caller(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>) -> tensor<?xf32>
// CHECK-NEXT:    %[[R:.*]] = call @callee(%[[X]]) : (tensor<4xf32>) -> tensor<?xf32>
// CHECK-NEXT:    return %[[R]] : tensor<?xf32>
func.func @caller(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = call @callee(%x) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// With more than one return the signature stays and every return gets a cast.
// CHECK-LABEL: func.func @multiple_returns(
// CHECK-SAME:    -> tensor<?xf32>
// CHECK:         %[[A:.*]] = tgc.add %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    %[[C1:.*]] = tensor.cast %[[A]] : tensor<4xf32> to tensor<?xf32>
// CHECK-NEXT:    return %[[C1]] : tensor<?xf32>
// CHECK:         %[[B:.*]] = tgc.add %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    %[[C2:.*]] = tensor.cast %[[B]] : tensor<4xf32> to tensor<?xf32>
// CHECK-NEXT:    return %[[C2]] : tensor<?xf32>
func.func @multiple_returns(%c: i1, %x: tensor<4xf32>) -> tensor<?xf32> {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %0 = tgc.exp %x : tensor<4xf32>
  %1 = tgc.add %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
^bb2:
  %2 = tgc.neg %x : tensor<4xf32>
  %3 = tgc.add %2, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  return %3 : tensor<?xf32>
}

// -----

// Nothing changes when everything is static already.
// CHECK-LABEL: func.func @already_static(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>, %[[Y:[^:]*]]: tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[X]], %[[Y]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tgc.exp %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:    return %[[E]] : tensor<2x3xf32>
func.func @already_static(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = tgc.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = tgc.exp %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Nothing changes when nothing more is known.
// CHECK-LABEL: func.func @dynamic_args(
// CHECK-SAME:    %[[X:.*]]: tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tgc.exp %[[X]] : tensor<?x3xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[E]], %[[X]] : tensor<?x3xf32>
// CHECK-NEXT:    return %[[A]] : tensor<?x3xf32>
func.func @dynamic_args(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = tgc.exp %x : tensor<?x3xf32>
  %1 = tgc.add %0, %x : tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// -----

// A declared result type more static than the inferred one is kept.
// CHECK-LABEL: func.func @refined_result_kept(
// CHECK-SAME:    -> tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %{{.*}}, %{{.*}} : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[A]] : tensor<4xf32>
func.func @refined_result_kept(%x: tensor<?xf32>) -> tensor<4xf32> {
  %0 = tgc.add %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func private @external(tensor<?xf32>) -> tensor<?xf32>
func.func private @external(tensor<?xf32>) -> tensor<?xf32>

// CHECK-LABEL: func.func @conv_pool(
// CHECK-SAME:    -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    %[[C:.*]] = tgc.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x32x32xf32>
// CHECK-NEXT:    %[[P:.*]] = tgc.max_pool2d %[[C]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
// CHECK-NEXT:    return %[[P]] : tensor<1x8x16x16xf32>
func.func @conv_pool(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %1 = tgc.max_pool2d %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %1 : tensor<?x?x?x?xf32>
}

// -----

// Users outside tgc (here func.call) keep the type they were written with,
// through a tensor.cast.
// CHECK-LABEL: func.func @feeds_call
// CHECK: %[[A:.*]] = tgc.add %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[A]] : tensor<4xf32> to tensor<?xf32>
// CHECK: call @sink(%[[C]]) : (tensor<?xf32>) -> tensor<?xf32>
func.func private @sink(tensor<?xf32>) -> tensor<?xf32>
func.func @feeds_call(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = tgc.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  %1 = func.call @sink(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// Ops whose result type is given (reshape, broadcast_to, cast) are refined
// as far as their operand determines it.
// CHECK-LABEL: func.func @given_result_types
// CHECK: tgc.reshape %{{.*}} : tensor<2x6xf32> to tensor<3x4xf32>
// CHECK: tgc.broadcast_to %{{.*}} : tensor<2x6xf32> to tensor<5x2x6xf32>
// CHECK: tgc.cast %{{.*}} : tensor<2x6xf32> to tensor<2x6xf16>
func.func @given_result_types(%x: tensor<2x6xf32>) -> (tensor<?x4xf32>, tensor<5x?x?xf32>, tensor<?x?xf16>) {
  %0 = tgc.add %x, %x : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<?x?xf32>
  %1 = tgc.reshape %0 : tensor<?x?xf32> to tensor<?x4xf32>
  %2 = tgc.broadcast_to %0 : tensor<?x?xf32> to tensor<5x?x?xf32>
  %3 = tgc.cast %0 : tensor<?x?xf32> to tensor<?x?xf16>
  return %1, %2, %3 : tensor<?x4xf32>, tensor<5x?x?xf32>, tensor<?x?xf16>
}

// -----

// A branch sees its inputs' shapes; the if takes what both branches yield
// where they agree. A loop's regions see its captures' shapes; a carried
// value keeps its declared type (it may change its size).
// CHECK-LABEL: func.func @control_flow(
// CHECK:         tgc.if %{{.*}}(%{{.*}}) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT:      tgc.relu %[[A]] : tensor<4xf32>
// CHECK:         } else {
// CHECK-NEXT:    ^bb0(%[[B:.*]]: tensor<4xf32>):
// CHECK:         tgc.while(%{{.*}}) captures(%{{.*}} : tensor<4xf32>) : (tensor<?xf32>) -> tensor<?xf32> cond {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<?xf32>, %{{.*}}: tensor<4xf32>):
func.func @control_flow(%p: tensor<i1>, %x: tensor<4xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %d = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  %r = tgc.if %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %s = tgc.relu %a : tensor<?xf32>
    tgc.yield %s : tensor<?xf32>
  } else {
  ^bb0(%a: tensor<?xf32>):
    tgc.yield %a : tensor<?xf32>
  }
  %l = tgc.while (%d) captures(%x : tensor<4xf32>) : (tensor<?xf32>) -> tensor<?xf32> cond {
  ^bb0(%a: tensor<?xf32>, %w: tensor<?xf32>):
    %f = tgc.constant dense<false> : tensor<i1>
    tgc.yield %f : tensor<i1>
  } do {
  ^bb0(%a: tensor<?xf32>, %w: tensor<?xf32>):
    tgc.yield %a : tensor<?xf32>
  }
  return %r, %l : tensor<?xf32>, tensor<?xf32>
}

// -----

// A tensor.cast to a less static type takes its operand's dims where only
// tgc ops and returns use it; one kept for another user (a call) keeps its
// type.
// CHECK-LABEL: func.func @relaxed_cast(
// CHECK:         %[[C:.*]] = tensor.cast %{{.*}} : tensor<3xf32> to tensor<3xf32>
// CHECK-NEXT:    %[[N:.*]] = tgc.neg %[[C]] : tensor<3xf32>
// CHECK:         %[[K:.*]] = tensor.cast %{{.*}} : tensor<3xf32> to tensor<?xf32>
// CHECK-NEXT:    call @sink(%[[K]])
func.func private @sink(tensor<?xf32>) -> ()
func.func @relaxed_cast(%x: tensor<3xf32>) -> tensor<?xf32> {
  %c = tensor.cast %x : tensor<3xf32> to tensor<?xf32>
  %n = tgc.neg %c : tensor<?xf32>
  %k = tensor.cast %x : tensor<3xf32> to tensor<?xf32>
  call @sink(%k) : (tensor<?xf32>) -> ()
  return %n : tensor<?xf32>
}
