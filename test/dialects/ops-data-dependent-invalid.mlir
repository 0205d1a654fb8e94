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
