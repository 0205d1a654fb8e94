//===- Executable.h - compiled plans and their executor ---------*- C++ -*-===//
//
// The executable format of tgc's CPU backend: a fixed list of kernel steps
// over numbered values, with a memory plan computed at compile time. Values
// are the function's inputs, constants (owned by the executable, e.g. weights
// already reordered into the layout their primitive prefers), arena slices
// (intermediates and results, reused by liveness), or views of another
// value's storage (reshape-like ops). Running an executable checks every
// input against the plan before any kernel runs.
//
// Pure C++ on oneDNN; links no compiler library.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_EXECUTABLE_H
#define TGC_RUNTIME_EXECUTABLE_H

#include "tgc/Determinism.h"
#include "tgc/HostTensor.h"

#include "tgc/AbslStatus.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tgc::runtime {

class ThreadPool;
class StridedView;

/// What a kernel may use while it runs.
struct KernelContext {
  /// Intra-op threads for this run (oneDNN and native kernels share them).
  int numThreads = 1;
};

/// How a kernel was made, so that a saved plan (runtime/cpu/PlanFile.h) can
/// make it again in another process without the compiler: its factory's
/// name and encoded descriptor (runtime/cpu/Recipes.h). `constants` are the
/// data of executable constants the descriptor refers to (weights the
/// kernel prepacked), in the order the descriptor numbers them; saving
/// the plan turns each into the number of the constant with that data.
struct KernelRecipe {
  std::string factory;
  std::string descriptor;
  std::vector<const void *> constants;
};

/// Bytes a kernel derived from constants when it was made (weights
/// reordered into its primitive's layout), described by `layout` (opaque:
/// the kernel library's memory descriptor). A saved plan keeps them, so
/// that loading it makes the kernel with these bytes instead of deriving
/// them again.
struct DerivedConstant {
  std::string layout;
  const void *data = nullptr;
  size_t bytes = 0;
};

class Executable;

/// One executable step. Kernels are created at compile time (primitive
/// descriptors, weight reorders and scratch sizes decided there) and are
/// immutable afterwards: run() may be called from several threads at once.
class Kernel {
public:
  virtual ~Kernel();
  /// A short name for logs and profiles, e.g. "onednn.matmul".
  virtual std::string_view name() const = 0;
  /// Computes `outputs` from `inputs`. Both are views (borrowed HostTensors)
  /// with exactly the dtypes and shapes the kernel was created for.
  virtual absl::Status run(const KernelContext &context,
                           const std::vector<HostTensor> &inputs,
                           std::vector<HostTensor> &outputs) const = 0;
  /// Whether output 0 may share storage with input `index` (elementwise
  /// kernels that read each element before writing it).
  virtual bool canRunInPlace(size_t index) const { return false; }
  /// Memory the kernel holds for its whole life (prepacked weights), in
  /// bytes; 0 when it holds none or does not know.
  virtual int64_t heldBytes() const { return 0; }
  /// Whether run() reads input `index` (false for a constant the kernel
  /// prepacked when it was made: it uses its own copy), or needs it to be
  /// remade from a saved plan. A saved plan leaves out the bytes of
  /// constants no kernel reads.
  virtual bool readsInput(size_t index) const { return true; }
  /// Whether the kernel holds constant input `index` (of `bytes` bytes)
  /// packed losslessly (not quantized), so that unpackConstant can give
  /// its values back after the plan let the constant's own bytes go.
  virtual bool canUnpackConstant(size_t index, size_t bytes) const {
    return false;
  }
  /// Writes constant input `index`'s values, recovered from the kernel's
  /// packed copy, into `into` (that input's dtype, shape and layout).
  virtual absl::Status unpackConstant(size_t index, HostTensor &into) const {
    return absl::UnimplementedError("the kernel holds no packed constant");
  }
  /// What the kernel derived from constants when it was made, in the order
  /// it made them (see DerivedConstant).
  virtual std::vector<DerivedConstant> derivedConstants() const { return {}; }
  /// The plans the kernel runs (a control-flow step's regions), named:
  /// Executable::describe prints them under the step.
  virtual std::vector<std::pair<std::string, const Executable *>>
  nestedPlans() const {
    return {};
  }

  /// How to make this kernel again; null for kernels a saved plan cannot
  /// hold (the reference interpreter's). Set once by the factory that made
  /// the kernel, before it is shared.
  std::shared_ptr<const KernelRecipe> recipe;
};

/// Where a value's bytes live.
struct ValueStorage {
  enum class Kind {
    Input,    ///< the function's input `index`
    Constant, ///< the executable's constant `index`
    Arena,    ///< `offset` bytes into the arena
    View,     ///< the storage of value `index` (same bytes, another shape),
              ///< starting `offset` bytes into it (usually 0)
  };
  Kind kind = Kind::Arena;
  int64_t index = 0;
  int64_t offset = 0;
};

