//===- HostTensorTest.cpp - tests for runtime/HostTensor.h ----------------===//

#include "tgc/HostTensor.h"
#include "tgc/AbslStatus.h"

#include "runtime/Float16.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace tgc::runtime;
using ::testing::HasSubstr;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();

HostTensor make(DType dtype, std::vector<int64_t> shape) {
  absl::StatusOr<HostTensor> tensor = HostTensor::allocate(dtype, shape);
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return tensor.ok() ? *std::move(tensor) : HostTensor();
}

HostTensor fromDoubles(DType dtype, std::vector<int64_t> shape,
                       const std::vector<double> &values) {
  HostTensor tensor = make(dtype, std::move(shape));
  EXPECT_EQ(static_cast<size_t>(tensor.numElements()), values.size());
  for (size_t i = 0; i < values.size(); ++i)
    tensor.setDouble(static_cast<int64_t>(i), values[i]);
  return tensor;
}

TEST(HostTensorTest, DefaultIsOwnedF32Scalar) {
  HostTensor tensor;
  EXPECT_EQ(tensor.dtype(), DType::F32);
  EXPECT_EQ(tensor.rank(), 0);
  EXPECT_TRUE(tensor.shape().empty());
  EXPECT_EQ(tensor.numElements(), 1);
  EXPECT_EQ(tensor.byteSize(), 4u);
  EXPECT_TRUE(tensor.isOwned());
  ASSERT_NE(tensor.data(), nullptr);
  EXPECT_EQ(tensor.getDouble(0), 0.0);
  EXPECT_EQ(tensor.describe(), "tensor<f32>");
}

TEST(HostTensorTest, AllocateIsZeroFilledAndAligned) {
  for (DType dtype : kAllDTypes) {
    HostTensor tensor = make(dtype, {2, 3, 5});
    EXPECT_EQ(tensor.dtype(), dtype);
    EXPECT_EQ(tensor.rank(), 3);
    EXPECT_EQ(tensor.dim(0), 2);
    EXPECT_EQ(tensor.dim(2), 5);
    EXPECT_EQ(tensor.numElements(), 30);
    EXPECT_EQ(tensor.byteSize(), 30 * dtypeSize(dtype));
    EXPECT_TRUE(tensor.isOwned());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor.data()) % 64, 0u);
    for (int64_t i = 0; i < tensor.numElements(); ++i) {
      EXPECT_EQ(tensor.getDouble(i), 0.0);
      EXPECT_EQ(tensor.getInt(i), 0);
    }
  }
}

TEST(HostTensorTest, AllocateZeroSizeAndScalar) {
  HostTensor empty = make(DType::I32, {4, 0, 3});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_EQ(empty.byteSize(), 0u);
  EXPECT_EQ(empty.describe(), "tensor<4x0x3xi32>");
  // A zero dim makes the count zero even when the others would overflow.
  HostTensor wide = make(DType::F64, {0, kI64Max, kI64Max});
  EXPECT_EQ(wide.numElements(), 0);
  HostTensor scalar = make(DType::I64, {});
  EXPECT_EQ(scalar.numElements(), 1);
  EXPECT_EQ(scalar.describe(), "tensor<i64>");
}

TEST(HostTensorTest, AllocateRejectsNegativeDims) {
  absl::StatusOr<HostTensor> tensor = HostTensor::allocate(DType::F32, {2, -3});
  ASSERT_FALSE(tensor.ok());
  EXPECT_EQ(tensor.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(tensor.status().message(), HasSubstr("negative"));
  EXPECT_THAT(tensor.status().message(), HasSubstr("-3"));
  // Negative wins even with a zero dim.
  EXPECT_FALSE(HostTensor::allocate(DType::F32, {0, -1}).ok());
}

TEST(HostTensorTest, AllocateRejectsOverflow) {
  absl::StatusOr<HostTensor> count =
      HostTensor::allocate(DType::I8, {int64_t(1) << 32, int64_t(1) << 32});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(count.status().message(), HasSubstr("overflow"));

  absl::StatusOr<HostTensor> bytes =
      HostTensor::allocate(DType::F32, {int64_t(1) << 62});
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bytes.status().message(), HasSubstr("byte size"));
  EXPECT_THAT(bytes.status().message(), HasSubstr("overflow"));

  EXPECT_FALSE(HostTensor::allocate(DType::I64, {kI64Max}).ok());
  EXPECT_FALSE(
      HostTensor::borrow(DType::F32, {int64_t(1) << 62}, nullptr).ok());
}

