//===- TgcFolds.cpp - tgc folders and canonicalization patterns -----------===//
//
// Constant folding evaluates elementwise ops with the scalar semantics of
// ScalarMath.h (the same the reference interpreter uses). Algebraic folds only
// apply where they are exact, including for NaN and signed zeros.
//
//===----------------------------------------------------------------------===//

#include "dialects/ConstantData.h"
#include "dialects/ScalarMath.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"
#include "runtime/Shape.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;
using namespace tgc;

namespace {
/// `value` as `type`, through a tensor.cast where they differ only in how
/// static they are (a folded op's result against its declared type).
Value castTo(PatternRewriter &rewriter, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(rewriter, loc, type, value);
}
} // namespace

//===----------------------------------------------------------------------===//
// Constant evaluation helpers
//===----------------------------------------------------------------------===//

namespace {
/// One element of a constant: a float in double or an integer in int64 (i1 is
/// 0 or 1; unsigned values are zero-extended, ui64 keeps its bit pattern, see
/// ScalarMath.h). `isUnsigned` says how an integer converts to a float.
struct Scalar {
  bool isFloat = false;
  double f = 0;
  int64_t i = 0;
  bool isUnsigned = false;
  static Scalar ofFloat(double v) { return {true, v, 0, false}; }
  static Scalar ofInt(int64_t v, bool isUnsigned = false) {
    return {false, 0, v, isUnsigned};
  }
};

/// Elements of a constant; a splat holds one element.
struct Elements {
  bool splat = false;
  SmallVector<Scalar> values;
};

/// Non-splat constants above this size are not folded (compile time).
constexpr int64_t kMaxFoldElements = 1 << 20;

Scalar readElement(Type elementType, const APFloat &f) {
  bool lost;
  APFloat d = f;
  d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return Scalar::ofFloat(d.convertToDouble());
}

Scalar readElement(Type elementType, const APInt &v) {
  if (elementType.isUnsignedInteger())
    return Scalar::ofInt(static_cast<int64_t>(v.getZExtValue()),
                         /*isUnsigned=*/true);
  return Scalar::ofInt(elementType.isInteger(1) ? v.getZExtValue()
                                                : v.getSExtValue());
}

std::optional<Elements> readElements(Attribute attr) {
  if (auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(attr)) {
    // A dense_resource (a file-backed weight): decoded from its bytes.
    Type elementType = resource.getElementType();
    int64_t count = resource.getNumElements();
    std::optional<int64_t> width = constantElementBytes(elementType);
    if (count > kMaxFoldElements || !width)
      return std::nullopt;
    std::optional<ConstantBytes> bytes = readConstantBytes(resource);
    if (!bytes)
      return std::nullopt;
    Elements out;
    out.values.reserve(static_cast<size_t>(count));
    auto integer = dyn_cast<IntegerType>(elementType);
    auto floating = dyn_cast<FloatType>(elementType);
    if (!integer && !floating)
      return std::nullopt;
    unsigned bits = static_cast<unsigned>(*width * 8);
    for (int64_t i = 0; i < count; ++i) {
      uint64_t raw = 0;
      std::memcpy(&raw, bytes->data() + i * *width,
                  static_cast<size_t>(*width));
      APInt v(bits, raw);
      out.values.push_back(
          integer ? readElement(elementType, v)
                  : readElement(elementType,
                                APFloat(floating.getFloatSemantics(), v)));
    }
    return out;
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  Type elementType = dense.getElementType();
  Elements out;
  out.splat = dense.isSplat();
  if (!out.splat && dense.getNumElements() > kMaxFoldElements)
    return std::nullopt;
  if (isa<FloatType>(elementType)) {
    if (out.splat)
      out.values.push_back(
          readElement(elementType, dense.getSplatValue<APFloat>()));
    else
      for (const APFloat &v : dense.getValues<APFloat>())
        out.values.push_back(readElement(elementType, v));
  } else if (isa<IntegerType>(elementType)) {
    if (out.splat)
      out.values.push_back(
          readElement(elementType, dense.getSplatValue<APInt>()));
    else
      for (const APInt &v : dense.getValues<APInt>())
        out.values.push_back(readElement(elementType, v));
  } else {
    return std::nullopt;
  }
  return out;
}

/// Converts a scalar to an element of `elementType` with tgc.cast semantics.
Attribute toElementAttr(Type elementType, Scalar s) {
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    APFloat v(ft.getFloatSemantics());
    if (s.isFloat) {
      bool lost;
      v = APFloat(s.f);
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    } else {
      // Round once, straight from the integer.
      v.convertFromAPInt(
          APInt(64, static_cast<uint64_t>(s.i), /*isSigned=*/!s.isUnsigned),
          /*IsSigned=*/!s.isUnsigned, APFloat::rmNearestTiesToEven);
    }
    return FloatAttr::get(ft, v);
  }
  auto it = cast<IntegerType>(elementType);
  unsigned bits = it.getWidth();
  bool isUnsigned = it.isUnsigned();
  int64_t v = s.isFloat ? scalar::floatToInt(s.f, bits, isUnsigned)
                        : scalar::wrapInt(s.i, bits, isUnsigned);
  return IntegerAttr::get(it, APInt(bits, static_cast<uint64_t>(v),
                                    /*isSigned=*/bits > 1 && !isUnsigned,
                                    /*implicitTrunc=*/true));
}

Attribute writeElements(RankedTensorType type, const Elements &elements) {
  if (!type.hasStaticShape())
    return {};
  Type elementType = type.getElementType();
  if (elements.splat)
    return DenseElementsAttr::get(
        type, toElementAttr(elementType, elements.values[0]));
  // APFloat/APInt values: an Attribute per element would be uniqued in the
  // context for good (weights have millions).
  if (isa<FloatType>(elementType)) {
    SmallVector<APFloat> floats;
    floats.reserve(elements.values.size());
    for (const Scalar &s : elements.values)
      floats.push_back(
          cast<FloatAttr>(toElementAttr(elementType, s)).getValue());
    return DenseElementsAttr::get(type, floats);
  }
  SmallVector<APInt> ints;
  ints.reserve(elements.values.size());
  for (const Scalar &s : elements.values)
    ints.push_back(cast<IntegerAttr>(toElementAttr(elementType, s)).getValue());
  return DenseElementsAttr::get(type, ints);
}

using PointwiseFn = function_ref<std::optional<Scalar>(ArrayRef<Scalar>)>;

/// Evaluates `fn` elementwise over constant operands. Every operand must be a
/// splat or have a static shape that broadcasts (numpy rules) to the static
/// result shape.
Attribute foldPointwise(ArrayRef<Attribute> operands, Type resultType,
                        PointwiseFn fn) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!type || !type.hasStaticShape() ||
      llvm::any_of(operands, [](Attribute a) { return !a; }))
    return {}; // (before reading any: a weight's may come from its file)
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = type.getRank();
  SmallVector<Elements> inputs;
  // Per operand, the element stride of each result dim (0 where broadcast);
  // empty when the operand has the result shape (or is a splat).
  SmallVector<SmallVector<int64_t>> strides;
  bool allSplat = true;
  for (Attribute attr : operands) {
    auto elements = readElements(attr);
    if (!elements)
      return {};
    SmallVector<int64_t> stride;
    ArrayRef<int64_t> in =
        cast<ShapedType>(cast<TypedAttr>(attr).getType()).getShape();
    if (!elements->splat && in != shape) {
      int64_t offset = rank - static_cast<int64_t>(in.size());
      if (offset < 0)
        return {};
      stride.assign(rank, 0);
      int64_t step = 1;
      for (int64_t d = static_cast<int64_t>(in.size()) - 1; d >= 0; --d) {
        if (in[d] != 1 && in[d] != shape[offset + d])
          return {};
        stride[offset + d] = in[d] == 1 ? 0 : step;
        step *= in[d];
      }
    }
    allSplat &= elements->splat;
    inputs.push_back(std::move(*elements));
    strides.push_back(std::move(stride));
  }
  if (!allSplat && type.getNumElements() > kMaxFoldElements)
    return {};
  Elements out;
  out.splat = allSplat;
  int64_t count = allSplat ? 1 : type.getNumElements();
  SmallVector<Scalar> args(inputs.size());
  SmallVector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < count; ++n) {
    for (auto [k, in] : llvm::enumerate(inputs)) {
      int64_t at = n;
      if (in.splat) {
        at = 0;
      } else if (!strides[k].empty()) {
        at = 0;
        for (int64_t d = 0; d < rank; ++d)
          at += index[d] * strides[k][d];
      }
      args[k] = in.values[at];
    }
    auto r = fn(args);
    if (!r)
      return {};
    out.values.push_back(*r);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return writeElements(type, out);
}

