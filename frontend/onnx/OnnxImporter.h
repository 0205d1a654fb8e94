//===- OnnxImporter.h - import ONNX models into tgc -------------*- C++ -*-===//
//
// Imports an ONNX model (a serialized onnx.ModelProto, ONNX 1.12 through
// Debian's libonnx-dev) into a module holding one func.func of tgc ops:
//
// - the protobuf is parsed (truncated or garbage input is an error), checked
//   with onnx::checker::check_model, shapes are inferred with
//   onnx::shape_inference::InferShapes, and models older than the oldest
//   opset the importer maps directly are converted with
//   onnx::version_conversion;
// - initializers become tgc.constant, graph inputs that are not initializers
//   become function arguments (symbolic dim params and unknown dims become
//   dynamic dims), graph outputs become the returned values;
// - each node is mapped to tgc ops; attributes are validated; nodes whose
//   inputs are all constants are folded (evaluated with the reference
//   interpreter) so that shape computations (Shape -> Gather -> Concat ->
//   Reshape) end up as constants;
// - tensors with external data are read from files next to the model, with
//   path safety: relative locations only, no `..`, no symlinks out of the
//   model's directory, offset and length checked against the file.
//
// Every error names what it is about: the node (its name, or its index when
// it has none), its op type and opset; the initializer; the input. ONNX
// reports problems by throwing: the library catches everything at its
// boundary, so callers never see an exception.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_ONNX_ONNXIMPORTER_H
#define TGC_FRONTEND_ONNX_ONNXIMPORTER_H

#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace tgc {

/// The structure of an ONNX value: a tensor, a sequence of values (ONNX
/// seq(tensor)) or an optional value (present or not). tgc functions take and
/// give tensors only: a model whose inputs or outputs are sequences or
/// optionals is imported for one structure of each, as tf.function traces a
/// Python list per length. A sequence of n tensors is passed as n arguments
/// (results), an optional as its element's or as none, depth first.
struct ValueStructure {
  enum class Kind { Tensor, Sequence, Optional };
  Kind kind = Kind::Tensor;
  /// A sequence's elements; an optional's one element, or none when it holds
  /// nothing.
  std::vector<ValueStructure> elements;

  static ValueStructure tensor() { return {}; }
  static ValueStructure sequence(std::vector<ValueStructure> elements) {
    return {Kind::Sequence, std::move(elements)};
  }
  static ValueStructure optional(std::optional<ValueStructure> element) {
    ValueStructure s{Kind::Optional, {}};
    if (element)
      s.elements.push_back(std::move(*element));
    return s;
  }
  /// The tensors the value flattens to.
  int64_t numTensors() const;
  /// "tensor", "seq[tensor,tensor]", "optional[]", "optional[seq[]]".
  std::string str() const;
  /// The inverse of str(); an error names what is malformed.
  static llvm::Expected<ValueStructure> parse(llvm::StringRef text);
  bool operator==(const ValueStructure &other) const = default;
};

/// A value of the ONNX test data (a serialized TensorProto, SequenceProto or
/// OptionalProto): its structure and its tensors, flattened depth first.
struct OnnxValue {
  ValueStructure structure;
  std::vector<runtime::HostTensor> tensors;
};

/// The function attribute holding the structure (ValueStructure::str()) of
/// each graph input and output, as an array of strings, on an imported
/// function some of whose inputs or outputs are not tensors.
inline constexpr const char *kOnnxInputStructuresAttr =
    "tgc.onnx.input_structures";
inline constexpr const char *kOnnxOutputStructuresAttr =
    "tgc.onnx.output_structures";

