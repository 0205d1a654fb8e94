//===- Ops.cpp - the tgc op set on symbolic tensors -----------------------===//
//
// One function per tgc op. Each builds its op through an OpRecorder, which
// checks the operands, infers or takes the result type, verifies the op and
// poisons the result on any error. Frontend-only conveniences (negative axes,
// -1 in reshape, symmetric padding, reduce over all dims) are resolved here;
// everything else is left to the dialect's inference and verifiers so that
// users see the dialect's messages.
//
//===----------------------------------------------------------------------===//

#include "frontend/Tensor.h"
#include "frontend/TraceState.h"

#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace tgc;
using namespace tgc::detail;
using runtime::DType;
using runtime::HostTensor;

namespace {

std::string shapeText(const Tensor &t) {
  return formatShape(typeOf(t).getShape());
}

std::string listOf(llvm::ArrayRef<int64_t> values) {
  std::string text = "[";
  for (auto [i, v] : llvm::enumerate(values))
    text += (i ? ", " : "") + std::to_string(v);
  return text + "]";
}

/// Normalizes a numpy-style axis against `rank`; records an error and returns
/// nullopt when it is out of [-rank, rank).
std::optional<int64_t> normalizeAxis(OpRecorder &rec, int64_t axis,
                                     int64_t rank, const std::string &what) {
  if (axis < -rank || axis >= rank) {
    rec.fail("axis " + llvm::Twine(axis) + " is out of range [" +
             llvm::Twine(-rank) + ", " + llvm::Twine(rank) + ") for " + what);
    return std::nullopt;
  }
  return axis < 0 ? axis + rank : axis;
}

/// Normalizes and sorts a list of axes; duplicates are an error.
std::optional<SmallVector<int64_t>> normalizeAxes(OpRecorder &rec,
                                                  llvm::ArrayRef<int64_t> axes,
                                                  int64_t rank,
                                                  const std::string &what) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    auto normalized = normalizeAxis(rec, axis, rank, what);
    if (!normalized)
      return std::nullopt;
    result.push_back(*normalized);
  }
  llvm::sort(result);
  if (std::adjacent_find(result.begin(), result.end()) != result.end()) {
    rec.fail("axes " + listOf(axes) + " name a dim twice");
    return std::nullopt;
  }
  return result;
}

/// [h, w] padding means [h, w, h, w].
std::vector<int64_t> expandPadding(std::vector<int64_t> padding) {
  if (padding.size() == 2)
    return {padding[0], padding[1], padding[0], padding[1]};
  return padding;
}

template <typename OpT>
Tensor unary(const Tensor &x, std::source_location loc) {
  OpRecorder rec(OpT::getOperationName(), {&x}, loc);
  return rec.infer<OpT>(valueOf(x));
}

template <typename OpT>
Tensor binary(const Tensor &a, const Tensor &b, std::source_location loc) {
  OpRecorder rec(OpT::getOperationName(), {&a, &b}, loc);
  return rec.infer<OpT>(valueOf(a), valueOf(b));
}

template <typename OpT>
Tensor binary(const Tensor &a, Scalar b, std::source_location loc) {
  OpRecorder rec(OpT::getOperationName(), {&a}, loc);
  Tensor c = rec.scalarLike(b, a);
  return rec.infer<OpT>(valueOf(a), valueOf(c));
}

template <typename OpT>
Tensor binary(Scalar a, const Tensor &b, std::source_location loc) {
  OpRecorder rec(OpT::getOperationName(), {&b}, loc);
  Tensor c = rec.scalarLike(a, b);
  return rec.infer<OpT>(valueOf(c), valueOf(b));
}

Tensor cmp(ComparePredicate p, const Tensor &a, const Tensor &b,
           std::source_location loc) {
  OpRecorder rec(CompareOp::getOperationName(), {&a, &b}, loc);
  return rec.infer<CompareOp>(toIR(p), valueOf(a), valueOf(b));
}

Tensor cmp(ComparePredicate p, const Tensor &a, Scalar b,
           std::source_location loc) {
  OpRecorder rec(CompareOp::getOperationName(), {&a}, loc);
  Tensor c = rec.scalarLike(b, a);
  return rec.infer<CompareOp>(toIR(p), valueOf(a), valueOf(c));
}

Tensor cmp(ComparePredicate p, Scalar a, const Tensor &b,
           std::source_location loc) {
  OpRecorder rec(CompareOp::getOperationName(), {&b}, loc);
  Tensor c = rec.scalarLike(a, b);
  return rec.infer<CompareOp>(toIR(p), valueOf(c), valueOf(b));
}

