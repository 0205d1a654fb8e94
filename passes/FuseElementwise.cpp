//===- FuseElementwise.cpp - loop fusion regions --------------------------===//
//
// tgc-fuse-elementwise: groups producer-consumer chains of elementwise,
// broadcast, reshape/transpose and reduction ops into `tgc.fusion <loop>`
// regions, which the CPU backend compiles into one generated kernel each.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/FusionBuilder.h"
#include "dialects/TgcOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace tgc {
#define GEN_PASS_DEF_TGCFUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace tgc

using namespace mlir;
using namespace tgc;

namespace {

bool isStaticF32(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getElementType().isF32();
}

/// A static f32 tensor, or with `narrowFloats` also f16 / bf16.
bool isFusableType(Type type, bool narrowFloats) {
  if (isStaticF32(type) || !narrowFloats)
    return isStaticF32(type);
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         (tensor.getElementType().isF16() || tensor.getElementType().isBF16());
}

/// With `narrowFloats` (the CUDA generator): the integer tensors of an int8
/// plan's quantize and dequantize ops (tgc-cuda-quantize-contractions),
/// which casts and pads may read or write.
bool isFusableIntegerType(Type type, bool narrowFloats) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return narrowFloats && tensor && tensor.hasStaticShape() &&
         (tensor.getElementType().isSignlessInteger(8) ||
          tensor.getElementType().isSignlessInteger(32));
}

/// Constants small enough to copy into every region that uses them.
bool isCloneableConstant(Operation *op, bool narrowFloats = false) {
  auto constant = dyn_cast<ConstantOp>(op);
  if (!constant || !isFusableType(constant.getType(), narrowFloats))
    return false;
  auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
  return value && (value.isSplat() || value.getNumElements() <= 16);
}

/// Ops that only move or replicate data: they do not count towards a
/// region's computing ops.
bool isDataMovement(Operation *op) {
  return isShapeView(op) || isa<BroadcastToOp, TransposeOp, ConstantOp>(op);
}

/// Ops that only view their operand's buffer on every backend.
bool isView(Operation *op) { return isShapeView(op) || isa<ConstantOp>(op); }

/// With `fuse-data-movement`: slices, pads and concatenations of static f32
/// tensors join regions too (backends whose generated kernels index them,
/// like the CUDA generator; the CPU loop code generator does not).
bool isFusableDataMovement(Operation *op, bool narrowFloats) {
  if (!isa<SliceOp, PadOp, ConcatOp>(op) || op->getNumResults() != 1)
    return false;
  // An i8 pad: an int8 convolution's input padded with its zero point.
  if (isa<PadOp>(op) &&
      isFusableIntegerType(op->getOperand(0).getType(), narrowFloats))
    return true;
  for (Type type : op->getOperandTypes())
    if (!isFusableType(type, narrowFloats))
      return false;
  return isFusableType(op->getResult(0).getType(), narrowFloats);
}

/// isLoopFusable, with `narrowFloats` over f16 / bf16 tensors too and with
/// casts between float types.
bool isLoopFusable(Operation *op, bool narrowFloats) {
  if (isa<ConstantOp>(op))
    return isCloneableConstant(op, narrowFloats);
  // The elementwise ops the loop code generators lower (not sin, cos, the
  // logical and integer-only ops, compare, select, cast), every reduction
  // and data movement.
  bool elementwise =
      isElementwise(op) &&
      !isa<SinOp, CosOp, LogicalNotOp, CastOp, ShiftLeftOp, ShiftRightOp,
           LogicalAndOp, LogicalOrOp, CompareOp, SelectOp>(op);
  elementwise |= narrowFloats && isa<CastOp>(op);
  if (!elementwise && !isReduction(op) && !isShapeView(op) &&
      !isa<BroadcastToOp, TransposeOp>(op))
    return false;
  if (op->getNumResults() != 1)
    return false;
  // Casts may also quantize to i8 or read i32 sums (int8 plans).
  const bool integerCast = isa<CastOp>(op);
  auto fusable = [&](Type type) {
    return isFusableType(type, narrowFloats) ||
           (integerCast && isFusableIntegerType(type, narrowFloats));
  };
  for (Type type : op->getOperandTypes())
    if (!fusable(type))
      return false;
  for (Type type : op->getResultTypes())
    if (!fusable(type))
      return false;
  return true;
}

} // namespace

bool tgc::isLoopFusable(Operation *op) {
  return ::isLoopFusable(op, /*narrowFloats=*/false);
}

namespace {

/// Greedy grouping over one block.
class Grouper {
public:
  Grouper(Block &block, const FuseElementwiseOptions &options)
      : block(block), options(options) {
    int64_t i = 0;
    for (Operation &op : block)
      position[&op] = i++;
  }

