//===- Pipelines.cpp - named tgc pass pipelines ---------------------------===//

#include "passes/Passes.h"

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

void tgc::registerTgcPipelines() {
  PassPipelineRegistration<>(
      "tgc-cleanup",
      "Canonicalize and fold tgc ops, eliminate common subexpressions and "
      "refine result shapes",
      [](OpPassManager &pm) { buildCleanupPipeline(pm); });
}
