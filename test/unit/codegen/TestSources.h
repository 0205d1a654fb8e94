//===- TestSources.h - MLIR text for the codegen tests ----------*- C++ -*-===//

#ifndef TGC_TEST_UNIT_CODEGEN_TESTSOURCES_H
#define TGC_TEST_UNIT_CODEGEN_TESTSOURCES_H

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace tgc::testing {

/// A dense<"0x..."> literal of `count` f32 values in [-0.5, 0.5) from
/// `seed`.
inline std::string denseF32(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::string hex = "dense<\"0x";
  static const char *digits = "0123456789ABCDEF";
  for (int64_t i = 0; i < count; ++i) {
    float v = dist(rng);
    unsigned char bytes[4];
    std::memcpy(bytes, &v, 4);
    for (unsigned char byte : bytes) {
      hex += digits[byte >> 4];
      hex += digits[byte & 15];
    }
  }
  return hex + "\">";
}

} // namespace tgc::testing

#endif // TGC_TEST_UNIT_CODEGEN_TESTSOURCES_H
