//===- ElementwiseTest.cpp - interpreter tests for elementwise ops --------===//
//
// Expected values are worked out by hand (transcendental constants are the
// correctly rounded double values of the named expressions).
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

#include <cmath>

using namespace tgc::reference::test;

namespace {

HostTensor f32(Shape shape, std::vector<double> v) {
  return makeF(DType::F32, std::move(shape), std::move(v));
}

//===----------------------------------------------------------------------===//
// Unary float ops
//===----------------------------------------------------------------------===//

struct UnaryCase {
  const char *op;
  const char *attrs;
  std::vector<double> input, expected;
};

TEST(ReferenceElementwise, UnaryFloatOps) {
  const double e = 2.718281828459045;
  const UnaryCase cases[] = {
      {"neg", "", {-2, -0.5, 0, 1, 4}, {2, 0.5, 0, -1, -4}},
      {"abs", "", {-2, -0.5, 0, 1, 4}, {2, 0.5, 0, 1, 4}},
      {"exp", "", {0, 1, -1}, {1, e, 0.36787944117144233}},
      {"log", "", {1, e, 0.5}, {0, 1, -0.6931471805599453}},
      {"sqrt", "", {4, 2, 0}, {2, 1.4142135623730951, 0}},
      {"rsqrt", "", {4, 0.25, 0}, {0.5, 2, kInf}},
      {"reciprocal", "", {2, -4, 0}, {0.5, -0.25, kInf}},
      {"tanh", "", {0, 1, -1}, {0, 0.7615941559557649, -0.7615941559557649}},
      {"sigmoid",
       "",
       {0, 2, -2},
       {0.5, 0.8807970779778823, 0.11920292202211755}},
      {"relu", "", {-1, 0, 3, kNaN}, {0, 0, 3, kNaN}},
      {"erf", "", {0, 1, -0.5}, {0, 0.8427007929497149, -0.5204998778130465}},
      {"sin", "", {0, 1.5707963267948966, 0.5235987755982988}, {0, 1, 0.5}},
      {"cos", "", {0, 1.0471975511965976, 3.141592653589793}, {1, 0.5, -1}},
      {"floor", "", {-1.5, 1.5, 2, -0.25}, {-2, 1, 2, -1}},
      {"ceil", "", {-1.5, 1.5, 2, -0.25}, {-1, 2, 2, 0}},
      {"round",
       "",
       {0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6, 3.5},
       {0, 2, 2, 0, -2, 2, -3, 4}},
      {"sign", "", {-3, 0, 2, kNaN}, {-1, 0, 1, kNaN}},
      {"leaky_relu", "", {-2, 3, 0}, {-0.02, 3, 0}},
      {"leaky_relu", "{alpha = 0.2 : f64}", {-2, 3}, {-0.4, 3}},
      {"elu", "", {1, -1, 0}, {1, -0.6321205588285577, 0}},
      {"elu", "{alpha = 2.0 : f64}", {-1, 2}, {-1.2642411176571153, 2}},
      {"clamp",
       "{max = 6.0 : f64, min = 0.0 : f64}",
       {-1, 3, 7, kNaN},
       {0, 3, 6, kNaN}},
      {"gelu", "", {0, 1, -1}, {0, 0.8413447460685429, -0.15865525393145707}},
      {"gelu",
       "{approximate = #tgc.gelu_approximation<tanh>}",
       {0, 1},
       {0, 0.8411919906082768}},
  };
  for (const UnaryCase &c : cases) {
    SCOPED_TRACE(std::string(c.op) + " " + c.attrs);
    std::string type = "tensor<" + std::to_string(c.input.size()) + "xf64>";
    HostTensor out =
        runOne(unarySource(c.op, type, c.attrs),
               {makeF(DType::F64, {int64_t(c.input.size())}, c.input)});
    expectFloats(out, DType::F64, {int64_t(c.input.size())}, c.expected, 1e-15,
                 1e-15);
  }
}

TEST(ReferenceElementwise, RoundKeepsSignedZero) {
  HostTensor out =
      runOne(unarySource("round", "tensor<2xf32>"), {f32({2}, {-0.5, -0.0})});
  EXPECT_TRUE(std::signbit(out.getDouble(0)));
  EXPECT_EQ(out.getDouble(0), 0.0);
  EXPECT_TRUE(std::signbit(out.getDouble(1)));
}

TEST(ReferenceElementwise, UnaryOpsRoundToF16AndBF16) {
  // exp(1) = 2.71828...: f16 spacing at [2, 4) is 2^-9, so it rounds to
  // 1392 * 2^-9 = 2.71875; bf16 spacing there is 2^-6: 174 * 2^-6 = 2.71875.
  HostTensor h = runOne(unarySource("exp", "tensor<1xf16>"),
                        {makeF(DType::F16, {1}, {1.0})});
  EXPECT_EQ(h.getDouble(0), 2.71875);
  HostTensor b = runOne(unarySource("exp", "tensor<1xbf16>"),
                        {makeF(DType::BF16, {1}, {1.0})});
  EXPECT_EQ(b.getDouble(0), 2.71875);
  // sqrt(2) = 1.41421356...: f16 spacing at [1, 2) is 2^-10 -> 1448 * 2^-10
  // = 1.4140625; bf16 spacing 2^-7 -> 181 * 2^-7 = 1.4140625.
  HostTensor s = runOne(unarySource("sqrt", "tensor<1xf16>"),
                        {makeF(DType::F16, {1}, {2.0})});
  EXPECT_EQ(s.getDouble(0), 1.4140625);
  HostTensor sb = runOne(unarySource("sqrt", "tensor<1xbf16>"),
                         {makeF(DType::BF16, {1}, {2.0})});
  EXPECT_EQ(sb.getDouble(0), 1.4140625);
  // f32: sqrt(2) rounds to 1.41421353816986083984375.
  HostTensor sf =
      runOne(unarySource("sqrt", "tensor<1xf32>"), {f32({1}, {2.0})});
  EXPECT_EQ(sf.getDouble(0), 1.41421353816986083984375);
}

TEST(ReferenceElementwise, UnaryIntegerOps) {
  // neg/abs wrap: -(-128) is -128 in i8.
  expectInts(runOne(unarySource("neg", "tensor<4xi8>"),
                    {makeI(DType::I8, {4}, {-128, -1, 0, 127})}),
             DType::I8, {4}, {-128, 1, 0, -127});
  expectInts(runOne(unarySource("abs", "tensor<4xi8>"),
                    {makeI(DType::I8, {4}, {-128, -5, 0, 7})}),
             DType::I8, {4}, {-128, 5, 0, 7});
  expectInts(runOne(unarySource("neg", "tensor<2xi32>"),
                    {makeI(DType::I32, {2}, {INT32_MIN, 5})}),
             DType::I32, {2}, {INT32_MIN, -5});
  expectInts(runOne(unarySource("abs", "tensor<2xi64>"),
                    {makeI(DType::I64, {2}, {INT64_MIN, -9})}),
             DType::I64, {2}, {INT64_MIN, 9});
  expectInts(runOne(unarySource("relu", "tensor<3xi32>"),
                    {makeI(DType::I32, {3}, {-4, 0, 9})}),
             DType::I32, {3}, {0, 0, 9});
  expectInts(runOne(unarySource("sign", "tensor<3xi64>"),
                    {makeI(DType::I64, {3}, {-5, 0, 7})}),
             DType::I64, {3}, {-1, 0, 1});
  // Bounds convert toward zero: [-2.5, 100.7] -> [-2, 100].
  expectInts(runOne(unarySource("clamp", "tensor<4xi8>",
                                "{max = 100.7 : f64, min = -2.5 : f64}"),
                    {makeI(DType::I8, {4}, {-10, -2, 5, 127})}),
             DType::I8, {4}, {-2, -2, 5, 100});
  // Bounds beyond the type saturate.
  expectInts(runOne(unarySource("clamp", "tensor<2xi8>",
                                "{max = 1000.0 : f64, min = -1000.0 : f64}"),
                    {makeI(DType::I8, {2}, {-128, 127})}),
             DType::I8, {2}, {-128, 127});
  expectInts(runOne(unarySource("logical_not", "tensor<2xi1>"),
                    {makeI(DType::I1, {2}, {1, 0})}),
             DType::I1, {2}, {0, 1});
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

std::string castSource(const std::string &from, const std::string &to) {
  return "func.func @main(%x: " + from + ") -> " + to +
         " {\n  %0 = tgc.cast %x : " + from + " to " + to +
         "\n  return %0 : " + to + "\n}\n";
}

TEST(ReferenceElementwise, CastFloatToInt) {
  // Round toward zero, saturate, NaN -> 0.
  expectInts(runOne(castSource("tensor<7xf32>", "tensor<7xi8>"),
                    {f32({7}, {1.9, -1.9, 300, -300, kNaN, 127.5, -0.5})}),
             DType::I8, {7}, {1, -1, 127, -128, 0, 127, 0});
  expectInts(runOne(castSource("tensor<3xf64>", "tensor<3xi32>"),
                    {makeF(DType::F64, {3}, {3e9, -3e9, 2147483647.9})}),
             DType::I32, {3}, {INT32_MAX, INT32_MIN, INT32_MAX});
  expectInts(runOne(castSource("tensor<3xf64>", "tensor<3xi64>"),
                    {makeF(DType::F64, {3}, {1e30, -1e30, -kInf})}),
             DType::I64, {3}, {INT64_MAX, INT64_MIN, INT64_MIN});
  // Anything to i1 is x != 0 (NaN is non-zero).
  expectInts(runOne(castSource("tensor<4xf32>", "tensor<4xi1>"),
                    {f32({4}, {0, -0.0, 0.5, kNaN})}),
             DType::I1, {4}, {0, 0, 1, 1});
}

TEST(ReferenceElementwise, CastIntToInt) {
  // Wrap (truncate) and sign-extend.
  expectInts(runOne(castSource("tensor<4xi32>", "tensor<4xi8>"),
                    {makeI(DType::I32, {4}, {200, -129, 256, -1})}),
             DType::I8, {4}, {-56, 127, 0, -1});
  expectInts(runOne(castSource("tensor<2xi8>", "tensor<2xi64>"),
                    {makeI(DType::I8, {2}, {-1, -128})}),
             DType::I64, {2}, {-1, -128});
  expectInts(runOne(castSource("tensor<2xi64>", "tensor<2xi32>"),
                    {makeI(DType::I64, {2}, {(int64_t(1) << 32) + 7, -1})}),
             DType::I32, {2}, {7, -1});
  expectInts(runOne(castSource("tensor<3xi32>", "tensor<3xi1>"),
                    {makeI(DType::I32, {3}, {0, 2, -1})}),
             DType::I1, {3}, {0, 1, 1});
  // i1 -> numbers is 0 or 1 (never -1).
  expectInts(runOne(castSource("tensor<2xi1>", "tensor<2xi8>"),
                    {makeI(DType::I1, {2}, {1, 0})}),
             DType::I8, {2}, {1, 0});
  expectFloats(runOne(castSource("tensor<2xi1>", "tensor<2xf32>"),
                      {makeI(DType::I1, {2}, {1, 0})}),
               DType::F32, {2}, {1, 0}, 0, 0);
}

TEST(ReferenceElementwise, CastFloatToFloatRoundsToNearestEven) {
  // 65520 is halfway between f16's max 65504 and 65536 (infinity): even -> inf.
  // 1/3 -> 1365 * 2^-12.
  HostTensor h = runOne(castSource("tensor<3xf64>", "tensor<3xf16>"),
                        {makeF(DType::F64, {3}, {65520, 1.0 / 3, 0.1})});
  EXPECT_EQ(h.getDouble(0), kInf);
  EXPECT_EQ(h.getDouble(1), 0.333251953125);
  EXPECT_EQ(h.getDouble(2), 0.0999755859375);
  // bf16: 1 + 2^-8 is a tie -> 1; 1 + 3 * 2^-8 -> 1 + 2^-6.
  HostTensor b = runOne(castSource("tensor<2xf32>", "tensor<2xbf16>"),
                        {f32({2}, {1.00390625, 1.01171875})});
  EXPECT_EQ(b.getDouble(0), 1.0);
  EXPECT_EQ(b.getDouble(1), 1.015625);
  // Widening is exact.
  HostTensor w = runOne(castSource("tensor<1xf16>", "tensor<1xf64>"),
                        {makeF(DType::F16, {1}, {0.333251953125})});
  EXPECT_EQ(w.getDouble(0), 0.333251953125);
}

TEST(ReferenceElementwise, CastIntToFloat) {
  // 2^24 + 1 is not an f32: rounds to even 2^24.
  HostTensor f = runOne(castSource("tensor<2xi64>", "tensor<2xf32>"),
                        {makeI(DType::I64, {2}, {16777217, -3})});
  EXPECT_EQ(f.getDouble(0), 16777216.0);
  EXPECT_EQ(f.getDouble(1), -3.0);
  // 2049 is not an f16 (spacing 2 in [2048, 4096)): tie -> 2048.
  HostTensor h = runOne(castSource("tensor<2xi32>", "tensor<2xf16>"),
                        {makeI(DType::I32, {2}, {2049, 2051})});
  EXPECT_EQ(h.getDouble(0), 2048.0);
  EXPECT_EQ(h.getDouble(1), 2052.0);
}

TEST(ReferenceElementwise, CastDynamicShape) {
  HostTensor out = runOne(castSource("tensor<?x2xf32>", "tensor<?x2xi32>"),
                          {f32({3, 2}, {0.5, 1.5, -2.5, 3.9, 100, -7.1})});
  expectInts(out, DType::I32, {3, 2}, {0, 1, -2, 3, 100, -7});
}

//===----------------------------------------------------------------------===//
// Binary ops and broadcasting
//===----------------------------------------------------------------------===//

TEST(ReferenceElementwise, BinaryFloatOps) {
  HostTensor x = f32({4}, {1, -2, 9, 0.5}), y = f32({4}, {2, 4, -3, 0.5});
  const std::string t = "tensor<4xf32>";
  expectFloats(runOne(binarySource("add", t, t, t), {x, y}), DType::F32, {4},
               {3, 2, 6, 1});
  expectFloats(runOne(binarySource("sub", t, t, t), {x, y}), DType::F32, {4},
               {-1, -6, 12, 0});
  expectFloats(runOne(binarySource("mul", t, t, t), {x, y}), DType::F32, {4},
               {2, -8, -27, 0.25});
  expectFloats(runOne(binarySource("div", t, t, t), {x, y}), DType::F32, {4},
               {0.5, -0.5, -3, 1});
  expectFloats(runOne(binarySource("pow", t, t, t),
                      {f32({4}, {2, 4, -2, 0}), f32({4}, {0.5, -1, 3, 0})}),
               DType::F32, {4}, {1.4142135623730951, 0.25, -8, 1});
  expectFloats(runOne(binarySource("max", t, t, t), {x, y}), DType::F32, {4},
               {2, 4, 9, 0.5});
  expectFloats(runOne(binarySource("min", t, t, t), {x, y}), DType::F32, {4},
               {1, -2, -3, 0.5});
  // Float division by zero is IEEE.
  expectFloats(runOne(binarySource("div", t, t, t),
                      {f32({4}, {1, -1, 0, 3}), f32({4}, {0, 0, 0, -0.0})}),
               DType::F32, {4}, {kInf, -kInf, kNaN, -kInf});
}

TEST(ReferenceElementwise, MaxMinPropagateNaN) {
  const std::string t = "tensor<3xf32>";
  HostTensor x = f32({3}, {1, kNaN, 3}), y = f32({3}, {2, 0, kNaN});
  expectFloats(runOne(binarySource("max", t, t, t), {x, y}), DType::F32, {3},
               {2, kNaN, kNaN});
  expectFloats(runOne(binarySource("min", t, t, t), {x, y}), DType::F32, {3},
               {1, kNaN, kNaN});
}

TEST(ReferenceElementwise, BinaryIntegerOpsWrap) {
  const std::string t = "tensor<3xi8>";
  expectInts(runOne(binarySource("add", t, t, t),
                    {makeI(DType::I8, {3}, {100, -128, 1}),
                     makeI(DType::I8, {3}, {100, -1, 2})}),
             DType::I8, {3}, {-56, 127, 3});
  expectInts(runOne(binarySource("sub", t, t, t),
                    {makeI(DType::I8, {3}, {-128, 127, 5}),
                     makeI(DType::I8, {3}, {1, -1, 7})}),
             DType::I8, {3}, {127, -128, -2});
  expectInts(
      runOne(binarySource("mul", t, t, t), {makeI(DType::I8, {3}, {16, 64, -3}),
                                            makeI(DType::I8, {3}, {16, 3, 5})}),
      DType::I8, {3}, {0, -64, -15});
  const std::string l = "tensor<2xi64>";
  expectInts(runOne(binarySource("add", l, l, l),
                    {makeI(DType::I64, {2}, {INT64_MAX, 5}),
                     makeI(DType::I64, {2}, {1, 6})}),
             DType::I64, {2}, {INT64_MIN, 11});
  expectInts(
      runOne(binarySource("max", t, t, t), {makeI(DType::I8, {3}, {-5, 7, 0}),
                                            makeI(DType::I8, {3}, {-6, 9, 0})}),
      DType::I8, {3}, {-5, 9, 0});
  expectInts(
      runOne(binarySource("min", t, t, t), {makeI(DType::I8, {3}, {-5, 7, 0}),
                                            makeI(DType::I8, {3}, {-6, 9, 0})}),
      DType::I8, {3}, {-6, 7, 0});
}

TEST(ReferenceElementwise, IntegerDivisionRoundsTowardZero) {
  const std::string t = "tensor<5xi32>";
  expectInts(runOne(binarySource("div", t, t, t),
                    {makeI(DType::I32, {5}, {7, -7, 7, -7, INT32_MIN}),
                     makeI(DType::I32, {5}, {2, 2, -2, -2, -1})}),
             DType::I32, {5}, {3, -3, -3, 3, INT32_MIN});
  // INT8_MIN / -1 wraps to INT8_MIN.
  const std::string b = "tensor<1xi8>";
  expectInts(
      runOne(binarySource("div", b, b, b),
             {makeI(DType::I8, {1}, {-128}), makeI(DType::I8, {1}, {-1})}),
      DType::I8, {1}, {-128});
}

TEST(ReferenceElementwise, IntegerPow) {
  const std::string t = "tensor<7xi32>";
  expectInts(runOne(binarySource("pow", t, t, t),
                    {makeI(DType::I32, {7}, {2, 3, -1, 1, 0, -2, 5}),
                     makeI(DType::I32, {7}, {10, -1, -3, -5, 0, 3, -2})}),
             DType::I32, {7}, {1024, 0, -1, 1, 1, -8, 0});
  // 2^7 = 128 wraps to -128 in i8; 3^5 = 243 -> -13.
  const std::string b = "tensor<2xi8>";
  expectInts(
      runOne(binarySource("pow", b, b, b),
             {makeI(DType::I8, {2}, {2, 3}), makeI(DType::I8, {2}, {7, 5})}),
      DType::I8, {2}, {-128, -13});
}

TEST(ReferenceElementwise, LogicalOps) {
  const std::string t = "tensor<4xi1>";
  HostTensor x = makeI(DType::I1, {4}, {0, 0, 1, 1}),
             y = makeI(DType::I1, {4}, {0, 1, 0, 1});
  expectInts(runOne(binarySource("logical_and", t, t, t), {x, y}), DType::I1,
             {4}, {0, 0, 0, 1});
  expectInts(runOne(binarySource("logical_or", t, t, t), {x, y}), DType::I1,
             {4}, {0, 1, 1, 1});
}

TEST(ReferenceElementwise, BroadcastScalar) {
  expectFloats(runOne(binarySource("add", "tensor<f32>", "tensor<2x3xf32>",
                                   "tensor<2x3xf32>"),
                      {f32({}, {10}), f32({2, 3}, {1, 2, 3, 4, 5, 6})}),
               DType::F32, {2, 3}, {11, 12, 13, 14, 15, 16});
}

TEST(ReferenceElementwise, BroadcastRowAndColumn) {
  // Row: [2,3] - [3].
  expectFloats(runOne(binarySource("sub", "tensor<2x3xf32>", "tensor<3xf32>",
                                   "tensor<2x3xf32>"),
                      {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({3}, {1, 2, 3})}),
               DType::F32, {2, 3}, {0, 0, 0, 3, 3, 3});
  // Column: [2,1] * [2,3].
  expectFloats(
      runOne(binarySource("mul", "tensor<2x1xf32>", "tensor<2x3xf32>",
                          "tensor<2x3xf32>"),
             {f32({2, 1}, {10, 100}), f32({2, 3}, {1, 2, 3, 4, 5, 6})}),
      DType::F32, {2, 3}, {10, 20, 30, 400, 500, 600});
  // Outer: [2,1] + [1,3].
  expectFloats(runOne(binarySource("add", "tensor<2x1xf32>", "tensor<1x3xf32>",
                                   "tensor<2x3xf32>"),
                      {f32({2, 1}, {10, 20}), f32({1, 3}, {1, 2, 3})}),
               DType::F32, {2, 3}, {11, 12, 13, 21, 22, 23});
}

TEST(ReferenceElementwise, BroadcastRankExpanding) {
  // [2,1,3] + [4,1] -> [2,4,3]: out[a][b][c] = x[a][0][c] + y[b][0].
  HostTensor out = runOne(binarySource("add", "tensor<2x1x3xi32>",
                                       "tensor<4x1xi32>", "tensor<2x4x3xi32>"),
                          {makeI(DType::I32, {2, 1, 3}, {1, 2, 3, 4, 5, 6}),
                           makeI(DType::I32, {4, 1}, {0, 10, 20, 30})});
  expectInts(out, DType::I32, {2, 4, 3},
             {1, 2, 3, 11, 12, 13, 21, 22, 23, 31, 32, 33,
              4, 5, 6, 14, 15, 16, 24, 25, 26, 34, 35, 36});
}

TEST(ReferenceElementwise, BroadcastDynamicDims) {
  // ? against 1 stays dynamic; the run resolves it from the inputs.
  HostTensor out =
      runOne(binarySource("add", "tensor<?x3xf32>", "tensor<?x1xf32>",
                          "tensor<?x3xf32>"),
             {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 1}, {100, 200})});
  expectFloats(out, DType::F32, {2, 3}, {101, 102, 103, 204, 205, 206});
  // A dynamic dim of size 1 broadcasts against the other operand.
  HostTensor out2 = runOne(
      binarySource("mul", "tensor<?xf32>", "tensor<?xf32>", "tensor<?xf32>"),
      {f32({1}, {3}), f32({3}, {1, 2, 3})});
  expectFloats(out2, DType::F32, {3}, {3, 6, 9});
}

