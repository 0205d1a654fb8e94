//===- LoopKernel.h - JIT-compiled loop fusion kernels ----------*- C++ -*-===//
//
// A runtime::Kernel running a `tgc.fusion <loop>` compiled by LoopCodegen
// and MLIR's ExecutionEngine (LLVM -O3 for the host CPU, e.g. AVX-512) at
// compile time. The kernel owns the engine; the runtime calls it like any
// other kernel through a packed-argument wrapper taking one bare pointer
// per input and per result. When the region splits into independent rows
// (LoopCodegen's RowSplit) and is large enough, the rows are cut into one
// chunk per thread, each running a function compiled for its chunk shape.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_LOOPKERNEL_H
#define TGC_CODEGEN_CPU_LOOPKERNEL_H

#include "dialects/TgcOps.h"
#include "runtime/Executable.h"

#include "tgc/AbslStatus.h"

#include <memory>

namespace tgc::cpu {

class KernelObjectCache;

struct LoopKernelOptions {
  /// The thread count the kernel is compiled for (chunks per run).
  int numThreads = 1;
  /// Regions with fewer result elements than this run as one chunk.
  int64_t minParallelElements = 16384;
  /// Vectorize the loops, in tiles of this many elements.
  bool vectorize = true;
  int64_t vectorTile = 64;
  /// Print the LLVM dialect module before JIT-compiling it.
  bool dumpJit = false;
  /// Where compiled kernels persist across processes (null: nowhere).
  std::shared_ptr<const KernelObjectCache> objectCache;
  /// Keep the object code in the kernel's recipe even without an object
  /// cache, so that a plan holding the kernel can be saved.
  bool keepObject = false;
};

/// Lets saved plans (runtime/cpu/PlanFile.h) load loop kernels: registers
/// the "jit.loop" kernel loader (registerCpuBackend calls it).
void registerLoopKernelLoader();

/// JIT-compiles `fusion` (which must satisfy isLoopFusionSupported) into a
/// kernel named "jit.loop[op,op,...]".
absl::StatusOr<std::shared_ptr<const runtime::Kernel>>
createLoopFusionKernel(FusionOp fusion, const LoopKernelOptions &options = {});

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_LOOPKERNEL_H
