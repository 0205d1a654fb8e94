//===- ModelCache.h - a model's plan by its file's key ----------*- C++ -*-===//
//
// With ModelOptions::cacheDir, a cpu plan of a model with static input
// shapes is filed under a key computed from the model file's identity and
// the options (runtime/cpu/SourceKey.h) beside its function's key, so that
// a later load (tgc::Model, CompiledModel::compileOnnx) finds it without
// importing the model or loading the compiler. Compiler-free: LazyModel.cpp
// and the compiler (OnnxModel.cpp) share it.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_ONNX_MODELCACHE_H
#define TGC_FRONTEND_ONNX_MODELCACHE_H

#include "runtime/Executable.h"
#include "tgc/AbslStatus.h"
#include "tgc/Model.h"

#include <memory>
#include <string>
#include <vector>

namespace tgc::codegen {
class CalibrationTable;
} // namespace tgc::codegen

namespace tgc::detail {

/// The key a cpu plan of the model file at `path` compiled with `options`
/// (and `calibration`, ModelOptions::calibrationTable read) is filed under;
/// "" when the file cannot be examined.
std::string modelPlanKey(const std::string &path, const ModelOptions &options,
                         const codegen::CalibrationTable *calibration);

/// A plan loaded from the cache, with the model's inputs and outputs.
struct CachedModelPlan {
  std::shared_ptr<const runtime::Executable> executable;
  std::vector<TensorInfo> inputs, outputs;
};

/// The plan filed under `key` in `cacheDir` (marked recently used).
/// NotFound when there is none; another error for a damaged or foreign
/// entry, which the next compile replaces. Loop kernels load with the
/// compiler's loader (registered on demand, runtime/cpu/Recipes.cpp).
absl::StatusOr<CachedModelPlan> loadModelPlan(const std::string &cacheDir,
                                              const std::string &key);

/// Applies EngineOptions::inputShapes or ModelOptions::inputShapes
/// (`fixed`, given to `api`, e.g. "CompiledModel::compileOnnx", by
/// `option`, e.g. "EngineOptions") to a model's inputs: InvalidArgument
/// naming the model at `path` and the input when one does not exist or does
/// not fit.
absl::Status
fixInputShapes(std::vector<TensorInfo> &inputs,
               const std::vector<TensorInfo> &fixed, const std::string &path,
               const std::string &api = "CompiledModel::compileOnnx",
               const std::string &option = "EngineOptions");

/// The identity (runtime::cpu::fileIdentity) of the compiler build whose
/// plans this process loads: libtgc_compiler where libtgc loads it
/// (frontend/CompilerLoader.cpp), else this program.
std::string compilerBuildIdentity();

} // namespace tgc::detail

#endif // TGC_FRONTEND_ONNX_MODELCACHE_H
