//===- Int8KernelsTest.cpp - contractions that multiply in int8 -----------===//
//
// MatmulDesc::int8 / Conv2DDesc::int8 (the int8 precision policy) against a
// reference int8 implementation: the input quantized with its scale (u8 or
// s8, zero point 0), the weights per output channel (symmetric s8), exact
// integer accumulation, dequantization, then bias and post-ops in f32.
// oneDNN's VNNI kernels match it to float rounding, and so do the others
// with u8 inputs (pairs of weights bounded: int8WeightRule); with s8 inputs
// and no VNNI (AVX2, avx512_core) oneDNN halves the weights, so there the
// bound is a quantization step's worth of the result.
//
//===----------------------------------------------------------------------===//

#include "TestTensors.h"
#include "runtime/cpu/Kernels.h"
#include "tgc/AbslStatus.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace tgc::runtime;
using namespace tgc::runtime::cpu;
using namespace tgc::runtime::cpu::testing;

namespace {

/// The reference quantizers; quantizeInput gives the stored value minus
/// the zero point (what the integer product multiplies).
int32_t quantizeInput(float x, const Int8Quantization &q) {
  float v = std::nearbyint(x * (1.0f / q.inputScale)) +
            static_cast<float>(q.zeroPoint);
  return static_cast<int32_t>(q.unsignedInput
                                  ? std::clamp(v, 0.0f, 255.0f)
                                  : std::clamp(v, -128.0f, 127.0f)) -
         q.zeroPoint;
}
/// The reference weight quantization (int8WeightRule written out): per
/// output channel, scale = max |w| / 127; without VNNI, for u8 inputs, at
/// least the largest |w_i| + |w_partner(i)| over the pairs of reduction
/// indices (2m, 2m + 1) / 127, and for s8 inputs max |w| / 63.
struct ReferenceWeights {
  std::vector<float> scales;
  float levels = 127;
  int32_t quantize(float w, int64_t channel) const {
    return static_cast<int32_t>(
        std::clamp(std::nearbyint(w / scales[static_cast<size_t>(channel)]),
                   -levels, levels));
  }
  float scale(int64_t channel) const {
    return scales[static_cast<size_t>(channel)];
  }
};
/// `reductionOf(i)`: {index along the reduction dim, its stride in w}.
ReferenceWeights referenceWeights(
    const HostTensor &w, int64_t channels, bool unsignedInput,
    const std::function<int64_t(int64_t)> &channelOf,
    const std::function<std::pair<int64_t, int64_t>(int64_t)> &reductionOf,
    int64_t extent) {
  bool pairs = !cpuIsa().vnni && unsignedInput;
  ReferenceWeights r;
  r.levels = cpuIsa().vnni || unsignedInput ? 127.0f : 63.0f;
  std::vector<float> m(static_cast<size_t>(channels), 0);
  std::vector<float> pairMax(m.size(), 0);
  for (int64_t i = 0; i < w.numElements(); ++i) {
    size_t c = static_cast<size_t>(channelOf(i));
    float v = std::abs(static_cast<float>(w.getDouble(i)));
    m[c] = std::max(m[c], v);
    auto [k, stride] = reductionOf(i);
    if (k % 2 == 0 && k + 1 < extent)
      pairMax[c] =
          std::max(pairMax[c],
                   v + std::abs(static_cast<float>(w.getDouble(i + stride))));
  }
  for (size_t c = 0; c < m.size(); ++c) {
    float s = m[c] > 0 ? m[c] / r.levels : 1.0f;
    if (pairs && m[c] > 0)
      s = std::max(s, pairMax[c] / 127.0f);
    r.scales.push_back(s);
  }
  return r;
}

bool hasVnni() { return cpuIsa().vnni; }

/// |got - want| within float rounding (VNNI, or u8 inputs) or a
/// quantization step's worth (s8 inputs without VNNI, whose weights oneDNN
/// halves); and `got` is not the f32 result `exact` bitwise.
void expectQuantized(const HostTensor &got, const HostTensor &want,
                     const HostTensor &exact, bool unsignedInput = true) {
  double scale = 0, worst = 0, fromExact = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    scale = std::max(scale, std::abs(want.getDouble(i)));
    worst = std::max(worst, std::abs(got.getDouble(i) - want.getDouble(i)));
    fromExact =
        std::max(fromExact, std::abs(got.getDouble(i) - exact.getDouble(i)));
  }
  EXPECT_LE(worst, (hasVnni() || unsignedInput ? 1e-5 : 2e-2) * scale + 1e-6)
      << "on " << cpuIsa().name;
  // Quantized, but near the f32 result.
  EXPECT_GT(fromExact, 0.0);
  EXPECT_LT(fromExact, 0.05 * scale);
}

