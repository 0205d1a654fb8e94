//===- Engine.cpp - compiled models, inference requests, streams ----------===//
//
// CompiledModel / InferRequest (include/tgc/Engine.h): a pool of stream
// threads per compiled model, fed by one queue, each running requests with
// its intra-op threads taken from the process-wide thread budget.
//
//===----------------------------------------------------------------------===//

#include "runtime/EngineInternal.h"

#include "runtime/Environment.h"

#include "absl/strings/str_cat.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

using tgc::runtime::HostTensor;

namespace tgc {

const char *toString(PerformanceHint hint) {
  return hint == PerformanceHint::Latency ? "latency" : "throughput";
}

//===----------------------------------------------------------------------===//
// The machine and the thread budget
//===----------------------------------------------------------------------===//

namespace {

/// The CPUs this process may run on.
std::vector<int> allowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set))
        cpus.push_back(cpu);
  }
  if (cpus.empty())
    for (unsigned cpu = 0;
         cpu < std::max(1u, std::thread::hardware_concurrency()); ++cpu)
      cpus.push_back(static_cast<int>(cpu));
  return cpus;
}

std::string readLine(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

class ThreadBudget {
public:
  static ThreadBudget &get() {
    static ThreadBudget *budget = new ThreadBudget(); // never destroyed
    return *budget;
  }

  int total() {
    std::lock_guard lock(mutex);
    return limit;
  }

  void setTotal(int threads) {
    std::lock_guard lock(mutex);
    limit = threads > 0 ? threads : defaultTotal();
    freed.notify_all();
  }

  /// Takes up to `threads` (at least one) from the budget, waiting while it
  /// is spent; returns how many it took.
  int acquire(int threads) {
    std::unique_lock lock(mutex);
    int wanted = std::clamp(threads, 1, limit);
    freed.wait(lock, [&] { return inUse == 0 || inUse + wanted <= limit; });
    inUse += wanted;
    return wanted;
  }

  void release(int threads) {
    std::lock_guard lock(mutex);
    inUse -= threads;
    freed.notify_all();
  }

private:
  ThreadBudget() : limit(defaultTotal()) {}

  static int defaultTotal() {
    if (std::optional<int64_t> value =
            runtime::env::integer("TGC_THREAD_BUDGET");
        value && *value > 0)
      return static_cast<int>(std::min<int64_t>(*value, 1 << 16));
    return static_cast<int>(allowedCpus().size());
  }

  std::mutex mutex;
  std::condition_variable freed;
  int limit = 1;
  int inUse = 0;
};

int64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return static_cast<int64_t>(pages) * pageSize;
}

} // namespace

int physicalCores() {
  std::set<std::pair<std::string, std::string>> cores;
  std::vector<int> cpus = allowedCpus();
  for (int cpu : cpus) {
    std::string topology =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::string core = readLine(topology + "core_id");
    if (core.empty())
      return static_cast<int>(cpus.size());
    cores.emplace(readLine(topology + "physical_package_id"), core);
  }
  return std::max<int>(1, static_cast<int>(cores.size()));
}

void setThreadBudget(int threads) { ThreadBudget::get().setTotal(threads); }
int threadBudget() { return ThreadBudget::get().total(); }

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

namespace detail {

ModelSource::~ModelSource() = default;

namespace {

class ExecutableSource : public ModelSource {
public:
  ExecutableSource(std::shared_ptr<const runtime::Executable> executable,
                   std::shared_ptr<const void> keepAlive)
      : executable(std::move(executable)), keepAlive(std::move(keepAlive)) {}