TEST(HostTensorTest, CheckedNumElements) {
  EXPECT_EQ(*HostTensor::checkedNumElements({}), 1);
  EXPECT_EQ(*HostTensor::checkedNumElements({2, 3, 4}), 24);
  EXPECT_EQ(*HostTensor::checkedNumElements({kI64Max}), kI64Max);
  EXPECT_FALSE(HostTensor::checkedNumElements({kI64Max, 2}).ok());
  EXPECT_FALSE(HostTensor::checkedNumElements({-1}).ok());
}

TEST(HostTensorTest, BorrowViewsCallerMemory) {
  float buffer[6] = {1, 2, 3, 4, 5, 6};
  absl::StatusOr<HostTensor> view =
      HostTensor::borrow(DType::F32, {2, 3}, buffer);
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_FALSE(view->isOwned());
  EXPECT_EQ(view->data(), buffer);
  EXPECT_EQ(view->getDouble(4), 5.0);
  view->setDouble(0, 42.0);
  EXPECT_EQ(buffer[0], 42.0f);
  EXPECT_EQ(view->dataAs<float>()[5], 6.0f);

  // Copies stay borrowed; clones are owned and independent.
  HostTensor copy = *view;
  EXPECT_FALSE(copy.isOwned());
  EXPECT_EQ(copy.data(), buffer);
  HostTensor deep = view->clone();
  EXPECT_TRUE(deep.isOwned());
  EXPECT_NE(deep.data(), static_cast<void *>(buffer));
  buffer[1] = -1;
  EXPECT_EQ(deep.getDouble(1), 2.0);
  EXPECT_EQ(copy.getDouble(1), -1.0);
}

TEST(HostTensorTest, BorrowNullData) {
  absl::StatusOr<HostTensor> empty =
      HostTensor::borrow(DType::F32, {0, 4}, nullptr);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->numElements(), 0);
  EXPECT_FALSE(empty->isOwned());

  absl::StatusOr<HostTensor> bad = HostTensor::borrow(DType::F32, {2}, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("null"));
  EXPECT_FALSE(HostTensor::borrow(DType::F32, {}, nullptr).ok());

  int32_t value = 7;
  absl::StatusOr<HostTensor> negative =
      HostTensor::borrow(DType::I32, {-1}, &value);
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), HasSubstr("negative"));
}

// Sanitizer allocators abort on impossible sizes instead of returning null.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TGC_SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TGC_SANITIZED_ALLOCATOR 1
#endif
#endif

TEST(HostTensorTest, AllocateUninitializedChecksLikeAllocate) {
  for (DType dtype : kAllDTypes) {
    absl::StatusOr<HostTensor> tensor =
        HostTensor::allocateUninitialized(dtype, {3, 7});
    ASSERT_TRUE(tensor.ok()) << tensor.status();
    EXPECT_EQ(tensor->dtype(), dtype);
    EXPECT_EQ(tensor->shape(), std::vector<int64_t>({3, 7}));
    EXPECT_EQ(tensor->byteSize(), 21 * dtypeSize(dtype));
    EXPECT_TRUE(tensor->isOwned());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor->data()) % 64, 0u);
    // Writable end to end.
    std::memset(tensor->data(), 0x5a, tensor->byteSize());
  }
  absl::StatusOr<HostTensor> empty =
      HostTensor::allocateUninitialized(DType::F32, {0, 5});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->numElements(), 0);
  EXPECT_NE(empty->data(), nullptr);

  absl::StatusOr<HostTensor> negative =
      HostTensor::allocateUninitialized(DType::F32, {2, -3});
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<HostTensor> overflow =
      HostTensor::allocateUninitialized(DType::F32, {int64_t(1) << 62});
  EXPECT_EQ(overflow.status().code(), absl::StatusCode::kInvalidArgument);
}

#ifndef TGC_SANITIZED_ALLOCATOR
TEST(HostTensorTest, ImpossibleAllocationsAreResourceExhausted) {
  // 2^61 bytes: more than any address space, but no int64 overflow.
  for (bool zeroFill : {true, false}) {
    absl::StatusOr<HostTensor> huge =
        zeroFill
            ? HostTensor::allocate(DType::I8, {int64_t(1) << 61})
            : HostTensor::allocateUninitialized(DType::I8, {int64_t(1) << 61});
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  }
}
#endif

