//===- OnnxModel.cpp - tgc::Model: compiled ONNX models -------------------===//
//
// The public Model API (include/tgc/Model.h) over the importer and a backend
// selected by name from the registry (codegen/Backend.h): one MLIR context
// per model, one plan per set of input shapes.
//
//===----------------------------------------------------------------------===//

#include "tgc/AbslStatus.h"
#include "tgc/Engine.h"
#include "tgc/Model.h"

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/cpu/Calibrate.h"
#include "codegen/cpu/KernelObjectCache.h"
#include "codegen/cpu/PlanCache.h"
#include "codegen/reference/Interpreter.h"
#include "frontend/Function.h"
#include "frontend/Tensor.h"
#include "frontend/onnx/OnnxInternal.h"
#include "runtime/EngineInternal.h"
#include "runtime/cuda/Device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"

#include <map>
#include <mutex>

using namespace tgc;

namespace tgc::detail {

struct ModelState {
  ModelOptions options;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  std::vector<TensorInfo> inputs, outputs;

  const codegen::Backend *backend = nullptr;
  /// A device backend's device (opened when the model is loaded).
  std::shared_ptr<cuda::Device> device;

  std::mutex planMutex;
  std::map<std::vector<std::vector<int64_t>>,
           std::shared_ptr<const codegen::CompiledFunction>>
      plans;
  std::shared_ptr<const codegen::CompiledFunction> lastPlan;

  /// The model file, imported on first need when the model was loaded from
  /// the persistent cache (`func` is null until then).
  std::string path;
  /// With ModelOptions::cacheDir on the cpu backend, for a model with
  /// static input shapes: the key its plan is filed under beside its
  /// function's (cpu::sourceFileKey), so that the next load finds it
  /// without importing the model.
  std::string planKey;
  /// ModelOptions::calibrationTable, read at load.
  std::shared_ptr<const codegen::CalibrationTable> calibration;
};

} // namespace tgc::detail

namespace {

TensorInfo infoOf(std::string name, mlir::Type type) {
  TensorInfo info;
  info.name = std::move(name);
  auto tensor = mlir::cast<mlir::RankedTensorType>(type);
  info.dtype = toDType(tensor.getElementType()).value_or(runtime::DType::F32);
  for (int64_t dim : tensor.getShape())
    info.shape.push_back(mlir::ShapedType::isDynamic(dim) ? kDynamic : dim);
  return info;
}

/// The graph output names (the imported function does not keep them).
llvm::Expected<std::vector<std::string>> outputNames(const std::string &path) {
  auto model = onnximpl::readModelProto(path);
  if (!model)
    return model.takeError();
  std::vector<std::string> names;
  for (const auto &output : model->graph().output())
    names.push_back(output.name());
  return names;
}

/// Imports the model file into `state` (its function; its inputs and
/// outputs unless a cached plan gave them).
absl::Status importModel(detail::ModelState &state) {
  auto module = importOnnxModel(state.context, state.path);
  if (!module)
    return detail::toStatus(module.takeError());
  state.module = std::move(*module);
  mlir::func::FuncOp func;
  for (auto candidate : state.module->getOps<mlir::func::FuncOp>()) {
    func = candidate;
    break;
  }
  if (!func)
    return absl::InternalError(state.path +
                               ": the imported module has no function");
  bool described = !state.inputs.empty() || !state.outputs.empty();
  if (!described) {
    auto names = outputNames(state.path);
    if (!names)
      return detail::toStatus(names.takeError());
    mlir::FunctionType type = func.getFunctionType();
    mlir::Block &entry = func.getBody().front();
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      std::string name = "input" + std::to_string(i);
      if (auto loc =
              mlir::dyn_cast<mlir::NameLoc>(entry.getArgument(i).getLoc()))
        name = loc.getName().str();
      state.inputs.push_back(infoOf(std::move(name), input));
    }
    for (auto [i, output] : llvm::enumerate(type.getResults()))
      state.outputs.push_back(
          infoOf(i < names->size() ? (*names)[i] : "output" + std::to_string(i),
                 output));
  }
  state.func = func;
  return absl::OkStatus();
}

