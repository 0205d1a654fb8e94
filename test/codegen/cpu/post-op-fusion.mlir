// Every entry of the post-op fusion table (passes/FusePostOps.cpp) on
// conv2d (plain, grouped, depthwise NHWC) and matmul (plain, batched,
// broadcast) with a bias, chains of entries, and the negative cases of
// test/passes/tgc-fuse-post-ops.mlir: the reference interpreter and the CPU
// backend agree without the pass, with it (the CPU backend compiles each
// fusion into one oneDNN primitive with post-ops, as the PLAN lines check),
// and with the fusions on the reference path.
// RUN: tgc-run --differential %s | FileCheck %s
// RUN: tgc-run --differential --pipeline=tgc-cpu-unfused %s | FileCheck %s
// RUN: tgc-opt %s --tgc-fuse-post-ops | tgc-run --pipeline=tgc-cpu-unfused --differential - | FileCheck %s
// RUN: tgc-opt %s --tgc-fuse-post-ops | tgc-run --pipeline=tgc-cpu-unfused --differential --threads=1 --seed=7 - | FileCheck %s
// RUN: tgc-opt %s --tgc-fuse-post-ops | env TGC_ENABLE_ONEDNN=0 tgc-run --pipeline=tgc-cpu-unfused --differential - | FileCheck %s
// RUN: tgc-opt %s --tgc-fuse-post-ops | tgc-run --pipeline=tgc-cpu-unfused --differential --print-plan - | FileCheck %s --check-prefix=PLAN

// CHECK-NOT: MISMATCH
// CHECK: differential: 47 functions, 0 mismatches
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_gelu_tanh) at
// PLAN:     @gelu_tanh_cube_mm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_gelu_tanh) at
// PLAN:     @gelu_tanh_cube_half_first_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_gelu_tanh) at
// PLAN:     @gelu_tanh_pow_bmm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_gelu_tanh) at
// PLAN:     @gelu_tanh_pow_half_first_dwconv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_gelu_erf) at
// PLAN:     @gelu_erf_div_mm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_gelu_erf) at
// PLAN:     @gelu_erf_mul_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_gelu_erf) at
// PLAN:     @gelu_erf_div_half_first_bcmm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_gelu_erf) at
// PLAN:     @gelu_erf_mul_half_first_gconv: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_mish) at
// PLAN:     @mish_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_hardswish) at
// PLAN:     @hardswish_sigmoid_mm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_hardswish) at
// PLAN:     @hardswish_div_dwconv: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_hardswish) at
// PLAN:     @hardswish_mul_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_hardswish) at
// PLAN:     @hardswish_inner_bmm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_swish) at
// PLAN:     @swish_conv: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_relu) at
// PLAN:     @relu_gconv: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_clip) at
// PLAN:     @relu6_dwconv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_relu (alpha)) at
// PLAN:     @leaky_relu_mm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_elu) at
// PLAN:     @elu_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_gelu_erf) at
// PLAN:     @gelu_erf_bmm: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_gelu_tanh) at
// PLAN:     @gelu_tanh_bcmm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_logistic) at
// PLAN:     @sigmoid_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_tanh) at
// PLAN:     @tanh_mm: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_linear) at
// PLAN:     @scale_mul_bmm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_linear) at
// PLAN:     @scale_div_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_linear) at
// PLAN:     @shift_add_mm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_linear) at
// PLAN:     @shift_sub_dwconv: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + binary_add) at
// PLAN:     @residual_add_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + binary_sub) at
// PLAN:     @channel_sub_mm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + binary_mul) at
// PLAN:     @channel_mul_conv: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + binary_div) at
// PLAN:     @channel_div_bcmm: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_relu) at
// PLAN:     @conv_bias_relu: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + eltwise_clip + binary_add + eltwise_relu) at
// PLAN:     @dwconv_relu6_residual: ok
// PLAN:     tgc.fusion(tgc.matmul + eltwise_linear + eltwise_swish) at
// PLAN:     @bmm_scale_swish: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + eltwise_gelu_erf) at
// PLAN:     @matmul_gelu_erf: ok
// PLAN:     tgc.fusion(tgc.matmul + eltwise_gelu_tanh + eltwise_hardswish + eltwise_mish) at
// PLAN:     @chain_spelled_out: ok
// PLAN:     tgc.fusion(tgc.conv2d + eltwise_relu (alpha) + eltwise_elu + eltwise_gelu_tanh + eltwise_tanh + eltwise_logistic) at
// PLAN:     @conv_activations: ok
// PLAN:     tgc.fusion(tgc.matmul + bias) at
// PLAN:     @intermediate_other_user: ok
// PLAN-NOT: tgc.fusion(
// PLAN:     @result_other_user: ok
// PLAN-NOT: tgc.fusion(
// PLAN:     @activation_not_in_table: ok
// PLAN-NOT: tgc.fusion(
// PLAN:     @bias_wrong_shape: ok
// PLAN-NOT: tgc.fusion(
// PLAN:     @residual_depends_on_result: ok
// PLAN:     tgc.fusion(tgc.conv2d + eltwise_relu + binary_add + eltwise_relu) at
// PLAN:     @nhwc_residual: ok
// PLAN:     tgc.fusion(tgc.conv2d + binary_add) at
// PLAN:     @nhwc_depthwise_residual: ok
// PLAN:     tgc.fusion(tgc.conv2d + bias + binary_add + eltwise_relu) at
// PLAN:     @resnet_tail: ok
// PLAN:     tgc.fusion(tgc.matmul + bias + binary_add) at
// PLAN:     @residual_through_reshape_mm: ok
// PLAN:     tgc.fusion(tgc.matmul + eltwise_linear + eltwise_linear) at
// PLAN:     @shift_then_scale_mm: ok
// PLAN:     tgc.fusion(tgc.matmul + eltwise_linear + eltwise_relu + eltwise_linear) at
// PLAN:     @scale_relu_scale_mm: ok

