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

detail::CaptureScope *&detail::currentCaptureScope() {
  thread_local CaptureScope *scope = nullptr;
  return scope;
}

Tensor CaptureRef::read(std::source_location loc) const {
  detail::CaptureScope *scope = detail::currentCaptureScope();
  if (!scope)
    return Tensor();
  for (const auto &[id, tensor] : scope->bound)
    if (id == source)
      return tensor;
  if (scope->error.empty())
    scope->error = std::string(loc.file_name()) + ":" +
                   std::to_string(loc.line()) + ":" +
                   std::to_string(loc.column()) +
                   ": a tensor captured by reference is read by a traced "
                   "function that does not declare it in "
                   "FunctionOptions::captures";
  return Tensor();
}
