//===- Executable.h - a compiled function for one CUDA device ----*- C++
//-*-===//
//
// What codegen/cuda produces and the runtime runs: device buffers (the
// function's inputs, constants uploaded once, intermediates from the pool),
// kernel images (PTX or cubin, compiled at compile time), and a list of
// launches over the buffers. A call
//   1. copies the arguments to the device (host -> device, asynchronous),
//   2. enqueues every launch on the executable's one stream,
//   3. copies the results back (device -> host, asynchronous) and returns
//      intermediates to the pool (safe: later work on the stream is ordered
//      after these kernels),
//   4. synchronizes the stream once.
// Host-device transfers happen only at this boundary. Calls are serialized
// per executable (one stream).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_EXECUTABLE_H
#define TGC_RUNTIME_CUDA_EXECUTABLE_H

#include "runtime/HostTensor.h"
#include "runtime/cuda/Device.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tgc::cuda {

struct TensorSpec {
  runtime::DType dtype = runtime::DType::F32;
  std::vector<int64_t> shape;
  size_t byteSize() const;
  std::string describe() const;
};

/// A generated kernel: its entry point and compiled image.
struct KernelImage {
  std::string name;
  std::string image;
};

/// One kernel launch. Every kernel takes only device pointers (static
/// shapes are baked into the code), one per entry of `buffers`.
struct Launch {
  int kernel = 0;
  unsigned grid = 1, block = 256, sharedBytes = 0;
  std::vector<int> buffers;
};

/// Buffers are numbered inputs first, then constants, then intermediates.
struct ExecutableSpec {
  std::vector<TensorSpec> inputs;
  std::vector<runtime::HostTensor> constants;
  std::vector<TensorSpec> intermediates;
  std::vector<KernelImage> kernels;
  std::vector<Launch> launches;
  /// The buffer each result is copied back from.
  std::vector<int> results;
  /// Optional, one per result: the dtype and shape it is copied back as (a
  /// view of the first bytes of its buffer: a reshape, or an intermediate
  /// buffer shared by values of several shapes). Empty: the buffer's own.
  std::vector<TensorSpec> resultSpecs;
};

class DeviceExecutable {
public:
  /// Checks the spec: every buffer and kernel index in range, every result
  /// an input, constant or intermediate of the right size.
  static absl::StatusOr<std::unique_ptr<DeviceExecutable>>
  create(ExecutableSpec spec);

  const ExecutableSpec &spec() const { return program; }
  int numBuffers() const;
  TensorSpec bufferSpec(int buffer) const;
  /// One line per launch: "launch k0 <<<grid, block>>> (b0, b3)".
  std::string describe() const;

  /// Runs on `device` (the executable binds to the first device it runs
  /// on): one stream, one synchronization.
  absl::StatusOr<std::vector<runtime::HostTensor>>
  run(Device &device, const std::vector<runtime::HostTensor> &args);

private:
  explicit DeviceExecutable(ExecutableSpec spec) : program(std::move(spec)) {}
  absl::Status prepare(Device &device);

  ExecutableSpec program;
  std::mutex mutex;
  Device *boundDevice = nullptr;
  std::unique_ptr<Stream> stream;
  std::vector<void *> functions;
  /// Device copies of the constants (owned, from the pool).
  std::vector<DevicePtr> constantBuffers;
};

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_EXECUTABLE_H
