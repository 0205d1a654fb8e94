//===- LoopFusion.cpp - fused elementwise kernels against memory bandwidth ===//
//
// Achieved bandwidth of the JIT-compiled loop fusions (tgc-fuse-elementwise
// + the loop code generator) next to this machine's measured memory
// bandwidth, in one run:
//   - stream: a parallel streaming copy of 2 x 128 MiB (bytes read + written
//     per second), on 1 thread and on all threads;
//   - softmax, layernorm and gelu (erf formula) over the last axis of a
//     128x768 and an 8x128x3072 f32 tensor, each as
//       fused    the spelled-out ops grouped by tgc-fuse-elementwise: one
//                jit.loop kernel (TGC_LOOP_VECTORIZE=0: LLVM's loop
//                vectorizer);
//       fused_vec the same with MLIR-level tiling + vectorization
//                (TGC_LOOP_VECTORIZE=1);
//       unfused  the same ops, one oneDNN/native kernel per op;
//       op       the dialect's own tgc.softmax / tgc.layer_norm / tgc.gelu
//                (one oneDNN primitive), for reference.
// Bandwidth counts the bytes a kernel must move at least: its inputs read
// once and its results written once (BW_GBps), and the ratio to the
// streaming copy on the same thread count (of_stream). The 128x768 tensor
// (384 KiB) fits in L2, so its figures can exceed DRAM bandwidth.
// Kernels are called directly on a preallocated arena (no run() overhead).
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Compiler.h"
#include "passes/Passes.h"
#include "runtime/Executable.h"
#include "tools/lib/Registration.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "bench-loop-fusion: %s\n", message.c_str());
  std::exit(1);
}

template <typename S> auto check(S value, const char *what) {
  if (!value.ok())
    fail(std::string(what) + ": " + value.status().ToString());
  return *std::move(value);
}

int hardwareThreads() { return std::max(1, omp_get_num_procs()); }

//===----------------------------------------------------------------------===//
// Streaming copy
//===----------------------------------------------------------------------===//

double streamBandwidth(int threads) {
  static std::map<int, double> cache;
  if (cache.count(threads))
    return cache[threads];
  const size_t n = (size_t(128) << 20) / sizeof(float);
  float *a = static_cast<float *>(std::aligned_alloc(64, n * sizeof(float)));
  float *b = static_cast<float *>(std::aligned_alloc(64, n * sizeof(float)));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t i = 0; i < n; ++i)
    a[i] = float(i % 7), b[i] = 0;
  double best = 0;
  for (int rep = 0; rep < 10; ++rep) {
    auto start = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; ++i)
      b[i] = a[i];
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    best = std::max(best, 2.0 * n * sizeof(float) / seconds / 1e9);
  }
  benchmark::DoNotOptimize(b[n / 2]);
  std::free(a);
  std::free(b);
  return cache[threads] = best;
}

void BM_Stream(benchmark::State &state, int threads) {
  for (auto _ : state)
    state.counters["BW_GBps"] = streamBandwidth(threads);
}

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

