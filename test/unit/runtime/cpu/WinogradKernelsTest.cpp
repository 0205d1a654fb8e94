//===- WinogradKernelsTest.cpp - the native Winograd convolution ----------===//
//
// runtime/cpu/WinogradConv.cpp's F(2x2, 3x3) kernel against a naive NHWC
// convolution in double: paddings, odd sizes that end tiles early, bias and
// ReLU, OIHW-ordered filters, thread counts (bitwise the same), inputs
// holding NaN or infinities (the direct convolution's results), and where
// the backend picks it (nativeWinogradPays: AVX2 without AVX-512, which
// the ctest suite cpu-kernels-avx2 emulates with DNNL_MAX_CPU_ISA=AVX2).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Common.h"
#include "runtime/cpu/Kernels.h"
#include "runtime/cpu/Recipes.h"
#include "runtime/cpu/WinogradConv.h"

#include "TestTensors.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace tgc::runtime;
using namespace tgc::runtime::cpu;
using namespace tgc::runtime::cpu::testing;

namespace {

struct Case {
  int64_t n, h, w, c, k;
  int64_t pad[4]; ///< top, left, bottom, right
  bool bias, relu, oihw;
};

Conv2DDesc descOf(const Case &t, const HostTensor &filter) {
  Conv2DDesc d{DType::F32};
  d.nhwc = true;
  d.inputShape = {t.n, t.h, t.w, t.c};
  d.filterShape = {3, 3, t.c, t.k};
  d.resultShape = {t.n, t.h + t.pad[0] + t.pad[2] - 2,
                   t.w + t.pad[1] + t.pad[3] - 2, t.k};
  for (int i = 0; i < 4; ++i)
    d.padding[i] = t.pad[i];
  if (t.bias)
    d.biasShape = Shape{t.k};
  if (t.relu)
    d.postOps = {PostOp{}}; // Eltwise Relu
  d.constantFilter = &filter;
  d.filterOIHW = t.oihw;
  d.winograd = true;
  return d;
}

/// The convolution in double: NHWC input, HWIO (or OIHW) filter.
HostTensor naive(const Case &t, const Conv2DDesc &d, const HostTensor &x,
                 const HostTensor &f, const HostTensor *bias) {
  int64_t oh = d.resultShape[1], ow = d.resultShape[2];
  HostTensor out = *HostTensor::allocate(DType::F32, d.resultShape);
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z)
        for (int64_t k = 0; k < t.k; ++k) {
          double acc = bias ? bias->getDouble(k) : 0;
          for (int64_t r = 0; r < 3; ++r)
            for (int64_t s = 0; s < 3; ++s) {
              int64_t iy = y - t.pad[0] + r, iz = z - t.pad[1] + s;
              if (iy < 0 || iy >= t.h || iz < 0 || iz >= t.w)
                continue;
              for (int64_t c = 0; c < t.c; ++c)
                acc += x.getDouble(((n * t.h + iy) * t.w + iz) * t.c + c) *
                       f.getDouble(t.oihw ? ((k * t.c + c) * 3 + r) * 3 + s
                                          : ((r * 3 + s) * t.c + c) * t.k + k);
            }
          if (t.relu)
            acc = std::max(acc, 0.0);
          out.setDouble(((n * oh + y) * ow + z) * t.k + k, acc);
        }
  return out;
}

bool haveAvx2() { return cpuIsa().avx2; }