/// |got - want| within float rounding: exact integer arithmetic.
void expectExact(const HostTensor &got, const HostTensor &want) {
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    scale = std::max(scale, std::abs(want.getDouble(i)));
    worst = std::max(worst, std::abs(got.getDouble(i) - want.getDouble(i)));
  }
  EXPECT_LE(worst, 1e-5 * scale) << "on " << cpuIsa().name;
}

/// The reference weights of an OIHW filter (dim 1: a group's channels).
ReferenceWeights oihwReferenceWeights(const HostTensor &f, bool unsignedInput) {
  const int64_t perGroup = f.dim(1), taps = f.dim(2) * f.dim(3);
  return referenceWeights(
      f, f.dim(0), unsignedInput,
      [=](int64_t i) { return i / (perGroup * taps); },
      [=](int64_t i) { return std::pair((i / taps) % perGroup, taps); },
      perGroup);
}

/// The reference int8 convolution, NCHW x OIHW in `groups`, padding 1:
/// quantized inputs by quantized weights summed exactly, dequantized, plus
/// `bias`.
HostTensor int8ConvReference(const HostTensor &x, const HostTensor &f,
                             int64_t groups, const Int8Quantization &q,
                             const ReferenceWeights &ws,
                             const HostTensor *bias = nullptr) {
  HostTensor acc = convolveNaive(
      x, f, 1, groups,
      [&](double xv, double fv, int64_t o) {
        return static_cast<double>(
            int64_t{quantizeInput(static_cast<float>(xv), q)} *
            ws.quantize(static_cast<float>(fv), o));
      },
      DType::F64);
  HostTensor out = *HostTensor::allocate(DType::F32, acc.shape());
  const int64_t O = acc.dim(1), plane = acc.dim(2) * acc.dim(3);
  for (int64_t i = 0; i < acc.numElements(); ++i) {
    int64_t o = (i / plane) % O;
    out.setDouble(i, acc.getDouble(i) * q.inputScale * ws.scale(o) +
                         (bias ? bias->getDouble(o) : 0.0));
  }
  return out;
}

/// An int8 convolution of NCHW `x` by OIHW `f` in `groups`, padding 1, run
/// in NCHW or NHWC (HWIO filter); its result as NCHW.
HostTensor runInt8Conv(const HostTensor &x, const HostTensor &f, int64_t groups,
                       bool nhwc, const Int8Quantization &q) {
  HostTensor xin = nhwc ? permute(x, {0, 2, 3, 1}) : x;
  HostTensor fin = nhwc ? permute(f, {2, 3, 1, 0}) : f;
  const int64_t N = x.dim(0), H = x.dim(2), W = x.dim(3), O = f.dim(0);
  Conv2DDesc d{DType::F32};
  d.nhwc = nhwc;
  d.groups = groups;
  d.inputShape = xin.shape();
  d.filterShape = fin.shape();
  d.resultShape = nhwc ? Shape{N, H, W, O} : Shape{N, O, H, W};
  for (int64_t &p : d.padding)
    p = 1;
  d.constantFilter = &fin;
  d.int8 = q;
  auto kernel = createConv2D(d);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok())
    return *HostTensor::allocate(DType::F32, {N, O, H, W});
  HostTensor got = runOne(*kernel, {xin, fin}, d.resultShape);
  return nhwc ? permute(got, {0, 3, 1, 2}) : got;
}

