//===- RunTool.cpp - the tgc-run command line tool ------------------------===//
//
// tgc-run FILE [--function=NAME] [--backend=reference] [--input=SPEC]...
//         [--seed=N] [--output=PATH]... [--expected=PATH]... [--rtol=R]
//         [--atol=A] [--benchmark=N] [--print]
//         [--requests=N [--hint=latency|throughput] [--streams=N] [--json]]
//
//===----------------------------------------------------------------------===//

#include "tools/lib/RunTool.h"
#include "tools/lib/TensorLiteral.h"

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/cpu/Calibrate.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/KernelObjectCache.h"
#include "codegen/cpu/PlanCache.h"
#include "codegen/reference/Interpreter.h"
#include "dialects/ShapeUtils.h"
#include "frontend/onnx/OnnxImporter.h"
#include "runtime/EngineInternal.h"
#include "runtime/Environment.h"
#include "runtime/LargeBuffer.h"
#include "runtime/cpu/Kernels.h"
#include "runtime/cpu/PlanFile.h"
#include "runtime/cuda/Device.h"
#include "runtime/cuda/PlanFile.h"
#include "tgc/Device.h"
#include "tgc/Npy.h"
#include "tgc/Version.h"
#include "tools/lib/Differential.h"
#include "tools/lib/FastRun.h"
#include "tools/lib/InputGuard.h"
#include "tools/lib/Registration.h"
#include "tools/lib/Runner.h"
#include "tools/lib/TensorIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include "llvm/ADT/StringSet.h"
#include <algorithm>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

using namespace llvm;
using tgc::runtime::DType;
using tgc::runtime::HostTensor;
using namespace tgc::tooling;

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
  cl::opt<bool> weightsInFile{
      "weights-in-file", cl::init(true),
      cl::desc("An ONNX model's large weights stay in the model file (read "
               "from it when needed: the IR holds no copy, a compiled plan "
               "holds them once); false: copy them into the IR, so that the "
               "file may change once imported")};
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
  cl::opt<std::string> deterministic{
      "deterministic",
      cl::desc("The determinism contract (docs/determinism.md): run-to-run "
               "(bitwise run to run at a fixed thread count) or strict (also "
               "across thread counts); default: TGC_DETERMINISTIC"),
      cl::init("")};
  /// --deterministic, parsed.
  tgc::Determinism determinism = tgc::Determinism::Default;
  cl::opt<std::string> precisionFlag{
      "precision",
      cl::desc("The precision policy (docs/precision.md): f32, bf16 "
               "(convolutions and matmuls multiply in bfloat16 on CPUs with "
               "AVX512_BF16 or AMX), int8 or auto (bf16 where native); "
               "default: TGC_PRECISION, else f32"),
      cl::init("")};
  /// --precision, parsed.
  tgc::Precision precision = tgc::Precision::Default;
  cl::opt<std::string> calibrationData{
      "calibration-data",
      cl::desc("With --precision=int8: calibrate on the samples in this "
               "directory: one .npy/.pb file per sample for a one-input "
               "function, else one subdirectory per sample holding a file "
               "per input (in name order); any batch size the function "
               "accepts"),
      cl::init("")};
  cl::opt<std::string> calibrationTable{
      "calibration-table",
      cl::desc("With --precision=int8: the calibration table file, written "
               "after calibrating on --calibration-data, else read"),
      cl::init("")};
  cl::opt<std::string> calibrator{
      "calibrator",
      cl::desc("With --calibration-data: minmax, entropy (default) or "
               "percentile (99.99%)"),
      cl::init("entropy")};
  cl::opt<std::string> activations{
      "activations",
      cl::desc("With --calibration-data: how signed activations quantize: "
               "asymmetric (default: u8 with a zero point) or symmetric (s8)"),
      cl::init("asymmetric")};
  cl::opt<bool> quantizeOutputLayers{
      "quantize-output-layers",
      cl::desc("With --calibration-data: quantize the contractions whose "
               "result is a result of the function too (by default they stay "
               "f32: a classifier's logits)")};
  cl::list<std::string> excludedNodes{
      "exclude-nodes",
      cl::desc("With --calibration-data: contractions kept in f32 (left out "
               "of the table): ONNX node names or source locations "
               "file:line, comma-separated"),
      cl::CommaSeparated};
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
  cl::opt<std::string> cacheDir{
      "cache-dir",
      cl::desc("Persistent compilation cache directory, shared by processes "
               "(default TGC_CACHE_DIR; the cpu backend keeps its loop "
               "kernels' machine code there)")};
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
  cl::opt<unsigned> requests{
      "requests",
      cl::desc("Run N requests (sharing the compiled plan) and print the "
               "throughput and latency percentiles (p50/p90/p99)"),
      cl::init(0)};
  cl::opt<std::string> hint{
      "hint",
      cl::desc("With --requests: latency (one request at a time on every "
               "core) or throughput (one stream per core, requests in "
               "parallel)"),
      cl::init("latency")};
  cl::opt<unsigned> streams{
      "streams",
      cl::desc("With --requests: requests run at once, each on its share of "
               "the cores (default: 1 for --hint=latency, the cores for "
               "throughput)"),
      cl::init(0)};
  cl::opt<bool> json{"json", cl::desc("Print the --requests report as one JSON "
                                      "object")};
  /// Intra-op threads per stream (set from the cores and the streams).
  int threadsPerStream = 0;
  /// --input and --expected, where an ONNX model's sequences and optionals
  /// are flattened into their tensors (runSource).
  std::vector<std::string> inputSpecs, expectedSpecs;
};

