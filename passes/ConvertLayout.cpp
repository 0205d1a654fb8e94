//===- ConvertLayout.cpp - NCHW convolutions to NHWC ----------------------===//
//
// tgc-convert-layout: every NCHW conv2d becomes an NHWC/HWIO conv2d between
// two transposes (NCHW -> NHWC before, NHWC -> NCHW after). The NHWC -> NCHW
// transposes are then sunk through layout-agnostic consumers and the
// NCHW -> NHWC transposes hoisted through producers until they meet and
// cancel, so that chains of convolutions, pools, batch norms, activations and
// residual adds run in NHWC with transposes only at the boundaries.
//
// Invariant that makes the rewriting terminate: NHWC -> NCHW transposes
// (permutation [0, 3, 1, 2]) only move towards the uses, NCHW -> NHWC ones
// ([0, 2, 3, 1]) only towards the definitions, and neither kind is ever
// created on the other side of an op.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/ConstantData.h"
#include "dialects/TgcOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tgc {
#define GEN_PASS_DEF_TGCCONVERTLAYOUT
#include "passes/Passes.h.inc"
} // namespace tgc

using namespace mlir;
using namespace tgc;

namespace {

/// transpose(nchw, kToNHWC) is NHWC; transpose(nhwc, kToNCHW) is NCHW.
constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};
/// OIHW filter -> HWIO.
constexpr int64_t kOIHWToHWIO[] = {2, 3, 1, 0};

ArrayRef<int64_t> toNHWC() { return kToNHWC; }
ArrayRef<int64_t> toNCHW() { return kToNCHW; }

/// The type of transpose(value of `type`, perm).
RankedTensorType permuteType(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return RankedTensorType::get(shape, type.getElementType(),
                               type.getEncoding());
}

/// transpose(transpose(x, first), second) == transpose(x, result).
SmallVector<int64_t> composePermutations(ArrayRef<int64_t> first,
                                         ArrayRef<int64_t> second) {
  SmallVector<int64_t> out;
  for (int64_t p : second)
    out.push_back(first[p]);
  return out;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

Value transpose(OpBuilder &builder, Location loc, Value value,
                ArrayRef<int64_t> perm) {
  auto type = permuteType(cast<RankedTensorType>(value.getType()), perm);
  return TransposeOp::create(builder, loc, type, value, perm);
}

/// Whether a transpose by `perm` of a tensor of `shape` keeps the elements in
/// row-major order (it only moves dims of size 1), so that it is a reshape.
/// Dynamic dims count as larger than 1.
bool isReshapeLike(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

bool inFusion(Operation *op) { return op->getParentOfType<FusionOp>(); }

/// The transpose defining `value` with permutation `perm`, or null.
TransposeOp transposeWith(Value value, ArrayRef<int64_t> perm) {
  auto t = value.getDefiningOp<TransposeOp>();
  if (!t || t.getPermutation() != perm)
    return {};
  return t;
}

//===----------------------------------------------------------------------===//
// Operands of a permuted op
//===----------------------------------------------------------------------===//

/// How an operand of an elementwise op whose result is transposed by `perm`
/// (rank `rank`) becomes the corresponding operand: the value equal to
/// `transpose(x, perm)`, where `x` is the operand with leading 1s added up to
/// `rank` (numpy broadcasting).
enum class OperandKind {
  Unchanged, // rank 0: broadcasts the same way whatever the layout
  Cancel,    // defined by the inverse transpose: its input
  Reshape,   // only size-1 dims move: a reshape (free, a view)
  Constant,  // a constant: transposed at compile time
  Shared,    // the same transpose of it exists in the block: reused
  Transpose, // anything else: a new transpose at run time
  None,      // cannot be permuted (rank above `rank`)
};

/// A transpose of `value` by `perm` in the block of `at`, or null.
TransposeOp findTranspose(Value value, ArrayRef<int64_t> perm, Operation *at) {
  for (Operation *user : value.getUsers())
    if (auto t = dyn_cast<TransposeOp>(user))
      if (t.getPermutation() == perm && t->getBlock() == at->getBlock())
        return t;
  return {};
}

/// How to permute `value`, an operand that will be used at `at`.
OperandKind classify(Value value, ArrayRef<int64_t> perm, int64_t rank,
                     Operation *at) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > rank)
    return OperandKind::None;
  if (type.getRank() == 0)
    return OperandKind::Unchanged;
  if (type.getRank() == rank)
    if (auto t = value.getDefiningOp<TransposeOp>())
      if (isIdentity(composePermutations(t.getPermutation(), perm)))
        return OperandKind::Cancel;
  SmallVector<int64_t> extended(rank - type.getRank(), 1);
  llvm::append_range(extended, type.getShape());
  int64_t dynamic = llvm::count_if(extended, ShapedType::isDynamic);
  if (isReshapeLike(extended, perm) && dynamic <= 1)
    return OperandKind::Reshape;
  if (type.hasStaticShape() && matchPattern(value, m_Constant()))
    return OperandKind::Constant;
  if (type.getRank() != rank)
    return OperandKind::None;
  if (findTranspose(value, perm, at))
    return OperandKind::Shared;
  return OperandKind::Transpose;
}