/// Folds a float-only unary op.
Attribute foldFloatUnary(Attribute operand, Type resultType,
                         function_ref<double(double)> fn) {
  return foldPointwise(operand, resultType,
                       [&](ArrayRef<Scalar> a) -> std::optional<Scalar> {
                         return Scalar::ofFloat(fn(a[0].f));
                       });
}

/// Folds a unary op defined on floats and integers.
Attribute foldNumericUnary(Attribute operand, Type resultType,
                           function_ref<double(double)> ffn,
                           function_ref<int64_t(int64_t)> ifn) {
  return foldPointwise(operand, resultType,
                       [&](ArrayRef<Scalar> a) -> std::optional<Scalar> {
                         if (a[0].isFloat)
                           return Scalar::ofFloat(ffn(a[0].f));
                         return Scalar::ofInt(ifn(a[0].i));
                       });
}

/// Whether `attr` is a splat constant equal to `value` (exactly, including
/// the sign of zero).
bool isSplatOf(Attribute attr, double value) {
  if (isa_and_nonnull<DenseResourceElementsAttr>(attr))
    return false; // stored element by element (not read to find out)
  auto elements = readElements(attr);
  if (!elements || !elements->splat)
    return false;
  const Scalar &s = elements->values[0];
  if (s.isFloat)
    return s.f == value && std::signbit(s.f) == std::signbit(value);
  return static_cast<double>(s.i) == value;
}

unsigned intWidth(Type type) {
  return cast<RankedTensorType>(type).getElementType().getIntOrFloatBitWidth();
}

/// Whether `type`'s element type is an unsigned integer.
bool isUnsignedElement(Type type) {
  return getElementTypeOrSelf(type).isUnsignedInteger();
}
} // namespace

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return foldPointwise(
      adaptor.getInput(), getType(),
      [](ArrayRef<Scalar> a) -> std::optional<Scalar> { return a[0]; });
}

/// Whether every value of `from` is exactly representable in `to`.
static bool isLosslessCast(Type from, Type to) {
  if (from == to || from.isInteger(1))
    return true;
  auto fromInt = dyn_cast<IntegerType>(from);
  if (auto toInt = dyn_cast<IntegerType>(to)) {
    if (!fromInt)
      return false;
    if (fromInt.isUnsigned() == toInt.isUnsigned())
      return toInt.getWidth() >= fromInt.getWidth();
    // Unsigned fits a wider signed type; signed never fits an unsigned one.
    return fromInt.isUnsigned() && toInt.getWidth() > fromInt.getWidth();
  }
  auto toFloat = cast<FloatType>(to);
  if (fromInt)
    return fromInt.getWidth() < toFloat.getFPMantissaWidth();
  auto fromFloat = cast<FloatType>(from);
  if (fromFloat.isBF16())
    return !toFloat.isF16();
  if (fromFloat.isF16())
    return !toFloat.isBF16();
  return toFloat.getWidth() >= fromFloat.getWidth();
}

namespace {
/// cast(cast(x : A -> B) -> C) => cast(x : A -> C) when A -> B is exact.
struct FoldLosslessCastChain : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<CastOp>();
    if (!inner)
      return failure();
    Type a = getElementTypeOrSelf(inner.getInput().getType());
    Type b = getElementTypeOrSelf(inner.getType());
    Type c = getElementTypeOrSelf(op.getType());
    if (!isLosslessCast(a, b))
      return failure();
    // Integer -> float -> integer saturates where integer -> integer wraps
    // (i8 -1 -> f32 -> ui8 is 0, i8 -1 -> ui8 255): only where A -> C is
    // exact too.
    if (isa<IntegerType>(a) && isa<FloatType>(b) && isa<IntegerType>(c) &&
        !isLosslessCast(a, c))
      return failure();
    // The new cast must still verify: its input and result shapes must agree.
    auto from = cast<RankedTensorType>(inner.getInput().getType());
    auto to = cast<RankedTensorType>(op.getType());
    if (!llvm::all_of(llvm::zip(from.getShape(), to.getShape()), [](auto dims) {
          return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
        }))
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};
} // namespace

void CastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FoldLosslessCastChain>(context);
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  unsigned bits = getElementTypeOrSelf(getType()).getIntOrFloatBitWidth();
  bool isUnsigned = isUnsignedElement(getType());
  return foldNumericUnary(
      adaptor.getInput(), getType(), [](double x) { return -x; },
      [&](int64_t x) {
        return scalar::wrapInt(0 - static_cast<uint64_t>(x), bits, isUnsigned);
      });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<AbsOp>())
    return inner.getResult();
  unsigned bits = getElementTypeOrSelf(getType()).getIntOrFloatBitWidth();
  bool isUnsigned = isUnsignedElement(getType());
  return foldNumericUnary(
      adaptor.getInput(), getType(), [](double x) { return std::fabs(x); },
      [&](int64_t x) {
        return scalar::wrapInt(scalar::absInt(x, isUnsigned), bits, isUnsigned);
      });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<ReluOp>())
    return inner.getResult();
  bool isUnsigned = isUnsignedElement(getType());
  return foldNumericUnary(
      adaptor.getInput(), getType(), scalar::relu,
      [&](int64_t x) { return scalar::reluInt(x, isUnsigned); });
}

OpFoldResult SignOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedElement(getType());
  return foldNumericUnary(
      adaptor.getInput(), getType(), [](double x) { return scalar::sign(x); },
      [&](int64_t x) { return scalar::signInt(x, isUnsigned); });
}

OpFoldResult LogicalNotOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<LogicalNotOp>())
    return inner.getInput();
  return foldPointwise(adaptor.getInput(), getType(),
                       [](ArrayRef<Scalar> a) -> std::optional<Scalar> {
                         return Scalar::ofInt(a[0].i == 0);
                       });
}

OpFoldResult ClampOp::fold(FoldAdaptor adaptor) {
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  unsigned bits = getElementTypeOrSelf(getType()).getIntOrFloatBitWidth();
  bool isUnsigned = isUnsignedElement(getType());
  return foldNumericUnary(
      adaptor.getInput(), getType(),
      [&](double x) { return scalar::clamp(x, lo, hi); },
      [&](int64_t x) {
        return scalar::clampInt(x, scalar::attrToInt(lo, bits, isUnsigned),
                                scalar::attrToInt(hi, bits, isUnsigned),
                                isUnsigned);
      });
}

#define TGC_FLOAT_UNARY_FOLD(OP, EXPR)                                         \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    return foldFloatUnary(adaptor.getInput(), getType(),                       \
                          [&](double x) -> double { return EXPR; });           \
  }
TGC_FLOAT_UNARY_FOLD(ExpOp, std::exp(x))
TGC_FLOAT_UNARY_FOLD(LogOp, std::log(x))
TGC_FLOAT_UNARY_FOLD(SqrtOp, std::sqrt(x))
TGC_FLOAT_UNARY_FOLD(RsqrtOp, 1.0 / std::sqrt(x))
TGC_FLOAT_UNARY_FOLD(ReciprocalOp, 1.0 / x)
TGC_FLOAT_UNARY_FOLD(TanhOp, std::tanh(x))
TGC_FLOAT_UNARY_FOLD(SigmoidOp, scalar::sigmoid(x))
TGC_FLOAT_UNARY_FOLD(ErfOp, std::erf(x))
TGC_FLOAT_UNARY_FOLD(SinOp, std::sin(x))
TGC_FLOAT_UNARY_FOLD(CosOp, std::cos(x))
TGC_FLOAT_UNARY_FOLD(FloorOp, std::floor(x))
TGC_FLOAT_UNARY_FOLD(CeilOp, std::ceil(x))
TGC_FLOAT_UNARY_FOLD(RoundOp, scalar::roundHalfEven(x))
TGC_FLOAT_UNARY_FOLD(LeakyReluOp,
                     scalar::leakyRelu(x, getAlpha().convertToDouble()))
