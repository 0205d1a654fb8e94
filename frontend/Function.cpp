//===- Function.cpp - traced functions: tgc::function ---------------------===//

#include "frontend/Function.h"
#include "codegen/cpu/Calibrate.h"
#include "codegen/reference/Interpreter.h"

#include "codegen/Backends.h"
#include "dialects/ShapeUtils.h"
#include "runtime/EngineInternal.h"
#include "runtime/cpu/PlanFile.h"
#include "runtime/cuda/Device.h"
#include "runtime/cuda/Executable.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace tgc;
using namespace tgc::detail;
using tracing::TraceType;

void detail::collectTensorSpecs(const TraceType &type,
                                std::vector<tracing::TensorSpec> &out) {
  switch (type.kind()) {
  case TraceType::Kind::Tensor:
  case TraceType::Kind::Variable:
    out.push_back(type.tensorSpec());
    return;
  case TraceType::Kind::Sequence:
    for (const TraceType &element : type.elements())
      collectTensorSpecs(element, out);
    return;
  case TraceType::Kind::Optional:
    if (auto value = type.optionalValue())
      collectTensorSpecs(*value, out);
    return;
  case TraceType::Kind::Map:
    for (const auto &entry : type.mapEntries())
      collectTensorSpecs(entry.second, out);
    return;
  default:
    return;
  }
}

std::vector<int64_t>
detail::aliasClasses(const std::vector<Variable> &variables) {
  std::vector<int64_t> classes;
  classes.reserve(variables.size());
  for (size_t i = 0; i < variables.size(); ++i) {
    int64_t cls = static_cast<int64_t>(i);
    for (size_t j = 0; j < i; ++j) {
      if (variables[j].id() == variables[i].id()) {
        cls = classes[j];
        break;
      }
    }
    classes.push_back(cls);
  }
  return classes;
}

static TraceType rebuildWithAliasClasses(const TraceType &type,
                                         llvm::ArrayRef<int64_t> classes,
                                         size_t &next) {
  switch (type.kind()) {
  case TraceType::Kind::Variable: {
    int64_t cls = next < classes.size() ? classes[next] : -1;
    ++next;
    return TraceType::variable(type.tensorSpec(), cls);
  }
  case TraceType::Kind::Sequence: {
    std::vector<TraceType> elements;
    for (const TraceType &element : type.elements())
      elements.push_back(rebuildWithAliasClasses(element, classes, next));
    return TraceType::sequence(type.sequenceKind(), std::move(elements));
  }
  case TraceType::Kind::Optional:
    if (auto value = type.optionalValue())
      return TraceType::optional(
          rebuildWithAliasClasses(*value, classes, next));
    return type;
  case TraceType::Kind::Map: {
    std::vector<std::pair<TraceType, TraceType>> entries;
    for (const auto &[key, value] : type.mapEntries())
      entries.emplace_back(key, rebuildWithAliasClasses(value, classes, next));
    return TraceType::map(std::move(entries));
  }
  default:
    return type;
  }
}

TraceType detail::withAliasClasses(const TraceType &type,
                                   const std::vector<int64_t> &classes) {
  size_t next = 0;
  return rebuildWithAliasClasses(type, classes, next);
}

tgc::Status detail::toStatus(llvm::Error error) {
  return absl::InvalidArgumentError(llvm::toString(std::move(error)));
}

tgc::Status
detail::validateSignature(const std::vector<tracing::TensorSpec> &specs) {
  for (auto [i, spec] : llvm::enumerate(specs)) {
    if (tgc::Status status = tracing::validateTensorSpec(spec); !status.ok())
      return absl::InvalidArgumentError("tgc: invalid input_signature: arg" +
                                        std::to_string(i) + ": " +
                                        std::string(status.message()));
    if (spec.unknownRank)
      return absl::InvalidArgumentError(
          "tgc: invalid input_signature: arg" + std::to_string(i) +
          ": unknown rank is not supported; give the rank with kDynamic dims");
  }
  return absl::OkStatus();
}

FunctionState::FunctionState(FunctionOptions opts)
    : options(std::move(opts)), cache([&] {
        tracing::CacheOptions cacheOptions;
        cacheOptions.name = options.name;
        cacheOptions.maxEntries = options.maxSpecializations;
        cacheOptions.reduceRetracing = options.reduceRetracing;
        cacheOptions.verbose = options.verbose;
        cacheOptions.log =
            options.log ? options.log : [](const std::string &line) {
              llvm::errs() << line << "\n";
            };
        return cacheOptions;
      }()) {
  Tracer::loadDialects(context);
  fastEligible = options.captures.empty() && options.device.isCpu();
  runThreads = runtime::resolveThreadCount(options.numThreads);
  runVerbose = runtime::verboseFromEnvironment();
  // Everything the backend's compiles load, loaded now: traces (and
  // compiles) run on several threads at once on this context.
  if (auto selected = backend()) {
    mlir::DialectRegistry registry;
    (*selected)->getDependentDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  } else {
    llvm::consumeError(selected.takeError());
  }
  if (options.inputSignature) {
    std::vector<TraceType> args;
    for (const tracing::TensorSpec &spec : *options.inputSignature)
      args.push_back(TraceType::tensor(spec));
    signature =
        TraceType::sequence(TraceType::SequenceKind::Tuple, std::move(args));
  }
}

