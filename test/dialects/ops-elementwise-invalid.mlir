// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of constants, casts and the elementwise ops.

func.func @constant_not_dense() -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.constant' op value must be a dense or dense_resource elements attribute, got sparse<0, 1.000000e+00> : tensor<4xf32>}}
  %0 = tgc.constant sparse<[[0]], [1.0]> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_type_mismatch() -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "tgc.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_signed() -> tensor<4xsi8> {
  // expected-error @+1 {{'tgc.constant' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<4xsi8>'}}
  %0 = tgc.constant dense<1> : tensor<4xsi8>
  return %0 : tensor<4xsi8>
}

// -----

func.func @constant_overflowing_splat() -> tensor<9223372036854775807x4xf32> {
  // expected-error @+1 {{'tgc.constant' op result #0 has shape 9223372036854775807x4 whose element count overflows int64}}
  %0 = tgc.constant dense<1.0> : tensor<9223372036854775807x4xf32>
  return %0 : tensor<9223372036854775807x4xf32>
}

// -----

func.func @cast_rank_mismatch(%x: tensor<4xf32>) -> tensor<4x1xi32> {
  // expected-error @+1 {{'tgc.cast' op result rank 2 differs from input rank 1}}
  %0 = tgc.cast %x : tensor<4xf32> to tensor<4x1xi32>
  return %0 : tensor<4x1xi32>
}

// -----

func.func @cast_shape_mismatch(%x: tensor<2x?x4xf32>) -> tensor<2x3x5xf16> {
  // expected-error @+1 {{'tgc.cast' op result shape 2x3x5 is incompatible with input shape 2x?x4 (dim 2)}}
  %0 = tgc.cast %x : tensor<2x?x4xf32> to tensor<2x3x5xf16>
  return %0 : tensor<2x3x5xf16>
}

// -----

func.func @cast_complex(%x: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'tgc.cast' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<4xcomplex<f32>>'}}
  %0 = tgc.cast %x : tensor<4xf32> to tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @cast_operand_element_type(%x: tensor<4xi4>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.cast' op operand #0 must be ranked tensor of}}
  %0 = tgc.cast %x : tensor<4xi4> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @exp_on_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tgc.exp' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = tgc.exp %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @neg_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'tgc.neg' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<4xi1>'}}
  %0 = tgc.neg %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @logical_not_on_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.logical_not' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = tgc.logical_not %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unary_signed(%x: tensor<4xsi8>) -> tensor<4xsi8> {
  // expected-error @+1 {{'tgc.abs' op operand #0 must be ranked tensor of}}
  %0 = tgc.abs %x : tensor<4xsi8>
  return %0 : tensor<4xsi8>
}

// -----

