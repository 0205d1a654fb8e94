//===- LoopCodegen.cpp - tgc.fusion <loop> to linalg and LLVM -------------===//

#include "codegen/cpu/LoopCodegen.h"

#include "codegen/cpu/Passes.h"
#include "passes/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdlib>

namespace tgc::cpu {
#define GEN_PASS_DEF_TGCLOWERVECTOROPS
#define GEN_PASS_DEF_TGCAPPROXIMATEMATH
#define GEN_PASS_DEF_TGCNOALIASARGUMENTS
#define GEN_PASS_DEF_TGCLOWERLOOPFUSIONSTOLINALG
#include "codegen/cpu/Passes.h.inc"
} // namespace tgc::cpu

using namespace mlir;
using namespace tgc;

/// The widest tile of an elementwise linalg op with erf or tanh (f32 lanes:
/// one zmm).
constexpr int64_t kElementwiseVectorTile = 16;

//===----------------------------------------------------------------------===//
// What the generator handles
//===----------------------------------------------------------------------===//

bool cpu::isLoopFusionSupported(FusionOp fusion) {
  if (fusion.getKind() != FusionKind::loop || fusion.getBody().empty())
    return false;
  for (Type type : fusion->getOperandTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || !tensor.getElementType().isF32())
      return false;
  }
  Block &block = fusion.getBlock();
  for (Operation &op : block.without_terminator())
    if (!isLoopFusable(&op))
      return false;
  llvm::DenseSet<Value> yielded;
  for (Value v : block.getTerminator()->getOperands())
    if (!v.getDefiningOp() || !yielded.insert(v).second)
      return false;
  return fusion.getNumResults() > 0;
}

std::string cpu::loopFusionOpList(FusionOp fusion) {
  std::string list;
  for (Operation &op : fusion.getBlock().without_terminator()) {
    if (isa<ConstantOp>(op))
      continue;
    if (!list.empty())
      list += ",";
    list += op.getName().stripDialect().str();
  }
  return list;
}

//===----------------------------------------------------------------------===//
// Row split
//===----------------------------------------------------------------------===//

std::optional<cpu::RowSplit> cpu::analyzeRowSplit(FusionOp fusion) {
  Block &block = fusion.getBlock();
  auto yield = block.getTerminator();
  auto firstType = cast<RankedTensorType>(yield->getOperand(0).getType());
  RowSplit split;
  split.dim = -1;
  for (int64_t d = 0; d < firstType.getRank(); ++d)
    if (firstType.getDimSize(d) > 1) {
      split.dim = d;
      split.size = firstType.getDimSize(d);
      break;
    }
  if (split.dim < 0)
    return std::nullopt;
  const int64_t k = split.dim, n = split.size;
  // Whether a type has the row layout: rank > k, dims before k are 1, dim k
  // is n.
  auto rowShaped = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getRank() <= k || type.getDimSize(k) != n)
      return false;
    for (int64_t d = 0; d < k; ++d)
      if (type.getDimSize(d) != 1)
        return false;
    return true;
  };
  enum class Cls { Unknown, Row, Whole };
  llvm::DenseMap<Value, Cls> cls;
  for (Value arg : block.getArguments())
    cls[arg] = Cls::Unknown;
  auto require = [&](Value v, bool row) {
    Cls want = row ? Cls::Row : Cls::Whole;
    Cls &have = cls[v];
    if (have == Cls::Unknown) {
      if (row && !rowShaped(v))
        return false;
      have = want;
      return true;
    }
    return have == want;
  };
  for (Operation &op : block.without_terminator()) {
    Value result = op.getResult(0);
    bool ok = true, row = false;
    if (isa<ConstantOp>(op)) {
      row = false;
    } else if (op.hasTrait<mlir::OpTrait::SameOperandsAndResultType>() ||
               op.getNumOperands() == 2 || isa<BroadcastToOp>(op)) {
      // Elementwise with broadcasting: operands aligned with the result's
      // rows are rows; the others are broadcast along them.
      auto type = cast<RankedTensorType>(result.getType());
      row = rowShaped(result);
      for (Value operand : op.getOperands()) {
        auto t = cast<RankedTensorType>(operand.getType());
        bool aligned =
            row && t.getRank() == type.getRank() && rowShaped(operand);
        // An operand of lower rank that reaches the split dim (numpy
        // aligns the trailing dims) with more than one element there is
        // neither a row nor broadcast along the rows: no split (its
        // indexing would run over a block's rows, not its own extent).
        int64_t at = k - (type.getRank() - t.getRank());
        if (row && !aligned && at >= 0 && at < t.getRank() &&
            t.getDimSize(at) != 1)
          return std::nullopt;
        ok &= require(operand, aligned);
      }
    } else if (isReduction(&op)) {
      ArrayRef<int64_t> axes =
          cast<DenseI64ArrayAttr>(op.getAttr("axes")).asArrayRef();
      bool keep = op.hasAttr("keepdims");
      bool preserves = rowShaped(op.getOperand(0));
      for (int64_t a : axes)
        if (a <= k && (a == k || !keep))
          preserves = false;
      row = preserves && rowShaped(result);
      ok &= require(op.getOperand(0), row);
    } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
      bool preserves = true;
      for (int64_t d = 0;
           d <= k && d < (int64_t)transpose.getPermutation().size(); ++d)
        preserves &= transpose.getPermutation()[d] == d;
      row = preserves && rowShaped(op.getOperand(0)) && rowShaped(result);
      ok &= require(op.getOperand(0), row);
    } else if (isShapeView(&op)) {
      row = rowShaped(op.getOperand(0)) && rowShaped(result);
      ok &= require(op.getOperand(0), row);
    } else {
      return std::nullopt;
    }
    if (!ok)
      return std::nullopt;
    cls[result] = row ? Cls::Row : Cls::Whole;
  }
  for (Value v : yield->getOperands())
    if (cls.lookup(v) != Cls::Row)
      return std::nullopt;
  for (auto &[value, c] : cls)
    if (c == Cls::Row)
      split.rows.insert(value);
  for (Value arg : block.getArguments())
    split.inputIsRow.push_back(cls.lookup(arg) == Cls::Row);
  return split;
}

