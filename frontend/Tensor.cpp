//===- Tensor.cpp - symbolic tensors and the op recorder ------------------===//

#include "frontend/Tensor.h"
#include "frontend/TraceState.h"

#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"

#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>

using namespace mlir;
using namespace tgc;
using namespace tgc::detail;
using runtime::DType;

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

Tensor TensorAccess::make(Value value, uint64_t traceId) {
  return Tensor(value.getAsOpaquePointer(),
                cast<RankedTensorType>(value.getType()).getAsOpaquePointer(),
                traceId);
}

Tensor TensorAccess::poisoned(uint64_t traceId) {
  return Tensor(nullptr, nullptr, traceId);
}

uint64_t TensorAccess::traceId(const Tensor &tensor) { return tensor.trace; }

DType Tensor::dtype() const {
  RankedTensorType type = typeOf(*this);
  if (!type)
    return DType::F32;
  return toDType(type.getElementType()).value_or(DType::F32);
}

std::vector<int64_t> Tensor::shape() const {
  std::vector<int64_t> dims;
  RankedTensorType type = typeOf(*this);
  if (!type)
    return dims;
  for (int64_t d : type.getShape())
    dims.push_back(ShapedType::isDynamic(d) ? kDynamic : d);
  return dims;
}

int64_t Tensor::rank() const {
  RankedTensorType type = typeOf(*this);
  return type ? type.getRank() : 0;
}

std::optional<int64_t> Tensor::dim(int64_t i) const {
  RankedTensorType type = typeOf(*this);
  if (!type)
    return std::nullopt;
  int64_t r = type.getRank();
  if (i < 0)
    i += r;
  if (i < 0 || i >= r || type.isDynamicDim(i))
    return std::nullopt;
  return type.getDimSize(i);
}

bool Tensor::hasStaticShape() const {
  RankedTensorType type = typeOf(*this);
  return type && type.hasStaticShape();
}

std::optional<int64_t> Tensor::numElements() const {
  RankedTensorType type = typeOf(*this);
  if (!type)
    return std::nullopt;
  return staticElementCount(type.getShape());
}

std::string Tensor::describe() const {
  RankedTensorType type = typeOf(*this);
  if (!type)
    return "<invalid tensor>";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::string Scalar::str() const {
  if (isInt)
    return std::to_string(intValue);
  if (bigUnsigned)
    return std::to_string(getUInt64());
  // The shortest text that reads back as the same double.
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), floatValue);
  if (ec != std::errc())
    return "?";
  return std::string(buffer, end);
}

//===----------------------------------------------------------------------===//
// OpRecorder
//===----------------------------------------------------------------------===//

OpRecorder::OpRecorder(llvm::StringRef opName,
                       llvm::ArrayRef<const Tensor *> operands,
                       std::source_location loc)
    : opName(opName), trace(activeTrace()) {
  if (!trace)
    return; // Outside tracing: nowhere to report, the result is invalid.
  location = toLocation(trace->context, loc);
  usable = true;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    uint64_t owner = TensorAccess::traceId(*operand);
    if (owner == trace->id) {
      if (!operand->valid())
        usable = false; // Poisoned by an error already recorded.
      continue;
    }
    usable = false;
    if (owner == 0)
      trace->recordError(this->loc(),
                         "'" + opName + "' op operand #" + llvm::Twine(i) +
                             " is an empty Tensor (default-constructed or "
                             "created outside tracing)");
    else
      trace->recordError(this->loc(),
                         "'" + opName + "' op operand #" + llvm::Twine(i) +
                             " belongs to another trace (a Tensor cannot be "
                             "used outside the traced function that made it)");
  }
}

Tensor OpRecorder::poison() const {
  return TensorAccess::poisoned(trace ? trace->id : 0);
}

Tensor OpRecorder::fail(const llvm::Twine &message) {
  if (trace)
    trace->recordError(loc(), "'" + opName + "' op " + message);
  usable = false;
  return poison();
}

Type OpRecorder::placeholderType() { return NoneType::get(&context()); }

Tensor OpRecorder::discard(Operation *op, unsigned errorsBefore,
                           llvm::StringRef what) {
  op->erase();
  if (trace->getErrorCount() == errorsBefore)
    trace->recordError(loc(), "'" + opName + "' op " + what);
  usable = false;
  return poison();
}

Tensor OpRecorder::finishInferred(Operation *op, unsigned errorsBefore) {
  auto inferable = dyn_cast<InferTypeOpInterface>(op);
  if (!inferable)
    return discard(op, errorsBefore, "has no result type inference");
  SmallVector<Type, 1> types;
  if (failed(inferable.inferReturnTypes(
          &context(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), types)) ||
      types.size() != 1 || !isa<RankedTensorType>(types.front()))
    return discard(op, errorsBefore, "failed to infer its result type");
  op->getResult(0).setType(types.front());
  return finishVerified(op, errorsBefore);
}

