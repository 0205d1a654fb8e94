//===- DataMovementKernels.cpp - constants and data movement --------------===//
//
// constant, reshape, transpose, broadcast_to, concat, slice, pad, gather,
// scatter_elements, scatter_nd, squeeze and unsqueeze. Apart from constant and
// pad's fill value these move raw elements without converting them.
//
//===----------------------------------------------------------------------===//

#include "codegen/reference/Kernels.h"
#include "dialects/ConstantData.h"
#include "runtime/DataDependent.h"

#include "dialects/ScalarMath.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;
using llvm::Expected;

namespace tgc::reference::detail {
namespace {

using Result = std::optional<Expected<HostTensor>>;

const char *bytes(const HostTensor &t) {
  return static_cast<const char *>(t.data());
}
char *bytes(HostTensor &t) { return static_cast<char *>(t.data()); }

/// A copy of `in` with a new shape of the same element count.
Expected<HostTensor> withShape(Operation *op, const HostTensor &in,
                               Shape shape) {
  auto out = allocate(op, in.dtype(), std::move(shape));
  if (!out)
    return out.takeError();
  if (in.byteSize())
    std::memcpy(out->data(), in.data(), in.byteSize());
  return out;
}

/// Copies elements of `in` into `out` (row-major over out's shape), reading
/// input element `base + sum(index[d] * strides[d])`.
void gatherStrided(const HostTensor &in, HostTensor &out, int64_t base,
                   const Shape &strides) {
  size_t size = runtime::dtypeSize(in.dtype());
  const char *src = bytes(in);
  char *dst = bytes(out);
  std::array<Shape, 1> s = {strides};
  forEachBroadcast<1>(out.shape(), s, [&](int64_t i, int64_t off) {
    std::memcpy(dst + i * size, src + (base + off) * size, size);
  });
}

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

Expected<HostTensor> runConstant(ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense) {
    // A dense_resource (a file-backed ONNX weight): its bytes are the
    // tensor's storage.
    std::string error;
    std::optional<ConstantBytes> bytes =
        readConstantBytes(op.getValue(), &error);
    if (!bytes)
      return opError(op, error.empty()
                             ? "value must be a dense or dense_resource "
                               "elements attribute with its data"
                             : error);
    auto type = cast<RankedTensorType>(op.getType());
    auto allocated =
        allocateUninitialized(op, resultDType(op), Shape(type.getShape()));
    if (!allocated)
      return allocated.takeError();
    if (allocated->byteSize() != bytes->size())
      return opError(
          op, "the value's " + std::to_string(bytes->size()) +
                  " bytes do not fit " +
                  describeTensor(allocated->dtype(), allocated->shape()));
    if (bytes->size())
      std::memcpy(allocated->data(), bytes->data(), bytes->size());
    return std::move(*allocated);
  }
  auto type = cast<RankedTensorType>(dense.getType());
  if (!type.hasStaticShape())
    return opError(op, "value must have a static shape");
  // Every path below writes every element: no zero fill (a ResNet-50's
  // weights are 100 MB).
  auto allocated =
      allocateUninitialized(op, resultDType(op), Shape(type.getShape()));
  if (!allocated)
    return allocated.takeError();
  HostTensor out = std::move(*allocated);
  int64_t n = out.numElements();
  Type elementType = type.getElementType();
  if (!dense.isSplat() && (elementType.isF32() || elementType.isF64()) &&
      dense.getRawData().size() == out.byteSize()) {
    if (n)
      std::memcpy(out.data(), dense.getRawData().data(), out.byteSize());
    return out;
  }
  if (isa<FloatType>(elementType)) {
    auto toDouble = [](const APFloat &f) {
      APFloat d = f;
      bool lost;
      d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      return d.convertToDouble();
    };
    if (!dense.isSplat() && elementType.isF32()) {
      float *p = out.dataAs<float>();
      for (float f : dense.getValues<float>())
        *p++ = f;
    } else if (!dense.isSplat() && elementType.isF64()) {
      double *p = out.dataAs<double>();
      for (double f : dense.getValues<double>())
        *p++ = f;
    } else if (dense.isSplat()) {
      double v = toDouble(dense.getSplatValue<APFloat>());
      for (int64_t i = 0; i < n; ++i)
        out.setDouble(i, v);
    } else {
      int64_t i = 0;
      for (const APFloat &f : dense.getValues<APFloat>())
        out.setDouble(i++, toDouble(f));
    }
    return out;
  }
  bool zeroExtend = elementType.isInteger(1) || elementType.isUnsignedInteger();
  auto toInt = [zeroExtend](const APInt &v) {
    return zeroExtend ? static_cast<int64_t>(v.getZExtValue())
                      : v.getSExtValue();
  };
  if (dense.isSplat()) {
    int64_t v = toInt(dense.getSplatValue<APInt>());
    for (int64_t i = 0; i < n; ++i)
      out.setInt(i, v);
  } else {
    int64_t i = 0;
    for (const APInt &v : dense.getValues<APInt>())
      out.setInt(i++, toInt(v));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Shape changes
//===----------------------------------------------------------------------===//

Expected<HostTensor> runReshape(ReshapeOp op, const HostTensor &in) {
  auto type = cast<RankedTensorType>(op.getType());
  Shape shape(type.getShape());
  int64_t staticCount = 1, dynamicIndex = -1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (ShapedType::isDynamic(d))
      dynamicIndex = static_cast<int64_t>(i);
    else
      staticCount *= d;
  }
  int64_t count = in.numElements();
  auto mismatch = [&] {
    return opError(op, "cannot reshape " +
                           describeTensor(in.dtype(), in.shape()) + " (" +
                           std::to_string(count) + " elements) to " +
                           describeTensor(in.dtype(), type.getShape()));
  };
  if (dynamicIndex >= 0) {
    if (staticCount == 0 || count % staticCount != 0)
      return mismatch();
    shape[dynamicIndex] = count / staticCount;
  } else if (staticCount != count) {
    return mismatch();
  }
  return withShape(op, in, std::move(shape));
}

Expected<HostTensor> runShapeOf(ShapeOfOp op, const HostTensor &in) {
  auto out = allocate(op, runtime::DType::I64, {in.rank()});
  if (!out)
    return out.takeError();
  for (int64_t d = 0; d < in.rank(); ++d)
    out->setInt(d, in.dim(d));
  return out;
}

/// nonzero: the coordinates of the nonzero elements (NaN is nonzero, -0.0
/// is zero), one column each, in row-major order.
Expected<HostTensor> runNonZero(NonZeroOp op, const HostTensor &in) {
  std::vector<double> values = readDoubles(in);
  std::vector<int64_t> found;
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i)
    if (values[static_cast<size_t>(i)] != 0.0 ||
        std::isnan(values[static_cast<size_t>(i)]))
      found.push_back(i);
  const int64_t n = static_cast<int64_t>(found.size());
  auto out = allocate(op, runtime::DType::I64, {in.rank(), n});
  if (!out)
    return out.takeError();
  for (int64_t j = 0; j < n; ++j) {
    std::vector<int64_t> coordinates = in.unflattenIndex(found[j]);
    for (int64_t d = 0; d < in.rank(); ++d)
      out->setInt(d * n + j, coordinates[static_cast<size_t>(d)]);
  }
  return out;
}

Expected<HostTensor> runDynamicReshape(DynamicReshapeOp op,
                                       const HostTensor &in,
                                       const HostTensor &shapeValues) {
  Shape shape;
  int64_t known = 1, inferred = -1;
  bool overflow = false;
  for (int64_t i = 0; i < shapeValues.numElements(); ++i) {
    int64_t d = shapeValues.getInt(i);
    if (d == 0 && op.getCopyZeros()) {
      if (i >= in.rank())
        return opError(op, "new shape entry #" + std::to_string(i) +
                               " is 0 (copy the input dim) but the input " +
                               describeTensor(in.dtype(), in.shape()) +
                               " has no such dim");
      d = in.dim(i);
    }
    if (d < -1 || (d == -1 && inferred >= 0))
      return opError(op, "invalid new shape: dim " + std::to_string(d) +
                             " at #" + std::to_string(i) +
                             " (dims are >= 0, or -1 once to infer one)");
    if (d == -1)
      inferred = i;
    else
      overflow |= __builtin_mul_overflow(known, d, &known);
    shape.push_back(d);
  }
  int64_t count = in.numElements();
  auto mismatch = [&] {
    std::string target = "[";
    for (auto [i, d] : llvm::enumerate(shape))
      target += (i ? ", " : "") + std::to_string(d);
    return opError(
        op, "cannot reshape " + describeTensor(in.dtype(), in.shape()) + " (" +
                std::to_string(count) + " elements) to " + target + "]");
  };
  if (overflow)
    return mismatch();
  if (inferred >= 0) {
    if (known == 0 || count % known != 0)
      return mismatch();
    shape[inferred] = count / known;
  } else if (known != count) {
    return mismatch();
  }
  return withShape(op, in, std::move(shape));
}

Expected<HostTensor> runSqueeze(SqueezeOp op, const HostTensor &in) {
  llvm::ArrayRef<int64_t> axes = op.getAxes();
  Shape shape;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (!llvm::is_contained(axes, d)) {
      shape.push_back(in.dim(d));
      continue;
    }
    if (in.dim(d) != 1)
      return opError(op, "cannot squeeze dim " + std::to_string(d) +
                             " of size " + std::to_string(in.dim(d)) +
                             " in input " +
                             describeTensor(in.dtype(), in.shape()));
  }
  return withShape(op, in, std::move(shape));
}