void detail::sortByTraceType(
    std::vector<std::pair<TraceType, const void *>> &entries) {
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
}

bool detail::hasCudaCodegen() {
  codegen::registerAllBackends();
  return codegen::lookupBackend("cuda") != nullptr;
}

static std::string noCudaCodegen() {
  return codegen::noCudaCodegenMessage().str();
}

/// "(2x3, 4, scalar)".
static std::string
formatShapes(const std::vector<std::vector<int64_t>> &shapes) {
  std::string text = "(";
  for (auto [i, shape] : llvm::enumerate(shapes))
    text += (i ? ", " : "") + formatShape(shape);
  return text + ")";
}

tgc::Status detail::normalizeOptions(FunctionOptions &options) {
  if (options.inputSignature) {
    if (auto status = validateSignature(*options.inputSignature); !status.ok())
      return status;
  }
  if (options.maxSpecializations == 0)
    return absl::InvalidArgumentError(
        "tgc: maxSpecializations must be at least 1");
  if (options.maxPlansPerSpecialization == 0)
    return absl::InvalidArgumentError(
        "tgc: maxPlansPerSpecialization must be at least 1");
  using Backend = FunctionOptions::Backend;
  if (options.device.isCuda() && options.device.ordinal < 0)
    return absl::InvalidArgumentError("tgc: function '" + options.name +
                                      "': invalid CUDA device ordinal " +
                                      std::to_string(options.device.ordinal));
  if (options.backend == Backend::Cuda && options.device.isCpu())
    options.device = Device::cuda(0);
  if (options.device.isCuda()) {
    if (options.backend == Backend::Reference)
      return absl::InvalidArgumentError(
          "tgc: function '" + options.name +
          "': the reference backend runs on the cpu, not " +
          options.device.str());
    options.backend = Backend::Cuda;
    if (!hasCudaCodegen())
      return absl::FailedPreconditionError("tgc: function '" + options.name +
                                           "' targets " + options.device.str() +
                                           ": " + noCudaCodegen());
  }
  return absl::OkStatus();
}

TraceType FunctionState::cacheKey(const TraceType &argsType) const {
  if (options.captures.empty() && options.device.isCpu())
    return argsType;
  std::vector<TraceType> elements(argsType.elements().begin(),
                                  argsType.elements().end());
  for (const CaptureRef &capture : options.captures)
    elements.push_back(capture.key());
  if (!options.device.isCpu())
    elements.push_back(TraceType::target(options.device.str()));
  return TraceType::sequence(TraceType::SequenceKind::Tuple,
                             std::move(elements));
}

tgc::StatusOr<std::shared_ptr<cuda::Device>> FunctionState::openTarget() const {
  std::string prefix =
      "tgc: function '" + options.name + "' targets " + options.device.str();
  if (!hasCudaCodegen())
    return absl::FailedPreconditionError(prefix + ": " + noCudaCodegen());
  auto device = cuda::openDevice(options.device.ordinal);
  if (device.ok())
    return device;
  std::string reason(device.status().message());
  if (!llvm::StringRef(reason).starts_with("no CUDA device"))
    reason = "no CUDA device: " + reason;
  return absl::Status(device.status().code(), prefix + ": " + reason);
}

/// The path and placement of the first tensor leaf of `type` that is
/// neither on the host nor on `target` (path segments as in findMismatch).
static bool findMisplaced(const TraceType &type, const std::string &target,
                          std::string path, std::string &misplacedPath,
                          std::string &placement) {
  switch (type.kind()) {
  case TraceType::Kind::Tensor:
  case TraceType::Kind::Variable: {
    const std::string &device = type.tensorSpec().device;
    if (device == "cpu" || device == target)
      return false;
    misplacedPath = std::move(path);
    placement = device;
    return true;
  }
  case TraceType::Kind::Sequence: {
    bool pair = type.sequenceKind() == TraceType::SequenceKind::Pair;
    for (auto [i, element] : llvm::enumerate(type.elements())) {
      std::string sub = pair ? (i == 0 ? ".first" : ".second")
                             : "[" + std::to_string(i) + "]";
      if (findMisplaced(element, target, path + sub, misplacedPath, placement))
        return true;
    }
    return false;
  }
  case TraceType::Kind::Optional:
    if (auto value = type.optionalValue())
      return findMisplaced(*value, target, path + ".value()", misplacedPath,
                           placement);
    return false;
  case TraceType::Kind::Map:
    for (const auto &[key, value] : type.mapEntries()) {
      std::string label = key.kind() == TraceType::Kind::String
                              ? "\"" + key.stringValue() + "\""
                              : key.str();
      if (findMisplaced(value, target, path + "[" + label + "]", misplacedPath,
                        placement))
        return true;
    }
    return false;
  case TraceType::Kind::User:
    return findMisplaced(type.userInner(), target, path, misplacedPath,
                         placement);
  default:
    return false;
  }
}

