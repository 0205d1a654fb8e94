//===- Float16.h - IEEE half and bfloat16 conversions -----------*- C++ -*-===//
//
// Header-only conversions between double/float and the 16-bit float formats
// (IEEE binary16 "half" and bfloat16). Narrowing conversions round to nearest,
// ties to even, exactly once (doubleToHalf does not go through float). Values
// too large overflow to infinity, tiny values become subnormals or signed
// zero, and NaNs stay NaN (quieted, keeping the sign and top payload bits).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_FLOAT16_H
#define TGC_RUNTIME_FLOAT16_H

#include <cstdint>
#include <cstring>

namespace tgc::runtime {
namespace detail {

inline uint64_t doubleBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Rounds a double to a binary float format with `expBits` exponent bits and
/// `mantBits` explicit mantissa bits (at most 1 + expBits + mantBits <= 16),
/// round to nearest even. Returns the encoding.
inline uint16_t roundDoubleToSmallFloat(double value, int expBits,
                                        int mantBits) {
  const uint64_t bits = doubleBits(value);
  const uint16_t sign =
      static_cast<uint16_t>((bits >> 63) << (expBits + mantBits));
  const int exp = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t mant = bits & ((uint64_t(1) << 52) - 1);
  const uint16_t expMask =
      static_cast<uint16_t>(((1u << expBits) - 1) << mantBits);
  if (exp == 0x7ff) {
    if (mant == 0)
      return sign | expMask; // Infinity.
    // NaN: quiet it and keep the top payload bits.
    uint16_t payload = static_cast<uint16_t>(mant >> (52 - mantBits));
    return sign | expMask | static_cast<uint16_t>(1u << (mantBits - 1)) |
           payload;
  }
  // Double zeros and subnormals are far below the smallest 16-bit subnormal.
  if (exp == 0)
    return sign;

  const int bias = (1 << (expBits - 1)) - 1;
  const int minExp = 1 - bias; // Smallest normal exponent.
  const int unbiased = exp - 1023;
  if (unbiased > bias)
    return sign | expMask; // Overflows to infinity.
  const uint64_t significand = (uint64_t(1) << 52) | mant;
  int shift = 52 - mantBits;
  if (unbiased < minExp)
    shift += minExp - unbiased; // Subnormal result.
  if (shift > 53)
    return sign; // Less than half the smallest subnormal: rounds to zero.
  uint64_t rounded = significand >> shift;
  const uint64_t remainder = significand & ((uint64_t(1) << shift) - 1);
  const uint64_t halfway = uint64_t(1) << (shift - 1);
  if (remainder > halfway || (remainder == halfway && (rounded & 1)))
    ++rounded;
  // For normals `rounded` carries the implicit bit, which bumps the exponent
  // field by one; a mantissa carry propagates into the exponent naturally and
  // may reach the infinity encoding, which is the correct overflow result.
  uint64_t encoded = rounded;
  if (unbiased >= minExp)
    encoded += static_cast<uint64_t>(unbiased + bias - 1) << mantBits;
  if (encoded >= expMask)
    encoded = expMask;
  return sign | static_cast<uint16_t>(encoded);
}

} // namespace detail

/// double -> IEEE half, round to nearest even (single rounding).
inline uint16_t doubleToHalf(double value) {
  return detail::roundDoubleToSmallFloat(value, 5, 10);
}

/// double -> bfloat16, round to nearest even (single rounding).
inline uint16_t doubleToBFloat16(double value) {
  return detail::roundDoubleToSmallFloat(value, 8, 7);
}

/// float -> IEEE half, round to nearest even: doubleToHalf(double(value))
/// for every float (checked over all 2^32 of them once; Float16Test samples
/// them), in a few integer operations. Subnormal halves come from one float
/// addition that aligns their bits (the default rounding, ties to even;
/// flushing subnormal floats would not change them: those round to zero).
inline uint16_t floatToHalf(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof(u));
  const uint32_t sign = (u >> 16) & 0x8000u;
  u &= 0x7fffffffu;
  if (u >= 0x47800000u) { // |x| >= 2^16: infinity, or NaN
    if (u > 0x7f800000u)  // quiet, with the top payload bits
      return static_cast<uint16_t>(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (u < 0x38800000u) { // |x| < 2^-14: a subnormal half, or zero
    float f = detail::floatFromBits(u) + 0.5f;
    uint32_t r;
    std::memcpy(&r, &f, sizeof(r));
    return static_cast<uint16_t>(sign | (r - 0x3f000000u));
  }
  // Rebias the exponent (-112 << 23) and round to nearest even at bit 13.
  u += 0xc8000fffu + ((u >> 13) & 1u);
  return static_cast<uint16_t>(sign | (u >> 13));
}

/// float -> bfloat16, round to nearest even: doubleToBFloat16(double(value))
/// for every float (checked over all 2^32 of them once).
inline uint16_t floatToBFloat16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, sizeof(u));
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, top payload bits
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

/// IEEE half -> float (exact).
inline float halfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000) << 16;
  const uint32_t exp = (half >> 10) & 0x1f;
  uint32_t mant = half & 0x3ff;
  if (exp == 0x1f) // Inf or NaN; NaN payload moves to the top mantissa bits.
    return detail::floatFromBits(sign | 0x7f800000u | (mant << 13));
  if (exp != 0)
    return detail::floatFromBits(sign | ((exp + 127 - 15) << 23) |
                                 (mant << 13));
  if (mant == 0)
    return detail::floatFromBits(sign);
  // Subnormal half: normalize (the result is a normal float).
  uint32_t floatExp = 127 - 15 + 1;
  while ((mant & 0x400) == 0) {
    mant <<= 1;
    --floatExp;
  }
  mant &= 0x3ff;
  return detail::floatFromBits(sign | (floatExp << 23) | (mant << 13));
}

/// bfloat16 -> float (exact).
inline float bfloat16ToFloat(uint16_t value) {
  return detail::floatFromBits(static_cast<uint32_t>(value) << 16);
}

} // namespace tgc::runtime

#endif // TGC_RUNTIME_FLOAT16_H
