//===- FoldBatchNorm.cpp - batch norm into conv2d/matmul weights ----------===//
//
// tgc-fold-batch-norm: batch_norm(contraction(x, W) [+ b]) with constant
// weights and statistics becomes contraction(x, W * s) + (b - mean) * s +
// bias, s = scale / sqrt(variance + epsilon), per output channel.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/PostOpFusion.h"

#include "dialects/ConstantData.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <vector>

namespace tgc {
#define GEN_PASS_DEF_TGCFOLDBATCHNORM
#include "passes/Passes.h.inc"
} // namespace tgc

using namespace mlir;
using namespace tgc;

namespace {

/// The most elements of a constant the fold expands into doubles (512 MiB):
/// a larger one (a splat `dense<0.5> : tensor<3000000000xf32>`) is left
/// unfolded rather than exhausting memory.
constexpr int64_t kMaxExpandedElements = int64_t{1} << 26;

/// The elements of a float constant (a splat expanded), row-major; nullopt
/// when it is not one, or when it does not have `expectedCount` elements
/// (where given) or more than kMaxExpandedElements.
std::optional<std::vector<double>>
readFloats(Value value, std::optional<int64_t> expectedCount = std::nullopt) {
  ElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) ||
      !isa<FloatType>(attr.getElementType()) ||
      !cast<ShapedType>(attr.getType()).hasStaticShape() ||
      attr.getNumElements() > kMaxExpandedElements ||
      (expectedCount && attr.getNumElements() != *expectedCount))
    return std::nullopt;
  // Dense or dense_resource (a file-backed weight); a splat is one value.
  std::optional<std::vector<double>> values =
      constantAsDoubles(attr, kMaxExpandedElements);
  size_t count = static_cast<size_t>(attr.getNumElements());
  if (values && values->size() == 1 && count != 1)
    values->assign(count, values->front());
  return values;
}

/// A dense constant of `type` with `values`, rounded once.
DenseElementsAttr makeFloats(RankedTensorType type, ArrayRef<double> values) {
  Type elementType = type.getElementType();
  if (elementType.isF32()) {
    std::vector<float> f(values.begin(), values.end());
    return DenseElementsAttr::get(type, ArrayRef<float>(f));
  }
  if (elementType.isF64())
    return DenseElementsAttr::get(type, values);
  SmallVector<APFloat> out;
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(cast<FloatType>(elementType).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    out.push_back(f);
  }
  return DenseElementsAttr::get(type, out);
}

/// Whether a constant of `type` adds one value per channel `channelDim` of
/// `result` (all other dims 1).
bool isChannelBias(RankedTensorType type, RankedTensorType result,
                   int64_t channelDim) {
  if (!type.hasStaticShape() || type.getRank() > result.getRank())
    return false;
  int64_t offset = result.getRank() - type.getRank();
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.getDimSize(d) != 1 &&
        (d + offset != channelDim ||
         type.getDimSize(d) != result.getDimSize(channelDim)))
      return false;
  return true;
}

/// Multiplies `weights` (of `shape`) by `factors[c]` along dim `dim`.
void scaleAlong(std::vector<double> &weights, ArrayRef<int64_t> shape,
                int64_t dim, ArrayRef<double> factors) {
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  int64_t size = shape[dim];
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] *= factors[(static_cast<int64_t>(i) / inner) % size];
}

