//===- CpuBackend.cpp - tgc's CPU backend against oneDNN and the peak -----===//
//
// Everything side by side in one process:
//   - peak: an AVX-512 FMA loop on 1 thread and on all threads (GFLOP/s);
//   - matmul: tgc (a traced one-op function compiled for the CPU, weights as
//     an input and as a constant) against a oneDNN matmul primitive created
//     once and executed directly on one stream, same threads;
//   - conv: ResNet-50 shapes (batch 1, NCHW and NHWC), tgc with a constant
//     (prepacked) filter against oneDNN with plain activations and
//     format_tag::any weights reordered once; "oneDNN best" (any for
//     everything) for information;
//   - runtime overhead: a 10-op graph of 8-element tensors, Executable::run
//     against the same kernels called in a loop with preallocated outputs;
//   - end to end through tgc::function: an MLP (batch 64, 1024-4096-4096-
//     1024) and ResNet-50 (batch 1), GFLOP/s and fraction of measured peak.
//
// The tgc and oneDNN variants of one shape run interleaved inside one
// benchmark (alternating order every iteration), so that a noisy neighbour
// slows both alike; each repetition reports GFLOP/s of every variant and the
// ratio tgc/oneDNN (oneDNN time over tgc time, > 1 means tgc is faster). The
// Time column of those benchmarks is tgc's time per call (matmul: tgcIn,
// conv: tgcConst). Medians of 5
// repetitions are reported and summarized at the end.
//
// Variants in the contraction benchmarks:
//   dnnl        oneDNN called directly (matmul: plain weights; conv: plain
//               activations, weights format_tag::any reordered once)
//   dnnlPacked  matmul only: oneDNN with weights format_tag::any reordered
//               once (what tgc's constant path does)
//   dnnlBest    conv only: format_tag::any for src, weights and dst (src
//               reordered once, outside the timing), for information
//   tgcIn       Executable::run, weights as a function input (matmul only)
//   tgcConst    Executable::run, weights as a constant (prepacked)
//   kernConst   the tgcConst plan's kernels called directly (no run()
//               overhead: no argument checks, no result allocation/copy)
//   resultCopy  what run() does per result after its kernels: allocate a
//               zero-filled tensor and copy the result out of the arena
//               (reported in microseconds: explains tgcConst - kernConst)
//
// Run with TGC_VERBOSE=1 and a --benchmark_filter for per-kernel times, or
// ONEDNN_VERBOSE=1 for the oneDNN implementation each primitive picked.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Compiler.h"
#include "frontend/Function.h"
#include "frontend/Tracer.h"
#include "runtime/Executable.h"

#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>

#include "oneapi/dnnl/dnnl.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

using Clock = std::chrono::steady_clock;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

constexpr double kMinTime = 0.1; // seconds of measured time per repetition
constexpr int kRepetitions = 5;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <typename Fn> double timed(Fn &&fn) {
  auto start = Clock::now();
  fn();
  return secondsSince(start);
}

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "bench-cpu-backend: %s\n", message.c_str());
  std::exit(1);
}

template <typename S> auto check(S value, const char *what) {
  if (!value.ok())
    fail(std::string(what) + ": " + value.status().ToString());
  return *std::move(value);
}

void setThreads(int threads) {
  if (omp_get_max_threads() != threads)
    omp_set_num_threads(threads);
}

int hardwareThreads() { return std::max(1, omp_get_num_procs()); }

/// Uniform in [-scale, scale), deterministic per seed.
HostTensor randomTensor(std::vector<int64_t> shape, uint32_t seed,
                        float scale = 1.0f, float offset = 0.0f) {
  HostTensor t =
      check(HostTensor::allocate(DType::F32, std::move(shape)), "allocate");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  float *p = t.dataAs<float>();
  for (int64_t i = 0; i < t.numElements(); ++i)
    p[i] = offset + dist(rng);
  return t;
}

//===----------------------------------------------------------------------===//
// Median counters of every benchmark, captured from the reporter
//===----------------------------------------------------------------------===//

struct Medians {
  double realTime = 0; // in the benchmark's time unit
  std::map<std::string, double> counters;
};
std::map<std::string, Medians> &medians() {
  static std::map<std::string, Medians> m;
  return m;
}

/// The console reporter, remembering the median aggregate of each
/// benchmark for the summary.
class CapturingReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &reports) override {
    ConsoleReporter::ReportRuns(reports);
    for (const Run &run : reports) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "median")
        continue;
      Medians &m = medians()[run.run_name.function_name];
      m.realTime = run.GetAdjustedRealTime();
      for (const auto &[name, counter] : run.counters)
        m.counters[name] = counter.value;
    }
  }
};

const Medians *findMedians(const std::string &name) {
  auto it = medians().find(name);
  return it == medians().end() ? nullptr : &it->second;
}

double medianCounter(const std::string &name, const std::string &counter) {
  const Medians *m = findMedians(name);
  if (!m)
    return NAN;
  auto it = m->counters.find(counter);
  return it == m->counters.end() ? NAN : it->second;
}

//===----------------------------------------------------------------------===//
// Compiled tgc functions, and their kernels run directly
//===----------------------------------------------------------------------===//

mlir::MLIRContext &mlirContext() {
  static mlir::MLIRContext *context = [] {
    auto *c = new mlir::MLIRContext();
    Tracer::loadDialects(*c);
    return c;
  }();
  return *context;
}

/// A traced function compiled by the CPU backend.
struct Compiled {
  TracedModule traced;
  cpu::CompiledFunction function;
  const runtime::Executable &plan() const { return *function.executable; }
};

