//===- Compiler.cpp - tgc functions to CPU executables --------------------===//

#include "codegen/cpu/Compiler.h"
#include "dialects/InputQuantization.h"

#include "codegen/Backend.h"
#include "codegen/ContractionKeys.h"
#include "codegen/cpu/CpuPipeline.h"
#include "codegen/cpu/KernelObjectCache.h"
#include "codegen/cpu/LoopCodegen.h"
#include "codegen/cpu/LoopKernel.h"
#include "codegen/reference/Interpreter.h"
#include "dialects/ConstantData.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"
#include "passes/Passes.h"
#include "passes/PostOpFusion.h"
#include "passes/Specialize.h"
#include "runtime/ControlFlow.h"
#include "runtime/LargeBuffer.h"
#include "runtime/Shape.h"
#include "runtime/cpu/Common.h"
#include "runtime/cpu/Kernels.h"
#include "runtime/cpu/Recipes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include "absl/strings/str_cat.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string_view>
#include <system_error>

using namespace mlir;
using namespace tgc;
using runtime::DType;
using runtime::HostTensor;
using runtime::cpu::KernelPtr;
using runtime::cpu::Shape;

namespace {

/// "file:line:col: 'tgc.op' op message".
std::string messageAt(Operation *op, const llvm::Twine &message) {
  return (locationString(op->getLoc()) + ": '" + op->getName().getStringRef() +
          "' op " + message)
      .str();
}

llvm::Error errorAt(Operation *op, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 messageAt(op, message));
}

/// An UnsupportedError at `op`: the CPU backend cannot compile it.
llvm::Error unsupportedAt(Operation *op, const llvm::Twine &message) {
  return codegen::makeUnsupportedError(messageAt(op, message));
}

using reference::toDType;

Shape shapeOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return Shape(type.getShape().begin(), type.getShape().end());
}

DType dtypeOf(Value value) {
  return *toDType(cast<RankedTensorType>(value.getType()).getElementType());
}

using tgc::typeString;
std::string typeString(Value value) { return typeString(value.getType()); }

/// Whether `type` is a ranked tensor with a zero-size dim.
bool isEmptyTensor(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && llvm::is_contained(ranked.getShape(), 0);
}

/// Whether a loop fusion reads, computes or writes an empty tensor. Its JIT
/// kernel cannot take those (zero-size memrefs have no strided layout for
/// the bare-pointer calling convention), so such a fusion runs as its body
/// on the reference path, or not at all where every result is empty.
bool touchesEmptyTensors(FusionOp fusion) {
  bool empty = llvm::any_of(fusion->getOperandTypes(), isEmptyTensor) ||
               llvm::any_of(fusion->getResultTypes(), isEmptyTensor);
  fusion.getBlock().walk([&](Operation *op) {
    empty |= llvm::any_of(op->getResultTypes(), isEmptyTensor);
  });
  return empty;
}

/// Runs one op on the reference interpreter: the fallback for ops no CPU
/// kernel implements. `op` lives in the compiled module.
class ReferenceKernel final : public runtime::Kernel {
public:
  explicit ReferenceKernel(Operation *op)
      : op(op), label("reference." + op->getName().getStringRef().str()) {}
  std::string_view name() const override { return label; }
  absl::Status run(const runtime::KernelContext &,
                   const std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs) const override {
    std::vector<const HostTensor *> operands;
    for (const HostTensor &t : inputs)
      operands.push_back(&t);
    auto results = reference::runOpResults(op, operands);
    if (!results)
      return absl::InvalidArgumentError(llvm::toString(results.takeError()));
    if (results->size() != outputs.size())
      return absl::InternalError(
          "reference produced " + std::to_string(results->size()) +
          " results for " + std::to_string(outputs.size()) + " outputs");
    for (auto [result, out] : llvm::zip(*results, outputs)) {
      if (result.dtype() != out.dtype() || result.shape() != out.shape())
        return absl::InternalError("reference result " + result.describe() +
                                   " does not fit the planned " +
                                   out.describe());
      if (out.byteSize())
        std::memcpy(out.data(), result.data(), out.byteSize());
    }
    return absl::OkStatus();
  }

private:
  Operation *op;
  std::string label;
};

using runtime::cpu::BinaryDesc;
using runtime::cpu::EltwiseKind;
using runtime::cpu::ReduceDesc;