struct FoldBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(bn.getType());
    Value input = bn.getInput();
    if (input.getType() != type || !input.hasOneUse())
      return rewriter.notifyMatchFailure(bn, "input has other users");

    // An optional constant bias add between the contraction and the norm.
    Operation *def = input.getDefiningOp();
    AddOp add = dyn_cast_or_null<AddOp>(def);
    Value addBias;
    if (add) {
      def = nullptr;
      for (auto [a, b] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())}) {
        if (a.getDefiningOp() && isFusableContraction(a.getDefiningOp()) &&
            a.getType() == type && matchPattern(b, m_Constant())) {
          def = a.getDefiningOp();
          addBias = b;
          break;
        }
      }
    }
    if (!def || !isa<Conv2DOp, MatmulOp>(def) || !isFusableContraction(def) ||
        !def->getResult(0).hasOneUse() || def->getResult(0).getType() != type)
      return rewriter.notifyMatchFailure(bn,
                                         "not after a single-use contraction");
    int64_t channelDim = contractionChannelDim(def);
    if (static_cast<int64_t>(bn.getAxis()) != channelDim ||
        type.isDynamicDim(channelDim))
      return rewriter.notifyMatchFailure(bn, "axis is not the channel dim");
    int64_t channels = type.getDimSize(channelDim);

    auto scale = readFloats(bn.getScale(), channels),
         shift = readFloats(bn.getBias(), channels),
         mean = readFloats(bn.getMean(), channels),
         var = readFloats(bn.getVariance(), channels);
    if (!scale || !shift || !mean || !var)
      return rewriter.notifyMatchFailure(bn, "statistics are not constants");
    for (auto *v : {&*scale, &*shift, &*mean, &*var})
      if (static_cast<int64_t>(v->size()) != channels)
        return failure();

    // The weights, their output-channel dim and the existing bias.
    Value weights;
    int64_t weightDim;
    std::vector<double> bias(channels, 0.0);
    if (auto conv = dyn_cast<Conv2DOp>(def)) {
      weights = conv.getFilter();
      weightDim = conv.getLayout() == ir::Layout::NHWC ? 3 : 0;
      if (Value b = conv.getBias()) {
        auto values = readFloats(b, channels);
        if (!values || static_cast<int64_t>(values->size()) != channels)
          return rewriter.notifyMatchFailure(bn, "conv bias is not constant");
        bias = *values;
      }
    } else {
      auto matmul = cast<MatmulOp>(def);
      weights = matmul.getRhs();
      int64_t rank = cast<RankedTensorType>(weights.getType()).getRank();
      weightDim = matmul.getTransposeB() ? rank - 2 : rank - 1;
    }
    // A lazy transpose of a constant filter (tgc-convert-layout) stays one:
    // the scaled weights are a constant in the filter's order again.
    auto lazy = weights.getDefiningOp<TransposeOp>();
    if (lazy && lazy.getLazy()) {
      weightDim = lazy.getPermutation()[weightDim];
      weights = lazy.getInput();
    } else {
      lazy = nullptr;
    }
    auto weightType = cast<RankedTensorType>(weights.getType());
    auto w = readFloats(weights);
    if (!w || weightType.getDimSize(weightDim) != channels)
      return rewriter.notifyMatchFailure(bn, "weights are not constant");
    if (addBias) {
      auto biasType = cast<RankedTensorType>(addBias.getType());
      auto values = readFloats(addBias);
      if (!values || !isChannelBias(biasType, type, channelDim))
        return rewriter.notifyMatchFailure(bn, "bias is not per channel");
      for (int64_t c = 0; c < channels; ++c)
        bias[c] += (*values)[values->size() == 1 ? 0 : c];
    }

    std::vector<double> factor(channels);
    double epsilon = bn.getEpsilon().convertToDouble();
    for (int64_t c = 0; c < channels; ++c) {
      factor[c] = (*scale)[c] / std::sqrt((*var)[c] + epsilon);
      bias[c] = (bias[c] - (*mean)[c]) * factor[c] + (*shift)[c];
      // A zero variance without epsilon (an infinite factor), a negative
      // one (NaN): folded, w * inf makes NaN where the batch norm of the
      // contraction's result makes +-inf, so such statistics stay a batch
      // norm of their own.
      if (!std::isfinite(factor[c]) || !std::isfinite(bias[c]))
        return rewriter.notifyMatchFailure(bn, "non-finite folded factor");
    }
    scaleAlong(*w, weightType.getShape(), weightDim, factor);

    Location loc = bn.getLoc();
    rewriter.setInsertionPoint(def);
    Value newWeights =
        ConstantOp::create(rewriter, loc, makeFloats(weightType, *w));
    if (lazy)
      newWeights = TransposeOp::create(rewriter, lazy.getLoc(), lazy.getType(),
                                       newWeights, lazy.getPermutation(), true);
    auto biasType = RankedTensorType::get({channels}, type.getElementType());
    Value newBias =
        ConstantOp::create(rewriter, loc, makeFloats(biasType, bias));
    Operation *contraction = rewriter.clone(*def);
    Value result;
    if (isa<Conv2DOp>(def)) {
      contraction->setOperands({def->getOperand(0), newWeights, newBias});
      result = contraction->getResult(0);
    } else {
      contraction->setOperand(1, newWeights);
      rewriter.setInsertionPoint(bn);
      result = AddOp::create(rewriter, loc, type, contraction->getResult(0),
                             newBias);
    }
    rewriter.replaceOp(bn, result);
    if (add)
      rewriter.eraseOp(add);
    rewriter.eraseOp(def);
    return success();
  }
};

struct TgcFoldBatchNormPass
    : tgc::impl::TgcFoldBatchNormBase<TgcFoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldBatchNormPatterns(patterns);
    // Not converging within the driver's iterations is no error: what was
    // folded stays folded.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void tgc::populateFoldBatchNormPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldBatchNorm>(patterns.getContext());
}