std::vector<Tensor> OpRecorder::finishInferredResults(Operation *op,
                                                      unsigned errorsBefore,
                                                      unsigned n) {
  auto inferable = dyn_cast<InferTypeOpInterface>(op);
  SmallVector<Type, 2> types;
  if (!inferable)
    return std::vector<Tensor>(
        n, discard(op, errorsBefore, "has no result type inference"));
  if (failed(inferable.inferReturnTypes(
          &context(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), types)) ||
      types.size() != n || op->getNumResults() != n ||
      !llvm::all_of(types, llvm::IsaPred<RankedTensorType>))
    return std::vector<Tensor>(
        n, discard(op, errorsBefore, "failed to infer its result types"));
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  return finishVerifiedResults(op, errorsBefore);
}

std::vector<Tensor> OpRecorder::finishVerifiedResults(Operation *op,
                                                      unsigned errorsBefore) {
  const unsigned n = op->getNumResults();
  if (!llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>) ||
      failed(verify(op)))
    return std::vector<Tensor>(n,
                               discard(op, errorsBefore, "failed to verify"));
  std::vector<Tensor> results;
  for (Value result : op->getResults())
    results.push_back(TensorAccess::make(result, trace->id));
  return results;
}

Tensor OpRecorder::finishVerified(Operation *op, unsigned errorsBefore) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()) || failed(verify(op)))
    return discard(op, errorsBefore, "failed to verify");
  return TensorAccess::make(op->getResult(0), trace->id);
}

FailureOr<TypedAttr> tgc::detail::scalarElementAttr(Scalar value,
                                                    Type elementType,
                                                    std::string &why) {
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    APFloat f(value.getDouble());
    bool losesInfo = false;
    f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &losesInfo);
    return TypedAttr(FloatAttr::get(floatType, f));
  }
  auto intType = cast<IntegerType>(elementType);
  unsigned width = intType.getWidth();
  std::string typeName;
  llvm::raw_string_ostream(typeName) << intType;
  if (intType.isUnsigned()) {
    // Integers are exact; a double (how a uint64 above INT64_MAX arrives)
    // must be integral and below 2^64.
    uint64_t u;
    bool exact;
    if (value.isInteger()) {
      exact = value.getInt() >= 0;
      u = static_cast<uint64_t>(value.getInt());
    } else if (value.isBigUnsigned()) {
      exact = true;
      u = value.getUInt64();
    } else {
      double d = value.getDouble();
      exact = std::isfinite(d) && d == std::trunc(d) && d >= 0 &&
              d < 18446744073709551616.0;
      u = exact ? static_cast<uint64_t>(d) : 0;
    }
    if (!exact || (width < 64 && u >> width != 0)) {
      why = "scalar " + value.str() + " cannot be represented exactly as " +
            typeName;
      return failure();
    }
    return TypedAttr(
        IntegerAttr::get(intType, APInt(width, u, /*isSigned=*/false)));
  }
  int64_t v;
  if (value.isInteger()) {
    v = value.getInt();
  } else {
    double d = value.getDouble();
    // 2^63 is exactly representable; every double below it that is integral
    // converts exactly.
    if (!std::isfinite(d) || d != std::trunc(d) || d < -9223372036854775808.0 ||
        d >= 9223372036854775808.0) {
      why = "scalar " + value.str() +
            " is not an integer and cannot be "
            "represented exactly as i" +
            std::to_string(width);
      return failure();
    }
    v = static_cast<int64_t>(d);
  }
  bool fits;
  if (width == 1)
    fits = v == 0 || v == 1;
  else if (width >= 64)
    fits = true;
  else
    fits = v >= -(int64_t(1) << (width - 1)) && v < (int64_t(1) << (width - 1));
  if (!fits) {
    why = "scalar " + value.str() + " cannot be represented exactly as i" +
          std::to_string(width);
    return failure();
  }
  return TypedAttr(IntegerAttr::get(
      intType, APInt(width, static_cast<uint64_t>(v), /*isSigned=*/true,
                     /*implicitTrunc=*/true)));
}

Tensor OpRecorder::scalarLike(Scalar value, const Tensor &like) {
  if (!usable)
    return poison();
  Type elementType = typeOf(like).getElementType();
  std::string why;
  FailureOr<TypedAttr> element = scalarElementAttr(value, elementType, why);
  if (failed(element))
    return fail(why);
  auto type = RankedTensorType::get({}, elementType);
  auto attr = DenseElementsAttr::get(type, ArrayRef<Attribute>{*element});
  unsigned errorsBefore = trace->getErrorCount();
  auto op = ConstantOp::create(builder(), loc(), type, attr);
  return finishVerified(op.getOperation(), errorsBefore);
}