TEST(Int8, MatmulMatchesTheReferenceInt8Implementation) {
  const int64_t M = 6, K = 80, N = 20;
  for (int scheme : {0, 1, 2}) // u8, s8, u8 with a zero point
    for (bool transposeB : {false, true})
      for (bool withBias : {true, false}) {
        bool unsignedInput = scheme != 1;
        SCOPED_TRACE(std::string(scheme == 0   ? "u8"
                                 : scheme == 1 ? "s8"
                                               : "u8 with a zero point") +
                     (transposeB ? " transposed rhs" : "") +
                     (withBias ? " bias" : ""));
        HostTensor a = randomF32({M, K}, 1, scheme == 0 ? 0.0f : -1.0f, 1.0f);
        HostTensor b =
            randomF32(transposeB ? Shape{N, K} : Shape{K, N}, 2, -0.5f, 0.5f);
        HostTensor bias = randomF32({N}, 3, -1, 1);
        if (!withBias)
          bias = randomF32({N}, 3, 0, 0);
        Int8Quantization q{scheme == 0 ? 1.0f / 255 : 1.0f / 127,
                           unsignedInput};
        if (scheme == 2) { // [-1, 1] over all 256 levels
          q.inputScale = 2.0f / 255;
          q.zeroPoint = 128;
        }
        ReferenceWeights ws = referenceWeights(
            b, N, unsignedInput,
            [&](int64_t i) { return transposeB ? i / K : i % N; },
            [&](int64_t i) {
              return transposeB ? std::pair(i % K, int64_t{1})
                                : std::pair(i / N, N);
            },
            K);
        HostTensor want = *HostTensor::allocate(DType::F32, {M, N});
        HostTensor exact = *HostTensor::allocate(DType::F32, {M, N});
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            int64_t acc = 0;
            double f = 0;
            for (int64_t k = 0; k < K; ++k) {
              int64_t bi = transposeB ? j * K + k : k * N + j;
              float av = static_cast<float>(a.getDouble(i * K + k));
              float bv = static_cast<float>(b.getDouble(bi));
              acc += int64_t{quantizeInput(av, q)} * ws.quantize(bv, j);
              f += double{av} * bv;
            }
            double y = static_cast<double>(acc) * q.inputScale * ws.scale(j) +
                       bias.getDouble(j);
            want.setDouble(i * N + j, std::max(y, 0.0));
            exact.setDouble(i * N + j, std::max(f + bias.getDouble(j), 0.0));
          }
        MatmulDesc d{DType::F32, a.shape(), b.shape(), {M, N}};
        d.transposeB = transposeB;
        if (withBias)
          d.biasShape = Shape{N};
        d.postOps = {PostOp{}}; // relu
        d.constantRhs = &b;
        d.int8 = q;
        auto kernel = createMatmul(d);
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        // With AVX2 (no AVX-512) an int8 matmul of u8 inputs by constant
        // weights runs as a 1x1 convolution (tryPointwiseConvMatmul; an s8
        // one would lose a bit of its weights there without VNNI).
        bool convolution =
            !cpuIsa().avx512 && (q.unsignedInput || cpuIsa().vnni);
        EXPECT_EQ((*kernel)->name(), std::string("onednn.matmul[int8]") +
                                         (convolution ? "[1x1 conv]" : ""));
        std::vector<HostTensor> in = {a, b};
        if (withBias)
          in.push_back(bias);
        expectQuantized(runOne(*kernel, in, {M, N}), want, exact,
                        unsignedInput);
      }
}

