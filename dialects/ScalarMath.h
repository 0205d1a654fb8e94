//===- ScalarMath.h - the scalar semantics of tgc ops -----------*- C++ -*-===//
//
// One definition of what each elementwise tgc op computes on a single value,
// shared by the folders and the reference interpreter so that both agree.
// Floats are computed in double and integers in int64; callers round or wrap
// to the element type. Pure C++, no MLIR dependency.
//
// Unsigned integers (ui8..ui64) are held in int64 too: ui8..ui32 values as
// themselves (zero-extended), ui64 values as their bit pattern, so that
// static_cast<uint64_t>(v) is always the exact unsigned value. Addition,
// subtraction, multiplication and negation wrap identically for both
// signednesses; the functions below that take `isUnsigned` are those whose
// result depends on it (C semantics: unsigned arithmetic is modulo 2^bits).
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
/// overflow (INT_MIN / -1 of the element width `bits`; unsigned division
/// never overflows).
inline std::optional<int64_t> divInt(int64_t a, int64_t b, unsigned bits,
                                     bool isUnsigned = false) {
  if (b == 0)
    return std::nullopt;
  if (isUnsigned)
    return static_cast<int64_t>(static_cast<uint64_t>(a) /
                                static_cast<uint64_t>(b));
  if (b == -1) {
    int64_t minValue = bits >= 64 ? std::numeric_limits<int64_t>::min()
                                  : -(int64_t(1) << (bits - 1));
    if (a == minValue)
      return bits >= 64 ? std::nullopt : std::optional<int64_t>(a); // wraps
    return -a;
  }
  return a / b;
}

/// Exact integer power with wrapping multiplication (in uint64). An unsigned
/// exponent is never negative.
inline int64_t powInt(int64_t base, int64_t exp, bool isUnsigned = false) {
  if (isUnsigned) {
    uint64_t result = 1, b = static_cast<uint64_t>(base);
    for (uint64_t e = static_cast<uint64_t>(exp); e; e >>= 1) {
      if (e & 1)
        result *= b;
      b *= b;
    }
    return static_cast<int64_t>(result);
  }
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

/// Wraps an int64 to an integer of `bits` bits: two's complement for signed
/// types (sign-extended), modulo 2^bits for unsigned ones (zero-extended);
/// i1 is treated as boolean (non-zero is 1).
inline int64_t wrapInt(int64_t v, unsigned bits, bool isUnsigned = false) {
  if (bits == 1)
    return v != 0;
  if (bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (!isUnsigned && (u >> (bits - 1)))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

/// The value of an integer element as double (the exact unsigned value for
/// unsigned types; rounds to nearest above 2^53).
inline double intToDouble(int64_t v, bool isUnsigned = false) {
  return isUnsigned ? static_cast<double>(static_cast<uint64_t>(v))
                    : static_cast<double>(v);
}

/// Converts a float to an integer of `bits` bits: rounds toward zero,
/// saturates to the type's range (for unsigned types [0, 2^bits - 1], so
/// negative values become 0), NaN becomes 0; i1 is `x != 0`.
inline int64_t floatToInt(double v, unsigned bits, bool isUnsigned = false) {
  if (bits == 1)
    return v != 0; // NaN is non-zero
  if (std::isnan(v))
    return 0;
  if (isUnsigned) {
    if (v <= 0)
      return 0;
    double limit = std::ldexp(1.0, static_cast<int>(bits)); // 2^bits, exact
    if (v >= limit)
      return bits >= 64 ? -1 // all ones: 2^64 - 1
                        : static_cast<int64_t>((uint64_t(1) << bits) - 1);
    return static_cast<int64_t>(static_cast<uint64_t>(std::trunc(v)));
  }
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
inline int64_t attrToInt(double v, unsigned bits, bool isUnsigned = false) {
  return floatToInt(v, bits, isUnsigned);
}

/// a < b for integer elements of the given signedness.
inline bool lessInt(int64_t a, int64_t b, bool isUnsigned) {
  return isUnsigned ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b)
                    : a < b;
}
inline int64_t maxInt(int64_t a, int64_t b, bool isUnsigned = false) {
  return lessInt(a, b, isUnsigned) ? b : a;
}
inline int64_t minInt(int64_t a, int64_t b, bool isUnsigned = false) {
  return lessInt(b, a, isUnsigned) ? b : a;
}
inline int64_t clampInt(int64_t x, int64_t lo, int64_t hi,
                        bool isUnsigned = false) {
  return minInt(maxInt(x, lo, isUnsigned), hi, isUnsigned);
}

/// sign, |x| and max(x, 0) of an integer element; for unsigned types they
/// are x != 0, x and x. |INT_MIN| wraps to INT_MIN.
inline int64_t signInt(int64_t x, bool isUnsigned = false) {
  return isUnsigned ? (x != 0 ? 1 : 0) : sign(x);
}
inline int64_t absInt(int64_t x, bool isUnsigned = false) {
  return isUnsigned || x >= 0
             ? x
             : static_cast<int64_t>(0 - static_cast<uint64_t>(x));
}
inline int64_t reluInt(int64_t x, bool isUnsigned = false) {
  return isUnsigned || x > 0 ? x : 0;
}

/// a << b for an integer of `bits` bits; shift amounts that are negative or
/// at least `bits` give 0. The caller wraps the result to the width.
inline int64_t shiftLeftInt(int64_t a, int64_t b, unsigned bits,
                            bool isUnsigned = false) {
  uint64_t amount = static_cast<uint64_t>(b);
  if ((!isUnsigned && b < 0) || amount >= bits)
    return 0;
  return static_cast<int64_t>(static_cast<uint64_t>(a) << amount);
}

/// a >> b for an integer of `bits` bits: logical for unsigned types,
/// arithmetic (sign-filling) for signed ones. Shift amounts that are negative
/// or at least `bits` shift every bit out (0, or -1 for a negative signed a).
inline int64_t shiftRightInt(int64_t a, int64_t b, unsigned bits,
                             bool isUnsigned = false) {
  uint64_t amount = static_cast<uint64_t>(b);
  if ((!isUnsigned && b < 0) || amount >= bits)
    return isUnsigned || a >= 0 ? 0 : -1;
  if (isUnsigned)
    return static_cast<int64_t>(static_cast<uint64_t>(a) >> amount);
  return a >> amount; // arithmetic in C++20
}

} // namespace tgc::scalar

#endif // TGC_DIALECTS_SCALARMATH_H
