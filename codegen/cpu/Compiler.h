//===- Compiler.h - tgc functions to CPU executables ------------*- C++ -*-===//
//
// Lowers a tgc function with static shapes to a runtime::Executable whose
// steps are oneDNN primitives (contractions, pooling, eltwise, binary,
// softmax, normalizations, reductions, reorders, concat) created at compile
// time, native loops for what oneDNN lacks, and the reference interpreter for
// any op still unsupported (that op only; the plan says which). Constants
// become executable constants; contraction weights that are constants are
// reordered once into the layout their primitive prefers. Reshape-like ops
// are views and cost nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_COMPILER_H
#define TGC_CODEGEN_CPU_COMPILER_H

#include "codegen/Calibration.h"
#include "runtime/Executable.h"
#include "tgc/Precision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace tgc::cpu {

/// How activations between NHWC oneDNN convolutions and pools are laid out.
enum class ActivationLayouts {
  /// Plain NHWC everywhere (the default).
  Plain,
  /// The layout oneDNN picks (format `any`) where every consumer is a
  /// oneDNN convolution or pool; reorders only at the boundaries. oneDNN 2.6
  /// keeps NHWC on AVX-512 machines (brgemm kernels), so this changes the
  /// plan only where it prefers a blocked layout.
  OneDnnPreferred,
  /// The ISA's blocked layout (runtime::cpu::CpuIsa::channelBlock: nChw16c
  /// with AVX-512, nChw8c with AVX2) between oneDNN convolutions and pools
  /// (oneDNN's direct and 1x1 kernels, and its Winograd ones on AVX-512),
  /// with reorders at the boundaries. Plain where the ISA has none.
  Blocked,
  /// Blocked where CompileOptions::winograd is on, the ISA has Winograd
  /// kernels (AVX-512) and the function has
  /// runtime::cpu::winogradCandidate convolutions, at least half of them
  /// writing only to other convolutions and pools (Winograd kernels take
  /// only nChw16c; before concats or other kernels the reorders cost what
  /// they save), else Plain. The default.
  Auto,
};

/// The machine the CPU backend plans for, as --print-plan lists it: the ISA
/// (runtime::cpu::CpuIsa, capped by DNNL_MAX_CPU_ISA), the channel
/// block of its blocked layout and whether it has Winograd kernels, e.g.
/// "x86 avx2 (channel block 8, no Winograd)".
std::string targetDescription();

/// The options of a CPU compile. The defaults are constants: the TGC_*
/// environment is read by clients where a compile starts
/// (codegen::BackendOptions::fromEnvironment), never here.
struct CompileOptions {
  /// False runs every op on the reference path (TGC_ENABLE_ONEDNN=0).
  bool enableOneDnn = true;
  /// Run the tgc-cleanup pipeline (canonicalization, folding, CSE) on the
  /// specialized function first.
  bool optimize = true;
  /// With `optimize`: run the whole `tgc-cpu` pipeline (NHWC layout for
  /// convolutions, batch-norm folding, post-op and loop fusion) rather than
  /// `tgc-cpu-unfused` (cleanup only). TGC_FUSION=0 turns it off.
  bool fuse = true;
  /// The intra-op thread count the executable will run with (0: the
  /// default of runtime::resolveThreadCount). oneDNN sizes some primitives
  /// for the thread count current when they are created.
  int numThreads = 0;
  /// Keep activations between NHWC oneDNN convolutions and pools in a
  /// blocked layout, with reorders to plain NHWC only where another kernel,
  /// a view or a result needs it (TGC_BLOCKED_LAYOUTS sets it).
  ActivationLayouts activationLayouts = ActivationLayouts::Auto;
  /// Run f32 3x3 stride-1 convolutions with 32 or more channels on oneDNN's
  /// Winograd kernels where the activations are blocked (see
  /// runtime::cpu::winogradCandidate): ResNet-50 batch 1 runs ~15% faster.
  /// TGC_WINOGRAD=0 turns it off.
  bool winograd = true;
  /// Vectorize the generated loop kernels (TGC_LOOP_VECTORIZE), with this
  /// many elements per vector tile (TGC_LOOP_VECTOR_TILE, at least 8).
  bool loopVectorize = true;
  int64_t loopVectorTile = 64;
  /// Print each loop kernel's LLVM dialect module before JIT (TGC_DUMP_JIT).
  bool dumpJit = false;
  /// Keep the loop kernels' object code in this directory, shared by
  /// processes, and load it from there (empty: no persistent cache;
  /// TGC_CACHE_DIR). See KernelObjectCache.h.
  std::string cacheDir;
  /// With cacheDir: also file the whole plan under this key
  /// (codegen::BackendOptions::planAlias).
  std::string planAlias;
  /// With cacheDir: more metadata for the stored plan
  /// (codegen::BackendOptions::planNotes).
  std::vector<std::pair<std::string, std::string>> planNotes;
  /// Keep what a saved plan needs (the loop kernels' object code) even
  /// without a cache directory: for `tgc-compile` and
  /// runtime::cpu::savePlan.
  bool savable = false;
  /// Prepare the plan for inter-op parallelism (RunOptions::interOpThreads):
  /// steps get levels and the memory plan keeps each level's operands apart
  /// (no in-place reuse).
  bool interOp = false;
  /// The determinism contract (tgc/Determinism.h): Strict makes every
  /// kernel thread-invariant (runtime/cpu/Kernels.h); any level other than
  /// Default gives kernels only aligned buffers (Executable::determinism).
  Determinism determinism = Determinism::Default;
  /// The precision policy (tgc/Precision.h), resolved by
  /// resolveCpuPrecision: BF16 multiplies f32 convolutions and matmuls in
  /// bfloat16 (runtime::cpu::Conv2DDesc::bf16) and keeps bf16 activations
  /// between blocked-layout convolutions; every other op stays f32.
  Precision precision = Precision::F32;
  /// Int8: the calibration table (codegen/Calibration.h) whose entries,
  /// keyed by codegen::contractionKeys (over the lowered function: the
  /// steps' runtime::Step::calibrationKey), give each contraction's input
  /// quantization;
  /// a contraction without an entry (or with run-time weights) stays f32.
  std::shared_ptr<const codegen::CalibrationTable> calibration;
};

/// `requested` as this CPU runs it, F32 or BF16: Default is F32, Auto is
/// BF16 where the CPU has native bf16 (runtime::cpu::CpuIsa::bf16). BF16
/// on a CPU without native bf16 is an error that says why; Int8 stays Int8
/// (a compile then needs CompileOptions::calibration).
llvm::Expected<Precision> resolveCpuPrecision(Precision requested);

/// `requested` with its precision resolved (resolveCpuPrecision) and
/// checked: Int8 needs a calibration table. compile() and the plan cache's
/// keys use these.
llvm::Expected<CompileOptions>
resolveCompileOptions(const CompileOptions &requested);

/// A compiled function. Steps that fell back to the reference path refer to
/// the module the function was compiled from, so keep `module` alive.
struct CompiledFunction {
  std::shared_ptr<const runtime::Executable> executable;
  /// The specialized copy of the function the plan was built from.
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// Compiles `func` for inputs of exactly `inputShapes` (one per argument;
/// dynamic dims of the signature take these sizes, static ones must match).
/// Shapes are propagated through the body first; an op whose shape cannot be
/// determined, or whose declared static dims disagree, is a compile error at
/// its location. `func` itself is not modified.
llvm::Expected<CompiledFunction>
compile(mlir::func::FuncOp func,
        const std::vector<std::vector<int64_t>> &inputShapes,
        const CompileOptions &options = {});

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_COMPILER_H
