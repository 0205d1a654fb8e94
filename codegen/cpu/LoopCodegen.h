//===- LoopCodegen.h - tgc.fusion <loop> to linalg and LLVM -----*- C++ -*-===//
//
// Code generation for `tgc.fusion <loop>` regions (formed by
// tgc-fuse-elementwise): the body becomes a function of linalg ops on
// tensors (linalg.generic with broadcasting indexing maps for elementwise
// ops, reduction iterators for reductions, permutation maps for transposes,
// tensor.collapse_shape/expand_shape for reshapes), linalg's elementwise
// fusion merges the generics, and the result is bufferized and lowered to
// the LLVM dialect (polynomial approximations of exp/tanh/erf/log so that
// the loops vectorize; LLVM's loop vectorizer and the host CPU's target
// machine do the rest when LoopKernel JIT-compiles it).
//
// The function takes one bare pointer per input and then one per result
// (static shapes, row-major).
//
// Links MLIR only (no runtime): tgc-opt uses it for
// tgc-lower-loop-fusions-to-linalg.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_LOOPCODEGEN_H
#define TGC_CODEGEN_CPU_LOOPCODEGEN_H

#include "dialects/TgcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <vector>

namespace tgc::cpu {

/// Whether the loop code generator compiles `fusion` into one kernel: it is
/// a loop fusion whose ops are all loop-fusable (tgc::isLoopFusable: f32,
/// static shapes) and whose results are distinct values computed inside.
bool isLoopFusionSupported(FusionOp fusion);

/// How a loop fusion splits into independent chunks along one dim (for
/// threads): "row" values have `dim` of size `size` at the same position,
/// all dims before it of size 1, and row r of every row result depends only
/// on row r of the row values; other values ("whole") are read entirely by
/// every chunk.
struct RowSplit {
  int64_t dim = 0;
  int64_t size = 0;
  /// The body values (block arguments and op results) that are rows.
  llvm::DenseSet<mlir::Value> rows;
  std::vector<bool> inputIsRow;
};

/// The split of `fusion` along the first dim of size > 1 of its first
/// result, if every result is a row value there; nullopt otherwise.
std::optional<RowSplit> analyzeRowSplit(FusionOp fusion);

/// Appends to `module` a function `name` of linalg ops on tensors computing
/// `fusion` (inputs as arguments, results returned). With `split` and
/// `rows` >= 0, row values have `rows` at the split dim (one chunk).
/// `module` may live in another context than `fusion`.
mlir::FailureOr<mlir::func::FuncOp>
buildLinalgFunction(FusionOp fusion, mlir::ModuleOp module,
                    llvm::StringRef name, const RowSplit *split = nullptr,
                    int64_t rows = -1);

/// Applies linalg's elementwise fusion (and reshape propagation) to the
/// functions in `module`.
mlir::LogicalResult fuseLinalgOps(mlir::ModuleOp module);

/// Tiles and vectorizes the linalg ops (on tensors) of the functions in
/// `module` for the host's vector registers: every op whose innermost loop
/// has a static size divisible by 8 (or at most `maxTile`) and which reads
/// and writes that dim contiguously (or broadcasts along it) is tiled by 1
/// along its outer dims and by up to `maxTile` elements along the innermost
/// one (scf::tileUsingSCF), and each tile becomes vector ops
/// (linalg::vectorize). An innermost reduction is tiled into a partial
/// reduction: a vector accumulator kept in registers across the row and one
/// vector.multi_reduction at its end. Ops that do not fit (transposed
/// accesses, several reduction dims, unit innermost dims, ragged sizes) are
/// left to convert-linalg-to-loops and LLVM's loop vectorizer. Returns the
/// number of ops vectorized.
mlir::FailureOr<int64_t> vectorizeLinalgOps(mlir::ModuleOp module,
                                            int64_t maxTile = 64);

/// Bufferizes `module` (results become out-parameters after the inputs) and
/// lowers it to the LLVM dialect with bare-pointer arguments. With
/// `noAlias`, arguments are marked llvm.noalias.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module, bool noAlias);

/// Dialects and interfaces (bufferization models, LLVM IR translation) the
/// lowering needs.
void registerLoopCodegenDialects(mlir::DialectRegistry &registry);

/// Registers tgc-lower-loop-fusions-to-linalg (tgc-opt).
void registerLoopCodegenPasses();

/// The op names of a fusion body for kernel names: "exp,reduce_sum,div".
std::string loopFusionOpList(FusionOp fusion);

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_LOOPCODEGEN_H
