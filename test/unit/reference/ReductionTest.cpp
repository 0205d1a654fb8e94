//===- ReductionTest.cpp - interpreter tests for reductions and norms -----===//

#include "TestUtils.h"

#include <cmath>

using namespace tgc::reference::test;

namespace {

HostTensor f32(Shape shape, std::vector<double> v) {
  return makeF(DType::F32, std::move(shape), std::move(v));
}

// x = [[1, 2, 3], [4, 5, 6]].
HostTensor x23() { return f32({2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(ReferenceReduction, FloatReductions) {
  const std::string in = "tensor<2x3xf32>";
  expectFloats(runOne(functionalSource("reduce_sum", in, "tensor<2xf32>",
                                       "{axes = array<i64: 1>}"),
                      {x23()}),
               DType::F32, {2}, {6, 15}, 0, 0);
  expectFloats(runOne(functionalSource("reduce_sum", in, "tensor<1x3xf32>",
                                       "{axes = array<i64: 0>, keepdims}"),
                      {x23()}),
               DType::F32, {1, 3}, {5, 7, 9}, 0, 0);
  expectFloats(runOne(functionalSource("reduce_sum", in, "tensor<f32>",
                                       "{axes = array<i64: 0, 1>}"),
                      {x23()}),
               DType::F32, {}, {21}, 0, 0);
  expectFloats(runOne(functionalSource("reduce_mean", in, "tensor<2xf32>",
                                       "{axes = array<i64: 1>}"),
                      {x23()}),
               DType::F32, {2}, {2, 5}, 0, 0);
  expectFloats(runOne(functionalSource("reduce_max", in, "tensor<3xf32>",
                                       "{axes = array<i64: 0>}"),
                      {x23()}),
               DType::F32, {3}, {4, 5, 6}, 0, 0);
  expectFloats(runOne(functionalSource("reduce_min", in, "tensor<2x1xf32>",
                                       "{axes = array<i64: 1>, keepdims}"),
                      {x23()}),
               DType::F32, {2, 1}, {1, 4}, 0, 0);
  expectFloats(runOne(functionalSource("reduce_prod", in, "tensor<2xf32>",
                                       "{axes = array<i64: 1>}"),
                      {x23()}),
               DType::F32, {2}, {6, 120}, 0, 0);
}

TEST(ReferenceReduction, MiddleAxisOfRank3) {
  // 2x2x2 = 1..8, sum over axis 1: [[1+3, 2+4], [5+7, 6+8]].
  expectFloats(
      runOne(functionalSource("reduce_sum", "tensor<2x2x2xf64>",
                              "tensor<2x2xf64>", "{axes = array<i64: 1>}"),
             {makeF(DType::F64, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}),
      DType::F64, {2, 2}, {4, 6, 12, 14}, 0, 0);
  // Axes 0 and 2 kept as 1: [1+2+5+6, 3+4+7+8].
  expectFloats(runOne(functionalSource("reduce_sum", "tensor<2x2x2xf64>",
                                       "tensor<1x2x1xf64>",
                                       "{axes = array<i64: 0, 2>, keepdims}"),
                      {makeF(DType::F64, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}),
               DType::F64, {1, 2, 1}, {14, 22}, 0, 0);
}

TEST(ReferenceReduction, MaxMinPropagateNaN) {
  HostTensor x = f32({2, 2}, {1, kNaN, 3, 4});
  expectFloats(
      runOne(functionalSource("reduce_max", "tensor<2x2xf32>", "tensor<2xf32>",
                              "{axes = array<i64: 1>}"),
             {x}),
      DType::F32, {2}, {kNaN, 4}, 0, 0);
  expectFloats(
      runOne(functionalSource("reduce_min", "tensor<2x2xf32>", "tensor<2xf32>",
                              "{axes = array<i64: 1>}"),
             {x}),
      DType::F32, {2}, {kNaN, 3}, 0, 0);
}

TEST(ReferenceReduction, EmptyReductionsGiveIdentities) {
  const std::string in = "tensor<2x0xf32>";
  const char *axes = "{axes = array<i64: 1>}";
  struct Case {
    const char *op;
    double value;
  };
  for (Case c : {Case{"reduce_sum", 0}, Case{"reduce_mean", kNaN},
                 Case{"reduce_max", -kInf}, Case{"reduce_min", kInf},
                 Case{"reduce_prod", 1}}) {
    SCOPED_TRACE(c.op);
    expectFloats(runOne(functionalSource(c.op, in, "tensor<2xf32>", axes),
                        {f32({2, 0}, {})}),
                 DType::F32, {2}, {c.value, c.value}, 0, 0);
  }
  // Integers: the lowest / highest value of the type.
  expectInts(runOne(functionalSource("reduce_max", "tensor<0xi8>", "tensor<i8>",
                                     "{axes = array<i64: 0>}"),
                    {makeI(DType::I8, {0}, {})}),
             DType::I8, {}, {-128});
  expectInts(runOne(functionalSource("reduce_min", "tensor<0xi32>",
                                     "tensor<i32>", "{axes = array<i64: 0>}"),
                    {makeI(DType::I32, {0}, {})}),
             DType::I32, {}, {INT32_MAX});
  expectInts(runOne(functionalSource("reduce_max", "tensor<0xi64>",
                                     "tensor<i64>", "{axes = array<i64: 0>}"),
                    {makeI(DType::I64, {0}, {})}),
             DType::I64, {}, {INT64_MIN});
  expectInts(runOne(functionalSource("reduce_prod", "tensor<?xi32>",
                                     "tensor<i32>", "{axes = array<i64: 0>}"),
                    {makeI(DType::I32, {0}, {})}),
             DType::I32, {}, {1});
  // Reducing a non-empty axis of an empty tensor gives an empty result.
  expectFloats(
      runOne(functionalSource("reduce_sum", "tensor<0x3xf32>", "tensor<0xf32>",
                              "{axes = array<i64: 1>}"),
             {f32({0, 3}, {})}),
      DType::F32, {0}, {}, 0, 0);
}

TEST(ReferenceReduction, IntegerReductionsWrap) {
  expectInts(runOne(functionalSource("reduce_sum", "tensor<3xi8>", "tensor<i8>",
                                     "{axes = array<i64: 0>}"),
                    {makeI(DType::I8, {3}, {100, 100, 1})}),
             DType::I8, {}, {-55});
  // 16 * 16 = 256 wraps to 0.
  expectInts(runOne(functionalSource("reduce_prod", "tensor<2xi8>",
                                     "tensor<i8>", "{axes = array<i64: 0>}"),
                    {makeI(DType::I8, {2}, {16, 16})}),
             DType::I8, {}, {0});
  expectInts(runOne(functionalSource("reduce_max", "tensor<2x2xi64>",
                                     "tensor<2xi64>", "{axes = array<i64: 0>}"),
                    {makeI(DType::I64, {2, 2}, {INT64_MIN, 5, -1, -7})}),
             DType::I64, {2}, {-1, 5});
  expectInts(runOne(functionalSource("reduce_min", "tensor<2x2xi32>",
                                     "tensor<2xi32>", "{axes = array<i64: 1>}"),
                    {makeI(DType::I32, {2, 2}, {3, -9, 0, 2})}),
             DType::I32, {2}, {-9, 0});
}

TEST(ReferenceReduction, DynamicAndHalfPrecision) {
  // Sum over the dynamic dim of a 4x3 input.
  HostTensor out =
      runOne(functionalSource("reduce_sum", "tensor<?x3xf32>", "tensor<3xf32>",
                              "{axes = array<i64: 0>}"),
             {f32({4, 3}, {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3})});
  expectFloats(out, DType::F32, {3}, {4, 8, 12}, 0, 0);
  // f16 accumulates wide: 2048 + 1 + 1 = 2050 exactly (an f16 running sum
  // would stay at 2048, since 2049 ties to even).
  HostTensor h =
      runOne(functionalSource("reduce_sum", "tensor<3xf16>", "tensor<f16>",
                              "{axes = array<i64: 0>}"),
             {makeF(DType::F16, {3}, {2048, 1, 1})});
  EXPECT_EQ(h.getDouble(0), 2050.0);
  HostTensor m =
      runOne(functionalSource("reduce_mean", "tensor<4xbf16>", "tensor<bf16>",
                              "{axes = array<i64: 0>}"),
             {makeF(DType::BF16, {4}, {1, 2, 3, 4})});
  EXPECT_EQ(m.getDouble(0), 2.5);
}

//===----------------------------------------------------------------------===//
// argmax / argmin
//===----------------------------------------------------------------------===//

TEST(ReferenceReduction, ArgMaxArgMin) {
  // Rows [1, 3, 3, 2] and [5, NaN, 1, NaN].
  HostTensor x = f32({2, 4}, {1, 3, 3, 2, 5, kNaN, 1, kNaN});
  const std::string in = "tensor<2x4xf32>";
  expectInts(runOne(functionalSource("argmax", in, "tensor<2xi64>",
                                     "{axis = 1 : i64}"),
                    {x}),
             DType::I64, {2}, {1, 1});
  expectInts(runOne(functionalSource("argmax", in, "tensor<2xi64>",
                                     "{axis = 1 : i64, select_last_index}"),
                    {x}),
             DType::I64, {2}, {2, 3});
  // NaN wins for argmin too.
  expectInts(runOne(functionalSource("argmin", in, "tensor<2x1xi64>",
                                     "{axis = 1 : i64, keepdims}"),
                    {x}),
             DType::I64, {2, 1}, {0, 1});
  expectInts(runOne(functionalSource("argmin", in, "tensor<2xi64>",
                                     "{axis = 1 : i64, select_last_index}"),
                    {x}),
             DType::I64, {2}, {0, 3});
  // Along axis 0: columns [1,5], [3,NaN], [3,1], [2,NaN].
  expectInts(runOne(functionalSource("argmax", in, "tensor<4xi64>",
                                     "{axis = 0 : i64}"),
                    {x}),
             DType::I64, {4}, {1, 1, 0, 1});
}

TEST(ReferenceReduction, ArgMinIntegers) {
  expectInts(runOne(functionalSource("argmin", "tensor<1x3xi32>",
                                     "tensor<1xi64>", "{axis = 1 : i64}"),
                    {makeI(DType::I32, {1, 3}, {-1, -5, -5})}),
             DType::I64, {1}, {1});
  expectInts(
      runOne(functionalSource("argmin", "tensor<1x3xi32>", "tensor<1xi64>",
                              "{axis = 1 : i64, select_last_index}"),
             {makeI(DType::I32, {1, 3}, {-1, -5, -5})}),
      DType::I64, {1}, {2});
  expectInts(runOne(functionalSource("argmax", "tensor<?xi8>", "tensor<i64>",
                                     "{axis = 0 : i64}"),
                    {makeI(DType::I8, {4}, {-128, 127, 0, 127})}),
             DType::I64, {}, {1});
}

TEST(ReferenceReduction, UnsignedReductions) {
  // UINT64_MAX (bit pattern -1) is the largest ui64, not the smallest.
  HostTensor x = makeI(DType::UI64, {3}, {5, -1, 0});
  expectInts(runOne(functionalSource("reduce_max", "tensor<3xui64>",
                                     "tensor<ui64>", "{axes = array<i64: 0>}"),
                    {x}),
             DType::UI64, {}, {-1});
  expectInts(runOne(functionalSource("reduce_min", "tensor<3xui64>",
                                     "tensor<ui64>", "{axes = array<i64: 0>}"),
                    {x}),
             DType::UI64, {}, {0});
  expectInts(runOne(functionalSource("argmax", "tensor<3xui64>", "tensor<i64>",
                                     "{axis = 0 : i64}"),
                    {x}),
             DType::I64, {}, {1});
  expectInts(runOne(functionalSource("argmin", "tensor<3xui8>", "tensor<i64>",
                                     "{axis = 0 : i64}"),
                    {makeI(DType::UI8, {3}, {255, 3, 200})}),
             DType::I64, {}, {1});
  // Empty reductions give the unsigned identities: max 0, min all ones.
  expectInts(runOne(functionalSource("reduce_max", "tensor<0xui8>",
                                     "tensor<ui8>", "{axes = array<i64: 0>}"),
                    {makeI(DType::UI8, {0}, {})}),
             DType::UI8, {}, {0});
  expectInts(runOne(functionalSource("reduce_min", "tensor<0xui16>",
                                     "tensor<ui16>", "{axes = array<i64: 0>}"),
                    {makeI(DType::UI16, {0}, {})}),
             DType::UI16, {}, {65535});
  // Sums wrap modulo 2^8.
  expectInts(runOne(functionalSource("reduce_sum", "tensor<3xui8>",
                                     "tensor<ui8>", "{axes = array<i64: 0>}"),
                    {makeI(DType::UI8, {3}, {200, 100, 1})}),
             DType::UI8, {}, {45});
  expectInts(runOne(functionalSource("reduce_max", "tensor<2xi16>",
                                     "tensor<i16>", "{axes = array<i64: 0>}"),
                    {makeI(DType::I16, {2}, {-300, -32768})}),
             DType::I16, {}, {-300});
}

TEST(ReferenceReduction, ArgMaxOfEmptyAxisIsAnError) {
  std::string error =
      runError(functionalSource("argmax", "tensor<2x?xf32>", "tensor<2xi64>",
                                "{axis = 1 : i64}"),
               {f32({2, 0}, {})});
  EXPECT_NE(error.find("'tgc.argmax' op"), std::string::npos) << error;
  EXPECT_NE(error.find("empty axis 1"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// softmax / log_softmax
//===----------------------------------------------------------------------===//

TEST(ReferenceReduction, Softmax) {
  // softmax([1, 2, 3]) = [e^-2, e^-1, 1] / (e^-2 + e^-1 + 1).
  expectFloats(
      runOne(unarySource("softmax", "tensor<1x3xf64>", "{axis = 1 : i64}"),
             {makeF(DType::F64, {1, 3}, {1, 2, 3})}),
      DType::F64, {1, 3},
      {0.09003057317038046, 0.24472847105479764, 0.6652409557748218}, 1e-14, 0);
  expectFloats(
      runOne(unarySource("log_softmax", "tensor<1x3xf64>", "{axis = 1 : i64}"),
             {makeF(DType::F64, {1, 3}, {1, 2, 3})}),
      DType::F64, {1, 3},
      {-2.40760596444438, -1.4076059644443804, -0.40760596444438046}, 1e-14, 0);
  // Stable for huge inputs.
  expectFloats(
      runOne(unarySource("softmax", "tensor<2xf32>", "{axis = 0 : i64}"),
             {f32({2}, {1000, 1000})}),
      DType::F32, {2}, {0.5, 0.5}, 0, 0);
  expectFloats(
      runOne(unarySource("log_softmax", "tensor<2xf32>", "{axis = 0 : i64}"),
             {f32({2}, {1000, 1000})}),
      DType::F32, {2}, {-0.6931471805599453, -0.6931471805599453});
  // Along axis 0 of [[0, 5], [0, 5]]: every column is uniform.
  expectFloats(
      runOne(unarySource("softmax", "tensor<?x2xf32>", "{axis = 0 : i64}"),
             {f32({2, 2}, {0, 5, 0, 5})}),
      DType::F32, {2, 2}, {0.5, 0.5, 0.5, 0.5}, 0, 0);
}

//===----------------------------------------------------------------------===//
// layer_norm / batch_norm
//===----------------------------------------------------------------------===//

TEST(ReferenceReduction, LayerNorm) {
  // [1, 2, 3, 4]: mean 2.5, biased variance 1.25, std 1.118033988749895.
  const char *source = R"(
func.func @main(%x: tensor<1x4xf64>) -> tensor<1x4xf64> {
  %0 = tgc.layer_norm %x {axis = 1 : i64, epsilon = 0.0 : f64} : (tensor<1x4xf64>) -> tensor<1x4xf64>
  return %0 : tensor<1x4xf64>
}
)";
  expectFloats(runOne(source, {makeF(DType::F64, {1, 4}, {1, 2, 3, 4})}),
               DType::F64, {1, 4},
               {-1.3416407864998738, -0.4472135954999579, 0.4472135954999579,
                1.3416407864998738},
               1e-14, 0);
  // Normalizing over both dims (axis 0) with scale and bias.
  const char *scaled = R"(
func.func @main(%x: tensor<2x2xf64>, %g: tensor<2x2xf64>, %b: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = tgc.layer_norm %x scale %g bias %b {axis = 0 : i64, epsilon = 0.0 : f64} : (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
)";
  expectFloats(
      runOne(scaled, {makeF(DType::F64, {2, 2}, {1, 2, 3, 4}),
                      makeF(DType::F64, {2, 2}, {2, 0, 1, -1}),
                      makeF(DType::F64, {2, 2}, {0, 7, 0, 1})}),
      DType::F64, {2, 2},
      {-2.6832815729997477, 7, 0.4472135954999579, -0.3416407864998738}, 1e-14,
      1e-14);
  // Default epsilon 1e-5, rows normalized independently; bias only.
  // Row [1, 3]: mean 2, var 1 -> +-1/sqrt(1.00001); row [2, 2] -> 0.
  const char *biased = R"(
func.func @main(%x: tensor<?x2xf32>, %b: tensor<2xf32>) -> tensor<?x2xf32> {
  %0 = tgc.layer_norm %x bias %b {axis = 1 : i64} : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
)";
  expectFloats(runOne(biased, {f32({2, 2}, {1, 3, 2, 2}), f32({2}, {10, 20})}),
               DType::F32, {2, 2},
               {10 - 0.9999950000374997, 20 + 0.9999950000374997, 10, 20});
}

TEST(ReferenceReduction, LayerNormScaleShapeMismatchIsAnError) {
  const char *source = R"(
func.func @main(%x: tensor<2x?xf32>, %g: tensor<?xf32>) -> tensor<2x?xf32> {
  %0 = tgc.layer_norm %x scale %g {axis = 1 : i64} : (tensor<2x?xf32>, tensor<?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
)";
  std::string error =
      runError(source, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {1, 1})});
  EXPECT_NE(error.find("'tgc.layer_norm' op scale must have the normalized "
                       "shape 3, got 2"),
            std::string::npos)
      << error;
}

TEST(ReferenceReduction, BatchNorm) {
  // NCHW 1x2x1x2: channel 0 = [1, 3], channel 1 = [10, 20]; mean [2, 15],
  // variance [1, 25], scale [1, 2], bias [0, 1]:
  // channel 0: (x - 2) / 1 -> [-1, 1]; channel 1: (x - 15) / 5 * 2 + 1.
  const char *source = R"(
func.func @main(%x: tensor<1x2x1x2xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x2x1x2xf32> {
  %0 = tgc.batch_norm %x, %s, %b, %m, %v {epsilon = 0.0 : f64} : (tensor<1x2x1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x2xf32>
  return %0 : tensor<1x2x1x2xf32>
}
)";
  HostTensor s = f32({2}, {1, 2}), b = f32({2}, {0, 1}), m = f32({2}, {2, 15}),
             v = f32({2}, {1, 25});
  expectFloats(runOne(source, {f32({1, 2, 1, 2}, {1, 3, 10, 20}), s, b, m, v}),
               DType::F32, {1, 2, 1, 2}, {-1, 1, -1, 3}, 0, 0);
  // The same with the channels last (axis 3), as for NHWC.
  const char *nhwc = R"(
func.func @main(%x: tensor<1x1x2x2xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x1x2x2xf32> {
  %0 = tgc.batch_norm %x, %s, %b, %m, %v {axis = 3 : i64, epsilon = 0.0 : f64} : (tensor<1x1x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
)";
  expectFloats(runOne(nhwc, {f32({1, 1, 2, 2}, {1, 10, 3, 20}), s, b, m, v}),
               DType::F32, {1, 1, 2, 2}, {-1, -1, 1, 3}, 0, 0);
  // Default epsilon 1e-5 with variance 0.99999: exactly 1 / sqrt(1).
  const char *eps = R"(
func.func @main(%x: tensor<2x1xf64>, %s: tensor<1xf64>, %b: tensor<1xf64>, %m: tensor<1xf64>, %v: tensor<1xf64>) -> tensor<2x1xf64> {
  %0 = tgc.batch_norm %x, %s, %b, %m, %v : (tensor<2x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> tensor<2x1xf64>
  return %0 : tensor<2x1xf64>
}
)";
  expectFloats(
      runOne(eps,
             {makeF(DType::F64, {2, 1}, {3, -1}), makeF(DType::F64, {1}, {1}),
              makeF(DType::F64, {1}, {0}), makeF(DType::F64, {1}, {1}),
              makeF(DType::F64, {1}, {0.99999})}),
      DType::F64, {2, 1}, {2, -2}, 1e-12, 0);
}

//===----------------------------------------------------------------------===//
// topk
//===----------------------------------------------------------------------===//

std::string topkSource(const std::string &attrs, const std::string &in,
                       const std::string &out, const std::string &outIdx) {
  return "func.func @main(%x: " + in + ") -> (" + out + ", " + outIdx +
         ") {\n  %0, %1 = tgc.topk %x " + attrs + " : (" + in + ") -> (" + out +
         ", " + outIdx + ")\n  return %0, %1 : " + out + ", " + outIdx +
         "\n}\n";
}

TEST(ReferenceReduction, TopK) {
  HostTensor x = f32({2, 4}, {3, 1, 3, 2, kNaN, 5, -1, 5});
  // Largest: equal values keep index order; NaN is above every number.
  RunOutcome largest =
      run(topkSource("{axis = 1 : i64, k = 3 : i64}", "tensor<2x4xf32>",
                     "tensor<2x3xf32>", "tensor<2x3xi64>"),
          {x});
  ASSERT_EQ(largest.error, "");
  ASSERT_EQ(largest.results.size(), 2u);
  const HostTensor &v = largest.results[0];
  EXPECT_EQ(v.shape(), (Shape{2, 3}));
  std::vector<double> expected = {3, 3, 2, kNaN, 5, 5};
  for (int64_t i = 0; i < 6; ++i) {
    if (std::isnan(expected[i]))
      EXPECT_TRUE(std::isnan(v.getDouble(i))) << i;
    else
      EXPECT_EQ(v.getDouble(i), expected[i]) << i;
  }
  expectInts(largest.results[1], DType::I64, {2, 3}, {0, 2, 3, 0, 1, 3});
  // Smallest: NaN comes last.
  RunOutcome smallest =
      run(topkSource("{axis = 1 : i64, k = 2 : i64, largest = false}",
                     "tensor<2x4xf32>", "tensor<2x2xf32>", "tensor<2x2xi64>"),
          {x});
  ASSERT_EQ(smallest.error, "");
  expectFloats(smallest.results[0], DType::F32, {2, 2}, {1, 2, -1, 5}, 0, 0);
  expectInts(smallest.results[1], DType::I64, {2, 2}, {1, 3, 2, 1});
  // Axis 0 of an integer tensor; the tie at 3 picks row 0.
  RunOutcome ints =
      run(topkSource("{axis = 0 : i64, k = 1 : i64}", "tensor<2x3xi32>",
                     "tensor<1x3xi32>", "tensor<1x3xi64>"),
          {makeI(DType::I32, {2, 3}, {1, 5, 3, 4, 2, 3})});
  ASSERT_EQ(ints.error, "");
  expectInts(ints.results[0], DType::I32, {1, 3}, {4, 5, 3});
  expectInts(ints.results[1], DType::I64, {1, 3}, {1, 0, 0});
}

TEST(ReferenceReduction, TopKLargerThanTheDimIsAnError) {
  std::string error =
      runError(topkSource("{axis = 0 : i64, k = 3 : i64}", "tensor<?xf32>",
                          "tensor<3xf32>", "tensor<3xi64>"),
               {f32({2}, {1, 2})});
  EXPECT_EQ(error.rfind("test.mlir:2:12: 'tgc.topk' op k = 3 exceeds dim 0 "
                        "of size 2 in input 2",
                        0),
            0u)
      << error;
}

} // namespace
