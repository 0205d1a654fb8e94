//===- TensorIO.h - tensors for the tools: files, literals, random -*- C++
//-*-===//
//
// How tgc-run gets and shows tensors: .npy files, ONNX TensorProto .pb files
// and literals (`2x3xf32=1,2,...`, TensorLiteral.h), --input specs put in
// argument order (by position or by an ONNX model's input names), seeded
// random inputs for the rest, and the printed form of results.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_LIB_TENSORIO_H
#define TGC_TOOLS_LIB_TENSORIO_H

#include "frontend/onnx/OnnxImporter.h"
#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"
#include "tools/lib/AdaptDType.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tgc::tooling {

/// Reads a tensor from a .npy path, an ONNX TensorProto .pb path or an
/// inline literal (any spec with '=').
llvm::Expected<runtime::HostTensor> loadTensor(llvm::StringRef spec);

/// A random input of `type` (argument #`index`): floats in [-1, 1), integers
/// in [-10, 10], booleans; dynamic dims take `dynamicSize` (negative: an
/// error, "give it with --input").
llvm::Expected<runtime::HostTensor> randomTensor(mlir::RankedTensorType type,
                                                 unsigned index,
                                                 std::mt19937_64 &rng,
                                                 int64_t dynamicSize);

/// Prints "[1, 2, ...]": the first 64 elements, then the element count.
void printTensor(llvm::raw_ostream &os, const runtime::HostTensor &tensor);

/// Whether `prefix` (the text before '=' in an --input) is a literal's
/// shape and dtype, such as "2x3xf32" or "f32".
bool isLiteralType(llvm::StringRef prefix);

/// Puts --input specs in argument order: NAME=SPEC goes to the argument
/// called NAME, the others fill the remaining arguments in order. An empty
/// entry is an argument no --input gives. `what` names the function in
/// errors ("@f takes 2 arguments but 3 inputs were given").
llvm::Expected<std::vector<std::string>>
orderInputs(const std::vector<std::string> &specs,
            const std::vector<std::string> &names, llvm::StringRef what);

/// The names of `func`'s arguments (an imported ONNX model's input names,
/// kept as their locations); empty when they have none.
std::vector<std::string> argumentNames(mlir::func::FuncOp func);

struct InputOptions {
  /// --input specs (paths or literals, NAME=SPEC by input name).
  std::vector<std::string> inputs;
  /// Seed of the random inputs.
  uint64_t seed = 0;
  /// Size of dynamic dims in random inputs (negative: they need --input).
  int64_t dynamicSize = -1;
};

/// The inputs of `func`: given ones first, the rest random.
llvm::Expected<std::vector<runtime::HostTensor>>
makeInputs(mlir::func::FuncOp func, const InputOptions &options);

/// Reads the module a tool runs or compiles from `file`: an ONNX model
/// (imported; its function is `main`, and the given --input specs serve as
/// argument values where a node needs a constant: a Reshape's shape, ...)
/// or a .mlir file (size limits checked, then parsed into `sourceMgr`,
/// whose diagnostic handler reports parse errors with their locations).
/// An ONNX model's sequence and optional inputs are .pb files: `inputSpecs`
/// is then rewritten to the function's flattened arguments, in order
/// (expandStructuredSpecs).
/// `weightsInFile` is ImportOptions::weightsInFile for an ONNX model.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
loadSourceModule(mlir::MLIRContext &context, llvm::SourceMgr &sourceMgr,
                 const std::string &file, std::vector<std::string> &inputSpecs,
                 bool weightsInFile = true);

/// For an ONNX model's sequence and optional values: each spec whose
/// declared type (onnxModelValueTypes) is not a tensor names a .pb file, and
/// is replaced by one spec per tensor it holds ("PATH#TYPE#K", which
/// loadTensor reads), giving the value's structure. Other specs stay.
llvm::Expected<std::vector<std::string>>
expandStructuredSpecs(const std::vector<std::string> &specs,
                      const std::vector<std::string> &types,
                      std::vector<tgc::ValueStructure> *structures = nullptr);

/// The function called `name`, or without a name the first public one with
/// a body; null when there is none.
mlir::func::FuncOp findFunction(mlir::ModuleOp module, llvm::StringRef name);

/// One argument of a function known without its IR (a saved plan's
/// inputs): its name (may be empty), dtype and static shape.
struct ArgumentSpec {
  std::string name;
  runtime::DType dtype = runtime::DType::F32;
  std::vector<int64_t> shape;
};

/// makeInputs for a function given by its argument specs; `what` names it
/// in errors. The random inputs are those makeInputs makes for a function
/// of these types with the same seed.
llvm::Expected<std::vector<runtime::HostTensor>>
makeInputs(const std::vector<ArgumentSpec> &arguments, llvm::StringRef what,
           const InputOptions &options);

} // namespace tgc::tooling

#endif // TGC_TOOLS_LIB_TENSORIO_H
