// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the data-dependent ops.

func.func @nonzero_rows(%x: tensor<2x3xf32>) -> tensor<3x?xi64> {
  // expected-error @+1 {{'tgc.nonzero' op result 'tensor<3x?xi64>' must have shape [2, n] (one row per dim of the input 'tensor<2x3xf32>')}}
  %0 = tgc.nonzero %x : (tensor<2x3xf32>) -> tensor<3x?xi64>
  return %0 : tensor<3x?xi64>
}

// -----

func.func @nonzero_type(%x: tensor<4xf32>) -> tensor<1x?xi32> {
  // expected-error @+1 {{'tgc.nonzero' op result #0 must be ranked tensor of 64-bit signless integer values}}
  %0 = tgc.nonzero %x : (tensor<4xf32>) -> tensor<1x?xi32>
  return %0 : tensor<1x?xi32>
}

// -----

func.func @unique_values(%x: tensor<2x3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tgc.unique' op values 'tensor<?xf32>' must have rank 2}}
  %v, %i, %inv, %c = tgc.unique %x {axis = 1 : i64} : (tensor<2x3xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  return %v : tensor<?xf32>
}

// -----

func.func @unique_axis(%x: tensor<2x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'tgc.unique' op axis 2 is out of range for the input 'tensor<2x3xf32>'}}
  %v, %i, %inv, %c = tgc.unique %x {axis = 2 : i64} : (tensor<2x3xf32>) -> (tensor<?x3xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  return %v : tensor<?x3xf32>
}

// -----

func.func @nms_boxes(%b: tensor<1x5x3xf32>, %s: tensor<1x2x5xf32>, %m: tensor<1xi64>, %t: tensor<1xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{'tgc.non_max_suppression' op boxes 'tensor<1x5x3xf32>' must be [batch, n, 4]}}
  %r = tgc.non_max_suppression %b, %s, %m, %t, %t : (tensor<1x5x3xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  return %r : tensor<?x3xi64>
}

// -----

func.func @nms_threshold(%b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>, %m: tensor<1xi64>, %t: tensor<2xf32>) -> tensor<?x3xi64> {
  // expected-error @+1 {{'tgc.non_max_suppression' op max_per_class, iou_threshold and score_threshold must hold one element each, not 'tensor<2xf32>'}}
  %r = tgc.non_max_suppression %b, %s, %m, %t, %t : (tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x3xi64>
  return %r : tensor<?x3xi64>
}

// -----

func.func @dynamic_slice_axes(%x: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tgc.dynamic_slice' op axes must be distinct dims of the input 'tensor<2x3xf32>', got 1}}
  %y = tgc.dynamic_slice %x, %s, %s, %s {axes = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

func.func @dynamic_slice_bounds(%x: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<2x?xf32> {
  // expected-error @+1 {{'tgc.dynamic_slice' op starts, ends and steps must hold one value per axis (1), not 'tensor<2xi64>'}}
  %y = tgc.dynamic_slice %x, %s, %s, %s {axes = array<i64: 1>} : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x?xf32>
  return %y : tensor<2x?xf32>
}

// -----

func.func @dynamic_slice_kept(%x: tensor<2x3xf32>, %s: tensor<1xi64>) -> tensor<3x?xf32> {
  // expected-error @+1 {{'tgc.dynamic_slice' op dim 0 is not sliced, so the result 'tensor<3x?xf32>' must keep it (input 'tensor<2x3xf32>')}}
  %y = tgc.dynamic_slice %x, %s, %s, %s {axes = array<i64: 1>} : (tensor<2x3xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x?xf32>
  return %y : tensor<3x?xf32>
}

// -----

func.func @dynamic_broadcast_to_rank(%x: tensor<2x3xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'tgc.dynamic_broadcast_to' op result 'tensor<?xf32>' must have rank 2 (the larger of the input's and the shape's length)}}
  %y = tgc.dynamic_broadcast_to %x, %s : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

func.func @dynamic_broadcast_to_shape(%x: tensor<3xf32>, %s: tensor<?xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'tgc.dynamic_broadcast_to' op shape must be a 1-D tensor of a static length, not 'tensor<?xi64>'}}
  %y = tgc.dynamic_broadcast_to %x, %s : (tensor<3xf32>, tensor<?xi64>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

func.func @dynamic_broadcast_to_dims(%x: tensor<3xf32>, %s: tensor<2xi64>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'tgc.dynamic_broadcast_to' op result 'tensor<?x4xf32>' cannot be a broadcast of the input 'tensor<3xf32>'}}
  %y = tgc.dynamic_broadcast_to %x, %s : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

func.func @dynamic_broadcast_to_type(%x: tensor<3xf32>, %s: tensor<2xi64>) -> tensor<?x3xf16> {
  // expected-error @+1 {{'tgc.dynamic_broadcast_to' op result 'tensor<?x3xf16>' must have the input's element type (input 'tensor<3xf32>')}}
  %y = tgc.dynamic_broadcast_to %x, %s : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x3xf16>
  return %y : tensor<?x3xf16>
}