/// The operand `classify` described, created before `at` (the insertion
/// point of `rewriter`).
Value materialize(PatternRewriter &rewriter, Operation *at, Value value,
                  ArrayRef<int64_t> perm, int64_t rank, OperandKind kind) {
  Location loc = at->getLoc();
  OpBuilder &builder = rewriter;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> extended(rank - type.getRank(), 1);
  llvm::append_range(extended, type.getShape());
  auto extendedType = RankedTensorType::get(extended, type.getElementType());
  switch (kind) {
  case OperandKind::Unchanged:
    return value;
  case OperandKind::Cancel:
    return value.getDefiningOp<TransposeOp>().getInput();
  case OperandKind::Reshape: {
    auto target = permuteType(extendedType, perm);
    if (target == type)
      return value;
    return ReshapeOp::create(builder, loc, target, value);
  }
  case OperandKind::Constant: {
    if (extendedType != type)
      value = ReshapeOp::create(builder, loc, extendedType, value);
    return transpose(builder, loc, value, perm);
  }
  case OperandKind::Shared: {
    // Moved up if needed: its operand dominates `at`, which uses it.
    TransposeOp t = findTranspose(value, perm, at);
    if (at->isBeforeInBlock(t))
      rewriter.moveOpBefore(t, at);
    return t.getResult();
  }
  case OperandKind::Transpose:
    return transpose(builder, loc, value, perm);
  case OperandKind::None:
    break;
  }
  llvm_unreachable("operand that cannot be permuted");
}

/// Clones `op` with `operands` and the result types transposed by `perm`
/// (kept when `perm` is empty). Operands are set by position: one value may
/// be several operands that become different values (`conv2d %x, %x`: the
/// input transposed to NHWC, the filter to HWIO), which a value mapping
/// cannot express.
Operation *clonePermuted(PatternRewriter &rewriter, Operation *op,
                         ValueRange operands, ArrayRef<int64_t> perm) {
  Operation *clone = rewriter.clone(*op);
  clone->setOperands(operands);
  if (perm.empty())
    return clone;
  for (OpResult result : clone->getResults())
    result.setType(permuteType(cast<RankedTensorType>(result.getType()), perm));
  return clone;
}

//===----------------------------------------------------------------------===//
// Anchors
//===----------------------------------------------------------------------===//

/// conv2d NCHW/OIHW => transpose(conv2d NHWC/HWIO(transpose(x), transpose(W))).
/// A constant filter's transpose is lazy (TransposeOp): the CPU backend
/// reads the OIHW constant as it is instead of holding a folded HWIO copy
/// of the weights too.
struct ConvertConv2DToNHWC : OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getLayout() != ir::Layout::NCHW || inFusion(op))
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || resultType.getRank() != 4 ||
        !isa<RankedTensorType>(op.getInput().getType()) ||
        !isa<RankedTensorType>(op.getFilter().getType()))
      return failure();
    Location loc = op.getLoc();
    Value input = transpose(rewriter, loc, op.getInput(), toNHWC());
    Value filter = transpose(rewriter, loc, op.getFilter(), kOIHWToHWIO);
    if (auto constant = op.getFilter().getDefiningOp<ConstantOp>()) {
      if (storesElements(constant.getValue()))
        filter.getDefiningOp<TransposeOp>().setLazy(true);
    }
    SmallVector<Value> operands{input, filter};
    if (Value bias = op.getBias())
      operands.push_back(bias);
    auto conv = cast<Conv2DOp>(clonePermuted(rewriter, op, operands, toNHWC()));
    conv.setLayout(ir::Layout::NHWC);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, resultType, conv.getResult(),
                                             toNCHW());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Sinking NHWC -> NCHW transposes towards the uses