tgc::Status FunctionState::checkPlacement(const TraceType &argsType) const {
  std::string target = options.device.str();
  std::string path, placement;
  bool misplaced = false;
  if (argsType.kind() == TraceType::Kind::Sequence) {
    for (auto [i, arg] : llvm::enumerate(argsType.elements()))
      if ((misplaced = findMisplaced(arg, target, "arg" + std::to_string(i),
                                     path, placement)))
        break;
  } else {
    misplaced = findMisplaced(argsType, target, "arguments", path, placement);
  }
  if (!misplaced)
    return absl::OkStatus();
  std::string message = "tgc: function '" + options.name + "' ";
  if (options.device.isCpu())
    message += "runs on the cpu but " + path + " is a tensor on " + placement +
               " (copy it to the host with DeviceTensor::toHost(), or create "
               "the function with device " +
               placement + ")";
  else
    message += "targets " + target + " but " + path + " is a tensor on " +
               placement + " (tensors are not moved between devices)";
  return absl::InvalidArgumentError(message);
}

tgc::Status FunctionState::checkCall(const TraceType &argsType) const {
  if (auto status = checkPlacement(argsType); !status.ok())
    return status;
  if (options.device.isCpu())
    return absl::OkStatus();
  return openTarget().status();
}

/// "arg0: expected T, got U (reason)".
static std::string describe(const tracing::Mismatch &mismatch) {
  return (mismatch.path.empty() ? std::string("arguments") : mismatch.path) +
         ": expected " + mismatch.expected + ", got " + mismatch.actual +
         (mismatch.reason.empty() ? "" : " (" + mismatch.reason + ")");
}

tgc::Status FunctionState::checkSignature(const TraceType &call) const {
  if (!signature)
    return absl::OkStatus();
  if (auto mismatch = tracing::findArgsMismatch(call, *signature))
    return absl::InvalidArgumentError(
        "tgc: call of '" + options.name +
        "' does not match its input_signature: " + describe(*mismatch));
  return absl::OkStatus();
}

llvm::Expected<const codegen::Backend *> FunctionState::backend() const {
  codegen::registerAllBackends();
  switch (options.backend) {
  case FunctionOptions::Backend::Reference:
    return codegen::getBackend("reference");
  case FunctionOptions::Backend::Cuda:
    return codegen::getBackend("cuda");
  case FunctionOptions::Backend::Cpu:
    break;
  }
  return codegen::getBackend("cpu");
}

tgc::StatusOr<std::shared_ptr<const codegen::CalibrationTable>>
FunctionState::calibrationTable() const {
  if (options.calibrationTable.empty())
    return std::shared_ptr<const codegen::CalibrationTable>();
  std::lock_guard lock(calibrationMutex);
  if (!calibration) {
    auto table =
        codegen::CalibrationTable::loadShared(options.calibrationTable);
    if (!table.ok())
      return table.status();
    calibration = *std::move(table);
  }
  return calibration;
}

llvm::Expected<std::shared_ptr<const codegen::CompiledFunction>>
FunctionState::compile(const Compiled &compiled,
                       const std::vector<std::vector<int64_t>> &shapes) const {
  auto selected = backend();
  if (!selected)
    return selected.takeError();
  codegen::BackendOptions backendOptions =
      codegen::BackendOptions::fromEnvironment();
  backendOptions.fuse = backendOptions.fuse && options.fuse;
  backendOptions.numThreads = runThreads;
  if (!options.cacheDir.empty())
    backendOptions.cacheDir = options.cacheDir;
  backendOptions.interOp = options.interOpThreads > 1;
  if (options.deterministic != Determinism::Default)
    backendOptions.determinism = options.deterministic;
  if (options.precision != Precision::Default)
    backendOptions.precision = options.precision;
  auto table = calibrationTable();
  if (!table.ok())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   std::string(table.status().message()));
  backendOptions.calibration = *std::move(table);
  if ((*selected)->runsOnDevice()) {
    auto device = openTarget();
    if (!device.ok())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     std::string(device.status().message()));
    backendOptions.arch = (*device)->arch();
  }
  std::unique_lock compiling(compileMutex);
  auto start = std::chrono::steady_clock::now();
  auto plan =
      (*selected)->compile(compiled.traced.func, shapes, backendOptions);
  compiling.unlock();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // A plan the persistent cache served is a load, not a compile.
  bool loaded = plan && (*plan)->loadedFromCache();
  if (!loaded)
    compileCount.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard lock(compiled.planMutex);
    if (loaded) {
      ++compiled.plansLoaded;
      compiled.loadSeconds += seconds;
    } else {
      ++compiled.compiles;
      compiled.compileSeconds += seconds;
    }
  }
  tracing::TraceEvent event;
  event.kind = loaded ? tracing::TraceEvent::Kind::PlanLoaded
                      : tracing::TraceEvent::Kind::Compile;
  event.type = compiled.signature;
  event.shapes = formatShapes(shapes);
  event.traceSeconds = seconds;
  if (!plan) {
    std::string error = llvm::toString(plan.takeError());
    event.failed = true;
    event.error = error;
    cache.recordEvent(std::move(event));
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  }
  cache.recordEvent(std::move(event));
  return std::shared_ptr<const codegen::CompiledFunction>(std::move(*plan));
}

