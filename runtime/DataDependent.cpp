//===- DataDependent.cpp - ops whose result shape depends on values ------===//

#include "runtime/DataDependent.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace tgc;
using namespace tgc::runtime;

namespace {

/// Whether element `i` of `t` is nonzero, by its bits: every bit but a
/// float's sign (so -0.0 is zero and NaN is not).
bool isNonZero(const HostTensor &t, int64_t i) {
  const auto *bytes = static_cast<const unsigned char *>(t.data());
  switch (t.dtype()) {
  case DType::F32: {
    uint32_t bits;
    std::memcpy(&bits, bytes + i * 4, 4);
    return (bits & 0x7fffffffu) != 0;
  }
  case DType::F64: {
    uint64_t bits;
    std::memcpy(&bits, bytes + i * 8, 8);
    return (bits & 0x7fffffffffffffffull) != 0;
  }
  case DType::F16:
  case DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, bytes + i * 2, 2);
    return (bits & 0x7fffu) != 0;
  }
  default: {
    const size_t size = dtypeSize(t.dtype());
    for (size_t b = 0; b < size; ++b)
      if (bytes[static_cast<size_t>(i) * size + b] != 0)
        return true;
    return false;
  }
  }
}

} // namespace

absl::StatusOr<HostTensor> runtime::nonZero(const HostTensor &input) {
  const int64_t count = input.numElements();
  std::vector<int64_t> found;
  for (int64_t i = 0; i < count; ++i)
    if (isNonZero(input, i))
      found.push_back(i);
  const int64_t rank = input.rank();
  const int64_t n = static_cast<int64_t>(found.size());
  auto out = HostTensor::allocate(DType::I64, {rank, n});
  if (!out.ok())
    return out.status();
  auto *coordinates = out->dataAs<int64_t>();
  const std::vector<int64_t> &shape = input.shape();
  for (int64_t j = 0; j < n; ++j) {
    int64_t flat = found[static_cast<size_t>(j)];
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t size = shape[static_cast<size_t>(d)];
      coordinates[d * n + j] = flat % size;
      flat /= size;
    }
  }
  return out;
}

