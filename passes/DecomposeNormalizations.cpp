//===- DecomposeNormalizations.cpp - normalizations to primitive ops ------===//
//
// tgc-decompose-normalizations: softmax, log_softmax, layer_norm and
// batch_norm over static f32 tensors become the reductions and elementwise
// ops they are made of, so that loop fusion can put each (with its
// neighbours) into one generated kernel. Backends with a library kernel
// for the whole op (oneDNN on the CPU) do not run it.
//
//===----------------------------------------------------------------------===//

#include "dialects/TgcOps.h"
#include "passes/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tgc {
#define GEN_PASS_DEF_TGCDECOMPOSENORMALIZATIONS
#include "passes/Passes.h.inc"
} // namespace tgc

using namespace mlir;
using namespace tgc;

namespace {

bool isStaticF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32();
}

/// `type` with the dims in `axes` set to 1 (the keepdims reduction type).
RankedTensorType keptType(RankedTensorType type, ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t axis : axes)
    shape[axis] = 1;
  return RankedTensorType::get(shape, type.getElementType());
}

Value splat(PatternRewriter &rewriter, Location loc, float value) {
  auto type = RankedTensorType::get({}, rewriter.getF32Type());
  return ConstantOp::create(rewriter, loc, DenseElementsAttr::get(type, value));
}

/// softmax(x) = e / sum(e), e = exp(x - max(x));
/// log_softmax(x) = (x - max(x)) - log(sum(e)); along `axis`.
template <typename OpTy, bool Log>
struct DecomposeSoftmax : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!isStaticF32(op.getInput().getType()))
      return rewriter.notifyMatchFailure(op, "not a static f32 tensor");
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    Location loc = op.getLoc();
    auto axes = rewriter.getDenseI64ArrayAttr({axis});
    RankedTensorType kept = keptType(type, {axis});
    Value max = ReduceMaxOp::create(rewriter, loc, kept, op.getInput(), axes,
                                    rewriter.getUnitAttr());
    Value shifted = SubOp::create(rewriter, loc, type, op.getInput(), max);
    Value e = ExpOp::create(rewriter, loc, type, shifted);
    Value sum = ReduceSumOp::create(rewriter, loc, kept, e, axes,
                                    rewriter.getUnitAttr());
    Value result;
    if constexpr (Log) {
      Value logSum = LogOp::create(rewriter, loc, kept, sum);
      result = SubOp::create(rewriter, loc, type, shifted, logSum);
    } else {
      result = DivOp::create(rewriter, loc, type, e, sum);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// layer_norm(x) = (x - mean) * rsqrt(mean((x - mean)^2) + eps) * scale
/// + bias over dims [axis, rank) (scale and bias broadcast from the right).
struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Type inputType = op.getInput().getType();
    if (!isStaticF32(inputType) ||
        (op.getScale() && !isStaticF32(op.getScale().getType())) ||
        (op.getBias() && !isStaticF32(op.getBias().getType())))
      return rewriter.notifyMatchFailure(op, "not static f32 tensors");
    auto type = cast<RankedTensorType>(inputType);
    Location loc = op.getLoc();
    SmallVector<int64_t> axisList;
    for (int64_t d = op.getAxis(); d < type.getRank(); ++d)
      axisList.push_back(d);
    auto axes = rewriter.getDenseI64ArrayAttr(axisList);
    RankedTensorType kept = keptType(type, axisList);
    Value mean = ReduceMeanOp::create(rewriter, loc, kept, op.getInput(), axes,
                                      rewriter.getUnitAttr());
    Value centered = SubOp::create(rewriter, loc, type, op.getInput(), mean);
    Value squared = MulOp::create(rewriter, loc, type, centered, centered);
    Value variance = ReduceMeanOp::create(rewriter, loc, kept, squared, axes,
                                          rewriter.getUnitAttr());
    Value shifted = AddOp::create(
        rewriter, loc, kept, variance,
        splat(rewriter, loc,
              static_cast<float>(op.getEpsilon().convertToDouble())));
    Value inverse = RsqrtOp::create(rewriter, loc, kept, shifted);
    Value result = MulOp::create(rewriter, loc, type, centered, inverse);
    if (op.getScale())
      result = MulOp::create(rewriter, loc, type, result, op.getScale());
    if (op.getBias())
      result = AddOp::create(rewriter, loc, type, result, op.getBias());
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// batch_norm(x) = (x - mean) * (scale * rsqrt(variance + eps)) + bias, the
/// per-channel operands viewed with x's rank (channel dim `axis`).
struct DecomposeBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    for (Value v : op->getOperands())
      if (!isStaticF32(v.getType()))
        return rewriter.notifyMatchFailure(op, "not static f32 tensors");
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getAxis();
    if (axis < 0 || axis >= type.getRank())
      return rewriter.notifyMatchFailure(op, "bad axis");
    Location loc = op.getLoc();
    SmallVector<int64_t> shape(type.getRank(), 1);
    shape[axis] = type.getDimSize(axis);
    auto channelType = RankedTensorType::get(shape, type.getElementType());
    auto view = [&](Value v) -> Value {
      return ReshapeOp::create(rewriter, loc, channelType, v);
    };
    Value shifted = AddOp::create(
        rewriter, loc, op.getVariance().getType(), op.getVariance(),
        splat(rewriter, loc,
              static_cast<float>(op.getEpsilon().convertToDouble())));
    Value inverse = RsqrtOp::create(rewriter, loc, shifted.getType(), shifted);
    Value factor =
        MulOp::create(rewriter, loc, inverse.getType(), op.getScale(), inverse);
    Value centered =
        SubOp::create(rewriter, loc, type, op.getInput(), view(op.getMean()));
    Value scaled = MulOp::create(rewriter, loc, type, centered, view(factor));
    Value result =
        AddOp::create(rewriter, loc, type, scaled, view(op.getBias()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TgcDecomposeNormalizationsPass
    : tgc::impl::TgcDecomposeNormalizationsBase<
          TgcDecomposeNormalizationsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDecomposeNormalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void tgc::populateDecomposeNormalizationPatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeSoftmax<SoftmaxOp, false>,
               DecomposeSoftmax<LogSoftmaxOp, true>, DecomposeLayerNorm,
               DecomposeBatchNorm>(patterns.getContext());
}