TEST(ReferenceElementwise, ZeroSizeDims) {
  HostTensor out = runOne(binarySource("add", "tensor<0x3xf32>",
                                       "tensor<3xf32>", "tensor<0x3xf32>"),
                          {f32({0, 3}, {}), f32({3}, {1, 2, 3})});
  expectFloats(out, DType::F32, {0, 3}, {});
  // 0 against 1 broadcasts to 0.
  HostTensor out2 = runOne(
      binarySource("add", "tensor<?x1xi8>", "tensor<1x?xi8>", "tensor<?x?xi8>"),
      {makeI(DType::I8, {0, 1}, {}), makeI(DType::I8, {1, 4}, {1, 2, 3, 4})});
  expectInts(out2, DType::I8, {0, 4}, {});
  HostTensor out3 = runOne(unarySource("exp", "tensor<2x0xf16>"),
                           {makeF(DType::F16, {2, 0}, {})});
  expectFloats(out3, DType::F16, {2, 0}, {});
}

TEST(ReferenceElementwise, F16RoundsAfterEveryOp) {
  // (1 + 2^-11) is a tie in f16 and rounds to 1, so (x + y) - x is 0 in an
  // f16 graph (it would be 2^-11 in f32).
  const char *source = R"(
func.func @main(%x: tensor<2xf16>, %y: tensor<2xf16>) -> tensor<2xf16> {
  %0 = tgc.add %x, %y : tensor<2xf16>
  %1 = tgc.sub %0, %x : tensor<2xf16>
  return %1 : tensor<2xf16>
}
)";
  // Second lane: 1 + 3 * 2^-11 is a tie between 1 + 2^-10 and 1 + 2^-9;
  // even is 1 + 2^-9, so the difference is 2^-9.
  HostTensor out =
      runOne(source, {makeF(DType::F16, {2}, {1, 1}),
                      makeF(DType::F16, {2}, {0.00048828125, 0.00146484375})});
  EXPECT_EQ(out.getDouble(0), 0.0);
  EXPECT_EQ(out.getDouble(1), 0.001953125);

  const char *bf = R"(
