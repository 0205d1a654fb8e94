//===- Specialize.h - a function specialized for concrete shapes -*- C++
//-*-===//
//
// What every backend compiler does first: clone the function (with its
// module, so calls can be inlined), inline its calls, give each argument its
// concrete shape, propagate shapes (tgc-infer-shapes) and fold the shape
// arithmetic of imported models (tgc.shape_of, tgc.dynamic_reshape) away.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_PASSES_SPECIALIZE_H
#define TGC_PASSES_SPECIALIZE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgc {

/// Returns a module holding only the specialized, verified, public copy of
/// `func` (same name) for arguments of exactly `shapes` (dynamic dims take
/// these sizes; static ones must match). `func` is not modified. Errors
/// carry the first diagnostic with its location, else say what does not fit
/// (argument count, an argument's shape, calls that cannot be inlined).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
specializeForShapes(mlir::func::FuncOp func,
                    llvm::ArrayRef<std::vector<int64_t>> shapes);

/// "file:line:col" of a location (the first file location inside name and
/// fused locations), or its printed form.
std::string locationString(mlir::Location loc);

} // namespace tgc

#endif // TGC_PASSES_SPECIALIZE_H
