//===- TgcOps.cpp - tgc op verification and type inference ----------------===//
//
// Every op's verifier and result type inference. Inference doubles as
// verification (InferTypeOpInterface checks the declared result types against
// it), so each inferReturnTypes rejects every malformed case with a message
// that names the op and the offending operand or attribute.
//
//===----------------------------------------------------------------------===//

#include "dialects/TgcOps.h"
#include "dialects/ConstantData.h"
#include "dialects/ShapeUtils.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tgc;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {
/// Emits diagnostics from type inference as "'tgc.<op>' op <message>" at the
/// op's location (or nowhere when inference runs without one).
template <typename OpT> struct Inference {
  std::optional<Location> loc;

  template <typename... Args> LogicalResult fail(Args &&...args) const {
    return emitOptionalError(loc, "'", OpT::getOperationName(), "' op ",
                             std::forward<Args>(args)...);
  }

  /// The ranked tensor type of `value`, or a failure naming `what`.
  FailureOr<RankedTensorType> ranked(Value value, StringRef what) const {
    auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
    if (!type)
      return fail(what, " must be a ranked tensor");
    return type;
  }

  LogicalResult sameElementType(RankedTensorType a, RankedTensorType b,
                                StringRef aName, StringRef bName) const {
    if (a.getElementType() == b.getElementType())
      return success();
    return fail(aName, " and ", bName, " must have the same element type, got ",
                a.getElementType(), " and ", b.getElementType());
  }
};

std::string shapeOf(RankedTensorType type) {
  return formatShape(type.getShape());
}

/// Sum of dims; dynamic when any is dynamic; nullopt on overflow.
std::optional<int64_t> addDims(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
    return ShapedType::kDynamic;
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}
} // namespace

bool tgc::areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs)) {
    auto lt = dyn_cast<RankedTensorType>(l);
    auto rt = dyn_cast<RankedTensorType>(r);
    if (!lt || !rt || lt.getElementType() != rt.getElementType() ||
        lt.getRank() != rt.getRank())
      return false;
    for (auto [a, b] : llvm::zip(lt.getShape(), rt.getShape()))
      if (!dimsCompatible(a, b))
        return false;
  }
  return true;
}

LogicalResult tgc::OpTrait::verifyValidShapes(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    int64_t count = 1;
    for (int64_t d : tensor.getShape()) {
      if (ShapedType::isDynamic(d))
        continue;
      if (d < 0)
        return op->emitOpError() << kind << " #" << index
                                 << " has negative dim " << d << " in " << type;
      if (__builtin_mul_overflow(count, d, &count))
        return op->emitOpError() << kind << " #" << index << " has shape "
                                 << formatShape(tensor.getShape())
                                 << " whose element count overflows int64";
    }
    return success();
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Custom assembly: broadcast types
//===----------------------------------------------------------------------===//

/// Parses either `T` (both operands and the result have type T) or
/// `(T1, T2) -> T3`.
static ParseResult parseBroadcastTypes(OpAsmParser &parser, Type &lhs,
                                       Type &rhs, Type &result) {
  if (succeeded(parser.parseOptionalLParen())) {
    return failure(parser.parseType(lhs) || parser.parseComma() ||
                   parser.parseType(rhs) || parser.parseRParen() ||
                   parser.parseArrow() || parser.parseType(result));
  }
  Type type;
  if (parser.parseType(type))
    return failure();
  lhs = rhs = result = type;
  return success();
}

static void printBroadcastTypes(OpAsmPrinter &printer, Operation *, Type lhs,
                                Type rhs, Type result) {
  if (lhs == rhs && rhs == result) {
    printer << lhs;
    return;
  }
  printer << '(' << lhs << ", " << rhs << ") -> " << result;
}

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  return verifyConstantValue(getValue(), [&] { return emitOpError(); });
}

LogicalResult CastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getRank() != out.getRank())
    return emitOpError("result rank ")
           << out.getRank() << " differs from input rank " << in.getRank();
  for (auto [i, dims] :
       llvm::enumerate(llvm::zip(in.getShape(), out.getShape())))
    if (!dimsCompatible(std::get<0>(dims), std::get<1>(dims)))
      return emitOpError("result shape ")
             << shapeOf(out) << " is incompatible with input shape "
             << shapeOf(in) << " (dim " << i << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

LogicalResult NonZeroOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (result.getRank() != 2 ||
      (!result.isDynamicDim(0) && result.getDimSize(0) != input.getRank()))
    return emitOpError("result ")
           << result << " must have shape [" << input.getRank()
           << ", n] (one row per dim of the input " << input << ")";
  return success();
}

LogicalResult UniqueOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto values = cast<RankedTensorType>(getValues().getType());
  if (values.getElementType() != input.getElementType())
    return emitOpError("values ") << values << " must have the input's "
                                  << "element type (input " << input << ")";
  std::optional<uint64_t> axis = getAxis();
  if (axis && static_cast<int64_t>(*axis) >= input.getRank())
    return emitOpError("axis ")
           << *axis << " is out of range for the input " << input;
  if (values.getRank() != (axis ? input.getRank() : 1))
    return emitOpError("values ")
           << values << " must have rank " << (axis ? input.getRank() : 1);
  for (Value v : {getIndices(), getInverse(), getCounts()})
    if (cast<RankedTensorType>(v.getType()).getRank() != 1)
      return emitOpError("indices, inverse and counts must have rank 1");
  return success();
}

LogicalResult NonMaxSuppressionOp::verify() {
  auto boxes = cast<RankedTensorType>(getBoxes().getType());
  auto scores = cast<RankedTensorType>(getScores().getType());
  auto fixed = [](RankedTensorType t, int64_t dim, int64_t size) {
    return t.isDynamicDim(dim) || t.getDimSize(dim) == size;
  };
  if (boxes.getRank() != 3 || !fixed(boxes, 2, 4))
    return emitOpError("boxes ") << boxes << " must be [batch, n, 4]";
  if (scores.getRank() != 3)
    return emitOpError("scores ") << scores << " must be [batch, classes, n]";
  auto selected = cast<RankedTensorType>(getSelected().getType());
  if (selected.getRank() != 2 || !fixed(selected, 1, 3))
    return emitOpError("result ") << selected << " must be [n, 3]";
  for (Value v : {getMaxPerClass(), getIouThreshold(), getScoreThreshold()}) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.hasStaticShape() && t.getNumElements() != 1)
      return emitOpError("max_per_class, iou_threshold and score_threshold "
                         "must hold one element each, not ")
             << t;
  }
  return success();
}

