//===- FusionBuilder.h - building tgc.fusion regions ------------*- C++ -*-===//
//
// The one way tgc wraps ops into a `tgc.fusion`: the loop fusion pass, the
// post-op fusion patterns, the CUDA pipeline's chain trimming and
// single-op wrapping, and the CUDA kernel generator's probe all build their
// fusions here.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECTS_FUSIONBUILDER_H
#define TGC_DIALECTS_FUSIONBUILDER_H

#include "dialects/TgcOps.h"

#include "mlir/IR/Builders.h"

namespace tgc {

/// Builds a `tgc.fusion` of `kind` at the builder's insertion point (a
/// detached op when the builder has none). Its body has one argument per
/// input (a value repeated in `inputs` gets an argument of its own; uses map
/// to the first), then clones of `ops` in order, then a `tgc.yield` of
/// `results` (values defined by `ops`). An operand of `ops` that is neither
/// an input nor defined by an earlier op of `ops` must come from a
/// `tgc.constant`, which is cloned into the body. The original ops are left
/// in place; uses are not replaced. Block and op creation go through
/// `builder`, so a rewriter's listener sees them.
/// `readAs`, when given, names the value the ops read for each input (ops
/// taken from another fusion's body read its block values, not the
/// operands of the new fusion).
FusionOp buildFusion(mlir::OpBuilder &builder, mlir::Location loc,
                     FusionKind kind, mlir::ValueRange inputs,
                     llvm::ArrayRef<mlir::Operation *> ops,
                     mlir::ValueRange results, mlir::ValueRange readAs = {});

/// A `tgc.fusion` of `kind` computing `op` alone over its distinct operands,
/// built at the builder's insertion point (uses not replaced).
FusionOp buildSingleOpFusion(mlir::OpBuilder &builder, mlir::Operation *op,
                             FusionKind kind);

/// Replaces `op` by a one-op `tgc.fusion` of `kind` built just before it.
FusionOp wrapInFusion(mlir::Operation *op, FusionKind kind = FusionKind::loop);

} // namespace tgc

#endif // TGC_DIALECTS_FUSIONBUILDER_H
