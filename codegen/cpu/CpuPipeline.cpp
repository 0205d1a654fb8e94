//===- CpuPipeline.cpp - the CPU backend's whole pipeline -----------------===//

#include "codegen/cpu/CpuPipeline.h"

#include "codegen/cpu/LoopCodegen.h"
#include "codegen/cpu/Passes.h"
#include "dialects/TgcOps.h"
#include "passes/Passes.h"
#include "passes/PostOpFusion.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

namespace tgc::cpu {
#define GEN_PASS_DEF_TGCCPUINLINEFUSIONS
#include "codegen/cpu/Passes.h.inc"
} // namespace tgc::cpu

using namespace mlir;
using namespace tgc;

namespace {

struct InlineFusionsPass
    : public cpu::impl::TgcCpuInlineFusionsBase<InlineFusionsPass> {
  using TgcCpuInlineFusionsBase::TgcCpuInlineFusionsBase;

  void runOnOperation() override {
    SmallVector<FusionOp> fusions;
    getOperation().walk([&](FusionOp op) {
      if (compileLoops && op.getKind() == FusionKind::loop &&
          cpu::isLoopFusionSupported(op))
        return;
      if (!analyzeContractionFusion(op))
        fusions.push_back(op);
    });
    // Bodies are isolated and hold no fusions that outlive their parent;
    // walk order visits nested ones first.
    for (FusionOp fusion : fusions)
      fusion.inlineBody();
  }
};

struct CpuPipelineCLOptions : public PassPipelineOptions<CpuPipelineCLOptions> {
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Layout, batch-norm folding and fusion "
                                   "(false: cleanup only)"),
                    llvm::cl::init(true)};
  Option<bool> compileLoops{
      *this, "compile-loops",
      llvm::cl::desc("Keep the loop fusions the loop code generator "
                     "compiles (false: their ops run one by one)"),
      llvm::cl::init(true)};
};

} // namespace

std::unique_ptr<Pass> cpu::createInlineFusionsPass(bool compileLoops) {
  return createTgcCpuInlineFusions(TgcCpuInlineFusionsOptions{compileLoops});
}

void cpu::buildCpuBackendPipeline(OpPassManager &pm,
                                  const CpuPipelineOptions &options) {
  buildCpuPipeline(pm, options.fuse);
  pm.addNestedPass<func::FuncOp>(createInlineFusionsPass(options.compileLoops));
}

void cpu::registerCpuPipelines() {
  PassPipelineRegistration<CpuPipelineCLOptions>(
      "tgc-cpu",
      "The CPU backend's pipeline: cleanup, quantize / dequantize pairs "
      "absorbed into int8 contractions, NHWC layout for convolutions, "
      "batch-norm folding, post-op fusion into contractions, loop fusion of "
      "elementwise and reduction chains, and the fusions the backend does not "
      "compile as one kernel inlined: exactly what tgc-run and "
      "tgc::function plan kernels from",
      [](OpPassManager &pm, const CpuPipelineCLOptions &options) {
        buildCpuBackendPipeline(pm, {options.fuse, options.compileLoops});
      });
  PassPipelineRegistration<>(
      "tgc-cpu-unfused",
      "tgc-cpu{fuse=false}: the CPU pipeline without layout conversion and "
      "fusion (cleanup, and a QDQ model's quantize / dequantize pairs "
      "absorbed into int8 contractions), for comparison",
      [](OpPassManager &pm) {
        buildCpuBackendPipeline(pm, {/*fuse=*/false, /*compileLoops=*/true});
      });
}
