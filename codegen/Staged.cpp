//===- Staged.cpp - functions with data-dependent shapes, in stages -------===//

#include "codegen/Staged.h"
#include "codegen/reference/Interpreter.h"

#include "dialects/TgcOps.h"
#include "passes/Specialize.h"
#include "runtime/DataDependent.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <mutex>

using namespace mlir;
using namespace tgc;
using namespace tgc::codegen;

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

absl::Status statusOf(llvm::Error error) {
  const bool unsupported = isUnsupported(error);
  std::string message = llvm::toString(std::move(error));
  return unsupported ? absl::UnimplementedError(message)
                     : absl::InvalidArgumentError(message);
}

/// Runs a data-dependent op on the host: its result is allocated here.
absl::StatusOr<std::vector<runtime::HostTensor>>
runOnHost(Operation *op, const std::vector<runtime::HostTensor> &operands) {
  auto located = [&](const absl::Status &status) {
    return absl::Status(status.code(), locationString(op->getLoc()) + ": '" +
                                           op->getName().getStringRef().str() +
                                           "' " +
                                           std::string(status.message()));
  };
  auto one = [&](absl::StatusOr<runtime::HostTensor> result)
      -> absl::StatusOr<std::vector<runtime::HostTensor>> {
    if (!result.ok())
      return located(result.status());
    std::vector<runtime::HostTensor> results;
    results.push_back(*std::move(result));
    return results;
  };
  if (isa<NonZeroOp>(op))
    return one(runtime::nonZero(operands[0]));
  if (auto slice = dyn_cast<DynamicSliceOp>(op))
    return one(runtime::dynamicSlice(
        operands[0],
        std::vector<int64_t>(slice.getAxes().begin(), slice.getAxes().end()),
        operands[1], operands[2], operands[3]));
  if (isa<DynamicBroadcastToOp>(op))
    return one(runtime::dynamicBroadcast(operands[0], operands[1]));
  if (auto nms = dyn_cast<NonMaxSuppressionOp>(op))
    return one(runtime::nonMaxSuppression(operands[0], operands[1], operands[2],
                                          operands[3], operands[4],
                                          nms.getCenterPointBox()));
  if (auto u = dyn_cast<UniqueOp>(op)) {
    std::optional<int64_t> axis;
    if (auto a = u.getAxis())
      axis = static_cast<int64_t>(*a);
    auto result = runtime::unique(operands[0], axis, u.getSorted());
    if (!result.ok())
      return located(result.status());
    std::vector<runtime::HostTensor> results;
    results.push_back(std::move(result->values));
    results.push_back(std::move(result->indices));
    results.push_back(std::move(result->inverse));
    results.push_back(std::move(result->counts));
    return results;
  }
  if (isa<WhileOp>(op)) {
    // A loop whose carried values change shape: the reference interpreter
    // runs it whole, allocating as it goes.
    std::vector<const runtime::HostTensor *> in;
    for (const runtime::HostTensor &t : operands)
      in.push_back(&t);
    auto results = reference::runOpResults(op, in);
    if (!results)
      return absl::InvalidArgumentError(llvm::toString(results.takeError()));
    return *std::move(results);
  }
  return located(absl::UnimplementedError("has no host kernel"));
}

using ShapeKey = std::vector<std::vector<int64_t>>;
using CompiledByShapes = std::map<ShapeKey, std::unique_ptr<CompiledFunction>>;

ShapeKey shapesOf(const std::vector<runtime::HostTensor> &tensors) {
  ShapeKey shapes;
  for (const runtime::HostTensor &t : tensors)
    shapes.push_back(t.shape());
  return shapes;
}

/// `func` compiled by `backend` for `shapes`: from `cache`, else compiled
/// now and kept there (the caller holds the cache's lock).
absl::StatusOr<const CompiledFunction *>
compiledFor(CompiledByShapes &cache, const Backend &backend, func::FuncOp func,
            const ShapeKey &shapes, const BackendOptions &options) {
  auto it = cache.find(shapes);
  if (it == cache.end()) {
    auto made = backend.compile(func, shapes, options);
    if (!made)
      return statusOf(made.takeError());
    it = cache.emplace(shapes, std::move(*made)).first;
  }
  return it->second.get();
}