std::optional<EltwiseKind> eltwiseKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<EltwiseKind>>(op)
      .Case([](ReluOp) { return EltwiseKind::Relu; })
      .Case([](LeakyReluOp) { return EltwiseKind::LeakyRelu; })
      .Case([](EluOp) { return EltwiseKind::Elu; })
      .Case([](TanhOp) { return EltwiseKind::Tanh; })
      .Case([](SigmoidOp) { return EltwiseKind::Sigmoid; })
      .Case([](ExpOp) { return EltwiseKind::Exp; })
      .Case([](LogOp) { return EltwiseKind::Log; })
      .Case([](SqrtOp) { return EltwiseKind::Sqrt; })
      .Case([](RsqrtOp) { return EltwiseKind::Rsqrt; })
      .Case([](AbsOp) { return EltwiseKind::Abs; })
      .Case([](NegOp) { return EltwiseKind::Neg; })
      .Case([](ClampOp) { return EltwiseKind::Clamp; })
      .Case([](GeluOp op) {
        return op.getApproximate() == GeluApproximation::tanh
                   ? EltwiseKind::GeluTanh
                   : EltwiseKind::GeluErf;
      })
      .Case([](RoundOp) { return EltwiseKind::Round; })
      .Case([](ReciprocalOp) { return EltwiseKind::Reciprocal; })
      .Case([](FloorOp) { return EltwiseKind::Floor; })
      .Case([](CeilOp) { return EltwiseKind::Ceil; })
      .Case([](ErfOp) { return EltwiseKind::Erf; })
      .Case([](SinOp) { return EltwiseKind::Sin; })
      .Case([](CosOp) { return EltwiseKind::Cos; })
      .Case([](SignOp) { return EltwiseKind::Sign; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<BinaryDesc::Kind> binaryKind(Operation *op) {
  using K = BinaryDesc::Kind;
  if (auto cmp = dyn_cast<CompareOp>(op)) {
    switch (cmp.getPredicate()) {
    case ir::ComparePredicate::eq:
      return K::Eq;
    case ir::ComparePredicate::ne:
      return K::Ne;
    case ir::ComparePredicate::lt:
      return K::Lt;
    case ir::ComparePredicate::le:
      return K::Le;
    case ir::ComparePredicate::gt:
      return K::Gt;
    case ir::ComparePredicate::ge:
      return K::Ge;
    }
  }
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([](AddOp) { return K::Add; })
      .Case([](SubOp) { return K::Sub; })
      .Case([](MulOp) { return K::Mul; })
      .Case([](DivOp) { return K::Div; })
      .Case([](MaxOp) { return K::Max; })
      .Case([](MinOp) { return K::Min; })
      .Case([](PowOp) { return K::Pow; })
      .Case([](LogicalAndOp) { return K::And; })
      .Case([](LogicalOrOp) { return K::Or; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<ReduceDesc::Kind> reduceKind(Operation *op) {
  using K = ReduceDesc::Kind;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([](ReduceSumOp) { return K::Sum; })
      .Case([](ReduceMeanOp) { return K::Mean; })
      .Case([](ReduceMaxOp) { return K::Max; })
      .Case([](ReduceMinOp) { return K::Min; })
      .Case([](ReduceProdOp) { return K::Prod; })
      .Case([](ArgMaxOp) { return K::ArgMax; })
      .Case([](ArgMinOp) { return K::ArgMin; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The descriptor of a windowed 2-D pool (max_pool2d or avg_pool2d).
template <typename PoolOp>
runtime::cpu::Pool2DDesc
windowPoolDesc(PoolOp o, runtime::cpu::Pool2DDesc::Kind kind, Value result) {
  runtime::cpu::Pool2DDesc desc{kind, dtypeOf(result)};
  desc.nhwc = o.getLayout() == ir::Layout::NHWC;
  desc.inputShape = shapeOf(o.getInput());
  desc.resultShape = shapeOf(result);
  llvm::copy(o.getKernel(), desc.kernel);
  llvm::copy(o.getStrides(), desc.strides);
  llvm::copy(o.getPadding(), desc.padding);
  llvm::copy(o.getDilations(), desc.dilations);
  desc.ceilMode = o.getCeilMode();
  return desc;
}

/// The descriptor of a 2-D pool op (max, avg, global avg), if `op` is one.
std::optional<runtime::cpu::Pool2DDesc> poolDescOf(Operation *op) {
  namespace cpu = runtime::cpu;
  if (auto o = dyn_cast<MaxPool2DOp>(op))
    return windowPoolDesc(o, cpu::Pool2DDesc::Kind::Max, o.getResult());
  if (auto o = dyn_cast<AvgPool2DOp>(op)) {
    cpu::Pool2DDesc desc =
        windowPoolDesc(o, cpu::Pool2DDesc::Kind::Avg, o.getResult());
    desc.countIncludePad = o.getCountIncludePad();
    return desc;
  }
  if (auto o = dyn_cast<GlobalAvgPool2DOp>(op)) {
    cpu::Pool2DDesc desc{cpu::Pool2DDesc::Kind::GlobalAvg,
                         dtypeOf(o.getResult())};
    desc.nhwc = o.getLayout() == ir::Layout::NHWC;
    desc.inputShape = shapeOf(o.getInput());
    desc.resultShape = shapeOf(o.getResult());
    return desc;
  }
  return std::nullopt;
}

/// The descriptor of a conv2d op (no post-ops).
runtime::cpu::Conv2DDesc conv2DDescOf(Conv2DOp o,
                                      const HostTensor *constantFilter) {
  runtime::cpu::Conv2DDesc desc{dtypeOf(o.getResult())};
  desc.nhwc = o.getLayout() == ir::Layout::NHWC;
  desc.inputShape = shapeOf(o.getInput());
  desc.filterShape = shapeOf(o.getFilter());
  desc.resultShape = shapeOf(o.getResult());
  if (o.getBias())
    desc.biasShape = shapeOf(o.getBias());
  llvm::copy(o.getStrides(), desc.strides);
  llvm::copy(o.getPadding(), desc.padding);
  llvm::copy(o.getDilations(), desc.dilations);
  desc.groups = static_cast<int64_t>(o.getGroups());
  desc.constantFilter = constantFilter;
  return desc;
}

/// Where the plan serves `filter` (outside any fusion) with an OIHW constant
/// (CpuPlanEmitter::oihwFilters): the kernel reads that constant, in its
/// order, as its filter input `input`.
void readOihwFilter(runtime::cpu::Conv2DDesc &desc, Value filter,
                    const llvm::DenseMap<Value, Value> &oihwFilters,
                    Value &input) {
  if (Value oihw = oihwFilters.lookup(filter)) {
    desc.filterOIHW = true;
    input = oihw;
  }
}

/// How a contraction multiplies (the precision policy, per op): bf16, or
/// int8 with its input's calibrated quantization.
struct ContractionPrecision {
  bool bf16 = false;
  std::optional<runtime::cpu::Int8Quantization> int8;
  /// The result quantized for its int8 consumer (Conv2DDesc::int8Output,
  /// MatmulDesc::int8Output).
  std::optional<runtime::cpu::Int8Quantization> int8Output;
  /// The residual arrives quantized (Conv2DDesc::sumQuantization).
  std::optional<runtime::cpu::Int8Quantization> sumInput;
};

/// The int8 quantization of an activation the calibration table holds.
runtime::cpu::Int8Quantization
int8QuantizationOf(const codegen::CalibrationEntry &entry, bool asymmetric) {
  codegen::ActivationQuantization q = entry.quantization(asymmetric);
  runtime::cpu::Int8Quantization int8;
  int8.inputScale = q.scale;
  int8.unsignedInput = q.unsignedValues;
  int8.zeroPoint = q.zeroPoint;
  return int8;
}

/// Whether bytes quantized as `a` read as `b` mean the same values.
bool sameQuantization(const runtime::cpu::Int8Quantization &a,
                      const runtime::cpu::Int8Quantization &b) {
  return a.inputScale == b.inputScale && a.unsignedInput == b.unsignedInput &&
         a.zeroPoint == b.zeroPoint;
}

/// Applies `precision` to an f32 contraction's descriptor.
template <typename Desc>
void applyPrecision(Desc &desc, const ContractionPrecision &precision) {
  if (desc.dtype != DType::F32)
    return;
  desc.bf16 = precision.bf16;
  desc.int8 = precision.int8;
}

/// `create(desc)`, and where an int8 kernel cannot be made (run-time
/// weights, weights holding NaN or an infinity), the f32 one.
template <typename Desc, typename Create>
absl::StatusOr<KernelPtr> createWithInt8Fallback(Desc desc, Create create) {
  auto kernel = create(desc);
  // (An input quantized by its producer has no f32 stand-in.)
  if (!kernel.ok() && desc.int8 && !desc.int8->quantizedInput &&
      kernel.status().code() == absl::StatusCode::kUnimplemented) {
    desc.int8.reset();
    kernel = create(desc);
  }
  return kernel;
}

/// Builds the CPU kernel for `op`; Unimplemented means "fall back".
/// `constants` maps operand index to the constant's value when the operand
/// is a tgc.constant (for weight prepacking).
absl::StatusOr<KernelPtr>
createKernel(Operation *op,
             llvm::DenseMap<Value, const HostTensor *> &constants,
             const llvm::DenseMap<Value, Value> &oihwFilters,
             const ContractionPrecision &precision, bool winograd) {
  namespace cpu = runtime::cpu;
  Value result = op->getResult(0);
  auto constantOf = [&](Value v) -> const HostTensor * {
    auto it = constants.find(v);
    return it == constants.end() ? nullptr : it->second;
  };

  if (auto kind = eltwiseKind(op)) {
    cpu::EltwiseDesc desc{*kind, dtypeOf(result), shapeOf(result)};
    if (auto o = dyn_cast<LeakyReluOp>(op))
      desc.alpha = o.getAlpha().convertToDouble();
    if (auto o = dyn_cast<EluOp>(op))
      desc.alpha = o.getAlpha().convertToDouble();
    if (auto o = dyn_cast<ClampOp>(op)) {
      desc.alpha = o.getMin().convertToDouble();
      desc.beta = o.getMax().convertToDouble();
    }
    return cpu::createEltwise(desc);
  }
  if (auto kind = binaryKind(op)) {
    BinaryDesc desc{*kind, dtypeOf(op->getOperand(0)),
                    shapeOf(op->getOperand(0)), shapeOf(op->getOperand(1)),
                    shapeOf(result)};
    return cpu::createBinary(desc);
  }
  if (auto kind = reduceKind(op)) {
    ReduceDesc desc{*kind, dtypeOf(op->getOperand(0)),
                    shapeOf(op->getOperand(0)), shapeOf(result)};
    if (auto o = dyn_cast<ArgMaxOp>(op)) {
      desc.axes = {static_cast<int64_t>(o.getAxis())};
      desc.keepdims = o.getKeepdims();
      desc.selectLastIndex = o.getSelectLastIndex();
    } else if (auto o = dyn_cast<ArgMinOp>(op)) {
      desc.axes = {static_cast<int64_t>(o.getAxis())};
      desc.keepdims = o.getKeepdims();
      desc.selectLastIndex = o.getSelectLastIndex();
    } else {
      ArrayRef<int64_t> axes =
          cast<DenseI64ArrayAttr>(op->getAttr("axes")).asArrayRef();
      desc.axes.assign(axes.begin(), axes.end());
      desc.keepdims = op->hasAttr("keepdims");
    }
    return cpu::createReduce(desc);
  }
  return llvm::TypeSwitch<Operation *, absl::StatusOr<KernelPtr>>(op)
      .Case([&](MatmulOp o) {
        cpu::MatmulDesc desc{dtypeOf(result), shapeOf(o.getLhs()),
                             shapeOf(o.getRhs()), shapeOf(result)};
        desc.transposeA = o.getTransposeA();
        desc.transposeB = o.getTransposeB();
        desc.constantRhs = constantOf(o.getRhs());
        applyPrecision(desc, precision);
        return createWithInt8Fallback(desc, cpu::createMatmul);
      })
      .Case([&](Conv2DOp o) {
        cpu::Conv2DDesc desc = conv2DDescOf(o, constantOf(o.getFilter()));
        if (o.getBias())
          desc.constantBias = constantOf(o.getBias());
        desc.filterOIHW = oihwFilters.contains(o.getFilter());
        desc.winograd = winograd;
        applyPrecision(desc, precision);
        return createWithInt8Fallback(desc, cpu::createConv2D);
      })
      .Case<MaxPool2DOp, AvgPool2DOp, GlobalAvgPool2DOp>(
          [&](Operation *pool) { return cpu::createPool2D(*poolDescOf(pool)); })
      .Case([&](SelectOp o) {
        return cpu::createSelect(
            cpu::SelectDesc{dtypeOf(result), shapeOf(o.getCondition()),
                            shapeOf(o.getTrueValue()),
                            shapeOf(o.getFalseValue()), shapeOf(result)});
      })
      .Case([&](SoftmaxOp o) {
        return cpu::createSoftmax(
            cpu::SoftmaxDesc{dtypeOf(result), shapeOf(result),
                             static_cast<int64_t>(o.getAxis()), false});
      })
      .Case([&](LogSoftmaxOp o) {
        return cpu::createSoftmax(
            cpu::SoftmaxDesc{dtypeOf(result), shapeOf(result),
                             static_cast<int64_t>(o.getAxis()), true});
      })
      .Case([&](LayerNormOp o) {
        cpu::LayerNormDesc desc{dtypeOf(result), shapeOf(result),
                                static_cast<int64_t>(o.getAxis()),
                                o.getEpsilon().convertToDouble()};
        desc.hasScale = static_cast<bool>(o.getScale());
        desc.hasBias = static_cast<bool>(o.getBias());
        return cpu::createLayerNorm(desc);
      })
      .Case([&](BatchNormOp o) {
        return cpu::createBatchNorm(cpu::BatchNormDesc{
            dtypeOf(result), shapeOf(result), static_cast<int64_t>(o.getAxis()),
            o.getEpsilon().convertToDouble()});
      })
      .Case([&](CastOp o) {
        return cpu::createCast(dtypeOf(o.getInput()), dtypeOf(result),
                               shapeOf(result));
      })
      .Case(
          [&](LogicalNotOp) { return cpu::createLogicalNot(shapeOf(result)); })
      .Case([&](TransposeOp o) {
        ArrayRef<int64_t> perm = o.getPermutation();
        return cpu::createTranspose(
            dtypeOf(result), shapeOf(o.getInput()),
            std::vector<int64_t>(perm.begin(), perm.end()));
      })
      .Case([&](BroadcastToOp o) {
        return cpu::createBroadcastTo(dtypeOf(result), shapeOf(o.getInput()),
                                      shapeOf(result));
      })
      .Case([&](ConcatOp o) {
        std::vector<Shape> shapes;
        for (Value v : o.getInputs())
          shapes.push_back(shapeOf(v));
        return cpu::createConcat(dtypeOf(result), shapes,
                                 static_cast<int64_t>(o.getAxis()));
      })
      .Case([&](SliceOp o) {
        Shape in = shapeOf(o.getInput());
        std::vector<int64_t> steps(in.size(), 1);
        if (auto given = o.getSteps())
          steps.assign(given->begin(), given->end());
        std::vector<int64_t> starts;
        for (size_t d = 0; d < in.size(); ++d)
          starts.push_back(sliceStart(in[d], o.getStarts()[d], steps[d]));
        return cpu::createSlice(dtypeOf(result), in, starts, steps,
                                shapeOf(result));
      })
      .Case([&](PadOp o) {
        ArrayRef<int64_t> low = o.getLow();
        return cpu::createPad(dtypeOf(result), shapeOf(o.getInput()),
                              std::vector<int64_t>(low.begin(), low.end()),
                              shapeOf(result), o.getValue().convertToDouble());
      })
      .Case([&](GatherOp o) {
        return cpu::createGather(
            dtypeOf(result), shapeOf(o.getData()), dtypeOf(o.getIndices()),
            shapeOf(o.getIndices()), static_cast<int64_t>(o.getAxis()));
      })
      .Default([](Operation *) -> absl::StatusOr<KernelPtr> {
        return absl::UnimplementedError("no CPU kernel");
      });
}

/// The runtime post-op of a matched post-op table entry.
runtime::cpu::PostOp runtimePostOp(const MatchedPostOp &matched) {
  using runtime::cpu::PostOp;
  PostOp p;
  p.alpha = matched.alpha;
  p.beta = matched.beta;
  auto eltwise = [&](EltwiseKind kind) {
    p.kind = PostOp::Kind::Eltwise;
    p.eltwise = kind;
    return p;
  };
  auto binary = [&](PostOp::Kind kind) {
    p.kind = kind;
    p.operandShape = shapeOf(matched.operand);
    return p;
  };
  switch (matched.kind) {
  case PostOpKind::Linear:
    return eltwise(EltwiseKind::Linear);
  case PostOpKind::Relu:
    return eltwise(EltwiseKind::Relu);
  case PostOpKind::Clamp:
    return eltwise(EltwiseKind::Clamp);
  case PostOpKind::LeakyRelu:
    return eltwise(EltwiseKind::LeakyRelu);
  case PostOpKind::Elu:
    return eltwise(EltwiseKind::Elu);
  case PostOpKind::GeluErf:
    return eltwise(EltwiseKind::GeluErf);
  case PostOpKind::GeluTanh:
    return eltwise(EltwiseKind::GeluTanh);
  case PostOpKind::Sigmoid:
    return eltwise(EltwiseKind::Sigmoid);
  case PostOpKind::Tanh:
    return eltwise(EltwiseKind::Tanh);
  case PostOpKind::Swish:
    return eltwise(EltwiseKind::Swish);
  case PostOpKind::HardSwish:
    return eltwise(EltwiseKind::HardSwish);
  case PostOpKind::Mish:
    return eltwise(EltwiseKind::Mish);
  case PostOpKind::Add:
    return binary(PostOp::Kind::Add);
  case PostOpKind::Sub:
    return binary(PostOp::Kind::Sub);
  case PostOpKind::Mul:
    return binary(PostOp::Kind::Mul);
  case PostOpKind::Div:
    return binary(PostOp::Kind::Div);
  }
  return p;
}

/// One kernel input of a fused contraction: a value outside the fusion,
/// seen with another shape when `view` is set (a per-channel bias of shape
/// [O, 1, 1] is the conv's [O] bias).
struct KernelInput {
  Value value;
  std::optional<Shape> view;
  /// Passed in its blocked layout (LayoutContext) rather than plain.
  bool inLayout = false;
};

/// A `tgc.fusion <contraction>` compiled into one matmul or conv2d kernel.
struct FusedContraction {
  KernelPtr kernel;
  std::vector<KernelInput> inputs; ///< in the kernel's input order
  std::string description;         ///< e.g. "tgc.conv2d + bias + eltwise_relu"
  /// The result's blocked layout (nullopt: plain).
  std::optional<runtime::cpu::ActivationLayout> resultLayout;
  /// The layout plain input 0 is reordered to first (nullopt: none).
  std::optional<runtime::cpu::ActivationLayout> inputLayout;
  /// The contraction's key for int8 calibration (Step::calibrationKey).
  std::string calibrationKey;
  /// The kernel input holding its residual (Step::calibrationResidual).
  int calibrationResidual = -1;
};

/// Blocked activation layouts for a contraction fusion (NHWC conv2d).
struct LayoutContext {
  /// The blocked layout of a value outside the fusion, or null when plain.
  std::function<const runtime::cpu::ActivationLayout *(Value)> layoutOf;
  /// Whether the result has consumers that take blocked layouts.
  bool preferBlocked = false;
  /// The ISA's blocked layout rather than oneDNN's choice
  /// (ConvLayouts::blockTag).
  bool blockTag = false;
  /// ConvLayouts::winograd.
  bool winograd = false;
};

/// Whether a binary post-op operand of shape `operand` is broadcast over all
/// but the channel dim of an NHWC result (or is a scalar).
bool perChannelOrScalar(const Shape &operand) {
  for (size_t i = 0; i + 1 < operand.size(); ++i)
    if (operand[i] != 1)
      return false;
  return true;
}

/// Tries `desc` (an NHWC conv2d whose input is fused.inputs[0] and whose
/// binary post-op i reads fused.inputs[postOpInputs[i]], -1 for none) with
/// blocked activation layouts. On success fills `fused` (kernel, layouts,
/// which inputs stay blocked) and returns true; false means "use the plain
/// kernel".
absl::StatusOr<bool> tryLayoutConv(const runtime::cpu::Conv2DDesc &desc,
                                   const std::vector<int> &postOpInputs,
                                   const LayoutContext &layoutContext,
                                   FusedContraction &fused) {
  namespace cpu = runtime::cpu;
  // The input as it comes, a residual operand already in a blocked layout
  // fixes the result's, else oneDNN picks (and for a plain input that
  // feeds blocked consumers, picks the input's layout too: a reorder).
  cpu::ConvLayouts layouts;
  layouts.input = layoutContext.layoutOf(fused.inputs[0].value);
  layouts.postOpOperands.assign(desc.postOps.size(), nullptr);
  for (size_t i = 0; i < desc.postOps.size(); ++i) {
    if (postOpInputs[i] < 0 || desc.postOps[i].operandShape != desc.resultShape)
      continue;
    const cpu::ActivationLayout *layout = layoutContext.layoutOf(
        fused.inputs[static_cast<size_t>(postOpInputs[i])].value);
    if (!layout)
      continue;
    if (!layouts.result)
      layouts.result = layout;
    if (cpu::sameLayout(*layout, *layouts.result))
      layouts.postOpOperands[i] = layout;
  }
  // A convolution between plain values stays plain even where it could run
  // on a Winograd kernel: the reorders in and out cost about what that
  // saves (DenseNet-121's 3x3 convolutions between concats and batch
  // norms: 1.3 ms saved, 1.35 ms of reorders).
  if (!layouts.input && !layouts.result && !layoutContext.preferBlocked)
    return false;
  // A weight-bound convolution runs plain NHWC on oneDNN's brgemm kernel
  // even inside a blocked chain: the blocked direct kernel streams its cold
  // filter slowly (ResNet-50's layer4.0.conv2 in the model: 840 -> 655 us,
  // its two reorders 16 us). Strided 3x3 convolutions on larger images
  // gain less than the reorders around them cost, and 1x1 ones run slower
  // plain (runtime::cpu::weightBoundConv excludes both).
  if (cpu::weightBoundConv(desc))
    return false;
  layouts.anyInput = !layouts.input && layoutContext.preferBlocked;
  layouts.blockTag = layoutContext.blockTag;
  layouts.winograd = layoutContext.winograd;
  auto blocked = cpu::createLayoutConv2D(desc, layouts);
  if (!blocked.ok()) {
    if (blocked.status().code() != absl::StatusCode::kUnimplemented)
      return blocked.status();
    return false;
  }
  // Every operand the result's layout does not cover must be per-channel
  // or a scalar: oneDNN reads a full one in dst's layout.
  for (size_t i = 0; i < desc.postOps.size(); ++i)
    if (postOpInputs[i] >= 0 && !layouts.postOpOperands[i] &&
        blocked->resultLayout &&
        !perChannelOrScalar(desc.postOps[i].operandShape))
      return false;
  if (!layouts.input && !blocked->inputLayout && !blocked->resultLayout &&
      !layouts.result)
    return false; // plain after all: the plain kernel
  fused.kernel = blocked->kernel;
  fused.inputLayout = blocked->inputLayout;
  fused.resultLayout = blocked->resultLayout;
  fused.inputs[0].inLayout = layouts.input != nullptr;
  for (size_t i = 0; i < desc.postOps.size(); ++i)
    if (layouts.postOpOperands[i])
      fused.inputs[static_cast<size_t>(postOpInputs[i])].inLayout = true;
  const cpu::ActivationLayout *in =
      layouts.input ? layouts.input
                    : (fused.inputLayout ? &*fused.inputLayout : nullptr);
  fused.description +=
      " [" + (in ? in->name : std::string("nhwc")) + " -> " +
      (fused.resultLayout ? fused.resultLayout->name : std::string("nhwc")) +
      "]";
  return true;
}

/// The kernel of an int8 contraction in a chain (its input quantized by its
/// producer, or its result quantized for its consumer): no f32 kernel may
/// stand in where the input arrives quantized; a result that cannot be
/// written quantized is written f32. With a quantized result, `fused` gets
/// its layout.
template <typename Desc, typename Create>
absl::StatusOr<KernelPtr>
createInt8ChainKernel(Desc desc, const ContractionPrecision &precision,
                      bool nhwc, Create create, FusedContraction &fused) {
  desc.int8Output = precision.int8Output;
  auto kernel = create(desc);
  if (!kernel.ok() && !desc.int8->quantizedInput) {
    desc.int8Output.reset();
    return createWithInt8Fallback(desc, create);
  }
  if (kernel.ok() && desc.int8Output) {
    fused.resultLayout = runtime::cpu::quantizedLayout(
        desc.resultShape, nhwc, desc.int8Output->unsignedInput);
    fused.description += " [" + fused.resultLayout->name + "]";
  }
  return kernel;
}

/// Whether an int8 contraction is in a chain (createInt8ChainKernel).
template <typename Desc>
bool inInt8Chain(const Desc &desc, const ContractionPrecision &precision) {
  return desc.int8 && (desc.int8->quantizedInput || precision.int8Output);
}

/// The kernel of a contraction fusion whose body `chain` describes (see
/// tgc::analyzeContractionFusion): the contraction's operands, then its
/// bias (its own, or a per-channel add right after it), then the extra
/// operand of each binary post-op.
absl::StatusOr<FusedContraction>
createFusedContraction(FusionOp fusion, const PostOpChain &chain,
                       llvm::DenseMap<Value, const HostTensor *> &constants,
                       const llvm::DenseMap<Value, Value> &oihwFilters,
                       const ContractionPrecision &precision, bool winograd,
                       const LayoutContext *layoutContext = nullptr) {
  namespace cpu = runtime::cpu;
  Operation *contraction = chain.contraction;
  auto outer = [&](Value inner) {
    return fusion.getInputs()[cast<BlockArgument>(inner).getArgNumber()];
  };
  auto constantOf = [&](Value inner) -> const HostTensor * {
    auto it = constants.find(outer(inner));
    return it == constants.end() ? nullptr : it->second;
  };
  FusedContraction fused;
  fused.description = contraction->getName().getStringRef().str();
  for (Value operand : contraction->getOperands())
    fused.inputs.push_back({outer(operand), std::nullopt});
  Value result = contraction->getResult(0);
  int64_t channelDim = contractionChannelDim(contraction);
  int64_t channels = shapeOf(result)[channelDim];
  bool hasBias =
      isa<Conv2DOp>(contraction) && cast<Conv2DOp>(contraction).getBias();
  if (hasBias)
    fused.description += " + bias";

  std::optional<Shape> biasShape;
  // The bias post-op's operand, when it is a constant.
  const HostTensor *constantBias = nullptr;
  std::vector<cpu::PostOp> postOps;
  // Per post-op: the kernel input of its operand (or -1).
  std::vector<int> postOpInputs;
  for (auto [i, matched] : llvm::enumerate(chain.postOps)) {
    // A per-channel add right after the contraction is its bias.
    if (i == 0 && !hasBias && matched.kind == PostOpKind::Add &&
        matched.operandClass == OperandClass::PerChannel &&
        llvm::is_contained(shapeOf(matched.operand), channels) &&
        channels > 1) {
      bool conv = isa<Conv2DOp>(contraction);
      biasShape = conv ? Shape{channels} : shapeOf(matched.operand);
      std::optional<Shape> view;
      if (conv && shapeOf(matched.operand) != *biasShape)
        view = biasShape;
      fused.inputs.push_back({outer(matched.operand), view});
      constantBias = constantOf(matched.operand);
      fused.description += " + bias";
      continue;
    }
    cpu::PostOp post = runtimePostOp(matched);
    bool linear = post.kind == cpu::PostOp::Kind::Eltwise &&
                  post.eltwise == EltwiseKind::Linear;
    if (linear && !postOps.empty() &&
        postOps.back().kind == cpu::PostOp::Kind::Eltwise &&
        postOps.back().eltwise == EltwiseKind::Linear) {
      // a2 * (a1 * x + b1) + b2: one linear post-op.
      cpu::PostOp &prev = postOps.back();
      prev.beta = post.alpha * prev.beta + post.beta;
      prev.alpha *= post.alpha;
    } else if (!(linear && post.alpha == 1 && post.beta == 0)) {
      postOps.push_back(post);
      postOpInputs.push_back(
          matched.operand ? static_cast<int>(fused.inputs.size()) : -1);
    }
    if (matched.operand)
      fused.inputs.push_back({outer(matched.operand), std::nullopt});
    fused.description += " + " + matched.entry->onednn.str();
  }

  absl::StatusOr<KernelPtr> kernel;
  if (auto o = dyn_cast<MatmulOp>(contraction)) {
    cpu::MatmulDesc desc{dtypeOf(result), shapeOf(o.getLhs()),
                         shapeOf(o.getRhs()), shapeOf(result)};
    desc.transposeA = o.getTransposeA();
    desc.transposeB = o.getTransposeB();
    desc.constantRhs = constantOf(o.getRhs());
    desc.biasShape = biasShape;
    desc.constantBias = constantBias;
    desc.postOps = std::move(postOps);
    applyPrecision(desc, precision);
    kernel = inInt8Chain(desc, precision)
                 ? createInt8ChainKernel(desc, precision, /*nhwc=*/false,
                                         cpu::createMatmul, fused)
                 : createWithInt8Fallback(desc, cpu::createMatmul);
  } else {
    auto c = cast<Conv2DOp>(contraction);
    cpu::Conv2DDesc desc{dtypeOf(result)};
    desc.nhwc = c.getLayout() == ir::Layout::NHWC;
    desc.inputShape = shapeOf(c.getInput());
    desc.filterShape = shapeOf(c.getFilter());
    desc.resultShape = shapeOf(result);
    if (c.getBias()) {
      desc.biasShape = shapeOf(c.getBias());
      desc.constantBias = constantOf(c.getBias());
    } else {
      desc.biasShape = biasShape;
      desc.constantBias = constantBias;
    }
    llvm::copy(c.getStrides(), desc.strides);
    llvm::copy(c.getPadding(), desc.padding);
    llvm::copy(c.getDilations(), desc.dilations);
    desc.groups = static_cast<int64_t>(c.getGroups());
    desc.constantFilter = constantOf(c.getFilter());
    readOihwFilter(desc, outer(c.getFilter()), oihwFilters,
                   fused.inputs[1].value);
    desc.postOps = std::move(postOps);
    desc.winograd = winograd;
    applyPrecision(desc, precision);
    if (desc.int8 && precision.int8Output)
      desc.sumQuantization = precision.sumInput;
    if (inInt8Chain(desc, precision)) {
      kernel = createInt8ChainKernel(desc, precision, desc.nhwc,
                                     cpu::createConv2D, fused);
    } else {
      if (layoutContext && desc.nhwc && !desc.int8) {
        auto blocked = tryLayoutConv(desc, postOpInputs, *layoutContext, fused);
        if (!blocked.ok())
          return blocked.status();
        if (*blocked)
          return fused;
      }
      kernel = createWithInt8Fallback(desc, cpu::createConv2D);
    }
  }
  if (!kernel.ok())
    return kernel.status();
  fused.kernel = *kernel;
  return fused;
}

/// Gives every argument its concrete shape, inlines calls, propagates
/// shapes and runs the CPU lowering; returns the specialized copy of `func`
/// in a module of its own.
llvm::Expected<OwningOpRef<ModuleOp>>
specialize(func::FuncOp func, const std::vector<std::vector<int64_t>> &shapes,
           bool optimize, bool fuse, bool compileLoops) {
  return tgc::specializeAndLower(
      func, shapes, fuse ? "tgc-cpu" : "tgc-cpu-unfused",
      [&](OpPassManager &pm) {
        if (optimize)
          cpu::buildCpuBackendPipeline(pm, {fuse, compileLoops});
        else // Fusions in the input still run as their bodies where needed.
          pm.addNestedPass<func::FuncOp>(
              cpu::createInlineFusionsPass(compileLoops));
      });
}

} // namespace

std::string cpu::targetDescription() {
  const runtime::cpu::CpuIsa &isa = runtime::cpu::cpuIsa();
  return absl::StrCat("x86 ", isa.name, " (",
                      isa.channelBlock
                          ? absl::StrCat("channel block ", isa.channelBlock)
                          : std::string("no channel block"),
                      isa.winograd ? ", Winograd" : ", no Winograd", ")");
}

namespace {
/// One factor of a dim of a strided view: the dim's index, written in the
/// mixed radix of its factors (outermost first, row-major), moves by
/// `stride` elements per step of this factor's digit. A dim that reshapes
/// merged without their elements being contiguous (the batch and the heads
/// of an attention whose projection is sequence-major: [S, B, 3E] reshaped
/// to [S, B x H, D]) keeps one factor for each; a dim of 1 has none.
struct ViewFactor {
  int64_t size, stride;
};
using FactoredDim = SmallVector<ViewFactor, 2>;

/// A matmul operand read in place: `base`'s plain elements from `offset`
/// on, through one factored dim per dim of the operand.
struct FoldedOperand {
  Value base;
  int64_t offset = 0;
  SmallVector<FactoredDim> dims;
};

/// `dim` with factors whose elements are contiguous with each other merged
/// into one.
FactoredDim mergeContiguous(ArrayRef<ViewFactor> dim) {
  FactoredDim merged;
  for (const ViewFactor &f : dim) {
    if (!merged.empty() && merged.back().stride == f.size * f.stride) {
      merged.back() = {merged.back().size * f.size, f.stride};
      continue;
    }
    merged.push_back(f);
  }
  return merged;
}

/// The factored dims of a reshape of a view (`dims`) to `to`, where it
/// stays a view: each new dim takes the next factors in row-major order,
/// splitting one where the new dim ends inside it; nullopt where a new dim
/// would end between two digits of a factor that its size does not divide.
std::optional<SmallVector<FactoredDim>>
reshapeFactors(ArrayRef<FactoredDim> dims, const Shape &to) {
  SmallVector<ViewFactor> factors;
  for (const FactoredDim &dim : dims)
    for (const ViewFactor &f : dim)
      if (f.size != 1)
        factors.push_back(f);
  SmallVector<FactoredDim> result;
  size_t next = 0;
  for (int64_t size : to) {
    FactoredDim dim;
    int64_t need = size;
    while (need > 1) {
      if (next == factors.size())
        return std::nullopt;
      ViewFactor &f = factors[next];
      if (need % f.size == 0) {
        dim.push_back(f);
        need /= f.size;
        ++next;
      } else if (f.size % need == 0) {
        f.size /= need; // its inner digits stay for the next dim
        dim.push_back({need, f.stride * f.size});
        need = 1;
      } else {
        return std::nullopt;
      }
    }
    result.push_back(mergeContiguous(dim));
  }
  if (next != factors.size())
    return std::nullopt;
  return result;
}

/// The slices, materialized transposes and reshapes that made `operand`
/// (an attention head's query: a slice of the projection's result,
/// reshaped to heads, heads transposed outward), as one strided view of
/// the value before them; nullopt where the chain copies nothing (only
/// reshapes) or a link cannot be a view (a negative step, a slice of a dim
/// that a reshape merged from elements that are not contiguous, a reshape
/// that splits such a dim elsewhere than between its factors, a dynamic or
/// empty shape).
std::optional<FoldedOperand> foldOperandView(Value operand) {
  SmallVector<Operation *> chain;
  Value v = operand;
  while (Operation *def = v.getDefiningOp()) {
    auto transpose = dyn_cast<TransposeOp>(def);
    if (!(transpose && !transpose.getLazy()) && !isa<SliceOp>(def) &&
        !isShapeView(def) && !isa<tensor::CastOp>(def))
      break;
    chain.push_back(def);
    v = def->getOperand(0);
  }
  if (!llvm::any_of(
          chain, [](Operation *op) { return isa<SliceOp, TransposeOp>(op); }))
    return std::nullopt;
  auto staticShape = [](Value value) -> std::optional<Shape> {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
    Shape shape(type.getShape());
    if (llvm::is_contained(shape, 0))
      return std::nullopt;
    return shape;
  };
  std::optional<Shape> shape = staticShape(v);
  if (!shape)
    return std::nullopt;
  FoldedOperand folded{v, 0, {}};
  Shape strides = runtime::rowMajorStrides(*shape);
  for (size_t d = 0; d < shape->size(); ++d)
    folded.dims.push_back((*shape)[d] == 1
                              ? FactoredDim()
                              : FactoredDim{{(*shape)[d], strides[d]}});
  for (Operation *op : llvm::reverse(chain)) {
    std::optional<Shape> result = staticShape(op->getResult(0));
    if (!result || (result->size() != shape->size() && !isShapeView(op) &&
                    !isa<tensor::CastOp>(op)))
      return std::nullopt;
    if (auto slice = dyn_cast<SliceOp>(op)) {
      ArrayRef<int64_t> starts = slice.getStarts();
      std::optional<ArrayRef<int64_t>> steps = slice.getSteps();
      if (starts.size() != shape->size() ||
          (steps && steps->size() != shape->size()))
        return std::nullopt;
      for (size_t d = 0; d < shape->size(); ++d) {
        int64_t n = (*shape)[d], step = steps ? (*steps)[d] : 1;
        int64_t start = starts[d] < 0 ? std::max<int64_t>(starts[d] + n, 0)
                                      : std::min(starts[d], n);
        if (step <= 0 || start + ((*result)[d] - 1) * step >= n)
          return std::nullopt;
        FactoredDim &dim = folded.dims[d];
        if (start == 0 && step == 1 && (*result)[d] == n)
          continue;
        if (dim.size() != 1)
          return std::nullopt; // a slice across the digits of factors
        folded.offset += start * dim[0].stride;
        dim[0] = {(*result)[d], dim[0].stride * step};
        if (dim[0].size == 1)
          dim.clear();
      }
    } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
      ArrayRef<int64_t> perm = transpose.getPermutation();
      if (perm.size() != shape->size())
        return std::nullopt;
      Shape permuted(perm.size());
      SmallVector<FactoredDim> moved(perm.size());
      for (size_t d = 0; d < perm.size(); ++d) {
        permuted[d] = (*shape)[static_cast<size_t>(perm[d])];
        moved[d] = folded.dims[static_cast<size_t>(perm[d])];
      }
      if (permuted != *result)
        return std::nullopt;
      folded.dims = std::move(moved);
    } else {
      auto reshaped = reshapeFactors(folded.dims, *result);
      if (!reshaped)
        return std::nullopt;
      folded.dims = std::move(*reshaped);
    }
    shape = result;
  }
  return folded;
}

/// The sizes that split a matmul batch dim so that each operand's factors
/// of it (`sides`; nullptr for an operand that broadcasts it) are whole
/// runs of them: the products of each side's inner factors, in increasing
/// order, must each divide the next. nullopt where they do not (one side
/// splits 6 as 2 x 3, the other as 3 x 2).
std::optional<Shape> commonSplit(ArrayRef<const FactoredDim *> sides) {
  SmallVector<int64_t> cuts; // products of inner factors
  for (const FactoredDim *dim : sides) {
    if (!dim)
      continue;
    int64_t inner = 1;
    for (const ViewFactor &f : llvm::reverse(*dim))
      cuts.push_back(inner *= f.size);
  }
  llvm::sort(cuts);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  Shape sizes; // innermost first
  int64_t previous = 1;
  for (int64_t cut : cuts) {
    if (cut % previous != 0)
      return std::nullopt;
    sizes.push_back(cut / previous);
    previous = cut;
  }
  std::reverse(sizes.begin(), sizes.end());
  if (sizes.empty())
    sizes.push_back(1);
  return sizes;
}

/// `dim`'s factors split to `sizes` (commonSplit; outermost first): one
/// (size, stride) per size. A dim of 1 (broadcast) gives sizes of 1.
SmallVector<ViewFactor> splitFactors(const FactoredDim &dim,
                                     ArrayRef<int64_t> sizes) {
  SmallVector<ViewFactor> pieces(sizes.size(), ViewFactor{1, 0});
  if (dim.empty())
    return pieces;
  size_t factor = dim.size();
  int64_t used = 1; // digits of dim[factor - 1] taken
  for (size_t i = sizes.size(); i-- > 0;) {
    const ViewFactor &f = dim[factor - 1];
    pieces[i] = {sizes[i], f.stride * used};
    used *= sizes[i];
    if (used == f.size && factor > 1) {
      --factor;
      used = 1;
    }
  }
  return pieces;
}

/// `desc`'s operands and result with each batch dim split as the folded
/// operands' views need (commonSplit: a batch of B x H heads that a view
/// reads with two strides becomes two batch dims; the other operand and
/// the result are dense there and split the same), and the views of
/// `folded` operands (MatmulDesc::OperandView) over those dims. False,
/// leaving `desc` as it was, where the splits conflict or a matrix dim of
/// a view has more than one factor.
bool applyOperandViews(runtime::cpu::MatmulDesc &desc,
                       const std::optional<FoldedOperand> (&folded)[2]) {
  const Shape *shapes[2] = {&desc.lhsShape, &desc.rhsShape};
  const Shape &r = desc.resultShape;
  size_t rank = r.size();
  if (rank < 2)
    return false;
  // Each operand's factored dims, padded to the result's rank.
  SmallVector<FactoredDim> dims[2];
  for (int i = 0; i < 2; ++i) {
    const Shape &s = *shapes[i];
    if (s.size() < 2 || s.size() > rank ||
        (folded[i] && folded[i]->dims.size() != s.size()))
      return false;
    dims[i].assign(rank - s.size(), FactoredDim());
    Shape dense = runtime::rowMajorStrides(s);
    for (size_t d = 0; d < s.size(); ++d)
      dims[i].push_back(folded[i]   ? folded[i]->dims[d]
                        : s[d] == 1 ? FactoredDim()
                                    : FactoredDim{{s[d], dense[d]}});
    for (size_t d = rank - 2; d < rank; ++d)
      if (dims[i][d].size() > 1)
        return false;
  }
  Shape result, sizes[2], strides[2];
  for (size_t d = 0; d + 2 < rank; ++d) {
    std::optional<Shape> split = commonSplit({&dims[0][d], &dims[1][d]});
    if (!split || runtime::numElements(*split) != r[d])
      return false;
    result.insert(result.end(), split->begin(), split->end());
    for (int i = 0; i < 2; ++i)
      for (const ViewFactor &piece : splitFactors(dims[i][d], *split)) {
        sizes[i].push_back(piece.size);
        strides[i].push_back(piece.stride);
      }
  }
  result.push_back(r[rank - 2]);
  result.push_back(r[rank - 1]);
  for (int i = 0; i < 2; ++i) {
    const Shape &s = *shapes[i];
    // The matrix dims: a dim of 1 without a stride continues the one
    // inside it, as a dense reshape would.
    int64_t inner = 1;
    Shape matrix(2);
    for (size_t k = 2; k-- > 0;) {
      const FactoredDim &dim = dims[i][rank - 2 + k];
      matrix[k] = dim.empty() ? inner : dim[0].stride;
      inner = matrix[k] * s[s.size() - 2 + k];
    }
    sizes[i].push_back(s[s.size() - 2]);
    sizes[i].push_back(s[s.size() - 1]);
    strides[i].insert(strides[i].end(), matrix.begin(), matrix.end());
    // Batch dims of 1 step over the whole view, so that oneDNN sees them
    // outermost (a stride of 0 would send it to its reference kernel).
    int64_t extent = 1;
    for (size_t k = 0; k < sizes[i].size(); ++k)
      if (sizes[i][k] != 1)
        extent = std::max(extent, sizes[i][k] * strides[i][k]);
    for (size_t k = 0; k + 2 < sizes[i].size(); ++k)
      if (sizes[i][k] == 1)
        strides[i][k] = extent;
  }
  desc.lhsShape = sizes[0];
  desc.rhsShape = sizes[1];
  desc.resultShape = result;
  if (folded[0])
    desc.lhsView =
        runtime::cpu::MatmulDesc::OperandView{strides[0], folded[0]->offset};
  if (folded[1])
    desc.rhsView =
        runtime::cpu::MatmulDesc::OperandView{strides[1], folded[1]->offset};
  return true;
}

/// `value` without a scaling by a power of two that commutes exactly with
/// a matmul (`x / 8`, `x * 0.125`: an attention query's 1 / sqrt(d)):
/// the factor it multiplied by, and the value scaled.
std::optional<std::pair<double, Value>> peelExactScale(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || !isa<DivOp, MulOp>(def) || def->getNumOperands() != 2)
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i) {
    if (isa<DivOp>(def) && i == 0)
      continue; // c / x does not scale x
    auto constant = def->getOperand(i).getDefiningOp<ConstantOp>();
    Value other = def->getOperand(1 - i);
    auto dense =
        constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
    if (!dense || !dense.isSplat() || !dense.getElementType().isF32() ||
        dense.getNumElements() != 1 || other.getType() != value.getType())
      continue;
    double c = dense.getSplatValue<APFloat>().convertToDouble();
    int exponent = 0;
    if (!std::isfinite(c) || c == 0 ||
        std::frexp(std::abs(c), &exponent) != 0.5 || exponent < -100 ||
        exponent > 100)
      continue;
    return std::make_pair(isa<DivOp>(def) ? 1 / c : c, other);
  }
  return std::nullopt;
}

/// Whether `concat` joins f32 NHWC activations along their channels (a
/// blocked-layout concat can run it; createLayoutConcat decides).
bool isChannelConcat(ConcatOp concat) {
  auto type = dyn_cast<RankedTensorType>(concat.getType());
  return type && type.getRank() == 4 && type.getElementType().isF32() &&
         concat.getAxis() == 3 && concat.getInputs().size() >= 2;
}

/// Whether `use` is consumed by a kernel that takes a blocked activation
/// layout: the input or a full-shape residual operand of an NHWC conv2d
/// contraction fusion, or the input of an NHWC pool.
bool takesBlockedLayout(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto pool = poolDescOf(user))
    return pool->nhwc && use.getOperandNumber() == 0;
  if (auto concat = dyn_cast<ConcatOp>(user))
    return isChannelConcat(concat);
  if (auto conv = dyn_cast<Conv2DOp>(user))
    return conv.getLayout() == ir::Layout::NHWC && use.getOperandNumber() == 0;
  auto fusion = dyn_cast<FusionOp>(user);
  if (!fusion)
    return false;
  auto chain = analyzeContractionFusion(fusion);
  if (!chain)
    return false;
  auto conv = dyn_cast<Conv2DOp>(chain->contraction);
  if (!conv || conv.getLayout() != ir::Layout::NHWC)
    return false;
  Value arg = fusion.getBlock().getArgument(use.getOperandNumber());
  if (conv.getInput() == arg)
    return true;
  for (const MatchedPostOp &post : chain->postOps)
    if (post.operand == arg && shapeOf(arg) == shapeOf(chain->result()))
      return true;
  return false;
}

/// Whether `use` takes a blocked layout and, for a concat, whose result
/// only goes to such kernels too (a concat before a plain kernel would
/// reorder all of its channels back).
bool keepsBlocked(OpOperand &use) {
  if (!takesBlockedLayout(use))
    return false;
  auto concat = dyn_cast<ConcatOp>(use.getOwner());
  return !concat || (!concat->use_empty() &&
                     llvm::all_of(concat->getUses(), keepsBlocked));
}

/// Whether blocked layouts pay for `func`'s Winograd convolutions: it has
/// runtime::cpu::winogradCandidate convolutions, and at least half of them
/// write only to kernels that keep a blocked layout (NHWC convolutions,
/// pools, and channel concats feeding those: ResNet, VGG, GoogLeNet,
/// SqueezeNet). Where their results go to other kernels (DenseNet's batch
/// norms after its concats) the reorders back to NHWC cost as much as
/// Winograd saves, or more; blocked layouts are a function-wide choice.
bool winogradPaysForBlockedLayouts(func::FuncOp func) {
  int64_t candidates = 0, inChains = 0;
  func.walk([&](Conv2DOp conv) {
    if (conv.getLayout() != ir::Layout::NHWC ||
        !runtime::cpu::winogradCandidate(conv2DDescOf(conv, nullptr)))
      return;
    ++candidates;
    Operation *outer = conv;
    if (auto fusion = conv->getParentOfType<FusionOp>())
      outer = fusion;
    if (!outer->use_empty() && llvm::all_of(outer->getUses(), keepsBlocked))
      ++inChains;
  });
  return candidates > 0 && 2 * inChains >= candidates;
}

/// Plans a specialized function as a runtime::Executable, op by op, in the
/// manner of XLA's thunk emitter: one emit member per op family, and the
/// state they share (the executable being built, the ids of the values, the
/// constants, the activation layouts) in members.
class CpuPlanEmitter {
public:
  CpuPlanEmitter(func::FuncOp specialized, const cpu::CompileOptions &options);

  /// The executable of the whole function: arguments, every op, results;
  /// dead steps removed, step levels assigned (CompileOptions::interOp),
  /// memory planned and the plan verified.
  llvm::Expected<std::shared_ptr<runtime::Executable>> emit();

private:
  using ActivationLayout = runtime::cpu::ActivationLayout;

  // Values.
  llvm::Expected<int64_t> addValue(Value v, runtime::ValueStorage storage,
                                   std::string producer);
  int64_t addView(int64_t of, const Shape &shape, const std::string &where);

  // Blocked activation layouts.
  static cpu::ActivationLayouts
  resolveActivationLayouts(func::FuncOp specialized,
                           const cpu::CompileOptions &options);
  const ActivationLayout *layoutOf(Value v) const;
  bool preferBlocked(Value v) const;
  void setLayout(Value v, int64_t id, const ActivationLayout &layout);
  llvm::Expected<int64_t> plainId(Value v, const std::string &forWhat);
  Value nchwSourceOf(Value v, const ActivationLayout &layout) const;
  llvm::Expected<int64_t> reorderTo(Value v, int64_t plain,
                                    const ActivationLayout &layout,
                                    const std::string &forWhat);
  LayoutContext layoutContextFor(Value result) const;

  // Steps.
  llvm::Error emitFused(FusedContraction &fused, Operation *op,
                        std::string stepOp, const std::string &where);
  llvm::Expected<bool>
  emitLayoutKernel(Operation &op,
                   absl::StatusOr<runtime::cpu::LayoutKernel> kernel,
                   const std::string &where);
  llvm::Error emitWholeOpStep(Operation &op,
                              std::shared_ptr<const runtime::Kernel> kernel,
                              std::string path, const std::string &name,
                              const std::string &where,
                              std::optional<ValueRange> inputs = std::nullopt);

  // Op families.
  llvm::Error emitArguments();
  llvm::Error emitOp(Operation &op);
  llvm::Error emitResults(func::ReturnOp ret);
  llvm::Error emitConstant(ConstantOp constant, const std::string &where);
  void releaseUnreadConstants();
  void releaseConstant(size_t index);
  void trackReaders(ConstantOp constant, size_t index);
  void releaseConstantsReadBy(Operation *op);
  llvm::Error pinConstantsReadBy(Operation *op);
  std::vector<bool> constantsReadSoFar() const;
  /// The descriptor of a conv2d planned alone (no post-ops) whose kernel
  /// reads `fused.inputs` (the conv's operands; an OIHW filter constant
  /// replaces its lazy transpose).
  runtime::cpu::Conv2DDesc planConv2DDesc(Conv2DOp conv,
                                          FusedContraction &fused);
  llvm::Error emitView(Operation &op, const std::string &where);
  llvm::Error emitLoopFusion(FusionOp fusion, const std::string &where);
  llvm::Error emitReferenceFallback(Operation &op, const std::string &where);
  llvm::Error emitTopK(TopKOp op, const std::string &where);
  llvm::Error emitControlFlow(Operation &op, const std::string &where);
  llvm::Expected<bool> emitFusedOrBlocked(Operation &op,
                                          const std::string &where);
  llvm::Expected<bool> emitContractionFusion(FusionOp fusion,
                                             const std::string &where);
  llvm::Expected<bool> emitLayoutConv(Conv2DOp conv, const std::string &where);
  llvm::Expected<bool> emitLayoutConcat(ConcatOp concat,
                                        const std::string &where);
  llvm::Expected<bool> emitLayoutPool(Operation &op, const std::string &where);
  /// An int8 conv2d (no post-ops) whose result int8ConsumerOf reads 8-bit,
  /// written so; false for any other.
  llvm::Expected<bool> emitInt8ChainConv(Conv2DOp conv,
                                         const std::string &where);
  llvm::Error emitKernel(Operation &op, const std::string &where);
  /// A matmul reading its operands through strided views of the values
  /// that slices and transposes copied them from, a power-of-two scaling
  /// of an operand as a post-op (foldOperandView, peelExactScale); false
  /// where there is none or oneDNN has no fast kernel for the strides.
  llvm::Expected<bool> emitMatmulOverViews(MatmulOp matmul,
                                           const std::string &where);

  // The whole plan.
  void assignStepLevels();
  llvm::Error finish();

  /// How `contraction` multiplies under the precision policy: bf16, int8
  /// where the calibration table has its input, else as its dtype says.
  ContractionPrecision precisionFor(Operation *contraction) const;
  /// For the result `v` of an int8 contraction fusion: the quantization of
  /// its only consumer when that is an int8 convolution or matmul (with
  /// constant weights, fused or alone) reading it as its input.
  std::optional<runtime::cpu::Int8Quantization> int8ConsumerOf(Value v) const;
  /// int8ConsumerOf's work, uncached.
  std::optional<runtime::cpu::Int8Quantization> findInt8Consumer(Value v) const;
  /// The quantization with which `user`, an int8 convolution or matmul
  /// (with constant weights, fused or alone), reads `v` as its input, if
  /// it is one.
  std::optional<runtime::cpu::Int8Quantization> int8ReaderOf(Operation *user,
                                                             Value v) const;
  /// Whether `user` is an int8 convolution fusion that adds `v` as its
  /// residual (residualOf) and writes its own result quantized
  /// (int8ConsumerOf): a sum post-op can then read `v` 8-bit.
  bool readsInt8Residual(Operation *user, Value v) const;
  /// The residual a convolution fusion adds: the operand of its first add
  /// post-op with the result's shape (the kernel's sum post-op), if any.
  Value residualOf(FusionOp fusion) const;
  /// The calibrated quantization of the residual `fusion` adds, if the
  /// table has its range.
  std::optional<runtime::cpu::Int8Quantization>
  residualQuantization(FusionOp fusion) const;
  /// The fusion operand an inner value of `fusion` (a block argument) is.
  static Value fusionInputOf(FusionOp fusion, Value inner);
  /// Whether int8 `contraction` (a convolution, or a matmul with an
  /// untransposed lhs) reads `input` as its producer quantized it for it
  /// (quantizedValues, the same quantization); then marks
  /// precision.int8->quantizedInput.
  bool readsQuantizedInput(Operation *contraction, Value input,
                           ContractionPrecision &precision) const;

  func::FuncOp specialized;
  const cpu::CompileOptions &options;
  /// Each contraction's key for int8 calibration (codegen::contractionKeys).
  llvm::DenseMap<Operation *, std::string> calibrationKeys;
  /// Values an int8 convolution wrote quantized for its consumer (in
  /// `layouts` as runtime::cpu::quantizedLayout): never read plain.
  llvm::DenseMap<Value, runtime::cpu::Int8Quantization> quantizedValues;
  /// int8ConsumerOf's answers: each residual chain asks about the blocks
  /// after it again, and each producer and consumer about the same value.
  mutable llvm::DenseMap<Value, std::optional<runtime::cpu::Int8Quantization>>
      int8Consumers;
  /// The loop kernels' object cache (CompileOptions::cacheDir), opened by
  /// the first loop kernel.
  std::shared_ptr<const cpu::KernelObjectCache> objectCache;
  bool objectCacheOpened = false;
  std::shared_ptr<runtime::Executable> executable;
  runtime::Executable &exe;
  llvm::DenseMap<Value, int64_t> ids;
  llvm::DenseMap<Value, const HostTensor *> constants;
  std::vector<std::unique_ptr<HostTensor>> constantValues;
  /// Per plan constant: what keeps a file-backed constant's bytes resident
  /// (pin) and at their address (anchor) while the plan is made; finish()
  /// keeps the pin of those a kernel reads when it runs and lets the
  /// others go.
  std::vector<ConstantBytes> constantHolds;
  /// The ops of the function's block not yet emitted that read a held
  /// constant (directly, or through lazy transposes and shape views), per
  /// op the constants it reads: once the last is emitted, a constant no
  /// step reads when the plan runs is let go (releaseConstantsReadBy), so
  /// that the copies of the weights and their prepacked forms are not all
  /// resident at once.
  std::vector<llvm::SmallPtrSet<Operation *, 4>> pendingReaders;
  llvm::DenseMap<Operation *, SmallVector<size_t, 2>> constantsReadBy;
  llvm::DenseSet<size_t> lazyFilterSteps;
  /// Lazy OIHW -> HWIO transposes of constant filters (tgc.transpose) read
  /// only as NHWC convolution filters, with the constant each transposes:
  /// `constants` holds that OIHW constant for them, which the kernels read
  /// in its order (Conv2DDesc::filterOIHW). The transposes' steps go
  /// unless a reference fallback reads them.
  llvm::DenseMap<Value, Value> oihwFilters;

  // Blocked activation layouts (options.blockedLayouts): the values kept in
  // one, and the plain copy of each made by a reorder where needed.
  bool blockTag = false;
  bool blockedLayouts = false;
  llvm::DenseMap<Value, ActivationLayout> layouts;
  llvm::DenseMap<Value, int64_t> plainIds;
  // Plain value `v` (id `plain`) reordered into `layout`, once per value.
  llvm::DenseMap<Value, std::pair<ActivationLayout, int64_t>> blockedCopies;
};

CpuPlanEmitter::CpuPlanEmitter(func::FuncOp specialized,
                               const cpu::CompileOptions &options)
    : specialized(specialized), options(options),
      executable(std::make_shared<runtime::Executable>()), exe(*executable) {
  exe.target = cpu::targetDescription();
  exe.determinism = options.determinism;
  for (auto &[op, key] : codegen::contractionKeys(specialized))
    calibrationKeys[op] = key;
  cpu::ActivationLayouts activationLayouts =
      resolveActivationLayouts(specialized, options);
  blockedLayouts = activationLayouts != cpu::ActivationLayouts::Plain &&
                   options.enableOneDnn;
  blockTag = activationLayouts == cpu::ActivationLayouts::Blocked;
}

/// CompileOptions::activationLayouts for `specialized`: Auto resolved, and
/// Plain where the ISA has no blocked layout.
cpu::ActivationLayouts
CpuPlanEmitter::resolveActivationLayouts(func::FuncOp specialized,
                                         const cpu::CompileOptions &options) {
  cpu::ActivationLayouts activationLayouts = options.activationLayouts;
  // int8 convolutions run on plain layouts: keep every activation plain.
  bool quantizedModel = false;
  specialized.walk([&](Operation *op) {
    quantizedModel |= op->hasAttr(kInputQuantizationAttr);
  });
  if (options.precision == Precision::Int8 || quantizedModel)
    activationLayouts = cpu::ActivationLayouts::Plain;
  if (activationLayouts == cpu::ActivationLayouts::Auto)
    activationLayouts = options.winograd && runtime::cpu::cpuIsa().winograd &&
                                winogradPaysForBlockedLayouts(specialized)
                            ? cpu::ActivationLayouts::Blocked
                            : cpu::ActivationLayouts::Plain;
  if (activationLayouts == cpu::ActivationLayouts::Blocked &&
      !runtime::cpu::cpuIsa().channelBlock)
    activationLayouts = cpu::ActivationLayouts::Plain;
  return activationLayouts;
}

llvm::Expected<std::shared_ptr<runtime::Executable>> CpuPlanEmitter::emit() {
  if (auto error = emitArguments())
    return std::move(error);
  for (Operation &op : specialized.getBody().front()) {
    size_t stepsBefore = exe.steps.size();
    if (auto error = pinConstantsReadBy(&op))
      return std::move(error);
    if (auto error = emitOp(op))
      return std::move(error);
    // The step of a lazy filter transpose that every convolution read
    // through its OIHW constant instead is dead (removeDeadSteps drops it).
    if (isa<TransposeOp>(op) && oihwFilters.contains(op.getResult(0)))
      for (size_t i = stepsBefore; i < exe.steps.size(); ++i)
        lazyFilterSteps.insert(i);
    releaseConstantsReadBy(&op);
  }
  if (auto error = finish())
    return std::move(error);
  return executable;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

llvm::Expected<int64_t> CpuPlanEmitter::addValue(Value v,
                                                 runtime::ValueStorage storage,
                                                 std::string producer) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || !toDType(type.getElementType()))
    return codegen::makeUnsupportedError(
        producer + ": the shape of " + typeString(v) +
        " is not known after specialization (it depends on the values "
        "of the inputs, not only their shapes; the CPU backend needs "
        "static shapes: specialize on those values or use the "
        "reference backend)");
  runtime::ValueInfo info;
  info.dtype = *toDType(type.getElementType());
  info.shape = shapeOf(v);
  info.storage = storage;
  info.producer = std::move(producer);
  exe.values.push_back(std::move(info));
  int64_t id = static_cast<int64_t>(exe.values.size()) - 1;
  ids[v] = id;
  return id;
}

// A value of another shape over the storage of value `of`.
int64_t CpuPlanEmitter::addView(int64_t of, const Shape &shape,
                                const std::string &where) {
  runtime::ValueInfo info;
  info.dtype = exe.values[of].dtype;
  info.shape = shape;
  info.storage = {runtime::ValueStorage::Kind::View, of, 0};
  info.producer = where;
  exe.values.push_back(std::move(info));
  return static_cast<int64_t>(exe.values.size()) - 1;
}

//===----------------------------------------------------------------------===//
// Blocked activation layouts
//===----------------------------------------------------------------------===//

const runtime::cpu::ActivationLayout *CpuPlanEmitter::layoutOf(Value v) const {
  auto it = layouts.find(v);
  return it == layouts.end() ? nullptr : &it->second;
}

bool CpuPlanEmitter::preferBlocked(Value v) const {
  return llvm::any_of(v.getUses(),
                      [](OpOperand &use) { return takesBlockedLayout(use); });
}

// Marks value `id` (the result of `v`) as kept in `layout`.
void CpuPlanEmitter::setLayout(Value v, int64_t id,
                               const ActivationLayout &layout) {
  exe.values[id].layout = layout.name;
  exe.values[id].layoutBytes = layout.bytes;
  layouts[v] = layout;
}

// The id of `v` in plain layout: a value in a blocked layout gets one
// reorder step (before its first plain use) whose result serves every
// plain use.
llvm::Expected<int64_t> CpuPlanEmitter::plainId(Value v,
                                                const std::string &forWhat) {
  if (quantizedValues.count(v))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        forWhat + ": internal error: an int8-quantized value read plain");
  const ActivationLayout *layout = layoutOf(v);
  if (!layout)
    return ids.lookup(v);
  if (auto it = plainIds.find(v); it != plainIds.end())
    return it->second;
  int64_t from = ids.lookup(v);
  runtime::ValueInfo info = exe.values[from];
  auto kernel = runtime::cpu::createLayoutReorder(info.dtype, info.shape,
                                                  layout, nullptr);
  if (!kernel.ok())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   forWhat + ": " +
                                       std::string(kernel.status().message()));
  runtime::Step step;
  step.kernel = *kernel;
  step.path = "onednn";
  step.op = "layout reorder " + layout->name + " -> nhwc for " + forWhat;
  step.inputs.push_back(from);
  info.layout.clear();
  info.layoutBytes = 0;
  info.storage = {runtime::ValueStorage::Kind::Arena};
  info.producer = step.op;
  exe.values.push_back(std::move(info));
  int64_t id = static_cast<int64_t>(exe.values.size()) - 1;
  step.outputs.push_back(id);
  exe.steps.push_back(std::move(step));
  plainIds[v] = id;
  return id;
}

// The plain NCHW value whose bytes are `v` in `layout`: `v` is its
// transpose to NHWC and `layout` dense nchw; null otherwise.
Value CpuPlanEmitter::nchwSourceOf(Value v,
                                   const ActivationLayout &layout) const {
  auto transpose = v.getDefiningOp<TransposeOp>();
  if (!transpose || layoutOf(transpose.getInput()) ||
      transpose.getPermutation() != llvm::ArrayRef<int64_t>{0, 2, 3, 1})
    return Value();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  auto dtype = type ? toDType(type.getElementType()) : std::nullopt;
  if (!dtype || !type.hasStaticShape() ||
      !runtime::cpu::isDenseNchw(layout, *dtype, shapeOf(v)))
    return Value();
  return transpose.getInput();
}

// Plain value `v` (id `plain`) reordered into `layout`, once per value.
llvm::Expected<int64_t>
CpuPlanEmitter::reorderTo(Value v, int64_t plain,
                          const ActivationLayout &layout,
                          const std::string &forWhat) {
  if (auto it = blockedCopies.find(v);
      it != blockedCopies.end() &&
      runtime::cpu::sameLayout(it->second.first, layout))
    return it->second.second;
  runtime::ValueInfo info = exe.values[plain];
  auto kernel = runtime::cpu::createLayoutReorder(info.dtype, info.shape,
                                                  nullptr, &layout);
  if (!kernel.ok())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   forWhat + ": " +
                                       std::string(kernel.status().message()));
  runtime::Step step;
  step.kernel = *kernel;
  step.path = "onednn";
  step.op = "layout reorder nhwc -> " + layout.name + " for " + forWhat;
  step.inputs.push_back(plain);
  info.layout = layout.name;
  info.layoutBytes = layout.bytes;
  info.storage = {runtime::ValueStorage::Kind::Arena};
  info.producer = step.op;
  exe.values.push_back(std::move(info));
  int64_t id = static_cast<int64_t>(exe.values.size()) - 1;
  step.outputs.push_back(id);
  exe.steps.push_back(std::move(step));
  blockedCopies[v] = {layout, id};
  return id;
}