TEST(HostTensorTest, ReshapedViewSharesStorage) {
  HostTensor original = fromDoubles(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6});
  absl::StatusOr<HostTensor> flat = original.reshapedView({6});
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_EQ(flat->shape(), std::vector<int64_t>({6}));
  EXPECT_EQ(flat->dtype(), DType::I32);
  EXPECT_EQ(flat->data(), original.data());
  EXPECT_TRUE(flat->isOwned());
  flat->setInt(5, 60);
  EXPECT_EQ(original.getInt(5), 60);

  // The storage lives as long as either tensor.
  original = HostTensor();
  EXPECT_EQ(flat->getInt(0), 1);
  EXPECT_EQ(flat->getInt(5), 60);
  absl::StatusOr<HostTensor> cube = flat->reshapedView({1, 6, 1});
  ASSERT_TRUE(cube.ok());
  flat = HostTensor();
  EXPECT_EQ(cube->getInt(4), 5);

  // Scalars and empty tensors.
  HostTensor scalar = fromDoubles(DType::F32, {}, {2.5});
  absl::StatusOr<HostTensor> one = scalar.reshapedView({1, 1});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->getDouble(0), 2.5);
  HostTensor empty = make(DType::F16, {0, 4});
  EXPECT_TRUE(empty.reshapedView({4, 0, 2}).ok());

  // A view of a borrowed tensor is borrowed.
  int32_t buffer[4] = {7, 8, 9, 10};
  HostTensor borrowed = *HostTensor::borrow(DType::I32, {4}, buffer);
  absl::StatusOr<HostTensor> square = borrowed.reshapedView({2, 2});
  ASSERT_TRUE(square.ok());
  EXPECT_FALSE(square->isOwned());
  EXPECT_EQ(square->data(), buffer);

  absl::StatusOr<HostTensor> wrong = cube->reshapedView({7});
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.status().message(), HasSubstr("6 elements"));
  EXPECT_EQ(cube->reshapedView({-6}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HostTensorTest, CopiesShareOwnedStorageClonesDoNot) {
  HostTensor original = fromDoubles(DType::I32, {3}, {1, 2, 3});
  HostTensor copy = original;
  EXPECT_EQ(copy.data(), original.data());
  copy.setInt(0, 10);
  EXPECT_EQ(original.getInt(0), 10);

  HostTensor deep = original.clone();
  EXPECT_NE(deep.data(), original.data());
  EXPECT_EQ(deep.shape(), original.shape());
  EXPECT_EQ(deep.dtype(), original.dtype());
  deep.setInt(1, 20);
  EXPECT_EQ(original.getInt(1), 2);
  original.setInt(2, 30);
  EXPECT_EQ(deep.getInt(2), 3);

  // Storage outlives the original.
  HostTensor moved = std::move(original);
  original = HostTensor();
  EXPECT_EQ(moved.getInt(0), 10);
  EXPECT_EQ(copy.getInt(2), 30);

  HostTensor emptyClone = make(DType::F16, {0}).clone();
  EXPECT_EQ(emptyClone.numElements(), 0);
  EXPECT_EQ(emptyClone.describe(), "tensor<0xf16>");
}

TEST(HostTensorTest, DescribeAndUnflatten) {
  EXPECT_EQ(make(DType::F32, {2, 3}).describe(), "tensor<2x3xf32>");
  EXPECT_EQ(make(DType::BF16, {}).describe(), "tensor<bf16>");
  EXPECT_EQ(make(DType::I1, {0, 4}).describe(), "tensor<0x4xi1>");
  EXPECT_EQ(make(DType::I8, {1, 1, 1, 7}).describe(), "tensor<1x1x1x7xi8>");
  HostTensor tensor = make(DType::F32, {2, 3, 4});
  EXPECT_EQ(tensor.unflattenIndex(0), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(tensor.unflattenIndex(23), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(tensor.unflattenIndex(13), (std::vector<int64_t>{1, 0, 1}));
}

TEST(HostTensorTest, DataAsMatchesGetters) {
  HostTensor tensor = fromDoubles(DType::F64, {3}, {0.5, -1.25, 3});
  EXPECT_EQ(tensor.dataAs<double>()[1], -1.25);
  tensor.dataAs<double>()[2] = 9.0;
  EXPECT_EQ(tensor.getDouble(2), 9.0);
  const HostTensor &constTensor = tensor;
  EXPECT_EQ(constTensor.dataAs<double>()[0], 0.5);

  HostTensor half = fromDoubles(DType::F16, {1}, {1.0});
  EXPECT_EQ(half.dataAs<uint16_t>()[0], 0x3c00);
  HostTensor bf = fromDoubles(DType::BF16, {1}, {1.0});
  EXPECT_EQ(bf.dataAs<uint16_t>()[0], 0x3f80);
  HostTensor flag = fromDoubles(DType::I1, {2}, {0, 5});
  EXPECT_EQ(flag.dataAs<uint8_t>()[0], 0);
  EXPECT_EQ(flag.dataAs<uint8_t>()[1], 1);
}

TEST(HostTensorTest, SetDoubleToFloats) {
  HostTensor f32 = make(DType::F32, {1});
  f32.setDouble(0, 0.1);
  EXPECT_EQ(f32.getDouble(0), static_cast<double>(0.1f));
  f32.setDouble(0, 1e300);
  EXPECT_EQ(f32.getDouble(0), kInf);
  f32.setDouble(0, kNaN);
  EXPECT_TRUE(std::isnan(f32.getDouble(0)));
  EXPECT_EQ(f32.getInt(0), 0);

  HostTensor f16 = make(DType::F16, {1});
  f16.setDouble(0, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30));
  EXPECT_EQ(f16.getDouble(0), 1.0 + std::ldexp(1.0, -10)); // Single rounding.
  f16.setDouble(0, 70000);
  EXPECT_EQ(f16.getDouble(0), kInf);
  f16.setDouble(0, -kInf);
  EXPECT_EQ(f16.getDouble(0), -kInf);
  EXPECT_EQ(f16.getInt(0), kI64Min);

  HostTensor bf16 = make(DType::BF16, {1});
  bf16.setDouble(0, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30));
  EXPECT_EQ(bf16.getDouble(0), 1.0 + std::ldexp(1.0, -7));
  bf16.setDouble(0, 3.0);
  EXPECT_EQ(bf16.getInt(0), 3);

  HostTensor f64 = make(DType::F64, {1});
  f64.setDouble(0, 0.1);
  EXPECT_EQ(f64.getDouble(0), 0.1);
}

TEST(HostTensorTest, SetDoubleToIntsSaturatesAndTruncates) {
  HostTensor i8 = make(DType::I8, {1});
  const std::pair<double, int64_t> i8Cases[] = {
      {200.7, 127}, {-1000, -128}, {-3.9, -3}, {3.9, 3},     {kNaN, 0},
      {kInf, 127},  {-kInf, -128}, {127, 127}, {-128, -128}, {-0.5, 0}};
  for (auto [in, out] : i8Cases) {
    i8.setDouble(0, in);
    EXPECT_EQ(i8.getInt(0), out) << in;
  }

  HostTensor i32 = make(DType::I32, {1});
  const std::pair<double, int64_t> i32Cases[] = {
      {3e9, kI32Max}, {-3e9, kI32Min}, {2.5, 2},        {-2.5, -2},
      {kNaN, 0},      {kInf, kI32Max}, {1e300, kI32Max}};
  for (auto [in, out] : i32Cases) {
    i32.setDouble(0, in);
    EXPECT_EQ(i32.getInt(0), out) << in;
  }

  HostTensor i64 = make(DType::I64, {1});
  const std::pair<double, int64_t> i64Cases[] = {
      {1e19, kI64Max},
      {-1e19, kI64Min},
      {9223372036854775808.0, kI64Max},
      {-9223372036854775808.0, kI64Min},
      {9223372036854774784.0, 9223372036854774784},
      {kNaN, 0},
      {-kInf, kI64Min},
      {-7.99, -7}};
  for (auto [in, out] : i64Cases) {
    i64.setDouble(0, in);
    EXPECT_EQ(i64.getInt(0), out) << in;
  }

  HostTensor i1 = make(DType::I1, {1});
  const std::pair<double, int64_t> i1Cases[] = {{0.0, 0}, {-0.0, 0}, {0.5, 1},
                                                {-3, 1},  {kInf, 1}, {kNaN, 1}};
  for (auto [in, out] : i1Cases) {
    i1.setDouble(0, in);
    EXPECT_EQ(i1.getInt(0), out) << in;
    EXPECT_EQ(i1.getDouble(0), static_cast<double>(out)) << in;
  }
}

TEST(HostTensorTest, SetIntWrapsIntegers) {
  HostTensor i8 = make(DType::I8, {1});
  const std::pair<int64_t, int64_t> i8Cases[] = {
      {200, -56}, {256, 0}, {-129, 127}, {-1, -1}, {kI64Max, -1}, {127, 127}};
  for (auto [in, out] : i8Cases) {
    i8.setInt(0, in);
    EXPECT_EQ(i8.getInt(0), out) << in;
    EXPECT_EQ(i8.getDouble(0), static_cast<double>(out)) << in;
  }

  HostTensor i32 = make(DType::I32, {1});
  const std::pair<int64_t, int64_t> i32Cases[] = {
      {(int64_t(1) << 32) + 5, 5},
      {int64_t(0x80000000), kI32Min},
      {-(int64_t(1) << 31) - 1, kI32Max},
      {kI64Min, 0}};
  for (auto [in, out] : i32Cases) {
    i32.setInt(0, in);
    EXPECT_EQ(i32.getInt(0), out) << in;
  }

  HostTensor i64 = make(DType::I64, {2});
  i64.setInt(0, kI64Min);
  i64.setInt(1, kI64Max);
  EXPECT_EQ(i64.getInt(0), kI64Min);
  EXPECT_EQ(i64.getInt(1), kI64Max);
  i64.setInt(0, (int64_t(1) << 53) + 1);
  EXPECT_EQ(i64.getInt(0), (int64_t(1) << 53) + 1);
  i64.setInt(0, int64_t(1) << 53);
  EXPECT_EQ(i64.getDouble(0), std::ldexp(1.0, 53));

  HostTensor i1 = make(DType::I1, {1});
  const std::pair<int64_t, int64_t> i1Cases[] = {
      {0, 0}, {1, 1}, {2, 1}, {-1, 1}, {256, 1}, {kI64Min, 1}};
  for (auto [in, out] : i1Cases) {
    i1.setInt(0, in);
    EXPECT_EQ(i1.getInt(0), out) << in;
    EXPECT_EQ(i1.dataAs<uint8_t>()[0], out) << in;
  }
}

TEST(HostTensorTest, SetIntToFloatsRoundsOnce) {
  HostTensor f32 = make(DType::F32, {1});
  f32.setInt(0, (int64_t(1) << 24) + 1);
  EXPECT_EQ(f32.getDouble(0), std::ldexp(1.0, 24)); // Tie to even.
  f32.setInt(0, (int64_t(1) << 24) + 3);
  EXPECT_EQ(f32.getDouble(0), std::ldexp(1.0, 24) + 4);
  // 2^62 + 2^38 + 1 is just above a float tie; double rounding would drop it.
  f32.setInt(0, (int64_t(1) << 62) + (int64_t(1) << 38) + 1);
  EXPECT_EQ(f32.getDouble(0), std::ldexp(1.0, 62) + std::ldexp(1.0, 39));

  HostTensor f16 = make(DType::F16, {1});
  f16.setInt(0, 2049);
  EXPECT_EQ(f16.getDouble(0), 2048.0); // Tie to even.
  f16.setInt(0, 2051);
  EXPECT_EQ(f16.getDouble(0), 2052.0); // Tie to even.
  f16.setInt(0, -7);
  EXPECT_EQ(f16.getDouble(0), -7.0);
  f16.setInt(0, 70000);
  EXPECT_EQ(f16.getDouble(0), kInf);
  f16.setInt(0, kI64Min);
  EXPECT_EQ(f16.getDouble(0), -kInf);

  HostTensor bf16 = make(DType::BF16, {1});
  bf16.setInt(0, 257);
  EXPECT_EQ(bf16.getDouble(0), 256.0); // Tie to even.
  // Above a bf16 tie only by bits that converting to double would lose.
  bf16.setInt(0, (int64_t(1) << 62) + (int64_t(1) << 54) + 1);
  EXPECT_EQ(bf16.getDouble(0), std::ldexp(1.0, 62) + std::ldexp(1.0, 55));
  bf16.setInt(0, -((int64_t(1) << 62) + (int64_t(1) << 54) + 1));
  EXPECT_EQ(bf16.getDouble(0), -(std::ldexp(1.0, 62) + std::ldexp(1.0, 55)));
  bf16.setInt(0, (int64_t(1) << 62) + (int64_t(1) << 54));
  EXPECT_EQ(bf16.getDouble(0), std::ldexp(1.0, 62)); // Exact tie.
  bf16.setInt(0, kI64Max);
  EXPECT_EQ(bf16.getDouble(0), std::ldexp(1.0, 63));

  HostTensor f64 = make(DType::F64, {1});
  f64.setInt(0, (int64_t(1) << 53) + 1);
  EXPECT_EQ(f64.getDouble(0), std::ldexp(1.0, 53));
  f64.setInt(0, -12345);
  EXPECT_EQ(f64.getInt(0), -12345);
}

TEST(HostTensorTest, GetIntFromFloats) {
  HostTensor f64 = fromDoubles(
      DType::F64, {8}, {-2.7, 2.7, 1e30, -1e30, kNaN, kInf, -kInf, -0.0});
  const int64_t expected[] = {-2, 2, kI64Max, kI64Min, 0, kI64Max, kI64Min, 0};
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(f64.getInt(i), expected[i]) << i;
  HostTensor f32 = fromDoubles(DType::F32, {2}, {-3.5, 16777216.0});
  EXPECT_EQ(f32.getInt(0), -3);
  EXPECT_EQ(f32.getInt(1), 16777216);
}

TEST(HostTensorTest, GetReadsNonCanonicalBoolsAsOne) {
  uint8_t bytes[3] = {0, 1, 2};
  absl::StatusOr<HostTensor> view = HostTensor::borrow(DType::I1, {3}, bytes);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->getInt(2), 1);
  EXPECT_EQ(view->getDouble(2), 1.0);
  EXPECT_EQ(view->getInt(0), 0);
}

