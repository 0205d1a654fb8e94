//===- CpuBackend.cpp - the "cpu" backend ---------------------------------===//
//
// cpu::compile (codegen/cpu/Compiler.h) behind the Backend interface.
//
//===----------------------------------------------------------------------===//

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/Staged.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/CpuPipeline.h"
#include "codegen/cpu/LoopKernel.h"
#include "codegen/cpu/PlanCache.h"
#include "runtime/cpu/PlanFile.h"

#include "mlir/Pass/PassManager.h"

#include <memory>

using namespace tgc;
using namespace tgc::codegen;

namespace {
class CpuFunction final : public CompiledFunction {
public:
  CpuFunction(cpu::CompiledFunction compiled, bool loaded)
      : compiled(std::move(compiled)), loaded(loaded) {}
  llvm::StringRef backend() const override { return "cpu"; }
  std::string describe() const override {
    return compiled.executable->describe();
  }
  mlir::ModuleOp module() const override { return compiled.module.get(); }
  absl::StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs,
      const RunContext &context) const override {
    return compiled.executable->run(inputs, context.options);
  }
  std::shared_ptr<const runtime::Executable> hostExecutable() const override {
    return compiled.executable;
  }
  int64_t heldBytes() const override {
    return compiled.executable->heldBytes();
  }
  bool loadedFromCache() const override { return loaded; }
  absl::Status
  saveArtifact(const std::string &path,
               const std::vector<std::pair<std::string, std::string>> &metadata)
      const override {
    return runtime::cpu::savePlan(*compiled.executable, metadata, path);
  }

private:
  cpu::CompiledFunction compiled;
  bool loaded;
};

class CpuBackend final : public Backend {
public:
  llvm::StringRef name() const override { return "cpu"; }
  std::string description() const override {
    return "oneDNN primitives and generated loops on this CPU (" +
           cpu::targetDescription() + ")";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
    cpu::buildCpuBackendPipeline(pm, {});
    pm.getDependentDialects(registry);
  }
  llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(mlir::func::FuncOp func,
          llvm::ArrayRef<std::vector<int64_t>> inputShapes,
          const BackendOptions &options) const override {
    // An op whose result shape depends on values: the ops before it as one
    // plan, the op on the host, the rest compiled per shape when it runs.
    if (!options.staged && needsStages(func))
      return compileStaged(*this, func, inputShapes, options);
    cpu::CompileOptions compileOptions;
    compileOptions.optimize = options.optimize;
    compileOptions.fuse = options.fuse;
    compileOptions.numThreads = options.numThreads;
    compileOptions.interOp = options.interOp;
    compileOptions.determinism = options.determinism;
    compileOptions.precision = options.precision;
    compileOptions.calibration = options.calibration;
    compileOptions.enableOneDnn = options.enableOneDnn;
    compileOptions.winograd = options.winograd;
    compileOptions.loopVectorize = options.loopVectorize;
    compileOptions.loopVectorTile = options.loopVectorTile;
    compileOptions.dumpJit = options.dumpJit;
    compileOptions.cacheDir = options.cacheDir;
    compileOptions.planAlias = options.planAlias;
    compileOptions.planNotes = options.planNotes;
    compileOptions.savable = options.savable;
    llvm::StringRef layouts = options.activationLayouts;
    if (layouts == "plain")
      compileOptions.activationLayouts = cpu::ActivationLayouts::Plain;
    else if (layouts == "blocked")
      compileOptions.activationLayouts = cpu::ActivationLayouts::Blocked;
    else if (layouts == "any")
      compileOptions.activationLayouts =
          cpu::ActivationLayouts::OneDnnPreferred;
    else if (layouts == "auto")
      compileOptions.activationLayouts = cpu::ActivationLayouts::Auto;
    else
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "unknown activation layouts '" + layouts +
              "' (expected auto, plain, blocked or any)");
    auto compiled = cpu::compileCached(func, inputShapes.vec(), compileOptions);
    if (!compiled)
      return compiled.takeError();
    return std::make_unique<CpuFunction>(std::move(compiled->compiled),
                                         compiled->loaded);
  }
};
} // namespace

std::unique_ptr<codegen::CompiledFunction> cpu::makeLoadedCpuFunction(
    std::shared_ptr<const runtime::Executable> executable) {
  cpu::CompiledFunction compiled;
  compiled.executable = std::move(executable);
  return std::make_unique<CpuFunction>(std::move(compiled), /*loaded=*/true);
}

void codegen::registerCpuBackend() {
  cpu::registerLoopKernelLoader();
  registerBackend(std::make_unique<CpuBackend>());
}