LogicalResult DynamicSliceOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (result.getElementType() != input.getElementType() ||
      result.getRank() != input.getRank())
    return emitOpError("result ")
           << result << " must have the input's element type and rank (input "
           << input << ")";
  ArrayRef<int64_t> axes = getAxes();
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t a : axes)
    if (a < 0 || a >= input.getRank() || !seen.insert(a).second)
      return emitOpError("axes must be distinct dims of the input ")
             << input << ", got " << a;
  for (int64_t d = 0; d < input.getRank(); ++d)
    if (!seen.contains(d) && !input.isDynamicDim(d) &&
        !result.isDynamicDim(d) && input.getDimSize(d) != result.getDimSize(d))
      return emitOpError("dim ")
             << d << " is not sliced, so the result " << result
             << " must keep it (input " << input << ")";
  for (Value v : {getStarts(), getEnds(), getSteps()}) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 1 ||
        (!t.isDynamicDim(0) &&
         t.getDimSize(0) != static_cast<int64_t>(axes.size())))
      return emitOpError("starts, ends and steps must hold one value per "
                         "axis (")
             << axes.size() << "), not " << t;
  }
  return success();
}

LogicalResult DynamicBroadcastToOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  auto shape = cast<RankedTensorType>(getShape().getType());
  if (result.getElementType() != input.getElementType())
    return emitOpError("result ")
           << result << " must have the input's element type (input " << input
           << ")";
  if (shape.getRank() != 1 || shape.isDynamicDim(0))
    return emitOpError("shape must be a 1-D tensor of a static length, not ")
           << shape;
  int64_t rank = std::max(input.getRank(), shape.getDimSize(0));
  if (result.getRank() != rank)
    return emitOpError("result ")
           << result << " must have rank " << rank
           << " (the larger of the input's and the shape's length)";
  // Where the input has a static dim other than 1, the result has it.
  for (int64_t d = 0; d < input.getRank(); ++d) {
    int64_t in = input.getDimSize(d);
    int64_t out = result.getDimSize(rank - input.getRank() + d);
    if (!ShapedType::isDynamic(in) && in != 1 && !ShapedType::isDynamic(out) &&
        out != in)
      return emitOpError("result ")
             << result << " cannot be a broadcast of the input " << input;
  }
  return success();
}

LogicalResult ClampOp::verify() {
  double lo = getMin().convertToDouble(), hi = getMax().convertToDouble();
  if (std::isnan(lo) || std::isnan(hi))
    return emitOpError("min and max must not be NaN");
  if (lo > hi)
    return emitOpError("min (") << lo << ") must not exceed max (" << hi << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Broadcasting elementwise ops
//===----------------------------------------------------------------------===//

/// Infers the broadcast result of `operands`, whose element types must agree
/// (from `firstValueOperand` on; earlier operands are masks). The result takes
/// `resultElementType`, or the shared element type when null.
template <typename OpT>
static LogicalResult
inferBroadcast(std::optional<Location> loc, ValueRange operands,
               ArrayRef<StringRef> names, unsigned firstValueOperand,
               Type resultElementType, SmallVectorImpl<Type> &inferred) {
  Inference<OpT> infer{loc};
  SmallVector<RankedTensorType> types;
  for (auto [value, name] : llvm::zip(operands, names)) {
    auto type = infer.ranked(value, name);
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  for (unsigned i = firstValueOperand + 1; i < types.size(); ++i)
    if (failed(infer.sameElementType(types[firstValueOperand], types[i],
                                     names[firstValueOperand], names[i])))
      return failure();
  SmallVector<int64_t> shape(types.front().getShape());
  for (unsigned i = 1; i < types.size(); ++i) {
    SmallVector<int64_t> next;
    if (!broadcastShapes(shape, types[i].getShape(), next)) {
      std::string list;
      for (auto [j, t] : llvm::enumerate(types))
        list += (j ? ", " : "") + shapeOf(t);
      return infer.fail("operand shapes ", list,
                        " are not broadcast-compatible");
    }
    shape = std::move(next);
  }
  if (!resultElementType)
    resultElementType = types[firstValueOperand].getElementType();
  inferred.push_back(RankedTensorType::get(shape, resultElementType));
  return success();
}

#define TGC_BINARY_INFERENCE(OP)                                               \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferBroadcast<OP>(loc, adaptor.getOperands(), {"lhs", "rhs"}, 0,   \
                              nullptr, inferred);                              \
  }
TGC_BINARY_INFERENCE(AddOp)
TGC_BINARY_INFERENCE(SubOp)
TGC_BINARY_INFERENCE(MulOp)
TGC_BINARY_INFERENCE(DivOp)
TGC_BINARY_INFERENCE(PowOp)
TGC_BINARY_INFERENCE(ShiftLeftOp)
TGC_BINARY_INFERENCE(ShiftRightOp)
TGC_BINARY_INFERENCE(MaxOp)
TGC_BINARY_INFERENCE(MinOp)
TGC_BINARY_INFERENCE(LogicalAndOp)
TGC_BINARY_INFERENCE(LogicalOrOp)
#undef TGC_BINARY_INFERENCE

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  Inference<CompareOp> infer{loc};
  if (failed(inferBroadcast<CompareOp>(loc, adaptor.getOperands(),
                                       {"lhs", "rhs"}, 0,
                                       IntegerType::get(context, 1), inferred)))
    return failure();
  auto predicate = adaptor.getPredicate();
  auto lhsType = cast<RankedTensorType>(adaptor.getLhs().getType());
  if (lhsType.getElementType().isInteger(1) &&
      predicate != ir::ComparePredicate::eq &&
      predicate != ir::ComparePredicate::ne)
    return infer.fail("predicate '", stringifyComparePredicate(predicate),
                      "' is not defined for i1 operands (only eq and ne are)");
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferBroadcast<SelectOp>(loc, adaptor.getOperands(),
                                  {"condition", "true_value", "false_value"}, 1,
                                  nullptr, inferred);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  Inference<MatmulOp> infer{loc};
  auto lhs = infer.ranked(adaptor.getLhs(), "lhs");
  auto rhs = infer.ranked(adaptor.getRhs(), "rhs");
  if (failed(lhs) || failed(rhs) ||
      failed(infer.sameElementType(*lhs, *rhs, "lhs", "rhs")))
    return failure();
  if (lhs->getRank() < 2 || rhs->getRank() < 2)
    return infer.fail("operands must have rank >= 2, got lhs ", shapeOf(*lhs),
                      " and rhs ", shapeOf(*rhs));
  ArrayRef<int64_t> a = lhs->getShape(), b = rhs->getShape();
  int64_t ra = a.size(), rb = b.size();
  bool ta = adaptor.getTransposeA(), tb = adaptor.getTransposeB();
  int64_t m = ta ? a[ra - 1] : a[ra - 2];
  int64_t ka = ta ? a[ra - 2] : a[ra - 1];
  int64_t kb = tb ? b[rb - 1] : b[rb - 2];
  int64_t n = tb ? b[rb - 2] : b[rb - 1];
  if (!dimsCompatible(ka, kb))
    return infer.fail("contraction dims differ: lhs ", shapeOf(*lhs),
                      ta ? " (transposed)" : "", " has K = ", ka, ", rhs ",
                      shapeOf(*rhs), tb ? " (transposed)" : "",
                      " has K = ", kb);
  SmallVector<int64_t> batch;
  if (!broadcastShapes(a.drop_back(2), b.drop_back(2), batch))
    return infer.fail("batch dims of lhs ", shapeOf(*lhs), " and rhs ",
                      shapeOf(*rhs), " are not broadcast-compatible");
  batch.push_back(m);
  batch.push_back(n);
  inferred.push_back(RankedTensorType::get(batch, lhs->getElementType()));
  return success();
}