func.func @main(%x: tensor<2xbf16>, %y: tensor<2xbf16>) -> tensor<2xbf16> {
  %0 = tgc.add %x, %y : tensor<2xbf16>
  return %0 : tensor<2xbf16>
}
)";
  // bf16 spacing at 1 is 2^-7: 1 + 2^-8 ties to 1; 1 + 3 * 2^-8 -> 1 + 2^-6.
  HostTensor b =
      runOne(bf, {makeF(DType::BF16, {2}, {1, 1}),
                  makeF(DType::BF16, {2}, {0.00390625, 0.01171875})});
  EXPECT_EQ(b.getDouble(0), 1.0);
  EXPECT_EQ(b.getDouble(1), 1.015625);

  // f64 keeps 1 + 2^-30 exactly.
  HostTensor d = runOne(
      binarySource("add", "tensor<1xf64>", "tensor<1xf64>", "tensor<1xf64>"),
      {makeF(DType::F64, {1}, {1}),
       makeF(DType::F64, {1}, {std::ldexp(1.0, -30)})});
  EXPECT_EQ(d.getDouble(0), 1.0 + std::ldexp(1.0, -30));
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

TEST(ReferenceElementwise, CompareFloatsWithNaN) {
  struct Case {
    const char *predicate;
    std::vector<int64_t> expected;
  };
  // lhs [1, 2, NaN, 3], rhs [2, 2, NaN, NaN].
  const Case cases[] = {{"eq", {0, 1, 0, 0}}, {"ne", {1, 0, 1, 1}},
                        {"lt", {1, 0, 0, 0}}, {"le", {1, 1, 0, 0}},
                        {"gt", {0, 0, 0, 0}}, {"ge", {0, 1, 0, 0}}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.predicate);
    std::string source =
        std::string("func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> "
                    "tensor<4xi1> {\n  %0 = tgc.compare ") +
        c.predicate +
        ", %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n"
        "  return %0 : tensor<4xi1>\n}\n";
    expectInts(runOne(source, {f32({4}, {1, 2, kNaN, 3}),
                               f32({4}, {2, 2, kNaN, kNaN})}),
               DType::I1, {4}, c.expected);
  }
}