TGC_FLOAT_UNARY_FOLD(EluOp, scalar::elu(x, getAlpha().convertToDouble()))
TGC_FLOAT_UNARY_FOLD(GeluOp, scalar::gelu(x, getApproximate() ==
                                                 GeluApproximation::tanh))
#undef TGC_FLOAT_UNARY_FOLD

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

/// Whether broadcasting `value` against `other` provably leaves `value`'s
/// shape unchanged: `other` has no more dims, and each of its dims is 1 or a
/// static size equal to `value`'s static dim.
static bool broadcastKeepsShape(Type value, Type other) {
  auto v = cast<RankedTensorType>(value);
  auto o = cast<RankedTensorType>(other);
  if (o.getRank() > v.getRank())
    return false;
  int64_t offset = v.getRank() - o.getRank();
  for (int64_t i = 0; i < o.getRank(); ++i) {
    int64_t od = o.getDimSize(i), vd = v.getDimSize(offset + i);
    if (od != 1 && (ShapedType::isDynamic(od) || od != vd))
      return false;
  }
  return true;
}

/// `x op c` folds to `x` when c is a splat of `identity` and broadcasting does
/// not change x's shape.
static OpFoldResult foldRightIdentity(Value lhs, Value rhs, Attribute rhsAttr,
                                      Type resultType, double identity) {
  if (lhs.getType() == resultType &&
      broadcastKeepsShape(lhs.getType(), rhs.getType()) &&
      isSplatOf(rhsAttr, identity))
    return lhs;
  return {};
}

namespace {
using FloatBinary = function_ref<double(double, double)>;
using IntBinary = function_ref<std::optional<int64_t>(int64_t, int64_t)>;
} // namespace

static Attribute foldBinary(ArrayRef<Attribute> operands, Type resultType,
                            FloatBinary ffn, IntBinary ifn) {
  return foldPointwise(operands, resultType,
                       [&](ArrayRef<Scalar> a) -> std::optional<Scalar> {
                         if (a[0].isFloat)
                           return Scalar::ofFloat(ffn(a[0].f, a[1].f));
                         auto r = ifn(a[0].i, a[1].i);
                         if (!r)
                           return std::nullopt;
                         return Scalar::ofInt(*r);
                       });
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(getType()));
  // x + (-0.0) == x exactly; x + 0.0 is not (for x = -0.0).
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), isFloat ? -0.0 : 0.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        return static_cast<int64_t>(static_cast<uint64_t>(a) + b);
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), 0.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return a - b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        return static_cast<int64_t>(static_cast<uint64_t>(a) - b);
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), 1.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return a * b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        return static_cast<int64_t>(static_cast<uint64_t>(a) * b);
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), 1.0))
    return r;
  unsigned bits = intWidth(getType());
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return a / b; },
      [&](int64_t a, int64_t b) {
        return scalar::divInt(a, b, bits, isUnsigned);
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), 1.0))
    return r;
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](double a, double b) { return std::pow(a, b); },
      [&](int64_t a, int64_t b) -> std::optional<int64_t> {
        return scalar::powInt(a, b, isUnsigned);
      });
}

OpFoldResult ShiftLeftOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), 0.0))
    return r;
  unsigned bits = intWidth(getType());
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(adaptor.getOperands(), getType(), nullptr,
                    [&](int64_t a, int64_t b) -> std::optional<int64_t> {
                      return scalar::shiftLeftInt(a, b, bits, isUnsigned);
                    });
}

OpFoldResult ShiftRightOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), 0.0))
    return r;
  unsigned bits = intWidth(getType());
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(adaptor.getOperands(), getType(), nullptr,
                    [&](int64_t a, int64_t b) -> std::optional<int64_t> {
                      return scalar::shiftRightInt(a, b, bits, isUnsigned);
                    });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(adaptor.getOperands(), getType(), scalar::maxNaN,
                    [&](int64_t a, int64_t b) -> std::optional<int64_t> {
                      return scalar::maxInt(a, b, isUnsigned);
                    });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  bool isUnsigned = isUnsignedElement(getType());
  return foldBinary(adaptor.getOperands(), getType(), scalar::minNaN,
                    [&](int64_t a, int64_t b) -> std::optional<int64_t> {
                      return scalar::minInt(a, b, isUnsigned);
                    });
}

OpFoldResult LogicalAndOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), 1.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(), nullptr,
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return a && b; });
}

OpFoldResult LogicalOrOp::fold(FoldAdaptor adaptor) {
  if (auto r = foldRightIdentity(getLhs(), getRhs(), adaptor.getRhs(),
                                 getType(), 0.0))
    return r;
  return foldBinary(
      adaptor.getOperands(), getType(), nullptr,
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return a || b; });
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  ir::ComparePredicate predicate = getPredicate();
  auto compare = [predicate](auto a, auto b) -> bool {
    return evaluateCompare(predicate, a, b);
  };
  return foldPointwise(adaptor.getOperands(), getType(),
                       [&](ArrayRef<Scalar> a) -> std::optional<Scalar> {
                         if (a[0].isFloat)
                           return Scalar::ofInt(compare(a[0].f, a[1].f));
                         if (a[0].isUnsigned)
                           return Scalar::ofInt(
                               compare(static_cast<uint64_t>(a[0].i),
                                       static_cast<uint64_t>(a[1].i)));
                         return Scalar::ofInt(compare(a[0].i, a[1].i));
                       });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  Type type = getType();
  // A chosen operand replaces the select only when the other operands cannot
  // broadcast it to a larger shape.
  auto replaces = [&](Value chosen) {
    return chosen.getType() == type &&
           llvm::all_of(getOperands(), [&](Value v) {
             return broadcastKeepsShape(chosen.getType(), v.getType());
           });
  };
  if (getTrueValue() == getFalseValue() && replaces(getTrueValue()))
    return getTrueValue();
  if (auto cond =
          isa_and_nonnull<DenseResourceElementsAttr>(adaptor.getCondition())
              ? std::nullopt
              : readElements(adaptor.getCondition());
      cond && cond->splat) {
    Value chosen = cond->values[0].i ? getTrueValue() : getFalseValue();
    if (replaces(chosen))
      return chosen;
  }
  return foldPointwise(adaptor.getOperands(), type,
                       [](ArrayRef<Scalar> a) -> std::optional<Scalar> {
                         return a[0].i ? a[1] : a[2];
                       });
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto type = cast<RankedTensorType>(getType());
  if (type.hasStaticShape())
    if (ElementsAttr reshaped = reshapeConstant(adaptor.getInput(), type))
      return reshaped;
  return {};
}

namespace {
/// reshape(reshape(x)) => reshape(x).
struct FoldReshapeChain : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner ||
        reshapeCountMismatch(cast<RankedTensorType>(inner.getInput().getType()),
                             cast<RankedTensorType>(op.getType())))
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};

/// squeeze/unsqueeze => reshape when the result has at most one dynamic dim
/// (so reshape can infer it): one canonical spelling for pure shape changes.
template <typename OpT> struct ShapeOpToReshape : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    if (type.getNumDynamicDims() > 1)
      return failure();
    // A dynamic dim in the result must be the input's only dynamic dim, so
    // that reshape infers the same size.
    if (type.getNumDynamicDims() == 1 && inType.getNumDynamicDims() != 1)
      return failure();
    if (type.getNumDynamicDims() == 1) {
      SmallVector<int64_t> staticDims;
      for (int64_t d : type.getShape())
        if (!ShapedType::isDynamic(d))
          staticDims.push_back(d);
      if (staticElementCount(staticDims).value_or(0) == 0)
        return failure();
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, op.getInput());
    return success();
  }
};

