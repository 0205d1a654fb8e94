// RUN: tgc-opt --tgc-cuda-quantize-contractions="calibration-table=%t.missing" %s -verify-diagnostics

// A calibration table that cannot be read is an error at the function.
// expected-error @+1 {{tgc-cuda-quantize-contractions: cannot read the calibration table}}
func.func @f(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %y = tgc.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