TEST(HostTensorTest, GetDoubleIntsExact) {
  HostTensor i64 = make(DType::I64, {2});
  i64.setInt(0, int64_t(1) << 53);
  i64.setInt(1, -(int64_t(1) << 53));
  EXPECT_EQ(i64.getDouble(0), 9007199254740992.0);
  EXPECT_EQ(i64.getDouble(1), -9007199254740992.0);
  HostTensor i32 = make(DType::I32, {1});
  i32.setInt(0, kI32Min);
  EXPECT_EQ(i32.getDouble(0), -2147483648.0);
}

TEST(AllCloseTest, PassesWithinTolerance) {
  HostTensor a = fromDoubles(DType::F32, {2, 2}, {1.0, 2.0, 3.0, 4.0});
  HostTensor b = fromDoubles(DType::F32, {2, 2}, {1.0, 2.001, 3.0, 4.0});
  EXPECT_TRUE(allClose(a, b, 1e-3, 0).ok());
  EXPECT_TRUE(allClose(a, b, 0, 0.0011).ok());
  EXPECT_FALSE(allClose(a, b, 1e-5, 1e-5).ok());
  EXPECT_TRUE(allClose(a, a, 0, 0).ok());
  HostTensor empty = make(DType::F16, {0, 3});
  EXPECT_TRUE(allClose(empty, empty.clone(), 0, 0).ok());
}

