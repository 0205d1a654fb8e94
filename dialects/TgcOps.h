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

/// Op categories, one trait each, so that passes and backends ask the op
/// (tgc::isElementwise(op)) instead of keeping their own lists.

/// Each result element is computed from the operand elements at the same
/// (numpy-broadcast) index, so a permutation of every operand commutes with
/// the op. MLIR's own Elementwise trait requires operands of the result's
/// shape; tgc's binary ops broadcast, so they carry this one.
template <typename ConcreteType>
class BroadcastingElementwise
    : public mlir::OpTrait::TraitBase<ConcreteType, BroadcastingElementwise> {};

/// The result holds the operand's elements in the same order in another
/// shape: every backend runs it as a view of the operand's buffer.
template <typename ConcreteType>
class ShapeView : public mlir::OpTrait::TraitBase<ConcreteType, ShapeView> {};

/// Reduces its one operand over the dims its `axes` attribute lists.
template <typename ConcreteType>
class AxisReduction
    : public mlir::OpTrait::TraitBase<ConcreteType, AxisReduction> {};

/// A contraction the backends run on a library call with fused post-ops
/// (oneDNN, cuBLASLt, cuDNN): matmul and convolution.
template <typename ConcreteType>
class Contraction : public mlir::OpTrait::TraitBase<ConcreteType, Contraction> {
};

/// A result's shape depends on the operands' values, not only on their
/// shapes (nonzero): known only when the op runs.
template <typename ConcreteType>
class DataDependentShape
    : public mlir::OpTrait::TraitBase<ConcreteType, DataDependentShape> {};

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

namespace tgc {

/// Whether `op` is a tgc elementwise op (OpTrait::BroadcastingElementwise).
inline bool isElementwise(mlir::Operation *op) {
  return op->hasTrait<OpTrait::BroadcastingElementwise>();
}
/// Whether `op` only views its operand in another shape (OpTrait::ShapeView:
/// reshape, squeeze, unsqueeze).
inline bool isShapeView(mlir::Operation *op) {
  return op->hasTrait<OpTrait::ShapeView>();
}
/// Whether `op` reduces over axes (OpTrait::AxisReduction: reduce_*).
inline bool isReduction(mlir::Operation *op) {
  return op->hasTrait<OpTrait::AxisReduction>();
}
/// Whether `op` is a contraction (OpTrait::Contraction: matmul, conv2d).
inline bool isContraction(mlir::Operation *op) {
  return op->hasTrait<OpTrait::Contraction>();
}
/// Whether a result shape of `op` depends on its operands' values
/// (OpTrait::DataDependentShape: nonzero).
inline bool hasDataDependentShape(mlir::Operation *op) {
  return op->hasTrait<OpTrait::DataDependentShape>();
}

/// The elements of a small static 0-D or 1-D integer tensor `value` (a
/// shape computed by the function) that are known before it runs, in
/// order, with nullopt for an element known only when it runs; none when
/// nothing can be said (not such a tensor, or built by ops this does not
/// follow). Follows constants, tgc.shape_of (the input's static dims),
/// tgc.concat, tgc.gather at constant positions, tgc.slice, tgc.cast to an
/// integer type, and the shape views: ONNX's shape arithmetic (Shape,
/// Gather, Unsqueeze, Concat) ahead of ConstantOfShape, Expand or Reshape.
std::optional<llvm::SmallVector<std::optional<int64_t>>>
knownIntElements(mlir::Value value);

} // namespace tgc

#endif // TGC_DIALECTS_TGCOPS_H
