//===- StagedTest.cpp - functions with data-dependent shapes --------------===//
//
// codegen/Staged.h through the backend interface: the CPU backend compiles
// the ops before a tgc.nonzero as one plan, runs the nonzero on the host
// and compiles the rest for each count a call brings (checked against the
// reference interpreter); the plan says so; such a function saves no
// artifact; one inside a branch is a located UnsupportedError; concurrent
// calls with different counts agree.
//
//===----------------------------------------------------------------------===//

#include "codegen/Staged.h"
#include "TestSources.h"
#include "codegen/Backend.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <thread>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

constexpr const char *kSource = R"mlir(
func.func @rows(%x: tensor<?x4xf32>, %w: tensor<4x3xf32>) -> (tensor<?x3xf32>, tensor<?xf32>) {
  %s = tgc.reduce_sum %x {axes = array<i64: 1>} : (tensor<?x4xf32>) -> tensor<?xf32>
  %z = tgc.constant dense<0.0> : tensor<f32>
  %m = tgc.compare gt, %s, %z : (tensor<?xf32>, tensor<f32>) -> tensor<?xi1>
  %i = tgc.nonzero %m : (tensor<?xi1>) -> tensor<1x?xi64>
  %j = tgc.reshape %i : tensor<1x?xi64> to tensor<?xi64>
  %r = tgc.gather %x, %j {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
  %y = tgc.matmul %r, %w : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %y, %s : tensor<?x3xf32>, tensor<?xf32>
}
func.func @loop_between(%x: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
  %y = tgc.mul %x, %x : tensor<4xf32>
  %zero = tgc.constant dense<0> : tensor<i64>
  %r:2 = tgc.while (%zero, %y) captures(%n : tensor<i64>) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
  ^bb0(%i: tensor<i64>, %v: tensor<4xf32>, %limit: tensor<i64>):
    %c = tgc.compare lt, %i, %limit : (tensor<i64>, tensor<i64>) -> tensor<i1>
    tgc.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i64>, %v: tensor<4xf32>, %limit: tensor<i64>):
    %one = tgc.constant dense<1> : tensor<i64>
    %j = tgc.add %i, %one : tensor<i64>
    %h = tgc.constant dense<0.5> : tensor<f32>
    %w = tgc.mul %v, %h : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    tgc.yield %j, %w : tensor<i64>, tensor<4xf32>
  }
  %s = tgc.add %r#1, %x : tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @in_branch(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tgc.if %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %i = tgc.nonzero %a : (tensor<4xf32>) -> tensor<1x?xi64>
    %c = tgc.cast %i : tensor<1x?xi64> to tensor<1x?xf32>
    %s = tgc.reduce_sum %c {axes = array<i64: 0, 1>} : (tensor<1x?xf32>) -> tensor<f32>
    %b = tgc.add %a, %s : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    tgc.yield %b : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tgc.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @branch_after_split(%x: tensor<6xf32>) -> tensor<?xi64> {
  %z = tgc.constant dense<0.0> : tensor<f32>
  %m = tgc.compare gt, %x, %z : (tensor<6xf32>, tensor<f32>) -> tensor<6xi1>
  %i = tgc.nonzero %m : (tensor<6xi1>) -> tensor<1x?xi64>
  %j = tgc.reshape %i : tensor<1x?xi64> to tensor<?xi64>
  %v = tgc.gather %x, %j {axis = 0 : i64} : (tensor<6xf32>, tensor<?xi64>) -> tensor<?xf32>
  %shape = tgc.shape_of %v : tensor<?xf32> -> tensor<1xi64>
  %n = tgc.reduce_prod %shape {axes = array<i64: 0>} : (tensor<1xi64>) -> tensor<i64>
  %zero = tgc.constant dense<0> : tensor<i64>
  %empty = tgc.compare eq, %n, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r = tgc.if %empty (%v) : tensor<i1>, (tensor<?xf32>) -> tensor<?xi64> {
  ^bb0(%a: tensor<?xf32>):
    %e = tgc.constant dense<> : tensor<0xi64>
    tgc.yield %e : tensor<0xi64>
  } else {
  ^bb0(%a: tensor<?xf32>):
    %two = tgc.constant dense<2.0> : tensor<f32>
    %big = tgc.compare gt, %a, %two : (tensor<?xf32>, tensor<f32>) -> tensor<?xi1>
    %k = tgc.nonzero %big : (tensor<?xi1>) -> tensor<1x?xi64>
    %l = tgc.reshape %k : tensor<1x?xi64> to tensor<?xi64>
    tgc.yield %l : tensor<?xi64>
  }
  return %r : tensor<?xi64>
}
)mlir";

