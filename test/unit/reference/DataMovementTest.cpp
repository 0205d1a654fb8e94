//===- DataMovementTest.cpp - interpreter tests for data movement ---------===//

#include "TestUtils.h"

using namespace tgc::reference::test;

namespace {

HostTensor f32(Shape shape, std::vector<double> v) {
  return makeF(DType::F32, std::move(shape), std::move(v));
}

std::vector<double> iota(int64_t n, double start = 0) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(start + static_cast<double>(i));
  return v;
}

std::string constantSource(const std::string &value, const std::string &type) {
  return "func.func @main() -> " + type + " {\n  %0 = tgc.constant " + value +
         " : " + type + "\n  return %0 : " + type + "\n}\n";
}

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

TEST(ReferenceDataMovement, Constants) {
  expectFloats(runOne(constantSource("dense<1.5>", "tensor<2x2xf32>"), {}),
               DType::F32, {2, 2}, {1.5, 1.5, 1.5, 1.5}, 0, 0);
  expectFloats(runOne(constantSource("dense<[[1.0, 2.0], [3.0, 4.0]]>",
                                     "tensor<2x2xf64>"),
                      {}),
               DType::F64, {2, 2}, {1, 2, 3, 4}, 0, 0);
  // f16 0.1 is 1638 * 2^-14.
  HostTensor h =
      runOne(constantSource("dense<[0.1, -2.5]>", "tensor<2xf16>"), {});
  EXPECT_EQ(h.getDouble(0), 0.0999755859375);
  EXPECT_EQ(h.getDouble(1), -2.5);
  HostTensor b =
      runOne(constantSource("dense<[1.0, 3.0e+38]>", "tensor<2xbf16>"), {});
  EXPECT_EQ(b.getDouble(0), 1.0);
  // 3e38 rounds to 9 * 2^124 * ... check it stayed finite and close.
  EXPECT_NEAR(b.getDouble(1), 3.0e38, 3.0e38 / 128);
  expectInts(
      runOne(constantSource("dense<[true, false, true]>", "tensor<3xi1>"), {}),
      DType::I1, {3}, {1, 0, 1});
  expectInts(runOne(constantSource("dense<true>", "tensor<2xi1>"), {}),
             DType::I1, {2}, {1, 1});
  expectInts(
      runOne(constantSource("dense<[-1, 127, -128]>", "tensor<3xi8>"), {}),
      DType::I8, {3}, {-1, 127, -128});
  expectInts(runOne(constantSource("dense<-7>", "tensor<3xi32>"), {}),
             DType::I32, {3}, {-7, -7, -7});
  expectInts(runOne(constantSource("dense<[-9223372036854775808, "
                                   "9223372036854775807]>",
                                   "tensor<2xi64>"),
                    {}),
             DType::I64, {2}, {INT64_MIN, INT64_MAX});
  expectFloats(runOne(constantSource("dense<2.0>", "tensor<f32>"), {}),
               DType::F32, {}, {2}, 0, 0);
  expectFloats(runOne(constantSource("dense<2.0>", "tensor<0x3xf32>"), {}),
               DType::F32, {0, 3}, {}, 0, 0);
}

//===----------------------------------------------------------------------===//
// reshape / squeeze / unsqueeze
//===----------------------------------------------------------------------===//

std::string reshapeSource(const std::string &from, const std::string &to) {
  return "func.func @main(%x: " + from + ") -> " + to +
         " {\n  %0 = tgc.reshape %x : " + from + " to " + to +
         "\n  return %0 : " + to + "\n}\n";
}

