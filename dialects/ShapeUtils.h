//===- ShapeUtils.h - shape arithmetic shared by tgc ------------*- C++ -*-===//
//
// Shape helpers used by op verification and type inference. Dynamic dims are
// mlir::ShapedType::kDynamic. All arithmetic is overflow-checked.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECTS_SHAPEUTILS_H
#define TGC_DIALECTS_SHAPEUTILS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tgc {

/// Renders a shape as `2x?x3` (or `scalar` for rank 0).
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// The number of elements of a shape whose dims are all static, or nullopt
/// when a dim is dynamic or negative, or the product overflows int64.
std::optional<int64_t> staticElementCount(llvm::ArrayRef<int64_t> shape);

/// Numpy broadcasting of two shapes. Returns false (leaving `result`
/// unspecified) when two static dims differ and neither is 1. A dynamic dim
/// against 1 stays dynamic; against a static n != 1 it becomes n.
bool broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                     llvm::SmallVectorImpl<int64_t> &result);

/// Whether two dims may be equal at run time (equal, or one dynamic).
bool dimsCompatible(int64_t a, int64_t b);

/// Numpy slice length of a dim of size `size` for [start:end:step] (step != 0),
/// with negative start/end counted from the end and both clamped.
int64_t sliceLength(int64_t size, int64_t start, int64_t end, int64_t step);
/// The first index a numpy slice visits (valid when sliceLength() > 0).
int64_t sliceStart(int64_t size, int64_t start, int64_t step);

/// Output size of a 2-D window op along one spatial dim, or nullopt when the
/// padded input is smaller than the dilated window. `size` is static.
std::optional<int64_t> windowOutputSize(int64_t size, int64_t kernel,
                                        int64_t stride, int64_t padBegin,
                                        int64_t padEnd, int64_t dilation,
                                        bool ceilMode);

/// Checks that `axes` is strictly increasing and within [0, rank).
bool isValidAxisList(llvm::ArrayRef<int64_t> axes, int64_t rank);

/// The row-major tensor of shape `inShape` in `raw` (elements of `width`
/// bytes) transposed by `perm` (result dim d is input dim perm[d]): the
/// constant folding of tgc.transpose and the CUDA int8 pass's reading of
/// lazily transposed weights.
std::vector<char> transposeBytes(llvm::ArrayRef<char> raw, int64_t width,
                                 llvm::ArrayRef<int64_t> inShape,
                                 llvm::ArrayRef<int64_t> perm);

} // namespace tgc

#endif // TGC_DIALECTS_SHAPEUTILS_H
