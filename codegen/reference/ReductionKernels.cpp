//===- ReductionKernels.cpp - reductions and normalization ----------------===//
//
// reduce_*, argmax/argmin, topk, softmax/log_softmax, layer_norm and
// batch_norm.
// Floats accumulate in double, integers in wrapping int64.
//
//===----------------------------------------------------------------------===//

#include "codegen/reference/Kernels.h"

#include "dialects/ScalarMath.h"
#include "dialects/TgcOps.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

using namespace mlir;
using llvm::Expected;

namespace tgc::reference::detail {
namespace {

using Result = std::optional<Expected<HostTensor>>;

enum class ReduceKind { Sum, Mean, Max, Min, Prod };

/// The smallest and largest value of an integer dtype.
int64_t intLowest(DType t) {
  if (runtime::isUnsignedDType(t))
    return 0;
  unsigned bits = runtime::dtypeBits(t);
  return bits >= 64 ? std::numeric_limits<int64_t>::min()
                    : -(int64_t(1) << (bits - 1));
}
int64_t intHighest(DType t) {
  unsigned bits = runtime::dtypeBits(t);
  if (runtime::isUnsignedDType(t)) // ui64: all ones, held as -1
    return scalar::wrapInt(-1, bits, /*isUnsigned=*/true);
  return bits >= 64 ? std::numeric_limits<int64_t>::max()
                    : (int64_t(1) << (bits - 1)) - 1;
}

/// Product of dims [begin, end).
int64_t dimProduct(const HostTensor &t, int64_t begin, int64_t end) {
  int64_t n = 1;
  for (int64_t d = begin; d < end; ++d)
    n *= t.dim(d);
  return n;
}

Expected<HostTensor> runReduce(Operation *op, const HostTensor &in,
                               llvm::ArrayRef<int64_t> axes, bool keepdims,
                               ReduceKind kind) {
  const Shape &inShape = in.shape();
  Shape keptShape = inShape, resultShape;
  int64_t count = 1;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (llvm::is_contained(axes, d)) {
      count *= inShape[d];
      keptShape[d] = 1;
      if (keepdims)
        resultShape.push_back(1);
    } else {
      resultShape.push_back(inShape[d]);
    }
  }
  auto out = allocate(op, resultDType(op), resultShape);
  if (!out)
    return out.takeError();
  // Output offset of every input element (0 stride along reduced dims).
  std::array<Shape, 1> strides = {broadcastStrides(keptShape, inShape)};
  int64_t outCount = numElements(keptShape);

  if (runtime::isFloatDType(in.dtype())) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    double init = kind == ReduceKind::Max    ? -inf
                  : kind == ReduceKind::Min  ? inf
                  : kind == ReduceKind::Prod ? 1.0
                                             : 0.0;
    std::vector<double> acc(static_cast<size_t>(outCount), init);
    std::vector<double> values = readDoubles(in);
    forEachBroadcast<1>(inShape, strides, [&](int64_t i, int64_t o) {
      double v = values[i];
      switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean:
        acc[o] += v;
        break;
      case ReduceKind::Max:
        acc[o] = scalar::maxNaN(acc[o], v);
        break;
      case ReduceKind::Min:
        acc[o] = scalar::minNaN(acc[o], v);
        break;
      case ReduceKind::Prod:
        acc[o] *= v;
        break;
      }
    });
    if (kind == ReduceKind::Mean)
      for (double &v : acc)
        v /= static_cast<double>(count); // 0 / 0 is NaN for an empty set
    writeDoubles(*out, acc);
    return out;
  }

  int64_t init = kind == ReduceKind::Max    ? intLowest(in.dtype())
                 : kind == ReduceKind::Min  ? intHighest(in.dtype())
                 : kind == ReduceKind::Prod ? 1
                                            : 0;
  std::vector<uint64_t> acc(static_cast<size_t>(outCount),
                            static_cast<uint64_t>(init));
  std::vector<int64_t> values = readInts(in);
  bool isUnsigned = runtime::isUnsignedDType(in.dtype());
  forEachBroadcast<1>(inShape, strides, [&](int64_t i, int64_t o) {
    int64_t v = values[i];
    switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
      acc[o] += static_cast<uint64_t>(v);
      break;
    case ReduceKind::Max:
      acc[o] = static_cast<uint64_t>(
          scalar::maxInt(static_cast<int64_t>(acc[o]), v, isUnsigned));
      break;
    case ReduceKind::Min:
      acc[o] = static_cast<uint64_t>(
          scalar::minInt(static_cast<int64_t>(acc[o]), v, isUnsigned));
      break;
    case ReduceKind::Prod:
      acc[o] *= static_cast<uint64_t>(v);
      break;
    }
  });
  writeInts(*out, std::vector<int64_t>(acc.begin(), acc.end()));
  return out;
}

