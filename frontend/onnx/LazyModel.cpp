//===- LazyModel.cpp - tgc::Model, compiler on demand ---------------------===//
//
// The public Model API (include/tgc/Model.h) and CompiledModel::
// compileOnnx (include/tgc/Engine.h). A model whose plan the
// persistent cache holds under its file's key (ModelCache.h) is loaded and
// run by the runtime alone; everything else (import, compiles for other
// shapes, located errors for wrong inputs, calibration) goes to the
// model's OnnxCompilation (OnnxCompilation.h), made on first need. In
// libtgc that is the first call into libtgc_compiler, which is when the
// process maps LLVM and MLIR (frontend/CompilerLoader.cpp).
//
// Compiled without LLVM's and MLIR's headers.
//
//===----------------------------------------------------------------------===//

#include "tgc/Engine.h"
#include "tgc/Model.h"

#include "codegen/Calibration.h"
#include "frontend/onnx/ModelCache.h"
#include "frontend/onnx/OnnxCompilation.h"
#include "runtime/EngineInternal.h"
#include "runtime/Environment.h"
#include "runtime/Executable.h"

#include <mutex>

using namespace tgc;

namespace tgc::detail {

struct ModelState {
  ModelOptions options;
  std::string path;
  /// ModelOptions::calibrationTable, read at load.
  std::shared_ptr<const codegen::CalibrationTable> calibration;
  /// The key a cpu plan for the model's static shapes is filed under ("":
  /// none).
  std::string planKey;
  std::vector<TensorInfo> inputs, outputs;

  std::mutex mutex;
  /// The plan the cache held for the model's shapes (loaded without the
  /// compiler), or null.
  std::shared_ptr<const runtime::Executable> cachedPlan;
  /// The model compiled on a backend, made on first need.
  std::shared_ptr<OnnxCompilation> compilation;
  /// Whether the last run ran `cachedPlan`.
  bool lastRunCached = false;
};

} // namespace tgc::detail

namespace {

using detail::ModelState;

/// The calibration table at `path` (null for ""), errors prefixed with
/// `who`.
absl::StatusOr<std::shared_ptr<const codegen::CalibrationTable>>
readCalibration(const std::string &path, const std::string &who) {
  if (path.empty())
    return nullptr;
  auto table = codegen::CalibrationTable::loadShared(path);
  if (!table.ok())
    return absl::Status(static_cast<absl::StatusCode>(table.status().code()),
                        who + std::string(table.status().message()));
  return *std::move(table);
}

/// The cpu plan the persistent cache holds for the model file at `path`
/// compiled with `options`, by the file's key (no import, no compiler), or
/// nullopt. `planKey` is set to that key ("" where the file has none or the
/// options keep no cache), under which the compile files its plan.
std::optional<detail::CachedModelPlan>
cachedPlanOf(const std::string &path, const ModelOptions &options,
             const codegen::CalibrationTable *calibration,
             std::string &planKey) {
  planKey.clear();
  if (options.backend != "cpu" || options.cacheDir.empty())
    return std::nullopt;
  planKey = detail::modelPlanKey(path, options, calibration);
  if (planKey.empty())
    return std::nullopt;
  // A miss of any kind leaves the compile to store the plan again.
  auto plan = detail::loadModelPlan(options.cacheDir, planKey);
  if (!plan.ok())
    return std::nullopt;
  return *std::move(plan);
}

/// The model's compilation, made on first need (state.mutex held).
absl::StatusOr<detail::OnnxCompilation *> compilationOf(ModelState &state) {
  if (!state.compilation) {
    auto compilation = detail::openOnnxCompilation(
        state.path, state.options, state.calibration, state.planKey);
    if (!compilation.ok())
      return compilation.status();
    state.compilation = *std::move(compilation);
    if (state.inputs.empty() && state.outputs.empty()) {
      state.inputs = detail::compilationInputs(*state.compilation);
      state.outputs = detail::compilationOutputs(*state.compilation);
    }
  }
  return state.compilation.get();
}

} // namespace

// runtime/cpu/Recipes.cpp's hook: a saved plan with loop kernels (a cached
// model's, a tgc::Artifact's) loads in a program that has the compiler
// within reach.
void tgc::detail::registerCompilerKernelLoadersOnDemand() {
  registerCompilerKernelLoaders();
}

