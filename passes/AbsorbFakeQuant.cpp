//===- AbsorbFakeQuant.cpp - QDQ pairs into int8 contractions -------------===//
//
// tgc-absorb-fake-quant: a conv2d or matmul whose activation input is a
// quantize / dequantize pair with constant scalar parameters (a QDQ ONNX
// model's QuantizeLinear + DequantizeLinear, as the importer spells them)
//
//   %d = div %x, S ; %r = round %d ; %a = add %r, Z ; %c = clamp %a [lo, hi]
//   %q = cast %c : f32 -> ui8|i8 ; %f = cast %q : -> f32
//   %s = sub %f, Z ; %y = mul %s, S ; conv2d(%y, ...) / matmul(%y, ...)
//
// (the adds and subs of a zero point only with one; a reshape may follow
// the pair or sit between %c's cast and %f's) reads %x instead and
// carries tgc.input_quantization (dialects/InputQuantization.h), which the
// CPU backend runs as an int8 kernel and the interpreter as the pair.
//
//===----------------------------------------------------------------------===//

#include "dialects/ConstantData.h"
#include "dialects/InputQuantization.h"
#include "dialects/TgcOps.h"
#include "passes/Passes.h"
#include "runtime/Shape.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <vector>

namespace tgc {
#define GEN_PASS_DEF_TGCABSORBFAKEQUANT
#include "passes/Passes.h.inc"
} // namespace tgc

using namespace mlir;
using namespace tgc;