/// A function split at its first data-dependent or control-flow op (see
/// Staged.h).
class StagedFunction final : public CompiledFunction {
public:
  StagedFunction(const Backend &backend, BackendOptions options,
                 OwningOpRef<ModuleOp> module, Operation *dataDependent,
                 func::FuncOp onHost, func::FuncOp second,
                 std::unique_ptr<CompiledFunction> first, size_t numOperands)
      : backend_(backend), options(std::move(options)),
        module_(std::move(module)), dataDependent(dataDependent),
        onHost(onHost), second(second), first(std::move(first)),
        numOperands(numOperands) {}

  llvm::StringRef backend() const override { return backend_.name(); }

  std::string describe() const override {
    const std::string name = dataDependent->getName().getStringRef().str();
    const std::string where = locationString(dataDependent->getLoc());
    std::string text = onHost ? "staged plan: '" + name + "' at " + where +
                                    " runs on the cpu backend (the " +
                                    backend_.name().str() +
                                    " planner does not compile regions)"
                              : "staged plan: the shape of '" + name + "' at " +
                                    where + " depends on values";
    text += "\nstage 1 (the ops before it):\n" + first->describe();
    if (!text.empty() && text.back() != '\n')
      text += "\n";
    text += onHost ? "then '" + name +
                         "' on the cpu backend (compiled for the shapes of "
                         "its operands)\n"
                   : "then '" + name +
                         "' on the host (its result allocated when it "
                         "runs)\n";
    std::lock_guard<std::mutex> lock(mutex);
    text += "stage 2 (the ops after it): compiled for each shape a call "
            "brings; " +
            std::to_string(seconds.size()) + " so far\n";
    for (const auto &[shapes, compiled] : seconds) {
      std::string key;
      for (const auto &shape : shapes)
        key += (key.empty() ? "" : ", ") + shapeText(shape);
      text += "stage 2 for (" + key + "):\n" + compiled->describe();
      if (text.back() != '\n')
        text += "\n";
    }
    return text;
  }

  ModuleOp module() const override { return module_.get(); }

  absl::StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs,
      const RunContext &context) const override {
    auto firstResults = first->run(inputs, context);
    if (!firstResults.ok())
      return firstResults.status();
    std::vector<runtime::HostTensor> operands(
        firstResults->begin(),
        firstResults->begin() + static_cast<std::ptrdiff_t>(numOperands));
    auto produced = onHost ? runOnCpu(operands, context)
                           : runOnHost(dataDependent, operands);
    if (!produced.ok())
      return produced.status();
    std::vector<runtime::HostTensor> arguments = *std::move(produced);
    for (size_t i = numOperands; i < firstResults->size(); ++i)
      arguments.push_back(std::move((*firstResults)[i]));
    absl::StatusOr<const CompiledFunction *> compiled;
    {
      std::lock_guard<std::mutex> lock(mutex);
      compiled =
          compiledFor(seconds, backend_, second, shapesOf(arguments), options);
    }
    if (!compiled.ok())
      return compiled.status();
    return (*compiled)->run(arguments, context);
  }

  int64_t heldBytes() const override {
    int64_t bytes = first->heldBytes();
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto &entry : seconds)
      bytes += entry.second->heldBytes();
    return bytes;
  }

  absl::Status saveArtifact(
      const std::string &,
      const std::vector<std::pair<std::string, std::string>> &) const override {
    return absl::UnimplementedError(
        std::string(onHost ? "a function whose control flow runs on the cpu "
                             "backend ('"
                           : "a function with a data-dependent shape ('") +
        dataDependent->getName().getStringRef().str() + "' at " +
        locationString(dataDependent->getLoc()) +
        ") is compiled in stages when it runs and cannot be saved as a plan");
  }

