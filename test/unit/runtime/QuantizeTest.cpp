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

// All zeros: scale 1, zeros.
TEST(Quantize, ZeroChannels) {
  std::vector<float> w(6, 0.0f);
  std::vector<int8_t> q;
  auto scales = quantizeRows(w, 2, 127, q);
  EXPECT_EQ(scales, (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(q, std::vector<int8_t>(6, 0));
}

} // namespace
