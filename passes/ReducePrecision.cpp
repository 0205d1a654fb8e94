//===- ReducePrecision.cpp - contractions in f16 or bf16 ------------------===//
//
// tgc-reduce-precision{dtype=f16|bf16}: every f32 conv2d and matmul
// multiplies `dtype` operands into a `dtype` result (the backend's library
// accumulates in f32), and the ops between such contractions that lose
// nothing but their result's rounding in `dtype` follow them, so that a
// chain of convolutions, biases, activations and residual adds stays narrow
// and casts remain only at its ends. Constant operands are converted once, at
// compile time.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/ConstantData.h"
#include "dialects/TgcOps.h"
#include "runtime/Float16.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace tgc {
#define GEN_PASS_DEF_TGCREDUCEPRECISION
#include "passes/Passes.h.inc"
} // namespace tgc

using namespace mlir;
using namespace tgc;

namespace {

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

Type withElementType(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// Ops whose `narrow` result differs from their f32 result only by that
/// result's rounding: data movement (exact in any type), max pooling, and
/// elementwise ops that are piecewise linear or bounded. Left out, so that
/// they stay f32: exp, log, pow, division, square roots (their results
/// overflow or lose f16's range), reductions, average pools, softmax and
/// normalizations (sums over many values).
bool followsNarrowOperands(Operation *op) {
  if (isShapeView(op))
    return true;
  return isa<TransposeOp, BroadcastToOp, ConcatOp, SliceOp, PadOp, MaxPool2DOp,
             AddOp, SubOp, MulOp, MaxOp, MinOp, NegOp, AbsOp, ReluOp,
             LeakyReluOp, ClampOp, GeluOp, TanhOp, SigmoidOp>(op);
}

/// `attr` (f32) converted to `narrow` elements (round to nearest even), or
/// null when it is not a dense f32 constant.
DenseElementsAttr narrowConstant(Attribute attr, Type narrow) {
  auto elements = dyn_cast<ElementsAttr>(attr);
  if (!elements || !elements.getElementType().isF32() ||
      !isa<RankedTensorType>(elements.getType()))
    return {};
  auto type = cast<RankedTensorType>(elements.getType()).clone(narrow);
  auto convert = [&](float value) {
    return narrow.isF16() ? runtime::floatToHalf(value)
                          : runtime::floatToBFloat16(value);
  };
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (dense && dense.isSplat()) {
    uint16_t bits = convert(dense.getSplatValue<float>());
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(reinterpret_cast<const char *>(&bits), 2));
  }
  // Dense or dense_resource (a file-backed weight): its f32 bytes.
  std::optional<ConstantBytes> bytes = readConstantBytes(elements);
  if (!bytes)
    return {};
  const int64_t count = elements.getNumElements();
  std::vector<char> out(static_cast<size_t>(count) * 2);
  for (int64_t i = 0; i < count; ++i) {
    float value;
    std::memcpy(&value, bytes->data() + i * 4, 4);
    uint16_t bits = convert(value);
    std::memcpy(out.data() + i * 2, &bits, 2);
  }
  return DenseElementsAttr::getFromRawBuffer(type, out);
}

/// The `narrow` form of the f32 tensor `value`: the operand of a widening
/// cast from `narrow`, a converted constant, or a new cast.
Value narrowed(PatternRewriter &rewriter, Location loc, Value value,
               Type narrow) {
  if (auto widen = value.getDefiningOp<CastOp>())
    if (auto source = dyn_cast<RankedTensorType>(widen.getInput().getType());
        source && source.getElementType() == narrow)
      return widen.getInput();
  Attribute attr;
  if (matchPattern(value, m_Constant(&attr)))
    if (DenseElementsAttr converted = narrowConstant(attr, narrow))
      return rewriter.create<ConstantOp>(value.getLoc(), converted);
  return rewriter.create<CastOp>(loc, withElementType(value.getType(), narrow),
                                 value);
}

/// Whether `value` is a narrow value widened to f32.
bool isWidened(Value value, Type narrow) {
  if (auto widen = value.getDefiningOp<CastOp>())
    if (auto source = dyn_cast<RankedTensorType>(widen.getInput().getType()))
      return source.getElementType() == narrow;
  return false;
}

/// Rebuilds `op` on `narrow` operands (its f32 tensor operands converted)
/// with `narrow` results where it had f32 ones, and replaces it by those
/// results widened back to f32 (which the next rewrite or the cleanup's
/// cast folding consumes).
void rebuildNarrow(PatternRewriter &rewriter, Operation *op, Type narrow) {
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(isF32Tensor(operand.getType())
                           ? narrowed(rewriter, loc, operand, narrow)
                           : operand);
  SmallVector<Type> resultTypes;
  for (Type type : op->getResultTypes())
    resultTypes.push_back(isF32Tensor(type) ? withElementType(type, narrow)
                                            : type);
  OperationState state(loc, op->getName(), operands, resultTypes,
                       op->getAttrs());
  Operation *rebuilt = rewriter.create(state);
  SmallVector<Value> results;
  for (auto [old, now] : llvm::zip(op->getResults(), rebuilt->getResults()))
    results.push_back(
        old.getType() == now.getType()
            ? Value(now)
            : Value(rewriter.create<CastOp>(loc, old.getType(), now)));
  rewriter.replaceOp(op, results);
}

bool outsideFusions(Operation *op) { return !isa<FusionOp>(op->getParentOp()); }

/// conv2d / matmul of f32 tensors -> the same on `narrow` ones.
struct NarrowContraction : RewritePattern {
  NarrowContraction(MLIRContext *context, Type narrow)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, context),
        narrow(narrow) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isContraction(op) || !outsideFusions(op) ||
        !llvm::all_of(op->getOperandTypes(), isF32Tensor) ||
        !llvm::all_of(op->getResultTypes(), isF32Tensor))
      return failure();
    rebuildNarrow(rewriter, op, narrow);
    return success();
  }
  Type narrow;
};

