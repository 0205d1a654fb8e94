//===- ControlFlow.cpp - conditionals and loops in traced functions -------===//
//
// tgc::cond, tgc::whileLoop and tgc::scan (include/tgc/ControlFlow.h): each
// callable is traced into a block of its own (the trace's builder moved into
// it), tensors of the enclosing trace the callable read become region
// arguments (captures: the regions are isolated from above), and the
// tgc.if / tgc.while is made from the blocks.
//
//===----------------------------------------------------------------------===//

#include "tgc/ControlFlow.h"

#include "frontend/ControlFlowInternal.h"
#include "frontend/Tensor.h"
#include "frontend/TraceState.h"

#include "dialects/DTypeMapping.h"
#include "dialects/TgcOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SetVector.h"

#include <memory>
#include <string>

using namespace mlir;

namespace tgc {
namespace detail {

namespace {

/// A callable traced into a block of its own.
struct TracedBlock {
  std::unique_ptr<Block> block;
  std::vector<Tensor> yielded;
};

using BlockBody =
    std::function<std::vector<Tensor>(Block &, const std::vector<Tensor> &)>;

/// Traces `body` into a new block taking `argTypes`, with the trace's
/// builder inside it (restored afterwards, also when `body` throws).
TracedBlock traceBlock(TraceState &state, TypeRange argTypes, Location loc,
                       const BlockBody &body) {
  TracedBlock traced;
  traced.block = std::make_unique<Block>();
  for (Type type : argTypes)
    traced.block->addArgument(type, loc);
  OpBuilder::InsertionGuard guard(state.builder);
  state.builder.setInsertionPointToEnd(traced.block.get());
  std::vector<Tensor> args;
  for (BlockArgument arg : traced.block->getArguments())
    args.push_back(TensorAccess::make(arg, state.id));
  traced.yielded = body(*traced.block, args);
  return traced;
}

/// Whether every tensor `what` returned is a valid tensor of this trace;
/// records an error where one is not (a poisoned one already has its own).
bool checkYielded(OpRecorder &rec, const std::vector<Tensor> &yielded,
                  llvm::StringRef what) {
  for (auto [i, tensor] : llvm::enumerate(yielded)) {
    if (TensorAccess::traceId(tensor) == rec.state()->id) {
      if (!tensor.valid())
        return false; // its error is recorded
      continue;
    }
    rec.fail(what + " returns an invalid tensor as result #" + llvm::Twine(i) +
             " (default-constructed, or of another trace)");
    return false;
  }
  return true;
}

void yieldFrom(TraceState &state, TracedBlock &traced, Location loc,
               TypeRange types = {}) {
  OpBuilder::InsertionGuard guard(state.builder);
  state.builder.setInsertionPointToEnd(traced.block.get());
  SmallVector<Value> values;
  for (auto [i, tensor] : llvm::enumerate(traced.yielded)) {
    Value value = valueOf(tensor);
    // A result relaxed to dynamic dims (traceCond's relaxShapes).
    if (i < types.size() && value.getType() != types[i])
      value = tensor::CastOp::create(state.builder, value.getLoc(), types[i],
                                     value);
    values.push_back(value);
  }
  YieldOp::create(state.builder, loc, values);
}

/// The type both `a` and `b` cast to: one dtype and rank, the dims they
/// agree on static and the others dynamic; null when there is none.
RankedTensorType joinShapes(Type a, Type b) {
  auto ra = dyn_cast<RankedTensorType>(a), rb = dyn_cast<RankedTensorType>(b);
  if (!ra || !rb || ra.getElementType() != rb.getElementType() ||
      ra.getRank() != rb.getRank())
    return {};
  SmallVector<int64_t> shape;
  for (auto [da, db] : llvm::zip(ra.getShape(), rb.getShape()))
    shape.push_back(da == db ? da : ShapedType::kDynamic);
  return RankedTensorType::get(shape, ra.getElementType());
}

/// Whether `value` is defined inside `block` (at any depth).
bool definedWithin(Value value, Block *block) {
  Block *owner = isa<BlockArgument>(value)
                     ? cast<BlockArgument>(value).getOwner()
                     : value.getDefiningOp()->getBlock();
  while (owner) {
    if (owner == block)
      return true;
    Operation *parent = owner->getParentOp();
    owner = parent ? parent->getBlock() : nullptr;
  }
  return false;
}

/// Turns the values the blocks read from the enclosing trace into block
/// arguments (appended to every block, in the order first read) and returns
/// them: the op's captures.
SmallVector<Value> liftCaptures(ArrayRef<Block *> blocks) {
  llvm::SetVector<Value> found;
  for (Block *block : blocks)
    block->walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (!definedWithin(operand, block))
          found.insert(operand);
    });
  for (Value value : found)
    for (Block *block : blocks) {
      BlockArgument arg = block->addArgument(value.getType(), value.getLoc());
      value.replaceUsesWithIf(arg, [&](OpOperand &use) {
        return block->findAncestorOpInBlock(*use.getOwner()) != nullptr;
      });
    }
  return SmallVector<Value>(found.begin(), found.end());
}

/// Verifies the finished op; on failure erases it and records the error.
std::vector<Tensor> finish(OpRecorder &rec, Operation *op) {
  TraceState &state = *rec.state();
  unsigned errorsBefore = state.getErrorCount();
  if (failed(verify(op))) {
    op->erase();
    if (state.getErrorCount() == errorsBefore)
      rec.fail("failed to verify");
    return {};
  }
  std::vector<Tensor> results;
  for (Value result : op->getResults())
    results.push_back(TensorAccess::make(result, state.id));
  return results;
}

std::vector<const Tensor *> pointers(const std::vector<Tensor> &tensors) {
  std::vector<const Tensor *> result;
  for (const Tensor &tensor : tensors)
    result.push_back(&tensor);
  return result;
}

SmallVector<Type> typesOf(const std::vector<Tensor> &tensors) {
  SmallVector<Type> types;
  for (const Tensor &tensor : tensors)
    types.push_back(typeOf(tensor));
  return types;
}

SmallVector<Value> valuesOf(const std::vector<Tensor> &tensors) {
  SmallVector<Value> values;
  for (const Tensor &tensor : tensors)
    values.push_back(valueOf(tensor));
  return values;
}

/// Checks that a loop body's next carried values have the carried types.
bool checkCarried(OpRecorder &rec, const std::vector<Tensor> &next,
                  TypeRange carried) {
  if (next.size() != carried.size()) {
    rec.fail("the loop body returns " + llvm::Twine(next.size()) +
             " tensors for " + llvm::Twine(carried.size()) + " carried values");
    return false;
  }
  for (auto [i, pair] : llvm::enumerate(llvm::zip(next, carried)))
    if (typeOf(std::get<0>(pair)) != std::get<1>(pair)) {
      rec.fail("the loop body changes carried value #" + llvm::Twine(i) +
               " from " + typeString(std::get<1>(pair)) + " to " +
               typeString(typeOf(std::get<0>(pair))) +
               " (a carried value keeps its dtype and shape)");
      return false;
    }
  return true;
}

/// checkCarried, where with `relaxShapes` a next value may also be more
/// static than its (relaxed) carried type: it casts to it.
bool checkCarriedRelaxed(OpRecorder &rec, const std::vector<Tensor> &next,
                         TypeRange carried, bool relaxShapes) {
  if (!relaxShapes || next.size() != carried.size())
    return checkCarried(rec, next, carried);
  for (auto [i, pair] : llvm::enumerate(llvm::zip(next, carried))) {
    Type type = typeOf(std::get<0>(pair));
    if (type != std::get<1>(pair) &&
        joinShapes(std::get<1>(pair), type) != std::get<1>(pair))
      return checkCarried(rec, next, carried); // records the error
  }
  return true;
}

/// The tgc.while of traced `cond` and `body` blocks carrying `init`.
std::vector<Tensor> buildWhile(OpRecorder &rec, const std::vector<Tensor> &init,
                               TracedBlock &cond, TracedBlock &body,
                               TypeRange carried = {}) {
  TraceState &state = *rec.state();
  yieldFrom(state, cond, rec.loc());
  yieldFrom(state, body, rec.loc(), carried);
  SmallVector<Value> captures =
      liftCaptures({cond.block.get(), body.block.get()});
  // Initial values cast to carried types relaxed to dynamic dims.
  SmallVector<Value> inits = valuesOf(init);
  for (auto [i, value] : llvm::enumerate(inits))
    if (i < carried.size() && value.getType() != carried[i])
      value =
          tensor::CastOp::create(state.builder, rec.loc(), carried[i], value);
  auto op = WhileOp::create(state.builder, rec.loc(),
                            TypeRange(ValueRange(inits)), inits, captures);
  op.getCond().push_back(cond.block.release());
  op.getBody().push_back(body.block.release());
  return finish(rec, op);
}

/// The slice `i` (an i64 scalar) of `xs` along dim 0.
Tensor sliceAt(const Tensor &xs, const Tensor &i, SourceLoc loc) {
  return gather(xs, i, 0, loc);
}

/// `ys` with its slice `i` along dim 0 replaced by `y`.
Tensor updateAt(const Tensor &ys, const Tensor &i, const Tensor &y,
                SourceLoc loc) {
  return scatterND(ys, reshape(i, {1, 1}, loc), unsqueeze(y, {0}, loc), "none",
                   loc);
}

} // namespace

