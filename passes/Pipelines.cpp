//===- Pipelines.cpp - named tgc pass pipelines ---------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tgc::buildCleanupPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTgcInferShapes());
  pm.addPass(createCanonicalizerPass());
}

void tgc::buildCpuPipeline(OpPassManager &pm, bool fuse) {
  buildCleanupPipeline(pm);
  // A QDQ model's quantize / dequantize pairs on contraction inputs: int8
  // kernels (with or without fusion).
  pm.addPass(createTgcAbsorbFakeQuant());
  pm.addPass(createCanonicalizerPass());
  if (!fuse)
    return;
  // NCHW convolutions become NHWC (oneDNN's fast plain layout) with
  // transposes only at the boundaries; the weights' transposes fold.
  pm.addPass(createTgcConvertLayout());
  pm.addPass(createCanonicalizerPass());
  // Batch norms fold into the convolution / matmul before them, then
  // contractions absorb bias, activations and residual adds as post-ops.
  pm.addPass(createTgcFoldBatchNorm());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTgcFusePostOps());
  // What is left of elementwise and reduction chains becomes loop fusions.
  pm.addNestedPass<func::FuncOp>(createTgcFuseElementwise());
}

void tgc::buildCudaLoopFusion(OpPassManager &pm) {
  // Every op is a kernel launch on the GPU: data movement fuses too, and a
  // region of one transpose or slice is worth forming.
  TgcFuseElementwiseOptions loops;
  loops.fuseDataMovement = true;
  loops.minComputeOps = 1;   // views (reshapes) never count
  loops.narrowFloats = true; // its kernels store f16/bf16, compute in f32
  pm.addNestedPass<func::FuncOp>(createTgcFuseElementwise(loops));
}

void tgc::buildCudaPipeline(OpPassManager &pm, bool fuse, bool loopFusion,
                            StringRef narrowFloat, bool int8) {
  buildCleanupPipeline(pm);
  if (int8 && fuse) {
    // int8: QDQ pairs become their contraction's input quantization, and
    // convolutions run NHWC (cuDNN's int8 convolutions take only NHWC).
    pm.addPass(createTgcAbsorbFakeQuant());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createTgcConvertLayout());
    pm.addPass(createCanonicalizerPass());
  }
  auto reducePrecision = [&] {
    if (narrowFloat.empty())
      return;
    TgcReducePrecisionOptions narrow;
    narrow.dtype = narrowFloat.str();
    pm.addNestedPass<func::FuncOp>(createTgcReducePrecision(narrow));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  };
  if (!fuse) {
    reducePrecision();
    return;
  }
  // No layout conversion: cuDNN runs NCHW convolutions natively. Batch
  // norms fold into contractions, which absorb bias, activation and
  // residual post-ops (the same table as the CPU; the CUDA compiler maps
  // what cuBLASLt / cuDNN epilogues compute to them and generates a kernel
  // for the rest).
  pm.addPass(createTgcFoldBatchNorm());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  reducePrecision();
  pm.addPass(createTgcFusePostOps());
  // Normalizations become reductions and elementwise ops that loop fusion
  // groups with their neighbours (no library kernel takes them whole).
  pm.addPass(createTgcDecomposeNormalizations());
  pm.addPass(createCSEPass());
  if (loopFusion)
    buildCudaLoopFusion(pm);
}

void tgc::registerTgcPipelines() {
  // tgc-cpu and tgc-cpu-unfused: codegen/cpu/CpuPipeline.cpp (they end with
  // the CPU backend's own fusion inlining); tgc-cuda:
  // codegen/cuda/CudaPipeline.cpp (it trims contraction chains to what the
  // library calls compute before loop fusion).
  PassPipelineRegistration<>(
      "tgc-cleanup",
      "Canonicalize and fold tgc ops, eliminate common subexpressions and "
      "refine result shapes",
      [](OpPassManager &pm) { buildCleanupPipeline(pm); });
}