absl::StatusOr<UniqueResult> runtime::unique(const HostTensor &input,
                                             std::optional<int64_t> axis,
                                             bool sorted) {
  const std::vector<int64_t> &shape = input.shape();
  const int64_t rank = input.rank();
  if (axis && (*axis < 0 || *axis >= rank))
    return absl::InvalidArgumentError("unique: axis " + std::to_string(*axis) +
                                      " is out of range for rank " +
                                      std::to_string(rank));
  // Slices along the axis: `count` of them, `outer` x `inner` elements each.
  int64_t count = input.numElements(), outer = 1, inner = 1;
  if (axis) {
    count = shape[static_cast<size_t>(*axis)];
    for (int64_t d = 0; d < *axis; ++d)
      outer *= shape[static_cast<size_t>(d)];
    for (int64_t d = *axis + 1; d < rank; ++d)
      inner *= shape[static_cast<size_t>(d)];
  }
  auto element = [&](int64_t slice, int64_t k) {
    // Element k (row-major over outer x inner) of slice `slice`.
    int64_t o = k / inner, i = k % inner;
    return input.getDouble((o * count + slice) * inner + i);
  };
  const int64_t sliceSize = outer * inner;
  // a < b (lexicographic; NaN after every number, NaNs equal).
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t k = 0; k < sliceSize; ++k) {
      double x = element(a, k), y = element(b, k);
      bool xn = std::isnan(x), yn = std::isnan(y);
      if (xn || yn) {
        if (xn != yn)
          return yn;
        continue;
      }
      if (x != y)
        return x < y;
    }
    return false;
  };
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), less);
  // Groups of equal slices in sorted order; each group's first occurrence
  // is its smallest index (stable sort: the first in the group).
  std::vector<int64_t> groupOf(static_cast<size_t>(count));
  std::vector<int64_t> firsts, counts;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || less(order[i - 1], order[i])) {
      firsts.push_back(order[i]);
      counts.push_back(0);
    }
    groupOf[static_cast<size_t>(order[i])] =
        static_cast<int64_t>(firsts.size()) - 1;
    ++counts.back();
  }
  const int64_t n = static_cast<int64_t>(firsts.size());
  // Output position of each group.
  std::vector<int64_t> position(static_cast<size_t>(n));
  std::iota(position.begin(), position.end(), 0);
  if (!sorted) {
    std::vector<int64_t> byFirst(static_cast<size_t>(n));
    std::iota(byFirst.begin(), byFirst.end(), 0);
    std::sort(byFirst.begin(), byFirst.end(), [&](int64_t a, int64_t b) {
      return firsts[static_cast<size_t>(a)] < firsts[static_cast<size_t>(b)];
    });
    for (int64_t p = 0; p < n; ++p)
      position[static_cast<size_t>(byFirst[static_cast<size_t>(p)])] = p;
  }
  std::vector<int64_t> valueShape = {n};
  if (axis) {
    valueShape = shape;
    valueShape[static_cast<size_t>(*axis)] = n;
  }
  UniqueResult result;
  auto values = HostTensor::allocate(input.dtype(), valueShape);
  auto indices = HostTensor::allocate(DType::I64, {n});
  auto inverse = HostTensor::allocate(DType::I64, {count});
  auto occurrences = HostTensor::allocate(DType::I64, {n});
  for (const auto *t : {&values, &indices, &inverse, &occurrences})
    if (!t->ok())
      return t->status();
  const size_t bytes = dtypeSize(input.dtype());
  const auto *in = static_cast<const char *>(input.data());
  auto *out = static_cast<char *>(values->data());
  for (int64_t g = 0; g < n; ++g) {
    const int64_t p = position[static_cast<size_t>(g)];
    const int64_t first = firsts[static_cast<size_t>(g)];
    indices->setInt(p, first);
    occurrences->setInt(p, counts[static_cast<size_t>(g)]);
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(out + static_cast<size_t>((o * n + p) * inner) * bytes,
                  in + static_cast<size_t>((o * count + first) * inner) * bytes,
                  static_cast<size_t>(inner) * bytes);
  }
  for (int64_t i = 0; i < count; ++i)
    inverse->setInt(
        i, position[static_cast<size_t>(groupOf[static_cast<size_t>(i)])]);
  result.values = *std::move(values);
  result.indices = *std::move(indices);
  result.inverse = *std::move(inverse);
  result.counts = *std::move(occurrences);
  return result;
}

