//===- Tracer.cpp - record a C++ function into a func.func ----------------===//

#include "frontend/Tracer.h"
#include "frontend/TraceState.h"

#include "dialects/ShapeUtils.h"
#include "dialects/TgcDialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

using namespace mlir;
using namespace tgc;
using namespace tgc::detail;

namespace {
thread_local TraceState *currentTrace = nullptr;

/// Trace ids are unique across tracers and threads, so a tensor can be checked
/// against the active trace without touching anything it points to.
uint64_t nextTraceId() {
  static std::atomic<uint64_t> counter{0};
  return ++counter;
}

/// The first FileLineColLoc inside `loc`, if any.
std::optional<FileLineColLoc> findFileLoc(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      found = file;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}
} // namespace

//===----------------------------------------------------------------------===//
// TraceState
//===----------------------------------------------------------------------===//

std::string tgc::detail::formatLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = findFileLoc(loc))
    os << file->getFilename().getValue() << ":" << file->getLine() << ":"
       << file->getColumn();
  else
    os << loc;
  return text;
}

Location tgc::detail::toLocation(MLIRContext &context,
                                 std::source_location loc) {
  return FileLineColLoc::get(&context, loc.file_name(), loc.line(),
                             loc.column());
}

void TraceState::recordError(Location loc, const llvm::Twine &message) {
  ++errorCount;
  if (firstError)
    return;
  firstError = formatLocation(loc) + ": error: " + message.str();
}

void TraceState::recordDiagnostic(Diagnostic &diag) {
  if (diag.getSeverity() != DiagnosticSeverity::Error)
    return;
  std::string message = diag.str();
  for (Diagnostic &note : diag.getNotes()) {
    // MLIR's "see current operation: <generic form>" note shows the op being
    // built, not user code.
    if (llvm::StringRef(note.str()).starts_with("see current operation"))
      continue;
    message += '\n';
    message += formatLocation(note.getLocation());
    message += ": note: ";
    message += note.str();
  }
  recordError(diag.getLocation(), message);
}

TraceState *tgc::detail::activeTrace() { return currentTrace; }

ActiveTraceScope::ActiveTraceScope(TraceState *state) : previous(currentTrace) {
  currentTrace = state;
}

ActiveTraceScope::~ActiveTraceScope() { currentTrace = previous; }

//===----------------------------------------------------------------------===//
// Tracer
//===----------------------------------------------------------------------===//

std::string tgc::printOp(Operation *op, bool withLocations) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (withLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false)
        .useLocalScope();
  op->print(os, flags);
  return text;
}

Tracer::Tracer(MLIRContext &context) : context(context) {}

void Tracer::loadDialects(MLIRContext &context) {
  context.loadDialect<TgcDialect, func::FuncDialect, tensor::TensorDialect>();
}

Tracer *Tracer::current() {
  return currentTrace ? &currentTrace->tracer : nullptr;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::make_error<llvm::StringError>(message,
                                             llvm::inconvertibleErrorCode());
}

llvm::Expected<TracedModule> Tracer::trace(
    llvm::StringRef name, llvm::ArrayRef<ArgSpec> args,
    llvm::function_ref<std::vector<Tensor>(llvm::ArrayRef<Tensor>)> body,
    std::source_location sourceLoc) {
  Location loc = toLocation(context, sourceLoc);
  std::string where = formatLocation(loc) + ": error: ";
  if (!context.getLoadedDialect<TgcDialect>() ||
      !context.getLoadedDialect<func::FuncDialect>())
    return makeError(where + "the MLIRContext must have the tgc and func "
                             "dialects loaded (call Tracer::loadDialects)");
  if (name.empty())
    return makeError(where + "the traced function needs a non-empty name");

  // Argument types.
  SmallVector<Type> argTypes;
  for (auto [i, spec] : llvm::enumerate(args)) {
    SmallVector<int64_t> dims;
    for (int64_t d : spec.shape) {
      if (d < 0 && d != kDynamic)
        return makeError(where + "argument #" + llvm::Twine(i) +
                         " has invalid dim " + llvm::Twine(d) +
                         " (dims are >= 0, or kDynamic)");
      dims.push_back(d == kDynamic ? ShapedType::kDynamic : d);
    }
    SmallVector<int64_t> staticDims;
    for (int64_t d : dims)
      if (!ShapedType::isDynamic(d))
        staticDims.push_back(d);
    if (!staticElementCount(staticDims))
      return makeError(where + "argument #" + llvm::Twine(i) + " shape " +
                       formatShape(dims) + " overflows int64");
    argTypes.push_back(
        RankedTensorType::get(dims, toElementType(spec.dtype, context)));
  }

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module->getBody());
  auto func = func::FuncOp::create(moduleBuilder, loc, name,
                                   FunctionType::get(&context, argTypes, {}));
  Block *entry = func.addEntryBlock();

  TraceState state(*this, context, nextTraceId());
  state.builder.setInsertionPointToEnd(entry);
  ActiveTraceScope scope(&state);
  // Diagnostics go to the trace active on the emitting thread: handlers are
  // per context, and another thread may be tracing on the same context.
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diag) {
    TraceState *active = activeTrace();
    if (!active || &active->context != diag.getLocation()->getContext())
      return failure();
    active->recordDiagnostic(diag);
    return success();
  });

  std::vector<Tensor> argTensors;
  argTensors.reserve(entry->getNumArguments());
  for (BlockArgument arg : entry->getArguments())
    argTensors.push_back(TensorAccess::make(arg, state.id));

  std::vector<Tensor> results = body(argTensors);

  SmallVector<Value> resultValues;
  SmallVector<Type> resultTypes;
  for (auto [i, result] : llvm::enumerate(results)) {
    uint64_t owner = TensorAccess::traceId(result);
    if (owner != state.id) {
      state.recordError(loc, owner == 0
                                 ? "result #" + llvm::Twine(i) +
                                       " is an empty Tensor (default-"
                                       "constructed or created outside "
                                       "tracing)"
                                 : "result #" + llvm::Twine(i) +
                                       " was not produced by this trace (a "
                                       "Tensor of another traced function)");
      continue;
    }
    if (!result.valid()) {
      // Poisoned by an earlier error, which is already recorded.
      if (!state.hasError())
        state.recordError(loc, "result #" + llvm::Twine(i) + " is invalid");
      continue;
    }
    resultValues.push_back(valueOf(result));
    resultTypes.push_back(typeOf(result));
  }
  if (!state.hasError()) {
    func::ReturnOp::create(state.builder, loc, resultValues);
    func.setFunctionType(FunctionType::get(&context, argTypes, resultTypes));
    if (failed(verify(*module)) && !state.hasError())
      state.recordError(loc, "the traced module failed to verify");
  }
  if (state.hasError())
    return makeError(*state.getFirstError());
  return TracedModule{std::move(module), func};
}