TEST(AllCloseTest, ToleranceIsRelativeToExpected) {
  HostTensor a = fromDoubles(DType::F64, {1}, {110});
  HostTensor b = fromDoubles(DType::F64, {1}, {100});
  EXPECT_TRUE(allClose(a, b, 0.1, 0).ok());   // |10| <= 0.1 * 100
  EXPECT_FALSE(allClose(b, a, 0.09, 0).ok()); // |10| > 0.09 * 110
}

TEST(AllCloseTest, FailureMessageDescribesWorstElement) {
  HostTensor a = fromDoubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6.5});
  HostTensor b = fromDoubles(DType::F32, {2, 3}, {1, 2.25, 3, 4, 5, 6});
  absl::Status status = allClose(a, b, 1e-5, 1e-8);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  std::string message(status.message());
  EXPECT_THAT(message, HasSubstr("2 of 6"));
  EXPECT_THAT(message, HasSubstr("worst at index 5 [1, 2]"));
  EXPECT_THAT(message, HasSubstr("got 6.5"));
  EXPECT_THAT(message, HasSubstr("expected 6"));
  EXPECT_THAT(message, HasSubstr("abs error 0.5"));
  EXPECT_THAT(message, HasSubstr("rel error 0.08333"));
  EXPECT_THAT(message, HasSubstr("tensor<2x3xf32>"));
}