struct ValueInfo {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  ValueStorage storage;
  /// For messages: the op and location that produced it.
  std::string producer;
  /// Non-empty for a value kept in an opaque kernel layout (e.g. oneDNN's
  /// nChw16c between convolutions), named here for listings: `shape` stays
  /// the logical shape, the value takes `layoutBytes` bytes (blocked layouts
  /// pad channels), and only the kernels created for that layout read or
  /// write it. Such a value is an Arena value, never a result nor the
  /// target of a view.
  std::string layout;
  int64_t layoutBytes = 0;
};

struct Step {
  std::shared_ptr<const Kernel> kernel;
  std::vector<int64_t> inputs;
  std::vector<int64_t> outputs;
  /// The op it implements with its source location, e.g.
  /// "tgc.matmul at model.mlir:3:8", and the backend path it took
  /// ("onednn", "native", "reference").
  std::string op;
  std::string path;
  /// A contraction's key for int8 calibration (the planner's, e.g.
  /// "model.onnx:0:0 (node 'conv1')#0"; empty for other steps): its input
  /// 0 is the activation a calibration table holds the range of. Not saved
  /// in plan files.
  std::string calibrationKey;
  /// With calibrationKey, for a contraction that adds a residual (a
  /// full-shape add post-op): the kernel input holding it, whose range a
  /// calibration table holds under calibrationKey + ".residual"; else -1.
  int calibrationResidual = -1;
};

struct RunOptions {
  /// Intra-op threads; 0 means TGC_NUM_THREADS or the machine's cores.
  /// oneDNN primitives keep the partitioning of the thread count current
  /// when they were created (codegen's CompileOptions::numThreads): compile
  /// and run with the same count.
  int numThreads = 0;
  /// Log each kernel with its time to stderr (also TGC_VERBOSE=1).
  bool verbose = false;
  /// Whether a run reads TGC_VERBOSE (and, with numThreads 0, the thread
  /// settings) from the environment. A client that read them once, when it
  /// was created, sets false: a run then reads no environment variable.
  bool readEnvironment = true;
  /// Inter-op parallelism: run up to this many independent steps (those of
  /// one level, see Executable::stepLevels) at once, splitting the intra-op
  /// threads between them. 1 (the default) runs steps in order.
  int interOpThreads = 1;
  /// When set, append one Chrome trace event per kernel here.
  struct Profile *profile = nullptr;
  /// Caller buffers for the results (one entry per result; a null entry,
  /// or a missing one, is allocated as usual). A buffer must have exactly
  /// the result's dtype and shape, be aligned to its element size and
  /// overlap neither an argument nor another buffer (InvalidArgument
  /// otherwise). The result returned borrows it, and where the result is
  /// written by a kernel, the kernel writes there directly.
  const std::vector<HostTensor *> *resultBuffers = nullptr;
  /// When set, called with each step's index and input views just before
  /// the step runs (steps in order: with interOpThreads 1 only); int8
  /// calibration reads activations here (codegen/cpu/Calibrate.h).
  const std::function<void(size_t step, const std::vector<HostTensor> &inputs)>
      *observeStep = nullptr;
};

/// Kernel timings as Chrome trace events (chrome://tracing, Perfetto). Runs
/// recorded into one Profile share one timeline (each run after the last,
/// as they happened), every kernel on the thread that ran it, and one "run
/// N" slice per run on its own track.
struct Profile {
  struct Event {
    std::string name, category;
    /// Microseconds since the first run recorded here began.
    double startMicros = 0, durationMicros = 0;
    /// The thread that ran it: 1 for the first thread seen, 2 for the next.
    int thread = 1;
    /// The run it belongs to (0 for the first run recorded here).
    int run = 0;
    /// The kernel's operand and result types ("in=tensor<2x4xf32>,
    /// tensor<4x4xf32> out=tensor<2x4xf32>", without the space after commas).
    std::string shapes;
  };
  /// One per kernel call, in the order they finished.
  std::vector<Event> events;
  /// One per run ("run 0", ...), category "run".
  std::vector<Event> runs;
  /// The N kernels (by name: kernel, op and location) with the most total
  /// time over every run, as a table: total ms, calls, mean us, share of the
  /// kernel time, name.
  std::string topKernels(size_t n) const;
  /// {"traceEvents": [...]} JSON: the kernels, then the runs (tid 0), with
  /// "args" giving each kernel's run and shapes.
  std::string toChromeTraceJson() const;
  absl::Status writeChromeTrace(const std::string &path) const;

