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

#endif // TGC_CODEGEN_CUDA_PASSES_TD
