// RUN: tgc-opt %s -canonicalize -split-input-file | FileCheck %s

// x + (-0.0) is exactly x, even for x = -0.0.
// CHECK-LABEL: func.func @add_neg_zero(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    return %[[X]] : tensor<4xf32>
func.func @add_neg_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tgc.constant dense<-0.0> : tensor<4xf32>
  %0 = tgc.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x + 0.0 is not x for x = -0.0: no fold.
// CHECK-LABEL: func.func @add_pos_zero_float(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[C:.*]] = tgc.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK:         %[[R:.*]] = tgc.add %[[X]], %[[C]] : tensor<4xf32>
// CHECK:         return %[[R]]
func.func @add_pos_zero_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tgc.constant dense<0.0> : tensor<4xf32>
  %0 = tgc.add %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Integer x + 0 folds, after the constant moves to the right.
// CHECK-LABEL: func.func @add_zero_int(
// CHECK-SAME:    %[[X:.*]]: tensor<4xi32>)
// CHECK-NEXT:    return %[[X]] : tensor<4xi32>
func.func @add_zero_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = tgc.constant dense<0> : tensor<4xi32>
  %0 = tgc.add %c, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// The identity broadcasts x to a larger type: no fold.
// CHECK-LABEL: func.func @add_zero_broadcasting(
// CHECK:         %[[R:.*]] = tgc.add
// CHECK-SAME:      (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         return %[[R]]
func.func @add_zero_broadcasting(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %c = tgc.constant dense<-0.0> : tensor<2x3xf32>
  %0 = tgc.add %x, %c : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @sub_zero(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xi8>)
// CHECK-NEXT:    return %[[X]], %[[Y]] : tensor<4xf32>, tensor<4xi8>
func.func @sub_zero(%x: tensor<4xf32>, %y: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi8>) {
  %c = tgc.constant dense<0.0> : tensor<4xf32>
  %0 = tgc.sub %x, %c : tensor<4xf32>
  %d = tgc.constant dense<0> : tensor<4xi8>
  %1 = tgc.sub %y, %d : tensor<4xi8>
  return %0, %1 : tensor<4xf32>, tensor<4xi8>
}

// -----

// x - (-0.0) is x + 0.0: no fold.
// CHECK-LABEL: func.func @sub_neg_zero_float(
// CHECK:         %[[C:.*]] = tgc.constant dense<-0.000000e+00> : tensor<4xf32>
// CHECK:         %[[R:.*]] = tgc.sub %{{.*}}, %[[C]] : tensor<4xf32>
// CHECK:         return %[[R]]
func.func @sub_neg_zero_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tgc.constant dense<-0.0> : tensor<4xf32>
  %0 = tgc.sub %x, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 0 - x is not x, and sub is not commutative.
// CHECK-LABEL: func.func @sub_zero_from_left(
// CHECK-SAME:    %[[X:.*]]: tensor<4xi32>)
// CHECK:         %[[C:.*]] = tgc.constant dense<0> : tensor<4xi32>
// CHECK:         %[[R:.*]] = tgc.sub %[[C]], %[[X]] : tensor<4xi32>
// CHECK:         return %[[R]]
func.func @sub_zero_from_left(%x: tensor<4xi32>) -> tensor<4xi32> {
  %c = tgc.constant dense<0> : tensor<4xi32>
  %0 = tgc.sub %c, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// x * 1, x / 1 and x ^ 1 fold for floats and integers, also with a rank-0 splat
// that broadcasts to x's type.
// CHECK-LABEL: func.func @mul_div_pow_one(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x?xf16>, %[[Y:[^:]*]]: tensor<3xi64>)
// CHECK-NEXT:    return %[[X]], %[[X]], %[[X]], %[[Y]], %[[Y]], %[[Y]] :
func.func @mul_div_pow_one(%x: tensor<2x?xf16>, %y: tensor<3xi64>) -> (tensor<2x?xf16>, tensor<2x?xf16>, tensor<2x?xf16>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %one = tgc.constant dense<1.0> : tensor<f16>
  %0 = tgc.mul %one, %x : (tensor<f16>, tensor<2x?xf16>) -> tensor<2x?xf16>
  %1 = tgc.div %x, %one : (tensor<2x?xf16>, tensor<f16>) -> tensor<2x?xf16>
  %2 = tgc.pow %x, %one : (tensor<2x?xf16>, tensor<f16>) -> tensor<2x?xf16>
  %i = tgc.constant dense<1> : tensor<3xi64>
  %3 = tgc.mul %y, %i : tensor<3xi64>
  %4 = tgc.div %y, %i : tensor<3xi64>
  %5 = tgc.pow %y, %i : tensor<3xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x?xf16>, tensor<2x?xf16>, tensor<2x?xf16>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}

// -----

// 1 / x and 1 ^ x are not x.
// CHECK-LABEL: func.func @div_one_from_left(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[ONE:.*]] = tgc.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK:         %[[D:.*]] = tgc.div %[[ONE]], %[[X]] : tensor<4xf32>
// CHECK:         %[[P:.*]] = tgc.pow %[[ONE]], %[[X]] : tensor<4xf32>
// CHECK:         %[[M:.*]] = tgc.mul %[[D]], %[[P]] : tensor<4xf32>
// CHECK:         return %[[M]]
func.func @div_one_from_left(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = tgc.constant dense<1.0> : tensor<4xf32>
  %0 = tgc.div %one, %x : tensor<4xf32>
  %1 = tgc.pow %one, %x : tensor<4xf32>
  %2 = tgc.mul %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mul_by_two(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[C:.*]] = tgc.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK:         %[[R:.*]] = tgc.mul %[[X]], %[[C]] : tensor<4xf32>
// CHECK:         return %[[R]]
func.func @mul_by_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = tgc.constant dense<2.0> : tensor<4xf32>
  %0 = tgc.mul %x, %two : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @identity_not_splat(
// CHECK:         %[[R:.*]] = tgc.add
// CHECK:         return %[[R]]
func.func @identity_not_splat(%x: tensor<2xi32>) -> tensor<2xi32> {
  %c = tgc.constant dense<[0, 1]> : tensor<2xi32>
  %0 = tgc.add %x, %c : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @commutative_constant_to_right(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[C:.*]] = tgc.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK:         %[[R:.*]] = tgc.mul %[[X]], %[[C]] : tensor<4xf32>
// CHECK:         return %[[R]]
func.func @commutative_constant_to_right(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tgc.constant dense<3.0> : tensor<4xf32>
  %0 = tgc.mul %c, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @non_commutative_constant_stays_left(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK:         %[[C:.*]] = tgc.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK:         %[[R:.*]] = tgc.sub %[[C]], %[[X]] : tensor<4xf32>
func.func @non_commutative_constant_stays_left(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tgc.constant dense<3.0> : tensor<4xf32>
  %0 = tgc.sub %c, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @max_min_self(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<1xf32>)
// CHECK-NEXT:    return %[[X]], %[[X]], %[[Y]] :
func.func @max_min_self(%x: tensor<4xf32>, %y: tensor<1xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) {
  %0 = tgc.max %x, %x : tensor<4xf32>
  %1 = tgc.min %x, %x : tensor<4xf32>
  %2 = tgc.max %y, %y : tensor<1xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<1xf32>
}

// -----

// The result type is more static than x: no fold.
// CHECK-LABEL: func.func @max_self_refined(
// CHECK:         %[[R:.*]] = tgc.max %[[X:.*]], %[[X]] : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
// CHECK:         return %[[R]]
func.func @max_self_refined(%x: tensor<?xf32>) -> tensor<4xf32> {
  %0 = tgc.max %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x && true and false || x fold; x && false does not (no absorbing folds).
// CHECK-LABEL: func.func @logical_identities(
// CHECK-SAME:    %[[X:.*]]: tensor<4xi1>)
// CHECK:         %[[F:.*]] = tgc.constant dense<false> : tensor<4xi1>
// CHECK:         %[[A:.*]] = tgc.logical_and %[[X]], %[[F]] : tensor<4xi1>
// CHECK:         return %[[X]], %[[X]], %[[A]] :
func.func @logical_identities(%x: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %t = tgc.constant dense<true> : tensor<4xi1>
  %f = tgc.constant dense<false> : tensor<4xi1>
  %0 = tgc.logical_and %x, %t : tensor<4xi1>
  %1 = tgc.logical_or %f, %x : tensor<4xi1>
  %2 = tgc.logical_and %x, %f : tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @involutions(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xi1>)
// CHECK-NEXT:    return %[[X]], %[[B]] :
func.func @involutions(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  %0 = tgc.neg %x : tensor<4xf32>
  %1 = tgc.neg %0 : tensor<4xf32>
  %2 = tgc.logical_not %b : tensor<4xi1>
  %3 = tgc.logical_not %2 : tensor<4xi1>
  return %1, %3 : tensor<4xf32>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @idempotent(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xi8>)
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.abs %[[Y]] : tensor<4xi8>
// CHECK-NEXT:    return %[[R]], %[[A]] :
func.func @idempotent(%x: tensor<4xf32>, %y: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi8>) {
  %0 = tgc.relu %x : tensor<4xf32>
  %1 = tgc.relu %0 : tensor<4xf32>
  %2 = tgc.abs %y : tensor<4xi8>
  %3 = tgc.abs %2 : tensor<4xi8>
  return %1, %3 : tensor<4xf32>, tensor<4xi8>
}

// -----

// abs(neg(x)), neg(relu(x)) and relu(abs(x)) are left alone.
// CHECK-LABEL: func.func @no_fold_mixed(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[N:.*]] = tgc.neg %[[X]]
// CHECK-NEXT:    %[[A:.*]] = tgc.abs %[[N]]
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[X]]
// CHECK-NEXT:    %[[N2:.*]] = tgc.neg %[[R]]
// CHECK-NEXT:    %[[A2:.*]] = tgc.abs %[[X]]
// CHECK-NEXT:    %[[R2:.*]] = tgc.relu %[[A2]]
// CHECK-NEXT:    return %[[A]], %[[N2]], %[[R2]] :
func.func @no_fold_mixed(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tgc.neg %x : tensor<4xf32>
  %1 = tgc.abs %0 : tensor<4xf32>
  %2 = tgc.relu %x : tensor<4xf32>
  %3 = tgc.neg %2 : tensor<4xf32>
  %4 = tgc.abs %x : tensor<4xf32>
  %5 = tgc.relu %4 : tensor<4xf32>
  return %1, %3, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_float_unary(
// CHECK-DAG:     %[[EXP:.*]] = tgc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[SQRT:.*]] = tgc.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[ROUND:.*]] = tgc.constant dense<[2.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-DAG:     %[[ROUND64:.*]] = tgc.constant dense<4.000000e+00> : tensor<f64>
// CHECK-DAG:     %[[RSQRT:.*]] = tgc.constant dense<5.000000e-01> : tensor<f64>
// CHECK-DAG:     %[[LOG:.*]] = tgc.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG:     %[[RECIP:.*]] = tgc.constant dense<0x7F800000> : tensor<f32>
// CHECK-DAG:     %[[TANH:.*]] = tgc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[SIGMOID:.*]] = tgc.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NOT:     tgc.exp
// CHECK-NOT:     tgc.cast
// CHECK:         return %[[EXP]], %[[SQRT]], %[[ROUND]], %[[ROUND64]], %[[RSQRT]], %[[LOG]], %[[RECIP]], %[[TANH]], %[[SIGMOID]] :
func.func @fold_float_unary() -> (tensor<f32>, tensor<f32>, tensor<2xf32>, tensor<f64>, tensor<f64>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %zero = tgc.constant dense<0.0> : tensor<f32>
  %four = tgc.constant dense<4.0> : tensor<f32>
  %0 = tgc.exp %zero : tensor<f32>
  %1 = tgc.sqrt %four : tensor<f32>
  %r = tgc.constant dense<[2.5, -0.5]> : tensor<2xf32>
  %2 = tgc.round %r : tensor<2xf32>
  %h = tgc.constant dense<3.5> : tensor<f64>
  %3 = tgc.round %h : tensor<f64>
  %4 = tgc.rsqrt %four : tensor<f32>
  %5 = tgc.log %zero : tensor<f32>
  %6 = tgc.reciprocal %zero : tensor<f32>
  %7 = tgc.tanh %zero : tensor<f32>
  %8 = tgc.sigmoid %zero : tensor<f32>
  %h64 = tgc.cast %4 : tensor<f32> to tensor<f64>
  return %0, %1, %2, %3, %h64, %5, %6, %7, %8 : tensor<f32>, tensor<f32>, tensor<2xf32>, tensor<f64>, tensor<f64>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @fold_float_unary_more(
// CHECK-NEXT:    %[[FLOOR:.*]] = tgc.constant dense<[-2.000000e+00, -0.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[CEIL:.*]] = tgc.constant dense<[-1.000000e+00, -0.000000e+00, 0.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[SIGN:.*]] = tgc.constant dense<[-1.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[ABS:.*]] = tgc.constant dense<[1.500000e+00, 0.000000e+00, 0.000000e+00, 2.250000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[NEG:.*]] = tgc.constant dense<[1.500000e+00, 0.000000e+00, -0.000000e+00, -2.250000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[RELU:.*]] = tgc.constant dense<[0.000000e+00, 0.000000e+00, 0.000000e+00, 2.250000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[LEAKY:.*]] = tgc.constant dense<[-7.500000e-01, -0.000000e+00, 0.000000e+00, 2.250000e+00]> : tensor<4xf32>
// CHECK-NEXT:    return %[[FLOOR]], %[[CEIL]], %[[SIGN]], %[[ABS]], %[[NEG]], %[[RELU]], %[[LEAKY]] :
func.func @fold_float_unary_more() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = tgc.constant dense<[-1.5, -0.0, 0.0, 2.25]> : tensor<4xf32>
  %0 = tgc.floor %c : tensor<4xf32>
  %1 = tgc.ceil %c : tensor<4xf32>
  %2 = tgc.sign %c : tensor<4xf32>
  %3 = tgc.abs %c : tensor<4xf32>
  %4 = tgc.neg %c : tensor<4xf32>
  %5 = tgc.relu %c : tensor<4xf32>
  %6 = tgc.leaky_relu %c {alpha = 0.5 : f64} : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_float_unary_zero(
// CHECK-NEXT:    %[[ERF:.*]] = tgc.constant dense<[0.000000e+00, 0.842700779]> : tensor<2xf32>
// CHECK-NEXT:    %[[SIN:.*]] = tgc.constant dense<[0.000000e+00, 0.841470957]> : tensor<2xf32>
// CHECK-NEXT:    %[[COS:.*]] = tgc.constant dense<[1.000000e+00, 0.540302277]> : tensor<2xf32>
// CHECK-NEXT:    %[[ELU:.*]] = tgc.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[GELU:.*]] = tgc.constant dense<[0.000000e+00, 0.841344773]> : tensor<2xf32>
// CHECK-NEXT:    %[[GELU_TANH:.*]] = tgc.constant dense<[0.000000e+00, 8.411920e-01]> : tensor<2xf32>
// CHECK-NEXT:    return %[[ERF]], %[[SIN]], %[[COS]], %[[ELU]], %[[GELU]], %[[GELU_TANH]] :
func.func @fold_float_unary_zero() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c = tgc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = tgc.erf %c : tensor<2xf32>
  %1 = tgc.sin %c : tensor<2xf32>
  %2 = tgc.cos %c : tensor<2xf32>
  %3 = tgc.elu %c : tensor<2xf32>
  %4 = tgc.gelu %c : tensor<2xf32>
  %5 = tgc.gelu %c {approximate = #tgc.gelu_approximation<tanh>} : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @fold_sign_nan(
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<0x7FC00000> : tensor<f32>
// CHECK-NEXT:    return %[[C]]
func.func @fold_sign_nan() -> tensor<f32> {
  %c = tgc.constant dense<0x7FC00000> : tensor<f32>
  %0 = tgc.sign %c : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Integer neg and abs wrap: -(-128) is -128 in i8. Clamp bounds round toward zero.
// CHECK-LABEL: func.func @fold_int_unary(
// CHECK-NEXT:    %[[NEG:.*]] = tgc.constant dense<[-128, 5, -7]> : tensor<3xi8>
// CHECK-NEXT:    %[[ABS:.*]] = tgc.constant dense<[-128, 5, 7]> : tensor<3xi8>
// CHECK-NEXT:    %[[RELU:.*]] = tgc.constant dense<[0, 0, 7]> : tensor<3xi8>
// CHECK-NEXT:    %[[SIGN:.*]] = tgc.constant dense<[-1, -1, 1]> : tensor<3xi8>
// CHECK-NEXT:    %[[CLAMP:.*]] = tgc.constant dense<[-2, 3, 5]> : tensor<3xi32>
// CHECK-NEXT:    return %[[NEG]], %[[ABS]], %[[RELU]], %[[SIGN]], %[[CLAMP]] :
func.func @fold_int_unary() -> (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<3xi32>) {
  %c = tgc.constant dense<[-128, -5, 7]> : tensor<3xi8>
  %0 = tgc.neg %c : tensor<3xi8>
  %1 = tgc.abs %c : tensor<3xi8>
  %2 = tgc.relu %c : tensor<3xi8>
  %3 = tgc.sign %c : tensor<3xi8>
  %d = tgc.constant dense<[-7, 3, 100]> : tensor<3xi32>
  %4 = tgc.clamp %d {max = 5.9 : f64, min = -2.5 : f64} : tensor<3xi32>
  return %0, %1, %2, %3, %4 : tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @fold_clamp_float(
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<[0.000000e+00, 5.000000e-01, 6.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @fold_clamp_float() -> tensor<3xf32> {
  %c = tgc.constant dense<[-1.0, 0.5, 10.0]> : tensor<3xf32>
  %0 = tgc.clamp %c {max = 6.0 : f64, min = 0.0 : f64} : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// i8: 100 + 100 wraps to -56, -100 - 100 to 56, 100 * 100 to 16; -128 / -1
// wraps to -128. Division rounds toward zero; negative powers give 0.
// CHECK-LABEL: func.func @fold_int_binary(
// CHECK-NEXT:    %[[ADD:.*]] = tgc.constant dense<-56> : tensor<i8>
// CHECK-NEXT:    %[[SUB:.*]] = tgc.constant dense<56> : tensor<i8>
// CHECK-NEXT:    %[[MUL:.*]] = tgc.constant dense<16> : tensor<i8>
// CHECK-NEXT:    %[[DIV:.*]] = tgc.constant dense<[-3, -3, 0]> : tensor<3xi32>
// CHECK-NEXT:    %[[POW:.*]] = tgc.constant dense<[49, 0, 0]> : tensor<3xi32>
// CHECK-NEXT:    %[[DIVMIN:.*]] = tgc.constant dense<-128> : tensor<i8>
// CHECK-NEXT:    return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[POW]], %[[DIVMIN]] :
func.func @fold_int_binary() -> (tensor<i8>, tensor<i8>, tensor<i8>, tensor<3xi32>, tensor<3xi32>, tensor<i8>) {
  %a = tgc.constant dense<100> : tensor<i8>
  %0 = tgc.add %a, %a : tensor<i8>
  %m = tgc.constant dense<-100> : tensor<i8>
  %1 = tgc.sub %m, %a : tensor<i8>
  %2 = tgc.mul %a, %a : tensor<i8>
  %n = tgc.constant dense<[-7, 7, 2]> : tensor<3xi32>
  %d = tgc.constant dense<[2, -2, -3]> : tensor<3xi32>
  %3 = tgc.div %n, %d : tensor<3xi32>
  %4 = tgc.pow %n, %d : tensor<3xi32>
  %min = tgc.constant dense<-128> : tensor<i8>
  %neg1 = tgc.constant dense<-1> : tensor<i8>
  %5 = tgc.div %min, %neg1 : tensor<i8>
  return %0, %1, %2, %3, %4, %5 : tensor<i8>, tensor<i8>, tensor<i8>, tensor<3xi32>, tensor<3xi32>, tensor<i8>
}

// -----

// Integer division by zero is a run-time error: not folded.
// CHECK-LABEL: func.func @no_fold_int_div_by_zero(
// CHECK:         %[[N:.*]] = tgc.constant dense<[6, 7]> : tensor<2xi32>
// CHECK:         %[[D:.*]] = tgc.constant dense<[3, 0]> : tensor<2xi32>
// CHECK:         %[[R:.*]] = tgc.div %[[N]], %[[D]] : tensor<2xi32>
// CHECK:         return %[[R]]
func.func @no_fold_int_div_by_zero() -> tensor<2xi32> {
  %n = tgc.constant dense<[6, 7]> : tensor<2xi32>
  %d = tgc.constant dense<[3, 0]> : tensor<2xi32>
  %0 = tgc.div %n, %d : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @no_fold_i64_div_overflow(
// CHECK:         %[[R:.*]] = tgc.div
// CHECK:         return %[[R]]
func.func @no_fold_i64_div_overflow() -> tensor<i64> {
  %n = tgc.constant dense<-9223372036854775808> : tensor<i64>
  %d = tgc.constant dense<-1> : tensor<i64>
  %0 = tgc.div %n, %d : tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Float division by zero folds to infinity; max and min propagate NaN.
// CHECK-LABEL: func.func @fold_float_binary(
// CHECK-NEXT:    %[[ADD:.*]] = tgc.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[DIV:.*]] = tgc.constant dense<[2.000000e+00, 0xFF800000]> : tensor<2xf32>
// CHECK-NEXT:    %[[POW:.*]] = tgc.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[MAX:.*]] = tgc.constant dense<[0x7FC00000, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[MIN:.*]] = tgc.constant dense<[0x7FC00000, -2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    return %[[ADD]], %[[DIV]], %[[POW]], %[[MAX]], %[[MIN]] :
func.func @fold_float_binary() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = tgc.constant dense<[1.0, -2.0]> : tensor<2xf32>
  %b = tgc.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %0 = tgc.add %a, %b : tensor<2xf32>
  %1 = tgc.div %a, %b : tensor<2xf32>
  %2 = tgc.pow %a, %b : tensor<2xf32>
  %nan = tgc.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %3 = tgc.max %nan, %a : tensor<2xf32>
  %4 = tgc.min %nan, %a : tensor<2xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @fold_broadcast_splat(
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<3.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @fold_broadcast_splat() -> tensor<2x3xf32> {
  %a = tgc.constant dense<1.5> : tensor<3xf32>
  %b = tgc.constant dense<2.0> : tensor<2x1xf32>
  %0 = tgc.mul %a, %b : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Non-splat constants broadcast when folded (per-channel weight scaling).
// CHECK-LABEL: func.func @fold_broadcast_non_splat(
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<{{\[}}[2.000000e+00, 4.000000e+00, 6.000000e+00], [-1.000000e+00, -2.000000e+00, -3.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @fold_broadcast_non_splat() -> tensor<2x3xf32> {
  %a = tgc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = tgc.constant dense<[[2.0], [-1.0]]> : tensor<2x1xf32>
  %0 = tgc.mul %a, %b : (tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Comparisons with NaN are false, except ne.
// CHECK-LABEL: func.func @fold_compare(
// CHECK-DAG:     %[[EQ:.*]] = tgc.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG:     %[[NE:.*]] = tgc.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG:     %[[GT:.*]] = tgc.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[LT:.*]] = tgc.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG:     %[[GE:.*]] = tgc.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NOT:     tgc.compare
// CHECK:         return %[[EQ]], %[[NE]], %[[GT]], %[[EQ]], %[[LT]], %[[GE]] :
func.func @fold_compare() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = tgc.constant dense<[1.0, 0x7FC00000, 3.0]> : tensor<3xf32>
  %b = tgc.constant dense<[1.0, 0x7FC00000, 2.0]> : tensor<3xf32>
  %0 = tgc.compare eq, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = tgc.compare ne, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %2 = tgc.compare gt, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %3 = tgc.compare le, %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %i = tgc.constant dense<[-1, 5]> : tensor<2xi8>
  %j = tgc.constant dense<[1, 5]> : tensor<2xi8>
  %4 = tgc.compare lt, %i, %j : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi1>
  %5 = tgc.compare ge, %i, %j : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @fold_compare_bool(
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT:    return %[[C]]
func.func @fold_compare_bool() -> tensor<2xi1> {
  %a = tgc.constant dense<[true, false]> : tensor<2xi1>
  %b = tgc.constant dense<true> : tensor<2xi1>
  %0 = tgc.compare eq, %a, %b : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// CHECK-LABEL: func.func @fold_select(
// CHECK-SAME:    %{{[^:]*}}: tensor<4xi1>, %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>)
// CHECK-NEXT:    return %[[X]], %[[X]], %[[Y]] :
func.func @fold_select(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = tgc.constant dense<true> : tensor<4xi1>
  %f = tgc.constant dense<false> : tensor<4xi1>
  %0 = tgc.select %c, %x, %x : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tgc.select %t, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tgc.select %f, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_select_constants(
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<[1, -1, 3]> : tensor<3xi32>
// CHECK-NEXT:    return %[[C]]
func.func @fold_select_constants() -> tensor<3xi32> {
  %c = tgc.constant dense<[true, false, true]> : tensor<3xi1>
  %x = tgc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %y = tgc.constant dense<-1> : tensor<3xi32>
  %0 = tgc.select %c, %x, %y : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @no_fold_select_broadcast(
// CHECK:         %[[R:.*]] = tgc.select
// CHECK:         return %[[R]]
func.func @no_fold_select_broadcast(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // The chosen operand does not have the result type.
  %t = tgc.constant dense<true> : tensor<i1>
  %0 = tgc.select %t, %x, %y : (tensor<i1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @cast_same_type(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @cast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Float to int truncates toward zero and saturates; NaN becomes 0. To i1 is x != 0.
// CHECK-LABEL: func.func @fold_cast_float_to_int(
// CHECK-NEXT:    %[[I32:.*]] = tgc.constant dense<[2, -2, 2147483647, -2147483648, 0, 0]> : tensor<6xi32>
// CHECK-NEXT:    %[[I8:.*]] = tgc.constant dense<[127, -128, 127]> : tensor<3xi8>
// CHECK-NEXT:    %[[I1:.*]] = tgc.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-NEXT:    return %[[I32]], %[[I8]], %[[I1]] :
func.func @fold_cast_float_to_int() -> (tensor<6xi32>, tensor<3xi8>, tensor<3xi1>) {
  %c = tgc.constant dense<[2.9, -2.9, 3.0e+10, -3.0e+10, 0x7FC00000, -0.5]> : tensor<6xf32>
  %0 = tgc.cast %c : tensor<6xf32> to tensor<6xi32>
  %d = tgc.constant dense<[300.0, -300.0, 127.9]> : tensor<3xf64>
  %1 = tgc.cast %d : tensor<3xf64> to tensor<3xi8>
  %e = tgc.constant dense<[0.0, -0.0, 0.25]> : tensor<3xf32>
  %2 = tgc.cast %e : tensor<3xf32> to tensor<3xi1>
  return %0, %1, %2 : tensor<6xi32>, tensor<3xi8>, tensor<3xi1>
}

// -----

// Int to int wraps; int to i1 is x != 0 (200 is true although its low bit is 0);
// i1 to a number is 0 or 1.
// CHECK-LABEL: func.func @fold_cast_int(
// CHECK-NEXT:    %[[I8:.*]] = tgc.constant dense<[-56, 127, 2]> : tensor<3xi8>
// CHECK-NEXT:    %[[I1:.*]] = tgc.constant dense<true> : tensor<3xi1>
// CHECK-NEXT:    %[[F32:.*]] = tgc.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[I64:.*]] = tgc.constant dense<[1, 0]> : tensor<2xi64>
// CHECK-NEXT:    return %[[I8]], %[[I1]], %[[F32]], %[[I64]] :
func.func @fold_cast_int() -> (tensor<3xi8>, tensor<3xi1>, tensor<2xf32>, tensor<2xi64>) {
  %c = tgc.constant dense<[200, -129, 2]> : tensor<3xi32>
  %0 = tgc.cast %c : tensor<3xi32> to tensor<3xi8>
  %1 = tgc.cast %c : tensor<3xi32> to tensor<3xi1>
  %b = tgc.constant dense<[true, false]> : tensor<2xi1>
  %2 = tgc.cast %b : tensor<2xi1> to tensor<2xf32>
  %3 = tgc.cast %b : tensor<2xi1> to tensor<2xi64>
  return %0, %1, %2, %3 : tensor<3xi8>, tensor<3xi1>, tensor<2xf32>, tensor<2xi64>
}

// -----

// 1e5 overflows f16 to +inf; 1 + 2^-8 is a tie in bf16 and rounds to even.
// CHECK-LABEL: func.func @fold_cast_float_to_float(
// CHECK-NEXT:    %[[F16:.*]] = tgc.constant dense<[0x7C00, 9.997550e-02]> : tensor<2xf16>
// CHECK-NEXT:    %[[BF16:.*]] = tgc.constant dense<1.000000e+00> : tensor<bf16>
// CHECK-NEXT:    return %[[F16]], %[[BF16]] :
func.func @fold_cast_float_to_float() -> (tensor<2xf16>, tensor<bf16>) {
  %c = tgc.constant dense<[1.0e+05, 0.1]> : tensor<2xf32>
  %0 = tgc.cast %c : tensor<2xf32> to tensor<2xf16>
  %d = tgc.constant dense<1.00390625> : tensor<f32>
  %1 = tgc.cast %d : tensor<f32> to tensor<bf16>
  return %0, %1 : tensor<2xf16>, tensor<bf16>
}

// -----

// CHECK-LABEL: func.func @cast_chain_lossless(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT:    %[[R:.*]] = tgc.cast %[[X]] : tensor<4xf16> to tensor<4xf64>
// CHECK-NEXT:    return %[[R]]
func.func @cast_chain_lossless(%x: tensor<4xf16>) -> tensor<4xf64> {
  %0 = tgc.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = tgc.cast %0 : tensor<4xf32> to tensor<4xf64>
  return %1 : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @cast_chain_lossless_int(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xi8>, %[[B:[^:]*]]: tensor<4xi1>)
// CHECK-NEXT:    %[[A:.*]] = tgc.cast %[[X]] : tensor<4xi8> to tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = tgc.cast %[[B]] : tensor<4xi1> to tensor<4xi8>
// CHECK-NEXT:    %[[D:.*]] = tgc.cast %[[X]] : tensor<4xi8> to tensor<4xi32>
// CHECK-NEXT:    return %[[A]], %[[C]], %[[D]] :
func.func @cast_chain_lossless_int(%x: tensor<4xi8>, %b: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi8>, tensor<4xi32>) {
  %0 = tgc.cast %x : tensor<4xi8> to tensor<4xi32>
  %1 = tgc.cast %0 : tensor<4xi32> to tensor<4xf32>
  %2 = tgc.cast %b : tensor<4xi1> to tensor<4xf16>
  %3 = tgc.cast %2 : tensor<4xf16> to tensor<4xi8>
  %4 = tgc.cast %x : tensor<4xi8> to tensor<4xf16>
  %5 = tgc.cast %4 : tensor<4xf16> to tensor<4xi32>
  return %1, %3, %5 : tensor<4xf32>, tensor<4xi8>, tensor<4xi32>
}

// -----

// f32 -> f16, i32 -> i8, f16 -> bf16 and i32 -> f32 lose information: no fold.
// CHECK-LABEL: func.func @cast_chain_lossy(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xi32>, %[[Z:[^:]*]]: tensor<4xf16>, %[[W:[^:]*]]: tensor<4xi32>)
// CHECK-NEXT:    %[[C0:.*]] = tgc.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    %[[C1:.*]] = tgc.cast %[[C0]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    %[[C2:.*]] = tgc.cast %[[Y]] : tensor<4xi32> to tensor<4xi8>
// CHECK-NEXT:    %[[C3:.*]] = tgc.cast %[[C2]] : tensor<4xi8> to tensor<4xi32>
// CHECK-NEXT:    %[[C4:.*]] = tgc.cast %[[Z]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-NEXT:    %[[C5:.*]] = tgc.cast %[[C4]] : tensor<4xbf16> to tensor<4xf32>
// CHECK-NEXT:    %[[C6:.*]] = tgc.cast %[[W]] : tensor<4xi32> to tensor<4xf32>
// CHECK-NEXT:    %[[C7:.*]] = tgc.cast %[[C6]] : tensor<4xf32> to tensor<4xf64>
// CHECK-NEXT:    return %[[C1]], %[[C3]], %[[C5]], %[[C7]] :
func.func @cast_chain_lossy(%x: tensor<4xf32>, %y: tensor<4xi32>, %z: tensor<4xf16>, %w: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf64>) {
  %0 = tgc.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = tgc.cast %0 : tensor<4xf16> to tensor<4xf32>
  %2 = tgc.cast %y : tensor<4xi32> to tensor<4xi8>
  %3 = tgc.cast %2 : tensor<4xi8> to tensor<4xi32>
  %4 = tgc.cast %z : tensor<4xf16> to tensor<4xbf16>
  %5 = tgc.cast %4 : tensor<4xbf16> to tensor<4xf32>
  %6 = tgc.cast %w : tensor<4xi32> to tensor<4xf32>
  %7 = tgc.cast %6 : tensor<4xf32> to tensor<4xf64>
  return %1, %3, %5, %7 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @cast_chain_float_to_int_to_float(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[I:.*]] = tgc.cast %[[X]] : tensor<4xf32> to tensor<4xi64>
// CHECK-NEXT:    %[[F:.*]] = tgc.cast %[[I]] : tensor<4xi64> to tensor<4xf32>
// CHECK-NEXT:    return %[[F]]
func.func @cast_chain_float_to_int_to_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.cast %x : tensor<4xf32> to tensor<4xi64>
  %1 = tgc.cast %0 : tensor<4xi64> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<{{\[\[}}1, 2], [3, 4], [5, 6{{\]\]}}> : tensor<3x2xi32>
// CHECK-NEXT:    return %[[X]], %[[C]] :
func.func @reshape_fold(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xi32>) {
  %0 = tgc.reshape %x : tensor<2x3xf32> to tensor<2x3xf32>
  %c = tgc.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %1 = tgc.reshape %c : tensor<6xi32> to tensor<3x2xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<3x2xi32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgc.reshape %[[X]] : tensor<2x3x4xf32> to tensor<4x6xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = tgc.reshape %x : tensor<2x3x4xf32> to tensor<24xf32>
  %1 = tgc.reshape %0 : tensor<24xf32> to tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain_to_identity(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @reshape_chain_to_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tgc.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  %1 = tgc.reshape %0 : tensor<6xf32> to tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_dynamic_chain(
// CHECK-SAME:    %[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgc.add %[[X]], %[[X]] : tensor<?x4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_dynamic_chain(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // A reshape to its own type is the identity, and so is this round trip.
  %0 = tgc.reshape %x : tensor<?x4xf32> to tensor<?x4xf32>
  %1 = tgc.reshape %x : tensor<?x4xf32> to tensor<4x?xf32>
  %2 = tgc.reshape %1 : tensor<4x?xf32> to tensor<?x4xf32>
  %3 = tgc.add %0, %2 : tensor<?x4xf32>
  return %3 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG:     %[[C:.*]] = tgc.constant dense<7.000000e+00> : tensor<4x2xf32>
// CHECK-DAG:     %[[T:.*]] = tgc.transpose %[[X]] {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK:         return %[[X]], %[[T]], %[[C]] :
func.func @transpose_fold(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<4x2xf32>) {
  %0 = tgc.transpose %x {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tgc.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c = tgc.constant dense<7.0> : tensor<2x4xf32>
  %2 = tgc.transpose %c {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<4x2xf32>
}

// -----

// A lazy transpose of a constant stays (its consumer reads the constant in
// its own order); of a splat it still folds, and an identity one goes.
// CHECK-LABEL: func.func @lazy_transpose(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG:     %[[C:.*]] = tgc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[S:.*]] = tgc.constant dense<5.000000e+00> : tensor<3x2xf32>
// CHECK-DAG:     %[[T:.*]] = tgc.transpose %[[C]] {lazy, permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK:         return %[[T]], %[[S]], %[[X]] :
func.func @lazy_transpose(%x: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>) {
  %c = tgc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %0 = tgc.transpose %c {lazy, permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = tgc.constant dense<5.0> : tensor<2x3xf32>
  %1 = tgc.transpose %s {lazy, permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = tgc.transpose %x {lazy, permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_transpose_square(
// CHECK:         %[[T:.*]] = tgc.transpose %{{.*}} {permutation = array<i64: 1, 0>}
// CHECK:         return %[[T]]
func.func @no_fold_transpose_square(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = tgc.transpose %x {permutation = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Constant transposes fold (exported models transpose their weights); i1
// (bit-packed) constants are left alone.
// CHECK-LABEL: func.func @fold_transpose_non_splat(
// CHECK-DAG:     %[[A:.*]] = tgc.constant dense<{{\[}}[1.000000e+00], [2.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<{{\[}}{{\[}}[1, 4]], {{\[}}[2, 5]], {{\[}}[3, 6]]]> : tensor<3x1x2xi64>
// CHECK-DAG:     %[[C:.*]] = tgc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>
// CHECK-DAG:     %[[T:.*]] = tgc.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<1x2xi1>) -> tensor<2x1xi1>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[T]]
func.func @fold_transpose_non_splat() -> (tensor<2x1xf32>, tensor<3x1x2xi64>, tensor<2x2xbf16>, tensor<2x1xi1>) {
  %c = tgc.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %0 = tgc.transpose %c {permutation = array<i64: 1, 0>} : (tensor<1x2xf32>) -> tensor<2x1xf32>
  %d = tgc.constant dense<[[[1, 2, 3]], [[4, 5, 6]]]> : tensor<2x1x3xi64>
  %1 = tgc.transpose %d {permutation = array<i64: 2, 1, 0>} : (tensor<2x1x3xi64>) -> tensor<3x1x2xi64>
  %e = tgc.constant dense<[[1.0, 3.0], [2.0, 4.0]]> : tensor<2x2xbf16>
  %2 = tgc.transpose %e {permutation = array<i64: 1, 0>} : (tensor<2x2xbf16>) -> tensor<2x2xbf16>
  %f = tgc.constant dense<[[true, false]]> : tensor<1x2xi1>
  %3 = tgc.transpose %f {permutation = array<i64: 1, 0>} : (tensor<1x2xi1>) -> tensor<2x1xi1>
  return %0, %1, %2, %3 : tensor<2x1xf32>, tensor<3x1x2xi64>, tensor<2x2xbf16>, tensor<2x1xi1>
}

// -----

// CHECK-LABEL: func.func @transpose_compose(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[T:.*]] = tgc.transpose %[[X]] {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT:    return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = tgc.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = tgc.transpose %0 {permutation = array<i64: 2, 0, 1>} : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_compose_to_identity(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @transpose_compose_to_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tgc.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = tgc.transpose %0 {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<?x3xf32>)
// CHECK-DAG:     %[[C:.*]] = tgc.constant dense<5> : tensor<2x4xi8>
// CHECK-DAG:     %[[B:.*]] = tgc.broadcast_to %[[X]] : tensor<?x3xf32> to tensor<2x?x3xf32>
// CHECK:         return %[[X]], %[[C]], %[[B]] :
func.func @broadcast_to_fold(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<2x4xi8>, tensor<2x?x3xf32>) {
  %0 = tgc.broadcast_to %x : tensor<?x3xf32> to tensor<?x3xf32>
  %c = tgc.constant dense<5> : tensor<4xi8>
  %1 = tgc.broadcast_to %c : tensor<4xi8> to tensor<2x4xi8>
  %2 = tgc.broadcast_to %x : tensor<?x3xf32> to tensor<2x?x3xf32>
  return %0, %1, %2 : tensor<?x3xf32>, tensor<2x4xi8>, tensor<2x?x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[C:.*]] = tgc.concat %[[X]], %[[X]] {axis = 0 : i64}
// CHECK-NEXT:    return %[[X]], %[[C]] :
func.func @concat_fold(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>) {
  %0 = tgc.concat %x {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tgc.concat %x, %x {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<4x1xf32>)
// CHECK-NEXT:    %[[S:.*]] = tgc.slice %[[X]] {ends = array<i64: -9223372036854775808, 1>, starts = array<i64: 3, 0>, steps = array<i64: -1, 1>}
// CHECK-NEXT:    return %[[X]], %[[X]], %[[S]], %[[X]] :
func.func @slice_fold(%x: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %0 = tgc.slice %x {ends = array<i64: 9223372036854775807, 1>, starts = array<i64: 0, 0>} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  // A negative step over a size-1 dim still takes element 0.
  %1 = tgc.slice %x {ends = array<i64: 4, -9223372036854775808>, starts = array<i64: -4, 0>, steps = array<i64: 1, -1>} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  // Reversing dim 0 keeps the shape but is not the identity.
  %2 = tgc.slice %x {ends = array<i64: -9223372036854775808, 1>, starts = array<i64: 3, 0>, steps = array<i64: -1, 1>} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %3 = tgc.slice %x {ends = array<i64: 4, 1>, starts = array<i64: 0, 0>, steps = array<i64: 1, 5>} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  return %0, %1, %2, %3 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_slice_dynamic(
// CHECK:         %[[S:.*]] = tgc.slice
// CHECK:         return %[[S]]
func.func @no_fold_slice_dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tgc.slice %x {ends = array<i64: 9223372036854775807>, starts = array<i64: 0>} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @pad_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<2x?xf32>)
// CHECK-NEXT:    %[[P:.*]] = tgc.pad %[[X]] {high = array<i64: 1, 0>, low = array<i64: 0, 0>} : (tensor<2x?xf32>) -> tensor<3x?xf32>
// CHECK-NEXT:    return %[[X]], %[[P]] :
func.func @pad_fold(%x: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<3x?xf32>) {
  %0 = tgc.pad %x {high = array<i64: 0, 0>, low = array<i64: 0, 0>, value = 5.0 : f64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = tgc.pad %x {high = array<i64: 1, 0>, low = array<i64: 0, 0>} : (tensor<2x?xf32>) -> tensor<3x?xf32>
  return %0, %1 : tensor<2x?xf32>, tensor<3x?xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_unsqueeze_fold(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf32>)
// CHECK-DAG:     %[[U:.*]] = tgc.constant dense<{{\[\[}}1, 2, 3{{\]\]}}> : tensor<1x3xi32>
// CHECK-DAG:     %[[S:.*]] = tgc.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK:         return %[[X]], %[[X]], %[[U]], %[[S]] :
func.func @squeeze_unsqueeze_fold(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<1x3xi32>, tensor<3xi32>) {
  %0 = tgc.squeeze %x {axes = array<i64>} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = tgc.unsqueeze %x {axes = array<i64>} : (tensor<3xf32>) -> tensor<3xf32>
  %c = tgc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %2 = tgc.unsqueeze %c {axes = array<i64: 0>} : (tensor<3xi32>) -> tensor<1x3xi32>
  %3 = tgc.squeeze %2 {axes = array<i64: 0>} : (tensor<1x3xi32>) -> tensor<3xi32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<1x3xi32>, tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @squeeze_to_reshape(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x3x1xf32>, %[[Y:[^:]*]]: tensor<1x?xf32>)
// CHECK-NEXT:    %[[A:.*]] = tgc.reshape %[[X]] : tensor<1x3x1xf32> to tensor<3xf32>
// CHECK-NEXT:    %[[B:.*]] = tgc.reshape %[[Y]] : tensor<1x?xf32> to tensor<?xf32>
// CHECK-NEXT:    return %[[A]], %[[B]] :
func.func @squeeze_to_reshape(%x: tensor<1x3x1xf32>, %y: tensor<1x?xf32>) -> (tensor<3xf32>, tensor<?xf32>) {
  %0 = tgc.squeeze %x {axes = array<i64: 0, 2>} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %1 = tgc.squeeze %y {axes = array<i64: 0>} : (tensor<1x?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<3xf32>, tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @unsqueeze_to_reshape(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x?xf32>, %[[Y:[^:]*]]: tensor<?x4xf32>)
// CHECK-NEXT:    %[[A:.*]] = tgc.reshape %[[X]] : tensor<3x?xf32> to tensor<1x3x1x?xf32>
// CHECK-NEXT:    %[[B:.*]] = tgc.reshape %[[Y]] : tensor<?x4xf32> to tensor<?x4x1xf32>
// CHECK-NEXT:    return %[[A]], %[[B]] :
func.func @unsqueeze_to_reshape(%x: tensor<3x?xf32>, %y: tensor<?x4xf32>) -> (tensor<1x3x1x?xf32>, tensor<?x4x1xf32>) {
  %0 = tgc.unsqueeze %x {axes = array<i64: 0, 2>} : (tensor<3x?xf32>) -> tensor<1x3x1x?xf32>
  %1 = tgc.unsqueeze %y {axes = array<i64: 2>} : (tensor<?x4xf32>) -> tensor<?x4x1xf32>
  return %0, %1 : tensor<1x3x1x?xf32>, tensor<?x4x1xf32>
}

// -----

// Reshape allows only one dynamic dim: these stay.
// CHECK-LABEL: func.func @no_reshape_two_dynamic(
// CHECK-NEXT:    %[[U:.*]] = tgc.unsqueeze %{{.*}} {axes = array<i64: 1>} : (tensor<?x?xf32>) -> tensor<?x1x?xf32>
// CHECK-NEXT:    %[[S:.*]] = tgc.squeeze %{{.*}} {axes = array<i64: 0>} : (tensor<1x?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[U]], %[[S]] :
func.func @no_reshape_two_dynamic(%x: tensor<?x?xf32>, %y: tensor<1x?x?xf32>) -> (tensor<?x1x?xf32>, tensor<?x?xf32>) {
  %0 = tgc.unsqueeze %x {axes = array<i64: 1>} : (tensor<?x?xf32>) -> tensor<?x1x?xf32>
  %1 = tgc.squeeze %y {axes = array<i64: 0>} : (tensor<1x?x?xf32>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x1x?xf32>, tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @no_reshape_dynamic_squeezed(
// CHECK-NEXT:    %[[S:.*]] = tgc.squeeze
// CHECK-NEXT:    return %[[S]]
func.func @no_reshape_dynamic_squeezed(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  // The result has one dynamic dim but the input two: reshape could not tell
  // which one is squeezed away.
  %0 = tgc.squeeze %x {axes = array<i64: 0>} : (tensor<?x?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Reshape could not infer the dynamic dim next to a zero-size dim.
// CHECK-LABEL: func.func @no_reshape_zero_size(
// CHECK-NEXT:    %[[U:.*]] = tgc.unsqueeze
// CHECK-NEXT:    return %[[U]]
func.func @no_reshape_zero_size(%x: tensor<0x?xf32>) -> tensor<1x0x?xf32> {
  %0 = tgc.unsqueeze %x {axes = array<i64: 0>} : (tensor<0x?xf32>) -> tensor<1x0x?xf32>
  return %0 : tensor<1x0x?xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_dynamic_to_static(
// CHECK-SAME:    %[[X:.*]]: tensor<?x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgc.reshape %[[X]] : tensor<?x3xf32> to tensor<3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @squeeze_dynamic_to_static(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %0 = tgc.squeeze %x {axes = array<i64: 0>} : (tensor<?x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The unsqueeze becomes a reshape, which then merges with the next one.
// CHECK-LABEL: func.func @unsqueeze_squeeze_chain(
// CHECK-SAME:    %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgc.reshape %[[X]] : tensor<2x3xf32> to tensor<3x2xf32>
// CHECK-NEXT:    return %[[R]]
func.func @unsqueeze_squeeze_chain(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = tgc.unsqueeze %x {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
  %1 = tgc.reshape %0 : tensor<1x2x3xf32> to tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Identity folds must not drop broadcasting: a dynamic lhs dim may be 1 at
// run time while the constant has 4 elements.
// CHECK-LABEL: func.func @no_identity_fold_when_broadcasting
// CHECK: %[[R:.*]] = tgc.add %{{.*}}, %{{.*}} : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
// CHECK: return %[[R]]
func.func @no_identity_fold_when_broadcasting(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = tgc.constant dense<-0.0> : tensor<4xf32>
  %0 = tgc.add %x, %c : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @identity_fold_with_size1_constant
// CHECK-NOT: tgc.mul
// CHECK: return %arg0
func.func @identity_fold_with_size1_constant(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = tgc.constant dense<1.0> : tensor<1x1xf32>
  %0 = tgc.mul %x, %c : (tensor<?x4xf32>, tensor<1x1xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @no_select_fold_when_condition_broadcasts
// CHECK: tgc.select
func.func @no_select_fold_when_condition_broadcasts(%c: tensor<4xi1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tgc.select %c, %x, %x : (tensor<4xi1>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A reshape chain whose counts can never agree is left alone (folding it
// would produce IR that fails verification).
// CHECK-LABEL: func.func @reshape_chain_kept_when_invalid
// CHECK: tgc.reshape %{{.*}} : tensor<6xf32> to tensor<?x3xf32>
// CHECK: tgc.reshape %{{.*}} : tensor<?x3xf32> to tensor<4xf32>
func.func @reshape_chain_kept_when_invalid(%x: tensor<6xf32>) -> tensor<4xf32> {
  %0 = tgc.reshape %x : tensor<6xf32> to tensor<?x3xf32>
  %1 = tgc.reshape %0 : tensor<?x3xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_chain_kept_when_shapes_disagree
// CHECK: tgc.cast %{{.*}} : tensor<2xf16> to tensor<?xf32>
// CHECK: tgc.cast %{{.*}} : tensor<?xf32> to tensor<3xf64>
func.func @cast_chain_kept_when_shapes_disagree(%x: tensor<2xf16>) -> tensor<3xf64> {
  %0 = tgc.cast %x : tensor<2xf16> to tensor<?xf32>
  %1 = tgc.cast %0 : tensor<?xf32> to tensor<3xf64>
  return %1 : tensor<3xf64>
}

// -----

// i64 -> f32 rounds once: 2^60 + 2^36 + 1 is nearest to 2^60 + 2^37 (through
// double it would round to 2^60).
// CHECK-LABEL: func.func @cast_large_int_rounds_once
// CHECK: tgc.constant dense<1.15292164E+18> : tensor<f32>
func.func @cast_large_int_rounds_once() -> tensor<f32> {
  %c = tgc.constant dense<1152921573326323713> : tensor<i64>
  %0 = tgc.cast %c : tensor<i64> to tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Unsigned constants fold with unsigned semantics: 255 + 1 wraps to 0,
// 4294967295 / 2 is 2147483647, UINT64_MAX > 0, -1.0 casts to 0 : ui8 and
// 255 : ui8 to 255.0.
// CHECK-LABEL: func.func @fold_unsigned(
// CHECK-DAG:     %[[A:.*]] = tgc.constant dense<0> : tensor<2xui8>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<2147483647> : tensor<ui32>
// CHECK-DAG:     %[[C:.*]] = tgc.constant dense<true> : tensor<i1>
// CHECK-DAG:     %[[D:.*]] = tgc.constant dense<0> : tensor<ui8>
// CHECK-DAG:     %[[E:.*]] = tgc.constant dense<2.550000e+02> : tensor<f32>
// CHECK-DAG:     %[[F:.*]] = tgc.constant dense<18446744073709551615> : tensor<ui64>
// CHECK-DAG:     %[[G:.*]] = tgc.constant dense<128> : tensor<ui8>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]]
func.func @fold_unsigned() -> (tensor<2xui8>, tensor<ui32>, tensor<i1>, tensor<ui8>, tensor<f32>, tensor<ui64>, tensor<ui8>) {
  %a = tgc.constant dense<255> : tensor<2xui8>
  %one = tgc.constant dense<1> : tensor<2xui8>
  %0 = tgc.add %a, %one : tensor<2xui8>
  %b = tgc.constant dense<4294967295> : tensor<ui32>
  %two = tgc.constant dense<2> : tensor<ui32>
  %1 = tgc.div %b, %two : tensor<ui32>
  %max = tgc.constant dense<18446744073709551615> : tensor<ui64>
  %zero = tgc.constant dense<0> : tensor<ui64>
  %2 = tgc.compare gt, %max, %zero : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
  %m1 = tgc.constant dense<-1.0> : tensor<f32>
  %3 = tgc.cast %m1 : tensor<f32> to tensor<ui8>
  %u = tgc.constant dense<255> : tensor<ui8>
  %4 = tgc.cast %u : tensor<ui8> to tensor<f32>
  %5 = tgc.max %max, %zero : tensor<ui64>
  %s = tgc.constant dense<1> : tensor<ui8>
  %seven = tgc.constant dense<7> : tensor<ui8>
  %6 = tgc.shift_left %s, %seven : tensor<ui8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2xui8>, tensor<ui32>, tensor<i1>, tensor<ui8>, tensor<f32>, tensor<ui64>, tensor<ui8>
}

// -----

// A ui8 -> i16 cast is exact (zero extension), so a following cast composes;
// i8 -> ui8 is not (it wraps negatives).
// CHECK-LABEL: func.func @unsigned_cast_chains(
// CHECK-SAME:    %[[X:.*]]: tensor<4xui8>, %[[Y:.*]]: tensor<4xi8>)
// CHECK:         %[[A:.*]] = tgc.cast %[[X]] : tensor<4xui8> to tensor<4xf32>
// CHECK:         %[[B:.*]] = tgc.cast %[[Y]] : tensor<4xi8> to tensor<4xui8>
// CHECK:         %[[C:.*]] = tgc.cast %[[B]] : tensor<4xui8> to tensor<4xf32>
// CHECK:         return %[[A]], %[[C]]
func.func @unsigned_cast_chains(%x: tensor<4xui8>, %y: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tgc.cast %x : tensor<4xui8> to tensor<4xi16>
  %1 = tgc.cast %0 : tensor<4xi16> to tensor<4xf32>
  %2 = tgc.cast %y : tensor<4xi8> to tensor<4xui8>
  %3 = tgc.cast %2 : tensor<4xui8> to tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// shape_of of a static tensor folds; shape arithmetic on constants (gather,
// mul, unsqueeze, concat, slice) folds; dynamic_reshape with a constant shape
// that agrees with its declared type becomes reshape (copy_zeros: 0 keeps the
// input's dim).
// CHECK-LABEL: func.func @fold_shape_arithmetic(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16x64xf32>)
// CHECK-NEXT:    %[[C:.*]] = tgc.constant dense<[16, 64]> : tensor<2xi64>
// CHECK-NEXT:    %[[R:.*]] = tgc.reshape %[[X]] : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
// CHECK-NEXT:    return %[[R]], %[[C]]
func.func @fold_shape_arithmetic(%x: tensor<2x16x64xf32>) -> (tensor<2x16x4x16xf32>, tensor<2xi64>) {
  %s = tgc.shape_of %x : tensor<2x16x64xf32> -> tensor<3xi64>
  %i = tgc.constant dense<0> : tensor<i64>
  %b = tgc.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %one = tgc.constant dense<1> : tensor<i64>
  %b1 = tgc.mul %b, %one : tensor<i64>
  %u = tgc.unsqueeze %b1 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %rest = tgc.constant dense<[0, 4, 16]> : tensor<3xi64>
  %shape = tgc.concat %u, %rest {axis = 0 : i64} : (tensor<1xi64>, tensor<3xi64>) -> tensor<4xi64>
  %y = tgc.dynamic_reshape %x, %shape copy_zeros : (tensor<2x16x64xf32>, tensor<4xi64>) -> tensor<2x16x4x16xf32>
  %tail = tgc.slice %s {starts = array<i64: 1>, ends = array<i64: 3>} : (tensor<3xi64>) -> tensor<2xi64>
  return %y, %tail : tensor<2x16x4x16xf32>, tensor<2xi64>
}

// -----

// Shapes only known at run time stay: shape_of of a dynamic tensor, and a
// dynamic_reshape whose declared type has more than one dynamic dim.
// CHECK-LABEL: func.func @keep_dynamic_shapes(
// CHECK:         tgc.shape_of
// CHECK:         tgc.dynamic_reshape
// CHECK-NOT:     tgc.reshape
func.func @keep_dynamic_shapes(%x: tensor<?x?x64xf32>) -> tensor<?x?x4x16xf32> {
  %s = tgc.shape_of %x : tensor<?x?x64xf32> -> tensor<3xi64>
  %head = tgc.slice %s {starts = array<i64: 0>, ends = array<i64: 2>} : (tensor<3xi64>) -> tensor<2xi64>
  %rest = tgc.constant dense<[4, 16]> : tensor<2xi64>
  %shape = tgc.concat %head, %rest {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  %y = tgc.dynamic_reshape %x, %shape : (tensor<?x?x64xf32>, tensor<4xi64>) -> tensor<?x?x4x16xf32>
  return %y : tensor<?x?x4x16xf32>
}

// -----

// Out-of-range constant gathers are left for the run-time error.
// CHECK-LABEL: func.func @gather_out_of_range_not_folded(
// CHECK:         tgc.gather
func.func @gather_out_of_range_not_folded() -> tensor<i64> {
  %t = tgc.constant dense<[1, 2, 3]> : tensor<3xi64>
  %i = tgc.constant dense<5> : tensor<i64>
  %0 = tgc.gather %t, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// A transpose that moves the innermost dim into a matmul operand becomes a
// row-moving transpose and the matmul's transpose flag (attention's keys:
// [S, H, D] -> [H, D, S] is [H, S, D] transposed).
// CHECK-LABEL: func.func @transpose_into_matmul_rhs(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x8xf32>, %[[K:.*]]: tensor<4x2x8xf32>)
// CHECK:         %[[T:.*]] = tgc.transpose %[[K]] {permutation = array<i64: 1, 0, 2>} : (tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[M:.*]] = tgc.matmul %[[Q]], %[[T]] {transpose_b} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT:    return %[[M]]
func.func @transpose_into_matmul_rhs(%q: tensor<2x4x8xf32>, %k: tensor<4x2x8xf32>) -> tensor<2x4x4xf32> {
  %kt = tgc.transpose %k {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x8xf32>) -> tensor<2x8x4xf32>
  %s = tgc.matmul %q, %kt : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  return %s : tensor<2x4x4xf32>
}

// -----

// Swapping the last two dims of a matmul operand is its transpose flag: the
// transpose disappears (here the flag was set: it is cleared).
// CHECK-LABEL: func.func @transpose_into_matmul_lhs(
// CHECK-SAME:    %[[A:.*]]: tensor<3x5xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK-NOT:     tgc.transpose
// CHECK:         %[[M:.*]] = tgc.matmul %[[A]], %[[B]] {transpose_a} : (tensor<3x5xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
func.func @transpose_into_matmul_lhs(%a: tensor<3x5xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %at = tgc.transpose %a {permutation = array<i64: 1, 0>} : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %m = tgc.matmul %at, %b : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %m : tensor<5x4xf32>
}

// -----

// Not when the transpose has another user, nor when the swap would not keep
// the innermost dim innermost.
// CHECK-LABEL: func.func @transpose_into_matmul_negative(
// CHECK:         tgc.transpose %{{.*}} {permutation = array<i64: 1, 0>}
// CHECK:         tgc.matmul %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3x4xf32>)
// CHECK:         tgc.transpose %{{.*}} {permutation = array<i64: 2, 0, 1>}
// CHECK:         tgc.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<2x8x4xf32>)
func.func @transpose_into_matmul_negative(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %q: tensor<2x4x8xf32>, %k: tensor<8x4x2xf32>) -> (tensor<4x4xf32>, tensor<4x3xf32>, tensor<2x4x4xf32>) {
  %at = tgc.transpose %a {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %m = tgc.matmul %at, %b : (tensor<4x3xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
  %kt = tgc.transpose %k {permutation = array<i64: 2, 0, 1>} : (tensor<8x4x2xf32>) -> tensor<2x8x4xf32>
  %s = tgc.matmul %q, %kt : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  return %m, %at, %s : tensor<4x4xf32>, tensor<4x3xf32>, tensor<2x4x4xf32>
}

// -----

// Integer reductions of constants fold (shape arithmetic: the element count
// of a shape), wrapping; float ones and reduce_mean do not.
// CHECK-LABEL: func.func @fold_integer_reductions(
// CHECK-DAG:     %[[PROD:.*]] = tgc.constant dense<24> : tensor<1xi64>
// CHECK-DAG:     %[[SUM:.*]] = tgc.constant dense<[5, 7, 9]> : tensor<3xi32>
// CHECK-DAG:     %[[MAX:.*]] = tgc.constant dense<[3, 6]> : tensor<2xi32>
// CHECK-DAG:     %[[MIN:.*]] = tgc.constant dense<{{\[\[}}-128], [7]]> : tensor<2x1xi8>
// CHECK-DAG:     %[[WRAP:.*]] = tgc.constant dense<0> : tensor<i8>
// CHECK-DAG:     %[[UMAX:.*]] = tgc.constant dense<200> : tensor<ui8>
// CHECK:         %[[F:.*]] = tgc.reduce_sum %{{.*}} {axes = array<i64: 0>}
// CHECK:         return %[[PROD]], %[[SUM]], %[[MAX]], %[[MIN]], %[[WRAP]], %[[UMAX]], %[[F]]
func.func @fold_integer_reductions() -> (tensor<1xi64>, tensor<3xi32>, tensor<2xi32>, tensor<2x1xi8>, tensor<i8>, tensor<ui8>, tensor<f32>) {
  %s = tgc.constant dense<[2, 3, 4]> : tensor<3xi64>
  %prod = tgc.reduce_prod %s {axes = array<i64: 0>, keepdims} : (tensor<3xi64>) -> tensor<1xi64>
  %m = tgc.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %sum = tgc.reduce_sum %m {axes = array<i64: 0>} : (tensor<2x3xi32>) -> tensor<3xi32>
  %max = tgc.reduce_max %m {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2xi32>
  %b = tgc.constant dense<[[-128, 7], [4, 127]]> : tensor<2x2xi8>
  %min = tgc.reduce_min %b {axes = array<i64: 0>, keepdims} : (tensor<2x2xi8>) -> tensor<1x2xi8>
  %minT = tgc.reshape %min : tensor<1x2xi8> to tensor<2x1xi8>
  %w = tgc.constant dense<[128, 128]> : tensor<2xi8>
  %wrap = tgc.reduce_sum %w {axes = array<i64: 0>} : (tensor<2xi8>) -> tensor<i8>
  %u = tgc.constant dense<[200, 7]> : tensor<2xui8>
  %umax = tgc.reduce_max %u {axes = array<i64: 0>} : (tensor<2xui8>) -> tensor<ui8>
  %f = tgc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %fs = tgc.reduce_sum %f {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<f32>
  return %prod, %sum, %max, %minT, %wrap, %umax, %fs : tensor<1xi64>, tensor<3xi32>, tensor<2xi32>, tensor<2x1xi8>, tensor<i8>, tensor<ui8>, tensor<f32>
}

// -----

// A fusion of constants is inlined, and its ops fold.
// CHECK-LABEL: func.func @fusion_of_constants(
// CHECK-NOT:     tgc.fusion
// CHECK:         %[[C:.*]] = tgc.constant dense<6> : tensor<1xi64>
// CHECK:         return %[[C]]
func.func @fusion_of_constants() -> tensor<1xi64> {
  %s = tgc.constant dense<[2, 3]> : tensor<2xi64>
  %0 = tgc.fusion <loop> (%s) : (tensor<2xi64>) -> tensor<1xi64> {
  ^bb0(%b: tensor<2xi64>):
    %p = tgc.reduce_prod %b {axes = array<i64: 0>, keepdims} : (tensor<2xi64>) -> tensor<1xi64>
    tgc.yield %p : tensor<1xi64>
  }
  return %0 : tensor<1xi64>
}

// -----

// An if of a constant condition is the branch it picks.
// CHECK-LABEL: func.func @if_of_constant_condition(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NOT:     tgc.if
// CHECK:         %[[S:.*]] = tgc.sub %[[X]], %[[Y]]
// CHECK-NEXT:    return %[[S]]
func.func @if_of_constant_condition(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %p = tgc.constant dense<false> : tensor<1xi1>
  %r = tgc.if %p (%x, %y) : tensor<1xi1>, (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = tgc.add %a, %b : tensor<4xf32>
    tgc.yield %s : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = tgc.sub %a, %b : tensor<4xf32>
    tgc.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Constant inputs go into the branches (where their ops fold); inputs
// neither branch reads are dropped.
// CHECK-LABEL: func.func @if_inputs(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<i1>, %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK:         tgc.if %[[P]](%[[X]]) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[C:.*]] = tgc.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-NEXT:      %[[S:.*]] = tgc.add %[[A]], %[[C]]
// CHECK-NEXT:      tgc.yield %[[S]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:    ^bb0(%[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT:      tgc.yield %[[B]]
func.func @if_inputs(%p: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %one = tgc.constant dense<1.0> : tensor<4xf32>
  %two = tgc.constant dense<2.0> : tensor<4xf32>
  %r = tgc.if %p (%x, %one, %y, %two) : tensor<i1>, (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>):
    %e = tgc.add %b, %d : tensor<4xf32>
    %s = tgc.add %a, %e : tensor<4xf32>
    tgc.yield %s : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>):
    tgc.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A loop whose condition is false from the start is its initial values.
// CHECK-LABEL: func.func @while_never_runs(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>)
// CHECK-NOT:     tgc.while
// CHECK:         return %[[X]]
func.func @while_never_runs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tgc.while (%x) : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>):
    %f = tgc.constant dense<false> : tensor<i1>
    tgc.yield %f : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>):
    %s = tgc.add %a, %a : tensor<4xf32>
    tgc.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Loop-invariant code motion: what the body computes from captures alone
// moves before the loop (its result is a capture); unused captures go.
// CHECK-LABEL: func.func @while_invariants(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>, %[[W:[^:]+]]: tensor<4xf32>, %[[U:[^:]+]]: tensor<4xf32>)
// CHECK:         %[[E:.*]] = tgc.exp %[[W]] : tensor<4xf32>
// CHECK-NEXT:    %[[L:.*]] = tgc.while(%[[X]]) captures(%[[E]] : tensor<4xf32>) : (tensor<4xf32>) -> tensor<4xf32> cond {
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4xf32>, %[[F:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[M:.*]] = tgc.mul %[[A]], %[[F]]
// CHECK-NEXT:      tgc.yield %[[M]]
func.func @while_invariants(%x: tensor<4xf32>, %w: tensor<4xf32>, %unused: tensor<4xf32>) -> tensor<4xf32> {
  %r = tgc.while (%x) captures(%w, %unused : tensor<4xf32>, tensor<4xf32>) : (tensor<4xf32>) -> tensor<4xf32> cond {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>):
    %s = tgc.reduce_sum %a {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
    %lim = tgc.constant dense<100.0> : tensor<f32>
    %go = tgc.compare lt, %s, %lim : (tensor<f32>, tensor<f32>) -> tensor<i1>
    tgc.yield %go : tensor<i1>
  } do {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>):
    %e = tgc.exp %b : tensor<4xf32>
    %m = tgc.mul %a, %e : tensor<4xf32>
    tgc.yield %m : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A branch that yields a more static type than the if's result (an ONNX If
// whose branches give different shapes) inlines with a tensor.cast.
// CHECK-LABEL: func.func @if_of_constant_condition_relaxed(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?xi64>)
// CHECK-NOT:     tgc.if
// CHECK:         %[[E:.*]] = tgc.constant dense<> : tensor<0xi64>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[E]] : tensor<0xi64> to tensor<?xi64>
// CHECK-NEXT:    return %[[C]]
func.func @if_of_constant_condition_relaxed(%x: tensor<?xi64>) -> tensor<?xi64> {
  %p = tgc.constant dense<true> : tensor<i1>
  %r = tgc.if %p (%x) : tensor<i1>, (tensor<?xi64>) -> tensor<?xi64> {
  ^bb0(%a: tensor<?xi64>):
    %e = tgc.constant dense<> : tensor<0xi64>
    tgc.yield %e : tensor<0xi64>
  } else {
  ^bb0(%a: tensor<?xi64>):
    tgc.yield %a : tensor<?xi64>
  }
  return %r : tensor<?xi64>
}


// -----

// dynamic_broadcast_to of a constant shape is a broadcast_to (ONNX Expand,
// bidirectional: the given 1 keeps the input's 3), or the input itself.
// CHECK-LABEL: func.func @dynamic_broadcast_to_constant(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<3x1xf32>)
// CHECK-NOT:     tgc.dynamic_broadcast_to
// CHECK:         %[[B:.*]] = tgc.broadcast_to %[[X]] : tensor<3x1xf32> to tensor<2x3x4xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[B]] : tensor<2x3x4xf32> to tensor<?x3x?xf32>
// CHECK-NEXT:    return %[[C]], %[[X]]
func.func @dynamic_broadcast_to_constant(%x: tensor<3x1xf32>) -> (tensor<?x3x?xf32>, tensor<3x1xf32>) {
  %s = tgc.constant dense<[2, 1, 4]> : tensor<3xi64>
  %y = tgc.dynamic_broadcast_to %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x3x?xf32>
  %same = tgc.constant dense<[3, 1]> : tensor<2xi64>
  %z = tgc.dynamic_broadcast_to %x, %same : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x1xf32>
  return %y, %z : tensor<?x3x?xf32>, tensor<3x1xf32>
}

// -----

// dynamic_slice with constant bounds is a slice: the same numpy clamping on
// the sliced axis (a negative end counts from the end), the other dims
// whole; a step of 0 is left to its run-time error.
// CHECK-LABEL: func.func @dynamic_slice_constant(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x10xf32>
// CHECK:         %[[S:.*]] = tgc.slice %[[X]] {ends = array<i64: 9223372036854775807, -2>, starts = array<i64: 0, 1>, steps = array<i64: 1, 3>} : (tensor<4x10xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.cast %[[S]] : tensor<4x3xf32> to tensor<4x?xf32>
// CHECK:         %[[Z:.*]] = tgc.dynamic_slice %[[X]]
// CHECK:         return %[[C]], %[[Z]]
func.func @dynamic_slice_constant(%x: tensor<4x10xf32>, %n: tensor<1xi64>) -> (tensor<4x?xf32>, tensor<4x?xf32>) {
  %s = tgc.constant dense<1> : tensor<1xi64>
  %e = tgc.constant dense<-2> : tensor<1xi64>
  %st = tgc.constant dense<3> : tensor<1xi64>
  %y = tgc.dynamic_slice %x, %s, %e, %st {axes = array<i64: 1>} : (tensor<4x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x?xf32>
  %zero = tgc.constant dense<0> : tensor<1xi64>
  %z = tgc.dynamic_slice %x, %s, %e, %zero {axes = array<i64: 1>} : (tensor<4x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x?xf32>
  return %y, %z : tensor<4x?xf32>, tensor<4x?xf32>
}

// -----

// A sorted topk whose results only feed slices of the same first 3
// elements along its axis is a topk with k = 3 (ONNX TopK with a run-time K
// once K is known: a sort, then the first K).
// CHECK-LABEL: func.func @topk_of_prefix(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x10xf32>
// CHECK:         %[[V:.*]], %[[I:.*]] = tgc.topk %[[X]] {axis = 1 : i64, k = 3 : i64, largest = false} : (tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK-NOT:     tgc.slice
// CHECK:         return %[[V]], %[[I]]
func.func @topk_of_prefix(%x: tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = tgc.topk %x {axis = 1 : i64, k = -1 : i64, largest = false} : (tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xi64>)
  %a = tgc.slice %v {starts = array<i64: 0, 0>, ends = array<i64: 2, 3>} : (tensor<2x10xf32>) -> tensor<2x3xf32>
  %b = tgc.slice %i {starts = array<i64: 0, 0>, ends = array<i64: 9223372036854775807, 3>} : (tensor<2x10xi64>) -> tensor<2x3xi64>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// Not when the slices keep different prefixes, when a result has another
// user, or when the topk is unsorted (its first c need not be the best c).
// CHECK-LABEL: func.func @topk_of_prefix_kept(
// CHECK-COUNT-3: k = 5 : i64
// CHECK-NOT:     k = 2 : i64
func.func @topk_of_prefix_kept(%x: tensor<10xf32>) -> (tensor<2xf32>, tensor<3xi64>, tensor<2xf32>, tensor<5xi64>, tensor<2xf32>) {
  %v, %i = tgc.topk %x {axis = 0 : i64, k = 5 : i64} : (tensor<10xf32>) -> (tensor<5xf32>, tensor<5xi64>)
  %a = tgc.slice %v {starts = array<i64: 0>, ends = array<i64: 2>} : (tensor<5xf32>) -> tensor<2xf32>
  %b = tgc.slice %i {starts = array<i64: 0>, ends = array<i64: 3>} : (tensor<5xi64>) -> tensor<3xi64>
  %v2, %i2 = tgc.topk %x {axis = 0 : i64, k = 5 : i64} : (tensor<10xf32>) -> (tensor<5xf32>, tensor<5xi64>)
  %c = tgc.slice %v2 {starts = array<i64: 0>, ends = array<i64: 2>} : (tensor<5xf32>) -> tensor<2xf32>
  %v3, %i3 = tgc.topk %x {axis = 0 : i64, k = 5 : i64, sorted = false} : (tensor<10xf32>) -> (tensor<5xf32>, tensor<5xi64>)
  %d = tgc.slice %v3 {starts = array<i64: 0>, ends = array<i64: 2>} : (tensor<5xf32>) -> tensor<2xf32>
  return %a, %b, %c, %i2, %d : tensor<2xf32>, tensor<3xi64>, tensor<2xf32>, tensor<5xi64>, tensor<2xf32>
}

// -----

// A reduction over dims of size 1 is a squeeze of them (here a reshape: one
// dynamic dim), the input itself with keepdims; over a larger dim it stays.
// CHECK-LABEL: func.func @reduce_of_unit_dims(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x1xi64>, %[[Y:[^:]+]]: tensor<2x1x3xbf16>
// CHECK-NEXT:    %[[S:.*]] = tgc.reshape %[[X]] : tensor<?x1xi64> to tensor<?xi64>
// CHECK-NEXT:    %[[M:.*]] = tgc.reduce_mean %[[Y]] {axes = array<i64: 1, 2>}
// CHECK-NEXT:    return %[[S]], %[[Y]], %[[M]]
func.func @reduce_of_unit_dims(%x: tensor<?x1xi64>, %y: tensor<2x1x3xbf16>) -> (tensor<?xi64>, tensor<2x1x3xbf16>, tensor<2xbf16>) {
  %s = tgc.reduce_sum %x {axes = array<i64: 1>} : (tensor<?x1xi64>) -> tensor<?xi64>
  %k = tgc.reduce_max %y {axes = array<i64: 1>, keepdims} : (tensor<2x1x3xbf16>) -> tensor<2x1x3xbf16>
  %m = tgc.reduce_mean %y {axes = array<i64: 1, 2>} : (tensor<2x1x3xbf16>) -> tensor<2xbf16>
  return %s, %k, %m : tensor<?xi64>, tensor<2x1x3xbf16>, tensor<2xbf16>
}

// -----

// nonzero of a constant is the constant of its coordinates (NaN counts as
// nonzero), cast to the declared type; of an argument it stays.
// CHECK-LABEL: func.func @nonzero_constant(
// CHECK-DAG:     %[[C:.*]] = tgc.constant dense<{{\[\[}}0, 1, 1], [1, 0, 2]]> : tensor<2x3xi64>
// CHECK-DAG:     %[[F:.*]] = tensor.cast %[[C]] : tensor<2x3xi64> to tensor<2x?xi64>
// CHECK-DAG:     %[[T:.*]] = tgc.constant dense<{{\[\[}}0, 1, 2, 3]]> : tensor<1x4xi64>
// CHECK-DAG:     %[[A:.*]] = tgc.nonzero %arg0
// CHECK:         return %[[F]], %{{.*}}, %[[A]]
func.func @nonzero_constant(%x: tensor<3xi1>) -> (tensor<2x?xi64>, tensor<1x?xi64>, tensor<1x?xi64>) {
  %c = tgc.constant dense<[[0.0, 2.0, 0.0], [-1.0, 0.0, 0x7FC00000]]> : tensor<2x3xf32>
  %n = tgc.nonzero %c : (tensor<2x3xf32>) -> tensor<2x?xi64>
  %t = tgc.constant dense<true> : tensor<4xi1>
  %m = tgc.nonzero %t : (tensor<4xi1>) -> tensor<1x?xi64>
  %a = tgc.nonzero %x : (tensor<3xi1>) -> tensor<1x?xi64>
  return %n, %m, %a : tensor<2x?xi64>, tensor<1x?xi64>, tensor<1x?xi64>
}