/// A transpose that moves the innermost dim, used only as matmul operands,
/// whose permutation with the last two entries swapped keeps the innermost
/// dim innermost: matmul(x, transpose(y, p)) =>
/// matmul{transpose_b}(x, transpose(y, p')) (likewise for the lhs), with
/// p' = p with its last two entries swapped. p' moves whole rows (or is the
/// identity: no transpose at all), and the matmul reads the operand
/// transposed for free. Attention's keys: [S, H, D] -> [H, D, S] becomes
/// [S, H, D] -> [H, S, D] and a matmul with transpose_b.
struct TransposeIntoMatmul : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = op.getPermutation();
    const int64_t rank = static_cast<int64_t>(perm.size());
    if (rank < 2 || perm.back() == rank - 1 || op->use_empty() ||
        matchPattern(op.getInput(), m_Constant()))
      return failure();
    SmallVector<int64_t> swapped(perm);
    std::swap(swapped[rank - 2], swapped[rank - 1]);
    if (swapped.back() != rank - 1)
      return failure();
    SmallVector<MatmulOp> users;
    for (Operation *user : op->getUsers()) {
      auto matmul = dyn_cast<MatmulOp>(user);
      if (!matmul)
        return failure();
      if (!llvm::is_contained(users, matmul))
        users.push_back(matmul);
    }
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[rank - 2], shape[rank - 1]);
    bool identity = llvm::all_of(llvm::enumerate(swapped), [](auto it) {
      return static_cast<int64_t>(it.index()) == it.value();
    });
    rewriter.setInsertionPoint(op);
    Value source =
        identity ? op.getInput()
                 : TransposeOp::create(
                       rewriter, op.getLoc(),
                       RankedTensorType::get(shape, type.getElementType()),
                       op.getInput(), rewriter.getDenseI64ArrayAttr(swapped))
                       .getResult();
    if (source.getType() != RankedTensorType::get(shape, type.getElementType()))
      return failure();
    Value result = op.getResult();
    for (MatmulOp matmul : users) {
      bool lhs = matmul.getLhs() == result, rhs = matmul.getRhs() == result;
      rewriter.setInsertionPoint(matmul);
      auto replacement = MatmulOp::create(
          rewriter, matmul.getLoc(), matmul.getType(),
          lhs ? source : matmul.getLhs(), rhs ? source : matmul.getRhs(),
          lhs != matmul.getTransposeA(), rhs != matmul.getTransposeB());
      rewriter.replaceOp(matmul, replacement.getResult());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// transpose(transpose(x, p1), p2) => transpose(x, p1 o p2).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    ArrayRef<int64_t> p1 = inner.getPermutation(), p2 = op.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t p : p2)
      composed.push_back(p1[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             composed);
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<FoldReshapeChain>(context);
}

namespace {
enum class IntegerReduction { Sum, Prod, Max, Min };

/// A reduction of a small integer constant over `axes`, wrapping as the op
/// does: what shape arithmetic computes (the element count of a shape as
/// reduce_prod(shape_of(x)), ONNX's Size and Flatten exports), so that it
/// folds once shapes are known.
OpFoldResult foldIntegerReduction(Attribute input, Type resultType,
                                  ArrayRef<int64_t> axes,
                                  IntegerReduction kind) {
  constexpr int64_t kMaxFoldedElements = 4096;
  auto values = dyn_cast_or_null<DenseIntElementsAttr>(input);
  auto result = dyn_cast<RankedTensorType>(resultType);
  if (!values || !result || !result.hasStaticShape())
    return {};
  auto type = cast<ShapedType>(values.getType());
  auto element = dyn_cast<IntegerType>(type.getElementType());
  if (!element || element.getWidth() < 8 || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements ||
      result.getElementType() != element)
    return {};
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return {};
    reduced[axis] = true;
  }
  // The kept dims, outermost first: the result's row-major order whether
  // or not `keepdims` leaves the reduced ones as 1.
  SmallVector<int64_t> keptShape;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d])
      keptShape.push_back(type.getDimSize(d));
  int64_t outputs = 1;
  for (int64_t d : keptShape)
    outputs *= d;
  if (outputs != result.getNumElements())
    return {};
  unsigned width = element.getWidth();
  bool isUnsigned = element.isUnsigned();
  APInt init(width, 0);
  switch (kind) {
  case IntegerReduction::Sum:
    break;
  case IntegerReduction::Prod:
    init = APInt(width, 1);
    break;
  case IntegerReduction::Max:
    init = isUnsigned ? APInt::getMinValue(width)
                      : APInt::getSignedMinValue(width);
    break;
  case IntegerReduction::Min:
    init = isUnsigned ? APInt::getMaxValue(width)
                      : APInt::getSignedMaxValue(width);
    break;
  }
  SmallVector<APInt> acc(outputs, init);
  SmallVector<int64_t> index(rank, 0);
  for (const APInt &v : values.getValues<APInt>()) {
    int64_t out = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        out = out * type.getDimSize(d) + index[d];
    APInt &a = acc[out];
    switch (kind) {
    case IntegerReduction::Sum:
      a += v;
      break;
    case IntegerReduction::Prod:
      a *= v;
      break;
    case IntegerReduction::Max:
      if (isUnsigned ? v.ugt(a) : v.sgt(a))
        a = v;
      break;
    case IntegerReduction::Min:
      if (isUnsigned ? v.ult(a) : v.slt(a))
        a = v;
      break;
    }
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == type.getDimSize(d); --d)
      index[d] = 0;
  }
  return DenseElementsAttr::get(result, acc);
}
} // namespace

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldIntegerReduction(adaptor.getInput(), getType(), getAxes(),
                              IntegerReduction::Sum);
}
OpFoldResult ReduceProdOp::fold(FoldAdaptor adaptor) {
  return foldIntegerReduction(adaptor.getInput(), getType(), getAxes(),
                              IntegerReduction::Prod);
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldIntegerReduction(adaptor.getInput(), getType(), getAxes(),
                              IntegerReduction::Max);
}
OpFoldResult ReduceMinOp::fold(FoldAdaptor adaptor) {
  return foldIntegerReduction(adaptor.getInput(), getType(), getAxes(),
                              IntegerReduction::Min);
}
OpFoldResult ReduceMeanOp::fold(FoldAdaptor) { return {}; }

namespace {
/// A reduction over dims of size 1 takes each element alone, which every
/// reduction gives back exactly (a float's mean divides by 1): squeeze
/// those dims (keepdims: the input itself). GatherND's lowering sums its
/// one-coordinate flat index over such a dim.
template <typename Reduce> struct ReduceOfUnitDims : OpRewritePattern<Reduce> {
  using OpRewritePattern<Reduce>::OpRewritePattern;
  LogicalResult matchAndRewrite(Reduce op,
                                PatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    ArrayRef<int64_t> axes = op.getAxes();
    if (axes.empty() || llvm::any_of(axes, [&](int64_t a) {
          return a < 0 || a >= in.getRank() || in.getDimSize(a) != 1;
        }))
      return failure();
    if (op.getKeepdims()) {
      if (op.getInput().getType() != op.getType())
        return failure();
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    rewriter.replaceOpWithNewOp<SqueezeOp>(op, op.getType(), op.getInput(),
                                           rewriter.getDenseI64ArrayAttr(axes));
    return success();
  }
};
} // namespace

void ReduceSumOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ReduceOfUnitDims<ReduceSumOp>>(context);
}
void ReduceMeanOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<ReduceOfUnitDims<ReduceMeanOp>>(context);
}
void ReduceMaxOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ReduceOfUnitDims<ReduceMaxOp>>(context);
}
void ReduceMinOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ReduceOfUnitDims<ReduceMinOp>>(context);
}
void ReduceProdOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<ReduceOfUnitDims<ReduceProdOp>>(context);
}

OpFoldResult ShapeOfOp::fold(FoldAdaptor) {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (!input.hasStaticShape())
    return {};
  return DenseIntElementsAttr::get(cast<RankedTensorType>(getType()),
                                   input.getShape());
}

namespace {
/// dynamic_reshape(x, constant) => reshape(x) when the declared result type
/// agrees with the constant and has at most one dynamic dim (what tgc.reshape
/// can express). tgc-infer-shapes refines the declared type from a constant
/// shape first.
struct DynamicReshapeOfConstant : OpRewritePattern<DynamicReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicReshapeOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr values;
    if (!matchPattern(op.getShape(), m_Constant(&values)))
      return failure();
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto declared = cast<RankedTensorType>(op.getType());
    if (llvm::count_if(declared.getShape(), ShapedType::isDynamic) > 1)
      return failure();
    for (auto [i, value] : llvm::enumerate(values.getValues<int64_t>())) {
      int64_t d = declared.getDimSize(i), v = value;
      if (v == 0 && op.getCopyZeros()) {
        if (static_cast<int64_t>(i) >= in.getRank())
          return failure();
        v = in.getDimSize(i);
        if (ShapedType::isDynamic(v))
          v = -1;
      }
      bool agrees = v == -1 ? true : (!ShapedType::isDynamic(d) && d == v);
      if (!agrees)
        return failure(); // Left to run time (and its error).
    }
    if (reshapeCountMismatch(in, declared))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, declared, op.getInput());
    return success();
  }
};
} // namespace

