//===- Differential.cpp - a backend against the reference interpreter ----===//

#include "tools/lib/Differential.h"

#include "codegen/Backends.h"
#include "codegen/reference/Interpreter.h"
#include "runtime/cuda/Device.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <optional>

using namespace llvm;
using namespace tgc;
using namespace tgc::tooling;
using runtime::DType;
using runtime::HostTensor;

namespace {
Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}
} // namespace

Error tooling::makeMismatchError(const Twine &message) {
  return createStringError(std::make_error_code(std::errc::result_out_of_range),
                           message);
}

std::string tooling::compareResults(const std::vector<HostTensor> &got,
                                    const std::vector<HostTensor> &want,
                                    double rtol, double atol) {
  if (want.size() != got.size())
    return "different number of results";
  for (size_t i = 0; i < want.size(); ++i) {
    // Half-precision results may differ by a rounding of their own:
    // tolerances scale with the dtype's epsilon (f16 2^-10, bf16 2^-7).
    double r = rtol, a = atol;
    if (want[i].dtype() == DType::F16) {
      r = std::max(r, 2e-3);
      a = std::max(a, 1e-3);
    } else if (want[i].dtype() == DType::BF16) {
      r = std::max(r, 1.6e-2);
      a = std::max(a, 1e-2);
    }
    auto status = runtime::allClose(got[i], want[i], r, a);
    if (!status.ok())
      return "result #" + std::to_string(i) + ": " +
             std::string(status.message());
  }
  return "";
}

/// The first `file:line:col` in a message (empty when there is none).
std::string tooling::firstLocation(StringRef message) {
  static constexpr const char *kPattern = "[^ :'\"]+:[0-9]+:[0-9]+";
  llvm::Regex regex(kPattern);
  SmallVector<StringRef> matches;
  if (regex.match(message, &matches))
    return matches[0].str();
  return "";
}

namespace {
/// The public functions with a body that --function selects.
bool isSelected(mlir::func::FuncOp func, const DifferentialOptions &opts) {
  return !func.isExternal() && func.isPublic() &&
         (opts.function.empty() || func.getName() == opts.function);
}

/// The inputs of `func`, or nullopt after reporting why they cannot be made
/// (a missing or garbled .npy, a malformed literal, too many): an error,
/// not a pass.
std::optional<std::vector<HostTensor>>
inputsOrReport(mlir::func::FuncOp func, const DifferentialOptions &opts,
               raw_ostream &out) {
  auto args = makeInputs(func, opts.inputs);
  if (args)
    return std::move(*args);
  out << "@" << func.getName()
      << ": ERROR: inputs: " << toString(args.takeError()) << "\n";
  return std::nullopt;
}

/// The message of `error`; `unsupported` says whether it is a backend
/// refusing an op it has no kernel for (codegen::UnsupportedError).
std::string takeMessage(Error error, bool &unsupported) {
  unsupported = codegen::isUnsupported(error);
  return toString(std::move(error));
}

/// --differential --backend=cuda --compile-only: compiles every selected
/// function for its random inputs' shapes (no GPU needed) and reports which
/// the cuda backend compiles and which it refuses (and why).
Error compileDifferential(mlir::ModuleOp module,
                          const DifferentialOptions &opts, raw_ostream &out) {
  unsigned checked = 0, compiled = 0, unsupported = 0, failed = 0;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (!isSelected(func, opts))
      continue;
    ++checked;
    auto args = inputsOrReport(func, opts, out);
    if (!args) {
      ++failed;
      continue;
    }
    RunnerOptions compileOnly = opts.runner;
    compileOnly.compileWithoutDevice = true;
    auto cuda = Runner::create(opts.backend, func, compileOnly, out);
    if (!cuda)
      return cuda.takeError();
    if (Error error = (*cuda)->compile(*args)) {
      bool unsupportedOp = false;
      std::string message = takeMessage(std::move(error), unsupportedOp);
      if (unsupportedOp) {
        ++unsupported;
        out << "@" << func.getName() << ": unsupported: " << message << "\n";
      } else {
        // The reference may refuse these inputs too (a declared static dim
        // the random size contradicts, ...): then the compile error is
        // the same complaint.
        auto want = reference::runFunction(func, *args);
        if (!want) {
          consumeError(want.takeError());
          out << "@" << func.getName() << ": both fail (" << message << ")\n";
          continue;
        }
        ++failed;
        out << "@" << func.getName() << ": FAILED to compile: " << message
            << "\n";
      }
      continue;
    }
    ++compiled;
    out << "@" << func.getName() << ": compiles\n";
  }
  out << "cuda compile: " << checked << " functions, " << compiled
      << " compile, " << unsupported << " unsupported, " << failed
      << " failed\n";
  if (failed)
    return makeError(Twine(failed) + " function(s) failed to compile for cuda");
  return Error::success();
}

} // namespace

