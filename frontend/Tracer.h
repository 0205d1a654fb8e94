//===- Tracer.h - record a C++ function into a func.func --------*- C++ -*-===//
//
// The Tracer runs a user's C++ function on symbolic Tensors and records every
// op it calls into a `func.func` of tgc ops, each op carrying the user's
// file:line:col. Errors (an op that failed to trace, returning a poisoned or
// foreign tensor) come back as one llvm::Error for the whole trace, formatted
// "file:line:col: error: <message>", where the message is the dialect's
// verifier or inference message ("'tgc.add' op operand shapes 2x3, 4x3 are not
// broadcast-compatible"). Only the first error is reported: ops on the
// poisoned results of a failed op do not report again. Bad user input never
// crashes or asserts.
//
// One Tracer may trace many functions, one after the other or concurrently
// from several threads (each trace is independent; the MLIRContext must have
// its dialects loaded beforehand and multithreading enabled, as MLIR requires
// for concurrent use). Traces may nest (a body may trace another function);
// tensors never cross traces.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_TRACER_H
#define TGC_FRONTEND_TRACER_H

#include "frontend/Tensor.h"
#include "tgc/AbslStatus.h"
#include "tgc/DType.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <source_location>
#include <string>
#include <vector>

namespace tgc {

/// The type of one argument of a traced function.
struct ArgSpec {
  runtime::DType dtype = runtime::DType::F32;
  /// Static dims (>= 0) or kDynamic.
  std::vector<int64_t> shape;
};

/// A traced function: a module holding one public func.func.
struct TracedModule {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
};

/// Prints `op` (a module or function) in MLIR's textual form. With
/// `withLocations` every op carries `loc("file":line:col)` inline.
std::string printOp(mlir::Operation *op, bool withLocations = false);

class Tracer {
public:
  /// `context` must outlive the tracer and the modules it produces, and have
  /// the dialects loaded (see loadDialects).
  explicit Tracer(mlir::MLIRContext &context);

  /// Loads the dialects traced functions use (tgc, func, tensor).
  static void loadDialects(mlir::MLIRContext &context);

  mlir::MLIRContext &getContext() const { return context; }

  /// Creates a module with one func.func @name taking `args`, calls `body`
  /// with one symbolic Tensor per argument, and returns the function with a
  /// func.return of the returned tensors. `loc` (the caller's location by
  /// default) is the location of the module, the function, its arguments and
  /// the return; errors about the returned tensors are reported there.
  llvm::Expected<TracedModule>
  trace(llvm::StringRef name, llvm::ArrayRef<ArgSpec> args,
        llvm::function_ref<std::vector<Tensor>(llvm::ArrayRef<Tensor>)> body,
        std::source_location loc = std::source_location::current());

  /// The tracer whose trace is active on this thread (the innermost one when
  /// traces nest), or null outside tracing.
  static Tracer *current();

private:
  mlir::MLIRContext &context;
};

} // namespace tgc

#endif // TGC_FRONTEND_TRACER_H
