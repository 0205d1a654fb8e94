// RUN: tgc-opt %s -tgc-fuse-post-ops -split-input-file | FileCheck %s

// tgc-fuse-post-ops: contraction + bias + activation chain + residual add
// become one tgc.fusion <contraction>, as the post-op table allows.

// conv2d + per-channel bias + relu: one fusion; the bias is an input, the
// contraction's operands come first.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x4x6x6xf32>, %[[W:[^:]+]]: tensor<8x4x3x3xf32>, %[[B:[^:]+]]: tensor<8x1x1xf32>)
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>(%[[X]], %[[W]], %[[B]]) : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<1x4x6x6xf32>, %[[A1:.*]]: tensor<8x4x3x3xf32>, %[[A2:.*]]: tensor<8x1x1xf32>):
// CHECK-NEXT:      %[[C:.*]] = tgc.conv2d %[[A0]], %[[A1]] {padding = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:      %[[S:.*]] = tgc.add %[[C]], %[[A2]]
// CHECK-NEXT:      %[[R:.*]] = tgc.relu %[[S]]
// CHECK-NEXT:      tgc.yield %[[R]] : tensor<1x8x6x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @conv_bias_relu(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32> {
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = tgc.add %0, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %2 = tgc.relu %1 : tensor<1x8x6x6xf32>
  return %2 : tensor<1x8x6x6xf32>
}

// -----

// Depthwise NHWC conv2d with its own bias, relu6 as clamp, then a residual
// add and an activation after it; a constant bias of the right shape.
// CHECK-LABEL: func.func @dwconv_relu6_residual(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x6x6x8xf32>, %[[W:[^:]+]]: tensor<3x3x1x8xf32>, %[[R:[^:]+]]: tensor<1x6x6x8xf32>)
// CHECK-NEXT:    %[[B:.*]] = tgc.constant dense<[1.000000e+00, {{.*}}]> : tensor<8xf32>
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>(%[[X]], %[[W]], %[[B]], %[[R]])
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<1x6x6x8xf32>, %[[A1:.*]]: tensor<3x3x1x8xf32>, %[[A2:.*]]: tensor<8xf32>, %[[A3:.*]]: tensor<1x6x6x8xf32>):
// CHECK-NEXT:      %[[C:.*]] = tgc.conv2d %[[A0]], %[[A1]] {groups = 8 : i64, layout = #tgc.layout<NHWC>
// CHECK-NEXT:      %[[S:.*]] = tgc.add %[[A2]], %[[C]]
// CHECK-NEXT:      %[[M:.*]] = tgc.clamp %[[S]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK-NEXT:      %[[P:.*]] = tgc.add %[[M]], %[[A3]]
// CHECK-NEXT:      %[[Y:.*]] = tgc.relu %[[P]]
// CHECK-NEXT:      tgc.yield %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @dwconv_relu6_residual(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x1x8xf32>, %r: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %b = tgc.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %0 = tgc.conv2d %x, %w {groups = 8 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<3x3x1x8xf32>) -> tensor<1x6x6x8xf32>
  %1 = tgc.add %b, %0 : (tensor<8xf32>, tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %2 = tgc.clamp %1 {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x6x6x8xf32>
  %3 = tgc.add %2, %r : tensor<1x6x6x8xf32>
  %4 = tgc.relu %3 : tensor<1x6x6x8xf32>
  return %4 : tensor<1x6x6x8xf32>
}

// -----

// Batched matmul, scaled by a constant scalar (linear), swish spelled out.
// Splat constants are cloned into the body.
// CHECK-LABEL: func.func @bmm_scale_swish(
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<2x4x16xf32>, %[[K:[^:]+]]: tensor<2x8x16xf32>)
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>(%[[Q]], %[[K]])
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: tensor<2x4x16xf32>, %[[A1:.*]]: tensor<2x8x16xf32>):
// CHECK-NEXT:      %[[M:.*]] = tgc.matmul %[[A0]], %[[A1]] {transpose_b}
// CHECK-NEXT:      %[[C:.*]] = tgc.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT:      %[[S:.*]] = tgc.mul %[[M]], %[[C]]
// CHECK-NEXT:      %[[G:.*]] = tgc.sigmoid %[[S]]
// CHECK-NEXT:      %[[Y:.*]] = tgc.mul %[[S]], %[[G]]
// CHECK-NEXT:      tgc.yield %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @bmm_scale_swish(%q: tensor<2x4x16xf32>, %k: tensor<2x8x16xf32>) -> tensor<2x4x8xf32> {
  %c = tgc.constant dense<0.25> : tensor<f32>
  %0 = tgc.matmul %q, %k {transpose_b} : (tensor<2x4x16xf32>, tensor<2x8x16xf32>) -> tensor<2x4x8xf32>
  %1 = tgc.mul %0, %c : (tensor<2x4x8xf32>, tensor<f32>) -> tensor<2x4x8xf32>
  %2 = tgc.sigmoid %1 : tensor<2x4x8xf32>
  %3 = tgc.mul %1, %2 : tensor<2x4x8xf32>
  return %3 : tensor<2x4x8xf32>
}

