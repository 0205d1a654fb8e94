//===- Quantization.cpp - quantized ONNX ops ------------------------------===//
//
// Converters of QuantizeLinear, DequantizeLinear, ConvInteger,
// MatMulInteger, QLinearMatMul and QLinearConv. QLinearMatMul and
// QLinearConv with constant weights take the QDQ form (dequantize, float
// contraction, quantize), which the CPU backend runs on int8 kernels;
// otherwise their exact integer form.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

/// A QuantizeLinear/DequantizeLinear scale or zero point made to broadcast
/// against `x`: a scalar (or 1-element) stays, a 1-D per-axis parameter gets
/// trailing 1 dims after `axis` (the node's `axis` attribute when not
/// given).
llvm::Expected<Tensor> perAxisParam(Importer &im, const Tensor &param,
                                    const Tensor &x, llvm::StringRef what,
                                    std::optional<int64_t> axis0 = {}) {
  if (param.rank() == 0 || (param.rank() == 1 && param.dim(0) == 1))
    return param;
  if (param.rank() != 1)
    return im.fail(what + " " + param.describe() + " must be a scalar or 1-D");
  int64_t axis;
  if (axis0) {
    axis = *axis0;
  } else {
    TRY(a, im.axisAttr("axis", 1, x.rank()));
    axis = a;
  }
  std::vector<int64_t> shape(static_cast<size_t>(x.rank() - axis), 1);
  shape[0] = param.dim(0).value_or(kDynamic);
  return im.reshapeTo(param, shape);
}

/// QuantizeLinear: y = saturate(round_half_even(x / scale) + zero_point),
/// computed in the scale's float type, of type `outType` (the zero point's
/// when there is one). The spelling tgc-absorb-fake-quant recognizes.
llvm::Expected<Tensor> quantizeLinear(Importer &im, const Tensor &x0,
                                      const Tensor &scale0,
                                      std::optional<Tensor> zp0,
                                      std::optional<int64_t> axis = {}) {
  if (!runtime::isFloatDType(scale0.dtype()))
    return im.fail("y_scale " + scale0.describe() + " must be a float tensor");
  DType floatType = scale0.dtype();
  Tensor x = x0;
  if (x.dtype() != floatType) {
    TRYT(c, tgc::cast(x0, floatType));
    x = c;
  }
  TRY(scale, perAxisParam(im, scale0, x, "y_scale", axis));
  TRYT(q, tgc::div(x, scale));
  TRYT(r, tgc::round(q));
  Tensor y = r;
  DType outType = DType::UI8;
  if (zp0) {
    outType = zp0->dtype();
    TRYT(zpf, tgc::cast(*zp0, floatType));
    TRY(zp, perAxisParam(im, zpf, x, "y_zero_point", axis));
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
    return im.unsupported("quantizing to " +
                          std::string(runtime::dtypeName(outType)) +
                          " is not supported");
  }
  TRYT(clamped, tgc::clamp(y, lo, hi));
  TRYT(result, tgc::cast(clamped, outType));
  return result;
}

/// DequantizeLinear: y = (x - zero_point) * scale in the scale's float
/// type.
llvm::Expected<Tensor> dequantizeLinear(Importer &im, const Tensor &x0,
                                        const Tensor &scale0,
                                        std::optional<Tensor> zp0,
                                        std::optional<int64_t> axis = {}) {
  if (!runtime::isFloatDType(scale0.dtype()))
    return im.fail("x_scale " + scale0.describe() + " must be a float tensor");
  DType floatType = scale0.dtype();
  TRYT(x, tgc::cast(x0, floatType));
  Tensor centered = x;
  if (zp0) {
    TRYT(zpf, tgc::cast(*zp0, floatType));
    TRY(zp, perAxisParam(im, zpf, x, "x_zero_point", axis));
    TRYT(d, tgc::sub(x, zp));
    centered = d;
  }
  TRY(scale, perAxisParam(im, scale0, x, "x_scale", axis));
  TRYT(y, tgc::mul(centered, scale));
  return y;
}

/// QuantizeLinear (`Linear` = quantizeLinear) or DequantizeLinear
/// (dequantizeLinear) of the node's x, scale and optional zero point.
template <llvm::Expected<Tensor> (*Linear)(
    Importer &, const Tensor &, const Tensor &, std::optional<Tensor>,
    std::optional<int64_t>)>
llvm::Error convLinearQuantization(Importer &im) {
  TRY(x, im.in(0));
  TRY(scale, im.in(1));
  std::optional<Tensor> zp;
  if (im.has(2)) {
    TRY(t, im.in(2));
    zp = t;
  }
  TRY(y, Linear(im, x, scale, zp, std::nullopt));
  im.out(0, y);
  return llvm::Error::success();
}