template <typename OpT>
Tensor reduce(const Tensor &x, std::vector<int64_t> axes, bool keepdims,
              std::source_location loc) {
  OpRecorder rec(OpT::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  int64_t rank = x.rank();
  if (axes.empty()) {
    if (rank == 0)
      return rec.fail("cannot reduce a rank-0 input over all dims (it has "
                      "none)");
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  auto normalized = normalizeAxes(rec, axes, rank, "input " + shapeText(x));
  if (!normalized)
    return rec.poison();
  return rec.infer<OpT>(valueOf(x), ArrayRef<int64_t>(*normalized), keepdims);
}

template <typename OpT>
Tensor argReduce(const Tensor &x, int64_t axis, bool keepdims, bool last,
                 std::source_location loc) {
  OpRecorder rec(OpT::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  auto normalized = normalizeAxis(rec, axis, x.rank(), "input " + shapeText(x));
  if (!normalized)
    return rec.poison();
  return rec.infer<OpT>(valueOf(x), static_cast<uint64_t>(*normalized),
                        keepdims, last);
}

template <typename OpT>
Tensor softmaxLike(const Tensor &x, int64_t axis, std::source_location loc) {
  OpRecorder rec(OpT::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  if (x.rank() == 0)
    return rec.fail("input must have rank >= 1");
  auto normalized = normalizeAxis(rec, axis, x.rank(), "input " + shapeText(x));
  if (!normalized)
    return rec.poison();
  return rec.infer<OpT>(valueOf(x), static_cast<uint64_t>(*normalized));
}

template <typename OpT>
Tensor pool(const Tensor &x, const Pool2DOptions &opts,
            std::source_location loc) {
  OpRecorder rec(OpT::getOperationName(), {&x}, loc);
  std::vector<int64_t> padding = expandPadding(opts.padding);
  if constexpr (std::is_same_v<OpT, AvgPool2DOp>)
    return rec.infer<OpT>(valueOf(x), ArrayRef<int64_t>(opts.kernel),
                          ArrayRef<int64_t>(opts.strides),
                          ArrayRef<int64_t>(padding),
                          ArrayRef<int64_t>(opts.dilations), opts.ceilMode,
                          opts.countIncludePad, toIR(opts.layout));
  else
    return rec.infer<OpT>(
        valueOf(x), ArrayRef<int64_t>(opts.kernel),
        ArrayRef<int64_t>(opts.strides), ArrayRef<int64_t>(padding),
        ArrayRef<int64_t>(opts.dilations), opts.ceilMode, toIR(opts.layout));
}

} // namespace

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

Tensor tgc::constant(const HostTensor &value, std::source_location loc) {
  OpRecorder rec(ConstantOp::getOperationName(), {}, loc);
  if (!rec.ok())
    return rec.poison();
  auto type = RankedTensorType::get(
      value.shape(), toElementType(value.dtype(), rec.context()));
  DenseElementsAttr attr;
  int64_t count = value.numElements();
  if (value.dtype() == DType::I1) {
    SmallVector<bool> bits;
    const auto *bytes = value.dataAs<uint8_t>();
    bool splat = count > 0;
    for (int64_t i = 0; i < count; ++i) {
      bits.push_back(bytes[i] != 0);
      splat = splat && bits[i] == bits[0];
    }
    if (splat)
      bits.resize(1);
    attr = DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  } else {
    size_t elementSize = runtime::dtypeSize(value.dtype());
    const char *data = static_cast<const char *>(value.data());
    ArrayRef<char> raw(data, value.byteSize());
    // Store a splat when every element has the same bytes.
    bool splat = count > 1;
    for (int64_t i = 1; splat && i < count; ++i)
      splat = std::equal(data, data + elementSize, data + i * elementSize);
    if (splat)
      raw = raw.take_front(elementSize);
    if (count == 0)
      attr = DenseElementsAttr::get(type, ArrayRef<Attribute>{});
    else
      attr = DenseElementsAttr::getFromRawBuffer(type, raw);
  }
  return rec.build<ConstantOp>(type, cast<ElementsAttr>(attr));
}

Tensor tgc::detail::constantOfAttr(mlir::ElementsAttr value,
                                   std::source_location loc) {
  OpRecorder rec(ConstantOp::getOperationName(), {}, loc);
  if (!rec.ok())
    return rec.poison();
  return rec.build<ConstantOp>(value.getType(), value);
}

Tensor tgc::scalar(Scalar value, DType dtype, std::source_location loc) {
  return full({}, value, dtype, loc);
}

Tensor tgc::full(std::vector<int64_t> shape, Scalar value, DType dtype,
                 std::source_location loc) {
  OpRecorder rec(ConstantOp::getOperationName(), {}, loc);
  if (!rec.ok())
    return rec.poison();
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }) ||
      !staticElementCount(shape))
    return rec.fail("constant shape " + listOf(shape) +
                    " must have static, non-negative dims whose element "
                    "count fits in int64");
  auto type = RankedTensorType::get(shape, toElementType(dtype, rec.context()));
  std::string why;
  FailureOr<TypedAttr> element =
      scalarElementAttr(value, type.getElementType(), why);
  if (failed(element))
    return rec.fail(why);
  auto attr = DenseElementsAttr::get(type, ArrayRef<Attribute>{*element});
  return rec.build<ConstantOp>(type, cast<ElementsAttr>(attr));
}

