//===- Engine.h - compiled models, inference requests, streams --*- C++ -*-===//
//
// The deployment API: a CompiledModel is a model compiled once (weights held
// once) that any number of threads share; each InferRequest is one request's
// state (its bound inputs and outputs; the run's arena comes from the
// model's pool). Requests run on the model's streams: worker threads, each
// with its own intra-op threads, as OpenVINO's compile_model /
// InferRequest and ONNX Runtime's Session::Run / RunAsync work.
//
//   tgc::EngineOptions options;
//   options.hint = tgc::PerformanceHint::Throughput;
//   auto model = tgc::CompiledModel::compileOnnx("resnet50.onnx", options);
//   auto request = model->createInferRequest();
//   request.setInput("input", x);          // borrowed: no copy
//   request.setCallback([](const tgc::Status &s) { ... });
//   request.startAsync();
//   ...
//   request.wait();
//   auto y = request.output(0);
//
// Performance hints. Latency: one stream with every physical core (the
// fastest single request). Throughput: several streams, each with a share
// of the cores, serving requests in parallel (more requests per second).
// Explicit streams / threadsPerStream override the hint.
//
// One process-wide thread budget (setThreadBudget, TGC_THREAD_BUDGET, the
// CPUs this process may run on by default) bounds the intra-op threads of
// all running requests of all compiled models together: a stream takes its
// threads from the budget for each request and waits when the budget is
// spent, so several models or callers never oversubscribe the cores.
//
// compileOnnx and the traced-function path (ConcreteFunction::compile, in
// Function.h) need the compiler (libtgc); loadArtifact needs only the
// runtime (libtgc_runtime). Part of the public API: no MLIR, LLVM or oneDNN
// header.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_ENGINE_H
#define TGC_ENGINE_H

#include "tgc/Determinism.h"
#include "tgc/HostTensor.h"
#include "tgc/Precision.h"
#include "tgc/TensorInfo.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tgc {

enum class PerformanceHint {
  /// One stream, every physical core: the lowest latency for one request.
  Latency,
  /// Streams sized from the physical cores and the model: the most
  /// requests per second when several are in flight.
  Throughput,
};

/// "latency" / "throughput".
const char *toString(PerformanceHint hint);

struct EngineOptions {
  PerformanceHint hint = PerformanceHint::Latency;
  /// Streams (worker threads serving requests in parallel); 0: from the
  /// hint.
  int streams = 0;
  /// Intra-op threads of each stream; 0: from the hint (the physical cores
  /// divided among the streams).
  int threadsPerStream = 0;
  /// compileOnnx: the backend, by registered name ("cpu", "reference",
  /// "cuda" in CUDA builds).
  std::string backend = "cpu";
  /// compileOnnx: fuse elementwise chains into loop kernels (the `tgc-cpu`
  /// pipeline; false: `tgc-cpu-unfused`).
  bool fuse = true;
  /// compileOnnx: the persistent compilation cache directory (empty:
  /// TGC_CACHE_DIR, else none).
  std::string cacheDir;
  /// compileOnnx: sizes for the model's dynamic dims, by input name (shape
  /// entries of -1 stay dynamic). An input with every dim known after this
  /// is compiled at once; the others compile on first use, one plan per
  /// set of input shapes.
  std::vector<TensorInfo> inputShapes;
  /// compileOnnx and ConcreteFunction::compile: the determinism contract
  /// (tgc/Determinism.h; Default: TGC_DETERMINISTIC, for a traced function
  /// its FunctionOptions::deterministic). An artifact keeps the level it
  /// was compiled with.
  Determinism determinism = Determinism::Default;
  /// compileOnnx and ConcreteFunction::compile: the precision policy
  /// (tgc/Precision.h; Default: TGC_PRECISION, for a traced function its
  /// FunctionOptions::precision). An artifact keeps the policy it was
  /// compiled with.
  Precision precision = Precision::Default;
  /// With precision Int8: the calibration table file (for a traced
  /// function, else its FunctionOptions::calibrationTable).
  std::string calibrationTable;
  /// compileOnnx: the model's large weights stay in its files
  /// (ModelOptions::weightsInFile).
  bool weightsInFile = true;
};

/// How the hint and the machine sized a compiled model.
struct StreamConfig {
  int streams = 1;
  int threadsPerStream = 1;
};

/// The physical cores this process may run on (its CPU affinity, one per
/// core whatever its SMT siblings).
int physicalCores();

