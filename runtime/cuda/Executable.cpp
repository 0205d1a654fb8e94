//===- Executable.cpp - a compiled function for one CUDA device -----------===//

#include "runtime/cuda/Executable.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

using namespace tgc::cuda;
using tgc::runtime::HostTensor;

size_t TensorSpec::byteSize() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return static_cast<size_t>(n) * runtime::dtypeSize(dtype);
}

std::string TensorSpec::describe() const {
  return absl::StrCat(absl::StrJoin(shape, "x"), shape.empty() ? "" : "x",
                      std::string(runtime::dtypeName(dtype)));
}

int DeviceExecutable::numBuffers() const {
  return static_cast<int>(program.inputs.size() + program.constants.size() +
                          program.intermediates.size());
}

TensorSpec DeviceExecutable::bufferSpec(int buffer) const {
  size_t b = static_cast<size_t>(buffer);
  if (b < program.inputs.size())
    return program.inputs[b];
  b -= program.inputs.size();
  if (b < program.constants.size())
    return TensorSpec{program.constants[b].dtype(),
                      program.constants[b].shape()};
  b -= program.constants.size();
  return program.intermediates[b];
}

absl::StatusOr<std::unique_ptr<DeviceExecutable>>
DeviceExecutable::create(ExecutableSpec spec) {
  std::unique_ptr<DeviceExecutable> executable(
      new DeviceExecutable(std::move(spec)));
  const ExecutableSpec &p = executable->program;
  const int n = executable->numBuffers();
  for (size_t i = 0; i < p.launches.size(); ++i) {
    const Launch &launch = p.launches[i];
    if (launch.kernel < 0 || launch.kernel >= (int)p.kernels.size())
      return absl::InvalidArgumentError(
          absl::StrCat("launch ", i, ": no kernel ", launch.kernel));
    if (launch.grid == 0 || launch.block == 0 || launch.block > 1024)
      return absl::InvalidArgumentError(
          absl::StrCat("launch ", i, ": bad configuration <<<", launch.grid,
                       ", ", launch.block, ">>>"));
    for (int b : launch.buffers)
      if (b < 0 || b >= n)
        return absl::InvalidArgumentError(
            absl::StrCat("launch ", i, ": no buffer ", b));
  }
  for (size_t i = 0; i < p.results.size(); ++i)
    if (p.results[i] < 0 || p.results[i] >= n)
      return absl::InvalidArgumentError(
          absl::StrCat("result ", i, ": no buffer ", p.results[i]));
  if (!p.resultSpecs.empty()) {
    if (p.resultSpecs.size() != p.results.size())
      return absl::InvalidArgumentError(
          absl::StrCat(p.resultSpecs.size(), " result specs for ",
                       p.results.size(), " results"));
    for (size_t i = 0; i < p.results.size(); ++i)
      if (p.resultSpecs[i].byteSize() >
          executable->bufferSpec(p.results[i]).byteSize())
        return absl::InvalidArgumentError(
            absl::StrCat("result ", i, ": ", p.resultSpecs[i].describe(),
                         " does not fit buffer ", p.results[i], " (",
                         executable->bufferSpec(p.results[i]).describe(), ")"));
  }
  return executable;
}

std::string DeviceExecutable::describe() const {
  std::string text;
  for (const Launch &launch : program.launches) {
    std::vector<std::string> args;
    for (int b : launch.buffers)
      args.push_back(absl::StrCat("b", b, ":", bufferSpec(b).describe()));
    absl::StrAppend(&text, "launch ", program.kernels[launch.kernel].name,
                    " <<<", launch.grid, ", ", launch.block, ">>> (",
                    absl::StrJoin(args, ", "), ")\n");
  }
  std::vector<std::string> results;
  for (int b : program.results)
    results.push_back(absl::StrCat("b", b));
  absl::StrAppend(&text, "results: ", absl::StrJoin(results, ", "), "\n");
  return text;
}

