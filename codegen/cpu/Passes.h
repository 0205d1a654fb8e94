//===- Passes.h - the CPU backend's passes ----------------------*- C++ -*-===//
//
// Declarations generated from codegen/cpu/Passes.td: a create function and
// an options struct per pass, and registerTgcCpuPasses().
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_PASSES_H
#define TGC_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tgc::cpu {

#define GEN_PASS_DECL
#include "codegen/cpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/cpu/Passes.h.inc"

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_PASSES_H