  int64_t run() {
    for (Operation &op : block) {
      if (op.hasTrait<mlir::OpTrait::IsTerminator>() || isa<ConstantOp>(op) ||
          !(::isLoopFusable(&op, options.narrowFloats) ||
            (options.fuseDataMovement &&
             isFusableDataMovement(&op, options.narrowFloats))))
        continue;
      // The groups of its producers, in operand order.
      SmallVector<int64_t> candidates;
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp()) {
          auto it = groupOf.find(def);
          if (it != groupOf.end() &&
              !llvm::is_contained(candidates, it->second))
            candidates.push_back(it->second);
        }
      SmallVector<Operation *> current{&op};
      SmallVector<int64_t> joined;
      for (int64_t g : candidates) {
        // For kernel-per-op backends (fuse-data-movement): data movement
        // after a reduction stays out of its region. A region whose result
        // is reduced per row and also moved (transposed, sliced) cannot be
        // one row kernel; CUDA's generator would recompute every row per
        // element instead.
        if (options.fuseDataMovement &&
            (isDataMovement(&op) ||
             isFusableDataMovement(&op, options.narrowFloats)) &&
            llvm::any_of(groups[g],
                         [](Operation *member) { return isReduction(member); }))
          continue;
        SmallVector<Operation *> trial(current);
        trial.append(groups[g].begin(), groups[g].end());
        if (static_cast<int64_t>(trial.size()) > options.maxOps)
          continue;
        if (createsCycle(trial))
          continue;
        current = std::move(trial);
        joined.push_back(g);
      }
      int64_t id = static_cast<int64_t>(groups.size());
      groups.emplace_back(current.begin(), current.end());
      for (int64_t g : joined)
        groups[g].clear();
      for (Operation *member : current)
        groupOf[member] = id;
    }
    int64_t formed = 0;
    for (auto &group : groups) {
      if (group.empty())
        continue;
      // With fuse-data-movement every op that moves data is work (a kernel
      // of its own otherwise); views never are.
      int64_t compute = llvm::count_if(group, [&](Operation *op) {
        return options.fuseDataMovement ? !isView(op) : !isDataMovement(op);
      });
      if (compute < options.minComputeOps)
        continue;
      formRegion(group);
      ++formed;
    }
    if (formed)
      (void)sortTopologically(&block);
    return formed;
  }

private:
  /// Whether some value leaves `members` and comes back into it through ops
  /// outside: then no single region can hold them.
  bool createsCycle(ArrayRef<Operation *> members) {
    llvm::DenseSet<Operation *> set(members.begin(), members.end());
    int64_t lowest = INT64_MAX;
    for (Operation *op : members)
      lowest = std::min(lowest, position.lookup(op));
    llvm::DenseSet<Operation *> visited;
    SmallVector<Operation *> stack;
    for (Operation *op : members)
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (!set.contains(def) && def->getBlock() == &block)
            stack.push_back(def);
    // Walk producers backwards from the outside operands: reaching a member
    // means member -> ... -> outside op -> member. An op of another group
    // stands for its whole group (one fusion once formed, which reads what
    // every member reads): a path through any member of it counts, or two
    // groups could each read the other's result.
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      if (!visited.insert(op).second)
        continue;
      auto grouped = groupOf.find(op);
      ArrayRef<Operation *> unit(op);
      if (grouped != groupOf.end() && !groups[grouped->second].empty())
        unit = groups[grouped->second];
      else if (position.lookup(op) < lowest)
        continue; // before every member: it cannot depend on one
      for (Operation *each : unit) {
        visited.insert(each);
        for (Value operand : each->getOperands())
          if (Operation *def = operand.getDefiningOp()) {
            if (def->getBlock() != &block)
              continue;
            if (set.contains(def))
              return true;
            stack.push_back(def);
          }
      }
    }
    return false;
  }

  void formRegion(SmallVector<Operation *> &group) {
    llvm::sort(group, [&](Operation *a, Operation *b) {
      return position.lookup(a) < position.lookup(b);
    });
    llvm::DenseSet<Operation *> set(group.begin(), group.end());
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> cloned;
    SmallVector<Value> results;
    SmallVector<Location> locations;
    for (Operation *op : group) {
      locations.push_back(op->getLoc());
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && set.contains(def))
          continue;
        if (def && isCloneableConstant(def, options.narrowFloats))
          cloned.insert(def);
        else
          inputs.insert(operand);
      }
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(),
                         [&](Operation *user) { return !set.contains(user); }))
          results.push_back(result);
    }
    OpBuilder builder(group.back());
    builder.setInsertionPointAfter(group.back());
    auto fusion =
        buildFusion(builder, builder.getFusedLoc(locations), FusionKind::loop,
                    inputs.getArrayRef(), group, results);
    for (auto [old, replacement] : llvm::zip(results, fusion.getResults()))
      old.replaceAllUsesWith(replacement);
    for (Operation *op : llvm::reverse(group)) {
      groupOf.erase(op);
      op->erase();
    }
    for (Operation *constant : cloned)
      if (constant->use_empty())
        constant->erase();
  }

  Block &block;
  const FuseElementwiseOptions &options;
  llvm::DenseMap<Operation *, int64_t> position;
  llvm::DenseMap<Operation *, int64_t> groupOf;
  std::vector<SmallVector<Operation *>> groups;
};

struct FuseElementwisePass
    : public tgc::impl::TgcFuseElementwiseBase<FuseElementwisePass> {
  using TgcFuseElementwiseBase::TgcFuseElementwiseBase;
  void runOnOperation() override {
    FuseElementwiseOptions opts;
    opts.maxOps = maxOps;
    opts.minComputeOps = minComputeOps;
    opts.fuseDataMovement = fuseDataMovement;
    opts.narrowFloats = narrowFloats;
    fuseElementwise(getOperation(), opts);
  }
};

} // namespace

int64_t tgc::fuseElementwise(Operation *root,
                             const FuseElementwiseOptions &options) {
  int64_t formed = 0;
  SmallVector<func::FuncOp> funcs;
  if (auto func = dyn_cast<func::FuncOp>(root))
    funcs.push_back(func);
  else
    root->walk([&](func::FuncOp func) { funcs.push_back(func); });
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    for (Block &block : func.getBody())
      formed += Grouper(block, options).run();
  }
  return formed;
}
