//===- TestUtils.cpp - helpers for the reference interpreter tests --------===//

#include "TestUtils.h"

#include "codegen/reference/Interpreter.h"
#include "dialects/TgcDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

namespace tgc::reference::test {

HostTensor makeF(DType dtype, Shape shape, std::vector<double> values) {
  auto t = HostTensor::allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok())
    return HostTensor();
  EXPECT_EQ(static_cast<size_t>(t->numElements()), values.size());
  for (size_t i = 0; i < values.size() && i < size_t(t->numElements()); ++i)
    t->setDouble(static_cast<int64_t>(i), values[i]);
  return std::move(*t);
}

HostTensor makeI(DType dtype, Shape shape, std::vector<int64_t> values) {
  auto t = HostTensor::allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok())
    return HostTensor();
  EXPECT_EQ(static_cast<size_t>(t->numElements()), values.size());
  for (size_t i = 0; i < values.size() && i < size_t(t->numElements()); ++i)
    t->setInt(static_cast<int64_t>(i), values[i]);
  return std::move(*t);
}

RunOutcome run(std::string_view source, std::vector<HostTensor> inputs,
               bool allowUnregistered) {
  mlir::DialectRegistry registry;
  registry.insert<tgc::TgcDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.allowUnregisteredDialects(allowUnregistered);

  RunOutcome outcome;
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << diag.getLocation() << ": " << diag << "\n";
    return mlir::success();
  });
  mlir::ParserConfig config(&context);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      llvm::StringRef(source.data(), source.size()), config, "test.mlir");
  if (!module) {
    outcome.error = "parse error: " + diagnostics;
    return outcome;
  }
  auto func = module->lookupSymbol<mlir::func::FuncOp>("main");
  if (!func)
    for (auto f : module->getOps<mlir::func::FuncOp>()) {
      func = f;
      break;
    }
  if (!func) {
    outcome.error = "parse error: no function";
    return outcome;
  }
  auto results = runFunction(func, inputs);
  if (!results) {
    outcome.error = llvm::toString(results.takeError());
    return outcome;
  }
  outcome.results = std::move(*results);
  return outcome;
}

HostTensor runOne(std::string_view source, std::vector<HostTensor> inputs) {
  RunOutcome outcome = run(source, std::move(inputs));
  EXPECT_EQ(outcome.error, "");
  EXPECT_EQ(outcome.results.size(), 1u);
  if (!outcome.error.empty() || outcome.results.size() != 1)
    return HostTensor();
  return std::move(outcome.results[0]);
}

std::string runError(std::string_view source, std::vector<HostTensor> inputs,
                     bool allowUnregistered) {
  RunOutcome outcome = run(source, std::move(inputs), allowUnregistered);
  EXPECT_NE(outcome.error, "") << "expected a run-time error";
  EXPECT_EQ(outcome.error.find("parse error"), std::string::npos)
      << outcome.error;
  return outcome.error;
}

void expectFloats(const HostTensor &actual, DType dtype, Shape shape,
                  std::vector<double> values, double rtol, double atol) {
  EXPECT_EQ(runtime::dtypeName(actual.dtype()), runtime::dtypeName(dtype));
  EXPECT_EQ(actual.shape(), shape) << actual.describe();
  if (actual.dtype() != dtype || actual.shape() != shape)
    return;
  HostTensor expected = makeF(dtype, shape, std::move(values));
  absl::Status status = runtime::allClose(actual, expected, rtol, atol);
  EXPECT_TRUE(status.ok()) << status;
}

void expectInts(const HostTensor &actual, DType dtype, Shape shape,
                std::vector<int64_t> values) {
  EXPECT_EQ(runtime::dtypeName(actual.dtype()), runtime::dtypeName(dtype));
  EXPECT_EQ(actual.shape(), shape) << actual.describe();
  if (actual.dtype() != dtype || actual.shape() != shape)
    return;
  ASSERT_EQ(static_cast<size_t>(actual.numElements()), values.size());
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(actual.getInt(static_cast<int64_t>(i)), values[i])
        << "element " << i;
}

} // namespace tgc::reference::test
