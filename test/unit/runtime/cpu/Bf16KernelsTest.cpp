//===- Bf16KernelsTest.cpp - contractions that multiply in bfloat16 -------===//
//
// MatmulDesc::bf16 / Conv2DDesc::bf16 (the bf16 precision policy): results
// against naive loops over operands rounded to bfloat16 (round to nearest
// even) with exact accumulation, in every operand arrangement (constant
// and run-time weights, NCHW and NHWC, blocked layout chains with bf16
// activations). On a CPU without native bf16 (or under
// DNNL_MAX_CPU_ISA=AVX2) the kernels are refused with a message naming what
// is missing.
//
//===----------------------------------------------------------------------===//

#include "TestTensors.h"
#include "runtime/cpu/Kernels.h"
#include "tgc/AbslStatus.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace tgc::runtime;
using namespace tgc::runtime::cpu;
using namespace tgc::runtime::cpu::testing;

namespace {

float roundBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  u &= 0xFFFF0000u;
  std::memcpy(&x, &u, 4);
  return x;
}

HostTensor rounded(const HostTensor &t) {
  HostTensor r = t.clone();
  auto *p = static_cast<float *>(r.data());
  for (int64_t i = 0; i < r.numElements(); ++i)
    p[i] = roundBf16(p[i]);
  return r;
}

/// [M,K] x [K,N] (+ bias [N]) in double.
HostTensor naiveMatmul(const HostTensor &a, const HostTensor &b,
                       const HostTensor *bias) {
  int64_t M = a.dim(0), K = a.dim(1), N = b.dim(1);
  HostTensor out = *HostTensor::allocate(DType::F32, {M, N});
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double sum = bias ? bias->getDouble(j) : 0;
      for (int64_t k = 0; k < K; ++k)
        sum += a.getDouble(i * K + k) * b.getDouble(k * N + j);
      out.setDouble(i * N + j, sum);
    }
  return out;
}

/// NCHW x OIHW, stride 1, `pad` on every side, in double.
HostTensor naiveConv(const HostTensor &x, const HostTensor &f, int64_t pad) {
  return convolveNaive(x, f, pad, 1,
                       [](double a, double b, int64_t) { return a * b; });
}

double maxAbsDiff(const HostTensor &a, const HostTensor &b) {
  double m = 0;
  for (int64_t i = 0; i < a.numElements(); ++i)
    m = std::max(m, std::abs(a.getDouble(i) - b.getDouble(i)));
  return m;
}

#define SKIP_WITHOUT_BF16()                                                    \
  if (!cpuIsa().bf16)                                                          \
  GTEST_SKIP() << "this CPU (" << cpuIsa().name                                \
               << ") has no native bf16: "                                     \
                  "Bf16.RefusedWithoutNativeBf16 covers it"

