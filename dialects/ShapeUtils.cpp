//===- ShapeUtils.cpp - shape arithmetic shared by tgc --------------------===//

#include "dialects/ShapeUtils.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"

#include <cstring>

using namespace llvm;

namespace tgc {

static bool isDynamic(int64_t d) { return mlir::ShapedType::isDynamic(d); }

std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += 'x';
    s += isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  return s;
}

std::optional<int64_t> staticElementCount(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (isDynamic(d) || d < 0)
      return std::nullopt;
    if (__builtin_mul_overflow(n, d, &n))
      return std::nullopt;
  }
  return n;
}

bool dimsCompatible(int64_t a, int64_t b) {
  return a == b || isDynamic(a) || isDynamic(b);
}

bool broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                     SmallVectorImpl<int64_t> &result) {
  size_t rank = std::max(lhs.size(), rhs.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    int64_t &out = result[rank - 1 - i];
    if (a == b)
      out = a;
    else if (a == 1)
      out = b;
    else if (b == 1)
      out = a;
    else if (isDynamic(a))
      out = b;
    else if (isDynamic(b))
      out = a;
    else
      return false;
  }
  return true;
}

static int64_t clampIndex(int64_t idx, int64_t size, int64_t lo, int64_t hi) {
  if (idx < 0)
    idx = idx < -size ? lo : idx + size;
  return std::clamp(idx, lo, hi);
}

int64_t sliceStart(int64_t size, int64_t start, int64_t step) {
  if (step > 0)
    return clampIndex(start, size, 0, size);
  return clampIndex(start, size, -1, size - 1);
}

int64_t sliceLength(int64_t size, int64_t start, int64_t end, int64_t step) {
  if (step > 0) {
    int64_t s = clampIndex(start, size, 0, size);
    int64_t e = clampIndex(end, size, 0, size);
    return e > s ? (e - s - 1) / step + 1 : 0;
  }
  int64_t s = clampIndex(start, size, -1, size - 1);
  int64_t e = clampIndex(end, size, -1, size - 1);
  // -step cannot overflow usefully: step == INT64_MIN gives length <= 1.
  if (s <= e)
    return 0;
  uint64_t dist = static_cast<uint64_t>(s - e - 1);
  uint64_t mag = static_cast<uint64_t>(-(step + 1)) + 1;
  return static_cast<int64_t>(dist / mag + 1);
}

std::optional<int64_t> windowOutputSize(int64_t size, int64_t kernel,
                                        int64_t stride, int64_t padBegin,
                                        int64_t padEnd, int64_t dilation,
                                        bool ceilMode) {
  __int128 padded = (__int128)size + padBegin + padEnd;
  __int128 window = (__int128)dilation * (kernel - 1) + 1;
  if (padded < window)
    return std::nullopt;
  __int128 span = padded - window;
  __int128 out =
      ceilMode ? (span + stride - 1) / stride + 1 : span / stride + 1;
  // In ceil mode the last window must start inside the input or its left
  // padding (the PyTorch / ONNX rule).
  if (ceilMode && (out - 1) * stride >= (__int128)size + padBegin)
    --out;
  if (out > INT64_MAX)
    return std::nullopt;
  return static_cast<int64_t>(out);
}

bool isValidAxisList(ArrayRef<int64_t> axes, int64_t rank) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= rank)
      return false;
    if (i && axes[i] <= axes[i - 1])
      return false;
  }
  return true;
}

std::vector<char> transposeBytes(ArrayRef<char> raw, int64_t width,
                                 ArrayRef<int64_t> inShape,
                                 ArrayRef<int64_t> perm) {
  const int64_t rank = static_cast<int64_t>(inShape.size());
  // The input's strides (bytes), taken in result dim order.
  SmallVector<int64_t> inStrides(rank, width), strides, shape;
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  for (int64_t p : perm) {
    strides.push_back(inStrides[p]);
    shape.push_back(inShape[p]);
  }
  const int64_t count = static_cast<int64_t>(raw.size()) / width;
  std::vector<char> out(static_cast<size_t>(count * width));
  SmallVector<int64_t> index(rank, 0);
  int64_t from = 0;
  for (int64_t n = 0; n < count; ++n) {
    std::memcpy(&out[static_cast<size_t>(n * width)], raw.data() + from,
                static_cast<size_t>(width));
    for (int64_t d = rank - 1; d >= 0; --d) {
      from += strides[d];
      if (++index[d] < shape[d])
        break;
      from -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return out;
}

} // namespace tgc