std::unique_ptr<Compiled>
compileTraced(const std::string &name, const std::vector<ArgSpec> &args,
              std::function<std::vector<Tensor>(llvm::ArrayRef<Tensor>)> body) {
  auto result = std::make_unique<Compiled>();
  Tracer tracer(mlirContext());
  auto traced = tracer.trace(name, args, body);
  if (!traced)
    fail(name + ": " + llvm::toString(traced.takeError()));
  result->traced = std::move(*traced);
  std::vector<std::vector<int64_t>> shapes;
  for (const ArgSpec &arg : args)
    shapes.push_back(arg.shape);
  // Primitives are created for the thread count the case runs with (the
  // bench sets it with setThreads before compiling).
  cpu::CompileOptions options;
  options.numThreads = omp_get_max_threads();
  auto compiled = cpu::compile(result->traced.func, shapes, options);
  if (!compiled)
    fail(name + ": " + llvm::toString(compiled.takeError()));
  result->function = std::move(*compiled);
  return result;
}

/// Runs a plan through Executable::run and checks the status.
void runPlan(const runtime::Executable &plan,
             const std::vector<HostTensor> &args, int threads) {
  runtime::RunOptions options;
  options.numThreads = threads;
  auto results = plan.run(args, options);
  if (!results.ok())
    fail("Executable::run: " + results.status().ToString());
  benchmark::DoNotOptimize(results->front().data());
}

/// What Executable::run does for each result after the kernels: a fresh
/// zero-filled owned tensor, and a copy out of the arena.
void resultCopy(const HostTensor &from) {
  HostTensor result =
      check(HostTensor::allocate(from.dtype(), from.shape()), "allocate");
  std::memcpy(result.data(), from.data(), from.byteSize());
  benchmark::DoNotOptimize(result.data());
}

/// The steps of a plan, each kernel called directly on argument views built
/// once (its own arena, the plan's constants, the caller's arguments): what
/// Executable::run does minus its own work.
class DirectKernels {
public:
  DirectKernels(const runtime::Executable &plan,
                const std::vector<HostTensor> &args)
      : plan(plan), args(args) {
    size_t bytes = static_cast<size_t>(std::max<int64_t>(plan.arenaBytes, 64));
    bytes = (bytes + 63) / 64 * 64;
    arena.reset(static_cast<uint8_t *>(std::aligned_alloc(64, bytes)),
                std::free);
    std::memset(arena.get(), 0, bytes);
    for (const runtime::Step &step : plan.steps) {
      inputs.push_back(views(step.inputs));
      outputs.push_back(views(step.outputs));
    }
  }

  void run(int threads) {
    setThreads(threads);
    runtime::KernelContext context;
    context.numThreads = threads;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      absl::Status status =
          plan.steps[s].kernel->run(context, inputs[s], outputs[s]);
      if (!status.ok())
        fail("kernel: " + status.ToString());
    }
  }

  size_t numSteps() const { return plan.steps.size(); }

private:
  uint8_t *pointer(int64_t value) {
    const runtime::ValueInfo &info = plan.values[static_cast<size_t>(value)];
    const runtime::ValueStorage &storage = info.storage;
    auto index = static_cast<size_t>(storage.index);
    switch (storage.kind) {
    case runtime::ValueStorage::Kind::Input:
      return static_cast<uint8_t *>(const_cast<void *>(args[index].data()));
    case runtime::ValueStorage::Kind::Constant:
      return static_cast<uint8_t *>(
          const_cast<void *>(plan.constants[index].data()));
    case runtime::ValueStorage::Kind::Arena:
      return arena.get() + storage.offset;
    case runtime::ValueStorage::Kind::View:
      return pointer(storage.index) + storage.offset;
    }
    return nullptr;
  }

  std::vector<HostTensor> views(const std::vector<int64_t> &ids) {
    std::vector<HostTensor> result;
    for (int64_t id : ids) {
      const runtime::ValueInfo &info = plan.values[static_cast<size_t>(id)];
      result.push_back(check(
          HostTensor::borrow(info.dtype, info.shape, pointer(id)), "borrow"));
    }
    return result;
  }

  const runtime::Executable &plan;
  const std::vector<HostTensor> &args;
  std::shared_ptr<uint8_t> arena;
  std::vector<std::vector<HostTensor>> inputs, outputs;
};

//===----------------------------------------------------------------------===//
// oneDNN called directly
//===----------------------------------------------------------------------===//

struct OneDnn {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};
OneDnn &onednn() {
  static OneDnn *env = new OneDnn();
  return *env;
}

/// `memory` reordered once into `desc` (or `memory` itself when equal).
dnnl::memory reorderedOnce(dnnl::memory memory,
                           const dnnl::memory::desc &desc) {
  if (memory.get_desc() == desc)
    return memory;
  dnnl::memory result(desc, onednn().engine);
  dnnl::reorder(memory, result).execute(onednn().stream, memory, result);
  onednn().stream.wait();
  return result;
}

/// A oneDNN primitive with its arguments bound.
struct BoundPrimitive {
  dnnl::primitive primitive;
  std::unordered_map<int, dnnl::memory> args;
  void run() {
    primitive.execute(onednn().stream, args);
    onednn().stream.wait();
  }
};

//===----------------------------------------------------------------------===//
// Interleaved variants of one contraction
//===----------------------------------------------------------------------===//

/// Named callables timed in alternating order every iteration; `timeOf`
/// says which variant's time is the benchmark's manual time.
struct Variants {
  std::vector<std::string> names;
  std::vector<std::function<void()>> calls;
  /// False for helper timings (reported in microseconds, not GFLOP/s).
  std::vector<bool> computes;
  void add(std::string name, std::function<void()> call, bool compute = true) {
    names.push_back(std::move(name));
    calls.push_back(std::move(call));
    computes.push_back(compute);
  }
  size_t index(const std::string &name) const {
    return static_cast<size_t>(std::find(names.begin(), names.end(), name) -
                               names.begin());
  }
};

