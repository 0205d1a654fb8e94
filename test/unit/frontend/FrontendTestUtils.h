//===- FrontendTestUtils.h - helpers for the frontend tests -----*- C++ -*-===//

#ifndef TGC_TEST_UNIT_FRONTEND_FRONTENDTESTUTILS_H
#define TGC_TEST_UNIT_FRONTEND_FRONTENDTESTUTILS_H

#include "codegen/reference/Interpreter.h"
#include "frontend/Tensor.h"
#include "frontend/Tracer.h"
#include "tgc/HostTensor.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace tgc::frontend::test {

using runtime::DType;
using runtime::HostTensor;
using Shape = std::vector<int64_t>;
using Body = std::function<std::vector<Tensor>(llvm::ArrayRef<Tensor>)>;

/// "<file>:<line>:" as diagnostics print it.
inline std::string at(const char *file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ":";
}

/// A tensor filled with setDouble.
inline HostTensor makeF(DType dtype, Shape shape, std::vector<double> values) {
  auto t = HostTensor::allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok())
    return HostTensor();
  EXPECT_EQ(static_cast<size_t>(t->numElements()), values.size());
  for (size_t i = 0; i < values.size() && i < size_t(t->numElements()); ++i)
    t->setDouble(static_cast<int64_t>(i), values[i]);
  return std::move(*t);
}
inline HostTensor f32(Shape shape, std::vector<double> values) {
  return makeF(DType::F32, std::move(shape), std::move(values));
}
/// A tensor filled with setInt.
inline HostTensor makeI(DType dtype, Shape shape, std::vector<int64_t> values) {
  auto t = HostTensor::allocate(dtype, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok())
    return HostTensor();
  EXPECT_EQ(static_cast<size_t>(t->numElements()), values.size());
  for (size_t i = 0; i < values.size() && i < size_t(t->numElements()); ++i)
    t->setInt(static_cast<int64_t>(i), values[i]);
  return std::move(*t);
}

/// Checks dtype and shape exactly and values within `tol` (absolute).
inline void expectValues(const HostTensor &actual, DType dtype, Shape shape,
                         std::vector<double> values, double tol = 1e-5) {
  EXPECT_EQ(actual.dtype(), dtype) << actual.describe();
  EXPECT_EQ(actual.shape(), shape) << actual.describe();
  if (actual.shape() != shape ||
      static_cast<size_t>(actual.numElements()) != values.size())
    return;
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_NEAR(actual.getDouble(static_cast<int64_t>(i)), values[i], tol)
        << "element " << i << " of " << actual.describe();
}

class TracerTest : public ::testing::Test {
protected:
  TracerTest() { Tracer::loadDialects(context); }

  /// Traces `body` and expects success.
  TracedModule traceOk(llvm::ArrayRef<ArgSpec> args, const Body &body,
                       llvm::StringRef name = "main") {
    auto traced = tracer.trace(name, args, body);
    if (!traced) {
      ADD_FAILURE() << "trace failed: " << llvm::toString(traced.takeError());
      return TracedModule{};
    }
    return std::move(*traced);
  }

  /// Traces `body` and expects failure; returns the message.
  std::string traceError(llvm::ArrayRef<ArgSpec> args, const Body &body) {
    auto traced = tracer.trace("main", args, body);
    if (traced) {
      ADD_FAILURE() << "trace unexpectedly succeeded:\n"
                    << printOp(traced->module.get());
      return "";
    }
    return llvm::toString(traced.takeError());
  }

  /// Runs a traced function on the reference interpreter.
  std::vector<HostTensor> run(const TracedModule &traced,
                              std::vector<HostTensor> inputs) {
    if (!traced.func)
      return {};
    auto results = reference::runFunction(traced.func, inputs);
    if (!results) {
      ADD_FAILURE() << "run failed: " << llvm::toString(results.takeError());
      return {};
    }
    return std::move(*results);
  }

  /// Traces and runs a function with one result.
  HostTensor traceAndRun(llvm::ArrayRef<ArgSpec> args, const Body &body,
                         std::vector<HostTensor> inputs) {
    TracedModule traced = traceOk(args, body);
    std::vector<HostTensor> results = run(traced, std::move(inputs));
    EXPECT_EQ(results.size(), 1u);
    return results.empty() ? HostTensor() : results.front();
  }

  mlir::MLIRContext context;
  Tracer tracer{context};
};

} // namespace tgc::frontend::test

#endif // TGC_TEST_UNIT_FRONTEND_FRONTENDTESTUTILS_H