//===----------------------------------------------------------------------===//
// tgc ops to linalg on tensors
//===----------------------------------------------------------------------===//

namespace {

class LinalgEmitter {
public:
  LinalgEmitter(OpBuilder &b, Location loc, const cpu::RowSplit *split,
                int64_t rows)
      : b(b), loc(loc), ctx(b.getContext()), f32(b.getF32Type()), split(split),
        rows(rows) {}

  /// The target type of source value `v`.
  RankedTensorType typeOf(Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(type.getShape());
    if (split && rows >= 0 && split->rows.contains(v))
      shape[split->dim] = rows;
    return RankedTensorType::get(shape, f32);
  }

  Value constantF(OpBuilder &builder, Location l, double value) {
    return arith::ConstantOp::create(
        builder, l, builder.getF32FloatAttr(static_cast<float>(value)));
  }

  SmallVector<utils::IteratorType> parallel(int64_t n) {
    return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
  }

  using ScalarFn = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

  /// A linalg.generic computing `fn` elementwise over `type`, broadcasting
  /// the operands with numpy rules.
  Value elementwise(ValueRange operands, RankedTensorType type, ScalarFn fn) {
    int64_t r = type.getRank();
    SmallVector<AffineMap> maps;
    for (Value v : operands) {
      auto t = cast<RankedTensorType>(v.getType());
      int64_t rank = t.getRank();
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < rank; ++i) {
        int64_t d = i + r - rank;
        if (t.getDimSize(i) == 1 && type.getDimSize(d) != 1)
          exprs.push_back(b.getAffineConstantExpr(0));
        else
          exprs.push_back(b.getAffineDimExpr(d));
      }
      maps.push_back(AffineMap::get(r, 0, exprs, ctx));
    }
    maps.push_back(b.getMultiDimIdentityMap(r));
    Value init = tensor::EmptyOp::create(b, loc, type.getShape(), f32);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, operands, ValueRange{init}, maps, parallel(r),
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          linalg::YieldOp::create(nb, nl, fn(nb, nl, args.drop_back()));
        });
    return generic.getResult(0);
  }

  enum class Combine { Sum, Max, Min, Prod };

  Value reduce(Value input, ArrayRef<int64_t> axes, bool keepdims,
               RankedTensorType type, Combine combine) {
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t r = inType.getRank();
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t i = 0; i < r; ++i) {
      bool reduced = llvm::is_contained(axes, i);
      iterators.push_back(reduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
      if (!reduced)
        outExprs.push_back(b.getAffineDimExpr(i));
      else if (keepdims)
        outExprs.push_back(b.getAffineConstantExpr(0));
    }
    double identity = 0;
    switch (combine) {
    case Combine::Sum:
      identity = 0;
      break;
    case Combine::Prod:
      identity = 1;
      break;
    case Combine::Max:
      identity = -std::numeric_limits<double>::infinity();
      break;
    case Combine::Min:
      identity = std::numeric_limits<double>::infinity();
      break;
    }
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), f32);
    Value init =
        linalg::FillOp::create(b, loc, constantF(b, loc, identity), empty)
            .getResult(0);
    SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(r),
                                AffineMap::get(r, 0, outExprs, ctx)};
    auto reassoc =
        arith::FastMathFlagsAttr::get(ctx, arith::FastMathFlags::reassoc);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{input}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value x = args[0], acc = args[1], y;
          switch (combine) {
          case Combine::Sum:
            y = arith::AddFOp::create(nb, nl, acc, x, reassoc);
            break;
          case Combine::Prod:
            y = arith::MulFOp::create(nb, nl, acc, x, reassoc);
            break;
          case Combine::Max:
            y = arith::MaximumFOp::create(nb, nl, acc, x);
            break;
          case Combine::Min:
            y = arith::MinimumFOp::create(nb, nl, acc, x);
            break;
          }
          linalg::YieldOp::create(nb, nl, y);
        });
    return generic.getResult(0);
  }

  Value transpose(Value input, ArrayRef<int64_t> perm, RankedTensorType type) {
    int64_t r = type.getRank();
    SmallVector<AffineExpr> inExprs(r);
    for (int64_t i = 0; i < r; ++i)
      inExprs[perm[i]] = b.getAffineDimExpr(i);
    Value init = tensor::EmptyOp::create(b, loc, type.getShape(), f32);
    SmallVector<AffineMap> maps{AffineMap::get(r, 0, inExprs, ctx),
                                b.getMultiDimIdentityMap(r)};
    return linalg::GenericOp::create(
               b, loc, TypeRange{type}, ValueRange{input}, ValueRange{init},
               maps, parallel(r),
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 linalg::YieldOp::create(nb, nl, args[0]);
               })
        .getResult(0);
  }

  Value reshape(Value input, RankedTensorType type) {
    auto src = cast<RankedTensorType>(input.getType());
    if (src.getShape() == type.getShape())
      return input;
    if (src.getRank() == 0)
      return tensor::ExpandShapeOp::create(b, loc, type, input,
                                           ArrayRef<ReassociationIndices>{});
    if (type.getRank() == 0)
      return tensor::CollapseShapeOp::create(b, loc, type, input,
                                             ArrayRef<ReassociationIndices>{});
    if (auto reassociation = getReassociationIndicesForReshape(src, type)) {
      if (src.getRank() > type.getRank())
        return tensor::CollapseShapeOp::create(b, loc, type, input,
                                               *reassociation);
      if (src.getRank() < type.getRank())
        return tensor::ExpandShapeOp::create(b, loc, type, input,
                                             *reassociation);
    }
    // Through one dim.
    auto flat = RankedTensorType::get({src.getNumElements()}, f32);
    ReassociationIndices all, allOut;
    for (int64_t i = 0; i < src.getRank(); ++i)
      all.push_back(i);
    for (int64_t i = 0; i < type.getRank(); ++i)
      allOut.push_back(i);
    Value collapsed =
        src.getRank() == 1
            ? input
            : tensor::CollapseShapeOp::create(
                  b, loc, flat, input, ArrayRef<ReassociationIndices>{all})
                  .getResult();
    if (type.getRank() == 1)
      return collapsed;
    return tensor::ExpandShapeOp::create(
        b, loc, type, collapsed, ArrayRef<ReassociationIndices>{allOut});
  }

  /// The scalar body of an elementwise op.
  Value scalar(Operation *op, OpBuilder &nb, Location nl, ValueRange a) {
    auto c = [&](double v) { return constantF(nb, nl, v); };
    auto mul = [&](Value x, Value y) {
      return arith::MulFOp::create(nb, nl, x, y);
    };
    auto add = [&](Value x, Value y) {
      return arith::AddFOp::create(nb, nl, x, y);
    };
    auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
      return arith::CmpFOp::create(nb, nl, p, x, y);
    };
    auto sel = [&](Value cond, Value x, Value y) {
      return arith::SelectOp::create(nb, nl, cond, x, y);
    };
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case([&](NegOp) { return arith::NegFOp::create(nb, nl, a[0]); })
        .Case([&](AbsOp) { return math::AbsFOp::create(nb, nl, a[0]); })
        .Case([&](ExpOp) { return math::ExpOp::create(nb, nl, a[0]); })
        .Case([&](LogOp) { return math::LogOp::create(nb, nl, a[0]); })
        .Case([&](SqrtOp) { return math::SqrtOp::create(nb, nl, a[0]); })
        .Case([&](RsqrtOp) { return math::RsqrtOp::create(nb, nl, a[0]); })
        .Case([&](ReciprocalOp) {
          return arith::DivFOp::create(nb, nl, c(1.0), a[0]);
        })
        .Case([&](TanhOp) { return math::TanhOp::create(nb, nl, a[0]); })
        .Case([&](SigmoidOp) {
          Value e =
              math::ExpOp::create(nb, nl, arith::NegFOp::create(nb, nl, a[0]));
          return arith::DivFOp::create(nb, nl, c(1.0), add(c(1.0), e));
        })
        .Case([&](ReluOp) {
          return arith::MaximumFOp::create(nb, nl, a[0], c(0.0));
        })
        .Case([&](ErfOp) { return math::ErfOp::create(nb, nl, a[0]); })
        .Case([&](FloorOp) { return math::FloorOp::create(nb, nl, a[0]); })
        .Case([&](CeilOp) { return math::CeilOp::create(nb, nl, a[0]); })
        .Case([&](RoundOp) { return math::RoundEvenOp::create(nb, nl, a[0]); })
        .Case([&](SignOp) {
          Value neg =
              sel(cmp(arith::CmpFPredicate::OLT, a[0], c(0.0)), c(-1.0), a[0]);
          return sel(cmp(arith::CmpFPredicate::OGT, a[0], c(0.0)), c(1.0), neg);
        })
        .Case([&](LeakyReluOp o) {
          return sel(cmp(arith::CmpFPredicate::OGE, a[0], c(0.0)), a[0],
                     mul(c(o.getAlpha().convertToDouble()), a[0]));
        })
        .Case([&](EluOp o) {
          Value em1 = math::ExpM1Op::create(nb, nl, a[0]);
          return sel(cmp(arith::CmpFPredicate::OGT, a[0], c(0.0)), a[0],
                     mul(c(o.getAlpha().convertToDouble()), em1));
        })
        .Case([&](ClampOp o) {
          Value lo = arith::MaximumFOp::create(nb, nl, a[0],
                                               c(o.getMin().convertToDouble()));
          return arith::MinimumFOp::create(nb, nl, lo,
                                           c(o.getMax().convertToDouble()));
        })
        .Case([&](GeluOp o) -> Value {
          Value x = a[0];
          Value inner;
          if (o.getApproximate() == GeluApproximation::tanh) {
            Value x3 = mul(mul(x, x), x);
            Value u = mul(c(0.7978845608028654), add(x, mul(c(0.044715), x3)));
            inner = math::TanhOp::create(nb, nl, u);
          } else {
            inner = math::ErfOp::create(nb, nl, mul(x, c(0.7071067811865476)));
          }
          return mul(mul(c(0.5), x), add(c(1.0), inner));
        })
        .Case([&](AddOp) { return add(a[0], a[1]); })
        .Case([&](SubOp) { return arith::SubFOp::create(nb, nl, a[0], a[1]); })
        .Case([&](MulOp) { return mul(a[0], a[1]); })
        .Case([&](DivOp) { return arith::DivFOp::create(nb, nl, a[0], a[1]); })
        .Case([&](PowOp) { return math::PowFOp::create(nb, nl, a[0], a[1]); })
        .Case([&](MaxOp) {
          return arith::MaximumFOp::create(nb, nl, a[0], a[1]);
        })
        .Case([&](MinOp) {
          return arith::MinimumFOp::create(nb, nl, a[0], a[1]);
        })
        .Case([&](BroadcastToOp) { return a[0]; })
        .Default([](Operation *) { return Value(); });
  }

  /// Emits `op` given its mapped operands; null on failure.
  Value emit(Operation *op, ValueRange operands) {
    Value result = op->getResult(0);
    RankedTensorType type = typeOf(result);
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!value)
        return Value(); // only small dense constants join loop fusions
      SmallVector<float> values;
      for (APFloat v : value.getValues<APFloat>())
        values.push_back(v.convertToFloat());
      DenseElementsAttr attr =
          value.isSplat()
              ? DenseElementsAttr::get(type, values.front())
              : DenseElementsAttr::get(type, ArrayRef<float>(values));
      return arith::ConstantOp::create(b, loc, type, attr);
    }
    if (auto o = dyn_cast<TransposeOp>(op))
      return transpose(operands[0], o.getPermutation(), type);
    if (isShapeView(op))
      return reshape(operands[0], type);
    std::optional<Combine> combine;
    bool mean = false;
    if (isa<ReduceSumOp>(op))
      combine = Combine::Sum;
    else if (isa<ReduceMeanOp>(op))
      combine = Combine::Sum, mean = true;
    else if (isa<ReduceMaxOp>(op))
      combine = Combine::Max;
    else if (isa<ReduceMinOp>(op))
      combine = Combine::Min;
    else if (isa<ReduceProdOp>(op))
      combine = Combine::Prod;
    if (combine) {
      ArrayRef<int64_t> axes =
          cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
      Value reduced =
          reduce(operands[0], axes, op->hasAttr("keepdims"), type, *combine);
      if (!mean)
        return reduced;
      auto inType = cast<RankedTensorType>(operands[0].getType());
      int64_t count = 1;
      for (int64_t a : axes)
        count *= inType.getDimSize(a);
      double scale = count ? 1.0 / static_cast<double>(count)
                           : std::numeric_limits<double>::quiet_NaN();
      return elementwise(
          reduced, type,
          [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
            if (count == 0)
              return constantF(nb, nl, scale);
            return arith::MulFOp::create(nb, nl, a[0],
                                         constantF(nb, nl, scale));
          });
    }
    bool unsupported = false;
    Value v = elementwise(operands, type,
                          [&](OpBuilder &nb, Location nl, ValueRange a) {
                            Value s = scalar(op, nb, nl, a);
                            if (!s) {
                              unsupported = true;
                              s = a.empty() ? constantF(nb, nl, 0) : a[0];
                            }
                            return s;
                          });
    return unsupported ? Value() : v;
  }