/// Runs `variants` interleaved; sets GFLOP/s counters for each and the
/// ratios `ratios` = {counter name, {tgc variant, oneDNN variant}}.
void runInterleaved(
    benchmark::State &state, Variants &variants, double flops, int threads,
    const std::string &timeOf,
    const std::vector<
        std::pair<std::string, std::pair<std::string, std::string>>> &ratios) {
  setThreads(threads);
  size_t n = variants.calls.size();
  for (auto &call : variants.calls) // warm-up
    call();
  std::vector<double> total(n, 0.0);
  size_t manual = variants.index(timeOf);
  bool forward = true;
  for (auto _ : state) {
    double mine = 0;
    for (size_t j = 0; j < n; ++j) {
      size_t v = forward ? j : n - 1 - j;
      double t = timed(variants.calls[v]);
      total[v] += t;
      if (v == manual)
        mine = t;
    }
    forward = !forward;
    state.SetIterationTime(mine);
  }
  double iterations = static_cast<double>(state.iterations());
  for (size_t v = 0; v < n; ++v) {
    if (variants.computes[v])
      state.counters[variants.names[v] + "_GFLOPs"] =
          flops * iterations / total[v] / 1e9;
    else
      state.counters[variants.names[v] + "_us"] = total[v] / iterations * 1e6;
  }
  for (const auto &[name, pair] : ratios)
    state.counters[name] =
        total[variants.index(pair.second)] / total[variants.index(pair.first)];
}

//===----------------------------------------------------------------------===//
// 1. Peak: an AVX-512 FMA loop
//===----------------------------------------------------------------------===//

constexpr int64_t kFmaIterations = 1 << 20;
/// 16 independent accumulators x 16 lanes x 2 flops per iteration.
constexpr double kFlopsPerFmaIteration = 16.0 * 16.0 * 2.0;

__attribute__((target("avx512f"), noinline)) float fmaLoop(int64_t iterations,
                                                           float seed) {
  const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
// clang-format off
#define TGC_ACC(i) __m512 a##i = _mm512_set1_ps(seed + 0.01f * i);
  TGC_ACC(0) TGC_ACC(1) TGC_ACC(2) TGC_ACC(3) TGC_ACC(4) TGC_ACC(5)
  TGC_ACC(6) TGC_ACC(7) TGC_ACC(8) TGC_ACC(9) TGC_ACC(10) TGC_ACC(11)
  TGC_ACC(12) TGC_ACC(13) TGC_ACC(14) TGC_ACC(15)
#undef TGC_ACC
  for (int64_t i = 0; i < iterations; ++i) {
#define TGC_FMA(i) a##i = _mm512_fmadd_ps(a##i, m, c);
    TGC_FMA(0) TGC_FMA(1) TGC_FMA(2) TGC_FMA(3) TGC_FMA(4) TGC_FMA(5)
    TGC_FMA(6) TGC_FMA(7) TGC_FMA(8) TGC_FMA(9) TGC_FMA(10) TGC_FMA(11)
    TGC_FMA(12) TGC_FMA(13) TGC_FMA(14) TGC_FMA(15)
#undef TGC_FMA
  }
  // clang-format on
  __m512 s = _mm512_add_ps(
      _mm512_add_ps(
          _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
          _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7))),
      _mm512_add_ps(
          _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),
          _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  float sum = 0;
  for (float lane : lanes)
    sum += lane;
  return sum;
}

/// Seconds for `threads` threads each running fmaLoop(kFmaIterations).
double fmaRound(int threads) {
  float sink = 0;
  auto start = Clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  sink += fmaLoop(kFmaIterations, 0.5f + 0.001f * omp_get_thread_num());
  double seconds = secondsSince(start);
  benchmark::DoNotOptimize(sink);
  return seconds;
}

std::string peakName(int threads) {
  return "peak/fma_avx512/threads:" + std::to_string(threads);
}

void BM_Peak(benchmark::State &state, int threads) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("no AVX-512");
    return;
  }
  fmaRound(threads);
  double total = 0;
  for (auto _ : state) {
    double t = fmaRound(threads);
    total += t;
    state.SetIterationTime(t);
  }
  double flops = kFlopsPerFmaIteration * kFmaIterations * threads;
  state.counters["GFLOPs"] =
      flops * static_cast<double>(state.iterations()) / total / 1e9;
  state.counters["GFLOPs_per_core"] = state.counters["GFLOPs"] / threads;
}

/// The measured peak (median of the peak benchmark), or a quick measurement
/// when that benchmark did not run.
double peakGflops(int threads) {
  double measured = medianCounter(peakName(threads), "GFLOPs");
  if (!std::isnan(measured))
    return measured;
  static std::map<int, double> quick;
  if (!quick.count(threads)) {
    if (!__builtin_cpu_supports("avx512f"))
      return quick[threads] = NAN;
    std::vector<double> rates;
    for (int i = 0; i < 7; ++i)
      rates.push_back(kFlopsPerFmaIteration * kFmaIterations * threads /
                      fmaRound(threads) / 1e9);
    std::sort(rates.begin(), rates.end());
    quick[threads] = rates[rates.size() / 2];
  }
  return quick[threads];
}

//===----------------------------------------------------------------------===//
// 2. Matmul
//===----------------------------------------------------------------------===//

struct MatmulShape {
  int64_t batch; // 0: a plain 2-D matmul
  int64_t m, k, n;
  std::string name() const {
    return (batch ? std::to_string(batch) + "x" : "") + std::to_string(m) +
           "x" + std::to_string(k) + "x" + std::to_string(n);
  }
  std::vector<int64_t> dims(int64_t rows, int64_t cols) const {
    return batch ? std::vector<int64_t>{batch, rows, cols}
                 : std::vector<int64_t>{rows, cols};
  }
  double flops() const {
    return 2.0 * static_cast<double>(std::max<int64_t>(batch, 1) * m * k * n);
  }
};

const std::vector<MatmulShape> kMatmulShapes = {{0, 1024, 1024, 1024},
                                                {0, 512, 2048, 512},
                                                {0, 256, 256, 256},
                                                {16, 128, 64, 128}};

struct MatmulCase {
  HostTensor a, w, c, cPacked;
  std::vector<HostTensor> inArgs, constArgs;
  BoundPrimitive plain, packed;
  std::unique_ptr<Compiled> tgcIn, tgcConst;
  std::unique_ptr<DirectKernels> kernConst;

