//===- ContractionKeys.h - int8 calibration keys of contractions -*- C++
//-*-===//
//
// Every backend that quantizes with a calibration table (codegen/
// Calibration.h) finds a contraction's entry by the same key: its source
// location, "#" and its ordinal among the contractions at that location.
// The CPU planner gives its steps these keys (runtime::Step::
// calibrationKey, which the calibration run records), and the CUDA
// backend's tgc-cuda-quantize-contractions looks its contractions up by
// them, so one table serves both.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CONTRACTIONKEYS_H
#define TGC_CODEGEN_CONTRACTIONKEYS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <utility>
#include <vector>

namespace tgc::codegen {

/// The key of each f32 tgc.conv2d and tgc.matmul of `func` (nested ones
/// included, in walk order): its location (normalizeCalibrationKey) and
/// its ordinal among the contractions at that location ("model.onnx:0:0
/// (node 'conv1')#0").
std::vector<std::pair<mlir::Operation *, std::string>>
contractionKeys(mlir::func::FuncOp func);

} // namespace tgc::codegen

#endif // TGC_CODEGEN_CONTRACTIONKEYS_H
