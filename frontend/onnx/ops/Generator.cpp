//===- Generator.cpp - constants and generated tensors --------------------===//
//
// Converters of the ops that create tensors: Constant, ConstantOfShape,
// Range and EyeLike (constants at import time), OneHot and Trilu.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

llvm::Error convConstant(Importer &im) {
  if (im.node().attribute_size() != 1)
    return im.fail("needs exactly one attribute, not " +
                   llvm::Twine(im.node().attribute_size()));
  const AP &a = im.node().attribute(0);
  const std::string &name = a.name();
  if (name == "value") {
    if (a.type() != AP::TENSOR && !(a.type() == AP::UNDEFINED && a.has_t()))
      return im.attrTypeError(a, "TENSOR");
    auto t = tensorFromProto(a.t(), im.external(),
                             im.label() + ": attribute 'value'");
    if (!t)
      return t.takeError();
    im.outConst(0, std::move(*t));
    return llvm::Error::success();
  }
  auto make = [&](DType dtype, std::vector<int64_t> shape,
                  const std::vector<double> &values) -> llvm::Error {
    auto t = HostTensor::allocate(dtype, shape);
    if (!t.ok())
      return im.fail(std::string(t.status().message()));
    for (size_t i = 0; i < values.size(); ++i)
      t->setDouble(static_cast<int64_t>(i), values[i]);
    im.outConst(0, std::move(*t));
    return llvm::Error::success();
  };
  if (name == "value_float") {
    TRY(v, im.attrFloat(name));
    return make(DType::F32, {}, {*v});
  }
  if (name == "value_floats") {
    TRY(v, im.attrFloats(name));
    return make(DType::F32, {static_cast<int64_t>(v->size())},
                std::vector<double>(v->begin(), v->end()));
  }
  if (name == "value_int") {
    TRY(v, im.attrInt(name));
    auto t = HostTensor::allocate(DType::I64, {});
    t->setInt(0, *v);
    im.outConst(0, std::move(*t));
    return llvm::Error::success();
  }
  if (name == "value_ints") {
    TRY(v, im.attrInts(name));
    auto t =
        HostTensor::allocate(DType::I64, {static_cast<int64_t>(v->size())});
    for (size_t i = 0; i < v->size(); ++i)
      t->setInt(static_cast<int64_t>(i), (*v)[i]);
    im.outConst(0, std::move(*t));
    return llvm::Error::success();
  }
  return im.unsupported(
      "attribute '" + name +
      "' is not supported (strings and sparse tensors have no tgc "
      "equivalent)");
}

