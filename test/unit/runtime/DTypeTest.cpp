//===- DTypeTest.cpp - tests for tgc/DType.h --------------------------===//

#include "tgc/DType.h"

#include "gtest/gtest.h"

using namespace tgc::runtime;

namespace {

TEST(DTypeTest, SizesNamesAndBits) {
  struct Expected {
    DType type;
    size_t size;
    const char *name;
    bool isFloat;
    unsigned bits;
    bool isUnsigned = false;
  };
  const Expected table[] = {
      {DType::F32, 4, "f32", true, 32},
      {DType::F16, 2, "f16", true, 16},
      {DType::BF16, 2, "bf16", true, 16},
      {DType::F64, 8, "f64", true, 64},
      {DType::I1, 1, "i1", false, 1},
      {DType::I8, 1, "i8", false, 8},
      {DType::I32, 4, "i32", false, 32},
      {DType::I64, 8, "i64", false, 64},
      {DType::I16, 2, "i16", false, 16},
      {DType::UI8, 1, "ui8", false, 8, true},
      {DType::UI16, 2, "ui16", false, 16, true},
      {DType::UI32, 4, "ui32", false, 32, true},
      {DType::UI64, 8, "ui64", false, 64, true},
  };
  for (const Expected &e : table) {
    EXPECT_EQ(dtypeSize(e.type), e.size) << e.name;
    EXPECT_EQ(dtypeName(e.type), e.name);
    EXPECT_EQ(isFloatDType(e.type), e.isFloat) << e.name;
    EXPECT_EQ(isUnsignedDType(e.type), e.isUnsigned) << e.name;
    EXPECT_EQ(dtypeBits(e.type), e.bits) << e.name;
  }
  EXPECT_EQ(std::size(kAllDTypes), std::size(table));
}

TEST(DTypeTest, ParseIsInverseOfName) {
  for (DType type : kAllDTypes) {
    std::optional<DType> parsed = parseDType(dtypeName(type));
    ASSERT_TRUE(parsed.has_value()) << dtypeName(type);
    EXPECT_EQ(*parsed, type);
  }
  EXPECT_FALSE(parseDType("").has_value());
  EXPECT_FALSE(parseDType("F32").has_value());
  EXPECT_FALSE(parseDType("f32 ").has_value());
  EXPECT_FALSE(parseDType("u8").has_value());
  EXPECT_FALSE(parseDType("i128").has_value());
  EXPECT_FALSE(parseDType("si8").has_value());
  EXPECT_EQ(parseDType("ui8"), DType::UI8);
  EXPECT_EQ(parseDType("i16"), DType::I16);
  EXPECT_FALSE(parseDType("float32").has_value());
}

} // namespace
