//===- CompileTool.cpp - the tgc-compile command line tool ----------------===//
//
// tgc-compile FILE -o OUT.tgcx [--function=NAME] [--input=SPEC]...
//             [--dynamic-size=N] [--threads=N] [--pipeline=P]
//
//===----------------------------------------------------------------------===//

#include "tools/lib/CompileTool.h"

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/PlanCache.h"
#include "runtime/cpu/Kernels.h"
#include "runtime/cpu/PlanFile.h"
#include "runtime/cuda/Executable.h"
#include "tools/lib/Registration.h"
#include "tools/lib/TensorIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace llvm;
using tgc::runtime::HostTensor;

namespace {
struct Options {
  cl::opt<std::string> file{cl::Positional,
                            cl::desc("<input .mlir file or .onnx model>")};
  cl::opt<std::string> output{"o", cl::desc("The artifact to write (.tgcx)"),
                              cl::value_desc("path")};
  cl::opt<std::string> function{
      "function",
      cl::desc("Function to compile (default: the only or first public one)")};
  cl::list<std::string> inputs{
      "input",
      cl::desc("An input fixing an argument's shape (and, for an ONNX model, "
               "its value where a node needs a constant): a .npy path or a "
               "literal, in argument order or NAME=SPEC")};
  cl::opt<int> dynamicSize{
      "dynamic-size",
      cl::desc("Size of dynamic dims of arguments no --input gives"),
      cl::init(-1)};
  cl::opt<unsigned> threads{
      "num-threads",
      cl::desc("Intra-op threads the plan is made for (default "
               "TGC_NUM_THREADS or all cores)"),
      cl::init(0)};
  cl::opt<std::string> pipeline{
      "pipeline", cl::desc("tgc-cpu (default) or tgc-cpu-unfused"),
      cl::init("tgc-cpu")};
  cl::opt<std::string> backend{
      "backend",
      cl::desc("cpu (default: a plan for this CPU's ISA) or cuda (cubins "
               "for --cuda-arch with PTX fallbacks; needs no GPU)"),
      cl::init("cpu")};
  cl::opt<std::string> cudaArch{
      "cuda-arch",
      cl::desc("With --backend=cuda: the GPU architecture (default sm_90)"),
      cl::init("")};
  cl::opt<std::string> deterministic{
      "deterministic",
      cl::desc("The determinism contract the artifact keeps "
               "(docs/determinism.md): run-to-run or strict; default: "
               "TGC_DETERMINISTIC"),
      cl::init("")};
  cl::opt<std::string> precision{
      "precision",
      cl::desc("The precision policy of a CPU artifact (docs/precision.md): "
               "f32, bf16, int8 (with --calibration-table) or auto; "
               "default: TGC_PRECISION, else f32"),
      cl::init("")};
  cl::opt<std::string> calibrationTable{
      "calibration-table",
      cl::desc("With --precision=int8: the calibration table (made by "
               "tgc-run --calibration-data or Model::calibrate)"),
      cl::init("")};
};

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// "tgc-compile: wrote OUT: @f, N steps, S MiB, for TARGET (T s)".
void reportWritten(const Options &opts, mlir::func::FuncOp func, size_t steps,
                   const std::string &target,
                   std::chrono::steady_clock::time_point start) {
  uint64_t bytes = 0;
  sys::fs::file_size(opts.output.getValue(), bytes);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  outs() << "tgc-compile: wrote " << opts.output << ": @" << func.getName()
         << ", " << steps << " steps, " << format("%.1f", bytes / 1048576.0)
         << " MiB, for " << target << " (" << format("%.2f", seconds)
         << " s)\n";
}

/// --backend=cuda: the cuda backend's plan, saved as a CUDA artifact.
Error compileForCuda(const Options &opts, mlir::func::FuncOp func,
                     const std::vector<std::vector<int64_t>> &shapes,
                     tgc::codegen::BackendOptions options,
                     std::chrono::steady_clock::time_point start) {
  tgc::codegen::registerAllBackends();
  auto cuda = tgc::codegen::getBackend("cuda");
  if (!cuda)
    return makeError("--backend=cuda: " + toString(cuda.takeError()));
  options.fuse = options.fuse && opts.pipeline == "tgc-cpu";
  options.arch = opts.cudaArch;
  auto compiled = (*cuda)->compile(func, shapes, options);
  if (!compiled)
    return compiled.takeError();
  tgc::runtime::cpu::PlanMetadata metadata = tgc::cpu::planMetadata(func);
  metadata.push_back({"source", sys::path::filename(opts.file).str()});
  if (auto status = (*compiled)->saveArtifact(opts.output.getValue(), metadata);
      !status.ok())
    return makeError(std::string(status.message()));
  reportWritten(opts, func,
                (*compiled)->deviceExecutable()->spec().launches.size(),
                "CUDA " + (opts.cudaArch.empty() ? std::string("sm_90")
                                                 : std::string(opts.cudaArch)),
                start);
  return Error::success();
}

Error compileFile(const Options &opts) {
  if (opts.output.empty())
    return makeError("no output file (-o OUT.tgcx)");
  if (opts.backend != "cpu" && opts.backend != "cuda")
    return makeError("unknown --backend '" + opts.backend + "' (cpu or cuda)");
  if (opts.pipeline != "tgc-cpu" && opts.pipeline != "tgc-cpu-unfused")
    return makeError("unknown --pipeline '" + opts.pipeline +
                     "' (available: tgc-cpu, tgc-cpu-unfused)");
  auto start = std::chrono::steady_clock::now();
  mlir::DialectRegistry registry;
  tgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  std::vector<std::string> specs(opts.inputs.begin(), opts.inputs.end());
  auto module =
      tgc::tooling::loadSourceModule(context, sourceMgr, opts.file, specs);
  if (!module)
    return module.takeError();
  mlir::func::FuncOp func = tgc::tooling::findFunction(**module, opts.function);
  if (!func)
    return makeError(
        opts.function.empty()
            ? Twine("no public function with a body in '" + opts.file + "'")
            : Twine("no function named '" + opts.function + "'"));
  tgc::tooling::InputOptions inputOptions;
  inputOptions.inputs = specs;
  inputOptions.dynamicSize = opts.dynamicSize;
  auto args = tgc::tooling::makeInputs(func, inputOptions);
  if (!args)
    return args.takeError();
  std::vector<std::vector<int64_t>> shapes;
  for (const HostTensor &arg : *args)
    shapes.push_back(arg.shape());

  tgc::codegen::BackendOptions env =
      tgc::codegen::BackendOptions::fromEnvironment();
  if (opts.backend == "cuda")
    return compileForCuda(opts, func, shapes, env, start);
  tgc::cpu::CompileOptions options;
  options.enableOneDnn = env.enableOneDnn;
  options.optimize = env.optimize;
  options.fuse = env.fuse && opts.pipeline == "tgc-cpu";
  options.numThreads = static_cast<int>(opts.threads);
  options.winograd = env.winograd;
  options.loopVectorize = env.loopVectorize;
  options.loopVectorTile = env.loopVectorTile;
  options.savable = true;
  options.determinism = env.determinism;
  if (!opts.deterministic.empty()) {
    auto level = tgc::parseDeterminism(opts.deterministic);
    if (!level)
      return makeError("unknown --deterministic '" + opts.deterministic +
                       "' (run-to-run or strict)");
    options.determinism = *level;
  }
  options.precision = env.precision;
  if (!opts.precision.empty()) {
    auto precision = tgc::parsePrecision(opts.precision);
    if (!precision)
      return makeError("unknown --precision '" + opts.precision +
                       "' (f32, bf16, f16, int8 or auto)");
    options.precision = *precision;
  }
  auto resolved = tgc::cpu::resolveCpuPrecision(options.precision);
  if (!resolved)
    return resolved.takeError();
  options.precision = *resolved;
  if (!opts.calibrationTable.empty()) {
    auto table =
        tgc::codegen::CalibrationTable::loadShared(opts.calibrationTable);
    if (!table.ok())
      return makeError(std::string(table.status().message()));
    options.calibration = *std::move(table);
  }
  StringRef layouts = env.activationLayouts;
  options.activationLayouts =
      layouts == "plain"     ? tgc::cpu::ActivationLayouts::Plain
      : layouts == "blocked" ? tgc::cpu::ActivationLayouts::Blocked
      : layouts == "any"     ? tgc::cpu::ActivationLayouts::OneDnnPreferred
                             : tgc::cpu::ActivationLayouts::Auto;
  auto compiled = tgc::cpu::compile(func, shapes, options);
  if (!compiled)
    return compiled.takeError();
  const tgc::runtime::Executable &exe = *compiled->executable;
  if (auto status = tgc::runtime::cpu::checkSavable(exe); !status.ok())
    return makeError("cannot save the plan of @" + func.getName() + ": " +
                     std::string(status.message()));
  tgc::runtime::cpu::PlanMetadata metadata = tgc::cpu::planMetadata(func);
  metadata.push_back({"source", sys::path::filename(opts.file).str()});
  metadata.push_back(
      {"threads",
       std::to_string(tgc::runtime::resolveThreadCount(options.numThreads))});
  metadata.push_back({"precision", tgc::toString(options.precision)});
  if (auto status =
          tgc::runtime::cpu::savePlan(exe, metadata, opts.output.getValue());
      !status.ok())
    return makeError(std::string(status.message()));
  reportWritten(opts, func, exe.steps.size(),
                "x86 " + tgc::runtime::cpu::cpuIsa().name, start);
  return Error::success();
}
} // namespace

int tgc::compileToolMain(int argc, char **argv) {
  InitLLVM init(argc, argv);
  llvm::StringSet<> llvmOptions;
  for (const auto &entry : cl::getRegisteredOptions())
    llvmOptions.insert(entry.first);
  Options opts;
  cl::OptionCategory category("tgc-compile options");
  for (const auto &entry : cl::getRegisteredOptions())
    if (!llvmOptions.contains(entry.first))
      entry.second->addCategory(category);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tgc-compile: compile a function ahead of time for this CPU into an "
      "artifact that tgc-run and the runtime alone (tgc::Artifact) run\n");
  if (opts.file.empty()) {
    errs() << "tgc-compile: error: no input file (a .mlir file or .onnx "
              "model)\n";
    return 1;
  }
  if (Error error = compileFile(opts)) {
    errs() << "tgc-compile: error: " << toString(std::move(error)) << "\n";
    return 1;
  }
  return 0;
}
