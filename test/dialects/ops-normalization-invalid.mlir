// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the normalization ops.

func.func @softmax_axis_out_of_range(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{'tgc.softmax' op axis 2 is out of range [0, 2) for input 4x10}}
  %0 = tgc.softmax %x {axis = 2 : i64} : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @log_softmax_negative_axis(%x: tensor<?x10xf16>) -> tensor<?x10xf16> {
  // expected-error @+1 {{'tgc.log_softmax' op axis -1 is out of range [0, 2) for input ?x10}}
  %0 = tgc.log_softmax %x {axis = -1 : i64} : tensor<?x10xf16>
  return %0 : tensor<?x10xf16>
}

// -----

func.func @softmax_rank_0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tgc.softmax' op input must have rank >= 1}}
  %0 = tgc.softmax %x {axis = 0 : i64} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @log_softmax_rank_0(%x: tensor<bf16>) -> tensor<bf16> {
  // expected-error @+1 {{'tgc.log_softmax' op input must have rank >= 1}}
  %0 = tgc.log_softmax %x {axis = 0 : i64} : tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

func.func @softmax_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tgc.softmax' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = tgc.softmax %x {axis = 0 : i64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @softmax_missing_axis(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tgc.softmax' op requires attribute 'axis'}}
  %0 = tgc.softmax %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @layer_norm_axis_out_of_range(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{'tgc.layer_norm' op axis 2 is out of range [0, 2) for input 2x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x {axis = 2 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_negative_epsilon(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{'tgc.layer_norm' op epsilon must be non-negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x {axis = 1 : i64, epsilon = -1.0e-05 : f64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_nan_epsilon(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{'tgc.layer_norm' op epsilon must be non-negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x {axis = 1 : i64, epsilon = 0x7FF8000000000000 : f64} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<?x128x768xf32>, %g: tensor<512xf32>) -> tensor<?x128x768xf32> {
  // expected-error @+2 {{'tgc.layer_norm' op scale must have the normalized shape 768, got 512}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x scale %g {axis = 2 : i64} : (tensor<?x128x768xf32>, tensor<512xf32>) -> tensor<?x128x768xf32>
  return %0 : tensor<?x128x768xf32>
}

// -----

func.func @layer_norm_scale_rank(%x: tensor<?x128x768xf32>, %g: tensor<768xf32>) -> tensor<?x128x768xf32> {
  // With axis 1 the normalized shape is 128x768.
  // expected-error @+2 {{'tgc.layer_norm' op scale must have the normalized shape 128x768, got 768}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x scale %g {axis = 1 : i64} : (tensor<?x128x768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
  return %0 : tensor<?x128x768xf32>
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<4x?xf32>, %b: tensor<3x?xf32>) -> tensor<4x?xf32> {
  // expected-error @+2 {{'tgc.layer_norm' op bias must have the normalized shape 4x?, got 3x?}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x bias %b {axis = 0 : i64} : (tensor<4x?xf32>, tensor<3x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

func.func @layer_norm_scale_element_type(%x: tensor<2x8xf32>, %g: tensor<8xf16>) -> tensor<2x8xf32> {
  // expected-error @+2 {{'tgc.layer_norm' op input and scale must have the same element type, got 'f32' and 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x scale %g {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf16>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_bias_element_type(%x: tensor<2x8xbf16>, %b: tensor<8xf32>) -> tensor<2x8xbf16> {
  // expected-error @+2 {{'tgc.layer_norm' op input and bias must have the same element type, got 'bf16' and 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x bias %b {axis = 1 : i64} : (tensor<2x8xbf16>, tensor<8xf32>) -> tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}

// -----

func.func @layer_norm_result_mismatch(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{'tgc.layer_norm' op inferred type(s) 'tensor<2x8xf32>' are incompatible with return type(s) of operation 'tensor<2x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.layer_norm %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @layer_norm_generic_missing_segments(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'tgc.layer_norm' op operand count (1) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
  %0 = "tgc.layer_norm"(%x) <{axis = 1 : i64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @batch_norm_axis_out_of_range(%x: tensor<2x64x4x4xf32>, %s: tensor<64xf32>) -> tensor<2x64x4x4xf32> {
  // expected-error @+2 {{'tgc.batch_norm' op channel axis 4 is out of range [0, 4) for input 2x64x4x4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.batch_norm %x, %s, %s, %s, %s {axis = 4 : i64} : (tensor<2x64x4x4xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x64x4x4xf32>
  return %0 : tensor<2x64x4x4xf32>
}

// -----

func.func @batch_norm_default_axis_rank_1(%x: tensor<64xf32>, %s: tensor<64xf32>) -> tensor<64xf32> {
  // The default channel axis is 1.
  // expected-error @+2 {{'tgc.batch_norm' op channel axis 1 is out of range [0, 1) for input 64}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.batch_norm %x, %s, %s, %s, %s : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @batch_norm_negative_epsilon(%x: tensor<2x64xf32>, %s: tensor<64xf32>) -> tensor<2x64xf32> {
  // expected-error @+2 {{'tgc.batch_norm' op epsilon must be non-negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.batch_norm %x, %s, %s, %s, %s {epsilon = -1.0 : f64} : (tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

func.func @batch_norm_mean_shape(%x: tensor<?x64x56x56xf32>, %s: tensor<64xf32>, %m: tensor<32xf32>) -> tensor<?x64x56x56xf32> {
  // expected-error @+2 {{'tgc.batch_norm' op mean must have shape 64 (the channel dim 1 of the input), got 32}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.batch_norm %x, %s, %s, %m, %s : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<32xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
  return %0 : tensor<?x64x56x56xf32>
}

// -----

func.func @batch_norm_scale_nhwc_default_axis(%x: tensor<1x7x7x32xf32>, %s: tensor<32xf32>) -> tensor<1x7x7x32xf32> {
  // NHWC needs axis = 3; with the default the channel dim is 7.
  // expected-error @+2 {{'tgc.batch_norm' op scale must have shape 7 (the channel dim 1 of the input), got 32}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.batch_norm %x, %s, %s, %s, %s : (tensor<1x7x7x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}

// -----

func.func @batch_norm_variance_rank(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %v: tensor<1x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{'tgc.batch_norm' op variance must have shape 8 (the channel dim 1 of the input), got 1x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.batch_norm %x, %s, %s, %s, %v : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @batch_norm_bias_element_type(%x: tensor<2x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf64>) -> tensor<2x8xf32> {
  // expected-error @+2 {{'tgc.batch_norm' op input and bias must have the same element type, got 'f32' and 'f64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.batch_norm %x, %s, %b, %s, %s : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf64>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
