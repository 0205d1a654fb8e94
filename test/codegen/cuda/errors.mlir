// RUN: tgc-cuda-codegen %s --verify-diagnostics
// RUN: not tgc-cuda-codegen %s 2>&1 | FileCheck %s

// Ops, element types and shapes the generator does not handle are located
// errors, never crashes; every unsupported region is reported.

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

// Outer-axis reductions, reductions used along their axes, f16 and
// integers have kernels now (outer-reductions.mlir, dtypes.mlir); f64 and
// integer division do not.
// CHECK: error: CUDA codegen: unsupported element type, got 'tensor<8xf64>' (generated kernels handle f32, f16, bf16, i1 and integers)
func.func @double(%x: tensor<8xf64>) -> tensor<8xf64> {
  // expected-error @+1 {{CUDA codegen: unsupported element type, got 'tensor<8xf64>' (generated kernels handle f32, f16, bf16, i1 and integers)}}
  %0 = tgc.fusion <loop> (%x) : (tensor<8xf64>) -> tensor<8xf64> {
  ^bb0(%a: tensor<8xf64>):
    %1 = tgc.exp %a : tensor<8xf64>
    tgc.yield %1 : tensor<8xf64>
  }
  return %0 : tensor<8xf64>
}

// CHECK: error: CUDA codegen: 'tgc.div' on 'tensor<4xi32>' is not supported (integer kernels handle add, sub, mul, neg, abs, max, min, relu and sign)
func.func @integer_div(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tgc.fusion <loop> (%x, %y) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%a: tensor<4xi32>, %b: tensor<4xi32>):
    // expected-error @+1 {{CUDA codegen: 'tgc.div' on 'tensor<4xi32>' is not supported (integer kernels handle add, sub, mul, neg, abs, max, min, relu and sign)}}
    %1 = tgc.div %a, %b : tensor<4xi32>
    tgc.yield %1 : tensor<4xi32>
  }
  return %0 : tensor<4xi32>
}

// Multi-result ops (topk), scatters and contractions have no generated
// kernel.
// CHECK: error: CUDA codegen: 'tgc.topk' is not supported in a loop fusion
func.func @topk(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x8xf32>) -> tensor<4x2xf32> {
  ^bb0(%a: tensor<4x8xf32>):
    // expected-error @+1 {{CUDA codegen: 'tgc.topk' is not supported in a loop fusion}}
    %1:2 = tgc.topk %a {axis = 1 : i64, k = 2 : i64} : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
    tgc.yield %1#0 : tensor<4x2xf32>
  }
  return %0 : tensor<4x2xf32>
}

// CHECK: error: CUDA codegen: 'tgc.argmax' over the empty axis 1
func.func @argmax_empty(%x: tensor<4x0xf32>) -> tensor<4xi64> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x0xf32>) -> tensor<4xi64> {
  ^bb0(%a: tensor<4x0xf32>):
    // expected-error @+1 {{CUDA codegen: 'tgc.argmax' over the empty axis 1}}
    %1 = tgc.argmax %a {axis = 1 : i64} : (tensor<4x0xf32>) -> tensor<4xi64>
    tgc.yield %1 : tensor<4xi64>
  }
  return %0 : tensor<4xi64>
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