// How a convolution writing `result` may use blocked layouts.
LayoutContext CpuPlanEmitter::layoutContextFor(Value result) const {
  LayoutContext context;
  context.layoutOf = [this](Value v) { return layoutOf(v); };
  context.blockTag = blockTag;
  context.winograd = options.winograd;
  context.preferBlocked = preferBlocked(result);
  return context;
}

//===----------------------------------------------------------------------===//
// Steps
//===----------------------------------------------------------------------===//

// The step of a fused contraction (or layout conv) `fused` computing
// `op`'s result: plain inputs, blocked ones, a plain input reordered into
// the layout the kernel picked for it.
llvm::Error CpuPlanEmitter::emitFused(FusedContraction &fused, Operation *op,
                                      std::string stepOp,
                                      const std::string &where) {
  runtime::Step step;
  step.op = std::move(stepOp);
  step.kernel = fused.kernel;
  step.calibrationKey = fused.calibrationKey;
  step.calibrationResidual = fused.calibrationResidual;
  std::string_view name = step.kernel->name();
  step.path = name.substr(0, name.find('.'));
  for (auto [i, in] : llvm::enumerate(fused.inputs)) {
    int64_t id = ids.lookup(in.value);
    if (!in.inLayout) {
      auto plain = plainId(in.value, where);
      if (!plain)
        return plain.takeError();
      id = *plain;
    }
    if (i == 0 && fused.inputLayout) {
      // The dense NCHW layout of an NCHW value's transpose to NHWC is that
      // value's bytes: the transpose and the reorder back cancel (the
      // first convolution of an ONNX CNN reads its 3 channels in nchw).
      // The transpose's step goes if nothing else reads it
      // (removeDeadSteps). An input read through a view keeps the reorder.
      Value source =
          in.view ? Value() : nchwSourceOf(in.value, *fused.inputLayout);
      if (source) {
        auto plain = plainId(source, where);
        if (!plain)
          return plain.takeError();
        step.inputs.push_back(*plain);
        continue;
      }
      auto reordered = reorderTo(in.value, id, *fused.inputLayout, where);
      if (!reordered)
        return reordered.takeError();
      id = *reordered;
    }
    step.inputs.push_back(in.view ? addView(id, *in.view, where) : id);
  }
  auto id =
      addValue(op->getResult(0), {runtime::ValueStorage::Kind::Arena}, step.op);
  if (!id)
    return id.takeError();
  if (fused.resultLayout)
    setLayout(op->getResult(0), *id, *fused.resultLayout);
  step.outputs.push_back(*id);
  exe.steps.push_back(std::move(step));
  return llvm::Error::success();
}

