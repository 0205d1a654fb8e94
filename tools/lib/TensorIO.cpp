//===- TensorIO.cpp - tensors for the tools: files, literals, random ------===//

#include "tools/lib/TensorIO.h"

#include "codegen/reference/Interpreter.h"
#include "frontend/onnx/OnnxImporter.h"
#include "tgc/Npy.h"
#include "tools/lib/InputGuard.h"
#include "tools/lib/TensorLiteral.h"

#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

using namespace llvm;
using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {
Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}
std::optional<DType> dtypeOf(mlir::Type type) {
  return reference::toDType(type);
}
} // namespace

/// Reads a tensor from a .npy path, an ONNX TensorProto .pb path or an
/// inline literal.
Expected<HostTensor> tooling::loadTensor(StringRef spec) {
  if (spec.contains('='))
    return tgc::parseTensorLiteral(spec);
  // "PATH#TYPE#K": tensor K of the sequence or optional in PATH
  // (expandStructuredSpecs).
  if (auto [rest, index] = spec.rsplit('#'); !index.empty() && rest != spec) {
    auto [path, type] = rest.rsplit('#');
    size_t k;
    if (!type.empty() && path != rest && !index.getAsInteger(10, k)) {
      auto value = tgc::readValueProto(path, type);
      if (!value)
        return value.takeError();
      if (k >= value->tensors.size())
        return makeError(path + " holds " + Twine(value->tensors.size()) +
                         " tensors, not " + Twine(k + 1));
      return std::move(value->tensors[k]);
    }
  }
  if (spec.ends_with_insensitive(".pb"))
    return tgc::readTensorProto(spec);
  auto tensor = tgc::runtime::readNpy(spec.str());
  if (!tensor.ok())
    return makeError(spec + ": " + std::string(tensor.status().message()));
  return std::move(*tensor);
}

/// A random input of `type`; dynamic dims cannot be made up.
static Expected<HostTensor> randomTensorOf(DType dtype,
                                           const std::vector<int64_t> &shape,
                                           unsigned index,
                                           std::mt19937_64 &rng);

Expected<HostTensor> tooling::randomTensor(mlir::RankedTensorType type,
                                           unsigned index, std::mt19937_64 &rng,
                                           int64_t dynamicSize) {
  auto dtype = dtypeOf(type.getElementType());
  if (!dtype)
    return makeError("argument #" + Twine(index) + " has unsupported type");
  if (!type.hasStaticShape() && dynamicSize < 0)
    return makeError("argument #" + Twine(index) +
                     " has dynamic dims; give it with --input");
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  for (int64_t &d : shape)
    if (mlir::ShapedType::isDynamic(d))
      d = dynamicSize;
  return randomTensorOf(*dtype, shape, index, rng);
}

/// randomTensor for a static shape.
static Expected<HostTensor> randomTensorOf(DType dtype,
                                           const std::vector<int64_t> &shape,
                                           unsigned index,
                                           std::mt19937_64 &rng) {
  auto tensor = HostTensor::allocate(dtype, shape);
  if (!tensor.ok())
    return makeError("argument #" + Twine(index) + ": " +
                     std::string(tensor.status().message()));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> integer(-10, 10);
  for (int64_t i = 0; i < tensor->numElements(); ++i) {
    if (tgc::runtime::isFloatDType(dtype))
      tensor->setDouble(i, real(rng));
    else if (dtype == DType::I1)
      tensor->setInt(i, integer(rng) > 0);
    else
      tensor->setInt(i, integer(rng));
  }
  return std::move(*tensor);
}

void tooling::printTensor(raw_ostream &os, const HostTensor &tensor) {
  constexpr int64_t kMaxPrinted = 64;
  os << "[";
  int64_t n = tensor.numElements();
  for (int64_t i = 0; i < n && i < kMaxPrinted; ++i) {
    if (i)
      os << ", ";
    if (tgc::runtime::isFloatDType(tensor.dtype()))
      os << format("%g", tensor.getDouble(i));
    else if (tgc::runtime::isUnsignedDType(tensor.dtype()))
      os << tensor.getUInt(i);
    else
      os << tensor.getInt(i);
  }
  if (n > kMaxPrinted)
    os << ", ... (" << n << " elements)";
  os << "]\n";
}

/// Whether `prefix` (the text before '=' in an --input) is a literal's
/// shape and dtype, such as "2x3xf32" or "f32".
bool tooling::isLiteralType(StringRef prefix) {
  static const llvm::Regex literal(
      "^([0-9]+x)*(f16|bf16|f32|f64|i1|i8|i16|i32|i64|ui8|ui16|ui32|ui64)$");
  return literal.match(prefix);
}

