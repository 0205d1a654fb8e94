//===- ToolingTest.cpp - tgc-run's libraries ------------------------------===//

#include "tools/lib/Differential.h"
#include "tools/lib/Registration.h"
#include "tools/lib/TensorIO.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace tgc;
using namespace tgc::tooling;
using runtime::DType;
using runtime::HostTensor;

namespace {

class ToolingTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  mlir::OwningOpRef<mlir::ModuleOp> parse(const char *source) {
    return mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  }
  mlir::MLIRContext context;
};

TEST(TensorIO, LiteralsLoadAndBadPathsSayWhy) {
  auto tensor = loadTensor("2x2xf32=1,2,3,4");
  ASSERT_TRUE(static_cast<bool>(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tensor->getDouble(3), 4.0);
  auto missing = loadTensor("/nonexistent/x.npy");
  ASSERT_FALSE(missing);
  EXPECT_EQ(
      llvm::toString(missing.takeError()).rfind("/nonexistent/x.npy: ", 0), 0u);
}

TEST(TensorIO, Bf16FromAnF32FileIsConverted) {
  HostTensor f32 = *loadTensor("2xf32=1.5,-2");
  HostTensor bf16 = adaptDType(f32, DType::BF16);
  EXPECT_EQ(bf16.dtype(), DType::BF16);
  EXPECT_EQ(bf16.getDouble(0), 1.5);
  // Other mismatches are left for the interpreter to report.
  EXPECT_EQ(adaptDType(f32, DType::I32).dtype(), DType::F32);
}

TEST(TensorIO, LiteralTypesAreNotInputNames) {
  EXPECT_TRUE(isLiteralType("2x3xf32"));
  EXPECT_TRUE(isLiteralType("bf16"));
  EXPECT_FALSE(isLiteralType("x"));
  EXPECT_FALSE(isLiteralType("2x3"));
}

TEST(TensorIO, InputsGoInArgumentOrderByNameOrPosition) {
  std::vector<std::string> names = {"a", "b", "c"};
  auto ordered = orderInputs({"c=3xf32=1", "1xf32=7"}, names, "@f");
  ASSERT_TRUE(static_cast<bool>(ordered));
  EXPECT_EQ(*ordered, (std::vector<std::string>{"1xf32=7", "", "3xf32=1"}));
  // Trailing arguments nobody gives are dropped (they stay random).
  auto first = orderInputs({"a=1xf32=1"}, names, "@f");
  ASSERT_TRUE(static_cast<bool>(first));
  EXPECT_EQ(*first, (std::vector<std::string>{"1xf32=1"}));
  auto twice = orderInputs({"a=x.npy", "a=y.npy"}, names, "@f");
  ASSERT_FALSE(twice);
  EXPECT_EQ(llvm::toString(twice.takeError()),
            "--input: input 'a' is given twice");
  auto many = orderInputs({"x.npy", "y.npy", "z.npy", "w.npy"}, names, "@f");
  ASSERT_FALSE(many);
  EXPECT_EQ(llvm::toString(many.takeError()),
            "@f takes 3 arguments but 4 inputs were given");
}

TEST_F(ToolingTest, RandomInputsAreSeededAndDynamicDimsNeedASize) {
  auto module = parse(R"mlir(
func.func @f(%x: tensor<2x?xf32>, %i: tensor<3xi32>) -> tensor<2x?xf32> {
  return %x : tensor<2x?xf32>
}
)mlir");
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<mlir::func::FuncOp>("f");
  auto noSize = makeInputs(func, {});
  ASSERT_FALSE(noSize);
  EXPECT_EQ(llvm::toString(noSize.takeError()),
            "argument #0 has dynamic dims; give it with --input");
  InputOptions options{{}, 7, 4};
  auto a = makeInputs(func, options);
  auto b = makeInputs(func, options);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[0].shape(), (std::vector<int64_t>{2, 4}));
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ((*a)[0].getDouble(i), (*b)[0].getDouble(i));
    EXPECT_GE((*a)[0].getDouble(i), -1.0);
    EXPECT_LT((*a)[0].getDouble(i), 1.0);
  }
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_GE((*a)[1].getInt(i), -10);
    EXPECT_LE((*a)[1].getInt(i), 10);
  }
  options.inputs = {"3xi32=1,2,3"};
  options.inputs.insert(options.inputs.begin(), "2x1xf32=5,6");
  auto given = makeInputs(func, options);
  ASSERT_TRUE(static_cast<bool>(given)) << llvm::toString(given.takeError());
  EXPECT_EQ((*given)[0].getDouble(1), 6.0);
  EXPECT_EQ((*given)[1].getInt(2), 3);
}

