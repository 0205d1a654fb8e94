//===- Variable.cpp - mutable tensors for traced functions ----------------===//

#include "tgc/Variable.h"

#include "dialects/TgcOps.h"
#include "frontend/Tensor.h"

#include <mutex>

using namespace tgc;

struct tgc::detail::VariableStorage {
  std::mutex mutex;
  runtime::HostTensor value;
};

Variable Variable::create(const runtime::HostTensor &initial) {
  auto storage = std::make_shared<detail::VariableStorage>();
  storage->value = initial.clone();
  return Variable(std::move(storage), initial.dtype(), initial.shape());
}

runtime::HostTensor Variable::value() const {
  std::lock_guard lock(storage->mutex);
  return storage->value.clone();
}

Status Variable::assign(const runtime::HostTensor &value) {
  if (value.dtype() != dtype_ || value.shape() != shape_)
    return absl::InvalidArgumentError(
        "tgc: cannot assign " + value.describe() + " to a variable of type " +
        runtime::HostTensor::allocate(dtype_, shape_)->describe());
  runtime::HostTensor copy = value.clone();
  std::lock_guard lock(storage->mutex);
  storage->value = std::move(copy);
  return absl::OkStatus();
}

Tensor VariableRef::read() const { return state ? state->current : Tensor(); }

void VariableRef::assign(const Tensor &value, std::source_location loc) {
  if (!state)
    return;
  if (!value.valid())
    return; // Poisoned: the error that poisoned it is already recorded.
  if (!areCompatibleTensorTypes(typeOf(value), typeOf(state->initial))) {
    if (state->error.empty())
      state->error = std::string(loc.file_name()) + ":" +
                     std::to_string(loc.line()) + ":" +
                     std::to_string(loc.column()) + ": cannot assign a " +
                     value.describe() + " to a variable of type " +
                     state->initial.describe();
    return;
  }
  state->current = value;
  state->assigned = true;
}

CaptureRef CaptureRef::of(const runtime::HostTensor *tensor) {
  CaptureRef ref;
  ref.source = tensor;
  return ref;
}

#define TGC_SCALAR_CAPTURE(type, tag)                                          \
  CaptureRef CaptureRef::of(const type *scalar) {                              \
    CaptureRef ref;                                                            \
    ref.source = scalar;                                                       \
    ref.kind = Kind::tag;                                                      \
    return ref;                                                                \
  }
TGC_SCALAR_CAPTURE(double, F64)
TGC_SCALAR_CAPTURE(float, F32)
TGC_SCALAR_CAPTURE(int64_t, I64)
TGC_SCALAR_CAPTURE(int32_t, I32)
TGC_SCALAR_CAPTURE(bool, Bool)
#undef TGC_SCALAR_CAPTURE

tracing::TraceType CaptureRef::key() const {
  switch (kind) {
  case Kind::Tensor:
    return tracing::traceTypeOf(current());
  case Kind::F64:
    return tracing::traceTypeOf(*static_cast<const double *>(source));
  case Kind::F32:
    return tracing::traceTypeOf(*static_cast<const float *>(source));
  case Kind::I64:
    return tracing::traceTypeOf(*static_cast<const int64_t *>(source));
  case Kind::I32:
    return tracing::traceTypeOf(*static_cast<const int32_t *>(source));
  case Kind::Bool:
    return tracing::traceTypeOf(*static_cast<const bool *>(source));
  }
  return tracing::TraceType::none();
}

detail::CaptureScope *&detail::currentCaptureScope() {
  thread_local CaptureScope *scope = nullptr;
  return scope;
}

static void recordUndeclared(detail::CaptureScope &scope,
                             std::source_location loc, bool scalar) {
  if (scope.error.empty())
    scope.error =
        std::string(loc.file_name()) + ":" + std::to_string(loc.line()) + ":" +
        std::to_string(loc.column()) + ": a " + (scalar ? "scalar" : "tensor") +
        " captured by reference is read by a traced function that "
        "does not declare it in FunctionOptions::captures";
}

tracing::TraceType CaptureRef::boundKey(std::source_location loc) const {
  if (!isScalar())
    return tracing::TraceType::none();
  detail::CaptureScope *scope = detail::currentCaptureScope();
  if (!scope)
    return key();
  for (const auto &[id, value] : scope->scalars)
    if (id == source)
      return value;
  recordUndeclared(*scope, loc, /*scalar=*/true);
  return tracing::TraceType::none();
}

Tensor CaptureRef::read(std::source_location loc) const {
  detail::CaptureScope *scope = detail::currentCaptureScope();
  if (!scope)
    return Tensor();
  if (isScalar()) {
    tracing::TraceType value = boundKey(loc);
    switch (kind) {
    case Kind::F64:
      return scalar(value.floatValue(), runtime::DType::F64, loc);
    case Kind::F32:
      return scalar(value.floatValue(), runtime::DType::F32, loc);
    case Kind::I64:
      return scalar(value.intValue(), runtime::DType::I64, loc);
    case Kind::I32:
      return scalar(value.intValue(), runtime::DType::I32, loc);
    case Kind::Bool:
      return scalar(value.boolValue(), runtime::DType::I1, loc);
    case Kind::Tensor:
      break;
    }
    return Tensor();
  }
  for (const auto &[id, tensor] : scope->bound)
    if (id == source)
      return tensor;
  recordUndeclared(*scope, loc, /*scalar=*/false);
  return Tensor();
}
