//===- CudaBackend.cpp - the "cuda" backend -------------------------------===//
//
// cuda::compile (codegen/cuda/Compiler.h) behind the Backend interface.
// Compiling needs no GPU; running needs RunContext::device.
//
//===----------------------------------------------------------------------===//

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/Staged.h"
#include "codegen/cuda/Compiler.h"
#include "codegen/cuda/CudaPipeline.h"
#include "runtime/cuda/PlanFile.h"

#include "mlir/Pass/PassManager.h"

#include <memory>

using namespace tgc;
using namespace tgc::codegen;

namespace {
class CudaFunction final : public CompiledFunction {
public:
  CudaFunction(cuda::CompiledFunction compiled, std::string arch)
      : compiled(std::move(compiled)), arch(std::move(arch)) {}
  llvm::StringRef backend() const override { return "cuda"; }
  std::string describe() const override { return compiled.describe(); }
  mlir::ModuleOp module() const override { return compiled.module.get(); }
  absl::StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs,
      const RunContext &context) const override {
    if (!context.device)
      return absl::FailedPreconditionError(
          "tgc: the cuda backend runs on a CUDA device; none was given");
    return compiled.executable->run(*context.device, inputs);
  }
  std::shared_ptr<cuda::DeviceExecutable> deviceExecutable() const override {
    return compiled.executable;
  }
  /// The plan's cubins (for `arch`), PTX fallbacks, library calls and
  /// constants (runtime/cuda/PlanFile.h).
  absl::Status
  saveArtifact(const std::string &path,
               const std::vector<std::pair<std::string, std::string>> &metadata)
      const override {
    std::vector<std::pair<std::string, std::string>> entries = metadata;
    entries.push_back({"plan", compiled.planText});
    return cuda::saveDevicePlan(compiled.executable->spec(), arch, entries,
                                path);
  }

private:
  cuda::CompiledFunction compiled;
  std::string arch;
};

class CudaBackend final : public Backend {
public:
  llvm::StringRef name() const override { return "cuda"; }
  std::string description() const override {
    return "generated CUDA kernels, cuBLASLt and cuDNN (NVRTC; compiling "
           "needs no GPU)";
  }
  bool runsOnDevice() const override { return true; }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    mlir::OpPassManager pm(mlir::ModuleOp::getOperationName());
    cuda::buildCudaBackendPipeline(pm, {});
    pm.getDependentDialects(registry);
  }
  llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(mlir::func::FuncOp func,
          llvm::ArrayRef<std::vector<int64_t>> inputShapes,
          const BackendOptions &options) const override {
    // An op whose result shape depends on values, or control flow (this
    // planner compiles no regions): the ops before it as one device plan,
    // the op on the host (control flow on the cpu backend), the rest
    // compiled per shape.
    if (!options.staged &&
        needsStages(func, StageSplit::DataDependentAndControlFlow))
      return compileStaged(*this, func, inputShapes, options,
                           StageSplit::DataDependentAndControlFlow);
    // f16 / bf16: contractions on tensor cores with the ops between them
    // that only round (tgc-reduce-precision); auto is f16. Int8: the
    // contractions a calibration table (or a QDQ model's grid) quantizes
    // run as int8 cuBLASLt / cuDNN calls (tgc-cuda-quantize-contractions),
    // the rest in f32.
    Precision precision = resolvePrecision(options.precision);
    if (precision == Precision::Default)
      precision = Precision::F32;
    if (precision == Precision::Auto)
      precision = Precision::F16;
    cuda::CompileOptions compileOptions;
    compileOptions.precision = precision;
    if (precision == Precision::Int8)
      compileOptions.calibration = options.calibration;
    if (!options.arch.empty())
      compileOptions.arch = options.arch;
    compileOptions.optimize = options.optimize;
    compileOptions.fuse = options.fuse;
    compileOptions.allowTf32 = options.allowTf32;
    auto compiled = cuda::compile(func, inputShapes.vec(), compileOptions);
    if (!compiled)
      return compiled.takeError();
    return std::make_unique<CudaFunction>(std::move(*compiled),
                                          compileOptions.arch);
  }
  llvm::Expected<std::unique_ptr<CompiledFunction>>
  loadArtifact(const std::string &path) const override {
    auto loaded = cuda::loadDevicePlan(path);
    if (!loaded.ok())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     std::string(loaded.status().message()));
    cuda::CompiledFunction function;
    function.executable = std::move(loaded->executable);
    function.arch = loaded->info.arch;
    function.functionName = loaded->info.get("function");
    function.planText = loaded->info.get("plan");
    if (function.planText.empty())
      function.planText = function.executable->describe();
    return std::make_unique<CudaFunction>(std::move(function),
                                          loaded->info.arch);
  }
};
} // namespace

void codegen::registerCudaBackend() {
  registerBackend(std::make_unique<CudaBackend>());
}
