//===- DataDependent.h - ops whose result shape depends on values -*- C++
//-*-===//
//
// The host kernels of the ops whose result shapes are known only when they
// run (tgc.nonzero; OpTrait::DataDependentShape): each allocates its result
// at run time. The staged functions of codegen/Staged.h run them between
// the plan of the ops before and the plan specialized for what follows.
// Part of the runtime: no compiler library.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_DATADEPENDENT_H
#define TGC_RUNTIME_DATADEPENDENT_H

#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tgc::runtime {

/// The coordinates of the nonzero elements of `input` (any dtype; NaN is
/// nonzero, -0.0 is zero) as i64 [rank, n], one column per element in
/// row-major order.
absl::StatusOr<HostTensor> nonZero(const HostTensor &input);

/// ONNX Unique: the distinct elements of `input` (flattened; with `axis`,
/// the distinct slices along it), ascending when `sorted` (slices compared
/// lexicographically), else in order of first occurrence; then, as i64,
/// the index of each one's first occurrence, the index into the distinct
/// ones of each element (slice) of the input, and how often each occurs.
/// Numeric dtypes; values compare as doubles (NaNs are all equal).
struct UniqueResult {
  HostTensor values, indices, inverse, counts;
};
absl::StatusOr<UniqueResult> unique(const HostTensor &input,
                                    std::optional<int64_t> axis, bool sorted);

/// ONNX NonMaxSuppression: per batch and class, the boxes whose score
/// exceeds `scoreThreshold`, best score first (the lower box index first
/// among equal scores), each kept unless its IoU with a box kept before it
/// exceeds `iouThreshold`, at most `maxPerClass` of them. `boxes` [B, N, 4]
/// (corners y1, x1, y2, x2 in any order, or with `centerPointBox` x, y, w,
/// h), `scores` [B, C, N] (f32 or f64). Returns i64 [n, 3] rows (batch,
/// class, box) in batch, class, then selection order.
/// ONNX Slice with bounds known when it runs: along each of `axes`, the
/// elements from starts[i] towards ends[i] by steps[i] (negative bounds
/// count from the end; clamped as numpy does; a step of 0 is an error).
absl::StatusOr<HostTensor> dynamicSlice(const HostTensor &input,
                                        const std::vector<int64_t> &axes,
                                        const HostTensor &starts,
                                        const HostTensor &ends,
                                        const HostTensor &steps);

/// Numpy broadcasting of `input`'s shape and the shape held by the 1-D i64
/// `shape` (ONNX Expand; ConstantOfShape of a scalar): right-aligned dims
/// must be equal or one of them 1. Negative sizes, shapes that do not
/// broadcast and element counts that overflow are errors.
absl::StatusOr<HostTensor> dynamicBroadcast(const HostTensor &input,
                                            const HostTensor &shape);

absl::StatusOr<HostTensor>
nonMaxSuppression(const HostTensor &boxes, const HostTensor &scores,
                  int64_t maxPerClass, double iouThreshold,
                  double scoreThreshold, bool centerPointBox);
/// nonMaxSuppression with the maximum and thresholds as one-element tensors
/// (an error otherwise), as tgc.non_max_suppression takes them.
absl::StatusOr<HostTensor>
nonMaxSuppression(const HostTensor &boxes, const HostTensor &scores,
                  const HostTensor &maxPerClass, const HostTensor &iouThreshold,
                  const HostTensor &scoreThreshold, bool centerPointBox);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_DATADEPENDENT_H
