//===- Importer.cpp - ONNX graphs to tgc functions ------------------------===//
//
// Walks the (checked, shape-inferred) graph in order and maps every node to
// tgc ops through the converter the ConverterTable holds for its op type and
// opset (the converters live in ops/, by op family), inside one
// Tracer::trace. Node-level errors name the node, its op type and opset;
// errors of the dialect's inference come back with the same prefix. After
// each node the ops it created get the node's location and, when all their
// operands are constants, are folded by the reference interpreter.
//
// This file also holds what converters share: reading a node's inputs (as
// tensors or as constants) and attributes, and its errors.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

#include "codegen/reference/Interpreter.h"
#include "dialects/ConstantData.h"
#include "dialects/DTypeMapping.h"
#include "dialects/TgcDialect.h"
#include "dialects/TgcOps.h"
#include "frontend/TraceState.h"
#include "frontend/Tracer.h"
#include "runtime/LargeBuffer.h"

#include "onnx/defs/schema.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cstring>

using namespace tgc;
using namespace tgc::onnximpl;

std::string onnximpl::listOf(llvm::ArrayRef<int64_t> values) {
  std::string text = "[";
  for (auto [i, v] : llvm::enumerate(values))
    text += (i ? ", " : "") + std::to_string(v);
  return text + "]";
}

namespace {

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

} // namespace

//===----------------------------------------------------------------------===//
// The converter table
//===----------------------------------------------------------------------===//

void ConverterTable::add(llvm::StringRef opType, int64_t sinceVersion,
                         ConvertFn convert, PartialFn partial) {
  assert(sinceVersion >= 1 && convert && "a converter needs a since-version");
  llvm::SmallVector<Entry, 1> &versions = entries[opType];
  auto at = llvm::partition_point(
      versions, [&](const Entry &e) { return e.sinceVersion < sinceVersion; });
  assert((at == versions.end() || at->sinceVersion != sinceVersion) &&
         "an op's since-version is registered twice");
  versions.insert(at, Entry{sinceVersion, convert, partial});
}

const ConverterTable::Entry *ConverterTable::lookup(llvm::StringRef opType,
                                                    int64_t opset) const {
  auto it = entries.find(opType);
  if (it == entries.end())
    return nullptr;
  // The last entry whose since-version is <= opset.
  const llvm::SmallVector<Entry, 1> &versions = it->second;
  auto after = llvm::partition_point(
      versions, [&](const Entry &e) { return e.sinceVersion <= opset; });
  return after == versions.begin() ? nullptr : &*std::prev(after);
}

const ConverterTable &onnximpl::converterTable() {
  static const ConverterTable table = [] {
    ConverterTable t;
    registerElementwiseConverters(t);
    registerMathConverters(t);
    registerNNConverters(t);
    registerReductionConverters(t);
    registerTensorConverters(t);
    registerGeneratorConverters(t);
    registerQuantizationConverters(t);
    registerResizeConverters(t);
    registerRNNConverters(t);
    registerControlFlowConverters(t);
    registerTrainingConverters(t);
    registerSequenceConverters(t);
    return t;
  }();
  return table;
}

//===----------------------------------------------------------------------===//
// Values and attributes
//===----------------------------------------------------------------------===//

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

Tensor Importer::constantTensor(const HostTensor &value) {
  return tgc::constant(value);
}