private:
  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  Type f32;
  const cpu::RowSplit *split;
  int64_t rows;
};

} // namespace

FailureOr<func::FuncOp>
cpu::buildLinalgFunction(FusionOp fusion, ModuleOp module, StringRef name,
                         const RowSplit *split, int64_t rows) {
  if (!isLoopFusionSupported(fusion))
    return failure();
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<func::FuncDialect, arith::ArithDialect, math::MathDialect,
                   linalg::LinalgDialect, tensor::TensorDialect>();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = UnknownLoc::get(ctx);
  if (ctx == fusion.getContext())
    loc = fusion.getLoc();
  LinalgEmitter emitter(b, loc, split, rows);
  Block &block = fusion.getBlock();
  SmallVector<Type> argTypes, resultTypes;
  for (Value arg : block.getArguments())
    argTypes.push_back(emitter.typeOf(arg));
  for (Value v : block.getTerminator()->getOperands())
    resultTypes.push_back(emitter.typeOf(v));
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  llvm::DenseMap<Value, Value> mapping;
  for (auto [src, dst] : llvm::zip(block.getArguments(), entry->getArguments()))
    mapping[src] = dst;
  for (Operation &op : block.without_terminator()) {
    SmallVector<Value> operands;
    for (Value v : op.getOperands())
      operands.push_back(mapping.lookup(v));
    Value v = emitter.emit(&op, operands);
    if (!v) {
      func.erase();
      return failure();
    }
    mapping[op.getResult(0)] = v;
  }
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(mapping.lookup(v));
  func::ReturnOp::create(b, loc, results);
  return func;
}

