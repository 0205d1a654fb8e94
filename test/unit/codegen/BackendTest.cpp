//===- BackendTest.cpp - the backend registry and its clients -------------===//

#include "codegen/Backend.h"
#include "TestSources.h"
#include "codegen/Backends.h"
#include "dialects/TgcOps.h"
#include "passes/Specialize.h"
#include "tools/lib/Registration.h"
#include "tools/lib/Runner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

constexpr const char *kSource = R"mlir(
func.func @f(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = tgc.add %x, %y : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %1 = tgc.relu %0 : tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
)mlir";

class BackendTest : public tgc::testing::SourceTest {
protected:
  BackendTest() : SourceTest(kSource) {}
  void SetUp() override {
    SourceTest::SetUp();
    func = get("f");
  }
  std::vector<HostTensor> inputs(int64_t rows) {
    HostTensor x = *HostTensor::allocate(DType::F32, {rows, 4});
    HostTensor y = *HostTensor::allocate(DType::F32, {4});
    for (int64_t i = 0; i < x.numElements(); ++i)
      x.setDouble(i, static_cast<double>(i) - 5.0);
    for (int64_t i = 0; i < 4; ++i)
      y.setDouble(i, 0.5 * static_cast<double>(i));
    return {x, y};
  }
  mlir::func::FuncOp func;
};

TEST_F(BackendTest, RegistryNamesTheBackendsOfThisBuild) {
  std::vector<std::string> names = codegen::registeredBackends();
  ASSERT_GE(names.size(), 2u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char *name : {"cpu", "reference"}) {
    const codegen::Backend *backend = codegen::lookupBackend(name);
    ASSERT_NE(backend, nullptr) << name;
    EXPECT_EQ(backend->name(), name);
    EXPECT_FALSE(backend->description().empty());
  }
  EXPECT_TRUE(codegen::lookupBackend("reference")->servesAnyShapes());
  EXPECT_FALSE(codegen::lookupBackend("cpu")->servesAnyShapes());
  EXPECT_FALSE(codegen::lookupBackend("cpu")->runsOnDevice());
  // Registering again changes nothing.
  codegen::registerAllBackends();
  EXPECT_EQ(codegen::registeredBackends(), names);
}

TEST_F(BackendTest, UnknownBackendsNameTheAvailableOnes) {
  auto missing = codegen::getBackend("tpu");
  ASSERT_FALSE(missing);
  std::string message = llvm::toString(missing.takeError());
  EXPECT_EQ(message.rfind("unknown backend 'tpu' (available: cpu, ", 0), 0u)
      << message;
  EXPECT_NE(message.find("reference)"), std::string::npos) << message;
  EXPECT_EQ(codegen::lookupBackend("tpu"), nullptr);
  // "cuda" either exists or says why not.
  auto cuda = codegen::getBackend("cuda");
  if (codegen::lookupBackend("cuda")) {
    ASSERT_TRUE(static_cast<bool>(cuda));
    EXPECT_TRUE((*cuda)->runsOnDevice());
  } else {
    ASSERT_FALSE(cuda);
    EXPECT_EQ(llvm::toString(cuda.takeError()),
              codegen::noCudaCodegenMessage().str());
  }
}

TEST_F(BackendTest, CpuAndReferenceAgree) {
  std::vector<HostTensor> args = inputs(3);
  std::vector<std::vector<int64_t>> shapes = {{3, 4}, {4}};
  std::vector<HostTensor> want;
  for (const char *name : {"reference", "cpu"}) {
    const codegen::Backend *backend = codegen::lookupBackend(name);
    auto compiled = backend->compile(func, shapes, {});
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    EXPECT_EQ((*compiled)->backend(), name);
    EXPECT_FALSE((*compiled)->describe().empty());
    EXPECT_TRUE((*compiled)->module());
    EXPECT_EQ((*compiled)->hostExecutable() != nullptr,
              std::string(name) == "cpu");
    EXPECT_EQ((*compiled)->deviceExecutable(), nullptr);
    auto results = (*compiled)->run(args, {});
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), 1u);
    ASSERT_EQ((*results)[0].shape(), (std::vector<int64_t>{3, 4}));
    if (want.empty()) {
      want = std::move(*results);
      continue;
    }
    for (int64_t i = 0; i < 12; ++i)
      EXPECT_EQ((*results)[0].getDouble(i), want[0].getDouble(i)) << i;
  }
  // relu(x + y) of the first row: x = -5..-2, y = 0, .5, 1, 1.5.
  EXPECT_EQ(want[0].getDouble(0), 0.0);
  EXPECT_EQ(want[0].getDouble(11), 6.0 + 1.5);
}

