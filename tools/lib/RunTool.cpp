//===- RunTool.cpp - the tgc-run command line tool ------------------------===//
//
// tgc-run FILE [--function=NAME] [--backend=reference] [--input=SPEC]...
//         [--seed=N] [--output=PATH]... [--expected=PATH]... [--rtol=R]
//         [--atol=A] [--benchmark=N] [--print]
//
//===----------------------------------------------------------------------===//

#include "tools/lib/RunTool.h"

#include "runtime/Environment.h"
#include "tools/lib/TensorLiteral.h"

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/reference/Interpreter.h"
#include "dialects/ShapeUtils.h"
#include "frontend/onnx/OnnxImporter.h"
#include "runtime/cuda/Device.h"
#include "tgc/Device.h"
#include "tgc/Npy.h"
#include "tools/lib/InputGuard.h"
#include "tools/lib/Registration.h"
#include "tools/lib/Runner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/ADT/StringSet.h"
#include <algorithm>

#include <chrono>
#include <cmath>

using namespace llvm;
using tgc::runtime::DType;
using tgc::runtime::HostTensor;
using tgc::tooling::Runner;

namespace {
struct Options {
  cl::opt<std::string> file{cl::Positional,
                            cl::desc("<input .mlir file or .onnx model>")};
  cl::opt<std::string> function{
      "function",
      cl::desc("Function to run (default: the only or first public one)")};
  cl::opt<std::string> backend{
      "backend",
      cl::desc("Backend: cpu (oneDNN + native kernels), cuda (an NVIDIA "
               "GPU) or reference (the interpreter)"),
      cl::init("cpu")};
  /// --threads=N is taken out of argv before LLVM's parser sees it: a
  /// hidden option of libLLVM already uses that name.
  unsigned threads = 0;
  cl::opt<std::string> profile{
      "profile",
      cl::desc("Write a Chrome trace JSON of the kernels here (cpu backend: "
               "one timeline over every run, kernels on the threads that ran "
               "them, with their shapes) and print the top 10 kernels")};
  cl::opt<unsigned> interOp{
      "inter-op",
      cl::desc("Run up to N independent kernels at once (cpu backend)"),
      cl::init(1)};
  cl::opt<bool> printPlan{
      "print-plan",
      cl::desc("Print the compiled plan: the partition of the function into "
               "kernels, one step each, with the ops each covers (cpu and "
               "cuda backends; the cuda plan is printed even without a GPU)")};
  cl::opt<bool> printTarget{
      "print-target",
      cl::desc("Print what the cpu backend plans for (the x86 ISA oneDNN and "
               "the JIT use, capped by DNNL_MAX_CPU_ISA; its blocked layout; "
               "Winograd) and exit")};
  cl::opt<bool> printLowered{
      "print-lowered",
      cl::desc("Print the function as the cpu backend lowered it for the "
               "inputs' shapes (specialized, after the tgc-cpu pipeline: what "
               "its kernels are planned from)")};
  cl::opt<bool> printSettings{
      "print-settings",
      cl::desc("Print every TGC_* environment variable tgc reads (its "
               "default, value and meaning) and those set now, and exit")};
  cl::opt<bool> compileOnly{
      "compile-only",
      cl::desc("Compile for the inputs' shapes (and print the plan with "
               "--print-plan), do not run; needs no GPU for --backend=cuda")};
  cl::opt<std::string> device{
      "device",
      cl::desc("Where to run: cpu, cuda or cuda:N (--backend=cuda on GPU N; "
               "default device 0)")};
  /// The CUDA device --device names (0 without one).
  int cudaOrdinal = 0;
  cl::opt<std::string> cudaArch{
      "cuda-arch",
      cl::desc("GPU arch to compile for with --backend=cuda (default: the "
               "device's, or sm_90 without one)")};
  cl::opt<std::string> pipeline{
      "pipeline",
      cl::desc("CPU compile pipeline: tgc-cpu (default: layout, batch-norm "
               "folding, post-op and loop fusion) or tgc-cpu-unfused"),
      cl::init("tgc-cpu")};
  cl::opt<bool> differential{
      "differential",
      cl::desc("Run every public function (or --function) on --backend (cpu "
               "or cuda) and on the reference interpreter with random inputs "
               "and compare")};
  cl::opt<bool> allowTf32{
      "allow-tf32",
      cl::desc("cuda backend: let f32 matmuls and convolutions use TF32 "
               "tensor cores (~1e-3 relative error)")};
  cl::opt<int> noDeviceExitCode{
      "no-device-exit-code",
      cl::desc("Exit code when --backend=cuda finds no GPU or driver "
               "(default 1; test suites use 77, ctest's skip code)"),
      cl::init(1)};
  cl::opt<int> dynamicSize{
      "dynamic-size",
      cl::desc("Size of dynamic dims in random inputs (default: dynamic dims "
               "need --input, except with --differential: 3)"),
      cl::init(-1)};
  cl::list<std::string> inputs{
      "input", cl::desc("An input: a .npy path, an ONNX TensorProto .pb "
                        "path or a literal such as "
                        "2x3xf32=1,2,3,4,5,6, in argument order, or "
                        "NAME=SPEC for the input called NAME (an ONNX "
                        "model's input names)")};
  cl::opt<uint64_t> seed{"seed", cl::desc("Seed for inputs not given"),
                         cl::init(0)};
  cl::list<std::string> outputs{"output",
                                cl::desc("Write result #i to this .npy path")};
  cl::list<std::string> expected{
      "expected",
      cl::desc("Compare result #i with this .npy or .pb (or literal)")};
  cl::opt<double> rtol{"rtol", cl::desc("Relative tolerance"), cl::init(1e-4)};
  cl::opt<double> atol{"atol", cl::desc("Absolute tolerance"), cl::init(1e-5)};
  cl::opt<unsigned> benchmark{
      "benchmark", cl::desc("Run N timed iterations after a warm-up run"),
      cl::init(0)};
  cl::opt<bool> print{"print", cl::desc("Print the results (default when no "
                                        "--output or --expected is given)")};
};

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Results that differ (from --expected, or between backends with
/// --differential): tgc-run exits with kMismatchExitCode, not 1, so that
/// scripts tell a wrong answer from a failure to run.
constexpr int kMismatchExitCode = 2;
Error makeMismatchError(const Twine &message) {
  return createStringError(std::make_error_code(std::errc::result_out_of_range),
                           message);
}

std::optional<DType> dtypeOf(mlir::Type type) {
  return tgc::reference::toDType(type);
}

/// Reads a tensor from a .npy path, an ONNX TensorProto .pb path or an
/// inline literal.
Expected<HostTensor> loadTensor(StringRef spec) {
  if (spec.contains('='))
    return tgc::parseTensorLiteral(spec);
  if (spec.ends_with_insensitive(".pb"))
    return tgc::readTensorProto(spec);
  auto tensor = tgc::runtime::readNpy(spec.str());
  if (!tensor.ok())
    return makeError(spec + ": " + std::string(tensor.status().message()));
  return std::move(*tensor);
}

/// Converts `tensor` to `dtype` when the file format cannot hold it (bf16 is
/// stored as f32 in .npy); other mismatches are left for the interpreter to
/// report.
HostTensor adaptDType(HostTensor tensor, DType dtype) {
  if (tensor.dtype() != DType::F32 || dtype != DType::BF16)
    return tensor;
  auto converted = HostTensor::allocate(dtype, tensor.shape());
  if (!converted.ok())
    return tensor;
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    converted->setDouble(i, tensor.getDouble(i));
  return std::move(*converted);
}

/// A random input of `type`; dynamic dims cannot be made up.
Expected<HostTensor> randomTensor(mlir::RankedTensorType type, unsigned index,
                                  std::mt19937_64 &rng, int64_t dynamicSize) {
  auto dtype = dtypeOf(type.getElementType());
  if (!dtype)
    return makeError("argument #" + Twine(index) + " has unsupported type");
  if (!type.hasStaticShape() && dynamicSize < 0)
    return makeError("argument #" + Twine(index) +
                     " has dynamic dims; give it with --input");
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  for (int64_t &d : shape)
    if (mlir::ShapedType::isDynamic(d))
      d = dynamicSize;
  auto tensor = HostTensor::allocate(*dtype, shape);
  if (!tensor.ok())
    return makeError("argument #" + Twine(index) + ": " +
                     std::string(tensor.status().message()));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(-10, 10);
  for (int64_t i = 0; i < tensor->numElements(); ++i) {
    if (tgc::runtime::isFloatDType(*dtype))
      tensor->setDouble(i, real(rng));
    else if (*dtype == DType::I1)
      tensor->setInt(i, integer(rng) > 0);
    else
      tensor->setInt(i, integer(rng));
  }
  return std::move(*tensor);
}

void printTensor(raw_ostream &os, const HostTensor &tensor) {
  constexpr int64_t kMaxPrinted = 64;
  os << "[";
  int64_t n = tensor.numElements();
  for (int64_t i = 0; i < n && i < kMaxPrinted; ++i) {
    if (i)
      os << ", ";
    if (tgc::runtime::isFloatDType(tensor.dtype()))
      os << format("%g", tensor.getDouble(i));
    else if (tgc::runtime::isUnsignedDType(tensor.dtype()))
      os << tensor.getUInt(i);
    else
      os << tensor.getInt(i);
  }
  if (n > kMaxPrinted)
    os << ", ... (" << n << " elements)";
  os << "]\n";
}

mlir::func::FuncOp findFunction(mlir::ModuleOp module, StringRef name) {
  if (!name.empty())
    return module.lookupSymbol<mlir::func::FuncOp>(name);
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      return func;
  return nullptr;
}

/// The runner options tgc-run's flags give.
tgc::tooling::RunnerOptions runnerOptions(const Options &opts) {
  tgc::tooling::RunnerOptions options;
  options.threads = static_cast<int>(opts.threads);
  options.interOp = static_cast<int>(opts.interOp);
  options.fuse = opts.pipeline == "tgc-cpu";
  options.cudaOrdinal = opts.cudaOrdinal;
  options.cudaArch = opts.cudaArch;
  options.allowTf32 = opts.allowTf32;
  options.printPlan = opts.printPlan;
  options.printLowered = opts.printLowered;
  options.verbose = tgc::runtime::verboseFromEnvironment();
  options.profile = !opts.profile.empty();
  // Without a device, only a compile (--print-plan, --compile-only) goes on.
  options.compileWithoutDevice = opts.printPlan || opts.compileOnly;
  return options;
}

Expected<std::unique_ptr<Runner>>
makeRunner(StringRef backend, mlir::func::FuncOp func, const Options &opts) {
  return Runner::create(backend, func, runnerOptions(opts), outs());
}

/// Whether `prefix` (the text before '=' in an --input) is a literal's
/// shape and dtype, such as "2x3xf32" or "f32".
bool isLiteralType(StringRef prefix) {
  static const llvm::Regex literal(
      "^([0-9]+x)*(f16|bf16|f32|f64|i1|i8|i16|i32|i64|ui8|ui16|ui32|ui64)$");
  return literal.match(prefix);
}

/// Puts --input specs in argument order: NAME=SPEC goes to the argument
/// called NAME, the others fill the remaining arguments in order. An empty
/// entry is an argument no --input gives.
Expected<std::vector<std::string>>
orderInputs(const std::vector<std::string> &specs,
            const std::vector<std::string> &names, StringRef what) {
  std::vector<std::string> ordered(std::max(names.size(), specs.size()));
  std::vector<bool> given(ordered.size(), false);
  std::vector<std::string> positional;
  for (const std::string &spec : specs) {
    size_t eq = spec.find('=');
    StringRef prefix = StringRef(spec).take_front(eq);
    auto named = eq == std::string::npos || isLiteralType(prefix)
                     ? names.end()
                     : llvm::find(names, prefix.str());
    if (named == names.end()) {
      positional.push_back(spec);
      continue;
    }
    size_t index = static_cast<size_t>(named - names.begin());
    if (given[index])
      return makeError("--input: input '" + prefix + "' is given twice");
    ordered[index] = spec.substr(eq + 1);
    given[index] = true;
  }
  size_t next = 0;
  for (const std::string &spec : positional) {
    while (next < ordered.size() && given[next])
      ++next;
    if (next >= names.size() && !names.empty())
      return makeError(what + " takes " + Twine(names.size()) +
                       " arguments but " + Twine(specs.size()) +
                       " inputs were given");
    ordered[next] = spec;
    given[next] = true;
  }
  // Trailing arguments nobody gives stay random.
  while (!ordered.empty() && !given[ordered.size() - 1])
    ordered.pop_back();
  return ordered;
}

/// The names of `func`'s arguments (an imported ONNX model's input names,
/// kept as their locations); empty when they have none.
std::vector<std::string> argumentNames(mlir::func::FuncOp func) {
  std::vector<std::string> names;
  for (mlir::BlockArgument arg : func.getArguments()) {
    auto loc = dyn_cast<mlir::NameLoc>(arg.getLoc());
    if (!loc)
      return {};
    names.push_back(loc.getName().str());
  }
  return names;
}

/// The inputs of `func`: given ones first, the rest random.
Expected<std::vector<HostTensor>>
makeInputs(mlir::func::FuncOp func, const Options &opts, int64_t dynamicSize) {
  mlir::FunctionType signature = func.getFunctionType();
  auto ordered = orderInputs(
      std::vector<std::string>(opts.inputs.begin(), opts.inputs.end()),
      argumentNames(func), ("@" + func.getName()).str());
  if (!ordered)
    return ordered.takeError();
  if (ordered->size() > signature.getNumInputs())
    return makeError("@" + func.getName() + " takes " +
                     Twine(signature.getNumInputs()) + " arguments but " +
                     Twine(opts.inputs.size()) + " inputs were given");
  std::mt19937_64 rng(opts.seed);
  std::vector<HostTensor> args;
  for (auto [i, type] : enumerate(signature.getInputs())) {
    auto tensorType = dyn_cast<mlir::RankedTensorType>(type);
    if (!tensorType)
      return makeError("argument #" + Twine(i) + " is not a ranked tensor");
    if (i < ordered->size() && !(*ordered)[i].empty()) {
      auto tensor = loadTensor((*ordered)[i]);
      if (!tensor)
        return tensor.takeError();
      auto dtype = dtypeOf(tensorType.getElementType());
      args.push_back(dtype ? adaptDType(std::move(*tensor), *dtype)
                           : std::move(*tensor));
      continue;
    }
    auto tensor = randomTensor(tensorType, i, rng, dynamicSize);
    if (!tensor)
      return tensor.takeError();
    args.push_back(std::move(*tensor));
  }
  return args;
}

/// The first `file:line:col` in a message (empty when there is none).
std::string firstLocation(StringRef message) {
  static constexpr const char *kPattern = "[^ :'\"]+:[0-9]+:[0-9]+";
  llvm::Regex regex(kPattern);
  SmallVector<StringRef> matches;
  if (regex.match(message, &matches))
    return matches[0].str();
  return "";
}

/// Whether `error` is a backend refusing an op it has no kernel for.
/// The message of `error`; `unsupported` says whether it is a backend
/// refusing an op it has no kernel for (codegen::UnsupportedError).
std::string takeMessage(Error error, bool &unsupported) {
  unsupported = tgc::codegen::isUnsupported(error);
  return toString(std::move(error));
}

/// --differential --backend=cuda --compile-only: compiles every selected
/// function for its random inputs' shapes (no GPU needed) and reports which
/// the cuda backend compiles and which it refuses (and why).
Error compileDifferential(mlir::ModuleOp module, const Options &opts) {
  int64_t dynamicSize = opts.dynamicSize >= 0 ? opts.dynamicSize : 3;
  unsigned checked = 0, compiled = 0, unsupported = 0, failed = 0;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic() ||
        (!opts.function.empty() && func.getName() != opts.function))
      continue;
    ++checked;
    auto args = makeInputs(func, opts, dynamicSize);
    if (!args) {
      // Bad inputs (a missing or garbled .npy, a malformed literal, too
      // many): an error, not a pass.
      ++failed;
      outs() << "@" << func.getName()
             << ": ERROR: inputs: " << toString(args.takeError()) << "\n";
      continue;
    }
    tgc::tooling::RunnerOptions compileOnly = runnerOptions(opts);
    compileOnly.compileWithoutDevice = true;
    auto cuda = Runner::create("cuda", func, compileOnly, outs());
    if (!cuda)
      return cuda.takeError();
    if (Error error = (*cuda)->compile(*args)) {
      bool unsupportedOp = false;
      std::string message = takeMessage(std::move(error), unsupportedOp);
      if (unsupportedOp) {
        ++unsupported;
        outs() << "@" << func.getName() << ": unsupported: " << message << "\n";
      } else {
        // The reference may refuse these inputs too (a declared static dim
        // the random size contradicts, ...): then the compile error is
        // the same complaint.
        auto want = tgc::reference::runFunction(func, *args);
        if (!want) {
          consumeError(want.takeError());
          outs() << "@" << func.getName() << ": both fail (" << message
                 << ")\n";
          continue;
        }
        ++failed;
        outs() << "@" << func.getName() << ": FAILED to compile: " << message
               << "\n";
      }
      continue;
    }
    ++compiled;
    outs() << "@" << func.getName() << ": compiles\n";
  }
  outs() << "cuda compile: " << checked << " functions, " << compiled
         << " compile, " << unsupported << " unsupported, " << failed
         << " failed\n";
  if (failed)
    return makeError(Twine(failed) + " function(s) failed to compile for cuda");
  return Error::success();
}