namespace {
/// Validated spatial attributes shared by conv2d and the pooling ops.
struct WindowAttrs {
  ArrayRef<int64_t> strides, padding, dilations;
};
} // namespace

template <typename OpT>
static LogicalResult verifyWindowAttrs(const Inference<OpT> &infer,
                                       const WindowAttrs &w) {
  if (w.strides.size() != 2 ||
      llvm::any_of(w.strides, [](int64_t s) { return s <= 0; }))
    return infer.fail("strides must be 2 positive values");
  if (w.dilations.size() != 2 ||
      llvm::any_of(w.dilations, [](int64_t s) { return s <= 0; }))
    return infer.fail("dilations must be 2 positive values");
  if (w.padding.size() != 4 ||
      llvm::any_of(w.padding, [](int64_t s) { return s < 0; }))
    return infer.fail(
        "padding must be 4 non-negative values [top, left, bottom, right]");
  return success();
}

/// Computes the two output spatial dims; `kernel` may hold dynamic dims.
template <typename OpT>
static LogicalResult
inferSpatial(const Inference<OpT> &infer, ArrayRef<int64_t> spatial,
             ArrayRef<int64_t> kernel, const WindowAttrs &w, bool ceilMode,
             int64_t out[2]) {
  for (int i = 0; i < 2; ++i) {
    if (ShapedType::isDynamic(spatial[i]) || ShapedType::isDynamic(kernel[i])) {
      out[i] = ShapedType::kDynamic;
      continue;
    }
    StringRef which = i == 0 ? "height" : "width";
    __int128 padded = (__int128)spatial[i] + w.padding[i] + w.padding[i + 2];
    __int128 window = (__int128)w.dilations[i] * (kernel[i] - 1) + 1;
    if (window > INT64_MAX)
      return infer.fail("dilated window ", which, " overflows int64");
    if (padded > INT64_MAX)
      return infer.fail("padded input ", which, " overflows int64");
    if (padded < window)
      return infer.fail(
          "padded input ", which, " ", static_cast<int64_t>(padded),
          " is smaller than the dilated window ", static_cast<int64_t>(window));
    auto size =
        windowOutputSize(spatial[i], kernel[i], w.strides[i], w.padding[i],
                         w.padding[i + 2], w.dilations[i], ceilMode);
    if (!size)
      return infer.fail("output ", which, " overflows int64");
    out[i] = *size;
  }
  return success();
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  Inference<Conv2DOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  auto filter = infer.ranked(adaptor.getFilter(), "filter");
  if (failed(input) || failed(filter) ||
      failed(infer.sameElementType(*input, *filter, "input", "filter")))
    return failure();
  if (input->getRank() != 4)
    return infer.fail("input must have rank 4, got ", shapeOf(*input));
  if (filter->getRank() != 4)
    return infer.fail("filter must have rank 4, got ", shapeOf(*filter));
  WindowAttrs w{adaptor.getStrides(), adaptor.getPadding(),
                adaptor.getDilations()};
  if (failed(verifyWindowAttrs(infer, w)))
    return failure();
  int64_t groups = static_cast<int64_t>(adaptor.getGroups());
  if (groups < 1)
    return infer.fail("groups must be positive, got ", groups);

  bool nhwc = adaptor.getLayout() == ir::Layout::NHWC;
  ArrayRef<int64_t> x = input->getShape(), f = filter->getShape();
  int64_t n = x[0], c = nhwc ? x[3] : x[1];
  int64_t spatial[2] = {nhwc ? x[1] : x[2], nhwc ? x[2] : x[3]};
  // OIHW for NCHW, HWIO for NHWC.
  int64_t o = nhwc ? f[3] : f[0], ci = nhwc ? f[2] : f[1];
  int64_t kernel[2] = {nhwc ? f[0] : f[2], nhwc ? f[1] : f[3]};
  for (int i = 0; i < 2; ++i)
    if (!ShapedType::isDynamic(kernel[i]) && kernel[i] < 1)
      return infer.fail("filter spatial dims must be positive, got filter ",
                        shapeOf(*filter));
  if (!ShapedType::isDynamic(c) && c % groups != 0)
    return infer.fail("input channels ", c, " are not divisible by groups ",
                      groups);
  if (!ShapedType::isDynamic(o) && o % groups != 0)
    return infer.fail("output channels ", o, " are not divisible by groups ",
                      groups);
  if (!ShapedType::isDynamic(c) && !ShapedType::isDynamic(ci) &&
      ci != c / groups)
    return infer.fail("filter ", shapeOf(*filter), " has ", ci,
                      " input channels per group, but the input has ", c,
                      " channels in ", groups, " group(s) (expected ",
                      c / groups, ")");
  if (Value biasValue = adaptor.getBias()) {
    auto bias = infer.ranked(biasValue, "bias");
    if (failed(bias) ||
        failed(infer.sameElementType(*input, *bias, "input", "bias")))
      return failure();
    if (bias->getRank() != 1 || !dimsCompatible(bias->getDimSize(0), o))
      return infer.fail("bias must have shape ", formatShape({o}), ", got ",
                        shapeOf(*bias));
  }
  int64_t out[2];
  if (failed(inferSpatial(infer, spatial, kernel, w, false, out)))
    return failure();
  SmallVector<int64_t> shape = nhwc
                                   ? SmallVector<int64_t>{n, out[0], out[1], o}
                                   : SmallVector<int64_t>{n, o, out[0], out[1]};
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

template <typename OpT>
static LogicalResult inferPool(std::optional<Location> loc, Value inputValue,
                               ArrayRef<int64_t> kernel, const WindowAttrs &w,
                               bool ceilMode, ir::Layout layout,
                               SmallVectorImpl<Type> &inferred) {
  Inference<OpT> infer{loc};
  auto input = infer.ranked(inputValue, "input");
  if (failed(input))
    return failure();
  if (input->getRank() != 4)
    return infer.fail("input must have rank 4, got ", shapeOf(*input));
  if (kernel.size() != 2 ||
      llvm::any_of(kernel, [](int64_t k) { return k < 1; }))
    return infer.fail("kernel must be 2 positive values");
  if (failed(verifyWindowAttrs(infer, w)))
    return failure();
  for (int i = 0; i < 2; ++i) {
    __int128 window = (__int128)w.dilations[i] * (kernel[i] - 1) + 1;
    if (window > INT64_MAX)
      return infer.fail("dilated window ", i == 0 ? "height" : "width",
                        " overflows int64");
    if (w.padding[i] >= window || w.padding[i + 2] >= window)
      return infer.fail("padding must be smaller than the dilated window (",
                        static_cast<int64_t>(window), ") in each spatial dim");
  }
  bool nhwc = layout == ir::Layout::NHWC;
  SmallVector<int64_t> shape(input->getShape());
  int64_t spatial[2] = {shape[nhwc ? 1 : 2], shape[nhwc ? 2 : 3]};
  int64_t out[2];
  if (failed(inferSpatial(infer, spatial, kernel, w, ceilMode, out)))
    return failure();
  shape[nhwc ? 1 : 2] = out[0];
  shape[nhwc ? 2 : 3] = out[1];
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferPool<MaxPool2DOp>(
      loc, adaptor.getInput(), adaptor.getKernel(),
      {adaptor.getStrides(), adaptor.getPadding(), adaptor.getDilations()},
      adaptor.getCeilMode(), adaptor.getLayout(), inferred);
}

LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferPool<AvgPool2DOp>(
      loc, adaptor.getInput(), adaptor.getKernel(),
      {adaptor.getStrides(), adaptor.getPadding(), adaptor.getDilations()},
      adaptor.getCeilMode(), adaptor.getLayout(), inferred);
}

