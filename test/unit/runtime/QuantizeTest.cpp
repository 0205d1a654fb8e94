//===- QuantizeTest.cpp - tests for runtime/Quantize.h --------------------===//

#include "runtime/Quantize.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace tgc::runtime;

namespace {

/// Quantizes `w` as `channels` rows (channel = i / per-channel count).
std::vector<float> quantizeRows(const std::vector<float> &w, int64_t channels,
                                int levels, std::vector<int8_t> &q) {
  q.assign(w.size(), 0);
  int64_t per = static_cast<int64_t>(w.size()) / channels;
  return quantizePerChannel(
      w.data(), static_cast<int64_t>(w.size()), channels, levels,
      [&](int64_t i) { return i / per; }, q.data());
}

/// The same with the pairs of consecutive weights in a row (0-1, 2-3, ...;
/// an odd last one alone) limited to 128, as for kernels without VNNI.
std::vector<float> quantizeRowPairs(const std::vector<float> &w,
                                    int64_t channels, std::vector<int8_t> &q) {
  q.assign(w.size(), 0);
  int64_t per = static_cast<int64_t>(w.size()) / channels;
  return quantizePerChannel(
      w.data(), static_cast<int64_t>(w.size()), channels, 127,
      [&](int64_t i) { return i / per; }, q.data(), /*pairLimit=*/128,
      [&](int64_t i) -> int64_t {
        int64_t k = i % per;
        if (k % 2)
          return i - 1;
        return k + 1 < per ? i + 1 : -1;
      });
}

// Float weights: each channel's largest magnitude becomes 127.
TEST(Quantize, PerChannelMaxima) {
  std::vector<float> w = {0.51f, -1.0f, 0.253f, 0.1f, 0.2f, -0.3f};
  std::vector<int8_t> q;
  auto scales = quantizeRows(w, 2, 127, q);
  EXPECT_FLOAT_EQ(scales[0], 1.0f / 127);
  EXPECT_FLOAT_EQ(scales[1], 0.3f / 127);
  EXPECT_EQ(q, (std::vector<int8_t>{65, -127, 32, 42, 85, -127}));
  // 63 levels (without VNNI): the same, to [-63, 63].
  scales = quantizeRows(w, 2, 63, q);
  EXPECT_FLOAT_EQ(scales[0], 1.0f / 63);
  EXPECT_EQ(q[1], -63);
}

// A QDQ model's weights quantized per tensor (PyTorch's per_tensor_symmetric:
// integers in [-128, 127], most channels short of the largest): the kernel
// gets the model's own integers back, on the model's one scale, where
// requantizing each channel to 127 levels would move them.
TEST(Quantize, WeightsOnAPerTensorGridKeepTheirIntegers) {
  const float s = 0.0123f;
  std::vector<int> ints = {-128, 5, 17, 0, 40, -3, 90, -90, 1, 2, -2, 33};
  std::vector<float> w;
  for (int k : ints)
    w.push_back(static_cast<float>(k) * s);
  std::vector<int8_t> q;
  auto scales = quantizeRows(w, 3, 127, q);
  for (float scale : scales)
    EXPECT_FLOAT_EQ(scale, s);
  for (size_t i = 0; i < ints.size(); ++i)
    EXPECT_EQ(q[i], ints[i]) << i;
  // The largest magnitude positive: max / 127 is the grid.
  ints[0] = 127;
  w[0] = 127 * s;
  scales = quantizeRows(w, 3, 127, q);
  EXPECT_FLOAT_EQ(scales[2], s);
  EXPECT_EQ(q[0], 127);
  EXPECT_EQ(q[6], 90);
  // Without VNNI (63 levels) weights are requantized to 7 bits anyway.
  scales = quantizeRows(w, 3, 63, q);
  EXPECT_FLOAT_EQ(scales[0], 127 * s / 63);
}

// Per-channel grids (ORT's per-channel QDQ weights, some reaching -128):
// each channel keeps its integers; a channel off its grid is requantized
// by its maximum.
TEST(Quantize, WeightsOnPerChannelGridsKeepTheirIntegers) {
  std::vector<float> w = {-128 * 0.01f, 64 * 0.01f, 3 * 0.01f,  // grid /128
                          127 * 0.5f,   -7 * 0.5f,  100 * 0.5f, // grid /127
                          0.3f,         -0.17f,     0.011f};    // no grid
  std::vector<int8_t> q;
  auto scales = quantizeRows(w, 3, 127, q);
  EXPECT_FLOAT_EQ(scales[0], 0.01f);
  EXPECT_FLOAT_EQ(scales[1], 0.5f);
  EXPECT_FLOAT_EQ(scales[2], 0.3f / 127);
  EXPECT_EQ(q, (std::vector<int8_t>{-128, 64, 3, 127, -7, 100, 127, -72, 5}));
}

// Pairs limited to 128 (u8 x s8 products summed in 16 bits): each
// channel's scale is its largest pair sum P / 127 (a pair with the largest
// weight included, so 127 levels where that one's partner is 0, nearly
// where it is small; never coarser than 63 levels), and no pair of
// integers exceeds 128.
TEST(Quantize, PairsOfWeightsStayWithinTheLimit) {
  std::vector<float> w = {1.0f,  0.01f, -0.02f, 0.9f,   // 1.01 in pair 0
                          1.0f,  -0.6f, 0.2f,   0.1f,   // 1.6 in pair 0
                          -1.0f, -1.0f, 0.5f,   -0.5f,  // 2.0: 7 bits
                          0.3f,  0.2f,  0.1f,   0.05f}; // 0.5 in pair 0
  std::vector<int8_t> q;
  auto scales = quantizeRowPairs(w, 4, q);
  EXPECT_FLOAT_EQ(scales[0], 1.01f / 127);
  EXPECT_FLOAT_EQ(scales[1], 1.6f / 127);
  EXPECT_FLOAT_EQ(scales[2], 2.0f / 127);
  EXPECT_FLOAT_EQ(scales[3], 0.5f / 127);
  EXPECT_EQ(q, (std::vector<int8_t>{126, 1, -3, 113,   //
                                    79, -48, 16, 8,    //
                                    -64, -64, 32, -32, //
                                    76, 51, 25, 13}));
  for (size_t i = 0; i < q.size(); i += 2)
    EXPECT_LE(std::abs(q[i]) + std::abs(q[i + 1]), 128) << i;
  // An odd count: the last weight has no partner.
  std::vector<float> odd = {0.5f, 0.5f, 1.0f};
  scales = quantizeRowPairs(odd, 1, q);
  EXPECT_FLOAT_EQ(scales[0], 1.0f / 127);
  EXPECT_EQ(q, (std::vector<int8_t>{64, 64, 127}));
}

// A QDQ model's grid survives the pair limit where its integers obey it,
// per channel: a channel with a pair beyond 128 is requantized.
TEST(Quantize, GridsKeepTheirIntegersWhereThePairsAllow) {
  const float s = 0.01f;
  std::vector<int> ints = {127, 1,   -5, 60,  // pairs 128 and 65: kept
                           100, 100, 3,  -4}; // pair 200: requantized
  std::vector<float> w;
  for (int k : ints)
    w.push_back(static_cast<float>(k) * s);
  std::vector<int8_t> q;
  auto scales = quantizeRowPairs(w, 2, q);
  EXPECT_FLOAT_EQ(scales[0], s);
  EXPECT_EQ(std::vector<int8_t>(q.begin(), q.begin() + 4),
            (std::vector<int8_t>{127, 1, -5, 60}));
  EXPECT_FLOAT_EQ(scales[1], 2.0f / 127);
  EXPECT_EQ(std::vector<int8_t>(q.begin() + 4, q.end()),
            (std::vector<int8_t>{64, 64, 2, -3}));
}

// All zeros: scale 1, zeros.
TEST(Quantize, ZeroChannels) {
  std::vector<float> w(6, 0.0f);
  std::vector<int8_t> q;
  auto scales = quantizeRows(w, 2, 127, q);
  EXPECT_EQ(scales, (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(q, std::vector<int8_t>(6, 0));
}

} // namespace