  absl::StatusOr<std::vector<HostTensor>>
  run(const std::vector<HostTensor> &args,
      const runtime::RunOptions &options) const override {
    return executable->run(args, options);
  }
  std::string describe() const override { return executable->describe(); }
  int64_t requestBytes() const override { return executable->arenaBytes; }

private:
  std::shared_ptr<const runtime::Executable> executable;
  std::shared_ptr<const void> keepAlive;
};

} // namespace

std::shared_ptr<const ModelSource>
executableSource(std::shared_ptr<const runtime::Executable> executable,
                 std::vector<TensorInfo> inputs,
                 std::vector<TensorInfo> outputs,
                 std::shared_ptr<const void> keepAlive) {
  auto source = std::make_shared<ExecutableSource>(std::move(executable),
                                                   std::move(keepAlive));
  source->inputs = std::move(inputs);
  source->outputs = std::move(outputs);
  return source;
}

absl::StatusOr<StreamConfig> planStreams(const EngineOptions &options,
                                         int cores, int budget,
                                         int compiledThreads) {
  if (options.streams < 0 || options.threadsPerStream < 0)
    return absl::InvalidArgumentError(
        absl::StrCat("tgc: EngineOptions: streams (", options.streams,
                     ") and threadsPerStream (", options.threadsPerStream,
                     ") must be >= 0 (0: from the hint)"));
  int usable = std::max(1, std::min(cores, budget));
  StreamConfig config;
  if (options.hint == PerformanceHint::Latency) {
    config.streams = options.streams ? options.streams : 1;
    config.threadsPerStream = options.threadsPerStream
                                  ? options.threadsPerStream
                              : compiledThreads > 0 && config.streams == 1
                                  ? compiledThreads
                                  : std::max(1, usable / config.streams);
  } else {
    // Throughput: up to four cores one stream each at most a quarter of
    // the machine's cores per stream (one per stream on small machines),
    // as many streams as fill the cores.
    int perStream = options.streams ? std::max(1, usable / options.streams)
                                    : std::clamp(usable / 4, 1, 4);
    config.threadsPerStream =
        options.threadsPerStream ? options.threadsPerStream : perStream;
    config.streams = options.streams
                         ? options.streams
                         : std::max(1, usable / config.threadsPerStream);
  }
  return config;
}

struct CompiledModelState;

struct RequestState {
  explicit RequestState(CompiledModel model) : model(std::move(model)) {}

  CompiledModel model;
  std::mutex mutex;
  std::condition_variable done;
  std::vector<std::optional<HostTensor>> inputs;
  std::vector<std::optional<HostTensor>> outputBuffers;
  std::vector<HostTensor> results;
  Status status;
  bool running = false;     ///< queued or running
  bool inCallback = false;  ///< its callback is being called
  bool haveResults = false; ///< the last completed request succeeded
  std::function<void(const Status &)> callback;
};

/// The stream threads and their queue. Shared by the model and its
/// threads, so that a model released on one of its own threads (the last
/// request destroyed in a callback) leaves that thread a live queue.
struct Streams {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::shared_ptr<RequestState>> queue;
  bool stopping = false;
};

/// The request a stream thread is completing (callbacks may not wait on
/// it).
thread_local const RequestState *currentRequest = nullptr;

struct CompiledModelState {
  std::shared_ptr<const ModelSource> source;
  PerformanceHint hint = PerformanceHint::Latency;
  StreamConfig config;

  std::shared_ptr<Streams> streams = std::make_shared<Streams>();
  std::once_flag started;
  std::vector<std::thread> workers;

  ~CompiledModelState() {
    {
      std::lock_guard lock(streams->mutex);
      streams->stopping = true;
    }
    streams->ready.notify_all();
    for (std::thread &worker : workers) {
      if (worker.get_id() == std::this_thread::get_id())
        worker.detach();
      else if (worker.joinable())
        worker.join();
    }
  }

  void submit(std::shared_ptr<RequestState> request) {
    std::call_once(started, [&] {
      for (int s = 0; s < config.streams; ++s)
        workers.emplace_back(serve, streams, source.get(),
                             config.threadsPerStream);
    });
    {
      std::lock_guard lock(streams->mutex);
      streams->queue.push_back(std::move(request));
    }
    streams->ready.notify_one();
  }

  /// A stream thread: runs queued requests until the model goes. `source`
  /// outlives the thread's use of it: the model is alive while a request
  /// is queued or running (the request holds it).
  static void serve(std::shared_ptr<Streams> streams, const ModelSource *source,
                    int threads) {
    runtime::setNumThreads(threads);
    while (true) {
      std::shared_ptr<RequestState> request;
      {
        std::unique_lock lock(streams->mutex);
        streams->ready.wait(
            lock, [&] { return streams->stopping || !streams->queue.empty(); });
        if (streams->queue.empty())
          return;
        request = std::move(streams->queue.front());
        streams->queue.pop_front();
      }
      execute(*request, *source, threads);
    }
  }