private:
  /// The control-flow op as a function of its own on the "cpu" backend,
  /// compiled for its operands' shapes on first use.
  absl::StatusOr<std::vector<runtime::HostTensor>>
  runOnCpu(const std::vector<runtime::HostTensor> &operands,
           const RunContext &context) const {
    const Backend *cpu = lookupBackend("cpu");
    if (!cpu)
      return absl::UnimplementedError(
          locationString(dataDependent->getLoc()) +
          ": control flow needs the cpu backend, which is not registered");
    BackendOptions cpuOptions = options;
    cpuOptions.precision = Precision::Default;
    absl::StatusOr<const CompiledFunction *> compiled;
    {
      std::lock_guard<std::mutex> lock(mutex);
      compiled =
          compiledFor(onCpu, *cpu, onHost, shapesOf(operands), cpuOptions);
    }
    if (!compiled.ok())
      return compiled.status();
    RunContext host;
    host.options = context.options;
    return (*compiled)->run(operands, host);
  }

  const Backend &backend_;
  BackendOptions options;
  OwningOpRef<ModuleOp> module_;
  Operation *dataDependent;
  /// Control flow: the op alone as a function for the cpu backend (null
  /// for a data-dependent op).
  func::FuncOp onHost;
  func::FuncOp second;
  std::unique_ptr<CompiledFunction> first;
  size_t numOperands;
  mutable std::mutex mutex;
  mutable CompiledByShapes seconds, onCpu;
};

} // namespace

namespace {
/// A tgc.while whose results have dynamic dims once specialized: its carried
/// values change shape as it runs (a concat growing one), so its result
/// shapes depend on values like a data-dependent op's.
bool isGrowingLoop(Operation *op) {
  return isa<WhileOp>(op) && llvm::any_of(op->getResultTypes(), [](Type type) {
           return !cast<RankedTensorType>(type).hasStaticShape();
         });
}

bool splitsAt(Operation *op, StageSplit split) {
  return hasDataDependentShape(op) || isGrowingLoop(op) ||
         (split == StageSplit::DataDependentAndControlFlow &&
          isa<IfOp, WhileOp>(op));
}
} // namespace

Operation *codegen::firstSplitOp(func::FuncOp func, StageSplit split) {
  if (func.isExternal())
    return nullptr;
  for (Operation &op : func.getBody().front())
    if (splitsAt(&op, split))
      return &op;
  return nullptr;
}