Expected<HostTensor> runUnsqueeze(UnsqueezeOp op, const HostTensor &in) {
  llvm::ArrayRef<int64_t> axes = op.getAxes();
  int64_t outRank = in.rank() + static_cast<int64_t>(axes.size());
  Shape shape;
  int64_t next = 0;
  for (int64_t d = 0; d < outRank; ++d)
    shape.push_back(llvm::is_contained(axes, d) ? 1 : in.dim(next++));
  return withShape(op, in, std::move(shape));
}

Expected<HostTensor> runTranspose(TransposeOp op, const HostTensor &in) {
  llvm::ArrayRef<int64_t> perm = op.getPermutation();
  Shape inStrides = rowMajorStrides(in.shape());
  Shape shape, strides;
  for (int64_t p : perm) {
    shape.push_back(in.dim(p));
    strides.push_back(inStrides[p]);
  }
  auto out = allocate(op, in.dtype(), shape);
  if (!out)
    return out.takeError();
  gatherStrided(in, *out, 0, strides);
  return out;
}

Expected<HostTensor> runBroadcastTo(BroadcastToOp op, const HostTensor &in) {
  auto type = cast<RankedTensorType>(op.getType());
  int64_t rank = type.getRank(), offset = rank - in.rank();
  Shape shape(type.getShape());
  for (int64_t i = 0; i < rank; ++i) {
    if (i < offset)
      continue; // Static (checked by the verifier).
    int64_t d = in.dim(i - offset);
    if (ShapedType::isDynamic(shape[i]))
      shape[i] = d;
    else if (d != 1 && d != shape[i])
      return opError(op, "cannot broadcast " +
                             describeTensor(in.dtype(), in.shape()) + " to " +
                             describeTensor(in.dtype(), type.getShape()) +
                             " (input dim " + std::to_string(i - offset) +
                             " is " + std::to_string(d) + ")");
  }
  auto out = allocate(op, in.dtype(), shape);
  if (!out)
    return out.takeError();
  gatherStrided(in, *out, 0, broadcastStrides(in.shape(), shape));
  return out;
}

