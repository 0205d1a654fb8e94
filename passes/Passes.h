//===- Passes.h - tgc passes and pipelines ----------------------*- C++ -*-===//

#ifndef TGC_PASSES_PASSES_H
#define TGC_PASSES_PASSES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tgc {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// Refines the result types of the tgc ops in `root` from their operands.
/// Returns the number of results refined.
int64_t inferShapes(mlir::Operation *root);

/// Appends the tgc cleanup pipeline (canonicalize, CSE, shape refinement) to
/// `pm`, which must be anchored on builtin.module.
void buildCleanupPipeline(mlir::OpPassManager &pm);

/// Registers the named tgc pass pipelines (tgc-cleanup).
void registerTgcPipelines();

} // namespace tgc

#endif // TGC_PASSES_PASSES_H
