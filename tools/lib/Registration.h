//===- Registration.h - dialects and passes seen by tgc tools ---*- C++ -*-===//

#ifndef TGC_TOOLS_LIB_REGISTRATION_H
#define TGC_TOOLS_LIB_REGISTRATION_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tgc {

/// Adds the tgc dialect and the upstream dialects tgc uses (func, arith,
/// tensor, math, linalg, scf, cf, memref, bufferization, vector, affine,
/// LLVM) with their interface extensions.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every tgc pass and pipeline plus the upstream passes tgc uses.
void registerAllPasses();

} // namespace tgc

#endif // TGC_TOOLS_LIB_REGISTRATION_H
