//===- OpsTest.cpp - the op set and operators, run on the interpreter -----===//
//
// Each test traces a small function with the frontend API and checks the
// numbers the reference interpreter computes against hand-computed values,
// plus the frontend conveniences (negative axes, -1 reshape, scalars).
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtils.h"

#include <cmath>

using namespace tgc;
using namespace tgc::frontend::test;

namespace {

using Args = std::vector<ArgSpec>;

ArgSpec spec(Shape shape, DType dtype = DType::F32) {
  return ArgSpec{dtype, std::move(shape)};
}

TEST_F(TracerTest, ArithmeticOperatorsWithTensorsAndScalars) {
  TracedModule traced =
      traceOk({spec({2, 2}), spec({2})},
              [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                const Tensor &x = a[0], &y = a[1];
                return {x + y, x - y,   x * y,  x / y, -x,   x + 1,
                        2 * x, x - 0.5, 10 - x, x / 4, 1 / x};
              });
  auto r = run(traced, {f32({2, 2}, {1, 2, 3, 4}), f32({2}, {10, 20})});
  ASSERT_EQ(r.size(), 11u);
  expectValues(r[0], DType::F32, {2, 2}, {11, 22, 13, 24});
  expectValues(r[1], DType::F32, {2, 2}, {-9, -18, -7, -16});
  expectValues(r[2], DType::F32, {2, 2}, {10, 40, 30, 80});
  expectValues(r[3], DType::F32, {2, 2}, {0.1, 0.1, 0.3, 0.2});
  expectValues(r[4], DType::F32, {2, 2}, {-1, -2, -3, -4});
  expectValues(r[5], DType::F32, {2, 2}, {2, 3, 4, 5});
  expectValues(r[6], DType::F32, {2, 2}, {2, 4, 6, 8});
  expectValues(r[7], DType::F32, {2, 2}, {0.5, 1.5, 2.5, 3.5});
  expectValues(r[8], DType::F32, {2, 2}, {9, 8, 7, 6});
  expectValues(r[9], DType::F32, {2, 2}, {0.25, 0.5, 0.75, 1});
  expectValues(r[10], DType::F32, {2, 2}, {1, 0.5, 1.0 / 3, 0.25});
}

TEST_F(TracerTest, ScalarsAdoptTheTensorDType) {
  TracedModule traced = traceOk(
      {spec({3}, DType::I32), spec({2}, DType::F16), spec({2}, DType::I64)},
      [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        // 7 / 2 on i32 rounds toward zero; 2.0 is an integral double.
        return {a[0] / 2, a[0] * 2.0, a[1] + 0.1, a[2] + 5000000000LL};
      });
  std::string text = printOp(traced.module.get());
  EXPECT_NE(text.find("tgc.constant dense<2> : tensor<i32>"), std::string::npos)
      << text;
  EXPECT_NE(text.find(": tensor<f16>"), std::string::npos) << text;
  auto r = run(traced, {makeI(DType::I32, {3}, {7, -7, 4}),
                        makeF(DType::F16, {2}, {1, 2}),
                        makeI(DType::I64, {2}, {1, 2})});
  ASSERT_EQ(r.size(), 4u);
  expectValues(r[0], DType::I32, {3}, {3, -3, 2});
  expectValues(r[1], DType::I32, {3}, {14, -14, 8});
  expectValues(r[2], DType::F16, {2}, {1.0996094, 2.0996094}, 1e-3);
  EXPECT_EQ(r[3].getInt(0), 5000000001LL);
  EXPECT_EQ(r[3].getInt(1), 5000000002LL);
}

TEST_F(TracerTest, ComparisonOperatorsAndSelect) {
  TracedModule traced =
      traceOk({spec({3}), spec({3})},
              [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                const Tensor &x = a[0], &y = a[1];
                Tensor lt = x < y;
                return {lt,
                        x <= y,
                        x > y,
                        x >= y,
                        x == y,
                        x != y,
                        x > 1.5,
                        2 < x,
                        select(lt, x, y),
                        select(x == 2, x, 0.0),
                        logicalNot(lt),
                        logicalAnd(lt, x > 0),
                        logicalOr(lt, x == y)};
              });
  EXPECT_EQ(
      traced.func.getFunctionType().getResult(0),
      mlir::RankedTensorType::get({3}, mlir::IntegerType::get(&context, 1)));
  auto r = run(traced, {f32({3}, {1, 2, 3}), f32({3}, {2, 2, 2})});
  ASSERT_EQ(r.size(), 13u);
  expectValues(r[0], DType::I1, {3}, {1, 0, 0});
  expectValues(r[1], DType::I1, {3}, {1, 1, 0});
  expectValues(r[2], DType::I1, {3}, {0, 0, 1});
  expectValues(r[3], DType::I1, {3}, {0, 1, 1});
  expectValues(r[4], DType::I1, {3}, {0, 1, 0});
  expectValues(r[5], DType::I1, {3}, {1, 0, 1});
  expectValues(r[6], DType::I1, {3}, {0, 1, 1});
  expectValues(r[7], DType::I1, {3}, {0, 0, 1});
  expectValues(r[8], DType::F32, {3}, {1, 2, 2});
  expectValues(r[9], DType::F32, {3}, {0, 2, 0});
  expectValues(r[10], DType::I1, {3}, {0, 1, 1});
  expectValues(r[11], DType::I1, {3}, {1, 0, 0});
  expectValues(r[12], DType::I1, {3}, {1, 1, 0});
}

TEST_F(TracerTest, NamedBinaryFunctions) {
  TracedModule traced = traceOk(
      {spec({3}), spec({3})},
      [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        return {
            add(a[0], a[1]),       sub(a[0], 1),
            mul(2, a[1]),          div(a[0], a[1]),
            pow(a[0], 2),          maximum(a[0], a[1]),
            minimum(a[0], 2.5),    equal(a[0], 2),
            greaterEqual(3, a[0]), compare(ComparePredicate::ne, a[0], a[1])};
      });
  auto r = run(traced, {f32({3}, {1, 2, 3}), f32({3}, {4, 2, 1})});
  ASSERT_EQ(r.size(), 10u);
  expectValues(r[0], DType::F32, {3}, {5, 4, 4});
  expectValues(r[1], DType::F32, {3}, {0, 1, 2});
  expectValues(r[2], DType::F32, {3}, {8, 4, 2});
  expectValues(r[3], DType::F32, {3}, {0.25, 1, 3});
  expectValues(r[4], DType::F32, {3}, {1, 4, 9});
  expectValues(r[5], DType::F32, {3}, {4, 2, 3});
  expectValues(r[6], DType::F32, {3}, {1, 2, 2.5});
  expectValues(r[7], DType::I1, {3}, {0, 1, 0});
  expectValues(r[8], DType::I1, {3}, {1, 1, 1});
  expectValues(r[9], DType::I1, {3}, {1, 0, 1});
}

TEST_F(TracerTest, UnaryOps) {
  TracedModule traced =
      traceOk({spec({3})}, [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        const Tensor &x = a[0];
        return {neg(x),        abs(x),          exp(x),
                log(abs(x)),   sqrt(abs(x)),    rsqrt(abs(x)),
                reciprocal(x), tanh(x),         sigmoid(x),
                relu(x),       erf(x),          sin(x),
                cos(x),        floor(x),        ceil(x),
                round(x),      sign(x),         leakyRelu(x, 0.1),
                elu(x),        clamp(x, -1, 1), gelu(x),
                gelu(x, true)};
      });
  auto r = run(traced, {f32({3}, {-2.5, 0.5, 4})});
  ASSERT_EQ(r.size(), 22u);
  std::vector<double> xs = {-2.5, 0.5, 4};
  auto each = [&](double (*fn)(double)) {
    std::vector<double> out;
    for (double v : xs)
      out.push_back(fn(v));
    return out;
  };
  expectValues(r[0], DType::F32, {3}, {2.5, -0.5, -4});
  expectValues(r[1], DType::F32, {3}, {2.5, 0.5, 4});
  expectValues(r[2], DType::F32, {3},
               each([](double v) { return std::exp(v); }), 1e-4);
  expectValues(r[3], DType::F32, {3},
               each([](double v) { return std::log(std::fabs(v)); }));
  expectValues(r[4], DType::F32, {3},
               each([](double v) { return std::sqrt(std::fabs(v)); }));
  expectValues(r[5], DType::F32, {3},
               each([](double v) { return 1 / std::sqrt(std::fabs(v)); }));
  expectValues(r[6], DType::F32, {3}, {-0.4, 2, 0.25});
  expectValues(r[7], DType::F32, {3},
               each([](double v) { return std::tanh(v); }));
  expectValues(r[8], DType::F32, {3},
               each([](double v) { return 1 / (1 + std::exp(-v)); }));
  expectValues(r[9], DType::F32, {3}, {0, 0.5, 4});
  expectValues(r[10], DType::F32, {3},
               each([](double v) { return std::erf(v); }));
  expectValues(r[11], DType::F32, {3},
               each([](double v) { return std::sin(v); }));
  expectValues(r[12], DType::F32, {3},
               each([](double v) { return std::cos(v); }));
  expectValues(r[13], DType::F32, {3}, {-3, 0, 4});
  expectValues(r[14], DType::F32, {3}, {-2, 1, 4});
  expectValues(r[15], DType::F32, {3}, {-2, 0, 4}); // Ties to even.
  expectValues(r[16], DType::F32, {3}, {-1, 1, 1});
  expectValues(r[17], DType::F32, {3}, {-0.25, 0.5, 4});
  expectValues(r[18], DType::F32, {3}, {std::exp(-2.5) - 1, 0.5, 4});
  expectValues(r[19], DType::F32, {3}, {-1, 0.5, 1});
  expectValues(r[20], DType::F32, {3}, each([](double v) {
                 return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
               }));
  expectValues(r[21], DType::F32, {3}, each([](double v) {
                 return 0.5 * v *
                        (1 + std::tanh(std::sqrt(2 / M_PI) *
                                       (v + 0.044715 * v * v * v)));
               }));
}

TEST_F(TracerTest, CastsAndConstants) {
  TracedModule traced =
      traceOk({spec({3})}, [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        return {cast(a[0], DType::I32), cast(a[0], DType::I1),
                cast(cast(a[0], DType::I8), DType::F64),
                scalar(true, DType::I1), full({2}, -3, DType::I8)};
      });
  auto r = run(traced, {f32({3}, {-2.7, 0, 3.9})});
  ASSERT_EQ(r.size(), 5u);
  expectValues(r[0], DType::I32, {3}, {-2, 0, 3});
  expectValues(r[1], DType::I1, {3}, {1, 0, 1});
  expectValues(r[2], DType::F64, {3}, {-2, 0, 3});
  expectValues(r[3], DType::I1, {}, {1});
  expectValues(r[4], DType::I8, {2}, {-3, -3});
}

TEST_F(TracerTest, ReductionsWithNegativeAndUnsortedAxes) {
  TracedModule traced = traceOk(
      {spec({2, 3})}, [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        const Tensor &x = a[0];
        return {reduceSum(x, {-1}),     reduceSum(x, {1, 0}),
                reduceSum(x, {}, true), reduceMean(x, {0}, true),
                reduceMax(x, {-2}),     reduceMin(x, {1}),
                reduceProd(x, {-1}),    argmax(x, -1),
                argmin(x, 0, true),     argmax(x, 1, false, true)};
      });
  std::string text = printOp(traced.module.get());
  EXPECT_NE(text.find("tgc.reduce_sum %arg0 {axes = array<i64: 1>}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tgc.reduce_sum %arg0 {axes = array<i64: 0, 1>}"),
            std::string::npos)
      << text;
  auto r = run(traced, {f32({2, 3}, {1, 5, 5, -4, 2, 0})});
  ASSERT_EQ(r.size(), 10u);
  expectValues(r[0], DType::F32, {2}, {11, -2});
  expectValues(r[1], DType::F32, {}, {9});
  expectValues(r[2], DType::F32, {1, 1}, {9});
  expectValues(r[3], DType::F32, {1, 3}, {-1.5, 3.5, 2.5});
  expectValues(r[4], DType::F32, {3}, {1, 5, 5});
  expectValues(r[5], DType::F32, {2}, {1, -4});
  expectValues(r[6], DType::F32, {2}, {25, 0});
  expectValues(r[7], DType::I64, {2}, {1, 1});
  expectValues(r[8], DType::I64, {1, 3}, {1, 1, 1});
  expectValues(r[9], DType::I64, {2}, {2, 1});
}

TEST_F(TracerTest, SoftmaxLayerNormBatchNorm) {
  TracedModule traced =
      traceOk({spec({2, 2}), spec({2}), spec({2})},
              [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                const Tensor &x = a[0];
                return {softmax(x),
                        softmax(x, 0),
                        logSoftmax(x, -1),
                        layerNorm(x, a[1], a[2], -1, 0.0),
                        layerNorm(x, std::nullopt, std::nullopt, 0, 0.0),
                        batchNorm(x, a[1], a[2], a[2], a[1], 0.0, -1)};
              });
  auto r = run(traced,
               {f32({2, 2}, {0, 1, 2, 2}), f32({2}, {1, 2}), f32({2}, {0, 1})});
  ASSERT_EQ(r.size(), 6u);
  double s = 1 / (1 + std::exp(1.0));
  expectValues(r[0], DType::F32, {2, 2}, {s, 1 - s, 0.5, 0.5});
  double t = 1 / (1 + std::exp(2.0));
  expectValues(
      r[1], DType::F32, {2, 2},
      {t, 1 / (1 + std::exp(1.0)), 1 - t, 1 - 1 / (1 + std::exp(1.0))});
  expectValues(r[2], DType::F32, {2, 2},
               {std::log(s), std::log(1 - s), std::log(0.5), std::log(0.5)});
  // Row [0, 1]: mean 0.5, var 0.25 -> [-1, 1] * [1, 2] + [0, 1] = [-1, 3];
  // row [2, 2]: var 0 -> 0 / 0 = NaN with epsilon 0; checked separately.
  EXPECT_NEAR(r[3].getDouble(0), -1, 1e-5);
  EXPECT_NEAR(r[3].getDouble(1), 3, 1e-5);
  // Over all elements: mean 1.25, var = (1.5625+0.0625+0.5625*2)/4 = 0.6875.
  double sd = std::sqrt(0.6875);
  expectValues(r[4], DType::F32, {2, 2},
               {-1.25 / sd, -0.25 / sd, 0.75 / sd, 0.75 / sd});
  // Channel dim -1: mean [0, 1], var [1, 2], scale [1, 2], bias [0, 1].
  expectValues(r[5], DType::F32, {2, 2}, {0, 1, 2, 2 * 1 / std::sqrt(2.0) + 1});
}

TEST_F(TracerTest, MatmulTransposesAndBatches) {
  TracedModule traced = traceOk(
      {spec({2, 3}), spec({2, 3}), spec({2, 1, 2})},
      [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        return {matmul(a[0], a[1], {.transposeB = true}),
                matmul(a[0], a[1], {.transposeA = true}), matmul(a[2], a[0])};
      });
  auto r = run(traced, {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                        f32({2, 3}, {1, 0, 1, 0, 1, 0}),
                        f32({2, 1, 2}, {1, 1, 1, -1})});
  ASSERT_EQ(r.size(), 3u);
  expectValues(r[0], DType::F32, {2, 2}, {4, 2, 10, 5});
  expectValues(r[1], DType::F32, {3, 3}, {1, 4, 1, 2, 5, 2, 3, 6, 3});
  expectValues(r[2], DType::F32, {2, 1, 3}, {5, 7, 9, -3, -3, -3});
}

TEST_F(TracerTest, PoolsAndGroupedNhwcConv) {
  TracedModule traced = traceOk(
      {spec({1, 2, 2, 2}), spec({1, 1, 1, 2})},
      [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        // NHWC depthwise 1x1 conv: HWIO filter 1x1x1x2 with groups 2.
        Tensor y = conv2d(a[0], a[1], {.groups = 2, .layout = Layout::NHWC});
        return {y, avgPool2d(a[0], {.kernel = {2, 2}, .layout = Layout::NHWC}),
                maxPool2d(a[0], {.kernel = {2, 2}, .layout = Layout::NHWC}),
                globalAvgPool2d(a[0], Layout::NHWC),
                avgPool2d(a[0], {.kernel = {2, 2},
                                 .padding = {1, 1},
                                 .countIncludePad = true,
                                 .layout = Layout::NHWC})};
      });
  // x[h][w][c]: c0 = 1, 2, 3, 4; c1 = 10, 20, 30, 40.
  auto r = run(traced, {f32({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40}),
                        f32({1, 1, 1, 2}, {2, -1})});
  ASSERT_EQ(r.size(), 5u);
  expectValues(r[0], DType::F32, {1, 2, 2, 2},
               {2, -10, 4, -20, 6, -30, 8, -40});
  expectValues(r[1], DType::F32, {1, 1, 1, 2}, {2.5, 25});
  expectValues(r[2], DType::F32, {1, 1, 1, 2}, {4, 40});
  expectValues(r[3], DType::F32, {1, 1, 1, 2}, {2.5, 25});
  // 3x3 output windows over the padded 4x4 input; each holds one element.
  expectValues(r[4], DType::F32, {1, 3, 3, 2},
               {0.25, 2.5, 0.75, 7.5, 0.5, 5, 1, 10, 2.5, 25, 1.5, 15, 0.75,
                7.5, 1.75, 17.5, 1, 10});
}

TEST_F(TracerTest, ReshapeInfersMinusOne) {
  std::vector<Shape> shapes;
  TracedModule traced =
      traceOk({spec({2, 3}), spec({kDynamic, 4})},
              [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                std::vector<Tensor> out = {
                    reshape(a[0], {-1}), reshape(a[0], {3, -1}),
                    reshape(a[0], {1, 6, 1}), reshape(a[1], {-1, 2, 2}),
                    reshape(a[1], {2, -1})};
                for (const Tensor &t : out)
                  shapes.push_back(t.shape());
                return out;
              });
  EXPECT_EQ(shapes,
            (std::vector<Shape>{
                {6}, {3, 2}, {1, 6, 1}, {kDynamic, 2, 2}, {2, kDynamic}}));
  auto r =
      run(traced, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({1, 4}, {1, 2, 3, 4})});
  ASSERT_EQ(r.size(), 5u);
  expectValues(r[1], DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  expectValues(r[3], DType::F32, {1, 2, 2}, {1, 2, 3, 4});
  expectValues(r[4], DType::F32, {2, 2}, {1, 2, 3, 4});
}

TEST_F(TracerTest, ShapeOfAndDynamicReshape) {
  std::vector<Shape> shapes;
  TracedModule traced = traceOk(
      {spec({kDynamic, kDynamic, 4})},
      [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        Tensor s = shapeOf(a[0]);
        // [batch, seq, 4] -> [batch, seq, 2, 2], batch and seq from s.
        Tensor target = concat(
            {slice(s, {0}, {2}), constant(makeI(DType::I64, {2}, {2, 2}))}, 0);
        std::vector<Tensor> out = {
            s, dynamicReshape(a[0], target, {kDynamic, kDynamic, 2, 2}),
            dynamicReshape(a[0], target),
            // copy_zeros: [0, -1] keeps dim 0 and flattens the rest.
            dynamicReshape(a[0], constant(makeI(DType::I64, {2}, {0, -1})), {},
                           /*copyZeros=*/true)};
        for (const Tensor &t : out)
          shapes.push_back(t.shape());
        return out;
      });
  // Without the hint the target's constant elements still give dims.
  EXPECT_EQ(shapes, (std::vector<Shape>{{3},
                                        {kDynamic, kDynamic, 2, 2},
                                        {kDynamic, kDynamic, 2, 2},
                                        {kDynamic, kDynamic}}));
  auto r = run(traced, {f32({1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_EQ(r.size(), 4u);
  expectValues(r[0], DType::I64, {3}, {1, 2, 4});
  expectValues(r[1], DType::F32, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  expectValues(r[2], DType::F32, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  expectValues(r[3], DType::F32, {1, 8}, {1, 2, 3, 4, 5, 6, 7, 8});
}

TEST_F(TracerTest, DynamicReshapeErrors) {
  std::string error =
      traceError({spec({2, 3}), spec({kDynamic}, DType::I64)},
                 [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   return {dynamicReshape(a[0], a[1])};
                 });
  EXPECT_NE(error.find("the new shape must be a 1-D tensor of static length"),
            std::string::npos)
      << error;
  error = traceError({spec({2, 3}), spec({2}, DType::I64)},
                     [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       return {dynamicReshape(a[0], a[1], {2, 3, 1})};
                     });
  EXPECT_NE(error.find("the shape hint [2, 3, 1] has 3 dims, the new shape 2"),
            std::string::npos)
      << error;
}

TEST_F(TracerTest, DataMovementOps) {
  TracedModule traced =
      traceOk({spec({2, 3}), spec({2}, DType::I64), spec({1, 3})},
              [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                const Tensor &x = a[0];
                return {transpose(x),
                        transpose(x, {-1, 0}),
                        broadcastTo(a[2], {2, 2, 3}),
                        concat({x, a[2]}, -2),
                        slice(x, {0, -1}, {2, INT64_MIN}, {1, -1}),
                        slice(x, {1, 0}, {2, 2}),
                        pad(x, {0, 1}, {1, 0}, 9),
                        gather(x, a[1], -1),
                        squeeze(a[2]),
                        unsqueeze(x, {0, -1})};
              });
  auto r =
      run(traced, {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                   makeI(DType::I64, {2}, {2, -3}), f32({1, 3}, {7, 8, 9})});
  ASSERT_EQ(r.size(), 10u);
  expectValues(r[0], DType::F32, {3, 2}, {1, 4, 2, 5, 3, 6});
  expectValues(r[1], DType::F32, {3, 2}, {1, 4, 2, 5, 3, 6});
  expectValues(r[2], DType::F32, {2, 2, 3},
               {7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9});
  expectValues(r[3], DType::F32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  expectValues(r[4], DType::F32, {2, 3}, {3, 2, 1, 6, 5, 4});
  expectValues(r[5], DType::F32, {1, 2}, {4, 5});
  expectValues(r[6], DType::F32, {3, 4}, {9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9});
  expectValues(r[7], DType::F32, {2, 2}, {3, 1, 6, 4});
  expectValues(r[8], DType::F32, {3}, {7, 8, 9});
  expectValues(r[9], DType::F32, {1, 2, 3, 1}, {1, 2, 3, 4, 5, 6});
}

TEST_F(TracerTest, IntegerAndBoolTensors) {
  TracedModule traced =
      traceOk({spec({3}, DType::I8), spec({3}, DType::I1)},
              [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                return {a[0] * 2 + 1, abs(a[0]),        relu(a[0]),
                        a[1] == true, logicalNot(a[1]), reduceSum(a[0], {0})};
              });
  auto r = run(traced, {makeI(DType::I8, {3}, {-3, 0, 100}),
                        makeI(DType::I1, {3}, {1, 0, 1})});
  ASSERT_EQ(r.size(), 6u);
  // 100 * 2 wraps in i8: 200 - 256 = -56, + 1 = -55.
  expectValues(r[0], DType::I8, {3}, {-5, 1, -55});
  expectValues(r[1], DType::I8, {3}, {3, 0, 100});
  expectValues(r[2], DType::I8, {3}, {0, 0, 100});
  expectValues(r[3], DType::I1, {3}, {1, 0, 1});
  expectValues(r[4], DType::I1, {3}, {0, 1, 0});
  expectValues(r[5], DType::I8, {}, {97});
}

TEST_F(TracerTest, UnsignedAndI16Tensors) {
  TracedModule traced = traceOk(
      {spec({3}, DType::UI8), spec({2}, DType::UI64), spec({2}, DType::I16)},
      [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        // Scalars convert exactly: 255 fits ui8, 2^64 - 1 fits ui64.
        return {a[0] + 255,
                a[1] > uint64_t(18446744073709551615ull),
                a[1] / 2,
                shiftLeft(a[0], 1),
                shiftRight(a[2], 1),
                cast(a[0], DType::I16) - 300};
      });
  auto r = run(traced, {makeI(DType::UI8, {3}, {1, 0, 200}),
                        makeI(DType::UI64, {2}, {-1, 7}),
                        makeI(DType::I16, {2}, {-7, 9})});
  ASSERT_EQ(r.size(), 6u);
  // x + 255 wraps modulo 256 (x - 1).
  expectValues(r[0], DType::UI8, {3}, {0, 255, 199});
  expectValues(r[1], DType::I1, {2}, {0, 0});
  EXPECT_EQ(r[2].getUInt(0), 9223372036854775807u);
  EXPECT_EQ(r[2].getUInt(1), 3u);
  expectValues(r[3], DType::UI8, {3}, {2, 0, 144});
  expectValues(r[4], DType::I16, {2}, {-4, 4});
  expectValues(r[5], DType::I16, {3}, {-299, -300, -100});
}

TEST_F(TracerTest, ScalarsMustFitUnsignedTypes) {
  std::string error =
      traceError({spec({3}, DType::UI8)},
                 [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   return {a[0] + 256};
                 });
  EXPECT_NE(error.find("scalar 256 cannot be represented exactly as ui8"),
            std::string::npos)
      << error;
  error = traceError({spec({3}, DType::UI32)},
                     [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       return {a[0] - 1.5};
                     });
  EXPECT_NE(error.find("cannot be represented exactly as ui32"),
            std::string::npos)
      << error;
  error = traceError({spec({3}, DType::UI16)},
                     [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       return {a[0] * -1};
                     });
  EXPECT_NE(error.find("scalar -1 cannot be represented exactly as ui16"),
            std::string::npos)
      << error;
}

} // namespace
