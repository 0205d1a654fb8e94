//===- tgc-opt.cpp - the tgc optimizer driver -----------------------------===//

#include "tools/lib/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  tgc::registerAllPasses();
  mlir::DialectRegistry registry;
  tgc::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tgc optimizer driver\n", registry));
}