//===----------------------------------------------------------------------===//

/// op(transpose(a, toNCHW), b, ...) => transpose(op(a, b', ...), toNCHW) for
/// elementwise ops, where every other operand is transposed the same way, a
/// broadcast operand whose permutation is a reshape, a scalar, a constant, or
/// a value whose NCHW -> NHWC transpose exists already (e.g. the input of a
/// residual block, also transposed for the block's first convolution).
struct SinkThroughElementwise : RewritePattern {
  SinkThroughElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op) || op->getNumResults() != 1 || inFusion(op))
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || resultType.getRank() != 4)
      return failure();
    bool anchored = false;
    SmallVector<OperandKind> kinds;
    for (Value operand : op->getOperands()) {
      OperandKind kind = classify(operand, toNHWC(), 4, op);
      if (kind == OperandKind::Cancel)
        anchored = true;
      if (kind == OperandKind::Transpose || kind == OperandKind::None)
        return failure();
      kinds.push_back(kind);
    }
    if (!anchored)
      return failure();
    SmallVector<Value> operands;
    for (auto [operand, kind] : llvm::zip(op->getOperands(), kinds))
      operands.push_back(materialize(rewriter, op, operand, toNHWC(), 4, kind));
    Operation *clone = clonePermuted(rewriter, op, operands, toNHWC());
    rewriter.replaceOpWithNewOp<TransposeOp>(op, resultType,
                                             clone->getResult(0), toNCHW());
    return success();
  }
};

/// Ops whose single data operand (operand 0) and result may be NCHW or NHWC
/// by changing attributes: pools (layout NCHW), batch norm, softmax and
/// log-softmax (the axis), pad (low/high) and slice (starts/ends/steps).
bool isLayoutOp(Operation *op) {
  if (auto pool = dyn_cast<MaxPool2DOp>(op))
    return pool.getLayout() == ir::Layout::NCHW;
  if (auto pool = dyn_cast<AvgPool2DOp>(op))
    return pool.getLayout() == ir::Layout::NCHW;
  if (auto pool = dyn_cast<GlobalAvgPool2DOp>(op))
    return pool.getLayout() == ir::Layout::NCHW;
  if (!isa<BatchNormOp, SoftmaxOp, LogSoftmaxOp, PadOp, SliceOp>(op))
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  return type && type.getRank() == 4;
}

/// Per-dim attribute values of an NCHW tensor, for its NHWC transpose.
SmallVector<int64_t> permuteDims(ArrayRef<int64_t> values) {
  SmallVector<int64_t> out;
  for (int64_t p : kToNHWC)
    out.push_back(values[p]);
  return out;
}

/// Makes `op` (an `isLayoutOp` clone whose operand 0 is now NHWC) compute
/// in NHWC.
void setNHWCAttributes(Operation *op) {
  if (auto pool = dyn_cast<MaxPool2DOp>(op))
    pool.setLayout(ir::Layout::NHWC);
  else if (auto pool = dyn_cast<AvgPool2DOp>(op))
    pool.setLayout(ir::Layout::NHWC);
  else if (auto pool = dyn_cast<GlobalAvgPool2DOp>(op))
    pool.setLayout(ir::Layout::NHWC);
  else if (auto bn = dyn_cast<BatchNormOp>(op))
    bn.setAxis(kToNCHW[bn.getAxis()]);
  else if (auto softmax = dyn_cast<SoftmaxOp>(op))
    softmax.setAxis(kToNCHW[softmax.getAxis()]);
  else if (auto softmax = dyn_cast<LogSoftmaxOp>(op))
    softmax.setAxis(kToNCHW[softmax.getAxis()]);
  else if (auto pad = dyn_cast<PadOp>(op)) {
    pad.setLow(permuteDims(pad.getLow()));
    pad.setHigh(permuteDims(pad.getHigh()));
  } else if (auto slice = dyn_cast<SliceOp>(op)) {
    slice.setStarts(permuteDims(slice.getStarts()));
    slice.setEnds(permuteDims(slice.getEnds()));
    if (auto steps = slice.getSteps())
      slice.setSteps(permuteDims(*steps));
  }
}

