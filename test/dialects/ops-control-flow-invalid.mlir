// RUN: tgc-opt %s -split-input-file -verify-diagnostics

// Verifier errors of tgc.if and tgc.while.

func.func @if_condition_shape(%p: tensor<2xi1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.if' op condition must be a tensor<i1> holding one element, not 'tensor<2xi1>'}}
  %r = tgc.if %p (%x) : tensor<2xi1>, (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @if_branch_types(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.if' op 'else' yields 'tensor<3xf32>' as result #0, which is 'tensor<2xf32>'}}
  %r = tgc.if %p (%x) : tensor<i1>, (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    %c = tgc.constant dense<1.0> : tensor<3xf32>
    tgc.yield %c : tensor<3xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @if_yield_count(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.if' op 'then' yields 2 values but the if has 1 results}}
  %r = tgc.if %p (%x) : tensor<i1>, (tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a, %a : tensor<2xf32>, tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @if_region_arguments(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.if' op 'then' region takes 0 arguments but 1 are passed to it}}
  %r = tgc.if %p (%x) : tensor<i1>, (tensor<2xf32>) -> tensor<2xf32> {
    %c = tgc.constant dense<1.0> : tensor<2xf32>
    tgc.yield %c : tensor<2xf32>
  } else {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

// Regions are isolated from above: a branch reads its inputs only.
func.func @if_captures_from_above(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = tgc.if %p () : tensor<i1>, () -> tensor<2xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    tgc.yield %x : tensor<2xf32>
  } else {
    tgc.yield %x : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @while_changes_carried_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.while' op 'body' changes carried value #0 from 'tensor<2xf32>' to 'tensor<3xf32>' (a carried value keeps its type across iterations)}}
  %r = tgc.while (%x) : (tensor<2xf32>) -> tensor<2xf32> cond {
  ^bb0(%a: tensor<2xf32>):
    %t = tgc.constant dense<true> : tensor<i1>
    tgc.yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<2xf32>):
    %c = tgc.constant dense<1.0> : tensor<3xf32>
    tgc.yield %c : tensor<3xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @while_condition_type(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.while' op 'cond' must yield one tensor<i1> holding one element}}
  %r = tgc.while (%x) : (tensor<2xf32>) -> tensor<2xf32> cond {
  ^bb0(%a: tensor<2xf32>):
    %t = tgc.constant dense<true> : tensor<2xi1>
    tgc.yield %t : tensor<2xi1>
  } do {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @while_result_count(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  // expected-error @+1 {{'tgc.while' op has 2 results for 1 carried values}}
  %r:2 = tgc.while (%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) cond {
  ^bb0(%a: tensor<2xf32>):
    %t = tgc.constant dense<true> : tensor<i1>
    tgc.yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<2xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>
}

// -----

func.func @while_capture_arguments(%x: tensor<2xf32>, %w: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.while' op 'cond' region takes 1 arguments but 2 are passed to it}}
  %r = tgc.while (%x) captures(%w : tensor<4xf32>) : (tensor<2xf32>) -> tensor<2xf32> cond {
  ^bb0(%a: tensor<2xf32>):
    %t = tgc.constant dense<true> : tensor<i1>
    tgc.yield %t : tensor<i1>
  } do {
  ^bb0(%a: tensor<2xf32>, %b: tensor<4xf32>):
    tgc.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @yield_outside(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tgc.yield' op expects parent op to be one of 'tgc.fusion, tgc.if, tgc.while'}}
  tgc.yield %x : tensor<2xf32>
}
