//===- OnnxModel.cpp - the compiler's half of tgc::Model ------------------===//
//
// An OnnxCompilation (OnnxCompilation.h): an ONNX model imported into its
// own MLIR context and compiled on a backend selected by name from the
// registry (codegen/Backend.h), one plan per set of input shapes; and
// CompiledModel::compileOnnx's compiles over it. The rest of tgc::Model
// and CompiledModel::compileOnnx, which needs no compiler, is
// LazyModel.cpp.
//
//===----------------------------------------------------------------------===//

#include "tgc/AbslStatus.h"
#include "tgc/Engine.h"
#include "tgc/Model.h"

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/cpu/Calibrate.h"
#include "codegen/cpu/PlanCache.h"
#include "codegen/reference/Interpreter.h"
#include "frontend/Function.h"
#include "frontend/Tensor.h"
#include "frontend/onnx/ModelCache.h"
#include "frontend/onnx/OnnxCompilation.h"
#include "frontend/onnx/OnnxInternal.h"
#include "runtime/EngineInternal.h"
#include "runtime/cuda/Device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <mutex>

using namespace tgc;

namespace tgc::detail {

class OnnxCompilation {
public:
  ModelOptions options;
  std::string path;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  std::vector<TensorInfo> inputs, outputs;

  const codegen::Backend *backend = nullptr;
  /// A device backend's device (opened when the model is loaded).
  std::shared_ptr<cuda::Device> device;

  mutable std::mutex planMutex;
  std::map<std::vector<std::vector<int64_t>>,
           std::shared_ptr<const codegen::CompiledFunction>>
      plans;
  std::shared_ptr<const codegen::CompiledFunction> lastPlan;
  /// Plans compiled, not loaded from the persistent cache.
  size_t compiles = 0;

  /// With ModelOptions::cacheDir on the cpu backend, for a model with
  /// static input shapes: the key its plan is filed under beside its
  /// function's (runtime::cpu::sourceFileKey), so that the next load finds
  /// it without importing the model.
  std::string planKey;
  /// ModelOptions::calibrationTable, read at load.
  std::shared_ptr<const codegen::CalibrationTable> calibration;
};

} // namespace tgc::detail

namespace {

using detail::OnnxCompilation;

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
  auto model = onnximpl::readModelMetadata(path);
  if (!model)
    return model.takeError();
  std::vector<std::string> names;
  for (const auto &output : model->graph().output())
    names.push_back(output.name());
  return names;
}

/// The model's graph inputs that are not initializers, as declared: their
/// names and shapes (dynamic dims kDynamic); their dtypes are not read.
/// Inputs that are not tensors (sequences, optionals) are an error: their
/// shapes cannot be given.
absl::StatusOr<std::vector<TensorInfo>>
declaredInputs(const std::string &path) {
  auto model = onnximpl::readModelMetadata(path);
  if (!model)
    return detail::toStatus(model.takeError());
  llvm::StringSet<> initializers;
  for (const auto &initializer : model->graph().initializer())
    initializers.insert(initializer.name());
  std::vector<TensorInfo> inputs;
  for (const auto &input : model->graph().input()) {
    if (initializers.contains(input.name()))
      continue;
    if (!input.type().has_tensor_type())
      return absl::InvalidArgumentError(
          "tgc: " + path + ": input '" + input.name() +
          "' is not a tensor: input shapes can be given only to models "
          "whose inputs are all tensors");
    TensorInfo info;
    info.name = input.name();
    for (const auto &dim : input.type().tensor_type().shape().dim())
      info.shape.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                               ? dim.dim_value()
                               : kDynamic);
    inputs.push_back(std::move(info));
  }
  return inputs;
}