/// Lets go of the resident pages of the compiler's code: this binary's (the
/// static LLVM and MLIR in it), and MLIR's library where it is shared.
/// Start-up touches tens of megabytes of it (each static constructor's
/// page fault maps its neighbours too) that the compile does not run
/// again, and once compiled the plan runs little of it; what runs again
/// comes back from the file (runtime::releaseCodePages).
void releaseCompilerCode() {
  tgc::runtime::releaseCodePages(
      {reinterpret_cast<const void *>(&releaseCompilerCode),
       reinterpret_cast<const void *>(
           static_cast<mlir::InFlightDiagnostic (*)(
               mlir::Location, const llvm::Twine &)>(&mlir::emitError))});
}

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// The input options tgc-run's flags give.
tgc::tooling::InputOptions inputOptions(const Options &opts) {
  tgc::tooling::InputOptions options;
  options.inputs = opts.inputSpecs;
  options.seed = opts.seed;
  options.dynamicSize = opts.dynamicSize;
  return options;
}

Error runSource(Options &opts, const std::string &planAlias);

/// The runner options tgc-run's flags give.
tgc::tooling::RunnerOptions runnerOptions(const Options &opts) {
  tgc::tooling::RunnerOptions options;
  options.threads = static_cast<int>(opts.threads);
  options.interOp = static_cast<int>(opts.interOp);
  options.fuse = opts.pipeline == "tgc-cpu";
  options.cudaOrdinal = opts.cudaOrdinal;
  options.cudaArch = opts.cudaArch;
  options.allowTf32 = opts.allowTf32;
  options.cacheDir = opts.cacheDir;
  options.determinism = opts.determinism;
  options.precision = opts.precision;
  options.printPlan = opts.printPlan;
  options.printLowered = opts.printLowered;
  options.verbose = tgc::runtime::verboseFromEnvironment();
  options.profile = !opts.profile.empty();
  // Without a device, only a compile (--print-plan, --compile-only) goes on.
  options.compileWithoutDevice = opts.printPlan || opts.compileOnly;
  return options;
}

Expected<std::unique_ptr<Runner>>
makeRunner(StringRef backend, mlir::func::FuncOp func, const Options &opts,
           const std::string &planAlias,
           std::shared_ptr<const tgc::codegen::CalibrationTable> calibration) {
  tgc::tooling::RunnerOptions options = runnerOptions(opts);
  options.planAlias = planAlias;
  options.calibration = std::move(calibration);
  return Runner::create(backend, func, options, outs());
}