TEST(TensorIO, PrintsTheFirst64Elements) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printTensor(os, *loadTensor("3xi32=1,-2,3"));
  EXPECT_EQ(text, "[1, -2, 3]\n");
  text.clear();
  HostTensor big = *HostTensor::allocate(DType::F32, {100});
  printTensor(os, big);
  EXPECT_NE(text.find(", ... (100 elements)]"), std::string::npos);
}

TEST(Differential, ToleranceScalesWithHalfPrecision) {
  HostTensor a = *loadTensor("2xf32=1,2");
  HostTensor b = *loadTensor("2xf32=1,2.001");
  EXPECT_EQ(compareResults({a}, {a}, 1e-4, 1e-5), "");
  EXPECT_EQ(compareResults({a}, {b}, 1e-4, 1e-5).rfind("result #0: ", 0), 0u);
  EXPECT_EQ(compareResults({a, a}, {a}, 1e-4, 1e-5),
            "different number of results");
  // An f16 result one rounding away (2 vs 2.00195) is within f16's scaled
  // tolerance.
  HostTensor h = *loadTensor("2xf16=1,2");
  HostTensor g = *loadTensor("2xf16=1,2.002");
  ASSERT_NE(h.getDouble(1), g.getDouble(1));
  EXPECT_EQ(compareResults({g}, {h}, 1e-4, 1e-5), "");
}

TEST(Differential, FirstLocationFindsFileLineCol) {
  EXPECT_EQ(firstLocation("f.mlir:3:8: 'tgc.gather' op index 7"), "f.mlir:3:8");
  EXPECT_EQ(firstLocation("no location here"), "");
}

TEST_F(ToolingTest, DifferentialReportsEveryFunction) {
  auto module = parse(R"mlir(
func.func @ok(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @both_fail(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = tgc.constant dense<[7]> : tensor<1xi64>
  %0 = tgc.gather %x, %i {axis = 0 : i64} : (tensor<4xf32>, tensor<1xi64>) -> tensor<1xf32>
  %1 = tgc.broadcast_to %0 : tensor<1xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @skipped(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
)mlir");
  ASSERT_TRUE(module);
  std::string text;
  llvm::raw_string_ostream out(text);
  DifferentialOptions options;
  llvm::Error error = runDifferential(*module, options, out);
  EXPECT_FALSE(error) << llvm::toString(std::move(error));
  EXPECT_NE(text.find("@ok: ok\n"), std::string::npos) << text;
  EXPECT_NE(text.find("@both_fail: both fail at "), std::string::npos) << text;
  EXPECT_EQ(text.find("@skipped"), std::string::npos) << text;
  EXPECT_NE(text.find("differential: 2 functions, 0 mismatches\n"),
            std::string::npos)
      << text;
  text.clear();
  options.backend = "reference";
  llvm::Error refused = runDifferential(*module, options, out);
  ASSERT_TRUE(static_cast<bool>(refused));
  EXPECT_EQ(llvm::toString(std::move(refused)),
            "--differential compares --backend=cpu or cuda with the "
            "reference interpreter, not 'reference'");
}

TEST(Differential, MismatchesAreTheirOwnErrorCode) {
  llvm::Error error = makeMismatchError("results differ");
  EXPECT_EQ(llvm::errorToErrorCode(std::move(error)),
            std::make_error_code(std::errc::result_out_of_range));
}

} // namespace
