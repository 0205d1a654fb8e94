//===- Function.h - traced functions inside the library ---------*- C++ -*-===//
//
// Internal to the frontend: the state behind a public tgc::Function
// (include/tgc/Function.h) — the MLIR context its traces live in, the
// specialization cache and each specialization's compiled plans.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_FUNCTION_H
#define TGC_FRONTEND_FUNCTION_H

#include "tgc/AbslStatus.h"
#include "tgc/Function.h"

#include "codegen/Backend.h"
#include "frontend/Tensor.h"
#include "frontend/Tracer.h"
#include "runtime/cuda/Executable.h"
#include "tracing/SpecializationCache.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace tgc {

namespace detail {

/// The tensor specs of a TraceType's tensor leaves, in order.
void collectTensorSpecs(const tracing::TraceType &type,
                        std::vector<tracing::TensorSpec> &out);

/// One compiled specialization.
struct Compiled {
  TracedModule traced;
  /// The value the callable returned while tracing (its structure), checked
  /// against the call's result type on every call.
  std::any structure;
  /// Results of the callable; the function returns them first.
  size_t numOutputs = 0;
  /// Then the final value of each assigned variable, by alias class (the
  /// occurrence index of its first occurrence).
  std::vector<int64_t> variableWrites;
  /// Where it runs (the key's target).
  Device target;
  /// The plan of a specialization with static shapes (or of a backend that
  /// serves any shapes, the reference interpreter), compiled when it is
  /// traced; specializations with dynamic dims compile one plan per set of
  /// input shapes on first use.
  std::shared_ptr<const codegen::CompiledFunction> staticPlan;
  /// The specialization's key, for history events.
  std::string signature;
  struct Plan {
    std::shared_ptr<const codegen::CompiledFunction> plan;
    uint64_t lastUse = 0;
  };
  mutable std::mutex planMutex;
  /// Dynamic dims: the plans by input shapes (at most
  /// FunctionOptions::maxPlansPerSpecialization, least recently used
  /// dropped), the use clock, and the compile accounting (guarded by
  /// planMutex; the static plan's compile is counted too).
  mutable std::map<std::vector<std::vector<int64_t>>, Plan> plans;
  mutable uint64_t planClock = 0;
  mutable uint64_t compiles = 0;
  mutable double compileSeconds = 0;
  mutable uint64_t plansLoaded = 0;
  mutable double loadSeconds = 0;
};

/// State shared by copies of a Function.
struct FunctionState {
  explicit FunctionState(FunctionOptions options);
  FunctionOptions options;
  mlir::MLIRContext context;
  tracing::SpecializationCache<Compiled> cache;
  std::optional<tracing::TraceType> signature;
  std::source_location location;
  /// Some specialization is keyed by an object's identity (a shared_ptr
  /// argument): calls then look for specializations of dead objects to drop,
  /// every kDeadIdentityCheckPeriod calls (and on every miss).
  std::atomic<bool> identityKeyed{false};
  /// Plans compiled over the function's life (every specialization).
  mutable std::atomic<size_t> compileCount{0};
  /// Compiles of one function run one at a time: they share its MLIRContext,
  /// and PassManager::run updates the context's dialect registry.
  mutable std::mutex compileMutex;
  /// FunctionOptions::calibrationTable, read by the first compile that needs
  /// it (a failed read is retried by the next).
  tgc::StatusOr<std::shared_ptr<const codegen::CalibrationTable>>
  calibrationTable() const;
  mutable std::mutex calibrationMutex;
  mutable std::shared_ptr<const codegen::CalibrationTable> calibration;

  using Entry = tracing::Specialization<Compiled>;
  using EntryPtr = std::shared_ptr<const Entry>;
  /// The dispatch memo of calls whose arguments are all host tensors (the
  /// common case), for functions on the CPU without captures: the call's
  /// dtypes and shapes, flattened, to the entry the cache chose; valid while
  /// the cache's generation stays the same. A hit here builds no TraceType.
  struct FastKey {
    llvm::SmallVector<int64_t, 16> words;
    size_t hash = 0;
    bool operator==(const FastKey &other) const { return words == other.words; }
  };
  struct FastKeyHash {
    size_t operator()(const FastKey &key) const { return key.hash; }
  };
  static FastKey fastKey(std::span<const runtime::HostTensor *const> tensors);
  bool fastEligible = false;
  mutable std::shared_mutex fastMutex;
  std::unordered_map<FastKey, EntryPtr, FastKeyHash> fast;
  uint64_t fastGeneration = 0;
  /// The specialization the memo has for `key`, counted as a hit; null when
  /// it has none.
  CompiledPtr fastLookup(const FastKey &key);
  /// Remembers that `key` dispatched to `entry` when the cache was at
  /// `generation` (nothing when it has changed since).
  void fastRecord(FastKey key, EntryPtr entry, uint64_t generation);
  /// The specialization for a call of `argsType` (traced with `body` if
  /// none serves it), checked like any call.
  tgc::StatusOr<EntryPtr> entryForCall(const tracing::TraceType &argsType,
                                       const TraceBody &body);