/// The .npy/.pb files and the subdirectories of `dir`, each sorted by name.
std::error_code listSamples(const std::string &dir,
                            std::vector<std::string> &files,
                            std::vector<std::string> &dirs) {
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef path = it->path();
    if (sys::fs::is_directory(path))
      dirs.push_back(path.str());
    else if (path.ends_with(".npy") || path.ends_with(".pb"))
      files.push_back(path.str());
  }
  std::sort(files.begin(), files.end());
  std::sort(dirs.begin(), dirs.end());
  return ec;
}

/// --calibration-data's samples for `func`: a file per sample (one input),
/// or a subdirectory per sample with a file per input, in name order.
Expected<tgc::cpu::CalibrationSamples>
calibrationSamples(const std::string &dir, mlir::func::FuncOp func) {
  std::vector<std::string> files, dirs;
  if (std::error_code ec = listSamples(dir, files, dirs))
    return makeError("--calibration-data '" + dir + "': " + ec.message());
  size_t inputs = func.getNumArguments();
  std::vector<std::vector<std::string>> samples;
  if (!dirs.empty()) {
    for (const std::string &sampleDir : dirs) {
      std::vector<std::string> sampleFiles, nested;
      if (std::error_code ec = listSamples(sampleDir, sampleFiles, nested))
        return makeError("--calibration-data '" + sampleDir +
                         "': " + ec.message());
      if (sampleFiles.size() != inputs)
        return makeError("--calibration-data: sample '" + sampleDir +
                         "' holds " + Twine(sampleFiles.size()) +
                         " .npy/.pb file(s); @" + func.getName() + " takes " +
                         Twine(inputs) + " input(s)");
      samples.push_back(std::move(sampleFiles));
    }
  } else {
    if (inputs != 1 && !files.empty())
      return makeError("--calibration-data '" + dir +
                       "' holds one file per "
                       "sample, but @" +
                       func.getName() + " takes " + Twine(inputs) +
                       " inputs: put each sample's inputs in "
                       "a subdirectory of their own");
    for (const std::string &file : files)
      samples.push_back({file});
  }
  if (samples.empty())
    return makeError("--calibration-data '" + dir +
                     "' holds no samples (.npy or .pb files, or "
                     "subdirectories of them)");
  tgc::cpu::CalibrationSamples result;
  result.count = samples.size();
  result.read = [samples](size_t i) -> tgc::StatusOr<std::vector<HostTensor>> {
    std::vector<HostTensor> args;
    for (const std::string &file : samples[i]) {
      auto tensor = loadTensor(file);
      if (!tensor)
        return absl::InvalidArgumentError(toString(tensor.takeError()));
      args.push_back(std::move(*tensor));
    }
    return args;
  };
  return result;
}