Expected<HostTensor> runConcat(ConcatOp op, Operands operands) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  const HostTensor &first = *operands[0];
  Shape shape = first.shape();
  shape[axis] = 0;
  for (auto [i, t] : llvm::enumerate(operands)) {
    for (int64_t d = 0; d < first.rank(); ++d)
      if (d != axis && t->dim(d) != first.dim(d))
        return opError(op, "input #" + std::to_string(i) + " " +
                               describeTensor(t->dtype(), t->shape()) +
                               " differs from input #0 " +
                               describeTensor(first.dtype(), first.shape()) +
                               " in dim " + std::to_string(d));
    shape[axis] += t->dim(axis);
  }
  auto out = allocate(op, first.dtype(), shape);
  if (!out)
    return out.takeError();
  // Each input contributes, per outer index, a contiguous chunk of
  // dim(axis) * inner elements.
  size_t size = runtime::dtypeSize(first.dtype());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < first.rank(); ++d)
    inner *= shape[d];
  int64_t rowBytes = shape[axis] * inner * static_cast<int64_t>(size);
  char *dst = bytes(*out);
  int64_t column = 0;
  for (const HostTensor *t : operands) {
    int64_t chunk = t->dim(axis) * inner * static_cast<int64_t>(size);
    if (chunk)
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(dst + o * rowBytes + column, bytes(*t) + o * chunk, chunk);
    column += chunk;
  }
  return out;
}

