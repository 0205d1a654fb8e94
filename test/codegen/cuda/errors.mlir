// RUN: tgc-cuda-codegen %s --verify-diagnostics
// RUN: not tgc-cuda-codegen %s 2>&1 | FileCheck %s

// Ops, element types and shapes the generator does not handle are located
// errors, never crashes; every unsupported region is reported.

// Reductions over the innermost axes become row kernels
// (reductions.mlir); outer axes are not supported yet.
// CHECK: error: CUDA codegen: 'tgc.reduce_sum' over axes [0] of 4x17: only reductions over the innermost axes (one row per block) are supported yet
func.func @outer_reduction(%x: tensor<4x17xf32>) -> tensor<1x17xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x17xf32>) -> tensor<1x17xf32> {
  ^bb0(%a: tensor<4x17xf32>):
    %1 = tgc.exp %a : tensor<4x17xf32>
    // expected-error @+1 {{CUDA codegen: 'tgc.reduce_sum' over axes [0] of 4x17: only reductions over the innermost axes (one row per block) are supported yet}}
    %2 = tgc.reduce_sum %1 {axes = array<i64: 0>, keepdims} : (tensor<4x17xf32>) -> tensor<1x17xf32>
    tgc.yield %2 : tensor<1x17xf32>
  }
  return %0 : tensor<1x17xf32>
}

// CHECK: error: CUDA codegen: 'tgc.reduce_max' over axes [1] of 4x17x3: only reductions over the innermost axes
func.func @middle_reduction(%x: tensor<4x17x3xf32>) -> tensor<4x3xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x17x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x17x3xf32>):
    // expected-error @+1 {{'tgc.reduce_max' over axes [1] of 4x17x3}}
    %1 = tgc.reduce_max %a {axes = array<i64: 1>} : (tensor<4x17x3xf32>) -> tensor<4x3xf32>
    tgc.yield %1 : tensor<4x3xf32>
  }
  return %0 : tensor<4x3xf32>
}

// A result that is neither per element nor per row of the reduction.
// CHECK: error: CUDA codegen: result #1 ('tensor<17xf32>') is neither per element nor per row of the reduction's 4 rows of 17
func.func @row_and_column(%x: tensor<4x17xf32>, %c: tensor<17xf32>) -> (tensor<4x1xf32>, tensor<17xf32>) {
  // expected-error @+1 {{result #1 ('tensor<17xf32>') is neither per element nor per row of the reduction's 4 rows of 17}}
  %0:2 = tgc.fusion <loop> (%x, %c) : (tensor<4x17xf32>, tensor<17xf32>) -> (tensor<4x1xf32>, tensor<17xf32>) {
  ^bb0(%a: tensor<4x17xf32>, %b: tensor<17xf32>):
    %1 = tgc.reduce_sum %a {axes = array<i64: 1>, keepdims} : (tensor<4x17xf32>) -> tensor<4x1xf32>
    %2 = tgc.exp %b : tensor<17xf32>
    tgc.yield %1, %2 : tensor<4x1xf32>, tensor<17xf32>
  }
  return %0#0, %0#1 : tensor<4x1xf32>, tensor<17xf32>
}

// A reduction's result used along the axes it reduces (transposed back
// over the row) cannot be computed per row.
// CHECK: error: CUDA codegen: the result of 'tgc.reduce_sum' is used along the axes it reduces
func.func @reduced_along_row(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    // expected-error @+1 {{the result of 'tgc.reduce_sum' is used along the axes it reduces}}
    %1 = tgc.reduce_sum %a {axes = array<i64: 1>, keepdims} : (tensor<4x4xf32>) -> tensor<4x1xf32>
    %2 = tgc.reshape %1 : tensor<4x1xf32> to tensor<1x4xf32>
    %3 = tgc.add %a, %2 : (tensor<4x4xf32>, tensor<1x4xf32>) -> tensor<4x4xf32>
    tgc.yield %3 : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// CHECK: error: CUDA codegen: only f32 is supported, got 'tensor<8xf16>'
func.func @half(%x: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{CUDA codegen: only f32 is supported, got 'tensor<8xf16>'}}
  %0 = tgc.fusion <loop> (%x) : (tensor<8xf16>) -> tensor<8xf16> {
  ^bb0(%a: tensor<8xf16>):
    %1 = tgc.exp %a : tensor<8xf16>
    tgc.yield %1 : tensor<8xf16>
  }
  return %0 : tensor<8xf16>
}

// CHECK: error: CUDA codegen: only f32 is supported, got 'tensor<8xi32>'
// An integer operand is rejected at the region, even when unused.
func.func @integer_inside(%x: tensor<8xf32>, %y: tensor<8xi32>) -> tensor<8xf32> {
  // expected-error @+1 {{CUDA codegen: only f32 is supported, got 'tensor<8xi32>'}}
  %0 = tgc.fusion <loop> (%x, %y) : (tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xi32>):
    %1 = tgc.abs %b : tensor<8xi32>
    %2 = tgc.exp %a : tensor<8xf32>
    tgc.yield %2 : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// CHECK: error: CUDA codegen: dynamic shapes are not supported, got 'tensor<?xf32>'
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{CUDA codegen: dynamic shapes are not supported, got 'tensor<?xf32>'}}
  %0 = tgc.fusion <loop> (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %1 = tgc.exp %a : tensor<?xf32>
    tgc.yield %1 : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}

// CHECK: error: CUDA codegen: results of different shapes ('tensor<2x3xf32>', 'tensor<3xf32>') are not supported yet
func.func @shapes(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  // expected-error @+1 {{CUDA codegen: results of different shapes ('tensor<2x3xf32>', 'tensor<3xf32>') are not supported yet}}
  %0:2 = tgc.fusion <loop> (%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<3xf32>):
    %1 = tgc.exp %b : tensor<3xf32>
    %2 = tgc.add %a, %1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    tgc.yield %2, %1 : tensor<2x3xf32>, tensor<3xf32>
  }
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<3xf32>
}

// CHECK: error: CUDA codegen: 'tgc.matmul' is not supported in a loop fusion
func.func @matmul_in_loop(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    // expected-error @+1 {{CUDA codegen: 'tgc.matmul' is not supported in a loop fusion}}
    %1 = tgc.matmul %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    tgc.yield %1 : tensor<2x2xf32>
  }
  return %0 : tensor<2x2xf32>
}