Tensor tgc::cast(const Tensor &x, DType dtype, std::source_location loc) {
  OpRecorder rec(CastOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  auto type = RankedTensorType::get(typeOf(x).getShape(),
                                    toElementType(dtype, rec.context()));
  return rec.build<CastOp>(type, valueOf(x));
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

#define TGC_DEFINE_UNARY(NAME, OP)                                             \
  Tensor tgc::NAME(const Tensor &x, std::source_location loc) {                \
    return unary<OP>(x, loc);                                                  \
  }
TGC_DEFINE_UNARY(neg, NegOp)
TGC_DEFINE_UNARY(abs, AbsOp)
TGC_DEFINE_UNARY(exp, ExpOp)
TGC_DEFINE_UNARY(log, LogOp)
TGC_DEFINE_UNARY(sqrt, SqrtOp)
TGC_DEFINE_UNARY(rsqrt, RsqrtOp)
TGC_DEFINE_UNARY(reciprocal, ReciprocalOp)
TGC_DEFINE_UNARY(tanh, TanhOp)
TGC_DEFINE_UNARY(sigmoid, SigmoidOp)
TGC_DEFINE_UNARY(relu, ReluOp)
TGC_DEFINE_UNARY(erf, ErfOp)
TGC_DEFINE_UNARY(sin, SinOp)
TGC_DEFINE_UNARY(cos, CosOp)
TGC_DEFINE_UNARY(floor, FloorOp)
TGC_DEFINE_UNARY(ceil, CeilOp)
TGC_DEFINE_UNARY(round, RoundOp)
TGC_DEFINE_UNARY(sign, SignOp)
TGC_DEFINE_UNARY(logicalNot, LogicalNotOp)
#undef TGC_DEFINE_UNARY

Tensor tgc::leakyRelu(const Tensor &x, double alpha, std::source_location loc) {
  OpRecorder rec(LeakyReluOp::getOperationName(), {&x}, loc);
  return rec.infer<LeakyReluOp>(valueOf(x), APFloat(alpha));
}

Tensor tgc::elu(const Tensor &x, double alpha, std::source_location loc) {
  OpRecorder rec(EluOp::getOperationName(), {&x}, loc);
  return rec.infer<EluOp>(valueOf(x), APFloat(alpha));
}

Tensor tgc::clamp(const Tensor &x, double min, double max,
                  std::source_location loc) {
  OpRecorder rec(ClampOp::getOperationName(), {&x}, loc);
  return rec.infer<ClampOp>(valueOf(x), APFloat(min), APFloat(max));
}

Tensor tgc::gelu(const Tensor &x, bool tanhApproximation,
                 std::source_location loc) {
  OpRecorder rec(GeluOp::getOperationName(), {&x}, loc);
  return rec.infer<GeluOp>(valueOf(x), tanhApproximation
                                           ? GeluApproximation::tanh
                                           : GeluApproximation::none);
}

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

#define TGC_DEFINE_BINARY(NAME, OP)                                            \
  Tensor tgc::NAME(const Tensor &a, const Tensor &b,                           \
                   std::source_location loc) {                                 \
    return binary<OP>(a, b, loc);                                              \
  }                                                                            \
  Tensor tgc::NAME(const Tensor &a, Scalar b, std::source_location loc) {      \
    return binary<OP>(a, b, loc);                                              \
  }                                                                            \
  Tensor tgc::NAME(Scalar a, const Tensor &b, std::source_location loc) {      \
    return binary<OP>(a, b, loc);                                              \
  }
TGC_DEFINE_BINARY(add, AddOp)
TGC_DEFINE_BINARY(sub, SubOp)
TGC_DEFINE_BINARY(mul, MulOp)
TGC_DEFINE_BINARY(div, DivOp)
TGC_DEFINE_BINARY(pow, PowOp)
TGC_DEFINE_BINARY(maximum, MaxOp)
TGC_DEFINE_BINARY(minimum, MinOp)
TGC_DEFINE_BINARY(shiftLeft, ShiftLeftOp)
TGC_DEFINE_BINARY(shiftRight, ShiftRightOp)
#undef TGC_DEFINE_BINARY

#define TGC_DEFINE_COMPARE(NAME, PRED)                                         \
  Tensor tgc::NAME(const Tensor &a, const Tensor &b,                           \
                   std::source_location loc) {                                 \
    return cmp(ComparePredicate::PRED, a, b, loc);                             \
  }                                                                            \
  Tensor tgc::NAME(const Tensor &a, Scalar b, std::source_location loc) {      \
    return cmp(ComparePredicate::PRED, a, b, loc);                             \
  }                                                                            \
  Tensor tgc::NAME(Scalar a, const Tensor &b, std::source_location loc) {      \
    return cmp(ComparePredicate::PRED, a, b, loc);                             \
  }
TGC_DEFINE_COMPARE(equal, eq)
TGC_DEFINE_COMPARE(notEqual, ne)
TGC_DEFINE_COMPARE(less, lt)
TGC_DEFINE_COMPARE(lessEqual, le)
TGC_DEFINE_COMPARE(greater, gt)
TGC_DEFINE_COMPARE(greaterEqual, ge)
#undef TGC_DEFINE_COMPARE

Tensor tgc::logicalAnd(const Tensor &a, const Tensor &b,
                       std::source_location loc) {
  return binary<LogicalAndOp>(a, b, loc);
}

Tensor tgc::logicalOr(const Tensor &a, const Tensor &b,
                      std::source_location loc) {
  return binary<LogicalOrOp>(a, b, loc);
}

Tensor tgc::compare(ComparePredicate predicate, const Tensor &a,
                    const Tensor &b, std::source_location loc) {
  return cmp(predicate, a, b, loc);
}

Tensor tgc::select(const Tensor &cond, const Tensor &a, const Tensor &b,
                   std::source_location loc) {
  OpRecorder rec(SelectOp::getOperationName(), {&cond, &a, &b}, loc);
  return rec.infer<SelectOp>(valueOf(cond), valueOf(a), valueOf(b));
}

Tensor tgc::select(const Tensor &cond, const Tensor &a, Scalar b,
                   std::source_location loc) {
  OpRecorder rec(SelectOp::getOperationName(), {&cond, &a}, loc);
  Tensor c = rec.scalarLike(b, a);
  return rec.infer<SelectOp>(valueOf(cond), valueOf(a), valueOf(c));
}

Tensor tgc::select(const Tensor &cond, Scalar a, const Tensor &b,
                   std::source_location loc) {
  OpRecorder rec(SelectOp::getOperationName(), {&cond, &b}, loc);
  Tensor c = rec.scalarLike(a, b);
  return rec.infer<SelectOp>(valueOf(cond), valueOf(c), valueOf(b));
}

//===----------------------------------------------------------------------===//
// Contractions and windows
//===----------------------------------------------------------------------===//

Tensor tgc::matmul(const Tensor &a, const Tensor &b, MatmulOptions opts,
                   std::source_location loc) {
  OpRecorder rec(MatmulOp::getOperationName(), {&a, &b}, loc);
  return rec.infer<MatmulOp>(valueOf(a), valueOf(b), opts.transposeA,
                             opts.transposeB);
}

Tensor tgc::conv2d(const Tensor &x, const Tensor &filter,
                   std::optional<Tensor> bias, Conv2DOptions opts,
                   std::source_location loc) {
  SmallVector<const Tensor *, 3> operands = {&x, &filter};
  if (bias)
    operands.push_back(&*bias);
  OpRecorder rec(Conv2DOp::getOperationName(), operands, loc);
  if (!rec.ok())
    return rec.poison();
  if (opts.groups < 1)
    return rec.fail("groups must be positive, got " + llvm::Twine(opts.groups));
  std::vector<int64_t> padding = expandPadding(opts.padding);
  return rec.infer<Conv2DOp>(
      valueOf(x), valueOf(filter), bias ? valueOf(*bias) : Value(),
      ArrayRef<int64_t>(opts.strides), ArrayRef<int64_t>(padding),
      ArrayRef<int64_t>(opts.dilations), static_cast<uint64_t>(opts.groups),
      toIR(opts.layout));
}

Tensor tgc::conv2d(const Tensor &x, const Tensor &filter, Conv2DOptions opts,
                   std::source_location loc) {
  return conv2d(x, filter, std::nullopt, std::move(opts), loc);
}

Tensor tgc::maxPool2d(const Tensor &x, Pool2DOptions opts,
                      std::source_location loc) {
  return pool<MaxPool2DOp>(x, opts, loc);
}

Tensor tgc::avgPool2d(const Tensor &x, Pool2DOptions opts,
                      std::source_location loc) {
  return pool<AvgPool2DOp>(x, opts, loc);
}

Tensor tgc::globalAvgPool2d(const Tensor &x, Layout layout,
                            std::source_location loc) {
  OpRecorder rec(GlobalAvgPool2DOp::getOperationName(), {&x}, loc);
  return rec.infer<GlobalAvgPool2DOp>(valueOf(x), toIR(layout));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Tensor tgc::reduceSum(const Tensor &x, std::vector<int64_t> axes, bool keepdims,
                      std::source_location loc) {
  return reduce<ReduceSumOp>(x, std::move(axes), keepdims, loc);
}
Tensor tgc::reduceMean(const Tensor &x, std::vector<int64_t> axes,
                       bool keepdims, std::source_location loc) {
  return reduce<ReduceMeanOp>(x, std::move(axes), keepdims, loc);
}
Tensor tgc::reduceMax(const Tensor &x, std::vector<int64_t> axes, bool keepdims,
                      std::source_location loc) {
  return reduce<ReduceMaxOp>(x, std::move(axes), keepdims, loc);
}
Tensor tgc::reduceMin(const Tensor &x, std::vector<int64_t> axes, bool keepdims,
                      std::source_location loc) {
  return reduce<ReduceMinOp>(x, std::move(axes), keepdims, loc);
}
Tensor tgc::reduceProd(const Tensor &x, std::vector<int64_t> axes,
                       bool keepdims, std::source_location loc) {
  return reduce<ReduceProdOp>(x, std::move(axes), keepdims, loc);
}

Tensor tgc::argmax(const Tensor &x, int64_t axis, bool keepdims,
                   bool selectLastIndex, std::source_location loc) {
  return argReduce<ArgMaxOp>(x, axis, keepdims, selectLastIndex, loc);
}
Tensor tgc::argmin(const Tensor &x, int64_t axis, bool keepdims,
                   bool selectLastIndex, std::source_location loc) {
  return argReduce<ArgMinOp>(x, axis, keepdims, selectLastIndex, loc);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

Tensor tgc::softmax(const Tensor &x, int64_t axis, std::source_location loc) {
  return softmaxLike<SoftmaxOp>(x, axis, loc);
}

Tensor tgc::logSoftmax(const Tensor &x, int64_t axis,
                       std::source_location loc) {
  return softmaxLike<LogSoftmaxOp>(x, axis, loc);
}

Tensor tgc::layerNorm(const Tensor &x, std::optional<Tensor> scale,
                      std::optional<Tensor> bias, int64_t axis, double epsilon,
                      std::source_location loc) {
  SmallVector<const Tensor *, 3> operands = {&x};
  if (scale)
    operands.push_back(&*scale);
  if (bias)
    operands.push_back(&*bias);
  OpRecorder rec(LayerNormOp::getOperationName(), operands, loc);
  if (!rec.ok())
    return rec.poison();
  auto normalized = normalizeAxis(rec, axis, x.rank(), "input " + shapeText(x));
  if (!normalized)
    return rec.poison();
  return rec.infer<LayerNormOp>(valueOf(x), scale ? valueOf(*scale) : Value(),
                                bias ? valueOf(*bias) : Value(),
                                static_cast<uint64_t>(*normalized),
                                APFloat(epsilon));
}

Tensor tgc::batchNorm(const Tensor &x, const Tensor &scale, const Tensor &bias,
                      const Tensor &mean, const Tensor &variance,
                      double epsilon, int64_t axis, std::source_location loc) {
  OpRecorder rec(BatchNormOp::getOperationName(),
                 {&x, &scale, &bias, &mean, &variance}, loc);
  if (!rec.ok())
    return rec.poison();
  auto normalized = normalizeAxis(rec, axis, x.rank(), "input " + shapeText(x));
  if (!normalized)
    return rec.poison();
  return rec.infer<BatchNormOp>(
      valueOf(x), valueOf(scale), valueOf(bias), valueOf(mean),
      valueOf(variance), APFloat(epsilon), static_cast<uint64_t>(*normalized));
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

Tensor tgc::reshape(const Tensor &x, std::vector<int64_t> shape,
                    std::source_location loc) {
  OpRecorder rec(ReshapeOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  std::optional<size_t> inferred;
  SmallVector<int64_t> known;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred)
        return rec.fail("new shape " + listOf(shape) +
                        " may contain -1 (infer this dim) only once");
      inferred = i;
      continue;
    }
    if (d < 0)
      return rec.fail("new shape " + listOf(shape) + " has invalid dim " +
                      llvm::Twine(d) + " (dims are >= 0, or -1 to infer one)");
    known.push_back(d);
  }
  auto knownCount = staticElementCount(known);
  if (!knownCount)
    return rec.fail("new shape " + listOf(shape) + " overflows int64");
  SmallVector<int64_t> dims(shape.begin(), shape.end());
  auto inCount = staticElementCount(typeOf(x).getShape());
  if (inferred) {
    if (*knownCount == 0)
      return rec.fail("cannot infer the -1 dim of new shape " + listOf(shape) +
                      ": the other dims hold zero elements");
    if (!inCount) {
      dims[*inferred] = ShapedType::kDynamic;
    } else {
      if (*inCount % *knownCount != 0)
        return rec.fail("cannot reshape input " + shapeText(x) + " (" +
                        llvm::Twine(*inCount) + " elements) to " +
                        listOf(shape));
      dims[*inferred] = *inCount / *knownCount;
    }
  } else if (inCount && *inCount != *knownCount) {
    return rec.fail("cannot reshape input " + shapeText(x) + " (" +
                    llvm::Twine(*inCount) + " elements) to " + listOf(shape) +
                    " (" + llvm::Twine(*knownCount) + " elements)");
  }
  auto type = RankedTensorType::get(dims, typeOf(x).getElementType());
  return rec.build<ReshapeOp>(type, valueOf(x));
}

Tensor tgc::shapeOf(const Tensor &x, std::source_location loc) {
  OpRecorder rec(ShapeOfOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  return rec.infer<ShapeOfOp>(valueOf(x));
}

Tensor tgc::dynamicReshape(const Tensor &x, const Tensor &shape,
                           std::vector<int64_t> hint, bool copyZeros,
                           std::source_location loc) {
  OpRecorder rec(DynamicReshapeOp::getOperationName(), {&x, &shape}, loc);
  if (!rec.ok())
    return rec.poison();
  if (shape.rank() != 1 || !shape.dim(0))
    return rec.fail("the new shape must be a 1-D tensor of static length, "
                    "not " +
                    shapeText(shape));
  if (hint.empty())
    return rec.infer<DynamicReshapeOp>(valueOf(x), valueOf(shape), copyZeros);
  if (static_cast<int64_t>(hint.size()) != *shape.dim(0))
    return rec.fail("the shape hint " + listOf(hint) + " has " +
                    llvm::Twine(hint.size()) + " dims, the new shape " +
                    llvm::Twine(*shape.dim(0)));
  SmallVector<int64_t> dims;
  for (int64_t d : hint) {
    if (d < 0 && d != kDynamic)
      return rec.fail("the shape hint " + listOf(hint) + " has invalid dim " +
                      llvm::Twine(d));
    dims.push_back(d == kDynamic ? ShapedType::kDynamic : d);
  }
  auto type = RankedTensorType::get(dims, typeOf(x).getElementType());
  return rec.build<DynamicReshapeOp>(type, valueOf(x), valueOf(shape),
                                     copyZeros);
}

Tensor tgc::transpose(const Tensor &x, std::vector<int64_t> perm,
                      std::source_location loc) {
  OpRecorder rec(TransposeOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  int64_t rank = x.rank();
  SmallVector<int64_t> permutation;
  if (perm.empty()) {
    for (int64_t d = rank - 1; d >= 0; --d)
      permutation.push_back(d);
  } else {
    for (int64_t p : perm)
      permutation.push_back(p < 0 && p >= -rank ? p + rank : p);
  }
  return rec.infer<TransposeOp>(valueOf(x), ArrayRef<int64_t>(permutation));
}

Tensor tgc::broadcastTo(const Tensor &x, std::vector<int64_t> shape,
                        std::source_location loc) {
  OpRecorder rec(BroadcastToOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  SmallVector<int64_t> dims;
  for (int64_t d : shape) {
    if (d < 0 && d != kDynamic)
      return rec.fail("target shape " + listOf(shape) + " has invalid dim " +
                      llvm::Twine(d) + " (dims are >= 0, or kDynamic)");
    dims.push_back(d == kDynamic ? ShapedType::kDynamic : d);
  }
  if (!staticElementCount(llvm::to_vector(llvm::make_filter_range(
          dims, [](int64_t d) { return !ShapedType::isDynamic(d); }))))
    return rec.fail("target shape " + listOf(shape) + " overflows int64");
  auto type = RankedTensorType::get(dims, typeOf(x).getElementType());
  return rec.build<BroadcastToOp>(type, valueOf(x));
}

Tensor tgc::concat(const std::vector<Tensor> &inputs, int64_t axis,
                   std::source_location loc) {
  SmallVector<const Tensor *> operands;
  for (const Tensor &t : inputs)
    operands.push_back(&t);
  OpRecorder rec(ConcatOp::getOperationName(), operands, loc);
  if (!rec.ok())
    return rec.poison();
  if (inputs.empty())
    return rec.fail("needs at least one input");
  auto normalized = normalizeAxis(rec, axis, inputs.front().rank(),
                                  "input #0 " + shapeText(inputs.front()));
  if (!normalized)
    return rec.poison();
  SmallVector<Value> values;
  for (const Tensor &t : inputs)
    values.push_back(valueOf(t));
  return rec.infer<ConcatOp>(ValueRange(values),
                             static_cast<uint64_t>(*normalized));
}

Tensor tgc::slice(const Tensor &x, std::vector<int64_t> starts,
                  std::vector<int64_t> ends, std::vector<int64_t> steps,
                  std::source_location loc) {
  OpRecorder rec(SliceOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  DenseI64ArrayAttr stepsAttr;
  if (!steps.empty())
    stepsAttr = DenseI64ArrayAttr::get(&rec.context(), steps);
  return rec.infer<SliceOp>(valueOf(x), ArrayRef<int64_t>(starts),
                            ArrayRef<int64_t>(ends), stepsAttr);
}

Tensor tgc::pad(const Tensor &x, std::vector<int64_t> low,
                std::vector<int64_t> high, double value,
                std::source_location loc) {
  OpRecorder rec(PadOp::getOperationName(), {&x}, loc);
  return rec.infer<PadOp>(valueOf(x), ArrayRef<int64_t>(low),
                          ArrayRef<int64_t>(high), APFloat(value));
}

Tensor tgc::gather(const Tensor &data, const Tensor &indices, int64_t axis,
                   std::source_location loc) {
  OpRecorder rec(GatherOp::getOperationName(), {&data, &indices}, loc);
  if (!rec.ok())
    return rec.poison();
  auto normalized =
      normalizeAxis(rec, axis, data.rank(), "data " + shapeText(data));
  if (!normalized)
    return rec.poison();
  return rec.infer<GatherOp>(valueOf(data), valueOf(indices),
                             static_cast<uint64_t>(*normalized));
}

/// The scatter reduction named `name`; records an error when unknown.
static std::optional<ScatterReduction> scatterReduction(OpRecorder &rec,
                                                        std::string_view name) {
  auto r = symbolizeScatterReduction(llvm::StringRef(name.data(), name.size()));
  if (!r)
    rec.fail("unknown reduction '" + llvm::StringRef(name.data(), name.size()) +
             "' (none, add, mul, max or min)");
  return r;
}

Tensor tgc::scatterElements(const Tensor &data, const Tensor &indices,
                            const Tensor &updates, int64_t axis,
                            std::string_view reduction,
                            std::source_location loc) {
  OpRecorder rec(ScatterElementsOp::getOperationName(),
                 {&data, &indices, &updates}, loc);
  if (!rec.ok())
    return rec.poison();
  auto normalized =
      normalizeAxis(rec, axis, data.rank(), "data " + shapeText(data));
  if (!normalized)
    return rec.poison();
  auto r = scatterReduction(rec, reduction);
  if (!r)
    return rec.poison();
  return rec.infer<ScatterElementsOp>(valueOf(data), valueOf(indices),
                                      valueOf(updates),
                                      static_cast<uint64_t>(*normalized), *r);
}

Tensor tgc::scatterND(const Tensor &data, const Tensor &indices,
                      const Tensor &updates, std::string_view reduction,
                      std::source_location loc) {
  OpRecorder rec(ScatterNDOp::getOperationName(), {&data, &indices, &updates},
                 loc);
  if (!rec.ok())
    return rec.poison();
  auto r = scatterReduction(rec, reduction);
  if (!r)
    return rec.poison();
  return rec.infer<ScatterNDOp>(valueOf(data), valueOf(indices),
                                valueOf(updates), *r);
}

Tensor tgc::nonzero(const Tensor &x, std::source_location loc) {
  OpRecorder rec(NonZeroOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  auto type = mlir::RankedTensorType::get(
      {x.rank(), mlir::ShapedType::kDynamic},
      mlir::IntegerType::get(valueOf(x).getContext(), 64));
  return rec.build<NonZeroOp>(type, valueOf(x));
}

Tensor tgc::dynamicBroadcastTo(const Tensor &x, const Tensor &shape,
                               std::source_location loc) {
  OpRecorder rec(DynamicBroadcastToOp::getOperationName(), {&x, &shape}, loc);
  if (!rec.ok())
    return rec.poison();
  auto shapeType = typeOf(shape);
  if (shapeType.getRank() != 1 || shapeType.isDynamicDim(0) ||
      !shapeType.getElementType().isInteger(64)) {
    rec.fail("the shape must be a 1-D i64 tensor of a static length, not " +
             shape.describe());
    return rec.poison();
  }
  auto xType = typeOf(x);
  int64_t rank = std::max(xType.getRank(), shapeType.getDimSize(0));
  // A static input dim other than 1 is the result's; the others are known
  // when the function runs.
  SmallVector<int64_t> dims(rank, mlir::ShapedType::kDynamic);
  for (int64_t d = 0; d < xType.getRank(); ++d) {
    int64_t size = xType.getDimSize(d);
    if (!mlir::ShapedType::isDynamic(size) && size != 1)
      dims[rank - xType.getRank() + d] = size;
  }
  // The shape's elements known before the function runs (ONNX: Concat of
  // constants and of static dims read with Shape) decide their dims too.
  int64_t given = shapeType.getDimSize(0);
  if (auto known = knownIntElements(valueOf(shape));
      known && static_cast<int64_t>(known->size()) == given) {
    for (int64_t i = 0; i < given; ++i) {
      std::optional<int64_t> s = (*known)[static_cast<size_t>(i)];
      if (!s || *s < 0)
        continue;
      int64_t r = rank - given + i, d = r - (rank - xType.getRank());
      if (d < 0) {
        dims[r] = *s; // the shape alone
        continue;
      }
      int64_t size = xType.getDimSize(d);
      if (mlir::ShapedType::isDynamic(size)) {
        if (*s != 1)
          dims[r] = *s; // the input's dim must be 1 or s
      } else if (size == 1) {
        dims[r] = *s;
      }
    }
  }
  auto type = mlir::RankedTensorType::get(dims, xType.getElementType());
  return rec.build<DynamicBroadcastToOp>(type, valueOf(x), valueOf(shape));
}

Tensor tgc::dynamicSlice(const Tensor &x, const Tensor &starts,
                         const Tensor &ends, const Tensor &steps,
                         std::vector<int64_t> axes, std::source_location loc) {
  OpRecorder rec(DynamicSliceOp::getOperationName(),
                 {&x, &starts, &ends, &steps}, loc);
  if (!rec.ok())
    return rec.poison();
  // In the order given: starts[i], ends[i] and steps[i] belong to axes[i].
  SmallVector<int64_t> list;
  for (int64_t axis : axes) {
    auto normalized =
        normalizeAxis(rec, axis, x.rank(), "input " + shapeText(x));
    if (!normalized)
      return rec.poison();
    if (llvm::is_contained(list, *normalized)) {
      rec.fail("axes " + listOf(axes) + " name a dim twice");
      return rec.poison();
    }
    list.push_back(*normalized);
  }
  auto xType = typeOf(x);
  SmallVector<int64_t> shape(xType.getShape().begin(), xType.getShape().end());
  for (int64_t a : list)
    shape[static_cast<size_t>(a)] = mlir::ShapedType::kDynamic;
  auto type = mlir::RankedTensorType::get(shape, xType.getElementType());
  return rec.build<DynamicSliceOp>(type, valueOf(x), valueOf(starts),
                                   valueOf(ends), valueOf(steps),
                                   ArrayRef<int64_t>(list));
}

tgc::UniqueTensors tgc::unique(const Tensor &x, std::optional<int64_t> axis,
                               bool sorted, std::source_location loc) {
  OpRecorder rec(UniqueOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return {rec.poison(), rec.poison(), rec.poison(), rec.poison()};
  mlir::MLIRContext *context = valueOf(x).getContext();
  auto xType = typeOf(x);
  mlir::IntegerAttr axisAttr;
  SmallVector<int64_t> valueShape{mlir::ShapedType::kDynamic};
  int64_t slices = xType.hasStaticShape() ? xType.getNumElements()
                                          : mlir::ShapedType::kDynamic;
  if (axis) {
    auto normalized =
        normalizeAxis(rec, *axis, x.rank(), "input " + shapeText(x));
    if (!normalized)
      return {rec.poison(), rec.poison(), rec.poison(), rec.poison()};
    axisAttr = mlir::IntegerAttr::get(mlir::IntegerType::get(context, 64),
                                      *normalized);
    valueShape.assign(xType.getShape().begin(), xType.getShape().end());
    valueShape[static_cast<size_t>(*normalized)] = mlir::ShapedType::kDynamic;
    slices = xType.getDimSize(*normalized);
  }
  auto i64 = mlir::IntegerType::get(context, 64);
  auto dynamic = mlir::RankedTensorType::get({mlir::ShapedType::kDynamic}, i64);
  SmallVector<mlir::Type> types{
      mlir::RankedTensorType::get(valueShape, xType.getElementType()), dynamic,
      mlir::RankedTensorType::get({slices}, i64), dynamic};
  auto r = rec.buildResults<UniqueOp>(types, valueOf(x), axisAttr,
                                      mlir::BoolAttr::get(context, sorted));
  return {r[0], r[1], r[2], r[3]};
}

Tensor tgc::nonMaxSuppression(const Tensor &boxes, const Tensor &scores,
                              const Tensor &maxPerClass,
                              const Tensor &iouThreshold,
                              const Tensor &scoreThreshold, bool centerPointBox,
                              std::source_location loc) {
  OpRecorder rec(
      NonMaxSuppressionOp::getOperationName(),
      {&boxes, &scores, &maxPerClass, &iouThreshold, &scoreThreshold}, loc);
  if (!rec.ok())
    return rec.poison();
  auto type = mlir::RankedTensorType::get(
      {mlir::ShapedType::kDynamic, 3},
      mlir::IntegerType::get(valueOf(boxes).getContext(), 64));
  return rec.build<NonMaxSuppressionOp>(
      type, valueOf(boxes), valueOf(scores), valueOf(maxPerClass),
      valueOf(iouThreshold), valueOf(scoreThreshold), centerPointBox);
}

std::pair<Tensor, Tensor> tgc::topk(const Tensor &x, int64_t k, int64_t axis,
                                    bool largest, bool sorted,
                                    std::source_location loc) {
  OpRecorder rec(TopKOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return {rec.poison(), rec.poison()};
  if (x.rank() == 0) {
    rec.fail("input must have rank >= 1");
    return {rec.poison(), rec.poison()};
  }
  auto normalized = normalizeAxis(rec, axis, x.rank(), "input " + shapeText(x));
  if (!normalized)
    return {rec.poison(), rec.poison()};
  if (k < -1) {
    rec.fail("k must be -1 (every element) or non-negative, got " +
             llvm::Twine(k));
    return {rec.poison(), rec.poison()};
  }
  auto results = rec.inferResults<TopKOp>(
      2, valueOf(x), static_cast<uint64_t>(k),
      static_cast<uint64_t>(*normalized), largest, sorted);
  return {results[0], results[1]};
}

Tensor tgc::squeeze(const Tensor &x, std::vector<int64_t> axes,
                    std::source_location loc) {
  OpRecorder rec(SqueezeOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  SmallVector<int64_t> normalized;
  if (axes.empty()) {
    for (int64_t d = 0; d < x.rank(); ++d)
      if (typeOf(x).getDimSize(d) == 1)
        normalized.push_back(d);
  } else {
    auto list = normalizeAxes(rec, axes, x.rank(), "input " + shapeText(x));
    if (!list)
      return rec.poison();
    normalized = std::move(*list);
  }
  return rec.infer<SqueezeOp>(valueOf(x), ArrayRef<int64_t>(normalized));
}

Tensor tgc::unsqueeze(const Tensor &x, std::vector<int64_t> axes,
                      std::source_location loc) {
  OpRecorder rec(UnsqueezeOp::getOperationName(), {&x}, loc);
  if (!rec.ok())
    return rec.poison();
  int64_t outRank = x.rank() + static_cast<int64_t>(axes.size());
  auto normalized = normalizeAxes(
      rec, axes, outRank, "a result of rank " + std::to_string(outRank));
  if (!normalized)
    return rec.poison();
  return rec.infer<UnsqueezeOp>(valueOf(x), ArrayRef<int64_t>(*normalized));
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

#define TGC_DEFINE_OPERATOR(SYMBOL, NAME)                                      \
  Tensor tgc::operator SYMBOL(TensorOperand a, TensorOperand b) {              \
    return NAME(a.tensor, b.tensor, a.loc);                                    \
  }                                                                            \
  Tensor tgc::operator SYMBOL(TensorOperand a, Scalar b) {                     \
    return NAME(a.tensor, b, a.loc);                                           \
  }                                                                            \
  Tensor tgc::operator SYMBOL(Scalar a, TensorOperand b) {                     \
    return NAME(a, b.tensor, b.loc);                                           \
  }
TGC_DEFINE_OPERATOR(+, add)
TGC_DEFINE_OPERATOR(-, sub)
TGC_DEFINE_OPERATOR(*, mul)
TGC_DEFINE_OPERATOR(/, div)
TGC_DEFINE_OPERATOR(<, less)
TGC_DEFINE_OPERATOR(<=, lessEqual)
TGC_DEFINE_OPERATOR(>, greater)
TGC_DEFINE_OPERATOR(>=, greaterEqual)
TGC_DEFINE_OPERATOR(==, equal)
TGC_DEFINE_OPERATOR(!=, notEqual)
#undef TGC_DEFINE_OPERATOR

Tensor tgc::operator-(TensorOperand x) { return neg(x.tensor, x.loc); }