TEST(ReferenceElementwise, CompareIntsAndBoolsWithBroadcast) {
  const char *source = R"(
func.func @main(%x: tensor<2x3xi64>, %y: tensor<3xi64>) -> tensor<2x3xi1> {
  %0 = tgc.compare ge, %x, %y : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}
)";
  expectInts(runOne(source, {makeI(DType::I64, {2, 3}, {1, 5, -3, 0, 2, 9}),
                             makeI(DType::I64, {3}, {1, 6, -4})}),
             DType::I1, {2, 3}, {1, 0, 1, 0, 0, 1});
  const char *bools = R"(
func.func @main(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  %0 = tgc.compare ne, %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
)";
  expectInts(runOne(bools, {makeI(DType::I1, {4}, {0, 0, 1, 1}),
                            makeI(DType::I1, {4}, {0, 1, 0, 1})}),
             DType::I1, {4}, {0, 1, 1, 0});
}

TEST(ReferenceElementwise, SelectBroadcastsAllOperands) {
  const char *source = R"(
func.func @main(%c: tensor<2x1xi1>, %x: tensor<2x3xf32>, %y: tensor<f32>) -> tensor<2x3xf32> {
  %0 = tgc.select %c, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
)";
  expectFloats(runOne(source, {makeI(DType::I1, {2, 1}, {1, 0}),
                               f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({}, {-1})}),
               DType::F32, {2, 3}, {1, 2, 3, -1, -1, -1});
  const char *ints = R"(
func.func @main(%c: tensor<3xi1>, %x: tensor<3xi8>, %y: tensor<2x1xi8>) -> tensor<2x3xi8> {
  %0 = tgc.select %c, %x, %y : (tensor<3xi1>, tensor<3xi8>, tensor<2x1xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}
)";
  expectInts(runOne(ints, {makeI(DType::I1, {3}, {1, 0, 1}),
                           makeI(DType::I8, {3}, {1, 2, 3}),
                           makeI(DType::I8, {2, 1}, {-7, -8})}),
             DType::I8, {2, 3}, {1, -7, 3, 1, -8, 3});
  const char *halves = R"(
func.func @main(%c: tensor<2xi1>, %x: tensor<2xf16>, %y: tensor<2xf16>) -> tensor<2xf16> {
  %0 = tgc.select %c, %x, %y : (tensor<2xi1>, tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}
)";
  expectFloats(runOne(halves, {makeI(DType::I1, {2}, {0, 1}),
                               makeF(DType::F16, {2}, {1.5, 2.5}),
                               makeF(DType::F16, {2}, {-1.5, -2.5})}),
               DType::F16, {2}, {-1.5, 2.5}, 0, 0);
}

