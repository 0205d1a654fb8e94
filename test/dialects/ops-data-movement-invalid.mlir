// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the data movement ops.

func.func @reshape_count_mismatch(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.reshape' op input 2x3 has 6 elements but result 4 has 4}}
  %0 = tgc.reshape %x : tensor<2x3xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reshape_not_divisible(%x: tensor<2x3xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'tgc.reshape' op input 2x3 with 6 elements cannot be reshaped to 4x?}}
  %0 = tgc.reshape %x : tensor<2x3xf32> to tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

func.func @reshape_two_dynamic_dims(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tgc.reshape' op result may have at most one dynamic dim, got ?x?}}
  %0 = tgc.reshape %x : tensor<?x4xf32> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_zero_size_inference(%x: tensor<?x4xf32>) -> tensor<0x?xf32> {
  // expected-error @+1 {{'tgc.reshape' op cannot infer the dynamic dim of 0x?: the other dims hold zero elements}}
  %0 = tgc.reshape %x : tensor<?x4xf32> to tensor<0x?xf32>
  return %0 : tensor<0x?xf32>
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{'tgc.reshape' op result element type 'f16' differs from input element type 'f32'}}
  %0 = tgc.reshape %x : tensor<2x3xf32> to tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

func.func @reshape_zero_count_mismatch(%x: tensor<0x3xi8>) -> tensor<3xi8> {
  // expected-error @+1 {{'tgc.reshape' op input 0x3 has 0 elements but result 3 has 3}}
  %0 = tgc.reshape %x : tensor<0x3xi8> to tensor<3xi8>
  return %0 : tensor<3xi8>
}

// -----

func.func @transpose_not_permutation(%x: tensor<2x3x4xf32>) -> tensor<2x3x3xf32> {
  // expected-error @+2 {{'tgc.transpose' op permutation must be a permutation of [0, 3) for input 2x3x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.transpose %x {permutation = array<i64: 0, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

func.func @transpose_wrong_length(%x: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{'tgc.transpose' op permutation must be a permutation of [0, 3) for input 2x3x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_out_of_range(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{'tgc.transpose' op permutation must be a permutation of [0, 2) for input 2x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.transpose %x {permutation = array<i64: 2, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_result_mismatch(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'tgc.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @broadcast_to_incompatible(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tgc.broadcast_to' op cannot broadcast 2x3 to 2x4 (input dim 1 is 3)}}
  %0 = tgc.broadcast_to %x : tensor<2x3xf32> to tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @broadcast_to_lower_rank(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'tgc.broadcast_to' op cannot broadcast 2x3 to the lower-rank 3}}
  %0 = tgc.broadcast_to %x : tensor<2x3xf32> to tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @broadcast_to_new_dynamic_dim(%x: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'tgc.broadcast_to' op dynamic result dim 0 has no input dim to take its size from}}
  %0 = tgc.broadcast_to %x : tensor<3xf32> to tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @broadcast_to_element_type(%x: tensor<3xi32>) -> tensor<2x3xi64> {
  // expected-error @+1 {{'tgc.broadcast_to' op result element type 'i64' differs from input element type 'i32'}}
  %0 = tgc.broadcast_to %x : tensor<3xi32> to tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{'tgc.concat' op inputs must have the same rank, got 2x3 and 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x4xf32>) -> tensor<6x3xf32> {
  // expected-error @+2 {{'tgc.concat' op input #2 2x4 differs from the others in dim 1 (expected 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.concat %a, %b, %c {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{'tgc.concat' op input #0 and input #1 must have the same element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_axis_out_of_range(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'tgc.concat' op axis 2 is out of range [0, 2) for input 2x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @concat_rank_0(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{'tgc.concat' op axis 0 is out of range [0, 0) for input scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.concat %a, %a {axis = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @concat_no_inputs() -> tensor<2xf32> {
  // expected-error @+2 {{'tgc.concat' op needs at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tgc.concat"() <{axis = 0 : i64}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concat_overflow(%a: tensor<4611686018427387904xi8>) -> tensor<?xi8> {
  // expected-error @+2 {{'tgc.concat' op concatenated dim 0 overflows int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.concat %a, %a, %a {axis = 0 : i64} : (tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>) -> tensor<?xi8>
  return %0 : tensor<?xi8>
}

// -----

func.func @concat_result_mismatch(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'tgc.concat' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.concat %a, %a {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_zero_step(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{'tgc.slice' op steps must not be 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.slice %x {ends = array<i64: 4, 5>, starts = array<i64: 0, 0>, steps = array<i64: 1, 0>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @slice_starts_length(%x: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{'tgc.slice' op starts, ends and steps must each have one value per dim of input 4x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.slice %x {ends = array<i64: 4, 5>, starts = array<i64: 0>} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @slice_ends_length(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'tgc.slice' op starts, ends and steps must each have one value per dim of input 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.slice %x {ends = array<i64: 4, 4>, starts = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_steps_length(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'tgc.slice' op starts, ends and steps must each have one value per dim of input 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.slice %x {ends = array<i64: 4>, starts = array<i64: 0>, steps = array<i64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_result_mismatch(%x: tensor<4xf32>) -> tensor<4xf32> {
  // A negative step from the start walks backwards from index 0 only.
  // expected-error @+2 {{'tgc.slice' op inferred type(s) 'tensor<1xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.slice %x {ends = array<i64: -9223372036854775808>, starts = array<i64: 0>, steps = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_missing_ends(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.slice' op requires attribute 'ends'}}
  %0 = tgc.slice %x {starts = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @pad_negative(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{'tgc.pad' op padding amounts must be non-negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.pad %x {high = array<i64: 1, 0>, low = array<i64: -1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @pad_length(%x: tensor<2x2xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{'tgc.pad' op low and high must each have one value per dim of input 2x2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.pad %x {high = array<i64: 1, 0>, low = array<i64: 0>} : (tensor<2x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @pad_overflow(%x: tensor<2xf32>) -> tensor<?xf32> {
  // expected-error @+2 {{'tgc.pad' op padded dim 0 overflows int64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.pad %x {high = array<i64: 9223372036854775807>, low = array<i64: 0>} : (tensor<2xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @pad_result_mismatch(%x: tensor<2x2xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'tgc.pad' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.pad %x {high = array<i64: 0, 0>, low = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'tgc.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = tgc.gather %t, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_i8_indices(%t: tensor<10x4xf32>, %i: tensor<3xi8>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'tgc.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xi8>'}}
  %0 = tgc.gather %t, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xi8>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @gather_axis_out_of_range(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<10x3xf32> {
  // expected-error @+2 {{'tgc.gather' op axis 2 is out of range [0, 2) for data 10x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.gather %t, %i {axis = 2 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<10x3xf32>
  return %0 : tensor<10x3xf32>
}

// -----

func.func @gather_result_mismatch(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{'tgc.gather' op inferred type(s) 'tensor<10x3xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.gather %t, %i {axis = 1 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @squeeze_non_unit_dim(%x: tensor<1x3x1xf32>) -> tensor<1xf32> {
  // expected-error @+2 {{'tgc.squeeze' op cannot squeeze dim 1 of size 3 in input 1x3x1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.squeeze %x {axes = array<i64: 0, 1>} : (tensor<1x3x1xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @squeeze_unsorted_axes(%x: tensor<1x3x1xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'tgc.squeeze' op axes must be strictly increasing and in [0, 3) for input 1x3x1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.squeeze %x {axes = array<i64: 2, 0>} : (tensor<1x3x1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @squeeze_out_of_range(%x: tensor<1x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'tgc.squeeze' op axes must be strictly increasing and in [0, 2) for input 1x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.squeeze %x {axes = array<i64: 2>} : (tensor<1x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @squeeze_zero_size_dim(%x: tensor<0x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'tgc.squeeze' op cannot squeeze dim 0 of size 0 in input 0x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.squeeze %x {axes = array<i64: 0>} : (tensor<0x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @unsqueeze_out_of_range(%x: tensor<3xf32>) -> tensor<3x1xf32> {
  // expected-error @+2 {{'tgc.unsqueeze' op axes must be strictly increasing and in [0, 2) (the result rank)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.unsqueeze %x {axes = array<i64: 2>} : (tensor<3xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

func.func @unsqueeze_duplicate(%x: tensor<3xf32>) -> tensor<1x1x3xf32> {
  // expected-error @+2 {{'tgc.unsqueeze' op axes must be strictly increasing and in [0, 3) (the result rank)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.unsqueeze %x {axes = array<i64: 0, 0>} : (tensor<3xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

func.func @unsqueeze_result_mismatch(%x: tensor<3xf32>) -> tensor<1x3xf32> {
  // expected-error @+2 {{'tgc.unsqueeze' op inferred type(s) 'tensor<3x1xf32>' are incompatible with return type(s) of operation 'tensor<1x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.unsqueeze %x {axes = array<i64: 1>} : (tensor<3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @scatter_elements_axis(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  // expected-error @+2 {{'tgc.scatter_elements' op axis 2 is out of range [0, 2) for data 3x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_elements %x, %i, %u {axis = 2 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @scatter_elements_rank(%x: tensor<3x5xf32>, %i: tensor<6xi64>, %u: tensor<6xf32>) -> tensor<3x5xf32> {
  // expected-error @+2 {{'tgc.scatter_elements' op indices 6 must have the rank of data 3x5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_elements %x, %i, %u {axis = 0 : i64} : (tensor<3x5xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @scatter_elements_updates_shape(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<2x3xf32>) -> tensor<3x5xf32> {
  // expected-error @+2 {{'tgc.scatter_elements' op updates 2x3 must have the shape of indices 3x2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<2x3xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @scatter_elements_indices_too_big(%x: tensor<3x5xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>) -> tensor<3x5xf32> {
  // expected-error @+2 {{'tgc.scatter_elements' op indices dim 0 (4) exceeds data dim 0 (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @scatter_elements_element_type(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf16>) -> tensor<3x5xf32> {
  // expected-error @+2 {{'tgc.scatter_elements' op data and updates must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf16>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

func.func @scatter_elements_bool_add(%x: tensor<4xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{'tgc.scatter_elements' op reduction 'add' needs a numeric element type, got 'i1'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = #tgc.scatter_reduction<add>} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @scatter_nd_scalar_indices(%x: tensor<4xf32>, %i: tensor<i64>, %u: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+2 {{'tgc.scatter_nd' op indices must have rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_nd %x, %i, %u : (tensor<4xf32>, tensor<i64>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scatter_nd_dynamic_tuple(%x: tensor<4xf32>, %i: tensor<2x?xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'tgc.scatter_nd' op the last dim of indices 2x? must be static}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_nd %x, %i, %u : (tensor<4xf32>, tensor<2x?xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scatter_nd_tuple_too_long(%x: tensor<4xf32>, %i: tensor<2x2xi64>, %u: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'tgc.scatter_nd' op the last dim of indices (2) must be in [1, 1] for data 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_nd %x, %i, %u : (tensor<4xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scatter_nd_updates_shape(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{'tgc.scatter_nd' op updates 2x4 must have shape 2x3 (indices.shape[:-1] + data.shape[k:])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @scatter_nd_element_type(%x: tensor<4xf32>, %i: tensor<2x1xi64>, %u: tensor<2xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{'tgc.scatter_nd' op data and updates must have the same element type, got 'f32' and 'i32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_nd %x, %i, %u : (tensor<4xf32>, tensor<2x1xi64>, tensor<2xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scatter_nd_bool_mul(%x: tensor<4xi1>, %i: tensor<2x1xi64>, %u: tensor<2xi1>) -> tensor<4xi1> {
  // expected-error @+2 {{'tgc.scatter_nd' op reduction 'mul' needs a numeric element type, got 'i1'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_nd %x, %i, %u {reduction = #tgc.scatter_reduction<mul>} : (tensor<4xi1>, tensor<2x1xi64>, tensor<2xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @scatter_elements_result_mismatch(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x4xf32> {
  // expected-error @+2 {{'tgc.scatter_elements' op inferred type(s) 'tensor<3x5xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @scatter_elements_float_indices(%x: tensor<3x5xf32>, %i: tensor<3x2xf32>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'tgc.scatter_elements' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3x2xf32>'}}
  %0 = tgc.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
