//===- Shape.cpp - shape, stride and broadcast arithmetic -----------------===//

#include "runtime/Shape.h"

#include <algorithm>

namespace tgc::runtime {

int64_t numElements(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> rowMajorStrides(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<int64_t>(shape[i], 1);
  return strides;
}

std::vector<int64_t> padRank(std::span<const int64_t> shape, size_t rank) {
  std::vector<int64_t> padded(rank > shape.size() ? rank - shape.size() : 0, 1);
  padded.insert(padded.end(), shape.begin(), shape.end());
  return padded;
}

bool broadcastShapes(std::span<const int64_t> a, std::span<const int64_t> b,
                     std::vector<int64_t> &result) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> pa = padRank(a, rank), pb = padRank(b, rank);
  result.assign(rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    if (pa[i] == pb[i] || pb[i] == 1)
      result[i] = pa[i];
    else if (pa[i] == 1)
      result[i] = pb[i];
    else
      return false;
  }
  return true;
}

bool broadcastsTo(std::span<const int64_t> shape,
                  std::span<const int64_t> outShape) {
  if (shape.size() > outShape.size())
    return false;
  std::vector<int64_t> padded = padRank(shape, outShape.size());
  for (size_t i = 0; i < padded.size(); ++i)
    if (padded[i] != outShape[i] && padded[i] != 1)
      return false;
  return true;
}

std::vector<int64_t> broadcastStrides(std::span<const int64_t> shape,
                                      std::span<const int64_t> outShape) {
  std::vector<int64_t> padded = padRank(shape, outShape.size());
  std::vector<int64_t> strides = rowMajorStrides(padded);
  for (size_t i = 0; i < padded.size(); ++i)
    if (padded[i] == 1)
      strides[i] = 0;
  return strides;
}

} // namespace tgc::runtime

std::string tgc::runtime::tensorTypeString(DType dtype,
                                           std::span<const int64_t> shape) {
  std::string result = "tensor<";
  for (int64_t d : shape)
    result += std::to_string(d) + "x";
  return result + std::string(dtypeName(dtype)) + ">";
}
