//===- Importer.cpp - ONNX graphs to tgc functions ------------------------===//
//
// Walks the (checked, shape-inferred) graph in order and maps every node to
// tgc ops through the frontend's op functions (frontend/Tensor.h), inside one
// Tracer::trace. Node-level errors name the node, its op type and opset;
// errors of the dialect's inference come back with the same prefix. After
// each node the ops it created get the node's location and, when all their
// operands are constants, are folded by the reference interpreter.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/OnnxInternal.h"

#include "codegen/reference/Interpreter.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcDialect.h"
#include "dialects/TgcOps.h"
#include "frontend/TraceState.h"
#include "frontend/Tracer.h"

#include "onnx/defs/schema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <unordered_map>

using namespace tgc;
using namespace tgc::onnximpl;
using runtime::DType;
using runtime::HostTensor;
using AP = ::onnx::AttributeProto;
using TP = ::onnx::TensorProto;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string listOf(llvm::ArrayRef<int64_t> values) {
  std::string text = "[";
  for (auto [i, v] : llvm::enumerate(values))
    text += (i ? ", " : "") + std::to_string(v);
  return text + "]";
}

/// The elements of a HostTensor as a DenseElementsAttr of `type`.
mlir::DenseElementsAttr toAttr(const HostTensor &value,
                               mlir::RankedTensorType type) {
  int64_t count = value.numElements();
  if (value.dtype() == DType::I1) {
    llvm::SmallVector<bool> bits;
    for (int64_t i = 0; i < count; ++i)
      bits.push_back(value.dataAs<uint8_t>()[i] != 0);
    return mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(bits));
  }
  if (count == 0)
    return mlir::DenseElementsAttr::get(type,
                                        llvm::ArrayRef<mlir::Attribute>{});
  size_t elementSize = runtime::dtypeSize(value.dtype());
  const char *data = static_cast<const char *>(value.data());
  llvm::ArrayRef<char> raw(data, value.byteSize());
  bool splat = count > 1;
  for (int64_t i = 1; splat && i < count; ++i)
    splat = std::equal(data, data + elementSize, data + i * elementSize);
  if (splat)
    raw = raw.take_front(elementSize);
  return mlir::DenseElementsAttr::getFromRawBuffer(type, raw);
}

/// An ONNX value: a symbolic tensor, its contents when known, or both. The
/// tensor of a known value is created on first use.
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

struct Val {
  Tensor tensor;
  std::shared_ptr<HostTensor> constant;
  std::string origin; // For the location of a materialized constant.
  /// What is known at import time of a value computed from dynamic dims
  /// (its tensor computes it when the function runs).
  std::shared_ptr<PartialInts> partial;
};

using Scope = std::unordered_map<std::string, Val>;

/// Broadcast of two static-or-dynamic shapes (kDynamic = -1), numpy rules;
/// nullopt when incompatible.
std::optional<std::vector<int64_t>> broadcastShapes(std::vector<int64_t> a,
                                                    std::vector<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (a[i] == 1)
      out[i] = b[i];
    else if (b[i] == 1)
      out[i] = a[i];
    else if (a[i] == kDynamic)
      out[i] = b[i];
    else if (b[i] == kDynamic || a[i] == b[i])
      out[i] = a[i];
    else
      return std::nullopt;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The importer
//===----------------------------------------------------------------------===//

#define TRY(var, expr)                                                         \
  auto var##OrError = (expr);                                                  \
  if (!var##OrError)                                                           \
    return var##OrError.takeError();                                           \
  auto &var = *var##OrError;

/// Checks a frontend result: on failure returns the dialect's message as a
/// node error.
#define TRYT(var, expr)                                                        \
  Tensor var = (expr);                                                         \
  if (!var.valid())                                                            \
    return traceFailure();

class Importer {
public:
  Importer(mlir::MLIRContext &context, ::onnx::ModelProto &model,
           const ExternalData &external, const ImportOptions &options)
      : context(context), model(model), external(external), options(options) {}

  llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> run();

private:
  using Converter = llvm::Error (Importer::*)();
  static const std::map<std::string, Converter> &converters();

  // --- graph level ---
  llvm::Error checkDeclaredOutput(const ::onnx::ValueInfoProto &output,
                                  const Tensor &t);
  llvm::Error importGraph(llvm::ArrayRef<Tensor> args,
                          std::vector<Tensor> &results);
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

  // --- per node ---
  llvm::Error fail(const llvm::Twine &message) const {
    return makeError(label + ": " + message);
  }
  /// A valid node that uses something tgc does not support.
  llvm::Error unsupported(const llvm::Twine &message) const {
    return makeUnsupportedError(label + ": " + message);
  }
  llvm::Error traceFailure() const;
  int numInputs() const { return node->input_size(); }
  bool has(int i) const {
    return i < node->input_size() && !node->input(i).empty();
  }
  bool wantsOutput(int i) const {
    return i < node->output_size() && !node->output(i).empty();
  }
  llvm::Expected<Val *> lookup(int i);
  llvm::Expected<Tensor> in(int i);
  /// The contents of input `i` when it is a constant, else null.
  llvm::Expected<std::shared_ptr<HostTensor>> constIn(int i);
  llvm::Expected<std::vector<int64_t>> constInts(int i, llvm::StringRef what);
  /// The value of `v` when it is computed only from constants and arguments
  /// the caller gave values for (ImportOptions::argumentValues), else null.
  llvm::Expected<std::shared_ptr<HostTensor>> evaluateSpecialized(
      mlir::Value v,
      llvm::DenseMap<mlir::Value, std::shared_ptr<HostTensor>> &memo,
      unsigned depth);
  llvm::Expected<double> constScalar(int i, llvm::StringRef what);
  void out(int i, Tensor t) {
    if (wantsOutput(i))
      outputs.push_back({node->output(i), t});
  }
  void outConst(int i, HostTensor t) {
    if (wantsOutput(i))
      constOutputs.push_back({node->output(i), std::move(t)});
  }
  Tensor materialize(Val &val);
  Tensor constantTensor(const HostTensor &value);

  // Attributes (validated: the type must match).
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
  /// The 'reduction' attribute of ScatterElements / ScatterND.
  llvm::Expected<std::string> scatterReduction();
  llvm::Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                        bool inclusive = false);

  // Shared pieces.
  llvm::Expected<Tensor> reshapeTo(const Tensor &x,
                                   const std::vector<int64_t> &shape);
  llvm::Expected<std::vector<int64_t>> reduceAxes(int64_t rank);
  llvm::Expected<std::vector<int64_t>>
  spatialPads(const Tensor &x, llvm::ArrayRef<int64_t> kernel,
              llvm::ArrayRef<int64_t> strides,
              llvm::ArrayRef<int64_t> dilations, bool ceilOutputs);

  // Converters.
  template <Tensor (*F)(const Tensor &, SourceLoc)> llvm::Error unaryOp();
  template <Tensor (*F)(const Tensor &, const Tensor &, SourceLoc)>
  llvm::Error binaryOp();
  template <Tensor (*F)(const Tensor &, const Tensor &, SourceLoc)>
  llvm::Error variadicOp();
  llvm::Error convIdentity();
  llvm::Error convMean();
  llvm::Error convPow();
  llvm::Error convXor();
  llvm::Error convMod();
  llvm::Error convBitShift();
  llvm::Error convConvInteger();
  llvm::Error convMatMulInteger();
  llvm::Error convQLinearMatMul();
  llvm::Error convQLinearConv();
  llvm::Expected<Tensor> convolve(const Tensor &x0, const Tensor &w0,
                                  std::optional<Tensor> bias);
  llvm::Expected<Tensor> subtractZeroPoint(const Tensor &x,
                                           std::optional<Tensor> zp,
                                           int64_t axis, DType type);
  llvm::Expected<Tensor> integerMatmul(const Tensor &a,
                                       std::optional<Tensor> azp,
                                       const Tensor &b,
                                       std::optional<Tensor> bzp);
  llvm::Expected<Tensor> requantize(const Tensor &acc, const Tensor &scale,
                                    const Tensor &zp);
  llvm::Error convQuantizeLinear();
  llvm::Error convDequantizeLinear();
  llvm::Expected<Tensor> perAxisParam(const Tensor &param, const Tensor &x,
                                      llvm::StringRef what);
  llvm::Error convPRelu();
  llvm::Error convLeakyRelu();
  llvm::Error convElu();
  llvm::Error convSelu();
  llvm::Error convCelu();
  llvm::Error convHardSigmoid();
  llvm::Error convHardSwish();
  llvm::Error convSoftplus();
  llvm::Error convSoftsign();
  llvm::Error convMish();
  llvm::Error convThresholdedRelu();
  llvm::Error convShrink();
  llvm::Error convTan();
  llvm::Error convSinh();
  llvm::Error convCosh();
  llvm::Error convAsinh();
  llvm::Error convAcosh();
  llvm::Error convAtanh();
  llvm::Error convIsNaN();
  llvm::Error convIsInf();
  llvm::Error convClip();
  llvm::Error convWhere();
  llvm::Error convCast();
  llvm::Error convCastLike();
  llvm::Error convMatMul();
  llvm::Error convGemm();
  llvm::Error convConv();
  llvm::Error convPool();
  llvm::Error convGlobalPool();
  llvm::Error convBatchNorm();
  llvm::Error convInstanceNorm();
  llvm::Error convLayerNorm();
  llvm::Error convLpNorm();
  llvm::Error convMeanVarianceNorm();
  llvm::Error convSoftmax();
  llvm::Error convReduce();
  llvm::Error convArgReduce();
  llvm::Error convReshape();
  llvm::Error convFlatten();
  llvm::Error convSqueeze();
  llvm::Error convUnsqueeze();
  llvm::Error convTranspose();
  llvm::Error convConcat();
  llvm::Error convSplit();
  llvm::Error convSlice();
  llvm::Error convPad();
  llvm::Error convGather();
  llvm::Error convGatherElements();
  llvm::Error convGatherND();
  llvm::Error convScatterElements();
  llvm::Error convScatterND();
  llvm::Error convTopK();
  llvm::Error convDropout();
  llvm::Error convConstant();
  llvm::Error convShape();
  /// Shape arithmetic on partially known values: what is known of output 0
  /// of the node when an input is partial and the op is one the lattice
  /// covers (nullopt otherwise). The converter still builds the ops that
  /// compute the value when the function runs.
  llvm::Expected<std::optional<PartialInts>> propagatePartial();
  void registerPartialOutputs();
  llvm::Expected<std::optional<PartialInts>> partialIn(int i);
  llvm::Error convSize();
  llvm::Error convConstantOfShape();
  llvm::Error convExpand();
  llvm::Error convTile();
  llvm::Error convRange();
  llvm::Error convOneHot();
  llvm::Error convEyeLike();
  llvm::Error convTrilu();
  llvm::Error convCumSum();
  llvm::Error convDepthToSpace();
  llvm::Error convSpaceToDepth();
  llvm::Error convResize();
  llvm::Error convLRN();
  llvm::Error convConvTranspose();
  llvm::Error convEinsum();
  llvm::Error convRecurrent();
  llvm::Expected<Tensor> atanOf(const Tensor &x);
  llvm::Error convAtan();
  llvm::Error convAsin();
  llvm::Error convAcos();

  mlir::MLIRContext &context;
  /// Reported once the graph is traced (checkDeclaredOutput).
  std::vector<std::string> warnings;
  ::onnx::ModelProto &model;
  const ExternalData &external;
  const ImportOptions &options;

  /// The value scopes: the graph's, then one per inlined function call.
  std::deque<Scope> scopes; // A deque: references survive push_back.
  /// Functions being inlined (for recursion checks).
  std::vector<std::string> callStack;
  std::map<std::pair<std::string, std::string>, const ::onnx::FunctionProto *>
      localFunctions;

  // The node being imported.
  const ::onnx::NodeProto *node = nullptr;
  int64_t opset = 0;
  std::string label;
  std::vector<std::pair<std::string, Tensor>> outputs;
  std::vector<std::pair<std::string, HostTensor>> constOutputs;
  std::vector<std::pair<std::string, PartialInts>> partialOutputs;
};

llvm::Error Importer::traceFailure() const {
  std::string message = "the op failed to build";
  if (detail::TraceState *state = detail::activeTrace())
    if (const auto &first = state->getFirstError()) {
      llvm::StringRef text = *first;
      size_t at = text.find(": error: ");
      message =
          (at == llvm::StringRef::npos ? text : text.substr(at + 9)).str();
    }
  return fail(message);
}

//===----------------------------------------------------------------------===//
// Values and attributes
//===----------------------------------------------------------------------===//

Tensor Importer::constantTensor(const HostTensor &value) {
  return tgc::constant(value);
}

Tensor Importer::materialize(Val &val) {
  if (val.tensor.valid() || !val.constant)
    return val.tensor;
  val.tensor = constantTensor(*val.constant);
  if (val.tensor.valid() && !val.origin.empty())
    valueOf(val.tensor)
        .getDefiningOp()
        ->setLoc(mlir::NameLoc::get(
            mlir::StringAttr::get(&context, val.origin),
            mlir::FileLineColLoc::get(&context, options.modelName, 0, 0)));
  return val.tensor;
}

llvm::Expected<Val *> Importer::lookup(int i) {
  if (!has(i))
    return fail("input #" + llvm::Twine(i) + " is missing");
  const std::string &name = node->input(i);
  auto it = scopes.back().find(name);
  if (it == scopes.back().end())
    return fail("input #" + llvm::Twine(i) + " '" + name +
                "' is not defined: it is not a graph input, an initializer "
                "or an output of an earlier node (dangling or cyclic)");
  return &it->second;
}

llvm::Expected<Tensor> Importer::in(int i) {
  TRY(val, lookup(i));
  Tensor t = materialize(*val);
  if (!t.valid())
    return traceFailure();
  return t;
}

llvm::Expected<std::shared_ptr<HostTensor>> Importer::constIn(int i) {
  TRY(val, lookup(i));
  if (val->constant)
    return val->constant;
  if (!val->tensor.valid())
    return nullptr;
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(valueOf(val->tensor))) {
    // A function argument whose value the caller gave: specialize on it.
    unsigned k = arg.getArgNumber();
    if (!arg.getOwner()->getParentOp() ||
        !llvm::isa<mlir::func::FuncOp>(arg.getOwner()->getParentOp()) ||
        k >= options.argumentValues.size() || !options.argumentValues[k])
      return nullptr;
    const HostTensor &given = *options.argumentValues[k];
    if (given.dtype() != val->tensor.dtype() ||
        given.rank() != val->tensor.rank())
      return fail("input #" + llvm::Twine(i) + " '" + node->input(i) +
                  "' is given as " + given.describe() + " but declared " +
                  val->tensor.describe());
    for (int64_t d = 0; d < given.rank(); ++d)
      if (val->tensor.shape()[d] != kDynamic &&
          val->tensor.shape()[d] != given.shape()[d])
        return fail("input #" + llvm::Twine(i) + " '" + node->input(i) +
                    "' is given as " + given.describe() + " but declared " +
                    val->tensor.describe());
    val->constant = std::make_shared<HostTensor>(given);
    return val->constant;
  }
  auto constant =
      llvm::dyn_cast_or_null<ConstantOp>(valueOf(val->tensor).getDefiningOp());
  if (!constant) {
    // Computed from arguments whose values the caller gave (e.g. the limit
    // of a Range is Cast(size) in the window functions): evaluate it.
    if (options.argumentValues.empty())
      return nullptr;
    llvm::DenseMap<mlir::Value, std::shared_ptr<HostTensor>> memo;
    TRY(evaluated, evaluateSpecialized(valueOf(val->tensor), memo, 0));
    if (evaluated)
      val->constant = evaluated;
    return evaluated;
  }
  auto value = reference::runOp(constant, {});
  if (!value)
    return prefixError(label + ": ", value.takeError());
  val->constant = std::make_shared<HostTensor>(std::move(*value));
  return val->constant;
}

llvm::Expected<std::shared_ptr<HostTensor>> Importer::evaluateSpecialized(
    mlir::Value v,
    llvm::DenseMap<mlir::Value, std::shared_ptr<HostTensor>> &memo,
    unsigned depth) {
  auto known = memo.find(v);
  if (known != memo.end())
    return known->second;
  constexpr unsigned kMaxDepth = 64;
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
  if (depth > kMaxDepth || !type)
    return nullptr;
  std::shared_ptr<HostTensor> result;
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
    unsigned k = arg.getArgNumber();
    mlir::Operation *parent = arg.getOwner()->getParentOp();
    if (!parent || !llvm::isa<mlir::func::FuncOp>(parent) ||
        k >= options.argumentValues.size() || !options.argumentValues[k])
      return nullptr;
    const HostTensor &given = *options.argumentValues[k];
    std::optional<DType> dtype = reference::toDType(type.getElementType());
    bool matches =
        dtype && *dtype == given.dtype() && type.getRank() == given.rank();
    for (int64_t d = 0; matches && d < given.rank(); ++d)
      matches = type.isDynamicDim(d) || type.getDimSize(d) == given.shape()[d];
    if (!matches) {
      std::string declared;
      llvm::raw_string_ostream os(declared);
      os << type;
      return fail("argument #" + llvm::Twine(k) + " is given as " +
                  given.describe() + " but declared " + declared);
    }
    result = std::make_shared<HostTensor>(given);
  } else {
    mlir::Operation *op = v.getDefiningOp();
    if (!op || op->getNumResults() != 1 ||
        !llvm::isa<TgcDialect>(op->getDialect()) || !type.hasStaticShape() ||
        type.getNumElements() > options.maxFoldedElements)
      return nullptr;
    std::vector<std::shared_ptr<HostTensor>> operands;
    std::vector<const HostTensor *> pointers;
    for (mlir::Value operand : op->getOperands()) {
      TRY(value, evaluateSpecialized(operand, memo, depth + 1));
      if (!value)
        return nullptr;
      operands.push_back(value);
      pointers.push_back(value.get());
    }
    auto value = reference::runOp(op, pointers);
    if (!value) {
      // Left for run time, which reports it with the op's location.
      llvm::consumeError(value.takeError());
      return nullptr;
    }
    result = std::make_shared<HostTensor>(std::move(*value));
  }
  memo[v] = result;
  return result;
}

llvm::Expected<std::vector<int64_t>> Importer::constInts(int i,
                                                         llvm::StringRef what) {
  TRY(value, constIn(i));
  if (!value)
    return unsupported(what + " (input #" + llvm::Twine(i) +
                       ") must be a constant (an initializer or computed from "
                       "constants); a dynamic " +
                       what + " is not supported");
  if (runtime::isFloatDType(value->dtype()) || value->dtype() == DType::I1)
    return fail(what + " (input #" + llvm::Twine(i) + ") must be integers");
  std::vector<int64_t> result;
  for (int64_t k = 0; k < value->numElements(); ++k)
    result.push_back(value->getInt(k));
  return result;
}

llvm::Expected<double> Importer::constScalar(int i, llvm::StringRef what) {
  TRY(value, constIn(i));
  if (!value)
    return unsupported(what + " (input #" + llvm::Twine(i) +
                       ") must be a constant; a dynamic " + what +
                       " is not supported");
  if (value->numElements() != 1)
    return fail(what + " (input #" + llvm::Twine(i) +
                ") must have one element, not " +
                llvm::Twine(value->numElements()));
  return value->getDouble(0);
}