Expected<HostTensor> runSlice(SliceOp op, const HostTensor &in) {
  llvm::ArrayRef<int64_t> starts = op.getStarts(), ends = op.getEnds();
  auto steps = op.getSteps();
  Shape inStrides = rowMajorStrides(in.shape());
  Shape shape, strides;
  int64_t base = 0;
  for (int64_t d = 0; d < in.rank(); ++d) {
    int64_t size = in.dim(d), step = steps ? (*steps)[d] : 1;
    int64_t len = sliceLength(size, starts[d], ends[d], step);
    shape.push_back(len);
    strides.push_back(inStrides[d] * step);
    if (len > 0)
      base += sliceStart(size, starts[d], step) * inStrides[d];
  }
  auto out = allocate(op, in.dtype(), shape);
  if (!out)
    return out.takeError();
  gatherStrided(in, *out, base, strides);
  return out;
}

/// dynamic_slice: tgc.slice's numpy bounds (sliceStart / sliceLength) with
/// the starts, ends and steps read from the operands (independent of the
/// runtime's host kernel, which the CPU backend runs).
Expected<HostTensor> runDynamicSlice(DynamicSliceOp op, Operands operands) {
  const HostTensor &in = *operands[0];
  llvm::ArrayRef<int64_t> axes = op.getAxes();
  for (size_t k = 1; k < 4; ++k)
    if (operands[k]->numElements() != static_cast<int64_t>(axes.size()))
      return opError(
          op, "starts, ends and steps must hold " +
                  std::to_string(axes.size()) +
                  " value(s), one per axis, not " +
                  describeTensor(operands[k]->dtype(), operands[k]->shape()));
  Shape starts(in.rank(), 0), ends(in.rank(), INT64_MAX), steps(in.rank(), 1);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    const int64_t k = static_cast<int64_t>(i);
    starts[axis] = operands[1]->getInt(k);
    ends[axis] = operands[2]->getInt(k);
    steps[axis] = operands[3]->getInt(k);
    if (steps[axis] == 0)
      return opError(op, "step " + std::to_string(i) + " is 0");
  }
  Shape inStrides = rowMajorStrides(in.shape());
  Shape shape, strides;
  int64_t base = 0;
  for (int64_t d = 0; d < in.rank(); ++d) {
    int64_t len = sliceLength(in.dim(d), starts[d], ends[d], steps[d]);
    shape.push_back(len);
    strides.push_back(inStrides[d] * steps[d]);
    if (len > 0)
      base += sliceStart(in.dim(d), starts[d], steps[d]) * inStrides[d];
  }
  auto out = allocate(op, in.dtype(), shape);
  if (!out)
    return out.takeError();
  gatherStrided(in, *out, base, strides);
  return out;
}