llvm::Error FunctionState::compileStatic(Compiled &compiled) const {
  auto selected = backend();
  if (!selected)
    return selected.takeError();
  std::vector<std::vector<int64_t>> shapes;
  if (!(*selected)->servesAnyShapes()) {
    for (mlir::Type type : compiled.traced.func.getArgumentTypes()) {
      auto tensor = mlir::cast<mlir::RankedTensorType>(type);
      if (!tensor.hasStaticShape())
        return llvm::Error::success(); // compiled per input shapes on use
      shapes.emplace_back(tensor.getShape().begin(), tensor.getShape().end());
    }
  }
  auto plan = compile(compiled, shapes);
  if (!plan)
    return plan.takeError();
  compiled.staticPlan = std::move(*plan);
  return llvm::Error::success();
}

tgc::StatusOr<std::shared_ptr<const codegen::CompiledFunction>>
FunctionState::planFor(
    const Compiled &compiled,
    llvm::function_ref<std::vector<std::vector<int64_t>>()> shapesOf) const {
  if (compiled.staticPlan)
    return compiled.staticPlan;
  std::vector<std::vector<int64_t>> shapes = shapesOf();
  {
    std::lock_guard lock(compiled.planMutex);
    auto it = compiled.plans.find(shapes);
    if (it != compiled.plans.end()) {
      it->second.lastUse = ++compiled.planClock;
      return it->second.plan;
    }
  }
  // Compiled without the lock: other shapes keep running meanwhile (two
  // calls of one new shape may both compile; the first plan stored wins).
  auto plan = compile(compiled, shapes);
  if (!plan)
    return toStatus(plan.takeError());
  std::vector<std::pair<std::vector<std::vector<int64_t>>,
                        std::shared_ptr<const codegen::CompiledFunction>>>
      dropped; // released after the lock
  std::shared_ptr<const codegen::CompiledFunction> result;
  {
    std::lock_guard lock(compiled.planMutex);
    auto [it, inserted] =
        compiled.plans.try_emplace(shapes, Compiled::Plan{*plan, 0});
    it->second.lastUse = ++compiled.planClock;
    result = it->second.plan;
    while (compiled.plans.size() > options.maxPlansPerSpecialization) {
      auto victim = compiled.plans.end();
      for (auto p = compiled.plans.begin(); p != compiled.plans.end(); ++p)
        if (p != it && (victim == compiled.plans.end() ||
                        p->second.lastUse < victim->second.lastUse))
          victim = p;
      if (victim == compiled.plans.end())
        break;
      dropped.emplace_back(victim->first, std::move(victim->second.plan));
      compiled.plans.erase(victim);
    }
  }
  for (const auto &[droppedShapes, droppedPlan] : dropped) {
    tracing::TraceEvent event;
    event.kind = tracing::TraceEvent::Kind::PlanEvicted;
    event.type = compiled.signature;
    event.shapes = formatShapes(droppedShapes);
    event.error = "least recently used of more than " +
                  std::to_string(options.maxPlansPerSpecialization) +
                  " plans (FunctionOptions::maxPlansPerSpecialization)";
    cache.recordEvent(std::move(event));
  }
  return result;
}

tgc::StatusOr<std::vector<runtime::HostTensor>>
FunctionState::execute(const Compiled &compiled,
                       const CallInputs &inputs) const {
  auto plan = planFor(compiled, [&] {
    std::vector<std::vector<int64_t>> shapes;
    for (const runtime::HostTensor &t : inputs.tensors)
      shapes.push_back(t.shape());
    return shapes;
  });
  if (!plan.ok())
    return plan.status();
  codegen::RunContext context;
  context.options.numThreads = runThreads;
  context.options.verbose = runVerbose;
  context.options.readEnvironment = false;
  context.options.interOpThreads = options.interOpThreads;
  if (compiled.target.isCuda()) {
    auto device = openTarget();
    if (!device.ok())
      return device.status();
    context.device = *device;
  }
  tgc::StatusOr<std::vector<runtime::HostTensor>> results =
      (*plan)->run(inputs.tensors, context);
  if (!results.ok())
    return results.status();
  size_t expected = compiled.numOutputs + compiled.variableWrites.size();
  if (results->size() != expected)
    return absl::InternalError(
        "tgc: specialization returned " + std::to_string(results->size()) +
        " results, expected " + std::to_string(expected));
  // Variable updates land only when the whole call succeeded.
  for (auto [i, cls] : llvm::enumerate(compiled.variableWrites)) {
    if (cls < 0 || static_cast<size_t>(cls) >= inputs.variables.size())
      return absl::InternalError("tgc: bad variable index in specialization");
    Variable variable = inputs.variables[cls];
    if (auto status = variable.assign((*results)[compiled.numOutputs + i]);
        !status.ok())
      return status;
  }
  results->resize(compiled.numOutputs);
  return std::move(*results);
}