//===----------------------------------------------------------------------===//
// Fusion, bufferization, lowering
//===----------------------------------------------------------------------===//

LogicalResult cpu::fuseLinalgOps(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  RewritePatternSet patterns(ctx);
  auto always = [](OpOperand *) { return true; };
  linalg::populateElementwiseOpsFusionPatterns(patterns, always);
  linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, always);
  linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
  linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
  linalg::FillOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
  return applyPatternsGreedily(module, std::move(patterns));
}

//===----------------------------------------------------------------------===//
// Tiling and vectorization
//===----------------------------------------------------------------------===//

namespace {

/// How one linalg op is tiled for vectorization.
struct TilePlan {
  /// Per loop: 0 (not tiled) or the tile size.
  SmallVector<int64_t> tileSizes;
  /// The innermost dim is a reduction tiled into a partial reduction.
  bool partialReduction = false;
};

/// Whether `op`'s body has erf or tanh, the longest polynomials after
/// math expansion (GELU's two forms).
bool hasLongPolynomial(linalg::LinalgOp op) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (isa<math::ErfOp, math::TanhOp>(inner))
      found = true;
  });
  return found;
}

std::optional<TilePlan> planTiling(linalg::LinalgOp op, int64_t maxTile) {
  if (!op.hasPureTensorSemantics() || op->getNumRegions() != 1)
    return std::nullopt;
  int64_t numLoops = op.getNumLoops();
  if (numLoops == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  int64_t inner = numLoops - 1;
  int64_t n = ranges[inner];
  if (n <= 1)
    return std::nullopt;
  // The innermost dim must be contiguous (the last result) or absent
  // (broadcast / reduced) in every operand.
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return std::nullopt;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (map.getResult(r) == getAffineDimExpr(inner, op->getContext()) &&
          r + 1 != map.getNumResults())
        return std::nullopt;
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  bool innerReduction = iterators[inner] == utils::IteratorType::reduction;
  if (innerReduction &&
      (op.getNumReductionLoops() != 1 || op.getNumDpsInits() != 1))
    return std::nullopt;
  // Elementwise erf / tanh take one register per tile: wider tiles of
  // their long polynomials spill (GELU 8x128x3072: 1.9 ms at 64 lanes,
  // 1.1 ms at 16). Others, and reductions (whose independent accumulators
  // are the parallelism), keep wide tiles (exp in softmax: 64 is 6%
  // faster than 16).
  if (op.getNumReductionLoops() == 0 && hasLongPolynomial(op))
    maxTile = std::min(maxTile, kElementwiseVectorTile);
  int64_t tile = 0;
  for (int64_t v = maxTile; v >= 8; v /= 2)
    if (n % v == 0) {
      tile = v;
      break;
    }
  if (tile == 0 && n > maxTile)
    return std::nullopt;
  if (tile == n)
    tile = 0;
  if (failed(linalg::vectorizeOpPrecondition(op)))
    return std::nullopt;
  TilePlan plan;
  for (int64_t d = 0; d < inner; ++d)
    plan.tileSizes.push_back(ranges[d] == 1 ? 0 : 1);
  plan.tileSizes.push_back(tile);
  plan.partialReduction = innerReduction && tile != 0;
  return plan;
}

void canonicalizeVectorCode(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  RewritePatternSet patterns(ctx);
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  (void)applyPatternsGreedily(module, std::move(patterns));
}

} // namespace