/// Puts --input specs in argument order: NAME=SPEC goes to the argument
/// called NAME, the others fill the remaining arguments in order. An empty
/// entry is an argument no --input gives.
Expected<std::vector<std::string>>
tooling::orderInputs(const std::vector<std::string> &specs,
                     const std::vector<std::string> &names, StringRef what) {
  std::vector<std::string> ordered(std::max(names.size(), specs.size()));
  std::vector<bool> given(ordered.size(), false);
  std::vector<std::string> positional;
  for (const std::string &spec : specs) {
    size_t eq = spec.find('=');
    StringRef prefix = StringRef(spec).take_front(eq);
    auto named = eq == std::string::npos || isLiteralType(prefix)
                     ? names.end()
                     : llvm::find(names, prefix.str());
    if (named == names.end()) {
      positional.push_back(spec);
      continue;
    }
    size_t index = static_cast<size_t>(named - names.begin());
    if (given[index])
      return makeError("--input: input '" + prefix + "' is given twice");
    ordered[index] = spec.substr(eq + 1);
    given[index] = true;
  }
  size_t next = 0;
  for (const std::string &spec : positional) {
    while (next < ordered.size() && given[next])
      ++next;
    if (next >= names.size() && !names.empty())
      return makeError(what + " takes " + Twine(names.size()) +
                       " arguments but " + Twine(specs.size()) +
                       " inputs were given");
    ordered[next] = spec;
    given[next] = true;
  }
  // Trailing arguments nobody gives stay random.
  while (!ordered.empty() && !given[ordered.size() - 1])
    ordered.pop_back();
  return ordered;
}

/// The names of `func`'s arguments (an imported ONNX model's input names,
/// kept as their locations); empty when they have none.
std::vector<std::string> tooling::argumentNames(mlir::func::FuncOp func) {
  std::vector<std::string> names;
  for (mlir::BlockArgument arg : func.getArguments()) {
    auto loc = dyn_cast<mlir::NameLoc>(arg.getLoc());
    if (!loc)
      return {};
    names.push_back(loc.getName().str());
  }
  return names;
}

/// The inputs of `func`: given ones first, the rest random.
Expected<std::vector<HostTensor>>
tooling::makeInputs(mlir::func::FuncOp func, const InputOptions &opts) {
  int64_t dynamicSize = opts.dynamicSize;
  mlir::FunctionType signature = func.getFunctionType();
  auto ordered = orderInputs(opts.inputs, argumentNames(func),
                             ("@" + func.getName()).str());
  if (!ordered)
    return ordered.takeError();
  if (ordered->size() > signature.getNumInputs())
    return makeError("@" + func.getName() + " takes " +
                     Twine(signature.getNumInputs()) + " arguments but " +
                     Twine(opts.inputs.size()) + " inputs were given");
  std::mt19937_64 rng(opts.seed);
  std::vector<HostTensor> args;
  for (auto [i, type] : enumerate(signature.getInputs())) {
    auto tensorType = dyn_cast<mlir::RankedTensorType>(type);
    if (!tensorType)
      return makeError("argument #" + Twine(i) + " is not a ranked tensor");
    if (i < ordered->size() && !(*ordered)[i].empty()) {
      auto tensor = loadTensor((*ordered)[i]);
      if (!tensor)
        return tensor.takeError();
      auto dtype = dtypeOf(tensorType.getElementType());
      args.push_back(dtype ? adaptDType(std::move(*tensor), *dtype)
                           : std::move(*tensor));
      continue;
    }
    auto tensor = randomTensor(tensorType, i, rng, dynamicSize);
    if (!tensor)
      return tensor.takeError();
    args.push_back(std::move(*tensor));
  }
  return args;
}

Expected<std::vector<HostTensor>>
tooling::makeInputs(const std::vector<ArgumentSpec> &arguments, StringRef what,
                    const InputOptions &opts) {
  std::vector<std::string> names;
  for (const ArgumentSpec &arg : arguments)
    names.push_back(arg.name);
  if (llvm::any_of(names, [](const std::string &n) { return n.empty(); }))
    names.clear();
  auto ordered = orderInputs(opts.inputs, names, what);
  if (!ordered)
    return ordered.takeError();
  if (ordered->size() > arguments.size())
    return makeError(what + " takes " + Twine(arguments.size()) +
                     " arguments but " + Twine(opts.inputs.size()) +
                     " inputs were given");
  std::mt19937_64 rng(opts.seed);
  std::vector<HostTensor> args;
  for (auto [i, arg] : enumerate(arguments)) {
    if (i < ordered->size() && !(*ordered)[i].empty()) {
      auto tensor = loadTensor((*ordered)[i]);
      if (!tensor)
        return tensor.takeError();
      args.push_back(adaptDType(std::move(*tensor), arg.dtype));
      continue;
    }
    auto tensor = randomTensorOf(arg.dtype, arg.shape, i, rng);
    if (!tensor)
      return tensor.takeError();
    args.push_back(std::move(*tensor));
  }
  return args;
}