  MatmulCase(const MatmulShape &s, int threads) {
    setThreads(threads); // oneDNN sizes its primitives for the thread count
    a = randomTensor(s.dims(s.m, s.k), 1);
    w = randomTensor(s.dims(s.k, s.n), 2, 1.0f / std::sqrt(float(s.k)));
    c = check(HostTensor::allocate(DType::F32, s.dims(s.m, s.n)), "alloc");
    cPacked =
        check(HostTensor::allocate(DType::F32, s.dims(s.m, s.n)), "alloc");
    inArgs = {a, w};
    constArgs = {a};

    auto &env = onednn();
    tag plainTag = s.batch ? tag::abc : tag::ab;
    auto dims = [&](int64_t r, int64_t c) {
      auto d = s.dims(r, c);
      return dnnl::memory::dims(d.begin(), d.end());
    };
    dnnl::memory::desc aMd(dims(s.m, s.k), dt::f32, plainTag);
    dnnl::memory::desc wMd(dims(s.k, s.n), dt::f32, plainTag);
    dnnl::memory::desc cMd(dims(s.m, s.n), dt::f32, plainTag);
    dnnl::memory aMem(aMd, env.engine, a.data());
    dnnl::memory wMem(wMd, env.engine, w.data());
    {
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(aMd, wMd, cMd),
                                      env.engine);
      plain.primitive = dnnl::matmul(pd);
      plain.args = {{DNNL_ARG_SRC, aMem},
                    {DNNL_ARG_WEIGHTS, wMem},
                    {DNNL_ARG_DST, dnnl::memory(cMd, env.engine, c.data())}};
    }
    {
      dnnl::memory::desc anyW(dims(s.k, s.n), dt::f32, tag::any);
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(aMd, anyW, cMd),
                                      env.engine);
      packed.primitive = dnnl::matmul(pd);
      packed.args = {
          {DNNL_ARG_SRC, aMem},
          {DNNL_ARG_WEIGHTS, reorderedOnce(wMem, pd.weights_desc())},
          {DNNL_ARG_DST, dnnl::memory(cMd, env.engine, cPacked.data())}};
    }

    std::string name = "matmul_" + s.name();
    tgcIn = compileTraced(name + "_input",
                          {ArgSpec{DType::F32, s.dims(s.m, s.k)},
                           ArgSpec{DType::F32, s.dims(s.k, s.n)}},
                          [](llvm::ArrayRef<Tensor> x) {
                            return std::vector<Tensor>{matmul(x[0], x[1])};
                          });
    const HostTensor &weights = w;
    tgcConst = compileTraced(
        name + "_const", {ArgSpec{DType::F32, s.dims(s.m, s.k)}},
        [&weights](llvm::ArrayRef<Tensor> x) {
          return std::vector<Tensor>{matmul(x[0], constant(weights))};
        });
    kernConst = std::make_unique<DirectKernels>(tgcConst->plan(), constArgs);
  }
};

void BM_Matmul(benchmark::State &state, MatmulShape shape, int threads) {
  static std::map<std::string, std::unique_ptr<MatmulCase>> cases;
  std::string key = shape.name() + "/" + std::to_string(threads);
  if (!cases.count(key))
    cases[key] = std::make_unique<MatmulCase>(shape, threads);
  MatmulCase &m = *cases[key];
  Variants v;
  v.add("dnnl", [&] { m.plain.run(); });
  v.add("dnnlPacked", [&] { m.packed.run(); });
  v.add("tgcIn", [&] { runPlan(m.tgcIn->plan(), m.inArgs, threads); });
  v.add("tgcConst", [&] { runPlan(m.tgcConst->plan(), m.constArgs, threads); });
  v.add("kernConst", [&] { m.kernConst->run(threads); });
  v.add(
      "resultCopy", [&] { resultCopy(m.c); }, false);
  runInterleaved(state, v, shape.flops(), threads, "tgcIn",
                 {{"ratio_in", {"tgcIn", "dnnl"}},
                  {"ratio_const", {"tgcConst", "dnnl"}},
                  {"ratio_const_vs_packed", {"tgcConst", "dnnlPacked"}},
                  {"ratio_kern_vs_packed", {"kernConst", "dnnlPacked"}}});
}

std::string matmulName(const MatmulShape &s, int threads) {
  return "matmul/" + s.name() + "/threads:" + std::to_string(threads);
}

//===----------------------------------------------------------------------===//
// 3. Conv (ResNet-50 shapes, batch 1)
//===----------------------------------------------------------------------===//

struct ConvShape {
  const char *label;
  int64_t c, o, h, w, k, stride, pad;
  int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
  double flops() const {
    return 2.0 * static_cast<double>(o * oh() * ow() * c * k * k);
  }
};

const std::vector<ConvShape> kConvShapes = {
    {"3x3_64-64_56", 64, 64, 56, 56, 3, 1, 1},
    {"1x1_256-64_56", 256, 64, 56, 56, 1, 1, 0},
    {"3x3_128-128_28", 128, 128, 28, 28, 3, 1, 1},
    {"7x7s2_3-64_224", 3, 64, 224, 224, 7, 2, 3}};

struct ConvCase {
  HostTensor x, filter, y, yBest;
  std::vector<HostTensor> args;
  BoundPrimitive direct, best;
  std::unique_ptr<Compiled> tgc;
  std::unique_ptr<DirectKernels> kern;

