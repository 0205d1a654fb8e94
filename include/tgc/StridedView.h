//===- StridedView.h - non-contiguous views of host tensors -----*- C++ -*-===//
//
// A strided, possibly non-contiguous view into the storage of a HostTensor:
// a transposed or stepped slice, a broadcast (stride 0), a reversed dim
// (negative stride). Executables and traced functions take such views as
// arguments and pack the non-contiguous ones into dense tensors at the call
// boundary (contiguous views are used in place), the way frameworks make a
// tensor contiguous before handing it to a library.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_STRIDEDVIEW_H
#define TGC_STRIDEDVIEW_H

#include "tgc/HostTensor.h"

#include <cstdint>
#include <vector>

namespace tgc::runtime {

class StridedView {
public:
  /// A view of `buffer`'s elements: element (i0, i1, ...) of the view is the
  /// buffer's flat element `offset + sum(i_d * strides[d])`. Every addressed
  /// element must lie inside the buffer (checked: InvalidArgument otherwise),
  /// and the buffer's storage must outlive the view.
  static StatusOr<StridedView> over(const HostTensor &buffer, int64_t offset,
                                    std::vector<int64_t> shape,
                                    std::vector<int64_t> strides);
  /// The whole of `tensor`, contiguous.
  static StridedView of(const HostTensor &tensor);

  DType dtype() const { return elementType; }
  const std::vector<int64_t> &shape() const { return dims; }
  const std::vector<int64_t> &strides() const { return steps; }
  int64_t numElements() const;
  /// Whether the view is exactly a dense row-major block.
  bool isContiguous() const;
  /// The elements as a dense tensor: the buffer itself (borrowed, shared
  /// when owned) when contiguous, else a packed owned copy.
  StatusOr<HostTensor> dense() const;

private:
  StridedView() = default;
  HostTensor buffer; // shares the storage when owned
  DType elementType = DType::F32;
  std::vector<int64_t> dims, steps;
  int64_t offset = 0;
};

} // namespace tgc::runtime

#endif // TGC_STRIDEDVIEW_H
