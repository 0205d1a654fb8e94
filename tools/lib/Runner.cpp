//===- Runner.cpp - run a function on a backend, for the tools ------------===//

#include "tools/lib/Runner.h"

#include "codegen/Backends.h"
#include "codegen/reference/Interpreter.h"
#include "runtime/EngineInternal.h"
#include "runtime/cuda/Device.h"
#include "runtime/cuda/Executable.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

using namespace tgc;
using namespace tgc::tooling;
using runtime::HostTensor;

namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}
llvm::Error statusError(const absl::Status &status) {
  return makeError(std::string(status.message()));
}
} // namespace

std::string tooling::noDeviceMessage(llvm::StringRef reason) {
  if (reason.starts_with("no CUDA device"))
    return reason.str();
  return "no CUDA device: " + reason.str();
}

Runner::Runner(const codegen::Backend &backend, mlir::func::FuncOp func,
               const RunnerOptions &options, llvm::raw_ostream &out)
    : selected(&backend), func(func), options(options), out(out) {}

llvm::Error Runner::openDevice() {
  if (!selected->runsOnDevice())
    return llvm::Error::success();
  auto opened = cuda::openDevice(options.cudaOrdinal);
  if (opened.ok()) {
    device = *opened;
    return llvm::Error::success();
  }
  noDevice = noDeviceMessage(std::string(opened.status().message()));
  return options.compileWithoutDevice ? llvm::Error::success()
                                      : makeError(noDevice);
}

llvm::Expected<std::unique_ptr<Runner>>
Runner::create(llvm::StringRef name, mlir::func::FuncOp func,
               const RunnerOptions &options, llvm::raw_ostream &out) {
  codegen::registerAllBackends();
  auto backend = codegen::getBackend(name);
  if (!backend)
    return backend.takeError();
  std::unique_ptr<Runner> runner(new Runner(**backend, func, options, out));
  if (llvm::Error error = runner->openDevice())
    return std::move(error);
  return std::move(runner);
}

llvm::Expected<std::unique_ptr<Runner>>
Runner::fromCompiled(std::unique_ptr<codegen::CompiledFunction> compiled,
                     const RunnerOptions &options, llvm::raw_ostream &out) {
  codegen::registerAllBackends();
  auto backend = codegen::getBackend(compiled->backend());
  if (!backend)
    return backend.takeError();
  std::unique_ptr<Runner> runner(new Runner(**backend, {}, options, out));
  runner->compiled = std::move(compiled);
  if (llvm::Error error = runner->openDevice())
    return std::move(error);
  if (options.printPlan)
    out << runner->compiled->describe();
  return std::move(runner);
}

llvm::Error Runner::compile(const std::vector<HostTensor> &args) {
  if (!func) // compiled already (fromCompiled)
    return llvm::Error::success();
  // Arguments that do not fit the signature: the error the reference
  // gives, located at the function.
  if (llvm::Error error = reference::checkArguments(func, args))
    return error;
  if (compiled)
    return llvm::Error::success();
  std::vector<std::vector<int64_t>> shapes;
  if (!selected->servesAnyShapes())
    for (const HostTensor &t : args)
      shapes.push_back(t.shape());
  codegen::BackendOptions backendOptions =
      codegen::BackendOptions::fromEnvironment();
  backendOptions.fuse = backendOptions.fuse && options.fuse;
  backendOptions.numThreads = options.threads;
  backendOptions.interOp = options.interOp > 1;
  backendOptions.allowTf32 = options.allowTf32;
  if (!options.cacheDir.empty())
    backendOptions.cacheDir = options.cacheDir;
  backendOptions.planAlias = options.planAlias;
  if (options.determinism != Determinism::Default)
    backendOptions.determinism = options.determinism;
  if (options.precision != Precision::Default)
    backendOptions.precision = options.precision;
  backendOptions.calibration = options.calibration;
  backendOptions.arch = options.cudaArch;
  if (backendOptions.arch.empty() && device)
    backendOptions.arch = device->arch();
  auto result = selected->compile(func, shapes, backendOptions);
  if (!result)
    return result.takeError();
  compiled = std::move(*result);
  if (options.printLowered && compiled->module()) {
    // As a whole module: its dense_resource blobs (file-backed weights)
    // follow it, so that the text parses again.
    compiled->module()->print(out);
    out << "\n";
  }
  if (options.printPlan)
    out << compiled->describe();
  return llvm::Error::success();
}

llvm::Expected<std::vector<HostTensor>>
Runner::run(const std::vector<HostTensor> &args) {
  if (selected->runsOnDevice() && !device)
    return makeError(noDevice);
  if (llvm::Error error = compile(args))
    return std::move(error);
  codegen::RunContext context;
  context.options.numThreads = options.threads;
  context.options.interOpThreads = options.interOp;
  context.options.verbose = options.verbose;
  context.options.profile =
      options.profile && compiled->hostExecutable() ? &events : nullptr;
  context.device = device;
  auto results = compiled->run(args, context);
  if (!results.ok())
    return statusError(results.status());
  return std::move(*results);
}