std::string typeOf(const std::vector<int64_t> &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

/// The MLIR of one case: `pattern` over `shape` (last axis), spelled out in
/// elementwise/reduction ops or as the dialect's op.
std::string caseSource(const std::string &pattern,
                       const std::vector<int64_t> &shape, bool asOp) {
  std::string t = typeOf(shape);
  std::vector<int64_t> kept(shape);
  kept.back() = 1;
  std::string k = typeOf(kept);
  std::string last = std::to_string(shape.size() - 1);
  std::string vec = "tensor<" + std::to_string(shape.back()) + "xf32>";
  std::string axes = "{axes = array<i64: " + last + ">, keepdims}";
  std::string s;
  if (pattern == "softmax") {
    s = "func.func @f(%x: " + t + ") -> " + t + " {\n";
    if (asOp) {
      s += "  %y = tgc.softmax %x {axis = " + last + " : i64} : " + t + "\n";
    } else {
      s += "  %m = tgc.reduce_max %x " + axes + " : (" + t + ") -> " + k + "\n";
      s += "  %d = tgc.sub %x, %m : (" + t + ", " + k + ") -> " + t + "\n";
      s += "  %e = tgc.exp %d : " + t + "\n";
      s += "  %s = tgc.reduce_sum %e " + axes + " : (" + t + ") -> " + k + "\n";
      s += "  %y = tgc.div %e, %s : (" + t + ", " + k + ") -> " + t + "\n";
    }
  } else if (pattern == "layernorm") {
    s = "func.func @f(%x: " + t + ", %g: " + vec + ", %b: " + vec + ") -> " +
        t + " {\n";
    if (asOp) {
      s += "  %y = tgc.layer_norm %x scale %g bias %b {axis = " + last +
           " : i64} : (" + t + ", " + vec + ", " + vec + ") -> " + t + "\n";
    } else {
      s += "  %eps = tgc.constant dense<1.0e-05> : tensor<f32>\n";
      s += "  %mean = tgc.reduce_mean %x " + axes + " : (" + t + ") -> " + k +
           "\n";
      s += "  %d = tgc.sub %x, %mean : (" + t + ", " + k + ") -> " + t + "\n";
      s += "  %sq = tgc.mul %d, %d : " + t + "\n";
      s += "  %var = tgc.reduce_mean %sq " + axes + " : (" + t + ") -> " + k +
           "\n";
      s += "  %ve = tgc.add %var, %eps : (" + k + ", tensor<f32>) -> " + k +
           "\n";
      s += "  %r = tgc.rsqrt %ve : " + k + "\n";
      s += "  %n = tgc.mul %d, %r : (" + t + ", " + k + ") -> " + t + "\n";
      s += "  %sc = tgc.mul %n, %g : (" + t + ", " + vec + ") -> " + t + "\n";
      s += "  %y = tgc.add %sc, %b : (" + t + ", " + vec + ") -> " + t + "\n";
    }
  } else { // gelu, erf form
    s = "func.func @f(%x: " + t + ") -> " + t + " {\n";
    if (asOp) {
      s += "  %y = tgc.gelu %x : " + t + "\n";
    } else {
      s += "  %c = tgc.constant dense<0.707106769> : tensor<f32>\n";
      s += "  %h = tgc.constant dense<0.5> : tensor<f32>\n";
      s += "  %one = tgc.constant dense<1.0> : tensor<f32>\n";
      s += "  %0 = tgc.mul %x, %c : (" + t + ", tensor<f32>) -> " + t + "\n";
      s += "  %1 = tgc.erf %0 : " + t + "\n";
      s += "  %2 = tgc.add %1, %one : (" + t + ", tensor<f32>) -> " + t + "\n";
      s += "  %3 = tgc.mul %x, %2 : " + t + "\n";
      s += "  %y = tgc.mul %3, %h : (" + t + ", tensor<f32>) -> " + t + "\n";
    }
  }
  return s + "  return %y : " + t + "\n}\n";
}

mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    tgc::registerAllDialects(registry);
    auto *c = new mlir::MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

/// A compiled case with its arguments and a preallocated arena; the
/// kernels are called directly.
struct Case {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  cpu::CompiledFunction compiled;
  std::vector<HostTensor> args;
  std::shared_ptr<uint8_t> arena;
  std::vector<HostTensor> results;
  std::vector<std::vector<HostTensor>> inputs, outputs;
  double bytes = 0;
  std::string kernels;

  uint8_t *pointer(int64_t value) {
    const runtime::Executable &plan = *compiled.executable;
    const runtime::ValueStorage &storage =
        plan.values[static_cast<size_t>(value)].storage;
    auto index = static_cast<size_t>(storage.index);
    switch (storage.kind) {
    case runtime::ValueStorage::Kind::Input:
      return static_cast<uint8_t *>(const_cast<void *>(args[index].data()));
    case runtime::ValueStorage::Kind::Constant:
      return static_cast<uint8_t *>(
          const_cast<void *>(plan.constants[index].data()));
    case runtime::ValueStorage::Kind::Arena: {
      // Results get storage of their own (the run writes them directly).
      for (size_t r = 0; r < plan.outputs.size(); ++r)
        if (plan.outputs[r] == value)
          return static_cast<uint8_t *>(results[r].data());
      return arena.get() + storage.offset;
    }
    case runtime::ValueStorage::Kind::View:
      return pointer(storage.index) + storage.offset;
    }
    return nullptr;
  }

  void run(int threads) {
    const runtime::Executable &plan = *compiled.executable;
    runtime::KernelContext kc;
    kc.numThreads = threads;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      absl::Status status =
          plan.steps[s].kernel->run(kc, inputs[s], outputs[s]);
      if (!status.ok())
        fail("kernel: " + status.ToString());
    }
  }
};