/// An op of followsNarrowOperands with a narrow value widened among its
/// operands -> the same op on narrow values (its other f32 operands
/// converted: a bias or residual then rides in the contraction's epilogue,
/// as TensorRT's fp16 mode runs whole layers in half).
struct FollowNarrowOperands : RewritePattern {
  FollowNarrowOperands(MLIRContext *context, Type narrow)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        narrow(narrow) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!followsNarrowOperands(op) || !outsideFusions(op) ||
        !llvm::any_of(op->getResultTypes(), isF32Tensor))
      return failure();
    if (llvm::none_of(op->getOperands(), [&](Value operand) {
          return isWidened(operand, narrow);
        }))
      return failure();
    rebuildNarrow(rewriter, op, narrow);
    return success();
  }
  Type narrow;
};

/// cast(cast(x : narrow -> f32) -> narrow) -> x.
struct CancelWidening : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp cast,
                                PatternRewriter &rewriter) const override {
    auto widen = cast.getInput().getDefiningOp<CastOp>();
    if (!widen || widen.getInput().getType() != cast.getType() ||
        !isF32Tensor(widen.getType()))
      return failure();
    auto narrowType = cast.getType().getElementType();
    if (!narrowType.isF16() && !narrowType.isBF16())
      return failure();
    rewriter.replaceOp(cast, widen.getInput());
    return success();
  }
};

struct TgcReducePrecisionPass
    : tgc::impl::TgcReducePrecisionBase<TgcReducePrecisionPass> {
  using TgcReducePrecisionBase::TgcReducePrecisionBase;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Type narrow;
    if (dtype == "f16")
      narrow = Float16Type::get(context);
    else if (dtype == "bf16")
      narrow = BFloat16Type::get(context);
    if (!narrow) {
      getOperation()->emitError()
          << "tgc-reduce-precision: dtype must be f16 or bf16, not '" << dtype
          << "'";
      return signalPassFailure();
    }
    RewritePatternSet patterns(context);
    populateReducePrecisionPatterns(patterns, narrow);
    // Not converging within the driver's iterations is no error: every
    // rewrite leaves a valid function computing the same (to `dtype`).
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void tgc::populateReducePrecisionPatterns(RewritePatternSet &patterns,
                                          Type narrow) {
  MLIRContext *context = patterns.getContext();
  patterns.add<NarrowContraction, FollowNarrowOperands>(context, narrow);
  patterns.add<CancelWidening>(context);
}