class StagedTest : public tgc::testing::SourceTest {
protected:
  StagedTest() : SourceTest(kSource) {}
  /// 6 rows of which those in `positive` sum to > 0, and weights.
  static std::vector<HostTensor> inputs(const std::vector<int> &positive) {
    HostTensor x = *HostTensor::allocate(DType::F32, {6, 4});
    HostTensor w = *HostTensor::allocate(DType::F32, {4, 3});
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t c = 0; c < 4; ++c) {
        bool up =
            std::find(positive.begin(), positive.end(), r) != positive.end();
        x.setDouble(r * 4 + c, (up ? 1.0 : -1.0) * (0.5 + r + 0.25 * c));
      }
    for (int64_t i = 0; i < w.numElements(); ++i)
      w.setDouble(i, 0.1 * static_cast<double>(i) - 0.3);
    return {x, w};
  }
};

void expectSame(const std::vector<HostTensor> &got,
                const std::vector<HostTensor> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << "result #" << i;
    for (int64_t e = 0; e < got[i].numElements(); ++e)
      EXPECT_NEAR(got[i].getDouble(e), want[i].getDouble(e), 1e-5)
          << "result #" << i << " element " << e;
  }
}

TEST_F(StagedTest, TheRestIsCompiledForEachCountACallBrings) {
  auto cpu = codegen::getBackend("cpu");
  auto reference = codegen::getBackend("reference");
  ASSERT_TRUE(static_cast<bool>(cpu) && static_cast<bool>(reference));
  codegen::BackendOptions options;
  auto compiled = (*cpu)->compile(get("rows"), {{6, 4}, {4, 3}}, options);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  auto oracle = (*reference)->compile(get("rows"), {{6, 4}, {4, 3}}, options);
  ASSERT_TRUE(static_cast<bool>(oracle)) << llvm::toString(oracle.takeError());
  std::string before = (*compiled)->describe();
  EXPECT_NE(before.find("staged plan: the shape of 'tgc.nonzero' at"),
            std::string::npos)
      << before;
  EXPECT_NE(before.find("0 so far"), std::string::npos) << before;
  // Counts 2, 0 (an empty gather and matmul), 6, and 2 again.
  for (const std::vector<int> &rows :
       {std::vector<int>{1, 4}, std::vector<int>{},
        std::vector<int>{0, 1, 2, 3, 4, 5}, std::vector<int>{0, 5}}) {
    auto args = inputs(rows);
    auto got = (*compiled)->run(args, {});
    ASSERT_TRUE(got.ok()) << got.status();
    auto want = (*oracle)->run(args, {});
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ((*got)[0].shape(),
              (std::vector<int64_t>{static_cast<int64_t>(rows.size()), 3}));
    expectSame(*got, *want);
  }
  std::string after = (*compiled)->describe();
  EXPECT_NE(after.find("3 so far"), std::string::npos) << after;
  // Keyed by the nonzero's result and the values carried over (x, w and
  // the row sums).
  EXPECT_NE(after.find("stage 2 for (1x2, 6x4, 4x3, 6):"), std::string::npos)
      << after;
  // Staged functions are compiled as they run: no artifact.
  absl::Status saved = (*compiled)->saveArtifact("/tmp/never.tgcplan", {});
  EXPECT_TRUE(absl::IsUnimplemented(saved)) << saved;
  EXPECT_NE(saved.message().find("cannot be saved as a plan"),
            std::string::npos)
      << saved;
}