FailureOr<int64_t> cpu::vectorizeLinalgOps(ModuleOp module, int64_t maxTile) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<scf::SCFDialect, vector::VectorDialect,
                   affine::AffineDialect>();
  // Drop unit dims first: the (d0, 0) result maps of keepdims reductions
  // do not vectorize.
  {
    RewritePatternSet patterns(ctx);
    linalg::ControlDropUnitDims control;
    linalg::populateFoldUnitExtentDimsPatterns(patterns, control);
    linalg::populateFoldUnitExtentDimsCanonicalizationPatterns(patterns,
                                                               control);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return failure();
  }
  SmallVector<linalg::LinalgOp> candidates;
  module.walk([&](linalg::LinalgOp op) { candidates.push_back(op); });
  IRRewriter rewriter(ctx);
  int64_t vectorized = 0;
  auto vectorizeOne = [&](Operation *op) {
    if (!isa<linalg::LinalgOp>(op) ||
        failed(linalg::vectorizeOpPrecondition(op)))
      return false;
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> result =
        linalg::vectorize(rewriter, op);
    if (failed(result))
      return false;
    rewriter.replaceOp(op, result->replacements);
    return true;
  };
  for (linalg::LinalgOp op : candidates) {
    std::optional<TilePlan> plan = planTiling(op, maxTile);
    if (!plan)
      continue;
    if (llvm::all_of(plan->tileSizes, [](int64_t t) { return t == 0; })) {
      vectorized += vectorizeOne(op);
      continue;
    }
    // Tiles `target` by `sizes` and replaces it; partial reduction tiling
    // takes no parallel tile sizes, so an innermost reduction is tiled in two
    // steps (rows, then the reduction dim).
    auto tile = [&](Operation *target, ArrayRef<int64_t> sizes,
                    bool partial) -> FailureOr<scf::SCFTilingResult> {
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(ctx, sizes));
      if (partial) {
        options.setReductionTilingStrategy(
            ReductionTilingStrategy::PartialReductionOuterReduction);
        options.setReductionDims({static_cast<unsigned>(sizes.size() - 1)});
      }
      rewriter.setInsertionPoint(target);
      FailureOr<scf::SCFTilingResult> tiled =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(target), options);
      if (succeeded(tiled))
        rewriter.replaceOp(target, tiled->replacements);
      return tiled;
    };
    SmallVector<int64_t> outer(plan->tileSizes);
    if (plan->partialReduction)
      outer.back() = 0;
    Operation *target = op;
    FailureOr<scf::SCFTilingResult> tiled = failure();
    if (llvm::any_of(outer, [](int64_t t) { return t != 0; })) {
      tiled = tile(target, outer, /*partial=*/false);
      if (failed(tiled))
        continue;
      target = tiled->tiledOps.back();
    }
    if (plan->partialReduction) {
      SmallVector<int64_t> inner(outer.size(), 0);
      inner.back() = plan->tileSizes.back();
      tiled = tile(target, inner, /*partial=*/true);
      if (failed(tiled)) {
        vectorized += vectorizeOne(target);
        continue;
      }
    }
    bool all = true;
    for (Value init : tiled->initialValues)
      if (Operation *def = init.getDefiningOp();
          def && isa<linalg::FillOp>(def))
        vectorizeOne(def);
    for (Operation *tiledOp : tiled->tiledOps)
      all &= vectorizeOne(tiledOp);
    for (Operation *merge : tiled->mergeOps)
      all &= vectorizeOne(merge);
    vectorized += all;
  }
  if (vectorized == 0)
    return vectorized;
  // Fold the full-size slices, then keep loop-carried tiles (partial
  // reductions, accumulators) in vector registers.
  canonicalizeVectorCode(module);
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    hoistLoopInvariantSubsets(rewriter, loop);
  canonicalizeVectorCode(module);
  return vectorized;
}