// -----

// GELU (erf) as PyTorch exports it to ONNX, after matmul + bias.
// CHECK-LABEL: func.func @matmul_gelu_erf(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x16xf32>, %[[W:[^:]+]]: tensor<16x8xf32>, %[[B:[^:]+]]: tensor<8xf32>)
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>(%[[X]], %[[W]], %[[B]])
// CHECK:           tgc.matmul
// CHECK:           tgc.add
// CHECK:           tgc.div
// CHECK:           tgc.erf
// CHECK:           tgc.add
// CHECK:           tgc.mul
// CHECK:           %[[Y:.*]] = tgc.mul
// CHECK-NEXT:      tgc.yield %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
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

// -----

// GELU (tanh) as PyTorch exports it, hardswish and mish spelled out, in one
// chain.
// CHECK-LABEL: func.func @chain_spelled_out(
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>(%{{.*}}, %{{.*}}) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK:           tgc.matmul
// CHECK:           tgc.tanh
// CHECK:           tgc.clamp
// CHECK:           tgc.exp
// CHECK:           tgc.log
// CHECK:           tgc.tanh
// CHECK:           %[[Y:.*]] = tgc.mul
// CHECK-NEXT:      tgc.yield %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
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

// -----

// Activation ops with parameters.
// CHECK-LABEL: func.func @conv_activations(
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>
// CHECK:           tgc.conv2d
// CHECK-NEXT:      tgc.leaky_relu
// CHECK-NEXT:      tgc.elu
// CHECK-NEXT:      tgc.gelu
// CHECK-NEXT:      tgc.tanh
// CHECK-NEXT:      %[[Y:.*]] = tgc.sigmoid
// CHECK-NEXT:      tgc.yield %[[Y]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @conv_activations(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %0 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  %1 = tgc.leaky_relu %0 {alpha = 0.2 : f64} : tensor<1x8x4x4xf32>
  %2 = tgc.elu %1 : tensor<1x8x4x4xf32>
  %3 = tgc.gelu %2 {approximate = #tgc.gelu_approximation<tanh>} : tensor<1x8x4x4xf32>
  %4 = tgc.tanh %3 : tensor<1x8x4x4xf32>
  %5 = tgc.sigmoid %4 : tensor<1x8x4x4xf32>
  return %5 : tensor<1x8x4x4xf32>
}

// -----

