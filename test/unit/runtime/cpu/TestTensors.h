//===- TestTensors.h - tensors for the CPU kernel tests ---------*- C++ -*-===//
//
// Helpers the reduced-precision kernel tests share: seeded random f32
// tensors, numpy-style transposes, and one run of a kernel.
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