/// Imports the model file into `state`: its function, inputs and outputs;
/// for ModelOptions::inputShapes where given (by `origin`).
absl::Status importModel(OnnxCompilation &state,
                         const detail::InputShapesOrigin &origin) {
  ImportOptions importOptions;
  importOptions.weightsInFile = state.options.weightsInFile;
  if (!state.options.inputShapes.empty()) {
    auto inputs = declaredInputs(state.path);
    if (!inputs.ok())
      return inputs.status();
    if (absl::Status status =
            detail::fixInputShapes(*inputs, state.options.inputShapes,
                                   state.path, origin.api, origin.option);
        !status.ok())
      return status;
    for (const TensorInfo &input : *inputs)
      importOptions.argumentShapes.push_back(input.shape);
  }
  auto module = importOnnxModel(state.context, state.path, importOptions);
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
  auto names = outputNames(state.path);
  if (!names)
    return detail::toStatus(names.takeError());
  mlir::FunctionType type = func.getFunctionType();
  mlir::Block &entry = func.getBody().front();
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    std::string name = "input" + std::to_string(i);
    if (auto loc = mlir::dyn_cast<mlir::NameLoc>(entry.getArgument(i).getLoc()))
      name = loc.getName().str();
    state.inputs.push_back(infoOf(std::move(name), input));
  }
  for (auto [i, output] : llvm::enumerate(type.getResults()))
    state.outputs.push_back(
        infoOf(i < names->size() ? (*names)[i] : "output" + std::to_string(i),
               output));
  state.func = func;
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<std::shared_ptr<OnnxCompilation>> detail::openOnnxCompilation(
    const std::string &path, const ModelOptions &options,
    std::shared_ptr<const codegen::CalibrationTable> calibration,
    const std::string &planKey, const InputShapesOrigin &origin) {
  codegen::registerAllBackends();
  auto backend = codegen::getBackend(options.backend);
  if (!backend)
    return absl::InvalidArgumentError("tgc: Model: " +
                                      llvm::toString(backend.takeError()));
  auto state = std::make_shared<OnnxCompilation>();
  state->options = options;
  state->backend = *backend;
  state->calibration = std::move(calibration);
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
  if (absl::Status status = importModel(*state, origin); !status.ok())
    return status;
  // Only a cpu plan for static shapes is filed under the model file's key.
  bool dynamic = false;
  for (const TensorInfo &input : state->inputs)
    dynamic |= llvm::is_contained(input.shape, kDynamic);
  if (state->backend->name() == "cpu" && !dynamic &&
      !cpu::mayHaveExternalData(path))
    state->planKey = planKey;
  return state;
}

const std::vector<TensorInfo> &
detail::compilationInputs(const OnnxCompilation &compilation) {
  return compilation.inputs;
}

const std::vector<TensorInfo> &
detail::compilationOutputs(const OnnxCompilation &compilation) {
  return compilation.outputs;
}

void detail::registerCompilerKernelLoaders() { codegen::registerAllBackends(); }

namespace {

/// The plan for inputs of `shapes` (empty for a backend that serves any
/// shapes), compiled on first use. `inputs`, when given, are checked first
/// against the function (the interpreter's located messages).
absl::StatusOr<std::shared_ptr<const codegen::CompiledFunction>>
planFor(OnnxCompilation &state, std::vector<std::vector<int64_t>> shapes,
        const std::vector<runtime::HostTensor> *inputs) {
  std::lock_guard<std::mutex> lock(state.planMutex);
  auto it = state.plans.find(shapes);
  if (it != state.plans.end()) {
    state.lastPlan = it->second;
    return it->second;
  }
  // Wrong counts, dtypes and shapes: the interpreter's located messages.
  if (inputs)
    if (llvm::Error error = reference::checkArguments(state.func, *inputs))
      return detail::toStatus(std::move(error));
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
  state.compiles += !plan->loadedFromCache();
  state.plans.emplace(std::move(shapes), plan);
  state.lastPlan = plan;
  return plan;
}

std::vector<std::vector<int64_t>>
shapesOf(const OnnxCompilation &state,
         const std::vector<runtime::HostTensor> &inputs) {
  std::vector<std::vector<int64_t>> shapes;
  if (!state.backend->servesAnyShapes())
    for (const runtime::HostTensor &input : inputs)
      shapes.push_back(input.shape());
  return shapes;
}

} // namespace

