//===- Elementwise.cpp - elementwise ONNX ops -----------------------------===//
//
// Converters of the elementwise ops: arithmetic, comparisons, logic, bit
// shifts, casts, Clip and Where, activations, and the trigonometric and
// hyperbolic functions tgc has no op for (built from the ones it has).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

//===----------------------------------------------------------------------===//
// Arithmetic, comparisons and logic
//===----------------------------------------------------------------------===//

template <Tensor (*F)(const Tensor &, SourceLoc)>
llvm::Error unaryOp(Importer &im) {
  TRY(x, im.in(0));
  TRYT(y, F(x, SourceLoc::current()));
  im.out(0, y);
  return llvm::Error::success();
}

template <Tensor (*F)(const Tensor &, const Tensor &, SourceLoc)>
llvm::Error binaryOp(Importer &im) {
  TRY(a, im.in(0));
  TRY(b, im.in(1));
  TRYT(y, F(a, b, SourceLoc::current()));
  im.out(0, y);
  return llvm::Error::success();
}

template <Tensor (*F)(const Tensor &, const Tensor &, SourceLoc)>
llvm::Error variadicOp(Importer &im) {
  if (im.numInputs() < 1)
    return im.fail("needs at least one input");
  TRY(acc, im.in(0));
  Tensor result = acc;
  for (int i = 1; i < im.numInputs(); ++i) {
    TRY(b, im.in(i));
    TRYT(next, F(result, b, SourceLoc::current()));
    result = next;
  }
  im.out(0, result);
  return llvm::Error::success();
}

llvm::Error convIdentity(Importer &im) {
  TRY(val, im.lookup(0));
  if (!val->isTensor()) { // A sequence or an optional.
    im.outVal(0, *val);
    return llvm::Error::success();
  }
  TRY(x, im.in(0));
  im.out(0, x);
  return llvm::Error::success();
}

llvm::Error convMean(Importer &im) {
  if (im.numInputs() < 1)
    return im.fail("needs at least one input");
  TRY(acc, im.in(0));
  Tensor result = acc;
  for (int i = 1; i < im.numInputs(); ++i) {
    TRY(b, im.in(i));
    TRYT(next, tgc::add(result, b));
    result = next;
  }
  if (im.numInputs() > 1) {
    TRYT(mean, tgc::div(result, Scalar(im.numInputs())));
    result = mean;
  }
  im.out(0, result);
  return llvm::Error::success();
}

