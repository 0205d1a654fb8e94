//===- InterpreterTest.cpp - function-level interpreter tests -------------===//
//
// Argument checking, result shape checking, func.call, unsupported ops and
// error locations.
//
//===----------------------------------------------------------------------===//

#include "TestUtils.h"

using namespace tgc::reference::test;

namespace {

HostTensor f32(Shape shape, std::vector<double> v) {
  return makeF(DType::F32, std::move(shape), std::move(v));
}

const char *kAddSource =
    R"(func.func @main(%x: tensor<?x3xf32>, %y: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = tgc.add %x, %y : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
)";

TEST(ReferenceInterpreter, WrongArgumentCount) {
  std::string error = runError(kAddSource, {f32({1, 3}, {1, 2, 3})});
  EXPECT_NE(
      error.find("test.mlir:1:1: function 'main' expects 2 inputs, got 1"),
      std::string::npos)
      << error;
}

TEST(ReferenceInterpreter, WrongArgumentDType) {
  std::string error = runError(
      kAddSource, {makeF(DType::F64, {1, 3}, {1, 2, 3}), f32({3}, {1, 2, 3})});
  EXPECT_NE(error.find("argument #0 expects tensor<?x3xf32>, got "
                       "tensor<1x3xf64>"),
            std::string::npos)
      << error;
}

TEST(ReferenceInterpreter, WrongArgumentRankAndStaticDim) {
  std::string rank =
      runError(kAddSource, {f32({3}, {1, 2, 3}), f32({3}, {1, 2, 3})});
  EXPECT_NE(rank.find("argument #0 expects tensor<?x3xf32>, got tensor<3xf32>"),
            std::string::npos)
      << rank;
  std::string dim =
      runError(kAddSource, {f32({1, 3}, {1, 2, 3}), f32({2}, {1, 2})});
  EXPECT_NE(dim.find("argument #1 expects tensor<3xf32>, got tensor<2xf32>"),
            std::string::npos)
      << dim;
}

TEST(ReferenceInterpreter, DeclaredStaticResultDimIsChecked) {
  // The declared result refines ? to 4; a run that produces 5 is an error.
  const char *source =
      R"(func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<4xf32> {
  %0 = tgc.add %x, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
)";
  expectFloats(runOne(source, {f32({4}, {1, 2, 3, 4}), f32({1}, {1})}),
               DType::F32, {4}, {2, 3, 4, 5}, 0, 0);
  std::string error =
      runError(source, {f32({5}, {1, 2, 3, 4, 5}), f32({1}, {1})});
  EXPECT_NE(error.find("test.mlir:2:8: 'tgc.add' op produced tensor<5xf32> "
                       "but its declared result type is tensor<4xf32>"),
            std::string::npos)
      << error;
}

TEST(ReferenceInterpreter, MultipleResultsAndArguments) {
  // Returning an argument, an intermediate twice, and a chain.
  const char *source = R"(
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = tgc.neg %x : tensor<2xf32>
  %1 = tgc.mul %0, %0 : tensor<2xf32>
  return %x, %1, %0, %0 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
)";
  RunOutcome outcome = run(source, {f32({2}, {1, -3})});
  ASSERT_EQ(outcome.error, "");
  ASSERT_EQ(outcome.results.size(), 4u);
  expectFloats(outcome.results[0], DType::F32, {2}, {1, -3}, 0, 0);
  expectFloats(outcome.results[1], DType::F32, {2}, {1, 9}, 0, 0);
  expectFloats(outcome.results[2], DType::F32, {2}, {-1, 3}, 0, 0);
  expectFloats(outcome.results[3], DType::F32, {2}, {-1, 3}, 0, 0);
  // Results are independent copies.
  outcome.results[2].setDouble(0, 100);
  EXPECT_EQ(outcome.results[3].getDouble(0), -1);
}

TEST(ReferenceInterpreter, InputsAreNotModified) {
  HostTensor x = f32({2}, {1, 2});
  const char *source = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tgc.neg %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
)";
  expectFloats(runOne(source, {x}), DType::F32, {2}, {-1, -2}, 0, 0);
  EXPECT_EQ(x.getDouble(0), 1);
  EXPECT_EQ(x.getDouble(1), 2);
}