std::vector<Tensor> traceCond(const Tensor &condition,
                              const std::vector<Tensor> &operands,
                              const RegionBody &thenBody,
                              const RegionBody &elseBody, SourceLoc loc,
                              bool relaxShapes) {
  std::vector<const Tensor *> checked = pointers(operands);
  checked.insert(checked.begin(), &condition);
  OpRecorder rec(IfOp::getOperationName(), checked, loc);
  if (!rec.ok())
    return {};
  TraceState &state = *rec.state();
  SmallVector<Type> argTypes = typesOf(operands);
  auto asBlockBody = [](const RegionBody &body) -> BlockBody {
    return [&body](Block &, const std::vector<Tensor> &args) {
      return body(args);
    };
  };
  TracedBlock thenBlock =
      traceBlock(state, argTypes, rec.loc(), asBlockBody(thenBody));
  TracedBlock elseBlock =
      traceBlock(state, argTypes, rec.loc(), asBlockBody(elseBody));
  if (!checkYielded(rec, thenBlock.yielded, "the 'then' branch") ||
      !checkYielded(rec, elseBlock.yielded, "the 'else' branch"))
    return {};
  if (thenBlock.yielded.size() != elseBlock.yielded.size()) {
    rec.fail("the 'then' branch returns " +
             llvm::Twine(thenBlock.yielded.size()) +
             " tensors but the 'else' branch " +
             llvm::Twine(elseBlock.yielded.size()));
    return {};
  }
  SmallVector<Type> resultTypes = typesOf(thenBlock.yielded);
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(resultTypes, typesOf(elseBlock.yielded)))) {
    if (std::get<0>(pair) == std::get<1>(pair))
      continue;
    if (RankedTensorType joined =
            relaxShapes ? joinShapes(std::get<0>(pair), std::get<1>(pair))
                        : RankedTensorType()) {
      resultTypes[i] = joined;
      continue;
    }
    rec.fail("the branches return different types as result #" +
             llvm::Twine(i) + ": " + typeString(std::get<0>(pair)) +
             " ('then') and " + typeString(std::get<1>(pair)) + " ('else')");
    return {};
  }
  yieldFrom(state, thenBlock, rec.loc(), resultTypes);
  yieldFrom(state, elseBlock, rec.loc(), resultTypes);
  SmallVector<Value> inputs = valuesOf(operands);
  llvm::append_range(
      inputs, liftCaptures({thenBlock.block.get(), elseBlock.block.get()}));
  auto op = IfOp::create(state.builder, rec.loc(), resultTypes,
                         valueOf(condition), inputs);
  op.getThenRegion().push_back(thenBlock.block.release());
  op.getElseRegion().push_back(elseBlock.block.release());
  return finish(rec, op);
}

