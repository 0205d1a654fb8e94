//===- LazyCompiler.cpp - libtgc maps its compiler only when it needs it --===//
//
// Run by test/package/lazy-compiler.py, twice on one cache directory:
//
//   lazy-compiler cold MODEL.onnx CACHE_DIR RESULT   (imports, compiles,
//       stores the plan and writes the result's bytes to RESULT)
//   lazy-compiler warm MODEL.onnx CACHE_DIR RESULT   (loads the plan, as
//       tgc::Model and as CompiledModel::compileOnnx: the process must not
//       have mapped libtgc_compiler or libMLIR; the results must be
//       RESULT's bytes; then a traced function loads the compiler)
//
//   lazy-compiler artifact LOOPS.tgcx   (runArtifact below)
//
// Every check prints what failed and makes the exit status 1.
//
//===----------------------------------------------------------------------===//

#include <tgc/tgc.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

// Whether libtgc_compiler links the shared libMLIR.so (TGC_STATIC_LLVM off)
// rather than MLIR's static archives (cmake/StaticLLVM.cmake).
#ifdef TGC_STATIC_LLVM_BUILD
constexpr bool kSharedMLIR = false;
#else
constexpr bool kSharedMLIR = true;
#endif

namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  failures += !ok;
}

/// Whether this process has mapped a file whose name contains `name`.
bool mapped(const char *name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos)
      return true;
  return false;
}

} // namespace

/// `lazy-compiler artifact LOOPS.tgcx`: an ahead-of-time plan holding loop
/// kernels (test/tools/tgc-run/Inputs/cache-dir-model.mlir's @loops) loads
/// through tgc::Artifact in a program linking libtgc, which loads the
/// compiler for the loop kernels' loader, and computes exp(tanh(x * y)).
int runArtifact(const char *path) {
  auto artifact = tgc::Artifact::load(path);
  if (!artifact.ok()) {
    std::fprintf(stderr, "%s\n", artifact.status().ToString().c_str());
    return 1;
  }
  check(mapped("libtgc_compiler"),
        "an artifact with loop kernels loaded the compiler for their loader");
  auto x =
      tgc::runtime::HostTensor::allocate(tgc::runtime::DType::F32, {16, 256});
  auto y = tgc::runtime::HostTensor::allocate(tgc::runtime::DType::F32, {256});
  for (int64_t i = 0; i < x->numElements(); ++i)
    x->dataAs<float>()[i] = 0.5f;
  for (int64_t i = 0; i < y->numElements(); ++i)
    y->dataAs<float>()[i] = 0.25f;
  auto results = artifact->run({*x, *y});
  float want = std::exp(std::tanh(0.125f));
  check(results.ok() && results->size() == 2 &&
            std::fabs((*results)[0].dataAs<float>()[17] - want) < 1e-5f &&
            std::fabs((*results)[1].dataAs<float>()[3] - 256 * want) < 1e-2f,
        "the artifact's loop kernels compute exp(tanh(x * y)) and its sum");
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "artifact")
    return runArtifact(argv[2]);
  if (argc != 5) {
    std::fprintf(
        stderr, "usage: lazy-compiler cold|warm MODEL.onnx CACHE_DIR RESULT\n");
    return 2;
  }
  std::string mode = argv[1];
  check(!mapped("libtgc_compiler") && !mapped("libMLIR") &&
            !mapped("libLLVM") && !mapped("libonnx"),
        "a program linking libtgc starts without the compiler, LLVM, MLIR or "
        "ONNX");

  tgc::ModelOptions options;
  options.cacheDir = argv[3];
  options.numThreads = 1;
  auto model = tgc::Model::loadOnnx(argv[2], options);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 1;
  }
  auto x = tgc::runtime::HostTensor::allocate(tgc::runtime::DType::F32,
                                              model->inputs()[0].shape);
  for (int64_t i = 0; i < x->numElements(); ++i)
    x->dataAs<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  auto y = model->run({*x});
  if (!y.ok()) {
    std::fprintf(stderr, "%s\n", y.status().ToString().c_str());
    return 1;
  }
  std::string bytes(static_cast<const char *>((*y)[0].data()),
                    (*y)[0].byteSize());

  if (mode == "cold") {
    check(mapped("libtgc_compiler") && mapped("libMLIR") == kSharedMLIR,
          kSharedMLIR ? "a model imported and compiled: libtgc_compiler and "
                        "libMLIR are loaded"
                      : "a model imported and compiled: libtgc_compiler is "
                        "loaded, with MLIR inside it (no libMLIR)");
    check(model->compileCount() == 1, "the cold model compiled its plan");
    std::ofstream(argv[4], std::ios::binary) << bytes;
    return failures ? 1 : 0;
  }

  check(!mapped("libtgc_compiler") && !mapped("libMLIR"),
        "a model from the cache ran without loading the compiler");
  std::ifstream in(argv[4], std::ios::binary);
  std::string cold((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  check(!cold.empty() && cold == bytes,
        "the cached plan's result is bitwise the cold process's");
  check(!model->describePlan().empty(), "describePlan() of the cached plan");
  check(model->compileCount() == 0, "the warm model compiled nothing");

  // The engine finds the same plan (one stream of one thread: the model's
  // options), without the compiler either.
  tgc::EngineOptions engineOptions;
  engineOptions.cacheDir = argv[3];
  engineOptions.streams = 1;
  engineOptions.threadsPerStream = 1;
  auto engine = tgc::CompiledModel::compileOnnx(argv[2], engineOptions);
  if (!engine.ok()) {
    std::fprintf(stderr, "%s\n", engine.status().ToString().c_str());
    return 1;
  }
  auto request = engine->createInferRequest();
  bool ran = request.setInput(0, *x).ok() && request.run().ok();
  auto output = request.output(0);
  check(ran && output.ok() &&
            std::string(static_cast<const char *>(output->data()),
                        output->byteSize()) == bytes,
        "CompiledModel::compileOnnx serves the cached plan: the same bytes");
  check(!mapped("libtgc_compiler") && !mapped("libMLIR"),
        "... without loading the compiler");

  // The first traced function loads the compiler, on demand.
  auto f = tgc::function([](tgc::Tensor a) { return a * 2.0 + 1.0; });
  if (!f.ok()) {
    std::fprintf(stderr, "%s\n", f.status().ToString().c_str());
    return 1;
  }
  auto z = (*f)(*x);
  check(z.ok() && z->dataAs<float>()[1] == 2.0f * x->dataAs<float>()[1] + 1.0f,
        "a traced function runs (its first call loads the compiler)");
  check(mapped("libtgc_compiler") && mapped("libMLIR") == kSharedMLIR,
        "after tracing, libtgc_compiler (and libMLIR where the build links "
        "it shared) are loaded");
  return failures ? 1 : 0;
}