  static void execute(RequestState &request, const ModelSource &source,
                      int threads) {
    std::vector<HostTensor> inputs;
    std::vector<HostTensor *> buffers;
    bool anyBuffer = false;
    {
      std::lock_guard lock(request.mutex);
      for (std::optional<HostTensor> &input : request.inputs)
        inputs.push_back(*input);
      for (std::optional<HostTensor> &buffer : request.outputBuffers) {
        buffers.push_back(buffer ? &*buffer : nullptr);
        anyBuffer |= buffer.has_value();
      }
    }
    runtime::RunOptions options;
    options.readEnvironment = false;
    if (anyBuffer)
      options.resultBuffers = &buffers;
    ThreadBudget &budget = ThreadBudget::get();
    options.numThreads = budget.acquire(threads);
    absl::StatusOr<std::vector<HostTensor>> results =
        source.run(inputs, options);
    budget.release(options.numThreads);
    // A backend that does not write into the buffers: copy there.
    if (results.ok() && anyBuffer)
      for (size_t i = 0; i < buffers.size() && i < results->size(); ++i) {
        HostTensor *buffer = buffers[i];
        HostTensor &result = (*results)[i];
        if (!buffer || buffer->data() == result.data())
          continue;
        if (buffer->dtype() != result.dtype() ||
            buffer->shape() != result.shape()) {
          results = absl::InvalidArgumentError(absl::StrCat(
              "result #", i, ": the output buffer is ", buffer->describe(),
              ", the result ", result.describe()));
          break;
        }
        if (result.byteSize())
          std::memcpy(buffer->data(), result.data(), result.byteSize());
        result = *buffer;
      }

    std::function<void(const Status &)> callback;
    Status status = results.status();
    {
      std::lock_guard lock(request.mutex);
      request.status = status;
      request.haveResults = results.ok();
      request.results =
          results.ok() ? *std::move(results) : std::vector<HostTensor>();
      request.running = false;
      callback = request.callback;
      request.inCallback = static_cast<bool>(callback);
    }
    if (callback) {
      const RequestState *outer = currentRequest;
      currentRequest = &request;
      std::string threw;
      try {
        callback(status);
      } catch (const std::exception &error) {
        threw = error.what();
      } catch (...) {
        threw = "an exception that is not a std::exception";
      }
      currentRequest = outer;
      std::lock_guard lock(request.mutex);
      request.inCallback = false;
      if (!threw.empty() && !request.running) {
        request.status = absl::InternalError(
            "tgc: the InferRequest's callback threw: " + threw);
        request.haveResults = false;
      }
    }
    request.done.notify_all();
  }
};

CompiledModel makeCompiledModel(std::shared_ptr<const ModelSource> source,
                                PerformanceHint hint, StreamConfig config) {
  auto state = std::make_shared<CompiledModelState>();
  int64_t perRequest = source->requestBytes();
  int64_t memory = physicalMemoryBytes();
  if (perRequest > 0 && memory > 0)
    config.streams = static_cast<int>(std::clamp<int64_t>(
        memory / 4 / perRequest, 1, std::max(1, config.streams)));
  state->source = std::move(source);
  state->hint = hint;
  state->config = config;
  return CompiledModel(std::move(state));
}

} // namespace detail

//===----------------------------------------------------------------------===//
// CompiledModel
//===----------------------------------------------------------------------===//

const std::vector<TensorInfo> &CompiledModel::inputs() const {
  return state->source->inputs;
}
const std::vector<TensorInfo> &CompiledModel::outputs() const {
  return state->source->outputs;
}

