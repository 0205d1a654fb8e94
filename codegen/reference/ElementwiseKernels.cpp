//===- ElementwiseKernels.cpp - elementwise ops of the interpreter --------===//
//
// cast, the unary and binary elementwise ops, compare and select. Scalar
// semantics come from dialects/ScalarMath.h (shared with the folders).
//
//===----------------------------------------------------------------------===//

#include "codegen/reference/Kernels.h"

#include "dialects/ScalarMath.h"
#include "dialects/TgcOps.h"

#include <cmath>
#include <cstring>
#include <utility>

using namespace mlir;
using llvm::Expected;

namespace tgc::reference::detail {
namespace {

using Result = std::optional<Expected<HostTensor>>;

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

template <typename FloatFn>
Expected<HostTensor> unaryFloat(Operation *op, const HostTensor &in,
                                FloatFn fn) {
  auto out = allocate(op, resultDType(op), in.shape());
  if (!out)
    return out.takeError();
  std::vector<double> values = readDoubles(in);
  for (double &x : values)
    x = fn(x);
  writeDoubles(*out, values);
  return out;
}

template <typename IntFn>
Expected<HostTensor> unaryInt(Operation *op, const HostTensor &in, IntFn fn) {
  auto out = allocate(op, resultDType(op), in.shape());
  if (!out)
    return out.takeError();
  std::vector<int64_t> values = readInts(in);
  for (int64_t &x : values)
    x = fn(x);
  writeInts(*out, values);
  return out;
}

template <typename FloatFn, typename IntFn>
Expected<HostTensor> unaryNumeric(Operation *op, const HostTensor &in,
                                  FloatFn ffn, IntFn ifn) {
  if (runtime::isFloatDType(in.dtype()))
    return unaryFloat(op, in, ffn);
  return unaryInt(op, in, ifn);
}

int64_t wrappingNeg(int64_t x) {
  return static_cast<int64_t>(0 - static_cast<uint64_t>(x));
}

Expected<HostTensor> runCast(CastOp op, const HostTensor &in) {
  DType to = resultDType(op);
  auto out = allocate(op, to, in.shape());
  if (!out)
    return out.takeError();
  bool fromFloat = runtime::isFloatDType(in.dtype());
  if (runtime::isFloatDType(to)) {
    if (fromFloat) {
      writeDoubles(*out, readDoubles(in));
    } else if (runtime::isUnsignedDType(in.dtype())) {
      for (int64_t i = 0, n = in.numElements(); i < n; ++i)
        out->setUInt(i, in.getUInt(i));
    } else {
      // Integer -> float rounds once, straight from the integer (going
      // through double would round twice for |x| > 2^53).
      for (int64_t i = 0, n = in.numElements(); i < n; ++i)
        out->setInt(i, in.getInt(i));
    }
    return out;
  }
  unsigned bits = runtime::dtypeBits(to);
  bool toUnsigned = runtime::isUnsignedDType(to);
  std::vector<int64_t> values;
  if (fromFloat) {
    std::vector<double> doubles = readDoubles(in);
    values.resize(doubles.size());
    for (size_t i = 0; i < doubles.size(); ++i)
      values[i] = scalar::floatToInt(doubles[i], bits, toUnsigned);
  } else {
    values = readInts(in);
    for (int64_t &v : values)
      v = scalar::wrapInt(v, bits, toUnsigned);
  }
  writeInts(*out, values);
  return out;
}

//===----------------------------------------------------------------------===//
// Binary with broadcasting
//===----------------------------------------------------------------------===//

/// The broadcast shape of `shapes`, or an error naming them.
Expected<Shape> broadcastAll(Operation *op,
                             llvm::ArrayRef<const HostTensor *> tensors) {
  Shape shape = tensors.front()->shape();
  for (const HostTensor *t : tensors.drop_front()) {
    Shape next;
    if (!runtime::broadcastShapes(shape, t->shape(), next)) {
      std::string list;
      for (size_t i = 0; i < tensors.size(); ++i)
        list += (i ? ", " : "") + shapeString(tensors[i]->shape());
      return opError(op, "operand shapes " + list +
                             " are not broadcast-compatible");
    }
    shape = std::move(next);
  }
  return shape;
}

/// Applies `fn(a, b)` elementwise under broadcasting; `fn` returns the value,
/// or std::nullopt after storing an error message.
template <typename T, typename Fn>
Expected<HostTensor> binaryImpl(Operation *op, const HostTensor &lhs,
                                const HostTensor &rhs, DType resultType,
                                Fn fn) {
  const HostTensor *both[] = {&lhs, &rhs};
  auto shape = broadcastAll(op, both);
  if (!shape)
    return shape.takeError();
  auto out = allocate(op, resultType, *shape);
  if (!out)
    return out.takeError();
  std::vector<T> a, b;
  if constexpr (std::is_same_v<T, double>) {
    a = readDoubles(lhs);
    b = readDoubles(rhs);
  } else {
    a = readInts(lhs);
    b = readInts(rhs);
  }
  std::array<Shape, 2> strides = {broadcastStrides(lhs.shape(), *shape),
                                  broadcastStrides(rhs.shape(), *shape)};
  using R = decltype(fn(T(), T(), std::declval<std::string &>()));
  std::vector<R> result(static_cast<size_t>(numElements(*shape)));
  std::string error;
  forEachBroadcast<2>(*shape, strides, [&](int64_t i, int64_t ia, int64_t ib) {
    result[i] = fn(a[ia], b[ib], error);
  });
  if (!error.empty())
    return opError(op, error);
  if constexpr (std::is_same_v<R, double>)
    writeDoubles(*out, result);
  else
    writeInts(*out, result);
  return out;
}

template <typename FloatFn, typename IntFn>
Expected<HostTensor> binaryNumeric(Operation *op, Operands operands,
                                   FloatFn ffn, IntFn ifn) {
  const HostTensor &lhs = *operands[0], &rhs = *operands[1];
  if (runtime::isFloatDType(lhs.dtype()))
    return binaryImpl<double>(
        op, lhs, rhs, resultDType(op),
        [&](double a, double b, std::string &) { return ffn(a, b); });
  return binaryImpl<int64_t>(op, lhs, rhs, resultDType(op), ifn);
}

template <typename IntFn>
Expected<HostTensor> binaryInt(Operation *op, Operands operands, IntFn ifn) {
  return binaryImpl<int64_t>(op, *operands[0], *operands[1], resultDType(op),
                             ifn);
}

auto wrapAdd = [](int64_t a, int64_t b, std::string &) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
};
auto wrapSub = [](int64_t a, int64_t b, std::string &) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
};
auto wrapMul = [](int64_t a, int64_t b, std::string &) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
};