tgc::StatusOr<std::vector<cuda::DeviceTensor>>
FunctionState::executeOnDevice(const Compiled &compiled,
                               const CallInputs &inputs) const {
  if (!compiled.target.isCuda())
    return absl::InternalError("tgc: function '" + options.name +
                               "' has device tensor arguments but runs on "
                               "the cpu");
  auto device = openTarget();
  if (!device.ok())
    return device.status();
  // Device tensors are used in place; host tensors are copied in.
  std::vector<cuda::DeviceTensor> args(inputs.tensors.size());
  std::vector<bool> onDevice(inputs.tensors.size(), false);
  for (const auto &[index, tensor] : inputs.deviceTensors) {
    args[index] = tensor;
    onDevice[index] = true;
  }
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputs.tensors.size(); ++i) {
    if (!onDevice[i]) {
      auto copy = cuda::DeviceTensor::fromHost(*device, inputs.tensors[i]);
      if (!copy.ok())
        return copy.status();
      args[i] = std::move(*copy);
    }
    shapes.push_back(args[i].shape());
  }
  auto plan = planFor(compiled, [&] { return shapes; });
  if (!plan.ok())
    return plan.status();
  std::shared_ptr<cuda::DeviceExecutable> executable =
      (*plan)->deviceExecutable();
  if (!executable)
    return absl::InternalError("tgc: function '" + options.name +
                               "': its backend has no device executable");
  auto results = executable->runOnDevice(args);
  if (!results.ok())
    return results.status();
  size_t expected = compiled.numOutputs + compiled.variableWrites.size();
  if (results->size() != expected)
    return absl::InternalError(
        "tgc: specialization returned " + std::to_string(results->size()) +
        " results, expected " + std::to_string(expected));
  // Variables live on the host: their new values are copied back, and land
  // only when the whole call succeeded.
  std::vector<runtime::HostTensor> writes;
  for (size_t i = 0; i < compiled.variableWrites.size(); ++i) {
    auto host = (*results)[compiled.numOutputs + i].toHost();
    if (!host.ok())
      return host.status();
    writes.push_back(std::move(*host));
  }
  for (auto [i, cls] : llvm::enumerate(compiled.variableWrites)) {
    if (cls < 0 || static_cast<size_t>(cls) >= inputs.variables.size())
      return absl::InternalError("tgc: bad variable index in specialization");
    Variable variable = inputs.variables[cls];
    if (auto status = variable.assign(writes[i]); !status.ok())
      return status;
  }
  results->resize(compiled.numOutputs);
  return std::move(*results);
}

std::vector<SpecializationInfo> FunctionState::specializations() const {
  std::vector<SpecializationInfo> infos;
  for (const auto &entry : cache.specializations()) {
    SpecializationInfo info;
    info.signature = entry->type.str();
    info.reason = entry->reason.str();
    info.hits = entry->hits.load();
    info.traceSeconds = entry->traceSeconds;
    info.pinned = entry->pinned;
    const Compiled &compiled = *entry->payload;
    if (compiled.staticPlan) {
      info.plansHeld = 1;
      info.planBytes = compiled.staticPlan->heldBytes();
    }
    std::lock_guard lock(compiled.planMutex);
    info.compiles = compiled.compiles;
    info.compileSeconds = compiled.compileSeconds;
    info.plansLoaded = compiled.plansLoaded;
    info.loadSeconds = compiled.loadSeconds;
    for (const auto &[shapes, plan] : compiled.plans) {
      ++info.plansHeld;
      info.planBytes += plan.plan->heldBytes();
    }
    std::shared_ptr<const Compiled> payload = entry->payload;
    info.printModule = [payload](bool withLocations) {
      return printOp(payload->traced.module.get(), withLocations);
    };
    infos.push_back(std::move(info));
  }
  return infos;
}

TraceType FunctionState::captureKey(const TraceType &target,
                                    size_t capture) const {
  // cacheKey's layout: the arguments, the captures, then the target device
  // unless it is the CPU.
  llvm::ArrayRef<TraceType> elements = target.elements();
  size_t trailing =
      options.captures.size() - capture + (options.device.isCpu() ? 0 : 1);
  if (target.kind() != TraceType::Kind::Sequence || elements.size() < trailing)
    return options.captures[capture].key();
  return elements[elements.size() - trailing];
}

