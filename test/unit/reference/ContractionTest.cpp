//===- ContractionTest.cpp - interpreter tests for matmul, conv, pools ----===//

#include "TestUtils.h"

#include <chrono>

using namespace tgc::reference::test;

namespace {

HostTensor f32(Shape shape, std::vector<double> v) {
  return makeF(DType::F32, std::move(shape), std::move(v));
}

std::vector<double> iota(int64_t n, double start = 1) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(start + static_cast<double>(i));
  return v;
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

std::string matmulSource(const std::string &lhs, const std::string &rhs,
                         const std::string &result,
                         const std::string &attrs = "") {
  return "func.func @main(%x: " + lhs + ", %y: " + rhs + ") -> " + result +
         " {\n  %0 = tgc.matmul %x, %y " + attrs + " : (" + lhs + ", " + rhs +
         ") -> " + result + "\n  return %0 : " + result + "\n}\n";
}

// [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]].
TEST(ReferenceContraction, Matmul) {
  expectFloats(runOne(matmulSource("tensor<2x3xf32>", "tensor<3x2xf32>",
                                   "tensor<2x2xf32>"),
                      {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                       f32({3, 2}, {7, 8, 9, 10, 11, 12})}),
               DType::F32, {2, 2}, {58, 64, 139, 154}, 0, 0);
}

TEST(ReferenceContraction, MatmulTransposes) {
  // A^T stored as 3x2, B^T stored as 2x3; same product as above.
  HostTensor at = f32({3, 2}, {1, 4, 2, 5, 3, 6});
  HostTensor bt = f32({2, 3}, {7, 9, 11, 8, 10, 12});
  expectFloats(runOne(matmulSource("tensor<3x2xf32>", "tensor<3x2xf32>",
                                   "tensor<2x2xf32>", "{transpose_a}"),
                      {at, f32({3, 2}, {7, 8, 9, 10, 11, 12})}),
               DType::F32, {2, 2}, {58, 64, 139, 154}, 0, 0);
  expectFloats(runOne(matmulSource("tensor<2x3xf32>", "tensor<2x3xf32>",
                                   "tensor<2x2xf32>", "{transpose_b}"),
                      {f32({2, 3}, {1, 2, 3, 4, 5, 6}), bt}),
               DType::F32, {2, 2}, {58, 64, 139, 154}, 0, 0);
  expectFloats(
      runOne(matmulSource("tensor<3x2xf32>", "tensor<2x3xf32>",
                          "tensor<2x2xf32>", "{transpose_a, transpose_b}"),
             {at, bt}),
      DType::F32, {2, 2}, {58, 64, 139, 154}, 0, 0);
}

TEST(ReferenceContraction, MatmulBatchBroadcast) {
  // lhs batch 0 = identity, batch 1 = [[1,1],[0,1]]; rhs [[1,2],[3,4]] shared.
  expectFloats(runOne(matmulSource("tensor<2x2x2xf32>", "tensor<2x2xf32>",
                                   "tensor<2x2x2xf32>"),
                      {f32({2, 2, 2}, {1, 0, 0, 1, 1, 1, 0, 1}),
                       f32({2, 2}, {1, 2, 3, 4})}),
               DType::F32, {2, 2, 2}, {1, 2, 3, 4, 4, 6, 3, 4}, 0, 0);
  // Batch dims [2,1] and [3] broadcast to [2,3]; each product is 1x2 * 2x1.
  // lhs rows: [1,2] and [3,4]; rhs columns: [1,0], [0,1], [1,1].
  expectFloats(runOne(matmulSource("tensor<2x1x1x2xf32>", "tensor<3x2x1xf32>",
                                   "tensor<2x3x1x1xf32>"),
                      {f32({2, 1, 1, 2}, {1, 2, 3, 4}),
                       f32({3, 2, 1}, {1, 0, 0, 1, 1, 1})}),
               DType::F32, {2, 3, 1, 1}, {1, 2, 3, 3, 4, 7}, 0, 0);
}

TEST(ReferenceContraction, MatmulDynamicAndEmpty) {
  expectFloats(
      runOne(
          matmulSource("tensor<?x?xf32>", "tensor<?x2xf32>", "tensor<?x2xf32>"),
          {f32({1, 3}, {1, 1, 1}), f32({3, 2}, {1, 2, 3, 4, 5, 6})}),
      DType::F32, {1, 2}, {9, 12}, 0, 0);
  // K = 0: the empty sum is 0.
  expectFloats(runOne(matmulSource("tensor<2x0xf32>", "tensor<0x3xf32>",
                                   "tensor<2x3xf32>"),
                      {f32({2, 0}, {}), f32({0, 3}, {})}),
               DType::F32, {2, 3}, {0, 0, 0, 0, 0, 0}, 0, 0);
  expectFloats(runOne(matmulSource("tensor<0x2xf32>", "tensor<2x3xf32>",
                                   "tensor<0x3xf32>"),
                      {f32({0, 2}, {}), f32({2, 3}, iota(6))}),
               DType::F32, {0, 3}, {}, 0, 0);
}

TEST(ReferenceContraction, MatmulIntegersAccumulateInI64AndWrap) {
  // 100 * 1 + 100 * 1 = 200 wraps to -56 in i8.
  expectInts(
      runOne(matmulSource("tensor<1x2xi8>", "tensor<2x1xi8>", "tensor<1x1xi8>"),
             {makeI(DType::I8, {1, 2}, {100, 100}),
              makeI(DType::I8, {2, 1}, {1, 1})}),
      DType::I8, {1, 1}, {-56});
  // 127 * 127 + 127 * 127 - 127 * 127 = 16129 -> 16129 mod 256 = 1: the
  // intermediate sum does not saturate.
  expectInts(
      runOne(matmulSource("tensor<1x3xi8>", "tensor<3x1xi8>", "tensor<1x1xi8>"),
             {makeI(DType::I8, {1, 3}, {127, 127, -127}),
              makeI(DType::I8, {3, 1}, {127, 127, 127})}),
      DType::I8, {1, 1}, {1});
  expectInts(runOne(matmulSource("tensor<2x2xi64>", "tensor<2x2xi64>",
                                 "tensor<2x2xi64>"),
                    {makeI(DType::I64, {2, 2}, {1, 2, 3, 4}),
                     makeI(DType::I64, {2, 2}, {5000000000, 0, 0, -1})}),
             DType::I64, {2, 2}, {5000000000, -2, 15000000000, -4});
}

TEST(ReferenceContraction, MatmulF16RoundsOnlyTheResult) {
  // 1 * 1 + 2^-11 * 1 + 2^-11 * 1 = 1 + 2^-10 (exact in f16); rounding every
  // partial sum to f16 would give 1.
  HostTensor out = runOne(
      matmulSource("tensor<1x3xf16>", "tensor<3x1xf16>", "tensor<1x1xf16>"),
      {makeF(DType::F16, {1, 3}, {1, 0.00048828125, 0.00048828125}),
       makeF(DType::F16, {3, 1}, {1, 1, 1})});
  EXPECT_EQ(out.getDouble(0), 1.0009765625);
}

TEST(ReferenceContraction, MatmulContractionMismatchIsAnError) {
  std::string error = runError(
      matmulSource("tensor<2x?xf32>", "tensor<?x2xf32>", "tensor<2x2xf32>"),
      {f32({2, 3}, iota(6)), f32({4, 2}, iota(8))});
  EXPECT_NE(error.find("'tgc.matmul' op contraction dims differ"),
            std::string::npos)
      << error;
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

std::string convSource(const std::string &input, const std::string &filter,
                       const std::string &result, const std::string &attrs,
                       const std::string &bias = "") {
  std::string args = "%x: " + input + ", %w: " + filter;
  std::string operands = "%x, %w";
  std::string types = input + ", " + filter;
  if (!bias.empty()) {
    args += ", %b: " + bias;
    operands += ", %b";
    types += ", " + bias;
  }
  return "func.func @main(" + args + ") -> " + result +
         " {\n  %0 = tgc.conv2d " + operands + " " + attrs + " : (" + types +
         ") -> " + result + "\n  return %0 : " + result + "\n}\n";
}

// Input 3x3 = [[1,2,3],[4,5,6],[7,8,9]].
TEST(ReferenceContraction, Conv2DBasicWithBias) {
  // Filter [[1,0],[0,1]]: out[i][j] = x[i][j] + x[i+1][j+1].
  expectFloats(
      runOne(convSource("tensor<1x1x3x3xf32>", "tensor<1x1x2x2xf32>",
                        "tensor<1x1x2x2xf32>", ""),
             {f32({1, 1, 3, 3}, iota(9)), f32({1, 1, 2, 2}, {1, 0, 0, 1})}),
      DType::F32, {1, 1, 2, 2}, {6, 8, 12, 14}, 0, 0);
  expectFloats(runOne(convSource("tensor<1x1x3x3xf32>", "tensor<1x1x2x2xf32>",
                                 "tensor<1x1x2x2xf32>", "", "tensor<1xf32>"),
                      {f32({1, 1, 3, 3}, iota(9)),
                       f32({1, 1, 2, 2}, {1, 0, 0, 1}), f32({1}, {10})}),
               DType::F32, {1, 1, 2, 2}, {16, 18, 22, 24}, 0, 0);
}

TEST(ReferenceContraction, Conv2DPaddingStrideDilation) {
  // All-ones 2x2 filter, padding 1 all round, stride 2: windows at rows/cols
  // {-1, 1}: [x00, x01+x02, x10+x20, x11+x12+x21+x22] = [1, 5, 11, 28].
  expectFloats(
      runOne(convSource("tensor<1x1x3x3xf32>", "tensor<1x1x2x2xf32>",
                        "tensor<1x1x2x2xf32>",
                        "{padding = array<i64: 1, 1, 1, 1>, strides = "
                        "array<i64: 2, 2>}"),
             {f32({1, 1, 3, 3}, iota(9)), f32({1, 1, 2, 2}, {1, 1, 1, 1})}),
      DType::F32, {1, 1, 2, 2}, {1, 5, 11, 28}, 0, 0);
  // Dilation 2: the corners, 1 + 3 + 7 + 9.
  expectFloats(
      runOne(convSource("tensor<1x1x3x3xf32>", "tensor<1x1x2x2xf32>",
                        "tensor<1x1x1x1xf32>",
                        "{dilations = array<i64: 2, 2>}"),
             {f32({1, 1, 3, 3}, iota(9)), f32({1, 1, 2, 2}, {1, 1, 1, 1})}),
      DType::F32, {1, 1, 1, 1}, {20}, 0, 0);
  // Padding order is [top, left, bottom, right]: only a top row of zeros.
  // Rows -1..0: [1+2, 2+3]; rows 0..1: [12, 16]; rows 1..2: [24, 28].
  expectFloats(
      runOne(convSource("tensor<1x1x3x3xf32>", "tensor<1x1x2x2xf32>",
                        "tensor<1x1x3x2xf32>",
                        "{padding = array<i64: 1, 0, 0, 0>}"),
             {f32({1, 1, 3, 3}, iota(9)), f32({1, 1, 2, 2}, {1, 1, 1, 1})}),
      DType::F32, {1, 1, 3, 2}, {3, 5, 12, 16, 24, 28}, 0, 0);
  // Only a right column: cols 0..1: [12, 16, 24, 28]... with 2 rows of
  // windows, and cols 2..3: [3+6, 6+9].
  expectFloats(
      runOne(convSource("tensor<1x1x3x3xf32>", "tensor<1x1x2x2xf32>",
                        "tensor<1x1x2x3xf32>",
                        "{padding = array<i64: 0, 0, 0, 1>}"),
             {f32({1, 1, 3, 3}, iota(9)), f32({1, 1, 2, 2}, {1, 1, 1, 1})}),
      DType::F32, {1, 1, 2, 3}, {12, 16, 9, 24, 28, 15}, 0, 0);
}

TEST(ReferenceContraction, Conv2DMultiChannel) {
  // 2 input channels (x, 10 * x) and 2 output channels; 1x1 filters
  // [[1, 1], [2, -1]]: out0 = 11 x, out1 = 2x - 10x = -8x.
  std::vector<double> in = {1, 2, 3, 4, 10, 20, 30, 40};
  expectFloats(
      runOne(convSource("tensor<1x2x2x2xf32>", "tensor<2x2x1x1xf32>",
                        "tensor<1x2x2x2xf32>", ""),
             {f32({1, 2, 2, 2}, in), f32({2, 2, 1, 1}, {1, 1, 2, -1})}),
      DType::F32, {1, 2, 2, 2}, {11, 22, 33, 44, -8, -16, -24, -32}, 0, 0);
}

TEST(ReferenceContraction, Conv2DGrouped) {
  // 4 channels [1,2,3,4] in 2 groups; filter 0 = [1, 10] sees channels 0-1,
  // filter 1 = [100, 1000] sees channels 2-3.
  expectFloats(runOne(convSource("tensor<1x4x1x1xf32>", "tensor<2x2x1x1xf32>",
                                 "tensor<1x2x1x1xf32>", "{groups = 2 : i64}"),
                      {f32({1, 4, 1, 1}, {1, 2, 3, 4}),
                       f32({2, 2, 1, 1}, {1, 10, 100, 1000})}),
               DType::F32, {1, 2, 1, 1}, {21, 4300}, 0, 0);
}

// Depthwise with multiplier 2: channel 0 = [[1,2],[3,4]], channel 1 =
// [[5,6],[7,8]]; filters [1, 2] for channel 0 and [3, 4] for channel 1.
const std::vector<double> kDepthwiseOut = {1,  2,  3,  4,  2,  4,  6,  8,
                                           15, 18, 21, 24, 20, 24, 28, 32};

TEST(ReferenceContraction, Conv2DDepthwiseNCHW) {
  expectFloats(
      runOne(convSource("tensor<1x2x2x2xf32>", "tensor<4x1x1x1xf32>",
                        "tensor<1x4x2x2xf32>", "{groups = 2 : i64}"),
             {f32({1, 2, 2, 2}, iota(8)), f32({4, 1, 1, 1}, {1, 2, 3, 4})}),
      DType::F32, {1, 4, 2, 2}, kDepthwiseOut, 0, 0);
}

TEST(ReferenceContraction, Conv2DDepthwiseNHWC) {
  // The same numbers in NHWC / HWIO: input (h, w) -> [c0, c1].
  HostTensor out =
      runOne(convSource("tensor<1x2x2x2xf32>", "tensor<1x1x1x4xf32>",
                        "tensor<1x2x2x4xf32>",
                        "{groups = 2 : i64, layout = #tgc.layout<NHWC>}"),
             {f32({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8}),
              f32({1, 1, 1, 4}, {1, 2, 3, 4})});
  // NHWC order of kDepthwiseOut.
  expectFloats(out, DType::F32, {1, 2, 2, 4},
               {1, 2, 15, 20, 2, 4, 18, 24, 3, 6, 21, 28, 4, 8, 24, 32}, 0, 0);
}

TEST(ReferenceContraction, Conv2DNHWCMatchesNCHW) {
  // The padded/strided case and the 2-channel case in NHWC / HWIO.
  expectFloats(
      runOne(convSource("tensor<1x3x3x1xf32>", "tensor<2x2x1x1xf32>",
                        "tensor<1x2x2x1xf32>",
                        "{layout = #tgc.layout<NHWC>, padding = array<i64: 1, "
                        "1, 1, 1>, strides = array<i64: 2, 2>}"),
             {f32({1, 3, 3, 1}, iota(9)), f32({2, 2, 1, 1}, {1, 1, 1, 1})}),
      DType::F32, {1, 2, 2, 1}, {1, 5, 11, 28}, 0, 0);
  // HWIO filter [1x1x2x2]: w[0][0][i][o] = OIHW w[o][i]: [[1, 2], [1, -1]].
  HostTensor out =
      runOne(convSource("tensor<1x2x2x2xf32>", "tensor<1x1x2x2xf32>",
                        "tensor<1x2x2x2xf32>", "{layout = #tgc.layout<NHWC>}",
                        "tensor<2xf32>"),
             {f32({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40}),
              f32({1, 1, 2, 2}, {1, 2, 1, -1}), f32({2}, {0.5, -0.5})});
  expectFloats(out, DType::F32, {1, 2, 2, 2},
               {11.5, -8.5, 22.5, -16.5, 33.5, -24.5, 44.5, -32.5}, 0, 0);
}

TEST(ReferenceContraction, Conv2DDynamicBatchAndF16) {
  // Two images with the [[1,0],[0,1]] filter.
  std::vector<double> in = iota(9);
  std::vector<double> in2 = iota(9, 10);
  in.insert(in.end(), in2.begin(), in2.end());
  HostTensor out =
      runOne(convSource("tensor<?x1x3x3xf16>", "tensor<1x1x2x2xf16>",
                        "tensor<?x1x2x2xf16>", ""),
             {makeF(DType::F16, {2, 1, 3, 3}, in),
              makeF(DType::F16, {1, 1, 2, 2}, {1, 0, 0, 1})});
  expectFloats(out, DType::F16, {2, 1, 2, 2}, {6, 8, 12, 14, 24, 26, 30, 32}, 0,
               0);
}

TEST(ReferenceContraction, Conv2DResNetSizedIsFast) {
  // 1x64x56x56 * 64x64x3x3, padding 1: an all-ones input and filter give 576
  // in the interior, 384 on edges and 256 in corners.
  auto input = HostTensor::allocate(DType::F32, {1, 64, 56, 56});
  auto filter = HostTensor::allocate(DType::F32, {64, 64, 3, 3});
  ASSERT_TRUE(input.ok() && filter.ok());
  for (int64_t i = 0; i < input->numElements(); ++i)
    input->dataAs<float>()[i] = 1;
  for (int64_t i = 0; i < filter->numElements(); ++i)
    filter->dataAs<float>()[i] = 1;
  auto start = std::chrono::steady_clock::now();
  HostTensor out =
      runOne(convSource("tensor<1x64x56x56xf32>", "tensor<64x64x3x3xf32>",
                        "tensor<1x64x56x56xf32>",
                        "{padding = array<i64: 1, 1, 1, 1>}"),
             {*input, *filter});
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_LT(seconds, 30.0);
  ASSERT_EQ(out.shape(), (Shape{1, 64, 56, 56}));
  EXPECT_EQ(out.getDouble(0), 256);                   // corner (0, 0)
  EXPECT_EQ(out.getDouble(1), 384);                   // top edge (0, 1)
  EXPECT_EQ(out.getDouble(56 + 1), 576);              // interior (1, 1)
  EXPECT_EQ(out.getDouble(63 * 56 * 56 + 3135), 256); // last corner
}

TEST(ReferenceContraction, Conv2DGroupMismatchIsAnError) {
  // Dynamic channels that the run makes inconsistent with the filter.
  std::string error =
      runError(convSource("tensor<1x?x2x2xf32>", "tensor<1x2x1x1xf32>",
                          "tensor<1x1x2x2xf32>", ""),
               {f32({1, 3, 2, 2}, iota(12)), f32({1, 2, 1, 1}, {1, 1})});
  EXPECT_NE(error.find("'tgc.conv2d' op"), std::string::npos) << error;
  EXPECT_NE(error.find("input channels per group"), std::string::npos) << error;
  // A dynamic spatial dim smaller than the window.
  std::string small =
      runError(convSource("tensor<1x1x?x3xf32>", "tensor<1x1x2x2xf32>",
                          "tensor<1x1x?x2xf32>", ""),
               {f32({1, 1, 1, 3}, iota(3)), f32({1, 1, 2, 2}, {1, 1, 1, 1})});
  EXPECT_NE(small.find("padded input height 1 is smaller than the dilated "
                       "window 2"),
            std::string::npos)
      << small;
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

// Input 4x4 = 1..16 row-major.
TEST(ReferenceContraction, MaxPool) {
  expectFloats(runOne(functionalSource("max_pool2d", "tensor<1x1x4x4xf32>",
                                       "tensor<1x1x2x2xf32>",
                                       "{kernel = array<i64: 2, 2>, strides = "
                                       "array<i64: 2, 2>}"),
                      {f32({1, 1, 4, 4}, iota(16))}),
               DType::F32, {1, 1, 2, 2}, {6, 8, 14, 16}, 0, 0);
}

TEST(ReferenceContraction, MaxPoolPaddingNeverWins) {
  // Negative input: windows over rows/cols {-1..1, 1..3}; the zero padding
  // must not win: [-1, -2, -5, -6].
  std::vector<double> neg;
  for (double v : iota(16))
    neg.push_back(-v);
  expectFloats(runOne(functionalSource("max_pool2d", "tensor<1x1x4x4xf32>",
                                       "tensor<1x1x2x2xf32>",
                                       "{kernel = array<i64: 3, 3>, padding = "
                                       "array<i64: 1, 1, 1, 1>, strides = "
                                       "array<i64: 2, 2>}"),
                      {f32({1, 1, 4, 4}, neg)}),
               DType::F32, {1, 1, 2, 2}, {-1, -2, -5, -6}, 0, 0);
}

TEST(ReferenceContraction, PoolCeilMode) {
  // 3x3 = 1..9, kernel 2, stride 2, ceil_mode: 2x2 outputs whose last
  // windows hang over the edge.
  const char *attrs =
      "{ceil_mode, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}";
  expectFloats(runOne(functionalSource("max_pool2d", "tensor<1x1x3x3xf32>",
                                       "tensor<1x1x2x2xf32>", attrs),
                      {f32({1, 1, 3, 3}, iota(9))}),
               DType::F32, {1, 1, 2, 2}, {5, 6, 8, 9}, 0, 0);
  // Positions past the input never count, with or without count_include_pad.
  for (const char *a :
       {attrs, "{ceil_mode, count_include_pad, kernel = array<i64: 2, 2>, "
               "strides = array<i64: 2, 2>}"}) {
    SCOPED_TRACE(a);
    expectFloats(runOne(functionalSource("avg_pool2d", "tensor<1x1x3x3xf32>",
                                         "tensor<1x1x2x2xf32>", a),
                        {f32({1, 1, 3, 3}, iota(9))}),
                 DType::F32, {1, 1, 2, 2}, {3, 4.5, 7.5, 9}, 0, 0);
  }
  // Without ceil_mode the output is 1x1.
  expectFloats(runOne(functionalSource("avg_pool2d", "tensor<1x1x3x3xf32>",
                                       "tensor<1x1x1x1xf32>",
                                       "{kernel = array<i64: 2, 2>, strides = "
                                       "array<i64: 2, 2>}"),
                      {f32({1, 1, 3, 3}, iota(9))}),
               DType::F32, {1, 1, 1, 1}, {3}, 0, 0);
}

TEST(ReferenceContraction, AvgPoolCountIncludePad) {
  // 4x4 = 1..16, kernel 3, stride 2, padding 1: window sums 14, 30, 57, 99
  // over 4, 6, 6, 9 real elements; with count_include_pad every divisor is 9.
  const std::string attrs =
      "kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = "
      "array<i64: 2, 2>";
  expectFloats(
      runOne(functionalSource("avg_pool2d", "tensor<1x1x4x4xf32>",
                              "tensor<1x1x2x2xf32>", "{" + attrs + "}"),
             {f32({1, 1, 4, 4}, iota(16))}),
      DType::F32, {1, 1, 2, 2}, {3.5, 5, 9.5, 11});
  expectFloats(runOne(functionalSource("avg_pool2d", "tensor<1x1x4x4xf32>",
                                       "tensor<1x1x2x2xf32>",
                                       "{count_include_pad, " + attrs + "}"),
                      {f32({1, 1, 4, 4}, iota(16))}),
               DType::F32, {1, 1, 2, 2},
               {1.5555555555555556, 3.3333333333333335, 6.333333333333333, 11});
}

TEST(ReferenceContraction, PoolPaddingWithCeilMode) {
  // Row [1,2,3,4], kernel [1,3], stride [1,2], padding left/right 1, ceil:
  // windows cover cols -1..1, 1..3, 3..5. The last window holds 4, the pad
  // column 4 and col 5, which is past the padded input.
  const std::string attrs =
      "kernel = array<i64: 1, 3>, padding = array<i64: 0, 1, 0, 1>, strides = "
      "array<i64: 1, 2>";
  expectFloats(
      runOne(functionalSource("avg_pool2d", "tensor<1x1x1x4xf32>",
                              "tensor<1x1x1x3xf32>",
                              "{ceil_mode, count_include_pad, " + attrs + "}"),
             {f32({1, 1, 1, 4}, {1, 2, 3, 4})}),
      DType::F32, {1, 1, 1, 3}, {1, 3, 2}, 0, 0);
  expectFloats(runOne(functionalSource("avg_pool2d", "tensor<1x1x1x4xf32>",
                                       "tensor<1x1x1x3xf32>",
                                       "{ceil_mode, " + attrs + "}"),
                      {f32({1, 1, 1, 4}, {1, 2, 3, 4})}),
               DType::F32, {1, 1, 1, 3}, {1.5, 3, 4}, 0, 0);
  expectFloats(runOne(functionalSource("max_pool2d", "tensor<1x1x1x4xf32>",
                                       "tensor<1x1x1x3xf32>",
                                       "{ceil_mode, " + attrs + "}"),
                      {f32({1, 1, 1, 4}, {1, 2, 3, 4})}),
               DType::F32, {1, 1, 1, 3}, {2, 4, 4}, 0, 0);
  // Floor mode drops the last window.
  expectFloats(runOne(functionalSource("avg_pool2d", "tensor<1x1x1x4xf32>",
                                       "tensor<1x1x1x2xf32>",
                                       "{count_include_pad, " + attrs + "}"),
                      {f32({1, 1, 1, 4}, {1, 2, 3, 4})}),
               DType::F32, {1, 1, 1, 2}, {1, 3}, 0, 0);
}

TEST(ReferenceContraction, PoolDilationAndNHWC) {
  // Dilation 2 on 3x3: the corners 1, 3, 7, 9.
  const char *dilated =
      "{dilations = array<i64: 2, 2>, kernel = array<i64: 2, 2>}";
  expectFloats(runOne(functionalSource("max_pool2d", "tensor<1x1x3x3xf32>",
                                       "tensor<1x1x1x1xf32>", dilated),
                      {f32({1, 1, 3, 3}, iota(9))}),
               DType::F32, {1, 1, 1, 1}, {9}, 0, 0);
  expectFloats(runOne(functionalSource("avg_pool2d", "tensor<1x1x3x3xf32>",
                                       "tensor<1x1x1x1xf32>", dilated),
                      {f32({1, 1, 3, 3}, iota(9))}),
               DType::F32, {1, 1, 1, 1}, {5}, 0, 0);
  // NHWC 2x2x2: channel 0 = 1..4, channel 1 = 5..8.
  HostTensor nhwc = f32({1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8});
  const char *attrs = "{kernel = array<i64: 2, 2>, layout = #tgc.layout<NHWC>}";
  expectFloats(runOne(functionalSource("max_pool2d", "tensor<1x2x2x2xf32>",
                                       "tensor<1x1x1x2xf32>", attrs),
                      {nhwc}),
               DType::F32, {1, 1, 1, 2}, {4, 8}, 0, 0);
  expectFloats(runOne(functionalSource("avg_pool2d", "tensor<1x2x2x2xf32>",
                                       "tensor<1x1x1x2xf32>", attrs),
                      {nhwc}),
               DType::F32, {1, 1, 1, 2}, {2.5, 6.5}, 0, 0);
}

TEST(ReferenceContraction, PoolF16AndBF16) {
  // mean(1, 2, 2, 2) = 1.75, exact in both.
  expectFloats(runOne(functionalSource("avg_pool2d", "tensor<1x1x2x2xf16>",
                                       "tensor<1x1x1x1xf16>",
                                       "{kernel = array<i64: 2, 2>}"),
                      {makeF(DType::F16, {1, 1, 2, 2}, {1, 2, 2, 2})}),
               DType::F16, {1, 1, 1, 1}, {1.75}, 0, 0);
  expectFloats(runOne(functionalSource("max_pool2d", "tensor<1x1x2x2xbf16>",
                                       "tensor<1x1x1x1xbf16>",
                                       "{kernel = array<i64: 2, 2>}"),
                      {makeF(DType::BF16, {1, 1, 2, 2}, {1, -2, 3.5, 2})}),
               DType::BF16, {1, 1, 1, 1}, {3.5}, 0, 0);
}

TEST(ReferenceContraction, PoolDynamicSpatialDims) {
  HostTensor out =
      runOne(functionalSource(
                 "max_pool2d", "tensor<1x1x?x?xf32>", "tensor<1x1x?x?xf32>",
                 "{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}"),
             {f32({1, 1, 4, 4}, iota(16))});
  expectFloats(out, DType::F32, {1, 1, 2, 2}, {6, 8, 14, 16}, 0, 0);
}

TEST(ReferenceContraction, GlobalAvgPool) {
  expectFloats(
      runOne(functionalSource("global_avg_pool2d", "tensor<1x2x2x2xf32>",
                              "tensor<1x2x1x1xf32>"),
             {f32({1, 2, 2, 2}, iota(8))}),
      DType::F32, {1, 2, 1, 1}, {2.5, 6.5}, 0, 0);
  expectFloats(
      runOne(functionalSource("global_avg_pool2d", "tensor<?x2x2x2xf64>",
                              "tensor<?x1x1x2xf64>",
                              "{layout = #tgc.layout<NHWC>}"),
             {makeF(DType::F64, {1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8})}),
      DType::F64, {1, 1, 1, 2}, {2.5, 6.5}, 0, 0);
}

} // namespace