TEST_F(BackendTest, ReferenceServesAnyShapes) {
  auto compiled = codegen::lookupBackend("reference")->compile(func, {}, {});
  ASSERT_TRUE(static_cast<bool>(compiled));
  for (int64_t rows : {1, 5}) {
    auto results = (*compiled)->run(inputs(rows), {});
    ASSERT_TRUE(results.ok()) << results.status();
    EXPECT_EQ((*results)[0].shape()[0], rows);
  }
}

TEST_F(BackendTest, CompileErrorsSayWhatDoesNotFit) {
  auto compiled =
      codegen::lookupBackend("cpu")->compile(func, {{3, 5}, {4}}, {});
  ASSERT_FALSE(compiled);
  EXPECT_EQ(llvm::toString(compiled.takeError()),
            "argument #0: expected tensor<?x4xf32>, got shape 3x5");
}

namespace {
/// Whether this process has mapped a library whose name contains `name`.
bool mapsLibrary(const std::string &name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos)
      return true;
  return false;
}
} // namespace

// NVRTC is loaded by the first CUDA compile, never by CPU work: mapping it
// costs ~27 MiB of resident pages. (CUDA tests run in their own processes,
// so nothing before this test loaded it.)
TEST_F(BackendTest, OnlyCudaCompilesLoadNvrtc) {
  const codegen::Backend *cpu = codegen::lookupBackend("cpu");
  ASSERT_NE(cpu, nullptr);
  auto compiled = cpu->compile(func, {{3, 4}, {4}}, {});
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  ASSERT_TRUE((*compiled)->run(inputs(3), {}).ok());
  EXPECT_FALSE(mapsLibrary("libnvrtc"));
  const codegen::Backend *cuda = codegen::lookupBackend("cuda");
  if (!cuda)
    GTEST_SKIP() << "this build has no CUDA code generation";
  codegen::BackendOptions options;
  options.arch = "sm_90";
  auto onCuda = cuda->compile(func, {{3, 4}, {4}}, options);
  ASSERT_TRUE(static_cast<bool>(onCuda)) << llvm::toString(onCuda.takeError());
  EXPECT_TRUE(mapsLibrary("libnvrtc"));
}

TEST_F(BackendTest, CudaCompilesWithoutAGpuAndRunsOnlyOnADevice) {
  const codegen::Backend *cuda = codegen::lookupBackend("cuda");
  if (!cuda)
    GTEST_SKIP() << "this build has no CUDA code generation";
  codegen::BackendOptions options;
  options.arch = "sm_90";
  auto compiled = cuda->compile(func, {{3, 4}, {4}}, options);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  EXPECT_EQ((*compiled)->backend(), "cuda");
  EXPECT_NE((*compiled)->deviceExecutable(), nullptr);
  EXPECT_FALSE((*compiled)->describe().empty());
  auto results = (*compiled)->run(inputs(3), {});
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().message(),
            "tgc: the cuda backend runs on a CUDA device; none was given");
}

TEST(UnsupportedError, IsTheOneUnsupportedCode) {
  llvm::Error error = codegen::makeUnsupportedError("no kernel for tgc.foo");
  EXPECT_TRUE(codegen::isUnsupported(error));
  EXPECT_EQ(llvm::errorToErrorCode(std::move(error)),
            std::make_error_code(std::errc::not_supported));
  llvm::Error other = llvm::createStringError(llvm::inconvertibleErrorCode(),
                                              "no kernel for tgc.foo");
  EXPECT_FALSE(codegen::isUnsupported(other));
  llvm::consumeError(std::move(other));
  EXPECT_EQ(llvm::toString(codegen::makeUnsupportedError("why")), "why");
}

TEST(DiagnosticCapture, KeepsTheFirstErrorWithItsLocation) {
  mlir::MLIRContext context;
  mlir::Location loc = mlir::FileLineColLoc::get(&context, "model.mlir", 3, 7);
  DiagnosticCapture capture(&context);
  EXPECT_TRUE(capture.empty());
  mlir::emitWarning(loc, "ignored");
  mlir::emitError(loc, "first");
  mlir::emitError(loc, "second");
  EXPECT_EQ(capture.first(), "model.mlir:3:7: first");
  EXPECT_EQ(capture.firstMessage(), "first");
  EXPECT_EQ(llvm::toString(capture.error("fallback")), "model.mlir:3:7: first");
  DiagnosticCapture none(&context);
  EXPECT_EQ(llvm::toString(none.error("fallback")), "fallback");
}