// Negative: an intermediate with another user is not fused away: the fusion
// stops at the bias add, which is also returned.
// CHECK-LABEL: func.func @intermediate_other_user(
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>
// CHECK:           tgc.matmul
// CHECK-NEXT:      %[[S:.*]] = tgc.add
// CHECK-NEXT:      tgc.yield %[[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[F]]
// CHECK-NEXT:    return %[[F]], %[[R]]
func.func @intermediate_other_user(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tgc.relu %1 : tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Negative: a contraction result used twice is not fused at all; neither is
// a partial x * sigmoid(x) whose sigmoid is also returned.
// CHECK-LABEL: func.func @result_other_user(
// CHECK-NOT:     tgc.fusion
// CHECK:         %[[M:.*]] = tgc.matmul
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[M]]
// CHECK-NEXT:    %[[N:.*]] = tgc.matmul
// CHECK-NEXT:    %[[S:.*]] = tgc.sigmoid %[[N]]
// CHECK-NEXT:    %[[P:.*]] = tgc.mul %[[N]], %[[S]]
// CHECK-NEXT:    return %[[M]], %[[R]], %[[S]], %[[P]]
func.func @result_other_user(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.relu %0 : tensor<4x8xf32>
  %2 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %3 = tgc.sigmoid %2 : tensor<4x8xf32>
  %4 = tgc.mul %2, %3 : tensor<4x8xf32>
  return %0, %1, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Negative: an activation not in the table (exp) ends the chain.
// CHECK-LABEL: func.func @activation_not_in_table(
// CHECK-NOT:     tgc.fusion
// CHECK:         tgc.matmul
// CHECK-NEXT:    tgc.exp
// CHECK-NEXT:    tgc.relu
func.func @activation_not_in_table(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.exp %0 : tensor<4x8xf32>
  %2 = tgc.relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// Negative: biases of the wrong shape: [6] lines up with W, not with the
// channels of NCHW; [2x1x1x1] would broadcast the result to a larger shape;
// a residual with a dynamic dim is not known to keep the shape.
// CHECK-LABEL: func.func @bias_wrong_shape(
// CHECK-NOT:     tgc.fusion
// CHECK:         tgc.conv2d
// CHECK-NEXT:    tgc.add
// CHECK-NEXT:    tgc.conv2d
// CHECK-NEXT:    tgc.add
// CHECK-NEXT:    tgc.matmul
// CHECK-NEXT:    tgc.add
// CHECK-NEXT:    return
func.func @bias_wrong_shape(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x1x1xf32>, %b: tensor<6xf32>, %c: tensor<2x1x1x1xf32>, %y: tensor<?x8xf32>, %m: tensor<8x8xf32>, %r: tensor<?x8xf32>) -> (tensor<1x8x6x6xf32>, tensor<2x8x6x6xf32>, tensor<?x8xf32>) {
  %0 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %1 = tgc.add %0, %b : (tensor<1x8x6x6xf32>, tensor<6xf32>) -> tensor<1x8x6x6xf32>
  %2 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %3 = tgc.add %2, %c : (tensor<1x8x6x6xf32>, tensor<2x1x1x1xf32>) -> tensor<2x8x6x6xf32>
  %4 = tgc.matmul %y, %m : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %5 = tgc.add %4, %r : tensor<?x8xf32>
  return %1, %3, %5 : tensor<1x8x6x6xf32>, tensor<2x8x6x6xf32>, tensor<?x8xf32>
}

// -----

// Negative: the residual operand depends on the contraction (fusing it
// would make a cycle); integer matmuls are not fused.
// CHECK-LABEL: func.func @residual_depends_on_result(
// CHECK-NOT:     tgc.fusion
// CHECK:         %[[M:.*]] = tgc.matmul
// CHECK-NEXT:    %[[T:.*]] = tgc.tanh %[[M]]
// CHECK-NEXT:    tgc.add %[[M]], %[[T]]
// CHECK-NEXT:    tgc.matmul
// CHECK-NEXT:    tgc.relu
// CHECK-NEXT:    return
func.func @residual_depends_on_result(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %i: tensor<4x8xi32>, %j: tensor<8x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
  %0 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.tanh %0 : tensor<4x8xf32>
  %2 = tgc.add %0, %1 : tensor<4x8xf32>
  %3 = tgc.matmul %i, %j : (tensor<4x8xi32>, tensor<8x8xi32>) -> tensor<4x8xi32>
  %4 = tgc.relu %3 : tensor<4x8xi32>
  return %2, %4 : tensor<4x8xf32>, tensor<4x8xi32>
}

// -----

// A residual add after a reshape (a view) of the chain's result: the
// reshape moves below the add, the residual is viewed with the
// contraction's shape, and the add joins the chain (the attention output
// projection of a transformer: [S, D] -> [1, S, D] before the residual).
// CHECK-LABEL: func.func @residual_through_reshape(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[R:.*]]: tensor<1x4x8xf32>)
// CHECK:         %[[V:.*]] = tgc.reshape %[[R]] : tensor<1x4x8xf32> to tensor<4x8xf32>
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>(%[[X]], %[[W]], %[[B]], %[[V]])
// CHECK:           tgc.matmul
// CHECK-NEXT:      %[[A:.*]] = tgc.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NEXT:      %[[S:.*]] = tgc.add %{{.*}}, %[[A]] : tensor<4x8xf32>
// CHECK-NEXT:      tgc.yield %[[S]]
// CHECK:         %[[O:.*]] = tgc.reshape %[[F]] : tensor<4x8xf32> to tensor<1x4x8xf32>
// CHECK-NEXT:    return %[[O]]
func.func @residual_through_reshape(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>, %r: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = tgc.reshape %1 : tensor<4x8xf32> to tensor<1x4x8xf32>
  %3 = tgc.add %r, %2 : tensor<1x4x8xf32>
  return %3 : tensor<1x4x8xf32>
}

// -----

// Negative: the reshaped result has another user, the residual depends on
// the contraction, the add broadcasts: the adds stay outside.
// CHECK-LABEL: func.func @residual_through_reshape_negative(
// CHECK:         tgc.fusion <contraction>
// CHECK-NOT:       tgc.reshape
// CHECK:         %[[R0:.*]] = tgc.reshape %{{.*}} : tensor<4x8xf32> to tensor<1x4x8xf32>
// CHECK-NEXT:    tgc.add %{{.*}}, %[[R0]] : tensor<1x4x8xf32>
// CHECK:         %[[M1:.*]] = tgc.matmul
// CHECK-NEXT:    %[[R1:.*]] = tgc.reshape %[[M1]]
// CHECK-NEXT:    %[[T1:.*]] = tgc.tanh %[[R1]]
// CHECK-NEXT:    tgc.add %[[T1]], %[[R1]]
// CHECK:         %[[M2:.*]] = tgc.matmul
// CHECK-NEXT:    %[[R2:.*]] = tgc.reshape %[[M2]]
// CHECK-NEXT:    tgc.add %[[R2]], %{{.*}} : (tensor<1x4x8xf32>, tensor<2x4x8xf32>)
// CHECK-NOT:     tgc.fusion
func.func @residual_through_reshape_negative(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %r: tensor<1x4x8xf32>, %q: tensor<2x4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<2x4x8xf32>) {
  %0 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = tgc.relu %0 : tensor<4x8xf32>
  %2 = tgc.reshape %1 : tensor<4x8xf32> to tensor<1x4x8xf32>
  %3 = tgc.add %r, %2 : tensor<1x4x8xf32>
  %4 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %5 = tgc.reshape %4 : tensor<4x8xf32> to tensor<1x4x8xf32>
  %6 = tgc.tanh %5 : tensor<1x4x8xf32>
  %7 = tgc.add %6, %5 : tensor<1x4x8xf32>
  %8 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %9 = tgc.reshape %8 : tensor<4x8xf32> to tensor<1x4x8xf32>
  %10 = tgc.add %9, %q : (tensor<1x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %2, %3, %7, %10 : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<2x4x8xf32>
}
