//===- Differential.h - a backend against the reference interpreter -*- C++
//-*-===//
//
// tgc-run --differential: every public function of a module (or one) runs
// on a backend and on the reference interpreter with the same inputs, and
// the results must agree (tolerances scaled for f16 and bf16), or both must
// fail at the same op. A function the backend refuses
// (codegen::UnsupportedError) is reported as unsupported, not as a
// mismatch. With a device backend and compileOnly, every function is only
// compiled (no GPU needed) and the report says which compile.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_LIB_DIFFERENTIAL_H
#define TGC_TOOLS_LIB_DIFFERENTIAL_H

#include "tools/lib/Runner.h"
#include "tools/lib/TensorIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tgc::tooling {

struct DifferentialOptions {
  /// The backend compared with the reference ("cpu", "cuda").
  std::string backend = "cpu";
  /// Only this function (empty: every public function with a body).
  std::string function;
  /// Inputs: given ones, the rest random (dynamic dims default to 3).
  InputOptions inputs{{}, 0, 3};
  double rtol = 1e-4, atol = 1e-5;
  RunnerOptions runner;
  /// A device backend only compiles.
  bool compileOnly = false;
};

/// Runs the differential and prints one line per function and a summary
/// to `out`: "@f: ok", "@f: MISMATCH: ...", "@f: both fail at f.mlir:3:8",
/// "@f: unsupported on cpu: ...", then "differential: N functions, M
/// mismatches[, K unsupported on cpu]". Mismatches are a makeMismatchError.
llvm::Error runDifferential(mlir::ModuleOp module,
                            const DifferentialOptions &options,
                            llvm::raw_ostream &out);

/// "" when `got` agrees with `want` (same count, allClose with rtol/atol,
/// raised to 2e-3/1e-3 for f16 and 1.6e-2/1e-2 for bf16 results), else what
/// differs: "result #1: ...".
std::string compareResults(const std::vector<runtime::HostTensor> &got,
                           const std::vector<runtime::HostTensor> &want,
                           double rtol, double atol);

/// The first `file:line:col` in a message (empty when there is none).
std::string firstLocation(llvm::StringRef message);

/// Results that differ (--expected, --differential): an error whose code is
/// std::errc::result_out_of_range, so that tgc-run exits with 2, not 1.
llvm::Error makeMismatchError(const llvm::Twine &message);

} // namespace tgc::tooling

#endif // TGC_TOOLS_LIB_DIFFERENTIAL_H