/// Runs every selected function on --backend (cpu or cuda) and on the
/// reference interpreter and compares: the backend must agree with the
/// reference (or both must fail at the same op).
Error tooling::runDifferential(mlir::ModuleOp module,
                               const DifferentialOptions &opts,
                               raw_ostream &out) {
  const std::string backend = opts.backend;
  codegen::registerAllBackends();
  auto tested = codegen::getBackend(backend);
  if (!tested)
    return tested.takeError();
  if ((*tested)->servesAnyShapes())
    return makeError("--differential compares --backend=cpu or cuda with "
                     "the reference interpreter, not '" +
                     backend + "'");
  if ((*tested)->runsOnDevice() && opts.compileOnly)
    return compileDifferential(module, opts, out);
  if ((*tested)->runsOnDevice()) {
    auto opened = cuda::openDevice(opts.runner.cudaOrdinal);
    if (!opened.ok()) {
      std::string reason =
          noDeviceMessage(std::string(opened.status().message()));
      out << "differential: skipped (" << reason << ")\n";
      return makeError(reason);
    }
  }
  unsigned checked = 0, failed = 0, unsupported = 0, inputErrors = 0;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (!isSelected(func, opts))
      continue;
    ++checked;
    auto args = inputsOrReport(func, opts, out);
    if (!args) {
      ++inputErrors;
      continue;
    }
    auto runner = Runner::create(backend, func, opts.runner, out);
    if (!runner)
      return runner.takeError();
    auto want = reference::runFunction(func, *args);
    auto got = (*runner)->run(*args);
    if (!want || !got) {
      std::string wantError = want ? "" : toString(want.takeError());
      bool unsupportedOp = false;
      std::string gotError;
      if (!got)
        gotError = takeMessage(got.takeError(), unsupportedOp);
      // Both failing agrees when they blame the same op.
      if (!wantError.empty() && !gotError.empty() &&
          firstLocation(wantError) == firstLocation(gotError)) {
        out << "@" << func.getName() << ": both fail at "
            << firstLocation(wantError) << "\n";
        continue;
      }
      if (unsupportedOp) {
        // Reported, not a mismatch: the backend refused to compile (whether
        // or not the reference then fails at run time, as on an index out
        // of range).
        ++unsupported;
        out << "@" << func.getName() << ": unsupported on " << backend << ": "
            << gotError << "\n";
        continue;
      }
      if (!wantError.empty() && !gotError.empty()) {
        ++failed;
        out << "@" << func.getName()
            << ": MISMATCH: both fail, differently: reference: " << wantError
            << "; " << backend << ": " << gotError << "\n";
        continue;
      }
      ++failed;
      out << "@" << func.getName() << ": MISMATCH: "
          << (wantError.empty() ? backend + " failed: " + gotError
                                : "reference failed: " + wantError)
          << "\n";
      continue;
    }
    std::string problem = compareResults(*got, *want, opts.rtol, opts.atol);
    if (!problem.empty()) {
      ++failed;
      out << "@" << func.getName() << ": MISMATCH: " << problem << "\n";
    } else {
      out << "@" << func.getName() << ": ok\n";
    }
  }
  out << "differential: " << checked << " functions, " << failed
      << " mismatches";
  if (unsupported)
    out << ", " << unsupported << " unsupported on " << backend;
  if (inputErrors)
    out << ", " << inputErrors << " with input errors";
  out << "\n";
  if (inputErrors)
    return makeError(Twine(inputErrors) +
                     " function(s) could not be given their inputs");
  if (failed)
    return makeMismatchError(Twine(failed) +
                             " function(s) differ between the " + backend +
                             " and reference backends");
  return Error::success();
}