Expected<HostTensor> runDiv(DivOp op, Operands operands) {
  if (runtime::isFloatDType(operands[0]->dtype()))
    return binaryImpl<double>(
        op, *operands[0], *operands[1], resultDType(op),
        [](double a, double b, std::string &) { return a / b; });
  unsigned bits = runtime::dtypeBits(operands[0]->dtype());
  bool isUnsigned = runtime::isUnsignedDType(operands[0]->dtype());
  auto text = [&](int64_t v) {
    return isUnsigned ? std::to_string(static_cast<uint64_t>(v))
                      : std::to_string(v);
  };
  return binaryInt(
      op, operands, [&](int64_t a, int64_t b, std::string &error) -> int64_t {
        auto r = scalar::divInt(a, b, bits, isUnsigned);
        if (r)
          return *r;
        if (error.empty())
          error = b == 0 ? "integer division by zero (" + text(a) + " / 0)"
                         : "integer division overflows (" + text(a) + " / " +
                               text(b) + ")";
        return 0;
      });
}

Expected<HostTensor> runCompare(CompareOp op, Operands operands) {
  ir::ComparePredicate predicate = op.getPredicate();
  auto compare = [predicate](auto a, auto b) -> int64_t {
    return evaluateCompare(predicate, a, b);
  };
  const HostTensor &lhs = *operands[0], &rhs = *operands[1];
  if (runtime::isFloatDType(lhs.dtype()))
    return binaryImpl<double>(
        op, lhs, rhs, DType::I1,
        [&](double a, double b, std::string &) { return compare(a, b); });
  if (runtime::isUnsignedDType(lhs.dtype()))
    return binaryImpl<int64_t>(
        op, lhs, rhs, DType::I1, [&](int64_t a, int64_t b, std::string &) {
          return compare(static_cast<uint64_t>(a), static_cast<uint64_t>(b));
        });
  return binaryImpl<int64_t>(
      op, lhs, rhs, DType::I1,
      [&](int64_t a, int64_t b, std::string &) { return compare(a, b); });
}

