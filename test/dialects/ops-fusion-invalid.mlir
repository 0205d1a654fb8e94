// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of fusion regions.

func.func @arg_count(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.fusion' op body takes 2 arguments but the fusion has 1 inputs}}
  %0 = tgc.fusion <loop>(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>, %b: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @arg_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.fusion' op body argument #0 has type 'tensor<3xf32>' but input #0 is 'tensor<2xf32>'}}
  %0 = tgc.fusion <loop>(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<3xf32>):
    %c = tgc.constant dense<1.0> : tensor<2xf32>
    tgc.yield %c : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @yield_count(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.fusion' op body yields 2 values but the fusion has 1 results}}
  %0 = tgc.fusion <loop>(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a, %a : tensor<2xf32>, tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @yield_type(%x: tensor<2xf32>) -> tensor<2xf16> {
  // expected-error @+1 {{'tgc.fusion' op yielded value #0 has type 'tensor<2xf32>' but result #0 is 'tensor<2xf16>'}}
  %0 = tgc.fusion <loop>(%x) : (tensor<2xf32>) -> tensor<2xf16> {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %0 : tensor<2xf16>
}

// -----

func.func @not_isolated(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = tgc.fusion <loop>() : () -> tensor<2xf32> {
    // expected-error @+1 {{'tgc.relu' op using value defined outside the region}}
    %1 = tgc.relu %x : tensor<2xf32>
    tgc.yield %1 : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}

// -----

func.func @yield_outside(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.yield' op expects parent op to be one of 'tgc.fusion, tgc.if, tgc.while'}}
  tgc.yield %x : tensor<2xf32>
}

// -----

func.func @bad_kind(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{expected ::tgc::FusionKind to be one of: contraction, loop}}
  // expected-error @+1 {{failed to parse Tgc_FusionKindAttr parameter 'value'}}
  %0 = tgc.fusion <tiles>(%x) : (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}