  /// Used by Executable::run: the start of the first run (steady-clock
  /// microseconds; negative before it) and the threads seen so far.
  double originMicros = -1;
  std::vector<size_t> threadHashes;
  /// The event thread number of the calling thread (registers it).
  int threadNumber();
};

/// Scratch memory for runs of one Executable: a pool of per-run states (an
/// arena and prebuilt kernel argument views), so that a run allocates only
/// its results in the steady state and concurrent runs each get their own
/// arena. It is
/// not part of the plan: copying an Executable gives the copy an empty cache,
/// and cached views are revalidated against the plan on every run.
class RunStateCache {
public:
  struct Impl;
  RunStateCache() = default;
  RunStateCache(const RunStateCache &) {}
  RunStateCache &operator=(const RunStateCache &) { return *this; }
  ~RunStateCache();
  /// The pool, created on first use (thread-safe).
  Impl &get() const;

private:
  mutable std::atomic<Impl *> impl{nullptr};
};

/// Activation arenas shared by executables (the CPU backend gives one pool
/// to the plans of an MLIR context: the shapes of a function, a bounded
/// dim's lengths): a run takes a free arena at least as large as its plan
/// needs, or makes one (dropping the free ones smaller than that), and gives
/// it back when it ends. Plans that do not run at once so hold one arena
/// between them, of the largest's size: a bounded dim's memory ends up
/// planned at its upper bound. Thread-safe.
class ArenaPool {
public:
  struct Arena {
    std::shared_ptr<char> bytes;
    int64_t capacity = 0;
  };
  /// A free arena of at least `bytes`, or a new one (populated); null bytes
  /// when out of memory.
  Arena take(int64_t bytes);
  void give(Arena arena);
  /// The free arenas' count and bytes, and the arenas made so far.
  size_t freeArenas() const;
  int64_t freeBytes() const;
  int64_t made() const;

private:
  mutable std::mutex mutex;
  std::vector<Arena> freeList;
  int64_t madeCount = 0;
};

/// A compiled function.
class Executable {
public:
  std::vector<ValueInfo> values;
  std::vector<Step> steps;
  std::vector<int64_t> inputs;  ///< value ids of the function's arguments
  std::vector<int64_t> outputs; ///< value ids of its results
  std::vector<HostTensor> constants;
  int64_t arenaBytes = 0;
  /// What the plan was made for, listed by describe(): e.g. "x86 avx2
  /// (channel block 8, no Winograd)"; empty: not machine-specific.
  std::string target;
  /// Optional: a level per step such that every step's inputs come from
  /// steps of lower levels. When set (before planMemory), the memory plan
  /// keeps operands of one level apart and RunOptions::interOpThreads can
  /// run a level's steps concurrently.
  std::vector<int64_t> stepLevels;
  /// Storage the constants may borrow (a mapped plan file: PlanFile.h),
  /// kept alive with the plan; null when they own theirs.
  std::shared_ptr<const void> backing;
  /// More storage the constants borrow, kept alive with the plan (the
  /// compiler's copies of file-backed weights: dialects/ConstantData.h).
  std::vector<std::shared_ptr<const void>> constantStorage;
  /// Per constant (or empty: none): whether the plan let go of its bytes
  /// once its kernels were made, because no kernel reads them when it runs
  /// (weights every reader prepacked; see constantsRead): such a constant
  /// reads as zeros, like a loaded plan's elided constants, and this says
  /// whether it held only finite values (a saved plan records it).
  std::vector<std::optional<bool>> releasedFinite;
  /// Per-run scratch (not part of the plan; see RunStateCache).
  RunStateCache runCache;
  /// Where runs take their arena from (shared with other plans); null: each
  /// run state keeps one of its own.
  std::shared_ptr<ArenaPool> arenaPool;
  /// The determinism the plan was made for (tgc/Determinism.h). Other than
  /// Default, run() gives the kernels only 64-byte aligned buffers (an
  /// argument that is not is copied first, a result buffer that is not is
  /// copied into), so that no kernel's vector loop changes with the
  /// caller's alignment; Strict plans were also made of thread-invariant
  /// kernels (runtime/cpu/Kernels.h, ThreadInvariantKernels).
  Determinism determinism = Determinism::Default;

  /// OK when `args` are exactly the arguments the plan takes (count,
  /// dtypes, shapes), else InvalidArgument naming the first that is not:
  /// what run() checks before anything runs.
  absl::Status checkArguments(const std::vector<HostTensor> &args) const;