namespace {
/// dynamic_broadcast_to(x, constant) => broadcast_to(x) (x itself where the
/// broadcast keeps its shape), cast to the declared type where that is less
/// static. Left to run time (and its error) where the shapes do not
/// broadcast or a result dim would be dynamic without an input dim under it.
struct DynamicBroadcastOfConstant : OpRewritePattern<DynamicBroadcastToOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicBroadcastToOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr values;
    if (!matchPattern(op.getShape(), m_Constant(&values)))
      return failure();
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto declared = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> given;
    for (int64_t v : values.getValues<int64_t>()) {
      if (v < 0)
        return failure();
      given.push_back(v);
    }
    SmallVector<int64_t> target;
    if (!broadcastShapes(in.getShape(), given, target))
      return failure();
    // A dynamic input dim against a given 1 stays dynamic: broadcast_to
    // takes it from the input dim it lines up with.
    auto type = RankedTensorType::get(target, in.getElementType());
    if (!tensor::CastOp::areCastCompatible(type, declared))
      return failure();
    Value result = op.getInput();
    if (type != in)
      result = BroadcastToOp::create(rewriter, op.getLoc(), type, result);
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), result, declared));
    return success();
  }
};
} // namespace

void DynamicBroadcastToOp::getCanonicalizationPatterns(
    RewritePatternSet &results, MLIRContext *context) {
  results.add<DynamicBroadcastOfConstant>(context);
}

void DynamicReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  results.add<DynamicReshapeOfConstant>(context);
}

namespace {
/// dynamic_slice(x, constant starts, ends, steps) => slice(x): the same
/// numpy clamping on the sliced axes, the other dims whole; cast to the
/// declared type where that is less static. Left to run time (and its
/// error) where a bound does not hold one value per axis or a step is 0.
struct DynamicSliceOfConstant : OpRewritePattern<DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicSliceOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr starts, ends, steps;
    if (!matchPattern(op.getStarts(), m_Constant(&starts)) ||
        !matchPattern(op.getEnds(), m_Constant(&ends)) ||
        !matchPattern(op.getSteps(), m_Constant(&steps)))
      return failure();
    ArrayRef<int64_t> axes = op.getAxes();
    auto count = static_cast<int64_t>(axes.size());
    if (starts.getNumElements() != count || ends.getNumElements() != count ||
        steps.getNumElements() != count)
      return failure();
    auto in = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = in.getRank();
    SmallVector<int64_t> first(rank, 0),
        last(rank, std::numeric_limits<int64_t>::max()), step(rank, 1);
    for (auto [i, axis] : llvm::enumerate(axes)) {
      first[axis] = starts.getValues<int64_t>()[i];
      last[axis] = ends.getValues<int64_t>()[i];
      step[axis] = steps.getValues<int64_t>()[i];
      if (step[axis] == 0)
        return failure();
    }
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = in.getDimSize(d);
      shape.push_back(ShapedType::isDynamic(size)
                          ? ShapedType::kDynamic
                          : sliceLength(size, first[d], last[d], step[d]));
    }
    auto type = RankedTensorType::get(shape, in.getElementType());
    auto declared = cast<RankedTensorType>(op.getType());
    if (!tensor::CastOp::areCastCompatible(type, declared))
      return failure();
    Value result = SliceOp::create(rewriter, op.getLoc(), type, op.getInput(),
                                   rewriter.getDenseI64ArrayAttr(first),
                                   rewriter.getDenseI64ArrayAttr(last),
                                   rewriter.getDenseI64ArrayAttr(step));
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), result, declared));
    return success();
  }
};
} // namespace

void DynamicSliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  results.add<DynamicSliceOfConstant>(context);
}

namespace {
/// The most elements of a constant whose nonzero coordinates are folded.
constexpr int64_t kMaxFoldedNonZeroElements = 1 << 16;

/// nonzero(constant) => the constant of its coordinates, cast to the declared
/// (dynamic) type: once the shapes are known, ONNX Range's positions (the
/// coordinates of n trues) are a constant, not a split and a host op.
struct NonZeroOfConstant : OpRewritePattern<NonZeroOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NonZeroOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr input;
    if (!matchPattern(op.getInput(), m_Constant(&input)))
      return failure();
    auto type = cast<RankedTensorType>(input.getType());
    if (!type.hasStaticShape() ||
        type.getNumElements() > kMaxFoldedNonZeroElements)
      return failure();
    Type element = type.getElementType();
    SmallVector<int64_t> flat;
    int64_t i = 0;
    if (isa<FloatType>(element)) {
      for (const APFloat &v : input.getValues<APFloat>()) {
        if (!v.isZero()) // NaN is nonzero
          flat.push_back(i);
        ++i;
      }
    } else if (element.isIntOrIndex()) {
      for (const APInt &v : input.getValues<APInt>()) {
        if (!v.isZero())
          flat.push_back(i);
        ++i;
      }
    } else {
      return failure();
    }
    int64_t rank = type.getRank();
    auto count = static_cast<int64_t>(flat.size());
    auto resultType =
        RankedTensorType::get({rank, count}, rewriter.getIntegerType(64));
    if (!tensor::CastOp::areCastCompatible(resultType, op.getType()))
      return failure();
    // Row d holds dim d's coordinate of each nonzero element, in order.
    SmallVector<int64_t> coordinates(rank * count);
    for (int64_t j = 0; j < count; ++j) {
      int64_t rest = flat[j];
      for (int64_t d = rank - 1; d >= 0; --d) {
        coordinates[d * count + j] = rest % type.getDimSize(d);
        rest /= type.getDimSize(d);
      }
    }
    Value result = ConstantOp::create(
        rewriter, op.getLoc(), resultType,
        DenseElementsAttr::get(resultType, ArrayRef<int64_t>(coordinates)));
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), result, op.getType()));
    return success();
  }
};
} // namespace

void NonZeroOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<NonZeroOfConstant>(context);
}

namespace {
/// How many leading elements of `axis` `slice` keeps when it keeps exactly
/// a prefix there (start 0, step 1) and every element of the other dims of
/// its input `shape`; none otherwise.
std::optional<int64_t> prefixLength(SliceOp slice, int64_t axis,
                                    ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> starts = slice.getStarts(), ends = slice.getEnds();
  std::optional<ArrayRef<int64_t>> steps = slice.getSteps();
  std::optional<int64_t> prefix;
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (starts[d] != 0 || (steps && (*steps)[d] != 1))
      return std::nullopt;
    if (ShapedType::isDynamic(size)) {
      // Only "to the end" keeps every element of a dynamic dim.
      if (ends[d] != std::numeric_limits<int64_t>::max() ||
          static_cast<int64_t>(d) == axis)
        return std::nullopt;
      continue;
    }
    int64_t kept = sliceLength(size, 0, ends[d], 1);
    if (static_cast<int64_t>(d) == axis)
      prefix = kept;
    else if (kept != size)
      return std::nullopt;
  }
  return prefix;
}