//===----------------------------------------------------------------------===//
// i16 and unsigned integers
//===----------------------------------------------------------------------===//

// ui64 values above INT64_MAX are written as their int64 bit pattern.
constexpr int64_t kU64Max = -1;             // 18446744073709551615
constexpr int64_t kU64Big = INT64_MIN;      // 9223372036854775808
constexpr int64_t kU64Big1 = INT64_MIN + 1; // 9223372036854775809

TEST(ReferenceElementwise, UnsignedArithmeticWraps) {
  const std::string t = "tensor<3xui8>";
  // 255 + 1 wraps to 0; 0 - 1 to 255; 16 * 16 to 0.
  expectInts(runOne(binarySource("add", t, t, t),
                    {makeI(DType::UI8, {3}, {255, 200, 1}),
                     makeI(DType::UI8, {3}, {1, 100, 2})}),
             DType::UI8, {3}, {0, 44, 3});
  expectInts(runOne(binarySource("sub", t, t, t),
                    {makeI(DType::UI8, {3}, {0, 5, 255}),
                     makeI(DType::UI8, {3}, {1, 7, 255})}),
             DType::UI8, {3}, {255, 254, 0});
  expectInts(runOne(binarySource("mul", t, t, t),
                    {makeI(DType::UI8, {3}, {16, 15, 255}),
                     makeI(DType::UI8, {3}, {16, 17, 255})}),
             DType::UI8, {3}, {0, 255, 1});
  // Negation wraps modulo 2^width.
  expectInts(runOne(unarySource("neg", "tensor<2xui16>"),
                    {makeI(DType::UI16, {2}, {1, 0})}),
             DType::UI16, {2}, {65535, 0});
  const std::string l = "tensor<2xui64>";
  expectInts(runOne(binarySource("add", l, l, l),
                    {makeI(DType::UI64, {2}, {kU64Max, INT64_MAX}),
                     makeI(DType::UI64, {2}, {1, 1})}),
             DType::UI64, {2}, {0, kU64Big});
}

