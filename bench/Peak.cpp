//===- Peak.cpp - This machine's f32 FMA peak, measured -------------------===//
//
// Prints the f32 multiply-add throughput of `--threads` threads (default
// 1), each running independent chains of fused multiply-adds on the widest
// vectors the CPU has (AVX-512, else AVX2+FMA, else scalar), as GFLOP/s
// (an FMA is 2 flops). bench/models.py reports achieved rates against this
// number measured in the same run: the clock of these VMs drifts (3.5 to
// 5 GHz), so a nominal peak is off by up to 40%.
//
//   bench-peak [--threads N] [--ms M]
//
//===----------------------------------------------------------------------===//

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

// More chains than FMA latency x pipes (4 x 2), few enough to stay in the
// 32 vector registers (24 spill and halve the rate).
constexpr int kChains = 16;
constexpr long kIterations = 1 << 20;

/// 2 * 16 * kChains * kIterations flops; the result keeps the work alive.
__attribute__((target("avx512f"))) float fmaAvx512() {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm512_set1_ps(static_cast<float>(c) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long i = 0; i < kIterations; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  float sum = 0;
  for (int c = 0; c < kChains; ++c)
    sum += _mm512_reduce_add_ps(acc[c]);
  return sum;
}

__attribute__((target("avx2,fma"))) float fmaAvx2() {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = _mm256_set1_ps(static_cast<float>(c) * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < kIterations; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  alignas(32) float lanes[8];
  float sum = 0;
  for (int c = 0; c < kChains; ++c) {
    _mm256_store_ps(lanes, acc[c]);
    for (float v : lanes)
      sum += v;
  }
  return sum;
}

/// Flops of one call of the kernel this CPU runs, and the call.
struct Kernel {
  double flops;
  float (*run)();
  const char *name;
};

Kernel pickKernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return {2.0 * 16 * kChains * kIterations, fmaAvx512, "avx512 fma"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {2.0 * 8 * kChains * kIterations, fmaAvx2, "avx2 fma"};
  return {0, nullptr, "none"};
}

} // namespace

int main(int argc, char **argv) {
  int threads = 1;
  double budgetMs = 300;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--ms") && i + 1 < argc)
      budgetMs = std::atof(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--ms M]\n", argv[0]);
      return 2;
    }
  }
  if (threads < 1 || threads > 1024 || !(budgetMs > 0)) {
    std::fprintf(stderr, "bench-peak: --threads must be 1..1024 and --ms "
                         "positive\n");
    return 2;
  }
  Kernel kernel = pickKernel();
  if (!kernel.run) {
    std::fprintf(stderr, "bench-peak: no AVX2/FMA on this CPU\n");
    return 1;
  }
  // Each thread runs calls until the budget is spent; the rate of the best
  // 100 ms window is the peak (a busy neighbour only lowers it).
  std::atomic<float> sink{0};
  double best = 0;
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
             .count() < budgetMs) {
    std::atomic<long> calls{0};
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        float local = 0;
        while (std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - t0)
                   .count() < 100) {
          local += kernel.run();
          calls.fetch_add(1);
        }
        sink.store(sink.load() + local);
      });
    for (std::thread &t : pool)
      t.join();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    best = std::max(best, kernel.flops * calls.load() / seconds / 1e9);
  }
  std::printf("%s, %d thread(s): %.1f GFLOP/s f32\n", kernel.name, threads,
              best);
  return sink.load() == 12345.0f ? 3 : 0;
}