absl::StatusOr<std::vector<runtime::HostTensor>>
detail::runCompilation(OnnxCompilation &state,
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

std::string detail::describeCompilation(const OnnxCompilation &state) {
  std::lock_guard<std::mutex> lock(state.planMutex);
  return state.lastPlan ? state.lastPlan->describe() : "";
}

size_t detail::compilationCompiles(const OnnxCompilation &state) {
  std::lock_guard<std::mutex> lock(state.planMutex);
  return state.compiles;
}

absl::Status detail::calibrateCompilation(
    OnnxCompilation &state, size_t count,
    const std::function<StatusOr<std::vector<runtime::HostTensor>>(size_t)>
        &read,
    codegen::Calibrator calibrator, const CalibrationOptions &options) {
  const std::string prefix = "tgc: Model::calibrate: ";
  if (state.backend->name() != "cpu")
    return absl::FailedPreconditionError(
        "tgc: Model::calibrate: int8 runs on the cpu backend, not " +
        state.backend->name().str());
  std::lock_guard<std::mutex> lock(state.planMutex);
  cpu::CalibrationSamples source;
  source.count = count;
  source.read = read;
  cpu::CompileOptions compileOptions;
  compileOptions.numThreads = state.options.numThreads;
  compileOptions.fuse = state.options.fuse;
  return cpu::calibrateToFile(state.func, source, calibrator, options,
                              compileOptions, prefix);
}

//===----------------------------------------------------------------------===//
// CompiledModel::compileOnnx
//===----------------------------------------------------------------------===//

namespace {

/// A compiled model's requests on a tgc::Model compiled for the streams'
/// thread count (one plan per set of input shapes).
class OnnxSource : public detail::ModelSource {
public:
  explicit OnnxSource(std::shared_ptr<OnnxCompilation> state)
      : state(std::move(state)) {}

  absl::StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs,
      const runtime::RunOptions &options) const override {
    runtime::RunOptions request = options;
    request.interOpThreads = state->options.interOpThreads;
    return detail::runCompilation(*state, inputs, request);
  }

  std::string describe() const override {
    std::lock_guard<std::mutex> lock(state->planMutex);
    std::string text;
    for (const auto &[shapes, plan] : state->plans)
      text += plan->describe();
    return text.empty() ? "no plan yet: inputs with dynamic dims compile on "
                          "first use\n"
                        : text;
  }

  int64_t requestBytes() const override {
    std::lock_guard<std::mutex> lock(state->planMutex);
    int64_t bytes = 0;
    for (const auto &[shapes, plan] : state->plans)
      if (auto executable = plan->hostExecutable())
        bytes = std::max(bytes, executable->arenaBytes);
    return bytes;
  }

private:
  std::shared_ptr<OnnxCompilation> state;
};

} // namespace

absl::StatusOr<CompiledModel> detail::compileOnnxModel(
    const std::string &path, const EngineOptions &options,
    const StreamConfig &config, const ModelOptions &modelOptions,
    std::shared_ptr<const codegen::CalibrationTable> calibration,
    const std::string &planKey) {
  // The import takes EngineOptions::inputShapes (as modelOptions'): the
  // inputs come out with them.
  auto compilation = detail::openOnnxCompilation(
      path, modelOptions, std::move(calibration), planKey,
      {"CompiledModel::compileOnnx", "EngineOptions"});
  if (!compilation.ok())
    return compilation.status();
  auto source = std::make_shared<OnnxSource>(*compilation);
  source->inputs = (*compilation)->inputs;
  source->outputs = (*compilation)->outputs;
  // Static shapes compile now, not on the first request.
  bool allStatic = true;
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorInfo &input : source->inputs) {
    allStatic &= !llvm::is_contained(input.shape, kDynamic);
    shapes.push_back(input.shape);
  }
  if (allStatic) {
    if ((*compilation)->backend->servesAnyShapes())
      shapes.clear();
    if (auto plan = planFor(**compilation, std::move(shapes), nullptr);
        !plan.ok())
      return plan.status();
  }
  return detail::makeCompiledModel(std::move(source), options.hint, config);
}
