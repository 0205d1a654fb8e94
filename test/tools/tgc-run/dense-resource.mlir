// dense_resource constants (MLIR's resource blobs, what the ONNX importer
// makes of a large initializer: dialects/ConstantData.h) run on both
// backends with the values of their blob; --print-lowered prints the
// blobs after the module, so that its output parses and runs again.
// RUN: tgc-run %s --input=2x4xf32=1,2,3,4,5,6,7,8 --expected=2x3xf32=5,6,7,13,14,15
// RUN: tgc-run %s --backend=reference --input=2x4xf32=1,2,3,4,5,6,7,8 --expected=2x3xf32=5,6,7,13,14,15
// RUN: tgc-run %s --differential | FileCheck %s --check-prefix=DIFF
// RUN: tgc-run %s --compile-only --print-lowered --input=2x4xf32=1,2,3,4,5,6,7,8 > %t.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.mlir
// RUN: tgc-run %t.mlir --input=2x4xf32=1,2,3,4,5,6,7,8 --expected=2x3xf32=5,6,7,13,14,15

// DIFF: differential: 1 functions, 0 mismatches

// LOWERED: tgc.constant dense_resource<w> : tensor<4x3xf32>
// LOWERED: dialect_resources
// LOWERED: w: "0x04000000

func.func @main(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = tgc.constant dense_resource<w> : tensor<4x3xf32>
  %y = tgc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000000000000000000000000000803F0000000000000000000000000000803F0000803F0000803F0000803F"
    }
  }
#-}
