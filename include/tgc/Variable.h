//===- Variable.h - mutable tensors for traced functions --------*- C++ -*-===//
//
// A Variable is a host tensor that outlives calls of a traced function and
// that the function may update. Passing a Variable to a tgc::function gives
// the callable a VariableRef: `read()` returns its current value as a
// symbolic Tensor, `assign(t)` replaces it. The traced function takes the
// variable's value as an input and returns its final value; the call writes
// it back when it finishes. Variables are keyed by dtype, shape and the
// aliasing pattern among the arguments (which arguments are the same
// variable), never by identity, so two different variables of one type share
// a specialization.
//
// Each variable has a lock; a call reads the value at its start and writes
// the new value at its end. Concurrent calls updating one variable do not
// race on memory, but the last writer wins.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_VARIABLE_H
#define TGC_VARIABLE_H

#include "tgc/HostTensor.h"
#include "tgc/Tensor.h"
#include "tgc/TraceTraits.h"

#include "tgc/Status.h"

#include <memory>
#include <source_location>

namespace tgc {

namespace detail {
/// A variable's value and its lock (frontend/Variable.cpp).
struct VariableStorage;
struct SymbolicVariableState;
} // namespace detail

class Variable {
public:
  /// A variable holding a copy of `initial`.
  static Variable create(const runtime::HostTensor &initial);

  /// A copy of the current value.
  runtime::HostTensor value() const;
  /// Replaces the value; the dtype and shape must stay the same.
  Status assign(const runtime::HostTensor &value);

  runtime::DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  /// Identity of the storage (copies of a Variable share it).
  const void *id() const { return storage.get(); }

private:
  explicit Variable(std::shared_ptr<detail::VariableStorage> storage,
                    runtime::DType dtype, std::vector<int64_t> shape)
      : storage(std::move(storage)), dtype_(dtype), shape_(std::move(shape)) {}
  friend struct VariableAccess;
  std::shared_ptr<detail::VariableStorage> storage;
  runtime::DType dtype_;
  std::vector<int64_t> shape_;
};

/// A variable inside a traced function.
class VariableRef {
public:
  VariableRef() = default;
  /// The current value (the initial value, or the last assigned one).
  Tensor read() const;
  /// Replaces the value; dtype and shape must match the variable's.
  /// A mismatch is a tracing error reported at `loc`.
  void assign(const Tensor &value,
              std::source_location loc = std::source_location::current());

  std::shared_ptr<detail::SymbolicVariableState> state;
};

/// A host tensor or a scalar captured by reference.
/// - A tensor: a traced function that declares it in
///   FunctionOptions::captures reads it on every call (it is an input of
///   every specialization, and its TraceType is part of the key), unlike a
///   tensor baked in with tgc::constant at trace time.
/// - A scalar (double, float, int64_t, int32_t, bool): keyed by its value,
///   as TF keys captured Python values and Dynamo guards closure values: the
///   specialization bakes the value in, and a call after it changed traces
///   (or finds) the specialization for the new value. A lambda's plain `[&s]`
///   capture would be baked in once and later changes silently ignored.
class CaptureRef {
public:
  /// Captures `*tensor`, which must outlive the function's calls.
  static CaptureRef of(const runtime::HostTensor *tensor);
  /// Captures `*scalar` (which must outlive the function's calls) by value.
  static CaptureRef of(const double *scalar);
  static CaptureRef of(const float *scalar);
  static CaptureRef of(const int64_t *scalar);
  static CaptureRef of(const int32_t *scalar);
  static CaptureRef of(const bool *scalar);

  /// Inside a trace of a function that declares this capture: its value (a
  /// scalar as a rank-0 constant of its dtype). Elsewhere an invalid Tensor,
  /// and inside a trace of a function that does not declare it, a tracing
  /// error reported at `loc`.
  Tensor read(std::source_location loc = std::source_location::current()) const;
  /// A captured scalar's value as T: inside a trace, the value the
  /// specialization is keyed by (read when the call began); elsewhere the
  /// current value. 0 for a tensor capture, and inside a trace of a function
  /// that does not declare it (a tracing error reported at `loc`).
  template <typename T>
  T value(std::source_location loc = std::source_location::current()) const {
    tracing::TraceType key = boundKey(loc);
    switch (key.kind()) {
    case tracing::TraceType::Kind::Bool:
      return static_cast<T>(key.boolValue());
    case tracing::TraceType::Kind::Int:
      return static_cast<T>(key.intValue());
    case tracing::TraceType::Kind::Float:
      return static_cast<T>(key.floatValue());
    default:
      return T();
    }
  }
  bool isScalar() const { return kind != Kind::Tensor; }
  /// The captured tensor now (a tensor capture only).
  const runtime::HostTensor &current() const {
    return *static_cast<const runtime::HostTensor *>(source);
  }
  /// What the capture adds to a call's key: a tensor's type, or a scalar's
  /// value.
  tracing::TraceType key() const;
  const void *id() const { return source; }

private:
  enum class Kind : uint8_t { Tensor, F64, F32, I64, I32, Bool };
  /// The scalar's key: the bound one inside a declaring trace, else now.
  tracing::TraceType boundKey(std::source_location loc) const;

  const void *source = nullptr;
  Kind kind = Kind::Tensor;
};

namespace detail {
/// While a function traces: the symbolic tensor bound to each capture it
/// declares. Thread-local and nested like traces.
struct CaptureScope {
  std::vector<std::pair<const void *, Tensor>> bound;
  /// Scalar captures: the value (key) the specialization is traced for.
  std::vector<std::pair<const void *, tracing::TraceType>> scalars;
  std::string error;
  CaptureScope *previous = nullptr;
};
CaptureScope *&currentCaptureScope();

struct SymbolicVariableState {
  Tensor initial;
  Tensor current;
  bool assigned = false;
  /// Set by assign() on a dtype/shape mismatch.
  std::string error;
};
} // namespace detail

namespace tracing {
/// A variable's key: its dtype and shape, with alias class -1 until the
/// function assigns alias classes from the argument list.
template <> struct TraceTraits<Variable> {
  static TraceType traceType(const Variable &variable) {
    return TraceType::variable(
        TensorSpec{variable.dtype(), variable.shape(), false, "cpu"}, -1);
  }
};
} // namespace tracing

} // namespace tgc

#endif // TGC_VARIABLE_H