/// A sorted topk whose results are read only by slices keeping the same
/// first c < k elements along its axis (and all of the other dims) =>
/// topk with k = c: the best c in order are the first c of the best k. This
/// is ONNX TopK with a K computed at run time (a sort, then the first K)
/// once the specialization knows K: torchvision's detection heads take
/// min(1000, n) of n scores.
struct TopKOfPrefix : OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopKOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getSorted())
      return failure(); // an unsorted topk's first c need not be the best c
    auto type = cast<RankedTensorType>(op.getValues().getType());
    auto axis = static_cast<int64_t>(op.getAxis());
    int64_t k = type.getDimSize(axis);
    if (ShapedType::isDynamic(k))
      return failure();
    std::optional<int64_t> prefix;
    SmallVector<SliceOp> slices;
    for (Value result : op.getResults())
      for (Operation *user : result.getUsers()) {
        auto slice = dyn_cast<SliceOp>(user);
        std::optional<int64_t> kept =
            slice ? prefixLength(slice, axis, type.getShape()) : std::nullopt;
        if (!kept || (prefix && *prefix != *kept))
          return failure();
        prefix = kept;
        slices.push_back(slice);
      }
    if (!prefix || *prefix >= k)
      return failure();
    SmallVector<int64_t> shape(type.getShape());
    shape[axis] = *prefix;
    for (SliceOp slice : slices)
      if (!tensor::CastOp::areCastCompatible(
              RankedTensorType::get(shape, getElementTypeOrSelf(slice)),
              slice.getType()))
        return failure();
    auto smaller = TopKOp::create(rewriter, op.getLoc(), op.getInput(), *prefix,
                                  static_cast<int64_t>(op.getAxis()),
                                  op.getLargest(), /*sorted=*/true);
    for (SliceOp slice : slices) {
      Value v = slice.getInput() == op.getValues() ? smaller.getValues()
                                                   : smaller.getIndices();
      rewriter.replaceOp(slice,
                         castTo(rewriter, slice.getLoc(), v, slice.getType()));
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void TopKOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<TopKOfPrefix>(context);
}

/// Constant folding of transposes copies raw element bytes, so it covers
/// weights (exported models transpose them at run time) up to this size.
static constexpr int64_t kMaxFoldedTransposeBytes = int64_t(1) << 28;

/// `dense` (non-splat, static shape) transposed by `perm` into `type`, or
/// null for element types without a byte-addressable dense storage (i1).
static Attribute transposeElements(ElementsAttr value, ArrayRef<int64_t> perm,
                                   RankedTensorType type) {
  Type elementType = value.getElementType();
  if (!elementType.isIntOrFloat() ||
      elementType.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  int64_t width = elementType.getIntOrFloatBitWidth() / 8;
  int64_t count = type.getNumElements();
  if (count * width > kMaxFoldedTransposeBytes)
    return {};
  // The bytes of a dense constant or a dense_resource (a file-backed
  // weight's copy, let go once transposed).
  std::optional<ConstantBytes> raw = readConstantBytes(value);
  if (!raw || static_cast<int64_t>(raw->size()) != count * width)
    return {};
  std::vector<char> out = transposeBytes(
      raw->bytes, width, cast<ShapedType>(value.getType()).getShape(), perm);
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto it) {
    return static_cast<int64_t>(it.index()) == it.value();
  });
  if (identity && getInput().getType() == getType())
    return getInput();
  auto type = cast<RankedTensorType>(getType());
  if (!type.hasStaticShape())
    return {};
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (dense && dense.isSplat())
    return dense.resizeSplat(type);
  if (!storesElements(adaptor.getInput()))
    return {};
  if (getLazy())
    return {}; // its consumer reads the constant as it is
  return transposeElements(cast<ElementsAttr>(adaptor.getInput()), perm, type);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes, TransposeIntoMatmul>(context);
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat() && cast<RankedTensorType>(getType()).hasStaticShape())
      return dense.resizeSplat(cast<ShapedType>(getType()));
  return {};
}

namespace {
/// Constant folding of data movement creates at most this many elements
/// (shape arithmetic and small tables; weights are folded by the importer).
constexpr int64_t kMaxFoldedMovement = 1 << 16;

/// The static shape of `type` when small enough to fold into.
std::optional<int64_t> foldableCount(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return std::nullopt;
  auto count = staticElementCount(ranked.getShape());
  if (!count || *count > kMaxFoldedMovement)
    return std::nullopt;
  return count;
}

} // namespace

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  auto count = foldableCount(getType());
  if (!count)
    return {};
  SmallVector<DenseElementsAttr> parts;
  for (Attribute a : adaptor.getInputs()) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!dense)
      return {};
    parts.push_back(dense);
  }
  auto type = cast<RankedTensorType>(getType());
  int64_t axis = getAxis();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  SmallVector<SmallVector<Attribute>> values;
  for (DenseElementsAttr part : parts)
    values.emplace_back(part.getValues<Attribute>());
  SmallVector<Attribute> out;
  out.reserve(*count);
  for (int64_t o = 0; o < outer; ++o)
    for (auto [k, part] : llvm::enumerate(parts)) {
      int64_t chunk = part.getType().getDimSize(axis) * inner;
      for (int64_t j = 0; j < chunk; ++j)
        out.push_back(values[k][o * chunk + j]);
    }
  if (static_cast<int64_t>(out.size()) != *count)
    return {};
  return DenseElementsAttr::get(type, out);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  auto indices = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getIndices());
  auto count = foldableCount(getType());
  if (!data || !indices || !count)
    return {};
  ArrayRef<int64_t> shape = data.getType().getShape();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    return {};
  int64_t outer = 1, inner = 1, size = shape[axis];
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  SmallVector<int64_t> idx;
  for (const APInt &v : indices.getValues<APInt>()) {
    int64_t i = v.getSExtValue();
    if (i < 0)
      i += size;
    if (i < 0 || i >= size)
      return {}; // Out of range: the run-time error reports it.
    idx.push_back(i);
  }
  SmallVector<Attribute> values(data.getValues<Attribute>());
  SmallVector<Attribute> out;
  out.reserve(*count);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : idx)
      for (int64_t j = 0; j < inner; ++j)
        out.push_back(values[(o * size + i) * inner + j]);
  if (static_cast<int64_t>(out.size()) != *count)
    return {};
  return DenseElementsAttr::get(cast<ShapedType>(getType()), out);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (auto count = foldableCount(getType());
        count && dense.getType().hasStaticShape()) {
      auto type = cast<RankedTensorType>(getType());
      ArrayRef<int64_t> inShape = dense.getType().getShape();
      std::vector<int64_t> inStrides = runtime::rowMajorStrides(inShape);
      auto steps = getSteps();
      SmallVector<int64_t> base(type.getRank()), stride(type.getRank());
      for (int64_t d = 0; d < type.getRank(); ++d) {
        int64_t step = steps ? (*steps)[d] : 1;
        base[d] =
            inShape[d] > 0 ? sliceStart(inShape[d], getStarts()[d], step) : 0;
        stride[d] = step;
      }
      SmallVector<Attribute> values(dense.getValues<Attribute>());
      SmallVector<Attribute> out;
      out.reserve(*count);
      SmallVector<int64_t> index(type.getRank(), 0);
      for (int64_t n = 0; n < *count; ++n) {
        int64_t offset = 0;
        for (int64_t d = 0; d < type.getRank(); ++d)
          offset += (base[d] + index[d] * stride[d]) * inStrides[d];
        if (offset < 0 || offset >= static_cast<int64_t>(values.size()))
          return {};
        out.push_back(values[offset]);
        for (int64_t d = type.getRank() - 1; d >= 0; --d) {
          if (++index[d] < type.getDimSize(d))
            break;
          index[d] = 0;
        }
      }
      return DenseElementsAttr::get(cast<ShapedType>(type), out);
    }
  if (getInput().getType() != getType())
    return {};
  auto type = cast<RankedTensorType>(getType());
  if (!type.hasStaticShape())
    return {};
  // Same static shape: an identity slice iff every dim starts at 0 going up.
  auto steps = getSteps();
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t step = steps ? (*steps)[d] : 1;
    if (step != 1 && type.getDimSize(d) > 1)
      return {};
    if (type.getDimSize(d) > 0 &&
        sliceStart(type.getDimSize(d), getStarts()[d], step) != 0)
      return {};
  }
  return getInput();
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getLow(), [](int64_t v) { return v == 0; }) &&
      llvm::all_of(getHigh(), [](int64_t v) { return v == 0; }))
    return getInput();
  return {};
}

OpFoldResult SqueezeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (cast<RankedTensorType>(getType()).hasStaticShape())
    if (ElementsAttr reshaped =
            reshapeConstant(adaptor.getInput(), cast<ShapedType>(getType())))
      return reshaped;
  return {};
}

void SqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ShapeOpToReshape<SqueezeOp>>(context);
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (cast<RankedTensorType>(getType()).hasStaticShape())
    if (ElementsAttr reshaped =
            reshapeConstant(adaptor.getInput(), cast<ShapedType>(getType())))
      return reshaped;
  return {};
}

void UnsqueezeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ShapeOpToReshape<UnsqueezeOp>>(context);
}