/// Runs every selected function on --backend (cpu or cuda) and on the
/// reference interpreter and compares: the backend must agree with the
/// reference (or both must fail at the same op).
Error runDifferential(mlir::ModuleOp module, const Options &opts) {
  const std::string backend = opts.backend;
  tgc::codegen::registerAllBackends();
  auto tested = tgc::codegen::getBackend(backend);
  if (!tested)
    return tested.takeError();
  if ((*tested)->servesAnyShapes())
    return makeError("--differential compares --backend=cpu or cuda with "
                     "the reference interpreter, not '" +
                     backend + "'");
  if ((*tested)->runsOnDevice() && opts.compileOnly)
    return compileDifferential(module, opts);
  if ((*tested)->runsOnDevice()) {
    auto opened = tgc::cuda::openDevice(opts.cudaOrdinal);
    if (!opened.ok()) {
      std::string reason =
          tgc::tooling::noDeviceMessage(std::string(opened.status().message()));
      outs() << "differential: skipped (" << reason << ")\n";
      return makeError(reason);
    }
  }
  if (!opts.expected.empty() || !opts.outputs.empty())
    return makeError("--differential compares the backends with each other; "
                     "it takes no --expected or --output (run without "
                     "--differential to check or write results)");
  int64_t dynamicSize = opts.dynamicSize >= 0 ? opts.dynamicSize : 3;
  unsigned checked = 0, failed = 0, unsupported = 0, inputErrors = 0;
  for (auto func : module.getOps<mlir::func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic() ||
        (!opts.function.empty() && func.getName() != opts.function))
      continue;
    ++checked;
    auto args = makeInputs(func, opts, dynamicSize);
    if (!args) {
      // Bad inputs (a missing or garbled .npy, a malformed literal, too
      // many): an error, not a pass.
      ++inputErrors;
      outs() << "@" << func.getName()
             << ": ERROR: inputs: " << toString(args.takeError()) << "\n";
      continue;
    }
    auto runner = makeRunner(backend, func, opts);
    if (!runner)
      return runner.takeError();
    auto want = tgc::reference::runFunction(func, *args);
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
        outs() << "@" << func.getName() << ": both fail at "
               << firstLocation(wantError) << "\n";
        continue;
      }
      if (unsupportedOp) {
        // Reported, not a mismatch: the backend refused to compile (whether
        // or not the reference then fails at run time, as on an index out
        // of range).
        ++unsupported;
        outs() << "@" << func.getName() << ": unsupported on " << backend
               << ": " << gotError << "\n";
        continue;
      }
      if (!wantError.empty() && !gotError.empty()) {
        ++failed;
        outs() << "@" << func.getName()
               << ": MISMATCH: both fail, differently: reference: " << wantError
               << "; " << backend << ": " << gotError << "\n";
        continue;
      }
      ++failed;
      outs() << "@" << func.getName() << ": MISMATCH: "
             << (wantError.empty() ? backend + " failed: " + gotError
                                   : "reference failed: " + wantError)
             << "\n";
      continue;
    }
    std::string problem;
    if (want->size() != got->size())
      problem = "different number of results";
    for (size_t i = 0; problem.empty() && i < want->size(); ++i) {
      // Half-precision results may differ by a rounding of their own:
      // tolerances scale with the dtype's epsilon (f16 2^-10, bf16 2^-7).
      double rtol = opts.rtol, atol = opts.atol;
      if ((*want)[i].dtype() == DType::F16) {
        rtol = std::max(rtol, 2e-3);
        atol = std::max(atol, 1e-3);
      } else if ((*want)[i].dtype() == DType::BF16) {
        rtol = std::max(rtol, 1.6e-2);
        atol = std::max(atol, 1e-2);
      }
      auto status = tgc::runtime::allClose((*got)[i], (*want)[i], rtol, atol);
      if (!status.ok())
        problem = "result #" + std::to_string(i) + ": " +
                  std::string(status.message());
    }
    if (!problem.empty()) {
      ++failed;
      outs() << "@" << func.getName() << ": MISMATCH: " << problem << "\n";
    } else {
      outs() << "@" << func.getName() << ": ok\n";
    }
  }
  outs() << "differential: " << checked << " functions, " << failed
         << " mismatches";
  if (unsupported)
    outs() << ", " << unsupported << " unsupported on " << backend;
  if (inputErrors)
    outs() << ", " << inputErrors << " with input errors";
  outs() << "\n";
  if (inputErrors)
    return makeError(Twine(inputErrors) +
                     " function(s) could not be given their inputs");
  if (failed)
    return makeMismatchError(Twine(failed) +
                             " function(s) differ between the " + backend +
                             " and reference backends");
  return Error::success();
}