func.func @gelu_tanh_cube_mm(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = tgc.add %h, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %k = tgc.constant dense<0.044715> : tensor<f32>
  %s = tgc.constant dense<0.797884583> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.mul %y, %y : tensor<4x8xf32>
  %1 = tgc.mul %y, %0 : tensor<4x8xf32>
  %2 = tgc.mul %k, %1 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = tgc.add %y, %2 : tensor<4x8xf32>
  %4 = tgc.mul %s, %3 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = tgc.tanh %4 : tensor<4x8xf32>
  %6 = tgc.add %one, %5 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = tgc.mul %y, %6 : tensor<4x8xf32>
  %r = tgc.mul %half, %7 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @gelu_tanh_cube_half_first_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %k = tgc.constant dense<0.044715> : tensor<f32>
  %s = tgc.constant dense<0.797884583> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.mul %y, %y : tensor<1x8x6x6xf32>
  %1 = tgc.mul %0, %y : tensor<1x8x6x6xf32>
  %2 = tgc.mul %1, %k : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  %3 = tgc.add %y, %2 : tensor<1x8x6x6xf32>
  %4 = tgc.mul %3, %s : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  %5 = tgc.tanh %4 : tensor<1x8x6x6xf32>
  %6 = tgc.add %5, %one : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  %7 = tgc.mul %half, %y : (tensor<f32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %r = tgc.mul %7, %6 : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @gelu_tanh_pow_bmm(%x: tensor<2x4x16xf32>, %w: tensor<2x8x16xf32>, %b: tensor<1x1x8xf32>) -> tensor<2x4x8xf32> {
  %h = tgc.matmul %x, %w {transpose_b} : (tensor<2x4x16xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32>
  %y = tgc.add %h, %b : (tensor<2x4x8xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  %three = tgc.constant dense<3.0> : tensor<f32>
  %k = tgc.constant dense<0.044715> : tensor<f32>
  %s = tgc.constant dense<0.797884583> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.pow %y, %three : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %1 = tgc.mul %0, %k : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %2 = tgc.add %y, %1 : tensor<2x4x8xf32>
  %3 = tgc.mul %2, %s : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %4 = tgc.tanh %3 : tensor<2x4x8xf32>
  %5 = tgc.add %4, %one : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %6 = tgc.mul %y, %5 : tensor<2x4x8xf32>
  %r = tgc.mul %6, %half : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

func.func @gelu_tanh_pow_half_first_dwconv(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x1x8xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  %h = tgc.conv2d %x, %w {groups = 8 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x6x6x8xf32>
  %y = tgc.add %h, %b : (tensor<1x6x6x8xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
  %three = tgc.constant dense<3.0> : tensor<f32>
  %k = tgc.constant dense<0.044715> : tensor<f32>
  %s = tgc.constant dense<0.797884583> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.pow %y, %three : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
  %1 = tgc.mul %0, %k : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
  %2 = tgc.add %y, %1 : tensor<1x6x6x8xf32>
  %3 = tgc.mul %2, %s : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
  %4 = tgc.tanh %3 : tensor<1x6x6x8xf32>
  %5 = tgc.add %4, %one : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
  %6 = tgc.mul %y, %half : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
  %r = tgc.mul %6, %5 : tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}

func.func @gelu_erf_div_mm(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = tgc.add %h, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %sqrt2 = tgc.constant dense<1.41421354> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.div %y, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = tgc.erf %0 : tensor<4x8xf32>
  %2 = tgc.add %1, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = tgc.mul %y, %2 : tensor<4x8xf32>
  %r = tgc.mul %3, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @gelu_erf_mul_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %rsqrt2 = tgc.constant dense<0.707106769> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.mul %y, %rsqrt2 : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  %1 = tgc.erf %0 : tensor<1x8x6x6xf32>
  %2 = tgc.add %one, %1 : (tensor<f32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %3 = tgc.mul %2, %y : tensor<1x8x6x6xf32>
  %r = tgc.mul %half, %3 : (tensor<f32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @gelu_erf_div_half_first_bcmm(%x: tensor<2x4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %y = tgc.add %h, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %sqrt2 = tgc.constant dense<1.41421354> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.div %y, %sqrt2 : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %1 = tgc.erf %0 : tensor<2x4x8xf32>
  %2 = tgc.add %1, %one : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %3 = tgc.mul %y, %half : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %r = tgc.mul %3, %2 : tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

func.func @gelu_erf_mul_half_first_gconv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<1x8x1x1xf32>) -> tensor<1x8x3x3xf32> {
  %h = tgc.conv2d %x, %w {groups = 2 : i64, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x3x3xf32>
  %y = tgc.add %h, %b : (tensor<1x8x3x3xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x3x3xf32>
  %rsqrt2 = tgc.constant dense<0.707106769> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.mul %y, %rsqrt2 : (tensor<1x8x3x3xf32>, tensor<f32>) -> tensor<1x8x3x3xf32>
  %1 = tgc.erf %0 : tensor<1x8x3x3xf32>
  %2 = tgc.add %1, %one : (tensor<1x8x3x3xf32>, tensor<f32>) -> tensor<1x8x3x3xf32>
  %3 = tgc.mul %y, %half : (tensor<1x8x3x3xf32>, tensor<f32>) -> tensor<1x8x3x3xf32>
  %r = tgc.mul %3, %2 : tensor<1x8x3x3xf32>
  return %r : tensor<1x8x3x3xf32>
}

func.func @mish_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %0 = tgc.exp %y : tensor<1x8x6x6xf32>
  %1 = tgc.add %0, %one : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  %2 = tgc.log %1 : tensor<1x8x6x6xf32>
  %3 = tgc.tanh %2 : tensor<1x8x6x6xf32>
  %r = tgc.mul %y, %3 : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @hardswish_sigmoid_mm(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = tgc.add %h, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %sixth = tgc.constant dense<0.166666672> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.mul %y, %sixth : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %1 = tgc.add %0, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = tgc.clamp %1 {max = 1.0 : f64, min = 0.0 : f64} : tensor<4x8xf32>
  %r = tgc.mul %y, %2 : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @hardswish_div_dwconv(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x1x8xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  %h = tgc.conv2d %x, %w {groups = 8 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x6x6x8xf32>
  %y = tgc.add %h, %b : (tensor<1x6x6x8xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
  %three = tgc.constant dense<3.0> : tensor<f32>
  %six = tgc.constant dense<6.0> : tensor<f32>
  %0 = tgc.add %y, %three : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
  %1 = tgc.clamp %0 {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x6x6x8xf32>
  %2 = tgc.mul %y, %1 : tensor<1x6x6x8xf32>
  %r = tgc.div %2, %six : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}

func.func @hardswish_mul_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %three = tgc.constant dense<3.0> : tensor<f32>
  %sixth = tgc.constant dense<0.166666672> : tensor<f32>
  %0 = tgc.add %y, %three : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  %1 = tgc.clamp %0 {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x8x6x6xf32>
  %2 = tgc.mul %1, %y : tensor<1x8x6x6xf32>
  %r = tgc.mul %2, %sixth : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @hardswish_inner_bmm(%x: tensor<2x4x16xf32>, %w: tensor<2x8x16xf32>, %b: tensor<1x1x8xf32>) -> tensor<2x4x8xf32> {
  %h = tgc.matmul %x, %w {transpose_b} : (tensor<2x4x16xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32>
  %y = tgc.add %h, %b : (tensor<2x4x8xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  %three = tgc.constant dense<3.0> : tensor<f32>
  %six = tgc.constant dense<6.0> : tensor<f32>
  %0 = tgc.add %y, %three : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %1 = tgc.clamp %0 {max = 6.0 : f64, min = 0.0 : f64} : tensor<2x4x8xf32>
  %2 = tgc.div %1, %six : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %r = tgc.mul %y, %2 : tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

func.func @swish_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %0 = tgc.sigmoid %y : tensor<1x8x6x6xf32>
  %r = tgc.mul %0, %y : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @relu_gconv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<1x8x1x1xf32>) -> tensor<1x8x3x3xf32> {
  %h = tgc.conv2d %x, %w {groups = 2 : i64, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x3x3xf32>
  %y = tgc.add %h, %b : (tensor<1x8x3x3xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x3x3xf32>
  %r = tgc.relu %y : tensor<1x8x3x3xf32>
  return %r : tensor<1x8x3x3xf32>
}

func.func @relu6_dwconv(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x1x8xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  %h = tgc.conv2d %x, %w {groups = 8 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x6x6x8xf32>
  %y = tgc.add %h, %b : (tensor<1x6x6x8xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
  %r = tgc.clamp %y {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}

func.func @leaky_relu_mm(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = tgc.add %h, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %r = tgc.leaky_relu %y {alpha = 0.2 : f64} : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @elu_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %r = tgc.elu %y {alpha = 0.5 : f64} : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @gelu_erf_bmm(%x: tensor<2x4x16xf32>, %w: tensor<2x8x16xf32>, %b: tensor<1x1x8xf32>) -> tensor<2x4x8xf32> {
  %h = tgc.matmul %x, %w {transpose_b} : (tensor<2x4x16xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32>
  %y = tgc.add %h, %b : (tensor<2x4x8xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  %r = tgc.gelu %y : tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

func.func @gelu_tanh_bcmm(%x: tensor<2x4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %y = tgc.add %h, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %r = tgc.gelu %y {approximate = #tgc.gelu_approximation<tanh>} : tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

func.func @sigmoid_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %r = tgc.sigmoid %y : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @tanh_mm(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = tgc.add %h, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %r = tgc.tanh %y : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @scale_mul_bmm(%x: tensor<2x4x16xf32>, %w: tensor<2x8x16xf32>, %b: tensor<1x1x8xf32>) -> tensor<2x4x8xf32> {
  %h = tgc.matmul %x, %w {transpose_b} : (tensor<2x4x16xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32>
  %y = tgc.add %h, %b : (tensor<2x4x8xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  %c = tgc.constant dense<0.125> : tensor<f32>
  %r = tgc.mul %y, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

func.func @scale_div_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %c = tgc.constant dense<3.0> : tensor<f32>
  %r = tgc.div %y, %c : (tensor<1x8x6x6xf32>, tensor<f32>) -> tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @shift_add_mm(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = tgc.add %h, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %c = tgc.constant dense<-0.75> : tensor<f32>
  %r = tgc.add %c, %y : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @shift_sub_dwconv(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x1x8xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  %h = tgc.conv2d %x, %w {groups = 8 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x6x6x8xf32>
  %y = tgc.add %h, %b : (tensor<1x6x6x8xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
  %c = tgc.constant dense<0.25> : tensor<f32>
  %r = tgc.sub %y, %c : (tensor<1x6x6x8xf32>, tensor<f32>) -> tensor<1x6x6x8xf32>
  return %r : tensor<1x6x6x8xf32>
}

func.func @residual_add_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>, %res: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %r = tgc.add %res, %y : tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @channel_sub_mm(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %cb: tensor<8xf32>) -> tensor<4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = tgc.add %h, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %r = tgc.sub %y, %cb : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @channel_mul_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>, %cb: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %h = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = tgc.add %h, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %r = tgc.mul %cb, %y : (tensor<8x1x1xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

func.func @channel_div_bcmm(%x: tensor<2x4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>, %cb: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %h = tgc.matmul %x, %w : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %y = tgc.add %h, %b : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %c = tgc.constant dense<2.0> : tensor<8xf32>
  %p = tgc.add %cb, %c : tensor<8xf32>
  %r = tgc.div %y, %p : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

func.func @conv_bias_relu(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = tgc.add %0, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %2 = tgc.relu %1 : tensor<1x8x6x6xf32>
  return %2 : tensor<1x8x6x6xf32>
}

func.func @dwconv_relu6_residual(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x1x8xf32>, %r: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %b = tgc.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %0 = tgc.conv2d %x, %w {groups = 8 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x6x6x8xf32>
  %1 = tgc.add %b, %0 : (tensor<8xf32>, tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %2 = tgc.clamp %1 {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x6x6x8xf32>
  %3 = tgc.add %2, %r : tensor<1x6x6x8xf32>
  %4 = tgc.relu %3 : tensor<1x6x6x8xf32>
  return %4 : tensor<1x6x6x8xf32>
}

func.func @bmm_scale_swish(%q: tensor<2x4x16xf32>, %k: tensor<2x8x16xf32>) -> tensor<2x4x8xf32> {
  %c = tgc.constant dense<0.25> : tensor<f32>
  %0 = tgc.matmul %q, %k {transpose_b} : (tensor<2x4x16xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32>
  %1 = tgc.mul %0, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %2 = tgc.sigmoid %1 : tensor<2x4x8xf32>
  %3 = tgc.mul %1, %2 : tensor<2x4x8xf32>
  return %3 : tensor<2x4x8xf32>
}

func.func @matmul_gelu_erf(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %sqrt2 = tgc.constant dense<1.41421354> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tgc.div %1, %sqrt2 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %3 = tgc.erf %2 : tensor<4x8xf32>
  %4 = tgc.add %3, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %5 = tgc.mul %1, %4 : tensor<4x8xf32>
  %6 = tgc.mul %5, %half : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %6 : tensor<4x8xf32>
}

func.func @chain_spelled_out(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %kappa = tgc.constant dense<0.044715> : tensor<f32>
  %beta = tgc.constant dense<0.797884583> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %three = tgc.constant dense<3.0> : tensor<f32>
  %six = tgc.constant dense<6.0> : tensor<f32>
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.mul %0, %0 : tensor<4x8xf32>
  %2 = tgc.mul %0, %1 : tensor<4x8xf32>
  %3 = tgc.mul %kappa, %2 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = tgc.add %0, %3 : tensor<4x8xf32>
  %5 = tgc.mul %beta, %4 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = tgc.tanh %5 : tensor<4x8xf32>
  %7 = tgc.add %one, %6 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = tgc.mul %0, %7 : tensor<4x8xf32>
  %9 = tgc.mul %half, %8 : (tensor<f32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %10 = tgc.add %9, %three : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %11 = tgc.clamp %10 {max = 6.0 : f64, min = 0.0 : f64} : tensor<4x8xf32>
  %12 = tgc.mul %9, %11 : tensor<4x8xf32>
  %13 = tgc.div %12, %six : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %14 = tgc.exp %13 : tensor<4x8xf32>
  %15 = tgc.add %14, %one : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %16 = tgc.log %15 : tensor<4x8xf32>
  %17 = tgc.tanh %16 : tensor<4x8xf32>
  %18 = tgc.mul %13, %17 : tensor<4x8xf32>
  return %18 : tensor<4x8xf32>
}

func.func @conv_activations(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %0 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  %1 = tgc.leaky_relu %0 {alpha = 0.2 : f64} : tensor<1x8x4x4xf32>
  %2 = tgc.elu %1 : tensor<1x8x4x4xf32>
  %3 = tgc.gelu %2 {approximate = #tgc.gelu_approximation<tanh>} : tensor<1x8x4x4xf32>
  %4 = tgc.tanh %3 : tensor<1x8x4x4xf32>
  %5 = tgc.sigmoid %4 : tensor<1x8x4x4xf32>
  return %5 : tensor<1x8x4x4xf32>
}

func.func @intermediate_other_user(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tgc.relu %1 : tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @result_other_user(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.relu %0 : tensor<4x8xf32>
  %2 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %3 = tgc.sigmoid %2 : tensor<4x8xf32>
  %4 = tgc.mul %2, %3 : tensor<4x8xf32>
  return %0, %1, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @activation_not_in_table(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.exp %0 : tensor<4x8xf32>
  %2 = tgc.relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

func.func @bias_wrong_shape(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<6xf32>, %c: tensor<2x1x1x1xf32>, %y: tensor<?x8xf32>, %m: tensor<8x8xf32>, %r: tensor<?x8xf32>) -> (tensor<1x8x6x6xf32>, tensor<2x8x6x6xf32>, tensor<?x8xf32>) {
  %0 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %1 = tgc.add %0, %b : (tensor<1x8x6x6xf32>, tensor<6xf32>) -> tensor<1x8x6x6xf32>
  %2 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %3 = tgc.add %2, %c : (tensor<1x8x6x6xf32>, tensor<2x1x1x1xf32>) -> tensor<2x8x6x6xf32>
  %4 = tgc.matmul %y, %m : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %5 = tgc.add %4, %r : tensor<?x8xf32>
  return %1, %3, %5 : tensor<1x8x6x6xf32>, tensor<2x8x6x6xf32>, tensor<?x8xf32>
}

func.func @residual_depends_on_result(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %i: tensor<4x8xi32>, %j: tensor<8x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
  %0 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.tanh %0 : tensor<4x8xf32>
  %2 = tgc.add %0, %1 : tensor<4x8xf32>
  %3 = tgc.matmul %i, %j : (tensor<4x8xi32>, tensor<8x8xi32>) -> tensor<4x8xi32>
  %4 = tgc.relu %3 : tensor<4x8xi32>
  return %2, %4 : tensor<4x8xf32>, tensor<4x8xi32>
}

func.func @nhwc_residual(%x: tensor<2x5x7x16xf32>, %w: tensor<3x3x16x16xf32>, %r: tensor<2x5x7x16xf32>) -> tensor<2x5x7x16xf32> {
  %0 = tgc.conv2d %x, %w {layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x5x7x16xf32>, tensor<3x3x16x16xf32>) -> tensor<2x5x7x16xf32>
  %1 = tgc.relu %0 : tensor<2x5x7x16xf32>
  %2 = tgc.add %1, %r : tensor<2x5x7x16xf32>
  %3 = tgc.relu %2 : tensor<2x5x7x16xf32>
  return %3 : tensor<2x5x7x16xf32>
}

func.func @nhwc_depthwise_residual(%x: tensor<2x5x7x16xf32>, %w: tensor<3x3x1x16xf32>, %r: tensor<2x5x7x16xf32>) -> tensor<2x5x7x16xf32> {
  %0 = tgc.conv2d %x, %w {groups = 16 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x5x7x16xf32>, tensor<3x3x1x16xf32>) -> tensor<2x5x7x16xf32>
  %1 = tgc.add %r, %0 : tensor<2x5x7x16xf32>
  return %1 : tensor<2x5x7x16xf32>
}

// Constant weights (prepacked once) with a constant bias, a residual and
// relu: the ResNet block's last convolution.
func.func @resnet_tail(%x: tensor<1x16x8x8xf32>, %r: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = tgc.constant dense<0.03125> : tensor<16x16x3x3xf32>
  %b = tgc.constant dense<[0.1, -0.1, 0.2, -0.2, 0.3, -0.3, 0.4, -0.4, 0.5, -0.5, 0.6, -0.6, 0.7, -0.7, 0.8, -0.8]> : tensor<16xf32>
  %0 = tgc.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x8x8xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  %1 = tgc.add %0, %r : tensor<1x16x8x8xf32>
  %2 = tgc.relu %1 : tensor<1x16x8x8xf32>
  return %2 : tensor<1x16x8x8xf32>
}

// The residual add after a reshape of the chain's result joins the chain
// (the residual is viewed with the matmul's shape).
func.func @residual_through_reshape_mm(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %r: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tgc.reshape %1 : tensor<4x8xf32> to tensor<1x4x8xf32>
  %3 = tgc.add %r, %2 : tensor<1x4x8xf32>
  return %3 : tensor<1x4x8xf32>
}

// A splat bias (a shift) then a scale: consecutive linear post-ops become
// one (oneDNN 2.6 would apply the first one's alpha/beta twice).
func.func @shift_then_scale_mm(%x: tensor<4x1x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x1x8xf32> {
  %b = tgc.constant dense<0.5> : tensor<8xf32>
  %0 = tgc.matmul %x, %w : (tensor<4x1x8xf32>, tensor<8x8xf32>) -> tensor<4x1x8xf32>
  %1 = tgc.add %0, %b : (tensor<4x1x8xf32>, tensor<8xf32>) -> tensor<4x1x8xf32>
  %c = tgc.constant dense<8.0> : tensor<f32>
  %2 = tgc.div %1, %c : (tensor<4x1x8xf32>, tensor<f32>) -> tensor<4x1x8xf32>
  return %2 : tensor<4x1x8xf32>
}

// Two linear post-ops with an activation between them: the second runs
// natively after the primitive.
func.func @scale_relu_scale_mm(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %c3 = tgc.constant dense<3.0> : tensor<f32>
  %1 = tgc.mul %0, %c3 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %2 = tgc.relu %1 : tensor<4x8xf32>
  %c8 = tgc.constant dense<8.0> : tensor<f32>
  %3 = tgc.div %2, %c8 : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}