namespace {
/// Replaces `op` by the ops of `block` (which takes `inputs`) and the values
/// its tgc.yield gives; fails, changing nothing, where a yielded type is not
/// exactly the result's (the users would see another type).
LogicalResult inlineBlock(Operation *op, Block &block, ValueRange inputs,
                          PatternRewriter &rewriter) {
  auto yield = cast<YieldOp>(block.getTerminator());
  // Types may differ in how static they are (a branch yielding a shape the
  // op's result leaves dynamic): tensor.cast bridges them.
  auto castable = [](TypeRange from, TypeRange to) {
    return from.size() == to.size() &&
           llvm::all_of(llvm::zip(from, to), [](auto pair) {
             auto [a, b] = pair;
             return a == b || tensor::CastOp::areCastCompatible(a, b);
           });
  };
  if (!castable(yield->getOperandTypes(), op->getResultTypes()) ||
      !castable(inputs.getTypes(), block.getArgumentTypes()))
    return failure();
  IRMapping mapping;
  for (auto [arg, input] : llvm::zip(block.getArguments(), inputs))
    mapping.map(arg, castTo(rewriter, op->getLoc(), input, arg.getType()));
  for (Operation &inner : block.without_terminator())
    rewriter.clone(inner, mapping);
  SmallVector<Value> results;
  for (auto [v, type] : llvm::zip(yield->getOperands(), op->getResultTypes()))
    results.push_back(
        castTo(rewriter, op->getLoc(), mapping.lookupOrDefault(v), type));
  rewriter.replaceOp(op, results);
  return success();
}

/// fusion(constants...) => its body's ops on those constants: nothing is
/// left to fuse, and the ops fold (shape arithmetic a frontend or a user
/// wrote inside a fusion: reduce_prod(shape_of(x))).
struct InlineFusionOfConstants : OpRewritePattern<FusionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusionOp op,
                                PatternRewriter &rewriter) const override {
    for (Value operand : op->getOperands())
      if (!matchPattern(operand, m_Constant()))
        return failure();
    return inlineBlock(op, op.getBlock(), op->getOperands(), rewriter);
  }
};
} // namespace

namespace {
/// Whether `type` is a small integer tensor: a shape, or arithmetic on one.
bool isShapeLike(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() <= 64 &&
         isa<IntegerType>(tensor.getElementType());
}

/// A small integer constant operand of a fusion that only shape arithmetic
/// reads (dynamic_reshape shapes, ops with integer results) is cloned into
/// its body, so that the ops there fold (a dynamic_reshape to a constant
/// shape becomes static). Weights and other operands stay operands.
struct ConstantOperandsIntoFusion : OpRewritePattern<FusionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusionOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBlock();
    bool changed = false;
    for (auto [operand, arg] :
         llvm::zip(op->getOperands(), body.getArguments())) {
      Attribute value;
      if (arg.use_empty() || operand.getType() != arg.getType() ||
          !isShapeLike(arg.getType()) ||
          !matchPattern(operand, m_Constant(&value)))
        continue;
      bool shapeUsesOnly = llvm::all_of(arg.getUses(), [](OpOperand &use) {
        Operation *user = use.getOwner();
        if (isa<DynamicReshapeOp>(user))
          return use.getOperandNumber() == 1;
        return !isa<YieldOp>(user) && user->getNumResults() > 0 &&
               llvm::all_of(user->getResultTypes(), isShapeLike);
      });
      // A shape some dynamic_reshape reads is cloned in whatever else reads
      // it too (`mul %shape, %reshaped`): the reshape must become static.
      bool reshapeShape = llvm::any_of(arg.getUses(), [](OpOperand &use) {
        return isa<DynamicReshapeOp>(use.getOwner()) &&
               use.getOperandNumber() == 1;
      });
      if (!shapeUsesOnly && !reshapeShape)
        continue;
      rewriter.setInsertionPointToStart(&body);
      Operation *constant =
          operand.getDefiningOp()->getDialect()->materializeConstant(
              rewriter, value, arg.getType(), op.getLoc());
      if (!constant)
        continue;
      rewriter.replaceAllUsesWith(arg, constant->getResult(0));
      changed = true;
    }
    return success(changed);
  }
};

/// A small integer fusion result its body yields as a constant is that
/// constant outside too (a shape_of of a static value inside a fusion).
struct ConstantResultsOutOfFusion : OpRewritePattern<FusionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FusionOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    for (auto [result, yielded] : llvm::zip(
             op->getResults(), op.getBlock().getTerminator()->getOperands())) {
      Attribute value;
      if (result.use_empty() || result.getType() != yielded.getType() ||
          !isShapeLike(result.getType()) ||
          !matchPattern(yielded, m_Constant(&value)))
        continue;
      rewriter.setInsertionPoint(op);
      Operation *constant =
          yielded.getDefiningOp()->getDialect()->materializeConstant(
              rewriter, value, result.getType(), op.getLoc());
      if (!constant)
        continue;
      rewriter.replaceAllUsesWith(result, constant->getResult(0));
      changed = true;
    }
    return success(changed);
  }
};
} // namespace

void FusionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<InlineFusionOfConstants, ConstantOperandsIntoFusion,
              ConstantResultsOutOfFusion>(context);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

namespace {
/// The value of a constant one-element tensor<i1>, if `value` is one.
std::optional<bool> constantPredicate(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || attr.getNumElements() != 1 ||
      !attr.getElementType().isInteger(1))
    return std::nullopt;
  return *attr.getValues<bool>().begin();
}

/// if(constant) => the branch it picks.
struct InlineIfOfConstantCondition : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<bool> taken = constantPredicate(op.getCondition());
    if (!taken)
      return failure();
    return inlineBlock(op, *taken ? op.getThenBlock() : op.getElseBlock(),
                       op.getInputs(), rewriter);
  }
};

/// A while whose condition is constant false never runs its body: its
/// results are its initial values.
struct RemoveWhileThatNeverRuns : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<bool> runs =
        constantPredicate(op.getCondBlock().getTerminator()->getOperand(0));
    if (!runs || *runs || op.getInits().getTypes() != op.getResultTypes())
      return failure();
    rewriter.replaceOp(op, op.getInits());
    return success();
  }
};

/// Constant operands are cloned into the regions that read them (so that
/// the ops there fold), where the block argument has the constant's type.
LogicalResult cloneConstantsIn(Operation *op, ValueRange operands,
                               unsigned firstArg, PatternRewriter &rewriter) {
  bool changed = false;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    Attribute value;
    if (!matchPattern(operand, m_Constant(&value)))
      continue;
    for (Region &region : op->getRegions()) {
      BlockArgument arg = region.front().getArgument(firstArg + i);
      if (arg.use_empty() || arg.getType() != operand.getType())
        continue;
      rewriter.setInsertionPointToStart(&region.front());
      Operation *constant =
          operand.getDefiningOp()->getDialect()->materializeConstant(
              rewriter, value, arg.getType(), op->getLoc());
      if (!constant)
        continue;
      rewriter.replaceAllUsesWith(arg, constant->getResult(0));
      changed = true;
    }
  }
  return success(changed);
}

/// Block argument `index` is unused in every region of `op`.
bool argumentUnused(Operation *op, unsigned index) {
  return llvm::all_of(op->getRegions(), [&](Region &region) {
    return region.front().getArgument(index).use_empty();
  });
}

struct ConstantInputsIntoBranches : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    return cloneConstantsIn(op, op.getInputs(), 0, rewriter);
  }
};

/// Inputs neither branch reads are dropped.
struct DropUnusedIfInputs : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> kept;
    llvm::BitVector dropped(op.getInputs().size());
    for (auto [i, input] : llvm::enumerate(op.getInputs())) {
      if (argumentUnused(op, i))
        dropped.set(i);
      else
        kept.push_back(input);
    }
    if (dropped.none())
      return failure();
    auto replacement = IfOp::create(rewriter, op.getLoc(), op.getResultTypes(),
                                    op.getCondition(), kept);
    for (auto [from, to] :
         {std::pair<Region *, Region *>{&op.getThenRegion(),
                                        &replacement.getThenRegion()},
          {&op.getElseRegion(), &replacement.getElseRegion()}}) {
      rewriter.inlineRegionBefore(*from, *to, to->end());
      to->front().eraseArguments(dropped);
    }
    replacement->setAttrs(op->getAttrs());
    rewriter.replaceOp(op, replacement.getResults());
    return success();
  }
};