absl::StatusOr<HostTensor>
runtime::nonMaxSuppression(const HostTensor &boxes, const HostTensor &scores,
                           int64_t maxPerClass, double iouThreshold,
                           double scoreThreshold, bool centerPointBox) {
  if (boxes.rank() != 3 || boxes.dim(2) != 4 || scores.rank() != 3 ||
      scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1))
    return absl::InvalidArgumentError(
        "non_max_suppression: boxes " + boxes.describe() +
        " must be [batch, n, 4] and scores " + scores.describe() +
        " [batch, classes, n]");
  const int64_t batches = boxes.dim(0), n = boxes.dim(1),
                classes = scores.dim(1);
  // Corners (y1, x1, y2, x2) with y1 <= y2, x1 <= x2.
  auto corners = [&](int64_t b, int64_t i) {
    double v[4];
    for (int k = 0; k < 4; ++k)
      v[k] = boxes.getDouble((b * n + i) * 4 + k);
    std::array<double, 4> c;
    if (centerPointBox) {
      c = {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
    } else {
      c = {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]),
           std::max(v[1], v[3])};
    }
    return c;
  };
  auto suppresses = [&](const std::array<double, 4> &a,
                        const std::array<double, 4> &b) {
    double areaA = (a[2] - a[0]) * (a[3] - a[1]);
    double areaB = (b[2] - b[0]) * (b[3] - b[1]);
    if (areaA <= 0 || areaB <= 0)
      return false;
    double h = std::min(a[2], b[2]) - std::max(a[0], b[0]);
    double w = std::min(a[3], b[3]) - std::max(a[1], b[1]);
    if (h <= 0 || w <= 0)
      return false;
    double inter = h * w;
    return inter / (areaA + areaB - inter) > iouThreshold;
  };
  std::vector<int64_t> selected;
  for (int64_t b = 0; b < batches && maxPerClass > 0; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      std::vector<int64_t> candidates;
      for (int64_t i = 0; i < n; ++i)
        if (scores.getDouble((b * classes + c) * n + i) > scoreThreshold)
          candidates.push_back(i);
      std::stable_sort(candidates.begin(), candidates.end(),
                       [&](int64_t x, int64_t y) {
                         return scores.getDouble((b * classes + c) * n + x) >
                                scores.getDouble((b * classes + c) * n + y);
                       });
      std::vector<std::array<double, 4>> kept;
      for (int64_t i : candidates) {
        if (static_cast<int64_t>(kept.size()) >= maxPerClass)
          break;
        std::array<double, 4> box = corners(b, i);
        bool drop = false;
        for (const auto &k : kept)
          if (suppresses(k, box)) {
            drop = true;
            break;
          }
        if (drop)
          continue;
        kept.push_back(box);
        selected.insert(selected.end(), {b, c, i});
      }
    }
  const int64_t rows = static_cast<int64_t>(selected.size()) / 3;
  auto out = HostTensor::allocate(DType::I64, {rows, 3});
  if (!out.ok())
    return out.status();
  for (int64_t i = 0; i < rows * 3; ++i)
    out->setInt(i, selected[static_cast<size_t>(i)]);
  return out;
}

absl::StatusOr<HostTensor>
runtime::dynamicSlice(const HostTensor &input, const std::vector<int64_t> &axes,
                      const HostTensor &starts, const HostTensor &ends,
                      const HostTensor &steps) {
  const size_t n = axes.size();
  if (starts.numElements() != static_cast<int64_t>(n) ||
      ends.numElements() != static_cast<int64_t>(n) ||
      steps.numElements() != static_cast<int64_t>(n))
    return absl::InvalidArgumentError(
        "dynamic_slice: starts " + starts.describe() + ", ends " +
        ends.describe() + " and steps " + steps.describe() + " must hold " +
        std::to_string(n) + " value(s), one per axis");
  const int64_t rank = input.rank();
  std::vector<int64_t> first(static_cast<size_t>(rank), 0),
      step(static_cast<size_t>(rank), 1), shape = input.shape();
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = axes[i];
    if (a < 0 || a >= rank)
      return absl::InvalidArgumentError("dynamic_slice: axis " +
                                        std::to_string(a) + " out of range");
    const int64_t d = input.dim(a);
    int64_t s = starts.getInt(static_cast<int64_t>(i));
    int64_t e = ends.getInt(static_cast<int64_t>(i));
    const int64_t st = steps.getInt(static_cast<int64_t>(i));
    if (st == 0)
      return absl::InvalidArgumentError("dynamic_slice: step " +
                                        std::to_string(i) + " is 0");
    // Negative bounds count from the end (no overflow: clamp first).
    auto fromEnd = [&](int64_t v) {
      if (v < 0)
        v = std::max<int64_t>(v, -d - 1) + d;
      return v;
    };
    s = fromEnd(s);
    e = fromEnd(e);
    int64_t count;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      count = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, -1, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      count = s > e ? (s - e - st - 1) / (-st) : 0;
    }
    first[static_cast<size_t>(a)] = s;
    step[static_cast<size_t>(a)] = st;
    shape[static_cast<size_t>(a)] = count;
  }
  auto out = HostTensor::allocate(input.dtype(), shape);
  if (!out.ok())
    return out.status();
  const size_t bytes = dtypeSize(input.dtype());
  const auto *in = static_cast<const char *>(input.data());
  auto *dst = static_cast<char *>(out->data());
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[static_cast<size_t>(d)] =
        strides[static_cast<size_t>(d + 1)] * input.dim(d + 1);
  for (int64_t i = 0; i < out->numElements(); ++i) {
    int64_t rest = i, offset = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t size = shape[static_cast<size_t>(d)];
      const int64_t c = rest % size;
      rest /= size;
      offset +=
          (first[static_cast<size_t>(d)] + c * step[static_cast<size_t>(d)]) *
          strides[static_cast<size_t>(d)];
    }
    std::memcpy(dst + static_cast<size_t>(i) * bytes,
                in + static_cast<size_t>(offset) * bytes, bytes);
  }
  return out;
}

