//===- Staged.h - functions with data-dependent shapes, in stages -*- C++
//-*-===//
//
// A function holding an op whose result shape depends on values
// (OpTrait::DataDependentShape: tgc.nonzero) cannot be planned whole for its
// input shapes; on a backend that does not compile regions (CUDA), neither
// can one holding control flow. compileStaged splits it at the first such
// op:
//
//   stage 1  the ops before it, compiled by the backend for the input
//            shapes; it returns the op's operands and every earlier value
//            used after it;
//   the op   run on the host: a data-dependent op by its kernel
//            (runtime/DataDependent.h), its result allocated at run time;
//            control flow as a function of its own compiled by the "cpu"
//            backend for its operands' shapes;
//   stage 2  the ops after it, compiled by the backend when a call first
//            brings its argument shapes (the op's result and the values
//            carried over), and kept per shape; a later data-dependent op
//            in it splits it again.
//
// The CPU and CUDA backends' compiles call it for such functions, so clients
// see one CompiledFunction (describe() prints the stages). A staged function
// saves no artifact, and on CUDA runs on host tensors only (no
// deviceExecutable()).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_STAGED_H
#define TGC_CODEGEN_STAGED_H

#include "codegen/Backend.h"

namespace tgc::codegen {

/// Which ops a function is split at.
enum class StageSplit {
  /// Ops whose result shape depends on values, run by host kernels.
  DataDependent,
  /// Those, and control flow (tgc.if, tgc.while), which runs whole on the
  /// "cpu" backend: for backends that do not compile regions (CUDA).
  DataDependentAndControlFlow,
};

/// The first top-level op of `func` to split at, or null.
mlir::Operation *firstSplitOp(mlir::func::FuncOp func,
                              StageSplit split = StageSplit::DataDependent);

/// Whether `func` holds an op to split at anywhere (in regions too).
bool needsStages(mlir::func::FuncOp func,
                 StageSplit split = StageSplit::DataDependent);

/// Compiles `func` (which needsStages) in stages on `backend`. Errors: those
/// of specializing `func` and compiling stage 1; a data-dependent op inside
/// a region (a branch or loop body) is an UnsupportedError at its location.
llvm::Expected<std::unique_ptr<CompiledFunction>>
compileStaged(const Backend &backend, mlir::func::FuncOp func,
              llvm::ArrayRef<std::vector<int64_t>> inputShapes,
              const BackendOptions &options,
              StageSplit split = StageSplit::DataDependent);

} // namespace tgc::codegen

#endif // TGC_CODEGEN_STAGED_H