bool codegen::needsStages(func::FuncOp func, StageSplit split) {
  // Also one nested in a branch: the specialization may fold the branch away
  // and leave it in the body.
  bool found = false;
  func.walk([&](Operation *op) {
    if (splitsAt(op, split)) {
      found = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

llvm::Expected<std::unique_ptr<CompiledFunction>>
codegen::compileStaged(const Backend &backend, func::FuncOp func,
                       llvm::ArrayRef<std::vector<int64_t>> inputShapes,
                       const BackendOptions &options, StageSplit split) {
  auto specialized = specializeForShapes(func, inputShapes);
  if (!specialized)
    return specialized.takeError();
  auto f = (*specialized)->lookupSymbol<func::FuncOp>(func.getName());
  Operation *dataDependent = firstSplitOp(f, split);
  BackendOptions stageOptions = options;
  stageOptions.planAlias.clear();
  stageOptions.planNotes.clear();
  stageOptions.savable = false;
  if (!dataDependent) { // folded away once the shapes were known
    // One left inside a branch or loop body is not split out of it: the cpu
    // backend runs that control-flow op whole on its reference kernels.
    // (The ops after a split are specialized again for the shapes it gives,
    // where a branch on them may fold away: torchvision's batched_nms, `if
    // boxes.numel() == 0` around NonMaxSuppression.)
    BackendOptions whole = stageOptions;
    whole.staged = true;
    return backend.compile(f, inputShapes, whole);
  }

  Block &body = f.getBody().front();
  auto definedBefore = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == &body;
    Operation *def = v.getDefiningOp();
    return def->getBlock() == &body && def->isBeforeInBlock(dataDependent);
  };
  // The values stage 2 takes from stage 1. Constants are not carried but
  // made again in stage 2, where what they feed may fold with the shapes
  // stage 1 gives (a branch on `numel == 0`).
  llvm::SetVector<Value> carried;
  llvm::SetVector<Operation *> constants;
  for (Operation *op = dataDependent->getNextNode(); op; op = op->getNextNode())
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        if (!definedBefore(v))
          continue;
        if (isa_and_nonnull<ConstantOp>(v.getDefiningOp()))
          constants.insert(v.getDefiningOp());
        else
          carried.insert(v);
      }
    });

  OpBuilder builder(f.getContext());
  Location loc = f.getLoc();
  // Stage 1: the arguments to the op's operands and the carried values.
  SmallVector<Type> firstResults;
  for (Value v : dataDependent->getOperands())
    firstResults.push_back(v.getType());
  for (Value v : carried)
    firstResults.push_back(v.getType());
  builder.setInsertionPointToEnd((*specialized)->getBody());
  auto stage1 = func::FuncOp::create(
      builder, loc, (f.getName() + "__stage1").str(),
      builder.getFunctionType(f.getArgumentTypes(), firstResults));
  {
    Block *block = stage1.addEntryBlock();
    IRMapping mapping;
    for (auto [from, to] :
         llvm::zip(body.getArguments(), block->getArguments()))
      mapping.map(from, to);
    OpBuilder inner = OpBuilder::atBlockEnd(block);
    for (Operation *op = &body.front(); op != dataDependent;
         op = op->getNextNode())
      inner.clone(*op, mapping);
    SmallVector<Value> returned;
    for (Value v : dataDependent->getOperands())
      returned.push_back(mapping.lookup(v));
    for (Value v : carried)
      returned.push_back(mapping.lookup(v));
    func::ReturnOp::create(inner, loc, returned);
  }
  // Stage 2: the op's results and the carried values to the results.
  SmallVector<Type> secondArgs(dataDependent->getResultTypes());
  for (Value v : carried)
    secondArgs.push_back(v.getType());
  auto stage2 = func::FuncOp::create(
      builder, loc, (f.getName() + "__stage2").str(),
      builder.getFunctionType(secondArgs, f.getResultTypes()));
  {
    Block *block = stage2.addEntryBlock();
    IRMapping mapping;
    unsigned next = 0;
    for (Value v : dataDependent->getResults())
      mapping.map(v, block->getArgument(next++));
    for (Value v : carried)
      mapping.map(v, block->getArgument(next++));
    OpBuilder inner = OpBuilder::atBlockEnd(block);
    for (Operation *constant : constants)
      inner.clone(*constant, mapping);
    for (Operation *op = dataDependent->getNextNode(); op;
         op = op->getNextNode())
      inner.clone(*op, mapping);
  }

  // Control flow: the op alone, as a function for the cpu backend.
  func::FuncOp onHost;
  if (!hasDataDependentShape(dataDependent) && !isGrowingLoop(dataDependent)) {
    onHost = func::FuncOp::create(
        builder, loc, (f.getName() + "__host").str(),
        builder.getFunctionType(dataDependent->getOperandTypes(),
                                dataDependent->getResultTypes()));
    Block *block = onHost.addEntryBlock();
    IRMapping mapping;
    mapping.map(dataDependent->getOperands(), block->getArguments());
    OpBuilder inner = OpBuilder::atBlockEnd(block);
    Operation *clone = inner.clone(*dataDependent, mapping);
    func::ReturnOp::create(inner, loc, clone->getResults());
  }

  auto first = backend.compile(stage1, inputShapes, stageOptions);
  if (!first)
    return first.takeError();
  return std::make_unique<StagedFunction>(
      backend, stageOptions, std::move(*specialized), dataDependent, onHost,
      stage2, std::move(*first), dataDependent->getNumOperands());
}
