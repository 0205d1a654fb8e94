// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of tgc.matmul and tgc.conv2d.

func.func @matmul_element_types(%a: tensor<4x8xf32>, %b: tensor<8x16xf16>) -> tensor<4x16xf32> {
  // expected-error @+2 {{'tgc.matmul' op lhs and rhs must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf16>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @matmul_rank_1(%a: tensor<8xf32>, %b: tensor<8x16xf32>) -> tensor<16xf32> {
  // expected-error @+2 {{'tgc.matmul' op operands must have rank >= 2, got lhs 8 and rhs 8x16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.matmul %a, %b : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @matmul_rank_0(%a: tensor<4x8xf32>, %b: tensor<f32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{'tgc.matmul' op operands must have rank >= 2, got lhs 4x8 and rhs scalar}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.matmul %a, %b : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @matmul_k_mismatch(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+2 {{'tgc.matmul' op contraction dims differ: lhs 4x8 has K = 8, rhs 7x16 has K = 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.matmul %a, %b : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @matmul_k_mismatch_transposed(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // The transposes are missing: K is 4 for lhs and 16 for rhs.
  // expected-error @+2 {{'tgc.matmul' op contraction dims differ: lhs 8x4 has K = 4, rhs 16x8 has K = 16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.matmul %a, %b : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @matmul_k_mismatch_transpose_flags(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<8x8xf32> {
  // expected-error @+2 {{'tgc.matmul' op contraction dims differ: lhs 4x8 (transposed) has K = 4, rhs 8x16 (transposed) has K = 16}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.matmul %a, %b {transpose_a, transpose_b} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+2 {{'tgc.matmul' op batch dims of lhs 2x4x8 and rhs 3x8x16 are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

func.func @matmul_result_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<16x4xf32> {
  // expected-error @+2 {{'tgc.matmul' op inferred type(s) 'tensor<4x16xf32>' are incompatible with return type(s) of operation 'tensor<16x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

func.func @matmul_bool(%a: tensor<4x8xi1>) -> tensor<4x4xi1> {
  // expected-error @+1 {{'tgc.matmul' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<4x8xi1>'}}
  %0 = tgc.matmul %a, %a {transpose_b} : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x4xi1>
  return %0 : tensor<4x4xi1>
}

// -----

func.func @conv2d_int(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32> {
  // expected-error @+1 {{'tgc.conv2d' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x3x8x8xi32>'}}
  %0 = tgc.conv2d %x, %w : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>
  return %0 : tensor<1x4x6x6xi32>
}

// -----

func.func @conv2d_element_types(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xbf16>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op input and filter must have the same element type, got 'f32' and 'bf16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xbf16>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op input must have rank 4, got 3x8x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<4x6x6xf32>
  return %0 : tensor<4x6x6xf32>
}

// -----

func.func @conv2d_filter_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op filter must have rank 4, got 4x3x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op strides must be 2 positive values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {strides = array<i64: 1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_stride_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op strides must be 2 positive values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_negative_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op dilations must be 2 positive values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {dilations = array<i64: -1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op padding must be 4 non-negative values [top, left, bottom, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {padding = array<i64: 0, 0, -1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_padding_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op padding must be 4 non-negative values [top, left, bottom, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_zero_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op groups must be positive, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {groups = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_zero_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x0x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op filter spatial dims must be positive, got filter 4x3x0x3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x0x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_input_channels_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op input channels 6 are not divisible by groups 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {groups = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_output_channels_groups(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op output channels 6 are not divisible by groups 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {groups = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

func.func @conv2d_channel_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x5x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op filter 4x5x3x3 has 5 input channels per group, but the input has 3 channels in 1 group(s) (expected 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x5x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_group_channel_mismatch(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op filter 8x8x3x3 has 8 input channels per group, but the input has 8 channels in 2 group(s) (expected 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {groups = 2 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// NHWC filters are HWIO: this one has I = 4 but the input has 3 channels.
func.func @conv2d_nhwc_channel_mismatch(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+2 {{'tgc.conv2d' op filter 3x3x4x8 has 4 input channels per group, but the input has 3 channels in 1 group(s) (expected 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {layout = #tgc.layout<NHWC>} : (tensor<1x8x8x3xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @conv2d_bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op bias must have shape 4, got 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_bias_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<?x3x3x3xf32>, %b: tensor<1x4xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op bias must have shape ?, got 1x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<?x3x3x3xf32>, tensor<1x4xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_bias_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf16>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{'tgc.conv2d' op input and bias must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf16>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_window_too_large(%x: tensor<1x3x4x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32> {
  // The dilated window is 2 * (3 - 1) + 1 = 5 rows, the input only 4.
  // expected-error @+2 {{'tgc.conv2d' op padded input height 4 is smaller than the dilated window 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {dilations = array<i64: 2, 1>} : (tensor<1x3x4x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x6xf32>
  return %0 : tensor<1x4x1x6xf32>
}

// -----

func.func @conv2d_window_too_large_width(%x: tensor<1x3x8x1xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x1xf32> {
  // expected-error @+2 {{'tgc.conv2d' op padded input width 2 is smaller than the dilated window 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w {padding = array<i64: 0, 1, 0, 0>} : (tensor<1x3x8x1xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x1xf32>
  return %0 : tensor<1x4x6x1xf32>
}

// -----

func.func @conv2d_result_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+2 {{'tgc.conv2d' op inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @conv2d_bad_layout(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+2 {{expected ::tgc::ir::Layout to be one of: NCHW, NHWC}}
  // expected-error @+1 {{failed to parse Tgc_LayoutAttr parameter 'value' which is to be a `::tgc::ir::Layout`}}
  %0 = tgc.conv2d %x, %w {layout = #tgc.layout<CHWN>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_groups_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'tgc.conv2d' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = tgc.conv2d %x, %w {groups = 1 : i32} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