/// The int8 calibration table: made on --calibration-data (and saved to
/// --calibration-table when given), else read from --calibration-table.
Expected<std::shared_ptr<const tgc::codegen::CalibrationTable>>
calibrationFor(const Options &opts, mlir::func::FuncOp func) {
  if (opts.backend != "cpu" && opts.backend != "cuda")
    return makeError("--precision=int8 runs on the cpu and cuda backends");
  if (opts.calibrationData.empty()) {
    if (opts.calibrationTable.empty()) {
      // A QDQ model's contractions carry their own grid: on the GPU they
      // run int8 without a table (the CPU's int8 plans need one).
      if (opts.backend == "cuda")
        return nullptr;
      return makeError("--precision=int8 needs a calibration: "
                       "--calibration-data=DIR (sample inputs) or "
                       "--calibration-table=FILE (a table made before)");
    }
    auto table =
        tgc::codegen::CalibrationTable::loadShared(opts.calibrationTable);
    if (!table.ok())
      return makeError(std::string(table.status().message()));
    return *std::move(table);
  }
  auto calibrator = tgc::codegen::parseCalibrator(opts.calibrator);
  if (!calibrator)
    return makeError("unknown --calibrator '" + opts.calibrator +
                     "' (minmax, entropy or percentile)");
  if (opts.activations != "asymmetric" && opts.activations != "symmetric")
    return makeError("unknown --activations '" + opts.activations +
                     "' (asymmetric or symmetric)");
  auto samples = calibrationSamples(opts.calibrationData, func);
  if (!samples)
    return samples.takeError();
  tgc::cpu::CompileOptions options;
  options.numThreads = static_cast<int>(opts.threads);
  options.fuse =
      opts.pipeline == "tgc-cpu" && tgc::runtime::env::flag("TGC_FUSION");
  auto start = std::chrono::steady_clock::now();
  auto table = tgc::cpu::calibrate(func, *samples, *calibrator, options,
                                   opts.quantizeOutputLayers);
  if (!table)
    return table.takeError();
  table->asymmetric = opts.activations == "asymmetric";
  std::vector<std::string> excludedNodes(opts.excludedNodes.begin(),
                                         opts.excludedNodes.end());
  if (auto excluded = table->exclude(excludedNodes); !excluded.ok())
    return makeError("--exclude-nodes: " + std::string(excluded.message()));
  errs() << format(
      "tgc-run: calibrated %zu activation(s) on %zu sample(s) "
      "(%s) in %.2f s\n",
      table->entries.size(), samples->count,
      tgc::codegen::toString(*calibrator),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
  if (!opts.calibrationTable.empty())
    if (auto saved = table->save(opts.calibrationTable); !saved.ok())
      return makeError(std::string(saved.message()));
  return std::make_shared<const tgc::codegen::CalibrationTable>(
      *std::move(table));
}

Error runAndReport(const Options &opts, Runner &onBackend,
                   std::vector<HostTensor> &args, const std::string &name);

/// The persistent cache directory: --cache-dir, else TGC_CACHE_DIR.
std::string cacheDirectory(const Options &opts) {
  return opts.cacheDir.empty() ? tgc::runtime::env::text("TGC_CACHE_DIR")
                               : std::string(opts.cacheDir);
}

/// With a persistent cache, says what it did (a warm run compiles nothing).
void reportCache(const Options &opts,
                 const tgc::cpu::KernelObjectCache::Stats &before,
                 bool loadedByAlias) {
  std::string cacheDir = cacheDirectory(opts);
  if (cacheDir.empty())
    return;
  auto after = tgc::cpu::KernelObjectCache::processStats();
  errs() << "tgc-run: cache " << cacheDir << ": ";
  if (loadedByAlias)
    errs() << "plan loaded (no import, no compile)";
  else if (after.planHits > before.planHits)
    errs() << "plan loaded (no compile)";
  else if (after.planStores > before.planStores)
    errs() << "plan compiled and stored";
  else
    errs() << "plan compiled (not stored)";
  if (!loadedByAlias)
    errs() << "; " << after.hits - before.hits << " loop kernel(s) loaded, "
           << after.stores - before.stores << " compiled and stored";
  if (uint64_t bad = after.corrupt - before.corrupt)
    errs() << " (" << bad << " bad entr" << (bad == 1 ? "y" : "ies")
           << " replaced)";
  errs() << "\n";
}

/// Runs a loaded plan (a .tgcx artifact, or a cache entry found by the
/// ONNX file's key).
Error runLoadedPlan(const Options &opts, tgc::runtime::cpu::LoadedPlan loaded) {
  if (opts.backend != "cpu")
    return makeError("'" + opts.file +
                     "' is a saved cpu plan: it runs on "
                     "--backend=cpu only");
  if (opts.differential || opts.printLowered)
    return makeError("'" + opts.file +
                     "' is a saved plan: it has no IR for "
                     "--differential or --print-lowered");
  const tgc::runtime::Executable &exe = *loaded.executable;
  std::vector<ArgumentSpec> arguments;
  for (const tgc::TensorInfo &input : tgc::runtime::cpu::planTensors(
           exe, exe.inputs, loaded.info.list("inputs"), ""))
    arguments.push_back({input.name, input.dtype, input.shape});
  std::string function = loaded.info.get("function");
  std::string name = "@" + (function.empty() ? std::string("main") : function);
  if (!opts.function.empty() && opts.function != function)
    return makeError("'" + opts.file + "' holds " + name + ", not @" +
                     opts.function);
  tgc::tooling::RunnerOptions options = runnerOptions(opts);
  // Without --threads, the count the plan was made for.
  if (options.threads == 0)
    options.threads = loaded.info.threads();
  auto runner = Runner::fromCompiled(
      tgc::cpu::makeLoadedCpuFunction(loaded.executable), options, outs());
  if (!runner)
    return runner.takeError();
  auto args = makeInputs(arguments, name, inputOptions(opts));
  if (!args)
    return args.takeError();
  return runAndReport(opts, **runner, *args, name);
}

/// Runs a CUDA artifact (tgc-compile --backend=cuda): on the cuda backend's
/// device; its inputs are the plan's (named by the source's input names).
Error runDeviceArtifact(const Options &opts) {
  if (opts.backend.getNumOccurrences() && opts.backend != "cuda")
    return makeError("'" + opts.file +
                     "' is a saved cuda plan: it runs on --backend=cuda only");
  if (opts.differential || opts.printLowered)
    return makeError("'" + opts.file +
                     "' is a saved plan: it has no IR for "
                     "--differential or --print-lowered");
  auto cuda = tgc::codegen::getBackend("cuda");
  if (!cuda)
    return cuda.takeError();
  auto compiled = (*cuda)->loadArtifact(opts.file);
  if (!compiled)
    return compiled.takeError();
  auto info = tgc::cuda::loadDevicePlan(opts.file);
  if (!info.ok())
    return makeError(std::string(info.status().message()));
  const tgc::cuda::ExecutableSpec &spec = info->executable->spec();
  std::vector<std::string> names;
  for (StringRef line : split(info->info.get("inputs"), '\n'))
    names.push_back(line.str());
  std::vector<ArgumentSpec> arguments;
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    arguments.push_back({names.size() == spec.inputs.size() ? names[i] : "",
                         spec.inputs[i].dtype, spec.inputs[i].shape});
  std::string function = info->info.get("function");
  std::string name = "@" + (function.empty() ? std::string("main") : function);
  if (!opts.function.empty() && opts.function != function)
    return makeError("'" + opts.file + "' holds " + name + ", not @" +
                     opts.function);
  // Without a device, --print-plan and --compile-only still go on.
  auto runner =
      Runner::fromCompiled(std::move(*compiled), runnerOptions(opts), outs());
  if (!runner)
    return runner.takeError();
  auto args = makeInputs(arguments, name, inputOptions(opts));
  if (!args)
    return args.takeError();
  return runAndReport(opts, **runner, *args, name);
}

/// The key under which tgc-run files the plan of an ONNX model run
/// (BackendOptions::planAlias): cpu::sourceFileKey of the model with the
/// values of the given inputs (the importer may specialize on them) and the
/// run's options. The plan itself is filed under the key of its imported
/// function (PlanCache.h), which hashes content.
std::optional<std::string> onnxRunKey(const Options &opts) {
  // The same text as tgc-run's front end (FastRun.h), which finds the plan
  // without the compiler.
  std::vector<HostTensor> tensors;
  tensors.reserve(opts.inputSpecs.size());
  tgc::tooling::RunKeyMaterial material;
  for (const std::string &spec : opts.inputSpecs) {
    auto tensor = loadTensor(spec);
    if (!tensor) {
      consumeError(tensor.takeError());
      return std::nullopt;
    }
    tensors.push_back(std::move(*tensor));
    material.inputs.push_back(
        {spec.substr(0, spec.find('=')), &tensors.back()});
  }
  material.function = opts.function;
  material.pipeline = opts.pipeline;
  material.threads = opts.threads;
  material.interOp = opts.interOp;
  material.dynamicSize = opts.dynamicSize;
  material.determinism = opts.determinism;
  material.precision = opts.precision;
  if (tgc::resolvePrecision(opts.precision) == tgc::Precision::Int8) {
    // The table is part of the key: one calibrated now is not known yet.
    if (!opts.calibrationData.empty() || opts.calibrationTable.empty())
      return std::nullopt;
    auto table = tgc::codegen::CalibrationTable::load(opts.calibrationTable);
    if (!table.ok())
      return std::nullopt;
    material.calibration = table->digest();
  }
  return tgc::cpu::sourceFileKey(opts.file,
                                 tgc::tooling::onnxRunMaterial(material));
}

Error run(Options &opts) {
  // Start-up's pages of compiler code, before the work touches its own.
  releaseCompilerCode();
  // The backends, and with the cpu one the loader of saved loop kernels.
  tgc::codegen::registerAllBackends();
  if (tgc::runtime::cpu::isPlanFile(opts.file)) {
    auto loaded = tgc::runtime::cpu::loadPlan(opts.file);
    if (!loaded.ok())
      return makeError(std::string(loaded.status().message()));
    return runLoadedPlan(opts, *std::move(loaded));
  }
  if (tgc::cuda::isDevicePlanFile(opts.file))
    return runDeviceArtifact(opts);
  // An ONNX model run whose plan the cache holds: no import, no compile.
  std::string alias;
  std::string cacheDir = cacheDirectory(opts);
  if (!cacheDir.empty() && opts.backend == "cpu" && !opts.differential &&
      !opts.printLowered && tgc::isOnnxModelPath(opts.file)) {
    auto cache = tgc::cpu::KernelObjectCache::open(cacheDir);
    std::optional<std::string> key =
        cache.ok() ? onnxRunKey(opts) : std::nullopt;
    if (key) {
      alias = *key;
      auto before = tgc::cpu::KernelObjectCache::processStats();
      auto hit = (*cache)->loadPlan(alias);
      if (hit.executable) {
        reportCache(opts, before, /*loadedByAlias=*/true);
        tgc::runtime::cpu::LoadedPlan loaded;
        loaded.executable = std::move(hit.executable);
        loaded.info = std::move(hit.info);
        return runLoadedPlan(opts, std::move(loaded));
      }
      if (tgc::cpu::mayHaveExternalData(opts.file))
        alias.clear();
    }
  }
  return runSource(opts, alias);
}

Error runSource(Options &opts, const std::string &planAlias) {
  if (opts.pipeline != "tgc-cpu" && opts.pipeline != "tgc-cpu-unfused")
    return makeError("unknown --pipeline '" + opts.pipeline +
                     "' (available: tgc-cpu, tgc-cpu-unfused)");
  mlir::DialectRegistry registry;
  tgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  std::vector<std::string> inputSpecs = opts.inputSpecs;
  auto module = loadSourceModule(context, sourceMgr, opts.file, inputSpecs,
                                 opts.weightsInFile);
  if (!module)
    return module.takeError();
  // Sequence and optional values of an ONNX model: the flattened inputs and
  // expected results.
  opts.inputSpecs = std::move(inputSpecs);
  if (!opts.expectedSpecs.empty() && tgc::isOnnxModelPath(opts.file)) {
    auto types = tgc::onnxModelValueTypes(opts.file);
    if (!types)
      return types.takeError();
    auto expanded =
        tgc::tooling::expandStructuredSpecs(opts.expectedSpecs, types->outputs);
    if (!expanded)
      return expanded.takeError();
    opts.expectedSpecs = std::move(*expanded);
  }
  if (opts.differential) {
    if (!opts.expectedSpecs.empty() || !opts.outputs.empty())
      return makeError("--differential compares the backends with each "
                       "other; it takes no --expected or --output (run "
                       "without --differential to check or write results)");
    tgc::tooling::DifferentialOptions differential;
    differential.backend = opts.backend;
    differential.function = opts.function;
    differential.inputs = inputOptions(opts);
    if (opts.dynamicSize < 0)
      differential.inputs.dynamicSize = 3;
    differential.rtol = opts.rtol;
    differential.atol = opts.atol;
    differential.runner = runnerOptions(opts);
    differential.compileOnly = opts.compileOnly;
    return tgc::tooling::runDifferential(**module, differential, outs());
  }
  mlir::func::FuncOp func = findFunction(**module, opts.function);
  if (!func)
    return makeError(
        opts.function.empty()
            ? Twine("no public function with a body in '" + opts.file + "'")
            : Twine("no function named '" + opts.function + "'"));
  std::shared_ptr<const tgc::codegen::CalibrationTable> calibration;
  if (tgc::resolvePrecision(opts.precision) == tgc::Precision::Int8) {
    auto table = calibrationFor(opts, func);
    if (!table)
      return table.takeError();
    calibration = std::move(*table);
  }
  auto runner = makeRunner(opts.backend, func, opts, planAlias, calibration);
  if (!runner)
    return runner.takeError();
  auto args = makeInputs(func, inputOptions(opts));
  if (!args)
    return args.takeError();

  Runner &onBackend = **runner;
  if (opts.compileOnly && onBackend.backend().servesAnyShapes())
    return makeError("--compile-only needs --backend=cpu or cuda");
  // Compile first: the plan prints even where running then fails (a device
  // backend without a device).
  auto cacheBefore = tgc::cpu::KernelObjectCache::processStats();
  if (Error error = onBackend.compile(*args))
    return error;
  reportCache(opts, cacheBefore, /*loadedByAlias=*/false);
  // Compiled: the compiler's code goes back while the plan runs.
  releaseCompilerCode();
  return runAndReport(opts, onBackend, *args, "@" + func.getName().str());
}

/// Runs a compiled function (compiled, or loaded from a plan) on `args`
/// and does what the options say with the results.
/// The nearest-rank `percent` percentile of sorted `values`.
double percentile(const std::vector<double> &sorted, double percent) {
  size_t rank = static_cast<size_t>(
      std::ceil(percent / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

/// --requests: throughput and latency percentiles over --streams streams,
/// as benchmark_app and onnxruntime_perf_test report them.
Error reportStreams(const Options &opts, Runner &onBackend,
                    const std::vector<HostTensor> &args,
                    const std::string &name) {
  unsigned streams = std::max(1u, opts.streams.getValue());
  auto measured = onBackend.benchmarkStreams(args, streams, opts.requests,
                                             opts.threadsPerStream);
  if (!measured)
    return measured.takeError();
  std::vector<double> ms = measured->latencies;
  std::sort(ms.begin(), ms.end());
  double rps = static_cast<double>(ms.size()) / measured->seconds;
  int64_t batch = !args.empty() && args[0].rank() > 0 ? args[0].shape()[0] : 1;
  if (opts.json) {
    outs() << format("{\"function\": \"%s\", \"backend\": \"%s\", "
                     "\"hint\": \"%s\", \"streams\": %u, "
                     "\"threads_per_stream\": %d, \"requests\": %zu, "
                     "\"seconds\": %.6f, \"requests_per_second\": %.3f, "
                     "\"batch\": %lld, \"items_per_second\": %.3f, "
                     "\"latency_ms\": {\"min\": %.4f, \"p50\": %.4f, "
                     "\"p90\": %.4f, \"p99\": %.4f, \"max\": %.4f}}\n",
                     name.c_str(), opts.backend.c_str(), opts.hint.c_str(),
                     streams, opts.threadsPerStream, ms.size(),
                     measured->seconds, rps, static_cast<long long>(batch),
                     rps * static_cast<double>(batch), ms.front(),
                     percentile(ms, 50), percentile(ms, 90), percentile(ms, 99),
                     ms.back());
    return Error::success();
  }
  outs() << format("%s on %s, %s hint: %u stream(s) x %d thread(s), %zu "
                   "requests in %.3f s\n",
                   name.c_str(), opts.backend.c_str(), opts.hint.c_str(),
                   streams, opts.threadsPerStream, ms.size(), measured->seconds)
         << format("  throughput %.2f requests/s, %.2f items/s (batch %lld)\n",
                   rps, rps * static_cast<double>(batch),
                   static_cast<long long>(batch))
         << format("  latency ms: min %.3f p50 %.3f p90 %.3f p99 %.3f max "
                   "%.3f\n",
                   ms.front(), percentile(ms, 50), percentile(ms, 90),
                   percentile(ms, 99), ms.back());
  return Error::success();
}

Error runAndReport(const Options &opts, Runner &onBackend,
                   std::vector<HostTensor> &argsIn, const std::string &name) {
  std::vector<HostTensor> *args = &argsIn;
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
        "%s on %s: %u runs, latency ms min %.4f median %.4f max %.4f\n",
        name.c_str(), opts.backend.c_str(), opts.benchmark.getValue(),
        ms.front(), ms[ms.size() / 2], ms.back());
  }
  if (opts.requests > 0)
    if (Error error = reportStreams(opts, onBackend, *args, name))
      return error;
  if (!opts.profile.empty()) {
    const tgc::runtime::Profile *profile = onBackend.profile();
    if (!profile)
      return makeError(opts.backend == "cpu"
                           ? "--profile needs one plan; this function is "
                             "compiled in stages (a data-dependent shape), "
                             "see --print-plan"
                           : "--profile needs --backend=cpu");
    if (auto status = profile->writeChromeTrace(opts.profile); !status.ok())
      return makeError(opts.profile + ": " + std::string(status.message()));
    outs() << profile->topKernels(10);
  }

  if (opts.outputs.size() > results->size() ||
      opts.expectedSpecs.size() > results->size())
    return makeError(name + " returns " + Twine(results->size()) +
                     " results but more --output or "
                     "--expected paths were given");
  for (auto [i, path] : enumerate(opts.outputs)) {
    auto status = tgc::runtime::writeNpy(path, (*results)[i]);
    if (!status.ok())
      return makeError(path + ": " + std::string(status.message()));
  }
  bool mismatch = false;
  for (auto [i, spec] : enumerate(opts.expectedSpecs)) {
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
  if (opts.print || (opts.outputs.empty() && opts.expectedSpecs.empty() &&
                     opts.benchmark == 0 && opts.requests == 0)) {
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
  if (!opts.deterministic.empty()) {
    auto level = tgc::parseDeterminism(opts.deterministic);
    if (!level) {
      errs() << "tgc-run: error: unknown --deterministic '"
             << opts.deterministic << "' (run-to-run or strict)\n";
      return 1;
    }
    opts.determinism = *level;
  }
  if (!opts.precisionFlag.empty()) {
    auto precision = tgc::parsePrecision(opts.precisionFlag);
    if (!precision) {
      errs() << "tgc-run: error: unknown --precision '" << opts.precisionFlag
             << "' (f32, bf16, f16, int8 or auto)\n";
      return 1;
    }
    opts.precision = *precision;
  }
  if (opts.hint != "latency" && opts.hint != "throughput") {
    errs() << "tgc-run: error: unknown --hint '" << opts.hint
           << "' (latency or throughput)\n";
    return 1;
  }
  if (opts.requests > 0 || opts.streams.getNumOccurrences() ||
      opts.hint.getNumOccurrences()) {
    // The engine's sizing (tgc/Engine.h): the physical cores (--threads
    // caps them) split between the streams; never more worker threads
    // than cores.
    int cores = opts.threads
                    ? static_cast<int>(opts.threads)
                    : std::min(tgc::physicalCores(), tgc::threadBudget());
    if (static_cast<int>(opts.streams) > cores) {
      errs() << "tgc-run: error: --streams=" << opts.streams << " exceeds the "
             << cores << " core(s) this run may use (--threads)\n";
      return 1;
    }
    tgc::EngineOptions engine;
    engine.hint = opts.hint == "throughput" ? tgc::PerformanceHint::Throughput
                                            : tgc::PerformanceHint::Latency;
    engine.streams = static_cast<int>(opts.streams);
    auto config = tgc::detail::planStreams(engine, cores, cores);
    if (!config.ok()) {
      errs() << "tgc-run: error: " << std::string(config.status().message())
             << "\n";
      return 1;
    }
    opts.streams = static_cast<unsigned>(config->streams);
    opts.threadsPerStream = config->threadsPerStream;
    // The plan is made for the threads each request runs with.
    opts.threads = static_cast<unsigned>(opts.threadsPerStream);
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
  opts.inputSpecs.assign(opts.inputs.begin(), opts.inputs.end());
  opts.expectedSpecs.assign(opts.expected.begin(), opts.expected.end());
  if (Error error = run(opts)) {
    int exitCode = 1;
    std::string message;
    handleAllErrors(std::move(error), [&](const ErrorInfoBase &info) {
      if (info.convertToErrorCode() ==
          std::make_error_code(std::errc::result_out_of_range))
        exitCode = 2; // results differ (makeMismatchError)
      message += (message.empty() ? "" : "\n") + info.message();
    });
    errs() << "tgc-run: error: " << message << "\n";
    if (StringRef(message).starts_with("no CUDA device"))
      return opts.noDeviceExitCode.getValue();
    return exitCode;
  }
  return 0;
}