// One step for `kernel` (a pool or concat in blocked layouts) over all
// of `op`'s operands; false when the kernel is Unimplemented (the op then
// takes the plain path).
llvm::Expected<bool> CpuPlanEmitter::emitLayoutKernel(
    Operation &op, absl::StatusOr<runtime::cpu::LayoutKernel> kernel,
    const std::string &where) {
  if (!kernel.ok()) {
    if (kernel.status().code() == absl::StatusCode::kUnimplemented)
      return false;
    return errorAt(&op, std::string(kernel.status().message()));
  }
  runtime::Step step;
  step.kernel = kernel->kernel;
  std::string_view name = step.kernel->name();
  step.path = name.substr(0, name.find('.'));
  step.op = where + " [" + layoutOf(op.getOperand(0))->name + " -> " +
            (kernel->resultLayout ? kernel->resultLayout->name
                                  : std::string("nhwc")) +
            "]";
  for (Value operand : op.getOperands())
    step.inputs.push_back(ids.lookup(operand));
  auto id =
      addValue(op.getResult(0), {runtime::ValueStorage::Kind::Arena}, where);
  if (!id)
    return id.takeError();
  if (kernel->resultLayout)
    setLayout(op.getResult(0), *id, *kernel->resultLayout);
  step.outputs.push_back(*id);
  exe.steps.push_back(std::move(step));
  return true;
}

