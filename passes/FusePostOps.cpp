//===- FusePostOps.cpp - contraction + post-op fusion ---------------------===//
//
// tgc-fuse-post-ops: grows a `tgc.fusion <contraction>` around each conv2d or
// matmul and the chain of consumers the post-op table (below) recognizes.
// The table is data: each entry lists the ops of one spelling of a post-op
// and what it maps to; the matcher and the CPU backend's reader share it.
//
//===----------------------------------------------------------------------===//

#include "passes/PostOpFusion.h"

#include "dialects/FusionBuilder.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

namespace tgc {
#define GEN_PASS_DEF_TGCFUSEPOSTOPS
#include "passes/Passes.h.inc"
} // namespace tgc

using namespace mlir;
using namespace tgc;

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {

constexpr PatternRef in() { return {PatternRef::Input}; }
constexpr PatternRef node(int8_t n) { return {PatternRef::Node, n}; }
constexpr PatternRef cst(double v) { return {PatternRef::Const, 0, v}; }
constexpr PatternRef scalar() { return {PatternRef::Scalar}; }
constexpr PatternRef channel() { return {PatternRef::Channel}; }
constexpr PatternRef full() { return {PatternRef::Full}; }
constexpr PatternRef none() { return {PatternRef::None}; }

constexpr ParamRef fixed(double v) { return {ParamRef::Fixed, 0, "", v}; }
constexpr ParamRef attr(int8_t n, llvm::StringLiteral name) {
  return {ParamRef::Attr, n, name};
}
constexpr ParamRef captured(int8_t n) { return {ParamRef::Captured, n}; }
constexpr ParamRef reciprocal(int8_t n) {
  return {ParamRef::CapturedReciprocal, n};
}
constexpr ParamRef negated(int8_t n) { return {ParamRef::CapturedNegated, n}; }

bool isGeluNone(Operation *op) {
  return cast<GeluOp>(op).getApproximate() == GeluApproximation::none;
}
bool isGeluTanh(Operation *op) {
  return cast<GeluOp>(op).getApproximate() == GeluApproximation::tanh;
}
bool isClampRange(Operation *op, double lo, double hi) {
  auto clamp = cast<ClampOp>(op);
  return clamp.getMin().convertToDouble() == lo &&
         clamp.getMax().convertToDouble() == hi;
}
bool isClamp01(Operation *op) { return isClampRange(op, 0, 1); }
bool isClamp06(Operation *op) { return isClampRange(op, 0, 6); }

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrtHalf = 0.7071067811865476;
constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kGeluKappa = 0.044715;

// Spelled-out GELU (tanh form) as PyTorch exports it to ONNX:
// 0.5 * (x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * (x * (x * x)))))).
constexpr PatternNode kGeluTanhCube[] = {
    {"tgc.mul", in(), in()},                 // 0: x * x
    {"tgc.mul", in(), node(0)},              // 1: x^3
    {"tgc.mul", node(1), cst(kGeluKappa)},   // 2
    {"tgc.add", in(), node(2)},              // 3
    {"tgc.mul", node(3), cst(kSqrt2OverPi)}, // 4
    {"tgc.tanh", node(4), none()},           // 5
    {"tgc.add", node(5), cst(1)},            // 6
    {"tgc.mul", in(), node(6)},              // 7
    {"tgc.mul", node(7), cst(0.5)},          // 8
};
// The same with x^3 as pow(x, 3).
constexpr PatternNode kGeluTanhPow[] = {
    {"tgc.pow", in(), cst(3)},     {"tgc.mul", node(0), cst(kGeluKappa)},
    {"tgc.add", in(), node(1)},    {"tgc.mul", node(2), cst(kSqrt2OverPi)},
    {"tgc.tanh", node(3), none()}, {"tgc.add", node(4), cst(1)},
    {"tgc.mul", in(), node(5)},    {"tgc.mul", node(6), cst(0.5)},
};
// (0.5 * x) * (1 + tanh(...)), the order of Python's `0.5 * x * (...)`.
constexpr PatternNode kGeluTanhCubeHalfFirst[] = {
    {"tgc.mul", in(), in()},
    {"tgc.mul", in(), node(0)},
    {"tgc.mul", node(1), cst(kGeluKappa)},
    {"tgc.add", in(), node(2)},
    {"tgc.mul", node(3), cst(kSqrt2OverPi)},
    {"tgc.tanh", node(4), none()},
    {"tgc.add", node(5), cst(1)},
    {"tgc.mul", in(), cst(0.5)},
    {"tgc.mul", node(7), node(6)},
};
constexpr PatternNode kGeluTanhPowHalfFirst[] = {
    {"tgc.pow", in(), cst(3)},     {"tgc.mul", node(0), cst(kGeluKappa)},
    {"tgc.add", in(), node(1)},    {"tgc.mul", node(2), cst(kSqrt2OverPi)},
    {"tgc.tanh", node(3), none()}, {"tgc.add", node(4), cst(1)},
    {"tgc.mul", in(), cst(0.5)},   {"tgc.mul", node(6), node(5)},
};
// Spelled-out GELU (erf form) as PyTorch exports it to ONNX:
// (x * (1 + erf(x / sqrt(2)))) * 0.5.
constexpr PatternNode kGeluErfDiv[] = {
    {"tgc.div", in(), cst(kSqrt2)}, {"tgc.erf", node(0), none()},
    {"tgc.add", node(1), cst(1)},   {"tgc.mul", in(), node(2)},
    {"tgc.mul", node(3), cst(0.5)},
};
constexpr PatternNode kGeluErfMul[] = {
    {"tgc.mul", in(), cst(kSqrtHalf)}, {"tgc.erf", node(0), none()},
    {"tgc.add", node(1), cst(1)},      {"tgc.mul", in(), node(2)},
    {"tgc.mul", node(3), cst(0.5)},
};
constexpr PatternNode kGeluErfDivHalfFirst[] = {
    {"tgc.div", in(), cst(kSqrt2)}, {"tgc.erf", node(0), none()},
    {"tgc.add", node(1), cst(1)},   {"tgc.mul", in(), cst(0.5)},
    {"tgc.mul", node(3), node(2)},
};
constexpr PatternNode kGeluErfMulHalfFirst[] = {
    {"tgc.mul", in(), cst(kSqrtHalf)}, {"tgc.erf", node(0), none()},
    {"tgc.add", node(1), cst(1)},      {"tgc.mul", in(), cst(0.5)},
    {"tgc.mul", node(3), node(2)},
};
// x * tanh(log(1 + e^x)) (the ONNX importer's Mish).
constexpr PatternNode kMish[] = {
    {"tgc.exp", in(), none()},    {"tgc.add", node(0), cst(1)},
    {"tgc.log", node(1), none()}, {"tgc.tanh", node(2), none()},
    {"tgc.mul", in(), node(3)},
};
// x * clamp(x / 6 + 0.5, 0, 1) (ONNX HardSwish as imported).
constexpr PatternNode kHardSwishSigmoid[] = {
    {"tgc.mul", in(), cst(1.0 / 6.0)},
    {"tgc.add", node(0), cst(0.5)},
    {"tgc.clamp", node(1), none(), isClamp01},
    {"tgc.mul", in(), node(2)},
};
// x * relu6(x + 3) / 6.
constexpr PatternNode kHardSwishDiv[] = {
    {"tgc.add", in(), cst(3)},
    {"tgc.clamp", node(0), none(), isClamp06},
    {"tgc.mul", in(), node(1)},
    {"tgc.div", node(2), cst(6)},
};
constexpr PatternNode kHardSwishMul[] = {
    {"tgc.add", in(), cst(3)},
    {"tgc.clamp", node(0), none(), isClamp06},
    {"tgc.mul", in(), node(1)},
    {"tgc.mul", node(2), cst(1.0 / 6.0)},
};
// x * (relu6(x + 3) / 6).
constexpr PatternNode kHardSwishInner[] = {
    {"tgc.add", in(), cst(3)},
    {"tgc.clamp", node(0), none(), isClamp06},
    {"tgc.div", node(1), cst(6)},
    {"tgc.mul", in(), node(2)},
};
constexpr PatternNode kSwish[] = {
    {"tgc.sigmoid", in(), none()},
    {"tgc.mul", in(), node(0)},
};

constexpr PatternNode kRelu[] = {{"tgc.relu", in(), none()}};
constexpr PatternNode kClamp[] = {{"tgc.clamp", in(), none()}};
constexpr PatternNode kLeakyRelu[] = {{"tgc.leaky_relu", in(), none()}};
constexpr PatternNode kElu[] = {{"tgc.elu", in(), none()}};
constexpr PatternNode kGeluErf[] = {{"tgc.gelu", in(), none(), isGeluNone}};
constexpr PatternNode kGeluTanh[] = {{"tgc.gelu", in(), none(), isGeluTanh}};
constexpr PatternNode kSigmoid[] = {{"tgc.sigmoid", in(), none()}};
constexpr PatternNode kTanh[] = {{"tgc.tanh", in(), none()}};

constexpr PatternNode kScaleMul[] = {{"tgc.mul", in(), scalar()}};
constexpr PatternNode kScaleDiv[] = {{"tgc.div", in(), scalar()}};
constexpr PatternNode kShiftAdd[] = {{"tgc.add", in(), scalar()}};
constexpr PatternNode kShiftSub[] = {{"tgc.sub", in(), scalar()}};

constexpr PatternNode kBiasAdd[] = {{"tgc.add", in(), channel()}};
constexpr PatternNode kResidualAdd[] = {{"tgc.add", in(), full()}};
constexpr PatternNode kChannelSub[] = {{"tgc.sub", in(), channel()}};
constexpr PatternNode kChannelMul[] = {{"tgc.mul", in(), channel()}};
constexpr PatternNode kChannelDiv[] = {{"tgc.div", in(), channel()}};

using K = PostOpKind;

const PostOpPattern kPostOpTable[] = {
    // Activations spelled out in primitive ops (longest first).
    {"gelu_tanh", "0.5 * (x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x*x*x))))",
     "eltwise_gelu_tanh", K::GeluTanh, kGeluTanhCube},
    {"gelu_tanh", "(0.5 * x) * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x*x*x)))",
     "eltwise_gelu_tanh", K::GeluTanh, kGeluTanhCubeHalfFirst},
    {"gelu_tanh",
     "0.5 * (x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3)))))",
     "eltwise_gelu_tanh", K::GeluTanh, kGeluTanhPow},
    {"gelu_tanh",
     "(0.5 * x) * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3))))",
     "eltwise_gelu_tanh", K::GeluTanh, kGeluTanhPowHalfFirst},
    {"gelu_erf", "(x * (1 + erf(x / sqrt(2)))) * 0.5", "eltwise_gelu_erf",
     K::GeluErf, kGeluErfDiv},
    {"gelu_erf", "(x * (1 + erf(x * (1/sqrt(2))))) * 0.5", "eltwise_gelu_erf",
     K::GeluErf, kGeluErfMul},
    {"gelu_erf", "(0.5 * x) * (1 + erf(x / sqrt(2)))", "eltwise_gelu_erf",
     K::GeluErf, kGeluErfDivHalfFirst},
    {"gelu_erf", "(0.5 * x) * (1 + erf(x * (1/sqrt(2))))", "eltwise_gelu_erf",
     K::GeluErf, kGeluErfMulHalfFirst},
    {"mish", "x * tanh(log(1 + exp(x)))", "eltwise_mish", K::Mish, kMish},
    {"hardswish", "x * clamp(x * (1/6) + 0.5, 0, 1)", "eltwise_hardswish",
     K::HardSwish, kHardSwishSigmoid},
    {"hardswish", "x * clamp(x + 3, 0, 6) / 6", "eltwise_hardswish",
     K::HardSwish, kHardSwishDiv},
    {"hardswish", "x * clamp(x + 3, 0, 6) * (1/6)", "eltwise_hardswish",
     K::HardSwish, kHardSwishMul},
    {"hardswish", "x * (clamp(x + 3, 0, 6) / 6)", "eltwise_hardswish",
     K::HardSwish, kHardSwishInner},
    {"swish", "x * sigmoid(x)", "eltwise_swish", K::Swish, kSwish},
    // Activation ops.
    {"relu", "tgc.relu", "eltwise_relu", K::Relu, kRelu},
    {"clamp", "tgc.clamp (relu6 = clamp 0, 6)", "eltwise_clip", K::Clamp,
     kClamp, attr(0, "min"), attr(0, "max")},
    {"leaky_relu", "tgc.leaky_relu", "eltwise_relu (alpha)", K::LeakyRelu,
     kLeakyRelu, attr(0, "alpha")},
    {"elu", "tgc.elu", "eltwise_elu", K::Elu, kElu, attr(0, "alpha")},
    {"gelu_erf", "tgc.gelu", "eltwise_gelu_erf", K::GeluErf, kGeluErf},
    {"gelu_tanh", "tgc.gelu <tanh>", "eltwise_gelu_tanh", K::GeluTanh,
     kGeluTanh},
    {"sigmoid", "tgc.sigmoid", "eltwise_logistic", K::Sigmoid, kSigmoid},
    {"tanh", "tgc.tanh", "eltwise_tanh", K::Tanh, kTanh},
    // Scalar constants: linear.
    {"scale", "x * c", "eltwise_linear", K::Linear, kScaleMul, captured(0),
     fixed(0)},
    {"scale", "x / c", "eltwise_linear", K::Linear, kScaleDiv, reciprocal(0),
     fixed(0)},
    {"shift", "x + c", "eltwise_linear", K::Linear, kShiftAdd, fixed(1),
     captured(0)},
    {"shift", "x - c", "eltwise_linear", K::Linear, kShiftSub, fixed(1),
     negated(0)},
    // Extra operands: binary post-ops (a per-channel add right after the
    // contraction becomes its bias).
    {"bias_add", "x + b (b per output channel)", "bias / binary_add", K::Add,
     kBiasAdd},
    {"residual_add", "x + r (r of x's shape)", "binary_add", K::Add,
     kResidualAdd},
    {"channel_sub", "x - b (b per output channel)", "binary_sub", K::Sub,
     kChannelSub},
    {"channel_mul", "x * b (b per output channel)", "binary_mul", K::Mul,
     kChannelMul},
    {"channel_div", "x / b (b per output channel)", "binary_div", K::Div,
     kChannelDiv},
};

} // namespace

