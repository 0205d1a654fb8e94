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

#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
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
struct Val {
  Tensor tensor;
  std::shared_ptr<HostTensor> constant;
  std::string origin; // For the location of a materialized constant.
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
  llvm::Error convDropout();
  llvm::Error convConstant();
  llvm::Error convShape();
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

  mlir::MLIRContext &context;
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
    val.tensor.value().getDefiningOp()->setLoc(mlir::NameLoc::get(
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
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(val->tensor.value())) {
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
      llvm::dyn_cast_or_null<ConstantOp>(val->tensor.value().getDefiningOp());
  if (!constant)
    return nullptr;
  auto value = reference::runOp(constant, {});
  if (!value)
    return prefixError(label + ": ", value.takeError());
  val->constant = std::make_shared<HostTensor>(std::move(*value));
  return val->constant;
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
  if (y.type().getShape() != x.type().getShape())
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
      return unsupported("auto_pad " + autoPad + " needs static spatial dims, not " +
                  x.describe());
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
  TRY(x0, in(0));
  TRY(w0, in(1));
  int64_t rank = x0.rank();
  if (rank != 3 && rank != 4)
    return unsupported("only 1-D and 2-D convolutions are supported: the input " +
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
  std::optional<Tensor> bias;
  if (has(2)) {
    TRY(b, in(2));
    bias = b;
  }
  TRYT(y0, tgc::conv2d(x, w, bias, opts));
  Tensor y = y0;
  if (n == 1) {
    TRYT(t, tgc::squeeze(y0, {2}));
    y = t;
  }
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

  Tensor x = x0;
  Pool2DOptions opts;
  opts.ceilMode = ceilMode != 0;
  opts.countIncludePad = countIncludePad != 0;
  if (n == 1) {
    TRYT(xu, tgc::unsqueeze(x0, {2}));
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
    return unsupported("opset < 13 " + op + " needs static dims from the axis on");
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

llvm::Error Importer::convReduce() {
  const std::string &op = node->op_type();
  TRY(x, in(0));
  TRY(keepdims, attrInt("keepdims", 1));
  TRY(noop, attrInt("noop_with_empty_axes", 0));
  TRY(axes, reduceAxes(x.rank()));
  if (axes.empty()) {
    if (noop || x.rank() == 0) {
      out(0, x);
      return llvm::Error::success();
    }
    for (int64_t d = 0; d < x.rank(); ++d)
      axes.push_back(d);
  }
  bool keep = keepdims != 0;
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
  TRY(keepdims, attrInt("keepdims", 1));
  TRY(last, attrInt("select_last_index", 0));
  bool isMax = node->op_type() == "ArgMax";
  TRYT(y, isMax ? tgc::argmax(x, axis, keepdims != 0, last != 0)
                : tgc::argmin(x, axis, keepdims != 0, last != 0));
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
    TRY(s, constInts(1, "shape"));
    shape = s;
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

llvm::Error Importer::convDropout() {
  TRY(x, in(0));
  if (opset >= 12 && has(2)) {
    TRY(training, constIn(2));
    if (!training)
      return unsupported("a non-constant training_mode is not supported");
    if (training->numElements() == 1 && training->getInt(0) != 0)
      return unsupported("training mode (training_mode = true) is not supported");
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
  return unsupported("attribute '" + name +
              "' is not supported (strings and sparse tensors have no tgc "
              "equivalent)");
}

llvm::Error Importer::convShape() {
  TRY(x, in(0));
  if (!x.hasStaticShape())
    return fail("the shape of " + x.describe() +
                " is not known before running (dynamic dims)");
  int64_t rank = x.rank();
  TRY(startAttr, attrInt("start", 0));
  TRY(endAttr, attrInt("end"));
  int64_t start = startAttr < 0 ? startAttr + rank : startAttr;
  int64_t end = endAttr ? (*endAttr < 0 ? *endAttr + rank : *endAttr) : rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  int64_t n = std::max<int64_t>(end - start, 0);
  auto t = HostTensor::allocate(DType::I64, {n});
  for (int64_t i = 0; i < n; ++i)
    t->setInt(i, x.shape()[start + i]);
  outConst(0, std::move(*t));
  return llvm::Error::success();
}

llvm::Error Importer::convSize() {
  TRY(x, in(0));
  std::optional<int64_t> n = x.numElements();
  if (!n)
    return fail("the size of " + x.describe() +
                " is not known before running (dynamic dims)");
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
    return unsupported("start, limit and delta must be constants; a dynamic Range "
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
      return unsupported("dtype " + onnxTypeName(static_cast<int32_t>(*dtypeAttr)) +
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
    auto it = replaced.find(tensor.value());
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
    return unsupported("op '" + n.op_type() + "' is not supported by the importer");
  }

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
  return llvm::Error::success();
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
    results.push_back(t);
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
      return makeUnsupportedError(what + " is not a tensor (sequences, maps and "
                              "optionals are not supported)");
    const auto &tensorType = input.type().tensor_type();
    std::optional<DType> dtype = dtypeFromOnnx(tensorType.elem_type());
    if (!dtype)
      return makeUnsupportedError(what + " has element type " +
                       onnxTypeName(tensorType.elem_type()) +
                       ", which tgc does not support");
    if (!tensorType.has_shape())
      return makeUnsupportedError(what + " has no shape (unranked inputs are not "
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