TEST_F(BackendTest, RunnerCompilesOncePrintsThePlanAndTimes) {
  std::string printed;
  llvm::raw_string_ostream out(printed);
  tooling::RunnerOptions options;
  options.printPlan = true;
  options.profile = true;
  auto runner = tooling::Runner::create("cpu", func, options, out);
  ASSERT_TRUE(static_cast<bool>(runner)) << llvm::toString(runner.takeError());
  auto results = (*runner)->run(inputs(2));
  ASSERT_TRUE(static_cast<bool>(results));
  EXPECT_FALSE(printed.empty());
  size_t planLength = printed.size();
  auto ms = (*runner)->benchmark(inputs(2), 3);
  ASSERT_TRUE(static_cast<bool>(ms));
  EXPECT_EQ(ms->size(), 3u);
  EXPECT_EQ(printed.size(), planLength) << "compiled twice";
  ASSERT_NE((*runner)->profile(), nullptr);
  EXPECT_FALSE((*runner)->profile()->events.empty());
  // Arguments that do not fit: the interpreter's located message.
  auto wrong = (*runner)->run({inputs(2)[0]});
  ASSERT_FALSE(wrong);
  EXPECT_NE(llvm::toString(wrong.takeError()).find("function 'f'"),
            std::string::npos);
}

TEST_F(BackendTest, RunnerRefusesUnknownBackendsAndMissingDevices) {
  std::string printed;
  llvm::raw_string_ostream out(printed);
  auto unknown = tooling::Runner::create("tpu", func, {}, out);
  ASSERT_FALSE(unknown);
  EXPECT_NE(llvm::toString(unknown.takeError()).find("unknown backend 'tpu'"),
            std::string::npos);
  EXPECT_EQ(tooling::noDeviceMessage("driver not found"),
            "no CUDA device: driver not found");
  EXPECT_EQ(tooling::noDeviceMessage("no CUDA device: x"), "no CUDA device: x");
}

} // namespace

namespace {

// The op categories are traits on the ops (dialects/TgcOps.h), not lists.
TEST(OpCategories, TraitsMarkTheOpsOfEachCategory) {
  mlir::MLIRContext context;
  tgc::testing::loadAllDialects(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x3xf32>, %b: tensor<2x3xi1>) -> tensor<6xf32> {
  %0 = tgc.exp %x : tensor<2x3xf32>
  %1 = tgc.add %0, %x : tensor<2x3xf32>
  %2 = tgc.select %b, %1, %x : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = tgc.matmul %2, %w : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %4 = tgc.reduce_sum %3 {axes = array<i64: 1>, keepdims} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %5 = tgc.transpose %3 {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %6 = tgc.reshape %5 : tensor<3x2xf32> to tensor<6xf32>
  return %6 : tensor<6xf32>
}
)mlir",
                                                        &context);
  ASSERT_TRUE(module);
  std::vector<std::string> seen;
  module->walk([&](mlir::Operation *op) {
    if (!mlir::isa<TgcDialect>(op->getDialect()))
      return;
    std::string categories;
    if (isElementwise(op))
      categories += "E";
    if (isShapeView(op))
      categories += "V";
    if (isReduction(op))
      categories += "R";
    if (isContraction(op))
      categories += "C";
    seen.push_back(op->getName().stripDialect().str() + ":" + categories);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"exp:E", "add:E", "select:E",
                                            "matmul:C", "reduce_sum:R",
                                            "transpose:", "reshape:V"}));
}

} // namespace

namespace {

TEST(BackendOptions, UnknownActivationLayoutsAreAnError) {
  mlir::MLIRContext context;
  tgc::testing::loadAllDialects(context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
)mlir",
                                                        &context);
  ASSERT_TRUE(module);
  codegen::registerAllBackends();
  codegen::BackendOptions options;
  options.activationLayouts = "nchw";
  auto compiled = codegen::lookupBackend("cpu")->compile(
      module->lookupSymbol<mlir::func::FuncOp>("f"), {{4}}, options);
  ASSERT_FALSE(compiled);
  EXPECT_EQ(llvm::toString(compiled.takeError()),
            "unknown activation layouts 'nchw' (expected auto, plain, "
            "blocked or any)");
}

TEST(BackendOptions, TheEnvironmentGivesTheDefaults) {
  unsetenv("TGC_BLOCKED_LAYOUTS");
  unsetenv("TGC_LOOP_VECTOR_TILE");
  unsetenv("TGC_FUSION");
  codegen::BackendOptions defaults = codegen::BackendOptions::fromEnvironment();
  EXPECT_EQ(defaults.activationLayouts, "auto");
  EXPECT_EQ(defaults.loopVectorTile, 64);
  EXPECT_TRUE(defaults.fuse);
  setenv("TGC_BLOCKED_LAYOUTS", "nChw8c", 1);
  setenv("TGC_LOOP_VECTOR_TILE", "4", 1); // below 8: the default
  setenv("TGC_FUSION", "off", 1);
  codegen::BackendOptions set = codegen::BackendOptions::fromEnvironment();
  EXPECT_EQ(set.activationLayouts, "blocked");
  EXPECT_EQ(set.loopVectorTile, 64);
  EXPECT_FALSE(set.fuse);
  unsetenv("TGC_BLOCKED_LAYOUTS");
  unsetenv("TGC_LOOP_VECTOR_TILE");
  unsetenv("TGC_FUSION");
}

} // namespace
