//===- ModelCache.cpp - a model's plan by its file's key ------------------===//

#include "frontend/onnx/ModelCache.h"

#include "codegen/Calibration.h"
#include "runtime/AtomicFile.h"
#include "runtime/Environment.h"
#include "runtime/cpu/PlanFile.h"
#include "runtime/cpu/SourceKey.h"
#include "tgc/Determinism.h"
#include "tgc/Precision.h"
#include "tgc/Tensor.h"

#include <algorithm>

using namespace tgc;

// Defined by frontend/CompilerLoader.cpp, which only libtgc holds: the
// compiler library it loads. A program that links the compiler statically
// (the tools, the tests) has none, and the compiler is the program.
namespace tgc::detail {
__attribute__((weak)) const char *compilerLibraryPath();
} // namespace tgc::detail

std::string detail::compilerBuildIdentity() {
  // The same file KernelObjectCache::buildIdentity finds from inside the
  // compiler.
  if (&compilerLibraryPath != nullptr)
    return runtime::cpu::fileIdentity(compilerLibraryPath());
  return runtime::cpu::fileIdentity("/proc/self/exe");
}

std::string detail::modelPlanKey(const std::string &path,
                                 const ModelOptions &options,
                                 const codegen::CalibrationTable *calibration) {
  std::string extra =
      "tgc::Model v1 threads=" +
      std::to_string(runtime::resolveThreadCount(options.numThreads)) +
      " interop=" + std::to_string(options.interOpThreads > 1) +
      " fuse=" + std::to_string(options.fuse) +
      " determinism=" + toString(resolveDeterminism(options.determinism)) +
      " precision=" + toString(resolvePrecision(options.precision));
  if (calibration)
    extra += " calibration=" + calibration->digest();
  for (const TensorInfo &given : options.inputShapes) {
    extra += " shape:" + given.name + "=";
    for (int64_t dim : given.shape)
      extra += std::to_string(dim) + ",";
  }
  std::optional<std::string> key =
      runtime::cpu::sourceFileKey(path, extra, compilerBuildIdentity());
  return key ? *key : "";
}

absl::StatusOr<detail::CachedModelPlan>
detail::loadModelPlan(const std::string &cacheDir, const std::string &key) {
  std::string path = runtime::cpu::cachedPlanPath(cacheDir, key);
  auto loaded = runtime::cpu::loadPlan(path); // NotFound when absent
  if (!loaded.ok())
    return loaded.status();
  runtime::touchFile(path); // recently used, as the cache marks a hit
  CachedModelPlan plan;
  const runtime::Executable &exe = *loaded->executable;
  plan.inputs = runtime::cpu::planTensors(exe, exe.inputs,
                                          loaded->info.list("inputs"), "input");
  plan.outputs = runtime::cpu::planTensors(
      exe, exe.outputs, loaded->info.list("outputs"), "output");
  plan.executable = std::move(loaded->executable);
  return plan;
}

absl::Status detail::fixInputShapes(std::vector<TensorInfo> &inputs,
                                    const std::vector<TensorInfo> &fixed,
                                    const std::string &path,
                                    const std::string &api,
                                    const std::string &option) {
  for (const TensorInfo &given : fixed) {
    auto it = std::find_if(
        inputs.begin(), inputs.end(),
        [&](const TensorInfo &input) { return input.name == given.name; });
    if (it == inputs.end())
      return absl::InvalidArgumentError("tgc: " + api + ": " + path +
                                        " has no input '" + given.name + "' (" +
                                        option + "::inputShapes)");
    bool fits = given.shape.size() == it->shape.size();
    for (size_t d = 0; fits && d < given.shape.size(); ++d)
      fits = given.shape[d] >= kDynamic &&
             (it->shape[d] == kDynamic || given.shape[d] == kDynamic ||
              it->shape[d] == given.shape[d]);
    if (!fits) {
      auto text = [](const std::vector<int64_t> &shape) {
        std::string dims;
        for (int64_t dim : shape) {
          if (!dims.empty())
            dims += 'x';
          dims += dim == kDynamic ? std::string("?") : std::to_string(dim);
        }
        return "[" + dims + "]";
      };
      return absl::InvalidArgumentError("tgc: " + api + ": input '" +
                                        given.name + "' of " + path +
                                        " has shape " + text(it->shape) + ", " +
                                        option + " gives " + text(given.shape));
    }
    for (size_t d = 0; d < given.shape.size(); ++d)
      if (given.shape[d] != kDynamic)
        it->shape[d] = given.shape[d];
  }
  return absl::OkStatus();
}