template <typename ArgOp>
Expected<HostTensor> runArgReduce(ArgOp op, const HostTensor &in, bool isMax) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  bool keepdims = op.getKeepdims(), last = op.getSelectLastIndex();
  int64_t len = in.dim(axis);
  if (len == 0)
    return opError(op, "cannot take the index of the " +
                           std::string(isMax ? "maximum" : "minimum") +
                           " over the empty axis " + std::to_string(axis) +
                           " of input " +
                           describeTensor(in.dtype(), in.shape()));
  Shape shape;
  for (int64_t d = 0; d < in.rank(); ++d)
    if (d != axis)
      shape.push_back(in.dim(d));
    else if (keepdims)
      shape.push_back(1);
  auto out = allocate(op, DType::I64, shape);
  if (!out)
    return out.takeError();
  int64_t outer = dimProduct(in, 0, axis);
  int64_t inner = dimProduct(in, axis + 1, in.rank());
  std::vector<int64_t> result(static_cast<size_t>(outer * inner));

  auto scan = [&](const auto &values, auto better) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const auto *base = values.data() + o * len * inner + i;
        int64_t best = 0;
        for (int64_t k = 1; k < len; ++k)
          if (better(base[k * inner], base[best * inner]))
            best = k;
        result[o * inner + i] = best;
      }
  };
  if (runtime::isFloatDType(in.dtype())) {
    // NaN wins over numbers; among equals (NaNs included) the first wins, or
    // the last with select_last_index.
    scan(readDoubles(in), [&](double v, double best) {
      bool vNaN = std::isnan(v), bNaN = std::isnan(best);
      if (bNaN)
        return vNaN && last;
      if (vNaN)
        return true;
      if (v == best)
        return last;
      return isMax ? v > best : v < best;
    });
  } else {
    bool isUnsigned = runtime::isUnsignedDType(in.dtype());
    scan(readInts(in), [&](int64_t v, int64_t best) {
      if (v == best)
        return last;
      return isMax ? scalar::lessInt(best, v, isUnsigned)
                   : scalar::lessInt(v, best, isUnsigned);
    });
  }
  writeInts(*out, result);
  return out;
}

Expected<HostTensor> runSoftmax(Operation *op, const HostTensor &in,
                                int64_t axis, bool log) {
  auto out = allocate(op, resultDType(op), in.shape());
  if (!out)
    return out.takeError();
  int64_t outer = dimProduct(in, 0, axis), len = in.dim(axis),
          inner = dimProduct(in, axis + 1, in.rank());
  std::vector<double> v = readDoubles(in);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double *base = v.data() + o * len * inner + i;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < len; ++k)
        mx = scalar::maxNaN(mx, base[k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < len; ++k)
        sum += std::exp(base[k * inner] - mx);
      if (log) {
        double logSum = std::log(sum);
        for (int64_t k = 0; k < len; ++k)
          base[k * inner] = base[k * inner] - mx - logSum;
      } else {
        for (int64_t k = 0; k < len; ++k)
          base[k * inner] = std::exp(base[k * inner] - mx) / sum;
      }
    }
  }
  writeDoubles(*out, v);
  return out;
}