// One step running `kernel` over all of `op`'s operands (plain; or over
// `inputs` instead) and writing every result to the arena; `name` labels
// the step and its results, `where` the reorders its operands may need.
llvm::Error CpuPlanEmitter::emitWholeOpStep(
    Operation &op, std::shared_ptr<const runtime::Kernel> kernel,
    std::string path, const std::string &name, const std::string &where,
    std::optional<ValueRange> inputs) {
  runtime::Step step;
  step.op = name;
  step.kernel = std::move(kernel);
  step.path = std::move(path);
  for (Value v : inputs ? *inputs : ValueRange(op.getOperands())) {
    auto in = plainId(v, where);
    if (!in)
      return in.takeError();
    step.inputs.push_back(*in);
  }
  for (Value result : op.getResults()) {
    auto id = addValue(result, {runtime::ValueStorage::Kind::Arena}, name);
    if (!id)
      return id.takeError();
    step.outputs.push_back(*id);
  }
  exe.steps.push_back(std::move(step));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

llvm::Error CpuPlanEmitter::emitArguments() {
  for (auto [i, arg] : llvm::enumerate(specialized.getArguments())) {
    auto id = addValue(
        arg, {runtime::ValueStorage::Kind::Input, static_cast<int64_t>(i), 0},
        "argument #" + std::to_string(i));
    if (!id)
      return id.takeError();
    exe.inputs.push_back(*id);
  }
  return llvm::Error::success();
}

namespace {
/// Whether the CPU backend plans the regions of control-flow op `op`: its
/// loop carries static types and no op inside has a data-dependent shape.
/// Otherwise the whole op runs on the reference interpreter (a loop growing
/// a carried value, Mask R-CNN's mask pasting that resizes to computed
/// sizes in its body).
bool regionsArePlanned(Operation &op) {
  if (auto loop = dyn_cast<WhileOp>(op))
    for (Type type : loop.getResultTypes())
      if (!cast<RankedTensorType>(type).hasStaticShape())
        return false;
  bool dataDependent = false;
  op.walk([&](Operation *inner) {
    dataDependent |= inner != &op && hasDataDependentShape(inner);
  });
  return !dataDependent;
}
} // namespace

/// The step (or steps, or view, or constant) of one op of the function body.
llvm::Error CpuPlanEmitter::emitOp(Operation &op) {
  std::string where =
      op.getName().getStringRef().str() + " at " + locationString(op.getLoc());
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return emitResults(ret);
  if (auto constant = dyn_cast<ConstantOp>(op))
    return emitConstant(constant, where);
  if (isShapeView(&op) || isa<tensor::CastOp>(op))
    return emitView(op, where);
  auto loopFusion = dyn_cast<FusionOp>(op);
  if (loopFusion && loopFusion.getKind() != FusionKind::loop)
    loopFusion = nullptr;
  if (loopFusion && (llvm::all_of(op.getResultTypes(), isEmptyTensor) ||
                     !touchesEmptyTensors(loopFusion)))
    return emitLoopFusion(loopFusion, where);
  if (isa<IfOp, WhileOp>(op))
    return regionsArePlanned(op) ? emitControlFlow(op, where)
                                 : emitReferenceFallback(op, where);
  if (!isa_and_nonnull<TgcDialect>(op.getDialect()) || op.getNumResults() == 0)
    return unsupportedAt(&op, "is not supported by the CPU backend");
  if (isa<FusionOp>(op) && op.getNumResults() != 1 && !loopFusion)
    return unsupportedAt(&op, "is not supported by the CPU backend");
  if (auto topk = dyn_cast<TopKOp>(op); topk && options.enableOneDnn)
    return emitTopK(topk, where);
  if (op.getNumResults() > 1 || loopFusion)
    return emitReferenceFallback(op, where);
  auto emitted = emitFusedOrBlocked(op, where);
  if (!emitted)
    return emitted.takeError();
  if (*emitted)
    return llvm::Error::success();
  return emitKernel(op, where);
}

llvm::Error CpuPlanEmitter::emitResults(func::ReturnOp ret) {
  for (Value v : ret.getOperands()) {
    auto id = plainId(v, "the result");
    if (!id)
      return id.takeError();
    exe.outputs.push_back(*id);
  }
  return llvm::Error::success();
}

/// Whether `perm` transposes an OIHW filter to HWIO (tgc-convert-layout's
/// filter permutation).
static bool isOihwToHwio(ArrayRef<int64_t> perm) {
  return perm == ArrayRef<int64_t>{2, 3, 1, 0};
}

/// Whether every use of `v` is the filter of an NHWC conv2d, directly or as
/// the input of a fusion whose body uses it so.
static bool readOnlyAsNhwcFilter(Value v) {
  auto isFilterUse = [](OpOperand &use) {
    auto conv = dyn_cast<Conv2DOp>(use.getOwner());
    return conv && conv.getLayout() == ir::Layout::NHWC &&
           use.getOperandNumber() == 1;
  };
  if (v.use_empty())
    return false;
  for (OpOperand &use : v.getUses()) {
    if (isFilterUse(use))
      continue;
    auto fusion = dyn_cast<FusionOp>(use.getOwner());
    if (!fusion || fusion.getBody().empty())
      return false;
    unsigned index =
        use.getOperandNumber() - fusion.getInputs().getBeginOperandIndex();
    if (index >= fusion.getBody().getNumArguments())
      return false;
    BlockArgument arg = fusion.getBody().getArgument(index);
    if (arg.use_empty() || !llvm::all_of(arg.getUses(), isFilterUse))
      return false;
  }
  return true;
}

/// A view of a dense f32/f64 constant's data where its layout is the
/// tensor's (not a splat, naturally aligned): the plan then holds no copy of
/// the weights (ResNet-50: 98 MB). The data is the context's, which outlives
/// every compiled function (their modules need it too). A dense_resource
/// constant of any type is viewed the same way (readConstantBytes: a
/// file-backed one's copy, which `hold` then keeps).
static llvm::Expected<std::optional<HostTensor>>
viewConstant(ConstantOp constant, ConstantBytes &hold) {
  if (!isa<DenseElementsAttr>(constant.getValue())) {
    std::string error;
    std::optional<ConstantBytes> bytes =
        readConstantBytes(constant.getValue(), &error);
    if (!bytes) {
      if (error.empty())
        return std::nullopt;
      return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
    }
    auto type = cast<RankedTensorType>(constant.getType());
    std::optional<DType> dtype = toDType(type.getElementType());
    if (!dtype)
      return std::nullopt;
    auto view = HostTensor::borrow(*dtype, Shape(type.getShape()),
                                   const_cast<char *>(bytes->data()));
    if (!view.ok() || view->byteSize() != bytes->size())
      return std::nullopt;
    hold = *std::move(bytes);
    return std::optional<HostTensor>(*std::move(view));
  }
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || dense.isSplat())
    return std::nullopt;
  auto type = cast<RankedTensorType>(dense.getType());
  Type element = type.getElementType();
  if (!type.hasStaticShape() || !(element.isF32() || element.isF64()))
    return std::nullopt;
  DType dtype = element.isF32() ? DType::F32 : DType::F64;
  size_t elementSize = runtime::dtypeSize(dtype);
  ArrayRef<char> raw = dense.getRawData();
  if (raw.size() != static_cast<size_t>(type.getNumElements()) * elementSize ||
      reinterpret_cast<uintptr_t>(raw.data()) % elementSize != 0)
    return std::nullopt;
  auto view = HostTensor::borrow(dtype, Shape(type.getShape()),
                                 const_cast<char *>(raw.data()));
  if (!view.ok())
    return std::nullopt;
  return *std::move(view);
}