TEST(ReferenceElementwise, UnsignedDivisionAndPow) {
  const std::string t = "tensor<3xui32>";
  // 4294967295 / 2 is 2147483647 (not -1 / 2 = 0).
  expectInts(runOne(binarySource("div", t, t, t),
                    {makeI(DType::UI32, {3}, {4294967295, 7, 4000000000}),
                     makeI(DType::UI32, {3}, {2, 2, 3})}),
             DType::UI32, {3}, {2147483647, 3, 1333333333});
  const std::string l = "tensor<2xui64>";
  expectInts(runOne(binarySource("div", l, l, l),
                    {makeI(DType::UI64, {2}, {kU64Max, kU64Big}),
                     makeI(DType::UI64, {2}, {kU64Big, 2})}),
             DType::UI64, {2}, {1, int64_t(1) << 62});
  // Division by zero is an error for unsigned types too.
  std::string error = runError(binarySource("div", t, t, t),
                               {makeI(DType::UI32, {3}, {4294967295, 1, 1}),
                                makeI(DType::UI32, {3}, {0, 1, 1})});
  EXPECT_NE(error.find("division by zero (4294967295 / 0)"), std::string::npos)
      << error;
  // 2^63 as an exponent is not negative: 1^(2^63) = 1, 2^(2^63) wraps to 0.
  expectInts(runOne(binarySource("pow", l, l, l),
                    {makeI(DType::UI64, {2}, {1, 2}),
                     makeI(DType::UI64, {2}, {kU64Big, kU64Big})}),
             DType::UI64, {2}, {1, 0});
  const std::string b = "tensor<2xui8>";
  expectInts(
      runOne(binarySource("pow", b, b, b),
             {makeI(DType::UI8, {2}, {2, 3}), makeI(DType::UI8, {2}, {7, 5})}),
      DType::UI8, {2}, {128, 243});
}