struct ConstantCapturesIntoLoop : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    return cloneConstantsIn(op, op.getCaptures(), op.getInits().size(),
                            rewriter);
  }
};

/// Rebuilds `op` with `captures` (the regions' blocks already take them
/// after the carried values).
WhileOp rebuildWhile(WhileOp op, ValueRange captures,
                     PatternRewriter &rewriter) {
  auto replacement = WhileOp::create(rewriter, op.getLoc(), op.getResultTypes(),
                                     op.getInits(), captures);
  rewriter.inlineRegionBefore(op.getCond(), replacement.getCond(),
                              replacement.getCond().end());
  rewriter.inlineRegionBefore(op.getBody(), replacement.getBody(),
                              replacement.getBody().end());
  for (NamedAttribute attr : op->getDiscardableAttrs())
    replacement->setDiscardableAttr(attr.getName(), attr.getValue());
  return replacement;
}

/// Captures neither region reads are dropped.
struct DropUnusedCaptures : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    unsigned carried = op.getInits().size();
    SmallVector<Value> kept;
    llvm::BitVector dropped(carried + op.getCaptures().size());
    for (auto [i, capture] : llvm::enumerate(op.getCaptures())) {
      if (argumentUnused(op, carried + i))
        dropped.set(carried + i);
      else
        kept.push_back(capture);
    }
    if (dropped.none())
      return failure();
    op.getCondBlock().eraseArguments(dropped);
    op.getBodyBlock().eraseArguments(dropped);
    rewriter.replaceOp(op, rebuildWhile(op, kept, rewriter).getResults());
    return success();
  }
};

/// Loop-invariant code motion: an op of the body or the condition that
/// reads only captures (and constants) computes the same value in every
/// iteration; it moves before the loop and its results become captures.
struct HoistLoopInvariants : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    unsigned carried = op.getInits().size();
    auto isInvariant = [&](Value v) {
      if (auto arg = dyn_cast<BlockArgument>(v))
        return arg.getOwner()->getParentOp() == op &&
               arg.getArgNumber() >= carried;
      return matchPattern(v, m_Constant());
    };
    for (Region &region : op->getRegions()) {
      for (Operation &inner : region.front().without_terminator()) {
        if (inner.getNumRegions() != 0 || inner.getNumResults() == 0 ||
            matchPattern(&inner, m_Constant()) || !isMemoryEffectFree(&inner) ||
            !llvm::all_of(inner.getOperands(), isInvariant))
          continue;
        // Clone it before the loop, reading the captures' values.
        rewriter.setInsertionPoint(op);
        IRMapping mapping;
        for (Value operand : inner.getOperands()) {
          if (auto arg = dyn_cast<BlockArgument>(operand))
            mapping.map(arg, op.getCaptures()[arg.getArgNumber() - carried]);
          else
            mapping.map(operand,
                        rewriter.clone(*operand.getDefiningOp())->getResult(0));
        }
        Operation *hoisted = rewriter.clone(inner, mapping);
        SmallVector<Value> captures(op.getCaptures());
        for (auto [result, value] :
             llvm::zip(inner.getResults(), hoisted->getResults())) {
          captures.push_back(value);
          for (Region &each : op->getRegions())
            each.front().addArgument(value.getType(), inner.getLoc());
          rewriter.replaceAllUsesWith(result,
                                      region.front().getArguments().back());
        }
        rewriter.eraseOp(&inner);
        rewriter.replaceOp(op,
                           rebuildWhile(op, captures, rewriter).getResults());
        return success();
      }
    }
    return failure();
  }
};
} // namespace

void IfOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                       MLIRContext *context) {
  results.add<InlineIfOfConstantCondition, ConstantInputsIntoBranches,
              DropUnusedIfInputs>(context);
}

void WhileOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<RemoveWhileThatNeverRuns, ConstantCapturesIntoLoop,
              DropUnusedCaptures, HoistLoopInvariants>(context);
}

//===----------------------------------------------------------------------===//
// Known elements of shape tensors
//===----------------------------------------------------------------------===//

namespace {
using KnownElements = SmallVector<std::optional<int64_t>>;

/// The largest shape tensor followed (a rank is at most this).
constexpr int64_t kMaxKnownElements = 64;

std::optional<KnownElements> knownElements(Value value, int depth) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > 1 || !type.hasStaticShape() ||
      !type.getElementType().isSignlessInteger() ||
      type.getNumElements() > kMaxKnownElements || depth > 32)
    return std::nullopt;
  int64_t count = type.getNumElements();
  KnownElements unknown(count, std::nullopt);
  DenseIntElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant))) {
    KnownElements known;
    for (const APInt &v : constant.getValues<APInt>())
      known.push_back(v.getSExtValue());
    return known;
  }
  Operation *def = value.getDefiningOp();
  if (!def)
    return unknown;
  auto same = [&](Value from) -> std::optional<KnownElements> {
    auto known = knownElements(from, depth + 1);
    if (!known || static_cast<int64_t>(known->size()) != count)
      return unknown;
    return known;
  };
  if (auto shapeOf = dyn_cast<ShapeOfOp>(def)) {
    auto in = dyn_cast<RankedTensorType>(shapeOf.getInput().getType());
    if (!in || in.getRank() != count)
      return unknown;
    KnownElements known;
    for (int64_t d : in.getShape())
      known.push_back(ShapedType::isDynamic(d) ? std::nullopt
                                               : std::optional<int64_t>(d));
    return known;
  }
  if (isShapeView(def) || isa<tensor::CastOp>(def))
    return same(def->getOperand(0));
  if (auto cast = dyn_cast<CastOp>(def)) {
    // Integer to integer only; a narrowing cast may wrap a known element.
    auto from = dyn_cast<RankedTensorType>(cast.getInput().getType());
    if (!from || !from.getElementType().isSignlessInteger() ||
        from.getElementType().getIntOrFloatBitWidth() >
            type.getElementType().getIntOrFloatBitWidth())
      return unknown;
    return same(cast.getInput());
  }
  if (auto concat = dyn_cast<ConcatOp>(def)) {
    KnownElements known;
    for (Value part : concat.getInputs()) {
      auto partType = dyn_cast<RankedTensorType>(part.getType());
      if (!partType || !partType.hasStaticShape())
        return unknown;
      auto elements = knownElements(part, depth + 1);
      if (!elements)
        elements = KnownElements(partType.getNumElements(), std::nullopt);
      known.append(elements->begin(), elements->end());
    }
    if (static_cast<int64_t>(known.size()) != count)
      return unknown;
    return known;
  }
  if (auto gather = dyn_cast<GatherOp>(def)) {
    auto data = knownElements(gather.getData(), depth + 1);
    DenseIntElementsAttr at;
    if (!data || !matchPattern(gather.getIndices(), m_Constant(&at)) ||
        at.getNumElements() != count)
      return unknown;
    auto size = static_cast<int64_t>(data->size());
    KnownElements known;
    for (const APInt &v : at.getValues<APInt>()) {
      int64_t i = v.getSExtValue();
      if (i < -size || i >= size)
        return unknown;
      known.push_back((*data)[i < 0 ? i + size : i]);
    }
    return known;
  }
  if (auto slice = dyn_cast<SliceOp>(def)) {
    auto data = knownElements(slice.getInput(), depth + 1);
    auto in = cast<RankedTensorType>(slice.getInput().getType());
    if (!data || in.getRank() != 1 || type.getRank() != 1)
      return unknown;
    int64_t step = slice.getSteps() ? (*slice.getSteps())[0] : 1;
    int64_t size = in.getDimSize(0);
    if (sliceLength(size, slice.getStarts()[0], slice.getEnds()[0], step) !=
        count)
      return unknown;
    int64_t first = sliceStart(size, slice.getStarts()[0], step);
    KnownElements known;
    for (int64_t i = 0; i < count; ++i)
      known.push_back((*data)[first + i * step]);
    return known;
  }
  return unknown;
}
} // namespace

std::optional<SmallVector<std::optional<int64_t>>>
tgc::knownIntElements(Value value) {
  return knownElements(value, 0);
}
