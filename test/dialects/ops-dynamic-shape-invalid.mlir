// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the shape ops.

func.func @shape_of_wrong_length(%x: tensor<?x16xf32>) -> tensor<3xi64> {
  // expected-error @+2 {{'tgc.shape_of' op inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.shape_of %x : tensor<?x16xf32> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @dynamic_reshape_rank_mismatch(%x: tensor<?x64xf32>, %s: tensor<3xi64>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'tgc.dynamic_reshape' op inferred type(s) 'tensor<?x?x?xf32>' are incompatible with return type(s) of operation 'tensor<?x?xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.dynamic_reshape %x, %s : (tensor<?x64xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dynamic_reshape_unranked_length(%x: tensor<?x64xf32>, %s: tensor<?xi64>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'tgc.dynamic_reshape' op shape must be a 1-D tensor of static length, got ?}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.dynamic_reshape %x, %s : (tensor<?x64xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dynamic_reshape_shape_dtype(%x: tensor<?x64xf32>, %s: tensor<2xi32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tgc.dynamic_reshape' op operand #1 must be ranked tensor of 64-bit signless integer values}}
  %0 = tgc.dynamic_reshape %x, %s : (tensor<?x64xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dynamic_reshape_bad_dim(%x: tensor<2x6xf32>) -> tensor<?x?xf32> {
  %s = tgc.constant dense<[-2, 6]> : tensor<2xi64>
  // expected-error @+2 {{'tgc.dynamic_reshape' op shape has invalid dim -2 (dims are >= 0, or -1 to infer one)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.dynamic_reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dynamic_reshape_two_inferred(%x: tensor<2x6xf32>) -> tensor<?x?xf32> {
  %s = tgc.constant dense<-1> : tensor<2xi64>
  // expected-error @+2 {{'tgc.dynamic_reshape' op shape may contain -1 (infer this dim) only once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.dynamic_reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dynamic_reshape_count(%x: tensor<2x6xf32>) -> tensor<?x?xf32> {
  %s = tgc.constant dense<[5, 2]> : tensor<2xi64>
  // expected-error @+2 {{'tgc.dynamic_reshape' op cannot reshape input 2x6 (12 elements) to 5x2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tgc.dynamic_reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