  /// Runs the plan. Inputs must match the plan's dtypes and shapes exactly
  /// (checked before any kernel runs). Results are freshly owned tensors.
  /// They are allocated before the kernels run (ResourceExhausted when that
  /// fails) and a result whose bytes a step writes is written there
  /// directly, with no copy; a result that is an input or a constant (or a
  /// view of one), a second result on the same bytes, or a view of part of
  /// a value is copied. No two results of a run, nor results of different
  /// runs, share storage.
  /// Sets this thread's intra-op thread count (setNumThreads) when it
  /// differs. Safe to call from several threads at once: each run takes its
  /// own arena from `runCache`. A kernel error comes back prefixed with its
  /// step's op.
  absl::StatusOr<std::vector<HostTensor>>
  run(const std::vector<HostTensor> &args,
      const RunOptions &options = {}) const;

  /// run() into `results`, one caller buffer per result (each as
  /// RunOptions::resultBuffers requires; `options.resultBuffers` is not
  /// read), returning no tensors: a run that reuses its buffers, arguments
  /// and plan allocates nothing (each step's views are pointed at the run's
  /// memory in place). Control-flow steps run their nested plans so, into
  /// their own outputs (runtime/ControlFlow.h).
  absl::Status runInto(const std::vector<HostTensor> &args,
                       std::vector<HostTensor> &results,
                       const RunOptions &options = {}) const;

  /// run() on strided arguments: non-contiguous ones are packed into dense
  /// tensors first (contiguous ones are used in place).
  absl::StatusOr<std::vector<HostTensor>>
  run(const std::vector<StridedView> &args,
      const RunOptions &options = {}) const;

private:
  /// run() (results into `returned`) and runInto() (into `into`).
  absl::Status runImpl(const std::vector<HostTensor> &args,
                       const RunOptions &options,
                       std::vector<HostTensor> *returned,
                       std::vector<HostTensor> *into) const;

public:
  /// Checks internal consistency (value ids in range, storage in bounds,
  /// views the size of their target); the compiler calls it once. Also:
  /// `inputs[i]` is the value whose storage is Input `i` (and vice versa),
  /// arena offsets are aligned to the element size, constants are at least
  /// as large as the values on them, steps have kernels and write only Arena
  /// values (or views of them), each value at most once, every step input is
  /// an input, a constant or written by an earlier step, and so is every
  /// result.
  absl::Status verify() const;

  /// Memory the plan holds: its constants, one run's arena and what its
  /// kernels hold (prepacked weights), in bytes.
  int64_t heldBytes() const;

  /// A readable listing: one line per step with its path, op and shapes,
  /// then the arena size, which ops fell back to the reference path and
  /// the target.
  std::string describe() const;
};

/// Assigns arena offsets to the values whose storage kind is Arena, reusing
/// bytes of values that are dead (liveness over `steps` order) and letting a
/// step's output 0 take an input's bytes when the kernel allows it and that
/// input dies there. Fills `arenaBytes`. Offsets are 64-byte aligned.
/// A value is live from its defining step to its last use; a use of a view
/// (or chain of views) is a use of its target; results live to the end.
/// In place requires both values to be Arena values (not views) of the same
/// byte size, the input to be no result and not read later (directly or
/// through a view), and no other operand of the step to be a view of it.
/// Zero-size values take no bytes (offset 0); values no step touches share
/// offset 0 with others (the arena is still at least as large as each).
absl::Status planMemory(Executable &executable);

/// Drops the steps none of whose outputs is read by a later step or is a
/// result (directly or through views: a write into part of a live value's
/// bytes stays), e.g. a transpose whose only consumer was served from its
/// input instead. Kernels have no other effects. Call before stepLevels
/// and planMemory. Returns the number of steps dropped.
int64_t removeDeadSteps(Executable &executable);

/// The constant whose bytes value `id` is (through views), or -1.
int64_t constantOf(const Executable &executable, int64_t id);

/// Which constants something reads when the plan runs: a step whose kernel
/// reads that input (Kernel::readsInput), or a result (copied out). Steps
/// for which `ignore` (when given) says true do not count.
std::vector<bool>
constantsRead(const Executable &executable,
              const std::function<bool(size_t step)> &ignore = nullptr);

/// The intra-op thread count: `requested` if positive, else TGC_NUM_THREADS
/// if set, else OMP_NUM_THREADS (its first level) if set, else the number
/// of hardware threads.
int resolveThreadCount(int requested);

/// Sets the process-wide intra-op thread count used by oneDNN and the native
/// kernels (OpenMP).
void setNumThreads(int numThreads);

/// Whether TGC_VERBOSE=1 is set.
bool verboseFromEnvironment();

/// False when TGC_ENABLE_ONEDNN=0: compile everything to the reference path.
bool oneDnnEnabledFromEnvironment();

} // namespace tgc::runtime

#endif // TGC_RUNTIME_EXECUTABLE_H