Expected<HostTensor> runLayerNorm(LayerNormOp op, Operands operands) {
  const HostTensor &in = *operands[0];
  int64_t axis = static_cast<int64_t>(op.getAxis());
  double eps = op.getEpsilon().convertToDouble();
  Shape normalized(in.shape().begin() + axis, in.shape().end());
  const HostTensor *scale = op.getScale() ? operands[1] : nullptr;
  const HostTensor *bias =
      op.getBias() ? operands[op.getScale() ? 2 : 1] : nullptr;
  for (auto [t, name] : {std::pair{scale, "scale"}, std::pair{bias, "bias"}})
    if (t && t->shape() != normalized)
      return opError(
          op, std::string(name) + " must have the normalized shape " +
                  shapeString(normalized) + ", got " + shapeString(t->shape()));
  auto out = allocate(op, resultDType(op), in.shape());
  if (!out)
    return out.takeError();
  int64_t outer = dimProduct(in, 0, axis), inner = numElements(normalized);
  std::vector<double> v = readDoubles(in);
  std::vector<double> g = scale ? readDoubles(*scale) : std::vector<double>();
  std::vector<double> b = bias ? readDoubles(*bias) : std::vector<double>();
  for (int64_t o = 0; o < outer; ++o) {
    double *x = v.data() + o * inner;
    double mean = 0;
    for (int64_t i = 0; i < inner; ++i)
      mean += x[i];
    mean /= static_cast<double>(inner);
    double var = 0;
    for (int64_t i = 0; i < inner; ++i)
      var += (x[i] - mean) * (x[i] - mean);
    var /= static_cast<double>(inner);
    double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < inner; ++i) {
      double y = (x[i] - mean) * inv;
      if (scale)
        y *= g[i];
      if (bias)
        y += b[i];
      x[i] = y;
    }
  }
  writeDoubles(*out, v);
  return out;
}

Expected<HostTensor> runBatchNorm(BatchNormOp op, Operands operands) {
  const HostTensor &in = *operands[0];
  int64_t axis = static_cast<int64_t>(op.getAxis());
  double eps = op.getEpsilon().convertToDouble();
  int64_t channels = in.dim(axis);
  const char *names[] = {"scale", "bias", "mean", "variance"};
  for (int k = 0; k < 4; ++k)
    if (operands[k + 1]->dim(0) != channels)
      return opError(op, std::string(names[k]) + " has " +
                             std::to_string(operands[k + 1]->dim(0)) +
                             " elements but the input has " +
                             std::to_string(channels) + " channels in dim " +
                             std::to_string(axis));
  auto out = allocate(op, resultDType(op), in.shape());
  if (!out)
    return out.takeError();
  std::vector<double> scale = readDoubles(*operands[1]),
                      bias = readDoubles(*operands[2]),
                      mean = readDoubles(*operands[3]),
                      var = readDoubles(*operands[4]);
  int64_t outer = dimProduct(in, 0, axis),
          inner = dimProduct(in, axis + 1, in.rank());
  std::vector<double> v = readDoubles(in);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      double inv = 1.0 / std::sqrt(var[c] + eps);
      double *x = v.data() + (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i)
        x[i] = (x[i] - mean[c]) * inv * scale[c] + bias[c];
    }
  writeDoubles(*out, v);
  return out;
}