llvm::Error CpuPlanEmitter::emitConstant(ConstantOp constant,
                                         const std::string &where) {
  ConstantBytes hold;
  auto viewed = viewConstant(constant, hold);
  if (!viewed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   where + ": " +
                                       llvm::toString(viewed.takeError()));
  std::optional<HostTensor> value = std::move(*viewed);
  if (!value) {
    auto made = reference::runOp(constant.getOperation(), {});
    if (!made)
      return made.takeError();
    value = std::move(*made);
  }
  exe.constants.push_back(*value);
  if (hold.fileBacked)
    trackReaders(constant, exe.constants.size() - 1);
  constantHolds.push_back(std::move(hold));
  constantValues.push_back(std::make_unique<HostTensor>(*value));
  constants[constant.getResult()] = constantValues.back().get();
  // Its lazy filter transposes: the kernels read this constant for them.
  for (Operation *user : constant->getUsers()) {
    auto t = dyn_cast<TransposeOp>(user);
    if (!t || !t.getLazy() || !isOihwToHwio(t.getPermutation()) ||
        !readOnlyAsNhwcFilter(t.getResult()))
      continue;
    constants[t.getResult()] = constantValues.back().get();
    oihwFilters[t.getResult()] = constant.getResult();
  }
  auto id = addValue(constant.getResult(),
                     {runtime::ValueStorage::Kind::Constant,
                      static_cast<int64_t>(exe.constants.size()) - 1, 0},
                     where);
  if (!id)
    return id.takeError();
  return llvm::Error::success();
}

runtime::cpu::Conv2DDesc
CpuPlanEmitter::planConv2DDesc(Conv2DOp conv, FusedContraction &fused) {
  auto it = constants.find(conv.getFilter());
  runtime::cpu::Conv2DDesc desc =
      conv2DDescOf(conv, it == constants.end() ? nullptr : it->second);
  readOihwFilter(desc, conv.getFilter(), oihwFilters, fused.inputs[1].value);
  desc.winograd = options.winograd;
  return desc;
}

/// A reshape-like op: a view of its (plain) operand, no step.
llvm::Error CpuPlanEmitter::emitView(Operation &op, const std::string &where) {
  auto of = plainId(op.getOperand(0), where);
  if (!of)
    return of.takeError();
  auto id = addValue(op.getResult(0),
                     {runtime::ValueStorage::Kind::View, *of, 0}, where);
  if (!id)
    return id.takeError();
  return llvm::Error::success();
}

/// A loop fusion whose results are all empty, or that touches no empty
/// tensor (touchesEmptyTensors).
llvm::Error CpuPlanEmitter::emitLoopFusion(FusionOp fusion,
                                           const std::string &where) {
  Operation &op = *fusion;
  if (llvm::all_of(op.getResultTypes(), isEmptyTensor)) {
    // Nothing to compute: every result is empty (and a loop fusion's ops
    // have no errors that depend on values).
    return emitWholeOpStep(op, runtime::cpu::createNoOp("native.empty"),
                           "native", where, where);
  }
  // One JIT-compiled kernel writing every result.
  cpu::LoopKernelOptions loopOptions;
  loopOptions.numThreads = runtime::resolveThreadCount(options.numThreads);
  loopOptions.vectorize = options.loopVectorize;
  loopOptions.vectorTile = options.loopVectorTile;
  loopOptions.dumpJit = options.dumpJit;
  if (!options.cacheDir.empty() && !objectCacheOpened) {
    objectCacheOpened = true;
    // A directory that cannot be used is not an error: kernels compile.
    if (auto cache = cpu::KernelObjectCache::open(options.cacheDir); cache.ok())
      objectCache = *cache;
  }
  loopOptions.objectCache = objectCache;
  loopOptions.keepObject = options.savable;
  auto kernel = cpu::createLoopFusionKernel(fusion, loopOptions);
  if (!kernel.ok())
    return errorAt(&op, std::string(kernel.status().message()));
  return emitWholeOpStep(op, *kernel, "jit",
                         "tgc.fusion <loop> at " + locationString(op.getLoc()),
                         where);
}

llvm::Error CpuPlanEmitter::emitReferenceFallback(Operation &op,
                                                  const std::string &where) {
  // Multi-result ops (topk of unsigned integers), loop fusions over empty
  // tensors (touchesEmptyTensors) and control flow whose regions are not
  // planned (regionsArePlanned) run on the reference kernels.
  return emitWholeOpStep(op, std::make_shared<ReferenceKernel>(&op),
                         "reference", where, where);
}

llvm::Error CpuPlanEmitter::emitTopK(TopKOp op, const std::string &where) {
  runtime::cpu::TopKDesc desc{dtypeOf(op.getInput()), shapeOf(op.getInput())};
  desc.axis = static_cast<int64_t>(op.getAxis());
  desc.k = static_cast<int64_t>(op.getK());
  desc.largest = op.getLargest();
  auto kernel = runtime::cpu::createTopK(desc);
  if (!kernel.ok()) {
    // A dtype without native traits (unsigned integers) stays on the
    // reference kernels.
    if (kernel.status().code() == absl::StatusCode::kUnimplemented)
      return emitReferenceFallback(*op, where);
    return errorAt(op, std::string(kernel.status().message()));
  }
  return emitWholeOpStep(*op, *kernel, "native", where, where);
}

namespace {
/// The compiled plans of a control-flow op's regions and the modules their
/// steps point into.
struct RegionPlans {
  std::vector<OwningOpRef<ModuleOp>> modules;
  std::vector<std::shared_ptr<const runtime::Executable>> plans;
};

/// Compiles `block` (a region of `op`) as a function of its own taking
/// `argTypes` (static), the block's arguments the last of them: planned,
/// fused and memory planned like any function; its tgc.yield becomes the
/// return.
llvm::Error compileRegion(Operation *op, Block &block, TypeRange argTypes,
                          StringRef name, const cpu::CompileOptions &options,
                          RegionPlans &plans) {
  MLIRContext *context = op->getContext();
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(op->getLoc());
  builder.setInsertionPointToEnd(module->getBody());
  auto yield = cast<YieldOp>(block.getTerminator());
  auto fn = func::FuncOp::create(
      builder, op->getLoc(), name,
      builder.getFunctionType(argTypes, yield->getOperandTypes()));
  Block *entry = fn.addEntryBlock();
  IRMapping mapping;
  mapping.map(block.getArguments(),
              entry->getArguments().take_back(block.getNumArguments()));
  builder.setInsertionPointToEnd(entry);
  for (Operation &inner : block.without_terminator())
    builder.clone(inner, mapping);
  SmallVector<Value> results;
  for (Value v : yield.getValues())
    results.push_back(mapping.lookupOrDefault(v));
  func::ReturnOp::create(builder, yield.getLoc(), results);
  std::vector<std::vector<int64_t>> shapes;
  for (Type type : argTypes) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(type).getShape();
    shapes.emplace_back(shape.begin(), shape.end());
  }
  auto compiled = cpu::compile(fn, shapes, options);
  if (!compiled)
    return compiled.takeError();
  plans.plans.push_back(compiled->executable);
  plans.modules.push_back(std::move(compiled->module));
  return llvm::Error::success();
}

/// The result types of `plan` (dtype and shape) as text, for errors.
std::string planResultType(const runtime::Executable &plan, size_t i) {
  const runtime::ValueInfo &info =
      plan.values[static_cast<size_t>(plan.outputs[i])];
  return runtime::tensorTypeString(info.dtype, info.shape);
}

/// Whether result `i` of `plan` has the dtype and shape of `type`.
bool planResultIs(const runtime::Executable &plan, size_t i, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  const runtime::ValueInfo &info =
      plan.values[static_cast<size_t>(plan.outputs[i])];
  auto dtype = tensor ? toDType(tensor.getElementType()) : std::nullopt;
  return tensor && dtype && *dtype == info.dtype && tensor.hasStaticShape() &&
         llvm::equal(tensor.getShape(), info.shape);
}
} // namespace

/// tgc.if / tgc.while: each region compiled into a plan of its own
/// (runtime/ControlFlow.h), one step running them.
llvm::Error CpuPlanEmitter::emitControlFlow(Operation &op,
                                            const std::string &where) {
  RegionPlans plans;
  // The regions take the operands' (specialized, static) types.
  SmallVector<Type> operandTypes(op.getOperandTypes());
  if (auto ifOp = dyn_cast<IfOp>(op)) {
    // The branches take the condition too (unread): the step runs them on
    // its own inputs.
    if (auto error = compileRegion(&op, ifOp.getThenBlock(), operandTypes,
                                   "then_branch", options, plans))
      return error;
    if (auto error = compileRegion(&op, ifOp.getElseBlock(), operandTypes,
                                   "else_branch", options, plans))
      return error;
    const char *branches[] = {"then", "else"};
    for (auto [b, branch] : llvm::enumerate(branches))
      for (auto [i, type] : llvm::enumerate(op.getResultTypes()))
        if (!planResultIs(*plans.plans[b], i, type))
          return unsupportedAt(
              &op, llvm::Twine("'") + branch + "' yields " +
                       planResultType(*plans.plans[b], i) + " as result #" +
                       llvm::Twine(i) + ", which is " + typeString(type) +
                       " (the CPU backend needs one static type per result)");
  } else {
    auto whileOp = cast<WhileOp>(op);
    if (auto error = compileRegion(&op, whileOp.getCondBlock(), operandTypes,
                                   "loop_condition", options, plans))
      return error;
    if (auto error = compileRegion(&op, whileOp.getBodyBlock(), operandTypes,
                                   "loop_body", options, plans))
      return error;
    const runtime::Executable &cond = *plans.plans[0], &body = *plans.plans[1];
    if (cond.outputs.size() != 1 ||
        cond.values[static_cast<size_t>(cond.outputs[0])].dtype !=
            runtime::DType::I1)
      return unsupportedAt(&op, "'cond' must yield one tensor<i1>");
    for (auto [i, type] : llvm::enumerate(whileOp.getInits().getTypes()))
      if (!planResultIs(body, i, type))
        return unsupportedAt(
            &op, "the loop body changes carried value #" + llvm::Twine(i) +
                     " from " + typeString(type) + " to " +
                     planResultType(body, i) +
                     " (a carried value keeps its type across iterations)");
  }
  // The kernel keeps the modules its plans' reference steps point into.
  auto owner = std::make_shared<RegionPlans>(std::move(plans));
  // Where the plan may be saved, the step's recipe holds the nested plans.
  bool savable = options.savable || !options.cacheDir.empty();
  std::shared_ptr<const runtime::Kernel> kernel =
      isa<IfOp>(op)
          ? runtime::cpu::createIfKernel(owner->plans[0], owner->plans[1],
                                         owner, savable)
          : runtime::cpu::createWhileKernel(owner->plans[0], owner->plans[1],
                                            cast<WhileOp>(op).getInits().size(),
                                            owner, savable);
  return emitWholeOpStep(op, std::move(kernel), "control", where, where);
}

