//===- Interpreter.h - tgc reference interpreter ----------------*- C++ -*-===//
//
// The reference interpreter: tgc's correctness oracle. It executes a
// func.func of tgc ops on host tensors with straightforward loops, following
// the op descriptions in dialects/TgcOps.td exactly. Every op rounds to its
// result dtype at its boundary (an f16 graph rounds to f16 after each op);
// reductions, contractions and normalization statistics accumulate in double
// (floats) or int64 (integers). Elementwise scalar semantics come from
// dialects/ScalarMath.h, shared with the folders.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_REFERENCE_INTERPRETER_H
#define TGC_CODEGEN_REFERENCE_INTERPRETER_H

#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"

#include "dialects/DTypeMapping.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <vector>

namespace tgc::reference {

/// Executes `func` (a func.func whose body holds tgc ops and func.return,
/// optionally func.call to other functions in the same module) on `inputs`
/// with straightforward loops and returns its results.
///
/// The inputs must match the function's argument types: same dtype and rank,
/// and every static dim equal. Dynamic dims are resolved from the actual
/// tensors, and every op result is checked against the static dims of its
/// declared type. Run-time errors (integer division by zero, an out-of-range
/// gather index, a reshape element-count mismatch, ...) are returned as an
/// llvm::Error whose message starts with the failing op's location and name,
/// e.g. `f.mlir:3:8: 'tgc.gather' op index 7 is out of range [-5, 5)`.
llvm::Expected<std::vector<runtime::HostTensor>>
runFunction(mlir::func::FuncOp func,
            llvm::ArrayRef<runtime::HostTensor> inputs);

/// Checks `inputs` against `func`'s argument types as runFunction does
/// (count, dtype, rank, static dims): an error located at the function,
/// e.g. `f.mlir:1:1: function 'f' argument #0 expects tensor<2x3xf32>, got
/// tensor<2x4xf32>`. Backends check call-time arguments with it.
llvm::Error checkArguments(mlir::func::FuncOp func,
                           llvm::ArrayRef<runtime::HostTensor> inputs);

/// Executes one tgc op on `operands` (their dtypes and shapes must fit the
/// op's operand types) and returns its result; the same kernels and checks
/// as runFunction. Backends use it for ops they do not implement.
llvm::Expected<runtime::HostTensor>
runOp(mlir::Operation *op,
      llvm::ArrayRef<const runtime::HostTensor *> operands);

/// Like runOp for an op with any number of results (topk, a multi-result
/// fusion): every result in order.
llvm::Expected<std::vector<runtime::HostTensor>>
runOpResults(mlir::Operation *op,
             llvm::ArrayRef<const runtime::HostTensor *> operands);

/// The runtime dtype of an MLIR element type, or nullopt for a type tgc
/// does not use.
using ::tgc::toDType;

/// The maximum depth of nested func.call; deeper calls are an error.
inline constexpr unsigned kMaxCallDepth = 64;

} // namespace tgc::reference

#endif // TGC_CODEGEN_REFERENCE_INTERPRETER_H
