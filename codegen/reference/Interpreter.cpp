//===- Interpreter.cpp - tgc reference interpreter ------------------------===//
//
// Function execution (argument checks, op dispatch, func.call, result checks)
// and the helpers shared by the kernel files.
//
//===----------------------------------------------------------------------===//

#include "codegen/reference/Interpreter.h"
#include "codegen/reference/Kernels.h"

#include "dialects/DTypeMapping.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcDialect.h"
#include "dialects/TgcOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using llvm::Error;
using llvm::Expected;

namespace tgc::reference {
namespace detail {

//===----------------------------------------------------------------------===//
// Errors and types
//===----------------------------------------------------------------------===//

static std::optional<FileLineColLoc> findFileLoc(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file;
  if (auto name = dyn_cast<NameLoc>(loc))
    return findFileLoc(name.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return findFileLoc(callSite.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto file = findFileLoc(inner))
        return file;
  return std::nullopt;
}

std::string formatLocation(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto file = findFileLoc(loc)) {
    os << file->getFilename().getValue() << ':' << file->getLine() << ':'
       << file->getColumn();
    return s;
  }
  loc.print(os);
  llvm::StringRef ref(s);
  if (ref.consume_front("loc(") && ref.consume_back(")"))
    return ref.str();
  return s;
}

Error opError(Operation *op, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 formatLocation(op->getLoc()) + ": '" +
                                     op->getName().getStringRef().str() +
                                     "' op " + message.str());
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += 'x';
    s += ShapedType::isDynamic(shape[i]) ? std::string("?")
                                         : std::to_string(shape[i]);
  }
  return s;
}

std::string describeTensor(DType dtype, llvm::ArrayRef<int64_t> shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s +=
        (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d)) + "x";
  s += std::string(runtime::dtypeName(dtype)) + ">";
  return s;
}

static Expected<HostTensor> allocateResult(Operation *op, DType dtype,
                                           Shape shape, bool zeroed) {
  std::string desc = describeTensor(dtype, shape);
  auto result =
      zeroed ? HostTensor::allocate(dtype, std::move(shape))
             : HostTensor::allocateUninitialized(dtype, std::move(shape));
  if (!result.ok())
    return opError(op, "cannot allocate the result " + desc + ": " +
                           std::string(result.status().message()));
  return std::move(*result);
}

Expected<HostTensor> allocate(Operation *op, DType dtype, Shape shape) {
  return allocateResult(op, dtype, std::move(shape), /*zeroed=*/true);
}

Expected<HostTensor> allocateUninitialized(Operation *op, DType dtype,
                                           Shape shape) {
  return allocateResult(op, dtype, std::move(shape), /*zeroed=*/false);
}