/// A contraction fusion as one oneDNN kernel, or a conv2d, concat or pool
/// in blocked layouts; false when `op` is none of those (or its kernel
/// falls back): it then takes the plain path (emitKernel).
llvm::Expected<bool>
CpuPlanEmitter::emitFusedOrBlocked(Operation &op, const std::string &where) {
  if (auto fusion = dyn_cast<FusionOp>(op); fusion && options.enableOneDnn) {
    auto lowered = emitContractionFusion(fusion, where);
    if (!lowered || *lowered)
      return lowered;
  }
  // A convolution without post-ops whose result its consumers read 8-bit
  // (a projection shortcut's branch, read by the block's sum): written so.
  if (auto conv = dyn_cast<Conv2DOp>(op); conv && options.enableOneDnn) {
    auto emitted = emitInt8ChainConv(conv, where);
    if (!emitted || *emitted)
      return emitted;
  }
  // A max pool over bytes an int8 producer quantized for the pool's int8
  // consumers (int8ConsumerOf) pools them as they are.
  if (auto pool = dyn_cast<MaxPool2DOp>(op); pool && options.enableOneDnn) {
    auto quantized = quantizedValues.find(pool.getInput());
    if (quantized != quantizedValues.end()) {
      runtime::cpu::Int8Quantization q = quantized->second;
      auto emitted = emitLayoutPool(op, where);
      if (!emitted)
        return emitted.takeError();
      if (!*emitted || !layoutOf(pool.getResult()))
        return errorAt(&op, "no int8 max pool kernel for the quantized "
                            "input its producer wrote");
      quantizedValues[pool.getResult()] = q;
      return true;
    }
  }
  if (!blockedLayouts)
    return false;
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    auto lowered = emitLayoutConv(conv, where);
    if (!lowered || *lowered)
      return lowered;
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    auto emitted = emitLayoutConcat(concat, where);
    if (!emitted || *emitted)
      return emitted;
  }
  return emitLayoutPool(op, where);
}

// A contraction fusion as one kernel with bias and post-ops; false when
// its body is not a contraction the post-op table describes or the
// kernel falls back (the fusion then runs on the reference path).
llvm::Expected<bool>
CpuPlanEmitter::emitContractionFusion(FusionOp fusion,
                                      const std::string &where) {
  auto chain = analyzeContractionFusion(fusion);
  if (!chain)
    return false;
  LayoutContext layoutContext = layoutContextFor(fusion.getResult(0));
  ContractionPrecision precision = precisionFor(chain->contraction);
  // int8 chains: an input its producer quantized for this convolution is
  // read as it is; a result whose one consumer is an int8 convolution is
  // written quantized for it.
  bool quantizedInput = false;
  auto matmul = dyn_cast<MatmulOp>(chain->contraction);
  if (precision.int8 && (isa<Conv2DOp>(chain->contraction) ||
                         (matmul && !matmul.getTransposeA()))) {
    quantizedInput = readsQuantizedInput(
        chain->contraction,
        fusionInputOf(fusion, chain->contraction->getOperand(0)), precision);
    precision.int8Output = int8ConsumerOf(fusion.getResult(0));
  }
  // A residual its producer wrote 8-bit (int8ConsumerOf promised this
  // fusion an 8-bit result): the sum post-op reads the bytes.
  Value residual = residualOf(fusion);
  if (residual && precision.int8 && precision.int8Output)
    if (auto q = quantizedValues.find(residual); q != quantizedValues.end())
      precision.sumInput = q->second;
  auto fused = createFusedContraction(
      fusion, *chain, constants, oihwFilters, precision, options.winograd,
      blockedLayouts ? &layoutContext : nullptr);
  if (!fused.ok()) {
    // Inputs that arrive 8-bit have no f32 stand-in.
    if (!quantizedInput && !precision.sumInput &&
        fused.status().code() == absl::StatusCode::kUnimplemented)
      return false;
    return errorAt(fusion, std::string(fused.status().message()));
  }
  if (quantizedInput)
    fused->inputs[0].inLayout = true;
  for (auto [i, in] : llvm::enumerate(fused->inputs))
    if (residual && in.value == residual && i > 0) {
      if (precision.sumInput)
        in.inLayout = true;
      fused->calibrationResidual = static_cast<int>(i);
    }
  if (precision.int8Output && fused->resultLayout)
    quantizedValues[fusion.getResult(0)] = *precision.int8Output;
  fused->calibrationKey = calibrationKeys.lookup(chain->contraction);
  if (auto error = emitFused(*fused, fusion,
                             "tgc.fusion(" + fused->description + ") at " +
                                 locationString(fusion.getLoc()),
                             where))
    return std::move(error);
  return true;
}

// A conv2d with no post-ops, when blocked layouts apply to it.
llvm::Expected<bool> CpuPlanEmitter::emitLayoutConv(Conv2DOp conv,
                                                    const std::string &where) {
  if (conv.getLayout() != ir::Layout::NHWC)
    return false;
  FusedContraction fused;
  fused.description = "tgc.conv2d";
  for (Value operand : conv->getOperands())
    fused.inputs.push_back({operand, std::nullopt});
  LayoutContext layoutContext = layoutContextFor(conv.getResult());
  runtime::cpu::Conv2DDesc desc = planConv2DDesc(conv, fused);
  applyPrecision(desc, precisionFor(conv));
  if (desc.int8)
    return false; // int8 convolutions run plain (emitKernel)
  fused.calibrationKey = calibrationKeys.lookup(conv);
  auto blocked = tryLayoutConv(desc, {}, layoutContext, fused);
  if (!blocked.ok())
    return errorAt(conv, std::string(blocked.status().message()));
  if (!*blocked)
    return false;
  if (auto error = emitFused(
          fused, conv,
          fused.description + " at " + locationString(conv.getLoc()), where))
    return std::move(error);
  return true;
}

llvm::Expected<bool>
CpuPlanEmitter::emitInt8ChainConv(Conv2DOp conv, const std::string &where) {
  ContractionPrecision precision = precisionFor(conv);
  if (!precision.int8)
    return false;
  precision.int8Output = int8ConsumerOf(conv.getResult());
  if (!precision.int8Output)
    return false;
  bool quantizedInput = readsQuantizedInput(conv, conv.getInput(), precision);
  FusedContraction fused;
  fused.description = "tgc.conv2d";
  for (Value operand : conv->getOperands())
    fused.inputs.push_back({operand, std::nullopt});
  runtime::cpu::Conv2DDesc desc = planConv2DDesc(conv, fused);
  applyPrecision(desc, precision);
  auto kernel = createInt8ChainKernel(desc, precision, desc.nhwc,
                                      runtime::cpu::createConv2D, fused);
  if (!kernel.ok()) {
    if (!quantizedInput &&
        kernel.status().code() == absl::StatusCode::kUnimplemented)
      return false;
    return errorAt(conv, std::string(kernel.status().message()));
  }
  fused.kernel = *kernel;
  fused.inputs[0].inLayout = quantizedInput;
  if (fused.resultLayout)
    quantizedValues[conv.getResult()] = *precision.int8Output;
  fused.calibrationKey = calibrationKeys.lookup(conv);
  if (auto error = emitFused(
          fused, conv,
          fused.description + " at " + locationString(conv.getLoc()), where))
    return std::move(error);
  return true;
}

llvm::Expected<bool>
CpuPlanEmitter::emitLayoutConcat(ConcatOp concat, const std::string &where) {
  if (!isChannelConcat(concat) ||
      !llvm::all_of(concat.getInputs(),
                    [&](Value v) { return layoutOf(v) != nullptr; }))
    return false;
  // A channel concat of blocked inputs stays blocked.
  std::vector<runtime::cpu::Shape> shapes;
  std::vector<const runtime::cpu::ActivationLayout *> inputLayouts;
  for (Value v : concat.getInputs()) {
    shapes.push_back(shapeOf(v));
    inputLayouts.push_back(layoutOf(v));
  }
  return emitLayoutKernel(
      *concat.getOperation(),
      runtime::cpu::createLayoutConcat(dtypeOf(concat.getResult()), shapes,
                                       inputLayouts, blockTag),
      where);
}

llvm::Expected<bool> CpuPlanEmitter::emitLayoutPool(Operation &op,
                                                    const std::string &where) {
  auto pool = poolDescOf(&op);
  if (!pool || !layoutOf(op.getOperand(0)))
    return false;
  // A pool over a blocked input keeps oneDNN's layout.
  return emitLayoutKernel(
      op, runtime::cpu::createLayoutPool2D(*pool, *layoutOf(op.getOperand(0))),
      where);
}

/// A single-result op on its oneDNN or native kernel (createKernel), else
/// on the reference interpreter.
llvm::Expected<bool>
CpuPlanEmitter::emitMatmulOverViews(MatmulOp matmul, const std::string &where) {
  namespace cpu = runtime::cpu;
  Value result = matmul.getResult();
  if (constants.count(matmul.getRhs()))
    return false; // prepacked weights
  cpu::MatmulDesc desc{dtypeOf(result), shapeOf(matmul.getLhs()),
                       shapeOf(matmul.getRhs()), shapeOf(result)};
  applyPrecision(desc, precisionFor(matmul));
  if (desc.bf16 || desc.int8 || desc.dtype != DType::F32)
    return false;
  desc.transposeA = matmul.getTransposeA();
  desc.transposeB = matmul.getTransposeB();
  Value operands[2] = {matmul.getLhs(), matmul.getRhs()};
  double scale = 1;
  for (Value &v : operands)
    if (auto peeled = peelExactScale(v)) {
      scale *= peeled->first;
      v = peeled->second;
    }
  std::optional<FoldedOperand> folded[2] = {foldOperandView(operands[0]),
                                            foldOperandView(operands[1])};
  if (!folded[0] && !folded[1])
    return false;
  // Where the two views split a batch dim in ways that do not combine,
  // one of them folds.
  if (!applyOperandViews(desc, folded) &&
      !(folded[0] && folded[1] &&
        (applyOperandViews(desc, {folded[0], std::nullopt}) ||
         applyOperandViews(desc, {std::nullopt, folded[1]}))))
    return false;
  if (desc.lhsView)
    operands[0] = folded[0]->base;
  if (desc.rhsView)
    operands[1] = folded[1]->base;
  if (scale != 1) {
    cpu::PostOp linear;
    linear.eltwise = EltwiseKind::Linear;
    linear.alpha = scale;
    desc.postOps.push_back(linear);
  }
  absl::StatusOr<KernelPtr> kernel = cpu::createMatmul(desc);
  if (!kernel.ok())
    return false; // the operands materialized, as without views
  std::string_view name = (*kernel)->name();
  if (llvm::Error error = emitWholeOpStep(
          *matmul, *kernel, std::string(name.substr(0, name.find('.'))), where,
          where, ValueRange(operands)))
    return std::move(error);
  return true;
}

