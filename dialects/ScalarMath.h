//===- ScalarMath.h - the scalar semantics of tgc ops -----------*- C++ -*-===//
//
// One definition of what each elementwise tgc op computes on a single value,
// shared by the folders and the reference interpreter so that both agree.
// Floats are computed in double and integers in int64; callers round or wrap
// to the element type. Pure C++, no MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECTS_SCALARMATH_H
#define TGC_DIALECTS_SCALARMATH_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace tgc::scalar {

inline double sigmoid(double x) {
  // Stable on both tails.
  if (x >= 0)
    return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

inline double gelu(double x, bool tanhApproximation) {
  if (tanhApproximation) {
    constexpr double kSqrt2OverPi = 0.7978845608028654;
    return 0.5 * x *
           (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
  }
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

inline double elu(double x, double alpha) {
  return x > 0 ? x : alpha * std::expm1(x);
}

inline double leakyRelu(double x, double alpha) {
  return x >= 0 ? x : alpha * x;
}

/// Round half to even (independent of the current rounding mode).
inline double roundHalfEven(double x) {
  if (!std::isfinite(x))
    return x;
  double r = std::round(x); // half away from zero
  if (std::fabs(x - std::trunc(x)) == 0.5)
    r = 2.0 * std::round(x / 2.0);
  return r;
}

inline double sign(double x) {
  if (std::isnan(x))
    return x;
  return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
}
inline int64_t sign(int64_t x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

inline double relu(double x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0); }

/// max/min that propagate NaN (numpy's maximum/minimum).
inline double maxNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a > b ? a : b;
}
inline double minNaN(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return a < b ? a : b;
}
inline double clamp(double x, double lo, double hi) {
  return std::isnan(x) ? x : (x < lo ? lo : (x > hi ? hi : x));
}

/// Integer division rounding toward zero; nullopt for division by zero or
/// overflow (INT_MIN / -1 of the element width `bits`).
inline std::optional<int64_t> divInt(int64_t a, int64_t b, unsigned bits) {
  if (b == 0)
    return std::nullopt;
  if (b == -1) {
    int64_t minValue = bits >= 64 ? std::numeric_limits<int64_t>::min()
                                  : -(int64_t(1) << (bits - 1));
    if (a == minValue)
      return bits >= 64 ? std::nullopt : std::optional<int64_t>(a); // wraps
    return -a;
  }
  return a / b;
}

/// Exact integer power with wrapping multiplication (in uint64).
inline int64_t powInt(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1)
      return 1;
    if (base == -1)
      return (exp % 2) ? -1 : 1;
    return 0; // includes 0^negative
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (exp) {
    if (exp & 1)
      result *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<int64_t>(result);
}

/// Wraps an int64 to a signed integer of `bits` bits (two's complement);
/// i1 is treated as boolean (non-zero is 1).
inline int64_t wrapInt(int64_t v, unsigned bits) {
  if (bits == 1)
    return v != 0;
  if (bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (u >> (bits - 1))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

/// Converts a float to a signed integer of `bits` bits: rounds toward zero,
/// saturates, NaN becomes 0; i1 is `x != 0`.
inline int64_t floatToInt(double v, unsigned bits) {
  if (bits == 1)
    return v != 0; // NaN is non-zero
  if (std::isnan(v))
    return 0;
  double lo = bits >= 64 ? -9223372036854775808.0 : -std::ldexp(1.0, bits - 1);
  double hi =
      bits >= 64 ? 9223372036854775807.0 : std::ldexp(1.0, bits - 1) - 1;
  if (v <= lo)
    return bits >= 64 ? std::numeric_limits<int64_t>::min()
                      : static_cast<int64_t>(lo);
  if (v >= hi)
    return bits >= 64 ? std::numeric_limits<int64_t>::max()
                      : static_cast<int64_t>(hi);
  return static_cast<int64_t>(std::trunc(v));
}

/// Saturating conversion of an f64 attribute value (clamp bounds, pad value)
/// to an integer element.
inline int64_t attrToInt(double v, unsigned bits) {
  return floatToInt(v, bits);
}

} // namespace tgc::scalar

#endif // TGC_DIALECTS_SCALARMATH_H
