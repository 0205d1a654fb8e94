//===- DTypeTest.cpp - tests for runtime/DType.h --------------------------===//

#include "runtime/DType.h"

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
  };
  const Expected table[] = {
      {DType::F32, 4, "f32", true, 32},   {DType::F16, 2, "f16", true, 16},
      {DType::BF16, 2, "bf16", true, 16}, {DType::F64, 8, "f64", true, 64},
      {DType::I1, 1, "i1", false, 1},     {DType::I8, 1, "i8", false, 8},
      {DType::I32, 4, "i32", false, 32},  {DType::I64, 8, "i64", false, 64},
  };
  for (const Expected &e : table) {
    EXPECT_EQ(dtypeSize(e.type), e.size) << e.name;
    EXPECT_EQ(dtypeName(e.type), e.name);
    EXPECT_EQ(isFloatDType(e.type), e.isFloat) << e.name;
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
  EXPECT_FALSE(parseDType("float32").has_value());
}

} // namespace
