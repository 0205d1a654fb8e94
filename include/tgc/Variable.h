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

/// A host tensor captured by reference: a traced function that declares it
/// in FunctionOptions::captures reads it on every call (it is an input of
/// every specialization, and its TraceType is part of the key), unlike a
/// tensor baked in with tgc::constant at trace time.
class CaptureRef {
public:
  /// Captures `*tensor`, which must outlive the function's calls.
  static CaptureRef of(const runtime::HostTensor *tensor);
  /// Inside a trace of a function that declares this capture: its value.
  /// Elsewhere an invalid Tensor, and inside a trace of a function that does
  /// not declare it, a tracing error reported at `loc`.
  Tensor read(std::source_location loc = std::source_location::current()) const;
  /// The captured tensor now.
  const runtime::HostTensor &current() const { return *source; }
  const void *id() const { return source; }

private:
  const runtime::HostTensor *source = nullptr;
};

namespace detail {
/// While a function traces: the symbolic tensor bound to each capture it
/// declares. Thread-local and nested like traces.
struct CaptureScope {
  std::vector<std::pair<const void *, Tensor>> bound;
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
