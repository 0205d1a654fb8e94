//===- FastRun.h - tgc-run's front end without the compiler -----*- C++ -*-===//
//
// tgc-run is two programs: this front end, which links only the runtime
// (no LLVM, MLIR or ONNX library: it starts in milliseconds), and the full
// tool (tgc-run-full, RunTool.h), which it execs for everything else. The
// front end serves what needs no compiler: an ahead-of-time CPU artifact
// (.tgcx), or an ONNX model whose whole plan the persistent cache holds
// under the model file's key, run on .npy inputs into --output files or
// checked against .npy --expected files.
// Anything else, and any doubt (another flag, a missing or unusable plan,
// inputs that do not fit), goes to the full tool unchanged, which gives
// the same results and every diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_LIB_FASTRUN_H
#define TGC_TOOLS_LIB_FASTRUN_H

#include "tgc/Determinism.h"
#include "tgc/HostTensor.h"
#include "tgc/Precision.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tgc::tooling {

/// What keys an ONNX model run's plan besides the model file (tgc-run's
/// options and inputs); the same text in both programs.
struct RunKeyMaterial {
  /// Each --input spec's name part (the text before '=', the whole spec
  /// without one) with its tensor.
  std::vector<std::pair<std::string, const runtime::HostTensor *>> inputs;
  std::string function;
  std::string pipeline = "tgc-cpu";
  unsigned threads = 0;
  unsigned interOp = 1;
  int dynamicSize = -1;
  Determinism determinism = Determinism::Default;
  Precision precision = Precision::Default;
  /// With int8: a digest of the calibration table's text.
  std::string calibration;
};
std::string onnxRunMaterial(const RunKeyMaterial &material);

/// What a fast run leaves: its exit status, and the plan it ran, still
/// loaded, so that a caller about to end the process can leave its
/// teardown to the kernel (tgc-run's front end does: unmapping a large
/// plan while the worker threads live costs a TLB shootdown per range,
/// about 5 ms of ResNet-50's 45 ms warm start).
struct FastRunOutcome {
  int status = 1;
  std::shared_ptr<const void> plan;
};

/// Runs what the front end serves, or returns nullopt when the full tool
/// must run (nothing was done but reading files). `fullTool` is the full
/// tool's path (its build identity is in the keys).
std::optional<FastRunOutcome> tryFastRun(int argc, char **argv,
                                         const std::string &fullTool);

} // namespace tgc::tooling

#endif // TGC_TOOLS_LIB_FASTRUN_H