DType resultDType(Operation *op, unsigned index) {
  return *toDType(
      cast<RankedTensorType>(op->getResult(index).getType()).getElementType());
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Element access
//===----------------------------------------------------------------------===//

std::vector<double> readDoubles(const HostTensor &t) {
  int64_t n = t.numElements();
  std::vector<double> out(static_cast<size_t>(n));
  switch (t.dtype()) {
  case DType::F32: {
    const float *p = t.dataAs<float>();
    for (int64_t i = 0; i < n; ++i)
      out[i] = p[i];
    break;
  }
  case DType::F64:
    if (n)
      std::memcpy(out.data(), t.data(), n * sizeof(double));
    break;
  default:
    for (int64_t i = 0; i < n; ++i)
      out[i] = t.getDouble(i);
    break;
  }
  return out;
}

std::vector<int64_t> readInts(const HostTensor &t) {
  int64_t n = t.numElements();
  std::vector<int64_t> out(static_cast<size_t>(n));
  switch (t.dtype()) {
  case DType::I64:
    if (n)
      std::memcpy(out.data(), t.data(), n * sizeof(int64_t));
    break;
  case DType::I32: {
    const int32_t *p = t.dataAs<int32_t>();
    for (int64_t i = 0; i < n; ++i)
      out[i] = p[i];
    break;
  }
  case DType::I8: {
    const int8_t *p = t.dataAs<int8_t>();
    for (int64_t i = 0; i < n; ++i)
      out[i] = p[i];
    break;
  }
  default:
    for (int64_t i = 0; i < n; ++i)
      out[i] = t.getInt(i);
    break;
  }
  return out;
}

void writeDoubles(HostTensor &t, const std::vector<double> &values) {
  int64_t n = t.numElements();
  switch (t.dtype()) {
  case DType::F32: {
    float *p = t.dataAs<float>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = static_cast<float>(values[i]); // round to nearest even
    break;
  }
  case DType::F64:
    if (n)
      std::memcpy(t.data(), values.data(), n * sizeof(double));
    break;
  default:
    for (int64_t i = 0; i < n; ++i)
      t.setDouble(i, values[i]);
    break;
  }
}

void writeInts(HostTensor &t, const std::vector<int64_t> &values) {
  int64_t n = t.numElements();
  switch (t.dtype()) {
  case DType::I64:
    if (n)
      std::memcpy(t.data(), values.data(), n * sizeof(int64_t));
    break;
  case DType::I32: {
    int32_t *p = t.dataAs<int32_t>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = static_cast<int32_t>(values[i]); // wraps (C++20)
    break;
  }
  case DType::I8: {
    int8_t *p = t.dataAs<int8_t>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = static_cast<int8_t>(values[i]);
    break;
  }
  case DType::I1: {
    uint8_t *p = t.dataAs<uint8_t>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = values[i] != 0;
    break;
  }
  default:
    for (int64_t i = 0; i < n; ++i)
      t.setInt(i, values[i]);
    break;
  }
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

using namespace detail;

namespace {

/// Checks that `tensor` can be a value of `type`: same dtype and rank, equal
/// static dims. Returns a description of the mismatch, or an empty string.
std::string checkAgainstType(const HostTensor &tensor, Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return "has non-tensor type";
  auto dtype = toDType(ranked.getElementType());
  if (!dtype)
    return "has unsupported element type";
  bool ok = *dtype == tensor.dtype() && ranked.getRank() == tensor.rank();
  for (int64_t d = 0; ok && d < ranked.getRank(); ++d)
    ok = ranked.isDynamicDim(d) || ranked.getDimSize(d) == tensor.dim(d);
  if (ok)
    return "";
  return describeTensor(tensor.dtype(), tensor.shape());
}

class Executor {
public:
  Expected<std::vector<HostTensor>>
  call(func::FuncOp func, llvm::ArrayRef<const HostTensor *> inputs,
       unsigned depth);

  Expected<HostTensor> runOp(Operation *op, Operands operands);
  /// Every result of `op` (a fusion's yielded values).
  Expected<std::vector<HostTensor>> runOpResults(Operation *op,
                                                 Operands operands);

  /// Runs the ops of `body` with its arguments bound to `inputs`; returns the
  /// operands of its func.return / tgc.yield (nullopt when it has none).
  Expected<std::optional<std::vector<HostTensor>>>
  runBlock(Block &body, llvm::ArrayRef<const HostTensor *> inputs,
           unsigned depth);

  /// The results of a tgc.if or tgc.while (nullopt for any other op).
  std::optional<Expected<std::vector<HostTensor>>>
  runControlFlow(Operation *op, Operands operands, unsigned depth);

private:
  /// Runs a region's block, which must yield `count` values.
  Expected<std::vector<HostTensor>> runRegion(Operation *op, Block &block,
                                              Operands inputs, size_t count,
                                              unsigned depth);
  /// The one element of a tgc.if / tgc.while condition.
  Expected<bool> predicate(Operation *op, const HostTensor &condition);
};

Expected<std::vector<HostTensor>>
Executor::runRegion(Operation *op, Block &block, Operands inputs, size_t count,
                    unsigned depth) {
  auto results = runBlock(block, inputs, depth);
  if (!results)
    return results.takeError();
  if (!*results || (*results)->size() != count)
    return opError(op,
                   "region does not yield " + llvm::Twine(count) + " values");
  return std::move(**results);
}

Expected<bool> Executor::predicate(Operation *op, const HostTensor &condition) {
  if (condition.numElements() != 1)
    return opError(op, "condition holds " +
                           llvm::Twine(condition.numElements()) +
                           " elements, not one");
  return condition.getInt(0) != 0;
}

std::optional<Expected<std::vector<HostTensor>>>
Executor::runControlFlow(Operation *op, Operands operands, unsigned depth) {
  if (auto ifOp = dyn_cast<IfOp>(op)) {
    Expected<bool> taken = predicate(op, *operands[0]);
    if (!taken)
      return Expected<std::vector<HostTensor>>(taken.takeError());
    return runRegion(op, *taken ? ifOp.getThenBlock() : ifOp.getElseBlock(),
                     operands.drop_front(), op->getNumResults(), depth);
  }
  auto whileOp = dyn_cast<WhileOp>(op);
  if (!whileOp)
    return std::nullopt;
  size_t carried = whileOp.getInits().size();
  std::vector<HostTensor> values;
  values.reserve(carried);
  for (size_t i = 0; i < carried; ++i)
    values.push_back(*operands[i]);
  llvm::SmallVector<const HostTensor *> inputs(operands.begin(),
                                               operands.end());
  bool owned = false; // whether `values` are the body's, not the caller's
  for (;;) {
    for (size_t i = 0; i < carried; ++i)
      inputs[i] = &values[i];
    auto condition = runRegion(op, whileOp.getCondBlock(), inputs, 1, depth);
    if (!condition)
      return Expected<std::vector<HostTensor>>(condition.takeError());
    Expected<bool> again = predicate(op, (*condition)[0]);
    if (!again)
      return Expected<std::vector<HostTensor>>(again.takeError());
    if (!*again)
      break;
    auto next = runRegion(op, whileOp.getBodyBlock(), inputs, carried, depth);
    if (!next)
      return Expected<std::vector<HostTensor>>(next.takeError());
    values = std::move(*next);
    owned = true;
  }
  // Results own their storage (the initial values are the caller's).
  if (!owned)
    for (HostTensor &value : values)
      value = value.clone();
  return Expected<std::vector<HostTensor>>(std::move(values));
}

/// An error about `func` located at it.
Error functionError(func::FuncOp func, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 formatLocation(func.getLoc()) +
                                     ": function '" + func.getSymName() + "' " +
                                     message.str());
}

Error checkInputs(func::FuncOp func,
                  llvm::ArrayRef<const HostTensor *> inputs) {
  FunctionType type = func.getFunctionType();
  if (inputs.size() != type.getNumInputs())
    return functionError(func, "expects " + llvm::Twine(type.getNumInputs()) +
                                   " inputs, got " +
                                   llvm::Twine(inputs.size()));
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    std::string mismatch = checkAgainstType(*inputs[i], argType);
    if (!mismatch.empty())
      return functionError(func, "argument #" + llvm::Twine(i) + " expects " +
                                     typeString(argType) + ", got " + mismatch);
  }
  return Error::success();
}

Expected<std::vector<HostTensor>>
Executor::call(func::FuncOp func, llvm::ArrayRef<const HostTensor *> inputs,
               unsigned depth) {
  auto funcError = [&](const llvm::Twine &message) -> Error {
    return functionError(func, message);
  };
  if (func.isExternal())
    return funcError("has no body");
  if (Error error = checkInputs(func, inputs))
    return std::move(error);

  auto results = runBlock(func.getBody().front(), inputs, depth);
  if (!results)
    return results.takeError();
  if (!*results)
    return funcError("has no func.return");
  return std::move(**results);
}

Expected<std::optional<std::vector<HostTensor>>>
Executor::runBlock(Block &body, llvm::ArrayRef<const HostTensor *> inputs,
                   unsigned depth) {
  using Results = std::optional<std::vector<HostTensor>>;
  // Values live in `env`; arguments are borrowed views of the inputs, so they
  // are never written. A value is dropped after its last use in the block.
  llvm::DenseMap<Value, HostTensor> env;
  for (auto [arg, input] : llvm::zip(body.getArguments(), inputs)) {
    auto view = HostTensor::borrow(input->dtype(), input->shape(),
                                   const_cast<void *>(input->data()));
    if (!view.ok())
      return opError(body.getParentOp(),
                     "cannot view argument: " +
                         std::string(view.status().message()));
    env.try_emplace(arg, std::move(*view));
  }
  llvm::DenseMap<Value, Operation *> lastUse;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      lastUse[v] = &op;

  llvm::SmallVector<const HostTensor *> operands;
  for (Operation &op : body) {
    operands.clear();
    for (Value v : op.getOperands()) {
      auto it = env.find(v);
      if (it == env.end())
        return opError(&op, "uses a value that is not defined in the "
                            "enclosing body");
      operands.push_back(&it->second);
    }

    if (isa<func::ReturnOp, YieldOp>(op)) {
      std::vector<HostTensor> results;
      results.reserve(operands.size());
      for (const HostTensor *t : operands)
        results.push_back(t->clone());
      return Results(std::move(results));
    }

    auto bindResults = [&](std::vector<HostTensor> &results) -> Error {
      if (results.size() != op.getNumResults())
        return opError(&op, "produced " + llvm::Twine(results.size()) +
                                " results, expected " +
                                llvm::Twine(op.getNumResults()));
      for (auto [i, result] : llvm::enumerate(results)) {
        std::string mismatch =
            checkAgainstType(result, op.getResult(i).getType());
        if (!mismatch.empty())
          return opError(&op, "result #" + llvm::Twine(i) + " is " + mismatch +
                                  " but its declared type is " +
                                  typeString(op.getResult(i).getType()));
        env.try_emplace(op.getResult(i), std::move(result));
      }
      return Error::success();
    };

    if (auto callOp = dyn_cast<func::CallOp>(op)) {
      if (depth + 1 >= kMaxCallDepth)
        return opError(&op, "call depth exceeds " + llvm::Twine(kMaxCallDepth) +
                                " (recursive call to '" + callOp.getCallee() +
                                "'?)");
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          &op, callOp.getCalleeAttr());
      if (!callee)
        return opError(&op, "callee '" + callOp.getCallee() +
                                "' is not a func.func in this module");
      auto results = call(callee, operands, depth + 1);
      if (!results)
        return results.takeError();
      if (auto error = bindResults(*results))
        return std::move(error);
    } else if (auto fusion = dyn_cast<FusionOp>(op)) {
      // A fusion region is its body, run op by op.
      auto results = runBlock(fusion.getBlock(), operands, depth);
      if (!results)
        return results.takeError();
      if (!*results)
        return opError(&op, "body has no tgc.yield");
      if (auto error = bindResults(**results))
        return std::move(error);
    } else if (isa<IfOp, WhileOp>(op)) {
      auto results = *runControlFlow(&op, operands, depth);
      if (!results)
        return results.takeError();
      if (auto error = bindResults(*results))
        return std::move(error);
    } else if (auto castOp = dyn_cast<tensor::CastOp>(op)) {
      // A shape-only cast, as tgc-infer-shapes inserts before returns: the
      // value must fit the new type; the storage is shared.
      std::string mismatch = checkAgainstType(*operands[0], castOp.getType());
      if (!mismatch.empty())
        return opError(&op, "operand is " + mismatch +
                                " but the cast's result type is " +
                                typeString(castOp.getType()));
      env.try_emplace(op.getResult(0), *operands[0]);
    } else {
      if (!llvm::isa_and_nonnull<TgcDialect>(op.getDialect()))
        return opError(&op, "is not supported by the reference interpreter");
      if (op.getNumResults() == 0)
        return opError(&op, "has an unexpected number of results");
      // Operands were produced under their declared types; check that the
      // element types and ranks agree before the kernels rely on them.
      for (auto [i, v] : llvm::enumerate(op.getOperands())) {
        std::string mismatch = checkAgainstType(*operands[i], v.getType());
        if (!mismatch.empty())
          return opError(&op, "operand #" + llvm::Twine(i) + " is " + mismatch +
                                  " but its type is " +
                                  typeString(v.getType()));
      }
      for (Value result : op.getResults())
        if (!toDType(cast<RankedTensorType>(result.getType()).getElementType()))
          return opError(&op, "has an unsupported result element type");
      auto results = runOpResults(&op, operands);
      if (!results)
        return results.takeError();
      if (results->size() != op.getNumResults())
        return opError(&op, "produced " + llvm::Twine(results->size()) +
                                " results, expected " +
                                llvm::Twine(op.getNumResults()));
      for (auto [i, result] : llvm::enumerate(*results)) {
        Type declared = op.getResult(i).getType();
        std::string mismatch = checkAgainstType(result, declared);
        if (!mismatch.empty())
          return opError(
              &op, "produced " + mismatch + " but its declared result type" +
                       (op.getNumResults() > 1 ? " #" + std::to_string(i)
                                               : std::string()) +
                       " is " + typeString(declared));
        env.try_emplace(op.getResult(i), std::move(result));
      }
    }

    // Free values whose last use was this op.
    for (Value v : op.getOperands()) {
      auto it = lastUse.find(v);
      if (it != lastUse.end() && it->second == &op) {
        env.erase(v);
        lastUse.erase(it);
      }
    }
  }
  return Results();
}

