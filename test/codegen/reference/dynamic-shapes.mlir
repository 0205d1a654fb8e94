// Shapes computed when the function runs: tgc.shape_of and
// tgc.dynamic_reshape on the reference interpreter, and on the CPU backend,
// which folds them away once the input shapes are known.
// RUN: tgc-run %s --backend=reference --function=heads --input=2x3x8xf32=1 | FileCheck %s --check-prefix=HEADS
// RUN: tgc-run %s --backend=cpu --function=heads --input=2x3x8xf32=1 --print-plan | FileCheck %s --check-prefix=HEADS-CPU
// RUN: tgc-run %s --backend=reference --function=by_value --input=6xf32=1,2,3,4,5,6 --input=2xi64=3,-1 | FileCheck %s --check-prefix=VALUE
// RUN: not tgc-run %s --backend=reference --function=by_value --input=6xf32=1 --input=2xi64=4,-1 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not tgc-run %s --backend=reference --function=by_value --input=6xf32=1 --input=2xi64=-1,-1 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not tgc-run %s --backend=reference --function=by_value --input=6xf32=1 --input=2xi64=-3,2 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not tgc-run %s --backend=reference --function=copy_zeros2 --input=6xf32=1 --input=2xi64=0,0 2>&1 | FileCheck %s --check-prefix=NODIM
// RUN: tgc-run %s --backend=reference --function=copy_zeros --input=6xf32=1 --input=1xi64=0 | FileCheck %s --check-prefix=COPY
// RUN: not tgc-run %s --backend=cpu --function=by_value --input=6xf32=1 --input=2xi64=3,-1 2>&1 | FileCheck %s --check-prefix=CPU-VALUE

// [batch, seq, heads * 4] -> [batch, seq, heads, 4] with batch and seq only
// known at run time.
// HEADS: result #0: tensor<2x3x2x4xf32> =
// HEADS-CPU: fallback to the reference path: 0 ops
// HEADS-CPU: result #0: tensor<2x3x2x4xf32> =
func.func @heads(%x: tensor<?x?x8xf32>) -> tensor<?x?x2x4xf32> {
  %s = tgc.shape_of %x : tensor<?x?x8xf32> -> tensor<3xi64>
  %bs = tgc.slice %s {starts = array<i64: 0>, ends = array<i64: 2>} : (tensor<3xi64>) -> tensor<2xi64>
  %hd = tgc.constant dense<[2, 4]> : tensor<2xi64>
  %shape = tgc.concat %bs, %hd {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<4xi64>
  %y = tgc.dynamic_reshape %x, %shape : (tensor<?x?x8xf32>, tensor<4xi64>) -> tensor<?x?x2x4xf32>
  return %y : tensor<?x?x2x4xf32>
}

// VALUE: result #0: tensor<3x2xf32> = [1, 2, 3, 4, 5, 6]
// COUNT: error: {{.*}}dynamic-shapes.mlir:[[@LINE+5]]:8: 'tgc.dynamic_reshape' op cannot reshape tensor<6xf32> (6 elements) to {{\[}}4, -1]
// TWICE: error: {{.*}}dynamic-shapes.mlir:[[@LINE+4]]:8: 'tgc.dynamic_reshape' op invalid new shape: dim -1 at #1 (dims are >= 0, or -1 once to infer one)
// NEGATIVE: error: {{.*}}: 'tgc.dynamic_reshape' op invalid new shape: dim -3 at #0
// CPU-VALUE: error: tgc.dynamic_reshape at {{.*}}: the shape of tensor<?x?xf32> is not known after specialization (it depends on the values of the inputs
func.func @by_value(%x: tensor<6xf32>, %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %y = tgc.dynamic_reshape %x, %shape : (tensor<6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// COPY: result #0: tensor<6xf32> =
// NODIM: error: {{.*}}: 'tgc.dynamic_reshape' op new shape entry #1 is 0 (copy the input dim) but the input tensor<6xf32> has no such dim
func.func @copy_zeros(%x: tensor<6xf32>, %shape: tensor<?xi64>) -> tensor<6xf32> {
  %s = tensor.cast %shape : tensor<?xi64> to tensor<1xi64>
  %y = tgc.dynamic_reshape %x, %s copy_zeros : (tensor<6xf32>, tensor<1xi64>) -> tensor<6xf32>
  return %y : tensor<6xf32>
}

func.func @copy_zeros2(%x: tensor<6xf32>, %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %y = tgc.dynamic_reshape %x, %shape copy_zeros : (tensor<6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
