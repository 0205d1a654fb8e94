//===- DataDependent.cpp - ops whose result shape depends on values ------===//

#include "runtime/DataDependent.h"

#include <cstring>
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