/// The model's plan from the persistent cache, found by the model file's
/// key (no import): true when `state` now holds it, its inputs and its
/// outputs. Sets state.planKey either way (when the file has a key).
bool loadCachedPlan(detail::ModelState &state) {
  std::string extra =
      "tgc::Model v1 threads=" +
      std::to_string(runtime::resolveThreadCount(state.options.numThreads)) +
      " interop=" + std::to_string(state.options.interOpThreads > 1) +
      " fuse=" + std::to_string(state.options.fuse) + " determinism=" +
      toString(resolveDeterminism(state.options.determinism)) +
      " precision=" + toString(resolvePrecision(state.options.precision));
  if (state.calibration)
    extra += " calibration=" + state.calibration->digest();
  std::optional<std::string> key = cpu::sourceFileKey(state.path, extra);
  if (!key)
    return false;
  state.planKey = *key;
  auto cache = cpu::KernelObjectCache::open(state.options.cacheDir);
  if (!cache.ok())
    return false;
  cpu::KernelObjectCache::PlanLookup hit = (*cache)->loadPlan(*key);
  if (!hit.executable)
    return false;
  const runtime::Executable &exe = *hit.executable;
  state.inputs = runtime::cpu::planTensors(exe, exe.inputs,
                                           hit.info.list("inputs"), "input");
  state.outputs = runtime::cpu::planTensors(exe, exe.outputs,
                                            hit.info.list("outputs"), "output");
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorInfo &input : state.inputs)
    shapes.push_back(input.shape);
  std::shared_ptr<const codegen::CompiledFunction> plan =
      cpu::makeLoadedCpuFunction(std::move(hit.executable));
  state.plans.emplace(std::move(shapes), plan);
  return true;
}

} // namespace

tgc::StatusOr<Model> Model::loadOnnx(const std::string &path,
                                     ModelOptions options) {
  codegen::registerAllBackends();
  auto backend = codegen::getBackend(options.backend);
  if (!backend)
    return absl::InvalidArgumentError("tgc: Model: " +
                                      llvm::toString(backend.takeError()));
  if (options.numThreads < 0 || options.interOpThreads < 1)
    return absl::InvalidArgumentError(
        "tgc: ModelOptions: numThreads must be >= 0 and interOpThreads >= 1");
  auto state = std::make_shared<detail::ModelState>();
  state->options = std::move(options);
  state->backend = *backend;
  if (state->backend->runsOnDevice()) {
    auto device = cuda::openDevice(0);
    if (!device.ok())
      return absl::Status(
          device.status().code(),
          "tgc: Model: the " + state->options.backend +
              " backend: " + std::string(device.status().message()));
    state->device = *device;
  }
  state->path = path;
  if (!state->options.calibrationTable.empty()) {
    auto table =
        codegen::CalibrationTable::loadShared(state->options.calibrationTable);
    if (!table.ok())
      return absl::Status(static_cast<absl::StatusCode>(table.status().code()),
                          "tgc: Model: " +
                              std::string(table.status().message()));
    state->calibration = *std::move(table);
  }
  if (state->backend->name() == "cpu" && !state->options.cacheDir.empty()) {
    if (loadCachedPlan(*state))
      return Model(std::move(state));
  }
  if (absl::Status status = importModel(*state); !status.ok())
    return status;
  if (!state->planKey.empty()) {
    bool dynamic = false;
    for (const TensorInfo &input : state->inputs)
      dynamic |= llvm::is_contained(input.shape, kDynamic);
    if (dynamic || cpu::mayHaveExternalData(path))
      state->planKey.clear();
  }
  return Model(std::move(state));
}

const std::vector<TensorInfo> &Model::inputs() const { return state->inputs; }
const std::vector<TensorInfo> &Model::outputs() const { return state->outputs; }

