//===- Quantize.h - symmetric per-channel weight quantization ---*- C++ -*-===//
//
// The one int8 weight quantizer: the CPU's int8 kernels (runtime/cpu,
// 127 or 63 levels: Kernels.h, int8WeightLevels) and the CUDA backend's
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
/// With 127 levels, weights that already lie on an int8 grid (a QDQ
/// model's dequantized weights: q * s with q in [-128, 127]) keep it, so
/// the kernel multiplies by the model's own integers: one scale for the
/// whole tensor when every weight is a multiple of max |w| / 127 or / 128
/// (per-tensor quantization, where most channels do not reach 127), else
/// per channel where a channel's weights are multiples of its max / 127 or
/// / 128. Off the grid by more than a thousandth of a step, the scales are
/// as above; on it, the result is at least as exact.
template <typename ChannelOf>
std::vector<float> quantizePerChannel(const float *w, int64_t n,
                                      int64_t channels, int levels,
                                      ChannelOf channelOf, int8_t *out) {
  std::vector<float> maxima(static_cast<size_t>(channels), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    float &m = maxima[static_cast<size_t>(channelOf(i))];
    m = std::max(m, std::abs(w[i]));
  }
  const float top = static_cast<float>(levels);
  std::vector<float> scales(maxima.size());
  for (size_t c = 0; c < maxima.size(); ++c)
    scales[c] = maxima[c] > 0 ? maxima[c] / top : 1.0f;
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
    for (size_t c = 0; c < maxima.size(); ++c) {
      const Grids &grids = tensor.any() ? tensor : channel[c];
      if ((exact[c] = grids.any()))
        scales[c] = grids.chosen();
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

} // namespace tgc::runtime

#endif // TGC_RUNTIME_QUANTIZE_H
