//===- Staged.h - functions with data-dependent shapes, in stages -*- C++
//-*-===//
//
// A function holding an op whose result shape depends on values
// (OpTrait::DataDependentShape: tgc.nonzero) cannot be planned whole for its
// input shapes. compileStaged splits it at the first such op:
//
//   stage 1  the ops before it, compiled by the backend for the input
//            shapes; it returns the op's operands and every earlier value
//            used after it;
//   the op   run on the host (runtime/DataDependent.h), its result
//            allocated at run time;
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

/// The first top-level op of `func` whose result shape depends on values,
/// or null.
mlir::Operation *firstDataDependentOp(mlir::func::FuncOp func);

/// Whether `func` holds a data-dependent op anywhere (in regions too).
bool hasDataDependentOps(mlir::func::FuncOp func);

/// Compiles `func` (which holds a data-dependent op) in stages on `backend`.
/// Errors: those of specializing `func` and compiling stage 1; a
/// data-dependent op inside a region (a branch or loop body) is an
/// UnsupportedError at its location.
llvm::Expected<std::unique_ptr<CompiledFunction>>
compileStaged(const Backend &backend, mlir::func::FuncOp func,
              llvm::ArrayRef<std::vector<int64_t>> inputShapes,
              const BackendOptions &options);

} // namespace tgc::codegen

#endif // TGC_CODEGEN_STAGED_H