/// A file-backed constant for `init` (its bytes in a mapped file, in or
/// beside the model): the IR holds no copy; whoever reads the elements (a
/// kernel prepacking them, a fold) takes them from the file.
llvm::Expected<std::optional<Val>>
Importer::fileBackedInitializer(const ::onnx::TensorProto &init,
                                const MappedTensorBytes &mapped) {
  std::optional<DType> dtype = dtypeFromOnnx(init.data_type());
  if (!dtype)
    return std::nullopt;
  std::vector<int64_t> shape(init.dims().begin(), init.dims().end());
  std::string name = "onnx_";
  for (char c : init.name())
    name += llvm::isAlnum(c) ? c : '_';
  auto type =
      mlir::RankedTensorType::get(shape, toElementType(*dtype, context));
  ConstantFileSource source;
  source.mapping = mapped.mapping;
  source.offset = mapped.offset;
  source.read = [file = mapped.file](char *out, size_t size, uint64_t offset) {
    return file->read(out, size, offset);
  };
  source.unchanged = [file = mapped.file] { return file->unchanged(); };
  mlir::ElementsAttr attr = makeFileBackedConstant(
      type, name,
      llvm::ArrayRef<char>(mapped.bytes.data(), mapped.bytes.size()),
      std::move(source));
  Val val{detail::constantOfAttr(attr), nullptr, init.name()};
  if (!val.tensor.valid())
    return traceFailure();
  valueOf(val.tensor)
      .getDefiningOp()
      ->setLoc(mlir::NameLoc::get(
          mlir::StringAttr::get(&context, val.origin),
          mlir::FileLineColLoc::get(&context, options.modelName, 0, 0)));
  return std::optional<Val>(std::move(val));
}

llvm::Expected<std::optional<Val>>
Importer::inPlaceInitializer(const ::onnx::TensorProto &init) {
  std::string what = "initializer '" + init.name() + "'";
  if (options.weightsInFile) {
    // Weights in an external data file stay there too.
    auto external = mapExternalTensor(init, externalData, what);
    if (!external)
      return external.takeError();
    if (*external)
      return fileBackedInitializer(init, **external);
  }
  auto bytes = inModelBytes(init, externalData, what);
  if (!bytes)
    return bytes.takeError();
  std::optional<DType> dtype = dtypeFromOnnx(init.data_type());
  // Bool bytes need normalizing: tensorFromProto copies them.
  if (!*bytes || !dtype || *dtype == DType::I1)
    return std::nullopt;
  std::vector<int64_t> shape(init.dims().begin(), init.dims().end());
  if (options.weightsInFile && externalData.modelFile &&
      externalData.modelMapping && externalData.modelBytesMapped) {
    MappedTensorBytes mapped;
    mapped.bytes = **bytes;
    mapped.mapping = externalData.modelMapping;
    mapped.file = externalData.modelFile;
    mapped.offset = static_cast<uint64_t>((*bytes)->data() -
                                          externalData.modelBytes.data());
    return fileBackedInitializer(init, mapped);
  }
  // A view of the file's bytes (not necessarily aligned for the type: only
  // copied, as bytes, into the constant).
  auto inFile =
      HostTensor::borrow(*dtype, shape, const_cast<char *>((*bytes)->data()));
  if (!inFile.ok())
    return makeError(what + ": " + std::string(inFile.status().message()));
  Val val{Tensor(), std::make_shared<HostTensor>(std::move(*inFile)),
          init.name()};
  if (!materialize(val).valid())
    return traceFailure();
  // From now on the IR's copy stands for it (aligned), or, for a splat
  // the IR stores as one element, a copy of its own.
  auto constant = valueOf(val.tensor).getDefiningOp<ConstantOp>();
  auto dense = constant ? dyn_cast<mlir::DenseElementsAttr>(constant.getValue())
                        : mlir::DenseElementsAttr();
  bool viewsIR = dense && !dense.isSplat() &&
                 dense.getRawData().size() == (*bytes)->size();
  absl::StatusOr<HostTensor> held =
      viewsIR
          ? HostTensor::borrow(*dtype, shape,
                               const_cast<char *>(dense.getRawData().data()))
          : HostTensor::allocateUninitialized(*dtype, shape);
  if (!held.ok())
    return makeError(what + ": " + std::string(held.status().message()));
  if (!viewsIR)
    std::memcpy(held->data(), (*bytes)->data(), (*bytes)->size());
  val.constant = std::make_shared<HostTensor>(std::move(*held));
  // Its pages of the file are not needed again.
  if (externalData.modelBytesMapped)
    runtime::releaseWholePages((*bytes)->data(), (*bytes)->size());
  return std::optional<Val>(std::move(val));
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
  const std::string &name = currentNode->input(i);
  Val *val = lookupName(name);
  if (!val)
    return fail("input #" + llvm::Twine(i) + " '" + name +
                "' is not defined: it is not a graph input, an initializer "
                "or an output of an earlier node (dangling or cyclic)");
  return val;
}