llvm::Error convPow(Importer &im) {
  TRY(a, im.in(0));
  TRY(b, im.in(1));
  Tensor exponent = b;
  if (b.dtype() != a.dtype()) {
    TRYT(c, tgc::cast(b, a.dtype()));
    exponent = c;
  }
  TRYT(y, tgc::pow(a, exponent));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convXor(Importer &im) {
  TRY(a, im.in(0));
  TRY(b, im.in(1));
  TRYT(y, tgc::notEqual(a, b));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convMod(Importer &im) {
  TRY(a, im.in(0));
  TRY(b, im.in(1));
  TRY(fmod, im.attrInt("fmod", 0));
  bool isFloat = runtime::isFloatDType(a.dtype());
  if (isFloat && fmod != 1)
    return im.fail("floating-point Mod needs fmod = 1");
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
    im.out(0, r);
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
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convBitShift(Importer &im) {
  TRY(x, im.in(0));
  TRY(y, im.in(1));
  TRY(direction, im.attrString("direction", ""));
  if (direction != "LEFT" && direction != "RIGHT")
    return im.fail(
        "attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"" +
        direction + "\"");
  TRYT(z, direction == "LEFT" ? tgc::shiftLeft(x, y) : tgc::shiftRight(x, y));
  im.out(0, z);
  return llvm::Error::success();
}

llvm::Error convWhere(Importer &im) {
  TRY(c, im.in(0));
  TRY(a, im.in(1));
  TRY(b, im.in(2));
  TRYT(y, tgc::select(c, a, b));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convCast(Importer &im) {
  TRY(x, im.in(0));
  TRY(to, im.attrInt("to"));
  if (!to)
    return im.fail("attribute 'to' is required");
  std::optional<DType> dtype = dtypeFromOnnx(static_cast<int32_t>(*to));
  if (!dtype)
    return im.unsupported("casting to " +
                          onnxTypeName(static_cast<int32_t>(*to)) +
                          " is not supported (tgc has no such element type)");
  if (*dtype == x.dtype()) {
    im.out(0, x);
    return llvm::Error::success();
  }
  TRYT(y, tgc::cast(x, *dtype));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convCastLike(Importer &im) {
  TRY(x, im.in(0));
  TRY(like, im.in(1));
  if (like.dtype() == x.dtype()) {
    im.out(0, x);
    return llvm::Error::success();
  }
  TRYT(y, tgc::cast(x, like.dtype()));
  im.out(0, y);
  return llvm::Error::success();
}

/// `x` clamped to [lo, hi] where they are known numbers, and between the
/// tensors `loT` and `hiT` where they are valid.
llvm::Error clipBetween(Importer &im, const Tensor &x, std::optional<double> lo,
                        std::optional<double> hi, Tensor loT, Tensor hiT) {
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
  im.out(0, y);
  return llvm::Error::success();
}

/// Clip before opset 11: min and max are attributes.
llvm::Error convClipV1(Importer &im) {
  TRY(x, im.in(0));
  TRY(lo, im.attrFloat("min"));
  TRY(hi, im.attrFloat("max"));
  return clipBetween(im, x, lo, hi, Tensor(), Tensor());
}

/// Clip from opset 11: min and max are optional inputs, folded into the
/// clamp when they are one-element constants.
llvm::Error convClipV11(Importer &im) {
  TRY(x, im.in(0));
  std::optional<double> lo, hi;
  Tensor loT, hiT;
  for (int i = 1; i <= 2; ++i) {
    if (!im.has(i))
      continue;
    TRY(c, im.constIn(i));
    if (c && c->numElements() == 1) {
      (i == 1 ? lo : hi) = c->getDouble(0);
      continue;
    }
    TRY(t, im.in(i));
    (i == 1 ? loT : hiT) = t;
  }
  return clipBetween(im, x, lo, hi, loT, hiT);
}

llvm::Error convIsNaN(Importer &im) {
  TRY(x, im.in(0));
  TRYT(y, tgc::notEqual(x, x));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convIsInf(Importer &im) {
  TRY(x, im.in(0));
  TRY(detectNeg, im.attrInt("detect_negative", 1));
  TRY(detectPos, im.attrInt("detect_positive", 1));
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
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

llvm::Error convPRelu(Importer &im) {
  TRY(x, im.in(0));
  TRY(slope0, im.in(1));
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
    return im.fail("slope " + slope.describe() +
                   " must broadcast to the input " + x.describe());
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convLeakyRelu(Importer &im) {
  TRY(x, im.in(0));
  TRY(alpha, im.attrFloat("alpha", 0.01));
  TRYT(y, tgc::leakyRelu(x, alpha));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convElu(Importer &im) {
  TRY(x, im.in(0));
  TRY(alpha, im.attrFloat("alpha", 1.0));
  TRYT(y, tgc::elu(x, alpha));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convSelu(Importer &im) {
  TRY(x, im.in(0));
  TRY(alpha, im.attrFloat("alpha", 1.67326319217681884765625));
  TRY(gamma, im.attrFloat("gamma", 1.05070102214813232421875));
  TRYT(e, tgc::elu(x, alpha));
  TRYT(y, tgc::mul(e, Scalar(gamma)));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convCelu(Importer &im) {
  TRY(x, im.in(0));
  TRY(alpha, im.attrFloat("alpha", 1.0));
  if (alpha == 0)
    return im.fail("attribute 'alpha' must not be 0");
  TRYT(pos, tgc::relu(x));
  TRYT(scaled, tgc::div(x, Scalar(alpha)));
  TRYT(e, tgc::exp(scaled));
  TRYT(em1, tgc::sub(e, Scalar(1.0)));
  TRYT(ae, tgc::mul(em1, Scalar(alpha)));
  TRYT(negPart, tgc::minimum(ae, Scalar(0.0)));
  TRYT(y, tgc::add(pos, negPart));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convHardSigmoid(Importer &im) {
  TRY(x, im.in(0));
  TRY(alpha, im.attrFloat("alpha", 0.2));
  TRY(beta, im.attrFloat("beta", 0.5));
  TRYT(ax, tgc::mul(x, Scalar(alpha)));
  TRYT(axb, tgc::add(ax, Scalar(beta)));
  TRYT(y, tgc::clamp(axb, 0.0, 1.0));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convHardSwish(Importer &im) {
  TRY(x, im.in(0));
  TRYT(ax, tgc::mul(x, Scalar(1.0 / 6.0)));
  TRYT(axb, tgc::add(ax, Scalar(0.5)));
  TRYT(hs, tgc::clamp(axb, 0.0, 1.0));
  TRYT(y, tgc::mul(x, hs));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convSoftplus(Importer &im) {
  TRY(x, im.in(0));
  TRYT(e, tgc::exp(x));
  TRYT(e1, tgc::add(e, Scalar(1.0)));
  TRYT(y, tgc::log(e1));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convSoftsign(Importer &im) {
  TRY(x, im.in(0));
  TRYT(a, tgc::abs(x));
  TRYT(a1, tgc::add(a, Scalar(1.0)));
  TRYT(y, tgc::div(x, a1));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convMish(Importer &im) {
  TRY(x, im.in(0));
  TRYT(e, tgc::exp(x));
  TRYT(e1, tgc::add(e, Scalar(1.0)));
  TRYT(sp, tgc::log(e1));
  TRYT(t, tgc::tanh(sp));
  TRYT(y, tgc::mul(x, t));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convThresholdedRelu(Importer &im) {
  TRY(x, im.in(0));
  TRY(alpha, im.attrFloat("alpha", 1.0));
  TRYT(mask, tgc::greater(x, Scalar(alpha)));
  TRYT(y, tgc::select(mask, x, Scalar(0.0)));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convShrink(Importer &im) {
  TRY(x, im.in(0));
  TRY(bias, im.attrFloat("bias", 0.0));
  TRY(lambd, im.attrFloat("lambd", 0.5));
  TRYT(lo, tgc::less(x, Scalar(-lambd)));
  TRYT(hi, tgc::greater(x, Scalar(lambd)));
  TRYT(xpb, tgc::add(x, Scalar(bias)));
  TRYT(xmb, tgc::sub(x, Scalar(bias)));
  TRYT(inner, tgc::select(hi, xmb, Scalar(0.0)));
  TRYT(y, tgc::select(lo, xpb, inner));
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Trigonometric and hyperbolic functions
//===----------------------------------------------------------------------===//

llvm::Error convTan(Importer &im) {
  TRY(x, im.in(0));
  TRYT(s, tgc::sin(x));
  TRYT(c, tgc::cos(x));
  TRYT(y, tgc::div(s, c));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convSinh(Importer &im) {
  TRY(x, im.in(0));
  TRYT(e, tgc::exp(x));
  TRYT(nx, tgc::neg(x));
  TRYT(en, tgc::exp(nx));
  TRYT(d, tgc::sub(e, en));
  TRYT(y, tgc::mul(d, Scalar(0.5)));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convCosh(Importer &im) {
  TRY(x, im.in(0));
  TRYT(e, tgc::exp(x));
  TRYT(nx, tgc::neg(x));
  TRYT(en, tgc::exp(nx));
  TRYT(d, tgc::add(e, en));
  TRYT(y, tgc::mul(d, Scalar(0.5)));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convAsinh(Importer &im) {
  TRY(x, im.in(0));
  TRYT(x2, tgc::mul(x, x));
  TRYT(x21, tgc::add(x2, Scalar(1.0)));
  TRYT(r, tgc::sqrt(x21));
  TRYT(s, tgc::add(x, r));
  TRYT(y, tgc::log(s));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convAcosh(Importer &im) {
  TRY(x, im.in(0));
  TRYT(x2, tgc::mul(x, x));
  TRYT(x21, tgc::sub(x2, Scalar(1.0)));
  TRYT(r, tgc::sqrt(x21));
  TRYT(s, tgc::add(x, r));
  TRYT(y, tgc::log(s));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convAtanh(Importer &im) {
  TRY(x, im.in(0));
  TRYT(num, tgc::add(Scalar(1.0), x));
  TRYT(den, tgc::sub(Scalar(1.0), x));
  TRYT(q, tgc::div(num, den));
  TRYT(l, tgc::log(q));
  TRYT(y, tgc::mul(l, Scalar(0.5)));
  im.out(0, y);
  return llvm::Error::success();
}

/// atan from existing ops (tgc has no atan): t = x, or 1/x where |x| > 1
/// (then atan(x) = sign(x) * pi/2 - atan(t)); one half-angle step
/// u = t / (1 + sqrt(1 + t^2)) brings |u| below tan(pi/8), where the Taylor
/// series to u^17 is within 3e-9 (atan(t) = 2 atan(u)).
llvm::Expected<Tensor> atanOf(Importer &im, const Tensor &x) {
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

llvm::Error convAtan(Importer &im) {
  TRY(x, im.in(0));
  TRY(y, atanOf(im, x));
  im.out(0, y);
  return llvm::Error::success();
}

/// asin(x) = atan(x / sqrt((1 - x)(1 + x))); +-1 give +-inf, hence +-pi/2.
llvm::Error convAsin(Importer &im) {
  TRY(x, im.in(0));
  TRYT(a, tgc::sub(Scalar(1.0), x));
  TRYT(b, tgc::add(x, Scalar(1.0)));
  TRYT(ab, tgc::mul(a, b));
  TRYT(root, tgc::sqrt(ab));
  TRYT(q, tgc::div(x, root));
  TRY(y, atanOf(im, q));
  im.out(0, y);
  return llvm::Error::success();
}

/// acos(x) = 2 atan(sqrt((1 - x) / (1 + x))), accurate near 1 as well.
llvm::Error convAcos(Importer &im) {
  TRY(x, im.in(0));
  TRYT(a, tgc::sub(Scalar(1.0), x));
  TRYT(b, tgc::add(x, Scalar(1.0)));
  TRYT(q, tgc::div(a, b));
  TRYT(root, tgc::sqrt(q));
  TRY(half, atanOf(im, root));
  TRYT(y, tgc::mul(half, Scalar(2.0)));
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Shape arithmetic on partially known values
//===----------------------------------------------------------------------===//

PartialResult partialIdentity(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  return std::optional<PartialInts>(ins[0]);
}

PartialResult partialCast(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  PartialInts x = ins[0];
  TRY(to, im.attrInt("to"));
  std::optional<DType> dtype =
      to ? dtypeFromOnnx(static_cast<int32_t>(*to)) : std::nullopt;
  if (!dtype || runtime::isFloatDType(*dtype) || *dtype == DType::I1)
    return std::optional<PartialInts>();
  x.dtype = *dtype;
  return std::optional<PartialInts>(std::move(x));
}

/// Add, Sub, Mul, Div: elementwise with broadcasting of one-element sides.
PartialResult partialArithmetic(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  const std::string &op = im.node().op_type();
  if (!im.has(1) || ins[0].dtype != ins[1].dtype)
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
  return std::optional<PartialInts>(std::move(result));
}

} // namespace

void onnximpl::registerElementwiseConverters(ConverterTable &table) {
  // Arithmetic, comparisons and logic.
  table.add("Add", 1, binaryOp<tgc::add>, partialArithmetic);
  table.add("Sub", 1, binaryOp<tgc::sub>, partialArithmetic);
  table.add("Mul", 1, binaryOp<tgc::mul>, partialArithmetic);
  table.add("Div", 1, binaryOp<tgc::div>, partialArithmetic);
  table.add("Pow", 1, convPow);
  table.add("Mod", 1, convMod);
  table.add("Max", 1, variadicOp<tgc::maximum>);
  table.add("Min", 1, variadicOp<tgc::minimum>);
  table.add("Sum", 1, variadicOp<tgc::add>);
  table.add("Mean", 1, convMean);
  table.add("Equal", 1, binaryOp<tgc::equal>);
  table.add("Less", 1, binaryOp<tgc::less>);
  table.add("LessOrEqual", 1, binaryOp<tgc::lessEqual>);
  table.add("Greater", 1, binaryOp<tgc::greater>);
  table.add("GreaterOrEqual", 1, binaryOp<tgc::greaterEqual>);
  table.add("And", 1, binaryOp<tgc::logicalAnd>);
  table.add("Or", 1, binaryOp<tgc::logicalOr>);
  table.add("Xor", 1, convXor);
  table.add("Not", 1, unaryOp<tgc::logicalNot>);
  table.add("BitShift", 1, convBitShift);
  table.add("Neg", 1, unaryOp<tgc::neg>);
  table.add("Abs", 1, unaryOp<tgc::abs>);
  table.add("Exp", 1, unaryOp<tgc::exp>);
  table.add("Log", 1, unaryOp<tgc::log>);
  table.add("Sqrt", 1, unaryOp<tgc::sqrt>);
  table.add("Reciprocal", 1, unaryOp<tgc::reciprocal>);
  table.add("Floor", 1, unaryOp<tgc::floor>);
  table.add("Ceil", 1, unaryOp<tgc::ceil>);
  table.add("Round", 1, unaryOp<tgc::round>);
  table.add("Sign", 1, unaryOp<tgc::sign>);
  table.add("Erf", 1, unaryOp<tgc::erf>);
  table.add("IsNaN", 1, convIsNaN);
  table.add("IsInf", 1, convIsInf);
  table.add("Identity", 1, convIdentity, partialIdentity);
  table.add("Cast", 1, convCast, partialCast);
  table.add("CastLike", 1, convCastLike);
  table.add("Where", 1, convWhere);
  table.add("Clip", 1, convClipV1);
  table.add("Clip", 11, convClipV11);
  // Activations.
  table.add("Relu", 1, unaryOp<tgc::relu>);
  table.add("Sigmoid", 1, unaryOp<tgc::sigmoid>);
  table.add("Tanh", 1, unaryOp<tgc::tanh>);
  table.add("PRelu", 1, convPRelu);
  table.add("LeakyRelu", 1, convLeakyRelu);
  table.add("Elu", 1, convElu);
  table.add("Selu", 1, convSelu);
  table.add("Celu", 1, convCelu);
  table.add("HardSigmoid", 1, convHardSigmoid);
  table.add("HardSwish", 1, convHardSwish);
  table.add("Softplus", 1, convSoftplus);
  table.add("Softsign", 1, convSoftsign);
  table.add("Mish", 1, convMish);
  table.add("ThresholdedRelu", 1, convThresholdedRelu);
  table.add("Shrink", 1, convShrink);
  // Trigonometric and hyperbolic functions.
  table.add("Sin", 1, unaryOp<tgc::sin>);
  table.add("Cos", 1, unaryOp<tgc::cos>);
  table.add("Tan", 1, convTan);
  table.add("Asin", 1, convAsin);
  table.add("Acos", 1, convAcos);
  table.add("Atan", 1, convAtan);
  table.add("Sinh", 1, convSinh);
  table.add("Cosh", 1, convCosh);
  table.add("Asinh", 1, convAsinh);
  table.add("Acosh", 1, convAcosh);
  table.add("Atanh", 1, convAtanh);
}