TEST(ReferenceElementwise, UnsignedCompareMaxMin) {
  const std::string l = "tensor<3xui64>";
  HostTensor x = makeI(DType::UI64, {3}, {kU64Max, 0, kU64Big});
  HostTensor y = makeI(DType::UI64, {3}, {0, 5, kU64Big1});
  // UINT64_MAX > 0 (as int64 it would be -1 < 0).
  expectInts(runOne(binarySource("compare gt,", l, l, "tensor<3xi1>"), {x, y}),
             DType::I1, {3}, {1, 0, 0});
  expectInts(runOne(binarySource("max", l, l, l), {x, y}), DType::UI64, {3},
             {kU64Max, 5, kU64Big1});
  expectInts(runOne(binarySource("min", l, l, l), {x, y}), DType::UI64, {3},
             {0, 0, kU64Big});
  const std::string b = "tensor<2xui8>";
  expectInts(runOne(binarySource("compare lt,", b, b, "tensor<2xi1>"),
                    {makeI(DType::UI8, {2}, {200, 1}),
                     makeI(DType::UI8, {2}, {100, 255})}),
             DType::I1, {2}, {0, 1});
}

TEST(ReferenceElementwise, UnsignedUnaryOps) {
  const std::string t = "tensor<3xui64>";
  HostTensor x = makeI(DType::UI64, {3}, {kU64Max, 0, 3});
  // Values above 2^63 are positive: abs and relu keep them, sign is 1.
  expectInts(runOne(unarySource("abs", t), {x}), DType::UI64, {3},
             {kU64Max, 0, 3});
  expectInts(runOne(unarySource("relu", t), {x}), DType::UI64, {3},
             {kU64Max, 0, 3});
  expectInts(runOne(unarySource("sign", t), {x}), DType::UI64, {3}, {1, 0, 1});
  // Clamp bounds saturate to [0, 255]: [-5, 300] -> [0, 255].
  expectInts(runOne(unarySource("clamp", "tensor<3xui8>",
                                "{max = 300.0 : f64, min = -5.0 : f64}"),
                    {makeI(DType::UI8, {3}, {0, 200, 255})}),
             DType::UI8, {3}, {0, 200, 255});
  expectInts(runOne(unarySource("clamp", "tensor<3xui8>",
                                "{max = 200.0 : f64, min = 10.0 : f64}"),
                    {makeI(DType::UI8, {3}, {0, 100, 255})}),
             DType::UI8, {3}, {10, 100, 200});
}