TEST(AllCloseTest, NaNAndInfinity) {
  HostTensor a = fromDoubles(DType::F64, {3}, {kNaN, kInf, -kInf});
  EXPECT_TRUE(allClose(a, a.clone(), 0, 0).ok());

  HostTensor b = fromDoubles(DType::F64, {3}, {kNaN, -kInf, -kInf});
  absl::Status signs = allClose(a, b, 1, 1);
  ASSERT_FALSE(signs.ok());
  EXPECT_THAT(signs.message(), HasSubstr("index 1"));

  HostTensor c = fromDoubles(DType::F64, {3}, {1.0, kInf, -kInf});
  absl::Status nan = allClose(a, c, 1, 1);
  ASSERT_FALSE(nan.ok());
  EXPECT_THAT(nan.message(), HasSubstr("index 0"));
  EXPECT_THAT(nan.message(), HasSubstr("got nan"));

  HostTensor d = fromDoubles(DType::F64, {3}, {kNaN, 1e308, -kInf});
  EXPECT_FALSE(allClose(a, d, 1, 1).ok()); // inf vs finite, huge tolerance.

  HostTensor h = fromDoubles(DType::F16, {2}, {kNaN, kInf});
  EXPECT_TRUE(allClose(h, h.clone(), 0, 0).ok());
}