absl::Status DeviceExecutable::prepare(Device &device) {
  if (boundDevice == &device)
    return absl::OkStatus();
  if (boundDevice)
    return absl::FailedPreconditionError(
        "a CUDA executable runs on the device it first ran on");
  if (auto status = device.makeCurrent(); !status.ok())
    return status;
  auto created = device.createStream();
  if (!created.ok())
    return created.status();
  stream = std::move(*created);
  for (const KernelImage &kernel : program.kernels) {
    auto function =
        device.kernels().getFunctionFromImage(kernel.image, kernel.name);
    if (!function.ok())
      return function.status();
    functions.push_back(*function);
  }
  for (const HostTensor &constant : program.constants) {
    auto ptr = device.pool().allocate(constant.byteSize());
    if (!ptr.ok())
      return ptr.status();
    constantBuffers.push_back(*ptr);
    if (auto status =
            stream->copyToDevice(*ptr, constant.data(), constant.byteSize());
        !status.ok())
      return status;
  }
  boundDevice = &device;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HostTensor>>
DeviceExecutable::run(Device &device, const std::vector<HostTensor> &args) {
  if (args.size() != program.inputs.size())
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", program.inputs.size(), " arguments, got ", args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].dtype() != program.inputs[i].dtype ||
        args[i].shape() != program.inputs[i].shape)
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, " is ", args[i].describe(),
                       ", expected ", program.inputs[i].describe()));

  std::lock_guard<std::mutex> lock(mutex);
  if (auto status = prepare(device); !status.ok())
    return status;
  if (auto status = device.makeCurrent(); !status.ok())
    return status;

  // Device addresses of every buffer; what this call allocates goes back to
  // the pool at the end (stream-ordered, so before the synchronization).
  std::vector<DevicePtr> buffers;
  std::vector<DevicePtr> owned;
  auto release = [&] {
    for (DevicePtr ptr : owned)
      device.pool().free(ptr);
  };
  auto fail = [&](absl::Status status) {
    // Wait for enqueued work before the buffers can be reused.
    (void)stream->synchronize();
    release();
    return status;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    auto ptr = device.pool().allocate(args[i].byteSize());
    if (!ptr.ok())
      return fail(ptr.status());
    owned.push_back(*ptr);
    buffers.push_back(*ptr);
    if (auto status =
            stream->copyToDevice(*ptr, args[i].data(), args[i].byteSize());
        !status.ok())
      return fail(status);
  }
  buffers.insert(buffers.end(), constantBuffers.begin(), constantBuffers.end());
  for (const TensorSpec &spec : program.intermediates) {
    auto ptr = device.pool().allocate(spec.byteSize());
    if (!ptr.ok())
      return fail(ptr.status());
    owned.push_back(*ptr);
    buffers.push_back(*ptr);
  }
  for (const Launch &launch : program.launches) {
    std::vector<DevicePtr> values;
    for (int b : launch.buffers)
      values.push_back(buffers[b]);
    std::vector<void *> params;
    for (DevicePtr &value : values)
      params.push_back(&value);
    if (auto status =
            stream->launch(functions[launch.kernel], launch.grid, launch.block,
                           launch.sharedBytes, params.data());
        !status.ok())
      return fail(status);
  }
  std::vector<HostTensor> results;
  for (size_t r = 0; r < program.results.size(); ++r) {
    const int b = program.results[r];
    TensorSpec spec =
        program.resultSpecs.empty() ? bufferSpec(b) : program.resultSpecs[r];
    auto tensor = HostTensor::allocateUninitialized(spec.dtype, spec.shape);
    if (!tensor.ok())
      return fail(tensor.status());
    if (auto status =
            stream->copyToHost(tensor->data(), buffers[b], spec.byteSize());
        !status.ok())
      return fail(status);
    results.push_back(std::move(*tensor));
  }
  // The one synchronization of the call.
  absl::Status done = stream->synchronize();
  release();
  if (!done.ok())
    return done;
  return results;
}