llvm::Expected<std::vector<double>>
Runner::benchmark(const std::vector<HostTensor> &args, unsigned iterations) {
  if (selected->runsOnDevice() && !device)
    return makeError(noDevice);
  if (llvm::Error error = compile(args))
    return std::move(error);
  std::shared_ptr<cuda::DeviceExecutable> onDevice =
      compiled->deviceExecutable();
  std::vector<cuda::DeviceTensor> deviceArgs;
  if (onDevice) {
    // On the device: arguments uploaded once, results left there.
    for (const HostTensor &arg : args) {
      auto tensor = cuda::DeviceTensor::fromHost(device, arg);
      if (!tensor.ok())
        return statusError(tensor.status());
      deviceArgs.push_back(std::move(*tensor));
    }
  }
  std::vector<double> ms;
  for (unsigned i = 0; i <= iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (onDevice) {
      auto results = onDevice->runOnDevice(deviceArgs);
      if (!results.ok())
        return statusError(results.status());
    } else {
      auto results = run(args);
      if (!results)
        return results.takeError();
    }
    auto stop = std::chrono::steady_clock::now();
    if (i > 0) // the first call is a warm-up
      ms.push_back(
          std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return ms;
}

const runtime::Profile *Runner::profile() const {
  return compiled && compiled->hostExecutable() ? &events : nullptr;
}

llvm::Expected<Runner::StreamsResult>
Runner::benchmarkStreams(const std::vector<HostTensor> &args, unsigned streams,
                         unsigned requests, int threadsPerStream) {
  if (selected->runsOnDevice())
    return makeError("--requests runs on a host backend (cpu, reference)");
  if (llvm::Error error = compile(args))
    return std::move(error);
  // The requests go through the engine (tgc/Engine.h): one CompiledModel
  // on the compiled plan, `streams` requests in flight, each restarted from
  // its callback until `requests` have been sent (benchmark_app's async
  // mode).
  class PlanSource : public detail::ModelSource {
  public:
    explicit PlanSource(const codegen::CompiledFunction &plan) : plan(plan) {}
    absl::StatusOr<std::vector<HostTensor>>
    run(const std::vector<HostTensor> &inputs,
        const runtime::RunOptions &options) const override {
      codegen::RunContext context;
      context.options = options;
      return plan.run(inputs, context);
    }
    std::string describe() const override { return plan.describe(); }

  private:
    const codegen::CompiledFunction &plan;
  };
  auto source = std::make_shared<PlanSource>(*compiled);
  for (size_t i = 0; i < args.size(); ++i)
    source->inputs.push_back(TensorInfo{"input" + std::to_string(i),
                                        args[i].dtype(), args[i].shape()});
  CompiledModel model = detail::makeCompiledModel(
      source, PerformanceHint::Throughput,
      StreamConfig{static_cast<int>(std::max(1u, streams)),
                   std::max(1, threadsPerStream)});
  // One untimed request per stream; its results are the reference.
  std::vector<HostTensor> reference;
  {
    auto warm = model.run(args);
    if (!warm.ok())
      return makeError(warm.status().message());
    reference = *std::move(warm);
  }
  source->outputs.resize(reference.size());

  StreamsResult result;
  result.latencies.reserve(requests);
  std::mutex mutex;
  std::condition_variable finished;
  std::string firstError;
  unsigned sent = 0, done = 0;
  using Clock = std::chrono::steady_clock;
  std::vector<InferRequest> inFlight;
  std::vector<Clock::time_point> started(streams);
  for (unsigned s = 0; s < streams; ++s) {
    inFlight.push_back(model.createInferRequest());
    for (size_t i = 0; i < args.size(); ++i)
      if (Status status = inFlight.back().setInput(i, args[i]); !status.ok())
        return makeError(status.message());
  }
  // Called on a stream thread when request `s` completes: record it and
  // start it again while requests remain.
  auto complete = [&](unsigned s, const Status &status) {
    double ms =
        std::chrono::duration<double, std::milli>(Clock::now() - started[s])
            .count();
    Status checked = status;
    if (checked.ok()) {
      // Concurrent requests on one plan give the same bytes.
      for (size_t i = 0; i < reference.size() && checked.ok(); ++i) {
        auto out = inFlight[s].output(i);
        if (!out.ok() || out->byteSize() != reference[i].byteSize() ||
            std::memcmp(out->data(), reference[i].data(),
                        reference[i].byteSize()) != 0)
          checked = absl::InternalError(
              "result #" + std::to_string(i) +
              " of a concurrent request differs from the first one's");
      }
    }
    std::lock_guard lock(mutex);
    ++done;
    if (!checked.ok() && firstError.empty())
      firstError = std::string(checked.message());
    result.latencies.push_back(ms);
    if (firstError.empty() && sent < requests) {
      ++sent;
      started[s] = Clock::now();
      if (Status restart = inFlight[s].startAsync(); !restart.ok()) {
        firstError = std::string(restart.message());
        ++done;
      }
    }
    finished.notify_all();
  };
  auto start = Clock::now();
  {
    std::lock_guard lock(mutex);
    for (unsigned s = 0; s < streams && sent < requests; ++s) {
      inFlight[s].setCallback(
          [&complete, s](const Status &status) { complete(s, status); });
      ++sent;
      started[s] = Clock::now();
      if (Status status = inFlight[s].startAsync(); !status.ok())
        return makeError(status.message());
    }
  }
  {
    std::unique_lock lock(mutex);
    finished.wait(lock, [&] { return done >= sent; });
  }
  for (InferRequest &request : inFlight)
    (void)request.wait();
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!firstError.empty())
    return makeError(firstError);
  return result;
}