namespace {

/// The value of a splat float or integer constant, if `value` is one.
std::optional<double> splatValue(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  auto values = constantAsDoubles(attr, 1);
  return values ? std::optional<double>(values->front()) : std::nullopt;
}

/// `op`'s operand that is a splat constant (either side of a binary op) and
/// the other one.
template <typename BinaryOp>
std::optional<std::pair<double, Value>> splatOperand(BinaryOp op,
                                                     bool eitherSide) {
  if (auto c = splatValue(op.getRhs()))
    return std::make_pair(*c, op.getLhs());
  if (eitherSide)
    if (auto c = splatValue(op.getLhs()))
      return std::make_pair(*c, op.getRhs());
  return std::nullopt;
}

bool isF32(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getElementType().isF32();
}

/// The quantize / dequantize pair defining `y`: its float input and its
/// parameters.
std::optional<std::pair<Value, InputQuantization>> matchPair(Value y) {
  if (!isF32(y))
    return std::nullopt;
  auto mul = y.getDefiningOp<MulOp>();
  if (!mul)
    return std::nullopt;
  auto scaled = splatOperand(mul, /*eitherSide=*/true);
  if (!scaled)
    return std::nullopt;
  auto [scale, centered] = *scaled;
  std::optional<double> zeroPoint;
  if (auto sub = centered.getDefiningOp<SubOp>()) {
    auto shifted = splatOperand(sub, /*eitherSide=*/false);
    if (!shifted)
      return std::nullopt;
    zeroPoint = shifted->first;
    centered = shifted->second;
  }
  auto widen = centered.getDefiningOp<CastOp>();
  if (!widen)
    return std::nullopt;
  Value quantized = widen.getInput();
  auto storage = dyn_cast<IntegerType>(getElementTypeOrSelf(quantized));
  if (!storage || storage.getWidth() != 8)
    return std::nullopt;
  // The quantized tensor may be reshaped between the two (ONNX Runtime's
  // QOperator format flattens the quantized tensor before a
  // QLinearMatMul): the contraction then reads the float input reshaped.
  if (auto reshape = quantized.getDefiningOp<ReshapeOp>())
    quantized = reshape.getInput();
  auto narrow = quantized.getDefiningOp<CastOp>();
  if (!narrow || !isF32(narrow.getInput()))
    return std::nullopt;
  auto clamp = narrow.getInput().getDefiningOp<ClampOp>();
  InputQuantization q;
  q.isUnsigned = storage.isUnsigned();
  if (!clamp || clamp.getMin().convertToDouble() != q.lowest() ||
      clamp.getMax().convertToDouble() != q.highest())
    return std::nullopt;
  Value rounded = clamp.getInput();
  std::optional<double> quantizeZeroPoint;
  if (auto add = rounded.getDefiningOp<AddOp>()) {
    auto shifted = splatOperand(add, /*eitherSide=*/true);
    if (!shifted)
      return std::nullopt;
    quantizeZeroPoint = shifted->first;
    rounded = shifted->second;
  }
  auto round = rounded.getDefiningOp<RoundOp>();
  if (!round)
    return std::nullopt;
  auto div = round.getInput().getDefiningOp<DivOp>();
  if (!div)
    return std::nullopt;
  auto divided = splatOperand(div, /*eitherSide=*/false);
  // One pair: the same scale (as f32) and zero point on both sides, a
  // whole zero point in the storage's range, and no broadcast of the input.
  if (!divided ||
      static_cast<float>(divided->first) != static_cast<float>(scale))
    return std::nullopt;
  if (zeroPoint.value_or(0) != quantizeZeroPoint.value_or(0) ||
      zeroPoint.value_or(0) != std::round(zeroPoint.value_or(0)))
    return std::nullopt;
  Value x = divided->second;
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto yType = dyn_cast<RankedTensorType>(y.getType());
  if (x.getType() != y.getType() &&
      (!xType || !yType || !xType.hasStaticShape() || !yType.hasStaticShape() ||
       xType.getNumElements() != yType.getNumElements() ||
       !xType.getElementType().isF32()))
    return std::nullopt;
  q.scale = static_cast<float>(scale);
  q.zeroPoint = static_cast<int64_t>(zeroPoint.value_or(0));
  if (!q.valid())
    return std::nullopt;
  return std::make_pair(x, q);
}

/// The most weights computed here (256 MiB of f32): larger ones keep their
/// dequantization (and the contraction its f32 kernel).
constexpr int64_t kMaxWeightElements = int64_t{1} << 26;

/// The elements of a constant as floats (an integer constant's values
/// converted), broadcast strides of `shape` against `target` (0 along
/// size-1 dims); nullopt when it is not a constant that broadcasts so.
struct ConstantOperand {
  std::vector<float> values;
  std::vector<int64_t> strides;
};
std::optional<ConstantOperand> constantOperand(Value value,
                                               ArrayRef<int64_t> target) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(attr.getType());
  if (!type || !type.hasStaticShape() ||
      !runtime::broadcastsTo(type.getShape(), target))
    return std::nullopt;
  std::optional<std::vector<double>> values =
      constantAsDoubles(attr, kMaxWeightElements);
  if (!values)
    return std::nullopt;
  ConstantOperand out;
  out.values.assign(values->begin(), values->end());
  // A splat holds one value for every position.
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  out.strides = dense && dense.isSplat()
                    ? std::vector<int64_t>(target.size(), 0)
                    : runtime::broadcastStrides(type.getShape(), target);
  return out;
}