  ConvCase(const ConvShape &s, bool nhwc, int threads) {
    setThreads(threads);
    std::vector<int64_t> xShape = nhwc ? std::vector<int64_t>{1, s.h, s.w, s.c}
                                       : std::vector<int64_t>{1, s.c, s.h, s.w};
    std::vector<int64_t> fShape =
        nhwc ? std::vector<int64_t>{s.k, s.k, s.c, s.o}
             : std::vector<int64_t>{s.o, s.c, s.k, s.k};
    std::vector<int64_t> yShape =
        nhwc ? std::vector<int64_t>{1, s.oh(), s.ow(), s.o}
             : std::vector<int64_t>{1, s.o, s.oh(), s.ow()};
    x = randomTensor(xShape, 3);
    filter = randomTensor(fShape, 4, std::sqrt(6.0f / float(s.c * s.k * s.k)));
    y = check(HostTensor::allocate(DType::F32, yShape), "alloc");
    yBest = check(HostTensor::allocate(DType::F32, yShape), "alloc");
    args = {x};

    auto &env = onednn();
    tag act = nhwc ? tag::nhwc : tag::nchw;
    dnnl::memory::desc srcMd({1, s.c, s.h, s.w}, dt::f32, act);
    dnnl::memory::desc dstMd({1, s.o, s.oh(), s.ow()}, dt::f32, act);
    dnnl::memory::desc userW({s.o, s.c, s.k, s.k}, dt::f32,
                             nhwc ? tag::hwio : tag::oihw);
    dnnl::memory::desc anyW({s.o, s.c, s.k, s.k}, dt::f32, tag::any);
    dnnl::memory srcMem(srcMd, env.engine, x.data());
    dnnl::memory userWMem(userW, env.engine, filter.data());
    dnnl::memory::dims strides = {s.stride, s.stride}, pad = {s.pad, s.pad};
    {
      dnnl::convolution_forward::primitive_desc pd(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_direct,
                                          srcMd, anyW, dstMd, strides, pad,
                                          pad),
          env.engine);
      direct.primitive = dnnl::convolution_forward(pd);
      direct.args = {
          {DNNL_ARG_SRC, srcMem},
          {DNNL_ARG_WEIGHTS, reorderedOnce(userWMem, pd.weights_desc())},
          {DNNL_ARG_DST, dnnl::memory(dstMd, env.engine, y.data())}};
    }
    {
      dnnl::memory::desc anySrc({1, s.c, s.h, s.w}, dt::f32, tag::any);
      dnnl::memory::desc anyDst({1, s.o, s.oh(), s.ow()}, dt::f32, tag::any);
      dnnl::convolution_forward::primitive_desc pd(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_direct,
                                          anySrc, anyW, anyDst, strides, pad,
                                          pad),
          env.engine);
      best.primitive = dnnl::convolution_forward(pd);
      best.args = {
          {DNNL_ARG_SRC, reorderedOnce(srcMem, pd.src_desc())},
          {DNNL_ARG_WEIGHTS, reorderedOnce(userWMem, pd.weights_desc())},
          {DNNL_ARG_DST, dnnl::memory(pd.dst_desc(), env.engine)}};
    }

    Conv2DOptions options{.strides = {s.stride, s.stride},
                          .padding = {s.pad, s.pad},
                          .layout = nhwc ? Layout::NHWC : Layout::NCHW};
    const HostTensor &weights = filter;
    tgc = compileTraced(
        std::string("conv_") + s.label, {ArgSpec{DType::F32, xShape}},
        [&weights, options](llvm::ArrayRef<Tensor> in) {
          return std::vector<Tensor>{conv2d(in[0], constant(weights), options)};
        });
    kern = std::make_unique<DirectKernels>(tgc->plan(), args);
  }
};

void BM_Conv(benchmark::State &state, ConvShape shape, bool nhwc, int threads) {
  static std::map<std::string, std::unique_ptr<ConvCase>> cases;
  std::string key = std::string(shape.label) + (nhwc ? "/nhwc/" : "/nchw/") +
                    std::to_string(threads);
  if (!cases.count(key))
    cases[key] = std::make_unique<ConvCase>(shape, nhwc, threads);
  ConvCase &c = *cases[key];
  Variants v;
  v.add("dnnl", [&] { c.direct.run(); });
  v.add("dnnlBest", [&] { c.best.run(); });
  v.add("tgcConst", [&] { runPlan(c.tgc->plan(), c.args, threads); });
  v.add("kernConst", [&] { c.kern->run(threads); });
  v.add(
      "resultCopy", [&] { resultCopy(c.y); }, false);
  runInterleaved(state, v, shape.flops(), threads, "tgcConst",
                 {{"ratio", {"tgcConst", "dnnl"}},
                  {"ratio_kern", {"kernConst", "dnnl"}},
                  {"ratio_vs_best", {"tgcConst", "dnnlBest"}}});
}

std::string convName(const ConvShape &s, bool nhwc, int threads) {
  return std::string("conv/") + s.label + (nhwc ? "/nhwc" : "/nchw") +
         "/threads:" + std::to_string(threads);
}

//===----------------------------------------------------------------------===//
// 4. Runtime overhead: 10 ops on 8-element tensors
//===----------------------------------------------------------------------===//

struct OverheadCase {
  HostTensor x = randomTensor({8}, 5), y = randomTensor({8}, 6);
  std::vector<HostTensor> args{x, y};
  std::unique_ptr<Compiled> tgc;
  std::unique_ptr<DirectKernels> kern;

  OverheadCase() {
    tgc = compileTraced("tiny_chain",
                        {ArgSpec{DType::F32, {8}}, ArgSpec{DType::F32, {8}}},
                        [](llvm::ArrayRef<Tensor> in) {
                          Tensor x = in[0], y = in[1];
                          Tensor a = x + y;                       // 1
                          Tensor b = a * x;                       // 2
                          Tensor c = relu(b);                     // 3
                          Tensor d = c - y;                       // 4
                          Tensor e = d * d;                       // 5
                          Tensor f = e + x;                       // 6
                          Tensor g = maximum(f, y);               // 7
                          Tensor h = tanh(g);                     // 8
                          Tensor i = h * y;                       // 9
                          return std::vector<Tensor>{sigmoid(i)}; // 10
                        });
    kern = std::make_unique<DirectKernels>(tgc->plan(), args);
  }
};
OverheadCase &overheadCase() {
  static OverheadCase *c = new OverheadCase();
  return *c;
}