Expected<HostTensor> runPad(PadOp op, const HostTensor &in) {
  llvm::ArrayRef<int64_t> low = op.getLow(), high = op.getHigh();
  Shape shape;
  for (int64_t d = 0; d < in.rank(); ++d)
    shape.push_back(low[d] + in.dim(d) + high[d]);
  auto out = allocate(op, in.dtype(), shape);
  if (!out)
    return out.takeError();
  int64_t n = out->numElements();
  if (n == 0)
    return out;
  // Fill with the value converted to the element type.
  double value = op.getValue().convertToDouble();
  if (runtime::isFloatDType(in.dtype()))
    out->setDouble(0, value);
  else
    out->setInt(0, scalar::floatToInt(value, runtime::dtypeBits(in.dtype()),
                                      runtime::isUnsignedDType(in.dtype())));
  size_t size = runtime::dtypeSize(in.dtype());
  char *dst = bytes(*out);
  for (int64_t i = 1; i < n; ++i)
    std::memcpy(dst + i * size, dst, size);
  // Copy the input into place.
  Shape outStrides = rowMajorStrides(shape);
  int64_t base = 0;
  for (int64_t d = 0; d < in.rank(); ++d)
    base += low[d] * outStrides[d];
  const char *src = bytes(in);
  std::array<Shape, 1> strides = {outStrides};
  forEachBroadcast<1>(in.shape(), strides, [&](int64_t i, int64_t off) {
    std::memcpy(dst + (base + off) * size, src + i * size, size);
  });
  return out;
}

Expected<HostTensor> runGather(GatherOp op, const HostTensor &data,
                               const HostTensor &indices) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  Shape shape(data.shape().begin(), data.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), data.shape().begin() + axis + 1,
               data.shape().end());
  int64_t size = data.dim(axis);
  std::vector<int64_t> idx = readInts(indices);
  for (int64_t &i : idx) {
    if (i < -size || i >= size)
      return opError(op, "index " + std::to_string(i) + " is out of range [" +
                             std::to_string(-size) + ", " +
                             std::to_string(size) + ")");
    if (i < 0)
      i += size;
  }
  auto out = allocate(op, data.dtype(), shape);
  if (!out)
    return out.takeError();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= data.dim(d);
  for (int64_t d = axis + 1; d < data.rank(); ++d)
    inner *= data.dim(d);
  int64_t chunk =
      inner * static_cast<int64_t>(runtime::dtypeSize(data.dtype()));
  if (chunk == 0)
    return out;
  const char *src = bytes(data);
  char *dst = bytes(*out);
  int64_t k = static_cast<int64_t>(idx.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < k; ++j)
      std::memcpy(dst + (o * k + j) * chunk, src + (o * size + idx[j]) * chunk,
                  chunk);
  return out;
}

/// An index read from an indices tensor, checked against `[-size, size)` and
/// wrapped to `[0, size)`.
Expected<int64_t> wrapIndex(Operation *op, int64_t i, int64_t size) {
  if (i < -size || i >= size)
    return opError(op, "index " + std::to_string(i) + " is out of range [" +
                           std::to_string(-size) + ", " + std::to_string(size) +
                           ")");
  return i < 0 ? i + size : i;
}

