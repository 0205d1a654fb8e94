//===- Artifact.cpp - compiled plans that run without the compiler --------===//

#include "tgc/Artifact.h"

#include "runtime/EngineInternal.h"
#include "runtime/cpu/PlanFile.h"

namespace tgc {
namespace detail {
struct ArtifactState {
  std::shared_ptr<const runtime::Executable> executable;
  std::vector<TensorInfo> inputs, outputs;
  std::string function, isa;
  /// The intra-op threads it was made for (0: unknown).
  int threads = 0;
};
} // namespace detail

StatusOr<Artifact> Artifact::load(const std::string &path) {
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
  runtime::RunOptions options;
  options.numThreads = numThreads > 0 ? numThreads : state->threads;
  auto results = state->executable->run(inputs, options);
  if (!results.ok())
    return results.status();
  return *std::move(results);
}

std::string Artifact::describe() const { return state->executable->describe(); }

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
  auto config = detail::planStreams(options, physicalCores(), threadBudget(),
                                    state.threads);
  if (!config.ok())
    return config.status();
  auto source = detail::executableSource(state.executable, state.inputs,
                                         state.outputs);
  return detail::makeCompiledModel(std::move(source), options.hint, *config);
}

} // namespace tgc