/// layout_op NCHW(transpose(x, toNCHW)) =>
/// transpose(layout_op NHWC(x), toNCHW): pools (layout attribute), batch
/// norm, softmax and log-softmax (axis 1 -> 3), pad and slice (per-dim
/// attributes permuted).
struct SinkThroughLayoutOp : RewritePattern {
  SinkThroughLayoutOp(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isLayoutOp(op) || inFusion(op))
      return failure();
    auto t = transposeWith(op->getOperand(0), toNCHW());
    if (!t)
      return failure();
    SmallVector<Value> operands(op->getOperands());
    operands[0] = t.getInput();
    Operation *clone = clonePermuted(rewriter, op, operands, toNHWC());
    setNHWCAttributes(clone);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op->getResult(0).getType(),
                                             clone->getResult(0), toNCHW());
    return success();
  }
};

/// reduce(transpose(x, toNCHW), axes) => transpose(reduce(x, toNCHW[axes]), q)
/// where q is toNCHW restricted to the kept dims (the identity, so no
/// transpose, for a reduction over H and W without keepdims).
template <typename ReduceOp>
struct SinkThroughReduce : OpRewritePattern<ReduceOp> {
  using OpRewritePattern<ReduceOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto t = transposeWith(op.getInput(), toNCHW());
    if (!t || inFusion(op))
      return failure();
    auto inner = cast<RankedTensorType>(t.getInput().getType());
    SmallVector<int64_t> axes;
    for (int64_t a : op.getAxes())
      axes.push_back(kToNCHW[a]);
    llvm::sort(axes);
    // Result dims of the new reduction: the dims of x, reduced ones as 1 or
    // dropped.
    SmallVector<int64_t> shape, kept;
    for (int64_t d = 0; d < 4; ++d) {
      bool reduced = llvm::is_contained(axes, d);
      if (reduced && !op.getKeepdims())
        continue;
      shape.push_back(reduced ? 1 : inner.getDimSize(d));
      kept.push_back(d);
    }
    // The result dims of the original reduction, as dims of x, in order.
    SmallVector<int64_t> perm;
    for (int64_t i = 0; i < 4; ++i) {
      if (!op.getKeepdims() && llvm::is_contained(op.getAxes(), i))
        continue;
      perm.push_back(llvm::find(kept, kToNCHW[i]) - kept.begin());
    }
    auto reduce = cast<ReduceOp>(
        clonePermuted(rewriter, op, ValueRange{t.getInput()}, {}));
    reduce.setAxes(axes);
    if (isIdentity(perm)) {
      // Same dims in the same order: the original result type.
      reduce.getResult().setType(op.getType());
      rewriter.replaceOp(op, reduce.getResult());
      return success();
    }
    reduce.getResult().setType(RankedTensorType::get(
        shape, inner.getElementType(), inner.getEncoding()));
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(),
                                             reduce.getResult(), perm);
    return success();
  }
};

/// concat(transpose(a, toNCHW), b, ..., axis) =>
/// transpose(concat(a, b', ..., axis toNCHW[axis]), toNCHW) when every other
/// input is transposed the same way, a constant or already transposed.
struct SinkThroughConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    auto resultType = dyn_cast<RankedTensorType>(op.getType());
    if (!resultType || resultType.getRank() != 4 || inFusion(op))
      return failure();
    bool anchored = false;
    SmallVector<OperandKind> kinds;
    for (Value operand : op.getInputs()) {
      OperandKind kind = classify(operand, toNHWC(), 4, op);
      if (kind == OperandKind::Cancel)
        anchored = true;
      if (kind != OperandKind::Cancel && kind != OperandKind::Constant &&
          kind != OperandKind::Shared)
        return failure();
      kinds.push_back(kind);
    }
    if (!anchored)
      return failure();
    SmallVector<Value> operands;
    for (auto [operand, kind] : llvm::zip(op.getInputs(), kinds))
      operands.push_back(materialize(rewriter, op, operand, toNHWC(), 4, kind));
    auto concat =
        cast<ConcatOp>(clonePermuted(rewriter, op, operands, toNHWC()));
    concat.setAxis(kToNCHW[op.getAxis()]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, resultType, concat.getResult(),
                                             toNCHW());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Hoisting NCHW -> NHWC transposes towards the definitions
//===----------------------------------------------------------------------===//

