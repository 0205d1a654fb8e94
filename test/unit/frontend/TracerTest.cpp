//===- TracerTest.cpp - tracing functions into the tgc dialect ------------===//
//
// Traced modules (ops, types, user source locations), running them on the
// reference interpreter, shape queries, nesting and tracer reuse.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtils.h"

#include "dialects/TgcOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"

#include <map>

using namespace tgc;
using namespace tgc::frontend::test;

namespace {

/// Line of every op in the function body, by op name (the last one wins).
std::multimap<std::string, unsigned> opLines(const TracedModule &traced) {
  std::multimap<std::string, unsigned> lines;
  mlir::func::FuncOp func = traced.func;
  func.walk([&](mlir::Operation *op) {
    if (op == func.getOperation())
      return;
    auto loc = mlir::dyn_cast<mlir::FileLineColLoc>(op->getLoc());
    lines.emplace(op->getName().getStringRef().str(), loc ? loc.getLine() : 0);
  });
  return lines;
}

std::vector<std::string> opFiles(const TracedModule &traced) {
  std::vector<std::string> files;
  mlir::func::FuncOp func = traced.func;
  func.walk([&](mlir::Operation *op) {
    if (auto loc = mlir::dyn_cast<mlir::FileLineColLoc>(op->getLoc()))
      files.push_back(loc.getFilename().str());
  });
  return files;
}

int mlpLine = 0; // Line of the first matmul in mlpBody.

std::vector<Tensor> mlpBody(llvm::ArrayRef<Tensor> a) {
  const Tensor &x = a[0], &w1 = a[1], &b1 = a[2], &w2 = a[3], &b2 = a[4];
  mlpLine = __LINE__ + 1;
  Tensor h = relu(matmul(x, w1) + b1);
  Tensor y = matmul(h, w2) + b2;
  return {softmax(y)};
}

const std::vector<ArgSpec> kMlpArgs = {{DType::F32, {kDynamic, 2}},
                                       {DType::F32, {2, 3}},
                                       {DType::F32, {3}},
                                       {DType::F32, {3, 2}},
                                       {DType::F32, {2}}};

TEST_F(TracerTest, MlpModuleHasOpsTypesAndLocations) {
  TracedModule traced = traceOk(kMlpArgs, mlpBody, "mlp");
  ASSERT_TRUE(traced.func);
  std::string text = printOp(traced.module.get(), /*withLocations=*/true);
  EXPECT_NE(text.find("func.func @mlp(%arg0: tensor<?x2xf32>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("-> tensor<?x2xf32>"), std::string::npos) << text;
  for (const char *op :
       {"tgc.matmul", "tgc.add", "tgc.relu", "tgc.softmax", "return"})
    EXPECT_NE(text.find(op), std::string::npos) << op << "\n" << text;
  // Every op is located at the user's line in this file.
  std::string matmulLoc =
      "loc(\"" + std::string(__FILE__) + "\":" + std::to_string(mlpLine) + ":";
  EXPECT_NE(text.find("tgc.matmul %arg0, %arg1 : (tensor<?x2xf32>, "
                      "tensor<2x3xf32>) -> tensor<?x3xf32> " +
                      matmulLoc),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("tgc.softmax %4 {axis = 1 : i64} : tensor<?x2xf32> loc(\"" +
                std::string(__FILE__) + "\":" + std::to_string(mlpLine + 2) +
                ":"),
      std::string::npos)
      << text;
  auto lines = opLines(traced);
  EXPECT_EQ(lines.count("tgc.matmul"), 2u);
  for (auto [name, line] : lines) {
    if (name == "func.return")
      continue;
    EXPECT_GE(line, unsigned(mlpLine)) << name;
    EXPECT_LE(line, unsigned(mlpLine + 2)) << name;
  }
  EXPECT_EQ(lines.find("tgc.relu")->second, unsigned(mlpLine));
  EXPECT_EQ(lines.find("tgc.softmax")->second, unsigned(mlpLine + 2));
  // Every tgc op points into this file (the return is at the trace call).
  std::vector<std::string> files = opFiles(traced);
  EXPECT_EQ(files.size(), 8u);
  EXPECT_EQ(std::count(files.begin(), files.end(), std::string(__FILE__)), 6);
}

TEST_F(TracerTest, MlpRunsOnTheInterpreter) {
  TracedModule traced = traceOk(kMlpArgs, mlpBody, "mlp");
  // x = [[1, 2], [-1, 0]], w1 = [[1, 0, -1], [0, 1, 1]], b1 = [0, 0, 1]
  // h = relu(x @ w1 + b1) = relu([[1, 2, 2], [-1, 0, 2]]) = [[1,2,2],[0,0,2]]
  // w2 = [[1, 0], [0, 1], [1, 1]], b2 = [0, 1]
  // y = h @ w2 + b2 = [[3, 5], [2, 3]]
  std::vector<HostTensor> results =
      run(traced, {f32({2, 2}, {1, 2, -1, 0}), f32({2, 3}, {1, 0, -1, 0, 1, 1}),
                   f32({3}, {0, 0, 1}), f32({3, 2}, {1, 0, 0, 1, 1, 1}),
                   f32({2}, {0, 1})});
  ASSERT_EQ(results.size(), 1u);
  double e2 = std::exp(2.0);
  double e1 = std::exp(1.0);
  expectValues(results[0], DType::F32, {2, 2},
               {1 / (1 + e2), e2 / (1 + e2), 1 / (1 + e1), e1 / (1 + e1)});
}

TEST_F(TracerTest, DynamicBatchRunsWithAnyBatchSize) {
  TracedModule traced =
      traceOk({{DType::F32, {kDynamic, 3}}, {DType::F32, {3}}},
              [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                return {reduceSum(a[0] * a[1], {-1})};
              });
  std::string text = printOp(traced.module.get());
  EXPECT_NE(text.find("-> tensor<?xf32>"), std::string::npos) << text;
  for (int64_t batch : {1, 4}) {
    std::vector<double> x;
    std::vector<double> expected;
    for (int64_t i = 0; i < batch; ++i) {
      x.insert(x.end(), {double(i), 1.0, 2.0});
      expected.push_back(double(i) * 1 + 1 * 10 + 2 * 100);
    }
    auto results = run(traced, {f32({batch, 3}, x), f32({3}, {1, 10, 100})});
    ASSERT_EQ(results.size(), 1u);
    expectValues(results[0], DType::F32, {batch}, expected);
  }
}

TEST_F(TracerTest, ShapeQueriesDuringTracing) {
  std::vector<int64_t> xShape, hShape, rShape;
  std::optional<int64_t> d0, d1, dLast, dOut;
  int64_t rank = -1;
  DType dtype = DType::I1;
  Tracer *seen = nullptr;
  traceOk({{DType::F32, {kDynamic, 4}}, {DType::F32, {4, 5}}},
          [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
            seen = Tracer::current();
            xShape = a[0].shape();
            d0 = a[0].dim(0);
            d1 = a[0].dim(1);
            dLast = a[0].dim(-1);
            dOut = a[0].dim(2);
            rank = a[0].rank();
            dtype = a[1].dtype();
            Tensor h = matmul(a[0], a[1]);
            hShape = h.shape();
            // Static shape information drives user code while tracing.
            Tensor r = reshape(h, {-1, *h.dim(1) / 5, 5});
            rShape = r.shape();
            EXPECT_FALSE(h.hasStaticShape());
            EXPECT_FALSE(h.numElements());
            EXPECT_TRUE(a[1].hasStaticShape());
            EXPECT_EQ(a[1].numElements(), 20);
            EXPECT_EQ(h.describe(), "tensor<?x5xf32>");
            return {r};
          });
  EXPECT_EQ(seen, &tracer);
  EXPECT_EQ(Tracer::current(), nullptr);
  EXPECT_EQ(xShape, (Shape{kDynamic, 4}));
  EXPECT_EQ(d0, std::nullopt);
  EXPECT_EQ(d1, 4);
  EXPECT_EQ(dLast, 4);
  EXPECT_EQ(dOut, std::nullopt);
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(dtype, DType::F32);
  EXPECT_EQ(hShape, (Shape{kDynamic, 5}));
  EXPECT_EQ(rShape, (Shape{kDynamic, 1, 5}));
}

TEST_F(TracerTest, InvalidTensorQueries) {
  Tensor t;
  EXPECT_FALSE(t.valid());
  EXPECT_EQ(t.rank(), 0);
  EXPECT_TRUE(t.shape().empty());
  EXPECT_EQ(t.dim(0), std::nullopt);
  EXPECT_EQ(t.dtype(), DType::F32);
  EXPECT_FALSE(t.valid());
  EXPECT_EQ(t.describe(), "<invalid tensor>");
}

TEST_F(TracerTest, MultipleResultsIncludingArguments) {
  TracedModule traced =
      traceOk({{DType::F32, {2}}, {DType::I32, {2}}},
              [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                Tensor n = -a[0];
                return {a[1], n, n, a[0]};
              });
  ASSERT_TRUE(traced.func);
  EXPECT_EQ(traced.func.getFunctionType().getNumResults(), 4u);
  auto results =
      run(traced, {f32({2}, {1, -2}), makeI(DType::I32, {2}, {7, 8})});
  ASSERT_EQ(results.size(), 4u);
  expectValues(results[0], DType::I32, {2}, {7, 8});
  expectValues(results[1], DType::F32, {2}, {-1, 2});
  expectValues(results[2], DType::F32, {2}, {-1, 2});
  expectValues(results[3], DType::F32, {2}, {1, -2});
}

TEST_F(TracerTest, NoArgumentsOnlyConstants) {
  HostTensor c = traceAndRun(
      {},
      [](llvm::ArrayRef<Tensor>) -> std::vector<Tensor> {
        return {full({2, 2}, 1.5, DType::F32) + scalar(2, DType::F32)};
      },
      {});
  expectValues(c, DType::F32, {2, 2}, {3.5, 3.5, 3.5, 3.5});
}

TEST_F(TracerTest, ConvBlock) {
  int line = 0;
  TracedModule traced = traceOk(
      {{DType::F32, {kDynamic, 1, 4, 4}},
       {DType::F32, {2, 1, 3, 3}},
       {DType::F32, {2}}},
      [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        line = __LINE__ + 1;
        Tensor y = conv2d(a[0], a[1], a[2], {.padding = {1, 1}});
        Tensor ones = full({2}, 1.0, DType::F32);
        Tensor zeros = full({2}, 0.0, DType::F32);
        Tensor bn = batchNorm(y, ones, zeros, zeros, ones, 0.0);
        Tensor p = maxPool2d(relu(bn), {.kernel = {2, 2}, .strides = {2, 2}});
        return {p, globalAvgPool2d(p)};
      });
  ASSERT_TRUE(traced.func);
  std::string text = printOp(traced.module.get());
  EXPECT_NE(text.find("tgc.conv2d %arg0, %arg1, %arg2 {padding = array<i64: "
                      "1, 1, 1, 1>} : (tensor<?x1x4x4xf32>, "
                      "tensor<2x1x3x3xf32>, tensor<2xf32>) -> "
                      "tensor<?x2x4x4xf32>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tgc.batch_norm"), std::string::npos) << text;
  EXPECT_NE(text.find("-> (tensor<?x2x2x2xf32>, tensor<?x2x1x1xf32>)"),
            std::string::npos)
      << text;
  EXPECT_EQ(opLines(traced).find("tgc.conv2d")->second, unsigned(line));

  // Input all ones; filter 0: all ones (sum of the window), filter 1: only
  // the center tap with weight -1; bias [0, 10].
  std::vector<double> filter(18, 0.0);
  for (int i = 0; i < 9; ++i)
    filter[i] = 1;
  filter[9 + 4] = -1;
  auto results = run(traced, {f32({1, 1, 4, 4}, std::vector<double>(16, 1.0)),
                              f32({2, 1, 3, 3}, filter), f32({2}, {0, 10})});
  ASSERT_EQ(results.size(), 2u);
  // Channel 0 window sums over the padded 4x4 input: corners 4, edges 6,
  // inside 9; each 2x2 pool holds one corner, two edges and one inside: max 9.
  // Channel 1: 10 - 1 = 9 everywhere.
  expectValues(results[0], DType::F32, {1, 2, 2, 2}, {9, 9, 9, 9, 9, 9, 9, 9});
  expectValues(results[1], DType::F32, {1, 2, 1, 1}, {9, 9});
}

TEST_F(TracerTest, ScalarConstantsShareTheOperatorLocation) {
  int line = 0;
  TracedModule traced =
      traceOk({{DType::F32, {3}}},
              [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                line = __LINE__ + 1;
                Tensor y = a[0] * 2.0;
                return {y};
              });
  auto lines = opLines(traced);
  ASSERT_EQ(lines.count("tgc.constant"), 1u);
  EXPECT_EQ(lines.find("tgc.constant")->second, unsigned(line));
  EXPECT_EQ(lines.find("tgc.mul")->second, unsigned(line));
  std::string text = printOp(traced.module.get(), true);
  EXPECT_NE(text.find("tgc.constant dense<2.000000e+00> : tensor<f32> loc(\"" +
                      std::string(__FILE__) + "\":" + std::to_string(line)),
            std::string::npos)
      << text;
}

TEST_F(TracerTest, NestedTracesAreIndependent) {
  std::string innerText;
  TracedModule outer =
      traceOk({{DType::F32, {2}}},
              [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                Tensor before = exp(a[0]);
                Tracer inner(context);
                auto traced = inner.trace(
                    "inner", {{DType::I32, {3}}},
                    [&](llvm::ArrayRef<Tensor> b) -> std::vector<Tensor> {
                      EXPECT_EQ(Tracer::current(), &inner);
                      return {b[0] + 1};
                    });
                EXPECT_TRUE(static_cast<bool>(traced));
                if (traced)
                  innerText = printOp(traced->module.get());
                else
                  llvm::consumeError(traced.takeError());
                EXPECT_EQ(Tracer::current(), &tracer);
                return {before * before};
              });
  EXPECT_NE(innerText.find("func.func @inner(%arg0: tensor<3xi32>) -> "
                           "tensor<3xi32>"),
            std::string::npos)
      << innerText;
  EXPECT_EQ(innerText.find("tgc.exp"), std::string::npos) << innerText;
  std::string text = printOp(outer.module.get());
  EXPECT_NE(text.find("tgc.exp"), std::string::npos) << text;
  EXPECT_EQ(text.find("tgc.add"), std::string::npos) << text;
}

TEST_F(TracerTest, TracerIsReusable) {
  for (int i = 0; i < 3; ++i) {
    HostTensor r =
        traceAndRun({{DType::I64, {2}}},
                    [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                      return {a[0] * int64_t(i)};
                    },
                    {makeI(DType::I64, {2}, {5, 6})});
    expectValues(r, DType::I64, {2}, {5.0 * i, 6.0 * i});
  }
}

TEST_F(TracerTest, PrintWithoutLocations) {
  TracedModule traced = traceOk(
      {{DType::F32, {2}}}, [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        return {tanh(a[0])};
      });
  std::string plain = printOp(traced.module.get());
  EXPECT_EQ(plain.find("loc("), std::string::npos) << plain;
  EXPECT_NE(plain.find("tgc.tanh %arg0 : tensor<2xf32>"), std::string::npos)
      << plain;
  std::string located = printOp(traced.func, true);
  EXPECT_NE(located.find("loc(\"" + std::string(__FILE__)), std::string::npos)
      << located;
}

TEST_F(TracerTest, InvalidArgSpecs) {
  auto identity = [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
    return {a[0]};
  };
  int line = __LINE__ + 1;
  auto bad = tracer.trace("f", {{DType::F32, {2, -3}}}, identity);
  ASSERT_FALSE(static_cast<bool>(bad));
  std::string message = llvm::toString(bad.takeError());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("argument #0 has invalid dim -3"), std::string::npos)
      << message;

  auto overflow = tracer.trace(
      "f", {{DType::F32, {int64_t(1) << 40, int64_t(1) << 40}}}, identity);
  ASSERT_FALSE(static_cast<bool>(overflow));
  message = llvm::toString(overflow.takeError());
  EXPECT_NE(message.find("overflows int64"), std::string::npos) << message;

  auto unnamed = tracer.trace("", {{DType::F32, {2}}}, identity);
  ASSERT_FALSE(static_cast<bool>(unnamed));
  message = llvm::toString(unnamed.takeError());
  EXPECT_NE(message.find("non-empty name"), std::string::npos) << message;
}

TEST_F(TracerTest, ContextWithoutDialects) {
  mlir::MLIRContext bare;
  Tracer t(bare);
  auto traced = t.trace(
      "f", {}, [](llvm::ArrayRef<Tensor>) { return std::vector<Tensor>{}; });
  ASSERT_FALSE(static_cast<bool>(traced));
  std::string message = llvm::toString(traced.takeError());
  EXPECT_NE(message.find("Tracer::loadDialects"), std::string::npos) << message;
}

TEST_F(TracerTest, EmptyFunction) {
  TracedModule traced =
      traceOk({{DType::F32, {2}}},
              [](llvm::ArrayRef<Tensor>) { return std::vector<Tensor>{}; });
  ASSERT_TRUE(traced.func);
  EXPECT_EQ(traced.func.getFunctionType().getNumResults(), 0u);
  EXPECT_TRUE(run(traced, {f32({2}, {1, 2})}).empty());
}

TEST_F(TracerTest, ConstantsFromHostTensors) {
  HostTensor weights = f32({2, 2}, {1, 2, 3, 4});
  HostTensor halves = makeF(DType::F16, {3}, {0.5, 0.25, -2});
  HostTensor mask = makeI(DType::I1, {3}, {1, 0, 1});
  HostTensor splat = makeI(DType::I32, {2, 3}, {7, 7, 7, 7, 7, 7});
  HostTensor empty = f32({0, 3}, {});
  TracedModule traced =
      traceOk({}, [&](llvm::ArrayRef<Tensor>) -> std::vector<Tensor> {
        return {constant(weights), constant(halves), constant(mask),
                constant(splat), constant(empty)};
      });
  std::string text = printOp(traced.module.get());
  EXPECT_NE(text.find("dense<7> : tensor<2x3xi32>"), std::string::npos) << text;
  EXPECT_NE(text.find("dense<[true, false, true]> : tensor<3xi1>"),
            std::string::npos)
      << text;
  auto results = run(traced, {});
  ASSERT_EQ(results.size(), 5u);
  expectValues(results[0], DType::F32, {2, 2}, {1, 2, 3, 4});
  expectValues(results[1], DType::F16, {3}, {0.5, 0.25, -2});
  expectValues(results[2], DType::I1, {3}, {1, 0, 1});
  expectValues(results[3], DType::I32, {2, 3}, {7, 7, 7, 7, 7, 7});
  expectValues(results[4], DType::F32, {0, 3}, {});
}

} // namespace
