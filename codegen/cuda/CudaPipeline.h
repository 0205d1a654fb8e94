//===- CudaPipeline.h - the CUDA backend's whole pipeline -------*- C++ -*-===//
//
// What cuda::compile runs on a function specialized to its input shapes, as
// one named pipeline with options, so that `tgc-opt --tgc-cuda` prints
// exactly what the CUDA backend partitions:
//
//   tgc-cuda{fuse=true}
//     = tgc's cleanup, batch-norm folding, post-op fusion into contractions
//       and normalization decomposition (passes/Pipelines.cpp,
//       buildCudaPipeline)
//     + tgc-cuda-trim-contraction-chains: every contraction fusion keeps the
//       post-ops its cuBLASLt / cuDNN call computes (libraryEpilogue); the
//       rest of its chain goes back into the function
//     + loop fusion (buildCudaLoopFusion), which groups that rest with what
//       follows.
//
// tgc-cuda{fuse=false} is cleanup only; tgc-cuda{precision=f16} (or bf16)
// runs tgc-reduce-precision after the batch-norm folding. MLIR only (no CUDA
// toolkit needed), so every build registers it.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CUDA_CUDAPIPELINE_H
#define TGC_CODEGEN_CUDA_CUDAPIPELINE_H

#include "codegen/Calibration.h"
#include "dialects/TgcOps.h"
#include "passes/PostOpFusion.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>
#include <vector>

namespace tgc::cuda {

/// What a library call computes of a contraction fusion's post-op chain: a
/// prefix of the chain (`count` post-ops) mapped to the call's scale, bias,
/// residual and activation. The rest of the chain becomes a generated
/// kernel after the call.
struct LibraryEpilogue {
  size_t count = 0;
  float alpha = 1;
  /// Values inside the fusion body (block arguments), or null.
  mlir::Value bias, residual;
  /// "relu", "gelu_tanh" or empty.
  std::string activation;
  /// The names of the fused post-ops, for the plan.
  std::vector<std::string> names;
};

/// The longest prefix of `chain` that cuBLASLt's epilogues (matmul:
/// alpha, bias, C with beta = 1, relu or tanh-GELU) or cuDNN's fused
/// conv-bias-activation (conv: bias, residual, relu) compute.
LibraryEpilogue libraryEpilogue(const PostOpChain &chain);

/// Moves the post-ops of `chain` after its first `keep` into a new
/// `tgc.fusion <loop>` right after `fusion`, fed by `fusion`'s result (the
/// chain's value after `keep` post-ops) and the extra operands. Post-ops
/// keep the contraction's type, so `fusion`'s result type does not change.
mlir::FailureOr<FusionOp> splitChain(FusionOp fusion, const PostOpChain &chain,
                                     size_t keep);

struct CudaPipelineOptions {
  /// Batch-norm folding, post-op and loop fusion (false: cleanup only).
  bool fuse = true;
  /// "f16" or "bf16": tgc-reduce-precision with that type (contractions
  /// and the ops between them that only round); empty: none.
  std::string narrowFloat;
  /// Int8: QDQ pairs fold into their contractions (tgc-absorb-fake-quant),
  /// convolutions run NHWC (tgc-convert-layout), and, last,
  /// tgc-cuda-quantize-contractions runs the quantized ones as int8 calls.
  bool int8 = false;
  /// With `int8`: the calibration table that quantizes contractions
  /// without a QDQ grid (null: only QDQ contractions run int8).
  std::shared_ptr<const codegen::CalibrationTable> calibration;
  /// With `int8` and no `calibration`: a calibration table file the pass
  /// reads (tgc-opt --tgc-cuda="int8 calibration-table=FILE").
  std::string calibrationFile;
};

/// Adds the whole CUDA pipeline to `pm`.
void buildCudaBackendPipeline(mlir::OpPassManager &pm,
                              const CudaPipelineOptions &options);

/// tgc-cuda-trim-contraction-chains.
std::unique_ptr<mlir::Pass> createTrimContractionChainsPass();

/// tgc-cuda-quantize-contractions with an in-memory calibration table
/// (null: only contractions with a QDQ grid are quantized). Without `int8`
/// it only rounds the inputs of contractions with a QDQ grid to it, by a
/// kernel (what every other precision does with them).
/// `tableFile`, when there is no `table`, is a calibration table file the
/// pass reads (its calibration-table option).
std::unique_ptr<mlir::Pass> createQuantizeContractionsPass(
    std::shared_ptr<const codegen::CalibrationTable> table, bool int8 = true,
    const std::string &tableFile = "");

/// Registers tgc-cuda (with its options) and
/// tgc-cuda-trim-contraction-chains.
void registerCudaPipelines();

} // namespace tgc::cuda

#endif // TGC_CODEGEN_CUDA_CUDAPIPELINE_H