static int indexOf(const std::vector<TensorInfo> &infos,
                   const std::string &name) {
  for (size_t i = 0; i < infos.size(); ++i)
    if (infos[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int CompiledModel::inputIndex(const std::string &name) const {
  return indexOf(inputs(), name);
}
int CompiledModel::outputIndex(const std::string &name) const {
  return indexOf(outputs(), name);
}

StreamConfig CompiledModel::streamConfig() const { return state->config; }
PerformanceHint CompiledModel::hint() const { return state->hint; }

InferRequest CompiledModel::createInferRequest() const {
  auto request = std::make_shared<detail::RequestState>(*this);
  request->inputs.resize(inputs().size());
  request->outputBuffers.resize(outputs().size());
  return InferRequest(std::move(request));
}

StatusOr<std::vector<HostTensor>>
CompiledModel::run(const std::vector<HostTensor> &args) const {
  if (args.size() != inputs().size())
    return absl::InvalidArgumentError(absl::StrCat(
        "tgc: CompiledModel::run: expected ", inputs().size(), " input",
        inputs().size() == 1 ? "" : "s", ", got ", args.size()));
  InferRequest request = createInferRequest();
  for (size_t i = 0; i < args.size(); ++i)
    if (Status status = request.setInput(i, args[i]); !status.ok())
      return status;
  if (Status status = request.run(); !status.ok())
    return status;
  std::lock_guard lock(request.state->mutex);
  return std::move(request.state->results);
}

std::string CompiledModel::describe() const {
  return absl::StrCat(state->source->describe(),
                      "streams: ", state->config.streams, " x ",
                      state->config.threadsPerStream, " thread(s) (",
                      toString(state->hint), " hint)\n");
}

//===----------------------------------------------------------------------===//
// InferRequest
//===----------------------------------------------------------------------===//

InferRequest::InferRequest(std::shared_ptr<detail::RequestState> state)
    : state(std::move(state)) {}
InferRequest::InferRequest(InferRequest &&) noexcept = default;

InferRequest &InferRequest::operator=(InferRequest &&other) noexcept {
  if (this != &other) {
    if (state && detail::currentRequest != state.get())
      (void)wait();
    state = std::move(other.state);
  }
  return *this;
}

InferRequest::~InferRequest() {
  // Destroyed in its own callback: the stream completes it.
  if (state && detail::currentRequest != state.get())
    (void)wait();
}

const CompiledModel &InferRequest::model() const { return state->model; }

namespace {

constexpr int64_t kDynamicDim = -1;

/// Whether `tensor` fits `info` (dynamic dims match any size).
bool fits(const TensorInfo &info, const HostTensor &tensor) {
  if (tensor.dtype() != info.dtype ||
      tensor.shape().size() != info.shape.size())
    return false;
  for (size_t d = 0; d < info.shape.size(); ++d)
    if (info.shape[d] != kDynamicDim && info.shape[d] != tensor.shape()[d])
      return false;
  return true;
}

std::string describeInfo(const TensorInfo &info) {
  std::string text = "tensor<";
  for (int64_t dim : info.shape)
    absl::StrAppend(&text, dim == kDynamicDim ? "?" : std::to_string(dim), "x");
  absl::StrAppend(&text, std::string(runtime::dtypeName(info.dtype)), ">");
  return text;
}

std::string quoted(const TensorInfo &info, size_t index, const char *what) {
  return info.name.empty() ? absl::StrCat(what, " #", index)
                           : absl::StrCat(what, " '", info.name, "'");
}

} // namespace

Status InferRequest::setInput(size_t index, const HostTensor &tensor) {
  const std::vector<TensorInfo> &infos = state->model.inputs();
  if (index >= infos.size())
    return absl::InvalidArgumentError(
        absl::StrCat("tgc: InferRequest::setInput: input #", index,
                     " out of range (the model has ", infos.size(), ")"));
  if (!fits(infos[index], tensor))
    return absl::InvalidArgumentError(absl::StrCat(
        "tgc: InferRequest::setInput: ", quoted(infos[index], index, "input"),
        " is ", describeInfo(infos[index]), ", got ", tensor.describe()));
  std::lock_guard lock(state->mutex);
  if (state->running)
    return absl::FailedPreconditionError(
        "tgc: InferRequest::setInput: the request is running");
  state->inputs[index] = tensor;
  return absl::OkStatus();
}

Status InferRequest::setInput(const std::string &name,
                              const HostTensor &tensor) {
  int index = state->model.inputIndex(name);
  if (index < 0)
    return absl::InvalidArgumentError("tgc: InferRequest::setInput: the model "
                                      "has no input '" +
                                      name + "'");
  return setInput(static_cast<size_t>(index), tensor);
}

Status InferRequest::setOutput(size_t index, const HostTensor &buffer) {
  const std::vector<TensorInfo> &infos = state->model.outputs();
  if (index >= infos.size())
    return absl::InvalidArgumentError(
        absl::StrCat("tgc: InferRequest::setOutput: output #", index,
                     " out of range (the model has ", infos.size(), ")"));
  if (!fits(infos[index], buffer))
    return absl::InvalidArgumentError(absl::StrCat(
        "tgc: InferRequest::setOutput: ", quoted(infos[index], index, "output"),
        " is ", describeInfo(infos[index]), ", the buffer ",
        buffer.describe()));
  std::lock_guard lock(state->mutex);
  if (state->running)
    return absl::FailedPreconditionError(
        "tgc: InferRequest::setOutput: the request is running");
  state->outputBuffers[index] = buffer;
  return absl::OkStatus();
}

Status InferRequest::setOutput(const std::string &name,
                               const HostTensor &buffer) {
  int index = state->model.outputIndex(name);
  if (index < 0)
    return absl::InvalidArgumentError("tgc: InferRequest::setOutput: the "
                                      "model has no output '" +
                                      name + "'");
  return setOutput(static_cast<size_t>(index), buffer);
}

Status InferRequest::startAsync() {
  {
    std::lock_guard lock(state->mutex);
    if (state->running)
      return absl::FailedPreconditionError(
          "tgc: InferRequest::startAsync: the request is already running");
    for (size_t i = 0; i < state->inputs.size(); ++i)
      if (!state->inputs[i])
        return absl::FailedPreconditionError(absl::StrCat(
            "tgc: InferRequest::startAsync: ",
            quoted(state->model.inputs()[i], i, "input"), " is not set"));
    state->running = true;
    state->haveResults = false;
    state->results.clear();
  }
  state->model.state->submit(state);
  return absl::OkStatus();
}

Status InferRequest::wait() {
  if (detail::currentRequest == state.get())
    return absl::FailedPreconditionError(
        "tgc: InferRequest::wait: called from the request's own callback");
  std::unique_lock lock(state->mutex);
  state->done.wait(lock, [&] { return !state->running && !state->inCallback; });
  return state->status;
}

bool InferRequest::waitFor(std::chrono::milliseconds timeout) {
  if (detail::currentRequest == state.get())
    return false;
  std::unique_lock lock(state->mutex);
  return state->done.wait_for(
      lock, timeout, [&] { return !state->running && !state->inCallback; });
}

bool InferRequest::busy() const {
  std::lock_guard lock(state->mutex);
  return state->running || state->inCallback;
}

Status InferRequest::run() {
  if (Status status = startAsync(); !status.ok())
    return status;
  return wait();
}

void InferRequest::setCallback(std::function<void(const Status &)> callback) {
  std::lock_guard lock(state->mutex);
  state->callback = std::move(callback);
}

StatusOr<HostTensor> InferRequest::output(size_t index) const {
  std::lock_guard lock(state->mutex);
  if (index >= state->model.outputs().size())
    return absl::InvalidArgumentError(absl::StrCat(
        "tgc: InferRequest::output: output #", index,
        " out of range (the model has ", state->model.outputs().size(), ")"));
  if (state->running)
    return absl::FailedPreconditionError(
        "tgc: InferRequest::output: the request is running");
  if (!state->haveResults)
    return absl::FailedPreconditionError(
        state->status.ok()
            ? std::string("tgc: InferRequest::output: the request has not run")
            : "tgc: InferRequest::output: the request failed: " +
                  std::string(state->status.message()));
  if (index >= state->results.size())
    return absl::InternalError("tgc: InferRequest::output: missing result");
  return state->results[index];
}

StatusOr<HostTensor> InferRequest::output(const std::string &name) const {
  int index = state->model.outputIndex(name);
  if (index < 0)
    return absl::InvalidArgumentError(
        "tgc: InferRequest::output: the model has no output '" + name + "'");
  return output(static_cast<size_t>(index));
}

} // namespace tgc
