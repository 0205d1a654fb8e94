// Runs an ahead-of-time artifact with the runtime alone (tgc::runtime: no
// LLVM, MLIR or ONNX library is loaded; the program checks its own
// /proc/self/maps after the run and fails if one is mapped).
//
//   tgc-compile model.onnx -o model.tgcx
//   run-artifact model.tgcx [--input X.npy]... [--output Y.npy]...
//                [--threads N] [--runs N]
//
// Inputs not given are filled with a fixed pattern. Prints the time from
// the program's start to the first result, and the median of --runs more.

#include <tgc/Artifact.h>
#include <tgc/HostTensor.h>
#include <tgc/Npy.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using tgc::runtime::HostTensor;

namespace {
/// The libraries of the compiler this program must not have mapped.
std::vector<std::string> compilerLibrariesMapped() {
  std::ifstream maps("/proc/self/maps");
  std::vector<std::string> found;
  std::string line;
  while (std::getline(maps, line))
    for (const char *name :
         {"libLLVM", "libMLIR", "libonnx", "libprotobuf", "libnvrtc"})
      if (line.find(name) != std::string::npos &&
          std::find(found.begin(), found.end(), name) == found.end())
        found.push_back(name);
  return found;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "run-artifact: %s\n", message.c_str());
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  if (argc < 2)
    return fail("usage: run-artifact MODEL.tgcx [--input X.npy]... "
                "[--output Y.npy]... [--threads N] [--runs N]");
  std::vector<std::string> inputs, outputs;
  int threads = 0, runs = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--input")
      inputs.push_back(argv[i + 1]);
    else if (flag == "--output")
      outputs.push_back(argv[i + 1]);
    else if (flag == "--threads")
      threads = std::atoi(argv[i + 1]);
    else if (flag == "--runs")
      runs = std::atoi(argv[i + 1]);
    else
      return fail("unknown option " + flag);
  }
  auto artifact = tgc::Artifact::load(argv[1]);
  if (!artifact.ok())
    return fail(std::string(artifact.status().message()));
  std::vector<HostTensor> args;
  for (size_t i = 0; i < artifact->inputs().size(); ++i) {
    const tgc::TensorInfo &info = artifact->inputs()[i];
    if (i < inputs.size()) {
      auto tensor = tgc::runtime::readNpy(inputs[i]);
      if (!tensor.ok())
        return fail(inputs[i] + ": " + std::string(tensor.status().message()));
      args.push_back(*std::move(tensor));
      continue;
    }
    auto tensor = HostTensor::allocate(info.dtype, info.shape);
    if (!tensor.ok())
      return fail(std::string(tensor.status().message()));
    for (int64_t k = 0; k < tensor->numElements(); ++k)
      tensor->setDouble(k, static_cast<double>(k % 17) / 16.0 - 0.5);
    args.push_back(*std::move(tensor));
  }
  auto results = artifact->run(args, threads);
  if (!results.ok())
    return fail(std::string(results.status().message()));
  double first = std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto begin = std::chrono::steady_clock::now();
    auto again = artifact->run(args, threads);
    if (!again.ok())
      return fail(std::string(again.status().message()));
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - begin)
                        .count());
  }
  for (size_t i = 0; i < outputs.size() && i < results->size(); ++i)
    if (auto status = tgc::runtime::writeNpy(outputs[i], (*results)[i]);
        !status.ok())
      return fail(outputs[i] + ": " + std::string(status.message()));
  std::vector<std::string> mapped = compilerLibrariesMapped();
  if (!mapped.empty()) {
    std::string names;
    for (const std::string &name : mapped)
      names += " " + name;
    return fail("the compiler's libraries are mapped:" + names);
  }
  std::printf("run-artifact: @%s for x86 %s: %zu result(s), first result "
              "%.1f ms after start; no LLVM, MLIR or ONNX library mapped\n",
              artifact->function().c_str(), artifact->isa().c_str(),
              results->size(), first);
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    std::printf("run-artifact: %d runs, median %.3f ms\n", runs,
                times[times.size() / 2]);
  }
  return 0;
}