Expected<std::vector<HostTensor>> Executor::runOpResults(Operation *op,
                                                         Operands operands) {
  if (auto fusion = dyn_cast<FusionOp>(op)) {
    auto results = runBlock(fusion.getBlock(), operands, 0);
    if (!results)
      return results.takeError();
    if (!*results)
      return opError(op, "body has no tgc.yield");
    return std::move(**results);
  }
  if (auto r = runControlFlow(op, operands, 0))
    return std::move(*r);
  if (auto r = runMultiResult(op, operands))
    return std::move(*r);
  auto result = runOp(op, operands);
  if (!result)
    return result.takeError();
  std::vector<HostTensor> results;
  results.push_back(std::move(*result));
  return results;
}

Expected<HostTensor> Executor::runOp(Operation *op, Operands operands) {
  if (auto fusion = dyn_cast<FusionOp>(op)) {
    auto results = runBlock(fusion.getBlock(), operands, 0);
    if (!results)
      return results.takeError();
    if (!*results || (*results)->size() != 1)
      return opError(op, "runOp needs a fusion with one result");
    return std::move((**results)[0]);
  }
  if (auto r = runElementwise(op, operands))
    return std::move(*r);
  if (auto r = runContraction(op, operands))
    return std::move(*r);
  if (auto r = runReduction(op, operands))
    return std::move(*r);
  if (auto r = runDataMovement(op, operands))
    return std::move(*r);
  return opError(op, "is not supported by the reference interpreter");
}

} // namespace

