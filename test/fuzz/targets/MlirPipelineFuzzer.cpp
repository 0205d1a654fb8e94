//===- MlirPipelineFuzzer.cpp - .mlir parse, verify and tgc-cpu
//------------===//
//
// Text as tgc-opt takes it: the input guard, MLIR's parser and verifier,
// then the `tgc-cpu` pass pipeline (layout, batch-norm folding, fusion,
// cleanup). An error or a module that still verifies, never a crash.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "tools/lib/InputGuard.h"
#include "tools/lib/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry;
    tgc::registerAllDialects(*r);
    return r;
  }();
  // MLIR's lexer reads the byte after the text, as the tools' file buffers
  // are null-terminated: so is this copy.
  std::string copy(reinterpret_cast<const char *>(data), size);
  llvm::StringRef text(copy.c_str(), copy.size());
  if (llvm::Error error = tgc::checkParserLimits(text, "fuzz.mlir")) {
    llvm::consumeError(std::move(error));
    return 0;
  }
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::ParserConfig config(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config);
  if (!module)
    return 0;
  mlir::PassManager pm(&context);
  tgc::buildCpuPipeline(pm);
  if (mlir::succeeded(pm.run(*module)) && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