llvm::Error CpuPlanEmitter::emitKernel(Operation &op,
                                       const std::string &where) {
  if (auto matmul = dyn_cast<MatmulOp>(op); matmul && options.enableOneDnn) {
    auto emitted = emitMatmulOverViews(matmul, where);
    if (!emitted)
      return emitted.takeError();
    if (*emitted)
      return llvm::Error::success();
  }
  runtime::Step step;
  step.op = where;
  bool quantizedInput = false;
  if (options.enableOneDnn) {
    // An int8 contraction whose input its producer quantized for it reads
    // the bytes as they are (int8ConsumerOf).
    ContractionPrecision precision = precisionFor(&op);
    quantizedInput = isa<Conv2DOp, MatmulOp>(op) &&
                     readsQuantizedInput(&op, op.getOperand(0), precision);
    auto kernel =
        createKernel(&op, constants, oihwFilters, precision, options.winograd);
    step.calibrationKey = calibrationKeys.lookup(&op);
    if (!kernel.ok() && quantizedInput)
      return errorAt(&op, std::string(kernel.status().message()));
    if (kernel.ok()) {
      step.kernel = *kernel;
      std::string_view name = step.kernel->name();
      step.path = name.substr(0, name.find('.'));
    } else if (kernel.status().code() != absl::StatusCode::kUnimplemented) {
      return errorAt(&op, std::string(kernel.status().message()));
    }
  }
  if (!step.kernel) {
    step.kernel = std::make_shared<ReferenceKernel>(&op);
    step.path = "reference";
  }
  // A convolution kernel reads an OIHW filter constant itself; the
  // reference path reads its transpose.
  Value oihwFilter;
  if (auto conv = dyn_cast<Conv2DOp>(op); conv && step.path != "reference")
    oihwFilter = oihwFilters.lookup(conv.getFilter());
  for (Value v : op.getOperands()) {
    if (quantizedInput && v == op.getOperand(0)) {
      step.inputs.push_back(ids.lookup(v));
      continue;
    }
    if (oihwFilter && v == op.getOperand(1))
      v = oihwFilter;
    auto in = plainId(v, where);
    if (!in)
      return in.takeError();
    step.inputs.push_back(*in);
  }
  auto id =
      addValue(op.getResult(0), {runtime::ValueStorage::Kind::Arena}, where);
  if (!id)
    return id.takeError();
  step.outputs.push_back(*id);
  exe.steps.push_back(std::move(step));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The whole plan
//===----------------------------------------------------------------------===//

void CpuPlanEmitter::assignStepLevels() {
  // A step's level is one more than the highest level among the steps
  // producing its inputs (through views); arguments and constants are
  // ready before level 0.
  std::vector<int64_t> producedAt(exe.values.size(), -1);
  auto rootOf = [&](int64_t id) {
    while (exe.values[id].storage.kind == runtime::ValueStorage::Kind::View)
      id = exe.values[id].storage.index;
    return id;
  };
  for (const runtime::Step &step : exe.steps) {
    int64_t level = 0;
    for (int64_t in : step.inputs)
      level = std::max(level, producedAt[rootOf(in)] + 1);
    for (int64_t out : step.outputs)
      producedAt[out] = level;
    exe.stepLevels.push_back(level);
  }
}

Value CpuPlanEmitter::fusionInputOf(FusionOp fusion, Value inner) {
  auto arg = dyn_cast<BlockArgument>(inner);
  if (!arg || arg.getOwner()->getParentOp() != fusion.getOperation() ||
      arg.getArgNumber() >= fusion.getInputs().size())
    return Value();
  return fusion.getInputs()[arg.getArgNumber()];
}

std::optional<runtime::cpu::Int8Quantization>
CpuPlanEmitter::int8ConsumerOf(Value v) const {
  if (auto known = int8Consumers.find(v); known != int8Consumers.end())
    return known->second;
  std::optional<runtime::cpu::Int8Quantization> q = findInt8Consumer(v);
  int8Consumers[v] = q;
  return q;
}

std::optional<runtime::cpu::Int8Quantization>
CpuPlanEmitter::findInt8Consumer(Value v) const {
  if (v.use_empty())
    return std::nullopt;
  Operation *user = v.getUses().begin()->getOwner();
  // A max pool commutes with quantization (which is monotonic: the largest
  // quantized value is the quantized largest value), so between an int8
  // producer and int8 consumers it runs on the bytes (ResNet's stem): the
  // producer writes them for the pool's consumers, which must all read
  // them with one quantization.
  if (auto pool = dyn_cast<MaxPool2DOp>(user); pool && v.hasOneUse()) {
    if (pool.getLayout() != ir::Layout::NHWC || pool.getResult().use_empty())
      return std::nullopt;
    std::optional<runtime::cpu::Int8Quantization> common;
    for (Operation *reader : pool.getResult().getUsers()) {
      auto q = int8ReaderOf(reader, pool.getResult());
      if (!q || (common && !sameQuantization(*q, *common)))
        return std::nullopt;
      common = q;
    }
    return common;
  }
  // Every use reads the bytes: int8 contractions reading `v` as their
  // input (one quantization between them), and an int8 convolution adding
  // it as its residual in an 8-bit result (ResNet's shortcuts, whose sum
  // post-op reads it with any quantization). With only the latter, the
  // calibrated range of the residual quantizes it (a projection
  // shortcut's branch).
  std::optional<runtime::cpu::Int8Quantization> common;
  Operation *residualReader = nullptr;
  for (OpOperand &use : v.getUses()) {
    Operation *reader = use.getOwner();
    if (auto q = int8ReaderOf(reader, v)) {
      if (common && !sameQuantization(*q, *common))
        return std::nullopt;
      common = q;
      continue;
    }
    if (residualReader || !readsInt8Residual(reader, v))
      return std::nullopt;
    residualReader = reader;
  }
  if (!common && residualReader)
    common = residualQuantization(cast<FusionOp>(residualReader));
  return common;
}

Value CpuPlanEmitter::residualOf(FusionOp fusion) const {
  auto chain = analyzeContractionFusion(fusion);
  if (!chain || !isa<Conv2DOp>(chain->contraction))
    return Value();
  Shape result = shapeOf(chain->contraction->getResult(0));
  for (const auto &matched : chain->postOps)
    if (matched.kind == PostOpKind::Add && matched.operand &&
        runtime::padRank(shapeOf(matched.operand), 4) == result)
      return fusionInputOf(fusion, matched.operand);
  return Value();
}

bool CpuPlanEmitter::readsInt8Residual(Operation *user, Value v) const {
  auto fusion = dyn_cast<FusionOp>(user);
  if (!fusion || !options.enableOneDnn || residualOf(fusion) != v ||
      llvm::count(fusion.getInputs(), v) != 1)
    return false;
  auto chain = analyzeContractionFusion(fusion);
  if (!chain || !precisionFor(chain->contraction).int8)
    return false;
  return int8ConsumerOf(fusion.getResult(0)).has_value();
}

std::optional<runtime::cpu::Int8Quantization>
CpuPlanEmitter::residualQuantization(FusionOp fusion) const {
  auto chain = analyzeContractionFusion(fusion);
  if (!chain || options.precision != Precision::Int8 || !options.calibration)
    return std::nullopt;
  auto key = calibrationKeys.find(chain->contraction);
  if (key == calibrationKeys.end())
    return std::nullopt;
  const codegen::CalibrationEntry *entry =
      options.calibration->find(key->second + codegen::kResidualKeySuffix);
  if (!entry)
    return std::nullopt;
  return int8QuantizationOf(*entry, options.calibration->asymmetric);
}

std::optional<runtime::cpu::Int8Quantization>
CpuPlanEmitter::int8ReaderOf(Operation *user, Value v) const {
  // The consumer: a convolution reading `v` as its input, or a matmul
  // reading it as its untransposed lhs, with constant weights, in a
  // contraction fusion or alone. Either reads the bytes row-major in `v`'s
  // shape, as its producer writes them.
  auto fusion = dyn_cast<FusionOp>(user);
  Operation *consumer = user;
  if (fusion) {
    auto chain = analyzeContractionFusion(fusion);
    if (!chain)
      return std::nullopt;
    consumer = chain->contraction;
  }
  // The value an operand of the consumer is, outside its fusion.
  auto outer = [&](Value inner) {
    return fusion ? fusionInputOf(fusion, inner) : inner;
  };
  Value weights;
  if (auto conv = dyn_cast<Conv2DOp>(consumer)) {
    if (outer(conv.getInput()) != v)
      return std::nullopt;
    weights = conv.getFilter();
  } else if (auto matmul = dyn_cast<MatmulOp>(consumer)) {
    if (outer(matmul.getLhs()) != v || matmul.getTransposeA() ||
        outer(matmul.getRhs()) == v)
      return std::nullopt;
    weights = matmul.getRhs();
  } else {
    return std::nullopt;
  }
  Value outerWeights = outer(weights);
  auto constant = outerWeights ? constants.find(outerWeights) : constants.end();
  if (constant == constants.end() ||
      runtime::cpu::detail::constantHasSpecialValues(*constant->second))
    return std::nullopt;
  return precisionFor(consumer).int8;
}

bool CpuPlanEmitter::readsQuantizedInput(
    Operation *contraction, Value input,
    ContractionPrecision &precision) const {
  auto matmul = dyn_cast<MatmulOp>(contraction);
  if (!precision.int8 || !input || (matmul && matmul.getTransposeA()))
    return false;
  auto it = quantizedValues.find(input);
  if (it == quantizedValues.end() ||
      !sameQuantization(it->second, *precision.int8))
    return false;
  precision.int8->quantizedInput = true;
  return true;
}

ContractionPrecision
CpuPlanEmitter::precisionFor(Operation *contraction) const {
  ContractionPrecision precision;
  precision.bf16 = options.precision == Precision::BF16;
  // A QDQ model's quantized contraction (tgc-absorb-fake-quant): int8 with
  // the model's own scale and zero point, under every policy.
  if (std::optional<InputQuantization> q = getInputQuantization(contraction)) {
    runtime::cpu::Int8Quantization int8;
    int8.inputScale = q->scale;
    int8.unsignedInput = q->isUnsigned;
    int8.zeroPoint = q->zeroPoint;
    precision.int8 = int8;
    precision.bf16 = false;
    return precision;
  }
  if (options.precision == Precision::Int8 && options.calibration) {
    auto key = calibrationKeys.find(contraction);
    if (key != calibrationKeys.end())
      if (const codegen::CalibrationEntry *entry =
              options.calibration->find(key->second))
        precision.int8 =
            int8QuantizationOf(*entry, options.calibration->asymmetric);
  }
  return precision;
}

llvm::Error CpuPlanEmitter::finish() {
  runtime::removeDeadSteps(exe);
  if (options.interOp)
    assignStepLevels();
  if (auto status = runtime::planMemory(exe); !status.ok())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   std::string(status.message()));
  if (auto status = exe.verify(); !status.ok())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: invalid plan: " +
                                       std::string(status.message()));
  releaseUnreadConstants();
  return llvm::Error::success();
}

/// The plan keeps the file-backed constants its kernels read when it runs
/// (pinned: resident for its life) and lets the bytes of the others go:
/// their kernels prepacked them (the plan then holds the weights once, in
/// the kernels' layout). Their copies stay mapped (the anchor: the
/// address is PrepackCache's key, and another compile pins the same copy
/// and reads the bytes back from the file) but read as zeros, like a loaded
/// plan's elided constants; whether they held only finite values is kept
/// for a saved plan.
void CpuPlanEmitter::releaseUnreadConstants() {
  std::vector<bool> read = runtime::constantsRead(exe);
  for (size_t i = 0; i < constantHolds.size() && i < exe.constants.size();
       ++i) {
    ConstantBytes &hold = constantHolds[i];
    if (!hold.anchor)
      continue;
    exe.constantStorage.push_back(hold.anchor);
    if (!hold.pin)
      continue; // let go already
    if (read[i])
      exe.constantStorage.push_back(std::move(hold.pin));
    else
      releaseConstant(i);
  }
  constantHolds.clear();
}

/// Lets go of held constant `i`'s bytes (no step reads them when the plan
/// runs), keeping whether they were all finite.
void CpuPlanEmitter::releaseConstant(size_t i) {
  if (exe.releasedFinite.size() < exe.constants.size())
    exe.releasedFinite.resize(exe.constants.size());
  exe.releasedFinite[i] = !runtime::cpu::detail::hasSpecialValues(
      exe.constants[i], runtime::cpu::detail::NaNGuardScan::NonFinite,
      runtime::resolveThreadCount(options.numThreads));
  constantHolds[i].pin.reset();
}

/// Whether `op` only aliases its operand's bytes (no step reads them for
/// it): a lazy transpose, a shape view.
static bool aliasesConstant(Operation *op) {
  auto transpose = dyn_cast<TransposeOp>(op);
  return (transpose && transpose.getLazy()) || isShapeView(op) ||
         isa<tensor::CastOp>(op);
}

/// Notes the ops of the function's block that read held constant `index`
/// (`constant`'s): its users, through lazy transposes and shape views. A
/// reader inside a region (a control-flow body) keeps it held to the end.
void CpuPlanEmitter::trackReaders(ConstantOp constant, size_t index) {
  if (pendingReaders.size() <= index)
    pendingReaders.resize(index + 1);
  Block *body = &specialized.getBody().front();
  SmallVector<Value> values{constant.getResult()};
  llvm::SmallPtrSet<Operation *, 4> readers;
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user->getBlock() != body)
        return; // read where this plan does not track: held to the end
      if (aliasesConstant(user))
        values.append(user->result_begin(), user->result_end());
      readers.insert(user);
    }
  }
  pendingReaders[index] = std::move(readers);
  for (Operation *reader : pendingReaders[index])
    constantsReadBy[reader].push_back(index);
}

/// runtime::constantsRead of the steps emitted so far, without the lazy
/// filter transposes whose result no step reads (dead: every reader of such
/// a transpose is a convolution reading the OIHW constant, emitted before
/// the constant is let go).
std::vector<bool> CpuPlanEmitter::constantsReadSoFar() const {
  llvm::DenseSet<int64_t> inputs;
  for (const runtime::Step &step : exe.steps)
    for (int64_t in : step.inputs)
      for (int64_t id = in, hops = 0;
           id >= 0 && hops <= static_cast<int64_t>(exe.values.size()); ++hops) {
        inputs.insert(id);
        const runtime::ValueStorage &storage =
            exe.values[static_cast<size_t>(id)].storage;
        if (storage.kind != runtime::ValueStorage::Kind::View)
          break;
        id = storage.index;
      }
  return runtime::constantsRead(exe, [&](size_t i) {
    return lazyFilterSteps.contains(i) &&
           llvm::none_of(exe.steps[i].outputs,
                         [&](int64_t out) { return inputs.contains(out); });
  });
}

/// After `op` is emitted: the held constants whose last reader it was are
/// let go where no step reads them when the plan runs (their kernels
/// prepacked them).
void CpuPlanEmitter::releaseConstantsReadBy(Operation *op) {
  auto it = constantsReadBy.find(op);
  if (it == constantsReadBy.end())
    return;
  // A reader that only aliases the constant (a lazy transpose, a view)
  // leaves its bytes resident for the readers behind it.
  bool alias = aliasesConstant(op);
  std::optional<std::vector<bool>> read;
  for (size_t index : it->second) {
    pendingReaders[index].erase(op);
    ConstantBytes &hold = constantHolds[index];
    if (!hold.pin || (alias && !pendingReaders[index].empty()))
      continue;
    if (!read)
      read = constantsReadSoFar();
    if ((*read)[index])
      continue; // a step reads it when the plan runs: held to the end
    if (pendingReaders[index].empty())
      releaseConstant(index);
    else
      hold.pin.reset(); // read back before its next reader (shared weights)
  }
  constantsReadBy.erase(it);
}

/// Before `op` is emitted: the file-backed constants it reads are resident
/// (read back from the file where an earlier reader let them go).
llvm::Error CpuPlanEmitter::pinConstantsReadBy(Operation *op) {
  auto it = constantsReadBy.find(op);
  if (it == constantsReadBy.end())
    return llvm::Error::success();
  for (size_t index : it->second) {
    ConstantBytes &hold = constantHolds[index];
    if (hold.pin || !hold.fileBacked)
      continue;
    std::string error;
    hold.pin = pinConstantBytes(hold, &error);
    if (!hold.pin)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          op->getName().getStringRef().str() + " at " +
              locationString(op->getLoc()) + ": " +
              (error.empty() ? "a constant's data cannot be read" : error));
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<Precision> cpu::resolveCpuPrecision(Precision requested) {
  const runtime::cpu::CpuIsa &isa = runtime::cpu::cpuIsa();
  switch (requested) {
  case Precision::Default:
  case Precision::F32:
    return Precision::F32;
  case Precision::Auto:
    return isa.bf16 ? Precision::BF16 : Precision::F32;
  case Precision::BF16:
    if (isa.bf16)
      return Precision::BF16;
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "precision bf16 needs a CPU with native bfloat16 (AVX512_BF16 or "
        "AMX); this one runs " +
            isa.name +
            " (oneDNN would emulate bf16, slower than f32): use f32, or auto "
            "to take bf16 only where it is native");
  case Precision::Int8:
    return Precision::Int8;
  case Precision::F16:
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "precision f16 runs on the cuda backend (half tensor cores); the cpu "
        "backend multiplies in f32, bf16 (native on this CPU: " +
            std::string(isa.bf16 ? "yes" : "no") +
            ") or int8: use one of those, or auto");
  }
  return Precision::F32;
}

llvm::Expected<cpu::CompileOptions>
cpu::resolveCompileOptions(const CompileOptions &requested) {
  auto precision = resolveCpuPrecision(requested.precision);
  if (!precision)
    return precision.takeError();
  CompileOptions options = requested;
  options.precision = *precision;
  if (options.precision == Precision::Int8 && !options.calibration)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "precision int8 needs a calibration table: calibrate on sample "
        "inputs first (tgc-run --precision=int8 --calibration-data=DIR, or "
        "cpu::calibrate), or load one (--calibration-table=FILE)");
  return options;
}

llvm::Expected<cpu::CompiledFunction>
cpu::compile(func::FuncOp func,
             const std::vector<std::vector<int64_t>> &inputShapes,
             const CompileOptions &requested) {
  auto resolved = resolveCompileOptions(requested);
  if (!resolved)
    return resolved.takeError();
  const CompileOptions &options = *resolved;
  auto module = specialize(func, inputShapes, options.optimize, options.fuse,
                           options.enableOneDnn);
  if (!module)
    return module.takeError();
  auto specialized = (*module)->lookupSymbol<func::FuncOp>(func.getName());
  runtime::setNumThreads(runtime::resolveThreadCount(options.numThreads));

  // Strict determinism: every kernel made here is thread-invariant.
  runtime::cpu::ThreadInvariantKernels threadInvariant(options.determinism ==
                                                       Determinism::Strict);
  if (options.precision == Precision::Int8 && options.calibration &&
      !options.calibration->entries.empty()) {
    // A table made for another model (or function) would leave every
    // contraction f32 without a word: say so.
    auto keys = codegen::contractionKeys(specialized);
    if (!keys.empty() && llvm::none_of(keys, [&](const auto &key) {
          return options.calibration->find(key.second) != nullptr;
        }))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the calibration table matches none of the " +
              std::to_string(keys.size()) + " contractions of @" +
              func.getName().str() + " (its first key is '" +
              options.calibration->entries.begin()->first +
              "', the function's first '" + keys.front().second +
              "'): it was made for another model or function");
  }
  // The pipeline's scratch is freed: its pages go before the weights are
  // prepacked beside them.
  runtime::releaseFreedHeapMemory();
  // The plans of this context's functions share their prepacked weights
  // (the constants are the context's): one copy for every shape; and their
  // activation arenas: one for the plans that do not run at once.
  TgcDialect *dialect = func->getContext()->getOrLoadDialect<TgcDialect>();
  runtime::cpu::SharedPrepacking sharedPrepacking(
      std::static_pointer_cast<runtime::cpu::PrepackCache>(
          dialect->backendState("cpu.prepacked-weights", [] {
            return std::make_shared<runtime::cpu::PrepackCache>();
          })));
  CpuPlanEmitter emitter(specialized, options);
  auto executable = emitter.emit();
  if (!executable)
    return executable.takeError();
  (*executable)->arenaPool =
      std::static_pointer_cast<runtime::ArenaPool>(dialect->backendState(
          "cpu.arenas", [] { return std::make_shared<runtime::ArenaPool>(); }));
  return CompiledFunction{std::move(*executable), std::move(*module)};
}