LogicalResult
GlobalAvgPool2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  Inference<GlobalAvgPool2DOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  if (input->getRank() != 4)
    return infer.fail("input must have rank 4, got ", shapeOf(*input));
  bool nhwc = adaptor.getLayout() == ir::Layout::NHWC;
  SmallVector<int64_t> shape(input->getShape());
  shape[nhwc ? 1 : 2] = 1;
  shape[nhwc ? 2 : 3] = 1;
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename OpT>
static LogicalResult inferReduce(std::optional<Location> loc, Value inputValue,
                                 ArrayRef<int64_t> axes, bool keepdims,
                                 Type resultElementType,
                                 SmallVectorImpl<Type> &inferred) {
  Inference<OpT> infer{loc};
  auto input = infer.ranked(inputValue, "input");
  if (failed(input))
    return failure();
  int64_t rank = input->getRank();
  if (axes.empty())
    return infer.fail("axes must name at least one dim");
  if (!isValidAxisList(axes, rank))
    return infer.fail("axes must be strictly increasing and in [0, ", rank,
                      ") for input ", shapeOf(*input));
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(input->getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(
      shape, resultElementType ? resultElementType : input->getElementType()));
  return success();
}

#define TGC_REDUCE_INFERENCE(OP)                                               \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReduce<OP>(loc, adaptor.getInput(), adaptor.getAxes(),         \
                           adaptor.getKeepdims(), nullptr, inferred);          \
  }
TGC_REDUCE_INFERENCE(ReduceSumOp)
TGC_REDUCE_INFERENCE(ReduceMeanOp)
TGC_REDUCE_INFERENCE(ReduceMaxOp)
TGC_REDUCE_INFERENCE(ReduceMinOp)
TGC_REDUCE_INFERENCE(ReduceProdOp)
#undef TGC_REDUCE_INFERENCE

template <typename OpT>
static LogicalResult
inferArgReduce(MLIRContext *context, std::optional<Location> loc,
               typename OpT::Adaptor adaptor, SmallVectorImpl<Type> &inferred) {
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  auto type = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (type && (axis < 0 || axis >= type.getRank()))
    return Inference<OpT>{loc}.fail("axis ", axis, " is out of range [0, ",
                                    type.getRank(), ") for input ",
                                    shapeOf(type));
  return inferReduce<OpT>(loc, adaptor.getInput(), {axis},
                          adaptor.getKeepdims(), IntegerType::get(context, 64),
                          inferred);
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduce<ArgMaxOp>(context, loc, adaptor, inferred);
}

LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduce<ArgMinOp>(context, loc, adaptor, inferred);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

static LogicalResult verifySoftmaxAxis(Operation *op, Type inputType,
                                       int64_t axis) {
  auto type = cast<RankedTensorType>(inputType);
  if (type.getRank() == 0)
    return op->emitOpError("input must have rank >= 1");
  if (axis < 0 || axis >= type.getRank())
    return op->emitOpError("axis ")
           << axis << " is out of range [0, " << type.getRank()
           << ") for input " << shapeOf(type);
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifySoftmaxAxis(*this, getInput().getType(),
                           static_cast<int64_t>(getAxis()));
}

LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmaxAxis(*this, getInput().getType(),
                           static_cast<int64_t>(getAxis()));
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  Inference<LayerNormOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis >= input->getRank())
    return infer.fail("axis ", axis, " is out of range [0, ", input->getRank(),
                      ") for input ", shapeOf(*input));
  if (!(adaptor.getEpsilon().convertToDouble() >= 0))
    return infer.fail("epsilon must be non-negative");
  ArrayRef<int64_t> normalized = input->getShape().drop_front(axis);
  for (auto [value, name] : {std::pair{adaptor.getScale(), "scale"},
                             std::pair{adaptor.getBias(), "bias"}}) {
    if (!value)
      continue;
    auto type = infer.ranked(value, name);
    if (failed(type) ||
        failed(infer.sameElementType(*input, *type, "input", name)))
      return failure();
    if (!areCompatibleTensorTypes(
            *type, RankedTensorType::get(normalized, type->getElementType())))
      return infer.fail(name, " must have the normalized shape ",
                        formatShape(normalized), ", got ", shapeOf(*type));
  }
  inferred.push_back(*input);
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  Inference<BatchNormOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis >= input->getRank())
    return infer.fail("channel axis ", axis, " is out of range [0, ",
                      input->getRank(), ") for input ", shapeOf(*input));
  if (!(adaptor.getEpsilon().convertToDouble() >= 0))
    return infer.fail("epsilon must be non-negative");
  int64_t channels = input->getDimSize(axis);
  for (auto [value, name] : {std::pair{adaptor.getScale(), "scale"},
                             std::pair{adaptor.getBias(), "bias"},
                             std::pair{adaptor.getMean(), "mean"},
                             std::pair{adaptor.getVariance(), "variance"}}) {
    auto type = infer.ranked(value, name);
    if (failed(type) ||
        failed(infer.sameElementType(*input, *type, "input", name)))
      return failure();
    if (type->getRank() != 1 || !dimsCompatible(type->getDimSize(0), channels))
      return infer.fail(name, " must have shape ", formatShape({channels}),
                        " (the channel dim ", axis, " of the input), got ",
                        shapeOf(*type));
  }
  inferred.push_back(*input);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

std::optional<std::string> tgc::reshapeCountMismatch(RankedTensorType in,
                                                     RankedTensorType out) {
  int64_t dynamicDims = out.getNumDynamicDims();
  if (dynamicDims > 1)
    return "result may have at most one dynamic dim, got " + shapeOf(out);
  SmallVector<int64_t> staticOut;
  for (int64_t d : out.getShape())
    if (!ShapedType::isDynamic(d))
      staticOut.push_back(d);
  auto outStatic = staticElementCount(staticOut);
  if (!outStatic)
    return "result shape " + shapeOf(out) + " overflows int64";
  if (dynamicDims == 1 && *outStatic == 0)
    return "cannot infer the dynamic dim of " + shapeOf(out) +
           ": the other dims hold zero elements";
  auto inCount = staticElementCount(in.getShape());
  if (!inCount)
    return std::nullopt; // Checked when the function runs.
  if (dynamicDims == 0 && *inCount != *outStatic)
    return "input " + shapeOf(in) + " has " + std::to_string(*inCount) +
           " elements but result " + shapeOf(out) + " has " +
           std::to_string(*outStatic);
  if (dynamicDims == 1 && *inCount % *outStatic != 0)
    return "input " + shapeOf(in) + " with " + std::to_string(*inCount) +
           " elements cannot be reshaped to " + shapeOf(out);
  return std::nullopt;
}

LogicalResult ReshapeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from input element type "
           << in.getElementType();
  if (auto mismatch = reshapeCountMismatch(in, out))
    return emitOpError(*mismatch);
  return success();
}

LogicalResult ShapeOfOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  Inference<ShapeOfOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  inferred.push_back(
      RankedTensorType::get({input->getRank()}, IntegerType::get(context, 64)));
  return success();
}

