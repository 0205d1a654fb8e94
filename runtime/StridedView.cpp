//===- StridedView.cpp - non-contiguous views of host tensors -------------===//

#include "tgc/StridedView.h"
#include "tgc/AbslStatus.h"

#include "absl/strings/str_cat.h"

#include <cstring>

using namespace tgc::runtime;

tgc::StatusOr<StridedView> StridedView::over(const HostTensor &buffer,
                                             int64_t offset,
                                             std::vector<int64_t> shape,
                                             std::vector<int64_t> strides) {
  if (shape.size() != strides.size())
    return absl::InvalidArgumentError(
        absl::StrCat("strided view: ", shape.size(), " dims but ",
                     strides.size(), " strides"));
  auto count = HostTensor::checkedNumElements(shape);
  if (!count.ok())
    return count.status();
  StridedView view;
  view.buffer = buffer;
  view.elementType = buffer.dtype();
  view.dims = std::move(shape);
  view.steps = std::move(strides);
  view.offset = offset;
  if (*count == 0)
    return view;
  // The lowest and highest addressed elements, overflow-checked.
  __int128 lo = offset, hi = offset;
  for (size_t d = 0; d < view.dims.size(); ++d) {
    __int128 reach = static_cast<__int128>(view.dims[d] - 1) * view.steps[d];
    (reach < 0 ? lo : hi) += reach;
  }
  if (lo < 0 || hi >= buffer.numElements())
    return absl::InvalidArgumentError(
        absl::StrCat("strided view: elements [", static_cast<int64_t>(lo), ", ",
                     static_cast<int64_t>(hi), "] fall outside the buffer of ",
                     buffer.numElements(), " elements"));
  return view;
}

StridedView StridedView::of(const HostTensor &tensor) {
  StridedView view;
  view.buffer = tensor;
  view.elementType = tensor.dtype();
  view.dims = tensor.shape();
  view.steps.assign(view.dims.size(), 1);
  for (size_t d = view.dims.size(); d-- > 1;)
    view.steps[d - 1] = view.steps[d] * std::max<int64_t>(view.dims[d], 1);
  return view;
}

int64_t StridedView::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

bool StridedView::isContiguous() const {
  int64_t expected = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] != 1 && steps[d] != expected)
      return false;
    expected *= dims[d];
  }
  return offset == 0 && numElements() == buffer.numElements();
}

tgc::StatusOr<HostTensor> StridedView::dense() const {
  if (isContiguous())
    return buffer.reshapedView(dims);
  auto out = HostTensor::allocateUninitialized(elementType, dims);
  if (!out.ok())
    return out.status();
  int64_t n = numElements();
  if (n == 0)
    return out;
  size_t size = dtypeSize(elementType);
  const auto *src = static_cast<const uint8_t *>(buffer.data());
  auto *dst = static_cast<uint8_t *>(out->data());
  // Walk the view in row-major order with an odometer over the dims.
  std::vector<int64_t> index(dims.size(), 0);
  int64_t position = offset;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + static_cast<size_t>(i) * size,
                src + static_cast<size_t>(position) * size, size);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) {
        position += steps[d];
        break;
      }
      position -= steps[d] * (dims[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}
