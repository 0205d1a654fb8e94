//===- Backend.h - the interface every backend implements -------*- C++ -*-===//
//
// A backend compiles a tgc function for concrete input shapes into a
// CompiledFunction that runs (on host tensors; on device tensors where the
// backend has a device) and describes its plan. Backends register
// themselves with the registry from their own libraries
// (registerReferenceBackend, registerCpuBackend, registerCudaBackend;
// registerAllBackends in codegen/Backends.h calls those built in), and every
// client (tgc::function, tgc::Model, tgc-run, the ONNX conformance runner,
// the benchmarks) selects one by name. The shape of XLA's
// xla/service/compiler.h and IREE's HAL/Target/TargetRegistry.h.
//
// The shared front end of a compile (specialize for the shapes, run the
// backend's named pipeline, turn the first diagnostic into an error with
// its location) is tgc::specializeAndLower (passes/Specialize.h). "This
// backend cannot do this op" is always an UnsupportedError.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_BACKEND_H
#define TGC_CODEGEN_BACKEND_H

#include "codegen/Calibration.h"
#include "runtime/Executable.h"
#include "tgc/HostTensor.h"
#include "tgc/Precision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include "tgc/AbslStatus.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tgc {
namespace cuda {
class Device;
class DeviceExecutable;
} // namespace cuda

namespace codegen {

/// The one error every backend returns for "this backend cannot compile this
/// op (or type, or shape)": clients test for it with isUnsupported (the
/// differential runner counts such functions as unsupported, not failed).
/// Its error code is std::errc::not_supported; as an absl::Status it is
/// Unimplemented.
class UnsupportedError : public llvm::ErrorInfo<UnsupportedError> {
public:
  static char ID;
  explicit UnsupportedError(std::string message)
      : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  const std::string &getMessage() const { return message; }

private:
  std::string message;
};

/// An UnsupportedError with `message`.
llvm::Error makeUnsupportedError(const llvm::Twine &message);

/// Whether `error` is an UnsupportedError (does not consume it).
inline bool isUnsupported(const llvm::Error &error) {
  return error.isA<UnsupportedError>();
}

/// What a client may ask of any backend; each backend ignores what does not
/// apply to it. Read at the boundary (tool flags, FunctionOptions,
/// ModelOptions): backends never read the environment for these.
struct BackendOptions {
  /// Run the backend's optimizing pipeline (cleanup, folding) first.
  bool optimize = true;
  /// Set by compileStaged (Staged.h) for a function with nothing left to
  /// split in its body: compile it whole, without staging again (a
  /// data-dependent op nested in a loop or branch runs with that op on the
  /// cpu backend's reference kernels).
  bool staged = false;
  /// With `optimize`: fuse (post-ops into contractions, loop fusion).
  bool fuse = true;
  /// CPU: the intra-op thread count the plan will run with (0: default).
  int numThreads = 0;
  /// CPU: prepare the plan for inter-op parallelism.
  bool interOp = false;
  /// The determinism contract (tgc/Determinism.h; fromEnvironment:
  /// TGC_DETERMINISTIC).
  Determinism determinism = Determinism::Default;
  /// The precision policy (tgc/Precision.h; fromEnvironment:
  /// TGC_PRECISION). CPU: F32 or BF16 (Auto resolved by the backend; BF16
  /// without native bf16 and Int8 are compile errors). CUDA: F32 only.
  Precision precision = Precision::Default;
  /// With precision Int8: the calibration table (codegen/Calibration.h),
  /// keyed by codegen::contractionKeys (CPU and CUDA).
  std::shared_ptr<const CalibrationTable> calibration;
  /// CUDA: the GPU architecture ("sm_90"; empty: the backend's default).
  std::string arch;
  /// CUDA: let f32 matmuls and convolutions use TF32 tensor cores.
  bool allowTf32 = false;
  /// CPU: oneDNN primitives and native kernels (false: every op on the
  /// reference path).
  bool enableOneDnn = true;
  /// CPU: activation layouts between convolutions and pools: "auto",
  /// "plain", "blocked" or "any" (oneDNN's choice); see
  /// cpu::ActivationLayouts.
  std::string activationLayouts = "auto";
  /// CPU: oneDNN's Winograd kernels for eligible 3x3 convolutions.
  bool winograd = true;
  /// CPU: vectorize generated loop kernels, and the vector tile they use.
  bool loopVectorize = true;
  int64_t loopVectorTile = 64;
  /// CPU: print each generated loop kernel's LLVM dialect before JIT.
  bool dumpJit = false;
  /// The persistent compilation cache's directory (empty: none;
  /// TGC_CACHE_DIR). The CPU backend keeps its whole plans and its loop
  /// kernels' object code there (codegen/cpu/PlanCache.h).
  std::string cacheDir;
  /// CPU, with cacheDir: also file the plan under this key (a client's key
  /// of the source the function came from, e.g. tgc-run's hash of an ONNX
  /// file and its inputs), so that the client finds it without importing
  /// that source again (KernelObjectCache::planPathOf).
  std::string planAlias;
  /// CPU, with cacheDir: key/value notes stored with the plan (a model's
  /// output names, ...), which a client reads back when it loads the plan
  /// by its alias.
  std::vector<std::pair<std::string, std::string>> planNotes;
  /// CPU: keep what CompiledFunction::saveArtifact needs (the loop kernels'
  /// object code) even without a cache directory.
  bool savable = false;

