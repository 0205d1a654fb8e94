//===- TgcOps.h - tgc dialect operations ------------------------*- C++ -*-===//

#ifndef TGC_DIALECTS_TGCOPS_H
#define TGC_DIALECTS_TGCOPS_H

#include "dialects/TgcDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tgc {
namespace OpTrait {

/// Verifies that every ranked tensor an op touches has a well-formed shape:
/// static dims are non-negative and their product fits in int64.
mlir::LogicalResult verifyValidShapes(mlir::Operation *op);

template <typename ConcreteType>
class ValidShapes : public mlir::OpTrait::TraitBase<ConcreteType, ValidShapes> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyValidShapes(op);
  }
};

} // namespace OpTrait

/// Returns true when two lists of types are tensor types that could describe
/// the same runtime values: same element type and rank, and every pair of
/// dims equal or one of them dynamic.
bool areCompatibleTensorTypes(mlir::TypeRange lhs, mlir::TypeRange rhs);

/// Why reshaping `in` to `out` can never succeed (element counts that cannot
/// agree, an ambiguous dynamic dim), or nullopt when it may.
std::optional<std::string> reshapeCountMismatch(mlir::RankedTensorType in,
                                                mlir::RankedTensorType out);

} // namespace tgc

#define GET_OP_CLASSES
#include "dialects/TgcOps.h.inc"

#endif // TGC_DIALECTS_TGCOPS_H
