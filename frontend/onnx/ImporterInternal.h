//===- ImporterInternal.h - the ONNX importer and its converters -*- C++
//-*-===//
//
// Internal to frontend/onnx: the Importer (the graph walk's state, and what a
// converter uses to read the node being imported and to produce its outputs)
// and the ConverterTable, which maps an op type and an opset to a converter.
//
// Importer.cpp walks the graph and holds the shared helpers; the converters
// live in family files under ops/ (Elementwise, Math, NN, Reduction, Tensor,
// Generator, Quantization, Resize, RNN), each of which registers its
// converters with one registerXxxConverters function. frontend/onnx/README.md
// describes how to add one.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_ONNX_IMPORTERINTERNAL_H
#define TGC_FRONTEND_ONNX_IMPORTERINTERNAL_H

#include "frontend/onnx/OnnxInternal.h"

#include "frontend/Tensor.h"
#include "frontend/Tracer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace onnx {
class OpSchema;
} // namespace onnx

namespace tgc::onnximpl {

using runtime::DType;
using runtime::HostTensor;
using AP = ::onnx::AttributeProto;

/// `auto &var = *expr` for an llvm::Expected `expr`; returns its error.
#define TRY(var, expr)                                                         \
  auto var##OrError = (expr);                                                  \
  if (!var##OrError)                                                           \
    return var##OrError.takeError();                                           \
  auto &var = *var##OrError;

/// Checks a frontend result: on failure returns the dialect's message as a
/// node error. For converters and helpers whose Importer is named `im`.
#define TRYT(var, expr)                                                        \
  Tensor var = (expr);                                                         \
  if (!var.valid())                                                            \
    return im.traceFailure();

/// "[1, 2, 3]".
std::string listOf(llvm::ArrayRef<int64_t> values);

/// A small integer tensor (rank 0 or 1) of which only some elements are known
/// at import time: the Shape of a tensor with dynamic dims and the shape
/// arithmetic exporters build from it (Gather, Concat, Mul, ...). Exported
/// models with a dynamic batch compute their Reshape targets this way; with
/// at most one element unknown, the Reshape still imports (as -1).
struct PartialInts {
  DType dtype = DType::I64;
  bool scalar = false;
  std::vector<std::optional<int64_t>> values;
  std::string describe() const {
    std::string text = "[";
    for (auto [i, v] : llvm::enumerate(values))
      text += (i ? ", " : "") + (v ? std::to_string(*v) : std::string("?"));
    return text + "]";
  }
};

/// An ONNX value: a symbolic tensor, its contents when known, or both. The
/// tensor of a known value is created on first use.
struct Val {
  Tensor tensor;
  std::shared_ptr<HostTensor> constant;
  std::string origin; // For the location of a materialized constant.
  /// What is known at import time of a value computed from dynamic dims
  /// (its tensor computes it when the function runs).
  std::shared_ptr<PartialInts> partial;
  /// A sequence (ONNX seq(tensor)) or an optional: their structure is known
  /// at import time (ValueStructure), so a sequence is the list of its
  /// elements and an optional its element or none.
  ValueStructure::Kind kind = ValueStructure::Kind::Tensor;
  std::vector<Val> elements;

  bool isTensor() const { return kind == ValueStructure::Kind::Tensor; }
  static Val sequence(std::vector<Val> elements) {
    Val v;
    v.kind = ValueStructure::Kind::Sequence;
    v.elements = std::move(elements);
    return v;
  }
  static Val optional(std::optional<Val> element) {
    Val v;
    v.kind = ValueStructure::Kind::Optional;
    if (element)
      v.elements.push_back(std::move(*element));
    return v;
  }
  /// "a sequence of 3 values", "an empty optional", "a tensor".
  std::string describeKind() const;
};

using Scope = std::unordered_map<std::string, Val>;

class Importer;

/// Maps the node being imported (Importer::node()) to tgc ops and gives its
/// outputs (Importer::out, outConst).
using ConvertFn = llvm::Error (*)(Importer &im);

/// What is known of a value at import time, or nullopt; or an error.
using PartialResult = llvm::Expected<std::optional<PartialInts>>;

/// Shape arithmetic on partially known values: what is known of output 0 of
/// the node, given what is known of its inputs (`inputs[i]` for each present
/// input; every one is partial or a small integer constant, at least one
/// partial), or nullopt. The converter still builds the ops that compute the
/// value when the function runs.
using PartialFn = PartialResult (*)(Importer &im,
                                    llvm::ArrayRef<PartialInts> inputs);

/// The converters of the default ONNX domain, keyed by (op type,
/// since-version). A node of opset N is converted by the entry of its op type
/// with the greatest since-version <= N. An op's first entry is registered at
/// since-version 1: whether an op exists at a model's opset is the ONNX
/// checker's business, the importer's only which form of it to read.
class ConverterTable {
public:
  struct Entry {
    int64_t sinceVersion;
    ConvertFn convert;
    /// Null: the op's output 0 is never tracked as partially known.
    PartialFn partial;
  };

  /// Registers `convert` (and `partial`) for `opType` from opset
  /// `sinceVersion` on; each (opType, sinceVersion) is registered once.
  void add(llvm::StringRef opType, int64_t sinceVersion, ConvertFn convert,
           PartialFn partial = nullptr);

  /// The entry that converts `opType` at `opset`, or null.
  const Entry *lookup(llvm::StringRef opType, int64_t opset) const;

private:
  /// Per op type, sorted by since-version.
  llvm::StringMap<llvm::SmallVector<Entry, 1>> entries;
};

/// The table of every family, built on first use.
const ConverterTable &converterTable();

// The families (ops/*.cpp).
void registerElementwiseConverters(ConverterTable &table);
void registerMathConverters(ConverterTable &table);
void registerNNConverters(ConverterTable &table);
void registerReductionConverters(ConverterTable &table);
void registerTensorConverters(ConverterTable &table);
void registerGeneratorConverters(ConverterTable &table);
void registerQuantizationConverters(ConverterTable &table);
void registerResizeConverters(ConverterTable &table);
void registerRNNConverters(ConverterTable &table);
void registerControlFlowConverters(ConverterTable &table);
/// The ai.onnx.preview.training domain's ops (Adagrad, Momentum, Adam),
/// registered under this prefix and their op type.
inline constexpr const char *kTrainingDomainPrefix =
    "ai.onnx.preview.training:";
void registerTrainingConverters(ConverterTable &table);
void registerSequenceConverters(ConverterTable &table);

/// Imports one model. Converters see the node being imported through the
/// accessors and helpers of the public section; errors they return name the
/// node (fail, unsupported, traceFailure).
class Importer {
public:
  Importer(mlir::MLIRContext &context, ::onnx::ModelProto &model,
           const ExternalData &external, const ImportOptions &options)
      : context(context), model(model), externalData(external),
        options(options) {}

  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> run();

  // --- The node being imported ---
  const ::onnx::NodeProto &node() const { return *currentNode; }
  /// The opset of the node's domain (the model's or the inlined function's).
  int64_t opset() const { return currentOpset; }
  /// "node 'name' (Op, opset N)", the prefix of the node's errors.
  const std::string &label() const { return currentLabel; }
  /// Where external tensor data may be read from.
  const ExternalData &external() const { return externalData; }

  // --- Errors ---
  llvm::Error fail(const llvm::Twine &message) const {
    return makeError(currentLabel + ": " + message);
  }
  /// A valid node that uses something tgc does not support.
  llvm::Error unsupported(const llvm::Twine &message) const {
    return makeUnsupportedError(currentLabel + ": " + message);
  }
  /// The first error of the trace (an op that failed to build) as a node
  /// error.
  llvm::Error traceFailure() const;

  // --- Inputs ---
  int numInputs() const { return currentNode->input_size(); }
  bool has(int i) const {
    return i < currentNode->input_size() && !currentNode->input(i).empty();
  }
  llvm::Expected<Val *> lookup(int i);
  llvm::Expected<Tensor> in(int i);
  /// The contents of input `i` when it is a constant, else null.
  llvm::Expected<std::shared_ptr<HostTensor>> constIn(int i);
  /// Whether input `i` is a constant op's result (an initializer or folded
  /// from constants), without materializing it as constIn does.
  bool isConstantOpIn(int i);
  llvm::Expected<std::vector<int64_t>> constInts(int i, llvm::StringRef what);
  llvm::Expected<double> constScalar(int i, llvm::StringRef what);
  /// Input `i` as a shape read when the function runs (Reshape's, Expand's,
  /// ConstantOfShape's): a 1-D tensor of a static length, as i64.
  llvm::Expected<Tensor> shapeIn(int i);

  // --- Outputs ---
  bool wantsOutput(int i) const {
    return i < currentNode->output_size() && !currentNode->output(i).empty();
  }
  /// Output `i` as any value (a sequence or an optional).
  void outVal(int i, Val v) {
    if (wantsOutput(i))
      valOutputs.push_back({currentNode->output(i), std::move(v)});
  }
  void out(int i, Tensor t) {
    if (wantsOutput(i))
      outputs.push_back({currentNode->output(i), t});
  }
  void outConst(int i, HostTensor t) {
    if (wantsOutput(i))
      constOutputs.push_back({currentNode->output(i), std::move(t)});
  }
  /// What is known of output `i` at import time (Shape of dynamic dims).
  void outPartial(int i, PartialInts value) {
    if (wantsOutput(i))
      partialOutputs.push_back({currentNode->output(i), std::move(value)});
  }
  Tensor constantTensor(const HostTensor &value);

  // --- Attributes (validated: the type must match) ---
  const AP *attr(llvm::StringRef name) const;
  llvm::Error attrTypeError(const AP &a, llvm::StringRef expected) const;
  llvm::Expected<std::optional<int64_t>> attrInt(llvm::StringRef name);
  llvm::Expected<int64_t> attrInt(llvm::StringRef name, int64_t dflt);
  /// An int attribute that is a flag: 0 or 1 (ONNX's own shape inference
  /// reads other values differently from its reference), else an error.
  llvm::Expected<bool> attrFlag(llvm::StringRef name, bool dflt);
  llvm::Expected<std::optional<double>> attrFloat(llvm::StringRef name);
  llvm::Expected<double> attrFloat(llvm::StringRef name, double dflt);
  llvm::Expected<std::optional<std::vector<int64_t>>>
  attrInts(llvm::StringRef name);
  llvm::Expected<std::optional<std::vector<float>>>
  attrFloats(llvm::StringRef name);
  llvm::Expected<std::string> attrString(llvm::StringRef name,
                                         llvm::StringRef dflt);
  llvm::Expected<int64_t> axisAttr(llvm::StringRef name, int64_t dflt,
                                   int64_t rank, bool inclusive = false);
  llvm::Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                        bool inclusive = false);

  // --- Shared pieces ---
  llvm::Expected<Tensor> reshapeTo(const Tensor &x,
                                   const std::vector<int64_t> &shape);
  /// `parts` (of one shape, at least one) stacked along a new dim `axis`.
  llvm::Expected<Tensor> stack(llvm::ArrayRef<Tensor> parts, int64_t axis);

  // --- Subgraphs ---
  /// The GRAPH attribute `name` of the node (If's branches, Loop's and
  /// Scan's bodies), or an error.
  llvm::Expected<const ::onnx::GraphProto *> attrGraph(llvm::StringRef name);
  /// Imports `graph` at the trace's insertion point (a region being traced)
  /// with its inputs bound to `inputs` (in order; fewer than it declares is
  /// an error) and returns its outputs. Names it does not define are looked
  /// up in the enclosing graphs (ONNX's outer-scope references); the node
  /// being imported is the same afterwards. `what` names the subgraph in
  /// errors ("then_branch").
  llvm::Expected<std::vector<Tensor>>
  importSubgraph(const ::onnx::GraphProto &graph, llvm::ArrayRef<Tensor> inputs,
                 llvm::StringRef what);
  /// importSubgraph for inputs and outputs of any kind (a sequence, an
  /// optional), imported in line: an unrolled Loop's body, the branch of an
  /// If whose condition is known.
  llvm::Expected<std::vector<Val>>
  importSubgraphVals(const ::onnx::GraphProto &graph,
                     llvm::ArrayRef<Val> inputs, llvm::StringRef what);
  /// The contents of `val` when it is a constant (as constIn), else null.
  llvm::Expected<std::shared_ptr<HostTensor>> constOf(Val &val,
                                                      llvm::StringRef what);
  /// Materializes a tensor value; a sequence or optional is an error naming
  /// `what`.
  llvm::Expected<Tensor> tensorOf(Val &val, llvm::StringRef what);

private:
  // --- graph level ---
  llvm::Error checkDeclaredOutput(const ::onnx::ValueInfoProto &output,
                                  const Tensor &t);
  llvm::Error importGraph(llvm::ArrayRef<Tensor> args,
                          std::vector<Tensor> &results);
  /// The value of `structure` over the function arguments from `index` on.
  Val structuredVal(const ValueStructure &structure,
                    llvm::ArrayRef<Tensor> args, size_t &index);
  /// Appends the tensors of `val` to `results`, depth first, and gives its
  /// structure.
  llvm::Error flattenVal(Val &val, std::vector<Tensor> &results,
                         ValueStructure &structure);
  /// The function arguments of a graph input of `type` and `structure`.
  llvm::Error addArgSpecs(const ::onnx::TypeProto &type,
                          const ValueStructure &structure,
                          const std::string &what, const std::string &name,
                          std::vector<ArgSpec> &specs,
                          std::vector<std::string> &argNames);
  /// Per graph input that is not an initializer, and per graph output.
  std::vector<ValueStructure> inputStructures;
  std::vector<std::string> outputStructures;
  llvm::Error importNodes(
      const google::protobuf::RepeatedPtrField<::onnx::NodeProto> &nodes,
      const std::unordered_map<std::string, int64_t> &opsets,
      const std::string &context);
  llvm::Error importNode(const ::onnx::NodeProto &node, int index,
                         int64_t opset, const std::string &context);
  llvm::Error inlineFunction(const ::onnx::FunctionProto &function,
                             const ::onnx::NodeProto &caller,
                             const ::onnx::OpSchema *schema = nullptr);
  llvm::Error finishNode(mlir::Operation *before,
                         std::vector<std::pair<std::string, Tensor>> &outs);

  // --- values ---
  Tensor materialize(Val &val);
  /// A main-graph initializer whose data stayed in the model file
  /// (kInModelOffset), or is in an external data file, as a value
  /// materialized in the IR at once: a file-backed constant
  /// (ImportOptions::weightsInFile) or a copy in the IR, the import-time
  /// constant a view of it; nullopt for any other.
  llvm::Expected<std::optional<Val>>
  inPlaceInitializer(const ::onnx::TensorProto &init);
  llvm::Expected<std::optional<Val>>
  fileBackedInitializer(const ::onnx::TensorProto &init,
                        const MappedTensorBytes &mapped);
  /// The value of `v` when it is computed only from constants and arguments
  /// the caller gave values for (ImportOptions::argumentValues), else null.
  llvm::Expected<std::shared_ptr<HostTensor>> evaluateSpecialized(
      mlir::Value v,
      llvm::DenseMap<mlir::Value, std::shared_ptr<HostTensor>> &memo,
      unsigned depth);
  /// What is known of output 0 of the node when an input is partial and
  /// `partial` (the converter's PartialFn) covers the op, else nullopt.
  llvm::Expected<std::optional<PartialInts>>
  propagatePartial(PartialFn partial);
  void registerPartialOutputs();
  llvm::Expected<std::optional<PartialInts>> partialIn(int i);

  mlir::MLIRContext &context;
  /// Reported once the graph is traced (checkDeclaredOutput).
  std::vector<std::string> warnings;
  ::onnx::ModelProto &model;
  const ExternalData &externalData;
  const ImportOptions &options;

  /// The value scopes: the graph's, then one per inlined function call or
  /// subgraph being imported.
  std::deque<Scope> scopes; // A deque: references survive push_back.
  /// Per scope: whether it is a subgraph's, whose lookups go on to the
  /// enclosing scope (a function's body sees only its own).
  std::deque<bool> scopeSeesOuter;
  /// The value `name` in the innermost scope that has it, as lookup(i)
  /// finds it (a value from an enclosing graph is copied into the innermost
  /// scope first, so that a constant is materialized where it is used), or
  /// null.
  Val *lookupName(const std::string &name);
  /// The opsets the model's graph imports.
  std::unordered_map<std::string, int64_t> modelOpsets() const;
  /// Functions being inlined (for recursion checks).
  std::vector<std::string> callStack;
  std::map<std::pair<std::string, std::string>, const ::onnx::FunctionProto *>
      localFunctions;

  // The node being imported.
  const ::onnx::NodeProto *currentNode = nullptr;
  int64_t currentOpset = 0;
  std::string currentLabel;
  std::vector<std::pair<std::string, Tensor>> outputs;
  std::vector<std::pair<std::string, HostTensor>> constOutputs;
  std::vector<std::pair<std::string, PartialInts>> partialOutputs;
  std::vector<std::pair<std::string, Val>> valOutputs;
};

/// A rank-0 integer (or bool) constant of `dtype`.
inline HostTensor scalarHost(DType dtype, int64_t value) {
  HostTensor t = *HostTensor::allocate(dtype, {});
  t.setInt(0, value);
  return t;
}

/// The node's Conv attributes applied to `x` and `w` (Conv, ConvInteger,
/// QLinearConv; ops/NN.cpp).
llvm::Expected<Tensor> convolve(Importer &im, const Tensor &x, const Tensor &w,
                                std::optional<Tensor> bias);

/// The i64 positions 0..n-1 for `n`, an i64 scalar the function computes:
/// NonZero's coordinates of n trues (a data-dependent shape that folds to a
/// constant once n is known). Computed Range and Resize use it
/// (ops/Generator.cpp).
llvm::Expected<Tensor> positionsUpTo(Importer &im, const Tensor &n);

} // namespace tgc::onnximpl

#endif // TGC_FRONTEND_ONNX_IMPORTERINTERNAL_H