  /// The defaults overridden by the TGC_* environment (the one table of
  /// runtime/Environment.h: TGC_FUSION, TGC_ENABLE_ONEDNN,
  /// TGC_BLOCKED_LAYOUTS, TGC_WINOGRAD, TGC_LOOP_VECTORIZE,
  /// TGC_LOOP_VECTOR_TILE, TGC_DUMP_JIT). Clients read it once where a
  /// compile starts, then apply their own options on top; backends never
  /// read the environment.
  static BackendOptions fromEnvironment();
};

/// How a compiled function runs.
struct RunContext {
  runtime::RunOptions options;
  /// Device backends: the device to run on (required by run()).
  std::shared_ptr<cuda::Device> device;
};

/// A function compiled by a backend for concrete input shapes. It must not
/// outlive the MLIRContext it was compiled in: its module lives there, and
/// so does the constant data its plan may view (the CPU backend's plans
/// hold no copy of dense f32/f64 weights).
class CompiledFunction {
public:
  virtual ~CompiledFunction();
  /// The backend that compiled it ("cpu").
  virtual llvm::StringRef backend() const = 0;
  /// The plan, as --print-plan shows it.
  virtual std::string describe() const = 0;
  /// The lowered module the plan was built from (null where the backend
  /// keeps none).
  virtual mlir::ModuleOp module() const = 0;
  /// Runs on host tensors (a device backend copies them in and out on
  /// `context.device`).
  virtual absl::StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs,
      const RunContext &context) const = 0;
  /// The host executable where the backend has one (the CPU's: profiling,
  /// step counts); null otherwise.
  virtual std::shared_ptr<const runtime::Executable> hostExecutable() const {
    return nullptr;
  }
  /// The device executable where the backend has one (CUDA: runs on device
  /// tensors without host transfers); null otherwise.
  virtual std::shared_ptr<cuda::DeviceExecutable> deviceExecutable() const {
    return nullptr;
  }
  /// Host memory the compiled function holds (constants, prepacked weights,
  /// a run's arena), in bytes; 0 where the backend does not say.
  virtual int64_t heldBytes() const { return 0; }
  /// Whether the plan was loaded from the persistent compilation cache
  /// (BackendOptions::cacheDir) rather than compiled.
  virtual bool loadedFromCache() const { return false; }
  /// Saves the plan to `path` as an ahead-of-time artifact with `metadata`
  /// (CPU: runtime/cpu/PlanFile.h; compile with BackendOptions::savable).
  /// Unimplemented where the backend has no artifact format.
  virtual absl::Status saveArtifact(
      const std::string &path,
      const std::vector<std::pair<std::string, std::string>> &metadata) const {
    return absl::UnimplementedError("the " + backend().str() +
                                    " backend saves no artifacts");
  }
};

class Backend {
public:
  virtual ~Backend();
  /// The name clients select it by ("reference", "cpu", "cuda").
  virtual llvm::StringRef name() const = 0;
  /// One line for --help and error messages.
  virtual std::string description() const = 0;
  /// Whether compiled functions run on a device (and need RunContext::device
  /// to run).
  virtual bool runsOnDevice() const { return false; }
  /// Whether a compiled function serves any input shapes (the reference
  /// interpreter) rather than exactly the ones it was compiled for.
  virtual bool servesAnyShapes() const { return false; }
  /// Adds the dialects its compiles load (its pipelines' dependent
  /// dialects). A client that compiles from several threads on one context
  /// loads them first: MLIR does not allow loading dialects while other
  /// threads use the context.
  virtual void getDependentDialects(mlir::DialectRegistry &registry) const {}
  /// Compiles `func` for inputs of exactly `inputShapes` (one per argument;
  /// dynamic dims take these sizes, static ones must match). `func` is not
  /// modified. Ops the backend cannot compile are UnsupportedErrors at their
  /// location.
  virtual llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(mlir::func::FuncOp func,
          llvm::ArrayRef<std::vector<int64_t>> inputShapes,
          const BackendOptions &options) const = 0;
  /// Loads an artifact this backend's CompiledFunction::saveArtifact wrote
  /// (no compile). An error where the backend has no artifact format, or
  /// the file is not a good one (naming the reason).
  virtual llvm::Expected<std::unique_ptr<CompiledFunction>>
  loadArtifact(const std::string &path) const;
};

/// Adds `backend` to the process-wide registry (thread-safe). A second
/// backend of the same name replaces nothing: the first one stays.
void registerBackend(std::unique_ptr<Backend> backend);

/// The registered backend called `name`, or null.
const Backend *lookupBackend(llvm::StringRef name);

/// The registered backend called `name`, or an error naming the ones there
/// are: "unknown backend 'x' (available: cpu, cuda, reference)". "cuda" in
/// a build without CUDA code generation says so.
llvm::Expected<const Backend *> getBackend(llvm::StringRef name);

/// The names of the registered backends, sorted.
std::vector<std::string> registeredBackends();

/// Why there is no "cuda" backend in a build without CUDA code generation.
llvm::StringRef noCudaCodegenMessage();

} // namespace codegen
} // namespace tgc

#endif // TGC_CODEGEN_BACKEND_H