TEST(ReferenceDataMovement, Reshape) {
  expectFloats(runOne(reshapeSource("tensor<2x3xf32>", "tensor<3x2xf32>"),
                      {f32({2, 3}, iota(6))}),
               DType::F32, {3, 2}, iota(6), 0, 0);
  // The dynamic dim takes numel / product of the static dims: 8 / 2 = 4.
  expectInts(runOne(reshapeSource("tensor<?x4xi8>", "tensor<?x2xi8>"),
                    {makeI(DType::I8, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})}),
             DType::I8, {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  expectInts(runOne(reshapeSource("tensor<?xi1>", "tensor<2x?xi1>"),
                    {makeI(DType::I1, {6}, {1, 0, 0, 1, 1, 1})}),
             DType::I1, {2, 3}, {1, 0, 0, 1, 1, 1});
  expectFloats(runOne(reshapeSource("tensor<?x4xf32>", "tensor<?x2xf32>"),
                      {f32({0, 4}, {})}),
               DType::F32, {0, 2}, {}, 0, 0);
  expectFloats(runOne(reshapeSource("tensor<1x1xf32>", "tensor<f32>"),
                      {f32({1, 1}, {7})}),
               DType::F32, {}, {7}, 0, 0);
}

TEST(ReferenceDataMovement, ReshapeElementCountMismatchIsAnError) {
  std::string error = runError(
      reshapeSource("tensor<?xf32>", "tensor<?x3xf32>"), {f32({4}, iota(4))});
  EXPECT_NE(error.find("'tgc.reshape' op cannot reshape tensor<4xf32> (4 "
                       "elements) to tensor<?x3xf32>"),
            std::string::npos)
      << error;
  std::string error2 = runError(
      reshapeSource("tensor<?xf32>", "tensor<2x2xf32>"), {f32({5}, iota(5))});
  EXPECT_NE(error2.find("'tgc.reshape' op cannot reshape"), std::string::npos)
      << error2;
}

TEST(ReferenceDataMovement, SqueezeUnsqueeze) {
  expectFloats(
      runOne(functionalSource("squeeze", "tensor<1x3x1xf32>", "tensor<3xf32>",
                              "{axes = array<i64: 0, 2>}"),
             {f32({1, 3, 1}, {1, 2, 3})}),
      DType::F32, {3}, {1, 2, 3}, 0, 0);
  expectFloats(
      runOne(functionalSource("squeeze", "tensor<?x3xf32>", "tensor<3xf32>",
                              "{axes = array<i64: 0>}"),
             {f32({1, 3}, {1, 2, 3})}),
      DType::F32, {3}, {1, 2, 3}, 0, 0);
  expectInts(runOne(functionalSource("unsqueeze", "tensor<3x?xi64>",
                                     "tensor<1x3x1x?xi64>",
                                     "{axes = array<i64: 0, 2>}"),
                    {makeI(DType::I64, {3, 2}, {1, 2, 3, 4, 5, 6})}),
             DType::I64, {1, 3, 1, 2}, {1, 2, 3, 4, 5, 6});
  expectFloats(
      runOne(functionalSource("unsqueeze", "tensor<f32>", "tensor<1xf32>",
                              "{axes = array<i64: 0>}"),
             {f32({}, {4})}),
      DType::F32, {1}, {4}, 0, 0);
}

TEST(ReferenceDataMovement, SqueezeOfNonUnitDynamicDimIsAnError) {
  std::string error =
      runError(functionalSource("squeeze", "tensor<?x3xf32>", "tensor<3xf32>",
                                "{axes = array<i64: 0>}"),
               {f32({2, 3}, iota(6))});
  EXPECT_NE(error.find("'tgc.squeeze' op cannot squeeze dim 0 of size 2"),
            std::string::npos)
      << error;
}

//===----------------------------------------------------------------------===//
// transpose / broadcast_to
//===----------------------------------------------------------------------===//

TEST(ReferenceDataMovement, Transpose) {
  expectFloats(
      runOne(functionalSource("transpose", "tensor<2x3xf32>", "tensor<3x2xf32>",
                              "{permutation = array<i64: 1, 0>}"),
             {f32({2, 3}, {1, 2, 3, 4, 5, 6})}),
      DType::F32, {3, 2}, {1, 4, 2, 5, 3, 6}, 0, 0);
  // out[i][j][k] = in[j][k][i] with in[a][b][c] = 4a + 2b + c.
  expectInts(runOne(functionalSource("transpose", "tensor<2x2x2xi32>",
                                     "tensor<2x2x2xi32>",
                                     "{permutation = array<i64: 2, 0, 1>}"),
                    {makeI(DType::I32, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})}),
             DType::I32, {2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
  // 2x3x1 -> 1x3x2 with a dynamic dim and f16 payload.
  expectFloats(runOne(functionalSource("transpose", "tensor<?x3x1xf16>",
                                       "tensor<1x3x?xf16>",
                                       "{permutation = array<i64: 2, 1, 0>}"),
                      {makeF(DType::F16, {2, 3, 1}, {1, 2, 3, 4, 5, 6})}),
               DType::F16, {1, 3, 2}, {1, 4, 2, 5, 3, 6}, 0, 0);
}

std::string broadcastSource(const std::string &from, const std::string &to) {
  return "func.func @main(%x: " + from + ") -> " + to +
         " {\n  %0 = tgc.broadcast_to %x : " + from + " to " + to +
         "\n  return %0 : " + to + "\n}\n";
}

TEST(ReferenceDataMovement, BroadcastTo) {
  expectFloats(runOne(broadcastSource("tensor<3xf32>", "tensor<2x3xf32>"),
                      {f32({3}, {1, 2, 3})}),
               DType::F32, {2, 3}, {1, 2, 3, 1, 2, 3}, 0, 0);
  expectFloats(runOne(broadcastSource("tensor<2x1xf32>", "tensor<2x3xf32>"),
                      {f32({2, 1}, {1, 2})}),
               DType::F32, {2, 3}, {1, 1, 1, 2, 2, 2}, 0, 0);
  // Dynamic result dims take the input's size.
  expectInts(runOne(broadcastSource("tensor<?x1xi32>", "tensor<3x?x2xi32>"),
                    {makeI(DType::I32, {2, 1}, {1, 2})}),
             DType::I32, {3, 2, 2}, {1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2});
  expectInts(runOne(broadcastSource("tensor<i1>", "tensor<2x2xi1>"),
                    {makeI(DType::I1, {}, {1})}),
             DType::I1, {2, 2}, {1, 1, 1, 1});
  expectFloats(runOne(broadcastSource("tensor<1xf32>", "tensor<0xf32>"),
                      {f32({1}, {5})}),
               DType::F32, {0}, {}, 0, 0);
}

TEST(ReferenceDataMovement, BroadcastToMismatchIsAnError) {
  std::string error = runError(
      broadcastSource("tensor<?xf32>", "tensor<4xf32>"), {f32({3}, {1, 2, 3})});
  EXPECT_NE(error.find("'tgc.broadcast_to' op cannot broadcast"),
            std::string::npos)
      << error;
}

//===----------------------------------------------------------------------===//
// concat / slice / pad / gather
//===----------------------------------------------------------------------===//

TEST(ReferenceDataMovement, Concat) {
  const char *source = R"(
func.func @main(%a: tensor<2x1xf32>, %b: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = tgc.concat %a, %b {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
)";
  expectFloats(runOne(source, {f32({2, 1}, {1, 2}), f32({2, 2}, {3, 4, 5, 6})}),
               DType::F32, {2, 3}, {1, 3, 4, 2, 5, 6}, 0, 0);
  // Empty inputs contribute nothing.
  expectFloats(runOne(source, {f32({2, 1}, {1, 2}), f32({2, 0}, {})}),
               DType::F32, {2, 1}, {1, 2}, 0, 0);
  const char *three = R"(
func.func @main(%a: tensor<1x2xi8>, %b: tensor<0x2xi8>, %c: tensor<2x2xi8>) -> tensor<3x2xi8> {
  %0 = tgc.concat %a, %b, %c {axis = 0 : i64} : (tensor<1x2xi8>, tensor<0x2xi8>, tensor<2x2xi8>) -> tensor<3x2xi8>
  return %0 : tensor<3x2xi8>
}
)";
  expectInts(runOne(three, {makeI(DType::I8, {1, 2}, {1, 2}),
                            makeI(DType::I8, {0, 2}, {}),
                            makeI(DType::I8, {2, 2}, {3, 4, 5, 6})}),
             DType::I8, {3, 2}, {1, 2, 3, 4, 5, 6});
}

TEST(ReferenceDataMovement, ConcatDimMismatchIsAnError) {
  const char *source = R"(
func.func @main(%a: tensor<?x2xf32>, %b: tensor<?x2xf32>) -> tensor<?x4xf32> {
  %0 = tgc.concat %a, %b {axis = 1 : i64} : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
)";
  std::string error =
      runError(source, {f32({2, 2}, iota(4)), f32({3, 2}, iota(6))});
  EXPECT_NE(error.find("'tgc.concat' op input #1 tensor<3x2xf32> differs"),
            std::string::npos)
      << error;
}

TEST(ReferenceDataMovement, Slice) {
  // in[r][c] = 5r + c; rows 0:4:2, cols 1:end.
  expectFloats(
      runOne(functionalSource("slice", "tensor<4x5xf32>", "tensor<2x4xf32>",
                              "{ends = array<i64: 4, 9223372036854775807>, "
                              "starts = array<i64: 0, 1>, steps = array<i64: "
                              "2, 1>}"),
             {f32({4, 5}, iota(20))}),
      DType::F32, {2, 4}, {1, 2, 3, 4, 11, 12, 13, 14}, 0, 0);
  // [0..5][-1:-7:-1] is the whole row reversed; [4:0:-2] is [4, 2].
  expectInts(runOne(functionalSource("slice", "tensor<6xi32>", "tensor<6xi32>",
                                     "{ends = array<i64: -7>, starts = "
                                     "array<i64: -1>, steps = array<i64: -1>}"),
                    {makeI(DType::I32, {6}, {0, 1, 2, 3, 4, 5})}),
             DType::I32, {6}, {5, 4, 3, 2, 1, 0});
  expectInts(runOne(functionalSource("slice", "tensor<6xi32>", "tensor<2xi32>",
                                     "{ends = array<i64: 0>, starts = "
                                     "array<i64: 4>, steps = array<i64: -2>}"),
                    {makeI(DType::I32, {6}, {0, 1, 2, 3, 4, 5})}),
             DType::I32, {2}, {4, 2});
  // Negative start and end on a dynamic dim: [1:-1] of 5 elements.
  expectFloats(
      runOne(functionalSource("slice", "tensor<?xf32>", "tensor<?xf32>",
                              "{ends = array<i64: -1>, starts = "
                              "array<i64: 1>}"),
             {f32({5}, iota(5))}),
      DType::F32, {3}, {1, 2, 3}, 0, 0);
  // Empty slices.
  expectFloats(
      runOne(functionalSource("slice", "tensor<?xf32>", "tensor<?xf32>",
                              "{ends = array<i64: 1>, starts = "
                              "array<i64: 3>}"),
             {f32({5}, iota(5))}),
      DType::F32, {0}, {}, 0, 0);
  // Reversed columns of a 2-D tensor, with clamped out-of-range bounds.
  expectFloats(
      runOne(functionalSource("slice", "tensor<2x3xf32>", "tensor<2x3xf32>",
                              "{ends = array<i64: 100, -100>, starts = "
                              "array<i64: -100, 100>, steps = array<i64: 1, "
                              "-1>}"),
             {f32({2, 3}, iota(6))}),
      DType::F32, {2, 3}, {2, 1, 0, 5, 4, 3}, 0, 0);
}

TEST(ReferenceDataMovement, Pad) {
  expectFloats(
      runOne(functionalSource("pad", "tensor<2x2xf32>", "tensor<3x3xf32>",
                              "{high = array<i64: 0, 1>, low = "
                              "array<i64: 1, 0>, value = 9.0 : f64}"),
             {f32({2, 2}, {1, 2, 3, 4})}),
      DType::F32, {3, 3}, {9, 9, 9, 1, 2, 9, 3, 4, 9}, 0, 0);
  // The value converts toward zero for integers, saturating.
  expectInts(runOne(functionalSource("pad", "tensor<1xi32>", "tensor<3xi32>",
                                     "{high = array<i64: 1>, low = array<i64: "
                                     "1>, value = 2.7 : f64}"),
                    {makeI(DType::I32, {1}, {5})}),
             DType::I32, {3}, {2, 5, 2});
  expectInts(runOne(functionalSource("pad", "tensor<1xi8>", "tensor<2xi8>",
                                     "{high = array<i64: 1>, low = array<i64: "
                                     "0>, value = 300.0 : f64}"),
                    {makeI(DType::I8, {1}, {5})}),
             DType::I8, {2}, {5, 127});
  expectInts(runOne(functionalSource("pad", "tensor<1xi64>", "tensor<2xi64>",
                                     "{high = array<i64: 0>, low = array<i64: "
                                     "1>, value = -1.5 : f64}"),
                    {makeI(DType::I64, {1}, {5})}),
             DType::I64, {2}, {-1, 5});
  expectInts(runOne(functionalSource("pad", "tensor<1xi1>", "tensor<2xi1>",
                                     "{high = array<i64: 1>, low = array<i64: "
                                     "0>, value = 0.5 : f64}"),
                    {makeI(DType::I1, {1}, {0})}),
             DType::I1, {2}, {0, 1});
  HostTensor h =
      runOne(functionalSource("pad", "tensor<1xf16>", "tensor<2xf16>",
                              "{high = array<i64: 1>, low = "
                              "array<i64: 0>, value = 0.1 : f64}"),
             {makeF(DType::F16, {1}, {1})});
  EXPECT_EQ(h.getDouble(1), 0.0999755859375);
  // Default value 0, dynamic and empty input.
  expectFloats(runOne(functionalSource("pad", "tensor<?xf32>", "tensor<?xf32>",
                                       "{high = array<i64: 2>, low = "
                                       "array<i64: 1>}"),
                      {f32({0}, {})}),
               DType::F32, {3}, {0, 0, 0}, 0, 0);
}

TEST(ReferenceDataMovement, Gather) {
  // Rows of [[0,1],[10,11],[20,21],[30,31],[40,41]] with indices [4, -1, 0].
  const char *rows = R"(
func.func @main(%d: tensor<5x2xf32>, %i: tensor<?xi64>) -> tensor<?x2xf32> {
  %0 = tgc.gather %d, %i {axis = 0 : i64} : (tensor<5x2xf32>, tensor<?xi64>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
)";
  HostTensor table = f32({5, 2}, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41});
  expectFloats(runOne(rows, {table, makeI(DType::I64, {3}, {4, -1, 0})}),
               DType::F32, {3, 2}, {40, 41, 40, 41, 0, 1}, 0, 0);
  // Axis 1 with 2-D i32 indices: out[p][i][j] = data[p][idx[i][j]].
  const char *cols = R"(
func.func @main(%d: tensor<2x3xi8>, %i: tensor<2x2xi32>) -> tensor<2x2x2xi8> {
  %0 = tgc.gather %d, %i {axis = 1 : i64} : (tensor<2x3xi8>, tensor<2x2xi32>) -> tensor<2x2x2xi8>
  return %0 : tensor<2x2x2xi8>
}
)";
  expectInts(runOne(cols, {makeI(DType::I8, {2, 3}, {1, 2, 3, 4, 5, 6}),
                           makeI(DType::I32, {2, 2}, {2, 0, -2, 1})}),
             DType::I8, {2, 2, 2}, {3, 1, 2, 2, 6, 4, 5, 5});
  // Scalar index removes the axis.
  const char *scalar = R"(
func.func @main(%d: tensor<2x3xf32>, %i: tensor<i64>) -> tensor<3xf32> {
  %0 = tgc.gather %d, %i {axis = 0 : i64} : (tensor<2x3xf32>, tensor<i64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
)";
  expectFloats(
      runOne(scalar, {f32({2, 3}, iota(6)), makeI(DType::I64, {}, {1})}),
      DType::F32, {3}, {3, 4, 5}, 0, 0);
}

TEST(ReferenceDataMovement, GatherIndexOutOfRangeIsAnError) {
  const char *source =
      R"(func.func @main(%d: tensor<5x2xf32>, %i: tensor<2xi64>) -> tensor<2x2xf32> {
  %0 = tgc.gather %d, %i {axis = 0 : i64} : (tensor<5x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
)";
  HostTensor table = f32({5, 2}, iota(10));
  std::string error = runError(source, {table, makeI(DType::I64, {2}, {0, 7})});
  EXPECT_EQ(error.rfind("test.mlir:2:8: 'tgc.gather' op index 7 is out of "
                        "range [-5, 5)",
                        0),
            0u)
      << error;
  std::string negative =
      runError(source, {table, makeI(DType::I64, {2}, {-6, 0})});
  EXPECT_NE(negative.find("index -6 is out of range [-5, 5)"),
            std::string::npos)
      << negative;
}

//===----------------------------------------------------------------------===//
// scatter_elements and scatter_nd
//===----------------------------------------------------------------------===//

std::string scatterSource(const std::string &op, const std::string &attrs,
                          const std::string &data, const std::string &indices,
                          const std::string &updates) {
  return "func.func @main(%d: " + data + ", %i: " + indices +
         ", %u: " + updates + ") -> " + data + " {\n  %0 = tgc." + op +
         " %d, %i, %u " + attrs + " : (" + data + ", " + indices + ", " +
         updates + ") -> " + data + "\n  return %0 : " + data + "\n}\n";
}

TEST(ReferenceDataMovement, ScatterElements) {
  // ONNX's examples: along axis 1 of one row, and along axis 0.
  expectFloats(
      runOne(scatterSource("scatter_elements", "{axis = 1 : i64}",
                           "tensor<1x5xf32>", "tensor<1x2xi64>",
                           "tensor<1x2xf32>"),
             {f32({1, 5}, {1, 2, 3, 4, 5}), makeI(DType::I64, {1, 2}, {1, 3}),
              f32({1, 2}, {1.5, 2.5})}),
      DType::F32, {1, 5}, {1, 1.5, 3, 2.5, 5}, 0, 0);
  expectFloats(runOne(scatterSource("scatter_elements", "{axis = 0 : i64}",
                                    "tensor<3x3xf32>", "tensor<2x3xi32>",
                                    "tensor<2x3xf32>"),
                      {f32({3, 3}, std::vector<double>(9, 0)),
                       makeI(DType::I32, {2, 3}, {1, 0, 2, 0, 2, 1}),
                       f32({2, 3}, {1, 1.5, 1.25, 2, 2.5, 2.25})}),
               DType::F32, {3, 3}, {2, 1.5, 0, 1, 0, 2.25, 0, 2.5, 1.25}, 0, 0);
  // Duplicates: add sums them, none keeps the last; -1 is the last element.
  expectFloats(runOne(scatterSource("scatter_elements",
                                    "{axis = 1 : i64, reduction = "
                                    "#tgc.scatter_reduction<add>}",
                                    "tensor<1x5xf32>", "tensor<1x3xi64>",
                                    "tensor<1x3xf32>"),
                      {f32({1, 5}, {1, 2, 3, 4, 5}),
                       makeI(DType::I64, {1, 3}, {1, 1, -1}),
                       f32({1, 3}, {1.5, 2, 10})}),
               DType::F32, {1, 5}, {1, 5.5, 3, 4, 15}, 0, 0);
  std::string none =
      scatterSource("scatter_elements", "{axis = 0 : i64}", "tensor<2xi32>",
                    "tensor<2xi64>", "tensor<2xi32>");
  expectInts(runOne(none, {makeI(DType::I32, {2}, {0, 0}),
                           makeI(DType::I64, {2}, {1, 1}),
                           makeI(DType::I32, {2}, {5, 6})}),
             DType::I32, {2}, {0, 6});
  auto ints = [](const std::string &reduction) {
    return scatterSource("scatter_elements",
                         "{axis = 0 : i64, reduction = "
                         "#tgc.scatter_reduction<" +
                             reduction + ">}",
                         "tensor<3xi32>", "tensor<3xi64>", "tensor<3xi32>");
  };
  HostTensor data = makeI(DType::I32, {3}, {2, 3, 4});
  expectInts(runOne(ints("mul"), {data, makeI(DType::I64, {3}, {0, 0, -1}),
                                  makeI(DType::I32, {3}, {5, 2, 10})}),
             DType::I32, {3}, {20, 3, 40});
  HostTensor idx = makeI(DType::I64, {3}, {0, 1, 2});
  HostTensor upd = makeI(DType::I32, {3}, {1, 7, 4});
  expectInts(runOne(ints("max"), {data, idx, upd}), DType::I32, {3}, {2, 7, 4});
  expectInts(runOne(ints("min"), {data, idx, upd}), DType::I32, {3}, {1, 3, 4});
  // ui8 max compares unsigned: 200 > 100.
  expectInts(
      runOne(scatterSource("scatter_elements",
                           "{axis = 0 : i64, reduction = "
                           "#tgc.scatter_reduction<max>}",
                           "tensor<1xui8>", "tensor<1xi64>", "tensor<1xui8>"),
             {makeI(DType::UI8, {1}, {100}), makeI(DType::I64, {1}, {0}),
              makeI(DType::UI8, {1}, {200})}),
      DType::UI8, {1}, {200});
}

TEST(ReferenceDataMovement, ScatterElementsIndexOutOfRangeIsAnError) {
  std::string source =
      scatterSource("scatter_elements", "{axis = 1 : i64}", "tensor<2x3xf32>",
                    "tensor<2x1xi64>", "tensor<2x1xf32>");
  HostTensor data = f32({2, 3}, iota(6));
  HostTensor upd = f32({2, 1}, {1, 2});
  std::string error =
      runError(source, {data, makeI(DType::I64, {2, 1}, {0, 3}), upd});
  EXPECT_EQ(error.rfind("test.mlir:2:8: 'tgc.scatter_elements' op index 3 is "
                        "out of range [-3, 3)",
                        0),
            0u)
      << error;
  std::string negative =
      runError(source, {data, makeI(DType::I64, {2, 1}, {-4, 0}), upd});
  EXPECT_NE(negative.find("index -4 is out of range [-3, 3)"),
            std::string::npos)
      << negative;
}

TEST(ReferenceDataMovement, ScatterND) {
  // ONNX's first example: single elements of a vector.
  expectFloats(runOne(scatterSource("scatter_nd", "", "tensor<8xf32>",
                                    "tensor<4x1xi64>", "tensor<4xf32>"),
                      {f32({8}, {1, 2, 3, 4, 5, 6, 7, 8}),
                       makeI(DType::I64, {4, 1}, {4, 3, 1, 7}),
                       f32({4}, {9, 10, 11, 12})}),
               DType::F32, {8}, {1, 11, 3, 10, 9, 6, 7, 12}, 0, 0);
  // Rows, with a duplicate row summed.
  expectFloats(
      runOne(scatterSource(
                 "scatter_nd", "{reduction = #tgc.scatter_reduction<add>}",
                 "tensor<2x2xf32>", "tensor<2x1xi32>", "tensor<2x2xf32>"),
             {f32({2, 2}, {1, 2, 3, 4}), makeI(DType::I32, {2, 1}, {0, -2}),
              f32({2, 2}, {10, 20, 1, 1})}),
      DType::F32, {2, 2}, {12, 23, 3, 4}, 0, 0);
  // Full index pairs, one negative.
  expectInts(runOne(scatterSource("scatter_nd", "", "tensor<2x3xi64>",
                                  "tensor<2x2xi64>", "tensor<2xi64>"),
                    {makeI(DType::I64, {2, 3}, {0, 0, 0, 0, 0, 0}),
                     makeI(DType::I64, {2, 2}, {1, -1, 0, 0}),
                     makeI(DType::I64, {2}, {7, 8})}),
             DType::I64, {2, 3}, {8, 0, 0, 0, 0, 7});
  // mul over a slice.
  expectFloats(runOne(scatterSource("scatter_nd",
                                    "{reduction = #tgc.scatter_reduction<mul>}",
                                    "tensor<2x2xf32>", "tensor<1x1xi64>",
                                    "tensor<1x2xf32>"),
                      {f32({2, 2}, {1, 2, 3, 4}),
                       makeI(DType::I64, {1, 1}, {1}), f32({1, 2}, {2, 0.5})}),
               DType::F32, {2, 2}, {1, 2, 6, 2}, 0, 0);
}

TEST(ReferenceDataMovement, ScatterNDIndexOutOfRangeIsAnError) {
  std::string source = scatterSource("scatter_nd", "", "tensor<2x2xf32>",
                                     "tensor<1x1xi64>", "tensor<1x2xf32>");
  std::string error =
      runError(source, {f32({2, 2}, iota(4)), makeI(DType::I64, {1, 1}, {2}),
                        f32({1, 2}, {1, 2})});
  EXPECT_EQ(error.rfind("test.mlir:2:8: 'tgc.scatter_nd' op index 2 is out "
                        "of range [-2, 2)",
                        0),
            0u)
      << error;
}

} // namespace
