//===- KernelGen.h - tgc.fusion <loop> regions to CUDA C++ ------*- C++ -*-===//
//
// The CUDA backend generates CUDA C++ for fusion regions and compiles it
// with NVRTC (Nvrtc.h); docs/cuda-backend.md explains why NVRTC rather than
// MLIR's GPU/NVVM path.
//
// A `tgc.fusion <loop>` whose body is elementwise ops, broadcasts,
// transposes and reshapes over f32 tensors of static shapes becomes one
// kernel: one thread per output element in a grid-stride loop. Each thread
// turns its linear index into an index of the output shape and computes
// every body value at the index it needs: broadcasting projects the index
// (size-1 dims read index 0), a transpose permutes it, a reshape goes
// through the linear index. Values are computed once per (value, index)
// and kept in registers; math uses the CUDA math library (expf, tanhf,
// erff, ...; no fast-math flags, so results track the reference within
// f32 rounding).
//
// A region with reductions over the innermost axes (softmax, layer norm,
// reduce_* over rows) becomes a row kernel: one block per row of the first
// reduction's operand. Each reduction is a loop of the block's threads over
// the row followed by a block-wide reduction (warp shuffles, then shared
// memory); values that do not vary along the row (the reductions' results
// and what is computed from them) are computed once per row; results are
// stored per element (one more loop over the row) or per row.
//
// Everything else runs one thread per output element: reductions over
// other axes (and integer reductions) are loops of the thread over the
// reduced dims, argmax/argmin a loop along the axis, pools a loop over the
// window (NCHW or NHWC, padding, dilations, ceil_mode, count_include_pad as
// the reference interpreter), slice / pad / concat / gather index maps
// (pad and concat branches read their input only where it is in range;
// gather indices wrap when negative and are clamped when out of range).
// softmax, log_softmax, layer_norm and batch_norm are spelled out into
// reductions and elementwise ops first (row kernels over the last axes).
//
// Element types: f32; f16 and bf16 (stored as 16-bit encodings, computed
// in f32, rounded to nearest even); i1 (one byte, computed as bool); i8..i64
// and ui8..ui64 (wrapping add/sub/mul/neg/abs/max/min/relu/sign, reductions,
// data movement); tgc.cast, compare, select and the logical ops between
// them. Not supported (an error on the offending op): f64, integer
// div/pow/clamp, multi-result ops (topk), scatters, contractions, dynamic
// shapes.
//
// Links MLIR only (no runtime, no CUDA library).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CUDA_KERNELGEN_H
#define TGC_CODEGEN_CUDA_KERNELGEN_H

#include "dialects/TgcOps.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace tgc::cuda {

/// The launch configuration used for a grid-stride kernel over n elements.
struct LaunchConfig {
  unsigned grid = 1;
  unsigned block = 256;
};
LaunchConfig launchConfigFor(int64_t numElements);
/// The launch configuration of a row kernel: one block per row (up to
/// 65535, then a grid-stride loop over rows), 32 to 256 threads per block.
LaunchConfig rowLaunchConfigFor(int64_t rows, int64_t rowLength);

struct GeneratedKernel {
  /// The extern "C" entry point.
  std::string name;
  /// The kernel's code (without the prelude): a __global__ function taking
  /// a `const T *` per fusion operand, then a `T *` per result, T the
  /// storage type of the element type (float; unsigned short for f16/bf16;
  /// unsigned char for i1; the C integer type of the width otherwise).
  std::string code;
  /// The iteration domain: the shape every result has.
  std::vector<int64_t> shape;
  int64_t numElements = 0;
  LaunchConfig launch;
  /// "add,tanh,mul".
  std::string opList;
  /// Row kernels (regions with reductions): `shape` is the shape of the
  /// rows (the first reduction's operand), `rows` blocks each reduce
  /// `rowLength` elements. 0 for grid-stride elementwise kernels.
  int64_t rows = 0;
  int64_t rowLength = 0;
  /// Run-time checks (a gather index in range), by the id the kernel
  /// reports. A kernel with checks takes one more parameter after its
  /// results, `unsigned long long *tgc_status`: two words {id + 1, value}
  /// that the first failing check sets (see cuda::KernelImage::checks).
  struct Check {
    mlir::Location loc;
    /// "'tgc.gather' op index %v is out of range [-5, 5)".
    std::string message;
  };
  std::vector<Check> checks;
};

/// Helper device functions every kernel may call (NaN-propagating max/min,
/// relu, sign).
const std::string &kernelPrelude();

/// A self-contained translation unit: the prelude and `kernel`.
std::string kernelSource(const GeneratedKernel &kernel);

/// Generates the kernel for `fusion`, named `name` (a C identifier). On
/// failure an error is emitted on the op (or fusion) that is not supported.
mlir::FailureOr<GeneratedKernel> generateLoopKernel(FusionOp fusion,
                                                    llvm::StringRef name);

/// Whether `op` (not loop-fusable: see tgc::isLoopFusable) still has a
/// generated kernel of its own (pools, gather, slice, pad, concat, outer
/// reductions, argmax, softmax, non-f32 types, ...): the CUDA compiler
/// wraps such ops in a one-op `tgc.fusion <loop>` and calls
/// generateLoopKernel on it. Exactly the ops for which that succeeds: it
/// generates the kernel of a detached one-op fusion (diagnostics
/// swallowed); the IR is left unchanged.
bool hasStandaloneKernel(mlir::Operation *op);

struct GeneratedModule {
  std::vector<GeneratedKernel> kernels;
  /// One translation unit: the prelude and every kernel.
  std::string source;
};

/// Every `tgc.fusion <loop>` of every function in `module`, in order; the
/// kernels are named tgc_<function>_<i>. Contraction fusions and ops outside
/// fusions are not kernels of this generator and are skipped.
mlir::FailureOr<GeneratedModule> generateModuleKernels(mlir::ModuleOp module);

} // namespace tgc::cuda

#endif // TGC_CODEGEN_CUDA_KERNELGEN_H