/// A QDQ model's dequantized weights, `mul(cast(Q) [- Z], S)` with Q an
/// 8-bit integer constant and Z, S constants along its dims: the f32
/// constant they compute (the generic folds leave tensors above a million
/// elements alone). Computed as the f32 ops do.
std::optional<DenseElementsAttr> dequantizedWeights(Value weights) {
  auto type = dyn_cast<RankedTensorType>(weights.getType());
  auto mul = weights.getDefiningOp<MulOp>();
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
      !mul || type.getNumElements() > kMaxWeightElements)
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  for (auto [centered, scaleValue] : {std::pair(mul.getLhs(), mul.getRhs()),
                                      std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<ConstantOperand> scale = constantOperand(scaleValue, shape);
    if (!scale || centered.getType() != weights.getType())
      continue;
    std::optional<ConstantOperand> zeroPoint;
    Value widened = centered;
    if (auto sub = centered.getDefiningOp<SubOp>()) {
      zeroPoint = constantOperand(sub.getRhs(), shape);
      widened = sub.getLhs();
      if (!zeroPoint || widened.getType() != weights.getType())
        continue;
    }
    auto widen = widened.getDefiningOp<CastOp>();
    if (!widen)
      continue;
    auto integer =
        dyn_cast<IntegerType>(getElementTypeOrSelf(widen.getInput()));
    if (!integer || integer.getWidth() != 8)
      continue;
    std::optional<ConstantOperand> q = constantOperand(widen.getInput(), shape);
    if (!q)
      continue;
    int64_t count = type.getNumElements();
    std::vector<float> out(static_cast<size_t>(count));
    std::vector<int64_t> index(shape.size(), 0);
    for (int64_t i = 0; i < count; ++i) {
      int64_t at[3] = {0, 0, 0};
      for (size_t d = 0; d < shape.size(); ++d) {
        at[0] += index[d] * q->strides[d];
        at[1] += index[d] * scale->strides[d];
        if (zeroPoint)
          at[2] += index[d] * zeroPoint->strides[d];
      }
      float v = q->values[static_cast<size_t>(at[0])];
      if (zeroPoint)
        v -= zeroPoint->values[static_cast<size_t>(at[2])];
      out[static_cast<size_t>(i)] =
          v * scale->values[static_cast<size_t>(at[1])];
      for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
    return DenseElementsAttr::get(type, ArrayRef<float>(out));
  }
  return std::nullopt;
}

/// conv2d / matmul (not transposing its input) of a quantize / dequantize
/// pair => the contraction of the pair's input with tgc.input_quantization.
template <typename ContractionOp>
struct AbsorbFakeQuant : OpRewritePattern<ContractionOp> {
  using OpRewritePattern<ContractionOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ContractionOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr(kInputQuantizationAttr))
      return failure();
    if constexpr (std::is_same_v<ContractionOp, MatmulOp>)
      if (op.getTransposeA())
        return failure();
    // The pair may be before a reshape (ONNX's Flatten before a Gemm):
    // rounding to a grid commutes with it.
    Value input = op->getOperand(0);
    auto reshape = input.template getDefiningOp<ReshapeOp>();
    auto pair = matchPair(reshape ? reshape.getInput() : input);
    if (!pair || (!pair->second.isUnsigned && pair->second.zeroPoint != 0))
      return failure();
    // The int8 kernels take constant weights (a zero point only with ui8
    // activations, above): dequantized int8 weights are computed here.
    Value weights = op->getOperand(1);
    std::optional<DenseElementsAttr> folded;
    if (!matchPattern(weights, m_Constant())) {
      folded = dequantizedWeights(weights);
      if (!folded)
        return failure();
      weights = ConstantOp::create(rewriter, weights.getLoc(), *folded);
    }
    Value x = pair->first;
    Value pairResult = reshape ? reshape.getInput() : input;
    if (x.getType() != pairResult.getType())
      x = ReshapeOp::create(rewriter, op.getLoc(), pairResult.getType(), x);
    if (reshape) {
      Operation *reshaped = rewriter.clone(*reshape);
      reshaped->setOperand(0, x);
      x = reshaped->getResult(0);
    }
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, x);
      op->setOperand(1, weights);
      setInputQuantization(op, pair->second);
    });
    return success();
  }
};

struct TgcAbsorbFakeQuantPass
    : tgc::impl::TgcAbsorbFakeQuantBase<TgcAbsorbFakeQuantPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateAbsorbFakeQuantPatterns(patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void tgc::populateAbsorbFakeQuantPatterns(RewritePatternSet &patterns) {
  patterns.add<AbsorbFakeQuant<Conv2DOp>, AbsorbFakeQuant<MatmulOp>>(
      patterns.getContext());
}