// A constant bias (MatmulDesc / Conv2DDesc::constantBias) is divided by the
// output scales once, when the kernel is made: the results are bitwise
// those of the per-run conversion, the bias input is no longer read when
// the kernel runs (another tensor there changes nothing), and it is still
// one a saved plan keeps (readsInput: the remade kernel scales it again).
TEST(Int8, ConstantBiasIsScaledOnce) {
  const int64_t M = 5, K = 32, N = 12;
  HostTensor a = randomF32({M, K}, 7, 0.0f, 1.0f);
  HostTensor b = randomF32({K, N}, 8, -0.5f, 0.5f);
  HostTensor bias = randomF32({N}, 9, -1, 1);
  HostTensor other = randomF32({N}, 10, -1, 1);
  Int8Quantization q{1.0f / 255, true};
  MatmulDesc d{DType::F32, a.shape(), b.shape(), {M, N}};
  d.biasShape = Shape{N};
  d.constantRhs = &b;
  d.int8 = q;
  auto perRun = createMatmul(d);
  ASSERT_TRUE(perRun.ok()) << perRun.status();
  d.constantBias = &bias;
  auto once = createMatmul(d);
  ASSERT_TRUE(once.ok()) << once.status();
  HostTensor want = runOne(*perRun, {a, b, bias}, {M, N});
  HostTensor got = runOne(*once, {a, b, bias}, {M, N});
  EXPECT_EQ(std::memcmp(want.data(), got.data(), want.byteSize()), 0);
  HostTensor ignored = runOne(*once, {a, b, other}, {M, N});
  EXPECT_EQ(std::memcmp(want.data(), ignored.data(), want.byteSize()), 0);
  EXPECT_TRUE((*once)->readsInput(2));
  // The per-run kernel does read it.
  HostTensor changed = runOne(*perRun, {a, b, other}, {M, N});
  EXPECT_NE(std::memcmp(want.data(), changed.data(), want.byteSize()), 0);

  // A convolution the same way.
  const int64_t C = 8, H = 5, W = 5, O = 16;
  HostTensor x = randomF32({1, H, W, C}, 11, 0.0f, 2.0f);
  HostTensor f = randomF32({3, 3, C, O}, 12, -0.3f, 0.3f);
  HostTensor cbias = randomF32({O}, 13, -1, 1);
  HostTensor cother = randomF32({O}, 14, -1, 1);
  Conv2DDesc c{DType::F32};
  c.nhwc = true;
  c.inputShape = x.shape();
  c.filterShape = f.shape();
  c.resultShape = {1, H, W, O};
  for (int64_t &p : c.padding)
    p = 1;
  c.biasShape = Shape{O};
  c.constantFilter = &f;
  c.int8 = Int8Quantization{2.0f / 255, true};
  auto convPerRun = createConv2D(c);
  ASSERT_TRUE(convPerRun.ok()) << convPerRun.status();
  c.constantBias = &cbias;
  auto convOnce = createConv2D(c);
  ASSERT_TRUE(convOnce.ok()) << convOnce.status();
  HostTensor cwant = runOne(*convPerRun, {x, f, cbias}, c.resultShape);
  HostTensor cgot = runOne(*convOnce, {x, f, cother}, c.resultShape);
  EXPECT_EQ(std::memcmp(cwant.data(), cgot.data(), cwant.byteSize()), 0);
  EXPECT_TRUE((*convOnce)->readsInput(2));
}

class Int8Conv : public ::testing::TestWithParam<int32_t> {};