/// A copy of `data` with `updates[u]` written to (or combined with) element
/// `dst[u]`, in order of u.
Expected<HostTensor> applyScatter(Operation *op, const HostTensor &data,
                                  const HostTensor &updates,
                                  ScatterReduction reduction,
                                  const std::vector<int64_t> &dst) {
  HostTensor out = data.clone();
  if (dst.empty())
    return out;
  if (reduction == ScatterReduction::none) {
    size_t size = runtime::dtypeSize(data.dtype());
    const char *src = bytes(updates);
    char *to = bytes(out);
    for (auto [u, d] : llvm::enumerate(dst))
      std::memcpy(to + d * size, src + u * size, size);
    return out;
  }
  if (runtime::isFloatDType(data.dtype())) {
    std::vector<double> values = readDoubles(data), upd = readDoubles(updates);
    for (auto [u, d] : llvm::enumerate(dst)) {
      double &a = values[d];
      double b = upd[u];
      switch (reduction) {
      case ScatterReduction::add:
        a += b;
        break;
      case ScatterReduction::mul:
        a *= b;
        break;
      case ScatterReduction::max:
        a = std::isnan(a) || std::isnan(b)
                ? std::numeric_limits<double>::quiet_NaN()
                : std::max(a, b);
        break;
      case ScatterReduction::min:
        a = std::isnan(a) || std::isnan(b)
                ? std::numeric_limits<double>::quiet_NaN()
                : std::min(a, b);
        break;
      case ScatterReduction::none:
        break;
      }
    }
    writeDoubles(out, values);
    return out;
  }
  bool isUnsigned = runtime::isUnsignedDType(data.dtype());
  std::vector<int64_t> values = readInts(data), upd = readInts(updates);
  for (auto [u, d] : llvm::enumerate(dst)) {
    int64_t &a = values[d];
    int64_t b = upd[u];
    bool less = isUnsigned ? static_cast<uint64_t>(b) < static_cast<uint64_t>(a)
                           : b < a;
    switch (reduction) {
    case ScatterReduction::add: // Wraps, like the result dtype.
      a = static_cast<int64_t>(static_cast<uint64_t>(a) +
                               static_cast<uint64_t>(b));
      break;
    case ScatterReduction::mul:
      a = static_cast<int64_t>(static_cast<uint64_t>(a) *
                               static_cast<uint64_t>(b));
      break;
    case ScatterReduction::max:
      if (!less && b != a)
        a = b;
      break;
    case ScatterReduction::min:
      if (less)
        a = b;
      break;
    case ScatterReduction::none:
      break;
    }
  }
  writeInts(out, values);
  return out;
}

Expected<HostTensor> runScatterElements(ScatterElementsOp op,
                                        const HostTensor &data,
                                        const HostTensor &indices,
                                        const HostTensor &updates) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  int64_t rank = data.rank();
  if (updates.shape() != indices.shape())
    return opError(op, "updates " + shapeString(updates.shape()) +
                           " must have the shape of indices " +
                           shapeString(indices.shape()));
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indices.dim(d) > data.dim(d))
      return opError(op, "indices dim " + std::to_string(d) + " (" +
                             std::to_string(indices.dim(d)) +
                             ") exceeds data dim " + std::to_string(d) + " (" +
                             std::to_string(data.dim(d)) + ")");
  Shape strides = rowMajorStrides(data.shape());
  std::vector<int64_t> idx = readInts(indices);
  std::vector<int64_t> dst(idx.size());
  Shape coord(rank, 0);
  for (size_t p = 0; p < idx.size(); ++p) {
    auto j = wrapIndex(op, idx[p], data.dim(axis));
    if (!j)
      return j.takeError();
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d)
      off += (d == axis ? *j : coord[d]) * strides[d];
    dst[p] = off;
    for (int64_t d = rank - 1; d >= 0; --d) { // Odometer over indices.
      if (++coord[d] < indices.dim(d))
        break;
      coord[d] = 0;
    }
  }
  return applyScatter(op, data, updates, op.getReduction(), dst);
}