/// topk: per line along the axis, the k best positions (NaN above every
/// number; equal values in index order), values copied bit for bit.
Expected<std::vector<HostTensor>> runTopK(TopKOp op, const HostTensor &in) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  int64_t size = in.dim(axis);
  int64_t k = static_cast<int64_t>(op.getK());
  if (k == -1) // every element: a sort
    k = size;
  bool largest = op.getLargest();
  if (k > size)
    return opError(op, "k = " + std::to_string(k) + " exceeds dim " +
                           std::to_string(axis) + " of size " +
                           std::to_string(size) + " in input " +
                           shapeString(in.shape()));
  Shape shape = in.shape();
  shape[axis] = k;
  auto values = allocate(op, in.dtype(), shape);
  if (!values)
    return values.takeError();
  auto indices = allocate(op, DType::I64, shape);
  if (!indices)
    return indices.takeError();
  int64_t outer = dimProduct(in, 0, axis);
  int64_t inner = dimProduct(in, axis + 1, in.rank());
  bool isFloat = runtime::isFloatDType(in.dtype());
  bool isUnsigned = runtime::isUnsignedDType(in.dtype());
  std::vector<double> fv;
  std::vector<int64_t> iv;
  if (isFloat)
    fv = readDoubles(in);
  else
    iv = readInts(in);
  // Whether element a goes before element b (flat indices into the input).
  auto greater = [&](int64_t a, int64_t b) {
    if (isFloat) {
      double x = fv[a], y = fv[b];
      if (std::isnan(x) || std::isnan(y))
        return std::isnan(x) && !std::isnan(y);
      return x > y;
    }
    if (isUnsigned)
      return static_cast<uint64_t>(iv[a]) > static_cast<uint64_t>(iv[b]);
    return iv[a] > iv[b];
  };
  size_t elementSize = runtime::dtypeSize(in.dtype());
  const char *src = static_cast<const char *>(in.data());
  char *dst = static_cast<char *>(values->data());
  std::vector<int64_t> order(size);
  std::vector<int64_t> outIdx;
  outIdx.reserve(outer * k * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t base = o * size * inner + i;
      for (int64_t j = 0; j < size; ++j)
        order[j] = j;
      auto before = [&](int64_t a, int64_t b) {
        int64_t fa = base + a * inner, fb = base + b * inner;
        if (largest ? greater(fa, fb) : greater(fb, fa))
          return true;
        if (largest ? greater(fb, fa) : greater(fa, fb))
          return false;
        return a < b;
      };
      // A heap of k for few of many (a heap sort of every element is
      // several times slower than a sort).
      if (k * 4 < size)
        std::partial_sort(order.begin(), order.begin() + k, order.end(),
                          before);
      else
        std::sort(order.begin(), order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        int64_t to = (o * k + j) * inner + i;
        std::memcpy(dst + to * elementSize,
                    src + (base + order[j] * inner) * elementSize, elementSize);
        indices->setInt(to, order[j]);
      }
    }
  std::vector<HostTensor> results;
  results.push_back(std::move(*values));
  results.push_back(std::move(*indices));
  return results;
}

} // namespace

Result runReduction(Operation *op, Operands operands) {
  auto reduce = [&](auto o, ReduceKind kind) -> Result {
    return runReduce(o, *operands[0], o.getAxes(), o.getKeepdims(), kind);
  };
  if (auto o = dyn_cast<ReduceSumOp>(op)) {
    return reduce(o, ReduceKind::Sum);
  }
  if (auto o = dyn_cast<ReduceMeanOp>(op)) {
    return reduce(o, ReduceKind::Mean);
  }
  if (auto o = dyn_cast<ReduceMaxOp>(op)) {
    return reduce(o, ReduceKind::Max);
  }
  if (auto o = dyn_cast<ReduceMinOp>(op)) {
    return reduce(o, ReduceKind::Min);
  }
  if (auto o = dyn_cast<ReduceProdOp>(op)) {
    return reduce(o, ReduceKind::Prod);
  }
  if (auto o = dyn_cast<ArgMaxOp>(op)) {
    return runArgReduce(o, *operands[0], /*isMax=*/true);
  }
  if (auto o = dyn_cast<ArgMinOp>(op)) {
    return runArgReduce(o, *operands[0], /*isMax=*/false);
  }
  if (auto o = dyn_cast<SoftmaxOp>(op)) {
    return runSoftmax(o, *operands[0], static_cast<int64_t>(o.getAxis()),
                      false);
  }
  if (auto o = dyn_cast<LogSoftmaxOp>(op)) {
    return runSoftmax(o, *operands[0], static_cast<int64_t>(o.getAxis()), true);
  }
  if (auto o = dyn_cast<LayerNormOp>(op)) {
    return runLayerNorm(o, operands);
  }
  if (auto o = dyn_cast<BatchNormOp>(op)) {
    return runBatchNorm(o, operands);
  }
  return std::nullopt;
}

