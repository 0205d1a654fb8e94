//===- FusionBuilder.cpp - building tgc.fusion regions --------------------===//

#include "dialects/FusionBuilder.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace tgc {

FusionOp buildFusion(OpBuilder &builder, Location loc, FusionKind kind,
                     ValueRange inputs, ArrayRef<Operation *> ops,
                     ValueRange results, ValueRange readAs) {
  assert((readAs.empty() || readAs.size() == inputs.size()) &&
         "one read-as value per input");
  auto fusion =
      FusionOp::create(builder, loc, results.getTypes(),
                       FusionKindAttr::get(builder.getContext(), kind), inputs);
  OpBuilder::InsertionGuard guard(builder);
  Block *body = builder.createBlock(&fusion.getBody());
  IRMapping mapping;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    Value read = readAs.empty() ? input : readAs[i];
    BlockArgument argument = body->addArgument(read.getType(), read.getLoc());
    if (!mapping.contains(read))
      mapping.map(read, argument);
  }
  builder.setInsertionPointToEnd(body);
  // Each constant is cloned just before its first user, so that a
  // contraction fusion's body starts with its contraction.
  for (Operation *op : ops) {
    for (Value operand : op->getOperands()) {
      if (mapping.contains(operand))
        continue;
      Operation *def = operand.getDefiningOp();
      assert(def && isa<ConstantOp>(def) &&
             "a fused op's operand is neither an input nor a constant");
      builder.clone(*def, mapping);
    }
    builder.clone(*op, mapping);
  }
  SmallVector<Value> yielded;
  for (Value result : results)
    yielded.push_back(mapping.lookup(result));
  YieldOp::create(builder, loc, yielded);
  return fusion;
}

FusionOp buildSingleOpFusion(OpBuilder &builder, Operation *op,
                             FusionKind kind) {
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (!llvm::is_contained(inputs, operand))
      inputs.push_back(operand);
  return buildFusion(builder, op->getLoc(), kind, inputs, {op},
                     op->getResults());
}

FusionOp wrapInFusion(Operation *op, FusionKind kind) {
  OpBuilder builder(op);
  FusionOp fusion = buildSingleOpFusion(builder, op, kind);
  op->replaceAllUsesWith(fusion.getResults());
  op->erase();
  return fusion;
}

} // namespace tgc