Error run(const Options &opts) {
  if (opts.pipeline != "tgc-cpu" && opts.pipeline != "tgc-cpu-unfused")
    return makeError("unknown --pipeline '" + opts.pipeline +
                     "' (available: tgc-cpu, tgc-cpu-unfused)");
  mlir::DialectRegistry registry;
  tgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (tgc::isOnnxModelPath(opts.file)) {
    // An ONNX model: import it (its function is `main`). The given inputs
    // serve where a node needs a constant (a Reshape's shape, ...).
    tgc::ImportOptions importOptions;
    // A model that does not parse is reported by the importer below.
    std::vector<std::string> names;
    if (auto read = tgc::onnxModelInputNames(opts.file))
      names = std::move(*read);
    else
      llvm::consumeError(read.takeError());
    auto ordered = orderInputs(
        std::vector<std::string>(opts.inputs.begin(), opts.inputs.end()), names,
        opts.file);
    if (!ordered)
      return ordered.takeError();
    for (const std::string &spec : *ordered) {
      if (spec.empty()) {
        importOptions.argumentValues.emplace_back();
        continue;
      }
      auto tensor = loadTensor(spec);
      if (!tensor)
        return tensor.takeError();
      importOptions.argumentValues.push_back(std::move(*tensor));
    }
    auto imported = tgc::importOnnxModel(context, opts.file, importOptions);
    if (!imported)
      return imported.takeError();
    module = std::move(*imported);
  } else {
    auto buffer = MemoryBuffer::getFileOrSTDIN(opts.file);
    if (!buffer)
      return makeError("cannot read '" + opts.file +
                       "': " + buffer.getError().message());
    if (Error error = tgc::checkParserLimits((*buffer)->getBuffer(), opts.file))
      return error;
    sourceMgr.AddNewSourceBuffer(std::move(*buffer), SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
    if (!module)
      return makeError("failed to parse '" + opts.file + "'");
  }
  if (opts.differential)
    return runDifferential(*module, opts);
  mlir::func::FuncOp func = findFunction(*module, opts.function);
  if (!func)
    return makeError(
        opts.function.empty()
            ? Twine("no public function with a body in '" + opts.file + "'")
            : Twine("no function named '" + opts.function + "'"));
  auto runner = makeRunner(opts.backend, func, opts);
  if (!runner)
    return runner.takeError();
  auto args = makeInputs(func, opts, opts.dynamicSize);
  if (!args)
    return args.takeError();

  Runner &onBackend = **runner;
  if (opts.compileOnly && onBackend.backend().servesAnyShapes())
    return makeError("--compile-only needs --backend=cpu or cuda");
  // Compile first: the plan prints even where running then fails (a device
  // backend without a device).
  if (Error error = onBackend.compile(*args))
    return error;
  if (opts.compileOnly)
    return Error::success();
  auto results = onBackend.run(*args);
  if (!results)
    return results.takeError();

  if (opts.benchmark > 0) {
    auto timed = onBackend.benchmark(*args, opts.benchmark);
    if (!timed)
      return timed.takeError();
    std::vector<double> ms = std::move(*timed);
    std::sort(ms.begin(), ms.end());
    outs() << format(
        "@%s on %s: %u runs, latency ms min %.4f median %.4f max %.4f\n",
        func.getName().str().c_str(), opts.backend.c_str(),
        opts.benchmark.getValue(), ms.front(), ms[ms.size() / 2], ms.back());
  }
  if (!opts.profile.empty()) {
    const tgc::runtime::Profile *profile = onBackend.profile();
    if (!profile)
      return makeError("--profile needs --backend=cpu");
    if (auto status = profile->writeChromeTrace(opts.profile); !status.ok())
      return makeError(opts.profile + ": " + std::string(status.message()));
    outs() << profile->topKernels(10);
  }

  if (opts.outputs.size() > results->size() ||
      opts.expected.size() > results->size())
    return makeError("@" + func.getName() + " returns " +
                     Twine(results->size()) +
                     " results but more --output or "
                     "--expected paths were given");
  for (auto [i, path] : enumerate(opts.outputs)) {
    auto status = tgc::runtime::writeNpy(path, (*results)[i]);
    if (!status.ok())
      return makeError(path + ": " + std::string(status.message()));
  }
  bool mismatch = false;
  for (auto [i, spec] : enumerate(opts.expected)) {
    auto want = loadTensor(spec);
    if (!want)
      return want.takeError();
    HostTensor expected = adaptDType(std::move(*want), (*results)[i].dtype());
    auto status =
        tgc::runtime::allClose((*results)[i], expected, opts.rtol, opts.atol);
    if (status.ok()) {
      outs() << "result #" << i << ": matches " << spec << "\n";
    } else {
      mismatch = true;
      errs() << "result #" << i << ": MISMATCH against " << spec << ": "
             << std::string(status.message()) << "\n";
    }
  }
  if (opts.print ||
      (opts.outputs.empty() && opts.expected.empty() && opts.benchmark == 0)) {
    for (auto [i, result] : enumerate(*results)) {
      outs() << "result #" << i << ": " << result.describe() << " = ";
      printTensor(outs(), result);
    }
  }
  if (mismatch) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "results differ from the expected values (rtol "
       << llvm::format("%g", opts.rtol.getValue()) << ", atol "
       << llvm::format("%g", opts.atol.getValue()) << ")";
    return makeMismatchError(text);
  }
  return Error::success();
}
} // namespace