namespace {

/// Lowers the vector ops left by vectorizeLinalgOps (on buffers) to the
/// forms convert-vector-to-scf/-llvm take: unit dims dropped, broadcasting
/// and permuted transfers split, multi-reductions to vector.reduction.
struct LowerVectorOpsPass
    : public cpu::impl::TgcLowerVectorOpsBase<LowerVectorOpsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    bool any = false;
    getOperation().walk([&](Operation *op) {
      if (isa<vector::VectorDialect>(op->getDialect()))
        any = true;
    });
    if (!any)
      return;
    // Bounded: these are cleanups, a pattern set that does not converge
    // must not hang the compile.
    GreedyRewriteConfig config;
    config.setMaxIterations(8);
    RewritePatternSet unitDims(ctx);
    vector::populateVectorTransferPermutationMapLoweringPatterns(unitDims);
    vector::populateVectorMultiReductionLoweringPatterns(
        unitDims, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorBroadcastLoweringPatterns(unitDims);
    (void)applyPatternsGreedily(getOperation(), std::move(unitDims), config);
    RewritePatternSet lowering(ctx);
    vector::populateVectorShapeCastLoweringPatterns(lowering);
    vector::populateVectorTransposeLoweringPatterns(
        lowering, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorTransferLoweringPatterns(lowering,
                                                   /*maxTransferRank=*/1);
    (void)applyPatternsGreedily(getOperation(), std::move(lowering), config);
  }
};

} // namespace

