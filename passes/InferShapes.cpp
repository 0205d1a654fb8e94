//===- InferShapes.cpp - refine tgc result types --------------------------===//

#include "passes/Passes.h"

#include "dialects/TgcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace tgc {
#define GEN_PASS_DEF_TGCINFERSHAPES
#include "passes/Passes.h.inc"
} // namespace tgc

using namespace mlir;

/// The more static of two compatible tensor types (dim by dim), or null when
/// `inferred` adds nothing to `current`.
static RankedTensorType refine(Type current, Type inferred) {
  auto cur = dyn_cast<RankedTensorType>(current);
  auto inf = dyn_cast<RankedTensorType>(inferred);
  if (!cur || !inf || !tgc::areCompatibleTensorTypes(cur, inf))
    return nullptr;
  SmallVector<int64_t> shape(cur.getShape());
  bool changed = false;
  for (auto [dim, other] : llvm::zip(shape, inf.getShape())) {
    if (ShapedType::isDynamic(dim) && !ShapedType::isDynamic(other)) {
      dim = other;
      changed = true;
    }
  }
  return changed ? RankedTensorType::get(shape, cur.getElementType(),
                                         cur.getEncoding())
                 : nullptr;
}

/// Keeps `old` as the type seen by users of `value` that are neither tgc ops
/// (which re-infer from their operands) nor returns (reconciled separately),
/// such as func.call, by routing them through a tensor.cast.
static void keepTypeForForeignUsers(Value value, Type old) {
  SmallVector<OpOperand *> foreign;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (!isa_and_nonnull<tgc::TgcDialect>(user->getDialect()) &&
        !isa<func::ReturnOp>(user))
      foreign.push_back(&use);
  }
  if (foreign.empty())
    return;
  OpBuilder builder(value.getContext());
  builder.setInsertionPointAfterValue(value);
  Value cast = tensor::CastOp::create(builder, value.getLoc(), old, value);
  for (OpOperand *use : foreign)
    use->set(cast);
}

/// The result type of an op whose result type is given rather than inferred
/// (cast, reshape, broadcast_to), as far as its operand determines it.
static Type inferGivenResultType(Operation *op) {
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!result || !input)
    return nullptr;
  if (isa<tgc::CastOp>(op)) {
    if (input.getRank() != result.getRank())
      return nullptr;
    return RankedTensorType::get(input.getShape(), result.getElementType());
  }
  if (isa<tgc::ReshapeOp>(op)) {
    // The one dynamic dim takes what the static input count leaves.
    auto count = input.hasStaticShape()
                     ? std::optional<int64_t>(input.getNumElements())
                     : std::nullopt;
    if (!count || result.getNumDynamicDims() != 1)
      return nullptr;
    int64_t known = 1;
    for (int64_t d : result.getShape())
      if (!ShapedType::isDynamic(d))
        known *= d;
    if (known == 0 || *count % known != 0)
      return nullptr;
    SmallVector<int64_t> shape(result.getShape());
    for (int64_t &d : shape)
      if (ShapedType::isDynamic(d))
        d = *count / known;
    return RankedTensorType::get(shape, result.getElementType());
  }
  if (isa<tgc::BroadcastToOp>(op)) {
    int64_t offset = result.getRank() - input.getRank();
    if (offset < 0)
      return nullptr;
    SmallVector<int64_t> shape(result.getShape());
    for (int64_t i = offset; i < result.getRank(); ++i)
      if (ShapedType::isDynamic(shape[i]))
        shape[i] = input.getDimSize(i - offset);
    return RankedTensorType::get(shape, result.getElementType());
  }
  return nullptr;
}

/// Refines `value` to `type` where that is more static; returns whether
/// it did.
static bool refineValue(Value value, Type type) {
  auto better = refine(value.getType(), type);
  if (!better)
    return false;
  Type old = value.getType();
  value.setType(better);
  keepTypeForForeignUsers(value, old);
  return true;
}

