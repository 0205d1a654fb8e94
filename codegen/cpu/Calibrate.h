//===- Calibrate.h - int8 calibration runs on the CPU -----------*- C++ -*-===//
//
// The calibration run of post-training int8 quantization
// (docs/precision.md): the function compiled at f32 with plain layouts,
// run over the samples, the activation input of every contraction step
// (runtime::Step::calibrationKey) observed as it runs; a second pass over
// the samples fills the histograms the Entropy and Percentile calibrators
// need. Samples may come in any batch size the function accepts (one plan
// per set of input shapes): statistics are of elements, so the table does
// not depend on the batching.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_CALIBRATE_H
#define TGC_CODEGEN_CPU_CALIBRATE_H

#include "codegen/Calibration.h"
#include "codegen/cpu/Compiler.h"

#include <functional>

namespace tgc::cpu {

/// Calibration samples: `count` sets of arguments, read on demand (twice
/// for the histogram calibrators).
struct CalibrationSamples {
  size_t count = 0;
  std::function<absl::StatusOr<std::vector<runtime::HostTensor>>(size_t)> read;
};

/// The calibration table of `func` over `samples`. `options` are the
/// compile's (threads, fusion); its precision, layouts, calibration and
/// cache directory are set here. Without `quantizeOutputLayers`, the
/// contractions whose result is a result of the function are left out
/// (CalibrationOptions::quantizeOutputLayers). Errors: no samples, a
/// sample that cannot be read or does not fit the function (named by
/// index), a compile error.
llvm::Expected<codegen::CalibrationTable>
calibrate(mlir::func::FuncOp func, const CalibrationSamples &samples,
          codegen::Calibrator calibrator, CompileOptions options = {},
          bool quantizeOutputLayers = true);

/// Model::calibrate and ConcreteFunction::calibrate: calibrate() with
/// `calibrator` and `options`' activation scheme, the table written to
/// `options.tablePath`. A calibration error is InvalidArgument, its
/// message after `prefix`.
Status calibrateToFile(mlir::func::FuncOp func,
                       const CalibrationSamples &samples,
                       codegen::Calibrator calibrator,
                       const CalibrationOptions &options,
                       CompileOptions compileOptions,
                       const std::string &prefix);

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_CALIBRATE_H
