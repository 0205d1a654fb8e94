//===- Float16Test.cpp - tests for runtime/Float16.h ----------------------===//

#include "runtime/Float16.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tgc::runtime;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool isHalfNaN(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
bool isBF16NaN(uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f); }

TEST(Float16Test, HalfExactValues) {
  EXPECT_EQ(doubleToHalf(0.0), 0x0000);
  EXPECT_EQ(doubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(doubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(doubleToHalf(-2.0), 0xc000);
  EXPECT_EQ(doubleToHalf(0.5), 0x3800);
  EXPECT_EQ(doubleToHalf(65504.0), 0x7bff);
  EXPECT_EQ(doubleToHalf(std::ldexp(1.0, -14)), 0x0400);
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(halfToFloat(0x8000), 0.0f);
}

TEST(Float16Test, HalfRoundsTiesToEven) {
  // Halfway between 1 and 1 + 2^-10: rounds down to the even 1.
  EXPECT_EQ(doubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  // Halfway between 1 + 2^-10 and 1 + 2^-9: rounds up to the even one.
  EXPECT_EQ(doubleToHalf(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  EXPECT_EQ(doubleToHalf(-(1.0 + 3 * std::ldexp(1.0, -11))), 0xbc02);
  // Just above / below a tie.
  EXPECT_EQ(doubleToHalf(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)),
            0x3c01);
  EXPECT_EQ(doubleToHalf(1.0 + 3 * std::ldexp(1.0, -11) - std::ldexp(1.0, -40)),
            0x3c01);
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f + 0x1p-22f), 0x3c01);
}

TEST(Float16Test, HalfRoundsOnceFromDouble) {
  // Via float, 1 + 2^-11 + 2^-30 would first round to the tie 1 + 2^-11 and
  // then to even (1.0). Rounding once gives 1 + 2^-10.
  double value = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30);
  EXPECT_EQ(static_cast<double>(static_cast<float>(value)),
            1.0 + std::ldexp(1.0, -11));
  EXPECT_EQ(doubleToHalf(value), 0x3c01);
  EXPECT_EQ(doubleToBFloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)),
            0x3f81);
}

TEST(Float16Test, HalfOverflowsToInfinity) {
  EXPECT_EQ(doubleToHalf(65519.99), 0x7bff);
  EXPECT_EQ(doubleToHalf(65520.0), 0x7c00); // Tie: rounds to even = inf.
  EXPECT_EQ(doubleToHalf(65536.0), 0x7c00);
  EXPECT_EQ(doubleToHalf(1e10), 0x7c00);
  EXPECT_EQ(doubleToHalf(-1e10), 0xfc00);
  EXPECT_EQ(doubleToHalf(1e300), 0x7c00);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::max()), 0x7c00);
}

TEST(Float16Test, HalfSubnormals) {
  const double minSubnormal = std::ldexp(1.0, -24);
  EXPECT_EQ(doubleToHalf(minSubnormal), 0x0001);
  EXPECT_EQ(doubleToHalf(-minSubnormal), 0x8001);
  EXPECT_EQ(doubleToHalf(minSubnormal / 2), 0x0000); // Tie to even (zero).
  EXPECT_EQ(doubleToHalf(-minSubnormal / 2), 0x8000);
  EXPECT_EQ(doubleToHalf(minSubnormal / 2 * 1.0000001), 0x0001);
  EXPECT_EQ(doubleToHalf(minSubnormal * 1.5), 0x0002); // Tie to even.
  EXPECT_EQ(doubleToHalf(minSubnormal * 2.5), 0x0002); // Tie to even.
  EXPECT_EQ(doubleToHalf(1023 * minSubnormal), 0x03ff);
  EXPECT_EQ(doubleToHalf(1023.5 * minSubnormal), 0x0400); // Into normals.
  EXPECT_EQ(doubleToHalf(1e-300), 0x0000);
  EXPECT_EQ(doubleToHalf(-1e-300), 0x8000);
  EXPECT_EQ(doubleToHalf(std::numeric_limits<double>::denorm_min()), 0x0000);
  EXPECT_EQ(halfToFloat(0x0001), static_cast<float>(minSubnormal));
  EXPECT_EQ(halfToFloat(0x03ff), static_cast<float>(1023 * minSubnormal));
  EXPECT_EQ(halfToFloat(0x8200), static_cast<float>(-512 * minSubnormal));
}

TEST(Float16Test, HalfInfAndNaN) {
  EXPECT_EQ(doubleToHalf(kInf), 0x7c00);
  EXPECT_EQ(doubleToHalf(-kInf), 0xfc00);
  EXPECT_TRUE(isHalfNaN(doubleToHalf(kNaN)));
  EXPECT_TRUE(isHalfNaN(doubleToHalf(-kNaN)));
  EXPECT_TRUE(isHalfNaN(floatToHalf(std::numeric_limits<float>::quiet_NaN())));
  // A signaling NaN whose payload lives only in the low bits stays a NaN.
  EXPECT_TRUE(
      isHalfNaN(floatToHalf(std::numeric_limits<float>::signaling_NaN())));
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(halfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7c01)));
  EXPECT_TRUE(std::isnan(halfToFloat(0xfe00)));
}