llvm::Error convConstantOfShape(Importer &im) {
  HostTensor fill;
  if (const AP *a = im.attr("value")) {
    if (a->type() != AP::TENSOR && !(a->type() == AP::UNDEFINED && a->has_t()))
      return im.attrTypeError(*a, "TENSOR");
    auto t = tensorFromProto(a->t(), im.external(),
                             im.label() + ": attribute 'value'");
    if (!t)
      return t.takeError();
    if (t->numElements() != 1)
      return im.fail("attribute 'value' must have one element");
    fill = std::move(*t);
  } else {
    auto t = HostTensor::allocate(DType::F32, {});
    fill = std::move(*t);
  }
  TRY(known, im.constIn(0));
  if (!known) {
    // A shape computed when the function runs (a detection model's count):
    // the value broadcast to it then.
    TRY(dims, im.shapeIn(0));
    TRYT(scalar, tgc::reshape(constant(fill), {}));
    TRYT(y, tgc::dynamicBroadcastTo(scalar, dims));
    im.out(0, y);
    return llvm::Error::success();
  }
  TRY(shape, im.constInts(0, "shape"));
  for (int64_t d : shape)
    if (d < 0)
      return im.fail("shape " + listOf(shape) + " has a negative dim");
  auto t = HostTensor::allocate(fill.dtype(), shape);
  if (!t.ok())
    return im.fail(std::string(t.status().message()));
  size_t size = runtime::dtypeSize(fill.dtype());
  for (int64_t i = 0; i < t->numElements(); ++i)
    std::memcpy(static_cast<char *>(t->data()) + i * size, fill.data(), size);
  im.outConst(0, std::move(*t));
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Tensor> tgc::onnximpl::positionsUpTo(Importer &im,
                                                    const Tensor &n) {
  TRYT(length, tgc::reshape(n, {1}));
  TRYT(trues,
       tgc::dynamicBroadcastTo(tgc::scalar(Scalar(true), DType::I1), length));
  TRYT(positions, tgc::reshape(tgc::nonzero(trues), {-1}));
  return positions;
}

namespace {

/// Range whose operands are computed when the function runs (Mask R-CNN's
/// arange over its detections): n = max(ceil((limit - start) / delta), 0)
/// in f64; the positions 0..n-1 are NonZero's coordinates of n trues (a
/// data-dependent shape: n is known once the ops before it ran, and the rest
/// is specialized for it); then start + i * delta in the operands' dtype.
llvm::Error dynamicRange(Importer &im) {
  TRY(start, im.in(0));
  TRY(limit, im.in(1));
  TRY(delta, im.in(2));
  for (const Tensor *t : {&start, &limit, &delta})
    if (t->rank() != 0 && !(t->rank() == 1 && t->dim(0) == 1))
      return im.fail("start, limit and delta must be scalars, not " +
                     t->describe());
  DType dtype = start.dtype();
  if (limit.dtype() != dtype || delta.dtype() != dtype)
    return im.fail("start, limit and delta must have one dtype, not " +
                   start.describe() + ", " + limit.describe() + " and " +
                   delta.describe());
  if (dtype == DType::I1)
    return im.unsupported("a Range of booleans (" + start.describe() +
                          ") is not supported");
  auto asF64 = [&](const Tensor &t) {
    return tgc::cast(tgc::reshape(t, {}), DType::F64);
  };
  TRYT(count,
       tgc::ceil(tgc::div(tgc::sub(asF64(limit), asF64(start)), asF64(delta))));
  TRYT(n, tgc::cast(tgc::maximum(count, Scalar(0.0)), DType::I64));
  TRY(positions, positionsUpTo(im, n));
  TRYT(steps, tgc::cast(positions, dtype));
  TRYT(y, tgc::add(tgc::reshape(start, {}),
                   tgc::mul(steps, tgc::reshape(delta, {}))));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convRange(Importer &im) {
  TRY(startT, im.constIn(0));
  TRY(limitT, im.constIn(1));
  TRY(deltaT, im.constIn(2));
  if (!startT || !limitT || !deltaT)
    return dynamicRange(im);
  DType dtype = startT->dtype();
  double start = startT->getDouble(0), limit = limitT->getDouble(0),
         delta = deltaT->getDouble(0);
  if (delta == 0)
    return im.fail("delta must not be 0");
  double count = std::ceil((limit - start) / delta);
  // (Converting a double beyond int64 is undefined: 1e32 came out negative,
  // an empty range.)
  if (!(count < 0x1p62))
    return im.fail(llvm::formatv("a Range from {0:e} to {1:e} by {2:e} "
                                 "has too many elements",
                                 start, limit, delta)
                       .str());
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  auto t = HostTensor::allocate(dtype, {n});
  if (!t.ok())
    return im.fail(std::string(t.status().message()));
  for (int64_t i = 0; i < n; ++i) {
    if (runtime::isFloatDType(dtype))
      t->setDouble(i, start + static_cast<double>(i) * delta);
    else
      t->setInt(i, startT->getInt(0) + i * deltaT->getInt(0));
  }
  im.outConst(0, std::move(*t));
  return llvm::Error::success();
}

llvm::Error convEyeLike(Importer &im) {
  TRY(x, im.in(0));
  if (x.rank() != 2 || !x.hasStaticShape())
    return im.fail("EyeLike needs a 2-D input with a static shape");
  TRY(k, im.attrInt("k", 0));
  TRY(dtypeAttr, im.attrInt("dtype"));
  DType dtype = x.dtype();
  if (dtypeAttr) {
    auto d = dtypeFromOnnx(static_cast<int32_t>(*dtypeAttr));
    if (!d)
      return im.unsupported("dtype " +
                            onnxTypeName(static_cast<int32_t>(*dtypeAttr)) +
                            " is not supported");
    dtype = *d;
  }
  auto t = HostTensor::allocate(dtype, x.shape());
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  for (int64_t i = 0; i < rows; ++i) {
    int64_t j = i + k;
    if (j >= 0 && j < cols)
      t->setInt(i * cols + j, 1);
  }
  im.outConst(0, std::move(*t));
  return llvm::Error::success();
}

llvm::Error convOneHot(Importer &im) {
  TRY(indices0, im.in(0));
  TRY(depthD, im.constScalar(1, "depth"));
  TRY(values, im.in(2));
  int64_t depth = static_cast<int64_t>(depthD);
  if (depth < 1)
    return im.fail("depth must be >= 1");
  TRY(axis, im.axisAttr("axis", -1, indices0.rank() + 1));
  Tensor indices = indices0;
  if (indices.dtype() != DType::I64) {
    TRYT(c, tgc::cast(indices, DType::I64));
    indices = c;
  }
  // Negative indices count from the end.
  TRYT(isNeg, tgc::less(indices, Scalar(0)));
  TRYT(wrapped, tgc::add(indices, Scalar(depth)));
  TRYT(idx, tgc::select(isNeg, wrapped, indices));
  TRYT(idxU, tgc::unsqueeze(idx, {axis}));
  std::vector<int64_t> iotaShape(indices.rank() + 1, 1);
  iotaShape[axis] = depth;
  auto iota = HostTensor::allocate(DType::I64, iotaShape);
  for (int64_t k = 0; k < depth; ++k)
    iota->setInt(k, k);
  TRYT(iotaT, im.constantTensor(*iota));
  TRYT(hot, tgc::equal(idxU, iotaT));
  std::vector<int64_t> zero = {0}, one = {1}, two = {2};
  TRYT(off, tgc::slice(values, zero, one));
  TRYT(on, tgc::slice(values, one, two));
  TRYT(offS, tgc::reshape(off, {}));
  TRYT(onS, tgc::reshape(on, {}));
  TRYT(y, tgc::select(hot, onS, offS));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convTrilu(Importer &im) {
  TRY(x, im.in(0));
  TRY(upper, im.attrInt("upper", 1));
  int64_t k = 0;
  if (im.has(1)) {
    TRY(kv, im.constScalar(1, "k"));
    k = static_cast<int64_t>(kv);
  }
  if (x.rank() < 2)
    return im.fail("input must have rank >= 2");
  std::optional<int64_t> rows = x.dim(-2), cols = x.dim(-1);
  if (!rows || !cols)
    return im.unsupported("Trilu needs static sizes in the last two dims");
  auto mask = HostTensor::allocate(DType::I1, {*rows, *cols});
  if (!mask.ok())
    return im.fail(std::string(mask.status().message()));
  for (int64_t i = 0; i < *rows; ++i)
    for (int64_t j = 0; j < *cols; ++j)
      mask->setInt(i * *cols + j, upper ? (j - i >= k) : (j - i <= k));
  TRYT(m, im.constantTensor(*mask));
  TRYT(y, tgc::select(m, x, Scalar(0)));
  im.out(0, y);
  return llvm::Error::success();
}

} // namespace

void onnximpl::registerGeneratorConverters(ConverterTable &table) {
  table.add("Constant", 1, convConstant);
  table.add("ConstantOfShape", 1, convConstantOfShape);
  table.add("Range", 1, convRange);
  table.add("EyeLike", 1, convEyeLike);
  table.add("OneHot", 1, convOneHot);
  table.add("Trilu", 1, convTrilu);
}
