//===- ContractionKeys.cpp - int8 calibration keys of contractions --------===//

#include "codegen/ContractionKeys.h"

#include "codegen/Calibration.h"
#include "dialects/TgcOps.h"
#include "passes/Specialize.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;

std::vector<std::pair<Operation *, std::string>>
tgc::codegen::contractionKeys(func::FuncOp func) {
  std::vector<std::pair<Operation *, std::string>> keys;
  llvm::StringMap<int> seen;
  func.walk([&](Operation *op) {
    if (!isa<Conv2DOp, MatmulOp>(op) || op->getNumResults() != 1 ||
        !cast<ShapedType>(op->getResult(0).getType()).getElementType().isF32())
      return;
    std::string location =
        codegen::normalizeCalibrationKey(locationString(op->getLoc()));
    keys.emplace_back(op, location + "#" + std::to_string(seen[location]++));
  });
  return keys;
}
