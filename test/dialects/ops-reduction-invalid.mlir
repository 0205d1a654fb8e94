// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the reductions and arg-reductions.

func.func @reduce_empty_axes(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{'tgc.reduce_sum' op axes must name at least one dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.reduce_sum %x {axes = array<i64>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @reduce_unsorted_axes(%x: tensor<4x5xf32>) -> tensor<f32> {
  // expected-error @+2 {{'tgc.reduce_mean' op axes must be strictly increasing and in [0, 2) for input 4x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.reduce_mean %x {axes = array<i64: 1, 0>} : (tensor<4x5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_duplicate_axes(%x: tensor<4x5xi32>) -> tensor<4xi32> {
  // expected-error @+2 {{'tgc.reduce_max' op axes must be strictly increasing and in [0, 2) for input 4x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.reduce_max %x {axes = array<i64: 1, 1>} : (tensor<4x5xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @reduce_axis_out_of_range(%x: tensor<4x?xi8>) -> tensor<4xi8> {
  // expected-error @+2 {{'tgc.reduce_min' op axes must be strictly increasing and in [0, 2) for input 4x?}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.reduce_min %x {axes = array<i64: 2>} : (tensor<4x?xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @reduce_negative_axis(%x: tensor<4x5xi64>) -> tensor<4xi64> {
  // expected-error @+2 {{'tgc.reduce_prod' op axes must be strictly increasing and in [0, 2) for input 4x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.reduce_prod %x {axes = array<i64: -1>} : (tensor<4x5xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @reduce_rank_0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{'tgc.reduce_sum' op axes must be strictly increasing and in [0, 0) for input scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.reduce_sum %x {axes = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_missing_keepdims(%x: tensor<4x5xf32>) -> tensor<4x1xf32> {
  // expected-error @+2 {{'tgc.reduce_sum' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.reduce_sum %x {axes = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @reduce_mean_int(%x: tensor<4x5xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tgc.reduce_mean' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4x5xi32>'}}
  %0 = tgc.reduce_mean %x {axes = array<i64: 1>} : (tensor<4x5xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @reduce_sum_bool(%x: tensor<4xi1>) -> tensor<i1> {
  // expected-error @+1 {{'tgc.reduce_sum' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<4xi1>'}}
  %0 = tgc.reduce_sum %x {axes = array<i64: 0>} : (tensor<4xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @reduce_axes_type(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.reduce_sum' op attribute 'axes' failed to satisfy constraint: i64 dense array attribute}}
  %0 = tgc.reduce_sum %x {axes = array<i32: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @argmax_axis_out_of_range(%x: tensor<4x10xf32>) -> tensor<4xi64> {
  // expected-error @+2 {{'tgc.argmax' op axis 2 is out of range [0, 2) for input 4x10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.argmax %x {axis = 2 : i64} : (tensor<4x10xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @argmin_negative_axis(%x: tensor<4x10xf32>) -> tensor<4xi64> {
  // expected-error @+2 {{'tgc.argmin' op axis -1 is out of range [0, 2) for input 4x10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.argmin %x {axis = -1 : i64} : (tensor<4x10xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @argmax_rank_0(%x: tensor<f32>) -> tensor<i64> {
  // expected-error @+2 {{'tgc.argmax' op axis 0 is out of range [0, 0) for input scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.argmax %x {axis = 0 : i64} : (tensor<f32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @argmax_result_i32(%x: tensor<4x10xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tgc.argmax' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = tgc.argmax %x {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @argmax_missing_keepdims(%x: tensor<4x10xf32>) -> tensor<4x1xi64> {
  // expected-error @+2 {{'tgc.argmax' op inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<4x1xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.argmax %x {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4x1xi64>
  return %0 : tensor<4x1xi64>
}

// -----

func.func @argmin_bool(%x: tensor<4xi1>) -> tensor<i64> {
  // expected-error @+1 {{'tgc.argmin' op operand #0 must be ranked tensor of}}
  %0 = tgc.argmin %x {axis = 0 : i64} : (tensor<4xi1>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @argmax_missing_axis(%x: tensor<4xf32>) -> tensor<i64> {
  // expected-error @+1 {{'tgc.argmax' op requires attribute 'axis'}}
  %0 = tgc.argmax %x : (tensor<4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @topk_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{'tgc.topk' op input must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = tgc.topk %x {axis = 0 : i64, k = 1 : i64} : (tensor<f32>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

func.func @topk_axis(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'tgc.topk' op axis 2 is out of range [0, 2) for input 4x10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = tgc.topk %x {axis = 2 : i64, k = 1 : i64} : (tensor<4x10xf32>) -> (tensor<4x1xf32>, tensor<4x1xi64>)
  return
}

// -----

func.func @topk_negative_k(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'tgc.topk' op k must be -1 (every element) or non-negative, got -2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = tgc.topk %x {axis = 1 : i64, k = -2 : i64} : (tensor<4x10xf32>) -> (tensor<4x1xf32>, tensor<4x1xi64>)
  return
}

// -----

func.func @topk_k_too_big(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'tgc.topk' op k = 5 exceeds dim 0 of size 4 in input 4x10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = tgc.topk %x {axis = 0 : i64, k = 5 : i64} : (tensor<4x10xf32>) -> (tensor<5x10xf32>, tensor<5x10xi64>)
  return
}

// -----

func.func @topk_indices_type(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'tgc.topk' op result #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4x3xi32>'}}
  %0, %1 = tgc.topk %x {axis = 1 : i64, k = 3 : i64} : (tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x3xi32>)
  return
}

// -----

func.func @topk_result_mismatch(%x: tensor<4x10xf32>) {
  // expected-error @+2 {{'tgc.topk' op inferred type(s) 'tensor<4x3xf32>', 'tensor<4x3xi64>' are incompatible with return type(s) of operation 'tensor<4x2xf32>', 'tensor<4x2xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = tgc.topk %x {axis = 1 : i64, k = 3 : i64} : (tensor<4x10xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  return
}
