//===- ShapeTest.cpp - runtime/Shape.h ------------------------------------===//

#include "runtime/Shape.h"

#include "gtest/gtest.h"

using namespace tgc::runtime;
using Shape = std::vector<int64_t>;

namespace {

TEST(Shape, ElementsAndRowMajorStrides) {
  EXPECT_EQ(numElements(Shape{}), 1);
  EXPECT_EQ(numElements(Shape{2, 3, 4}), 24);
  EXPECT_EQ(numElements(Shape{2, 0, 4}), 0);
  EXPECT_EQ(rowMajorStrides(Shape{2, 3, 4}), (Shape{12, 4, 1}));
  EXPECT_EQ(rowMajorStrides(Shape{}), Shape{});
  // A zero dim counts as one: the strides stay distinct.
  EXPECT_EQ(rowMajorStrides(Shape{2, 0, 4}), (Shape{4, 4, 1}));
}

TEST(Shape, NumpyBroadcasting) {
  Shape out;
  ASSERT_TRUE(broadcastShapes(Shape{3, 1, 5}, Shape{4, 1}, out));
  EXPECT_EQ(out, (Shape{3, 4, 5}));
  ASSERT_TRUE(broadcastShapes(Shape{}, Shape{2, 2}, out));
  EXPECT_EQ(out, (Shape{2, 2}));
  EXPECT_FALSE(broadcastShapes(Shape{3}, Shape{4}, out));

  EXPECT_TRUE(broadcastsTo(Shape{1, 5}, Shape{3, 4, 5}));
  EXPECT_FALSE(broadcastsTo(Shape{2, 5}, Shape{3, 4, 5}));
  EXPECT_FALSE(broadcastsTo(Shape{1, 3, 4, 5}, Shape{3, 4, 5}));
  EXPECT_EQ(padRank(Shape{5}, 3), (Shape{1, 1, 5}));
  EXPECT_EQ(padRank(Shape{2, 5}, 1), (Shape{2, 5}));
}

TEST(Shape, BroadcastStridesAreZeroOnBroadcastDims) {
  EXPECT_EQ(broadcastStrides(Shape{4, 1}, Shape{3, 4, 5}), (Shape{0, 1, 0}));
  EXPECT_EQ(broadcastStrides(Shape{3, 4, 5}, Shape{3, 4, 5}),
            (Shape{20, 5, 1}));
  EXPECT_EQ(broadcastStrides(Shape{}, Shape{2, 2}), (Shape{0, 0}));
}

} // namespace