namespace {

/// The plan for inputs of `shapes` (empty for a backend that serves any
/// shapes), compiled on first use. `inputs`, when given, are checked first
/// against the function (the interpreter's located messages).
absl::StatusOr<std::shared_ptr<const codegen::CompiledFunction>>
planFor(detail::ModelState &state, std::vector<std::vector<int64_t>> shapes,
        const std::vector<runtime::HostTensor> *inputs) {
  std::lock_guard lock(state.planMutex);
  auto it = state.plans.find(shapes);
  if (it == state.plans.end() || !state.func) {
    // Loaded from the cache without its function: other shapes need it
    // (and the located messages for wrong inputs).
    if (!state.func && it == state.plans.end())
      if (absl::Status status = importModel(state); !status.ok())
        return status;
    // Wrong counts, dtypes and shapes: the interpreter's located messages.
    if (state.func && inputs)
      if (llvm::Error error = reference::checkArguments(state.func, *inputs))
        return detail::toStatus(std::move(error));
  }
  if (it != state.plans.end()) {
    state.lastPlan = it->second;
    return it->second;
  }
  codegen::BackendOptions backendOptions =
      codegen::BackendOptions::fromEnvironment();
  backendOptions.numThreads = state.options.numThreads;
  backendOptions.interOp = state.options.interOpThreads > 1;
  backendOptions.fuse = backendOptions.fuse && state.options.fuse;
  if (state.options.determinism != Determinism::Default)
    backendOptions.determinism = state.options.determinism;
  if (state.options.precision != Precision::Default)
    backendOptions.precision = state.options.precision;
  backendOptions.calibration = state.calibration;
  if (!state.options.cacheDir.empty()) {
    backendOptions.cacheDir = state.options.cacheDir;
    // The model's static shapes: file the plan under the model's key
    // too, with the output names the next load reports.
    backendOptions.planAlias = state.planKey;
    std::string names;
    for (const TensorInfo &output : state.outputs)
      names += (names.empty() ? "" : "\n") + output.name;
    backendOptions.planNotes.push_back({"outputs", names});
  }
  if (state.device)
    backendOptions.arch = state.device->arch();
  auto compiled = state.backend->compile(state.func, shapes, backendOptions);
  if (!compiled)
    return detail::toStatus(compiled.takeError());
  std::shared_ptr<const codegen::CompiledFunction> plan(std::move(*compiled));
  state.plans.emplace(std::move(shapes), plan);
  state.lastPlan = plan;
  return plan;
}

std::vector<std::vector<int64_t>>
shapesOf(const detail::ModelState &state,
         const std::vector<runtime::HostTensor> &inputs) {
  std::vector<std::vector<int64_t>> shapes;
  if (!state.backend->servesAnyShapes())
    for (const runtime::HostTensor &input : inputs)
      shapes.push_back(input.shape());
  return shapes;
}

absl::StatusOr<std::vector<runtime::HostTensor>>
runModel(detail::ModelState &state,
         const std::vector<runtime::HostTensor> &inputs,
         const runtime::RunOptions &options) {
  auto plan = planFor(state, shapesOf(state, inputs), &inputs);
  if (!plan.ok())
    return plan.status();
  codegen::RunContext context;
  context.options = options;
  context.device = state.device;
  return (*plan)->run(inputs, context);
}

} // namespace

tgc::StatusOr<std::vector<runtime::HostTensor>>
Model::run(const std::vector<runtime::HostTensor> &inputs) const {
  runtime::RunOptions options;
  options.numThreads = state->options.numThreads;
  options.interOpThreads = state->options.interOpThreads;
  return runModel(*state, inputs, options);
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
  const std::string prefix = "tgc: Model::calibrate: ";
  auto calibrator = codegen::calibratorOf(options);
  if (!calibrator.ok())
    return absl::InvalidArgumentError(
        prefix + std::string(calibrator.status().message()));
  if (state->backend->name() != "cpu")
    return absl::FailedPreconditionError(
        "tgc: Model::calibrate: int8 runs on the cpu backend, not " +
        state->backend->name().str());
  std::lock_guard lock(state->planMutex);
  if (!state->func)
    if (absl::Status status = importModel(*state); !status.ok())
      return status;
  cpu::CalibrationSamples source;
  source.count = count;
  source.read = read;
  cpu::CompileOptions compileOptions;
  compileOptions.numThreads = state->options.numThreads;
  compileOptions.fuse = state->options.fuse;
  return cpu::calibrateToFile(state->func, source, *calibrator, options,
                              compileOptions, prefix);
}

