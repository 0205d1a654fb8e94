//===- Passes.td - the CUDA backend's passes ---------------*- tablegen -*-===//
//
// Passes of the CUDA backend's pipeline (tgc-cuda), above the
// target-independent passes (passes/Passes.td). docs/TgcCudaPasses.md is
// generated from this file.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CUDA_PASSES_TD
#define TGC_CODEGEN_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcCudaTrimContractionChains
    : Pass<"tgc-cuda-trim-contraction-chains", "mlir::func::FuncOp"> {
  let summary = "Keep in each contraction fusion what its library call computes";
  let description = [{
    Runs before loop fusion in `tgc-cuda`: every contraction fusion keeps the
    post-ops its cuBLASLt or cuDNN call computes (its library epilogue); the
    rest of its chain moves into a loop fusion after it, where
    `tgc-fuse-elementwise` groups it with what follows (an erf-GELU and the
    softmax after it: one generated kernel).
  }];
}

def TgcCudaQuantizeContractions
    : Pass<"tgc-cuda-quantize-contractions", "mlir::func::FuncOp"> {
  let summary = "Run quantized contractions as int8 cuBLASLt / cuDNN calls";
  let description = [{
    Runs last in `tgc-cuda` with precision int8. A contraction fusion whose
    conv2d or matmul has an input quantization (`tgc.input_quantization`,
    from a QDQ model's quantize / dequantize pair, or the calibration
    table's entry for its key, codegen/ContractionKeys.h) and constant
    weights becomes three fusions, all plain tgc ops:

    - a loop fusion quantizing the input to i8:
      `q = cast(clamp(round(x / s) + zp', -128, 127))`, with
      `zp' = zp - 128` for u8 storage (the u8 grid shifted onto s8, which
      is what cuBLASLt and cuDNN multiply), else `zp`;
    - a contraction fusion of the integer product: a matmul of `q` and the
      weights quantized per output channel (symmetric, 8 bits, stored
      `N x K` for cuBLASLt's TN form) on i32 (`cast` i8 -> i32 inside the
      fusion, which the CUDA planner reads as an int8 GEMM with s32
      results), or an NHWC conv2d of `q` and the HWIO weights cast to f32
      (cuDNN's INT8_EXT configuration: int8 inputs, s32 accumulation,
      f32 results); a padded convolution of a grid with a nonzero `zp'`
      pads `q` with `zp'` first;
    - a loop fusion dequantizing: `(acc - zp' * colsum(Wq)) * s * sw` per
      output channel, then the bias and every post-op of the original
      chain.

    The interpreter runs the result as it is: it is the int8 reference
    the CUDA calls are checked against. A contraction it cannot run this
    way (run-time weights, NCHW, groups, channels not a multiple of 4, a
    transposed lhs) stays f32; when its quantization came from a QDQ
    model, its input is rounded to that grid by a kernel first (so the
    result is what the model says), and the attribute goes.
  }];
  let options = [
    Option<"calibrationTable", "calibration-table", "std::string",
           /*default=*/"\"\"",
           "A calibration table file (tgc-run --calibration-table) whose "
           "entries quantize the contractions without a QDQ grid">,
  ];
}

#endif // TGC_CODEGEN_CUDA_PASSES_TD