ArrayRef<PostOpPattern> tgc::getPostOpTable() { return kPostOpTable; }

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

bool tgc::isFusableContraction(Operation *op) {
  if (!isa<Conv2DOp, MatmulOp>(op))
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return type && isa<FloatType>(type.getElementType());
}

int64_t tgc::contractionChannelDim(Operation *contraction) {
  if (auto conv = dyn_cast<Conv2DOp>(contraction))
    return conv.getLayout() == ir::Layout::NHWC ? 3 : 1;
  return cast<RankedTensorType>(contraction->getResult(0).getType()).getRank() -
         1;
}

namespace {

/// The value of a splat float constant.
std::optional<double> splatValue(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// Whether a constant of `type` rounded from `want` reads as `got`.
bool closeTo(double got, double want, Type elementType) {
  double tolerance = elementType.getIntOrFloatBitWidth() >= 32 ? 1e-6 : 1e-2;
  return std::fabs(got - want) <= tolerance * std::max(1.0, std::fabs(want));
}

/// Whether `operand` broadcasts per output channel onto `type` (the
/// contraction's result type): static, no larger rank, every dim 1 except
/// the one aligned with the channel dim, which may also be its size.
bool isPerChannel(Type operand, RankedTensorType type, int64_t channelDim) {
  auto t = dyn_cast<RankedTensorType>(operand);
  if (!t || !t.hasStaticShape() || t.getRank() > type.getRank() ||
      t.getElementType() != type.getElementType())
    return false;
  int64_t offset = type.getRank() - t.getRank();
  for (int64_t d = 0; d < t.getRank(); ++d) {
    int64_t size = t.getDimSize(d);
    if (size == 1)
      continue;
    if (d + offset != channelDim || size != type.getDimSize(channelDim))
      return false;
  }
  return true;
}

/// Whether `value` is computed from `contraction`'s result (only ops after
/// the contraction in its block can be).
bool dependsOn(Value value, Operation *contraction) {
  Block *block = contraction->getBlock();
  SmallVector<Value> work{value};
  llvm::DenseSet<Operation *> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (def == contraction)
      return true;
    if (!def || def->getBlock() != block ||
        !contraction->isBeforeInBlock(def) || !seen.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// The state of matching one entry.
struct Binding {
  SmallVector<Operation *, 12> nodes;
  SmallVector<double, 12> scalars;
  Value operand;
  OperandClass operandClass = OperandClass::None;
};

class EntryMatcher {
public:
  EntryMatcher(const PostOpPattern &entry, Value input, Operation *contraction)
      : entry(entry), input(input), contraction(contraction),
        type(cast<RankedTensorType>(input.getType())) {}

  std::optional<MatchedPostOp> match() {
    Binding binding;
    binding.nodes.assign(entry.nodes.size(), nullptr);
    binding.scalars.assign(entry.nodes.size(), 0);
    if (!matchNode(0, binding))
      return std::nullopt;
    return result;
  }

private:
  bool isBound(const Binding &b, Operation *op) const {
    return llvm::is_contained(b.nodes, op);
  }

  bool matchRef(const PatternRef &ref, Value value, size_t at,
                Binding &b) const {
    Type elementType = type.getElementType();
    switch (ref.kind) {
    case PatternRef::None:
      return false;
    case PatternRef::Input:
      return value == input;
    case PatternRef::Node:
      return b.nodes[ref.node] && value == b.nodes[ref.node]->getResult(0);
    case PatternRef::Const: {
      auto v = splatValue(value);
      return v && closeTo(*v, ref.value, elementType);
    }
    case PatternRef::Scalar: {
      auto v = splatValue(value);
      if (!v)
        return false;
      b.scalars[at] = *v;
      return true;
    }
    case PatternRef::Channel:
    case PatternRef::Full: {
      if (value == input || llvm::any_of(b.nodes, [&](Operation *op) {
            return op && op->getResult(0) == value;
          }))
        return false;
      bool fits = ref.kind == PatternRef::Channel
                      ? isPerChannel(value.getType(), type,
                                     contractionChannelDim(contraction))
                      : (value.getType() == type && type.hasStaticShape());
      if (!fits || dependsOn(value, contraction))
        return false;
      b.operand = value;
      b.operandClass = ref.kind == PatternRef::Channel
                           ? OperandClass::PerChannel
                           : OperandClass::Full;
      return true;
    }
    }
    return false;
  }

  /// Binds node `at` (and, recursively, the rest) to an op.
  bool matchNode(size_t at, Binding &b) {
    if (at == entry.nodes.size())
      return finish(b);
    const PatternNode &pattern = entry.nodes[at];
    // Candidates are users of the first operand that is already bound.
    const PatternRef &anchor = (pattern.lhs.kind == PatternRef::Input ||
                                pattern.lhs.kind == PatternRef::Node)
                                   ? pattern.lhs
                                   : pattern.rhs;
    Value from = anchor.kind == PatternRef::Input
                     ? input
                     : b.nodes[anchor.node]->getResult(0);
    unsigned arity = pattern.rhs.kind == PatternRef::None ? 1 : 2;
    SmallVector<Operation *> candidates;
    for (Operation *user : from.getUsers())
      if (!llvm::is_contained(candidates, user))
        candidates.push_back(user);
    for (Operation *op : candidates) {
      if (op->getName().getStringRef() != pattern.op ||
          op->getNumOperands() != arity || op->getNumResults() != 1 ||
          op->getResult(0).getType() != type || isBound(b, op) ||
          op->getBlock() != contraction->getBlock() ||
          (pattern.where && !pattern.where(op)))
        continue;
      SmallVector<std::pair<Value, Value>, 2> orders;
      if (arity == 1) {
        orders.push_back({op->getOperand(0), Value()});
      } else {
        orders.push_back({op->getOperand(0), op->getOperand(1)});
        if (op->hasTrait<mlir::OpTrait::IsCommutative>())
          orders.push_back({op->getOperand(1), op->getOperand(0)});
      }
      for (auto [lhs, rhs] : orders) {
        Binding next = b;
        next.nodes[at] = op;
        if (!matchRef(pattern.lhs, lhs, at, next))
          continue;
        if (arity == 2 && !matchRef(pattern.rhs, rhs, at, next))
          continue;
        if (matchNode(at + 1, next))
          return true;
      }
    }
    return false;
  }

  /// Checks that nothing computed escapes, then records the match.
  bool finish(const Binding &b) {
    auto inside = [&](Value v) {
      return llvm::all_of(v.getUsers(),
                          [&](Operation *user) { return isBound(b, user); });
    };
    if (!inside(input))
      return false;
    for (Operation *op : ArrayRef(b.nodes).drop_back())
      if (!inside(op->getResult(0)))
        return false;
    MatchedPostOp m;
    m.entry = &entry;
    m.kind = entry.kind;
    m.alpha = param(entry.alpha, b);
    m.beta = param(entry.beta, b);
    if (std::isnan(m.alpha) || std::isnan(m.beta))
      return false;
    m.operand = b.operand;
    m.operandClass = b.operandClass;
    m.ops.assign(b.nodes.begin(), b.nodes.end());
    llvm::sort(m.ops, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    // The entry's result must come last.
    if (m.ops.back() != b.nodes.back())
      return false;
    result = std::move(m);
    return true;
  }

  double param(const ParamRef &ref, const Binding &b) const {
    switch (ref.kind) {
    case ParamRef::Fixed:
      return ref.value;
    case ParamRef::Attr: {
      auto a = b.nodes[ref.node]->getAttrOfType<FloatAttr>(ref.attr);
      if (a)
        return a.getValueAsDouble();
      // A default-valued attribute that was not written.
      if (auto o = dyn_cast<LeakyReluOp>(b.nodes[ref.node]))
        return o.getAlpha().convertToDouble();
      if (auto o = dyn_cast<EluOp>(b.nodes[ref.node]))
        return o.getAlpha().convertToDouble();
      return std::nan("");
    }
    case ParamRef::Captured:
      return b.scalars[ref.node];
    case ParamRef::CapturedReciprocal:
      return 1.0 / b.scalars[ref.node];
    case ParamRef::CapturedNegated:
      return -b.scalars[ref.node];
    }
    return std::nan("");
  }

  const PostOpPattern &entry;
  Value input;
  Operation *contraction;
  RankedTensorType type;
  std::optional<MatchedPostOp> result;
};

} // namespace

PostOpChain tgc::matchPostOpChain(Operation *contraction, unsigned maxPostOps) {
  PostOpChain chain;
  chain.contraction = contraction;
  if (!isFusableContraction(contraction))
    return chain;
  while (chain.postOps.size() < maxPostOps) {
    Value current = chain.result();
    std::optional<MatchedPostOp> found;
    for (const PostOpPattern &entry : kPostOpTable)
      if ((found = EntryMatcher(entry, current, contraction).match()))
        break;
    if (!found)
      break;
    chain.postOps.push_back(std::move(*found));
  }
  return chain;
}

std::optional<PostOpChain> tgc::analyzeContractionFusion(FusionOp fusion) {
  if (fusion.getKind() != FusionKind::contraction ||
      fusion.getNumResults() != 1)
    return std::nullopt;
  Block &block = fusion.getBlock();
  Operation *contraction = nullptr;
  for (Operation &op : block.without_terminator()) {
    if (isa<ConstantOp>(op))
      continue;
    contraction = &op;
    break;
  }
  if (!contraction || !isFusableContraction(contraction))
    return std::nullopt;
  for (Value operand : contraction->getOperands()) {
    auto arg = dyn_cast<BlockArgument>(operand);
    if (!arg || arg.getOwner() != &block)
      return std::nullopt;
  }
  PostOpChain chain = matchPostOpChain(contraction);
  size_t covered = 1;
  for (const MatchedPostOp &p : chain.postOps) {
    covered += p.ops.size();
    auto arg = dyn_cast_or_null<BlockArgument>(p.operand);
    if (p.operand && (!arg || arg.getOwner() != &block))
      return std::nullopt;
  }
  for (Operation &op : block.without_terminator())
    if (isa<ConstantOp>(op))
      ++covered;
  auto yield = cast<YieldOp>(block.getTerminator());
  if (covered + 1 != block.getOperations().size() ||
      yield.getValues().size() != 1 || yield.getValues()[0] != chain.result())
    return std::nullopt;
  return chain;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

namespace {

/// `add(r, reshape(v))` with `v` the end of `contraction`'s post-op chain
/// used only by the reshape, and `r` of the reshape's type not computed
/// from the contraction, becomes `reshape(add(reshape(r), v))` (reshapes are
/// views): the residual add joins the chain. Returns whether it rewrote.
bool sinkReshapeBelowResidualAdd(Operation *contraction, Value v,
                                 PatternRewriter &rewriter) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || !v.hasOneUse())
    return false;
  auto reshape = dyn_cast<ReshapeOp>(*v.getUsers().begin());
  if (!reshape || !reshape.getResult().hasOneUse())
    return false;
  auto add = dyn_cast<AddOp>(*reshape.getResult().getUsers().begin());
  if (!add || add.getType() != reshape.getType() ||
      add->getBlock() != contraction->getBlock())
    return false;
  bool lhs = add.getLhs() == reshape.getResult();
  Value residual = lhs ? add.getRhs() : add.getLhs();
  if (residual == reshape.getResult() ||
      residual.getType() != reshape.getType() ||
      dependsOn(residual, contraction))
    return false;
  rewriter.setInsertionPoint(add);
  Value viewed = ReshapeOp::create(rewriter, residual.getLoc(), type, residual);
  Value sum = lhs ? AddOp::create(rewriter, add.getLoc(), type, v, viewed)
                  : AddOp::create(rewriter, add.getLoc(), type, viewed, v);
  rewriter.replaceOpWithNewOp<ReshapeOp>(add, add.getType(), sum);
  rewriter.eraseOp(reshape);
  return true;
}

/// contraction + post-op chain => tgc.fusion <contraction>. Kernel operands
/// (the contraction's, then each binary post-op's extra operand) become the
/// fusion's inputs; splat constants are cloned into the body.
struct FusePostOps : RewritePattern {
  explicit FusePostOps(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isFusableContraction(op) || isa<FusionOp>(op->getParentOp()))
      return failure();
    PostOpChain chain = matchPostOpChain(op);
    bool changed = false;
    while (chain.postOps.size() < kMaxFusedPostOps &&
           sinkReshapeBelowResidualAdd(op, chain.result(), rewriter)) {
      changed = true;
      chain = matchPostOpChain(op);
    }
    if (chain.postOps.empty())
      return changed ? success()
                     : rewriter.notifyMatchFailure(
                           op, "no post-op consumes the result");

    SmallVector<Operation *> ops;
    SmallVector<Value> inputs(op->getOperands());
    for (const MatchedPostOp &p : chain.postOps) {
      llvm::append_range(ops, p.ops);
      if (p.operand)
        inputs.push_back(p.operand);
    }
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    Operation *last = ops.back();
    Value result = chain.result();
    if (last->getResult(0) != result)
      return rewriter.notifyMatchFailure(op, "the chain does not end last");

    SmallVector<Location> locs{op->getLoc()};
    for (Operation *o : ops)
      locs.push_back(o->getLoc());
    rewriter.setInsertionPoint(last);
    SmallVector<Operation *> fused{op};
    fused.append(ops.begin(), ops.end());
    auto fusion = buildFusion(rewriter, rewriter.getFusedLoc(locs),
                              FusionKind::contraction, inputs, fused, result);
    rewriter.replaceAllUsesWith(result, fusion.getResult(0));
    for (Operation *o : llvm::reverse(ops))
      rewriter.eraseOp(o);
    rewriter.eraseOp(op);
    return success();
  }
};

struct TgcFusePostOpsPass : tgc::impl::TgcFusePostOpsBase<TgcFusePostOpsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFusePostOpsPatterns(patterns);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace

void tgc::populateFusePostOpsPatterns(RewritePatternSet &patterns) {
  patterns.add<FusePostOps>(patterns.getContext());
}