tgc::StatusOr<Model> Model::loadOnnx(const std::string &path,
                                     ModelOptions options) {
  if (options.numThreads < 0 || options.interOpThreads < 1)
    return absl::InvalidArgumentError(
        "tgc: ModelOptions: numThreads must be >= 0 and interOpThreads >= 1");
  if (options.cacheDir.empty())
    options.cacheDir = runtime::env::text("TGC_CACHE_DIR");
  auto state = std::make_shared<ModelState>();
  state->options = std::move(options);
  state->path = path;
  auto calibration =
      readCalibration(state->options.calibrationTable, "tgc: Model: ");
  if (!calibration.ok())
    return calibration.status();
  state->calibration = *std::move(calibration);
  if (auto cached = cachedPlanOf(path, state->options, state->calibration.get(),
                                 state->planKey)) {
    state->cachedPlan = std::move(cached->executable);
    state->inputs = std::move(cached->inputs);
    state->outputs = std::move(cached->outputs);
    return Model(std::move(state));
  }
  std::lock_guard<std::mutex> lock(state->mutex);
  if (auto compilation = compilationOf(*state); !compilation.ok())
    return compilation.status();
  return Model(std::move(state));
}

const std::vector<TensorInfo> &Model::inputs() const { return state->inputs; }
const std::vector<TensorInfo> &Model::outputs() const { return state->outputs; }

tgc::StatusOr<std::vector<runtime::HostTensor>>
Model::run(const std::vector<runtime::HostTensor> &inputs) const {
  runtime::RunOptions options;
  options.numThreads = state->options.numThreads;
  options.interOpThreads = state->options.interOpThreads;
  detail::OnnxCompilation *compilation = nullptr;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->lastRunCached =
        state->cachedPlan && state->cachedPlan->checkArguments(inputs).ok();
    if (!state->lastRunCached) {
      // Other shapes, or wrong inputs (the imported model's located
      // messages).
      auto compiled = compilationOf(*state);
      if (!compiled.ok())
        return compiled.status();
      compilation = *compiled;
    }
  }
  if (!compilation)
    return state->cachedPlan->run(inputs, options);
  return detail::runCompilation(*compilation, inputs, options);
}

std::string Model::describePlan() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  if (state->lastRunCached)
    return state->cachedPlan->describe();
  return state->compilation ? detail::describeCompilation(*state->compilation)
                            : "";
}

size_t Model::compileCount() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->compilation ? detail::compilationCompiles(*state->compilation)
                            : 0;
}

tgc::Status
Model::calibrate(const std::vector<std::vector<runtime::HostTensor>> &samples,
                 const CalibrationOptions &options) const {
  return calibrate(
      samples.size(),
      [&](size_t i) -> StatusOr<std::vector<runtime::HostTensor>> {
        return samples[i];
      },
      options);
}

tgc::Status Model::calibrate(
    size_t count,
    const std::function<StatusOr<std::vector<runtime::HostTensor>>(size_t)>
        &read,
    const CalibrationOptions &options) const {
  auto calibrator = codegen::calibratorOf(options);
  if (!calibrator.ok())
    return absl::InvalidArgumentError(
        "tgc: Model::calibrate: " + std::string(calibrator.status().message()));
  detail::OnnxCompilation *compilation;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    auto compiled = compilationOf(*state);
    if (!compiled.ok())
      return compiled.status();
    compilation = *compiled;
  }
  return detail::calibrateCompilation(*compilation, count, read, *calibrator,
                                      options);
}

tgc::StatusOr<CompiledModel> CompiledModel::compileOnnx(const std::string &path,
                                                        EngineOptions options) {
  auto config = detail::planStreams(options, physicalCores(), threadBudget());
  if (!config.ok())
    return config.status();
  ModelOptions modelOptions;
  modelOptions.backend = options.backend;
  modelOptions.numThreads = config->threadsPerStream;
  modelOptions.fuse = options.fuse;
  modelOptions.cacheDir = options.cacheDir;
  modelOptions.determinism = options.determinism;
  modelOptions.precision = options.precision;
  modelOptions.weightsInFile = options.weightsInFile;
  modelOptions.inputShapes = options.inputShapes;
  auto calibration = readCalibration(options.calibrationTable,
                                     "tgc: CompiledModel::compileOnnx: ");
  if (!calibration.ok())
    return calibration.status();
  // The plan the cache holds under the model file's key: no import, and
  // no compiler loaded.
  std::string planKey;
  if (auto cached =
          cachedPlanOf(path, modelOptions, calibration->get(), planKey)) {
    std::vector<TensorInfo> inputs = cached->inputs;
    if (absl::Status status =
            detail::fixInputShapes(inputs, options.inputShapes, path);
        !status.ok())
      return status;
    return detail::makeCompiledModel(
        detail::executableSource(std::move(cached->executable),
                                 std::move(cached->inputs),
                                 std::move(cached->outputs)),
        options.hint, *config);
  }
  return detail::compileOnnxModel(path, options, *config, modelOptions,
                                  *std::move(calibration), planKey);
}
