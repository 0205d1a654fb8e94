//===- DTypeMapping.h - runtime dtypes <-> MLIR element types ---*- C++ -*-===//
//
// The one mapping between tgc's dtypes (include/tgc/DType.h) and MLIR
// element types: f16, bf16, f32, f64, i1, signless i8/i16/i32/i64 and
// unsigned ui8/ui16/ui32/ui64. The tracer, the importer, the interpreter
// and the backends all use it.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECTS_DTYPEMAPPING_H
#define TGC_DIALECTS_DTYPEMAPPING_H

#include "tgc/DType.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"

#include <optional>
#include <string>

namespace tgc {

/// The MLIR element type of a dtype.
mlir::Type toElementType(runtime::DType dtype, mlir::MLIRContext &context);

/// The dtype of an MLIR element type, or nullopt for a type tgc does not use
/// (signed-explicit integers, other widths, other float formats).
std::optional<runtime::DType> toDType(mlir::Type elementType);

/// `type` as MLIR prints it ("tensor<2x?xf32>"), for diagnostics.
std::string typeString(mlir::Type type);

} // namespace tgc

#endif // TGC_DIALECTS_DTYPEMAPPING_H
