//===- FunctionOverhead.cpp - the cost of tgc::function's dispatch --------===//
//
// Measures, side by side in one process, a tiny traced kernel (3 tensor
// arguments, two elementwise ops on 4 elements) called
//   - compiled for the CPU backend and run directly (Executable::run: the
//     kernels alone, with the runtime's own small overhead),
//   - through tgc::function on a cache hit (TraceType + lookup + kernel),
//   - through tgc::function on a miss (trace + verify + kernel).
// The summary reports the median per-call overhead of a hit over the direct
// call, over interleaved rounds.
//
//===----------------------------------------------------------------------===//

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "frontend/Function.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

HostTensor filled(std::vector<int64_t> shape, double value) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, value);
  return t;
}

auto kernel = [](Tensor a, Tensor b, Tensor c) { return a * b + c; };

struct Setup {
  HostTensor a = filled({4}, 1.5), b = filled({4}, 2.0), c = filled({4}, 0.5);
  std::vector<HostTensor> inputs{a, b, c};
  Function<decltype(kernel)> f = *tgc::function(kernel, [] {
    FunctionOptions options;
    options.numThreads = 1;
    return options;
  }());
  /// The same kernel traced by hand and compiled, to run directly.
  mlir::MLIRContext context;
  TracedModule direct;
  std::unique_ptr<codegen::CompiledFunction> plan;
  /// As tgc::function runs it: settings resolved once, no environment
  /// reads per run.
  codegen::RunContext runContext{
      .options = {.numThreads = 1, .readEnvironment = false}};

  Setup() {
    if (!f(a, b, c).ok())
      std::abort();
    Tracer::loadDialects(context);
    Tracer tracer(context);
    auto traced =
        tracer.trace("direct",
                     {ArgSpec{DType::F32, {4}}, ArgSpec{DType::F32, {4}},
                      ArgSpec{DType::F32, {4}}},
                     [](llvm::ArrayRef<Tensor> x) {
                       return std::vector<Tensor>{kernel(x[0], x[1], x[2])};
                     });
    if (!traced)
      std::abort();
    direct = std::move(*traced);
    codegen::registerAllBackends();
    codegen::BackendOptions compileOptions;
    compileOptions.numThreads = 1;
    auto compiledPlan = codegen::lookupBackend("cpu")->compile(
        direct.func, {{4}, {4}, {4}}, compileOptions);
    if (!compiledPlan)
      std::abort();
    plan = std::move(*compiledPlan);
  }
};

Setup &setup() {
  static Setup *s = new Setup();
  return *s;
}

/// The kernel alone: the interpreter on the traced function.
void BM_DirectCompiled(benchmark::State &state) {
  Setup &s = setup();
  for (auto _ : state) {
    auto r = s.plan->run(s.inputs, s.runContext);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_DirectCompiled);

void BM_CacheHit(benchmark::State &state) {
  Setup &s = setup();
  for (auto _ : state) {
    auto r = s.f(s.a, s.b, s.c);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_CacheHit);

void BM_TraceTypeOnly(benchmark::State &state) {
  Setup &s = setup();
  for (auto _ : state) {
    auto t = tracing::traceTypeOfArgs(s.a, s.b, s.c);
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_TraceTypeOnly);

/// Every call has a new shape (the cache holds 64, the shapes cycle over
/// 4096), so every call traces.
void BM_CacheMiss(benchmark::State &state) {
  FunctionOptions options;
  options.log = [](const std::string &) {};
  auto f = *tgc::function(kernel, options);
  int64_t n = 0;
  for (auto _ : state) {
    int64_t size = 1 + (n++ % 4096);
    state.PauseTiming();
    HostTensor x = filled({size}, 1.0);
    state.ResumeTiming();
    auto r = f(x, x, x);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_CacheMiss);

/// Median per-call nanoseconds of `fn` over `calls` calls.
template <typename Fn> double perCall(Fn fn, int calls) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    fn();
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now() - start)
             .count() /
         calls;
}

void summary() {
  Setup &s = setup();
  std::vector<double> direct, hit, overhead;
  for (int round = 0; round < 9; ++round) {
    double d = perCall(
        [&] { benchmark::DoNotOptimize(s.plan->run(s.inputs, s.runContext)); },
        20000);
    double h =
        perCall([&] { benchmark::DoNotOptimize(s.f(s.a, s.b, s.c)); }, 20000);
    direct.push_back(d);
    hit.push_back(h);
    overhead.push_back(h - d);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("\nsummary (median of 9 interleaved rounds of 20000 calls):\n"
              "  compiled kernel alone        %8.0f ns/call\n"
              "  tgc::function, cache hit     %8.0f ns/call\n"
              "  dispatch overhead of a hit   %8.0f ns/call (target < 300)\n",
              median(direct), median(hit), median(overhead));
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  summary();
  benchmark::Shutdown();
  return 0;
}