LogicalResult
DynamicReshapeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  Inference<DynamicReshapeOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  auto shape = infer.ranked(adaptor.getShape(), "shape");
  if (failed(input) || failed(shape))
    return failure();
  if (shape->getRank() != 1 || shape->isDynamicDim(0))
    return infer.fail("shape must be a 1-D tensor of static length, got ",
                      shapeOf(*shape));
  int64_t rank = shape->getDimSize(0);
  SmallVector<int64_t> dims(rank, ShapedType::kDynamic);
  // A constant shape gives static dims (-1 stays dynamic unless the input's
  // element count settles it).
  DenseIntElementsAttr values;
  if (matchPattern(adaptor.getShape(), m_Constant(&values))) {
    int inferredDims = 0;
    for (auto [i, v] : llvm::enumerate(values.getValues<int64_t>())) {
      if (v < -1)
        return infer.fail("shape has invalid dim ", v,
                          " (dims are >= 0, or -1 to infer one)");
      if (v == -1)
        ++inferredDims;
      else if (v == 0 && adaptor.getCopyZeros())
        dims[i] = static_cast<int64_t>(i) < input->getRank()
                      ? input->getDimSize(i)
                      : ShapedType::kDynamic;
      else
        dims[i] = v;
    }
    if (inferredDims > 1)
      return infer.fail("shape may contain -1 (infer this dim) only once");
    auto inCount = staticElementCount(input->getShape());
    if (inferredDims == 1 && inCount) {
      int64_t rest = 1;
      bool overflow = false;
      for (int64_t d : dims)
        if (!ShapedType::isDynamic(d))
          overflow |= __builtin_mul_overflow(rest, d, &rest);
      if (!overflow && rest > 0 && *inCount % rest == 0)
        for (int64_t &d : dims)
          if (ShapedType::isDynamic(d))
            d = *inCount / rest;
    }
    auto outCount = staticElementCount(dims);
    if (inCount && outCount && *inCount != *outCount)
      return infer.fail("cannot reshape input ", shapeOf(*input), " (",
                        *inCount, " elements) to ", formatShape(dims));
  } else if (auto known = knownIntElements(adaptor.getShape());
             known && static_cast<int64_t>(known->size()) == rank) {
    // Elements known before the function runs (a Concat of constants and
    // static dims read with Shape) give those dims.
    for (auto [i, v] : llvm::enumerate(*known)) {
      if (!v || *v < 0)
        continue;
      if (*v > 0 || !adaptor.getCopyZeros())
        dims[i] = *v;
      else if (static_cast<int64_t>(i) < input->getRank())
        dims[i] = input->getDimSize(i);
    }
  }
  inferred.push_back(RankedTensorType::get(dims, input->getElementType()));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  Inference<TransposeOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  int64_t rank = input->getRank();
  SmallVector<bool> seen(rank, false);
  bool valid = static_cast<int64_t>(perm.size()) == rank;
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= rank || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid)
    return infer.fail("permutation must be a permutation of [0, ", rank,
                      ") for input ", shapeOf(*input));
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(input->getDimSize(p));
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult BroadcastToOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from input element type "
           << in.getElementType();
  if (in.getRank() > out.getRank())
    return emitOpError("cannot broadcast ")
           << shapeOf(in) << " to the lower-rank " << shapeOf(out);
  int64_t offset = out.getRank() - in.getRank();
  for (int64_t i = 0; i < out.getRank(); ++i) {
    int64_t r = out.getDimSize(i);
    if (i < offset) {
      if (ShapedType::isDynamic(r))
        return emitOpError("dynamic result dim ")
               << i << " has no input dim to take its size from";
      continue;
    }
    int64_t d = in.getDimSize(i - offset);
    if (ShapedType::isDynamic(r) || ShapedType::isDynamic(d))
      continue;
    if (d != 1 && d != r)
      return emitOpError("cannot broadcast ")
             << shapeOf(in) << " to " << shapeOf(out) << " (input dim "
             << i - offset << " is " << d << ")";
  }
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  Inference<ConcatOp> infer{loc};
  if (adaptor.getInputs().empty())
    return infer.fail("needs at least one input");
  auto first = infer.ranked(adaptor.getInputs()[0], "input #0");
  if (failed(first))
    return failure();
  int64_t rank = first->getRank();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis >= rank)
    return infer.fail("axis ", axis, " is out of range [0, ", rank,
                      ") for input ", shapeOf(*first));
  SmallVector<int64_t> shape(first->getShape());
  for (auto [i, value] : llvm::enumerate(adaptor.getInputs().drop_front())) {
    std::string name = "input #" + std::to_string(i + 1);
    auto type = infer.ranked(value, name);
    if (failed(type) ||
        failed(infer.sameElementType(*first, *type, "input #0", name)))
      return failure();
    if (type->getRank() != rank)
      return infer.fail("inputs must have the same rank, got ", shapeOf(*first),
                        " and ", shapeOf(*type));
    for (int64_t d = 0; d < rank; ++d) {
      int64_t dim = type->getDimSize(d);
      if (d == axis) {
        auto sum = addDims(shape[d], dim);
        if (!sum)
          return infer.fail("concatenated dim ", axis, " overflows int64");
        shape[d] = *sum;
      } else if (!dimsCompatible(shape[d], dim)) {
        return infer.fail("input #", i + 1, " ", shapeOf(*type),
                          " differs from the others in dim ", d, " (expected ",
                          shape[d], ")");
      } else if (ShapedType::isDynamic(shape[d])) {
        shape[d] = dim;
      }
    }
  }
  inferred.push_back(RankedTensorType::get(shape, first->getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  Inference<SliceOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  size_t rank = input->getRank();
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds();
  SmallVector<int64_t> steps(rank, 1);
  if (auto given = adaptor.getSteps())
    steps.assign(given->begin(), given->end());
  if (starts.size() != rank || ends.size() != rank || steps.size() != rank)
    return infer.fail("starts, ends and steps must each have one value per "
                      "dim of input ",
                      shapeOf(*input));
  if (llvm::is_contained(steps, 0))
    return infer.fail("steps must not be 0");
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    int64_t size = input->getDimSize(d);
    shape.push_back(ShapedType::isDynamic(size)
                        ? ShapedType::kDynamic
                        : sliceLength(size, starts[d], ends[d], steps[d]));
  }
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  Inference<PadOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  size_t rank = input->getRank();
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  if (low.size() != rank || high.size() != rank)
    return infer.fail("low and high must each have one value per dim of input ",
                      shapeOf(*input));
  if (llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v < 0; }))
    return infer.fail("padding amounts must be non-negative");
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    auto withLow = addDims(input->getDimSize(d), low[d]);
    auto total = withLow ? addDims(*withLow, high[d]) : std::nullopt;
    if (!total)
      return infer.fail("padded dim ", d, " overflows int64");
    shape.push_back(*total);
  }
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  Inference<GatherOp> infer{loc};
  auto data = infer.ranked(adaptor.getData(), "data");
  auto indices = infer.ranked(adaptor.getIndices(), "indices");
  if (failed(data) || failed(indices))
    return failure();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis >= data->getRank())
    return infer.fail("axis ", axis, " is out of range [0, ", data->getRank(),
                      ") for data ", shapeOf(*data));
  SmallVector<int64_t> shape(data->getShape().take_front(axis));
  llvm::append_range(shape, indices->getShape());
  llvm::append_range(shape, data->getShape().drop_front(axis + 1));
  inferred.push_back(RankedTensorType::get(shape, data->getElementType()));
  return success();
}

/// The checks shared by the scatters: the updates' element type and the
/// reduction's need for numbers.
template <typename OpT>
static LogicalResult
verifyScatterCommon(const Inference<OpT> &infer, RankedTensorType data,
                    RankedTensorType updates, ScatterReduction reduction) {
  if (failed(infer.sameElementType(data, updates, "data", "updates")))
    return failure();
  if (reduction != ScatterReduction::none &&
      data.getElementType().isSignlessInteger(1))
    return infer.fail("reduction '", stringifyScatterReduction(reduction),
                      "' needs a numeric element type, got ",
                      data.getElementType());
  return success();
}

