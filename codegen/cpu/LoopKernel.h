//===- LoopKernel.h - JIT-compiled loop fusion kernels ----------*- C++ -*-===//
//
// A runtime::Kernel running a `tgc.fusion <loop>` compiled by LoopCodegen
// and MLIR's ExecutionEngine (LLVM -O3 for the host CPU, e.g. AVX-512) at
// compile time. The kernel owns the engine; the runtime calls it like any
// other kernel through a packed-argument wrapper taking one bare pointer
// per input and per result. When the region splits into independent rows
// (LoopCodegen's RowSplit), the function computes a block of rows (about
// 16384 elements of the widest row, a power of two, at most the rows' next
// power of two) and runs once per block, on the threads when the region is
// large enough; the last partial block runs on a scratch copy of its rows.
// The code then depends on the row count only through the block size, and
// kernels whose generated code is the same share it within the process: the
// plans of one function for many shapes (a bounded dim's lengths, the counts
// of a staged function's data-dependent op) compile it once per block size.
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
  /// The thread count of the plan (1: its blocks run on the calling
  /// thread).
  int numThreads = 1;
  /// Regions with fewer result elements than this run on one thread.
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

/// What this process's loop kernels did: block functions JIT-compiled, and
/// kernels that took the code another kernel had compiled (of another
/// plan, shape or MLIR context).
struct LoopKernelStats {
  uint64_t compiled = 0, shared = 0;
};
LoopKernelStats loopKernelStats();

/// JIT-compiles `fusion` (which must satisfy isLoopFusionSupported) into a
/// kernel named "jit.loop[op,op,...]".
absl::StatusOr<std::shared_ptr<const runtime::Kernel>>
createLoopFusionKernel(FusionOp fusion, const LoopKernelOptions &options = {});

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_LOOPKERNEL_H
