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

int64_t tgc::inferShapes(Operation *root) {
  int64_t refined = 0;
  root->walk([&](InferTypeOpInterface op) {
    if (!isa<TgcDialect>(op->getDialect()))
      return;
    SmallVector<Type> inferred;
    if (failed(op.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), inferred)))
      return;
    for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
      if (auto better = refine(result.getType(), type)) {
        Type old = result.getType();
        result.setType(better);
        keepTypeForForeignUsers(result, old);
        ++refined;
      }
    }
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
