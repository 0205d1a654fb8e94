// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the pooling ops.

func.func @max_pool2d_rank(%x: tensor<1x8x8xf32>) -> tensor<1x4x4xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op input must have rank 4, got 1x8x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<1x8x8xf32>) -> tensor<1x4x4xf32>
  return %0 : tensor<1x4x4xf32>
}

// -----

func.func @max_pool2d_int(%x: tensor<1x1x8x8xi8>) -> tensor<1x1x7x7xi8> {
  // expected-error @+1 {{'tgc.max_pool2d' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<1x1x8x8xi8>'}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<1x1x8x8xi8>) -> tensor<1x1x7x7xi8>
  return %0 : tensor<1x1x7x7xi8>
}

// -----

func.func @max_pool2d_missing_kernel(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{'tgc.max_pool2d' op requires attribute 'kernel'}}
  %0 = tgc.max_pool2d %x : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

func.func @max_pool2d_kernel_count(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op kernel must be 2 positive values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32>
  return %0 : tensor<1x1x7x7xf32>
}

// -----

func.func @max_pool2d_zero_kernel(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op kernel must be 2 positive values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 0>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32>
  return %0 : tensor<1x1x7x7xf32>
}

// -----

func.func @max_pool2d_zero_stride(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op strides must be 2 positive values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 0, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32>
  return %0 : tensor<1x1x7x7xf32>
}

// -----

func.func @max_pool2d_dilation_count(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op dilations must be 2 positive values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {dilations = array<i64: 1>, kernel = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32>
  return %0 : tensor<1x1x7x7xf32>
}

// -----

func.func @max_pool2d_negative_padding(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op padding must be 4 non-negative values [top, left, bottom, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, -1, 0, 0>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x7x7xf32>
  return %0 : tensor<1x1x7x7xf32>
}

// -----

func.func @max_pool2d_padding_not_smaller_than_window(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x9x9xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op padding must be smaller than the dilated window (2) in each spatial dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1, 2, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x9x9xf32>
  return %0 : tensor<1x1x9x9xf32>
}

// -----

// Dilation widens the window, so this padding would be fine with dilation 2
// in the height but not in the width.
func.func @max_pool2d_padding_dilated_window(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op padding must be smaller than the dilated window (3) in each spatial dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {dilations = array<i64: 2, 2>, kernel = array<i64: 2, 2>, padding = array<i64: 2, 3, 2, 0>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

func.func @max_pool2d_window_too_large(%x: tensor<1x1x2x8xf32>) -> tensor<1x1x1x6xf32> {
  // expected-error @+2 {{'tgc.max_pool2d' op padded input height 2 is smaller than the dilated window 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 3, 3>} : (tensor<1x1x2x8xf32>) -> tensor<1x1x1x6xf32>
  return %0 : tensor<1x1x1x6xf32>
}

// -----

func.func @max_pool2d_window_too_large_nhwc(%x: tensor<1x8x3x1xf32>) -> tensor<1x8x1x1xf32> {
  // The width of NHWC is dim 2: 3 + 1 + 0 < 5.
  // expected-error @+2 {{'tgc.max_pool2d' op padded input width 4 is smaller than the dilated window 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {dilations = array<i64: 1, 2>, kernel = array<i64: 1, 3>, layout = #tgc.layout<NHWC>, padding = array<i64: 0, 1, 0, 0>} : (tensor<1x8x3x1xf32>) -> tensor<1x8x1x1xf32>
  return %0 : tensor<1x8x1x1xf32>
}

// -----

func.func @max_pool2d_result_mismatch(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  // Without ceil_mode the output is 2x2.
  // expected-error @+2 {{'tgc.max_pool2d' op inferred type(s) 'tensor<1x1x2x2xf32>' are incompatible with return type(s) of operation 'tensor<1x1x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

func.func @max_pool2d_ceil_mode_last_window(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  // ceil_mode would give 3, but the third window would start in the right
  // padding, so the output stays 2x2.
  // expected-error @+2 {{'tgc.max_pool2d' op inferred type(s) 'tensor<1x1x2x2xf32>' are incompatible with return type(s) of operation 'tensor<1x1x3x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.max_pool2d %x {ceil_mode, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

func.func @avg_pool2d_rank(%x: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+2 {{'tgc.avg_pool2d' op input must have rank 4, got 8x8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.avg_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @avg_pool2d_negative_kernel(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+2 {{'tgc.avg_pool2d' op kernel must be 2 positive values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.avg_pool2d %x {kernel = array<i64: -1, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

func.func @avg_pool2d_padding_count(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+2 {{'tgc.avg_pool2d' op padding must be 4 non-negative values [top, left, bottom, right]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.avg_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

func.func @avg_pool2d_padding_window(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x10x8xf32> {
  // expected-error @+2 {{'tgc.avg_pool2d' op padding must be smaller than the dilated window (1) in each spatial dim}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.avg_pool2d %x {kernel = array<i64: 1, 1>, padding = array<i64: 1, 0, 1, 0>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x10x8xf32>
  return %0 : tensor<1x1x10x8xf32>
}

// -----

func.func @avg_pool2d_window_too_large(%x: tensor<1x1x8x0xf32>) -> tensor<1x1x8x0xf32> {
  // expected-error @+2 {{'tgc.avg_pool2d' op padded input width 0 is smaller than the dilated window 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.avg_pool2d %x {kernel = array<i64: 1, 1>} : (tensor<1x1x8x0xf32>) -> tensor<1x1x8x0xf32>
  return %0 : tensor<1x1x8x0xf32>
}

// -----

func.func @global_avg_pool2d_rank(%x: tensor<2x2048x7xf32>) -> tensor<2x2048x1xf32> {
  // expected-error @+2 {{'tgc.global_avg_pool2d' op input must have rank 4, got 2x2048x7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.global_avg_pool2d %x : (tensor<2x2048x7xf32>) -> tensor<2x2048x1xf32>
  return %0 : tensor<2x2048x1xf32>
}

// -----

func.func @global_avg_pool2d_layout_mismatch(%x: tensor<2x7x7x512xf32>) -> tensor<2x7x1x1xf32> {
  // expected-error @+2 {{'tgc.global_avg_pool2d' op inferred type(s) 'tensor<2x1x1x512xf32>' are incompatible with return type(s) of operation 'tensor<2x7x1x1xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.global_avg_pool2d %x {layout = #tgc.layout<NHWC>} : (tensor<2x7x7x512xf32>) -> tensor<2x7x1x1xf32>
  return %0 : tensor<2x7x1x1xf32>
}

// -----

func.func @global_avg_pool2d_f64_result(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf64> {
  // expected-error @+2 {{'tgc.global_avg_pool2d' op inferred type(s) 'tensor<1x3x1x1xf32>' are incompatible with return type(s) of operation 'tensor<1x3x1x1xf64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.global_avg_pool2d %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1xf64>
  return %0 : tensor<1x3x1x1xf64>
}