  /// Run settings read once, when the function is created: intra-op threads
  /// (FunctionOptions::numThreads, else TGC_NUM_THREADS, OMP_NUM_THREADS or
  /// the cores) and TGC_VERBOSE. Runs do not read the environment.
  int runThreads = 0;
  bool runVerbose = false;
  std::atomic<uint64_t> calls{0};
  static constexpr uint64_t kDeadIdentityCheckPeriod = 64;
  /// Drops the specializations keyed by dead objects.
  void dropDeadIdentities();

  tgc::Status checkSignature(const tracing::TraceType &call) const;
  /// The cache key: the arguments' TraceType followed by the types of the
  /// captures (read now) and, unless it is the CPU, the target device
  /// (TraceType::target).
  tracing::TraceType cacheKey(const tracing::TraceType &argsType) const;
  /// The key of capture #`capture` within a cacheKey.
  tracing::TraceType captureKey(const tracing::TraceType &target,
                                size_t capture) const;
  /// The target CUDA device, opened (once per process). Errors name the
  /// function and the target: "tgc: function 'f' targets cuda:0: no CUDA
  /// device: ...", or say that this build has no CUDA code generation.
  tgc::StatusOr<std::shared_ptr<cuda::Device>> openTarget() const;
  /// Checks what a call needs before its specialization is looked up (and
  /// perhaps traced): every tensor argument on the host or on the target
  /// device, and a CUDA target's device.
  tgc::Status checkCall(const tracing::TraceType &argsType) const;
  /// Every tensor argument on the host or on the target device: "tgc:
  /// function 'f' runs on the cpu but arg0 is a tensor on cuda:0 (...)".
  tgc::Status checkPlacement(const tracing::TraceType &argsType) const;
  /// Traces the callable (through `body`) for a target type and compiles
  /// the specialization when its shapes are static.
  llvm::Expected<std::shared_ptr<const Compiled>>
  trace(const tracing::TraceType &target, const TraceBody &body);
  /// The backend specializations compile with (FunctionOptions::backend,
  /// selected by name from the registry).
  llvm::Expected<const codegen::Backend *> backend() const;
  /// Compiles `compiled` for these input shapes on the function's backend
  /// (the CUDA arch from the target device).
  llvm::Expected<std::shared_ptr<const codegen::CompiledFunction>>
  compile(const Compiled &compiled,
          const std::vector<std::vector<int64_t>> &shapes) const;
  /// Compiles a specialization whose argument shapes are all static (any
  /// specialization for a backend that serves any shapes); errors come back
  /// as tracing errors.
  llvm::Error compileStatic(Compiled &compiled) const;
  /// The plan for inputs of these shapes: the static plan, or the one
  /// compiled for these shapes on first use (`shapesOf` is only called
  /// then, so a call served by the static plan builds no shape list).
  tgc::StatusOr<std::shared_ptr<const codegen::CompiledFunction>> planFor(
      const Compiled &compiled,
      llvm::function_ref<std::vector<std::vector<int64_t>>()> shapesOf) const;
  /// Runs a specialization on the call's inputs, writes assigned variables
  /// back, and returns the callable's results.
  tgc::StatusOr<std::vector<runtime::HostTensor>>
  execute(const Compiled &compiled, const CallInputs &inputs) const;
  /// The same on a CUDA target with device-resident results: device tensor
  /// arguments are used in place, host ones are copied in first.
  tgc::StatusOr<std::vector<cuda::DeviceTensor>>
  executeOnDevice(const Compiled &compiled, const CallInputs &inputs) const;
  std::vector<SpecializationInfo> specializations() const;
};

/// Validates an input signature.
tgc::Status validateSignature(const std::vector<tracing::TensorSpec> &specs);

/// Validates `options` (input signature, cache size, device and backend) and
/// makes the device and the backend agree: a CUDA device selects
/// Backend::Cuda, Backend::Cuda with the CPU device targets cuda:0.
tgc::Status normalizeOptions(FunctionOptions &options);

tgc::Status toStatus(llvm::Error error);

} // namespace detail
} // namespace tgc

#endif // TGC_FRONTEND_FUNCTION_H
