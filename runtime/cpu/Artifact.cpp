//===- Artifact.cpp - compiled plans that run without the compiler --------===//

#include "tgc/Artifact.h"

#include "runtime/EngineInternal.h"
#include "runtime/cpu/PlanFile.h"
#include "runtime/cuda/Device.h"
#include "runtime/cuda/PlanFile.h"

#include <functional>
#include <mutex>

namespace tgc {
namespace detail {
struct ArtifactState {
  /// A CPU plan, or
  std::shared_ptr<const runtime::Executable> executable;
  /// a CUDA plan, run on CUDA device 0 (opened on the first run).
  std::shared_ptr<cuda::DeviceExecutable> deviceExecutable;
  mutable std::mutex deviceMutex;
  mutable std::shared_ptr<cuda::Device> device;
  std::string planText;

  std::vector<TensorInfo> inputs, outputs;
  std::string function, isa;
  /// The intra-op threads it was made for (0: unknown).
  int threads = 0;
};
} // namespace detail

namespace {

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> result;
  size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    result.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

/// A CUDA artifact (tgc-compile --backend=cuda).
StatusOr<Artifact> loadDeviceArtifact(
    const std::string &path,
    const std::function<Artifact(std::shared_ptr<detail::ArtifactState>)>
        &make) {
  auto loaded = cuda::loadDevicePlan(path);
  if (!loaded.ok())
    return loaded.status();
  auto state = std::make_shared<detail::ArtifactState>();
  const cuda::ExecutableSpec &spec = loaded->executable->spec();
  std::vector<std::string> names = lines(loaded->info.get("inputs"));
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    state->inputs.push_back(
        TensorInfo{names.size() == spec.inputs.size() ? names[i] : "",
                   spec.inputs[i].dtype, spec.inputs[i].shape});
  for (size_t i = 0; i < spec.results.size(); ++i) {
    cuda::TensorSpec result =
        i < spec.resultSpecs.size()
            ? spec.resultSpecs[i]
            : loaded->executable->bufferSpec(spec.results[i]);
    state->outputs.push_back(
        TensorInfo{"output" + std::to_string(i), result.dtype, result.shape});
  }
  state->function = loaded->info.get("function");
  if (state->function.empty())
    state->function = "main";
  state->isa = "cuda " + loaded->info.arch;
  state->planText = loaded->info.get("plan");
  if (state->planText.empty())
    state->planText = loaded->executable->describe();
  state->deviceExecutable = std::move(loaded->executable);
  return make(std::move(state));
}

} // namespace

StatusOr<Artifact> Artifact::load(const std::string &path) {
  if (cuda::isDevicePlanFile(path))
    return loadDeviceArtifact(path,
                              [](std::shared_ptr<detail::ArtifactState> state) {
                                return Artifact(std::move(state));
                              });
  auto loaded = runtime::cpu::loadPlan(path);
  if (!loaded.ok())
    return loaded.status();
  auto state = std::make_shared<detail::ArtifactState>();
  const runtime::Executable &exe = *loaded->executable;
  state->inputs = runtime::cpu::planTensors(exe, exe.inputs,
                                            loaded->info.list("inputs"), "");
  state->outputs = runtime::cpu::planTensors(exe, exe.outputs, {}, "output");
  state->function = loaded->info.get("function");
  if (state->function.empty())
    state->function = "main";
  state->isa = loaded->info.isa;
  state->threads = loaded->info.threads();
  state->executable = std::move(loaded->executable);
  return Artifact(std::move(state));
}

const std::vector<TensorInfo> &Artifact::inputs() const {
  return state->inputs;
}
const std::vector<TensorInfo> &Artifact::outputs() const {
  return state->outputs;
}
const std::string &Artifact::function() const { return state->function; }
const std::string &Artifact::isa() const { return state->isa; }

StatusOr<std::vector<runtime::HostTensor>>
Artifact::run(const std::vector<runtime::HostTensor> &inputs,
              int numThreads) const {
  if (state->deviceExecutable) {
    std::shared_ptr<cuda::Device> device;
    {
      std::lock_guard lock(state->deviceMutex);
      if (!state->device) {
        auto opened = cuda::openDevice(0);
        if (!opened.ok())
          return absl::Status(opened.status().code(),
                              "no CUDA device: " +
                                  std::string(opened.status().message()));
        state->device = *opened;
      }
      device = state->device;
    }
    auto results = state->deviceExecutable->run(*device, inputs);
    if (!results.ok())
      return results.status();
    return *std::move(results);
  }
  runtime::RunOptions options;
  options.numThreads = numThreads > 0 ? numThreads : state->threads;
  auto results = state->executable->run(inputs, options);
  if (!results.ok())
    return results.status();
  return *std::move(results);
}

std::string Artifact::describe() const {
  return state->deviceExecutable ? state->planText
                                 : state->executable->describe();
}

} // namespace tgc

//===----------------------------------------------------------------------===//
// CompiledModel::loadArtifact
//===----------------------------------------------------------------------===//

namespace tgc {

StatusOr<CompiledModel> CompiledModel::loadArtifact(const std::string &path,
                                                    EngineOptions options) {
  auto artifact = Artifact::load(path);
  if (!artifact.ok())
    return artifact.status();
  const detail::ArtifactState &state = *artifact->state;
  if (state.deviceExecutable) {
    // A CUDA plan: requests run on the device (one stream by default; the
    // engine copies results into output buffers).
    class DeviceSource : public detail::ModelSource {
    public:
      explicit DeviceSource(Artifact artifact)
          : artifact(std::move(artifact)) {}
      absl::StatusOr<std::vector<runtime::HostTensor>>
      run(const std::vector<runtime::HostTensor> &inputs,
          const runtime::RunOptions &) const override {
        auto results = artifact.run(inputs);
        if (!results.ok())
          return results.status();
        return *std::move(results);
      }
      std::string describe() const override { return artifact.describe(); }

    private:
      Artifact artifact;
    };
    auto source = std::make_shared<DeviceSource>(*artifact);
    source->inputs = state.inputs;
    source->outputs = state.outputs;
    auto config = detail::planStreams(options, 1, 1);
    if (!config.ok())
      return config.status();
    return detail::makeCompiledModel(std::move(source), options.hint, *config);
  }
  auto config = detail::planStreams(options, physicalCores(), threadBudget(),
                                    state.threads);
  if (!config.ok())
    return config.status();
  auto source =
      detail::executableSource(state.executable, state.inputs, state.outputs);
  return detail::makeCompiledModel(std::move(source), options.hint, *config);
}

} // namespace tgc
