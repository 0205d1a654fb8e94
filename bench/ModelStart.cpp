//===- ModelStart.cpp - a process's first result through tgc::Model -------===//
//
// bench/warm-start.py's "model" rows: a program linking libtgc (the
// compiler in the process) loads an ONNX model with a persistent cache
// directory, runs it once on a .npy input and writes the result; the
// second process finds the whole plan in the cache (no import, no
// compile). Prints the time from main() to the result written and how many
// plans the model compiled (0 when the cache held it).
//
//   bench-model-start MODEL.onnx INPUT.npy OUTPUT.npy CACHE_DIR [THREADS]
//
//===----------------------------------------------------------------------===//

#include <tgc/tgc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  if (argc < 5) {
    std::fprintf(stderr, "usage: bench-model-start MODEL.onnx INPUT.npy "
                         "OUTPUT.npy CACHE_DIR [THREADS]\n");
    return 2;
  }
  tgc::ModelOptions options;
  options.cacheDir = argv[4];
  options.numThreads = argc > 5 ? std::atoi(argv[5]) : 0;
  auto model = tgc::Model::loadOnnx(argv[1], options);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 1;
  }
  auto x = tgc::runtime::readNpy(argv[2]);
  if (!x.ok()) {
    std::fprintf(stderr, "%s\n", x.status().ToString().c_str());
    return 1;
  }
  auto y = model->run({*x});
  if (!y.ok()) {
    std::fprintf(stderr, "%s\n", y.status().ToString().c_str());
    return 1;
  }
  if (auto written = tgc::runtime::writeNpy(argv[3], (*y)[0]); !written.ok()) {
    std::fprintf(stderr, "%s\n", written.ToString().c_str());
    return 1;
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  std::printf("bench-model-start: first result %.1f ms after main(); "
              "%zu plan(s) compiled\n",
              ms, model->compileCount());
  return 0;
}