/// unique: groups of equal elements (slices along the axis) keyed in a map
/// of their values (NaN after every number, NaNs equal), numbered by first
/// occurrence, then ordered by key when sorted (independent of the
/// runtime's host kernel, which the CPU backend runs).
Expected<std::vector<HostTensor>> runUnique(UniqueOp op, const HostTensor &in) {
  std::optional<int64_t> axis;
  if (auto a = op.getAxis())
    axis = static_cast<int64_t>(*a);
  int64_t count = in.numElements(), outer = 1, inner = 1;
  if (axis) {
    count = in.dim(*axis);
    outer = dimProduct(in, 0, *axis);
    inner = dimProduct(in, *axis + 1, in.rank());
  }
  std::vector<double> values = readDoubles(in);
  auto sliceOf = [&](int64_t s) {
    std::vector<double> slice;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        slice.push_back(
            values[static_cast<size_t>((o * count + s) * inner + i)]);
    return slice;
  };
  auto less = [](const std::vector<double> &a, const std::vector<double> &b) {
    for (size_t k = 0; k < a.size(); ++k) {
      bool an = std::isnan(a[k]), bn = std::isnan(b[k]);
      if (an || bn) {
        if (an != bn)
          return bn;
        continue;
      }
      if (a[k] != b[k])
        return a[k] < b[k];
    }
    return false;
  };
  std::map<std::vector<double>, int64_t, decltype(less)> groupOf(less);
  std::vector<int64_t> firsts, counts, inverse;
  for (int64_t s = 0; s < count; ++s) {
    auto [it, added] =
        groupOf.emplace(sliceOf(s), static_cast<int64_t>(firsts.size()));
    if (added) {
      firsts.push_back(s);
      counts.push_back(0);
    }
    ++counts[static_cast<size_t>(it->second)];
    inverse.push_back(it->second);
  }
  const int64_t n = static_cast<int64_t>(firsts.size());
  std::vector<int64_t> order; // groups in output order
  if (op.getSorted())
    for (const auto &entry : groupOf)
      order.push_back(entry.second);
  else
    for (int64_t g = 0; g < n; ++g)
      order.push_back(g);
  std::vector<int64_t> position(static_cast<size_t>(n));
  for (int64_t p = 0; p < n; ++p)
    position[static_cast<size_t>(order[static_cast<size_t>(p)])] = p;
  Shape valueShape = {n};
  if (axis) {
    valueShape = in.shape();
    valueShape[*axis] = n;
  }
  auto outValues = allocate(op, in.dtype(), valueShape);
  auto outIndices = allocate(op, DType::I64, {n});
  auto outInverse = allocate(op, DType::I64, {count});
  auto outCounts = allocate(op, DType::I64, {n});
  if (!outValues)
    return outValues.takeError();
  if (!outIndices)
    return outIndices.takeError();
  if (!outInverse)
    return outInverse.takeError();
  if (!outCounts)
    return outCounts.takeError();
  const size_t size = runtime::dtypeSize(in.dtype());
  const auto *src = static_cast<const char *>(in.data());
  auto *dst = static_cast<char *>(outValues->data());
  for (int64_t p = 0; p < n; ++p) {
    const int64_t g = order[static_cast<size_t>(p)];
    const int64_t first = firsts[static_cast<size_t>(g)];
    outIndices->setInt(p, first);
    outCounts->setInt(p, counts[static_cast<size_t>(g)]);
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + static_cast<size_t>((o * n + p) * inner) * size,
                  src + static_cast<size_t>((o * count + first) * inner) * size,
                  static_cast<size_t>(inner) * size);
  }
  for (int64_t s = 0; s < count; ++s)
    outInverse->setInt(
        s, position[static_cast<size_t>(inverse[static_cast<size_t>(s)])]);
  std::vector<HostTensor> results;
  results.push_back(std::move(*outValues));
  results.push_back(std::move(*outIndices));
  results.push_back(std::move(*outInverse));
  results.push_back(std::move(*outCounts));
  return results;
}

std::optional<Expected<std::vector<HostTensor>>>
runMultiResult(Operation *op, Operands operands) {
  if (auto o = dyn_cast<TopKOp>(op))
    return runTopK(o, *operands[0]);
  if (auto o = dyn_cast<UniqueOp>(op))
    return runUnique(o, *operands[0]);
  return std::nullopt;
}

} // namespace tgc::reference::detail