LogicalResult
ScatterElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &inferred) {
  Inference<ScatterElementsOp> infer{loc};
  auto data = infer.ranked(adaptor.getData(), "data");
  auto indices = infer.ranked(adaptor.getIndices(), "indices");
  auto updates = infer.ranked(adaptor.getUpdates(), "updates");
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  int64_t rank = data->getRank();
  if (axis < 0 || axis >= rank)
    return infer.fail("axis ", axis, " is out of range [0, ", rank,
                      ") for data ", shapeOf(*data));
  if (indices->getRank() != rank)
    return infer.fail("indices ", shapeOf(*indices),
                      " must have the rank of data ", shapeOf(*data));
  if (!areCompatibleTensorTypes(
          RankedTensorType::get(updates->getShape(), data->getElementType()),
          RankedTensorType::get(indices->getShape(), data->getElementType())))
    return infer.fail("updates ", shapeOf(*updates),
                      " must have the shape of indices ", shapeOf(*indices));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t i = indices->getDimSize(d), n = data->getDimSize(d);
    if (d != axis && !ShapedType::isDynamic(i) && !ShapedType::isDynamic(n) &&
        i > n)
      return infer.fail("indices dim ", d, " (", i, ") exceeds data dim ", d,
                        " (", n, ")");
  }
  if (failed(
          verifyScatterCommon(infer, *data, *updates, adaptor.getReduction())))
    return failure();
  inferred.push_back(*data);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  Inference<ScatterNDOp> infer{loc};
  auto data = infer.ranked(adaptor.getData(), "data");
  auto indices = infer.ranked(adaptor.getIndices(), "indices");
  auto updates = infer.ranked(adaptor.getUpdates(), "updates");
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  if (indices->getRank() < 1)
    return infer.fail("indices must have rank >= 1");
  int64_t k = indices->getShape().back();
  if (ShapedType::isDynamic(k))
    return infer.fail("the last dim of indices ", shapeOf(*indices),
                      " must be static");
  if (k < 1 || k > data->getRank())
    return infer.fail("the last dim of indices (", k, ") must be in [1, ",
                      data->getRank(), "] for data ", shapeOf(*data));
  SmallVector<int64_t> expected(indices->getShape().drop_back());
  llvm::append_range(expected, data->getShape().drop_front(k));
  if (!areCompatibleTensorTypes(
          RankedTensorType::get(updates->getShape(), data->getElementType()),
          RankedTensorType::get(expected, data->getElementType())))
    return infer.fail("updates ", shapeOf(*updates), " must have shape ",
                      formatShape(expected),
                      " (indices.shape[:-1] + data.shape[k:])");
  if (failed(
          verifyScatterCommon(infer, *data, *updates, adaptor.getReduction())))
    return failure();
  inferred.push_back(*data);
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  Inference<TopKOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  int64_t rank = input->getRank();
  if (rank == 0)
    return infer.fail("input must have rank >= 1");
  int64_t axis = static_cast<int64_t>(adaptor.getAxis());
  if (axis < 0 || axis >= rank)
    return infer.fail("axis ", axis, " is out of range [0, ", rank,
                      ") for input ", shapeOf(*input));
  int64_t k = static_cast<int64_t>(adaptor.getK());
  if (k < -1)
    return infer.fail("k must be -1 (every element) or non-negative, got ", k);
  int64_t size = input->getDimSize(axis);
  if (!ShapedType::isDynamic(size) && k > size)
    return infer.fail("k = ", k, " exceeds dim ", axis, " of size ", size,
                      " in input ", shapeOf(*input));
  SmallVector<int64_t> shape(input->getShape());
  shape[axis] = k == -1 ? size : k;
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  inferred.push_back(
      RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  Inference<SqueezeOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (!isValidAxisList(axes, input->getRank()))
    return infer.fail("axes must be strictly increasing and in [0, ",
                      input->getRank(), ") for input ", shapeOf(*input));
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < input->getRank(); ++d) {
    int64_t size = input->getDimSize(d);
    if (!llvm::is_contained(axes, d)) {
      shape.push_back(size);
      continue;
    }
    if (!ShapedType::isDynamic(size) && size != 1)
      return infer.fail("cannot squeeze dim ", d, " of size ", size,
                        " in input ", shapeOf(*input));
  }
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  Inference<UnsqueezeOp> infer{loc};
  auto input = infer.ranked(adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  ArrayRef<int64_t> axes = adaptor.getAxes();
  int64_t outRank = input->getRank() + static_cast<int64_t>(axes.size());
  if (!isValidAxisList(axes, outRank))
    return infer.fail("axes must be strictly increasing and in [0, ", outRank,
                      ") (the result rank)");
  SmallVector<int64_t> shape;
  int64_t next = 0;
  for (int64_t d = 0; d < outRank; ++d)
    shape.push_back(llvm::is_contained(axes, d) ? 1
                                                : input->getDimSize(next++));
  inferred.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Declared result types may refine dynamic inferred dims.
//===----------------------------------------------------------------------===//

#define TGC_COMPATIBLE_RETURN_TYPES(OP)                                        \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    return areCompatibleTensorTypes(l, r);                                     \
  }
TGC_COMPATIBLE_RETURN_TYPES(AddOp)
TGC_COMPATIBLE_RETURN_TYPES(SubOp)
TGC_COMPATIBLE_RETURN_TYPES(MulOp)
TGC_COMPATIBLE_RETURN_TYPES(DivOp)
TGC_COMPATIBLE_RETURN_TYPES(PowOp)
TGC_COMPATIBLE_RETURN_TYPES(ShiftLeftOp)
TGC_COMPATIBLE_RETURN_TYPES(ShiftRightOp)
TGC_COMPATIBLE_RETURN_TYPES(MaxOp)
TGC_COMPATIBLE_RETURN_TYPES(MinOp)
TGC_COMPATIBLE_RETURN_TYPES(LogicalAndOp)
TGC_COMPATIBLE_RETURN_TYPES(LogicalOrOp)
TGC_COMPATIBLE_RETURN_TYPES(CompareOp)
TGC_COMPATIBLE_RETURN_TYPES(SelectOp)
TGC_COMPATIBLE_RETURN_TYPES(MatmulOp)
TGC_COMPATIBLE_RETURN_TYPES(Conv2DOp)
TGC_COMPATIBLE_RETURN_TYPES(MaxPool2DOp)
TGC_COMPATIBLE_RETURN_TYPES(AvgPool2DOp)
TGC_COMPATIBLE_RETURN_TYPES(GlobalAvgPool2DOp)
TGC_COMPATIBLE_RETURN_TYPES(ReduceSumOp)
TGC_COMPATIBLE_RETURN_TYPES(ReduceMeanOp)
TGC_COMPATIBLE_RETURN_TYPES(ReduceMaxOp)
TGC_COMPATIBLE_RETURN_TYPES(ReduceMinOp)
TGC_COMPATIBLE_RETURN_TYPES(ReduceProdOp)
TGC_COMPATIBLE_RETURN_TYPES(ArgMaxOp)
TGC_COMPATIBLE_RETURN_TYPES(ArgMinOp)
TGC_COMPATIBLE_RETURN_TYPES(LayerNormOp)
TGC_COMPATIBLE_RETURN_TYPES(BatchNormOp)
TGC_COMPATIBLE_RETURN_TYPES(TransposeOp)
TGC_COMPATIBLE_RETURN_TYPES(ConcatOp)
TGC_COMPATIBLE_RETURN_TYPES(SliceOp)
TGC_COMPATIBLE_RETURN_TYPES(PadOp)
TGC_COMPATIBLE_RETURN_TYPES(GatherOp)
TGC_COMPATIBLE_RETURN_TYPES(ScatterElementsOp)
TGC_COMPATIBLE_RETURN_TYPES(ScatterNDOp)
TGC_COMPATIBLE_RETURN_TYPES(TopKOp)
TGC_COMPATIBLE_RETURN_TYPES(SqueezeOp)
TGC_COMPATIBLE_RETURN_TYPES(UnsqueezeOp)
TGC_COMPATIBLE_RETURN_TYPES(ShapeOfOp)
TGC_COMPATIBLE_RETURN_TYPES(DynamicReshapeOp)
#undef TGC_COMPATIBLE_RETURN_TYPES