template <typename T>
void selectCopy(const HostTensor &cond, const HostTensor &x,
                const HostTensor &y, HostTensor &out,
                const std::array<Shape, 3> &strides) {
  const uint8_t *c = static_cast<const uint8_t *>(cond.data());
  const T *a = static_cast<const T *>(x.data());
  const T *b = static_cast<const T *>(y.data());
  T *o = static_cast<T *>(out.data());
  forEachBroadcast<3>(out.shape(), strides,
                      [&](int64_t i, int64_t ic, int64_t ia, int64_t ib) {
                        o[i] = c[ic] ? a[ia] : b[ib];
                      });
}

Expected<HostTensor> runSelect(SelectOp op, Operands operands) {
  auto shape = broadcastAll(op, operands);
  if (!shape)
    return shape.takeError();
  auto out = allocate(op, resultDType(op), *shape);
  if (!out)
    return out.takeError();
  std::array<Shape, 3> strides;
  for (int k = 0; k < 3; ++k)
    strides[k] = broadcastStrides(operands[k]->shape(), *shape);
  const HostTensor &c = *operands[0], &x = *operands[1], &y = *operands[2];
  switch (runtime::dtypeSize(out->dtype())) {
  case 1:
    selectCopy<uint8_t>(c, x, y, *out, strides);
    break;
  case 2:
    selectCopy<uint16_t>(c, x, y, *out, strides);
    break;
  case 4:
    selectCopy<uint32_t>(c, x, y, *out, strides);
    break;
  default:
    selectCopy<uint64_t>(c, x, y, *out, strides);
    break;
  }
  return out;
}

/// The unary ops defined on integers and floats; std::nullopt for others.
Result runUnaryNumeric(Operation *op, const HostTensor &in) {
  auto bits = [&] { return runtime::dtypeBits(in.dtype()); };
  bool isUnsigned = runtime::isUnsignedDType(in.dtype());
  // Unary numeric.
  if (auto o = dyn_cast<NegOp>(op)) {
    return unaryNumeric(
        o, in, [](double x) { return -x; }, wrappingNeg);
  }
  if (auto o = dyn_cast<AbsOp>(op)) {
    return unaryNumeric(
        o, in, [](double x) { return std::fabs(x); },
        [&](int64_t x) { return scalar::absInt(x, isUnsigned); });
  }
  if (auto o = dyn_cast<ReluOp>(op)) {
    return unaryNumeric(
        o, in, [](double x) { return scalar::relu(x); },
        [&](int64_t x) { return scalar::reluInt(x, isUnsigned); });
  }
  if (auto o = dyn_cast<SignOp>(op)) {
    return unaryNumeric(
        o, in, [](double x) { return scalar::sign(x); },
        [&](int64_t x) { return scalar::signInt(x, isUnsigned); });
  }
  if (auto o = dyn_cast<ClampOp>(op)) {
    double lo = o.getMin().convertToDouble();
    double hi = o.getMax().convertToDouble();
    if (runtime::isFloatDType(in.dtype()))
      return unaryFloat(o, in,
                        [&](double x) { return scalar::clamp(x, lo, hi); });
    int64_t ilo = scalar::attrToInt(lo, bits(), isUnsigned);
    int64_t ihi = scalar::attrToInt(hi, bits(), isUnsigned);
    return unaryInt(o, in, [&](int64_t x) {
      return scalar::clampInt(x, ilo, ihi, isUnsigned);
    });
  }
  if (auto o = dyn_cast<LogicalNotOp>(op)) {
    return unaryInt(o, in, [](int64_t x) -> int64_t { return x == 0; });
  }
  return std::nullopt;
}

/// The unary ops defined on floats only; std::nullopt for others.
Result runUnaryFloat(Operation *op, const HostTensor &in) {
  // Unary float.
  if (auto o = dyn_cast<ExpOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::exp(x); });
  }
  if (auto o = dyn_cast<LogOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::log(x); });
  }
  if (auto o = dyn_cast<SqrtOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::sqrt(x); });
  }
  if (auto o = dyn_cast<RsqrtOp>(op)) {
    return unaryFloat(o, in, [](double x) { return 1.0 / std::sqrt(x); });
  }
  if (auto o = dyn_cast<ReciprocalOp>(op)) {
    return unaryFloat(o, in, [](double x) { return 1.0 / x; });
  }
  if (auto o = dyn_cast<TanhOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::tanh(x); });
  }
  if (auto o = dyn_cast<SigmoidOp>(op)) {
    return unaryFloat(o, in, [](double x) { return scalar::sigmoid(x); });
  }
  if (auto o = dyn_cast<ErfOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::erf(x); });
  }
  if (auto o = dyn_cast<SinOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::sin(x); });
  }
  if (auto o = dyn_cast<CosOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::cos(x); });
  }
  if (auto o = dyn_cast<FloorOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::floor(x); });
  }
  if (auto o = dyn_cast<CeilOp>(op)) {
    return unaryFloat(o, in, [](double x) { return std::ceil(x); });
  }
  if (auto o = dyn_cast<RoundOp>(op)) {
    return unaryFloat(o, in, [](double x) { return scalar::roundHalfEven(x); });
  }
  if (auto o = dyn_cast<LeakyReluOp>(op)) {
    double alpha = o.getAlpha().convertToDouble();
    return unaryFloat(o, in,
                      [&](double x) { return scalar::leakyRelu(x, alpha); });
  }
  if (auto o = dyn_cast<EluOp>(op)) {
    double alpha = o.getAlpha().convertToDouble();
    return unaryFloat(o, in, [&](double x) { return scalar::elu(x, alpha); });
  }
  if (auto o = dyn_cast<GeluOp>(op)) {
    bool approx = o.getApproximate() == GeluApproximation::tanh;
    return unaryFloat(o, in, [&](double x) { return scalar::gelu(x, approx); });
  }
  return std::nullopt;
}