absl::StatusOr<HostTensor> runtime::dynamicBroadcast(const HostTensor &input,
                                                     const HostTensor &shape) {
  auto text = [](const std::vector<int64_t> &dims) {
    std::string t = "[";
    for (size_t i = 0; i < dims.size(); ++i)
      t += (i ? ", " : "") + std::to_string(dims[i]);
    return t + "]";
  };
  if (shape.rank() != 1 || isFloatDType(shape.dtype()))
    return absl::InvalidArgumentError(
        "dynamic_broadcast_to: the shape must be a 1-D integer tensor, not " +
        shape.describe());
  std::vector<int64_t> given;
  for (int64_t i = 0; i < shape.numElements(); ++i) {
    given.push_back(shape.getInt(i));
    if (given.back() < 0)
      return absl::InvalidArgumentError("dynamic_broadcast_to: the shape " +
                                        text(given) +
                                        "... has a negative size");
  }
  const int64_t rank =
      std::max<int64_t>(input.rank(), static_cast<int64_t>(given.size()));
  std::vector<int64_t> out(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t i = d - (rank - input.rank());
    const int64_t g = d - (rank - static_cast<int64_t>(given.size()));
    const int64_t a = i >= 0 ? input.dim(i) : 1;
    const int64_t b = g >= 0 ? given[static_cast<size_t>(g)] : 1;
    if (a != b && a != 1 && b != 1)
      return absl::InvalidArgumentError(
          "dynamic_broadcast_to: the input " + input.describe() +
          " does not broadcast with the shape " + text(given));
    out[static_cast<size_t>(d)] = a == 1 ? b : a;
  }
  auto result = HostTensor::allocate(input.dtype(), out);
  if (!result.ok())
    return result.status();
  // Each result element reads the input at its coordinates, 0 along the
  // dims the input broadcasts.
  std::vector<int64_t> strides(static_cast<size_t>(rank), 0);
  int64_t stride = 1;
  for (int64_t i = input.rank() - 1; i >= 0; --i) {
    if (input.dim(i) != 1)
      strides[static_cast<size_t>(i + rank - input.rank())] = stride;
    stride *= input.dim(i);
  }
  const size_t bytes = dtypeSize(input.dtype());
  const auto *in = static_cast<const char *>(input.data());
  auto *dst = static_cast<char *>(result->data());
  for (int64_t e = 0; e < result->numElements(); ++e) {
    int64_t rest = e, offset = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t size = out[static_cast<size_t>(d)];
      offset += (rest % size) * strides[static_cast<size_t>(d)];
      rest /= size;
    }
    std::memcpy(dst + static_cast<size_t>(e) * bytes,
                in + static_cast<size_t>(offset) * bytes, bytes);
  }
  return result;
}

absl::StatusOr<HostTensor> runtime::nonMaxSuppression(
    const HostTensor &boxes, const HostTensor &scores,
    const HostTensor &maxPerClass, const HostTensor &iouThreshold,
    const HostTensor &scoreThreshold, bool centerPointBox) {
  for (const HostTensor *t : {&maxPerClass, &iouThreshold, &scoreThreshold})
    if (t->numElements() != 1)
      return absl::InvalidArgumentError(
          "max_per_class, iou_threshold and score_threshold must hold one "
          "element each, not " +
          t->describe());
  return nonMaxSuppression(boxes, scores, maxPerClass.getInt(0),
                           iouThreshold.getDouble(0),
                           scoreThreshold.getDouble(0), centerPointBox);
}