std::string Model::describePlan() const {
  std::lock_guard lock(state->planMutex);
  return state->lastPlan ? state->lastPlan->describe() : "";
}

//===----------------------------------------------------------------------===//
// CompiledModel::compileOnnx
//===----------------------------------------------------------------------===//

namespace {

/// A compiled model's requests on a tgc::Model compiled for the streams'
/// thread count (one plan per set of input shapes).
class OnnxSource : public detail::ModelSource {
public:
  explicit OnnxSource(std::shared_ptr<detail::ModelState> state)
      : state(std::move(state)) {}

  absl::StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs,
      const runtime::RunOptions &options) const override {
    runtime::RunOptions request = options;
    request.interOpThreads = state->options.interOpThreads;
    return runModel(*state, inputs, request);
  }

  std::string describe() const override {
    std::lock_guard lock(state->planMutex);
    std::string text;
    for (const auto &[shapes, plan] : state->plans)
      text += plan->describe();
    return text.empty() ? "no plan yet: inputs with dynamic dims compile on "
                          "first use\n"
                        : text;
  }

  int64_t requestBytes() const override {
    std::lock_guard lock(state->planMutex);
    int64_t bytes = 0;
    for (const auto &[shapes, plan] : state->plans)
      if (auto executable = plan->hostExecutable())
        bytes = std::max(bytes, executable->arenaBytes);
    return bytes;
  }

private:
  std::shared_ptr<detail::ModelState> state;
};

/// Applies EngineOptions::inputShapes to the model's inputs.
absl::Status fixInputShapes(std::vector<TensorInfo> &inputs,
                            const std::vector<TensorInfo> &fixed,
                            const std::string &path) {
  for (const TensorInfo &given : fixed) {
    auto it = llvm::find_if(inputs, [&](const TensorInfo &input) {
      return input.name == given.name;
    });
    if (it == inputs.end())
      return absl::InvalidArgumentError(
          "tgc: CompiledModel::compileOnnx: " + path + " has no input '" +
          given.name + "' (EngineOptions::inputShapes)");
    bool fits = given.shape.size() == it->shape.size();
    for (size_t d = 0; fits && d < given.shape.size(); ++d)
      fits = given.shape[d] >= kDynamic &&
             (it->shape[d] == kDynamic || given.shape[d] == kDynamic ||
              it->shape[d] == given.shape[d]);
    if (!fits) {
      auto text = [](const std::vector<int64_t> &shape) {
        std::string dims;
        for (int64_t dim : shape)
          dims += (dims.empty() ? "" : "x") +
                  (dim == kDynamic ? std::string("?") : std::to_string(dim));
        return "[" + dims + "]";
      };
      return absl::InvalidArgumentError(
          "tgc: CompiledModel::compileOnnx: input '" + given.name + "' of " +
          path + " has shape " + text(it->shape) + ", EngineOptions gives " +
          text(given.shape));
    }
    for (size_t d = 0; d < given.shape.size(); ++d)
      if (given.shape[d] != kDynamic)
        it->shape[d] = given.shape[d];
  }
  return absl::OkStatus();
}

} // namespace

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
  modelOptions.calibrationTable = options.calibrationTable;
  auto model = Model::loadOnnx(path, modelOptions);
  if (!model.ok())
    return model.status();
  auto source = std::make_shared<OnnxSource>(model->state);
  source->inputs = model->inputs();
  source->outputs = model->outputs();
  if (absl::Status status =
          fixInputShapes(source->inputs, options.inputShapes, path);
      !status.ok())
    return status;
  // Static shapes compile now, not on the first request.
  bool allStatic = true;
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorInfo &input : source->inputs) {
    allStatic &= !llvm::is_contained(input.shape, kDynamic);
    shapes.push_back(input.shape);
  }
  if (allStatic) {
    if (model->state->backend->servesAnyShapes())
      shapes.clear();
    if (auto plan = planFor(*model->state, std::move(shapes), nullptr);
        !plan.ok())
      return plan.status();
  }
  return detail::makeCompiledModel(std::move(source), options.hint, *config);
}