struct ImportOptions {
  /// The name of the imported func.func.
  std::string functionName = "main";
  /// Run onnx::checker::check_model first.
  bool runChecker = true;
  /// Run onnx::shape_inference::InferShapes (lenient: node-level problems are
  /// reported by the importer, naming the node).
  bool runShapeInference = true;
  /// Fold nodes whose inputs are all constants into constants.
  bool foldConstants = true;
  /// Constant folding leaves results with more elements than this alone.
  int64_t maxFoldedElements = 1 << 20;
  /// Where external data files live when importing from bytes (importing
  /// from a path uses the model's directory). Empty: external data is an
  /// error.
  std::string modelDirectory;
  /// The name used in locations and messages when importing from bytes.
  std::string modelName = "<onnx>";
  /// Importing from a path: the main graph's large initializers (64 KiB and
  /// up) stay in the model file, which is kept open and mapped, as
  /// file-backed constants (dense_resource; dialects/ConstantData.h): the
  /// IR holds no copy, and a compiled plan holds the weights once. False:
  /// every initializer is copied into the IR (the file may then change or
  /// go once imported).
  bool weightsInFile = true;
  /// Values of the function's arguments (graph inputs that are not
  /// initializers, in order), where known. They are used only where a node
  /// needs a constant (a Reshape's shape, Slice's starts, ReduceSum's axes,
  /// ...): the function keeps every argument, but is specialized on these
  /// values and must be called with them. tgc-run passes its --input tensors
  /// here, as ONNX's test data feeds such operands as graph inputs.
  std::vector<std::optional<runtime::HostTensor>> argumentValues;
  /// The structure of each graph input that is not an initializer, in order,
  /// where it is not a tensor: a sequence input needs its length (and its
  /// elements' structures), an optional input whether it holds a value.
  /// argumentValues then lists the flattened arguments.
  std::vector<std::optional<ValueStructure>> inputStructures;
  /// Shapes of the function's arguments (indexed as argumentValues), where
  /// given: a dim the model leaves dynamic takes the given size (kDynamic
  /// entries leave it dynamic), so that the
  /// imported function serves only these shapes (ONNX Runtime's free
  /// dimension overrides, OpenVINO's reshape). Some ops need a static dim
  /// (a recurrence is unrolled over its sequence length); a model whose
  /// import fails for a dynamic dim imports with them. A given rank or
  /// static dim that differs from the model's is an error.
  std::vector<std::optional<std::vector<int64_t>>> argumentShapes;
};

/// Errors for valid models that use something tgc does not support (an op, an
/// attribute value, an element type, a dynamic operand where tgc needs a
/// constant) carry this error code (Error::convertToErrorCode); malformed
/// models and bugs carry others. The conformance runner counts the former as
/// "unsupported", the latter as failures.
inline std::error_code unsupportedErrorCode() {
  return std::make_error_code(std::errc::not_supported);
}

/// The op types of the model's main graph, in first-use order (for reports).
llvm::Expected<std::vector<std::string>> onnxModelOpTypes(llvm::StringRef path);

/// Imports the ONNX model at `path`. The context gets the dialects it needs
/// loaded.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModel(mlir::MLIRContext &context, llvm::StringRef path,
                const ImportOptions &options = {});

/// Imports a serialized onnx.ModelProto.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModelFromBytes(mlir::MLIRContext &context, llvm::StringRef bytes,
                         const ImportOptions &options = {});

/// Reads a serialized onnx.TensorProto (the `.pb` files of the ONNX test
/// data) into a host tensor. Element types tgc does not support are an
/// error naming them.
llvm::Expected<runtime::HostTensor> readTensorProto(llvm::StringRef path);

/// The declared types of a model's inputs (graph inputs that are not
/// initializers) and outputs: "tensor", "seq(T)" or "optional(T)" with T
/// again such a type.
struct OnnxValueTypes {
  std::vector<std::string> inputs, outputs;
};
llvm::Expected<OnnxValueTypes> onnxModelValueTypes(llvm::StringRef path);

/// Reads a serialized onnx.TensorProto, SequenceProto or OptionalProto,
/// whichever `type` (as onnxModelValueTypes gives it) says the file holds.
llvm::Expected<OnnxValue> readValueProto(llvm::StringRef path,
                                         llvm::StringRef type);

/// Whether `path` names an ONNX model: it ends with .onnx, or (unless it
/// ends with .mlir) its contents start as a serialized ModelProto does.
bool isOnnxModelPath(llvm::StringRef path);

/// The names of the model's inputs: graph inputs that are not
/// initializers, in order (the imported function's arguments).
llvm::Expected<std::vector<std::string>>
onnxModelInputNames(llvm::StringRef path);

} // namespace tgc

#endif // TGC_FRONTEND_ONNX_ONNXIMPORTER_H