TEST(Float16Test, HalfExhaustiveRoundTripAndMidpoints) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t h = static_cast<uint16_t>(bits);
    float f = halfToFloat(h);
    if (isHalfNaN(h)) {
      EXPECT_TRUE(std::isnan(f)) << bits;
      EXPECT_TRUE(isHalfNaN(floatToHalf(f))) << bits;
      continue;
    }
    ASSERT_EQ(doubleToHalf(f), h) << bits;
    ASSERT_EQ(floatToHalf(f), h) << bits;
    // The midpoint to the next value up in magnitude rounds to the even one.
    if ((h & 0x7fff) < 0x7bff) { // Not the largest finite value.
      uint16_t next = static_cast<uint16_t>(h + 1);
      double mid = (static_cast<double>(f) + halfToFloat(next)) / 2;
      uint16_t even = (h & 1) ? next : h;
      ASSERT_EQ(doubleToHalf(mid), even) << bits;
      double up = std::nextafter(mid, std::copysign(kInf, mid));
      double down = std::nextafter(mid, std::copysign(0.0, mid));
      ASSERT_EQ(doubleToHalf(up), next) << bits;
      ASSERT_EQ(doubleToHalf(down), h) << bits;
    }
  }
}

TEST(Float16Test, BFloat16Basics) {
  EXPECT_EQ(doubleToBFloat16(0.0), 0x0000);
  EXPECT_EQ(doubleToBFloat16(-0.0), 0x8000);
  EXPECT_EQ(doubleToBFloat16(1.0), 0x3f80);
  EXPECT_EQ(doubleToBFloat16(-2.0), 0xc000);
  EXPECT_EQ(doubleToBFloat16(3.140625), 0x4049);
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0x4049), 3.140625f);
  EXPECT_EQ(bfloat16ToFloat(0x7f7f), 0x1.fep127f);
  // Ties to even.
  EXPECT_EQ(doubleToBFloat16(1.0 + std::ldexp(1.0, -8)), 0x3f80);
  EXPECT_EQ(doubleToBFloat16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);
  EXPECT_EQ(floatToBFloat16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
}

TEST(Float16Test, BFloat16OverflowSubnormalsInfNaN) {
  EXPECT_EQ(doubleToBFloat16(0x1.fep127), 0x7f7f);
  EXPECT_EQ(doubleToBFloat16(0x1.ffp127), 0x7f80); // Tie rounds to inf.
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(doubleToBFloat16(1e39), 0x7f80);
  EXPECT_EQ(doubleToBFloat16(-1e300), 0xff80);
  EXPECT_EQ(doubleToBFloat16(kInf), 0x7f80);
  EXPECT_EQ(doubleToBFloat16(-kInf), 0xff80);
  EXPECT_TRUE(isBF16NaN(doubleToBFloat16(kNaN)));
  EXPECT_TRUE(
      isBF16NaN(floatToBFloat16(std::numeric_limits<float>::signaling_NaN())));
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(0x7fc0)));
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(0xff81)));
  // Subnormals: the smallest bf16 subnormal is 2^-133.
  EXPECT_EQ(doubleToBFloat16(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(doubleToBFloat16(std::ldexp(1.0, -134)), 0x0000); // Tie to even.
  EXPECT_EQ(doubleToBFloat16(std::ldexp(1.5, -134)), 0x0001);
  EXPECT_EQ(doubleToBFloat16(-std::ldexp(1.0, -200)), 0x8000);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::min()), 0x0080);
  EXPECT_EQ(bfloat16ToFloat(0x0001), 0x1p-133f);
}

TEST(Float16Test, BFloat16ExhaustiveRoundTripAndMidpoints) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    uint16_t b = static_cast<uint16_t>(bits);
    float f = bfloat16ToFloat(b);
    if (isBF16NaN(b)) {
      EXPECT_TRUE(std::isnan(f)) << bits;
      EXPECT_TRUE(isBF16NaN(floatToBFloat16(f))) << bits;
      continue;
    }
    ASSERT_EQ(doubleToBFloat16(f), b) << bits;
    ASSERT_EQ(floatToBFloat16(f), b) << bits;
    if ((b & 0x7fff) < 0x7f7f) { // Not the largest finite value.
      uint16_t next = static_cast<uint16_t>(b + 1);
      double mid = (static_cast<double>(f) + bfloat16ToFloat(next)) / 2;
      uint16_t even = (b & 1) ? next : b;
      ASSERT_EQ(doubleToBFloat16(mid), even) << bits;
      ASSERT_EQ(doubleToBFloat16(std::nextafter(mid, std::copysign(kInf, mid))),
                next)
          << bits;
      ASSERT_EQ(doubleToBFloat16(std::nextafter(mid, std::copysign(0.0, mid))),
                b)
          << bits;
    }
  }
}

// floatToHalf and floatToBFloat16 take integer shortcuts; they give what
// rounding the exact double once gives, for every float (all 2^32 were
// checked when they were written; here every 251st bit pattern and the
// neighbourhoods of the format boundaries).
TEST(Float16Test, FloatShortcutsMatchRoundingTheDouble) {
  auto check = [](uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    uint16_t half = floatToHalf(f), want = doubleToHalf(static_cast<double>(f));
    uint16_t bf = floatToBFloat16(f),
             bfWant = doubleToBFloat16(static_cast<double>(f));
    EXPECT_EQ(half, want) << std::hex << bits;
    EXPECT_EQ(bf, bfWant) << std::hex << bits;
    return half == want && bf == bfWant;
  };
  uint64_t failures = 0;
  for (uint64_t b = 0; b <= 0xffffffffull && failures < 10; b += 251)
    failures += !check(static_cast<uint32_t>(b));
  for (uint32_t edge :
       {0x00000000u, 0x33000000u, 0x33800000u, 0x38800000u, 0x387fe000u,
        0x477fe000u, 0x477ff000u, 0x47800000u, 0x7f7f8000u, 0x7f7fffffu,
        0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fffffffu})
    for (uint32_t sign : {0u, 0x80000000u})
      for (int d = -4096; d <= 4096; ++d)
        check((edge | sign) + static_cast<uint32_t>(d));
}

} // namespace