int64_t tgc::inferShapes(Operation *root) {
  int64_t refined = 0;
  root->walk([&](Operation *op, const WalkStage &stage) {
    // A fusion's body sees its operands' types (before the body is
    // visited) and its results take what the body yields (after).
    if (auto fusion = dyn_cast<FusionOp>(op)) {
      Block &body = fusion.getBlock();
      if (stage.isBeforeAllRegions()) {
        for (auto [arg, operand] :
             llvm::zip(body.getArguments(), fusion->getOperands()))
          refined += refineValue(arg, operand.getType());
      } else if (stage.isAfterAllRegions()) {
        for (auto [result, yielded] : llvm::zip(
                 fusion->getResults(), body.getTerminator()->getOperandTypes()))
          refined += refineValue(result, yielded);
      }
      return;
    }
    // A branch sees its inputs' types, and an if's results take what both
    // branches yield where they agree. A loop's regions see its captures'
    // types; carried values keep the types they are declared with (a
    // carried value of a dynamic shape may change its size).
    if (isa<IfOp, WhileOp>(op)) {
      unsigned skipped =
          isa<IfOp>(op) ? 1 : cast<WhileOp>(op).getInits().size();
      unsigned firstOperand = isa<IfOp>(op) ? 1 : skipped;
      unsigned firstArg = isa<IfOp>(op) ? 0 : skipped;
      if (stage.isBeforeAllRegions()) {
        for (Region &region : op->getRegions())
          for (unsigned i = firstOperand; i < op->getNumOperands(); ++i)
            refined += refineValue(
                region.front().getArgument(firstArg + i - firstOperand),
                op->getOperand(i).getType());
      } else if (stage.isAfterAllRegions() && isa<IfOp>(op)) {
        TypeRange thenTypes =
            op->getRegion(0).front().getTerminator()->getOperandTypes();
        TypeRange elseTypes =
            op->getRegion(1).front().getTerminator()->getOperandTypes();
        for (auto [result, a, b] :
             llvm::zip(op->getResults(), thenTypes, elseTypes))
          if (a == b)
            refined += refineValue(result, a);
      }
      return;
    }
    if (!stage.isAfterAllRegions())
      return;
    // A cast to a less static type (a branch result relaxed to the other
    // branch's shape) takes its operand's dims where only tgc ops and
    // returns use it. A cast kept for other users keeps its type, and so
    // does one that makes a loop's carried value dynamic (it may change
    // its size).
    if (auto cast = dyn_cast<tensor::CastOp>(op)) {
      if (llvm::all_of(cast->getUsers(), [](Operation *user) {
            if (isa<func::ReturnOp>(user))
              return true;
            if (isa<WhileOp>(user) ||
                (isa<YieldOp>(user) && isa<WhileOp>(user->getParentOp())))
              return false;
            return isa_and_nonnull<TgcDialect>(user->getDialect());
          }))
        refined += refineValue(cast.getResult(), cast.getSource().getType());
      return;
    }
    if (!isa_and_nonnull<TgcDialect>(op->getDialect()) ||
        op->getNumResults() == 0)
      return;
    SmallVector<Type> inferred;
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      // No location: an op that does not infer is left for the verifier
      // to report, once.
      if (failed(infer.inferReturnTypes(
              op->getContext(), std::nullopt, op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), inferred)))
        return;
    } else if (Type type = inferGivenResultType(op)) {
      inferred.push_back(type);
    } else {
      return;
    }
    for (auto [result, type] : llvm::zip(op->getResults(), inferred))
      refined += refineValue(result, type);
  });
  return refined;
}

namespace {
struct TgcInferShapesPass : tgc::impl::TgcInferShapesBase<TgcInferShapesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    tgc::inferShapes(module);
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        (void)reconcileReturnTypes(module, func);
  }

  /// Makes `func`'s returns agree with its signature after refinement: a
  /// function without callers and with one return takes the refined types;
  /// any remaining mismatch gets a tensor.cast to the declared type.
  LogicalResult reconcileReturnTypes(ModuleOp module, func::FuncOp func) {
    SmallVector<func::ReturnOp> returns(func.getOps<func::ReturnOp>());
    SmallVector<Type> results(func.getResultTypes());
    if (returns.size() == 1 && SymbolTable::symbolKnownUseEmpty(func, module)) {
      for (auto [declared, actual] :
           llvm::zip(results, returns.front()->getOperandTypes()))
        if (refine(declared, actual))
          declared = actual;
      func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                     results));
    }
    for (func::ReturnOp ret : returns) {
      for (OpOperand &operand : ret->getOpOperands()) {
        Type declared = results[operand.getOperandNumber()];
        if (operand.get().getType() == declared)
          continue;
        OpBuilder builder(ret);
        operand.set(tensor::CastOp::create(builder, ret.getLoc(), declared,
                                           operand.get()));
      }
    }
    return success();
  }
};
} // namespace