void BM_OverheadRun(benchmark::State &state, int threads) {
  OverheadCase &c = overheadCase();
  runPlan(c.tgc->plan(), c.args, threads);
  for (auto _ : state)
    runPlan(c.tgc->plan(), c.args, threads);
  state.counters["steps"] = static_cast<double>(c.kern->numSteps());
}

void BM_OverheadKernels(benchmark::State &state, int threads) {
  OverheadCase &c = overheadCase();
  c.kern->run(threads);
  for (auto _ : state)
    c.kern->run(threads);
  state.counters["steps"] = static_cast<double>(c.kern->numSteps());
}

/// Median per-call ns of run(), of the kernels alone, and of the
/// difference, over interleaved rounds.
struct OverheadSummary {
  double run = 0, kernels = 0, overhead = 0;
};
OverheadSummary measureOverhead(int threads) {
  OverheadCase &c = overheadCase();
  constexpr int kCalls = 1000;
  std::vector<double> run, kernels, overhead;
  for (int round = 0; round < 61; ++round) {
    double k = timed([&] {
                 for (int i = 0; i < kCalls; ++i)
                   c.kern->run(threads);
               }) *
               1e9 / kCalls;
    double r = timed([&] {
                 for (int i = 0; i < kCalls; ++i)
                   runPlan(c.tgc->plan(), c.args, threads);
               }) *
               1e9 / kCalls;
    run.push_back(r);
    kernels.push_back(k);
    overhead.push_back(r - k);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {median(run), median(kernels), median(overhead)};
}

//===----------------------------------------------------------------------===//
// 5. End to end through tgc::function
//===----------------------------------------------------------------------===//

/// Weights created on first use (the first trace) and shared by every
/// traced copy; FLOPs of convs and matmuls counted as they are created.
struct WeightStore {
  std::deque<HostTensor> tensors; // stable references
  size_t next = 0;
  double flops = 0;
  bool counting = true;
  uint32_t seed = 100;
  const HostTensor &get(std::vector<int64_t> shape, float scale,
                        float offset = 0.0f) {
    if (next == tensors.size())
      tensors.push_back(randomTensor(std::move(shape), seed++, scale, offset));
    return tensors[next++];
  }
  void addFlops(double f) {
    if (counting)
      flops += f;
  }
  /// Called after each trace: the next trace reuses the same weights.
  void rewind() {
    next = 0;
    counting = false;
  }
};

struct Mlp {
  static constexpr int64_t kBatch = 64;
  static constexpr int64_t kSizes[4] = {1024, 4096, 4096, 1024};
  HostTensor x = randomTensor({kBatch, kSizes[0]}, 7);
  std::vector<HostTensor> params; // w1, b1, w2, b2, w3, b3

  Mlp() {
    for (int l = 0; l < 3; ++l) {
      params.push_back(randomTensor({kSizes[l], kSizes[l + 1]}, 10 + l,
                                    std::sqrt(6.0f / float(kSizes[l]))));
      params.push_back(randomTensor({kSizes[l + 1]}, 20 + l, 0.1f));
    }
  }
  static double flops() {
    double f = 0;
    for (int l = 0; l < 3; ++l)
      f += 2.0 * kBatch * kSizes[l] * kSizes[l + 1];
    return f;
  }
  /// The network over symbolic weights.
  static Tensor forward(Tensor x, const std::vector<Tensor> &p) {
    Tensor h = relu(matmul(x, p[0]) + p[1]);
    h = relu(matmul(h, p[2]) + p[3]);
    return matmul(h, p[4]) + p[5];
  }
};
Mlp &mlp() {
  static Mlp *m = new Mlp();
  return *m;
}

/// ResNet-50 (v1.5: stride on the 3x3 of each bottleneck), batch 1, batch
/// norm in inference form, weights as constants.
struct ResNet50 {
  bool nhwc;
  WeightStore store;
  HostTensor x;

  explicit ResNet50(bool nhwc)
      : nhwc(nhwc), x(randomTensor(nhwc ? std::vector<int64_t>{1, 224, 224, 3}
                                        : std::vector<int64_t>{1, 3, 224, 224},
                                   8)) {}

  Layout layout() const { return nhwc ? Layout::NHWC : Layout::NCHW; }
  /// Dims of a traced tensor (0 for an invalid one: its trace reports it).
  static int64_t dim(const Tensor &t, int64_t i) {
    return t.dim(i).value_or(0);
  }
  int64_t channels(const Tensor &t) const { return dim(t, nhwc ? 3 : 1); }

  Tensor conv(const Tensor &in, int64_t out, int64_t k, int64_t stride) {
    int64_t c = channels(in);
    int64_t h = dim(in, nhwc ? 1 : 2), w = dim(in, nhwc ? 2 : 3);
    int64_t pad = k / 2;
    int64_t oh = (h + 2 * pad - k) / stride + 1,
            ow = (w + 2 * pad - k) / stride + 1;
    store.addFlops(2.0 * static_cast<double>(out * oh * ow * c * k * k));
    std::vector<int64_t> fShape = nhwc ? std::vector<int64_t>{k, k, c, out}
                                       : std::vector<int64_t>{out, c, k, k};
    const HostTensor &f =
        store.get(fShape, std::sqrt(6.0f / static_cast<float>(c * k * k)));
    return conv2d(in, constant(f),
                  Conv2DOptions{.strides = {stride, stride},
                                .padding = {pad, pad},
                                .layout = layout()});
  }

  Tensor bn(const Tensor &in) {
    int64_t c = channels(in);
    const HostTensor &scale = store.get({c}, 0.1f, 1.0f);
    const HostTensor &bias = store.get({c}, 0.1f);
    const HostTensor &mean = store.get({c}, 0.1f);
    const HostTensor &var = store.get({c}, 0.1f, 1.0f);
    return batchNorm(in, constant(scale), constant(bias), constant(mean),
                     constant(var), 1e-5, nhwc ? 3 : 1);
  }

  Tensor bottleneck(const Tensor &in, int64_t mid, int64_t stride,
                    bool project) {
    Tensor y = relu(bn(conv(in, mid, 1, 1)));
    y = relu(bn(conv(y, mid, 3, stride)));
    y = bn(conv(y, 4 * mid, 1, 1));
    Tensor shortcut = project ? bn(conv(in, 4 * mid, 1, stride)) : in;
    return relu(y + shortcut);
  }

  Tensor forward(const Tensor &input) {
    Tensor y = relu(bn(conv(input, 64, 7, 2)));
    y = maxPool2d(y, Pool2DOptions{.kernel = {3, 3},
                                   .strides = {2, 2},
                                   .padding = {1, 1},
                                   .layout = layout()});
    const int64_t blocks[4] = {3, 4, 6, 3};
    for (int stage = 0; stage < 4; ++stage) {
      int64_t mid = 64 << stage;
      for (int64_t b = 0; b < blocks[stage]; ++b)
        y = bottleneck(y, mid, b == 0 && stage > 0 ? 2 : 1, b == 0);
    }
    y = reshape(globalAvgPool2d(y, layout()), {1, 2048});
    store.addFlops(2.0 * 2048 * 1000);
    const HostTensor &fc = store.get({2048, 1000}, std::sqrt(6.0f / 2048));
    const HostTensor &fcBias = store.get({1000}, 0.1f);
    Tensor logits = matmul(y, constant(fc)) + constant(fcBias);
    store.rewind();
    return logits;
  }
};
ResNet50 &resnet(bool nhwc) {
  static ResNet50 *models[2] = {new ResNet50(false), new ResNet50(true)};
  return *models[nhwc ? 1 : 0];
}

using Model = std::function<absl::StatusOr<HostTensor>()>;

struct E2ECase {
  Model call;
  double flops;
};

E2ECase makeE2E(const std::string &model, int threads) {
  FunctionOptions options;
  options.name = model;
  options.numThreads = threads;
  options.log = [](const std::string &) {};
  if (model == "mlp_b64_const") {
    Mlp &m = mlp();
    auto f = check(tgc::function(
                       [&m](Tensor x) {
                         std::vector<Tensor> p;
                         for (const HostTensor &t : m.params)
                           p.push_back(constant(t));
                         return Mlp::forward(x, p);
                       },
                       options),
                   "tgc::function");
    return {[f, &m] { return f(m.x); }, Mlp::flops()};
  }
  if (model == "mlp_b64_args") {
    Mlp &m = mlp();
    auto f = check(tgc::function(
                       [](Tensor x, const std::vector<Tensor> &p) {
                         return Mlp::forward(x, p);
                       },
                       options),
                   "tgc::function");
    return {[f, &m] { return f(m.x, m.params); }, Mlp::flops()};
  }
  bool nhwc = model == "resnet50_b1_nhwc";
  ResNet50 &r = resnet(nhwc);
  auto f =
      check(tgc::function([&r](Tensor x) { return r.forward(x); }, options),
            "tgc::function");
  Model call = [f, &r] { return f(r.x); };
  // The first call traces and compiles (and counts the FLOPs).
  check(call(), "first call");
  return {call, r.store.flops};
}

void BM_E2E(benchmark::State &state, std::string model, int threads) {
  static std::map<std::string, E2ECase> cases;
  std::string key = model + "/" + std::to_string(threads);
  if (!cases.count(key)) {
    // Trace and compile under the thread count the function runs with:
    // oneDNN sizes its primitives for omp_get_max_threads at creation.
    setThreads(threads);
    cases[key] = makeE2E(model, threads);
  }
  E2ECase &c = cases[key];
  setThreads(threads);
  check(c.call(), "warm-up");
  double total = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    auto result = c.call();
    total += secondsSince(start);
    if (!result.ok())
      fail(model + ": " + result.status().ToString());
    benchmark::DoNotOptimize(result->data());
  }
  double gflops =
      c.flops * static_cast<double>(state.iterations()) / total / 1e9;
  state.counters["GFLOP"] = c.flops / 1e9;
  state.counters["GFLOPs"] = gflops;
  state.counters["pct_peak"] = 100.0 * gflops / peakGflops(threads);
}