std::unique_ptr<Case> makeCase(const std::string &pattern,
                               const std::vector<int64_t> &shape,
                               const std::string &variant, int threads) {
  auto c = std::make_unique<Case>();
  c->module = mlir::parseSourceString<mlir::ModuleOp>(
      caseSource(pattern, shape, variant == "op"), &context());
  if (!c->module)
    fail("cannot parse the " + pattern + " case");
  if (variant == "fused" || variant == "fused_vec")
    tgc::fuseElementwise(*c->module);
  auto func = c->module->lookupSymbol<mlir::func::FuncOp>("f");
  std::vector<std::vector<int64_t>> shapes;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2, 2);
  for (mlir::Type type : func.getArgumentTypes()) {
    auto tensor = mlir::cast<mlir::RankedTensorType>(type);
    std::vector<int64_t> s(tensor.getShape().begin(), tensor.getShape().end());
    shapes.push_back(s);
    HostTensor t = check(HostTensor::allocate(DType::F32, s), "allocate");
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.dataAs<float>()[i] = dist(rng);
    c->bytes += static_cast<double>(t.byteSize());
    c->args.push_back(std::move(t));
  }
  omp_set_num_threads(threads);
  cpu::CompileOptions options;
  options.numThreads = threads;
  // The loop code generator's MLIR-level vectorization on (fused_vec) or
  // off (fused: LLVM's loop vectorizer alone), whatever the default.
  if (variant == "fused" || variant == "fused_vec")
    options.loopVectorize = variant == "fused_vec";
  auto compiled = cpu::compile(func, shapes, options);
  if (!compiled)
    fail(pattern + ": " + llvm::toString(compiled.takeError()));
  c->compiled = std::move(*compiled);
  const runtime::Executable &plan = *c->compiled.executable;
  for (int64_t id : plan.outputs) {
    const runtime::ValueInfo &info = plan.values[static_cast<size_t>(id)];
    HostTensor t =
        check(HostTensor::allocate(info.dtype, info.shape), "allocate");
    c->bytes += static_cast<double>(t.byteSize());
    c->results.push_back(std::move(t));
  }
  size_t arenaBytes = (std::max<int64_t>(plan.arenaBytes, 64) + 63) / 64 * 64;
  c->arena.reset(static_cast<uint8_t *>(std::aligned_alloc(64, arenaBytes)),
                 std::free);
  std::memset(c->arena.get(), 0, arenaBytes);
  auto views = [&](const std::vector<int64_t> &ids) {
    std::vector<HostTensor> v;
    for (int64_t id : ids) {
      const runtime::ValueInfo &info = plan.values[static_cast<size_t>(id)];
      v.push_back(
          check(HostTensor::borrow(info.dtype, info.shape, c->pointer(id)),
                "borrow"));
    }
    return v;
  };
  for (const runtime::Step &step : plan.steps) {
    c->inputs.push_back(views(step.inputs));
    c->outputs.push_back(views(step.outputs));
    if (!c->kernels.empty())
      c->kernels += " ";
    c->kernels += std::string(step.kernel->name());
  }
  return c;
}

void BM_Kernel(benchmark::State &state, std::string pattern,
               std::vector<int64_t> shape, std::string variant, int threads) {
  auto c = makeCase(pattern, shape, variant, threads);
  omp_set_num_threads(threads);
  for (int i = 0; i < 3; ++i)
    c->run(threads);
  for (auto _ : state)
    c->run(threads);
  double perCall = state.iterations() ? 1.0 : 0.0;
  (void)perCall;
  state.counters["BW_GBps"] = benchmark::Counter(
      c->bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["BW_GBps"] = benchmark::Counter(
      c->bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["stream_GBps"] = streamBandwidth(threads);
  state.counters["kernels"] =
      static_cast<double>(c->compiled.executable->steps.size());
  state.SetLabel(c->kernels);
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<int> threadCounts{1};
  if (hardwareThreads() > 1)
    threadCounts.push_back(hardwareThreads());
  for (int threads : threadCounts)
    benchmark::RegisterBenchmark(
        ("stream_copy/threads:" + std::to_string(threads)).c_str(), BM_Stream,
        threads)
        ->Iterations(1);
  std::vector<std::vector<int64_t>> shapes{{128, 768}, {8, 128, 3072}};
  for (int threads : threadCounts)
    for (const auto &shape : shapes)
      for (std::string pattern : {"softmax", "layernorm", "gelu"})
        for (std::string variant : {"fused", "fused_vec", "unfused", "op"}) {
          std::string shapeName;
          for (int64_t d : shape)
            shapeName += (shapeName.empty() ? "" : "x") + std::to_string(d);
          std::string name = pattern + "/" + shapeName + "/" + variant +
                             "/threads:" + std::to_string(threads);
          benchmark::RegisterBenchmark(name.c_str(), BM_Kernel, pattern, shape,
                                       variant, threads)
              ->Unit(benchmark::kMicrosecond)
              ->MinTime(0.2);
        }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