/// The process-wide budget of intra-op threads running at once (see
/// above). `threads` <= 0 restores the default (TGC_THREAD_BUDGET, else the
/// CPUs this process may run on).
void setThreadBudget(int threads);
int threadBudget();

namespace detail {
struct CompiledModelState;
struct RequestState;
} // namespace detail

class InferRequest;

/// A model compiled for one backend and stream configuration. Cheap to copy
/// (copies share it); thread-safe. Requests keep it alive.
class CompiledModel {
public:
  /// Imports and compiles the ONNX model at `path` (see EngineOptions).
  /// Needs libtgc (the compiler).
  static StatusOr<CompiledModel> compileOnnx(const std::string &path,
                                             EngineOptions options = {});
  /// Loads an ahead-of-time artifact (`tgc-compile`, Artifact.h): runtime
  /// only. Its streams run with the intra-op threads it was compiled for
  /// unless options say otherwise.
  static StatusOr<CompiledModel> loadArtifact(const std::string &path,
                                              EngineOptions options = {});

  /// Inputs and outputs (kDynamic, -1, for a dim known only at run time).
  const std::vector<TensorInfo> &inputs() const;
  const std::vector<TensorInfo> &outputs() const;
  /// The index of the input / output called `name`, or -1.
  int inputIndex(const std::string &name) const;
  int outputIndex(const std::string &name) const;

  StreamConfig streamConfig() const;
  PerformanceHint hint() const;

  /// A new request with nothing bound.
  InferRequest createInferRequest() const;

  /// One synchronous request on one tensor per input (inputs() order), run
  /// on a stream; results freshly owned.
  StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs) const;

  /// The plan(s): one line per step, as tgc-run --print-plan shows it, and
  /// the stream configuration.
  std::string describe() const;

  /// Used by the factories (compileOnnx, loadArtifact, ConcreteFunction).
  explicit CompiledModel(std::shared_ptr<detail::CompiledModelState> state)
      : state(std::move(state)) {}

private:
  friend class InferRequest;
  std::shared_ptr<detail::CompiledModelState> state;
};

/// One request's state: bound inputs and outputs, and its results. A
/// request runs once at a time; bind, run, read, and bind again. Not
/// thread-safe itself (one owner); different requests run in parallel.
/// Destroying a request waits for it to finish.
class InferRequest {
public:
  InferRequest(InferRequest &&) noexcept;
  InferRequest &operator=(InferRequest &&) noexcept;
  ~InferRequest();

  /// Binds an input by name or index. The tensor is used in place (no
  /// copy): a borrowed tensor's memory (HostTensor::borrow) must stay valid
  /// and unchanged until the request completes. Its dtype and shape must
  /// fit the input (InvalidArgument naming it); FailedPrecondition while
  /// the request runs.
  Status setInput(const std::string &name, const runtime::HostTensor &tensor);
  Status setInput(size_t index, const runtime::HostTensor &tensor);
  /// Binds an output buffer: the result is written into it (zero-copy on
  /// the CPU backend: the producing kernel writes there) and output()
  /// returns it. Dtype and shape must be those of the result (static
  /// outputs are checked here, dynamic ones when the request runs). It must
  /// not overlap an input.
  Status setOutput(const std::string &name, const runtime::HostTensor &buffer);
  Status setOutput(size_t index, const runtime::HostTensor &buffer);

  /// Runs the request on one of the model's streams and waits for it.
  Status run();
  /// Queues the request on the model's streams and returns at once.
  /// FailedPrecondition if it is already running or an input is unbound.
  Status startAsync();
  /// Waits for the request started last; returns its status (OK when it
  /// never started).
  Status wait();
  /// Waits at most `timeout`: true when it completed.
  bool waitFor(std::chrono::milliseconds timeout);
  /// Whether a started request has not completed yet.
  bool busy() const;
  /// Called on the stream's thread with the status of each request when it
  /// completes (before wait() returns). It must not call run() or wait() on
  /// this request; it may startAsync() it again. Empty to remove.
  void setCallback(std::function<void(const Status &)> callback);

  /// The results of the last completed request (InvalidArgument for an
  /// unknown output; FailedPrecondition when none completed successfully,
  /// or while it runs).
  StatusOr<runtime::HostTensor> output(const std::string &name) const;
  StatusOr<runtime::HostTensor> output(size_t index) const;

  const CompiledModel &model() const;

private:
  friend class CompiledModel;
  explicit InferRequest(std::shared_ptr<detail::RequestState> state);
  std::shared_ptr<detail::RequestState> state;
};

} // namespace tgc

#endif // TGC_ENGINE_H