Expected<std::vector<std::string>>
tooling::expandStructuredSpecs(const std::vector<std::string> &specs,
                               const std::vector<std::string> &types,
                               std::vector<tgc::ValueStructure> *structures) {
  std::vector<std::string> expanded;
  for (auto [i, spec] : enumerate(specs)) {
    std::string type = i < types.size() ? types[i] : "tensor";
    if (type == "tensor" || spec.empty()) {
      expanded.push_back(spec);
      if (structures)
        structures->push_back(tgc::ValueStructure::tensor());
      continue;
    }
    if (!StringRef(spec).ends_with_insensitive(".pb"))
      return makeError("value #" + Twine(i) + " has type " + type +
                       ": give it as an ONNX SequenceProto or OptionalProto "
                       ".pb file, not '" +
                       spec + "'");
    auto value = tgc::readValueProto(spec, type);
    if (!value)
      return value.takeError();
    for (size_t k = 0; k < value->tensors.size(); ++k)
      expanded.push_back(spec + "#" + type + "#" + std::to_string(k));
    if (structures)
      structures->push_back(std::move(value->structure));
  }
  return expanded;
}

Expected<mlir::OwningOpRef<mlir::ModuleOp>> tooling::loadSourceModule(
    mlir::MLIRContext &context, SourceMgr &sourceMgr, const std::string &file,
    std::vector<std::string> &inputSpecs, bool weightsInFile) {
  if (tgc::isOnnxModelPath(file)) {
    tgc::ImportOptions importOptions;
    importOptions.weightsInFile = weightsInFile;
    // A model that does not parse is reported by the importer below.
    std::vector<std::string> names;
    if (auto read = tgc::onnxModelInputNames(file))
      names = std::move(*read);
    else
      consumeError(read.takeError());
    auto ordered = orderInputs(inputSpecs, names, file);
    if (!ordered)
      return ordered.takeError();
    // Sequence and optional inputs (.pb files) give the import their
    // structure, and their tensors the function's arguments.
    std::vector<std::string> types;
    if (auto read = tgc::onnxModelValueTypes(file))
      types = std::move(read->inputs);
    else
      consumeError(read.takeError());
    if (llvm::any_of(types,
                     [](const std::string &t) { return t != "tensor"; })) {
      std::vector<tgc::ValueStructure> structures;
      auto expanded = expandStructuredSpecs(*ordered, types, &structures);
      if (!expanded)
        return expanded.takeError();
      for (const tgc::ValueStructure &s : structures)
        importOptions.inputStructures.push_back(s);
      *ordered = std::move(*expanded);
      inputSpecs = *ordered;
    }
    for (const std::string &spec : *ordered) {
      if (spec.empty()) {
        importOptions.argumentValues.emplace_back();
        continue;
      }
      auto tensor = loadTensor(spec);
      if (!tensor)
        return tensor.takeError();
      importOptions.argumentValues.push_back(std::move(*tensor));
    }
    auto module = tgc::importOnnxModel(context, file, importOptions);
    if (module || importOptions.argumentValues.empty() ||
        llvm::any_of(importOptions.argumentValues,
                     [](const auto &value) { return !value; }))
      return module;
    // Unsupported with the model's dynamic dims (a recurrence over a dynamic
    // sequence length is unrolled): import again for the shapes of the
    // inputs given, which are what runs. Other errors stand.
    std::error_code code;
    std::string message;
    handleAllErrors(module.takeError(), [&](const ErrorInfoBase &error) {
      code = error.convertToErrorCode();
      message = error.message();
    });
    if (code != tgc::unsupportedErrorCode())
      return createStringError(code, message);
    for (const auto &value : importOptions.argumentValues)
      importOptions.argumentShapes.push_back(value->shape());
    auto specialized = tgc::importOnnxModel(context, file, importOptions);
    if (!specialized) {
      consumeError(specialized.takeError());
      return createStringError(code, message);
    }
    return specialized;
  }
  auto buffer = MemoryBuffer::getFileOrSTDIN(file);
  if (!buffer)
    return makeError("cannot read '" + file +
                     "': " + buffer.getError().message());
  if (Error error = tgc::checkParserLimits((*buffer)->getBuffer(), file))
    return std::move(error);
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), SMLoc());
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return makeError("failed to parse '" + file + "'");
  return module;
}

mlir::func::FuncOp tooling::findFunction(mlir::ModuleOp module,
                                         StringRef name) {
  if (!name.empty())
    return module.lookupSymbol<mlir::func::FuncOp>(name);
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      return func;
  return nullptr;
}
