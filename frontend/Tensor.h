//===- Tensor.h - symbolic tensors inside the compiler ----------*- C++ -*-===//
//
// Internal to the frontend and the ONNX importer: what a public tgc::Tensor
// (include/tgc/Tensor.h, a handle) stands for in the trace's IR, and the
// mappings between the public enums and dtypes and their MLIR forms.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_TENSOR_H
#define TGC_FRONTEND_TENSOR_H

#include "tgc/AbslStatus.h"
#include "tgc/Tensor.h"

#include "dialects/DTypeMapping.h"
#include "dialects/TgcDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace tgc {

namespace detail {
/// Makes tensors from IR values and reads them back.
struct TensorAccess {
  static Tensor make(mlir::Value value, uint64_t traceId);
  static Tensor poisoned(uint64_t traceId);
  static uint64_t traceId(const Tensor &tensor);
  static mlir::Value value(const Tensor &tensor) {
    return mlir::Value::getFromOpaquePointer(tensor.val);
  }
  static mlir::RankedTensorType type(const Tensor &tensor) {
    return tensor.ty ? mlir::cast<mlir::RankedTensorType>(
                           mlir::Type::getFromOpaquePointer(tensor.ty))
                     : mlir::RankedTensorType();
  }
};
} // namespace detail

/// The SSA value of a tensor (null when invalid). Only valid while the module
/// of the trace that produced it lives.
inline mlir::Value valueOf(const Tensor &tensor) {
  return detail::TensorAccess::value(tensor);
}
/// The MLIR type of a tensor (null when invalid). Lives as long as the
/// MLIRContext.
inline mlir::RankedTensorType typeOf(const Tensor &tensor) {
  return detail::TensorAccess::type(tensor);
}

// toElementType / toDType: dialects/DTypeMapping.h.

/// The public enums and their dialect counterparts (same values).
inline ir::Layout toIR(Layout layout) {
  return static_cast<ir::Layout>(layout);
}
inline ir::ComparePredicate toIR(ComparePredicate predicate) {
  return static_cast<ir::ComparePredicate>(predicate);
}

} // namespace tgc

#endif // TGC_FRONTEND_TENSOR_H
