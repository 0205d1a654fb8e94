//===- tgc-opt.cpp - the tgc optimizer driver -----------------------------===//

#include "tools/lib/InputGuard.h"
#include "tools/lib/Registration.h"
#include "tools/lib/ToolVersion.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  tgc::installVersionPrinter("tgc-opt");
  tgc::registerAllPasses();
  mlir::DialectRegistry registry;
  tgc::registerAllDialects(registry);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "tgc optimizer driver\n", registry);
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(input, &message);
  if (!file) {
    llvm::errs() << message << "\n";
    return 1;
  }
  // Input MLIR's parser would crash on is refused first.
  if (llvm::Error error = tgc::checkParserLimits(
          file->getBuffer(), input == "-" ? "<stdin>" : input)) {
    llvm::errs() << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> out =
      mlir::openOutputFile(output, &message);
  if (!out) {
    llvm::errs() << message << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(out->os(), std::move(file), registry,
                            mlir::MlirOptMainConfig::createFromCLOptions())))
    return 1;
  out->keep();
  return 0;
}