TEST(AllCloseTest, IntegersAreExact) {
  HostTensor a = make(DType::I64, {3});
  a.setInt(0, kI64Max);
  a.setInt(1, 5);
  a.setInt(2, -5);
  HostTensor b = a.clone();
  EXPECT_TRUE(allClose(a, b, 0, 0).ok());
  b.setInt(0, kI64Max - 1); // Differs only beyond double precision.
  absl::Status status = allClose(a, b, 1, 100);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("1 of 3"));
  EXPECT_THAT(status.message(), HasSubstr("got 9223372036854775807"));
  EXPECT_THAT(status.message(), HasSubstr("expected 9223372036854775806"));

  b = a.clone();
  b.setInt(1, 7);
  b.setInt(2, 100);
  status = allClose(a, b, 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("2 of 3"));
  EXPECT_THAT(status.message(), HasSubstr("worst at index 2"));
  EXPECT_THAT(status.message(), HasSubstr("abs error 105"));

  HostTensor p = fromDoubles(DType::I1, {2}, {1, 0});
  HostTensor q = fromDoubles(DType::I1, {2}, {1, 1});
  EXPECT_TRUE(allClose(p, p.clone(), 0, 0).ok());
  EXPECT_FALSE(allClose(p, q, 10, 10).ok());
}