#define GET_OP_CLASSES
#include "dialects/TgcOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Fusion regions
//===----------------------------------------------------------------------===//

LogicalResult FusionOp::verify() {
  if (getBody().empty())
    return emitOpError("needs a body");
  Block &block = getBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError("body takes ")
           << block.getNumArguments() << " arguments but the fusion has "
           << getInputs().size() << " inputs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), getInputs())))
    if (std::get<0>(pair) != std::get<1>(pair).getType())
      return emitOpError("body argument #")
             << i << " has type " << std::get<0>(pair) << " but input #" << i
             << " is " << std::get<1>(pair).getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError("body must end with tgc.yield");
  if (yield.getValues().size() != getNumResults())
    return emitOpError("body yields ")
           << yield.getValues().size() << " values but the fusion has "
           << getNumResults() << " results";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(yield.getValues().getTypes(), getResultTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError("yielded value #")
             << i << " has type " << std::get<0>(pair) << " but result #" << i
             << " is " << std::get<1>(pair);
  return success();
}

void FusionOp::inlineBody() {
  OpBuilder builder(*this);
  IRMapping mapping;
  Block &block = getBlock();
  for (auto [arg, input] : llvm::zip(block.getArguments(), getInputs()))
    mapping.map(arg, input);
  for (Operation &op : block.without_terminator())
    builder.clone(op, mapping);
  auto yield = cast<YieldOp>(block.getTerminator());
  for (auto [result, value] : llvm::zip(getResults(), yield.getValues()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(value));
  erase();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// Checks that `block` (the region `name` of `op`) takes arguments of types
/// compatible with `expected` and ends with a tgc.yield, which it returns.
static FailureOr<YieldOp> verifyControlFlowBlock(Operation *op, Region &region,
                                                 StringRef name,
                                                 TypeRange expected) {
  if (region.empty())
    return op->emitOpError("needs a ") << name << " region";
  Block &block = region.front();
  if (block.getNumArguments() != expected.size())
    return op->emitOpError("'")
           << name << "' region takes " << block.getNumArguments()
           << " arguments but " << expected.size() << " are passed to it";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), expected)))
    if (!areCompatibleTensorTypes(std::get<0>(pair), std::get<1>(pair)))
      return op->emitOpError("'")
             << name << "' region argument #" << i << " has type "
             << std::get<0>(pair) << " but is passed " << std::get<1>(pair);
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError("'") << name << "' region must end with tgc.yield";
  return yield;
}

/// Whether `type` is a tensor<i1> that holds exactly one element (where its
/// shape is static; a dynamic one is checked when the function runs).
static bool isPredicateType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isInteger(1))
    return false;
  for (int64_t d : tensor.getShape())
    if (!ShapedType::isDynamic(d) && d != 1)
      return false;
  return true;
}

LogicalResult IfOp::verify() {
  if (!isPredicateType(getCondition().getType()))
    return emitOpError("condition must be a tensor<i1> holding one element, "
                       "not ")
           << getCondition().getType();
  TypeRange inputs = getInputs().getTypes();
  for (auto [region, name] :
       {std::pair<Region *, StringRef>{&getThenRegion(), "then"},
        {&getElseRegion(), "else"}}) {
    FailureOr<YieldOp> yield =
        verifyControlFlowBlock(*this, *region, name, inputs);
    if (failed(yield))
      return failure();
    if (yield->getValues().size() != getNumResults())
      return emitOpError("'")
             << name << "' yields " << yield->getValues().size()
             << " values but the if has " << getNumResults() << " results";
    for (auto [i, pair] : llvm::enumerate(
             llvm::zip(yield->getValues().getTypes(), getResultTypes())))
      if (!areCompatibleTensorTypes(std::get<0>(pair), std::get<1>(pair)))
        return emitOpError("'")
               << name << "' yields " << std::get<0>(pair) << " as result #"
               << i << ", which is " << std::get<1>(pair);
  }
  return success();
}

LogicalResult WhileOp::verify() {
  if (getNumResults() != getInits().size())
    return emitOpError("has ") << getNumResults() << " results for "
                               << getInits().size() << " carried values";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getInits().getTypes(), getResultTypes())))
    if (!areCompatibleTensorTypes(std::get<0>(pair), std::get<1>(pair)))
      return emitOpError("carried value #")
             << i << " starts as " << std::get<0>(pair) << " but the result is "
             << std::get<1>(pair);
  // Both regions take the carried values (of the results' types: a carried
  // value keeps its type) and then the captures.
  SmallVector<Type> passed(getResultTypes());
  llvm::append_range(passed, getCaptures().getTypes());
  FailureOr<YieldOp> cond =
      verifyControlFlowBlock(*this, getCond(), "cond", passed);
  if (failed(cond))
    return failure();
  if (cond->getValues().size() != 1 ||
      !isPredicateType(cond->getValues()[0].getType()))
    return emitOpError("'cond' must yield one tensor<i1> holding one element");
  FailureOr<YieldOp> body =
      verifyControlFlowBlock(*this, getBody(), "body", passed);
  if (failed(body))
    return failure();
  if (body->getValues().size() != getNumResults())
    return emitOpError("'body' yields ")
           << body->getValues().size() << " values for " << getNumResults()
           << " carried values";
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(body->getValues().getTypes(), getResultTypes())))
    if (!areCompatibleTensorTypes(std::get<0>(pair), std::get<1>(pair)))
      return emitOpError("'body' changes carried value #")
             << i << " from " << std::get<1>(pair) << " to "
             << std::get<0>(pair)
             << " (a carried value keeps its type across iterations)";
  return success();
}