TEST(ReferenceElementwise, CastsWithUnsignedAndI16) {
  // Floats saturate: -1.0 -> 0 (documented tgc.cast behaviour), 300 -> 255.
  expectInts(runOne(castSource("tensor<5xf32>", "tensor<5xui8>"),
                    {f32({5}, {-1.0, 300, 254.9, kNaN, 0.5})}),
             DType::UI8, {5}, {0, 255, 254, 0, 0});
  expectInts(
      runOne(castSource("tensor<3xf64>", "tensor<3xui64>"),
             {makeF(DType::F64, {3}, {1e30, 9223372036854775808.0, -7})}),
      DType::UI64, {3}, {kU64Max, kU64Big, 0});
  expectInts(runOne(castSource("tensor<2xf32>", "tensor<2xi16>"),
                    {f32({2}, {40000, -40000})}),
             DType::I16, {2}, {32767, -32768});
  // Integers wrap: -1 : i8 -> 255 : ui8; 255 : ui8 -> 255 : i32 (zero
  // extension); 65535 : ui16 -> -1 : i16; -1 : i64 -> UINT64_MAX.
  expectInts(runOne(castSource("tensor<2xi8>", "tensor<2xui8>"),
                    {makeI(DType::I8, {2}, {-1, 5})}),
             DType::UI8, {2}, {255, 5});
  expectInts(runOne(castSource("tensor<2xui8>", "tensor<2xi32>"),
                    {makeI(DType::UI8, {2}, {255, 5})}),
             DType::I32, {2}, {255, 5});
  expectInts(runOne(castSource("tensor<1xui16>", "tensor<1xi16>"),
                    {makeI(DType::UI16, {1}, {65535})}),
             DType::I16, {1}, {-1});
  expectInts(runOne(castSource("tensor<1xi64>", "tensor<1xui64>"),
                    {makeI(DType::I64, {1}, {-1})}),
             DType::UI64, {1}, {kU64Max});
  // Unsigned to float converts the unsigned value.
  HostTensor f = runOne(castSource("tensor<2xui64>", "tensor<2xf64>"),
                        {makeI(DType::UI64, {2}, {kU64Max, 7})});
  EXPECT_EQ(f.getDouble(0), 18446744073709551616.0);
  EXPECT_EQ(f.getDouble(1), 7.0);
  HostTensor g = runOne(castSource("tensor<1xui32>", "tensor<1xf32>"),
                        {makeI(DType::UI32, {1}, {4294967295})});
  EXPECT_EQ(g.getDouble(0), 4294967296.0);
}

TEST(ReferenceElementwise, ShiftOps) {
  const std::string t = "tensor<4xui8>";
  // Logical shifts; amounts of at least the width give 0.
  expectInts(runOne(binarySource("shift_left", t, t, t),
                    {makeI(DType::UI8, {4}, {1, 255, 3, 1}),
                     makeI(DType::UI8, {4}, {7, 1, 2, 8})}),
             DType::UI8, {4}, {128, 254, 12, 0});
  expectInts(runOne(binarySource("shift_right", t, t, t),
                    {makeI(DType::UI8, {4}, {128, 255, 3, 255}),
                     makeI(DType::UI8, {4}, {7, 1, 2, 200})}),
             DType::UI8, {4}, {1, 127, 0, 0});
  const std::string l = "tensor<2xui64>";
  expectInts(runOne(binarySource("shift_right", l, l, l),
                    {makeI(DType::UI64, {2}, {kU64Max, kU64Big}),
                     makeI(DType::UI64, {2}, {63, 64})}),
             DType::UI64, {2}, {1, 0});
  // Signed right shifts are arithmetic.
  const std::string s = "tensor<3xi16>";
  expectInts(runOne(binarySource("shift_right", s, s, s),
                    {makeI(DType::I16, {3}, {-32768, -1, 100}),
                     makeI(DType::I16, {3}, {15, 20, 2})}),
             DType::I16, {3}, {-1, -1, 25});
  expectInts(runOne(binarySource("shift_left", s, s, s),
                    {makeI(DType::I16, {3}, {1, 3, 1}),
                     makeI(DType::I16, {3}, {15, 1, -1})}),
             DType::I16, {3}, {-32768, 6, 0});
}

TEST(ReferenceElementwise, I16Arithmetic) {
  const std::string t = "tensor<3xi16>";
  expectInts(runOne(binarySource("add", t, t, t),
                    {makeI(DType::I16, {3}, {32767, -32768, 5}),
                     makeI(DType::I16, {3}, {1, -1, -7})}),
             DType::I16, {3}, {-32768, 32767, -2});
  expectInts(runOne(binarySource("div", t, t, t),
                    {makeI(DType::I16, {3}, {-7, -32768, 9}),
                     makeI(DType::I16, {3}, {2, -1, -4})}),
             DType::I16, {3}, {-3, -32768, -2});
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(ReferenceElementwise, IntegerDivisionByZeroIsAnError) {
  const std::string t = "tensor<2xi32>";
  std::string error =
      runError(binarySource("div", t, t, t), {makeI(DType::I32, {2}, {1, 2}),
                                              makeI(DType::I32, {2}, {1, 0})});
  EXPECT_NE(error.find("test.mlir:2:"), std::string::npos) << error;
  EXPECT_NE(error.find("'tgc.div' op"), std::string::npos) << error;
  EXPECT_NE(error.find("division by zero"), std::string::npos) << error;
}

TEST(ReferenceElementwise, Int64MinDividedByMinusOneIsAnError) {
  const std::string t = "tensor<1xi64>";
  std::string error = runError(
      binarySource("div", t, t, t),
      {makeI(DType::I64, {1}, {INT64_MIN}), makeI(DType::I64, {1}, {-1})});
  EXPECT_NE(error.find("'tgc.div' op"), std::string::npos) << error;
  EXPECT_NE(error.find("overflow"), std::string::npos) << error;
}

TEST(ReferenceElementwise, DynamicBroadcastMismatchIsAnError) {
  std::string error = runError(
      binarySource("add", "tensor<?xf32>", "tensor<?xf32>", "tensor<?xf32>"),
      {f32({2}, {1, 2}), f32({3}, {1, 2, 3})});
  EXPECT_NE(error.find("'tgc.add' op operand shapes 2, 3 are not "
                       "broadcast-compatible"),
            std::string::npos)
      << error;
}

} // namespace