llvm::Expected<std::shared_ptr<const Compiled>>
FunctionState::trace(const TraceType &target, const TraceBody &body) {
  std::vector<tracing::TensorSpec> specs;
  collectTensorSpecs(target, specs);
  std::vector<ArgSpec> argSpecs;
  for (const tracing::TensorSpec &spec : specs) {
    if (spec.unknownRank)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "tgc: cannot trace '" + options.name +
                                         "' for a tensor of unknown rank");
    argSpecs.push_back(ArgSpec{spec.dtype, spec.shape});
  }
  auto compiled = std::make_shared<Compiled>();
  compiled->target = options.device;
  CaptureScope captures;
  TraceOutputs outputs;
  Tracer tracer(context);
  auto traced = tracer.trace(
      options.name, argSpecs,
      [&](llvm::ArrayRef<Tensor> leaves) -> std::vector<Tensor> {
        // Tensor captures are the last leaves; scalar ones are keyed by
        // value, and the trace uses the value in its key.
        size_t numCaptures =
            std::min(leaves.size(),
                     static_cast<size_t>(llvm::count_if(
                         options.captures,
                         [](const CaptureRef &c) { return !c.isScalar(); })));
        size_t next = leaves.size() - numCaptures;
        for (const CaptureRef &capture : options.captures)
          if (!capture.isScalar() && next < leaves.size())
            captures.bound.emplace_back(capture.id(), leaves[next++]);
        for (auto [i, capture] : llvm::enumerate(options.captures))
          if (capture.isScalar())
            captures.scalars.emplace_back(capture.id(), captureKey(target, i));
        // The scope is restored however the callable returns (it may throw).
        struct ScopeGuard {
          CaptureScope &scope;
          explicit ScopeGuard(CaptureScope &scope) : scope(scope) {
            scope.previous = currentCaptureScope();
            currentCaptureScope() = &scope;
          }
          ~ScopeGuard() { currentCaptureScope() = scope.previous; }
        } guard(captures);
        llvm::ArrayRef<Tensor> arguments = leaves.drop_back(numCaptures);
        outputs =
            body(std::span<const Tensor>(arguments.data(), arguments.size()));
        return outputs.results;
      },
      location);
  // An undeclared capture is the root cause of the errors it poisons.
  if (!captures.error.empty()) {
    if (!traced)
      llvm::consumeError(traced.takeError());
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   captures.error);
  }
  if (!traced)
    return traced.takeError();
  if (!outputs.variableError.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   outputs.variableError);
  if (tracing::hasIdentity(target))
    identityKeyed.store(true, std::memory_order_relaxed);
  compiled->signature = target.str();
  compiled->traced = std::move(*traced);
  compiled->variableWrites = std::move(outputs.variableWrites);
  if (auto error = compileStatic(*compiled))
    return std::move(error);
  compiled->numOutputs = outputs.numOutputs;
  compiled->structure = std::move(outputs.structure);
  return std::shared_ptr<const Compiled>(std::move(compiled));
}

//===----------------------------------------------------------------------===//
// The entry points of the public Function template
//===----------------------------------------------------------------------===//

tgc::StatusOr<std::shared_ptr<FunctionState>>
detail::makeFunctionState(FunctionOptions options,
                          std::source_location location, int callableArity) {
  if (auto status = normalizeOptions(options); !status.ok())
    return status;
  if (options.inputSignature && callableArity >= 0 &&
      static_cast<size_t>(callableArity) != options.inputSignature->size())
    return absl::InvalidArgumentError(
        std::string(location.file_name()) + ":" +
        std::to_string(location.line()) + ": tgc: function '" + options.name +
        "': its input_signature has " +
        std::to_string(options.inputSignature->size()) +
        " entries but the callable takes " + std::to_string(callableArity) +
        " argument" + (callableArity == 1 ? "" : "s"));
  auto state = std::make_shared<FunctionState>(std::move(options));
  state->location = location;
  return state;
}

const FunctionOptions &detail::optionsOf(const FunctionState &state) {
  return state.options;
}

void FunctionState::dropDeadIdentities() {
  cache.dropIf(
      [](const TraceType &type) { return tracing::hasDeadIdentity(type); });
}

tgc::StatusOr<FunctionState::EntryPtr>
FunctionState::entryForCall(const TraceType &argsType, const TraceBody &body) {
  if (auto status = checkCall(argsType); !status.ok())
    return status;
  if (identityKeyed.load(std::memory_order_relaxed) &&
      calls.fetch_add(1, std::memory_order_relaxed) %
              kDeadIdentityCheckPeriod ==
          0)
    dropDeadIdentities();
  auto build = [&](const TraceType &target) {
    if (identityKeyed.load(std::memory_order_relaxed))
      dropDeadIdentities();
    return trace(target, body);
  };
  if (signature) {
    if (auto status = checkSignature(argsType); !status.ok())
      return status;
    auto entry = cache.getConcrete(cacheKey(*signature), build);
    if (!entry)
      return toStatus(entry.takeError());
    return std::move(*entry);
  }
  auto entry = cache.getOrTrace(cacheKey(argsType), build);
  if (!entry)
    return toStatus(entry.takeError());
  return std::move(*entry);
}

FunctionState::FastKey
FunctionState::fastKey(std::span<const runtime::HostTensor *const> tensors) {
  FastKey key;
  uint64_t hash = 0x9e3779b97f4a7c15ull;
  auto add = [&](int64_t word) {
    key.words.push_back(word);
    hash = (hash ^ static_cast<uint64_t>(word)) * 0x100000001b3ull;
    hash ^= hash >> 29;
  };
  for (const runtime::HostTensor *tensor : tensors) {
    const std::vector<int64_t> &shape = tensor->shape();
    add(static_cast<int64_t>(tensor->dtype()) << 32 |
        static_cast<int64_t>(shape.size()));
    for (int64_t dim : shape)
      add(dim);
  }
  key.hash = static_cast<size_t>(hash);
  return key;
}

CompiledPtr FunctionState::fastLookup(const FastKey &key) {
  uint64_t generation = cache.generation();
  std::shared_lock lock(fastMutex);
  if (fastGeneration != generation)
    return nullptr;
  auto it = fast.find(key);
  if (it == fast.end())
    return nullptr;
  cache.touch(*it->second);
  return it->second->payload;
}