std::vector<Tensor> traceWhile(const std::vector<Tensor> &init,
                               const RegionBody &condBody,
                               const RegionBody &body, SourceLoc loc) {
  OpRecorder rec(WhileOp::getOperationName(), pointers(init), loc);
  if (!rec.ok())
    return {};
  TraceState &state = *rec.state();
  SmallVector<Type> carried = typesOf(init);
  TracedBlock condBlock = traceBlock(
      state, carried, rec.loc(),
      [&](Block &, const std::vector<Tensor> &args) { return condBody(args); });
  TracedBlock bodyBlock = traceBlock(
      state, carried, rec.loc(),
      [&](Block &, const std::vector<Tensor> &args) { return body(args); });
  if (!checkYielded(rec, condBlock.yielded, "the loop condition") ||
      !checkYielded(rec, bodyBlock.yielded, "the loop body") ||
      !checkCarried(rec, bodyBlock.yielded, carried))
    return {};
  return buildWhile(rec, init, condBlock, bodyBlock);
}

std::vector<Tensor>
traceCountedLoop(const std::vector<Tensor> &init, std::optional<int64_t> length,
                 size_t numStacked, const RegionBody &condBody,
                 const RegionBody &body, SourceLoc loc, bool relaxShapes) {
  OpRecorder rec(WhileOp::getOperationName(), pointers(init), loc);
  if (!rec.ok())
    return {};
  TraceState &state = *rec.state();
  Type counter = RankedTensorType::get({}, state.builder.getI64Type());
  // Carried: the step counter, the values, and the stacked buffers (added
  // once the body is traced: they take its per-iteration values' types).
  SmallVector<Type> userCarried = {counter};
  llvm::append_range(userCarried, typesOf(init));
  SmallVector<Type> carried;
  bool bodyTraced = false;
  TracedBlock bodyBlock;
  // With relaxShapes: traced again while a carried value's shape changes.
  for (int attempt = 0;; ++attempt) {
    carried = userCarried;
    bodyTraced = false;
    bodyBlock = traceBlock(
        state, carried, rec.loc(),
        [&](Block &block,
            const std::vector<Tensor> &args) -> std::vector<Tensor> {
          std::vector<Tensor> out = body(args);
          if (!checkYielded(rec, out, "the loop body"))
            return {};
          if (out.size() != init.size() + numStacked) {
            rec.fail("the loop body returns " + llvm::Twine(out.size()) +
                     " tensors for " + llvm::Twine(init.size()) +
                     " carried values and " + llvm::Twine(numStacked) +
                     " per-iteration outputs");
            return {};
          }
          if (numStacked && !length) {
            rec.fail("per-iteration outputs need a static trip count");
            return {};
          }
          const Tensor &i = args[0];
          std::vector<Tensor> next = {add(i, Scalar(1), loc)};
          next.insert(next.end(), out.begin(), out.begin() + init.size());
          for (size_t k = init.size(); k < out.size(); ++k) {
            const Tensor &y = out[k];
            std::vector<int64_t> shape = y.shape();
            if (llvm::is_contained(shape, kDynamic)) {
              rec.fail("per-iteration output #" + llvm::Twine(k - init.size()) +
                       " is " + y.describe() +
                       ": stacking needs the same static shape on every "
                       "iteration");
              return {};
            }
            shape.insert(shape.begin(), *length);
            Type type =
                RankedTensorType::get(shape, typeOf(y).getElementType());
            Tensor stacked = TensorAccess::make(
                block.addArgument(type, rec.loc()), state.id);
            next.push_back(updateAt(stacked, i, y, loc));
          }
          bodyTraced = true;
          return next;
        });
    if (!bodyTraced)
      return {}; // the body failed; its error is recorded
    for (size_t k = 1 + init.size(); k < bodyBlock.yielded.size(); ++k)
      carried.push_back(typeOf(bodyBlock.yielded[k]));
    if (!checkYielded(rec, bodyBlock.yielded, "the loop body"))
      return {};
    bool relaxed = false;
    if (relaxShapes && attempt < 4)
      for (size_t k = 1; k < userCarried.size() && k < bodyBlock.yielded.size();
           ++k) {
        Type next = typeOf(bodyBlock.yielded[k]);
        RankedTensorType joined = joinShapes(userCarried[k], next);
        if (next != userCarried[k] && joined && joined != userCarried[k]) {
          userCarried[k] = joined;
          relaxed = true;
        }
      }
    if (!relaxed)
      break;
  }
  if (!checkCarriedRelaxed(rec, bodyBlock.yielded, carried, relaxShapes))
    return {};
  size_t userArgs = 1 + init.size();
  TracedBlock condBlock = traceBlock(
      state, carried, rec.loc(), [&](Block &, const std::vector<Tensor> &args) {
        return condBody(
            std::vector<Tensor>(args.begin(), args.begin() + userArgs));
      });
  if (!checkYielded(rec, condBlock.yielded, "the loop condition"))
    return {};
  std::vector<Tensor> start = {scalar(0, runtime::DType::I64, loc)};
  start.insert(start.end(), init.begin(), init.end());
  for (size_t k = userArgs; k < carried.size(); ++k) {
    auto type = cast<RankedTensorType>(carried[k]);
    start.push_back(full(
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end()), 0,
        *toDType(type.getElementType()), loc));
  }
  std::vector<Tensor> results =
      buildWhile(rec, start, condBlock, bodyBlock, carried);
  if (results.empty())
    return {};
  results.erase(results.begin()); // the counter
  return results;
}

std::vector<Tensor> traceScan(const std::vector<Tensor> &init, const Tensor &xs,
                              const ScanStep &step, SourceLoc loc) {
  std::optional<int64_t> length = xs.rank() >= 1 ? xs.dim(0) : std::nullopt;
  if (!length && xs.valid()) {
    std::vector<const Tensor *> checked = {&xs};
    OpRecorder(WhileOp::getOperationName(), checked, loc)
        .fail("a scan runs over the leading dim of its input, which must be "
              "static; the input is " +
              xs.describe());
    return {};
  }
  return traceCountedLoop(
      init, length, 1,
      [&](const std::vector<Tensor> &args) {
        return std::vector<Tensor>{less(args[0], Scalar(*length), loc)};
      },
      [&](const std::vector<Tensor> &args) {
        std::vector<Tensor> carry(args.begin() + 1, args.end());
        return step(carry, sliceAt(xs, args[0], loc));
      },
      loc);
}

} // namespace detail
} // namespace tgc