/// transpose(op(a, b, ...), toNHWC) => op(transpose(a, toNHWC), b', ...) when
/// op's only use is the transpose and at most one operand needs a transpose
/// at run time (the others cancel, are constants, scalars or reshapes), so
/// that the number of transposes never grows.
struct HoistThroughElementwise : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getPermutation() != toNHWC())
      return failure();
    Operation *def = op.getInput().getDefiningOp();
    if (!def || !isElementwise(def) || def->getNumResults() != 1 ||
        !def->hasOneUse() || inFusion(def))
      return failure();
    int64_t transposes = 0;
    SmallVector<OperandKind> kinds;
    for (Value operand : def->getOperands()) {
      OperandKind kind = classify(operand, toNHWC(), 4, def);
      if (kind == OperandKind::None)
        return failure();
      transposes += kind == OperandKind::Transpose;
      kinds.push_back(kind);
    }
    if (transposes > 1)
      return failure();
    rewriter.setInsertionPoint(def);
    SmallVector<Value> operands;
    for (auto [operand, kind] : llvm::zip(def->getOperands(), kinds))
      operands.push_back(
          materialize(rewriter, def, operand, toNHWC(), 4, kind));
    Operation *clone = clonePermuted(rewriter, def, operands, toNHWC());
    rewriter.replaceOp(op, clone->getResult(0));
    return success();
  }
};

/// transpose(layout_op NCHW(x), toNHWC) => layout_op NHWC(transpose(x,
/// toNHWC)) when the pool, batch norm, softmax, pad or slice has no other
/// use.
struct HoistThroughLayoutOp : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getPermutation() != toNHWC())
      return failure();
    Operation *def = op.getInput().getDefiningOp();
    if (!def || !def->hasOneUse() || inFusion(def) || !isLayoutOp(def))
      return failure();
    rewriter.setInsertionPoint(def);
    SmallVector<Value> operands(def->getOperands());
    operands[0] = transpose(rewriter, def->getLoc(), operands[0], toNHWC());
    Operation *clone = clonePermuted(rewriter, def, operands, toNHWC());
    setNHWCAttributes(clone);
    rewriter.replaceOp(op, clone->getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Boundaries
//===----------------------------------------------------------------------===//

/// A transpose that only moves dims of size 1 is a reshape (a view), e.g.
/// the NHWC -> NCHW transpose of a global average pool's N x 1 x 1 x C.
struct TransposeAsReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!inType || !type || type.getNumDynamicDims() > 1 ||
        !isReshapeLike(inType.getShape(), op.getPermutation()))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, op.getInput());
    return success();
  }
};

struct TgcConvertLayoutPass
    : tgc::impl::TgcConvertLayoutBase<TgcConvertLayoutPass> {
  using Base::Base;
  void runOnOperation() override {
    if (target != "nhwc") {
      getOperation()->emitError() << "tgc-convert-layout: unsupported target '"
                                  << target << "' (expected nhwc)";
      return signalPassFailure();
    }
    if (failed(convertLayoutToNHWC(getOperation())))
      return signalPassFailure();
  }
};

} // namespace

void tgc::populateConvertLayoutPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ConvertConv2DToNHWC, SinkThroughElementwise, SinkThroughLayoutOp,
               SinkThroughReduce<ReduceSumOp>, SinkThroughReduce<ReduceMeanOp>,
               SinkThroughReduce<ReduceMaxOp>, SinkThroughReduce<ReduceMinOp>,
               SinkThroughReduce<ReduceProdOp>, SinkThroughConcat,
               HoistThroughElementwise, HoistThroughLayoutOp>(context);
  TransposeOp::getCanonicalizationPatterns(patterns, context);
  ReshapeOp::getCanonicalizationPatterns(patterns, context);
}

void tgc::populateTransposeToReshapePatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<TransposeAsReshape>(context);
  ReshapeOp::getCanonicalizationPatterns(patterns, context);
}

LogicalResult tgc::convertLayoutToNHWC(Operation *root) {
  MLIRContext *context = root->getContext();
  // First the layout: conversions, sinking, hoisting and cancellation reach
  // a fixed point; only then do the transposes left at the boundaries that
  // just move size-1 dims become reshapes (earlier, they could no longer
  // cancel against a transpose further on).
  RewritePatternSet layout(context);
  populateConvertLayoutPatterns(layout);
  if (failed(applyPatternsGreedily(root, std::move(layout))))
    return root->emitError("tgc-convert-layout: the rewriting did not "
                           "converge");
  RewritePatternSet boundaries(context);
  populateTransposeToReshapePatterns(boundaries);
  (void)applyPatternsGreedily(root, std::move(boundaries));
  return success();
}
