//===- Passes.h - the CUDA backend's passes ---------------------*- C++ -*-===//
//
// Declarations generated from codegen/cuda/Passes.td: a create function per
// pass and registerTgcCudaPasses().
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CUDA_PASSES_H
#define TGC_CODEGEN_CUDA_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace tgc::cuda {

#define GEN_PASS_DECL
#include "codegen/cuda/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/cuda/Passes.h.inc"

} // namespace tgc::cuda

#endif // TGC_CODEGEN_CUDA_PASSES_H