namespace {

/// Rewrites math functions into polynomial arithmetic that vectorizes.
struct ApproximateMathPass
    : public cpu::impl::TgcApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      return name == "exp" || name == "expm1" || name == "tanh" ||
             name == "log" || name == "log1p" || name == "erf";
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// Marks every function argument llvm.noalias.
struct NoAliasPass : public cpu::impl::TgcNoAliasArgumentsBase<NoAliasPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp func) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        func.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                        UnitAttr::get(func.getContext()));
    });
  }
};

} // namespace

LogicalResult cpu::lowerToLLVMDialect(ModuleOp module, bool noAlias) {
  MLIRContext *ctx = module.getContext();
  PassManager pm(ctx);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Tiled loops carry their buffers as iter_args: fold those (and the
  // self-copies of their slices) so that results are written in place.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(cpu::createTgcLowerVectorOps());
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(cpu::createTgcApproximateMath());
  if (noAlias)
    pm.addPass(cpu::createTgcNoAliasArguments());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcOptions;
  funcOptions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcOptions));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  return pm.run(module);
}

void cpu::registerLoopCodegenDialects(DialectRegistry &registry) {
  registry
      .insert<func::FuncDialect, arith::ArithDialect, math::MathDialect,
              linalg::LinalgDialect, tensor::TensorDialect,
              bufferization::BufferizationDialect, memref::MemRefDialect,
              scf::SCFDialect, cf::ControlFlowDialect, affine::AffineDialect,
              vector::VectorDialect, LLVM::LLVMDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  linalg::registerTilingInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

//===----------------------------------------------------------------------===//
// tgc-lower-loop-fusions-to-linalg
//===----------------------------------------------------------------------===//

namespace {

struct LowerLoopFusionsPass
    : public cpu::impl::TgcLowerLoopFusionsToLinalgBase<LowerLoopFusionsPass> {
  using TgcLowerLoopFusionsToLinalgBase::TgcLowerLoopFusionsToLinalgBase;
  void getDependentDialects(DialectRegistry &registry) const override {
    cpu::registerLoopCodegenDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<FusionOp> fusions;
    module.walk([&](FusionOp f) {
      if (f.getKind() == FusionKind::loop)
        fusions.push_back(f);
    });
    int64_t n = 0;
    for (FusionOp fusion : fusions) {
      if (!cpu::isLoopFusionSupported(fusion))
        continue;
      std::optional<cpu::RowSplit> split;
      if (chunkRows >= 0)
        split = cpu::analyzeRowSplit(fusion);
      std::string name = "loop_fusion_" + std::to_string(n++);
      auto func = cpu::buildLinalgFunction(fusion, module, name,
                                           split ? &*split : nullptr,
                                           split ? chunkRows : -1);
      if (failed(func)) {
        fusion.emitOpError("cannot be lowered to linalg");
        return signalPassFailure();
      }
      if (split) {
        (*func)->setAttr(
            "tgc.split_dim",
            IntegerAttr::get(IntegerType::get(&getContext(), 64), split->dim));
      }
      if (toLLVM)
        continue;
      OpBuilder b(fusion);
      func->setPrivate();
      if (split)
        continue;
      auto call =
          func::CallOp::create(b, fusion.getLoc(), *func, fusion.getInputs());
      fusion.replaceAllUsesWith(call.getResults());
      fusion.erase();
    }
    if (fuse && failed(cpu::fuseLinalgOps(module)))
      return signalPassFailure();
    if (vectorize && failed(cpu::vectorizeLinalgOps(module)))
      return signalPassFailure();
    if (toLLVM) {
      // Keep only the generated functions.
      for (Operation &op : llvm::make_early_inc_range(*module.getBody()))
        if (auto f = dyn_cast<func::FuncOp>(op);
            !f || !f.getName().starts_with("loop_fusion_"))
          op.erase();
      if (failed(cpu::lowerToLLVMDialect(module, /*noAlias=*/true)))
        return signalPassFailure();
    }
  }
};

} // namespace

void cpu::registerLoopCodegenPasses() { cpu::registerTgcCpuPasses(); }
