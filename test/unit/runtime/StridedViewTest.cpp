//===- StridedViewTest.cpp - non-contiguous views -------------------------===//

#include "tgc/StridedView.h"

#include <gtest/gtest.h>

using namespace tgc::runtime;

namespace {

HostTensor iota(std::vector<int64_t> shape) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, static_cast<double>(i));
  return t;
}

std::vector<double> values(const HostTensor &t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numElements(); ++i)
    out.push_back(t.getDouble(i));
  return out;
}

TEST(StridedView, TransposeIsPacked) {
  HostTensor buffer = iota({2, 3}); // [[0 1 2] [3 4 5]]
  auto view = StridedView::over(buffer, 0, {3, 2}, {1, 3});
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_FALSE(view->isContiguous());
  auto dense = view->dense();
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(dense->shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(*dense), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(StridedView, SteppedReversedAndBroadcast) {
  HostTensor buffer = iota({4, 3});
  // Every other row, columns reversed: rows 0 and 2.
  auto stepped = StridedView::over(buffer, 2, {2, 3}, {6, -1});
  ASSERT_TRUE(stepped.ok()) << stepped.status();
  EXPECT_EQ(values(*stepped->dense()), (std::vector<double>{2, 1, 0, 8, 7, 6}));
  // Row 1 broadcast to 3 rows (stride 0).
  auto broadcast = StridedView::over(buffer, 3, {3, 3}, {0, 1});
  ASSERT_TRUE(broadcast.ok());
  EXPECT_EQ(values(*broadcast->dense()),
            (std::vector<double>{3, 4, 5, 3, 4, 5, 3, 4, 5}));
}

TEST(StridedView, ContiguousViewsShareStorage) {
  HostTensor buffer = iota({2, 3});
  StridedView whole = StridedView::of(buffer);
  EXPECT_TRUE(whole.isContiguous());
  auto dense = whole.dense();
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(dense->data(), buffer.data());
  auto reshaped = StridedView::over(buffer, 0, {3, 2}, {2, 1});
  ASSERT_TRUE(reshaped.ok());
  EXPECT_TRUE(reshaped->isContiguous());
}

TEST(StridedView, OutOfBoundsViewsAreRejected) {
  HostTensor buffer = iota({2, 3});
  EXPECT_FALSE(StridedView::over(buffer, 0, {3, 3}, {3, 1}).ok());
  EXPECT_FALSE(StridedView::over(buffer, 1, {2}, {-2}).ok());
  EXPECT_FALSE(StridedView::over(buffer, 0, {2}, {1, 1}).ok());
  EXPECT_FALSE(StridedView::over(buffer, 0, {-1}, {1}).ok());
  auto overflow = StridedView::over(buffer, 0, {2, 2}, {INT64_MAX, INT64_MAX});
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(std::string(overflow.status().message()).find("outside"),
            std::string::npos)
      << overflow.status();
  // Zero-size views address nothing.
  auto empty = StridedView::over(buffer, 100, {0, 5}, {7, 7});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->dense()->numElements(), 0);
}

} // namespace