TEST(Bf16, RefusedWithoutNativeBf16) {
  MatmulDesc m{DType::F32, {4, 8}, {8, 2}, {4, 2}};
  m.bf16 = true;
  Conv2DDesc c{DType::F32};
  c.inputShape = {1, 4, 5, 5};
  c.filterShape = {2, 4, 3, 3};
  c.resultShape = {1, 2, 3, 3};
  c.bf16 = true;
  auto matmul = createMatmul(m);
  auto conv = createConv2D(c);
  if (cpuIsa().bf16) {
    ASSERT_TRUE(matmul.ok()) << matmul.status();
    ASSERT_TRUE(conv.ok()) << conv.status();
    EXPECT_EQ((*matmul)->name(), "onednn.matmul[bf16]");
    EXPECT_EQ((*conv)->name(), "onednn.conv2d[bf16]");
  } else {
    for (const absl::Status &s : {matmul.status(), conv.status()}) {
      EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
      EXPECT_NE(s.message().find("needs AVX512_BF16 or AMX"), std::string::npos)
          << s;
      EXPECT_NE(s.message().find(cpuIsa().name), std::string::npos) << s;
    }
  }
  // Only f32 operands multiply in bf16, on every CPU.
  m.dtype = DType::F64;
  auto f64 = createMatmul(m);
  EXPECT_EQ(f64.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(f64.status().message().find("only with f32 operands"),
            std::string::npos)
      << f64.status();
}

TEST(Bf16, MatmulRoundsItsOperands) {
  SKIP_WITHOUT_BF16();
  HostTensor a = randomF32({8, 96}, 1), b = randomF32({96, 24}, 2),
             bias = randomF32({24}, 3);
  HostTensor want = naiveMatmul(rounded(a), rounded(b), &bias);
  HostTensor exact = naiveMatmul(a, b, &bias);
  for (bool constant : {true, false}) {
    SCOPED_TRACE(constant ? "constant rhs" : "run-time rhs");
    MatmulDesc d{DType::F32, {8, 96}, {96, 24}, {8, 24}};
    d.biasShape = Shape{24};
    d.bf16 = true;
    if (constant)
      d.constantRhs = &b;
    auto kernel = createMatmul(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ((*kernel)->name(), "onednn.matmul[bf16]");
    HostTensor got = runOne(*kernel, {a, b, bias}, {8, 24});
    // f32 accumulation of exact bf16 products: close to the rounded
    // operands' result, visibly away from the f32 operands' one.
    EXPECT_LT(maxAbsDiff(got, want), 1e-4);
    EXPECT_GT(maxAbsDiff(got, exact), 1e-3);
  }
}

TEST(Bf16, ConvRoundsItsOperandsInBothLayouts) {
  SKIP_WITHOUT_BF16();
  HostTensor x = randomF32({2, 16, 9, 9}, 4), f = randomF32({32, 16, 3, 3}, 5);
  HostTensor want = naiveConv(rounded(x), rounded(f), 1);
  HostTensor exact = naiveConv(x, f, 1);
  for (bool nhwc : {false, true})
    for (bool constant : {true, false}) {
      SCOPED_TRACE(std::string(nhwc ? "nhwc" : "nchw") +
                   (constant ? " constant filter" : " run-time filter"));
      HostTensor xin = nhwc ? permute(x, {0, 2, 3, 1}) : x;
      HostTensor fin = nhwc ? permute(f, {2, 3, 1, 0}) : f;
      HostTensor wantIn = nhwc ? permute(want, {0, 2, 3, 1}) : want;
      HostTensor exactIn = nhwc ? permute(exact, {0, 2, 3, 1}) : exact;
      Conv2DDesc d{DType::F32};
      d.nhwc = nhwc;
      d.inputShape = xin.shape();
      d.filterShape = fin.shape();
      d.resultShape = wantIn.shape();
      for (int64_t &p : d.padding)
        p = 1;
      d.bf16 = true;
      if (constant)
        d.constantFilter = &fin;
      auto kernel = createConv2D(d);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      EXPECT_EQ((*kernel)->name(), "onednn.conv2d[bf16]");
      HostTensor got = runOne(*kernel, {xin, fin}, d.resultShape);
      EXPECT_LT(maxAbsDiff(got, wantIn), 1e-4);
      EXPECT_GT(maxAbsDiff(got, exactIn), 1e-3);
    }
}

TEST(Bf16, BlockedChainsKeepBf16Activations) {
  SKIP_WITHOUT_BF16();
  // conv1 3x3 (+relu) -> conv2 1x1 + residual (conv1's result) -> max pool,
  // blocked, activations in bf16 between them; against the same chain over
  // plain NHWC kernels whose activations are rounded to bf16 where the
  // blocked chain stores them.
  const int64_t C = 32, H = 8, W = 8;
  HostTensor x = randomF32({1, H, W, C}, 6);
  HostTensor f1 = randomF32({3, 3, C, C}, 7), f2 = randomF32({1, 1, C, C}, 8);
  PostOp relu, add;
  add.kind = PostOp::Kind::Add;
  add.operandShape = {1, H, W, C};
  Conv2DDesc d1{DType::F32};
  d1.nhwc = true;
  d1.inputShape = d1.resultShape = {1, H, W, C};
  d1.filterShape = f1.shape();
  for (int64_t &p : d1.padding)
    p = 1;
  d1.postOps = {relu};
  d1.constantFilter = &f1;
  d1.bf16 = true;
  Conv2DDesc d2 = d1;
  d2.filterShape = f2.shape();
  for (int64_t &p : d2.padding)
    p = 0;
  d2.postOps = {add};
  d2.constantFilter = &f2;

  ConvLayouts l1;
  l1.anyInput = true;
  l1.blockTag = true;
  auto b1 = createLayoutConv2D(d1, l1);
  ASSERT_TRUE(b1.ok()) << b1.status();
  ASSERT_TRUE(b1->inputLayout && b1->resultLayout);
  // bf16 activations: half the bytes of f32 ones.
  EXPECT_EQ(b1->resultLayout->bytes, H * W * C * 2);
  EXPECT_EQ(b1->inputLayout->bytes, H * W * C * 2);
  EXPECT_FALSE(b1->winograd);
  const ActivationLayout &L = *b1->resultLayout;
  ConvLayouts l2;
  l2.input = &L;
  l2.result = &L;
  l2.postOpOperands = {&L};
  auto b2 = createLayoutConv2D(d2, l2);
  ASSERT_TRUE(b2.ok()) << b2.status();
  ASSERT_TRUE(b2->resultLayout && sameLayout(*b2->resultLayout, L));
  Pool2DDesc pool{Pool2DDesc::Kind::Max, DType::F32};
  pool.nhwc = true;
  pool.inputShape = {1, H, W, C};
  pool.resultShape = {1, H / 2, W / 2, C};
  pool.kernel[0] = pool.kernel[1] = pool.strides[0] = pool.strides[1] = 2;
  auto p = createLayoutPool2D(pool, L);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->resultLayout);
  EXPECT_EQ(p->resultLayout->bytes, H * W * C / 2);

  auto in =
      createLayoutReorder(DType::F32, x.shape(), nullptr, &*b1->inputLayout);
  auto out = createLayoutReorder(DType::F32, pool.resultShape,
                                 &*p->resultLayout, nullptr);
  ASSERT_TRUE(in.ok() && out.ok());
  auto bytes = [](const ActivationLayout &l) {
    return Shape{l.bytes / 4}; // f32 tensors of the layout's bytes
  };
  HostTensor xb = runOne(*in, {x}, bytes(*b1->inputLayout));
  HostTensor y1 = runOne(b1->kernel, {xb, f1}, bytes(L));
  HostTensor y2 = runOne(b2->kernel, {y1, f2, y1}, bytes(L));
  HostTensor yp = runOne(p->kernel, {y2}, bytes(*p->resultLayout));
  HostTensor got = runOne(*out, {yp}, pool.resultShape);

  // Plain kernels: f32 activations rounded where the chain stores bf16.
  Conv2DDesc q1 = d1, q2 = d2;
  auto k1 = createConv2D(q1), k2 = createConv2D(q2);
  pool.nhwc = true;
  auto kp = createPool2D(pool);
  ASSERT_TRUE(k1.ok() && k2.ok() && kp.ok());
  HostTensor r1 = rounded(runOne(*k1, {x, f1}, d1.resultShape));
  HostTensor r2 = rounded(runOne(*k2, {r1, f2, r1}, d2.resultShape));
  HostTensor want = runOne(*kp, {r2}, pool.resultShape);
  // Accumulation order apart, one bf16 rounding step (2^-8 relative).
  double scale = 0;
  for (int64_t i = 0; i < want.numElements(); ++i)
    scale = std::max(scale, std::abs(want.getDouble(i)));
  EXPECT_LT(maxAbsDiff(got, want), scale / 64);
}

} // namespace
