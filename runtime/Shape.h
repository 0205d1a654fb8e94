//===- Shape.h - shape, stride and broadcast arithmetic ---------*- C++ -*-===//
//
// The one place for row-major strides and numpy broadcasting of concrete
// shapes. Compiler-free (runtime/, no LLVM or MLIR), so the CPU kernels, the
// reference interpreter, the folders and the ONNX importer share it.
// Dynamic dims (MLIR's kDynamic) are handled by dialects/ShapeUtils.h.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_SHAPE_H
#define TGC_RUNTIME_SHAPE_H

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tgc/DType.h"

namespace tgc::runtime {

/// The product of the dims (1 for rank 0).
int64_t numElements(std::span<const int64_t> shape);

/// Row-major strides in elements (a 0 dim counts as 1, so strides stay
/// distinct).
std::vector<int64_t> rowMajorStrides(std::span<const int64_t> shape);

/// "tensor<2x3xf32>", "tensor<f32>": the MLIR spelling of a tensor type.
std::string tensorTypeString(DType dtype, std::span<const int64_t> shape);

/// `shape` padded with leading 1s to `rank`.
std::vector<int64_t> padRank(std::span<const int64_t> shape, size_t rank);

/// Numpy broadcast of `a` and `b`; false (result unspecified) when two dims
/// differ and neither is 1.
bool broadcastShapes(std::span<const int64_t> a, std::span<const int64_t> b,
                     std::vector<int64_t> &result);

/// Whether `shape` broadcasts to exactly `outShape`.
bool broadcastsTo(std::span<const int64_t> shape,
                  std::span<const int64_t> outShape);

/// Strides (elements) of `shape` right-aligned in `outShape`: 0 for
/// broadcast (size-1) and missing leading dims. `shape` must broadcast to
/// `outShape`.
std::vector<int64_t> broadcastStrides(std::span<const int64_t> shape,
                                      std::span<const int64_t> outShape);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_SHAPE_H