// A data-dependent op inside a branch (no split before it): the CPU backend
// runs that tgc.if whole on its reference kernels, and says so in the plan.
TEST_F(StagedTest, OneInsideABranchRunsTheBranchOnTheReferenceKernels) {
  auto cpu = codegen::getBackend("cpu");
  ASSERT_TRUE(static_cast<bool>(cpu));
  auto compiled =
      (*cpu)->compile(get("in_branch"), {{}, {4}}, codegen::BackendOptions());
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  std::string plan = (*compiled)->describe();
  EXPECT_NE(plan.find("reference.tgc.if"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("staged plan"), std::string::npos) << plan;
  HostTensor x = *HostTensor::allocate(DType::F32, {4});
  for (int64_t i = 0; i < 4; ++i)
    x.setDouble(i, i % 2 ? 0.0 : static_cast<double>(i + 1)); // 1, 0, 3, 0
  for (bool taken : {true, false}) {
    HostTensor p = *HostTensor::allocate(DType::I1, {});
    p.setInt(0, taken);
    auto got = (*compiled)->run({p, x}, {});
    ASSERT_TRUE(got.ok()) << got.status();
    // Taken: x plus the sum of its nonzero positions (0 + 2).
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ((*got)[0].getDouble(i), x.getDouble(i) + (taken ? 2.0 : 0.0))
          << i;
  }
}

// A data-dependent op inside a branch after a split: the ops after the
// split are specialized again for the count it gives, where a branch on
// that count folds (torchvision's batched_nms: `if boxes.numel() == 0`
// around NonMaxSuppression) and its ops split in turn.
TEST_F(StagedTest, ABranchAfterASplitFoldsWithTheCountItGives) {
  auto cpu = codegen::getBackend("cpu");
  auto reference = codegen::getBackend("reference");
  ASSERT_TRUE(static_cast<bool>(cpu) && static_cast<bool>(reference));
  auto compiled = (*cpu)->compile(get("branch_after_split"), {{6}},
                                  codegen::BackendOptions());
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  auto oracle = (*reference)
                    ->compile(get("branch_after_split"), {{6}},
                              codegen::BackendOptions());
  ASSERT_TRUE(static_cast<bool>(oracle)) << llvm::toString(oracle.takeError());
  // No positive element (the empty branch), and some (the other, whose
  // nonzero picks those above 2).
  for (const std::vector<double> &values :
       {std::vector<double>{-1, -2, -3, -4, -5, -6},
        std::vector<double>{3, -1, 1, 5, -2, 2.5}}) {
    HostTensor x = *HostTensor::allocate(DType::F32, {6});
    for (int64_t i = 0; i < 6; ++i)
      x.setDouble(i, values[i]);
    auto got = (*compiled)->run({x}, {});
    ASSERT_TRUE(got.ok()) << got.status();
    auto want = (*oracle)->run({x}, {});
    ASSERT_TRUE(want.ok()) << want.status();
    expectSame(*got, *want);
  }
  HostTensor x = *HostTensor::allocate(DType::F32, {6});
  for (int64_t i = 0; i < 6; ++i)
    x.setDouble(i, std::vector<double>{3, -1, 1, 5, -2, 2.5}[i]);
  auto got = (*compiled)->run({x}, {});
  ASSERT_TRUE(got.ok()) << got.status();
  // Positives 3, 1, 5, 2.5 at 0, 2, 3, 5; above 2: positions 0, 2, 3 of them.
  ASSERT_EQ((*got)[0].shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ((*got)[0].getInt(0), 0);
  EXPECT_EQ((*got)[0].getInt(1), 2);
  EXPECT_EQ((*got)[0].getInt(2), 3);
}

TEST_F(StagedTest, ConcurrentCallsWithDifferentCountsAgree) {
  auto cpu = codegen::getBackend("cpu");
  auto reference = codegen::getBackend("reference");
  ASSERT_TRUE(static_cast<bool>(cpu) && static_cast<bool>(reference));
  auto compiled =
      (*cpu)->compile(get("rows"), {{6, 4}, {4, 3}}, codegen::BackendOptions());
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  auto oracle =
      (*reference)
          ->compile(get("rows"), {{6, 4}, {4, 3}}, codegen::BackendOptions());
  ASSERT_TRUE(static_cast<bool>(oracle)) << llvm::toString(oracle.takeError());
  std::vector<std::vector<int>> cases = {{0}, {1, 2}, {3, 4, 5}, {0, 2, 4, 5}};
  std::vector<std::vector<HostTensor>> want;
  for (const auto &rows : cases)
    want.push_back(*(*oracle)->run(inputs(rows), {}));
  std::vector<std::thread> threads;
  std::vector<int> failures(cases.size(), 0);
  for (size_t t = 0; t < cases.size(); ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        auto got = (*compiled)->run(inputs(cases[t]), {});
        if (!got.ok() || (*got)[0].shape() != want[t][0].shape() ||
            std::memcmp((*got)[1].data(), want[t][1].data(),
                        want[t][1].byteSize()) != 0)
          ++failures[t];
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (size_t t = 0; t < cases.size(); ++t)
    EXPECT_EQ(failures[t], 0) << "case " << t;
}

// Control flow split out for a backend that compiles no regions (CUDA's
// StageSplit), exercised here with the cpu backend around it: the loop
// runs on the cpu backend between two plans, compiled once for its
// operands' shapes; values worked out by hand (x*x halved n times, plus x).
TEST_F(StagedTest, ControlFlowRunsOnTheCpuBackendBetweenStages) {
  auto cpu = codegen::getBackend("cpu");
  ASSERT_TRUE(static_cast<bool>(cpu));
  auto compiled = codegen::compileStaged(
      **cpu, get("loop_between"), {{4}, {}}, codegen::BackendOptions(),
      codegen::StageSplit::DataDependentAndControlFlow);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  for (int64_t n : {0, 1, 3}) {
    HostTensor x = *HostTensor::allocate(DType::F32, {4});
    HostTensor count = *HostTensor::allocate(DType::I64, {});
    for (int64_t i = 0; i < 4; ++i)
      x.setDouble(i, static_cast<double>(i) - 1.0); // -1, 0, 1, 2
    count.setInt(0, n);
    auto got = (*compiled)->run({x, count}, {});
    ASSERT_TRUE(got.ok()) << got.status();
    for (int64_t i = 0; i < 4; ++i) {
      double v = static_cast<double>(i) - 1.0;
      EXPECT_DOUBLE_EQ((*got)[0].getDouble(i),
                       v * v / static_cast<double>(1 << n) + v)
          << "n " << n << " element " << i;
    }
  }
  std::string plan = (*compiled)->describe();
  EXPECT_NE(plan.find("staged plan: 'tgc.while' at"), std::string::npos)
      << plan;
  EXPECT_NE(plan.find("then 'tgc.while' on the cpu backend"), std::string::npos)
      << plan;
  // One stage 2 for every count: the loop's results keep their shapes.
  EXPECT_NE(plan.find("1 so far"), std::string::npos) << plan;
  EXPECT_TRUE(codegen::needsStages(get("rows")));
  EXPECT_FALSE(codegen::needsStages(get("loop_between")));
  EXPECT_TRUE(codegen::needsStages(
      get("loop_between"), codegen::StageSplit::DataDependentAndControlFlow));
}

} // namespace