Val *Importer::lookupName(const std::string &name) {
  for (size_t s = scopes.size(); s-- > 0;) {
    auto it = scopes[s].find(name);
    if (it != scopes[s].end()) {
      if (s + 1 == scopes.size())
        return &it->second;
      Val copy = it->second;
      return &(scopes.back()[name] = std::move(copy));
    }
    if (!scopeSeesOuter[s])
      break;
  }
  return nullptr;
}

std::unordered_map<std::string, int64_t> Importer::modelOpsets() const {
  std::unordered_map<std::string, int64_t> opsets;
  for (const auto &o : model.opset_import())
    opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  return opsets;
}

llvm::Expected<const ::onnx::GraphProto *>
Importer::attrGraph(llvm::StringRef name) {
  const AP *a = attr(name);
  if (!a)
    return fail("needs the attribute '" + name + "'");
  if (a->type() != AP::GRAPH || !a->has_g())
    return attrTypeError(*a, "GRAPH");
  return &a->g();
}

std::string Val::describeKind() const {
  switch (kind) {
  case ValueStructure::Kind::Tensor:
    return "a tensor";
  case ValueStructure::Kind::Sequence:
    return "a sequence of " + std::to_string(elements.size()) + " values";
  case ValueStructure::Kind::Optional:
    return elements.empty()
               ? "an empty optional"
               : "an optional holding " + elements.front().describeKind();
  }
  return "a value";
}

llvm::Expected<std::vector<Tensor>>
Importer::importSubgraph(const ::onnx::GraphProto &graph,
                         llvm::ArrayRef<Tensor> inputs, llvm::StringRef what) {
  std::vector<Val> vals;
  for (const Tensor &t : inputs)
    vals.push_back(Val{t, nullptr, ""});
  TRY(outs, importSubgraphVals(graph, vals, what));
  std::vector<Tensor> results;
  for (auto [i, val] : llvm::enumerate(outs)) {
    if (!val.isTensor())
      return fail(what + " output '" + graph.output(i).name() + "' is " +
                  val.describeKind() +
                  ": only tensors can leave a region that is not unrolled");
    Tensor t = materialize(val);
    if (!t.valid())
      return traceFailure();
    results.push_back(t);
  }
  return results;
}

llvm::Expected<std::vector<Val>>
Importer::importSubgraphVals(const ::onnx::GraphProto &graph,
                             llvm::ArrayRef<Val> inputs, llvm::StringRef what) {
  if (static_cast<size_t>(graph.input_size()) != inputs.size())
    return fail(what + " takes " + llvm::Twine(graph.input_size()) +
                " inputs where the node gives it " +
                llvm::Twine(inputs.size()));
  if (scopes.size() >= 64)
    return fail("subgraphs nest more than 64 deep");
  Scope inner;
  for (const auto &init : graph.initializer()) {
    std::string description =
        (what + " initializer '" + init.name() + "'").str();
    auto value = tensorFromProto(init, externalData, description);
    if (!value)
      return value.takeError();
    inner[init.name()] = Val{
        Tensor(), std::make_shared<HostTensor>(std::move(*value)), init.name()};
  }
  for (auto [i, input] : llvm::enumerate(graph.input()))
    inner[input.name()] = inputs[i];
  // The node being imported, and what it produced so far, are the
  // caller's again afterwards.
  const ::onnx::NodeProto *savedNode = currentNode;
  int64_t savedOpset = currentOpset;
  std::string savedLabel = currentLabel;
  auto savedOutputs = std::move(outputs);
  auto savedConstOutputs = std::move(constOutputs);
  auto savedPartialOutputs = std::move(partialOutputs);
  auto savedValOutputs = std::move(valOutputs);
  outputs.clear();
  constOutputs.clear();
  partialOutputs.clear();
  valOutputs.clear();
  scopes.push_back(std::move(inner));
  scopeSeesOuter.push_back(true);
  std::string where = (what + " of " + savedLabel).str();
  llvm::Error error = importNodes(graph.node(), modelOpsets(), where);
  std::vector<Val> results;
  if (!error) {
    currentLabel = where;
    for (const auto &output : graph.output()) {
      Val *val = lookupName(output.name());
      if (!val) {
        error = makeError(where + ": output '" + output.name() +
                          "' is not produced by any node");
        break;
      }
      results.push_back(*val);
    }
  }
  scopes.pop_back();
  scopeSeesOuter.pop_back();
  currentNode = savedNode;
  currentOpset = savedOpset;
  currentLabel = savedLabel;
  outputs = std::move(savedOutputs);
  constOutputs = std::move(savedConstOutputs);
  partialOutputs = std::move(savedPartialOutputs);
  valOutputs = std::move(savedValOutputs);
  if (error)
    return std::move(error);
  return results;
}

