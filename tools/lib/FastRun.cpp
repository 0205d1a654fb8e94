//===- FastRun.cpp - tgc-run's front end without the compiler -------------===//

#include "tools/lib/FastRun.h"
#include "tools/lib/AdaptDType.h"

#include "runtime/AtomicFile.h"
#include "runtime/Environment.h"
#include "runtime/Executable.h"
#include "runtime/Hash.h"
#include "runtime/cpu/PlanFile.h"
#include "runtime/cpu/SourceKey.h"
#include "runtime/cuda/PlanFile.h"
#include "tgc/Npy.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tgc::tooling {

std::string onnxRunMaterial(const RunKeyMaterial &m) {
  std::string text = "tgc-run v2\ninputs=";
  for (const auto &[name, tensor] : m.inputs) {
    char digest[19];
    std::snprintf(digest, sizeof digest, "0x%016llx",
                  static_cast<unsigned long long>(
                      runtime::hash64(tensor->data(), tensor->byteSize())));
    text += name + ":" + tensor->describe() + ":" + digest + ";";
  }
  text +=
      "\nfunction=" + m.function + " pipeline=" + m.pipeline + " threads=" +
      std::to_string(runtime::resolveThreadCount(static_cast<int>(m.threads))) +
      " interop=" + std::to_string(m.interOp) +
      " dynamic=" + std::to_string(m.dynamicSize) +
      " determinism=" + toString(resolveDeterminism(m.determinism)) +
      " precision=" + toString(resolvePrecision(m.precision));
  if (!m.calibration.empty())
    text += " calibration=" + m.calibration;
  return text;
}

namespace {

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool startsWith(const std::string &s, const char *prefix) {
  return s.rfind(prefix, 0) == 0;
}

/// The flags the front end understands; anything else is the full tool's.
struct FastOptions {
  std::string file;
  std::vector<std::string> inputs, outputs, expected;
  double rtol = 1e-4, atol = 1e-5; // the full tool's defaults
  std::string cacheDir;
  bool cacheDirGiven = false;
  unsigned threads = 0;
};

std::optional<FastOptions> parse(int argc, char **argv) {
  FastOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (startsWith(arg, "-")) {
      std::string name = arg.substr(arg[1] == '-' ? 2 : 1);
      size_t eq = name.find('=');
      if (eq == std::string::npos)
        return std::nullopt; // `--flag value` forms, bare flags
      std::string value = name.substr(eq + 1);
      name = name.substr(0, eq);
      if (name == "input")
        o.inputs.push_back(value);
      else if (name == "output")
        o.outputs.push_back(value);
      else if (name == "expected")
        o.expected.push_back(value);
      else if (name == "rtol" || name == "atol") {
        char *end = nullptr;
        double v = std::strtod(value.c_str(), &end);
        if (value.empty() || *end || !(v >= 0) || v > 1e300)
          return std::nullopt; // the full tool says what is wrong
        (name == "rtol" ? o.rtol : o.atol) = v;
      } else if (name == "cache-dir")
        o.cacheDir = value, o.cacheDirGiven = true;
      else if (name == "threads") {
        char *end = nullptr;
        unsigned long n = std::strtoul(value.c_str(), &end, 10);
        if (value.empty() || *end || n > 4096)
          return std::nullopt;
        o.threads = static_cast<unsigned>(n);
      } else
        return std::nullopt;
    } else if (o.file.empty()) {
      o.file = arg;
    } else {
      return std::nullopt;
    }
  }
  // Results go to files or are checked against .npy files (printing is
  // the full tool's).
  if (o.file.empty() || (o.outputs.empty() && o.expected.empty()))
    return std::nullopt;
  for (const auto *specs : {&o.inputs, &o.expected})
    for (const std::string &spec : *specs)
      if (spec.find('=') != std::string::npos || !endsWith(spec, ".npy"))
        return std::nullopt;
  // Logs and settings reports are the full tool's.
  if (runtime::verboseFromEnvironment())
    return std::nullopt;
  return o;
}

