//===- Quantize.h - symmetric per-channel weight quantization ---*- C++ -*-===//
//
// The one int8 weight quantizer: the CPU's int8 kernels (runtime/cpu,
// 127 levels, pairs bounded without VNNI: Kernels.h, int8WeightRule) and
// the CUDA backend's
// tgc-cuda-quantize-contractions (127) quantize constant weights with it.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_QUANTIZE_H
#define TGC_RUNTIME_QUANTIZE_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tgc::runtime {

namespace detail {
/// Whether `v` is, within a thousandth of a step, an integer multiple of
/// `scale` in [-128, 127].
inline bool onGrid(float v, float scale) {
  double q = static_cast<double>(v) / scale;
  double r = std::nearbyint(q);
  return std::abs(q - r) <= 1e-3 && r >= -128 && r <= 127;
}
} // namespace detail

/// Quantizes the `n` weights `w` symmetrically per output channel to
/// [-levels, levels]: scale[c] = max |w| over channel c / levels (1 for an
/// all-zero channel), out[i] = round(w[i] / scale[channelOf(i)]) (to
/// nearest even, saturated). Returns the scales. The weights must be
/// finite.
///
/// With `pairLimit` > 0, the kernel adds the products of each weight and
/// its partner (partnerOf(i): the other's flat index, or -1 for none) in
/// 16 bits with saturation: x86 without VNNI multiplies u8 inputs by s8
/// weights with vpmaddubsw, which sums the products of reduction indices
/// 2m and 2m + 1. Each channel's scale is then also at least its largest
/// |w_i| + |w_partner| / (pairLimit - 1), so that |q_i| + |q_partner| <=
/// pairLimit after rounding (128: 255 x 128 fits in s16). That keeps 8-bit
/// weights wherever large weights do not meet in a pair, and is never
/// coarser than 7 bits (max |q| 63, what such kernels used to get).
///
/// With 127 levels, weights that already lie on an int8 grid (a QDQ
/// model's dequantized weights: q * s with q in [-128, 127]) keep it, so
/// the kernel multiplies by the model's own integers: one scale for the
/// whole tensor when every weight is a multiple of max |w| / 127 or / 128
/// (per-tensor quantization, where most channels do not reach 127), else
/// per channel where a channel's weights are multiples of its max / 127 or
/// / 128; a channel whose grid integers break the pair limit does not.
/// Off the grid by more than a thousandth of a step, the scales are as
/// above; on it, the result is at least as exact.
template <typename ChannelOf, typename PartnerOf>
std::vector<float> quantizePerChannel(const float *w, int64_t n,
                                      int64_t channels, int levels,
                                      ChannelOf channelOf, int8_t *out,
                                      int pairLimit, PartnerOf partnerOf) {
  std::vector<float> maxima(static_cast<size_t>(channels), 0.0f);
  // The largest |w_i| + |w_partner| of each channel (pairLimit > 0).
  std::vector<float> pairMaxima(pairLimit > 0 ? maxima.size() : 0, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    size_t c = static_cast<size_t>(channelOf(i));
    maxima[c] = std::max(maxima[c], std::abs(w[i]));
    if (pairLimit > 0)
      if (int64_t p = partnerOf(i); p > i && p < n)
        pairMaxima[c] =
            std::max(pairMaxima[c], std::abs(w[i]) + std::abs(w[p]));
  }
  const float top = static_cast<float>(levels);
  std::vector<float> scales(maxima.size());
  for (size_t c = 0; c < maxima.size(); ++c) {
    scales[c] = maxima[c] > 0 ? maxima[c] / top : 1.0f;
    if (pairLimit > 1 && maxima[c] > 0)
      scales[c] = std::max(scales[c],
                           pairMaxima[c] / static_cast<float>(pairLimit - 1));
  }
  // Channels whose integers are the grid's (and may reach -128). The
  // candidate grids are max / 127 and max / 128 of the tensor and of each
  // channel; one pass keeps those every weight lies on. Weights off every
  // grid (most float weights) fail at their first elements: the rest of
  // the pass only looks up their channel.
  std::vector<bool> exact(maxima.size(), false);
  if (levels == 127 && n > 0) {
    constexpr float kDivisors[2] = {127.0f, 128.0f};
    struct Grids {
      float scale[2];
      bool on[2];
      bool any() const { return on[0] || on[1]; }
      float chosen() const { return on[0] ? scale[0] : scale[1]; }
    };
    auto gridsOf = [&](float max) {
      return Grids{{max / kDivisors[0], max / kDivisors[1]},
                   {max > 0, max > 0}};
    };
    Grids tensor = gridsOf(*std::max_element(maxima.begin(), maxima.end()));
    std::vector<Grids> channel;
    for (float m : maxima)
      channel.push_back(gridsOf(m));
    for (int64_t i = 0; i < n; ++i) {
      Grids &own = channel[static_cast<size_t>(channelOf(i))];
      for (Grids *g : {&tensor, &own})
        for (int d = 0; d < 2; ++d)
          g->on[d] = g->on[d] && detail::onGrid(w[i], g->scale[d]);
    }
    std::vector<float> offGrid = scales;
    for (size_t c = 0; c < maxima.size(); ++c) {
      const Grids &grids = tensor.any() ? tensor : channel[c];
      if ((exact[c] = grids.any()))
        scales[c] = grids.chosen();
    }
    // A pair whose grid integers the kernel would saturate takes its
    // channel off the grid.
    if (pairLimit > 0)
      for (int64_t i = 0; i < n; ++i) {
        size_t c = static_cast<size_t>(channelOf(i));
        int64_t p = partnerOf(i);
        if (!exact[c] || p <= i || p >= n)
          continue;
        if (std::abs(std::nearbyint(w[i] / scales[c])) +
                std::abs(std::nearbyint(w[p] / scales[c])) >
            static_cast<float>(pairLimit)) {
          exact[c] = false;
          scales[c] = offGrid[c];
        }
      }
  }
  for (int64_t i = 0; i < n; ++i) {
    size_t c = static_cast<size_t>(channelOf(i));
    float v = std::nearbyint(w[i] / scales[c]);
    out[i] = static_cast<int8_t>(
        std::clamp(v, exact[c] ? -128.0f : -top, exact[c] ? 127.0f : top));
  }
  return scales;
}

/// Without pairs: every weight on its own (VNNI, 32-bit products, the
/// GPU's int8 kernels).
template <typename ChannelOf>
std::vector<float> quantizePerChannel(const float *w, int64_t n,
                                      int64_t channels, int levels,
                                      ChannelOf channelOf, int8_t *out) {
  return quantizePerChannel(w, n, channels, levels, channelOf, out,
                            /*pairLimit=*/0,
                            [](int64_t) { return int64_t{-1}; });
}

} // namespace tgc::runtime

#endif // TGC_RUNTIME_QUANTIZE_H