std::string e2eName(const std::string &model, int threads) {
  return "e2e/" + model + "/threads:" + std::to_string(threads);
}

//===----------------------------------------------------------------------===//
// Registration and summary
//===----------------------------------------------------------------------===//

std::vector<int> threadCounts() {
  std::vector<int> counts = {1};
  if (hardwareThreads() > 1)
    counts.push_back(hardwareThreads());
  return counts;
}

const std::vector<std::string> kE2EModels = {
    "mlp_b64_const", "mlp_b64_args", "resnet50_b1_nhwc", "resnet50_b1_nchw"};

void registerAll() {
  auto aggregate = [](benchmark::internal::Benchmark *b,
                      benchmark::TimeUnit unit = benchmark::kMicrosecond) {
    b->Repetitions(kRepetitions)
        ->ReportAggregatesOnly(true)
        ->MinTime(kMinTime)
        ->Unit(unit);
  };
  for (int t : threadCounts())
    aggregate(benchmark::RegisterBenchmark(peakName(t).c_str(), BM_Peak, t)
                  ->UseManualTime());
  for (int t : threadCounts())
    for (const MatmulShape &s : kMatmulShapes)
      aggregate(benchmark::RegisterBenchmark(matmulName(s, t).c_str(),
                                             BM_Matmul, s, t)
                    ->UseManualTime());
  for (int t : threadCounts())
    for (bool nhwc : {false, true})
      for (const ConvShape &s : kConvShapes)
        aggregate(benchmark::RegisterBenchmark(convName(s, nhwc, t).c_str(),
                                               BM_Conv, s, nhwc, t)
                      ->UseManualTime());
  for (int t : threadCounts()) {
    aggregate(benchmark::RegisterBenchmark(
                  ("overhead/run/threads:" + std::to_string(t)).c_str(),
                  BM_OverheadRun, t)
                  ->UseRealTime(),
              benchmark::kNanosecond);
    aggregate(benchmark::RegisterBenchmark(
                  ("overhead/kernels/threads:" + std::to_string(t)).c_str(),
                  BM_OverheadKernels, t)
                  ->UseRealTime(),
              benchmark::kNanosecond);
  }
  for (int t : threadCounts())
    for (const std::string &model : kE2EModels)
      aggregate(benchmark::RegisterBenchmark(e2eName(model, t).c_str(), BM_E2E,
                                             model, t)
                    ->UseRealTime(),
                benchmark::kMillisecond);
}

