//===- TestTensors.h - tensors for the CPU kernel tests ---------*- C++ -*-===//
//
// Helpers the reduced-precision kernel tests share: seeded random f32
// tensors, numpy-style transposes, a naive convolution, and one run of a
// kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TEST_UNIT_RUNTIME_CPU_TESTTENSORS_H
#define TGC_TEST_UNIT_RUNTIME_CPU_TESTTENSORS_H

#include "runtime/cpu/Kernels.h"
#include "tgc/AbslStatus.h"

#include "gtest/gtest.h"

#include <random>

namespace tgc::runtime::cpu::testing {

/// f32 values uniform in [lo, hi), from `seed`.
inline HostTensor randomF32(const Shape &shape, unsigned seed, float lo = -1,
                            float hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  HostTensor t = *HostTensor::allocate(DType::F32, shape);
  auto *p = static_cast<float *>(t.data());
  for (int64_t i = 0; i < t.numElements(); ++i)
    p[i] = dist(gen);
  return t;
}

/// numpy transpose of `t` by `perm`.
inline HostTensor permute(const HostTensor &t,
                          const std::vector<int64_t> &perm) {
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(t.dim(p));
  HostTensor out = *HostTensor::allocate(t.dtype(), shape);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    std::vector<int64_t> idx = t.unflattenIndex(i);
    int64_t flat = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      flat = flat * shape[d] + idx[static_cast<size_t>(perm[d])];
    out.setDouble(flat, t.getDouble(i));
  }
  return out;
}

/// NCHW x OIHW in `groups` (the filter's dim 1 is a group's channels),
/// stride 1, `pad` on every side: each output the sum over its taps of
/// term(input value, filter value, output channel), in double, stored as
/// `dtype`.
template <typename Term>
HostTensor convolveNaive(const HostTensor &x, const HostTensor &f, int64_t pad,
                         int64_t groups, Term term, DType dtype = DType::F32) {
  int64_t N = x.dim(0), H = x.dim(2), W = x.dim(3);
  int64_t O = f.dim(0), C = f.dim(1), KH = f.dim(2), KW = f.dim(3);
  int64_t OH = H + 2 * pad - KH + 1, OW = W + 2 * pad - KW + 1;
  HostTensor out = *HostTensor::allocate(dtype, {N, O, OH, OW});
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t z = 0; z < OW; ++z) {
          // The input channels of o's group.
          int64_t first = o / (O / groups) * C;
          double acc = 0;
          for (int64_t c = 0; c < C; ++c)
            for (int64_t r = 0; r < KH; ++r)
              for (int64_t s = 0; s < KW; ++s) {
                int64_t ih = y - pad + r, iw = z - pad + s;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                acc += term(
                    x.getDouble(((n * x.dim(1) + first + c) * H + ih) * W + iw),
                    f.getDouble(((o * C + c) * KH + r) * KW + s), o);
              }
          out.setDouble(((n * O + o) * OH + y) * OW + z, acc);
        }
  return out;
}

/// Runs `kernel` on `threads` threads; its one f32 output of `shape`.
inline HostTensor runOne(const KernelPtr &kernel,
                         const std::vector<HostTensor> &in, const Shape &shape,
                         int threads = 2) {
  std::vector<HostTensor> out = {*HostTensor::allocate(DType::F32, shape)};
  KernelContext context;
  context.numThreads = threads;
  absl::Status status = kernel->run(context, in, out);
  EXPECT_TRUE(status.ok()) << kernel->name() << ": " << status;
  return out[0];
}

} // namespace tgc::runtime::cpu::testing

#endif // TGC_TEST_UNIT_RUNTIME_CPU_TESTTENSORS_H