TEST(HostTensorTest, NarrowAndUnsignedIntegers) {
  constexpr uint64_t kU64Max = ~uint64_t(0);
  // i16: wraps on setInt, saturates on setDouble.
  HostTensor i16 = make(DType::I16, {1});
  i16.setInt(0, 32768);
  EXPECT_EQ(i16.getInt(0), -32768);
  i16.setInt(0, -1);
  EXPECT_EQ(i16.dataAs<uint16_t>()[0], 0xffff);
  EXPECT_EQ(i16.getDouble(0), -1.0);
  i16.setDouble(0, 1e6);
  EXPECT_EQ(i16.getInt(0), 32767);
  i16.setDouble(0, -40000.5);
  EXPECT_EQ(i16.getInt(0), -32768);

  // ui8: 255 + 1 wraps to 0; -1 wraps to 255; doubles saturate to [0, 255].
  HostTensor ui8 = make(DType::UI8, {1});
  ui8.setInt(0, 255 + 1);
  EXPECT_EQ(ui8.getInt(0), 0);
  ui8.setInt(0, -1);
  EXPECT_EQ(ui8.getInt(0), 255);
  EXPECT_EQ(ui8.getDouble(0), 255.0);
  const std::pair<double, int64_t> ui8Cases[] = {{-1.0, 0},    {300.0, 255},
                                                 {254.9, 254}, {kNaN, 0},
                                                 {kInf, 255},  {-kInf, 0}};
  for (auto [in, out] : ui8Cases) {
    ui8.setDouble(0, in);
    EXPECT_EQ(ui8.getInt(0), out) << in;
  }

  HostTensor ui16 = make(DType::UI16, {1});
  ui16.setInt(0, 65535);
  EXPECT_EQ(ui16.getInt(0), 65535);
  EXPECT_EQ(ui16.getDouble(0), 65535.0);
  ui16.setInt(0, 65536 + 7);
  EXPECT_EQ(ui16.getInt(0), 7);

  HostTensor ui32 = make(DType::UI32, {1});
  ui32.setInt(0, -1);
  EXPECT_EQ(ui32.getInt(0), 4294967295);
  EXPECT_EQ(ui32.getUInt(0), 4294967295u);
  ui32.setDouble(0, 5e9);
  EXPECT_EQ(ui32.getInt(0), 4294967295);

  // ui64 values above 2^63 round-trip exactly through getUInt/setUInt, and
  // through getInt/setInt as their bit pattern.
  HostTensor ui64 = make(DType::UI64, {2});
  ui64.setUInt(0, kU64Max);
  ui64.setUInt(1, (uint64_t(1) << 63) + 1);
  EXPECT_EQ(ui64.getUInt(0), kU64Max);
  EXPECT_EQ(ui64.getInt(0), -1);
  EXPECT_EQ(ui64.getUInt(1), (uint64_t(1) << 63) + 1);
  EXPECT_EQ(ui64.getDouble(0), 18446744073709551616.0);
  ui64.setInt(1, ui64.getInt(0));
  EXPECT_EQ(ui64.dataAs<uint64_t>()[1], kU64Max);
  ui64.setDouble(0, 1e30);
  EXPECT_EQ(ui64.getUInt(0), kU64Max);
  ui64.setDouble(0, -5.0);
  EXPECT_EQ(ui64.getUInt(0), 0u);
  ui64.setDouble(0, 9223372036854775808.0);
  EXPECT_EQ(ui64.getUInt(0), uint64_t(1) << 63);

  // setUInt into floats converts the unsigned value, rounding once.
  HostTensor f32 = make(DType::F32, {1});
  f32.setUInt(0, kU64Max);
  EXPECT_EQ(f32.getDouble(0), std::ldexp(1.0, 64));
  HostTensor bf16 = make(DType::BF16, {1});
  bf16.setUInt(0, (uint64_t(1) << 63) + (uint64_t(1) << 55) + 1);
  EXPECT_EQ(bf16.getDouble(0), std::ldexp(1.0, 63) + std::ldexp(1.0, 56));
  // Floats read as uint64 truncate and saturate.
  HostTensor f64 = fromDoubles(DType::F64, {3}, {-2.5, 2.5, 1e30});
  EXPECT_EQ(f64.getUInt(0), 0u);
  EXPECT_EQ(f64.getUInt(1), 2u);
  EXPECT_EQ(f64.getUInt(2), kU64Max);
}

TEST(AllCloseTest, UnsignedIntegersAreExact) {
  HostTensor a = make(DType::UI64, {2});
  a.setUInt(0, ~uint64_t(0));
  a.setUInt(1, 3);
  HostTensor b = a.clone();
  EXPECT_TRUE(allClose(a, b, 0, 0).ok());
  b.setUInt(0, ~uint64_t(0) - 1);
  absl::Status status = allClose(a, b, 1, 100);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("got 18446744073709551615"));
  EXPECT_THAT(status.message(), HasSubstr("expected 18446744073709551614"));
  EXPECT_THAT(status.message(), HasSubstr("abs error 1,"));

  HostTensor c = make(DType::UI8, {2});
  c.setInt(0, 255);
  HostTensor d = c.clone();
  d.setInt(0, 0);
  status = allClose(c, d, 0, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("got 255, expected 0"));
  EXPECT_THAT(status.message(), HasSubstr("tensor<2xui8>"));
}

TEST(AllCloseTest, RequiresSameDTypeAndShape) {
  HostTensor a = make(DType::F32, {2, 3});
  absl::Status dtype = allClose(a, make(DType::F16, {2, 3}), 1, 1);
  ASSERT_FALSE(dtype.ok());
  EXPECT_THAT(dtype.message(), HasSubstr("dtype"));
  EXPECT_THAT(dtype.message(), HasSubstr("tensor<2x3xf16>"));
  absl::Status shape = allClose(a, make(DType::F32, {3, 2}), 1, 1);
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.message(), HasSubstr("shape"));
  EXPECT_FALSE(allClose(a, make(DType::F32, {6}), 1, 1).ok());
  EXPECT_FALSE(
      allClose(make(DType::F32, {}), make(DType::F32, {1}), 1, 1).ok());
}

} // namespace
