//===- LoopKernelTest.cpp - loop kernels in blocks of rows ----------------===//
//
// A row-split loop kernel computes a block of rows per call (the last,
// partial one on a scratch copy), so its code depends on the row count only
// through the block size, and the plans of one function for many counts
// share it (codegen/cpu/LoopKernel.h).
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/LoopKernel.h"
#include "TestSources.h"
#include "codegen/Backend.h"
#include "runtime/ByteStream.h"
#include "runtime/cpu/Recipes.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

// Rows of 4: a broadcast operand (read whole by every block), an
// elementwise chain and a reduction along each row, two results.
constexpr const char *kRowsSource = R"mlir(
func.func @f(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x1xf32>) {
  %0 = tgc.mul %x, %y : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = tgc.tanh %0 : tensor<?x4xf32>
  %2 = tgc.exp %1 : tensor<?x4xf32>
  %3 = tgc.reduce_max %2 {axes = array<i64: 1>, keepdims} : (tensor<?x4xf32>) -> tensor<?x1xf32>
  return %2, %3 : tensor<?x4xf32>, tensor<?x1xf32>
}
)mlir";

std::vector<HostTensor> rowsInputs(int64_t rows) {
  HostTensor x = *HostTensor::allocate(DType::F32, {rows, 4});
  HostTensor y = *HostTensor::allocate(DType::F32, {4});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setDouble(i, 0.001 * static_cast<double>((i * 7919) % 2003) - 1.0);
  for (int64_t i = 0; i < 4; ++i)
    y.setDouble(i, 0.5 + 0.25 * static_cast<double>(i));
  return {x, y};
}

class LoopKernelTest : public tgc::testing::SourceTest {
protected:
  LoopKernelTest() : SourceTest(kRowsSource) {}
  void SetUp() override {
    SourceTest::SetUp();
    func = get("f");
  }

  /// Compiles @f for `rows` on the CPU backend (kept in `plans`), runs it
  /// and checks its results against the reference backend's.
  void compileRunAndCheck(int64_t rows, int threads) {
    SCOPED_TRACE("rows " + std::to_string(rows) + ", threads " +
                 std::to_string(threads));
    codegen::BackendOptions options;
    options.numThreads = threads;
    auto compiled =
        codegen::lookupBackend("cpu")->compile(func, {{rows, 4}, {4}}, options);
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    EXPECT_NE((*compiled)->describe().find("jit.loop"), std::string::npos)
        << (*compiled)->describe();
    std::vector<HostTensor> in = rowsInputs(rows);
    auto got = (*compiled)->run(in, {});
    ASSERT_TRUE(got.ok()) << got.status();
    auto reference = codegen::lookupBackend("reference")
                         ->compile(func, {{rows, 4}, {4}}, {});
    ASSERT_TRUE(static_cast<bool>(reference))
        << llvm::toString(reference.takeError());
    auto want = (*reference)->run(in, {});
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ(got->size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      auto close = runtime::allClose((*got)[i], (*want)[i], 1e-5, 1e-6);
      EXPECT_TRUE(close.ok()) << "result #" << i << ": " << close;
    }
    plans.push_back(std::move(*compiled));
  }

  mlir::func::FuncOp func;
  std::vector<std::unique_ptr<codegen::CompiledFunction>> plans;
};

// Counts of 2049 rows and more run in blocks of 4096 rows of 4 (16384
// elements): after the first plan, the others take its compiled code.
// Counts that are not multiples of the block (and below it) run their last
// rows on a scratch block; the results match the reference either way, on
// one thread and on two.
TEST_F(LoopKernelTest, PlansForManyRowCountsShareTheirCode) {
  compileRunAndCheck(3000, 2);
  cpu::LoopKernelStats first = cpu::loopKernelStats();
  for (int64_t rows : {2049, 4096, 5000, 8192, 9001, 12345, 20000})
    compileRunAndCheck(rows, 2);
  cpu::LoopKernelStats later = cpu::loopKernelStats();
  EXPECT_EQ(later.compiled, first.compiled);
  EXPECT_GE(later.shared - first.shared, 7u);
  for (int64_t rows : {2500, 9001})
    compileRunAndCheck(rows, 1);
  EXPECT_EQ(cpu::loopKernelStats().compiled, first.compiled);
}

// Small counts take blocks of their next power of two: 3 rows in a block
// of 4, 5 and 7 in one of 8 (shared), 1 row splits along the other dim.
TEST_F(LoopKernelTest, SmallCountsRunInTheirPowerOfTwoBlock) {
  for (int64_t rows : {1, 2, 3, 4, 5})
    compileRunAndCheck(rows, 2);
  cpu::LoopKernelStats before = cpu::loopKernelStats();
  compileRunAndCheck(7, 2);
  compileRunAndCheck(6, 1);
  EXPECT_EQ(cpu::loopKernelStats().compiled, before.compiled);
}

// A saved loop kernel whose row split does not hold together (a damaged
// plan) is a located DataLoss error, not a kernel that reads out of bounds.
TEST_F(LoopKernelTest, ALoadedKernelChecksItsRowSplit) {
  for (auto [rows, blockRows] :
       {std::pair<int64_t, int64_t>{5, 0}, {0, 4}, {-3, 2}}) {
    runtime::ByteWriter w;
    w.putString("jit.loop[exp]");
    w.putString("some cpu");
    w.put(rows);
    w.put(blockRows);
    w.put(false);
    w.putInts({4});
    w.putInts({4});
    w.put(false);
    w.putString("");
    runtime::cpu::RemakeContext remake;
    auto kernel = runtime::cpu::remakeKernel("jit.loop", w.take(), remake);
    ASSERT_FALSE(kernel.ok());
    EXPECT_EQ(kernel.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(std::string(kernel.status().message())
                  .find("a row split of " + std::to_string(rows) + " rows in " +
                        std::to_string(blockRows) + "-row blocks"),
              std::string::npos)
        << kernel.status();
  }
}

} // namespace