/// `x - zeroPoint` in `type`, where a 1-D zero point of more than one element
/// runs along dim `axis` of `x` (per-row, per-column or per-channel).
llvm::Expected<Tensor> subtractZeroPoint(Importer &im, const Tensor &x,
                                         std::optional<Tensor> zp0,
                                         int64_t axis, DType type) {
  TRYT(xc, tgc::cast(x, type));
  if (!zp0)
    return xc;
  TRYT(zpc, tgc::cast(*zp0, type));
  Tensor zp = zpc;
  if (zp.rank() == 1 && zp.dim(0) != 1) {
    if (axis < 0 || axis >= x.rank())
      return im.fail("zero point " + zp0->describe() +
                     " does not fit the operand " + x.describe());
    std::vector<int64_t> shape(static_cast<size_t>(x.rank() - axis), 1);
    shape[0] = zp.dim(0).value_or(kDynamic);
    TRY(r, im.reshapeTo(zp, shape));
    zp = r;
  } else if (zp.rank() > 1) {
    return im.fail("zero point " + zp0->describe() +
                   " must be a scalar or 1-D");
  }
  TRYT(d, tgc::sub(xc, zp));
  return d;
}

llvm::Error convConvInteger(Importer &im) {
  // int32 result of a convolution of (x - x_zero_point) and
  // (w - w_zero_point), computed in f64: exact for every 8-bit input.
  TRY(x0, im.in(0));
  TRY(w0, im.in(1));
  std::optional<Tensor> xzp, wzp;
  if (im.has(2)) {
    TRY(t, im.in(2));
    xzp = t;
  }
  if (im.has(3)) {
    TRY(t, im.in(3));
    wzp = t;
  }
  TRY(x, subtractZeroPoint(im, x0, xzp, 1, DType::F64));
  TRY(w, subtractZeroPoint(im, w0, wzp, 0, DType::F64));
  TRY(y, convolve(im, x, w, std::nullopt));
  TRYT(yi, tgc::cast(y, DType::I32));
  im.out(0, yi);
  return llvm::Error::success();
}

/// The int32 product (a - a_zero_point) @ (b - b_zero_point) of 2-D or
/// batched operands (a per-row zero point runs along a's rows, a per-column
/// one along b's columns).
llvm::Expected<Tensor> integerMatmul(Importer &im, const Tensor &a0,
                                     std::optional<Tensor> azp,
                                     const Tensor &b0,
                                     std::optional<Tensor> bzp) {
  if (a0.rank() < 2 || b0.rank() < 2)
    return im.unsupported("integer matmul of " + a0.describe() + " and " +
                          b0.describe() +
                          ": operands of rank 1 are not supported");
  TRY(a, subtractZeroPoint(im, a0, azp, a0.rank() - 2, DType::I32));
  TRY(b, subtractZeroPoint(im, b0, bzp, b0.rank() - 1, DType::I32));
  TRYT(y, tgc::matmul(a, b));
  return y;
}

llvm::Error convMatMulInteger(Importer &im) {
  TRY(a, im.in(0));
  TRY(b, im.in(1));
  std::optional<Tensor> azp, bzp;
  if (im.has(2)) {
    TRY(t, im.in(2));
    azp = t;
  }
  if (im.has(3)) {
    TRY(t, im.in(3));
    bzp = t;
  }
  TRY(y, integerMatmul(im, a, azp, b, bzp));
  im.out(0, y);
  return llvm::Error::success();
}

/// Requantizes an int32 accumulator: saturate(round_half_even(acc * scale) +
/// zero_point) in the zero point's type, with `scale` a float tensor that
/// broadcasts against `acc`.
llvm::Expected<Tensor> requantize(Importer &im, const Tensor &acc,
                                  const Tensor &scale, const Tensor &zp) {
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
    return im.unsupported("quantizing to " + zp.describe() +
                          " is not supported");
  TRYT(clamped, tgc::clamp(shifted, lo, hi));
  TRYT(y, tgc::cast(clamped, zp.dtype()));
  return y;
}

/// QLinearConv's and QLinearMatMul's first eight inputs: x (a), its scale
/// and zero point, w (b), its scale and zero point, y's scale and zero
/// point.
struct QLinearOperands {
  Tensor x, xs, xzp, w, ws, wzp, ys, yzp;
};

llvm::Expected<QLinearOperands> qlinearOperands(Importer &im) {
  TRY(x, im.in(0));
  TRY(xs, im.in(1));
  TRY(xzp, im.in(2));
  TRY(w, im.in(3));
  TRY(ws, im.in(4));
  TRY(wzp, im.in(5));
  TRY(ys, im.in(6));
  TRY(yzp, im.in(7));
  return QLinearOperands{x, xs, xzp, w, ws, wzp, ys, yzp};
}

