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
  // Channels whose integers are the grid's (and may reach -128): one pass
  // checks the tensor's two candidate grids and each channel's two.
  std::vector<bool> exact(maxima.size(), false);
  if (levels == 127 && n > 0) {
    const float largest = *std::max_element(maxima.begin(), maxima.end());
    bool tensor127 = largest > 0, tensor128 = largest > 0;
    std::vector<char> channel127(maxima.size(), 1),
        channel128(maxima.size(), 1);
    // Weights off every grid (most float weights) fail at their first
    // elements: the rest of the pass only looks up their channel.
    for (int64_t i = 0; i < n; ++i) {
      size_t c = static_cast<size_t>(channelOf(i));
      if (!tensor127 && !tensor128 && !channel127[c] && !channel128[c])
        continue;
      float m = maxima[c];
      tensor127 = tensor127 && detail::onGrid(w[i], largest / 127.0f);
      tensor128 = tensor128 && detail::onGrid(w[i], largest / 128.0f);
      channel127[c] =
          channel127[c] && m > 0 && detail::onGrid(w[i], m / 127.0f);
      channel128[c] =
          channel128[c] && m > 0 && detail::onGrid(w[i], m / 128.0f);
    }
    for (size_t c = 0; c < maxima.size(); ++c) {
      if (tensor127 || tensor128)
        scales[c] = largest / (tensor127 ? 127.0f : 128.0f);
      else if (channel127[c] || channel128[c])
        scales[c] = maxima[c] / (channel127[c] ? 127.0f : 128.0f);
      exact[c] = tensor127 || tensor128 || channel127[c] || channel128[c];
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