func.func @shift_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.shift_left' op operand #0 must be ranked tensor of 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<4xf32>'}}
  %0 = tgc.shift_left %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shift_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'tgc.shift_right' op operand #0 must be ranked tensor of}}
  %0 = tgc.shift_right %x, %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @shift_mixed_signedness(%x: tensor<4xui8>, %y: tensor<4xi8>) -> tensor<4xui8> {
  // expected-error @+1 {{'tgc.shift_left' op}}
  %0 = tgc.shift_left %x, %y : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @unary_type_mismatch(%x: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+2 {{'tgc.sqrt' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<?xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tgc.sqrt"(%x) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @leaky_relu_alpha_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.leaky_relu' op attribute 'alpha' failed to satisfy constraint: 64-bit float attribute}}
  %0 = tgc.leaky_relu %x {alpha = 0.1 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_min_exceeds_max(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.clamp' op min (2.000000e+00) must not exceed max (1.000000e+00)}}
  %0 = tgc.clamp %x {max = 1.0 : f64, min = 2.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_nan(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tgc.clamp' op min and max must not be NaN}}
  %0 = tgc.clamp %x {max = 0x7FF8000000000000 : f64, min = 0.0 : f64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @clamp_missing_bound(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.clamp' op requires attribute 'max'}}
  %0 = tgc.clamp %x {min = 0.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @binary_element_types(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{'tgc.add' op lhs and rhs must have the same element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.add %x, %y : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @binary_not_broadcastable(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'tgc.mul' op operand shapes 2x3, 4 are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.mul %x, %y : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @binary_result_mismatch(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<3x3xf32> {
  // expected-error @+2 {{'tgc.sub' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.sub %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @binary_result_rank(%x: tensor<3xf32>) -> tensor<1x3xf32> {
  // expected-error @+2 {{'tgc.max' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<1x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @binary_result_element_type(%x: tensor<3xi32>) -> tensor<3xi1> {
  // expected-error @+1 {{'tgc.min' op result #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<3xi1>'}}
  %0 = tgc.min %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @binary_result_element_type_valid_category(%x: tensor<3xi32>) -> tensor<3xi64> {
  // expected-error @+2 {{'tgc.pow' op inferred type(s) 'tensor<3xi32>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.pow %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @logical_and_on_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.logical_and' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = tgc.logical_and %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @div_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'tgc.div' op operand #0 must be ranked tensor of}}
  %0 = tgc.div %x, %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_lt_on_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{'tgc.compare' op predicate 'lt' is not defined for i1 operands (only eq and ne are)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.compare lt, %x, %x : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_ge_on_bool(%x: tensor<4xi1>, %y: tensor<i1>) -> tensor<4xi1> {
  // expected-error @+2 {{'tgc.compare' op predicate 'ge' is not defined for i1 operands (only eq and ne are)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.compare ge, %x, %y : (tensor<4xi1>, tensor<i1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_element_types(%x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xi1> {
  // expected-error @+2 {{'tgc.compare' op lhs and rhs must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.compare eq, %x, %y : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_not_broadcastable(%x: tensor<4xi8>, %y: tensor<5xi8>) -> tensor<4xi1> {
  // expected-error @+2 {{'tgc.compare' op operand shapes 4, 5 are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.compare eq, %x, %y : (tensor<4xi8>, tensor<5xi8>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_result_not_bool(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.compare' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = tgc.compare eq, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @compare_unknown_predicate(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{custom op 'tgc.compare' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = tgc.compare lte, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @select_value_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf64>) -> tensor<4xf32> {
  // expected-error @+2 {{'tgc.select' op true_value and false_value must have the same element type, got 'f32' and 'f64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.select %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @select_condition_not_bool(%c: tensor<4xi8>, %x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'tgc.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = tgc.select %c, %x, %x : (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @select_not_broadcastable(%c: tensor<3xi1>, %x: tensor<2x1xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'tgc.select' op operand shapes 3, 2x1, 4 are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.select %c, %x, %y : (tensor<3xi1>, tensor<2x1xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gelu_bad_approximation(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::tgc::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Tgc_GeluApproximationAttr parameter 'value' which is to be a `::tgc::GeluApproximation`}}
  %0 = tgc.gelu %x {approximate = #tgc.gelu_approximation<sigmoid>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @operand_overflowing_shape(%x: tensor<9223372036854775807x4xf32>) -> tensor<9223372036854775807x4xf32> {
  // expected-error @+1 {{'tgc.exp' op operand #0 has shape 9223372036854775807x4 whose element count overflows int64}}
  %0 = tgc.exp %x : tensor<9223372036854775807x4xf32>
  return %0 : tensor<9223372036854775807x4xf32>
}

// -----

// The operands are fine (2^62 elements); the broadcast result is not.
func.func @result_overflowing_shape(%x: tensor<?x4xf32>, %y: tensor<4611686018427387904x1xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{'tgc.add' op result #0 has shape 4611686018427387904x4 whose element count overflows int64}}
  %0 = tgc.add %x, %y : (tensor<?x4xf32>, tensor<4611686018427387904x1xf32>) -> tensor<4611686018427387904x4xf32>
  return %0 : tensor<4611686018427387904x4xf32>
}

// -----

func.func @result_only_overflowing_shape(%x: tensor<?x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{'tgc.cast' op result #0 has shape 4611686018427387904x4 whose element count overflows int64}}
  %0 = tgc.cast %x : tensor<?x4xf32> to tensor<4611686018427387904x4xf32>
  return %0 : tensor<4611686018427387904x4xf32>
}

// -----

func.func @constant_resource_without_data() -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.constant' op dense_resource 'missing' has no data (no blob of that name in the file's dialect_resources)}}
  %0 = tgc.constant dense_resource<missing> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_resource_of_the_wrong_size() -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.constant' op dense_resource 'short' holds 8 bytes where 'tensor<4xf32>' needs 16}}
  %0 = tgc.constant dense_resource<short> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F00000040"
    }
  }
#-}

// -----

func.func @constant_resource_of_bits() -> tensor<8xi1> {
  // expected-error @+1 {{'tgc.constant' op a dense_resource value needs an integer or float element type of whole bytes, not 'i1'}}
  %0 = tgc.constant dense_resource<bits> : tensor<8xi1>
  return %0 : tensor<8xi1>
}

{-#
  dialect_resources: {
    builtin: {
      bits: "0x010000000101010101010101"
    }
  }
#-}
