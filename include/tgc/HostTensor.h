//===- HostTensor.h - a dense tensor in host memory -------------*- C++ -*-===//
//
// HostTensor is a dense, row-major tensor in host memory: an element type, a
// static shape, and a pointer to the elements. It either owns its storage
// (shared between copies, 64-byte aligned, zero-filled on allocation) or
// borrows caller memory. Pure C++, no LLVM/MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_HOSTTENSOR_H
#define TGC_HOSTTENSOR_H

#include "tgc/DType.h"

#include "tgc/Status.h"

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tgc::runtime {

class HostTensor {
public:
  /// An owned f32 tensor of rank 0 holding a single 0.0.
  HostTensor();

  /// An owned, zero-filled tensor. InvalidArgument on a negative dim or when
  /// the element count or byte size overflows int64; ResourceExhausted when
  /// the memory cannot be allocated.
  static StatusOr<HostTensor> allocate(DType dtype, std::vector<int64_t> shape);

  /// Like allocate, but the elements are left uninitialized: for callers
  /// that overwrite every element (e.g. Executable::run writing a result).
  /// Same checks and errors as allocate; storage is 64-byte aligned.
  static StatusOr<HostTensor> allocateUninitialized(DType dtype,
                                                    std::vector<int64_t> shape);

  /// A non-owning view of `data`, which must outlive the tensor and all its
  /// copies. Same checks as allocate; `data` may be null only when the tensor
  /// has no elements.
  static StatusOr<HostTensor> borrow(DType dtype, std::vector<int64_t> shape,
                                     void *data);

  /// Number of elements of `shape`, or InvalidArgument for a negative dim or
  /// an overflowing product.
  static StatusOr<int64_t>
  checkedNumElements(const std::vector<int64_t> &shape);

  DType dtype() const { return elementType; }
  const std::vector<int64_t> &shape() const { return dims; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t dim(int64_t i) const {
    assert(i >= 0 && i < rank() && "dim index out of range");
    return dims[static_cast<size_t>(i)];
  }
  int64_t numElements() const { return count; }
  size_t byteSize() const {
    return static_cast<size_t>(count) * dtypeSize(elementType);
  }
  bool isOwned() const { return storage != nullptr; }

  void *data() { return dataPtr; }
  const void *data() const { return dataPtr; }

  /// The elements as T. T must have the element size (or be a byte type).
  template <typename T> T *dataAs() {
    assert((sizeof(T) == dtypeSize(elementType) || sizeof(T) == 1) &&
           "dataAs<T>: element size mismatch");
    return static_cast<T *>(dataPtr);
  }
  template <typename T> const T *dataAs() const {
    assert((sizeof(T) == dtypeSize(elementType) || sizeof(T) == 1) &&
           "dataAs<T>: element size mismatch");
    return static_cast<const T *>(dataPtr);
  }

  /// Element `i` (flat row-major index) as double. Integers are exact up to
  /// 2^53, i1 is 0 or 1, f16/bf16 are widened exactly.
  double getDouble(int64_t i) const;

  /// Element `i` as int64. Integers and i1 are exact, except that ui64
  /// values above 2^63 - 1 come back as their two's complement bit pattern
  /// (static_cast<uint64_t> of the result is the exact value; see getUInt);
  /// floats are truncated toward zero and saturated to int64, NaN gives 0.
  int64_t getInt(int64_t i) const;

  /// Element `i` as uint64: the exact value of an unsigned integer, the bit
  /// pattern (two's complement) of a signed one; floats are truncated toward
  /// zero and saturated to [0, 2^64 - 1], NaN gives 0.
  uint64_t getUInt(int64_t i) const;

  /// Stores `v` into element `i`. Floats round to nearest even (once);
  /// integers truncate toward zero and saturate to the type's range, NaN
  /// stores 0; i1 stores v != 0.
  void setDouble(int64_t i, double v);

  /// Stores `v` into element `i`. Integers wrap (two's complement) to their
  /// width; i1 stores v != 0; floats round to nearest even (once).
  void setInt(int64_t i, int64_t v);

  /// Stores the unsigned `v` into element `i`: like setInt (integers wrap to
  /// their width), but floats get the unsigned value (rounded once).
  void setUInt(int64_t i, uint64_t v);

  /// Deep copy into fresh owned storage.
  HostTensor clone() const;

  /// The same elements in another shape with the same element count (same
  /// dtype, hence the same byte size), sharing this tensor's storage: no
  /// copy. An owned tensor's storage is kept alive by whichever of the two
  /// lives longer; a view of a borrowed tensor is borrowed too.
  /// InvalidArgument for an invalid shape or a different element count.
  StatusOr<HostTensor> reshapedView(std::vector<int64_t> shape) const;
  /// Points a borrowed tensor at other memory holding a tensor of the same
  /// dtype and shape, allocating nothing (the runtime's per-run views). An
  /// owned tensor is left as it is.
  void retarget(void *data) {
    if (!storage)
      dataPtr = data;
  }

  /// MLIR-style type string, e.g. "tensor<2x3xf32>" or "tensor<f32>".
  std::string describe() const;

  /// Multi-index of the flat row-major index `flat`.
  std::vector<int64_t> unflattenIndex(int64_t flat) const;

private:
  HostTensor(DType dtype, std::vector<int64_t> shape, int64_t elementCount,
             std::shared_ptr<void> ownedStorage, void *data);

  DType elementType = DType::F32;
  std::vector<int64_t> dims;
  int64_t count = 1;
  std::shared_ptr<void> storage; // Null when borrowed.
  void *dataPtr = nullptr;
};

/// Compares `actual` against `expected` elementwise. Both must have the same
/// dtype and shape (InvalidArgument otherwise). Floats match when
/// |a - b| <= atol + rtol * |b|, where NaN matches NaN and infinities match
/// infinities of the same sign; integers (signed or unsigned) and i1 must be
/// equal. On a mismatch returns InvalidArgument naming the number of
/// mismatches and the worst element: its index, the values, and the absolute
/// and relative errors.
Status allClose(const HostTensor &actual, const HostTensor &expected,
                double rtol, double atol);

} // namespace tgc::runtime

#endif // TGC_HOSTTENSOR_H
