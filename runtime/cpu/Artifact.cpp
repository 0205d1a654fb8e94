//===- Artifact.cpp - compiled plans that run without the compiler --------===//

#include "tgc/Artifact.h"

#include "runtime/cpu/PlanFile.h"

#include "absl/strings/str_cat.h"

#include <cstdlib>

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
  std::vector<std::string> names;
  std::string joined = loaded->info.get("inputs");
  for (size_t start = 0; !joined.empty();) {
    size_t end = joined.find('\n', start);
    names.push_back(joined.substr(start, end - start));
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  if (names.size() != exe.inputs.size())
    names.assign(exe.inputs.size(), "");
  for (size_t i = 0; i < exe.inputs.size(); ++i) {
    const runtime::ValueInfo &v =
        exe.values[static_cast<size_t>(exe.inputs[i])];
    state->inputs.push_back({names[i], v.dtype, v.shape});
  }
  for (size_t i = 0; i < exe.outputs.size(); ++i) {
    const runtime::ValueInfo &v =
        exe.values[static_cast<size_t>(exe.outputs[i])];
    state->outputs.push_back({absl::StrCat("output", i), v.dtype, v.shape});
  }
  state->function = loaded->info.get("function");
  if (state->function.empty())
    state->function = "main";
  state->isa = loaded->info.isa;
  state->threads = std::atoi(loaded->info.get("threads").c_str());
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
