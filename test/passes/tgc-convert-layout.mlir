// RUN: tgc-opt %s -tgc-convert-layout -split-input-file | FileCheck %s
// RUN: tgc-opt %s -tgc-convert-layout=target=nhwc -split-input-file | FileCheck %s
// RUN: not tgc-opt %s -tgc-convert-layout=target=nchw -split-input-file 2>&1 | FileCheck %s --check-prefix=TARGET

// tgc-convert-layout: NCHW conv2d to NHWC/HWIO, transposes sunk, hoisted and
// cancelled.

// TARGET: error: tgc-convert-layout: unsupported target 'nchw' (expected nhwc)

// A constant OIHW filter gets a lazy transpose to HWIO, which canonicalization
// does not fold into a second constant (the CPU backend reads the OIHW
// constant itself); the relu runs in NHWC and the transpose back sits before
// the return.
// CHECK-LABEL: func.func @conv_relu(
// CHECK-SAME:    %[[X:.*]]: tensor<1x2x5x5xf32>)
// CHECK-DAG:     %[[W:.*]] = tgc.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG:     %[[XT:.*]] = tgc.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x2x5x5xf32>) -> tensor<1x5x5x2xf32>
// CHECK-DAG:     %[[WT:.*]] = tgc.transpose %[[W]] {lazy, permutation = array<i64: 2, 3, 1, 0>} : (tensor<2x2x1x1xf32>) -> tensor<1x1x2x2xf32>
// CHECK:         %[[C:.*]] = tgc.conv2d %[[XT]], %[[WT]] {layout = #tgc.layout<NHWC>} : (tensor<1x5x5x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x5x5x2xf32>
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[C]] : tensor<1x5x5x2xf32>
// CHECK-NEXT:    %[[RT:.*]] = tgc.transpose %[[R]] {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x2xf32>) -> tensor<1x2x5x5xf32>
// CHECK-NEXT:    return %[[RT]]
func.func @conv_relu(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %w = tgc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %0 = tgc.conv2d %x, %w : (tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x5x5xf32>
  %1 = tgc.relu %0 : tensor<1x2x5x5xf32>
  return %1 : tensor<1x2x5x5xf32>
}

// -----

// Two convolutions with a per-channel constant bias, a clamp and a scale
// given as an argument between them (dynamic batch): the transposes between
// the convolutions cancel; the constant bias is transposed at compile time,
// the argument reshaped (a view). Non-constant filters get a transpose.
// CHECK-LABEL: func.func @chain_bias(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4x8x8xf32>, %[[W1:[^:]*]]: tensor<8x4x3x3xf32>, %[[W2:[^:]*]]: tensor<8x8x1x1xf32>, %[[S:[^:]*]]: tensor<8x1x1xf32>)
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<{{\[\[\[\[}}5.000000e-01, 1.500000e+00, {{.*}}]]]]> : tensor<1x1x1x8xf32>
// CHECK-DAG:     %[[XT:.*]] = tgc.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>} : (tensor<?x4x8x8xf32>) -> tensor<?x8x8x4xf32>
// CHECK-DAG:     %[[W1T:.*]] = tgc.transpose %[[W1]] {permutation = array<i64: 2, 3, 1, 0>} : (tensor<8x4x3x3xf32>) -> tensor<3x3x4x8xf32>
// CHECK:         %[[C1:.*]] = tgc.conv2d %[[XT]], %[[W1T]] {layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[C1]], %[[B]] : (tensor<?x8x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<?x8x8x8xf32>
// CHECK-NEXT:    %[[CL:.*]] = tgc.clamp %[[A]]
// CHECK-NEXT:    %[[W2T:.*]] = tgc.transpose %[[W2]] {permutation = array<i64: 2, 3, 1, 0>}
// CHECK-NEXT:    %[[C2:.*]] = tgc.conv2d %[[CL]], %[[W2T]] {layout = #tgc.layout<NHWC>}
// CHECK-NEXT:    %[[ST:.*]] = tgc.reshape %[[S]] : tensor<8x1x1xf32> to tensor<1x1x1x8xf32>
// CHECK-NEXT:    %[[M:.*]] = tgc.mul %[[C2]], %[[ST]] : (tensor<?x8x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<?x8x8x8xf32>
// CHECK-NEXT:    %[[MT:.*]] = tgc.transpose %[[M]] {permutation = array<i64: 0, 3, 1, 2>} : (tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
// CHECK-NEXT:    return %[[MT]]
func.func @chain_bias(%x: tensor<?x4x8x8xf32>, %w1: tensor<8x4x3x3xf32>, %w2: tensor<8x8x1x1xf32>, %s: tensor<8x1x1xf32>) -> tensor<?x8x8x8xf32> {
  %c = tgc.constant dense<[[[0.5]], [[1.5]], [[2.5]], [[3.5]], [[0.5]], [[1.5]], [[2.5]], [[3.5]]]> : tensor<8x1x1xf32>
  %0 = tgc.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x8x8xf32>
  %1 = tgc.add %0, %c : (tensor<?x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<?x8x8x8xf32>
  %2 = tgc.clamp %1 {min = 0.0 : f64, max = 6.0 : f64} : tensor<?x8x8x8xf32>
  %3 = tgc.conv2d %2, %w2 : (tensor<?x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x8x8xf32>
  %4 = tgc.mul %3, %s : (tensor<?x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<?x8x8x8xf32>
  return %4 : tensor<?x8x8x8xf32>
}

// -----

// Batch norm (axis 1 -> 3), pools (layout NHWC) and the global average pool
// before a flatten: the last transpose only moves size-1 dims and becomes a
// reshape, which folds into the flatten. No transpose is left at the end.
// CHECK-LABEL: func.func @head(
// CHECK:         tgc.transpose %{{.*}} {permutation = array<i64: 0, 2, 3, 1>} : (tensor<2x3x16x16xf32>) -> tensor<2x16x16x3xf32>
// CHECK:         %[[C:.*]] = tgc.conv2d {{.*}}layout = #tgc.layout<NHWC>
// CHECK-NEXT:    %[[BN:.*]] = tgc.batch_norm %[[C]], {{.*}} {axis = 3 : i64} : (tensor<2x16x16x8xf32>, {{.*}}) -> tensor<2x16x16x8xf32>
// CHECK-NEXT:    %[[MP:.*]] = tgc.max_pool2d %[[BN]] {kernel = array<i64: 2, 2>, layout = #tgc.layout<NHWC>, strides = array<i64: 2, 2>} : (tensor<2x16x16x8xf32>) -> tensor<2x8x8x8xf32>
// CHECK-NEXT:    %[[AP:.*]] = tgc.avg_pool2d %[[MP]] {{.*}}layout = #tgc.layout<NHWC>
// CHECK-NEXT:    %[[GP:.*]] = tgc.global_avg_pool2d %[[AP]] {layout = #tgc.layout<NHWC>} : (tensor<2x8x8x8xf32>) -> tensor<2x1x1x8xf32>
// CHECK-NEXT:    %[[F:.*]] = tgc.reshape %[[GP]] : tensor<2x1x1x8xf32> to tensor<2x8xf32>
// CHECK-NEXT:    %[[MM:.*]] = tgc.matmul %[[F]], %{{.*}}
// CHECK-NEXT:    return %[[MM]]
func.func @head(%x: tensor<2x3x16x16xf32>, %w: tensor<8x3x3x3xf32>, %fc: tensor<8x10xf32>,
                %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<2x10xf32> {
  %0 = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x16x16xf32>
  %1 = tgc.batch_norm %0, %s, %b, %m, %v : (tensor<2x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x16x16xf32>
  %2 = tgc.max_pool2d %1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>) -> tensor<2x8x8x8xf32>
  %3 = tgc.avg_pool2d %2 {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %4 = tgc.global_avg_pool2d %3 : (tensor<2x8x8x8xf32>) -> tensor<2x8x1x1xf32>
  %5 = tgc.reshape %4 : tensor<2x8x1x1xf32> to tensor<2x8xf32>
  %6 = tgc.matmul %5, %fc : (tensor<2x8xf32>, tensor<8x10xf32>) -> tensor<2x10xf32>
  return %6 : tensor<2x10xf32>
}

// -----

// A residual block whose input is an argument: the add reuses the input's
// transpose made for the first convolution, so the whole block is NHWC with
// one transpose in and one out.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x8x4x4xf32>
// CHECK:         %[[XT:.*]] = tgc.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK:         %[[C1:.*]] = tgc.conv2d %[[XT]], {{.*}}layout = #tgc.layout<NHWC>
// CHECK-NEXT:    %[[R1:.*]] = tgc.relu %[[C1]]
// CHECK-NEXT:    tgc.transpose
// CHECK-NEXT:    %[[C2:.*]] = tgc.conv2d %[[R1]], {{.*}}layout = #tgc.layout<NHWC>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[C2]], %[[XT]] : tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[A]] : tensor<1x4x4x8xf32>
// CHECK-NOT:     permutation = array<i64: 0, 2, 3, 1>
// CHECK:         %[[C3:.*]] = tgc.conv2d %[[R]], {{.*}}layout = #tgc.layout<NHWC>
// CHECK-NEXT:    %[[A2:.*]] = tgc.add %[[C3]], %[[R]] : tensor<1x4x4x8xf32>
// CHECK-NEXT:    %[[T:.*]] = tgc.transpose %[[A2]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    return %[[T]]
func.func @residual(%x: tensor<1x8x4x4xf32>, %w1: tensor<8x8x3x3xf32>, %w2: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %0 = tgc.conv2d %x, %w1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %1 = tgc.relu %0 : tensor<1x8x4x4xf32>
  %2 = tgc.conv2d %1, %w2 : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %3 = tgc.add %2, %x : tensor<1x8x4x4xf32>
  %4 = tgc.relu %3 : tensor<1x8x4x4xf32>
  %5 = tgc.conv2d %4, %w2 : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %6 = tgc.add %5, %4 : tensor<1x8x4x4xf32>
  return %6 : tensor<1x8x4x4xf32>
}

// -----

// Negative cases: an add with an NCHW argument that is not transposed
// anywhere, a gather and a flatten of a non-1x1 map keep the transpose back
// to NCHW in front of them.
// CHECK-LABEL: func.func @negative(
// CHECK-SAME:    %{{[^:]*}}: tensor<1x4x6x6xf32>, %{{[^:]*}}: tensor<4x4x1x1xf32>, %[[Y:[^:]*]]: tensor<1x4x6x6xf32>, %[[I:[^:]*]]: tensor<2xi64>)
// CHECK:         %[[C:.*]] = tgc.conv2d {{.*}}layout = #tgc.layout<NHWC>
// CHECK-NEXT:    %[[T:.*]] = tgc.transpose %[[C]] {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x4xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[T]], %[[Y]] : tensor<1x4x6x6xf32>
// CHECK-NEXT:    %[[G:.*]] = tgc.gather %[[T]], %[[I]] {axis = 1 : i64}
// CHECK-NEXT:    %[[F:.*]] = tgc.reshape %[[T]] : tensor<1x4x6x6xf32> to tensor<1x144xf32>
// CHECK-NEXT:    return %[[A]], %[[G]], %[[F]]
func.func @negative(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>, %y: tensor<1x4x6x6xf32>, %i: tensor<2xi64>) -> (tensor<1x4x6x6xf32>, tensor<1x2x6x6xf32>, tensor<1x144xf32>) {
  %0 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = tgc.add %0, %y : tensor<1x4x6x6xf32>
  %2 = tgc.gather %0, %i {axis = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<2xi64>) -> tensor<1x2x6x6xf32>
  %3 = tgc.reshape %0 : tensor<1x4x6x6xf32> to tensor<1x144xf32>
  return %1, %2, %3 : tensor<1x4x6x6xf32>, tensor<1x2x6x6xf32>, tensor<1x144xf32>
}

// -----

// Without an NCHW convolution nothing changes: pools and activations alone
// stay NCHW, and an NHWC convolution (with its transposed input) is kept.
// CHECK-LABEL: func.func @no_conv(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x4x6x6xf32>, %[[W:[^:]*]]: tensor<3x3x4x4xf32>)
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[X]] : tensor<1x4x6x6xf32>
// CHECK-NEXT:    %[[P:.*]] = tgc.max_pool2d %[[R]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    %[[T:.*]] = tgc.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[C:.*]] = tgc.conv2d %[[T]], %[[W]] {layout = #tgc.layout<NHWC>
// CHECK-NEXT:    return %[[P]], %[[C]]
func.func @no_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<3x3x4x4xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x6x6x4xf32>) {
  %0 = tgc.relu %x : tensor<1x4x6x6xf32>
  %1 = tgc.max_pool2d %0 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
  %t = tgc.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x6xf32>) -> tensor<1x6x6x4xf32>
  %2 = tgc.conv2d %t, %w {layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x6x6x4xf32>
  return %1, %2 : tensor<1x4x3x3xf32>, tensor<1x6x6x4xf32>
}

// -----

// The transpose into NHWC before a depthwise convolution is hoisted through
// its single-use producers (a sigmoid and a per-channel subtraction, whose
// channel operand is reshaped) up to the argument.
// CHECK-LABEL: func.func @hoist(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x4x6x6xf32>, %[[W:[^:]*]]: tensor<4x1x3x3xf32>, %[[M:[^:]*]]: tensor<4x1x1xf32>)
// CHECK-NEXT:    %[[XT:.*]] = tgc.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x6xf32>) -> tensor<1x6x6x4xf32>
// CHECK-NEXT:    %[[MR:.*]] = tgc.reshape %[[M]] : tensor<4x1x1xf32> to tensor<1x1x1x4xf32>
// CHECK-NEXT:    %[[S:.*]] = tgc.sub %[[XT]], %[[MR]]
// CHECK-NEXT:    %[[G:.*]] = tgc.sigmoid %[[S]] : tensor<1x6x6x4xf32>
// CHECK-NEXT:    %[[WT:.*]] = tgc.transpose %[[W]] {permutation = array<i64: 2, 3, 1, 0>} : (tensor<4x1x3x3xf32>) -> tensor<3x3x1x4xf32>
// CHECK-NEXT:    %[[C:.*]] = tgc.conv2d %[[G]], %[[WT]] {groups = 4 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT:    %[[T:.*]] = tgc.transpose %[[C]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    return %[[T]]
func.func @hoist(%x: tensor<1x4x6x6xf32>, %w: tensor<4x1x3x3xf32>, %m: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %0 = tgc.sub %x, %m : (tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = tgc.sigmoid %0 : tensor<1x4x6x6xf32>
  %2 = tgc.conv2d %1, %w {groups = 4 : i64, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %2 : tensor<1x4x6x6xf32>
}

// -----

// Softmax over channels (axis 1 -> 3), a mean over H and W (no transpose
// after: the kept dims stay in order) and a concat with a constant along
// channels (axis 1 -> 3).
// CHECK-LABEL: func.func @softmax_reduce_concat(
// CHECK-DAG:     %[[K:.*]] = tgc.constant dense<1.000000e+00> : tensor<1x6x6x4xf32>
// CHECK:         %[[C:.*]] = tgc.conv2d {{.*}}layout = #tgc.layout<NHWC>
// CHECK-NEXT:    %[[SM:.*]] = tgc.softmax %[[C]] {axis = 3 : i64} : tensor<1x6x6x4xf32>
// CHECK-NEXT:    %[[SMT:.*]] = tgc.transpose %[[SM]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    %[[RM:.*]] = tgc.reduce_mean %[[C]] {axes = array<i64: 1, 2>} : (tensor<1x6x6x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    %[[CC:.*]] = tgc.concat %[[C]], %[[K]] {axis = 3 : i64} : (tensor<1x6x6x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x8xf32>
// CHECK-NEXT:    %[[CCT:.*]] = tgc.transpose %[[CC]] {permutation = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT:    return %[[SMT]], %[[RM]], %[[CCT]]
func.func @softmax_reduce_concat(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4xf32>, tensor<1x8x6x6xf32>) {
  %0 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = tgc.softmax %0 {axis = 1 : i64} : tensor<1x4x6x6xf32>
  %2 = tgc.reduce_mean %0 {axes = array<i64: 2, 3>} : (tensor<1x4x6x6xf32>) -> tensor<1x4xf32>
  %c = tgc.constant dense<1.0> : tensor<1x4x6x6xf32>
  %3 = tgc.concat %0, %c {axis = 1 : i64} : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %1, %2, %3 : tensor<1x4x6x6xf32>, tensor<1x4xf32>, tensor<1x8x6x6xf32>
}

// -----

// A reduction with keepdims over the channels (the transpose after it only
// moves a size-1 dim: a reshape), and a conv inside a fusion region (left
// alone).
// CHECK-LABEL: func.func @reduce_keepdims(
// CHECK:         %[[C:.*]] = tgc.conv2d {{.*}}layout = #tgc.layout<NHWC>
// CHECK-NEXT:    %[[R:.*]] = tgc.reduce_max %[[C]] {axes = array<i64: 3>, keepdims} : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x1xf32>
// CHECK-NEXT:    %[[T:.*]] = tgc.reshape %[[R]] : tensor<1x6x6x1xf32> to tensor<1x1x6x6xf32>
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <contraction>
// CHECK-NEXT:    ^bb0(
// CHECK-NEXT:      tgc.conv2d %{{.*}} : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
// CHECK:         return %[[T]], %[[F]]
func.func @reduce_keepdims(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x1x1xf32>) -> (tensor<1x1x6x6xf32>, tensor<1x4x6x6xf32>) {
  %0 = tgc.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
  %1 = tgc.reduce_max %0 {axes = array<i64: 1>, keepdims} : (tensor<1x4x6x6xf32>) -> tensor<1x1x6x6xf32>
  %2 = tgc.fusion <contraction> (%x, %w) : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  ^bb0(%a: tensor<1x4x6x6xf32>, %b: tensor<4x4x1x1xf32>):
    %3 = tgc.conv2d %a, %b : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x6x6xf32>
    %4 = tgc.relu %3 : tensor<1x4x6x6xf32>
    tgc.yield %4 : tensor<1x4x6x6xf32>
  }
  return %1, %2 : tensor<1x1x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// Pad and slice: per-dim attributes follow the dims, whether the transpose
// is sunk (the slice of a convolution's result) or hoisted (the pad before
// one).
// CHECK-LABEL: func.func @pad_slice(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x4x6x6xf32>
// CHECK-NEXT:    %[[XT:.*]] = tgc.transpose %[[X]] {permutation = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT:    %[[P:.*]] = tgc.pad %[[XT]] {high = array<i64: 0, 2, 0, 0>, low = array<i64: 0, 1, 1, 0>} : (tensor<1x6x6x4xf32>) -> tensor<1x9x7x4xf32>
// CHECK:         %[[C:.*]] = tgc.conv2d %[[P]], {{.*}}layout = #tgc.layout<NHWC>{{.*}} -> tensor<1x7x5x4xf32>
// CHECK-NEXT:    %[[S:.*]] = tgc.slice %[[C]] {ends = array<i64: 1, 7, 5, 3>, starts = array<i64: 0, 0, 1, 1>, steps = array<i64: 1, 2, 1, 1>} : (tensor<1x7x5x4xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT:    %[[T:.*]] = tgc.transpose %[[S]] {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    return %[[T]]
func.func @pad_slice(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %0 = tgc.pad %x {low = array<i64: 0, 0, 1, 1>, high = array<i64: 0, 0, 2, 0>} : (tensor<1x4x6x6xf32>) -> tensor<1x4x9x7xf32>
  %1 = tgc.conv2d %0, %w : (tensor<1x4x9x7xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x7x5xf32>
  %2 = tgc.slice %1 {starts = array<i64: 0, 1, 0, 1>, ends = array<i64: 1, 3, 7, 5>, steps = array<i64: 1, 1, 2, 1>} : (tensor<1x4x7x5xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}