/// Microseconds per call of `flops` at `gflops`.
double micros(double flops, double gflops) { return flops / gflops / 1e3; }

const char *flag(double ratio) {
  return std::isnan(ratio) ? "" : ratio < 0.95 ? "  <0.95" : "";
}

void summary() {
  std::printf("\n=== summary (medians of %d repetitions; ratio = oneDNN time "
              "/ tgc time, >= 0.95 is the bar) ===\n",
              kRepetitions);
  std::printf("\npeak (AVX-512 FMA loop):\n");
  for (int t : threadCounts())
    std::printf("  %d thread(s): %7.1f GFLOP/s (%.1f per core)\n", t,
                peakGflops(t), peakGflops(t) / t);

  std::printf("\nmatmul [B]xMxKxN (GFLOP/s; tgcIn: weights as input, "
              "tgcConst: weights constant, prepacked; kern: tgcConst's "
              "kernel without run(); run-kern: tgcConst's time outside the "
              "kernel; resCopy: allocating, zero-filling and copying one "
              "result, as run() does)\n");
  std::printf("  %-16s %3s %8s %8s %8s %8s | %8s %8s %8s %8s | %8s %8s\n",
              "shape", "thr", "oneDNN", "dnnlPack", "tgcIn", "tgcConst",
              "In/dnnl", "Const/dnl", "Cst/Pack", "kern/Pck", "run-kern",
              "resCopy");
  for (int t : threadCounts())
    for (const MatmulShape &s : kMatmulShapes) {
      std::string n = matmulName(s, t);
      double rIn = medianCounter(n, "ratio_in"),
             rConst = medianCounter(n, "ratio_const"),
             rPacked = medianCounter(n, "ratio_const_vs_packed"),
             rKern = medianCounter(n, "ratio_kern_vs_packed");
      double tgcConst = medianCounter(n, "tgcConst_GFLOPs"),
             kern = medianCounter(n, "kernConst_GFLOPs");
      std::printf("  %-16s %3d %8.1f %8.1f %8.1f %8.1f | %8.3f %8.3f %8.3f "
                  "%8.3f | %6.1fus %6.1fus%s\n",
                  s.name().c_str(), t, medianCounter(n, "dnnl_GFLOPs"),
                  medianCounter(n, "dnnlPacked_GFLOPs"),
                  medianCounter(n, "tgcIn_GFLOPs"), tgcConst, rIn, rConst,
                  rPacked, rKern,
                  micros(s.flops(), tgcConst) - micros(s.flops(), kern),
                  medianCounter(n, "resultCopy_us"),
                  flag(std::min({rIn, rConst, rPacked})));
    }

  std::printf("\nconv, batch 1 (GFLOP/s; oneDNN: plain activations, "
              "prepacked weights; best: any layouts everywhere; tgc: constant "
              "filter; kern, run-kern, resCopy as for matmul)\n");
  std::printf("  %-16s %4s %3s %8s %8s %8s %8s | %8s %8s %8s | %8s %8s\n",
              "shape", "lay", "thr", "oneDNN", "best", "tgc", "kern",
              "tgc/dnnl", "kern/dnl", "tgc/best", "run-kern", "resCopy");
  for (int t : threadCounts())
    for (bool nhwc : {false, true})
      for (const ConvShape &s : kConvShapes) {
        std::string n = convName(s, nhwc, t);
        double r = medianCounter(n, "ratio");
        double tgc = medianCounter(n, "tgcConst_GFLOPs"),
               kern = medianCounter(n, "kernConst_GFLOPs");
        std::printf(
            "  %-16s %4s %3d %8.1f %8.1f %8.1f %8.1f | %8.3f %8.3f "
            "%8.3f | %6.1fus %6.1fus%s\n",
            s.label, nhwc ? "nhwc" : "nchw", t, medianCounter(n, "dnnl_GFLOPs"),
            medianCounter(n, "dnnlBest_GFLOPs"), tgc, kern, r,
            medianCounter(n, "ratio_kern"), medianCounter(n, "ratio_vs_best"),
            micros(s.flops(), tgc) - micros(s.flops(), kern),
            medianCounter(n, "resultCopy_us"), flag(r));
      }

  std::printf("\nruntime overhead, 10 ops on 8-element f32 tensors (%zu "
              "steps; median of 61 interleaved rounds of 1000 calls)\n",
              overheadCase().kern->numSteps());
  for (int t : threadCounts()) {
    OverheadSummary o = measureOverhead(t);
    std::printf("  %d thread(s): Executable::run %7.0f ns, kernels alone %7.0f "
                "ns, overhead %6.0f ns/call (target < 2000)\n",
                t, o.run, o.kernels, o.overhead);
  }

  std::printf("\nend to end through tgc::function (median latency)\n");
  std::printf("  %-18s %3s %8s %10s %9s %7s\n", "model", "thr", "GFLOP", "ms",
              "GFLOP/s", "%peak");
  for (int t : threadCounts())
    for (const std::string &model : kE2EModels) {
      std::string n = e2eName(model, t);
      const Medians *m = findMedians(n);
      std::printf("  %-18s %3d %8.3f %10.3f %9.1f %6.1f%%\n", model.c_str(), t,
                  medianCounter(n, "GFLOP"), m ? m->realTime : NAN,
                  medianCounter(n, "GFLOPs"), medianCounter(n, "pct_peak"));
    }
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  registerAll();
  CapturingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  summary();
  benchmark::Shutdown();
  return 0;
}
