//===- TraceState.h - the state of one trace (internal) ---------*- C++ -*-===//
//
// Internal to frontend/: the state of one Tracer::trace call, reachable from
// the op free functions through a thread-local pointer, and the helper that
// builds one op with inference, verification and poisoning.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_TRACESTATE_H
#define TGC_FRONTEND_TRACESTATE_H

#include "frontend/Tensor.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <source_location>
#include <string>

namespace tgc {
class Tracer;

namespace detail {

/// "file:line:col" of a location (the first file location inside fused, name
/// or call-site locations), or its printed form when it has none.
std::string formatLocation(mlir::Location loc);

/// The MLIR location of a C++ source location.
mlir::Location toLocation(mlir::MLIRContext &context, std::source_location loc);

/// The attribute holding `value` as an element of `elementType` (floats round
/// to nearest even; integers must be representable exactly), or failure with
/// the reason in `why`.
mlir::FailureOr<mlir::TypedAttr>
scalarElementAttr(Scalar value, mlir::Type elementType, std::string &why);

/// A tgc.constant of the active trace holding `value` (an attribute of its
/// context: a dense or dense_resource elements attribute, e.g.
/// makeFileBackedConstant's), at `loc`.
Tensor
constantOfAttr(mlir::ElementsAttr value,
               std::source_location loc = std::source_location::current());

class TraceState {
public:
  TraceState(Tracer &tracer, mlir::MLIRContext &context, uint64_t id)
      : tracer(tracer), context(context), builder(&context), id(id) {}

  Tracer &tracer;
  mlir::MLIRContext &context;
  mlir::OpBuilder builder;
  const uint64_t id;

  /// Records an error; only the first one is kept.
  void recordError(mlir::Location loc, const llvm::Twine &message);
  /// Records an error diagnostic (with its notes); warnings and remarks are
  /// dropped.
  void recordDiagnostic(mlir::Diagnostic &diag);

  bool hasError() const { return firstError.has_value(); }
  const std::optional<std::string> &getFirstError() const { return firstError; }
  /// Number of errors recorded so far (the first one is kept).
  unsigned getErrorCount() const { return errorCount; }

private:
  std::optional<std::string> firstError;
  unsigned errorCount = 0;
};

/// The trace active on this thread, or null.
TraceState *activeTrace();

/// Makes `state` the active trace on this thread for its lifetime and restores
/// the previous one afterwards (traces may nest).
class ActiveTraceScope {
public:
  explicit ActiveTraceScope(TraceState *state);
  ~ActiveTraceScope();
  ActiveTraceScope(const ActiveTraceScope &) = delete;
  ActiveTraceScope &operator=(const ActiveTraceScope &) = delete;

private:
  TraceState *previous;
};

/// Builds one op of the active trace. The constructor checks the operands: a
/// poisoned operand of this trace poisons the result silently; an operand of
/// another trace, or an empty Tensor, is an error. Then the op is created with
/// the user's location, its result type inferred (InferTypeOpInterface) or
/// given, and verified; any failure records the first error of the trace and
/// erases the op.
class OpRecorder {
public:
  OpRecorder(llvm::StringRef opName, llvm::ArrayRef<const Tensor *> operands,
             std::source_location loc);

  /// Whether the operands are usable (a trace is active and every operand is
  /// a valid tensor of it).
  bool ok() const { return usable; }
  TraceState *state() const { return trace; }
  mlir::Location loc() const { return mlir::Location(location); }
  mlir::OpBuilder &builder() { return trace->builder; }
  mlir::MLIRContext &context() { return trace->context; }

  /// An invalid tensor of the active trace.
  Tensor poison() const;

  /// Records "'<op>' op <message>" at the user's location and poisons.
  Tensor fail(const llvm::Twine &message);

  /// Builds the rank-0 constant for `value` with the element type of `like`.
  /// On failure (the dtype cannot represent the value) records an error and
  /// returns an invalid tensor.
  Tensor scalarLike(Scalar value, const Tensor &like);

  /// Creates OpT with a placeholder result type, infers the real one, and
  /// verifies the op.
  template <typename OpT, typename... Args> Tensor infer(Args &&...args) {
    if (!usable)
      return poison();
    unsigned errorsBefore = trace->getErrorCount();
    auto op = OpT::create(builder(), loc(), placeholderType(),
                          std::forward<Args>(args)...);
    return finishInferred(op.getOperation(), errorsBefore);
  }

  /// Like infer for an op with `n` results; every result is poisoned on
  /// failure.
  template <typename OpT, typename... Args>
  std::vector<Tensor> inferResults(unsigned n, Args &&...args) {
    if (!usable)
      return std::vector<Tensor>(n, poison());
    unsigned errorsBefore = trace->getErrorCount();
    llvm::SmallVector<mlir::Type, 2> types(n, placeholderType());
    auto op = OpT::create(builder(), loc(), mlir::TypeRange(types),
                          std::forward<Args>(args)...);
    return finishInferredResults(op.getOperation(), errorsBefore, n);
  }

  /// Creates OpT with the given result type and verifies it.
  template <typename OpT, typename... Args>
  Tensor build(mlir::Type resultType, Args &&...args) {
    if (!usable)
      return poison();
    unsigned errorsBefore = trace->getErrorCount();
    auto op =
        OpT::create(builder(), loc(), resultType, std::forward<Args>(args)...);
    return finishVerified(op.getOperation(), errorsBefore);
  }

  /// Creates OpT with the given result types and verifies it; every result
  /// is poisoned on failure.
  template <typename OpT, typename... Args>
  std::vector<Tensor> buildResults(mlir::TypeRange resultTypes,
                                   Args &&...args) {
    if (!usable)
      return std::vector<Tensor>(resultTypes.size(), poison());
    unsigned errorsBefore = trace->getErrorCount();
    auto op =
        OpT::create(builder(), loc(), resultTypes, std::forward<Args>(args)...);
    return finishVerifiedResults(op.getOperation(), errorsBefore);
  }

private:
  std::vector<Tensor> finishVerifiedResults(mlir::Operation *op,
                                            unsigned errorsBefore);
  mlir::Type placeholderType();
  Tensor finishInferred(mlir::Operation *op, unsigned errorsBefore);
  std::vector<Tensor> finishInferredResults(mlir::Operation *op,
                                            unsigned errorsBefore, unsigned n);
  Tensor finishVerified(mlir::Operation *op, unsigned errorsBefore);
  Tensor discard(mlir::Operation *op, unsigned errorsBefore,
                 llvm::StringRef what);

  llvm::StringRef opName;
  TraceState *trace = nullptr;
  mlir::LocationAttr location; // Null when no trace is active.
  bool usable = false;
};

} // namespace detail
} // namespace tgc

#endif // TGC_FRONTEND_TRACESTATE_H