std::optional<int> runPlan(const FastOptions &o,
                           const runtime::cpu::LoadedPlan &plan,
                           const std::vector<runtime::HostTensor> &inputs) {
  const runtime::Executable &exe = *plan.executable;
  // Inputs must fit exactly, and the files read (the full tool names what
  // does not or is unreadable).
  if (!exe.checkArguments(inputs).ok() ||
      o.outputs.size() > exe.outputs.size() ||
      o.expected.size() > exe.outputs.size())
    return std::nullopt;
  std::vector<runtime::HostTensor> expected;
  for (const std::string &spec : o.expected) {
    auto tensor = runtime::readNpy(spec);
    if (!tensor.ok())
      return std::nullopt;
    expected.push_back(*std::move(tensor));
  }
  runtime::RunOptions options;
  options.numThreads =
      o.threads ? static_cast<int>(o.threads) : plan.info.threads();
  auto results = exe.run(inputs, options);
  if (!results.ok())
    return std::nullopt; // the full tool reports it, located
  for (size_t i = 0; i < o.outputs.size(); ++i)
    if (Status written = runtime::writeNpy(o.outputs[i], (*results)[i]);
        !written.ok()) {
      std::fprintf(stderr, "tgc-run: error: %s\n",
                   std::string(written.message()).c_str());
      return 1;
    }
  // The full tool's report and exit status: 2 when a result differs.
  bool mismatch = false;
  for (size_t i = 0; i < expected.size(); ++i) {
    const runtime::HostTensor &got = (*results)[i];
    Status close = runtime::allClose(
        got, adaptDType(std::move(expected[i]), got.dtype()), o.rtol, o.atol);
    if (close.ok()) {
      std::printf("result #%zu: matches %s\n", i, o.expected[i].c_str());
    } else {
      mismatch = true;
      std::fprintf(stderr, "result #%zu: MISMATCH against %s: %s\n", i,
                   o.expected[i].c_str(), std::string(close.message()).c_str());
    }
  }
  if (mismatch) {
    std::fprintf(stderr,
                 "tgc-run: error: results differ from the expected values "
                 "(rtol %g, atol %g)\n",
                 o.rtol, o.atol);
    return 2;
  }
  return 0;
}

} // namespace

std::optional<FastRunOutcome> tryFastRun(int argc, char **argv,
                                         const std::string &fullTool) {
  std::optional<FastOptions> o = parse(argc, argv);
  if (!o)
    return std::nullopt;
  std::vector<runtime::HostTensor> inputs;
  for (const std::string &spec : o->inputs) {
    auto tensor = runtime::readNpy(spec);
    if (!tensor.ok())
      return std::nullopt;
    inputs.push_back(*std::move(tensor));
  }

  // An ahead-of-time CPU artifact.
  if (runtime::cpu::isPlanFile(o->file)) {
    auto plan = runtime::cpu::loadPlan(o->file);
    if (!plan.ok())
      return std::nullopt; // loop kernels, damage: the full tool says
    std::optional<int> status = runPlan(*o, *plan, inputs);
    if (!status)
      return std::nullopt;
    return FastRunOutcome{*status, plan->executable};
  }
  if (cuda::isDevicePlanFile(o->file) || !endsWith(o->file, ".onnx"))
    return std::nullopt;

  // An ONNX model whose plan the persistent cache holds under its key.
  std::string cacheDir =
      o->cacheDirGiven ? o->cacheDir : runtime::env::text("TGC_CACHE_DIR");
  if (cacheDir.empty())
    return std::nullopt;
  RunKeyMaterial material;
  for (size_t i = 0; i < inputs.size(); ++i)
    material.inputs.push_back({o->inputs[i], &inputs[i]});
  material.threads = o->threads;
  std::optional<std::string> key = runtime::cpu::sourceFileKey(
      o->file, onnxRunMaterial(material), runtime::cpu::fileIdentity(fullTool));
  if (!key)
    return std::nullopt;
  std::string path = runtime::cpu::cachedPlanPath(cacheDir, *key);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return std::nullopt;
  auto plan = runtime::cpu::loadPlan(path);
  if (!plan.ok())
    return std::nullopt;    // the full tool replaces a bad entry
  runtime::touchFile(path); // recently used, as the cache marks a hit
  std::optional<int> status = runPlan(*o, *plan, inputs);
  if (!status)
    return std::nullopt;
  std::fprintf(stderr,
               "tgc-run: cache %s: plan loaded (no import, no compile)\n",
               cacheDir.c_str());
  return FastRunOutcome{*status, plan->executable};
}

} // namespace tgc::tooling