void FunctionState::fastRecord(FastKey key, EntryPtr entry,
                               uint64_t generation) {
  std::unique_lock lock(fastMutex);
  if (cache.generation() != generation)
    return; // the dispatch may have changed since
  if (fastGeneration != generation || fast.size() >= 1024) {
    fast.clear();
    fastGeneration = generation;
  }
  fast.emplace(std::move(key), std::move(entry));
}

tgc::StatusOr<CompiledPtr>
detail::specializationForCall(FunctionState &state, const TraceType &argsType,
                              const TraceBody &body) {
  auto entry = state.entryForCall(argsType, body);
  if (!entry.ok())
    return entry.status();
  return (*entry)->payload;
}

tgc::StatusOr<CompiledPtr> detail::specializationForTensors(
    FunctionState &state, std::span<const runtime::HostTensor *const> tensors,
    const TraceBody &body) {
  FunctionState::FastKey key;
  if (state.fastEligible) {
    key = FunctionState::fastKey(tensors);
    if (CompiledPtr hit = state.fastLookup(key))
      return hit;
  }
  uint64_t generation = state.cache.generation();
  std::vector<TraceType> elements;
  elements.reserve(tensors.size());
  for (const runtime::HostTensor *tensor : tensors)
    elements.push_back(tracing::traceTypeOf(*tensor));
  auto entry = state.entryForCall(
      TraceType::sequence(TraceType::SequenceKind::Tuple, std::move(elements)),
      body);
  if (!entry.ok())
    return entry.status();
  if (state.fastEligible)
    state.fastRecord(std::move(key), *entry, generation);
  return (*entry)->payload;
}

tgc::StatusOr<ConcreteEntry>
detail::concreteSpecialization(FunctionState &state, const TraceType &type,
                               const TraceBody &body) {
  if (auto status = state.checkSignature(type); !status.ok())
    return status;
  if (auto status = state.checkPlacement(type); !status.ok())
    return status;
  auto build = [&](const TraceType &target) {
    return state.trace(target, body);
  };
  auto entry = state.cache.getConcrete(state.cacheKey(type), build);
  if (!entry)
    return toStatus(entry.takeError());
  for (SpecializationInfo &info : state.specializations())
    if (info.signature == (*entry)->type.str())
      return ConcreteEntry{std::move(info), (*entry)->payload, (*entry)->type};
  return absl::InternalError("tgc: concrete function not in the cache");
}

/// The CPU plan of `compiled` for the shapes it was traced for, compiled
/// afresh with `numThreads` intra-op threads (all of it in the plan: no
/// persistent cache), for saveArtifact and compileModel.
static tgc::StatusOr<std::unique_ptr<codegen::CompiledFunction>>
compileStaticCpuPlan(FunctionState &state, const Compiled &compiled,
                     int numThreads, const char *what,
                     Determinism determinism = Determinism::Default,
                     Precision precision = Precision::Default,
                     const std::string &calibrationTable = "") {
  std::string prefix = "tgc: function '" + state.options.name + "': ";
  if (!compiled.target.isCpu())
    return absl::FailedPreconditionError(
        prefix + what + " is made for the cpu; this specialization targets " +
        compiled.target.str());
  mlir::func::FuncOp func = compiled.traced.func;
  std::vector<std::vector<int64_t>> shapes;
  for (mlir::Type type : func.getFunctionType().getInputs()) {
    auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return absl::FailedPreconditionError(
          prefix + what + " needs static shapes; " + compiled.signature +
          " has dynamic dims (trace a concrete function with sizes)");
    shapes.emplace_back(tensor.getShape().begin(), tensor.getShape().end());
  }
  auto cpu = codegen::getBackend("cpu");
  if (!cpu)
    return toStatus(cpu.takeError());
  codegen::BackendOptions backendOptions =
      codegen::BackendOptions::fromEnvironment();
  backendOptions.fuse = backendOptions.fuse && state.options.fuse;
  backendOptions.numThreads = numThreads;
  backendOptions.savable = true;
  if (state.options.deterministic != Determinism::Default)
    backendOptions.determinism = state.options.deterministic;
  if (determinism != Determinism::Default)
    backendOptions.determinism = determinism;
  if (state.options.precision != Precision::Default)
    backendOptions.precision = state.options.precision;
  if (precision != Precision::Default)
    backendOptions.precision = precision;
  auto table = calibrationTable.empty()
                   ? state.calibrationTable()
                   : codegen::CalibrationTable::loadShared(calibrationTable);
  if (!table.ok())
    return absl::Status(static_cast<absl::StatusCode>(table.status().code()),
                        prefix + std::string(table.status().message()));
  backendOptions.calibration = *std::move(table);
  backendOptions.cacheDir.clear(); // a fresh compile, all of it in the plan
  std::unique_lock compiling(state.compileMutex);
  auto plan = (*cpu)->compile(func, shapes, backendOptions);
  compiling.unlock();
  if (!plan)
    return absl::Status(absl::StatusCode::kFailedPrecondition,
                        prefix + llvm::toString(plan.takeError()));
  return std::move(*plan);
}