Expected<HostTensor> runOp(Operation *op,
                           llvm::ArrayRef<const HostTensor *> operands) {
  if (!op || op->getNumResults() != 1 ||
      !llvm::isa_and_nonnull<TgcDialect>(op->getDialect()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "runOp: not a single-result tgc op");
  if (operands.size() != op->getNumOperands())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "runOp: wrong number of operands");
  Executor executor;
  return executor.runOp(op, operands);
}

Expected<std::vector<HostTensor>>
runOpResults(Operation *op, llvm::ArrayRef<const HostTensor *> operands) {
  if (!op || op->getNumResults() == 0 ||
      !llvm::isa_and_nonnull<TgcDialect>(op->getDialect()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "runOpResults: not a tgc op with results");
  if (operands.size() != op->getNumOperands())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "runOpResults: wrong number of operands");
  Executor executor;
  return executor.runOpResults(op, operands);
}

Error checkArguments(func::FuncOp func, llvm::ArrayRef<HostTensor> inputs) {
  llvm::SmallVector<const HostTensor *> pointers;
  for (const HostTensor &t : inputs)
    pointers.push_back(&t);
  return checkInputs(func, pointers);
}

Expected<std::vector<HostTensor>>
runFunction(func::FuncOp func, llvm::ArrayRef<HostTensor> inputs) {
  if (!func)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "runFunction: null function");
  llvm::SmallVector<const HostTensor *> pointers;
  for (const HostTensor &t : inputs)
    pointers.push_back(&t);
  Executor executor;
  return executor.call(func, pointers, 0);
}

} // namespace tgc::reference