TEST_P(Int8Conv, MatchesTheReferenceInt8ImplementationInBothLayouts) {
  // Zero point 0: the input after a ReLU, [0, 2]; 40: [-0.31, 1.69].
  const int64_t C = 16, H = 7, W = 7, O = 24, KH = 3, KW = 3;
  Int8Quantization q{2.0f / 255, true};
  q.zeroPoint = GetParam();
  float lo = -q.inputScale * static_cast<float>(q.zeroPoint);
  HostTensor x = randomF32({1, C, H, W}, 4, lo, lo + 2.0f);
  HostTensor f = randomF32({O, C, KH, KW}, 5, -0.3f, 0.3f);
  HostTensor bias = randomF32({O}, 6, -1, 1);
  // NCHW reference, padding 1.
  HostTensor want =
      int8ConvReference(x, f, 1, q, oihwReferenceWeights(f, true), &bias);
  HostTensor sums = convolveNaive(
      x, f, 1, 1, [](double xv, double fv, int64_t) { return xv * fv; },
      DType::F64);
  HostTensor exact = *HostTensor::allocate(DType::F32, sums.shape());
  for (int64_t i = 0; i < exact.numElements(); ++i)
    exact.setDouble(i, sums.getDouble(i) + bias.getDouble(i / (H * W)));
  // NCHW, NHWC with an HWIO filter, NHWC with the OIHW filter as it is
  // (Conv2DDesc::filterOIHW: HWIO-shaped, OIHW-ordered).
  for (int layout : {0, 1, 2}) {
    bool nhwc = layout > 0, oihw = layout == 2;
    SCOPED_TRACE(!nhwc ? "nchw" : oihw ? "nhwc, oihw filter" : "nhwc");
    HostTensor xin = nhwc ? permute(x, {0, 2, 3, 1}) : x;
    HostTensor fin = nhwc && !oihw ? permute(f, {2, 3, 1, 0}) : f;
    if (oihw)
      fin = *HostTensor::borrow(DType::F32, {KH, KW, C, O}, f.data());
    Conv2DDesc d{DType::F32};
    d.nhwc = nhwc;
    d.filterOIHW = oihw;
    d.inputShape = xin.shape();
    d.filterShape = fin.shape();
    d.resultShape = nhwc ? Shape{1, H, W, O} : Shape{1, O, H, W};
    for (int64_t &p : d.padding)
      p = 1;
    d.biasShape = Shape{O};
    d.constantFilter = &fin;
    d.int8 = q;
    auto kernel = createConv2D(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ((*kernel)->name(), "onednn.conv2d[int8]");
    HostTensor got = runOne(*kernel, {xin, fin, bias}, d.resultShape);
    expectQuantized(got, nhwc ? permute(want, {0, 2, 3, 1}) : want,
                    nhwc ? permute(exact, {0, 2, 3, 1}) : exact);
  }
}
INSTANTIATE_TEST_SUITE_P(ZeroPoints, Int8Conv, ::testing::Values(0, 40));

TEST(Int8, ResidualAddsSumIntoTheResultInPlaceOrNot) {
  // conv 1x1 (int8) + bias + residual + relu: the residual becomes a sum
  // post-op over the result; the kernel runs in place over the residual
  // (the memory plan's choice) or copies it into a separate result first.
  const int64_t C = 32, H = 5, W = 5, O = 48;
  HostTensor x = randomF32({1, H, W, C}, 21, 0.0f, 1.0f);
  HostTensor f = randomF32({1, 1, C, O}, 22, -0.3f, 0.3f);
  HostTensor bias = randomF32({O}, 23, -1, 1);
  HostTensor residual = randomF32({1, H, W, O}, 24, -2, 2);
  PostOp add, relu;
  add.kind = PostOp::Kind::Add;
  add.operandShape = {1, H, W, O};
  Conv2DDesc d{DType::F32};
  d.nhwc = true;
  d.inputShape = x.shape();
  d.filterShape = f.shape();
  d.resultShape = {1, H, W, O};
  d.biasShape = Shape{O};
  d.postOps = {add, relu};
  d.constantFilter = &f;
  d.int8 = Int8Quantization{1.0f / 255, true};
  auto kernel = createConv2D(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  // The residual (input 3) may share the result's buffer.
  EXPECT_TRUE((*kernel)->canRunInPlace(3));
  EXPECT_TRUE((*kernel)->readsInput(3));
  // Reference: int8 product, dequantized, + bias + residual, relu.
  ReferenceWeights ws = referenceWeights(
      f, O, true, [&](int64_t i) { return i % O; },
      [&](int64_t i) { return std::pair(i / O, O); }, C);
  HostTensor want = *HostTensor::allocate(DType::F32, {1, H, W, O});
  HostTensor exact = *HostTensor::allocate(DType::F32, {1, H, W, O});
  for (int64_t p = 0; p < H * W; ++p)
    for (int64_t o = 0; o < O; ++o) {
      int64_t acc = 0;
      double e = 0;
      for (int64_t c = 0; c < C; ++c) {
        float xv = static_cast<float>(x.getDouble(p * C + c));
        float fv = static_cast<float>(f.getDouble(c * O + o));
        acc += int64_t{quantizeInput(xv, *d.int8)} * ws.quantize(fv, o);
        e += double{xv} * fv;
      }
      double extra = bias.getDouble(o) + residual.getDouble(p * O + o);
      want.setDouble(p * O + o,
                     std::max(0.0, static_cast<double>(acc) *
                                           d.int8->inputScale * ws.scale(o) +
                                       extra));
      exact.setDouble(p * O + o, std::max(0.0, e + extra));
    }
  // A separate result: the residual is copied in first, and left as it was.
  HostTensor before = residual.clone();
  HostTensor separate = runOne(*kernel, {x, f, bias, residual}, d.resultShape);
  expectQuantized(separate, want, exact);
  EXPECT_EQ(std::memcmp(before.data(), residual.data(), residual.byteSize()),
            0);
  // In place: the result written over the residual.
  std::vector<HostTensor> out = {
      *HostTensor::borrow(DType::F32, d.resultShape, residual.data())};
  KernelContext context;
  context.numThreads = 2;
  ASSERT_TRUE((*kernel)->run(context, {x, f, bias, residual}, out).ok());
  EXPECT_EQ(std::memcmp(residual.data(), separate.data(), separate.byteSize()),
            0);
}

TEST(Int8, QuantizedResidualSumsIntoAQuantizedResult) {
  // An int8 chain through a shortcut (Conv2DDesc::sumQuantization): the
  // residual arrives as u8 with a zero point (a projection branch's bytes),
  // the result leaves as u8 for the next int8 layer; the sum post-op reads
  // the residual in the 8-bit destination, in place or copied first.
  const int64_t C = 32, H = 5, W = 5, O = 48;
  HostTensor x = randomF32({1, H, W, C}, 31, 0.0f, 1.0f);
  HostTensor f = randomF32({1, 1, C, O}, 32, -0.3f, 0.3f);
  HostTensor bias = randomF32({O}, 33, -1, 1);
  HostTensor real = randomF32({1, H, W, O}, 34, -2, 2);
  Int8Quantization r{4.0f / 255, true, 128};
  Int8Quantization y{3.0f / 255, true, 0};
  // The residual's bytes, and the values they stand for.
  HostTensor bytes = *HostTensor::allocate(DType::UI8, {1, H, W, O});
  std::vector<double> residual(static_cast<size_t>(H * W * O));
  for (int64_t i = 0; i < H * W * O; ++i) {
    int32_t q = quantizeInput(static_cast<float>(real.getDouble(i)), r);
    bytes.setInt(i, q + r.zeroPoint);
    residual[static_cast<size_t>(i)] = double{r.inputScale} * q;
  }
  PostOp add, relu;
  add.kind = PostOp::Kind::Add;
  add.operandShape = {1, H, W, O};
  Conv2DDesc d{DType::F32};
  d.nhwc = true;
  d.inputShape = x.shape();
  d.filterShape = f.shape();
  d.resultShape = {1, H, W, O};
  d.biasShape = Shape{O};
  d.postOps = {add, relu};
  d.constantFilter = &f;
  d.int8 = Int8Quantization{1.0f / 255, true};
  d.int8Output = y;
  d.sumQuantization = r;
  auto kernel = createConv2D(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_TRUE((*kernel)->canRunInPlace(3));
  // Reference: the int8 product dequantized, + bias + residual, relu,
  // quantized to u8 with y's scale.
  ReferenceWeights ws = referenceWeights(
      f, O, true, [&](int64_t i) { return i % O; },
      [&](int64_t i) { return std::pair(i / O, O); }, C);
  std::vector<double> want(static_cast<size_t>(H * W * O));
  for (int64_t p = 0; p < H * W; ++p)
    for (int64_t o = 0; o < O; ++o) {
      int64_t acc = 0;
      for (int64_t c = 0; c < C; ++c)
        acc += int64_t{quantizeInput(static_cast<float>(x.getDouble(p * C + c)),
                                     *d.int8)} *
               ws.quantize(static_cast<float>(f.getDouble(c * O + o)), o);
      double v = static_cast<double>(acc) * d.int8->inputScale * ws.scale(o) +
                 bias.getDouble(o) + residual[static_cast<size_t>(p * O + o)];
      want[static_cast<size_t>(p * O + o)] = std::clamp(
          std::nearbyint(std::max(0.0, v) / y.inputScale), 0.0, 255.0);
    }
  auto check = [&](const void *result, const char *how) {
    const auto *got = static_cast<const uint8_t *>(result);
    int worst = 0;
    for (int64_t i = 0; i < H * W * O; ++i)
      worst = std::max(
          worst, std::abs(int{got[i]} -
                          static_cast<int>(want[static_cast<size_t>(i)])));
    // One level of rounding.
    EXPECT_LE(worst, 1) << how << " on " << cpuIsa().name;
  };
  HostTensor before = bytes.clone();
  HostTensor separate = runOne(*kernel, {x, f, bias, bytes}, d.resultShape);
  check(separate.data(), "separate");
  EXPECT_EQ(std::memcmp(before.data(), bytes.data(), bytes.byteSize()), 0);
  // In place over the residual's bytes (a u8 buffer under an f32 view, as
  // the plan's arena holds it).
  HostTensor arena = *HostTensor::allocate(DType::F32, d.resultShape);
  std::memcpy(arena.data(), bytes.data(), bytes.byteSize());
  std::vector<HostTensor> out = {arena};
  KernelContext context;
  context.numThreads = 2;
  ASSERT_TRUE((*kernel)->run(context, {x, f, bias, arena}, out).ok());
  check(arena.data(), "in place");
  EXPECT_EQ(std::memcmp(arena.data(), separate.data(), bytes.byteSize()), 0);
  // Without a quantized result there is no 8-bit destination to sum into.
  Conv2DDesc noOutput = d;
  noOutput.int8Output.reset();
  EXPECT_EQ(createConv2D(noOutput).status().code(),
            absl::StatusCode::kUnimplemented);
}

// Without VNNI, oneDNN's int8 kernels add the u8 x s8 products of
// reduction indices 2m and 2m + 1 in 16 bits with saturation (vpmaddubsw),
// so the weights' integers keep |q_2m| + |q_2m+1| <= 128 there
// (int8WeightRule). Inputs at the top of u8 (255) by weights whose large
// integers meet only across those pairs (126, 1, 1, 126, ...: 252 x 255
// under any other pairing) must give the integer reference exactly, in a
// matmul and in convolutions with 3 and 8 input channels, both layouts
// (DNNL_MAX_CPU_ISA=AVX2 and AVX512_CORE runs check the pairing; with VNNI
// every product is added in 32 bits).
TEST(Int8, PairsOfLargeWeightsDoNotSaturate) {
  auto weightAt = [](int64_t k, int64_t extent, int64_t channel) {
    // ~127, ~1, ~1, ~127, ... along k, the last one alone for an odd
    // extent; off any int8 grid (Quantize tests cover weights on one).
    static const float kPattern[4] = {126.7f, 1.2f, 1.3f, 126.6f};
    float v = k == extent - 1 && extent % 2 == 1 ? 126.5f : kPattern[k % 4];
    return (channel % 2 ? -v : v) / 127.0f * (1.0f + 0.01f * channel);
  };
  Int8Quantization q{1.0f / 255, true}; // 1.0 -> 255

  {
    const int64_t M = 4, K = 64, N = 16;
    HostTensor a = randomF32({M, K}, 41, 0.0f, 1.0f);
    for (int64_t k = 0; k < K; ++k) // row 0 at the top of u8
      a.setDouble(k, 1.0);
    HostTensor b = *HostTensor::allocate(DType::F32, {K, N});
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        b.setDouble(k * N + n, weightAt(k, K, n));
    ReferenceWeights ws = referenceWeights(
        b, N, true, [&](int64_t i) { return i % N; },
        [&](int64_t i) { return std::pair(i / N, N); }, K);
    HostTensor want = *HostTensor::allocate(DType::F32, {M, N});
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += int64_t{quantizeInput(
                     static_cast<float>(a.getDouble(i * K + k)), q)} *
                 ws.quantize(static_cast<float>(b.getDouble(k * N + j)), j);
        want.setDouble(i * N + j,
                       static_cast<double>(acc) * q.inputScale * ws.scale(j));
      }
    MatmulDesc d{DType::F32, a.shape(), b.shape(), {M, N}};
    d.constantRhs = &b;
    d.int8 = q;
    auto kernel = createMatmul(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    SCOPED_TRACE("matmul");
    expectExact(runOne(*kernel, {a, b}, {M, N}), want);
  }

  for (int64_t C : {3, 8})
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << C << " channels, " << (nhwc ? "nhwc" : "nchw"));
      const int64_t H = 5, W = 5, O = 8, KH = 3, KW = 3;
      HostTensor x = *HostTensor::allocate(DType::F32, {1, C, H, W});
      for (int64_t i = 0; i < x.numElements(); ++i)
        x.setDouble(i, 1.0);
      HostTensor f = *HostTensor::allocate(DType::F32, {O, C, KH, KW});
      for (int64_t i = 0; i < f.numElements(); ++i)
        f.setDouble(i, weightAt((i / (KH * KW)) % C, C, i / (C * KH * KW)));
      expectExact(runInt8Conv(x, f, 1, nhwc, q),
                  int8ConvReference(x, f, 1, q, oihwReferenceWeights(f, true)));
    }
}

// Depthwise (one input channel per group: no pairs along the reduction)
// and grouped (2 per group) convolutions with every weight near the top of
// int8 and inputs at the top of u8: whichever products a kernel without
// VNNI adds in 16 bits, none saturate.
TEST(Int8, GroupedConvolutionsDoNotSaturate) {
  const int64_t C = 16, H = 6, W = 6, KH = 3, KW = 3;
  Int8Quantization q{1.0f / 255, true};
  for (int64_t perGroup : {1, 2})
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE(::testing::Message() << perGroup << " channels a group, "
                                        << (nhwc ? "nhwc" : "nchw"));
      const int64_t groups = C / perGroup, O = C;
      HostTensor x = randomF32({1, C, H, W}, 51, 0.5f, 1.0f);
      for (int64_t i = 0; i < H * W; ++i) // channel 0 at the top of u8
        x.setDouble(i, 1.0);
      HostTensor f = *HostTensor::allocate(DType::F32, {O, perGroup, KH, KW});
      // With 2 channels a group, the first large and the second small at
      // every tap: large pairs only where a kernel pairs taps.
      const int64_t taps = KH * KW;
      for (int64_t i = 0; i < f.numElements(); ++i)
        f.setDouble(i, ((i / taps) % perGroup == 0 ? 126.3 : 1.1) / 127.0 +
                           0.001 * static_cast<double>(i % 7));
      expectExact(
          runInt8Conv(x, f, groups, nhwc, q),
          int8ConvReference(x, f, groups, q, oihwReferenceWeights(f, true)));
    }
}