/// --print-settings: the environment table (runtime/Environment.h) with the
/// current values, then the TGC_* variables set now and how they are read.
static void printSettings(raw_ostream &os) {
  using tgc::runtime::env::Setting;
  os << "TGC_* environment variables (flags: 1/0, true/false, on/off, "
        "yes/no; options and flags given to a tool or the API win):\n";
  for (const Setting &setting : tgc::runtime::env::settings()) {
    std::string value = tgc::runtime::env::text(setting.name);
    const char *kind = setting.kind == Setting::Kind::Flag      ? "flag"
                       : setting.kind == Setting::Kind::Integer ? "integer"
                                                                : "text";
    os << "  " << setting.name << " (" << kind << ", default "
       << (setting.defaultValue.empty() ? "unset" : setting.defaultValue)
       << "): " << (value.empty() ? "unset" : value) << "\n      "
       << setting.description << "\n";
  }
  std::vector<std::string> active = tgc::runtime::env::describeActive();
  os << "Set now:" << (active.empty() ? " none" : "") << "\n";
  for (const std::string &line : active)
    os << "  " << line << "\n";
}

int tgc::runToolMain(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // The pass manager's options (--mlir-print-ir-after-all, --mlir-timing,
  // ...) apply to the backends' pipelines; accepted, not listed in --help.
  tgc::registerAllPasses(); // names for --mlir-print-ir-after=PASS
  mlir::registerPassManagerCLOptions();
  // tgc-run's own options (those Options registers) in their category;
  // --help lists only those (LLVM's stay accepted, unlisted).
  llvm::StringSet<> llvmOptions;
  for (const auto &entry : cl::getRegisteredOptions())
    llvmOptions.insert(entry.first);
  Options opts;
  cl::OptionCategory category("tgc-run options");
  for (const auto &entry : cl::getRegisteredOptions())
    if (!llvmOptions.contains(entry.first))
      entry.second->addCategory(category);
  cl::HideUnrelatedOptions(category);
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    StringRef arg(argv[i]);
    std::optional<StringRef> value;
    if (i > 0 && (arg == "--threads" || arg == "-threads") && i + 1 < argc)
      value = StringRef(argv[++i]); // `--threads N`, as `--threads=N`.
    else if (i > 0 && (arg.consume_front("--threads=") ||
                       arg.consume_front("-threads=")))
      value = arg;
    if (!value) {
      args.push_back(argv[i]);
      continue;
    }
    if (value->getAsInteger(10, opts.threads)) {
      errs() << "tgc-run: error: bad --threads value '" << *value << "'\n";
      return 1;
    }
  }
  cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                              "tgc-run: run a tgc function (exit status 0; 2 "
                              "when results differ from --expected or "
                              "between --differential backends; 1 on any "
                              "other error)\n"
                              "  --threads=N  intra-op threads for the cpu "
                              "backend (default TGC_NUM_THREADS or all "
                              "cores)\n");
  if (opts.printTarget) {
    outs() << tgc::cpu::targetDescription() << "\n";
    return 0;
  }
  if (opts.printSettings) {
    printSettings(outs());
    return 0;
  }
  if (opts.file.empty()) {
    errs() << "tgc-run: error: no input file (a .mlir file or .onnx model)\n";
    return 1;
  }
  if (!(opts.rtol >= 0) || !(opts.atol >= 0)) {
    errs() << "tgc-run: error: --rtol and --atol must be non-negative "
              "numbers\n";
    return 1;
  }
  if (!opts.device.empty()) {
    auto device = tgc::Device::parse(opts.device);
    if (!device.ok()) {
      errs() << "tgc-run: error: --device: "
             << std::string(device.status().message()) << "\n";
      return 1;
    }
    std::string implied = device->isCuda() ? "cuda" : "cpu";
    bool compatible = opts.backend == implied ||
                      (device->isCpu() && opts.backend == "reference");
    if (opts.backend.getNumOccurrences() && !compatible) {
      errs() << "tgc-run: error: --device=" << opts.device
             << " conflicts with --backend=" << opts.backend << "\n";
      return 1;
    }
    if (!opts.backend.getNumOccurrences())
      opts.backend = implied;
    opts.cudaOrdinal = device->ordinal;
  }
  if (Error error = run(opts)) {
    int exitCode = 1;
    std::string message;
    handleAllErrors(std::move(error), [&](const ErrorInfoBase &info) {
      if (info.convertToErrorCode() ==
          std::make_error_code(std::errc::result_out_of_range))
        exitCode = kMismatchExitCode;
      message += (message.empty() ? "" : "\n") + info.message();
    });
    errs() << "tgc-run: error: " << message << "\n";
    if (StringRef(message).starts_with("no CUDA device"))
      return opts.noDeviceExitCode.getValue();
    return exitCode;
  }
  return 0;
}
