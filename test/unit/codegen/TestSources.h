//===- TestSources.h - MLIR text for the codegen tests ----------*- C++ -*-===//

#ifndef TGC_TEST_UNIT_CODEGEN_TESTSOURCES_H
#define TGC_TEST_UNIT_CODEGEN_TESTSOURCES_H

#include "codegen/Backends.h"
#include "tools/lib/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace tgc::testing {

/// Loads into `context` every dialect tgc's tools register
/// (registerAllDialects).
inline void loadAllDialects(mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

/// A test over one MLIR source: parsed in a context of its own with every
/// dialect loaded, the backends registered.
class SourceTest : public ::testing::Test {
protected:
  explicit SourceTest(const char *source) : source(source) {}
  void SetUp() override {
    loadAllDialects(context);
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    ASSERT_TRUE(module);
    codegen::registerAllBackends();
  }
  mlir::func::FuncOp get(llvm::StringRef name) {
    return module->lookupSymbol<mlir::func::FuncOp>(name);
  }
  const char *source;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// A dense<"0x..."> literal of `count` f32 values in [-0.5, 0.5) from
/// `seed`.
inline std::string denseF32(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::string hex = "dense<\"0x";
  static const char *digits = "0123456789ABCDEF";
  for (int64_t i = 0; i < count; ++i) {
    float v = dist(rng);
    unsigned char bytes[4];
    std::memcpy(bytes, &v, 4);
    for (unsigned char byte : bytes) {
      hex += digits[byte >> 4];
      hex += digits[byte & 15];
    }
  }
  return hex + "\">";
}

} // namespace tgc::testing

#endif // TGC_TEST_UNIT_CODEGEN_TESTSOURCES_H