TEST(Int8, MisuseIsAnErrorNamingIt) {
  HostTensor b = randomF32({8, 4}, 7, -1, 1);
  MatmulDesc d{DType::F32, {2, 8}, {8, 4}, {2, 4}};
  d.int8 = Int8Quantization{0.1f, false};
  // Run-time weights: not int8 here (the compiler keeps such a matmul f32).
  auto runtimeWeights = createMatmul(d);
  EXPECT_EQ(runtimeWeights.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(runtimeWeights.status().message().find("needs constant weights"),
            std::string::npos);
  d.constantRhs = &b;
  d.int8->inputScale = 0;
  auto zero = createMatmul(d);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(zero.status().message().find("positive and finite"),
            std::string::npos);
  d.int8->inputScale = 0.1f;
  // A zero point only with u8 input, in [0, 255].
  d.int8->zeroPoint = 3;
  auto signedZeroPoint = createMatmul(d);
  EXPECT_EQ(signedZeroPoint.status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_NE(signedZeroPoint.status().message().find("zero point"),
            std::string::npos);
  d.int8->unsignedInput = true;
  d.int8->zeroPoint = 300;
  EXPECT_EQ(createMatmul(d).status().code(),
            absl::StatusCode::kInvalidArgument);
  d.int8->zeroPoint = 0;
  // A quantized result: only of an int8 contraction, with a usable scale.
  d.int8Output = Int8Quantization{0.0f, true};
  auto badOutput = createMatmul(d);
  EXPECT_NE(badOutput.status().message().find(
                "quantized matmul result's scale must be positive"),
            std::string::npos)
      << badOutput.status();
  d.int8Output->inputScale = 0.1f;
  std::optional<Int8Quantization> int8 = d.int8;
  d.int8.reset();
  auto notInt8 = createMatmul(d);
  EXPECT_NE(notInt8.status().message().find(
                "writes a quantized result only as an int8 matmul"),
            std::string::npos)
      << notInt8.status();
  d.int8 = int8;
  d.int8Output.reset();
  d.bf16 = true;
  auto both = createMatmul(d);
  EXPECT_FALSE(both.ok());
  // Blocked layouts: plain kernels only.
  Conv2DDesc c{DType::F32};
  c.nhwc = true;
  c.inputShape = {1, 4, 4, 16};
  c.filterShape = {1, 1, 16, 16};
  c.resultShape = {1, 4, 4, 16};
  HostTensor filter = randomF32(c.filterShape, 8, -1, 1);
  c.constantFilter = &filter;
  c.int8 = Int8Quantization{0.1f, true};
  ConvLayouts layouts;
  layouts.anyInput = true;
  auto blocked = createLayoutConv2D(c, layouts);
  EXPECT_EQ(blocked.status().code(), absl::StatusCode::kUnimplemented);
}

} // namespace