Expected<HostTensor> runScatterND(ScatterNDOp op, const HostTensor &data,
                                  const HostTensor &indices,
                                  const HostTensor &updates) {
  int64_t q = indices.rank();
  int64_t k = indices.dim(q - 1);
  Shape expected(indices.shape().begin(), indices.shape().end() - 1);
  expected.insert(expected.end(), data.shape().begin() + k, data.shape().end());
  if (updates.shape() != expected)
    return opError(op, "updates " + shapeString(updates.shape()) +
                           " must have shape " + shapeString(expected) +
                           " (indices.shape[:-1] + data.shape[k:])");
  Shape strides = rowMajorStrides(data.shape());
  int64_t slice = 1;
  for (int64_t d = k; d < data.rank(); ++d)
    slice *= data.dim(d);
  std::vector<int64_t> idx = readInts(indices);
  int64_t tuples = k ? static_cast<int64_t>(idx.size()) / k : 0;
  std::vector<int64_t> dst;
  dst.reserve(tuples * slice);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t j = 0; j < k; ++j) {
      auto i = wrapIndex(op, idx[t * k + j], data.dim(j));
      if (!i)
        return i.takeError();
      base += *i * strides[j];
    }
    for (int64_t s = 0; s < slice; ++s)
      dst.push_back(base + s);
  }
  return applyScatter(op, data, updates, op.getReduction(), dst);
}

} // namespace

Result runDataMovement(Operation *op, Operands operands) {
  if (auto o = dyn_cast<ConstantOp>(op)) {
    return runConstant(o);
  }
  if (auto o = dyn_cast<ReshapeOp>(op)) {
    return runReshape(o, *operands[0]);
  }
  if (auto o = dyn_cast<TransposeOp>(op)) {
    return runTranspose(o, *operands[0]);
  }
  if (auto o = dyn_cast<ShapeOfOp>(op)) {
    return runShapeOf(o, *operands[0]);
  }
  if (auto o = dyn_cast<NonZeroOp>(op)) {
    return runNonZero(o, *operands[0]);
  }
  if (isa<DynamicBroadcastToOp>(op)) {
    // The runtime's host kernel, which the staged backends run too.
    auto result = runtime::dynamicBroadcast(*operands[0], *operands[1]);
    if (!result.ok())
      return opError(op, std::string(result.status().message()));
    return *std::move(result);
  }
  if (auto o = dyn_cast<DynamicSliceOp>(op)) {
    return runDynamicSlice(o, operands);
  }
  if (auto o = dyn_cast<NonMaxSuppressionOp>(op)) {
    // The runtime's kernel (runtime/DataDependent.h); the ONNX backend
    // tests are its oracle.
    auto result = runtime::nonMaxSuppression(
        *operands[0], *operands[1], *operands[2], *operands[3], *operands[4],
        o.getCenterPointBox());
    if (!result.ok())
      return opError(op, std::string(result.status().message()));
    return *std::move(result);
  }
  if (auto o = dyn_cast<DynamicReshapeOp>(op)) {
    return runDynamicReshape(o, *operands[0], *operands[1]);
  }
  if (auto o = dyn_cast<BroadcastToOp>(op)) {
    return runBroadcastTo(o, *operands[0]);
  }
  if (auto o = dyn_cast<ConcatOp>(op)) {
    return runConcat(o, operands);
  }
  if (auto o = dyn_cast<SliceOp>(op)) {
    return runSlice(o, *operands[0]);
  }
  if (auto o = dyn_cast<PadOp>(op)) {
    return runPad(o, *operands[0]);
  }
  if (auto o = dyn_cast<GatherOp>(op)) {
    return runGather(o, *operands[0], *operands[1]);
  }
  if (auto o = dyn_cast<ScatterElementsOp>(op)) {
    return runScatterElements(o, *operands[0], *operands[1], *operands[2]);
  }
  if (auto o = dyn_cast<ScatterNDOp>(op)) {
    return runScatterND(o, *operands[0], *operands[1], *operands[2]);
  }
  if (auto o = dyn_cast<SqueezeOp>(op)) {
    return runSqueeze(o, *operands[0]);
  }
  if (auto o = dyn_cast<UnsqueezeOp>(op)) {
    return runUnsqueeze(o, *operands[0]);
  }
  return std::nullopt;
}

} // namespace tgc::reference::detail
