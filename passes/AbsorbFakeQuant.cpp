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
// the pair) reads %x instead and
// carries tgc.input_quantization (dialects/InputQuantization.h), which the
// CPU backend runs as an int8 kernel and the interpreter as the pair.
//
//===----------------------------------------------------------------------===//

#include "dialects/InputQuantization.h"
#include "dialects/TgcOps.h"
#include "passes/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
  Type element = attr.getElementType();
  if (isa<FloatType>(element))
    return attr.getSplatValue<APFloat>().convertToDouble();
  if (auto integer = dyn_cast<IntegerType>(element))
    return integer.isUnsigned()
               ? static_cast<double>(attr.getSplatValue<APInt>().getZExtValue())
               : static_cast<double>(attr.getSplatValue<APInt>().getSExtValue());
  return std::nullopt;
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
  auto storage = dyn_cast<IntegerType>(
      cast<RankedTensorType>(quantized.getType()).getElementType());
  if (!storage || storage.getWidth() != 8)
    return std::nullopt;
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
  if (!divided || static_cast<float>(divided->first) !=
                      static_cast<float>(scale))
    return std::nullopt;
  if (zeroPoint.value_or(0) != quantizeZeroPoint.value_or(0) ||
      zeroPoint.value_or(0) != std::round(zeroPoint.value_or(0)))
    return std::nullopt;
  Value x = divided->second;
  if (x.getType() != y.getType())
    return std::nullopt;
  q.scale = static_cast<float>(scale);
  q.zeroPoint = static_cast<int64_t>(zeroPoint.value_or(0));
  if (!(q.scale > 0) || !std::isfinite(q.scale) || q.zeroPoint < q.lowest() ||
      q.zeroPoint > q.highest())
    return std::nullopt;
  return std::make_pair(x, q);
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
    // The int8 kernels take constant weights, and a zero point only with
    // ui8 activations.
    if (!matchPattern(op->getOperand(1), m_Constant()))
      return failure();
    // The pair may be before a reshape (ONNX's Flatten before a Gemm):
    // rounding to a grid commutes with it.
    Value input = op->getOperand(0);
    auto reshape = input.template getDefiningOp<ReshapeOp>();
    auto pair = matchPair(reshape ? reshape.getInput() : input);
    if (!pair || (!pair->second.isUnsigned && pair->second.zeroPoint != 0))
      return failure();
    Value x = pair->first;
    if (reshape) {
      Operation *reshaped = rewriter.clone(*reshape);
      reshaped->setOperand(0, x);
      x = reshaped->getResult(0);
    }
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, x);
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