TEST(WinogradConv, MatchesTheNaiveConvolution) {
  if (!haveAvx2())
    GTEST_SKIP() << "no AVX2 and FMA here: the native Winograd kernel "
                    "needs them";
  const Case cases[] = {
      {1, 12, 12, 64, 64, {1, 1, 1, 1}, true, true, false},
      {2, 11, 13, 64, 72, {1, 1, 1, 1}, true, false, true},
      {1, 9, 10, 72, 64, {0, 0, 0, 0}, false, true, false},
      {3, 7, 5, 64, 64, {2, 1, 0, 2}, true, true, true},
      {1, 17, 6, 80, 96, {1, 0, 2, 1}, false, false, false},
      // 992 tiles: two chunks (kStagingBytes holds 512 of them here).
      {1, 64, 61, 64, 64, {1, 1, 1, 1}, true, true, false},
  };
  unsigned seed = 1;
  for (const Case &t : cases) {
    SCOPED_TRACE(::testing::Message()
                 << t.n << "x" << t.h << "x" << t.w << "x" << t.c << " -> "
                 << t.k << " pad " << t.pad[0] << t.pad[1] << t.pad[2]
                 << t.pad[3]);
    HostTensor x = randomF32({t.n, t.h, t.w, t.c}, seed++);
    HostTensor f =
        randomF32(t.oihw ? Shape{t.k, t.c, 3, 3} : Shape{3, 3, t.c, t.k},
                  seed++, -0.1f, 0.1f);
    HostTensor b = randomF32({t.k}, seed++);
    Conv2DDesc d = descOf(t, f);
    auto kernel = tgc::runtime::cpu::detail::createNativeWinogradConv2D(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ((*kernel)->name(), "native.conv2d.winograd");
    std::vector<HostTensor> in = {x, f};
    if (t.bias)
      in.push_back(b);
    HostTensor want = naive(t, d, x, f, t.bias ? &b : nullptr);
    HostTensor got = runOne(*kernel, in, d.resultShape, 2);
    double largest = 0, worst = 0;
    for (int64_t i = 0; i < want.numElements(); ++i) {
      largest = std::max(largest, std::abs(want.getDouble(i)));
      worst = std::max(worst, std::abs(got.getDouble(i) - want.getDouble(i)));
    }
    // F(2x2, 3x3) rounds ~1e-6 of the result's scale here; a wrong tap or
    // tile edge is off by a whole term (~1e-2).
    EXPECT_LE(worst, 2e-5 * largest) << "largest " << largest;
    // The same bits on 1 and 3 threads (each product on one thread).
    for (int threads : {1, 3}) {
      HostTensor other = runOne(*kernel, in, d.resultShape, threads);
      EXPECT_EQ(std::memcmp(other.data(), got.data(), got.byteSize()), 0)
          << threads << " threads";
    }
  }
}

TEST(WinogradConv, NonFiniteInputsGetTheDirectConvolution) {
  if (!haveAvx2())
    GTEST_SKIP() << "no AVX2 and FMA here: the native Winograd kernel "
                    "needs them";
  // An infinity in one tile would turn its neighbours within the tile into
  // NaN (inf - inf in the transforms); the direct convolution keeps them.
  Case t{1, 12, 12, 64, 64, {1, 1, 1, 1}, true, false, false};
  HostTensor x = randomF32({t.n, t.h, t.w, t.c}, 7);
  HostTensor f = randomF32({3, 3, t.c, t.k}, 8, -0.1f, 0.1f);
  HostTensor b = randomF32({t.k}, 9);
  auto *p = static_cast<float *>(x.data());
  p[(5 * t.w + 6) * t.c + 3] = std::numeric_limits<float>::infinity();
  p[(0 * t.w + 0) * t.c + 0] = std::numeric_limits<float>::quiet_NaN();
  Conv2DDesc d = descOf(t, f);
  auto kernel = tgc::runtime::cpu::detail::createNativeWinogradConv2D(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  Conv2DDesc direct = d;
  direct.winograd = false;
  auto exact = createConv2D(direct);
  ASSERT_TRUE(exact.ok()) << exact.status();
  HostTensor got = runOne(*kernel, {x, f, b}, d.resultShape);
  HostTensor want = runOne(*exact, {x, f, b}, d.resultShape);
  int64_t nan = 0, inf = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    double w = want.getDouble(i), g = got.getDouble(i);
    if (std::isnan(w)) {
      ++nan;
      EXPECT_TRUE(std::isnan(g)) << i;
    } else if (std::isinf(w)) {
      ++inf;
      EXPECT_EQ(g, w) << i;
    } else {
      ASSERT_NEAR(g, w, 1e-4) << i;
    }
  }
  EXPECT_GT(nan, 0);
  EXPECT_GT(inf, 0);
}

TEST(WinogradConv, PaysOnlyWhereOneDnnHasNone) {
  HostTensor f = randomF32({3, 3, 64, 64}, 3, -0.1f, 0.1f);
  // ResNet-50's first 3x3 layer: 14 x 14 tiles.
  Case resnet{1, 56, 56, 64, 64, {1, 1, 1, 1}, true, true, false};
  Conv2DDesc d = descOf(resnet, f);
  const CpuIsa &isa = cpuIsa();
  bool expected = isa.avx2 && !isa.winograd;
  EXPECT_EQ(tgc::runtime::cpu::detail::nativeWinogradPays(d), expected)
      << isa.name;
  auto kernel = createConv2D(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ((*kernel)->name() == "native.conv2d.winograd", expected)
      << (*kernel)->name();
  if (expected) {
    // Remade from its recipe (a saved plan), it is the same kernel.
    const KernelRecipe &recipe = *(*kernel)->recipe;
    RemakeContext remake;
    remake.constants = {&f};
    auto again = remakeKernel(recipe.factory, recipe.descriptor, remake);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ((*again)->name(), "native.conv2d.winograd");
    HostTensor x = randomF32({1, 56, 56, 64}, 4);
    HostTensor b = randomF32({64}, 5);
    HostTensor one = runOne(*kernel, {x, f, b}, d.resultShape);
    HostTensor two = runOne(*again, {x, f, b}, d.resultShape);
    EXPECT_EQ(std::memcmp(one.data(), two.data(), one.byteSize()), 0);
  }
  auto refused = [&](const char *why, auto change) {
    Conv2DDesc other = d;
    change(other);
    EXPECT_FALSE(tgc::runtime::cpu::detail::nativeWinogradPays(other)) << why;
  };
  refused("not asked for", [](Conv2DDesc &o) { o.winograd = false; });
  refused("too few tiles (7x7)", [](Conv2DDesc &o) {
    o.inputShape = {1, 7, 7, 64};
    o.resultShape = {1, 7, 7, 64};
  });
  refused("a stride of 2", [](Conv2DDesc &o) {
    o.strides[0] = o.strides[1] = 2;
    o.resultShape = {1, 28, 28, 64};
  });
  refused("a sigmoid after it",
          [](Conv2DDesc &o) { o.postOps[0].eltwise = EltwiseKind::Sigmoid; });
  refused("a residual add", [](Conv2DDesc &o) {
    PostOp add;
    add.kind = PostOp::Kind::Add;
    add.operandShape = o.resultShape;
    o.postOps.push_back(add);
  });
  refused("run-time weights",
          [](Conv2DDesc &o) { o.constantFilter = nullptr; });
  refused("NCHW", [](Conv2DDesc &o) { o.nhwc = false; });
  HostTensor nanFilter = f.clone();
  static_cast<float *>(nanFilter.data())[17] =
      std::numeric_limits<float>::quiet_NaN();
  refused("a NaN in the filter",
          [&](Conv2DDesc &o) { o.constantFilter = &nanFilter; });
  // Same-padded n x size x size x c -> k over `filter` (3x3xcxk).
  auto channels = [](Conv2DDesc &o, int64_t n, int64_t size, int64_t c,
                     int64_t k, const HostTensor &filter) {
    o.inputShape = {n, size, size, c};
    o.filterShape = {3, 3, c, k};
    o.resultShape = {n, size, size, k};
    o.biasShape = Shape{k};
    o.constantFilter = &filter;
  };
  HostTensor wide = randomF32({3, 3, 1024, 512}, 7);
  refused("a transformed filter of 32 MiB",
          [&](Conv2DDesc &o) { channels(o, 8, 7, 1024, 512, wide); });
  HostTensor f32 = randomF32({3, 3, 32, 32}, 6);
  refused("32 channels",
          [&](Conv2DDesc &o) { channels(o, 1, 56, 32, 32, f32); });
}

} // namespace
