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

/// Quantizes the `n` weights `w` symmetrically per output channel to
/// [-levels, levels]: scale[c] = max |w| over channel c / levels (1 for an
/// all-zero channel), out[i] = round(w[i] / scale[channelOf(i)]) (to
/// nearest even, saturated). Returns the scales. The weights must be
/// finite.
template <typename ChannelOf>
std::vector<float> quantizePerChannel(const float *w, int64_t n,
                                      int64_t channels, int levels,
                                      ChannelOf channelOf, int8_t *out) {
  std::vector<float> scales(static_cast<size_t>(channels), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    float &m = scales[static_cast<size_t>(channelOf(i))];
    m = std::max(m, std::abs(w[i]));
  }
  const float top = static_cast<float>(levels);
  for (float &s : scales)
    s = s > 0 ? s / top : 1.0f;
  for (int64_t i = 0; i < n; ++i) {
    float v = std::nearbyint(w[i] / scales[static_cast<size_t>(channelOf(i))]);
    out[i] = static_cast<int8_t>(std::clamp(v, -top, top));
  }
  return scales;
}

} // namespace tgc::runtime

#endif // TGC_RUNTIME_QUANTIZE_H