tgc::Status
detail::calibrate(FunctionState &state, const Compiled &compiled,
                  const std::vector<std::vector<runtime::HostTensor>> &samples,
                  const CalibrationOptions &options) {
  std::string prefix = "tgc: function '" + state.options.name + "': ";
  auto calibrator = codegen::calibratorOf(options);
  if (!calibrator.ok())
    return absl::InvalidArgumentError(
        prefix + std::string(calibrator.status().message()));
  if (!compiled.target.isCpu())
    return absl::FailedPreconditionError(
        prefix +
        "int8 calibration runs on the cpu; this specialization "
        "targets " +
        compiled.target.str());
  cpu::CalibrationSamples source;
  source.count = samples.size();
  source.read = [&](size_t i) -> StatusOr<std::vector<runtime::HostTensor>> {
    return samples[i];
  };
  cpu::CompileOptions compileOptions;
  compileOptions.numThreads = state.runThreads;
  compileOptions.fuse = state.options.fuse;
  std::lock_guard compiling(state.compileMutex);
  return cpu::calibrateToFile(compiled.traced.func, source, *calibrator,
                              options, compileOptions, prefix);
}

tgc::Status detail::saveArtifact(FunctionState &state, const Compiled &compiled,
                                 const std::string &path) {
  auto plan =
      compileStaticCpuPlan(state, compiled, state.runThreads, "an artifact");
  if (!plan.ok())
    return plan.status();
  std::vector<std::pair<std::string, std::string>> metadata = {
      {"function", state.options.name},
      {"signature", compiled.signature},
      {"threads",
       std::to_string(runtime::resolveThreadCount(state.runThreads))}};
  if (absl::Status status = (*plan)->saveArtifact(path, metadata); !status.ok())
    return absl::Status(status.code(),
                        "tgc: function '" + state.options.name +
                            "': " + std::string(status.message()));
  return absl::OkStatus();
}

tgc::StatusOr<CompiledModel>
detail::compileModel(std::shared_ptr<FunctionState> state, CompiledPtr compiled,
                     const EngineOptions &options) {
  auto config = planStreams(options, physicalCores(), threadBudget());
  if (!config.ok())
    return config.status();
  auto plan = compileStaticCpuPlan(*state, *compiled, config->threadsPerStream,
                                   "a compiled model", options.determinism,
                                   options.precision, options.calibrationTable);
  if (!plan.ok())
    return plan.status();
  std::shared_ptr<const codegen::CompiledFunction> owned(*std::move(plan));
  std::shared_ptr<const runtime::Executable> executable =
      owned->hostExecutable();
  if (!executable)
    return absl::InternalError("tgc: the cpu plan has no host executable");
  // The plan may view constant data in the function's MLIR context.
  struct KeepAlive {
    std::shared_ptr<FunctionState> state;
    CompiledPtr compiled;
    std::shared_ptr<const codegen::CompiledFunction> plan;
  };
  auto keepAlive = std::make_shared<const KeepAlive>(
      KeepAlive{std::move(state), std::move(compiled), owned});
  auto inputs =
      runtime::cpu::planTensors(*executable, executable->inputs, {}, "input");
  auto outputs =
      runtime::cpu::planTensors(*executable, executable->outputs, {}, "output");
  auto source = executableSource(executable, std::move(inputs),
                                 std::move(outputs), std::move(keepAlive));
  return makeCompiledModel(std::move(source), options.hint, *config);
}

tgc::Status detail::checkConcreteCall(const FunctionState &state,
                                      const TraceType &key,
                                      const TraceType &argsType) {
  if (auto status = state.checkCall(argsType); !status.ok())
    return status;
  TraceType callKey = state.cacheKey(argsType);
  if (callKey.isSubtypeOf(key))
    return absl::OkStatus();
  std::string detail;
  if (auto mismatch = tracing::findArgsMismatch(callKey, key))
    detail = ": " + describe(*mismatch);
  return absl::InvalidArgumentError(
      "tgc: concrete function of '" + state.options.name + "' for " +
      key.str() + " called with " + callKey.str() + detail +
      " (a concrete function never retraces; call the function itself)");
}

tgc::StatusOr<const std::any *>
detail::structureOf(const FunctionState &state, const Compiled &compiled,
                    const std::type_info &resultType) {
  if (compiled.structure.type() != resultType)
    return absl::InvalidArgumentError(
        "tgc: '" + state.options.name +
        "' was traced for arguments of another C++ type with the same "
        "TraceType; call it with one argument structure");
  return &compiled.structure;
}

tgc::StatusOr<std::vector<runtime::HostTensor>>
detail::execute(const FunctionState &state, const Compiled &compiled,
                const CallInputs &inputs) {
  return state.execute(compiled, inputs);
}

tgc::StatusOr<std::vector<cuda::DeviceTensor>>
detail::executeOnDevice(const FunctionState &state, const Compiled &compiled,
                        const CallInputs &inputs) {
  return state.executeOnDevice(compiled, inputs);
}

size_t detail::tracingCount(const FunctionState &state) {
  return state.cache.traceCount();
}

size_t detail::compileCount(const FunctionState &state) {
  return state.compileCount.load(std::memory_order_relaxed);
}

std::vector<SpecializationInfo> detail::specializations(FunctionState &state) {
  if (state.identityKeyed.load(std::memory_order_relaxed))
    state.dropDeadIdentities();
  return state.specializations();
}

std::vector<tracing::TraceEvent> detail::history(const FunctionState &state) {
  return state.cache.history();
}