/// The binary ops, compare and select; std::nullopt for others.
Result runBinary(Operation *op, Operands operands) {
  const HostTensor &in = *operands.front();
  auto bits = [&] { return runtime::dtypeBits(in.dtype()); };
  bool isUnsigned = runtime::isUnsignedDType(in.dtype());
  // Binary.
  if (auto o = dyn_cast<AddOp>(op)) {
    return binaryNumeric(
        o, operands, [](double a, double b) { return a + b; }, wrapAdd);
  }
  if (auto o = dyn_cast<SubOp>(op)) {
    return binaryNumeric(
        o, operands, [](double a, double b) { return a - b; }, wrapSub);
  }
  if (auto o = dyn_cast<MulOp>(op)) {
    return binaryNumeric(
        o, operands, [](double a, double b) { return a * b; }, wrapMul);
  }
  if (auto o = dyn_cast<DivOp>(op)) {
    return runDiv(o, operands);
  }
  if (auto o = dyn_cast<PowOp>(op)) {
    return binaryNumeric(
        o, operands, [](double a, double b) { return std::pow(a, b); },
        [&](int64_t a, int64_t b, std::string &) {
          return scalar::powInt(a, b, isUnsigned);
        });
  }
  if (auto o = dyn_cast<ShiftLeftOp>(op)) {
    return binaryInt(o, operands, [&](int64_t a, int64_t b, std::string &) {
      return scalar::shiftLeftInt(a, b, bits(), isUnsigned);
    });
  }
  if (auto o = dyn_cast<ShiftRightOp>(op)) {
    return binaryInt(o, operands, [&](int64_t a, int64_t b, std::string &) {
      return scalar::shiftRightInt(a, b, bits(), isUnsigned);
    });
  }
  if (auto o = dyn_cast<MaxOp>(op)) {
    return binaryNumeric(
        o, operands, [](double a, double b) { return scalar::maxNaN(a, b); },
        [&](int64_t a, int64_t b, std::string &) {
          return scalar::maxInt(a, b, isUnsigned);
        });
  }
  if (auto o = dyn_cast<MinOp>(op)) {
    return binaryNumeric(
        o, operands, [](double a, double b) { return scalar::minNaN(a, b); },
        [&](int64_t a, int64_t b, std::string &) {
          return scalar::minInt(a, b, isUnsigned);
        });
  }
  if (auto o = dyn_cast<LogicalAndOp>(op)) {
    return binaryInt(
        o, operands,
        [](int64_t a, int64_t b, std::string &) -> int64_t { return a && b; });
  }
  if (auto o = dyn_cast<LogicalOrOp>(op)) {
    return binaryInt(
        o, operands,
        [](int64_t a, int64_t b, std::string &) -> int64_t { return a || b; });
  }
  if (auto o = dyn_cast<CompareOp>(op)) {
    return runCompare(o, operands);
  }
  if (auto o = dyn_cast<SelectOp>(op)) {
    return runSelect(o, operands);
  }
  return std::nullopt;
}

} // namespace

Result runElementwise(Operation *op, Operands operands) {
  if (operands.empty())
    return std::nullopt;
  const HostTensor &in = *operands.front();
  if (auto o = dyn_cast<CastOp>(op)) {
    return runCast(o, in);
  }
  if (Result result = runUnaryNumeric(op, in))
    return result;
  if (Result result = runUnaryFloat(op, in))
    return result;
  return runBinary(op, operands);
}

} // namespace tgc::reference::detail