TEST(ReferenceInterpreter, FuncCall) {
  const char *source = R"(
func.func @double(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tgc.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @twice(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = func.call @double(%a) : (tensor<?xf32>) -> tensor<?xf32>
  %1 = func.call @double(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = tgc.cast %x : tensor<3xf32> to tensor<?xf32>
  %0:2 = func.call @twice(%c) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
  %1 = tgc.sub %0#1, %0#0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %2 = tgc.cast %1 : tensor<?xf32> to tensor<3xf32>
  return %2 : tensor<3xf32>
}
)";
  // 4x - 2x = 2x.
  expectFloats(runOne(source, {f32({3}, {1, 2, -3})}), DType::F32, {3},
               {2, 4, -6}, 0, 0);
}

TEST(ReferenceInterpreter, RecursionHitsTheDepthLimit) {
  const char *source = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @main(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)";
  std::string error = runError(source, {f32({2}, {1, 2})});
  EXPECT_NE(error.find("'func.call' op call depth exceeds"), std::string::npos)
      << error;
}

TEST(ReferenceInterpreter, CallToExternalFunctionIsAnError) {
  const char *source = R"(
func.func private @external(tensor<2xf32>) -> tensor<2xf32>
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @external(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)";
  std::string error = runError(source, {f32({2}, {1, 2})});
  EXPECT_NE(error.find("function 'external' has no body"), std::string::npos)
      << error;
}

TEST(ReferenceInterpreter, UnsupportedOpIsNamed) {
  const char *source = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "foo.bar"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)";
  std::string error =
      runError(source, {f32({2}, {1, 2})}, /*allowUnregistered=*/true);
  EXPECT_NE(error.find("test.mlir:3:8: 'foo.bar' op is not supported by the "
                       "reference interpreter"),
            std::string::npos)
      << error;
}

TEST(ReferenceInterpreter, NameLocationsAreLookedThrough) {
  const char *source = R"(
func.func @main(%x: tensor<?xf32>) -> tensor<2x2xf32> {
  %0 = tgc.reshape %x : tensor<?xf32> to tensor<2x2xf32> loc("model.py":12:3)
  return %0 : tensor<2x2xf32>
}
)";
  std::string error = runError(source, {f32({3}, {1, 2, 3})});
  EXPECT_EQ(error.rfind("model.py:12:3: 'tgc.reshape' op cannot reshape", 0),
            0u)
      << error;
  const char *named = R"(
func.func @main(%x: tensor<?xf32>) -> tensor<2x2xf32> {
  %0 = tgc.reshape %x : tensor<?xf32> to tensor<2x2xf32> loc(fused["layer1"("model.py":7:1)])
  return %0 : tensor<2x2xf32>
}
)";
  std::string error2 = runError(named, {f32({3}, {1, 2, 3})});
  EXPECT_EQ(error2.rfind("model.py:7:1: 'tgc.reshape' op", 0), 0u) << error2;
}

TEST(ReferenceInterpreter, SmallGraph) {
  // A dense layer with a dynamic batch: relu(x @ w + b), then softmax.
  const char *source = R"(
func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %w = tgc.constant dense<[[1.0, -1.0], [2.0, 0.0]]> : tensor<2x2xf32>
  %b = tgc.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %0 = tgc.matmul %x, %w : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
  %1 = tgc.add %0, %b : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %2 = tgc.relu %1 : tensor<?x2xf32>
  return %2 : tensor<?x2xf32>
}
)";
  // [1, 1] -> [3, -1] + b = [3.5, 0] -> relu [3.5, 0];
  // [-1, 0] -> [-1, 1] + b = [-0.5, 2] -> [0, 2].
  expectFloats(runOne(source, {f32({2, 2}, {1, 1, -1, 0})}), DType::F32, {2, 2},
               {3.5, 0, 0, 2}, 0, 0);
}

} // namespace
