//===- Passes.h - tgc passes and pipelines ----------------------*- C++ -*-===//

#ifndef TGC_PASSES_PASSES_H
#define TGC_PASSES_PASSES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace tgc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Refines the result types of the tgc ops in `root` from their operands.
/// Returns the number of results refined.
int64_t inferShapes(mlir::Operation *root);

/// Whether `op` may join a `tgc.fusion <loop>` region: a unary or binary
/// elementwise op, broadcast_to, transpose, reshape, squeeze, unsqueeze or
/// reduce_sum/mean/max/min/prod whose operands and results are all f32
/// tensors of static shape (the loop code generator's domain), or a small
/// f32 constant (copied into the regions using it).
bool isLoopFusable(mlir::Operation *op);

/// Options of tgc-fuse-elementwise (see Passes.td).
struct FuseElementwiseOptions {
  int64_t maxOps = 64;
  int64_t minComputeOps = 2;
  /// Also group slice / pad / concat and count every op but views as work
  /// (the CUDA pipeline: every op is a kernel launch there).
  bool fuseDataMovement = false;
  /// Also group ops on f16 / bf16 tensors and casts between float types
  /// (generators that store narrow floats and compute in f32, as CUDA's).
  bool narrowFloats = false;
};

/// Groups chains of loop-fusable ops in the body of `func` into
/// `tgc.fusion <loop>` regions (see the tgc-fuse-elementwise pass). Never
/// creates a cycle between a region and the ops outside it; values also
/// used outside become extra results. Returns the number of regions formed.
int64_t fuseElementwise(mlir::Operation *func,
                        const FuseElementwiseOptions &options = {});

/// Folds a quantize / dequantize pair (QuantizeLinear + DequantizeLinear as
/// the ONNX importer spells them) on a conv2d's or matmul's input into the
/// contraction's tgc.input_quantization (tgc-absorb-fake-quant,
/// dialects/InputQuantization.h).
void populateAbsorbFakeQuantPatterns(mlir::RewritePatternSet &patterns);

/// Folds inference batch norms (and a constant bias add before them) into
/// the constant weights of a preceding conv2d or matmul
/// (tgc-fold-batch-norm).
void populateFoldBatchNormPatterns(mlir::RewritePatternSet &patterns);

/// Runs f32 conv2d / matmul ops, and the ops between them that only round,
/// on `narrow` (f16 or bf16) values (tgc-reduce-precision).
void populateReducePrecisionPatterns(mlir::RewritePatternSet &patterns,
                                     mlir::Type narrow);

/// Softmax, log_softmax, layer_norm and batch_norm over static f32 tensors
/// to reductions and elementwise ops (tgc-decompose-normalizations).
void populateDecomposeNormalizationPatterns(mlir::RewritePatternSet &patterns);

/// Wraps each conv2d/matmul and the chain of consumers the post-op table
/// recognizes (passes/PostOpFusion.h) in a `tgc.fusion <contraction>`
/// (tgc-fuse-post-ops).
void populateFusePostOpsPatterns(mlir::RewritePatternSet &patterns);

/// Rewrites NCHW conv2d ops to NHWC/HWIO between transposes and sinks,
/// hoists and cancels the transposes (tgc-convert-layout, first phase).
void populateConvertLayoutPatterns(mlir::RewritePatternSet &patterns);

/// Turns transposes that only move size-1 dims into reshapes (the second
/// phase of tgc-convert-layout).
void populateTransposeToReshapePatterns(mlir::RewritePatternSet &patterns);

/// Runs both phases of tgc-convert-layout on `root`.
mlir::LogicalResult convertLayoutToNHWC(mlir::Operation *root);

/// Appends the tgc cleanup pipeline (canonicalize, CSE, shape refinement) to
/// `pm`, which must be anchored on builtin.module.
void buildCleanupPipeline(mlir::OpPassManager &pm);

/// Appends the CPU backend's pipeline (`tgc-cpu`; with `fuse` false,
/// `tgc-cpu-unfused`: cleanup only) to `pm`, anchored on builtin.module.
void buildCpuPipeline(mlir::OpPassManager &pm, bool fuse = true);

/// Appends the CUDA backend's pipeline (`tgc-cuda`: cleanup, batch-norm
/// folding, post-op and loop fusion, no layout conversion; with `fuse`
/// false cleanup only) to `pm`, anchored on builtin.module.
/// Without `loopFusion` the pipeline stops before its loop fusion
/// (buildCudaLoopFusion): the whole `tgc-cuda` lowering
/// (codegen/cuda/CudaPipeline.cpp) runs it after
/// tgc-cuda-trim-contraction-chains. A `narrowFloat` ("f16" or "bf16")
/// runs tgc-reduce-precision with it after the batch-norm folding (and
/// before the post-op fusion, whose library epilogues then take the narrow
/// chain whole); empty keeps every op in its own type. `int8` folds QDQ
/// pairs into their contractions (tgc-absorb-fake-quant) and runs
/// convolutions NHWC (tgc-convert-layout), which the CUDA backend's int8
/// calls need.
void buildCudaPipeline(mlir::OpPassManager &pm, bool fuse = true,
                       bool loopFusion = true, llvm::StringRef narrowFloat = {},
                       bool int8 = false);

/// The CUDA pipeline's loop fusion: tgc-fuse-elementwise with data
/// movement and f16/bf16 values, regions of one op worth forming.
void buildCudaLoopFusion(mlir::OpPassManager &pm);

/// Registers the backend-independent named pipeline, tgc-cleanup. The
/// backends register their whole lowerings from their own libraries:
/// tgc-cpu and tgc-cpu-unfused (codegen/cpu/CpuPipeline.cpp), tgc-cuda
/// (codegen/cuda/CudaPipeline.cpp).
void registerTgcPipelines();

} // namespace tgc

#endif // TGC_PASSES_PASSES_H
