//===- Specialize.h - a function specialized for concrete shapes -*- C++
//-*-===//
//
// What every backend compiler does first: clone the function (with its
// module, so calls can be inlined), inline its calls, give each argument its
// concrete shape, propagate shapes (tgc-infer-shapes) and fold the shape
// arithmetic of imported models (tgc.shape_of, tgc.dynamic_reshape) away;
// then run the backend's named pipeline. Errors carry the first diagnostic
// with its location (DiagnosticCapture), the same for every backend.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_PASSES_SPECIALIZE_H
#define TGC_PASSES_SPECIALIZE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace tgc {

/// Records the first error diagnostic emitted in `context` while it lives,
/// as "file:line:col: message" (locationString). Every compile step that
/// turns diagnostics into an llvm::Error uses it, so the user's location is
/// never dropped.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext *context);
  /// The first error with its location, or empty.
  const std::string &first() const { return firstError; }
  /// The first error's message alone (callers that add the location
  /// themselves).
  const std::string &firstMessage() const { return firstText; }
  bool empty() const { return firstError.empty(); }
  /// The first error if there was one, else `fallback`, as an llvm::Error.
  llvm::Error error(const llvm::Twine &fallback) const;

private:
  std::string firstError, firstText;
  mlir::ScopedDiagnosticHandler handler;
};

/// Returns a module holding only the specialized, verified, public copy of
/// `func` (same name) for arguments of exactly `shapes` (dynamic dims take
/// these sizes; static ones must match). `func` is not modified. Errors
/// carry the first diagnostic with its location, else say what does not fit
/// (argument count, an argument's shape, calls that cannot be inlined).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
specializeForShapes(mlir::func::FuncOp func,
                    llvm::ArrayRef<std::vector<int64_t>> shapes);

/// specializeForShapes, then the pipeline `buildPipeline` adds (the
/// backend's named pipeline), with the pass-manager command-line options of
/// the tool that registered them (--mlir-print-ir-after-all and friends).
/// A failing pipeline is an error with its first diagnostic, else "the
/// <pipelineName> pipeline failed on '<function>'".
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> specializeAndLower(
    mlir::func::FuncOp func, llvm::ArrayRef<std::vector<int64_t>> shapes,
    llvm::StringRef pipelineName,
    llvm::function_ref<void(mlir::OpPassManager &)> buildPipeline);

/// "file:line:col" of a location (the first file location inside name and
/// fused locations), or its printed form.
std::string locationString(mlir::Location loc);

} // namespace tgc

#endif // TGC_PASSES_SPECIALIZE_H