llvm::Expected<Tensor> Importer::tensorOf(Val &val, llvm::StringRef what) {
  if (!val.isTensor())
    return fail(what + " is " + val.describeKind() +
                " where a tensor is expected");
  Tensor t = materialize(val);
  if (!t.valid())
    return traceFailure();
  return t;
}

llvm::Expected<Tensor> Importer::in(int i) {
  TRY(val, lookup(i));
  return tensorOf(*val, "input #" + std::to_string(i) + " '" +
                            currentNode->input(i) + "'");
}

bool Importer::isConstantOpIn(int i) {
  auto val = lookup(i);
  if (!val) {
    llvm::consumeError(val.takeError());
    return false;
  }
  return (*val)->constant || ((*val)->tensor.valid() &&
                              llvm::isa_and_nonnull<ConstantOp>(
                                  valueOf((*val)->tensor).getDefiningOp()));
}

llvm::Expected<std::shared_ptr<HostTensor>> Importer::constIn(int i) {
  TRY(val, lookup(i));
  return constOf(*val, "input #" + std::to_string(i) + " '" +
                           currentNode->input(i) + "'");
}

llvm::Expected<std::shared_ptr<HostTensor>>
Importer::constOf(Val &valRef, llvm::StringRef what) {
  Val *val = &valRef;
  if (!val->isTensor())
    return fail(what + " is " + val->describeKind() +
                " where a tensor is expected");
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
      return fail(what + " is given as " + given.describe() + " but declared " +
                  val->tensor.describe());
    for (int64_t d = 0; d < given.rank(); ++d)
      if (val->tensor.shape()[d] != kDynamic &&
          val->tensor.shape()[d] != given.shape()[d])
        return fail(what + " is given as " + given.describe() +
                    " but declared " + val->tensor.describe());
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
    return prefixError(currentLabel + ": ", value.takeError());
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

llvm::Expected<Tensor> Importer::shapeIn(int i) {
  TRY(shape, in(i));
  if (shape.rank() != 1 || !shape.dim(0))
    return fail("the shape input must be 1-D with a static length, not " +
                shape.describe());
  if (shape.dtype() == DType::I64)
    return shape;
  Tensor i64 = tgc::cast(shape, DType::I64);
  if (!i64.valid())
    return traceFailure();
  return i64;
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
  for (const AP &a : currentNode->attribute())
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

llvm::Expected<bool> Importer::attrFlag(llvm::StringRef name, bool dflt) {
  TRY(value, attrInt(name, dflt ? 1 : 0));
  if (value != 0 && value != 1)
    return fail("attribute '" + name + "' must be 0 or 1, not " +
                llvm::Twine(value));
  return value == 1;
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

llvm::Expected<Tensor> Importer::stack(llvm::ArrayRef<Tensor> parts,
                                       int64_t axis) {
  std::vector<Tensor> rows;
  for (const Tensor &t : parts) {
    Tensor row = tgc::unsqueeze(t, {axis});
    if (!row.valid())
      return traceFailure();
    rows.push_back(row);
  }
  Tensor stacked = tgc::concat(rows, axis);
  if (!stacked.valid())
    return traceFailure();
  return stacked;
}

llvm::Expected<Tensor> Importer::reshapeTo(const Tensor &x,
                                           const std::vector<int64_t> &shape) {
  if (llvm::count(shape, kDynamic) > 1)
    return fail("cannot reshape " + x.describe() + " to " + listOf(shape) +
                ": more than one dynamic dim");
  Tensor t = tgc::reshape(x, shape);
  if (!t.valid())
    return traceFailure();
  return t;
}

//===----------------------------------------------------------------------===//
// Partially known values
//===----------------------------------------------------------------------===//

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

llvm::Expected<std::optional<PartialInts>>
Importer::propagatePartial(PartialFn partial) {
  if (!partial)
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
  return partial(*this, ins);
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
                        currentLabel, nullptr};
      continue;
    }
    auto it = scope.find(name);
    if (it != scope.end()) // Else the converter did not produce it.
      it->second.partial = std::make_shared<PartialInts>(value);
  }
  partialOutputs.clear();
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
      mlir::StringAttr::get(&context, currentLabel),
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
  currentNode = &n;
  currentOpset = nodeOpset;
  currentLabel = "node ";
  currentLabel +=
      n.name().empty() ? "#" + std::to_string(index) : "'" + n.name() + "'";
  currentLabel +=
      " (" + n.op_type() + ", opset " + std::to_string(nodeOpset) + ")";
  if (!where.empty())
    currentLabel += " in " + where;
  outputs.clear();
  constOutputs.clear();
  partialOutputs.clear();
  valOutputs.clear();

  const std::string &domain = n.domain();
  bool defaultDomain = domain.empty() || domain == "ai.onnx";
  // Model-local functions come first: they may shadow nothing in the default
  // domain, but are the only way to resolve custom domains.
  auto local = localFunctions.find({domain, n.op_type()});
  if (local != localFunctions.end())
    return inlineFunction(*local->second, n);

  // Opsets start at 1: a lower one (in a model the checker did not see)
  // reads each op's first form.
  int64_t lookupOpset = std::max<int64_t>(nodeOpset, 1);
  const ConverterTable::Entry *converter =
      defaultDomain ? converterTable().lookup(n.op_type(), lookupOpset)
      : domain == "ai.onnx.preview.training"
          ? converterTable().lookup(kTrainingDomainPrefix + n.op_type(),
                                    lookupOpset)
          : nullptr;
  if (!converter) {
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

  TRY(partialResult, propagatePartial(converter->partial));
  if (partialResult && wantsOutput(0))
    partialOutputs.push_back({n.output(0), std::move(*partialResult)});

  detail::TraceState *state = detail::activeTrace();
  mlir::Block *block = state->builder.getInsertionBlock();
  mlir::Operation *before = block->empty() ? nullptr : &block->back();
  if (auto error = converter->convert(*this))
    return error;
  if (state->hasError())
    return traceFailure();
  if (auto error = finishNode(before, outputs))
    return error;
  Scope &scope = scopes.back();
  for (auto &[name, tensor] : outputs)
    scope[name] = Val{tensor, nullptr, ""};
  for (auto &[name, value] : constOutputs)
    scope[name] = Val{Tensor(), std::make_shared<HostTensor>(std::move(value)),
                      currentLabel};
  for (auto &[name, value] : valOutputs)
    scope[name] = std::move(value);
  registerPartialOutputs();
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
  std::string callerLabel = currentLabel;
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
    opsets[""] = currentOpset;
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
  const ::onnx::NodeProto *savedNode = currentNode;
  int64_t savedOpset = currentOpset;
  callStack.push_back(id);
  scopes.push_back(std::move(inner));
  scopeSeesOuter.push_back(false);
  llvm::Error error = importNodes(body, opsets,
                                  "function '" + function.name() +
                                      "' called by " + callerLabel);
  Scope done = std::move(scopes.back());
  scopes.pop_back();
  scopeSeesOuter.pop_back();
  callStack.pop_back();
  currentNode = savedNode;
  currentOpset = savedOpset;
  currentLabel = callerLabel;
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
  scopeSeesOuter.push_back(false);
  Scope &scope = scopes.back();
  for (const auto &init : graph.initializer()) {
    // Weights left in the model file go from there into the IR, once.
    auto placed = inPlaceInitializer(init);
    if (!placed)
      return placed.takeError();
    if (*placed) {
      scope[init.name()] = std::move(**placed);
      continue;
    }
    // Raw data is viewed in place, not copied: the model proto outlives the
    // import, and the weights are copied once, into the IR.
    if (std::optional<HostTensor> view = viewTensorProto(init)) {
      scope[init.name()] =
          Val{Tensor(), std::make_shared<HostTensor>(std::move(*view)),
              init.name()};
      continue;
    }
    std::string what = "initializer '" + init.name() + "'";
    auto value = tensorFromProto(init, externalData, what);
    if (!value)
      return value.takeError();
    scope[init.name()] = Val{
        Tensor(), std::make_shared<HostTensor>(std::move(*value)), init.name()};
  }
  size_t argIndex = 0, inputIndex = 0;
  for (const auto &input : graph.input()) {
    if (scope.count(input.name()))
      continue;
    scope[input.name()] =
        structuredVal(inputStructures[inputIndex++], args, argIndex);
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
    currentLabel = "graph output '" + output.name() + "'";
    if (!it->second.isTensor() || !output.type().has_tensor_type()) {
      if (output.type().has_tensor_type())
        return makeError(currentLabel +
                         " is declared a tensor but the graph "
                         "computes " +
                         it->second.describeKind());
      ValueStructure structure;
      if (auto error = flattenVal(it->second, results, structure))
        return error;
      outputStructures.push_back(structure.str());
      continue;
    }
    Tensor t = materialize(it->second);
    if (!t.valid())
      return traceFailure();
    if (auto error = checkDeclaredOutput(output, t))
      return error;
    results.push_back(t);
    outputStructures.push_back("tensor");
  }
  return llvm::Error::success();
}

Val Importer::structuredVal(const ValueStructure &structure,
                            llvm::ArrayRef<Tensor> args, size_t &index) {
  if (structure.kind == ValueStructure::Kind::Tensor)
    return Val{args[index++], nullptr, ""};
  std::vector<Val> elements;
  for (const ValueStructure &e : structure.elements)
    elements.push_back(structuredVal(e, args, index));
  if (structure.kind == ValueStructure::Kind::Sequence)
    return Val::sequence(std::move(elements));
  return Val::optional(elements.empty() ? std::nullopt
                                        : std::optional<Val>(elements[0]));
}

llvm::Error Importer::flattenVal(Val &val, std::vector<Tensor> &results,
                                 ValueStructure &structure) {
  structure.kind = val.kind;
  if (val.isTensor()) {
    Tensor t = materialize(val);
    if (!t.valid())
      return traceFailure();
    results.push_back(t);
    return llvm::Error::success();
  }
  for (Val &e : val.elements) {
    ValueStructure element;
    if (auto error = flattenVal(e, results, element))
      return error;
    structure.elements.push_back(std::move(element));
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

llvm::Error Importer::addArgSpecs(const ::onnx::TypeProto &type,
                                  const ValueStructure &structure,
                                  const std::string &what,
                                  const std::string &name,
                                  std::vector<ArgSpec> &specs,
                                  std::vector<std::string> &argNames) {
  auto mismatch = [&] {
    return makeError(what + " has type " + onnxValueTypeString(type) +
                     " but is given as " + structure.str());
  };
  switch (structure.kind) {
  case ValueStructure::Kind::Sequence:
    if (!type.has_sequence_type())
      return mismatch();
    for (auto [i, element] : llvm::enumerate(structure.elements))
      if (auto error = addArgSpecs(type.sequence_type().elem_type(), element,
                                   what + " element #" + std::to_string(i),
                                   name + "[" + std::to_string(i) + "]", specs,
                                   argNames))
        return error;
    return llvm::Error::success();
  case ValueStructure::Kind::Optional:
    if (!type.has_optional_type())
      return mismatch();
    for (const ValueStructure &element : structure.elements)
      if (auto error = addArgSpecs(type.optional_type().elem_type(), element,
                                   what, name, specs, argNames))
        return error;
    return llvm::Error::success();
  case ValueStructure::Kind::Tensor:
    break;
  }
  if (!type.has_tensor_type())
    return mismatch();
  const auto &tensorType = type.tensor_type();
  std::optional<DType> dtype = dtypeFromOnnx(tensorType.elem_type());
  if (!dtype)
    return makeUnsupportedError(what + " has element type " +
                                onnxTypeName(tensorType.elem_type()) +
                                ", which tgc does not support");
  ArgSpec spec;
  spec.dtype = *dtype;
  if (tensorType.has_shape()) {
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
  } else if (specs.size() < options.argumentValues.size() &&
             options.argumentValues[specs.size()]) {
    // Undeclared (sequence elements often are): the rank of the value the
    // caller gave, every dim dynamic.
    spec.shape.assign(options.argumentValues[specs.size()]->shape().size(),
                      kDynamic);
  } else {
    return makeUnsupportedError(what + " has no shape (unranked inputs are not "
                                       "supported)");
  }
  if (specs.size() < options.argumentShapes.size() &&
      options.argumentShapes[specs.size()]) {
    const std::vector<int64_t> &given = *options.argumentShapes[specs.size()];
    bool fits = given.size() == spec.shape.size();
    for (size_t d = 0; fits && d < given.size(); ++d)
      fits = given[d] >= kDynamic &&
             (spec.shape[d] == kDynamic || given[d] == kDynamic ||
              spec.shape[d] == given[d]);
    auto dims = [](const std::vector<int64_t> &shape) {
      std::string text = "[";
      for (auto [i, d] : llvm::enumerate(shape))
        text += (i ? ", " : "") + (d == kDynamic ? "?" : std::to_string(d));
      return text + "]";
    };
    if (!fits)
      return makeError(what + " is given the shape " + dims(given) +
                       ", which its declared shape " + dims(spec.shape) +
                       " does not allow");
    for (size_t d = 0; d < given.size(); ++d)
      if (given[d] != kDynamic)
        spec.shape[d] = given[d];
  }
  specs.push_back(std::move(spec));
  argNames.push_back(name);
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
  size_t inputIndex = 0;
  for (const auto &input : graph.input()) {
    if (initializers.contains(input.name()))
      continue;
    std::string what = "graph input '" + input.name() + "'";
    std::optional<ValueStructure> given;
    if (inputIndex < options.inputStructures.size())
      given = options.inputStructures[inputIndex];
    ++inputIndex;
    ValueStructure structure;
    if (!input.type().has_tensor_type()) {
      std::string type = onnxValueTypeString(input.type());
      if (!input.type().has_sequence_type() &&
          !input.type().has_optional_type())
        return makeUnsupportedError(what + " has type " + type +
                                    " (maps and sparse tensors are not "
                                    "supported)");
      if (!given)
        return makeUnsupportedError(
            what + " has type " + type +
            ": its structure (a sequence's length, whether an optional holds "
            "a value) must be given to import it (tgc-run reads it from the "
            "input's SequenceProto or OptionalProto .pb file; the C++ API "
            "takes ImportOptions::inputStructures)");
      structure = *given;
    } else if (given && given->kind != ValueStructure::Kind::Tensor) {
      return makeError(what + " is a tensor but is given as " + given->str());
    }
    if (auto error = addArgSpecs(input.type(), structure, what, input.name(),
                                 specs, argNames))
      return error;
    inputStructures.push_back(std::move(structure));
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
  auto isTensor = [](const ValueStructure &v) {
    return v.kind == ValueStructure::Kind::Tensor;
  };
  if (!llvm::all_of(inputStructures, isTensor) ||
      llvm::any_of(outputStructures,
                   [](const std::string &s) { return s != "tensor"; })) {
    mlir::Builder b(&context);
    std::vector<std::string> inputs;
    for (const ValueStructure &v : inputStructures)
      inputs.push_back(v.str());
    auto strings = [&](const std::vector<std::string> &list) {
      llvm::SmallVector<mlir::Attribute> attrs;
      for (const std::string &text : list)
        attrs.push_back(b.getStringAttr(text));
      return b.getArrayAttr(attrs);
    };
    func->setAttr(kOnnxInputStructuresAttr, strings(inputs));
    func->setAttr(kOnnxOutputStructuresAttr, strings(outputStructures));
  }
  if (mlir::failed(mlir::verify(*traced->module)))
    return makeError(options.modelName + ": the imported module failed to "
                                         "verify");
  return std::move(traced->module);
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> onnximpl::importModelProto(
    mlir::MLIRContext &context, ::onnx::ModelProto &model,
    const ExternalData &external, const ImportOptions &options) {
  Importer importer(context, model, external, options);
  return importer.run();
}