const AP *Importer::attr(llvm::StringRef name) const {
  for (const AP &a : node->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

llvm::Error Importer::attrTypeError(const AP &a,
                                    llvm::StringRef expected) const {
  return fail("attribute '" + a.name() + "' must be " + expected + ", not " +
              (AP::AttributeType_IsValid(a.type())
                   ? AP::AttributeType_Name(a.type())
                   : std::string("an unknown type")));
}

llvm::Expected<std::optional<int64_t>> Importer::attrInt(llvm::StringRef name) {
  const AP *a = attr(name);
  if (!a)
    return std::optional<int64_t>();
  if (a->type() != AP::INT && !(a->type() == AP::UNDEFINED && a->has_i()))
    return attrTypeError(*a, "INT");
  return std::optional<int64_t>(a->i());
}

llvm::Expected<int64_t> Importer::attrInt(llvm::StringRef name, int64_t dflt) {
  TRY(v, attrInt(name));
  return v.value_or(dflt);
}

llvm::Expected<std::optional<double>>
Importer::attrFloat(llvm::StringRef name) {
  const AP *a = attr(name);
  if (!a)
    return std::optional<double>();
  if (a->type() != AP::FLOAT && !(a->type() == AP::UNDEFINED && a->has_f()))
    return attrTypeError(*a, "FLOAT");
  return std::optional<double>(a->f());
}

llvm::Expected<double> Importer::attrFloat(llvm::StringRef name, double dflt) {
  TRY(v, attrFloat(name));
  return v.value_or(dflt);
}

llvm::Expected<std::optional<std::vector<int64_t>>>
Importer::attrInts(llvm::StringRef name) {
  const AP *a = attr(name);
  if (!a)
    return std::optional<std::vector<int64_t>>();
  if (a->type() != AP::INTS && a->type() != AP::UNDEFINED)
    return attrTypeError(*a, "INTS");
  return std::optional<std::vector<int64_t>>(
      std::vector<int64_t>(a->ints().begin(), a->ints().end()));
}

llvm::Expected<std::optional<std::vector<float>>>
Importer::attrFloats(llvm::StringRef name) {
  const AP *a = attr(name);
  if (!a)
    return std::optional<std::vector<float>>();
  if (a->type() != AP::FLOATS && a->type() != AP::UNDEFINED)
    return attrTypeError(*a, "FLOATS");
  return std::optional<std::vector<float>>(
      std::vector<float>(a->floats().begin(), a->floats().end()));
}

llvm::Expected<std::string> Importer::attrString(llvm::StringRef name,
                                                 llvm::StringRef dflt) {
  const AP *a = attr(name);
  if (!a)
    return dflt.str();
  if (a->type() != AP::STRING && !(a->type() == AP::UNDEFINED && a->has_s()))
    return attrTypeError(*a, "STRING");
  return a->s();
}

llvm::Expected<std::string> Importer::scatterReduction() {
  TRY(reduction, attrString("reduction", "none"));
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    return fail("attribute 'reduction' must be none, add, mul, max or min, "
                "not '" +
                reduction + "'");
  return reduction;
}

llvm::Expected<int64_t> Importer::normalizeAxis(int64_t axis, int64_t rank,
                                                bool inclusive) {
  int64_t hi = inclusive ? rank : rank - 1;
  int64_t lo = inclusive ? -rank : -rank;
  if (axis < lo || axis > hi)
    return fail("axis " + llvm::Twine(axis) + " is out of range [" +
                llvm::Twine(lo) + ", " + llvm::Twine(hi) + "] for rank " +
                llvm::Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

llvm::Expected<int64_t> Importer::axisAttr(llvm::StringRef name, int64_t dflt,
                                           int64_t rank, bool inclusive) {
  TRY(axis, attrInt(name, dflt));
  return normalizeAxis(axis, rank, inclusive);
}

llvm::Expected<Tensor> Importer::reshapeTo(const Tensor &x,
                                           const std::vector<int64_t> &shape) {
  if (llvm::count(shape, kDynamic) > 1)
    return fail("cannot reshape " + x.describe() + " to " + listOf(shape) +
                ": more than one dynamic dim");
  TRYT(t, tgc::reshape(x, shape));
  return t;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <Tensor (*F)(const Tensor &, SourceLoc)>
llvm::Error Importer::unaryOp() {
  TRY(x, in(0));
  TRYT(y, F(x, SourceLoc::current()));
  out(0, y);
  return llvm::Error::success();
}

template <Tensor (*F)(const Tensor &, const Tensor &, SourceLoc)>
llvm::Error Importer::binaryOp() {
  TRY(a, in(0));
  TRY(b, in(1));
  TRYT(y, F(a, b, SourceLoc::current()));
  out(0, y);
  return llvm::Error::success();
}

template <Tensor (*F)(const Tensor &, const Tensor &, SourceLoc)>
llvm::Error Importer::variadicOp() {
  if (numInputs() < 1)
    return fail("needs at least one input");
  TRY(acc, in(0));
  Tensor result = acc;
  for (int i = 1; i < numInputs(); ++i) {
    TRY(b, in(i));
    TRYT(next, F(result, b, SourceLoc::current()));
    result = next;
  }
  out(0, result);
  return llvm::Error::success();
}

llvm::Error Importer::convIdentity() {
  TRY(x, in(0));
  out(0, x);
  return llvm::Error::success();
}

llvm::Error Importer::convMean() {
  if (numInputs() < 1)
    return fail("needs at least one input");
  TRY(acc, in(0));
  Tensor result = acc;
  for (int i = 1; i < numInputs(); ++i) {
    TRY(b, in(i));
    TRYT(next, tgc::add(result, b));
    result = next;
  }
  if (numInputs() > 1) {
    TRYT(mean, tgc::div(result, Scalar(numInputs())));
    result = mean;
  }
  out(0, result);
  return llvm::Error::success();
}

llvm::Error Importer::convPow() {
  TRY(a, in(0));
  TRY(b, in(1));
  Tensor exponent = b;
  if (b.dtype() != a.dtype()) {
    TRYT(c, tgc::cast(b, a.dtype()));
    exponent = c;
  }
  TRYT(y, tgc::pow(a, exponent));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convXor() {
  TRY(a, in(0));
  TRY(b, in(1));
  TRYT(y, tgc::notEqual(a, b));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convMod() {
  TRY(a, in(0));
  TRY(b, in(1));
  TRY(fmod, attrInt("fmod", 0));
  bool isFloat = runtime::isFloatDType(a.dtype());
  if (isFloat && fmod != 1)
    return fail("floating-point Mod needs fmod = 1");
  TRYT(q, tgc::div(a, b));
  Tensor truncated = q;
  if (isFloat) {
    TRYT(s, tgc::sign(q));
    TRYT(mag, tgc::abs(q));
    TRYT(fl, tgc::floor(mag));
    TRYT(tq, tgc::mul(s, fl));
    truncated = tq;
  }
  TRYT(prod, tgc::mul(b, truncated));
  TRYT(r, tgc::sub(a, prod));
  if (fmod == 1) {
    out(0, r);
    return llvm::Error::success();
  }
  // Python-style: the result takes the divisor's sign.
  TRYT(nonzero, tgc::notEqual(r, Scalar(0)));
  TRYT(rneg, tgc::less(r, Scalar(0)));
  TRYT(bneg, tgc::less(b, Scalar(0)));
  TRYT(differ, tgc::notEqual(rneg, bneg));
  TRYT(fix, tgc::logicalAnd(nonzero, differ));
  TRYT(shifted, tgc::add(r, b));
  TRYT(y, tgc::select(fix, shifted, r));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convBitShift() {
  TRY(x, in(0));
  TRY(y, in(1));
  TRY(direction, attrString("direction", ""));
  if (direction != "LEFT" && direction != "RIGHT")
    return fail("attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"" +
                direction + "\"");
  TRYT(z, direction == "LEFT" ? tgc::shiftLeft(x, y) : tgc::shiftRight(x, y));
  out(0, z);
  return llvm::Error::success();
}

/// A QuantizeLinear/DequantizeLinear scale or zero point made to broadcast
/// against `x`: a scalar (or 1-element) stays, a 1-D per-axis parameter gets
/// trailing 1 dims after the node's `axis`.
llvm::Expected<Tensor> Importer::perAxisParam(const Tensor &param,
                                              const Tensor &x,
                                              llvm::StringRef what) {
  if (param.rank() == 0 || (param.rank() == 1 && param.dim(0) == 1))
    return param;
  if (param.rank() != 1)
    return fail(what + " " + param.describe() + " must be a scalar or 1-D");
  TRY(axis, axisAttr("axis", 1, x.rank()));
  std::vector<int64_t> shape(static_cast<size_t>(x.rank() - axis), 1);
  shape[0] = param.dim(0).value_or(kDynamic);
  return reshapeTo(param, shape);
}

llvm::Error Importer::convQuantizeLinear() {
  TRY(x0, in(0));
  TRY(scale0, in(1));
  if (!runtime::isFloatDType(scale0.dtype()))
    return fail("y_scale " + scale0.describe() + " must be a float tensor");
  // y = saturate(round_half_even(x / y_scale) + y_zero_point), computed in
  // the scale's float type.
  DType floatType = scale0.dtype();
  Tensor x = x0;
  if (x.dtype() != floatType) {
    TRYT(c, tgc::cast(x0, floatType));
    x = c;
  }
  TRY(scale, perAxisParam(scale0, x, "y_scale"));
  TRYT(q, tgc::div(x, scale));
  TRYT(r, tgc::round(q));
  Tensor y = r;
  DType outType = DType::UI8;
  if (has(2)) {
    TRY(zp0, in(2));
    outType = zp0.dtype();
    TRYT(zpf, tgc::cast(zp0, floatType));
    TRY(zp, perAxisParam(zpf, x, "y_zero_point"));
    TRYT(shifted, tgc::add(r, zp));
    y = shifted;
  }
  double lo, hi;
  switch (outType) {
  case DType::UI8:
    lo = 0, hi = 255;
    break;
  case DType::I8:
    lo = -128, hi = 127;
    break;
  case DType::UI16:
    lo = 0, hi = 65535;
    break;
  case DType::I16:
    lo = -32768, hi = 32767;
    break;
  default:
    return unsupported("quantizing to " +
                       std::string(runtime::dtypeName(outType)) +
                       " is not supported");
  }
  TRYT(clamped, tgc::clamp(y, lo, hi));
  TRYT(result, tgc::cast(clamped, outType));
  out(0, result);
  return llvm::Error::success();
}

llvm::Error Importer::convDequantizeLinear() {
  TRY(x0, in(0));
  TRY(scale0, in(1));
  if (!runtime::isFloatDType(scale0.dtype()))
    return fail("x_scale " + scale0.describe() + " must be a float tensor");
  // y = (x - x_zero_point) * x_scale in the scale's float type.
  DType floatType = scale0.dtype();
  TRYT(x, tgc::cast(x0, floatType));
  Tensor centered = x;
  if (has(2)) {
    TRY(zp0, in(2));
    TRYT(zpf, tgc::cast(zp0, floatType));
    TRY(zp, perAxisParam(zpf, x, "x_zero_point"));
    TRYT(d, tgc::sub(x, zp));
    centered = d;
  }
  TRY(scale, perAxisParam(scale0, x, "x_scale"));
  TRYT(y, tgc::mul(centered, scale));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convPRelu() {
  TRY(x, in(0));
  TRY(slope0, in(1));
  Tensor slope = slope0;
  // Old exporters give a per-channel [C] slope for an [N, C, ...] input.
  if (slope.rank() == 1 && x.rank() >= 3 && slope.dim(0) == x.dim(1) &&
      slope.dim(0) != x.dim(-1) && slope.dim(0) != 1) {
    std::vector<int64_t> shape(x.rank() - 1, 1);
    shape[0] = *slope.dim(0);
    TRYT(r, tgc::reshape(slope, shape));
    slope = r;
  }
  TRYT(neg, tgc::less(x, Scalar(0)));
  TRYT(scaled, tgc::mul(x, slope));
  TRYT(y, tgc::select(neg, scaled, x));
  if (typeOf(y).getShape() != typeOf(x).getShape())
    return fail("slope " + slope.describe() + " must broadcast to the input " +
                x.describe());
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convLeakyRelu() {
  TRY(x, in(0));
  TRY(alpha, attrFloat("alpha", 0.01));
  TRYT(y, tgc::leakyRelu(x, alpha));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convElu() {
  TRY(x, in(0));
  TRY(alpha, attrFloat("alpha", 1.0));
  TRYT(y, tgc::elu(x, alpha));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convSelu() {
  TRY(x, in(0));
  TRY(alpha, attrFloat("alpha", 1.67326319217681884765625));
  TRY(gamma, attrFloat("gamma", 1.05070102214813232421875));
  TRYT(e, tgc::elu(x, alpha));
  TRYT(y, tgc::mul(e, Scalar(gamma)));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convCelu() {
  TRY(x, in(0));
  TRY(alpha, attrFloat("alpha", 1.0));
  if (alpha == 0)
    return fail("attribute 'alpha' must not be 0");
  TRYT(pos, tgc::relu(x));
  TRYT(scaled, tgc::div(x, Scalar(alpha)));
  TRYT(e, tgc::exp(scaled));
  TRYT(em1, tgc::sub(e, Scalar(1.0)));
  TRYT(ae, tgc::mul(em1, Scalar(alpha)));
  TRYT(negPart, tgc::minimum(ae, Scalar(0.0)));
  TRYT(y, tgc::add(pos, negPart));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convHardSigmoid() {
  TRY(x, in(0));
  TRY(alpha, attrFloat("alpha", 0.2));
  TRY(beta, attrFloat("beta", 0.5));
  TRYT(ax, tgc::mul(x, Scalar(alpha)));
  TRYT(axb, tgc::add(ax, Scalar(beta)));
  TRYT(y, tgc::clamp(axb, 0.0, 1.0));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convHardSwish() {
  TRY(x, in(0));
  TRYT(ax, tgc::mul(x, Scalar(1.0 / 6.0)));
  TRYT(axb, tgc::add(ax, Scalar(0.5)));
  TRYT(hs, tgc::clamp(axb, 0.0, 1.0));
  TRYT(y, tgc::mul(x, hs));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convSoftplus() {
  TRY(x, in(0));
  TRYT(e, tgc::exp(x));
  TRYT(e1, tgc::add(e, Scalar(1.0)));
  TRYT(y, tgc::log(e1));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convSoftsign() {
  TRY(x, in(0));
  TRYT(a, tgc::abs(x));
  TRYT(a1, tgc::add(a, Scalar(1.0)));
  TRYT(y, tgc::div(x, a1));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convMish() {
  TRY(x, in(0));
  TRYT(e, tgc::exp(x));
  TRYT(e1, tgc::add(e, Scalar(1.0)));
  TRYT(sp, tgc::log(e1));
  TRYT(t, tgc::tanh(sp));
  TRYT(y, tgc::mul(x, t));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convThresholdedRelu() {
  TRY(x, in(0));
  TRY(alpha, attrFloat("alpha", 1.0));
  TRYT(mask, tgc::greater(x, Scalar(alpha)));
  TRYT(y, tgc::select(mask, x, Scalar(0.0)));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convShrink() {
  TRY(x, in(0));
  TRY(bias, attrFloat("bias", 0.0));
  TRY(lambd, attrFloat("lambd", 0.5));
  TRYT(lo, tgc::less(x, Scalar(-lambd)));
  TRYT(hi, tgc::greater(x, Scalar(lambd)));
  TRYT(xpb, tgc::add(x, Scalar(bias)));
  TRYT(xmb, tgc::sub(x, Scalar(bias)));
  TRYT(inner, tgc::select(hi, xmb, Scalar(0.0)));
  TRYT(y, tgc::select(lo, xpb, inner));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convTan() {
  TRY(x, in(0));
  TRYT(s, tgc::sin(x));
  TRYT(c, tgc::cos(x));
  TRYT(y, tgc::div(s, c));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convSinh() {
  TRY(x, in(0));
  TRYT(e, tgc::exp(x));
  TRYT(nx, tgc::neg(x));
  TRYT(en, tgc::exp(nx));
  TRYT(d, tgc::sub(e, en));
  TRYT(y, tgc::mul(d, Scalar(0.5)));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convCosh() {
  TRY(x, in(0));
  TRYT(e, tgc::exp(x));
  TRYT(nx, tgc::neg(x));
  TRYT(en, tgc::exp(nx));
  TRYT(d, tgc::add(e, en));
  TRYT(y, tgc::mul(d, Scalar(0.5)));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convAsinh() {
  TRY(x, in(0));
  TRYT(x2, tgc::mul(x, x));
  TRYT(x21, tgc::add(x2, Scalar(1.0)));
  TRYT(r, tgc::sqrt(x21));
  TRYT(s, tgc::add(x, r));
  TRYT(y, tgc::log(s));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convAcosh() {
  TRY(x, in(0));
  TRYT(x2, tgc::mul(x, x));
  TRYT(x21, tgc::sub(x2, Scalar(1.0)));
  TRYT(r, tgc::sqrt(x21));
  TRYT(s, tgc::add(x, r));
  TRYT(y, tgc::log(s));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convAtanh() {
  TRY(x, in(0));
  TRYT(num, tgc::add(Scalar(1.0), x));
  TRYT(den, tgc::sub(Scalar(1.0), x));
  TRYT(q, tgc::div(num, den));
  TRYT(l, tgc::log(q));
  TRYT(y, tgc::mul(l, Scalar(0.5)));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convIsNaN() {
  TRY(x, in(0));
  TRYT(y, tgc::notEqual(x, x));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convIsInf() {
  TRY(x, in(0));
  TRY(detectNeg, attrInt("detect_negative", 1));
  TRY(detectPos, attrInt("detect_positive", 1));
  double inf = std::numeric_limits<double>::infinity();
  TRYT(pos, tgc::equal(x, Scalar(inf)));
  TRYT(neg, tgc::equal(x, Scalar(-inf)));
  Tensor y;
  if (detectNeg && detectPos) {
    TRYT(both, tgc::logicalOr(pos, neg));
    y = both;
  } else if (detectPos) {
    y = pos;
  } else if (detectNeg) {
    y = neg;
  } else {
    TRYT(none, tgc::notEqual(pos, pos));
    y = none;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convClip() {
  TRY(x, in(0));
  std::optional<double> lo, hi;
  Tensor loT, hiT;
  if (opset < 11) {
    TRY(a, attrFloat("min"));
    TRY(b, attrFloat("max"));
    lo = a;
    hi = b;
  } else {
    for (int i = 1; i <= 2; ++i) {
      if (!has(i))
        continue;
      TRY(c, constIn(i));
      if (c && c->numElements() == 1) {
        (i == 1 ? lo : hi) = c->getDouble(0);
        continue;
      }
      TRY(t, in(i));
      (i == 1 ? loT : hiT) = t;
    }
  }
  Tensor y = x;
  if (lo || hi) {
    double inf = std::numeric_limits<double>::infinity();
    double l = lo.value_or(-inf), h = hi.value_or(inf);
    if (l > h) {
      // ONNX: min > max gives max everywhere.
      TRYT(full, tgc::clamp(y, h, h));
      y = full;
    } else {
      TRYT(c, tgc::clamp(y, l, h));
      y = c;
    }
  }
  if (loT.valid()) {
    TRYT(m, tgc::maximum(y, loT));
    y = m;
  }
  if (hiT.valid()) {
    TRYT(m, tgc::minimum(y, hiT));
    y = m;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convWhere() {
  TRY(c, in(0));
  TRY(a, in(1));
  TRY(b, in(2));
  TRYT(y, tgc::select(c, a, b));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convCast() {
  TRY(x, in(0));
  TRY(to, attrInt("to"));
  if (!to)
    return fail("attribute 'to' is required");
  std::optional<DType> dtype = dtypeFromOnnx(static_cast<int32_t>(*to));
  if (!dtype)
    return unsupported("casting to " + onnxTypeName(static_cast<int32_t>(*to)) +
                       " is not supported (tgc has no such element type)");
  if (*dtype == x.dtype()) {
    out(0, x);
    return llvm::Error::success();
  }
  TRYT(y, tgc::cast(x, *dtype));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convCastLike() {
  TRY(x, in(0));
  TRY(like, in(1));
  if (like.dtype() == x.dtype()) {
    out(0, x);
    return llvm::Error::success();
  }
  TRYT(y, tgc::cast(x, like.dtype()));
  out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Contractions, convolution and pooling
//===----------------------------------------------------------------------===//

llvm::Error Importer::convMatMul() {
  TRY(a0, in(0));
  TRY(b0, in(1));
  if (a0.rank() == 0 || b0.rank() == 0)
    return fail("MatMul operands must have rank >= 1");
  Tensor a = a0, b = b0;
  bool vecA = a.rank() == 1, vecB = b.rank() == 1;
  if (vecA) {
    TRYT(t, tgc::unsqueeze(a, {0}));
    a = t;
  }
  if (vecB) {
    TRYT(t, tgc::unsqueeze(b, {1}));
    b = t;
  }
  TRYT(y0, tgc::matmul(a, b));
  Tensor y = y0;
  if (vecA && vecB) {
    TRYT(t, tgc::squeeze(y, {-2, -1}));
    y = t;
  } else if (vecA) {
    TRYT(t, tgc::squeeze(y, {-2}));
    y = t;
  } else if (vecB) {
    TRYT(t, tgc::squeeze(y, {-1}));
    y = t;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convGemm() {
  TRY(a, in(0));
  TRY(b, in(1));
  TRY(alpha, attrFloat("alpha", 1.0));
  TRY(beta, attrFloat("beta", 1.0));
  TRY(transA, attrInt("transA", 0));
  TRY(transB, attrInt("transB", 0));
  if (a.rank() != 2 || b.rank() != 2)
    return fail("Gemm operands must have rank 2, not " + a.describe() +
                " and " + b.describe());
  MatmulOptions mm;
  mm.transposeA = transA != 0;
  mm.transposeB = transB != 0;
  TRYT(ab, tgc::matmul(a, b, mm));
  Tensor y = ab;
  if (alpha != 1.0) {
    TRYT(t, tgc::mul(y, Scalar(alpha)));
    y = t;
  }
  if (has(2) && beta != 0.0) {
    TRY(c, in(2));
    Tensor bc = c;
    if (beta != 1.0) {
      TRYT(t, tgc::mul(c, Scalar(beta)));
      bc = t;
    }
    TRYT(sum, tgc::add(y, bc));
    if (sum.rank() != 2)
      return fail("C " + c.describe() + " must broadcast to the product " +
                  y.describe());
    y = sum;
  }
  out(0, y);
  return llvm::Error::success();
}

/// Padding [begin..., end...] for SAME auto_pad (or explicit pads), over the
/// spatial dims of an NCHW input.
llvm::Expected<std::vector<int64_t>>
Importer::spatialPads(const Tensor &x, llvm::ArrayRef<int64_t> kernel,
                      llvm::ArrayRef<int64_t> strides,
                      llvm::ArrayRef<int64_t> dilations, bool ceilOutputs) {
  size_t n = kernel.size();
  TRY(autoPad, attrString("auto_pad", "NOTSET"));
  TRY(pads, attrInts("pads"));
  if (autoPad == "NOTSET") {
    if (!pads)
      return std::vector<int64_t>(2 * n, 0);
    if (pads->size() != 2 * n)
      return fail("attribute 'pads' has " + llvm::Twine(pads->size()) +
                  " values; " + llvm::Twine(2 * n) + " expected");
    for (int64_t p : *pads)
      if (p < 0)
        return fail("attribute 'pads' " + listOf(*pads) +
                    " must be non-negative");
    return *pads;
  }
  if (autoPad == "VALID")
    return std::vector<int64_t>(2 * n, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return fail("attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER "
                "or VALID, not '" +
                autoPad + "'");
  std::vector<int64_t> result(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    std::optional<int64_t> size = x.dim(static_cast<int64_t>(2 + i));
    if (!size)
      return unsupported("auto_pad " + autoPad +
                         " needs static spatial dims, not " + x.describe());
    int64_t outSize = (*size + strides[i] - 1) / strides[i];
    int64_t total =
        std::max<int64_t>(0, (outSize - 1) * strides[i] +
                                 (kernel[i] - 1) * dilations[i] + 1 - *size);
    (void)ceilOutputs;
    int64_t small = total / 2, large = total - small;
    result[i] = autoPad == "SAME_UPPER" ? small : large;
    result[i + n] = autoPad == "SAME_UPPER" ? large : small;
  }
  return result;
}

llvm::Error Importer::convConv() {
  TRY(x, in(0));
  TRY(w, in(1));
  std::optional<Tensor> bias;
  if (has(2)) {
    TRY(b, in(2));
    bias = b;
  }
  TRY(y, convolve(x, w, bias));
  out(0, y);
  return llvm::Error::success();
}

/// The node's Conv attributes applied to `x0` and `w0` (Conv, ConvInteger,
/// QLinearConv).
llvm::Expected<Tensor> Importer::convolve(const Tensor &x0, const Tensor &w0,
                                          std::optional<Tensor> bias) {
  int64_t rank = x0.rank();
  if (rank != 3 && rank != 4)
    return unsupported(
        "only 1-D and 2-D convolutions are supported: the input " +
        x0.describe() + " is not supported");
  if (w0.rank() != rank)
    return fail("weight " + w0.describe() +
                " must have the rank of the input " + x0.describe());
  size_t n = static_cast<size_t>(rank - 2);
  std::vector<int64_t> kernel;
  for (size_t i = 0; i < n; ++i) {
    std::optional<int64_t> k = w0.dim(static_cast<int64_t>(2 + i));
    if (!k)
      return unsupported("the weight's spatial dims must be static");
    kernel.push_back(*k);
  }
  TRY(kernelAttr, attrInts("kernel_shape"));
  if (kernelAttr && *kernelAttr != kernel)
    return fail("attribute 'kernel_shape' " + listOf(*kernelAttr) +
                " does not match the weight " + w0.describe());
  TRY(stridesAttr, attrInts("strides"));
  TRY(dilationsAttr, attrInts("dilations"));
  std::vector<int64_t> strides =
      stridesAttr.value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations =
      dilationsAttr.value_or(std::vector<int64_t>(n, 1));
  if (strides.size() != n || dilations.size() != n)
    return fail("attributes 'strides' and 'dilations' need " + llvm::Twine(n) +
                " values");
  for (size_t i = 0; i < n; ++i)
    if (strides[i] < 1 || dilations[i] < 1)
      return fail("strides and dilations must be >= 1");
  TRY(group, attrInt("group", 1));
  if (group < 1)
    return fail("attribute 'group' must be >= 1, not " + llvm::Twine(group));
  TRY(pads, spatialPads(x0, kernel, strides, dilations, false));

  Tensor x = x0, w = w0;
  Conv2DOptions opts;
  opts.groups = group;
  if (n == 1) {
    TRYT(xu, tgc::unsqueeze(x0, {2}));
    TRYT(wu, tgc::unsqueeze(w0, {2}));
    x = xu;
    w = wu;
    opts.strides = {1, strides[0]};
    opts.dilations = {1, dilations[0]};
    opts.padding = {0, pads[0], 0, pads[1]};
  } else {
    opts.strides = strides;
    opts.dilations = dilations;
    opts.padding = pads;
  }
  TRYT(y0, tgc::conv2d(x, w, bias, opts));
  Tensor y = y0;
  if (n == 1) {
    TRYT(t, tgc::squeeze(y0, {2}));
    y = t;
  }
  return y;
}

/// `x - zeroPoint` in `type`, where a 1-D zero point of more than one element
/// runs along dim `axis` of `x` (per-row, per-column or per-channel).
llvm::Expected<Tensor> Importer::subtractZeroPoint(const Tensor &x,
                                                   std::optional<Tensor> zp0,
                                                   int64_t axis, DType type) {
  TRYT(xc, tgc::cast(x, type));
  if (!zp0)
    return xc;
  TRYT(zpc, tgc::cast(*zp0, type));
  Tensor zp = zpc;
  if (zp.rank() == 1 && zp.dim(0) != 1) {
    if (axis < 0 || axis >= x.rank())
      return fail("zero point " + zp0->describe() +
                  " does not fit the operand " + x.describe());
    std::vector<int64_t> shape(static_cast<size_t>(x.rank() - axis), 1);
    shape[0] = zp.dim(0).value_or(kDynamic);
    TRY(r, reshapeTo(zp, shape));
    zp = r;
  } else if (zp.rank() > 1) {
    return fail("zero point " + zp0->describe() + " must be a scalar or 1-D");
  }
  TRYT(d, tgc::sub(xc, zp));
  return d;
}

llvm::Error Importer::convConvInteger() {
  // int32 result of a convolution of (x - x_zero_point) and
  // (w - w_zero_point), computed in f64: exact for every 8-bit input.
  TRY(x0, in(0));
  TRY(w0, in(1));
  std::optional<Tensor> xzp, wzp;
  if (has(2)) {
    TRY(t, in(2));
    xzp = t;
  }
  if (has(3)) {
    TRY(t, in(3));
    wzp = t;
  }
  TRY(x, subtractZeroPoint(x0, xzp, 1, DType::F64));
  TRY(w, subtractZeroPoint(w0, wzp, 0, DType::F64));
  TRY(y, convolve(x, w, std::nullopt));
  TRYT(yi, tgc::cast(y, DType::I32));
  out(0, yi);
  return llvm::Error::success();
}

/// The int32 product (a - a_zero_point) @ (b - b_zero_point) of 2-D or
/// batched operands (a per-row zero point runs along a's rows, a per-column
/// one along b's columns).
llvm::Expected<Tensor> Importer::integerMatmul(const Tensor &a0,
                                               std::optional<Tensor> azp,
                                               const Tensor &b0,
                                               std::optional<Tensor> bzp) {
  if (a0.rank() < 2 || b0.rank() < 2)
    return unsupported("integer matmul of " + a0.describe() + " and " +
                       b0.describe() +
                       ": operands of rank 1 are not supported");
  TRY(a, subtractZeroPoint(a0, azp, a0.rank() - 2, DType::I32));
  TRY(b, subtractZeroPoint(b0, bzp, b0.rank() - 1, DType::I32));
  TRYT(y, tgc::matmul(a, b));
  return y;
}

llvm::Error Importer::convMatMulInteger() {
  TRY(a, in(0));
  TRY(b, in(1));
  std::optional<Tensor> azp, bzp;
  if (has(2)) {
    TRY(t, in(2));
    azp = t;
  }
  if (has(3)) {
    TRY(t, in(3));
    bzp = t;
  }
  TRY(y, integerMatmul(a, azp, b, bzp));
  out(0, y);
  return llvm::Error::success();
}

/// Requantizes an int32 accumulator: saturate(round_half_even(acc * scale) +
/// zero_point) in the zero point's type, with `scale` a float tensor that
/// broadcasts against `acc`.
llvm::Expected<Tensor>
Importer::requantize(const Tensor &acc, const Tensor &scale, const Tensor &zp) {
  TRYT(accf, tgc::cast(acc, scale.dtype()));
  TRYT(scaled, tgc::mul(accf, scale));
  TRYT(rounded, tgc::round(scaled));
  TRYT(zpf, tgc::cast(zp, scale.dtype()));
  TRYT(shifted, tgc::add(rounded, zpf));
  double lo, hi;
  if (zp.dtype() == DType::UI8)
    lo = 0, hi = 255;
  else if (zp.dtype() == DType::I8)
    lo = -128, hi = 127;
  else
    return unsupported("quantizing to " + zp.describe() + " is not supported");
  TRYT(clamped, tgc::clamp(shifted, lo, hi));
  TRYT(y, tgc::cast(clamped, zp.dtype()));
  return y;
}

llvm::Error Importer::convQLinearMatMul() {
  TRY(a, in(0));
  TRY(as, in(1));
  TRY(azp, in(2));
  TRY(b, in(3));
  TRY(bs, in(4));
  TRY(bzp, in(5));
  TRY(ys, in(6));
  TRY(yzp, in(7));
  for (const Tensor *s : {&as, &bs, &ys})
    if (s->rank() != 0 && !(s->rank() == 1 && s->dim(0) == 1))
      return unsupported("per-row or per-column scales are not supported");
  TRY(acc, integerMatmul(a, azp, b, bzp));
  TRYT(abs, tgc::mul(as, bs));
  TRYT(scale, tgc::div(abs, ys));
  TRY(y, requantize(acc, scale, yzp));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convQLinearConv() {
  TRY(x0, in(0));
  TRY(xs, in(1));
  TRY(xzp, in(2));
  TRY(w0, in(3));
  TRY(ws0, in(4));
  TRY(wzp, in(5));
  TRY(ys, in(6));
  TRY(yzp, in(7));
  // The int32 accumulator (plus the int32 bias) is exact in f64.
  TRY(x, subtractZeroPoint(x0, xzp, 1, DType::F64));
  TRY(w, subtractZeroPoint(w0, wzp, 0, DType::F64));
  std::optional<Tensor> bias;
  if (has(8)) {
    TRY(b, in(8));
    TRYT(bf, tgc::cast(b, DType::F64));
    bias = bf;
  }
  TRY(acc, convolve(x, w, bias));
  // A per-output-channel w_scale runs along the result's dim 1.
  Tensor ws = ws0;
  if (ws0.rank() == 1 && ws0.dim(0) != 1) {
    std::vector<int64_t> shape(static_cast<size_t>(acc.rank() - 1), 1);
    shape[0] = ws0.dim(0).value_or(kDynamic);
    TRY(r, reshapeTo(ws0, shape));
    ws = r;
  }
  TRYT(xws, tgc::mul(xs, ws));
  TRYT(scale, tgc::div(xws, ys));
  TRY(y, requantize(acc, scale, yzp));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convPool() {
  bool isMax = node->op_type() == "MaxPool";
  TRY(x0, in(0));
  int64_t rank = x0.rank();
  if (rank != 3 && rank != 4)
    return unsupported("only 1-D and 2-D pooling is supported: the input " +
                       x0.describe() + " is not supported");
  if (isMax && wantsOutput(1))
    return unsupported("the Indices output of MaxPool is not supported");
  size_t n = static_cast<size_t>(rank - 2);
  TRY(kernelAttr, attrInts("kernel_shape"));
  if (!kernelAttr)
    return fail("attribute 'kernel_shape' is required");
  std::vector<int64_t> kernel = *kernelAttr;
  TRY(stridesAttr, attrInts("strides"));
  TRY(dilationsAttr, attrInts("dilations"));
  std::vector<int64_t> strides =
      stridesAttr.value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations =
      dilationsAttr.value_or(std::vector<int64_t>(n, 1));
  if (kernel.size() != n || strides.size() != n || dilations.size() != n)
    return fail("attributes 'kernel_shape', 'strides' and 'dilations' need " +
                llvm::Twine(n) + " values");
  for (size_t i = 0; i < n; ++i)
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1)
      return fail("kernel_shape, strides and dilations must be >= 1");
  TRY(ceilMode, attrInt("ceil_mode", 0));
  TRY(countIncludePad, attrInt("count_include_pad", 0));
  TRY(storageOrder, attrInt("storage_order", 0));
  (void)storageOrder;
  TRY(pads, spatialPads(x0, kernel, strides, dilations, ceilMode != 0));

  // Integer MaxPool (ONNX allows 8-bit inputs) pools in f32, which holds
  // every 8- and 16-bit integer exactly; max commutes with the casts.
  Tensor x = x0;
  DType dtype = x0.dtype();
  bool viaF32 = isMax && (dtype == DType::I8 || dtype == DType::UI8 ||
                          dtype == DType::I16 || dtype == DType::UI16);
  if (!runtime::isFloatDType(dtype) && !viaF32)
    return unsupported("pooling " + x0.describe() + " is not supported");
  if (viaF32) {
    TRYT(xf, tgc::cast(x0, DType::F32));
    x = xf;
  }
  Pool2DOptions opts;
  opts.ceilMode = ceilMode != 0;
  opts.countIncludePad = countIncludePad != 0;
  if (n == 1) {
    TRYT(xu, tgc::unsqueeze(x, {2}));
    x = xu;
    opts.kernel = {1, kernel[0]};
    opts.strides = {1, strides[0]};
    opts.dilations = {1, dilations[0]};
    opts.padding = {0, pads[0], 0, pads[1]};
  } else {
    opts.kernel = kernel;
    opts.strides = strides;
    opts.dilations = dilations;
    opts.padding = pads;
  }
  TRYT(y0, isMax ? tgc::maxPool2d(x, opts) : tgc::avgPool2d(x, opts));
  Tensor y = y0;
  if (n == 1) {
    TRYT(t, tgc::squeeze(y0, {2}));
    y = t;
  }
  if (viaF32) {
    TRYT(yi, tgc::cast(y, dtype));
    y = yi;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convGlobalPool() {
  TRY(x, in(0));
  bool isMax = node->op_type() == "GlobalMaxPool";
  if (x.rank() < 3)
    return fail("input " + x.describe() + " must have rank >= 3");
  if (!isMax && x.rank() == 4) {
    TRYT(y, tgc::globalAvgPool2d(x));
    out(0, y);
    return llvm::Error::success();
  }
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < x.rank(); ++d)
    axes.push_back(d);
  TRYT(y,
       isMax ? tgc::reduceMax(x, axes, true) : tgc::reduceMean(x, axes, true));
  out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

llvm::Error Importer::convBatchNorm() {
  TRY(x, in(0));
  TRY(training, attrInt("training_mode", 0));
  if (training != 0)
    return unsupported("training mode (training_mode = 1) is not supported");
  for (int i = 1; i < node->output_size(); ++i)
    if (wantsOutput(i))
      return fail("the training outputs (running statistics) are not "
                  "supported");
  TRY(eps, attrFloat("epsilon", 1e-5));
  std::vector<Tensor> params;
  for (int i = 1; i <= 4; ++i) {
    TRY(p, in(i));
    Tensor t = p;
    if (p.dtype() != x.dtype()) {
      TRYT(c, tgc::cast(p, x.dtype()));
      t = c;
    }
    params.push_back(t);
  }
  TRYT(y,
       tgc::batchNorm(x, params[0], params[1], params[2], params[3], eps, 1));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convInstanceNorm() {
  TRY(x, in(0));
  TRY(scale, in(1));
  TRY(bias, in(2));
  TRY(eps, attrFloat("epsilon", 1e-5));
  if (x.rank() < 3)
    return fail("input " + x.describe() + " must have rank >= 3");
  std::vector<int64_t> axes, paramShape = {kDynamic};
  for (int64_t d = 2; d < x.rank(); ++d) {
    axes.push_back(d);
    paramShape.push_back(1);
  }
  TRYT(mean, tgc::reduceMean(x, axes, true));
  TRYT(centered, tgc::sub(x, mean));
  TRYT(sq, tgc::mul(centered, centered));
  TRYT(var, tgc::reduceMean(sq, axes, true));
  TRYT(ve, tgc::add(var, Scalar(eps)));
  TRYT(inv, tgc::rsqrt(ve));
  TRYT(normed, tgc::mul(centered, inv));
  TRY(s, reshapeTo(scale, paramShape));
  TRY(b, reshapeTo(bias, paramShape));
  TRYT(scaled, tgc::mul(normed, s));
  TRYT(y, tgc::add(scaled, b));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convLayerNorm() {
  TRY(x, in(0));
  TRY(axis, axisAttr("axis", -1, x.rank()));
  TRY(eps, attrFloat("epsilon", 1e-5));
  std::vector<int64_t> xShape = x.shape();
  std::vector<int64_t> normShape(xShape.begin() + axis, xShape.end());
  auto fit = [&](int i) -> llvm::Expected<std::optional<Tensor>> {
    if (!has(i))
      return std::optional<Tensor>();
    TRY(p, in(i));
    Tensor t = p;
    if (t.dtype() != x.dtype()) {
      TRYT(c, tgc::cast(t, x.dtype()));
      t = c;
    }
    if (t.shape() != normShape) {
      if (llvm::is_contained(normShape, kDynamic))
        return fail("input #" + llvm::Twine(i) + " " + p.describe() +
                    " must have the normalized shape " + listOf(normShape));
      TRYT(bc, tgc::broadcastTo(t, normShape));
      t = bc;
    }
    return std::optional<Tensor>(t);
  };
  TRY(scale, fit(1));
  TRY(bias, fit(2));
  TRYT(y, tgc::layerNorm(x, scale, bias, axis, eps));
  out(0, y);
  if (wantsOutput(1) || wantsOutput(2)) {
    std::vector<int64_t> axes;
    for (int64_t d = axis; d < x.rank(); ++d)
      axes.push_back(d);
    TRYT(mean, tgc::reduceMean(x, axes, true));
    TRYT(centered, tgc::sub(x, mean));
    TRYT(sq, tgc::mul(centered, centered));
    TRYT(var, tgc::reduceMean(sq, axes, true));
    TRYT(ve, tgc::add(var, Scalar(eps)));
    TRYT(inv, tgc::rsqrt(ve));
    out(1, mean);
    out(2, inv);
  }
  return llvm::Error::success();
}

llvm::Error Importer::convLpNorm() {
  TRY(x, in(0));
  TRY(axis, axisAttr("axis", -1, x.rank()));
  TRY(p, attrInt("p", 2));
  if (p != 1 && p != 2)
    return fail("attribute 'p' must be 1 or 2, not " + llvm::Twine(p));
  Tensor norm;
  if (p == 1) {
    TRYT(a, tgc::abs(x));
    TRYT(s, tgc::reduceSum(a, {axis}, true));
    norm = s;
  } else {
    TRYT(sq, tgc::mul(x, x));
    TRYT(s, tgc::reduceSum(sq, {axis}, true));
    TRYT(r, tgc::sqrt(s));
    norm = r;
  }
  TRYT(y, tgc::div(x, norm));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convMeanVarianceNorm() {
  TRY(x, in(0));
  TRY(axesAttr, attrInts("axes"));
  std::vector<int64_t> axes = axesAttr.value_or(std::vector<int64_t>{0, 2, 3});
  TRYT(mean, tgc::reduceMean(x, axes, true));
  TRYT(meanSq, tgc::mul(mean, mean));
  TRYT(sq, tgc::mul(x, x));
  TRYT(sqMean, tgc::reduceMean(sq, axes, true));
  TRYT(var, tgc::sub(sqMean, meanSq));
  TRYT(stddev, tgc::sqrt(var));
  TRYT(centered, tgc::sub(x, mean));
  TRYT(den, tgc::add(stddev, Scalar(1e-9)));
  TRYT(y, tgc::div(centered, den));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convSoftmax() {
  const std::string &op = node->op_type();
  TRY(x, in(0));
  if (x.rank() == 0)
    return fail("input must have rank >= 1");
  TRY(axis, axisAttr("axis", opset < 13 ? 1 : -1, x.rank()));
  auto apply = [&](const Tensor &t, int64_t a) -> llvm::Expected<Tensor> {
    if (op == "Softmax") {
      TRYT(y, tgc::softmax(t, a));
      return y;
    }
    if (op == "LogSoftmax") {
      TRYT(y, tgc::logSoftmax(t, a));
      return y;
    }
    // Hardmax: 1 at the first maximum along the axis.
    std::optional<int64_t> size = t.dim(a);
    if (!size)
      return unsupported("Hardmax needs a static size along the axis");
    TRYT(idx, tgc::argmax(t, a, true));
    std::vector<int64_t> iotaShape(t.rank(), 1);
    iotaShape[a] = *size;
    auto iota = HostTensor::allocate(DType::I64, iotaShape);
    if (!iota.ok())
      return fail(std::string(iota.status().message()));
    for (int64_t k = 0; k < *size; ++k)
      iota->setInt(k, k);
    TRYT(iotaT, constantTensor(*iota));
    TRYT(hot, tgc::equal(idx, iotaT));
    TRYT(y, tgc::cast(hot, t.dtype()));
    return y;
  };
  if (opset >= 13 || axis == x.rank() - 1) {
    TRY(y, apply(x, axis));
    out(0, y);
    return llvm::Error::success();
  }
  // Before opset 13 the input is coerced to 2-D [prod(:axis), prod(axis:)].
  std::vector<int64_t> shape = x.shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t &part = d < axis ? outer : inner;
    if (shape[d] == kDynamic || part == kDynamic)
      part = kDynamic;
    else
      part *= shape[d];
  }
  if (inner == kDynamic)
    return unsupported("opset < 13 " + op +
                       " needs static dims from the axis on");
  TRY(flat, reshapeTo(x, {outer, inner}));
  TRY(y2, apply(flat, 1));
  std::vector<int64_t> back = shape;
  if (llvm::count(back, kDynamic) > 1)
    return fail("cannot restore the shape " + x.describe());
  TRY(y, reshapeTo(y2, back));
  out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<int64_t>> Importer::reduceAxes(int64_t rank) {
  std::vector<int64_t> axes;
  bool fromInput = node->op_type() == "ReduceSum" && opset >= 13;
  if (fromInput) {
    if (has(1)) {
      TRY(a, constInts(1, "axes"));
      axes = a;
    }
  } else {
    TRY(a, attrInts("axes"));
    if (a)
      axes = *a;
  }
  std::vector<int64_t> normalized;
  for (int64_t a : axes) {
    TRY(n, normalizeAxis(a, rank));
    normalized.push_back(n);
  }
  return normalized;
}

llvm::Expected<bool> Importer::attrFlag(llvm::StringRef name, bool dflt) {
  TRY(value, attrInt(name, dflt ? 1 : 0));
  if (value != 0 && value != 1)
    return fail("attribute '" + name + "' must be 0 or 1, not " +
                llvm::Twine(value));
  return value == 1;
}

llvm::Error Importer::convReduce() {
  const std::string &op = node->op_type();
  TRY(x, in(0));
  TRY(keepdims, attrFlag("keepdims", true));
  TRY(noop, attrFlag("noop_with_empty_axes", false));
  TRY(axes, reduceAxes(x.rank()));
  if (axes.empty()) {
    if (noop || x.rank() == 0) {
      out(0, x);
      return llvm::Error::success();
    }
    for (int64_t d = 0; d < x.rank(); ++d)
      axes.push_back(d);
  }
  bool keep = keepdims;
  Tensor y;
  if (op == "ReduceSum") {
    TRYT(r, tgc::reduceSum(x, axes, keep));
    y = r;
  } else if (op == "ReduceMean") {
    TRYT(r, tgc::reduceMean(x, axes, keep));
    y = r;
  } else if (op == "ReduceMax") {
    TRYT(r, tgc::reduceMax(x, axes, keep));
    y = r;
  } else if (op == "ReduceMin") {
    TRYT(r, tgc::reduceMin(x, axes, keep));
    y = r;
  } else if (op == "ReduceProd") {
    TRYT(r, tgc::reduceProd(x, axes, keep));
    y = r;
  } else if (op == "ReduceL1") {
    TRYT(a, tgc::abs(x));
    TRYT(r, tgc::reduceSum(a, axes, keep));
    y = r;
  } else if (op == "ReduceL2") {
    TRYT(sq, tgc::mul(x, x));
    TRYT(s, tgc::reduceSum(sq, axes, keep));
    if (runtime::isFloatDType(x.dtype())) {
      TRYT(r, tgc::sqrt(s));
      y = r;
    } else {
      TRYT(f, tgc::cast(s, DType::F64));
      TRYT(r, tgc::sqrt(f));
      TRYT(c, tgc::cast(r, x.dtype()));
      y = c;
    }
  } else if (op == "ReduceSumSquare") {
    TRYT(sq, tgc::mul(x, x));
    TRYT(r, tgc::reduceSum(sq, axes, keep));
    y = r;
  } else if (op == "ReduceLogSum") {
    TRYT(s, tgc::reduceSum(x, axes, keep));
    TRYT(r, tgc::log(s));
    y = r;
  } else { // ReduceLogSumExp
    TRYT(e, tgc::exp(x));
    TRYT(s, tgc::reduceSum(e, axes, keep));
    TRYT(r, tgc::log(s));
    y = r;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convArgReduce() {
  TRY(x, in(0));
  TRY(axis, axisAttr("axis", 0, x.rank()));
  TRY(keepdims, attrFlag("keepdims", true));
  TRY(last, attrFlag("select_last_index", false));
  bool isMax = node->op_type() == "ArgMax";
  TRYT(y, isMax ? tgc::argmax(x, axis, keepdims, last)
                : tgc::argmin(x, axis, keepdims, last));
  out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

llvm::Error Importer::convReshape() {
  TRY(x, in(0));
  std::vector<int64_t> shape;
  if (opset < 5) {
    TRY(s, attrInts("shape"));
    if (!s)
      return fail("attribute 'shape' is required");
    shape = *s;
  } else {
    TRY(val, lookup(1));
    TRY(known, constIn(1));
    if (!known) {
      // A shape computed when the function runs. Known but for one element
      // (typically a dynamic batch): that one is inferred (-1) by a static
      // reshape; otherwise tgc.dynamic_reshape reads it at run time.
      std::optional<PartialInts> p;
      if (val->partial)
        p = *val->partial;
      TRY(allowZeroAttr, attrInt("allowzero", 0));
      if (p && !p->scalar) {
        int unknown = 0;
        bool minusOne = false;
        for (const auto &v : p->values) {
          unknown += !v;
          minusOne |= v && *v == -1;
        }
        if (unknown == 1 && !minusOne)
          for (const auto &v : p->values)
            shape.push_back(v ? *v : -1);
      }
      if (shape.empty()) {
        TRY(target, in(1));
        if (target.rank() != 1 || !target.dim(0))
          return fail("the shape input must be 1-D with a static length, not " +
                      target.describe());
        std::vector<int64_t> hint(*target.dim(0), kDynamic);
        if (p && p->values.size() == hint.size())
          for (auto [i, v] : llvm::enumerate(p->values))
            if (v && *v > 0)
              hint[i] = *v;
        TRY(x64, in(0));
        TRYT(y, tgc::dynamicReshape(x64,
                                    target.dtype() == DType::I64
                                        ? target
                                        : tgc::cast(target, DType::I64),
                                    hint, /*copyZeros=*/!allowZeroAttr));
        out(0, y);
        return llvm::Error::success();
      }
    } else {
      TRY(s, constInts(1, "shape"));
      shape = s;
    }
  }
  TRY(allowZero, attrInt("allowzero", 0));
  std::vector<int64_t> xs = x.shape();
  std::vector<int64_t> target;
  int inferred = 0;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == 0 && !allowZero) {
      if (i >= xs.size())
        return fail("shape " + listOf(shape) + " copies dim #" +
                    llvm::Twine(i) + " of the input " + x.describe() +
                    ", which has no such dim");
      target.push_back(xs[i]);
      inferred += xs[i] == kDynamic;
    } else if (d == -1) {
      target.push_back(kDynamic);
      ++inferred;
    } else if (d < 0) {
      return fail("shape " + listOf(shape) + " has invalid dim " +
                  llvm::Twine(d));
    } else {
      target.push_back(d);
    }
  }
  if (inferred > 1) {
    // Several unknown dims: resolve copied dynamic dims when the rest fits.
    return fail("cannot reshape " + x.describe() + " to " + listOf(shape) +
                ": more than one dim would be dynamic");
  }
  TRY(y, reshapeTo(x, target));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convFlatten() {
  TRY(x, in(0));
  TRY(axis, axisAttr("axis", 1, x.rank(), /*inclusive=*/true));
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> shape = x.shape();
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t &part = d < axis ? outer : inner;
    if (shape[d] == kDynamic || part == kDynamic)
      part = kDynamic;
    else
      part *= shape[d];
  }
  TRY(y, reshapeTo(x, {outer, inner}));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convSqueeze() {
  TRY(x, in(0));
  std::vector<int64_t> axes;
  if (opset < 13) {
    TRY(a, attrInts("axes"));
    if (a)
      axes = *a;
  } else if (has(1)) {
    TRY(a, constInts(1, "axes"));
    axes = a;
  }
  if (axes.empty()) {
    for (int64_t d = 0; d < x.rank(); ++d)
      if (x.dim(d) == 1)
        axes.push_back(d);
    if (axes.empty()) {
      out(0, x);
      return llvm::Error::success();
    }
  }
  TRYT(y, tgc::squeeze(x, axes));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convUnsqueeze() {
  TRY(x, in(0));
  std::vector<int64_t> axes;
  if (opset < 13) {
    TRY(a, attrInts("axes"));
    if (!a)
      return fail("attribute 'axes' is required");
    axes = *a;
  } else {
    TRY(a, constInts(1, "axes"));
    axes = a;
  }
  TRYT(y, tgc::unsqueeze(x, axes));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convTranspose() {
  TRY(x, in(0));
  TRY(perm, attrInts("perm"));
  TRYT(y, tgc::transpose(x, perm.value_or(std::vector<int64_t>{})));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convConcat() {
  std::vector<Tensor> inputs;
  for (int i = 0; i < numInputs(); ++i) {
    if (!has(i))
      continue;
    TRY(t, in(i));
    inputs.push_back(t);
  }
  if (inputs.empty())
    return fail("needs at least one input");
  TRY(axisOpt, attrInt("axis"));
  if (!axisOpt)
    return fail("attribute 'axis' is required");
  TRY(axis, normalizeAxis(*axisOpt, inputs[0].rank()));
  TRYT(y, tgc::concat(inputs, axis));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convSplit() {
  TRY(x, in(0));
  TRY(axis, axisAttr("axis", 0, x.rank()));
  std::optional<int64_t> size = x.dim(axis);
  if (!size)
    return unsupported("Split needs a static size along the axis");
  std::vector<int64_t> sizes;
  if (opset < 13) {
    TRY(s, attrInts("split"));
    if (s)
      sizes = *s;
  } else if (has(1)) {
    TRY(s, constInts(1, "split"));
    sizes = s;
  }
  int n = node->output_size();
  if (sizes.empty()) {
    if (n == 0 || *size % n != 0)
      return fail("the axis size " + llvm::Twine(*size) +
                  " does not split evenly into " + llvm::Twine(n) + " outputs");
    sizes.assign(n, *size / n);
  }
  if (static_cast<int>(sizes.size()) != n)
    return fail("split " + listOf(sizes) + " has " + llvm::Twine(sizes.size()) +
                " sizes for " + llvm::Twine(n) + " outputs");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return fail("split sizes must be non-negative");
    total += s;
  }
  if (total != *size)
    return fail("split " + listOf(sizes) +
                " does not add up to the axis size " + llvm::Twine(*size));
  int64_t start = 0;
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> starts(x.rank(), 0),
        ends(x.rank(), std::numeric_limits<int64_t>::max());
    starts[axis] = start;
    ends[axis] = start + sizes[i];
    start += sizes[i];
    TRYT(part, tgc::slice(x, starts, ends));
    out(i, part);
  }
  return llvm::Error::success();
}

llvm::Error Importer::convSlice() {
  TRY(x, in(0));
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    TRY(s, attrInts("starts"));
    TRY(e, attrInts("ends"));
    TRY(a, attrInts("axes"));
    if (!s || !e)
      return fail("attributes 'starts' and 'ends' are required");
    starts = *s;
    ends = *e;
    if (a)
      axes = *a;
  } else {
    TRY(s, constInts(1, "starts"));
    TRY(e, constInts(2, "ends"));
    starts = s;
    ends = e;
    if (has(3)) {
      TRY(a, constInts(3, "axes"));
      axes = a;
    }
    if (has(4)) {
      TRY(st, constInts(4, "steps"));
      steps = st;
    }
  }
  if (ends.size() != starts.size())
    return fail("starts and ends have different lengths");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(static_cast<int64_t>(i));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return fail("starts, ends, axes and steps must have the same length");
  int64_t rank = x.rank();
  std::vector<int64_t> fs(rank, 0),
      fe(rank, std::numeric_limits<int64_t>::max()), fst(rank, 1);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    TRY(a, normalizeAxis(axes[i], rank));
    if (seen[a])
      return fail("axis " + llvm::Twine(axes[i]) + " is repeated");
    seen[a] = true;
    if (steps[i] == 0)
      return fail("steps must not be 0");
    fs[a] = starts[i];
    fe[a] = ends[i];
    fst[a] = steps[i];
  }
  TRYT(y, tgc::slice(x, fs, fe, fst));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convPad() {
  TRY(x, in(0));
  TRY(mode, attrString("mode", "constant"));
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return unsupported("pad mode '" + mode +
                       "' is not supported (constant, reflect "
                       "and edge are)");
  std::vector<int64_t> pads;
  double value = 0.0;
  if (opset < 11) {
    TRY(p, attrInts("pads"));
    if (!p)
      return fail("attribute 'pads' is required");
    pads = *p;
    TRY(v, attrFloat("value", 0.0));
    value = v;
  } else {
    TRY(p, constInts(1, "pads"));
    pads = p;
    if (has(2)) {
      TRY(v, constScalar(2, "the constant value"));
      value = v;
    }
  }
  int64_t rank = x.rank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return fail("pads " + listOf(pads) +
                " must have 2 * rank = " + llvm::Twine(2 * rank) + " values");
  std::vector<int64_t> low(rank), high(rank), starts(rank), ends(rank);
  bool crop = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t lo = pads[d], hi = pads[d + rank];
    low[d] = std::max<int64_t>(lo, 0);
    high[d] = std::max<int64_t>(hi, 0);
    starts[d] = lo < 0 ? -lo : 0;
    ends[d] = hi < 0 ? hi : std::numeric_limits<int64_t>::max();
    crop |= lo < 0 || hi < 0;
  }
  Tensor src = x;
  if (crop) {
    TRYT(c, tgc::slice(x, starts, ends));
    src = c;
  }
  if (mode == "constant") {
    TRYT(y, tgc::pad(src, low, high, value));
    out(0, y);
    return llvm::Error::success();
  }
  // reflect / edge: concatenate mirrored or repeated border slices, one dim
  // at a time.
  Tensor y = src;
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  for (int64_t d = 0; d < rank; ++d) {
    if (!low[d] && !high[d])
      continue;
    std::optional<int64_t> size = y.dim(d);
    if (!size)
      return unsupported("pad mode '" + mode + "' needs static dims");
    if (mode == "reflect" && (low[d] >= *size || high[d] >= *size))
      return fail("reflect padding must be smaller than the dim (" +
                  llvm::Twine(*size) + ")");
    if (*size == 0)
      return fail("cannot " + mode + "-pad an empty dim");
    auto part = [&](int64_t start, int64_t end,
                    int64_t step) -> llvm::Expected<Tensor> {
      std::vector<int64_t> starts(rank, 0), ends(rank, kEnd), steps(rank, 1);
      starts[d] = start;
      // A negative end would count from the back: "before index 0" is
      // spelled -(size + 1).
      ends[d] = end < 0 ? -(*size + 1) : end;
      steps[d] = step;
      TRYT(t, tgc::slice(y, starts, ends, steps));
      return t;
    };
    std::vector<Tensor> pieces;
    if (low[d]) {
      if (mode == "reflect") {
        // x[low], x[low-1], ..., x[1]
        TRY(t, part(low[d], 0, -1));
        pieces.push_back(t);
      } else {
        TRY(t, part(0, 1, 1));
        for (int64_t k = 0; k < low[d]; ++k)
          pieces.push_back(t);
      }
    }
    pieces.push_back(y);
    if (high[d]) {
      if (mode == "reflect") {
        // x[n-2], ..., x[n-1-high]
        TRY(t, part(*size - 2, *size - 2 - high[d], -1));
        pieces.push_back(t);
      } else {
        TRY(t, part(*size - 1, *size, 1));
        for (int64_t k = 0; k < high[d]; ++k)
          pieces.push_back(t);
      }
    }
    TRYT(joined, tgc::concat(pieces, d));
    y = joined;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convGather() {
  TRY(data, in(0));
  TRY(indices, in(1));
  TRY(axis, axisAttr("axis", 0, data.rank()));
  TRYT(y, tgc::gather(data, indices, axis));
  out(0, y);
  return llvm::Error::success();
}

/// Row-major strides of a static shape.
static std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

llvm::Error Importer::convGatherElements() {
  TRY(data, in(0));
  TRY(indices0, in(1));
  TRY(axis, axisAttr("axis", 0, data.rank()));
  if (!data.hasStaticShape() || !indices0.hasStaticShape())
    return unsupported("GatherElements with dynamic shapes is not supported");
  if (indices0.rank() != data.rank())
    return fail("indices " + indices0.describe() +
                " must have the rank of the data " + data.describe());
  std::vector<int64_t> dataShape = data.shape(), idxShape = indices0.shape();
  std::vector<int64_t> strides = stridesOf(dataShape);
  // linear = wrap(idx) * stride[axis] + sum over the other dims of
  // coord[d] * stride[d]; then a gather from the flattened data.
  auto offsets = HostTensor::allocate(DType::I64, idxShape);
  if (!offsets.ok())
    return fail(std::string(offsets.status().message()));
  for (int64_t i = 0; i < offsets->numElements(); ++i) {
    std::vector<int64_t> coord = offsets->unflattenIndex(i);
    int64_t off = 0;
    for (int64_t d = 0; d < data.rank(); ++d)
      if (d != axis)
        off += coord[d] * strides[d];
    offsets->setInt(i, off);
  }
  Tensor idx = indices0;
  if (idx.dtype() != DType::I64) {
    TRYT(c, tgc::cast(idx, DType::I64));
    idx = c;
  }
  TRYT(isNeg, tgc::less(idx, Scalar(0)));
  TRYT(wrapped, tgc::add(idx, Scalar(dataShape[axis])));
  TRYT(fixed, tgc::select(isNeg, wrapped, idx));
  TRYT(scaled, tgc::mul(fixed, Scalar(strides[axis])));
  TRYT(offT, constantTensor(*offsets));
  TRYT(linear, tgc::add(scaled, offT));
  TRYT(flat, tgc::reshape(data, {*data.numElements()}));
  TRYT(y, tgc::gather(flat, linear, 0));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convGatherND() {
  TRY(data, in(0));
  TRY(indices0, in(1));
  TRY(batchDims, attrInt("batch_dims", 0));
  if (!data.hasStaticShape() || !indices0.hasStaticShape())
    return unsupported("GatherND with dynamic shapes is not supported");
  std::vector<int64_t> dataShape = data.shape(), idxShape = indices0.shape();
  int64_t r = data.rank(), q = indices0.rank(), b = batchDims;
  if (q < 1 || b < 0 || b >= std::min(r, q))
    return fail("batch_dims " + llvm::Twine(b) + " is out of range");
  int64_t k = idxShape[q - 1];
  if (k < 1 || b + k > r)
    return fail("the last dim of the indices (" + llvm::Twine(k) +
                ") must be in [1, rank(data) - batch_dims]");
  // linear = sum_j wrap(idx[..., j]) * stride_j + batch offset, indexing the
  // data reshaped to [prod(shape[:b+k]), shape[b+k:]...].
  std::vector<int64_t> outer(dataShape.begin(), dataShape.begin() + b + k);
  std::vector<int64_t> outerStrides = stridesOf(outer);
  auto dims = HostTensor::allocate(DType::I64, {k});
  auto steps = HostTensor::allocate(DType::I64, {k});
  for (int64_t j = 0; j < k; ++j) {
    dims->setInt(j, dataShape[b + j]);
    steps->setInt(j, outerStrides[b + j]);
  }
  std::vector<int64_t> posShape(idxShape.begin(), idxShape.end() - 1);
  auto batchOff = HostTensor::allocate(DType::I64, posShape);
  for (int64_t i = 0; i < batchOff->numElements(); ++i) {
    std::vector<int64_t> coord = batchOff->unflattenIndex(i);
    int64_t off = 0;
    for (int64_t d = 0; d < b; ++d)
      off += coord[d] * outerStrides[d];
    batchOff->setInt(i, off);
  }
  Tensor idx = indices0;
  if (idx.dtype() != DType::I64) {
    TRYT(c, tgc::cast(idx, DType::I64));
    idx = c;
  }
  TRYT(dimsT, constantTensor(*dims));
  TRYT(stepsT, constantTensor(*steps));
  TRYT(isNeg, tgc::less(idx, Scalar(0)));
  TRYT(wrapped, tgc::add(idx, dimsT));
  TRYT(fixed, tgc::select(isNeg, wrapped, idx));
  TRYT(scaled, tgc::mul(fixed, stepsT));
  TRYT(summed, tgc::reduceSum(scaled, {q - 1}, false));
  TRYT(offT, constantTensor(*batchOff));
  TRYT(linear, tgc::add(summed, offT));
  int64_t outerCount = 1;
  for (int64_t d : outer)
    outerCount *= d;
  std::vector<int64_t> flatShape = {outerCount};
  flatShape.insert(flatShape.end(), dataShape.begin() + b + k, dataShape.end());
  TRYT(flat, tgc::reshape(data, flatShape));
  TRYT(y, tgc::gather(flat, linear, 0));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convScatterElements() {
  TRY(data, in(0));
  TRY(indices, in(1));
  TRY(updates, in(2));
  TRY(axis, axisAttr("axis", 0, data.rank()));
  TRY(reduction, scatterReduction());
  TRYT(y, tgc::scatterElements(data, indices, updates, axis, reduction));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convScatterND() {
  TRY(data, in(0));
  TRY(indices, in(1));
  TRY(updates, in(2));
  TRY(reduction, scatterReduction());
  TRYT(y, tgc::scatterND(data, indices, updates, reduction));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convTopK() {
  TRY(x, in(0));
  TRY(axis, axisAttr("axis", -1, x.rank()));
  int64_t k;
  if (opset < 10) {
    TRY(kAttr, attrInt("k"));
    if (!kAttr)
      return fail("attribute 'k' is required");
    k = *kAttr;
  } else {
    TRY(ks, constInts(1, "K"));
    if (ks.size() != 1)
      return fail("K (input #1) must have one element, not " +
                  llvm::Twine(ks.size()));
    k = ks[0];
  }
  if (k < 0)
    return fail("K must be non-negative, not " + llvm::Twine(k));
  TRY(largest, attrInt("largest", 1));
  TRY(sorted, attrInt("sorted", 1));
  auto [values, indices] = tgc::topk(x, k, axis, largest != 0, sorted != 0);
  if (!values.valid() || !indices.valid())
    return traceFailure();
  out(0, values);
  out(1, indices);
  return llvm::Error::success();
}

llvm::Error Importer::convDropout() {
  TRY(x, in(0));
  if (opset >= 12 && has(2)) {
    TRY(training, constIn(2));
    if (!training)
      return unsupported("a non-constant training_mode is not supported");
    if (training->numElements() != 1)
      return fail("training_mode (input #2) must have one element, not " +
                  llvm::Twine(training->numElements()));
    // Training mode drops each element with probability `ratio` (default
    // 0.5) and scales the rest by 1 / (1 - ratio): random unless the ratio
    // is 0, where it is the identity (PyTorch exports attention dropout
    // of p = 0 this way, e.g. torchvision's Swin).
    if (training->getInt(0) != 0) {
      double ratio = 0.5;
      if (has(1)) {
        TRY(r, constIn(1));
        if (!r)
          return unsupported("training mode (training_mode = true) with a "
                             "non-constant ratio is not supported");
        if (r->numElements() != 1)
          return fail("ratio (input #1) must have one element, not " +
                      llvm::Twine(r->numElements()));
        ratio = r->getDouble(0);
      }
      if (ratio != 0)
        return unsupported("training mode (training_mode = true) with ratio " +
                           llvm::Twine(llvm::formatv("{0}", ratio).str()) +
                           " is random: only ratio 0 (the identity) is "
                           "supported");
    }
  }
  TRY(isTest, attrInt("is_test", 1));
  (void)isTest;
  out(0, x);
  if (wantsOutput(1)) {
    if (!x.hasStaticShape())
      return unsupported("the mask output needs a static shape");
    TRYT(mask, tgc::full(x.shape(), Scalar(1), DType::I1));
    out(1, mask);
  }
  return llvm::Error::success();
}

llvm::Error Importer::convConstant() {
  if (node->attribute_size() != 1)
    return fail("needs exactly one attribute, not " +
                llvm::Twine(node->attribute_size()));
  const AP &a = node->attribute(0);
  const std::string &name = a.name();
  if (name == "value") {
    if (a.type() != AP::TENSOR && !(a.type() == AP::UNDEFINED && a.has_t()))
      return attrTypeError(a, "TENSOR");
    auto t = tensorFromProto(a.t(), external, label + ": attribute 'value'");
    if (!t)
      return t.takeError();
    outConst(0, std::move(*t));
    return llvm::Error::success();
  }
  auto make = [&](DType dtype, std::vector<int64_t> shape,
                  const std::vector<double> &values) -> llvm::Error {
    auto t = HostTensor::allocate(dtype, shape);
    if (!t.ok())
      return fail(std::string(t.status().message()));
    for (size_t i = 0; i < values.size(); ++i)
      t->setDouble(static_cast<int64_t>(i), values[i]);
    outConst(0, std::move(*t));
    return llvm::Error::success();
  };
  if (name == "value_float") {
    TRY(v, attrFloat(name));
    return make(DType::F32, {}, {*v});
  }
  if (name == "value_floats") {
    TRY(v, attrFloats(name));
    return make(DType::F32, {static_cast<int64_t>(v->size())},
                std::vector<double>(v->begin(), v->end()));
  }
  if (name == "value_int") {
    TRY(v, attrInt(name));
    auto t = HostTensor::allocate(DType::I64, {});
    t->setInt(0, *v);
    outConst(0, std::move(*t));
    return llvm::Error::success();
  }
  if (name == "value_ints") {
    TRY(v, attrInts(name));
    auto t =
        HostTensor::allocate(DType::I64, {static_cast<int64_t>(v->size())});
    for (size_t i = 0; i < v->size(); ++i)
      t->setInt(static_cast<int64_t>(i), (*v)[i]);
    outConst(0, std::move(*t));
    return llvm::Error::success();
  }
  return unsupported(
      "attribute '" + name +
      "' is not supported (strings and sparse tensors have no tgc "
      "equivalent)");
}

llvm::Expected<std::optional<PartialInts>> Importer::partialIn(int i) {
  TRY(val, lookup(i));
  if (val->partial)
    return std::optional<PartialInts>(*val->partial);
  TRY(value, constIn(i));
  if (!value || value->rank() > 1 || value->numElements() > 64 ||
      runtime::isFloatDType(value->dtype()) || value->dtype() == DType::I1)
    return std::optional<PartialInts>();
  PartialInts p;
  p.dtype = value->dtype();
  p.scalar = value->rank() == 0;
  for (int64_t k = 0; k < value->numElements(); ++k)
    p.values.push_back(value->getInt(k));
  return std::optional<PartialInts>(std::move(p));
}

llvm::Expected<std::optional<PartialInts>> Importer::propagatePartial() {
  static const std::set<std::string> kOps = {
      "Identity", "Cast",  "Unsqueeze", "Squeeze", "Reshape", "Gather",
      "Concat",   "Slice", "Add",       "Sub",     "Mul",     "Div"};
  const std::string &op = node->op_type();
  if (!kOps.contains(op))
    return std::optional<PartialInts>();
  bool anyPartial = false;
  for (int i = 0; i < numInputs(); ++i)
    if (has(i)) {
      TRY(val, lookup(i));
      anyPartial |= val->partial != nullptr;
    }
  if (!anyPartial)
    return std::optional<PartialInts>();
  // Every input must be partial or a small integer constant.
  std::vector<PartialInts> ins(numInputs());
  for (int i = 0; i < numInputs(); ++i) {
    if (!has(i))
      continue;
    TRY(p, partialIn(i));
    if (!p)
      return std::optional<PartialInts>();
    ins[i] = std::move(*p);
  }
  auto emit =
      [](PartialInts result) -> llvm::Expected<std::optional<PartialInts>> {
    return std::optional<PartialInts>(std::move(result));
  };
  auto constAxes = [&](int input) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> axes;
    if (opset < 13) {
      const AP *a = attr("axes");
      if (!a)
        return axes;
      for (int64_t v : a->ints())
        axes.push_back(v);
      return axes;
    }
    if (!has(input))
      return axes;
    for (const auto &v : ins[input].values) {
      if (!v)
        return std::nullopt;
      axes.push_back(*v);
    }
    return axes;
  };
  PartialInts x = ins[0];

  if (op == "Identity")
    return emit(x);
  if (op == "Cast") {
    TRY(to, attrInt("to"));
    std::optional<DType> dtype =
        to ? dtypeFromOnnx(static_cast<int32_t>(*to)) : std::nullopt;
    if (!dtype || runtime::isFloatDType(*dtype) || *dtype == DType::I1)
      return std::optional<PartialInts>();
    x.dtype = *dtype;
    return emit(x);
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::optional<std::vector<int64_t>> axes = constAxes(1);
    if (!axes)
      return std::optional<PartialInts>();
    bool zero = axes->empty() ||
                (axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1));
    if (op == "Unsqueeze" && x.scalar && zero && !axes->empty()) {
      x.scalar = false;
      return emit(x);
    }
    if (op == "Squeeze" && !x.scalar && x.values.size() == 1 && zero) {
      x.scalar = true;
      return emit(x);
    }
    return std::optional<PartialInts>();
  }
  if (op == "Reshape") {
    if (!has(1) || ins[1].scalar || ins[1].values.size() > 1)
      return std::optional<PartialInts>();
    int64_t n = static_cast<int64_t>(x.values.size());
    if (ins[1].values.empty()) {
      if (n != 1)
        return std::optional<PartialInts>();
      x.scalar = true;
      return emit(x);
    }
    const auto &target = ins[1].values[0];
    if (!target || (*target != -1 && *target != n))
      return std::optional<PartialInts>();
    x.scalar = false;
    return emit(x);
  }
  if (op == "Gather") {
    TRY(axis, attrInt("axis", 0));
    if (x.scalar || (axis != 0 && axis != -1))
      return std::optional<PartialInts>();
    PartialInts result;
    result.dtype = x.dtype;
    result.scalar = ins[1].scalar;
    int64_t n = static_cast<int64_t>(x.values.size());
    for (const auto &index : ins[1].values) {
      if (!index || *index < -n || *index >= n)
        return std::optional<PartialInts>();
      result.values.push_back(x.values[*index < 0 ? *index + n : *index]);
    }
    return emit(std::move(result));
  }
  if (op == "Concat") {
    TRY(axis, attrInt("axis"));
    if (!axis || (*axis != 0 && *axis != -1))
      return std::optional<PartialInts>();
    PartialInts result;
    result.dtype = x.dtype;
    for (int i = 0; i < numInputs(); ++i) {
      if (!has(i))
        continue;
      if (ins[i].scalar || ins[i].dtype != x.dtype)
        return std::optional<PartialInts>();
      llvm::append_range(result.values, ins[i].values);
    }
    return emit(std::move(result));
  }
  if (op == "Slice") {
    if (x.scalar || opset < 10)
      return std::optional<PartialInts>();
    auto scalarOf = [&](int i, int64_t fallback) -> std::optional<int64_t> {
      if (!has(i))
        return fallback;
      if (ins[i].values.size() != 1 || !ins[i].values[0])
        return std::nullopt;
      return *ins[i].values[0];
    };
    std::optional<int64_t> start = scalarOf(1, 0), end = scalarOf(2, 0),
                           axis = scalarOf(3, 0), step = scalarOf(4, 1);
    if (!start || !end || !axis || !step || (*axis != 0 && *axis != -1) ||
        *step == 0)
      return std::optional<PartialInts>();
    int64_t n = static_cast<int64_t>(x.values.size());
    auto clampIndex = [&](int64_t v, bool forEnd) {
      if (v < 0)
        v += n;
      if (*step > 0)
        return std::clamp<int64_t>(v, 0, n);
      return std::clamp<int64_t>(v, forEnd ? -1 : 0, n - 1);
    };
    int64_t b = clampIndex(*start, false), e = clampIndex(*end, true);
    PartialInts result;
    result.dtype = x.dtype;
    for (int64_t k = b; *step > 0 ? k < e : k > e; k += *step)
      if (k >= 0 && k < n)
        result.values.push_back(x.values[k]);
    return emit(std::move(result));
  }
  // Add, Sub, Mul, Div: elementwise with broadcasting of one-element sides.
  if (!has(1) || ins[0].dtype != ins[1].dtype)
    return std::optional<PartialInts>();
  const PartialInts &a = ins[0], &b = ins[1];
  size_t n = std::max(a.values.size(), b.values.size());
  if ((a.values.size() != n && a.values.size() != 1) ||
      (b.values.size() != n && b.values.size() != 1))
    return std::optional<PartialInts>();
  PartialInts result;
  result.dtype = a.dtype;
  result.scalar = a.scalar && b.scalar;
  for (size_t k = 0; k < n; ++k) {
    std::optional<int64_t> u = a.values[a.values.size() == 1 ? 0 : k];
    std::optional<int64_t> v = b.values[b.values.size() == 1 ? 0 : k];
    std::optional<int64_t> r;
    if (u && v) {
      int64_t value = 0;
      bool overflow = false;
      if (op == "Add")
        overflow = __builtin_add_overflow(*u, *v, &value);
      else if (op == "Sub")
        overflow = __builtin_sub_overflow(*u, *v, &value);
      else if (op == "Mul")
        overflow = __builtin_mul_overflow(*u, *v, &value);
      else if (*v != 0 && !(*u == INT64_MIN && *v == -1))
        value = *u / *v; // ONNX integer Div truncates, as C++ does.
      else
        overflow = true;
      if (overflow)
        return std::optional<PartialInts>(); // Leave it to the converter (and
                                             // its errors).
      r = value;
    } else if (op == "Mul" && ((u && *u == 0) || (v && *v == 0))) {
      r = 0;
    }
    result.values.push_back(r);
  }
  return emit(std::move(result));
}

llvm::Error Importer::convShape() {
  TRY(x, in(0));
  int64_t rank = x.rank();
  TRY(startAttr, attrInt("start", 0));
  TRY(endAttr, attrInt("end"));
  int64_t start = startAttr < 0 ? startAttr + rank : startAttr;
  int64_t end = endAttr ? (*endAttr < 0 ? *endAttr + rank : *endAttr) : rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  int64_t n = std::max<int64_t>(end - start, 0);
  // Dynamic dims are known when the function runs: tgc.shape_of computes
  // them; what is known now travels along as a partial value.
  PartialInts shape;
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = x.shape()[start + i];
    shape.values.push_back(d == kDynamic ? std::nullopt
                                         : std::optional<int64_t>(d));
  }
  if (!x.hasStaticShape()) {
    Tensor full = tgc::shapeOf(x);
    if (n != rank)
      full = tgc::slice(full, {start}, {start + n});
    out(0, full);
  }
  if (wantsOutput(0))
    partialOutputs.push_back({node->output(0), std::move(shape)});
  return llvm::Error::success();
}

llvm::Error Importer::convSize() {
  TRY(x, in(0));
  std::optional<int64_t> n = x.numElements();
  if (!n) {
    TRYT(size, tgc::reduceProd(tgc::shapeOf(x), {0}, /*keepDims=*/false));
    out(0, size);
    return llvm::Error::success();
  }
  auto t = HostTensor::allocate(DType::I64, {});
  t->setInt(0, *n);
  outConst(0, std::move(*t));
  return llvm::Error::success();
}

llvm::Error Importer::convConstantOfShape() {
  TRY(shape, constInts(0, "shape"));
  for (int64_t d : shape)
    if (d < 0)
      return fail("shape " + listOf(shape) + " has a negative dim");
  HostTensor fill;
  if (const AP *a = attr("value")) {
    if (a->type() != AP::TENSOR && !(a->type() == AP::UNDEFINED && a->has_t()))
      return attrTypeError(*a, "TENSOR");
    auto t = tensorFromProto(a->t(), external, label + ": attribute 'value'");
    if (!t)
      return t.takeError();
    if (t->numElements() != 1)
      return fail("attribute 'value' must have one element");
    fill = std::move(*t);
  } else {
    auto t = HostTensor::allocate(DType::F32, {});
    fill = std::move(*t);
  }
  auto t = HostTensor::allocate(fill.dtype(), shape);
  if (!t.ok())
    return fail(std::string(t.status().message()));
  size_t size = runtime::dtypeSize(fill.dtype());
  for (int64_t i = 0; i < t->numElements(); ++i)
    std::memcpy(static_cast<char *>(t->data()) + i * size, fill.data(), size);
  outConst(0, std::move(*t));
  return llvm::Error::success();
}

llvm::Error Importer::convExpand() {
  TRY(x, in(0));
  TRY(shape, constInts(1, "shape"));
  auto target = broadcastShapes(x.shape(), shape);
  if (!target)
    return fail("the input " + x.describe() + " cannot be expanded to " +
                listOf(shape));
  if (*target == x.shape()) {
    out(0, x);
    return llvm::Error::success();
  }
  TRYT(y, tgc::broadcastTo(x, *target));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convTile() {
  TRY(x, in(0));
  TRY(repeats, constInts(1, "repeats"));
  if (static_cast<int64_t>(repeats.size()) != x.rank())
    return fail("repeats " + listOf(repeats) + " must have one value per dim");
  Tensor y = x;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (repeats[d] < 0)
      return fail("repeats must be non-negative");
    if (repeats[d] == 1)
      continue;
    if (repeats[d] == 0) {
      std::vector<int64_t> starts(x.rank(), 0),
          ends(x.rank(), std::numeric_limits<int64_t>::max());
      ends[d] = 0;
      TRYT(t, tgc::slice(y, starts, ends));
      y = t;
      continue;
    }
    std::vector<Tensor> copies(static_cast<size_t>(repeats[d]), y);
    TRYT(t, tgc::concat(copies, d));
    y = t;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convRange() {
  TRY(startT, constIn(0));
  TRY(limitT, constIn(1));
  TRY(deltaT, constIn(2));
  if (!startT || !limitT || !deltaT)
    return unsupported(
        "start, limit and delta must be constants; a dynamic Range "
        "is not supported");
  DType dtype = startT->dtype();
  double start = startT->getDouble(0), limit = limitT->getDouble(0),
         delta = deltaT->getDouble(0);
  if (delta == 0)
    return fail("delta must not be 0");
  int64_t n = std::max<int64_t>(
      0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
  auto t = HostTensor::allocate(dtype, {n});
  if (!t.ok())
    return fail(std::string(t.status().message()));
  for (int64_t i = 0; i < n; ++i) {
    if (runtime::isFloatDType(dtype))
      t->setDouble(i, start + static_cast<double>(i) * delta);
    else
      t->setInt(i, startT->getInt(0) + i * deltaT->getInt(0));
  }
  outConst(0, std::move(*t));
  return llvm::Error::success();
}

llvm::Error Importer::convOneHot() {
  TRY(indices0, in(0));
  TRY(depthD, constScalar(1, "depth"));
  TRY(values, in(2));
  int64_t depth = static_cast<int64_t>(depthD);
  if (depth < 1)
    return fail("depth must be >= 1");
  TRY(axis, axisAttr("axis", -1, indices0.rank() + 1));
  Tensor indices = indices0;
  if (indices.dtype() != DType::I64) {
    TRYT(c, tgc::cast(indices, DType::I64));
    indices = c;
  }
  // Negative indices count from the end.
  TRYT(isNeg, tgc::less(indices, Scalar(0)));
  TRYT(wrapped, tgc::add(indices, Scalar(depth)));
  TRYT(idx, tgc::select(isNeg, wrapped, indices));
  TRYT(idxU, tgc::unsqueeze(idx, {axis}));
  std::vector<int64_t> iotaShape(indices.rank() + 1, 1);
  iotaShape[axis] = depth;
  auto iota = HostTensor::allocate(DType::I64, iotaShape);
  for (int64_t k = 0; k < depth; ++k)
    iota->setInt(k, k);
  TRYT(iotaT, constantTensor(*iota));
  TRYT(hot, tgc::equal(idxU, iotaT));
  std::vector<int64_t> zero = {0}, one = {1}, two = {2};
  TRYT(off, tgc::slice(values, zero, one));
  TRYT(on, tgc::slice(values, one, two));
  TRYT(offS, tgc::reshape(off, {}));
  TRYT(onS, tgc::reshape(on, {}));
  TRYT(y, tgc::select(hot, onS, offS));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convEyeLike() {
  TRY(x, in(0));
  if (x.rank() != 2 || !x.hasStaticShape())
    return fail("EyeLike needs a 2-D input with a static shape");
  TRY(k, attrInt("k", 0));
  TRY(dtypeAttr, attrInt("dtype"));
  DType dtype = x.dtype();
  if (dtypeAttr) {
    auto d = dtypeFromOnnx(static_cast<int32_t>(*dtypeAttr));
    if (!d)
      return unsupported("dtype " +
                         onnxTypeName(static_cast<int32_t>(*dtypeAttr)) +
                         " is not supported");
    dtype = *d;
  }
  auto t = HostTensor::allocate(dtype, x.shape());
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  for (int64_t i = 0; i < rows; ++i) {
    int64_t j = i + k;
    if (j >= 0 && j < cols)
      t->setInt(i * cols + j, 1);
  }
  outConst(0, std::move(*t));
  return llvm::Error::success();
}

llvm::Error Importer::convTrilu() {
  TRY(x, in(0));
  TRY(upper, attrInt("upper", 1));
  int64_t k = 0;
  if (has(1)) {
    TRY(kv, constScalar(1, "k"));
    k = static_cast<int64_t>(kv);
  }
  if (x.rank() < 2)
    return fail("input must have rank >= 2");
  std::optional<int64_t> rows = x.dim(-2), cols = x.dim(-1);
  if (!rows || !cols)
    return unsupported("Trilu needs static sizes in the last two dims");
  auto mask = HostTensor::allocate(DType::I1, {*rows, *cols});
  if (!mask.ok())
    return fail(std::string(mask.status().message()));
  for (int64_t i = 0; i < *rows; ++i)
    for (int64_t j = 0; j < *cols; ++j)
      mask->setInt(i * *cols + j, upper ? (j - i >= k) : (j - i <= k));
  TRYT(m, constantTensor(*mask));
  TRYT(y, tgc::select(m, x, Scalar(0)));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convCumSum() {
  TRY(x, in(0));
  TRY(axisV, constScalar(1, "axis"));
  TRY(axis, normalizeAxis(static_cast<int64_t>(axisV), x.rank()));
  TRY(exclusive, attrInt("exclusive", 0));
  TRY(reverse, attrInt("reverse", 0));
  std::optional<int64_t> n = x.dim(axis);
  if (!n)
    return unsupported("CumSum needs a static size along the axis");
  if (x.dtype() == DType::I1)
    return unsupported("CumSum of booleans is not supported");
  // y[..., j] = sum_i x[..., i] * T[i, j]: move the axis last, multiply by a
  // triangular matrix, move it back.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  auto tri = HostTensor::allocate(x.dtype(), {*n, *n});
  if (!tri.ok())
    return fail(std::string(tri.status().message()));
  for (int64_t i = 0; i < *n; ++i)
    for (int64_t j = 0; j < *n; ++j) {
      bool on =
          reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      tri->setInt(i * *n + j, on ? 1 : 0);
    }
  TRYT(triT, constantTensor(*tri));
  Tensor moved = x;
  bool needsMove = axis != x.rank() - 1;
  if (needsMove) {
    TRYT(t, tgc::transpose(x, perm));
    moved = t;
  }
  Tensor lhs = moved;
  if (moved.rank() == 1) {
    TRYT(t, tgc::unsqueeze(moved, {0}));
    lhs = t;
  }
  TRYT(prod, tgc::matmul(lhs, triT));
  Tensor y = prod;
  if (moved.rank() == 1) {
    TRYT(t, tgc::squeeze(prod, {0}));
    y = t;
  }
  if (needsMove) {
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[perm[i]] = static_cast<int64_t>(i);
    TRYT(t, tgc::transpose(y, inverse));
    y = t;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convDepthToSpace() {
  TRY(x, in(0));
  TRY(bs, attrInt("blocksize"));
  TRY(mode, attrString("mode", "DCR"));
  if (!bs || *bs < 1)
    return fail("attribute 'blocksize' must be >= 1");
  if (x.rank() != 4)
    return fail("input must have rank 4");
  std::vector<int64_t> s = x.shape();
  if (s[1] == kDynamic || s[2] == kDynamic || s[3] == kDynamic)
    return unsupported("DepthToSpace needs static C, H and W");
  int64_t b = *bs;
  if (s[1] % (b * b))
    return fail("channels must be divisible by blocksize^2");
  int64_t c = s[1] / (b * b);
  std::vector<int64_t> mid, perm;
  if (mode == "DCR") {
    mid = {s[0], b, b, c, s[2], s[3]};
    perm = {0, 3, 4, 1, 5, 2};
  } else if (mode == "CRD") {
    mid = {s[0], c, b, b, s[2], s[3]};
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    return fail("attribute 'mode' must be DCR or CRD, not '" + mode + "'");
  }
  TRY(r, reshapeTo(x, mid));
  TRYT(t, tgc::transpose(r, perm));
  TRY(y, reshapeTo(t, {s[0], c, s[2] * b, s[3] * b}));
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convSpaceToDepth() {
  TRY(x, in(0));
  TRY(bs, attrInt("blocksize"));
  if (!bs || *bs < 1)
    return fail("attribute 'blocksize' must be >= 1");
  if (x.rank() != 4)
    return fail("input must have rank 4");
  std::vector<int64_t> s = x.shape();
  if (s[1] == kDynamic || s[2] == kDynamic || s[3] == kDynamic)
    return unsupported("SpaceToDepth needs static C, H and W");
  int64_t b = *bs;
  if (s[2] % b || s[3] % b)
    return fail("H and W must be divisible by the blocksize");
  TRY(r, reshapeTo(x, {s[0], s[1], s[2] / b, b, s[3] / b, b}));
  TRYT(t, tgc::transpose(r, {0, 3, 5, 1, 2, 4}));
  TRY(y, reshapeTo(t, {s[0], s[1] * b * b, s[2] / b, s[3] / b}));
  out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// ConvTranspose and Einsum
//===----------------------------------------------------------------------===//

/// ConvTranspose as a regular convolution: the input with stride - 1 zeros
/// inserted after each element (reshape to [N, C, H, 1, W, 1], zero-pad to
/// [N, C, H, sh, W, sw], reshape to [N, C, H*sh, W*sw]), padded by
/// dilation * (kernel - 1) - pads plus output_padding (cropped where
/// negative), convolved with the kernel flipped spatially and its in/out
/// channels swapped per group. The weight transforms fold when it is a
/// constant. 1-D goes through 2-D.
llvm::Error Importer::convConvTranspose() {
  TRY(x0, in(0));
  TRY(w0, in(1));
  int64_t rank = x0.rank();
  if (rank != 3 && rank != 4)
    return unsupported(
        "only 1-D and 2-D transposed convolutions are supported: the input " +
        x0.describe() + " is not supported");
  if (w0.rank() != rank)
    return fail("weight " + w0.describe() +
                " must have the rank of the input " + x0.describe());
  if (!w0.hasStaticShape())
    return unsupported("the weight's shape must be static, not " +
                       w0.describe());
  std::vector<int64_t> xs = x0.shape(), ws = w0.shape();
  for (int64_t d = 1; d < rank; ++d)
    if (xs[d] == kDynamic)
      return unsupported("the input's channel and spatial dims must be "
                         "static, not " +
                         x0.describe());
  size_t n = static_cast<size_t>(rank - 2);
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  TRY(kernelAttr, attrInts("kernel_shape"));
  if (kernelAttr && *kernelAttr != kernel)
    return fail("attribute 'kernel_shape' " + listOf(*kernelAttr) +
                " does not match the weight " + w0.describe());
  TRY(stridesAttr, attrInts("strides"));
  TRY(dilationsAttr, attrInts("dilations"));
  TRY(outputPaddingAttr, attrInts("output_padding"));
  TRY(outputShapeAttr, attrInts("output_shape"));
  std::vector<int64_t> strides =
      stridesAttr.value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations =
      dilationsAttr.value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> outputPadding =
      outputPaddingAttr.value_or(std::vector<int64_t>(n, 0));
  if (strides.size() != n || dilations.size() != n)
    return fail("attributes 'strides' and 'dilations' need " + llvm::Twine(n) +
                " values");
  if (outputPadding.size() != n)
    return fail("attribute 'output_padding' " + listOf(outputPadding) +
                " needs " + llvm::Twine(n) + " values");
  for (size_t i = 0; i < n; ++i) {
    if (strides[i] < 1 || dilations[i] < 1)
      return fail("strides and dilations must be >= 1");
    if (outputPadding[i] < 0)
      return fail("attribute 'output_padding' " + listOf(outputPadding) +
                  " must be non-negative");
  }
  TRY(group, attrInt("group", 1));
  if (group < 1)
    return fail("attribute 'group' must be >= 1, not " + llvm::Twine(group));
  if (xs[1] != ws[0] || xs[1] % group)
    return fail("the input " + x0.describe() + " and the weight " +
                w0.describe() +
                " must have the same number of input channels, divisible by "
                "the group (" +
                llvm::Twine(group) + ")");
  int64_t channels = xs[1], outChannels = ws[1] * group;

  // Padding: explicit, or from output_shape / SAME (total padding split with
  // floor division, the larger half at the end for SAME_UPPER, else at the
  // beginning; a negative total, from an output_shape larger than the full
  // result, extends the output with zeros).
  TRY(autoPad, attrString("auto_pad", "NOTSET"));
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return fail("attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER "
                "or VALID, not '" +
                autoPad + "'");
  TRY(padsAttr, attrInts("pads"));
  std::vector<int64_t> full(n), begin(n, 0), end(n, 0);
  for (size_t i = 0; i < n; ++i)
    full[i] = strides[i] * (xs[2 + i] - 1) + outputPadding[i] +
              (kernel[i] - 1) * dilations[i] + 1;
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (outputShapeAttr || same) {
    std::vector<int64_t> target(n);
    if (outputShapeAttr) {
      target = *outputShapeAttr;
      // Some exporters include the batch and channel dims.
      if (target.size() == n + 2)
        target.erase(target.begin(), target.begin() + 2);
      if (target.size() != n)
        return fail("attribute 'output_shape' " + listOf(*outputShapeAttr) +
                    " needs " + llvm::Twine(n) + " values");
    } else {
      // SAME as ONNX's shape inference computes it: a total padding of
      // max(0, effective kernel - stride), so output_padding still adds.
      for (size_t i = 0; i < n; ++i)
        target[i] =
            full[i] - std::max<int64_t>(0, (kernel[i] - 1) * dilations[i] + 1 -
                                               strides[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      if (target[i] < 1)
        return fail("attribute 'output_shape' " + listOf(target) +
                    " must be positive");
      int64_t total = full[i] - target[i];
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2); // floor
      if (autoPad == "SAME_UPPER") {
        begin[i] = half;
        end[i] = total - half;
      } else {
        begin[i] = total - half;
        end[i] = half;
      }
    }
  } else if (autoPad == "NOTSET" && padsAttr) {
    if (padsAttr->size() != 2 * n)
      return fail("attribute 'pads' has " + llvm::Twine(padsAttr->size()) +
                  " values; " + llvm::Twine(2 * n) + " expected");
    for (int64_t p : *padsAttr)
      if (p < 0)
        return fail("attribute 'pads' " + listOf(*padsAttr) +
                    " must be non-negative");
    for (size_t i = 0; i < n; ++i) {
      begin[i] = (*padsAttr)[i];
      end[i] = (*padsAttr)[i + n];
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (full[i] - begin[i] - end[i] < 1)
      return fail("the output would have " +
                  llvm::Twine(full[i] - begin[i] - end[i]) +
                  " elements in spatial dim " + llvm::Twine(i) + " (pads " +
                  listOf(begin) + " + " + listOf(end) + " remove everything)");

  // Everything in 2-D: [h, w] per spatial parameter.
  auto twoD = [&](const std::vector<int64_t> &v, int64_t one) {
    return n == 1 ? std::vector<int64_t>{one, v[0]} : v;
  };
  std::vector<int64_t> s2 = twoD(strides, 1), d2 = twoD(dilations, 1),
                       k2 = twoD(kernel, 1), b2 = twoD(begin, 0),
                       e2 = twoD(end, 0), op2 = twoD(outputPadding, 0);
  Tensor x = x0, w = w0;
  if (n == 1) {
    TRYT(xu, tgc::unsqueeze(x0, {2}));
    TRYT(wu, tgc::unsqueeze(w0, {2}));
    x = xu;
    w = wu;
  }

  // The filter: [C, M/g, kh, kw] -> [M, C/g, kh, kw], flipped in h and w.
  Tensor filter = w;
  if (group == 1) {
    TRYT(t, tgc::transpose(w, {1, 0, 2, 3}));
    filter = t;
  } else {
    TRY(r, reshapeTo(w, {group, channels / group, outChannels / group, k2[0],
                         k2[1]}));
    TRYT(t, tgc::transpose(r, {0, 2, 1, 3, 4}));
    TRY(f, reshapeTo(t, {outChannels, channels / group, k2[0], k2[1]}));
    filter = f;
  }
  if (k2[0] > 1 || k2[1] > 1) {
    constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
    TRYT(flipped,
         tgc::slice(filter, {0, 0, -1, -1},
                    {kEnd, kEnd, -(k2[0] + 1), -(k2[1] + 1)}, {1, 1, -1, -1}));
    filter = flipped;
  }

  // The input: zeros inserted, then padded (conv2d's padding) or cropped.
  std::vector<int64_t> lo(2), hi(2);
  for (int i = 0; i < 2; ++i) {
    lo[i] = (k2[i] - 1) * d2[i] - b2[i];
    hi[i] = (k2[i] - 1) * d2[i] - e2[i] + op2[i];
  }
  std::vector<int64_t> shape = x.shape();
  if (s2[0] > 1 || s2[1] > 1) {
    TRY(r, reshapeTo(x, {shape[0], shape[1], shape[2], 1, shape[3], 1}));
    TRYT(p,
         tgc::pad(r, {0, 0, 0, 0, 0, 0}, {0, 0, 0, s2[0] - 1, 0, s2[1] - 1}));
    TRY(z,
        reshapeTo(p, {shape[0], shape[1], shape[2] * s2[0], shape[3] * s2[1]}));
    x = z;
    // The zeros after the last element are part of the high padding.
    for (int i = 0; i < 2; ++i)
      hi[i] -= s2[i] - 1;
    shape = x.shape();
  }
  if (lo[0] < 0 || lo[1] < 0 || hi[0] < 0 || hi[1] < 0) {
    std::vector<int64_t> starts = {0, 0}, ends = {shape[0], shape[1]};
    for (int i = 0; i < 2; ++i) {
      starts.push_back(std::max<int64_t>(0, -lo[i]));
      ends.push_back(shape[2 + i] - std::max<int64_t>(0, -hi[i]));
      if (ends.back() <= starts.back())
        return unsupported("pads that crop away the whole input are not "
                           "supported");
    }
    ends[0] = ends[1] = std::numeric_limits<int64_t>::max();
    TRYT(c, tgc::slice(x, starts, ends));
    x = c;
  }
  Conv2DOptions opts;
  opts.groups = group;
  opts.strides = {1, 1};
  opts.dilations = d2;
  opts.padding = {std::max<int64_t>(0, lo[0]), std::max<int64_t>(0, lo[1]),
                  std::max<int64_t>(0, hi[0]), std::max<int64_t>(0, hi[1])};
  std::optional<Tensor> bias;
  if (has(2)) {
    TRY(b, in(2));
    bias = b;
  }
  TRYT(y0, tgc::conv2d(x, filter, bias, opts));
  Tensor y = y0;
  if (n == 1) {
    TRYT(t, tgc::squeeze(y0, {2}));
    y = t;
  }
  out(0, y);
  return llvm::Error::success();
}

/// Einsum: the equation is parsed into labels (letters by their character
/// code, the dims an ellipsis covers as 256 + j, right-aligned across the
/// operands). Repeated labels within an operand become diagonals (a gather
/// from the two dims flattened), labels needed nowhere else are summed, and
/// the operands are contracted left to right by one batched matmul each
/// (transposed and reshaped to [batch..., M, K] x [batch..., K, N]); a final
/// transpose gives the output order.
llvm::Error Importer::convEinsum() {
  TRY(equation0, attrString("equation", ""));
  std::string equation;
  for (char ch : equation0)
    if (ch != ' ')
      equation += ch;
  auto malformed = [&](const llvm::Twine &why) {
    return fail("equation '" + equation0 + "': " + why);
  };
  constexpr int kEllipsis = 256;
  struct Term {
    std::vector<int> letters;
    int ellipsisAt = -1; // Index into letters where '...' stands.
  };
  auto parseTerm = [&](llvm::StringRef text, Term &term) -> llvm::Error {
    for (size_t p = 0; p < text.size(); ++p) {
      char ch = text[p];
      if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
        term.letters.push_back(static_cast<unsigned char>(ch));
        continue;
      }
      if (text.substr(p).starts_with("...") && term.ellipsisAt < 0) {
        term.ellipsisAt = static_cast<int>(term.letters.size());
        p += 2;
        continue;
      }
      return malformed("unexpected '" + llvm::Twine(ch) + "' in term '" + text +
                       "' (labels are letters, with at most one "
                       "'...' per term)");
    }
    return llvm::Error::success();
  };
  llvm::StringRef eq(equation);
  size_t arrow = eq.find("->");
  llvm::StringRef lhs = eq.substr(0, arrow);
  std::optional<llvm::StringRef> rhs;
  if (arrow != llvm::StringRef::npos)
    rhs = eq.substr(arrow + 2);
  llvm::SmallVector<llvm::StringRef> termTexts;
  lhs.split(termTexts, ',');
  if (static_cast<int>(termTexts.size()) != numInputs())
    return malformed("it has " + llvm::Twine(termTexts.size()) +
                     " operand terms but the node has " +
                     llvm::Twine(numInputs()) + " inputs");
  std::vector<Term> terms(termTexts.size());
  for (size_t i = 0; i < terms.size(); ++i)
    if (auto error = parseTerm(termTexts[i], terms[i]))
      return error;
  Term outTerm;
  if (rhs)
    if (auto error = parseTerm(*rhs, outTerm))
      return error;

  struct Operand {
    Tensor t;
    std::vector<int> labels;
  };
  std::vector<Operand> operands;
  int64_t ellipsisRank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    TRY(t, in(static_cast<int>(i)));
    int64_t named = static_cast<int64_t>(terms[i].letters.size());
    int64_t covered = t.rank() - named;
    if (covered < 0 || (terms[i].ellipsisAt < 0 && covered != 0))
      return malformed("term '" + termTexts[i] + "' does not match the rank " +
                       "of input #" + llvm::Twine(i) + " " + t.describe());
    ellipsisRank = std::max(ellipsisRank, covered);
    operands.push_back({t, {}});
  }
  std::map<int, int64_t> sizes; // kDynamic when unknown.
  std::map<int, int> counts;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term &term = terms[i];
    Operand &o = operands[i];
    int64_t covered = o.t.rank() - static_cast<int64_t>(term.letters.size());
    for (size_t p = 0; p <= term.letters.size(); ++p) {
      if (static_cast<int>(p) == term.ellipsisAt)
        for (int64_t j = 0; j < covered; ++j)
          o.labels.push_back(kEllipsis +
                             static_cast<int>(ellipsisRank - covered + j));
      if (p < term.letters.size())
        o.labels.push_back(term.letters[p]);
    }
    for (auto [d, label] : llvm::enumerate(o.labels)) {
      ++counts[label];
      int64_t size = o.t.shape()[d];
      auto [it, inserted] = sizes.insert({label, size});
      if (inserted || size == it->second || size == kDynamic)
        continue;
      if (it->second == kDynamic) {
        it->second = size;
      } else if (label >= kEllipsis && (size == 1 || it->second == 1)) {
        it->second = std::max(size, it->second); // Broadcast.
      } else {
        std::string name = label >= kEllipsis
                               ? "..."
                               : std::string(1, static_cast<char>(label));
        return malformed("label '" + name + "' has sizes " +
                         llvm::Twine(it->second) + " and " + llvm::Twine(size));
      }
    }
  }
  std::vector<int> output;
  if (rhs) {
    for (size_t p = 0; p <= outTerm.letters.size(); ++p) {
      if (static_cast<int>(p) == outTerm.ellipsisAt)
        for (int64_t j = 0; j < ellipsisRank; ++j)
          output.push_back(kEllipsis + static_cast<int>(j));
      if (p < outTerm.letters.size()) {
        int label = outTerm.letters[p];
        if (!counts.count(label))
          return malformed("output label '" +
                           llvm::Twine(static_cast<char>(label)) +
                           "' is not in any input term");
        if (llvm::is_contained(output, label))
          return malformed("output label '" +
                           llvm::Twine(static_cast<char>(label)) +
                           "' is repeated");
        output.push_back(label);
      }
    }
  } else {
    // Implicit output: the ellipsis dims, then the labels used once, in
    // alphabetical (ASCII) order.
    for (int64_t j = 0; j < ellipsisRank; ++j)
      output.push_back(kEllipsis + static_cast<int>(j));
    for (auto [label, count] : counts)
      if (label < kEllipsis && count == 1)
        output.push_back(label);
  }

  auto dimsOf = [&](const Operand &o, const std::vector<int> &labels) {
    std::vector<int64_t> dims;
    for (int label : labels)
      dims.push_back(
          o.t.shape()[llvm::find(o.labels, label) - o.labels.begin()]);
    return dims;
  };
  auto product = [](const std::vector<int64_t> &dims) {
    int64_t p = 1;
    for (int64_t d : dims) {
      if (d == kDynamic)
        return kDynamic;
      p *= d;
    }
    return p;
  };
  auto reshapeIfNeeded =
      [&](const Tensor &t,
          const std::vector<int64_t> &shape) -> llvm::Expected<Tensor> {
    if (t.shape() == shape)
      return t;
    if (llvm::count(shape, kDynamic) > 1)
      return unsupported("Einsum needs a reshape of " + t.describe() + " to " +
                         listOf(shape) +
                         ", which has more than one dynamic dim");
    return reshapeTo(t, shape);
  };
  auto permute = [&](Operand &o, const std::vector<int> &order) -> llvm::Error {
    std::vector<int64_t> perm;
    for (int label : order)
      perm.push_back(llvm::find(o.labels, label) - o.labels.begin());
    o.labels = order;
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(perm))
      identity &= static_cast<int64_t>(i) == p;
    if (identity)
      return llvm::Error::success();
    TRYT(t, tgc::transpose(o.t, perm));
    o.t = t;
    return llvm::Error::success();
  };
  // Diagonals of repeated labels.
  auto diagonal = [&](Operand &o) -> llvm::Error {
    for (;;) {
      int label = -1;
      for (size_t p = 0; p < o.labels.size() && label < 0; ++p)
        if (llvm::count(o.labels, o.labels[p]) > 1)
          label = o.labels[p];
      if (label < 0)
        return llvm::Error::success();
      std::vector<int> order, rest;
      for (int l : o.labels)
        if (l != label)
          rest.push_back(l);
      if (llvm::count(o.labels, label) > 2)
        return unsupported("a label repeated more than twice in one term "
                           "is not supported");
      int64_t size = sizes[label];
      if (size == kDynamic)
        return unsupported("a diagonal over a dynamic dim is not supported");
      order = rest;
      order.push_back(label);
      order.push_back(label);
      // permute() looks labels up by first occurrence: do it by hand.
      std::vector<int64_t> perm;
      for (size_t p = 0; p < o.labels.size(); ++p)
        if (o.labels[p] != label)
          perm.push_back(static_cast<int64_t>(p));
      for (size_t p = 0; p < o.labels.size(); ++p)
        if (o.labels[p] == label)
          perm.push_back(static_cast<int64_t>(p));
      Tensor t = o.t;
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, o.t.rank()))) {
        TRYT(transposed, tgc::transpose(o.t, perm));
        t = transposed;
      }
      std::vector<int64_t> flat = t.shape();
      flat.resize(flat.size() - 2);
      flat.push_back(size * size);
      TRY(r, reshapeIfNeeded(t, flat));
      auto idx = HostTensor::allocate(DType::I64, {size});
      if (!idx.ok())
        return fail(std::string(idx.status().message()));
      for (int64_t k = 0; k < size; ++k)
        idx->setInt(k, k * (size + 1));
      TRYT(idxT, constantTensor(*idx));
      TRYT(g, tgc::gather(r, idxT, static_cast<int64_t>(rest.size())));
      o.t = g;
      rest.push_back(label);
      o.labels = rest;
    }
  };
  // Sums the labels of `o` that are not in `keep`.
  auto sumOut = [&](Operand &o, const std::set<int> &keep) -> llvm::Error {
    std::vector<int64_t> axes;
    std::vector<int> rest;
    for (auto [d, label] : llvm::enumerate(o.labels)) {
      if (keep.count(label))
        rest.push_back(label);
      else
        axes.push_back(static_cast<int64_t>(d));
    }
    if (axes.empty())
      return llvm::Error::success();
    TRYT(t, tgc::reduceSum(o.t, axes));
    o.t = t;
    o.labels = rest;
    return llvm::Error::success();
  };

  for (Operand &o : operands)
    if (auto error = diagonal(o))
      return error;
  Operand acc = operands[0];
  std::set<int> outputSet(output.begin(), output.end());
  if (operands.size() == 1) {
    if (auto error = sumOut(acc, outputSet))
      return error;
  }
  for (size_t i = 1; i < operands.size(); ++i) {
    Operand b = operands[i];
    std::set<int> keep = outputSet;
    for (size_t j = i + 1; j < operands.size(); ++j)
      keep.insert(operands[j].labels.begin(), operands[j].labels.end());
    std::set<int> keepA = keep, keepB = keep;
    keepA.insert(b.labels.begin(), b.labels.end());
    keepB.insert(acc.labels.begin(), acc.labels.end());
    if (auto error = sumOut(acc, keepA))
      return error;
    if (auto error = sumOut(b, keepB))
      return error;
    std::vector<int> batch, contracted, aOnly, bOnly;
    for (int label : acc.labels) {
      if (!llvm::is_contained(b.labels, label))
        aOnly.push_back(label);
      else if (keep.count(label))
        batch.push_back(label);
      else
        contracted.push_back(label);
    }
    for (int label : b.labels)
      if (!llvm::is_contained(acc.labels, label))
        bOnly.push_back(label);
    std::vector<int> orderA = batch, orderB = batch;
    orderA.insert(orderA.end(), aOnly.begin(), aOnly.end());
    orderA.insert(orderA.end(), contracted.begin(), contracted.end());
    orderB.insert(orderB.end(), contracted.begin(), contracted.end());
    orderB.insert(orderB.end(), bOnly.begin(), bOnly.end());
    if (auto error = permute(acc, orderA))
      return error;
    if (auto error = permute(b, orderB))
      return error;
    std::vector<int64_t> shapeA = dimsOf(acc, batch), shapeB = dimsOf(b, batch);
    std::vector<int64_t> aDims = dimsOf(acc, aOnly), bDims = dimsOf(b, bOnly),
                         kDims = dimsOf(acc, contracted);
    shapeA.push_back(product(aDims));
    shapeA.push_back(product(kDims));
    shapeB.push_back(product(dimsOf(b, contracted)));
    shapeB.push_back(product(bDims));
    TRY(ra, reshapeIfNeeded(acc.t, shapeA));
    TRY(rb, reshapeIfNeeded(b.t, shapeB));
    TRYT(product2, tgc::matmul(ra, rb));
    std::vector<int64_t> shapeY = product2.shape();
    shapeY.resize(shapeY.size() - 2);
    shapeY.insert(shapeY.end(), aDims.begin(), aDims.end());
    shapeY.insert(shapeY.end(), bDims.begin(), bDims.end());
    TRY(y, reshapeIfNeeded(product2, shapeY));
    acc.t = y;
    acc.labels = batch;
    acc.labels.insert(acc.labels.end(), aOnly.begin(), aOnly.end());
    acc.labels.insert(acc.labels.end(), bOnly.begin(), bOnly.end());
  }
  if (auto error = permute(acc, output))
    return error;
  out(0, acc.t);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// RNN, GRU and LSTM (unrolled over a static sequence length)
//===----------------------------------------------------------------------===//

namespace recurrent {

/// One activation function of an RNN/GRU/LSTM node, with its parameters.
struct Activation {
  std::string kind; // Lower-cased name.
  double alpha = 0, beta = 0;
};

/// The activations ONNX allows in recurrent ops (names are matched without
/// case, as onnxruntime does): how many of activation_alpha and
/// activation_beta each takes, and their defaults.
struct ActivationInfo {
  const char *kind;
  int numAlpha, numBeta;
  double alpha, beta;
};
constexpr ActivationInfo kActivations[] = {
    {"relu", 0, 0, 0, 0},           {"tanh", 0, 0, 0, 0},
    {"sigmoid", 0, 0, 0, 0},        {"affine", 1, 1, 1.0, 0.0},
    {"leakyrelu", 1, 0, 0.01, 0},   {"thresholdedrelu", 1, 0, 1.0, 0},
    {"scaledtanh", 1, 1, 1.0, 1.0}, {"hardsigmoid", 1, 1, 0.2, 0.5},
    {"elu", 1, 0, 1.0, 0},          {"softsign", 0, 0, 0, 0},
    {"softplus", 0, 0, 0, 0},
};

/// `a` applied to `x` (invalid when an op fails to build).
Tensor apply(const Activation &a, const Tensor &x) {
  const std::string &k = a.kind;
  if (k == "relu")
    return tgc::relu(x);
  if (k == "tanh")
    return tgc::tanh(x);
  if (k == "sigmoid")
    return tgc::sigmoid(x);
  if (k == "affine")
    return tgc::add(tgc::mul(x, Scalar(a.alpha)), Scalar(a.beta));
  if (k == "leakyrelu")
    return tgc::leakyRelu(x, a.alpha);
  if (k == "thresholdedrelu")
    return tgc::select(tgc::greater(x, Scalar(a.alpha)), x, Scalar(0.0));
  if (k == "scaledtanh")
    return tgc::mul(tgc::tanh(tgc::mul(x, Scalar(a.beta))), Scalar(a.alpha));
  if (k == "hardsigmoid")
    return tgc::clamp(tgc::add(tgc::mul(x, Scalar(a.alpha)), Scalar(a.beta)),
                      0.0, 1.0);
  if (k == "elu")
    return tgc::elu(x, a.alpha);
  if (k == "softsign")
    return tgc::div(x, tgc::add(tgc::abs(x), Scalar(1.0)));
  // softplus: log(1 + exp(x)) = relu(x) + log(1 + exp(-|x|)), which does not
  // overflow.
  return tgc::add(
      tgc::relu(x),
      tgc::log(tgc::add(tgc::exp(tgc::neg(tgc::abs(x))), Scalar(1.0))));
}

/// x[lo:hi] along `axis` (other dims whole).
Tensor sliceAxis(const Tensor &x, int64_t axis, int64_t lo, int64_t hi) {
  std::vector<int64_t> starts(x.rank(), 0), ends(x.rank(), INT64_MAX);
  starts[axis] = lo;
  ends[axis] = hi;
  return tgc::slice(x, starts, ends);
}

/// x[i] along dim 0 (the dim removed).
Tensor pick(const Tensor &x, int64_t i) {
  return tgc::squeeze(sliceAxis(x, 0, i, i + 1), {0});
}

} // namespace recurrent

/// RNN, GRU and LSTM: the recurrence unrolled over the (static) sequence
/// length, the input projection of every step computed by one matmul per
/// direction. Steps at or past a batch entry's sequence_lens keep its state
/// and emit zeros in Y.
llvm::Error Importer::convRecurrent() {
  using recurrent::Activation;
  using recurrent::pick;
  using recurrent::sliceAxis;
// Builds `expr` into the existing tensor `var`.
#define RNN_SET(var, expr)                                                     \
  do {                                                                         \
    Tensor rnnTmp = (expr);                                                    \
    if (!rnnTmp.valid())                                                       \
      return traceFailure();                                                   \
    var = rnnTmp;                                                              \
  } while (false)

  const std::string &op = node->op_type();
  bool lstm = op == "LSTM", gru = op == "GRU";
  int64_t gates = lstm ? 4 : gru ? 3 : 1;
  std::vector<std::string> defaults =
      lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
            : std::vector<std::string>{"Tanh"};
  size_t perDir = defaults.size();

  // Attributes.
  TRY(direction, attrString("direction", "forward"));
  int64_t numDirs;
  if (direction == "forward" || direction == "reverse")
    numDirs = 1;
  else if (direction == "bidirectional")
    numDirs = 2;
  else
    return fail("attribute 'direction' must be forward, reverse or "
                "bidirectional, not '" +
                direction + "'");
  TRY(layout, attrInt("layout", 0));
  if (layout != 0 && layout != 1)
    return fail("attribute 'layout' must be 0 or 1, not " +
                llvm::Twine(layout));
  TRY(hiddenAttr, attrInt("hidden_size"));
  if (hiddenAttr && *hiddenAttr <= 0)
    return fail("attribute 'hidden_size' must be positive, not " +
                llvm::Twine(*hiddenAttr));
  TRY(clip, attrFloat("clip"));
  if (clip && !(*clip > 0))
    return fail("attribute 'clip' must be positive, not " +
                std::to_string(*clip));
  int64_t linearBeforeReset = 0, inputForget = 0;
  if (gru) {
    TRY(v, attrInt("linear_before_reset", 0));
    linearBeforeReset = v;
  }
  if (lstm) {
    TRY(v, attrInt("input_forget", 0));
    inputForget = v;
  }
  std::vector<std::string> names;
  if (const AP *a = attr("activations")) {
    if (a->type() != AP::STRINGS && a->type() != AP::UNDEFINED)
      return attrTypeError(*a, "STRINGS");
    names.assign(a->strings().begin(), a->strings().end());
    if (names.size() != perDir * numDirs)
      return fail("attribute 'activations' has " + llvm::Twine(names.size()) +
                  " entries; " + op + " takes " + llvm::Twine(perDir) +
                  " per direction, " + llvm::Twine(perDir * numDirs) +
                  " for direction '" + direction + "'");
  } else {
    for (int64_t d = 0; d < numDirs; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  TRY(alphas, attrFloats("activation_alpha"));
  TRY(betas, attrFloats("activation_beta"));
  std::vector<Activation> acts;
  size_t nextAlpha = 0, nextBeta = 0;
  for (const std::string &name : names) {
    std::string kind = llvm::StringRef(name).lower();
    const recurrent::ActivationInfo *info = nullptr;
    for (const auto &candidate : recurrent::kActivations)
      if (kind == candidate.kind)
        info = &candidate;
    if (!info)
      return fail("unknown activation '" + name +
                  "' in attribute 'activations' (allowed: Relu, Tanh, "
                  "Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                  "HardSigmoid, Elu, Softsign, Softplus)");
    Activation act{kind, info->alpha, info->beta};
    // activation_alpha / activation_beta are consumed in order by the
    // activations that take them.
    if (info->numAlpha && alphas && nextAlpha < alphas->size())
      act.alpha = (*alphas)[nextAlpha++];
    if (info->numBeta && betas && nextBeta < betas->size())
      act.beta = (*betas)[nextBeta++];
    acts.push_back(act);
  }

  // Inputs and their shapes.
  TRY(x0, in(0));
  TRY(w, in(1));
  TRY(r, in(2));
  if (!runtime::isFloatDType(x0.dtype()))
    return fail("X " + x0.describe() + " must be a float tensor");
  for (auto [t, what] :
       {std::pair<const Tensor &, const char *>{x0, "X"}, {w, "W"}, {r, "R"}})
    if (t.rank() != 3)
      return fail(llvm::Twine(what) + " " + t.describe() + " must be 3-D");
  int64_t hidden;
  if (hiddenAttr)
    hidden = *hiddenAttr;
  else if (r.dim(2))
    hidden = *r.dim(2);
  else
    return unsupported("attribute 'hidden_size' is not given and R " +
                       r.describe() + " has a dynamic hidden size");
  // Checks that `t` has shape `expected` (kDynamic: any); dynamic dims of `t`
  // match anything.
  auto expectShape = [&](const Tensor &t, llvm::StringRef what,
                         std::vector<int64_t> expected) -> llvm::Error {
    std::vector<int64_t> shape = t.shape();
    bool ok = shape.size() == expected.size();
    for (size_t i = 0; ok && i < shape.size(); ++i)
      ok = shape[i] == kDynamic || expected[i] == kDynamic ||
           shape[i] == expected[i];
    if (ok && t.dtype() != x0.dtype())
      return fail(what + " " + t.describe() +
                  " must have the element type "
                  "of X " +
                  x0.describe());
    if (ok)
      return llvm::Error::success();
    std::string text = "[";
    for (auto [i, v] : llvm::enumerate(expected))
      text += (i ? ", " : "") +
              (v == kDynamic ? std::string("*") : std::to_string(v));
    return fail(what + " " + t.describe() + " does not match hidden_size " +
                llvm::Twine(hidden) + " and direction '" + direction +
                "': expected shape " + text + "]");
  };
  int64_t gh = gates * hidden;
  int64_t inputSize = w.dim(2).value_or(kDynamic);
  if (auto e = expectShape(w, "W", {numDirs, gh, kDynamic}))
    return e;
  if (auto e = expectShape(r, "R", {numDirs, gh, hidden}))
    return e;
  Tensor x = x0;
  if (layout == 1)
    RNN_SET(x, tgc::transpose(x0, {1, 0, 2}));
  if (auto e = expectShape(x, layout ? "X (transposed to layout 0)" : "X",
                           {kDynamic, kDynamic, inputSize}))
    return e;
  std::optional<int64_t> steps = x.dim(0);
  if (!steps)
    return unsupported("a dynamic sequence length (X " + x0.describe() +
                       ") is not supported: the recurrence is unrolled over "
                       "a static number of steps");
  if (*steps == 0)
    return unsupported("an empty sequence (X " + x0.describe() +
                       ") is not supported");
  int64_t seq = *steps;
  int64_t batch = x.dim(1).value_or(kDynamic);

  std::optional<Tensor> bias, initialH, initialC, peep;
  if (has(3)) {
    TRY(b, in(3));
    if (auto e = expectShape(b, "B", {numDirs, 2 * gh}))
      return e;
    bias = b;
  }
  auto initialState = [&](int i,
                          llvm::StringRef what) -> llvm::Expected<Tensor> {
    TRY(s, in(i));
    if (layout == 0) {
      if (auto e = expectShape(s, what, {numDirs, batch, hidden}))
        return std::move(e);
      return s;
    }
    if (auto e = expectShape(s, what, {batch, numDirs, hidden}))
      return std::move(e);
    TRYT(t, tgc::transpose(s, {1, 0, 2}));
    return t;
  };
  if (has(5)) {
    TRY(s, initialState(5, "initial_h"));
    initialH = s;
  }
  if (lstm && has(6)) {
    TRY(s, initialState(6, "initial_c"));
    initialC = s;
  }
  if (lstm && has(7)) {
    TRY(p, in(7));
    if (auto e = expectShape(p, "P", {numDirs, 3 * hidden}))
      return e;
    peep = p;
  }

  // Per-step masks [batch, 1] (true: the step is inside the sequence), from
  // sequence_lens; none when every sequence is full length.
  std::vector<Tensor> masks;
  if (has(4)) {
    TRY(lensIn, in(4));
    if (runtime::isFloatDType(lensIn.dtype()) || lensIn.dtype() == DType::I1 ||
        lensIn.rank() != 1 ||
        (batch != kDynamic && lensIn.dim(0) && *lensIn.dim(0) != batch))
      return fail("sequence_lens " + lensIn.describe() +
                  " must be a 1-D integer tensor of the batch size");
    TRY(known, constIn(4));
    Tensor lens = lensIn;
    bool needed = true;
    if (known) {
      needed = false;
      for (int64_t k = 0; k < known->numElements(); ++k) {
        int64_t len = known->getInt(k);
        if (len < 0 || len > seq)
          return fail("sequence_lens[" + llvm::Twine(k) +
                      "] = " + llvm::Twine(len) + " is outside [0, " +
                      llvm::Twine(seq) + "]");
        needed = needed || len < seq;
      }
      if (needed)
        lens = constantTensor(*known);
    }
    for (int64_t t = 0; needed && t < seq; ++t) {
      TRYT(m, tgc::less(Scalar(t), lens));
      TRYT(m2, tgc::unsqueeze(m, {1}));
      masks.push_back(m2);
    }
  }

  auto clipped = [&](const Tensor &t) {
    return clip ? tgc::clamp(t, -*clip, *clip) : t;
  };

  std::vector<Tensor> yDirs, hDirs, cDirs;
  for (int64_t d = 0; d < numDirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    const Activation *f = &acts[d * perDir];
    TRYT(wd, pick(w, d));
    TRYT(rd, pick(r, d));
    // The input projection of every step: [seq, batch, gates * hidden].
    TRYT(xw0, tgc::matmul(x, wd, {false, true}));
    Tensor xw = xw0;
    std::optional<Tensor> recurrentBiasH; // GRU with linear_before_reset.
    if (bias) {
      TRYT(bd, pick(*bias, d));
      TRYT(wb, sliceAxis(bd, 0, 0, gh));
      TRYT(rb, sliceAxis(bd, 0, gh, 2 * gh));
      Tensor rbIn = rb;
      if (gru && linearBeforeReset) {
        TRYT(rbh, sliceAxis(rb, 0, 2 * hidden, gh));
        recurrentBiasH = rbh;
        TRYT(rzr, sliceAxis(rb, 0, 0, 2 * hidden));
        RNN_SET(rbIn, tgc::pad(rzr, {0}, {hidden}));
      }
      TRYT(sum, tgc::add(wb, rbIn));
      RNN_SET(xw, tgc::add(xw, sum));
    }
    std::optional<Tensor> rzr, rh, pi, po, pf;
    if (gru) {
      TRYT(a, sliceAxis(rd, 0, 0, 2 * hidden));
      TRYT(b, sliceAxis(rd, 0, 2 * hidden, gh));
      rzr = a;
      rh = b;
    }
    if (peep) {
      TRYT(pd, pick(*peep, d));
      TRYT(a, sliceAxis(pd, 0, 0, hidden));
      TRYT(b, sliceAxis(pd, 0, hidden, 2 * hidden));
      TRYT(c, sliceAxis(pd, 0, 2 * hidden, 3 * hidden));
      pi = a, po = b, pf = c;
    }
    std::optional<Tensor> h, c; // nullopt: zeros.
    if (initialH) {
      TRYT(s, pick(*initialH, d));
      h = s;
    }
    if (initialC) {
      TRYT(s, pick(*initialC, d));
      c = s;
    }
    std::vector<Tensor> ys(seq);
    for (int64_t k = 0; k < seq; ++k) {
      int64_t t = reverse ? seq - 1 - k : k;
      TRYT(xt, pick(xw, t)); // [batch, gates * hidden]
      Tensor hNew, cNew;
      if (lstm) {
        Tensor pre = xt;
        if (h)
          RNN_SET(pre, tgc::add(xt, tgc::matmul(*h, rd, {false, true})));
        TRYT(gi0, sliceAxis(pre, 1, 0, hidden));
        TRYT(go0, sliceAxis(pre, 1, hidden, 2 * hidden));
        TRYT(gf0, sliceAxis(pre, 1, 2 * hidden, 3 * hidden));
        TRYT(gc0, sliceAxis(pre, 1, 3 * hidden, 4 * hidden));
        Tensor gi = gi0, go = go0, gf = gf0;
        if (peep && c) {
          RNN_SET(gi, tgc::add(gi, tgc::mul(*pi, *c)));
          RNN_SET(gf, tgc::add(gf, tgc::mul(*pf, *c)));
        }
        TRYT(iGate, recurrent::apply(f[0], clipped(gi)));
        Tensor fGate;
        if (inputForget)
          RNN_SET(fGate, tgc::sub(Scalar(1.0), iGate));
        else
          RNN_SET(fGate, recurrent::apply(f[0], clipped(gf)));
        TRYT(cand, recurrent::apply(f[1], clipped(gc0)));
        RNN_SET(cNew, tgc::mul(iGate, cand));
        if (c)
          RNN_SET(cNew, tgc::add(tgc::mul(fGate, *c), cNew));
        if (peep)
          RNN_SET(go, tgc::add(go, tgc::mul(*po, cNew)));
        TRYT(oGate, recurrent::apply(f[0], clipped(go)));
        RNN_SET(hNew, tgc::mul(oGate, recurrent::apply(f[2], cNew)));
      } else if (gru) {
        TRYT(xzr, sliceAxis(xt, 1, 0, 2 * hidden));
        TRYT(xh, sliceAxis(xt, 1, 2 * hidden, gh));
        Tensor zr = xzr;
        if (h)
          RNN_SET(zr, tgc::add(xzr, tgc::matmul(*h, *rzr, {false, true})));
        TRYT(gz, sliceAxis(zr, 1, 0, hidden));
        TRYT(gr, sliceAxis(zr, 1, hidden, 2 * hidden));
        TRYT(z, recurrent::apply(f[0], clipped(gz)));
        TRYT(rg, recurrent::apply(f[0], clipped(gr)));
        Tensor pre = xh;
        if (linearBeforeReset) {
          std::optional<Tensor> hr;
          if (h) {
            TRYT(m, tgc::matmul(*h, *rh, {false, true}));
            hr = m;
            if (recurrentBiasH)
              RNN_SET(*hr, tgc::add(*hr, *recurrentBiasH));
          } else if (recurrentBiasH) {
            hr = *recurrentBiasH;
          }
          if (hr)
            RNN_SET(pre, tgc::add(xh, tgc::mul(rg, *hr)));
        } else if (h) {
          RNN_SET(pre, tgc::add(xh, tgc::matmul(tgc::mul(rg, *h), *rh,
                                                {false, true})));
        }
        TRYT(cand, recurrent::apply(f[1], clipped(pre)));
        // (1 - z) * cand + z * h = cand + z * (h - cand)
        if (h)
          RNN_SET(hNew, tgc::add(cand, tgc::mul(z, tgc::sub(*h, cand))));
        else
          RNN_SET(hNew, tgc::mul(tgc::sub(Scalar(1.0), z), cand));
      } else {
        Tensor pre = xt;
        if (h)
          RNN_SET(pre, tgc::add(xt, tgc::matmul(*h, rd, {false, true})));
        RNN_SET(hNew, recurrent::apply(f[0], clipped(pre)));
      }
      if (!masks.empty()) {
        const Tensor &m = masks[t];
        TRYT(y, tgc::select(m, hNew, Scalar(0.0)));
        ys[t] = y;
        if (h)
          RNN_SET(hNew, tgc::select(m, hNew, *h));
        else
          hNew = y;
        if (lstm) {
          if (c)
            RNN_SET(cNew, tgc::select(m, cNew, *c));
          else
            RNN_SET(cNew, tgc::select(m, cNew, Scalar(0.0)));
        }
      } else {
        ys[t] = hNew;
      }
      h = hNew;
      if (lstm)
        c = cNew;
    }
    if (wantsOutput(0)) {
      std::vector<Tensor> parts;
      for (const Tensor &y : ys) {
        TRYT(u, tgc::unsqueeze(y, {0, 1}));
        parts.push_back(u);
      }
      TRYT(yd, tgc::concat(parts, 0)); // [seq, 1, batch, hidden]
      yDirs.push_back(yd);
    }
    TRYT(hd, tgc::unsqueeze(*h, {0}));
    hDirs.push_back(hd);
    if (lstm) {
      TRYT(cd, tgc::unsqueeze(*c, {0}));
      cDirs.push_back(cd);
    }
  }
  // Outputs: Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs,
  // hidden]), Y_h and Y_c [dirs, batch, hidden] (layout 1: [batch, dirs,
  // hidden]).
  if (wantsOutput(0)) {
    TRYT(y, tgc::concat(yDirs, 1));
    Tensor result = y;
    if (layout == 1)
      RNN_SET(result, tgc::transpose(y, {2, 0, 1, 3}));
    out(0, result);
  }
  for (auto [index, states] :
       {std::pair<int, std::vector<Tensor> *>{1, &hDirs}, {2, &cDirs}}) {
    if (!wantsOutput(index) || states->empty())
      continue;
    TRYT(s, tgc::concat(*states, 0));
    Tensor result = s;
    if (layout == 1)
      RNN_SET(result, tgc::transpose(s, {1, 0, 2}));
    out(index, result);
  }
  return llvm::Error::success();
#undef RNN_SET
}

//===----------------------------------------------------------------------===//
// Resize, Upsample and LRN
//===----------------------------------------------------------------------===//

namespace resize {

/// How Resize maps output coordinates of one axis to the input.
struct Params {
  std::string mode;        // nearest, linear, cubic
  std::string coordMode;   // coordinate_transformation_mode
  std::string nearestMode; // nearest_mode, or "simple" (Upsample, Resize-10)
  double cubicA = -0.75;
  bool excludeOutside = false;
};

/// One resized axis: output position o reads the input at index[o * taps + k]
/// (already clamped into the input) with weight[o * taps + k], or is the
/// extrapolation value when outside[o].
struct AxisPlan {
  int64_t outSize = 0;
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<uint8_t> outside;
  bool anyOutside() const { return llvm::is_contained(outside, 1); }
};

/// The plan of one axis, following the ONNX reference implementation
/// (onnx/backend/test/case/node/resize.py): per output coordinate the source
/// coordinate, the `n` neighbours nearest to it in the edge-padded input
/// (ties to the left, so the ratio is in (0, 1]) and their coefficients.
AxisPlan planAxis(const Params &p, int64_t inSize, int64_t outSize,
                  double scale, float roiStart, float roiEnd) {
  AxisPlan plan;
  plan.outSize = outSize;
  double outWidth = scale * static_cast<double>(inSize);
  double inLast = static_cast<double>(inSize - 1);
  bool nearest = p.mode == "nearest";
  int64_t n = p.mode == "cubic" ? 4 : 2;
  plan.taps = nearest ? 1 : n;
  for (int64_t o = 0; o < outSize; ++o) {
    double x = static_cast<double>(o);
    if (p.nearestMode == "simple") {
      // Upsample and Resize-10 (as onnxruntime): asymmetric, floor when
      // upsampling and ceil when downsampling.
      double xo = x / scale;
      int64_t i =
          static_cast<int64_t>(scale < 1 ? std::ceil(xo) : std::floor(xo));
      plan.index.push_back(std::clamp<int64_t>(i, 0, inSize - 1));
      plan.weight.push_back(1);
      plan.outside.push_back(0);
      continue;
    }
    double xo = 0;
    bool outside = false;
    const std::string &c = p.coordMode;
    if (c == "align_corners") {
      xo = outWidth == 1 ? 0.0 : x * inLast / (outWidth - 1);
    } else if (c == "asymmetric") {
      xo = x / scale;
    } else if (c == "tf_crop_and_resize") {
      // The reference subtracts the two float roi values in float.
      double extent = static_cast<float>(roiEnd - roiStart);
      xo = outWidth == 1 ? extent * inLast / 2
                         : x * extent * inLast / (outWidth - 1);
      xo += static_cast<double>(roiStart) * inLast;
      outside = xo < 0 || xo > inLast;
    } else if (c == "pytorch_half_pixel") {
      xo = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (c == "tf_half_pixel_for_nn") {
      xo = (x + 0.5) / scale;
    } else if (c == "half_pixel_symmetric") {
      double adjustment = static_cast<double>(outSize) / outWidth;
      double center = static_cast<double>(inSize) / 2;
      xo = center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
    } else { // half_pixel
      xo = (x + 0.5) / scale - 0.5;
    }
    if (outside) {
      for (int64_t k = 0; k < plan.taps; ++k) {
        plan.index.push_back(0);
        plan.weight.push_back(0);
      }
      plan.outside.push_back(1);
      continue;
    }
    double base = std::floor(xo);
    double ratio = xo - base;
    if (ratio == 0) { // Prefer the pixel on the left: ratio in (0, 1].
      base -= 1;
      ratio = 1;
    }
    std::vector<double> coeffs;
    if (p.mode == "nearest") {
      bool right;
      if (ratio == 1 || p.nearestMode == "ceil")
        right = true;
      else if (p.nearestMode == "floor")
        right = false;
      else if (p.nearestMode == "round_prefer_ceil")
        right = ratio >= 0.5;
      else // round_prefer_floor
        right = ratio > 0.5;
      coeffs = {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
    } else if (p.mode == "linear") {
      coeffs = {1 - ratio, ratio};
    } else {
      double a = p.cubicA, r = ratio, s = 1 - ratio;
      coeffs = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                ((a + 2) * r - (a + 3)) * r * r + 1,
                ((a + 2) * s - (a + 3)) * s * s + 1,
                ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
    }
    // The n nearest indices of the input padded by ceil(n / 2) on each side.
    int64_t pad = (n + 1) / 2;
    int64_t start = static_cast<int64_t>(base) - (n == 4 ? 1 : 0);
    start = std::clamp<int64_t>(start, -pad, inSize + pad - n);
    if (p.excludeOutside) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (start + k < 0 || start + k >= inSize)
          coeffs[k] = 0;
        sum += coeffs[k];
      }
      if (sum != 0)
        for (double &w : coeffs)
          w /= sum;
    }
    if (nearest) {
      int64_t best = coeffs[1] > coeffs[0] ? 1 : 0;
      plan.index.push_back(std::clamp<int64_t>(start + best, 0, inSize - 1));
      plan.weight.push_back(1);
    } else {
      for (int64_t k = 0; k < n; ++k) {
        plan.index.push_back(std::clamp<int64_t>(start + k, 0, inSize - 1));
        plan.weight.push_back(coeffs[k]);
      }
    }
    plan.outside.push_back(0);
  }
  // One weight 1 per position (integer source coordinates): a plain gather.
  if (plan.taps > 1 && !plan.anyOutside()) {
    bool single = true;
    std::vector<int64_t> picked;
    for (int64_t o = 0; single && o < outSize; ++o) {
      int64_t at = -1;
      for (int64_t k = 0; k < plan.taps; ++k) {
        double w = plan.weight[o * plan.taps + k];
        if (w == 1 && at < 0)
          at = k;
        else if (w != 0)
          single = false;
      }
      single &= at >= 0;
      if (single)
        picked.push_back(plan.index[o * plan.taps + at]);
    }
    if (single) {
      plan.taps = 1;
      plan.index = picked;
      plan.weight.assign(outSize, 1);
    }
  }
  return plan;
}

/// Whether the plan maps every position to itself.
bool isIdentity(const AxisPlan &plan, int64_t inSize) {
  if (plan.taps != 1 || plan.outSize != inSize || plan.anyOutside())
    return false;
  for (int64_t o = 0; o < plan.outSize; ++o)
    if (plan.index[o] != o)
      return false;
  return true;
}

} // namespace resize

llvm::Error Importer::convResize() {
  bool isUpsample = node->op_type() == "Upsample";
  bool legacy = isUpsample || opset < 11;
  TRY(x, in(0));
  int64_t rank = x.rank();
  resize::Params p;
  TRY(mode, attrString("mode", "nearest"));
  p.mode = mode;
  double extrapolation = 0;
  std::string policy = "stretch";
  std::vector<int64_t> axes;
  if (legacy) {
    if (mode != "nearest" && mode != "linear")
      return fail("attribute 'mode' must be nearest or linear, not '" + mode +
                  "'");
    p.coordMode = "asymmetric";
    p.nearestMode = mode == "nearest" ? "simple" : "";
  } else {
    if (mode != "nearest" && mode != "linear" && mode != "cubic")
      return fail("attribute 'mode' must be nearest, linear or cubic, not '" +
                  mode + "'");
    TRY(coordMode, attrString("coordinate_transformation_mode", "half_pixel"));
    static const llvm::StringRef coordModes[] = {
        "half_pixel",        "half_pixel_symmetric", "pytorch_half_pixel",
        "align_corners",     "asymmetric",           "tf_half_pixel_for_nn",
        "tf_crop_and_resize"};
    if (!llvm::is_contained(coordModes, coordMode))
      return fail("attribute 'coordinate_transformation_mode' must be "
                  "half_pixel, half_pixel_symmetric, pytorch_half_pixel, "
                  "align_corners, asymmetric, tf_half_pixel_for_nn or "
                  "tf_crop_and_resize, not '" +
                  coordMode + "'");
    p.coordMode = coordMode;
    TRY(nearestMode, attrString("nearest_mode", "round_prefer_floor"));
    if (nearestMode != "round_prefer_floor" &&
        nearestMode != "round_prefer_ceil" && nearestMode != "floor" &&
        nearestMode != "ceil")
      return fail("attribute 'nearest_mode' must be round_prefer_floor, "
                  "round_prefer_ceil, floor or ceil, not '" +
                  nearestMode + "'");
    p.nearestMode = nearestMode;
    TRY(cubicA, attrFloat("cubic_coeff_a", -0.75));
    p.cubicA = cubicA;
    TRY(exclude, attrInt("exclude_outside", 0));
    if (exclude != 0 && exclude != 1)
      return fail("attribute 'exclude_outside' must be 0 or 1, not " +
                  llvm::Twine(exclude));
    p.excludeOutside = exclude == 1;
    TRY(extrap, attrFloat("extrapolation_value", 0.0));
    extrapolation = extrap;
    if (opset >= 18) { // antialias, keep_aspect_ratio_policy, axes
      TRY(antialias, attrInt("antialias", 0));
      if (antialias != 0)
        return unsupported("Resize with antialias = " + llvm::Twine(antialias) +
                           " is not supported");
      TRY(policyAttr, attrString("keep_aspect_ratio_policy", "stretch"));
      if (policyAttr != "stretch" && policyAttr != "not_larger" &&
          policyAttr != "not_smaller")
        return fail("attribute 'keep_aspect_ratio_policy' must be stretch, "
                    "not_larger or not_smaller, not '" +
                    policyAttr + "'");
      policy = policyAttr;
      TRY(axesAttr, attrInts("axes"));
      if (axesAttr) {
        for (int64_t a : *axesAttr) {
          TRY(axis, normalizeAxis(a, rank));
          if (llvm::is_contained(axes, axis))
            return fail("attribute 'axes' " + listOf(*axesAttr) +
                        " has a duplicate");
          axes.push_back(axis);
        }
      }
    }
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  if (p.mode != "nearest" && !runtime::isFloatDType(x.dtype()))
    return unsupported(p.mode + " Resize of a " + x.describe() +
                       " input is not supported (only floating-point)");
  int64_t numAxes = static_cast<int64_t>(axes.size());

  // Scales or sizes (one of them), per listed axis.
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  auto readInput =
      [&](int i,
          llvm::StringRef what) -> llvm::Expected<std::shared_ptr<HostTensor>> {
    if (!has(i))
      return nullptr;
    TRY(value, constIn(i));
    if (!value)
      return unsupported(what + " (input #" + llvm::Twine(i) +
                         ") must be a constant (an initializer or computed "
                         "from constants); a dynamic " +
                         what + " is not supported");
    if (value->numElements() == 0)
      return nullptr;
    if (value->numElements() != numAxes)
      return fail(what + " (input #" + llvm::Twine(i) + ") has " +
                  llvm::Twine(value->numElements()) + " values; " +
                  llvm::Twine(numAxes) + " expected");
    return value;
  };
  if (isUpsample && opset < 9) {
    TRY(scalesAttr, attrFloats("scales"));
    if (!scalesAttr)
      return fail("attribute 'scales' is required");
    if (static_cast<int64_t>(scalesAttr->size()) != rank)
      return fail("attribute 'scales' has " + llvm::Twine(scalesAttr->size()) +
                  " values; " + llvm::Twine(rank) + " expected");
    scales.assign(scalesAttr->begin(), scalesAttr->end());
  } else {
    TRY(scalesValue, readInput(legacy ? 1 : 2, "scales"));
    if (scalesValue) {
      if (!runtime::isFloatDType(scalesValue->dtype()))
        return fail("scales must be floating-point");
      for (int64_t k = 0; k < numAxes; ++k)
        scales.push_back(scalesValue->getDouble(k));
    }
    if (!legacy) {
      TRY(sizesValue, readInput(3, "sizes"));
      if (sizesValue) {
        if (scalesValue)
          return fail("only one of scales and sizes may be given");
        if (runtime::isFloatDType(sizesValue->dtype()) ||
            sizesValue->dtype() == DType::I1)
          return fail("sizes must be integers");
        for (int64_t k = 0; k < numAxes; ++k)
          sizes.push_back(sizesValue->getInt(k));
      }
    }
  }
  if (scales.empty() && sizes.empty())
    return fail("one of scales and sizes is required");
  for (double s : scales)
    if (!(s > 0) || !std::isfinite(s))
      return fail("scales must be positive and finite");
  for (int64_t s : sizes)
    if (s < 1)
      return fail("sizes " + listOf(sizes) + " must be positive");

  std::vector<float> roiStart(numAxes, 0), roiEnd(numAxes, 1);
  if (p.coordMode == "tf_crop_and_resize") {
    if (!has(1))
      return fail("tf_crop_and_resize needs the roi (input #1)");
    TRY(roi, constIn(1));
    if (!roi)
      return unsupported("tf_crop_and_resize needs a constant roi (input #1)");
    if (roi->numElements() != 2 * numAxes ||
        !runtime::isFloatDType(roi->dtype()))
      return fail("roi (input #1) must have " + llvm::Twine(2 * numAxes) +
                  " floating-point values, not " + roi->describe());
    for (int64_t k = 0; k < numAxes; ++k) {
      roiStart[k] = static_cast<float>(roi->getDouble(k));
      roiEnd[k] = static_cast<float>(roi->getDouble(numAxes + k));
    }
  }

  // Input, output size and scale per listed axis.
  std::vector<int64_t> inSizes(numAxes), outSizes(numAxes);
  std::vector<double> axisScales(numAxes);
  // floor(v) as a size, or -1 when it is out of range (v may be huge).
  auto toSize = [](double v) -> int64_t {
    v = std::floor(v);
    return v >= 0 && v <= double(int64_t(1) << 31) ? static_cast<int64_t>(v)
                                                   : -1;
  };
  std::vector<bool> skip(numAxes, false);
  bool identityAtScaleOne = p.coordMode != "tf_crop_and_resize" &&
                            p.coordMode != "tf_half_pixel_for_nn";
  for (int64_t k = 0; k < numAxes; ++k) {
    std::optional<int64_t> inSize = x.dim(axes[k]);
    if (!sizes.empty() && inSize && *inSize == sizes[k] && identityAtScaleOne &&
        policy == "stretch") {
      skip[k] = true;
      continue;
    }
    if (!scales.empty() && scales[k] == 1 && identityAtScaleOne) {
      skip[k] = true;
      continue;
    }
    if (!inSize)
      return unsupported("Resize needs a static dim " + llvm::Twine(axes[k]) +
                         " in " + x.describe() +
                         ": resizing a dynamic dim is not supported");
    if (*inSize == 0)
      return unsupported("Resize of an empty input is not supported");
    inSizes[k] = *inSize;
    if (!scales.empty()) {
      axisScales[k] = scales[k];
      outSizes[k] = toSize(scales[k] * static_cast<double>(*inSize));
    } else {
      axisScales[k] =
          static_cast<double>(sizes[k]) / static_cast<double>(*inSize);
      outSizes[k] = sizes[k];
    }
  }
  if (!sizes.empty() && policy != "stretch") {
    for (int64_t k = 0; k < numAxes; ++k)
      if (skip[k])
        return unsupported("keep_aspect_ratio_policy needs static dims");
    double scale = axisScales[0];
    for (double s : axisScales)
      scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
    for (int64_t k = 0; k < numAxes; ++k) {
      axisScales[k] = scale;
      outSizes[k] = toSize(scale * static_cast<double>(inSizes[k]) + 0.5);
    }
  }
  for (int64_t k = 0; k < numAxes; ++k)
    if (!skip[k] && outSizes[k] < 1)
      return unsupported("Resize of dim " + llvm::Twine(axes[k]) + " of " +
                         x.describe() +
                         " gives an empty or too large output dim, which is "
                         "not supported");

  // One separable step per axis (shrinking axes first): gathers of the source
  // positions, weighted and summed.
  std::vector<int64_t> order;
  for (int64_t k = 0; k < numAxes; ++k)
    if (!skip[k])
      order.push_back(k);
  llvm::stable_sort(order, [&](int64_t a, int64_t b) {
    return outSizes[a] * inSizes[b] < outSizes[b] * inSizes[a];
  });
  Tensor y = x;
  for (int64_t k : order) {
    int64_t axis = axes[k];
    resize::AxisPlan plan = resize::planAxis(
        p, inSizes[k], outSizes[k], axisScales[k], roiStart[k], roiEnd[k]);
    if (resize::isIdentity(plan, inSizes[k]))
      continue;
    int64_t positions = plan.outSize;
    std::vector<int64_t> columnShape(rank - axis, 1);
    columnShape[0] = positions;
    Tensor acc;
    for (int64_t t = 0; t < plan.taps; ++t) {
      bool allZero = true, allOne = true;
      auto idx = HostTensor::allocate(DType::I64, {positions});
      auto w = HostTensor::allocate(x.dtype(), columnShape);
      if (!idx.ok() || !w.ok())
        return fail("cannot allocate the resize tables");
      for (int64_t o = 0; o < positions; ++o) {
        double weight = plan.weight[o * plan.taps + t];
        idx->setInt(o, plan.index[o * plan.taps + t]);
        w->setDouble(o, weight);
        allZero &= weight == 0;
        allOne &= weight == 1;
      }
      if (allZero && (acc.valid() || t + 1 < plan.taps))
        continue;
      TRYT(idxT, constantTensor(*idx));
      TRYT(g, tgc::gather(y, idxT, axis));
      Tensor term = g;
      if (!allOne) {
        TRYT(wT, constantTensor(*w));
        TRYT(m, tgc::mul(g, wT));
        term = m;
      }
      if (acc.valid()) {
        TRYT(sum, tgc::add(acc, term));
        acc = sum;
      } else {
        acc = term;
      }
    }
    if (plan.anyOutside()) {
      auto mask = HostTensor::allocate(DType::I1, columnShape);
      if (!mask.ok())
        return fail("cannot allocate the resize tables");
      for (int64_t o = 0; o < positions; ++o)
        mask->setInt(o, plan.outside[o]);
      TRYT(maskT, constantTensor(*mask));
      TRYT(sel, tgc::select(maskT, Scalar(extrapolation), acc));
      acc = sel;
    }
    y = acc;
  }
  out(0, y);
  return llvm::Error::success();
}

llvm::Error Importer::convLRN() {
  TRY(x, in(0));
  TRY(sizeAttr, attrInt("size"));
  if (!sizeAttr)
    return fail("attribute 'size' is required");
  if (*sizeAttr < 1)
    return fail("attribute 'size' must be >= 1, not " + llvm::Twine(*sizeAttr));
  TRY(alpha, attrFloat("alpha", 1e-4));
  TRY(beta, attrFloat("beta", 0.75));
  TRY(bias, attrFloat("bias", 1.0));
  if (!runtime::isFloatDType(x.dtype()))
    return fail("the input " + x.describe() + " must be floating-point");
  if (x.rank() < 2)
    return fail("the input " + x.describe() +
                " must have rank >= 2 (N x C x D1 x ...)");
  std::optional<int64_t> channels = x.dim(1);
  if (!channels)
    return unsupported("LRN needs a static channel dim, not " + x.describe());
  int64_t size = *sizeAttr, c = *channels;
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  TRYT(sq, tgc::mul(x, x));
  // The mean of the squares over the channel window [c - lo, c + hi], zero
  // outside: an average pool over [N, 1, C, rest] when the shape is static,
  // else a sum of shifted slices (then alpha / size scales the sum).
  Tensor mean;
  if (x.hasStaticShape()) {
    std::vector<int64_t> shape = x.shape();
    int64_t rest = 1;
    for (int64_t d = 2; d < x.rank(); ++d)
      rest *= shape[d];
    TRY(r, reshapeTo(sq, {shape[0], 1, c, rest}));
    Pool2DOptions opts;
    opts.kernel = {size, 1};
    opts.padding = {lo, 0, hi, 0};
    opts.countIncludePad = true;
    TRYT(pooled, tgc::avgPool2d(r, opts));
    TRY(back, reshapeTo(pooled, shape));
    mean = back;
  } else {
    std::vector<int64_t> low(x.rank(), 0), high(x.rank(), 0);
    low[1] = lo;
    high[1] = hi;
    TRYT(padded, tgc::pad(sq, low, high));
    Tensor sum;
    for (int64_t k = 0; k < size; ++k) {
      std::vector<int64_t> starts(x.rank(), 0),
          ends(x.rank(), std::numeric_limits<int64_t>::max());
      starts[1] = k;
      ends[1] = k + c;
      TRYT(part, tgc::slice(padded, starts, ends));
      if (sum.valid()) {
        TRYT(s, tgc::add(sum, part));
        sum = s;
      } else {
        sum = part;
      }
    }
    mean = sum;
    alpha /= static_cast<double>(size);
  }
  TRYT(scaled, tgc::mul(mean, Scalar(alpha)));
  TRYT(shifted, tgc::add(scaled, Scalar(bias)));
  TRYT(den, tgc::pow(shifted, Scalar(beta)));
  TRYT(y, tgc::div(x, den));
  out(0, y);
  return llvm::Error::success();
}

/// atan from existing ops (tgc has no atan): t = x, or 1/x where |x| > 1
/// (then atan(x) = sign(x) * pi/2 - atan(t)); one half-angle step
/// u = t / (1 + sqrt(1 + t^2)) brings |u| below tan(pi/8), where the Taylor
/// series to u^17 is within 3e-9 (atan(t) = 2 atan(u)).
llvm::Expected<Tensor> Importer::atanOf(const Tensor &x) {
  TRYT(ax, tgc::abs(x));
  TRYT(big, tgc::greater(ax, Scalar(1.0)));
  TRYT(inv, tgc::reciprocal(x));
  TRYT(t, tgc::select(big, inv, x));
  TRYT(t2, tgc::mul(t, t));
  TRYT(t21, tgc::add(t2, Scalar(1.0)));
  TRYT(root, tgc::sqrt(t21));
  TRYT(den, tgc::add(root, Scalar(1.0)));
  TRYT(u, tgc::div(t, den));
  TRYT(s, tgc::mul(u, u));
  // u * (1 + s * (c1 + s * (c2 + ... + s * c8))), c_k = (-1)^k / (2k + 1).
  TRYT(p8, tgc::mul(s, Scalar(1.0 / 17.0)));
  Tensor p = p8;
  for (int k = 7; k >= 1; --k) {
    double c = (k % 2 ? -1.0 : 1.0) / (2 * k + 1);
    TRYT(sum, tgc::add(p, Scalar(c)));
    TRYT(next, tgc::mul(sum, s));
    p = next;
  }
  TRYT(series, tgc::add(p, Scalar(1.0)));
  TRYT(atanU, tgc::mul(u, series));
  TRYT(r, tgc::mul(atanU, Scalar(2.0)));
  TRYT(sg, tgc::sign(x));
  TRYT(halfPi, tgc::mul(sg, Scalar(M_PI / 2)));
  TRYT(far, tgc::sub(halfPi, r));
  TRYT(y, tgc::select(big, far, r));
  return y;
}

llvm::Error Importer::convAtan() {
  TRY(x, in(0));
  TRY(y, atanOf(x));
  out(0, y);
  return llvm::Error::success();
}

/// asin(x) = atan(x / sqrt((1 - x)(1 + x))); +-1 give +-inf, hence +-pi/2.
llvm::Error Importer::convAsin() {
  TRY(x, in(0));
  TRYT(a, tgc::sub(Scalar(1.0), x));
  TRYT(b, tgc::add(x, Scalar(1.0)));
  TRYT(ab, tgc::mul(a, b));
  TRYT(root, tgc::sqrt(ab));
  TRYT(q, tgc::div(x, root));
  TRY(y, atanOf(q));
  out(0, y);
  return llvm::Error::success();
}

/// acos(x) = 2 atan(sqrt((1 - x) / (1 + x))), accurate near 1 as well.
llvm::Error Importer::convAcos() {
  TRY(x, in(0));
  TRYT(a, tgc::sub(Scalar(1.0), x));
  TRYT(b, tgc::add(x, Scalar(1.0)));
  TRYT(q, tgc::div(a, b));
  TRYT(root, tgc::sqrt(q));
  TRY(half, atanOf(root));
  TRYT(y, tgc::mul(half, Scalar(2.0)));
  out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

const std::map<std::string, Importer::Converter> &Importer::converters() {
  static const std::map<std::string, Converter> table = [] {
    std::map<std::string, Converter> m;
    m["Add"] = &Importer::binaryOp<tgc::add>;
    m["Sub"] = &Importer::binaryOp<tgc::sub>;
    m["Mul"] = &Importer::binaryOp<tgc::mul>;
    m["Div"] = &Importer::binaryOp<tgc::div>;
    m["Pow"] = &Importer::convPow;
    m["Equal"] = &Importer::binaryOp<tgc::equal>;
    m["Less"] = &Importer::binaryOp<tgc::less>;
    m["LessOrEqual"] = &Importer::binaryOp<tgc::lessEqual>;
    m["Greater"] = &Importer::binaryOp<tgc::greater>;
    m["GreaterOrEqual"] = &Importer::binaryOp<tgc::greaterEqual>;
    m["And"] = &Importer::binaryOp<tgc::logicalAnd>;
    m["Or"] = &Importer::binaryOp<tgc::logicalOr>;
    m["Xor"] = &Importer::convXor;
    m["Mod"] = &Importer::convMod;
    m["BitShift"] = &Importer::convBitShift;
    m["ConvInteger"] = &Importer::convConvInteger;
    m["MatMulInteger"] = &Importer::convMatMulInteger;
    m["QLinearMatMul"] = &Importer::convQLinearMatMul;
    m["QLinearConv"] = &Importer::convQLinearConv;
    m["QuantizeLinear"] = &Importer::convQuantizeLinear;
    m["DequantizeLinear"] = &Importer::convDequantizeLinear;
    m["Max"] = &Importer::variadicOp<tgc::maximum>;
    m["Min"] = &Importer::variadicOp<tgc::minimum>;
    m["Sum"] = &Importer::variadicOp<tgc::add>;
    m["Mean"] = &Importer::convMean;
    m["Neg"] = &Importer::unaryOp<tgc::neg>;
    m["Abs"] = &Importer::unaryOp<tgc::abs>;
    m["Exp"] = &Importer::unaryOp<tgc::exp>;
    m["Log"] = &Importer::unaryOp<tgc::log>;
    m["Sqrt"] = &Importer::unaryOp<tgc::sqrt>;
    m["Reciprocal"] = &Importer::unaryOp<tgc::reciprocal>;
    m["Tanh"] = &Importer::unaryOp<tgc::tanh>;
    m["Sigmoid"] = &Importer::unaryOp<tgc::sigmoid>;
    m["Relu"] = &Importer::unaryOp<tgc::relu>;
    m["Erf"] = &Importer::unaryOp<tgc::erf>;
    m["Sin"] = &Importer::unaryOp<tgc::sin>;
    m["Cos"] = &Importer::unaryOp<tgc::cos>;
    m["Floor"] = &Importer::unaryOp<tgc::floor>;
    m["Ceil"] = &Importer::unaryOp<tgc::ceil>;
    m["Round"] = &Importer::unaryOp<tgc::round>;
    m["Sign"] = &Importer::unaryOp<tgc::sign>;
    m["Not"] = &Importer::unaryOp<tgc::logicalNot>;
    m["Identity"] = &Importer::convIdentity;
    m["PRelu"] = &Importer::convPRelu;
    m["LeakyRelu"] = &Importer::convLeakyRelu;
    m["Elu"] = &Importer::convElu;
    m["Selu"] = &Importer::convSelu;
    m["Celu"] = &Importer::convCelu;
    m["HardSigmoid"] = &Importer::convHardSigmoid;
    m["HardSwish"] = &Importer::convHardSwish;
    m["Softplus"] = &Importer::convSoftplus;
    m["Softsign"] = &Importer::convSoftsign;
    m["Mish"] = &Importer::convMish;
    m["ThresholdedRelu"] = &Importer::convThresholdedRelu;
    m["Shrink"] = &Importer::convShrink;
    m["Tan"] = &Importer::convTan;
    m["Sinh"] = &Importer::convSinh;
    m["Cosh"] = &Importer::convCosh;
    m["Asinh"] = &Importer::convAsinh;
    m["Acosh"] = &Importer::convAcosh;
    m["Atanh"] = &Importer::convAtanh;
    m["IsNaN"] = &Importer::convIsNaN;
    m["IsInf"] = &Importer::convIsInf;
    m["Clip"] = &Importer::convClip;
    m["Where"] = &Importer::convWhere;
    m["Cast"] = &Importer::convCast;
    m["CastLike"] = &Importer::convCastLike;
    m["MatMul"] = &Importer::convMatMul;
    m["Gemm"] = &Importer::convGemm;
    m["Conv"] = &Importer::convConv;
    m["MaxPool"] = &Importer::convPool;
    m["AveragePool"] = &Importer::convPool;
    m["GlobalAveragePool"] = &Importer::convGlobalPool;
    m["GlobalMaxPool"] = &Importer::convGlobalPool;
    m["BatchNormalization"] = &Importer::convBatchNorm;
    m["InstanceNormalization"] = &Importer::convInstanceNorm;
    m["LayerNormalization"] = &Importer::convLayerNorm;
    m["LpNormalization"] = &Importer::convLpNorm;
    m["MeanVarianceNormalization"] = &Importer::convMeanVarianceNorm;
    m["Softmax"] = &Importer::convSoftmax;
    m["LogSoftmax"] = &Importer::convSoftmax;
    m["Hardmax"] = &Importer::convSoftmax;
    for (const char *r : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                          "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                          "ReduceLogSumExp", "ReduceSumSquare"})
      m[r] = &Importer::convReduce;
    m["ArgMax"] = &Importer::convArgReduce;
    m["ArgMin"] = &Importer::convArgReduce;
    m["Reshape"] = &Importer::convReshape;
    m["Flatten"] = &Importer::convFlatten;
    m["Squeeze"] = &Importer::convSqueeze;
    m["Unsqueeze"] = &Importer::convUnsqueeze;
    m["Transpose"] = &Importer::convTranspose;
    m["Concat"] = &Importer::convConcat;
    m["Split"] = &Importer::convSplit;
    m["Slice"] = &Importer::convSlice;
    m["Pad"] = &Importer::convPad;
    m["Gather"] = &Importer::convGather;
    m["GatherElements"] = &Importer::convGatherElements;
    m["GatherND"] = &Importer::convGatherND;
    m["Scatter"] = &Importer::convScatterElements;
    m["ScatterElements"] = &Importer::convScatterElements;
    m["ScatterND"] = &Importer::convScatterND;
    m["TopK"] = &Importer::convTopK;
    m["Dropout"] = &Importer::convDropout;
    m["Constant"] = &Importer::convConstant;
    m["Shape"] = &Importer::convShape;
    m["Size"] = &Importer::convSize;
    m["ConstantOfShape"] = &Importer::convConstantOfShape;
    m["Expand"] = &Importer::convExpand;
    m["Tile"] = &Importer::convTile;
    m["Range"] = &Importer::convRange;
    m["OneHot"] = &Importer::convOneHot;
    m["EyeLike"] = &Importer::convEyeLike;
    m["Trilu"] = &Importer::convTrilu;
    m["CumSum"] = &Importer::convCumSum;
    m["DepthToSpace"] = &Importer::convDepthToSpace;
    m["SpaceToDepth"] = &Importer::convSpaceToDepth;
    m["Resize"] = &Importer::convResize;
    m["Upsample"] = &Importer::convResize;
    m["LRN"] = &Importer::convLRN;
    m["ConvTranspose"] = &Importer::convConvTranspose;
    m["Einsum"] = &Importer::convEinsum;
    m["RNN"] = &Importer::convRecurrent;
    m["GRU"] = &Importer::convRecurrent;
    m["LSTM"] = &Importer::convRecurrent;
    m["Atan"] = &Importer::convAtan;
    m["Asin"] = &Importer::convAsin;
    m["Acos"] = &Importer::convAcos;
    return m;
  }();
  return table;
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

llvm::Error
Importer::finishNode(mlir::Operation *before,
                     std::vector<std::pair<std::string, Tensor>> &outs) {
  detail::TraceState *state = detail::activeTrace();
  mlir::OpBuilder &builder = state->builder;
  mlir::Block *block = builder.getInsertionBlock();
  mlir::Operation *first = before
                               ? before->getNextNode()
                               : (block->empty() ? nullptr : &block->front());
  mlir::Location loc = mlir::NameLoc::get(
      mlir::StringAttr::get(&context, label),
      mlir::FileLineColLoc::get(&context, options.modelName, 0, 0));
  llvm::DenseMap<mlir::Value, mlir::Value> replaced;
  for (mlir::Operation *op = first, *next = nullptr; op; op = next) {
    next = op->getNextNode();
    if (llvm::isa<mlir::FileLineColLoc>(op->getLoc()))
      op->setLoc(loc);
    if (!options.foldConstants || llvm::isa<ConstantOp>(op) ||
        op->getNumResults() != 1 || !llvm::isa<TgcDialect>(op->getDialect()))
      continue;
    auto type =
        llvm::dyn_cast<mlir::RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() ||
        type.getNumElements() > options.maxFoldedElements)
      continue;
    std::vector<HostTensor> operandValues;
    bool allConstant = true;
    for (mlir::Value operand : op->getOperands()) {
      auto constant =
          llvm::dyn_cast_or_null<ConstantOp>(operand.getDefiningOp());
      if (!constant) {
        allConstant = false;
        break;
      }
      auto value = reference::runOp(constant, {});
      if (!value) {
        llvm::consumeError(value.takeError());
        allConstant = false;
        break;
      }
      operandValues.push_back(std::move(*value));
    }
    if (!allConstant)
      continue;
    std::vector<const HostTensor *> pointers;
    for (const HostTensor &t : operandValues)
      pointers.push_back(&t);
    auto result = reference::runOp(op, pointers);
    if (!result) {
      // Left for run time, which reports it with the op's location.
      llvm::consumeError(result.takeError());
      continue;
    }
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(op);
    auto folded = ConstantOp::create(
        builder, op->getLoc(), type,
        llvm::cast<mlir::ElementsAttr>(toAttr(*result, type)));
    replaced[op->getResult(0)] = folded.getResult();
    op->getResult(0).replaceAllUsesWith(folded.getResult());
    op->erase();
  }
  for (auto &[outName, tensor] : outs) {
    auto it = replaced.find(valueOf(tensor));
    if (it != replaced.end())
      tensor = detail::TensorAccess::make(it->second, state->id);
  }
  return llvm::Error::success();
}

llvm::Error Importer::importNode(const ::onnx::NodeProto &n, int index,
                                 int64_t nodeOpset, const std::string &where) {
  node = &n;
  opset = nodeOpset;
  label = "node ";
  label +=
      n.name().empty() ? "#" + std::to_string(index) : "'" + n.name() + "'";
  label += " (" + n.op_type() + ", opset " + std::to_string(nodeOpset) + ")";
  if (!where.empty())
    label += " in " + where;
  outputs.clear();
  constOutputs.clear();
  partialOutputs.clear();

  const std::string &domain = n.domain();
  bool defaultDomain = domain.empty() || domain == "ai.onnx";
  // Model-local functions come first: they may shadow nothing in the default
  // domain, but are the only way to resolve custom domains.
  auto local = localFunctions.find({domain, n.op_type()});
  if (local != localFunctions.end())
    return inlineFunction(*local->second, n);

  const auto &table = converters();
  auto it = defaultDomain ? table.find(n.op_type()) : table.end();
  if (it == table.end()) {
    // An op ONNX defines as a function of other ops is imported through its
    // body.
    const ::onnx::OpSchema *schema =
        defaultDomain ? ::onnx::OpSchemaRegistry::Schema(
                            n.op_type(), static_cast<int>(nodeOpset), "")
                      : nullptr;
    if (schema && schema->HasFunction())
      if (const auto *body = schema->GetFunction())
        return inlineFunction(*body, n, schema);
    if (schema && schema->HasContextDependentFunction()) {
      std::vector<::onnx::TypeProto> types;
      for (int i = 0; i < n.input_size(); ++i) {
        ::onnx::TypeProto type;
        if (has(i)) {
          TRY(t, in(i));
          auto *tensorType = type.mutable_tensor_type();
          tensorType->set_elem_type(onnxFromDType(t.dtype()));
          auto *shape = tensorType->mutable_shape();
          for (int64_t d : t.shape()) {
            auto *dim = shape->add_dim();
            if (d != kDynamic)
              dim->set_dim_value(d);
          }
        }
        types.push_back(std::move(type));
      }
      ::onnx::FunctionProto body;
      bool built = false;
      try {
        ::onnx::FunctionBodyBuildContextImpl buildContext(n, types);
        built = schema->BuildContextDependentFunction(buildContext, body);
      } catch (const std::exception &e) {
        return fail(llvm::Twine("expanding the op's function body failed: ") +
                    e.what());
      }
      if (built) {
        if (body.name().empty())
          body.set_name(n.op_type());
        return inlineFunction(body, n, schema);
      }
    }
    if (!defaultDomain)
      return unsupported("op '" + n.op_type() + "' of domain '" + domain +
                         "' is not supported");
    return unsupported("op '" + n.op_type() +
                       "' is not supported by the importer");
  }

  TRY(partialResult, propagatePartial());
  if (partialResult && wantsOutput(0))
    partialOutputs.push_back({n.output(0), std::move(*partialResult)});

  detail::TraceState *state = detail::activeTrace();
  mlir::Block *block = state->builder.getInsertionBlock();
  mlir::Operation *before = block->empty() ? nullptr : &block->back();
  if (auto error = (this->*(it->second))())
    return error;
  if (state->hasError())
    return traceFailure();
  if (auto error = finishNode(before, outputs))
    return error;
  Scope &scope = scopes.back();
  for (auto &[name, tensor] : outputs)
    scope[name] = Val{tensor, nullptr, ""};
  for (auto &[name, value] : constOutputs)
    scope[name] =
        Val{Tensor(), std::make_shared<HostTensor>(std::move(value)), label};
  registerPartialOutputs();
  return llvm::Error::success();
}

void Importer::registerPartialOutputs() {
  Scope &scope = scopes.back();
  for (auto &[name, value] : partialOutputs) {
    // Fully known: an ordinary constant.
    if (llvm::all_of(value.values, [](auto &v) { return v.has_value(); })) {
      std::vector<int64_t> shape;
      if (!value.scalar)
        shape.push_back(static_cast<int64_t>(value.values.size()));
      auto t = HostTensor::allocate(value.dtype, shape);
      for (auto [k, v] : llvm::enumerate(value.values))
        t->setInt(static_cast<int64_t>(k), *v);
      scope[name] = Val{Tensor(), std::make_shared<HostTensor>(std::move(*t)),
                        label, nullptr};
      continue;
    }
    auto it = scope.find(name);
    if (it != scope.end()) // Else the converter did not produce it.
      it->second.partial = std::make_shared<PartialInts>(value);
  }
  partialOutputs.clear();
}

llvm::Error Importer::importNodes(
    const google::protobuf::RepeatedPtrField<::onnx::NodeProto> &nodes,
    const std::unordered_map<std::string, int64_t> &opsets,
    const std::string &where) {
  for (int i = 0; i < nodes.size(); ++i) {
    const ::onnx::NodeProto &n = nodes.Get(i);
    const std::string &domain =
        n.domain() == "ai.onnx" ? std::string() : n.domain();
    auto it = opsets.find(domain);
    int64_t nodeOpset = it == opsets.end() ? 0 : it->second;
    if (it == opsets.end() &&
        !localFunctions.count({n.domain(), n.op_type()})) {
      std::string lbl =
          n.name().empty() ? "#" + std::to_string(i) : "'" + n.name() + "'";
      return makeError("node " + lbl + " (" + n.op_type() +
                       "): the model imports no opset for domain '" +
                       n.domain() + "'");
    }
    if (auto error = importNode(n, i, nodeOpset, where))
      return error;
  }
  return llvm::Error::success();
}

llvm::Error Importer::inlineFunction(const ::onnx::FunctionProto &function,
                                     const ::onnx::NodeProto &caller,
                                     const ::onnx::OpSchema *schema) {
  std::string callerLabel = label;
  std::string id = function.domain() + "::" + function.name();
  if (llvm::is_contained(callStack, id))
    return fail("function '" + function.name() +
                "' calls itself (recursive functions are not supported)");
  if (callStack.size() >= 32)
    return fail("functions nest more than 32 deep");
  if (caller.input_size() > function.input_size())
    return fail("has " + llvm::Twine(caller.input_size()) +
                " inputs but function '" + function.name() + "' takes " +
                llvm::Twine(function.input_size()));
  if (caller.output_size() > function.output_size())
    return fail("has " + llvm::Twine(caller.output_size()) +
                " outputs but function '" + function.name() + "' returns " +
                llvm::Twine(function.output_size()));
  Scope inner;
  for (int i = 0; i < caller.input_size(); ++i) {
    if (caller.input(i).empty())
      continue;
    TRY(val, lookup(i));
    inner[function.input(i)] = *val;
  }
  // Attributes: the caller's, by name, substituted into the body.
  std::map<std::string, const AP *> callerAttrs;
  for (const AP &a : caller.attribute())
    callerAttrs[a.name()] = &a;
  std::unordered_map<std::string, int64_t> opsets;
  for (const auto &o : function.opset_import())
    opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  if (!opsets.count(""))
    opsets[""] = opset;
  google::protobuf::RepeatedPtrField<::onnx::NodeProto> body;
  for (const ::onnx::NodeProto &n : function.node()) {
    ::onnx::NodeProto copy = n;
    copy.clear_attribute();
    for (const AP &a : n.attribute()) {
      if (a.ref_attr_name().empty()) {
        *copy.add_attribute() = a;
        continue;
      }
      auto it = callerAttrs.find(a.ref_attr_name());
      const AP *value = it == callerAttrs.end() ? nullptr : it->second;
      if (!value && schema) {
        // Not given: the op's default, when it has one.
        auto def = schema->attributes().find(a.ref_attr_name());
        if (def != schema->attributes().end() &&
            def->second.default_value.type() != AP::UNDEFINED)
          value = &def->second.default_value;
      }
      if (!value)
        continue; // The body node's own default applies.
      AP *added = copy.add_attribute();
      *added = *value;
      added->set_name(a.name());
    }
    *body.Add() = std::move(copy);
  }
  const ::onnx::NodeProto *savedNode = node;
  int64_t savedOpset = opset;
  callStack.push_back(id);
  scopes.push_back(std::move(inner));
  llvm::Error error = importNodes(body, opsets,
                                  "function '" + function.name() +
                                      "' called by " + callerLabel);
  Scope done = std::move(scopes.back());
  scopes.pop_back();
  callStack.pop_back();
  node = savedNode;
  opset = savedOpset;
  label = callerLabel;
  if (error)
    return error;
  for (int i = 0; i < caller.output_size(); ++i) {
    if (caller.output(i).empty())
      continue;
    auto it = done.find(function.output(i));
    if (it == done.end())
      return fail("function '" + function.name() +
                  "' does not produce its "
                  "output '" +
                  function.output(i) + "'");
    scopes.back()[caller.output(i)] = it->second;
  }
  return llvm::Error::success();
}

llvm::Error Importer::importGraph(llvm::ArrayRef<Tensor> args,
                                  std::vector<Tensor> &results) {
  const ::onnx::GraphProto &graph = model.graph();
  scopes.emplace_back();
  Scope &scope = scopes.back();
  for (const auto &init : graph.initializer()) {
    std::string what = "initializer '" + init.name() + "'";
    auto value = tensorFromProto(init, external, what);
    if (!value)
      return value.takeError();
    scope[init.name()] = Val{
        Tensor(), std::make_shared<HostTensor>(std::move(*value)), init.name()};
  }
  size_t argIndex = 0;
  for (const auto &input : graph.input()) {
    if (scope.count(input.name()))
      continue;
    scope[input.name()] = Val{args[argIndex++], nullptr, ""};
  }
  std::unordered_map<std::string, int64_t> opsets;
  for (const auto &o : model.opset_import())
    opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  if (auto error = importNodes(graph.node(), opsets, ""))
    return error;
  for (const auto &output : graph.output()) {
    auto it = scope.find(output.name());
    if (it == scope.end())
      return makeError("graph output '" + output.name() +
                       "' is not produced by any node");
    label = "graph output '" + output.name() + "'";
    Tensor t = materialize(it->second);
    if (!t.valid())
      return traceFailure();
    if (auto error = checkDeclaredOutput(output, t))
      return error;
    results.push_back(t);
  }
  return llvm::Error::success();
}

/// A graph output's declared type (its ValueInfo) against what the graph
/// computes: a different element type or rank is an error. A declared dim
/// the graph computes as another number is a warning at the model, as ONNX
/// Runtime warns ("Expected shape from model of {10} does not match actual
/// shape of {4}"): tgc specializes value-dependent shapes on the inputs it
/// is given (Range, window lengths), where exporters declare the shapes of
/// their example input. Dims the graph computes only at run time, and
/// declarations without a type or shape, are not checked.
llvm::Error Importer::checkDeclaredOutput(const ::onnx::ValueInfoProto &output,
                                          const Tensor &t) {
  if (!output.type().has_tensor_type())
    return llvm::Error::success();
  const auto &declared = output.type().tensor_type();
  std::vector<int64_t> shape = t.shape();
  std::string what = "graph output '" + output.name() + "'";
  if (declared.elem_type() != 0) {
    std::optional<DType> dtype = dtypeFromOnnx(declared.elem_type());
    if (!dtype || *dtype != t.dtype())
      return makeError(what + " is declared with element type " +
                       onnxTypeName(declared.elem_type()) +
                       " but the graph computes " + t.describe());
  }
  if (!declared.has_shape())
    return llvm::Error::success();
  const auto &dims = declared.shape().dim();
  if (static_cast<size_t>(dims.size()) != shape.size())
    return makeError(what + " is declared with rank " +
                     llvm::Twine(dims.size()) + " but the graph computes " +
                     t.describe());
  for (int d = 0; d < dims.size(); ++d)
    if (dims[d].has_dim_value() && shape[d] != kDynamic &&
        dims[d].dim_value() != shape[d]) {
      // Emitted after the trace (whose handler takes its diagnostics).
      warnings.push_back(what + " is declared with dim " + std::to_string(d) +
                         " = " + std::to_string(dims[d].dim_value()) +
                         " but the graph computes " + t.describe());
      break;
    }
  return llvm::Error::success();
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> Importer::run() {
  const ::onnx::GraphProto &graph = model.graph();
  for (const auto &f : model.functions())
    localFunctions[{f.domain(), f.name()}] = &f;

  // Function arguments: graph inputs that are not initializers.
  llvm::StringSet<> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  std::vector<ArgSpec> specs;
  std::vector<std::string> argNames;
  for (const auto &input : graph.input()) {
    if (initializers.contains(input.name()))
      continue;
    std::string what = "graph input '" + input.name() + "'";
    if (!input.type().has_tensor_type())
      return makeUnsupportedError(what +
                                  " is not a tensor (sequences, maps and "
                                  "optionals are not supported)");
    const auto &tensorType = input.type().tensor_type();
    std::optional<DType> dtype = dtypeFromOnnx(tensorType.elem_type());
    if (!dtype)
      return makeUnsupportedError(what + " has element type " +
                                  onnxTypeName(tensorType.elem_type()) +
                                  ", which tgc does not support");
    if (!tensorType.has_shape())
      return makeUnsupportedError(what +
                                  " has no shape (unranked inputs are not "
                                  "supported)");
    ArgSpec spec;
    spec.dtype = *dtype;
    for (const auto &dim : tensorType.shape().dim()) {
      if (dim.has_dim_value()) {
        if (dim.dim_value() < 0)
          return makeError(what + " has negative dim " +
                           llvm::Twine(dim.dim_value()));
        spec.shape.push_back(dim.dim_value());
      } else {
        spec.shape.push_back(kDynamic); // dim_param or unknown.
      }
    }
    specs.push_back(std::move(spec));
    argNames.push_back(input.name());
  }

  Tracer::loadDialects(context);
  Tracer tracer(context);
  std::optional<llvm::Error> importError;
  auto traced =
      tracer.trace(options.functionName, specs,
                   [&](llvm::ArrayRef<Tensor> args) -> std::vector<Tensor> {
                     std::vector<Tensor> results;
                     try {
                       if (auto error = importGraph(args, results)) {
                         importError = std::move(error);
                         return {};
                       }
                     } catch (const std::exception &e) {
                       importError =
                           makeError(options.modelName + ": " + e.what());
                       return {};
                     }
                     return results;
                   });
  if (importError && *importError) {
    if (!traced)
      llvm::consumeError(traced.takeError());
    return prefixError(options.modelName + ": ", std::move(*importError));
  }
  if (importError)
    llvm::consumeError(std::move(*importError));
  if (!traced)
    return prefixError(options.modelName + ": ", traced.takeError());
  for (const std::string &warning : warnings)
    mlir::emitWarning(
        mlir::FileLineColLoc::get(&context, options.modelName, 0, 0))
        << warning;

  // Locations name the model and its inputs; dead ops (constants only used
  // by folded ops) go away.
  mlir::func::FuncOp func = traced->func;
  mlir::Location modelLoc =
      mlir::FileLineColLoc::get(&context, options.modelName, 0, 0);
  traced->module->getOperation()->setLoc(modelLoc);
  func->setLoc(modelLoc);
  mlir::Block &entry = func.getBody().front();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments()))
    arg.setLoc(mlir::NameLoc::get(mlir::StringAttr::get(&context, argNames[i]),
                                  modelLoc));
  entry.getTerminator()->setLoc(modelLoc);
  for (mlir::Operation *op = entry.getTerminator()->getPrevNode(); op;) {
    mlir::Operation *prev = op->getPrevNode();
    if (op->use_empty() && llvm::isa<TgcDialect>(op->getDialect()))
      op->erase();
    op = prev;
  }
  if (mlir::failed(mlir::verify(*traced->module)))
    return makeError(options.modelName + ": the imported module failed to "
                                         "verify");
  return std::move(traced->module);
}

} // namespace

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> onnximpl::importModelProto(
    mlir::MLIRContext &context, ::onnx::ModelProto &model,
    const ExternalData &external, const ImportOptions &options) {
  Importer importer(context, model, external, options);
  return importer.run();
}