/// Whether the weights (input 3) are a constant and the activations' scales
/// and zero points (inputs 1, 2, 6, 7) constant scalars: then QLinearConv /
/// QLinearMatMul take their float form. The weights are not materialized.
bool floatFormApplies(Importer &im) {
  if (!im.isConstantOpIn(3))
    return false;
  for (int i : {1, 2, 6, 7}) {
    auto value = im.constIn(i);
    if (!value) {
      llvm::consumeError(value.takeError());
      return false;
    }
    if (!*value || (*value)->numElements() != 1)
      return false;
  }
  return true;
}

/// QLinearMatMul / QLinearConv with constant weights and scalar activation
/// parameters (ONNX Runtime's QOperator format of a quantized model): the
/// operands dequantized, the float contraction, the result quantized, i.e.
/// the QDQ form, whose pairs tgc-absorb-fake-quant folds into int8 kernels
/// on the CPU. Rounding can differ from the exact integer form by one step
/// where the float sums land on a tie.
llvm::Error convQLinearMatMulFloat(Importer &im, const QLinearOperands &q) {
  if (q.w.rank() < 2)
    return im.unsupported("QLinearMatMul of " + q.w.describe() +
                          ": operands of rank 1 are not supported");
  TRY(af, dequantizeLinear(im, q.x, q.xs, q.xzp));
  // Per-column weight parameters run along b's last dim.
  TRY(bf, dequantizeLinear(im, q.w, q.ws, q.wzp, q.w.rank() - 1));
  TRYT(y, tgc::matmul(af, bf));
  TRY(quantized, quantizeLinear(im, y, q.ys, q.yzp));
  im.out(0, quantized);
  return llvm::Error::success();
}

llvm::Error convQLinearConvFloat(Importer &im, const QLinearOperands &q) {
  TRY(xf, dequantizeLinear(im, q.x, q.xs, q.xzp));
  // Per-output-channel weight parameters run along the filter's dim 0.
  TRY(wf, dequantizeLinear(im, q.w, q.ws, q.wzp, 0));
  std::optional<Tensor> bias;
  if (im.has(8)) {
    // int32, in units of x_scale * w_scale (per output channel).
    TRY(b, im.in(8));
    TRYT(bf, tgc::cast(b, q.xs.dtype()));
    TRYT(scale, tgc::mul(q.xs, q.ws));
    TRYT(scaled, tgc::mul(bf, scale));
    bias = scaled;
  }
  TRY(y, convolve(im, xf, wf, bias));
  TRY(quantized, quantizeLinear(im, y, q.ys, q.yzp));
  im.out(0, quantized);
  return llvm::Error::success();
}

llvm::Error convQLinearMatMul(Importer &im) {
  TRY(q, qlinearOperands(im));
  if (floatFormApplies(im))
    return convQLinearMatMulFloat(im, q);
  for (const Tensor *s : {&q.xs, &q.ws, &q.ys})
    if (s->rank() != 0 && !(s->rank() == 1 && s->dim(0) == 1))
      return im.unsupported("per-row or per-column scales are not supported");
  TRY(acc, integerMatmul(im, q.x, q.xzp, q.w, q.wzp));
  TRYT(abs, tgc::mul(q.xs, q.ws));
  TRYT(scale, tgc::div(abs, q.ys));
  TRY(y, requantize(im, acc, scale, q.yzp));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convQLinearConv(Importer &im) {
  TRY(q, qlinearOperands(im));
  if (floatFormApplies(im))
    return convQLinearConvFloat(im, q);
  // The int32 accumulator (plus the int32 bias) is exact in f64.
  TRY(x, subtractZeroPoint(im, q.x, q.xzp, 1, DType::F64));
  TRY(w, subtractZeroPoint(im, q.w, q.wzp, 0, DType::F64));
  std::optional<Tensor> bias;
  if (im.has(8)) {
    TRY(b, im.in(8));
    TRYT(bf, tgc::cast(b, DType::F64));
    bias = bf;
  }
  TRY(acc, convolve(im, x, w, bias));
  // A per-output-channel w_scale runs along the result's dim 1.
  TRY(ws, perAxisParam(im, q.ws, acc, "w_scale", 1));
  TRYT(xws, tgc::mul(q.xs, ws));
  TRYT(scale, tgc::div(xws, q.ys));
  TRY(y, requantize(im, acc, scale, q.yzp));
  im.out(0, y);
  return llvm::Error::success();
}

} // namespace

void onnximpl::registerQuantizationConverters(ConverterTable &table) {
  table.add("QuantizeLinear", 1, convLinearQuantization<quantizeLinear>);
  table.add("DequantizeLinear", 1, convLinearQuantization<dequantizeLinear>);
  table.add("ConvInteger", 1, convConvInteger);
  table.add("MatMulInteger", 1, convMatMulInteger);
  table.add("QLinearConv", 1, convQLinearConv);
  table.add("QLinearMatMul", 1, convQLinearMatMul);
}
