//===- DataMovementKernels.cpp - transpose, broadcast, concat, ... --------===//
//
// Native loops for every dtype (copies by element size): transpose,
// broadcast_to and slice are strided copies, concat and pad copy rows,
// gather copies slices by index (out-of-range indices are a run-time error).
// Large 4-byte transposes use a oneDNN reorder.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Common.h"
#include "runtime/cpu/Recipes.h"

#include "absl/strings/str_cat.h"

namespace tgc::runtime::cpu {
using namespace detail;

namespace {

/// out (contiguous, `outShape`) = in[base + sum(index[d] * srcStrides[d])].
KernelPtr makeStridedCopy(std::string name, DType dtype, const Shape &outShape,
                          const Shape &srcStrides, int64_t base) {
  auto plan = std::make_shared<BroadcastPlan<2>>(
      outShape, std::array<Shape, 2>{rowMajorStrides(outShape), srcStrides});
  size_t size = dtypeSize(dtype);
  return makeKernel(std::move(name), [plan, size,
                                      base](const KernelContext &context,
                                            const std::vector<HostTensor> &in,
                                            std::vector<HostTensor> &out) {
    dispatchBytes(size, [&](auto type) {
      using T = decltype(type);
      const T *src = static_cast<const T *>(in[0].data()) + base;
      T *dst = static_cast<T *>(out[0].data());
      parallelRange(
          context.numThreads, plan->total, 32768, [&](int64_t lo, int64_t hi) {
            plan->run(lo, hi,
                      [&](int64_t at, int64_t count, const auto &off,
                          const auto &step) {
                        const T *s = src + off[1];
                        T *d = dst + at;
                        if (step[1] == 1) {
                          std::memcpy(d, s,
                                      static_cast<size_t>(count) * sizeof(T));
                        } else if (step[1] == 0) {
                          std::fill(d, d + count, *s);
                        } else {
                          for (int64_t i = 0; i < count; ++i)
                            d[i] = s[i * step[1]];
                        }
                      });
          });
    });
    return absl::OkStatus();
  });
}

/// The bytes of `value` converted to `dtype` (tgc.pad semantics).
uint64_t convertedValue(DType dtype, double value) {
  uint64_t bits = 0;
  auto put = [&](auto v) { std::memcpy(&bits, &v, sizeof(v)); };
  switch (dtype) {
  case DType::F32:
    put(static_cast<float>(value));
    break;
  case DType::F64:
    put(value);
    break;
  case DType::F16:
    put(doubleToHalf(value));
    break;
  case DType::BF16:
    put(doubleToBFloat16(value));
    break;
  case DType::I1:
    put(static_cast<uint8_t>(value != 0));
    break;
  case DType::I8:
    put(static_cast<int8_t>(scalar::attrToInt(value, 8)));
    break;
  case DType::I32:
    put(static_cast<int32_t>(scalar::attrToInt(value, 32)));
    break;
  case DType::I64:
    put(scalar::attrToInt(value, 64));
    break;
  case DType::I16:
    put(static_cast<int16_t>(scalar::attrToInt(value, 16)));
    break;
  case DType::UI8:
    put(static_cast<uint8_t>(scalar::attrToInt(value, 8, true)));
    break;
  case DType::UI16:
    put(static_cast<uint16_t>(scalar::attrToInt(value, 16, true)));
    break;
  case DType::UI32:
    put(static_cast<uint32_t>(scalar::attrToInt(value, 32, true)));
    break;
  case DType::UI64:
    put(static_cast<uint64_t>(scalar::attrToInt(value, 64, true)));
    break;
  }
  return bits;
}

} // namespace

absl::StatusOr<KernelPtr>
createTransposeUnrecorded(DType dtype, const Shape &inputShape,
                          const std::vector<int64_t> &perm) {
  if (absl::Status s = checkShape(inputShape, "transpose operand"); !s.ok())
    return s;
  size_t rank = inputShape.size();
  std::vector<bool> seen(rank, false);
  if (perm.size() != rank)
    return absl::InvalidArgumentError("transpose permutation has wrong size");
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p])
      return absl::InvalidArgumentError("invalid transpose permutation");
    seen[p] = true;
  }
  if (numElements(inputShape) == 0)
    return makeNoOpKernel("native.transpose");
  Shape inStrides = rowMajorStrides(inputShape), outShape, srcStrides;
  for (int64_t p : perm) {
    outShape.push_back(inputShape[p]);
    srcStrides.push_back(inStrides[p]);
  }
  // A permutation that keeps the innermost dim innermost moves whole rows:
  // the strided copy memcpys them (attention's [S, H, D] -> [H, S, D]).
  const bool movesRows =
      perm.back() == static_cast<int64_t>(rank) - 1 &&
      inputShape.back() * static_cast<int64_t>(dtypeSize(dtype)) >= 64;
  // A oneDNN reorder for other big 4-byte transposes (its blocked kernels
  // beat the strided loop); s32 moves the bits unchanged.
  if (!movesRows && dtypeSize(dtype) == 4 && numElements(inputShape) >= 4096 &&
      rank <= DNNL_MAX_NDIMS && rank > 1) {
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    try {
      using dt = dnnl::memory::data_type;
      dnnl::memory::desc src = stridedDesc(outShape, srcStrides, dt::s32);
      dnnl::memory::desc dst = plainDesc(outShape, dt::s32);
      dnnl::reorder::primitive_desc pd(**engine, src, **engine, dst,
                                       makeAttr());
      PrimitiveKernelSpec spec;
      spec.name = "onednn.transpose";
      spec.primitive = dnnl::reorder(pd);
      spec.work = numElements(inputShape);
      spec.bindings = {{DNNL_ARG_FROM, 0, src}, {DNNL_ARG_TO, -1, dst}};
      return makePrimitiveKernel(std::move(spec));
    } catch (const dnnl::error &) {
      // Native below.
    }
  }
  return makeStridedCopy("native.transpose", dtype, outShape, srcStrides, 0);
}

absl::StatusOr<KernelPtr>
createBroadcastToUnrecorded(DType dtype, const Shape &inputShape,
                            const Shape &resultShape) {
  for (const Shape *s : {&inputShape, &resultShape})
    if (absl::Status st = checkShape(*s, "broadcast_to operand"); !st.ok())
      return st;
  if (!broadcastsTo(inputShape, resultShape))
    return absl::InvalidArgumentError(absl::StrCat(shapeString(inputShape),
                                                   " does not broadcast to ",
                                                   shapeString(resultShape)));
  if (numElements(resultShape) == 0)
    return makeNoOpKernel("native.broadcast_to");
  return makeStridedCopy("native.broadcast_to", dtype, resultShape,
                         broadcastStrides(inputShape, resultShape), 0);
}

absl::StatusOr<KernelPtr>
createConcatUnrecorded(DType dtype, const std::vector<Shape> &inputShapes,
                       int64_t axis) {
  if (inputShapes.empty())
    return absl::InvalidArgumentError("concat needs at least one input");
  size_t rank = inputShapes[0].size();
  if (axis < 0 || axis >= static_cast<int64_t>(rank))
    return absl::InvalidArgumentError("concat axis out of range");
  size_t a = static_cast<size_t>(axis);
  int64_t total = 0;
  for (const Shape &s : inputShapes) {
    if (absl::Status st = checkShape(s, "concat operand"); !st.ok())
      return st;
    if (s.size() != rank)
      return absl::InvalidArgumentError("concat inputs differ in rank");
    for (size_t d = 0; d < rank; ++d)
      if (d != a && s[d] != inputShapes[0][d])
        return absl::InvalidArgumentError(absl::StrCat(
            "concat inputs ", shapeString(s), " and ",
            shapeString(inputShapes[0]), " differ outside the axis"));
    total += s[a];
  }
  Shape resultShape = inputShapes[0];
  resultShape[a] = total;
  if (numElements(resultShape) == 0)
    return makeNoOpKernel("native.concat");
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < a; ++d)
    outer *= resultShape[d];
  for (size_t d = a + 1; d < rank; ++d)
    inner *= resultShape[d];
  size_t size = dtypeSize(dtype);
  std::vector<int64_t> chunks; // bytes per outer index of each input
  for (const Shape &s : inputShapes)
    chunks.push_back(s[a] * inner * static_cast<int64_t>(size));
  int64_t rowBytes = total * inner * static_cast<int64_t>(size);
  return makeKernel("native.concat", [=](const KernelContext &context,
                                         const std::vector<HostTensor> &in,
                                         std::vector<HostTensor> &out) {
    char *dst = static_cast<char *>(out[0].data());
    parallelRange(context.numThreads, outer,
                  std::max<int64_t>(1, 65536 / std::max<int64_t>(rowBytes, 1)),
                  [&](int64_t lo, int64_t hi) {
                    for (int64_t o = lo; o < hi; ++o) {
                      char *row = dst + o * rowBytes;
                      for (size_t i = 0; i < chunks.size(); ++i) {
                        if (chunks[i] == 0)
                          continue;
                        std::memcpy(row,
                                    static_cast<const char *>(in[i].data()) +
                                        o * chunks[i],
                                    static_cast<size_t>(chunks[i]));
                        row += chunks[i];
                      }
                    }
                  });
    return absl::OkStatus();
  });
}

absl::StatusOr<KernelPtr> createSliceUnrecorded(
    DType dtype, const Shape &inputShape, const std::vector<int64_t> &starts,
    const std::vector<int64_t> &steps, const Shape &resultShape) {
  for (const Shape *s : {&inputShape, &resultShape})
    if (absl::Status st = checkShape(*s, "slice operand"); !st.ok())
      return st;
  size_t rank = inputShape.size();
  if (starts.size() != rank || resultShape.size() != rank ||
      (!steps.empty() && steps.size() != rank))
    return absl::InvalidArgumentError("slice parameters have the wrong rank");
  if (numElements(resultShape) == 0)
    return makeNoOpKernel("native.slice");
  Shape inStrides = rowMajorStrides(inputShape), srcStrides(rank);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    int64_t step = steps.empty() ? 1 : steps[d];
    int64_t start = starts[d] < 0 ? starts[d] + inputShape[d] : starts[d];
    int64_t last = start + (resultShape[d] - 1) * step;
    if (step == 0 || start < 0 || start >= inputShape[d] || last < 0 ||
        last >= inputShape[d])
      return absl::InvalidArgumentError(absl::StrCat(
          "slice of dim ", d, " (size ", inputShape[d], ") from ", starts[d],
          " by ", step, " for ", resultShape[d], " elements is out of range"));
    base += start * inStrides[d];
    srcStrides[d] = inStrides[d] * step;
  }
  return makeStridedCopy("native.slice", dtype, resultShape, srcStrides, base);
}

absl::StatusOr<KernelPtr> createPadUnrecorded(DType dtype,
                                              const Shape &inputShape,
                                              const std::vector<int64_t> &low,
                                              const Shape &resultShape,
                                              double value) {
  for (const Shape *s : {&inputShape, &resultShape})
    if (absl::Status st = checkShape(*s, "pad operand"); !st.ok())
      return st;
  size_t rank = inputShape.size();
  if (low.size() != rank || resultShape.size() != rank)
    return absl::InvalidArgumentError("pad parameters have the wrong rank");
  for (size_t d = 0; d < rank; ++d)
    if (low[d] < 0 || resultShape[d] - inputShape[d] - low[d] < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("pad amounts of dim ", d, " are negative"));
  int64_t outCount = numElements(resultShape);
  if (outCount == 0)
    return makeNoOpKernel("native.pad");
  size_t size = dtypeSize(dtype);
  uint64_t fill = convertedValue(dtype, value);
  int64_t inCount = numElements(inputShape);
  Shape outStrides = rowMajorStrides(resultShape);
  int64_t offset = 0;
  for (size_t d = 0; d < rank; ++d)
    offset += low[d] * outStrides[d];
  // Rows of the input (its last dim) land at `offset + sum(i_d * outStride_d)`.
  Shape rowShape =
      rank ? Shape(inputShape.begin(), inputShape.end() - 1) : Shape();
  int64_t rowLength = rank ? inputShape[rank - 1] : 1;
  int64_t rows = rowLength ? inCount / rowLength : 0;
  return makeKernel("native.pad", [=](const KernelContext &context,
                                      const std::vector<HostTensor> &in,
                                      std::vector<HostTensor> &out) {
    dispatchBytes(size, [&](auto type) {
      using T = decltype(type);
      T v;
      std::memcpy(&v, &fill, sizeof(T));
      T *dst = static_cast<T *>(out[0].data());
      const T *src = static_cast<const T *>(in[0].data());
      parallelRange(
          context.numThreads, outCount, 65536,
          [&](int64_t lo, int64_t hi) { std::fill(dst + lo, dst + hi, v); });
      parallelRange(
          context.numThreads, rows,
          std::max<int64_t>(1, 16384 / std::max<int64_t>(rowLength, 1)),
          [&](int64_t lo, int64_t hi) {
            for (int64_t r = lo; r < hi; ++r) {
              int64_t at = offset, rem = r;
              for (size_t d = rowShape.size(); d-- > 0;) {
                at += (rem % rowShape[d]) * outStrides[d];
                rem /= rowShape[d];
              }
              std::memcpy(dst + at, src + r * rowLength,
                          static_cast<size_t>(rowLength) * sizeof(T));
            }
          });
    });
    return absl::OkStatus();
  });
}

absl::StatusOr<KernelPtr>
createGatherUnrecorded(DType dtype, const Shape &dataShape, DType indexDType,
                       const Shape &indicesShape, int64_t axis) {
  for (const Shape *s : {&dataShape, &indicesShape})
    if (absl::Status st = checkShape(*s, "gather operand"); !st.ok())
      return st;
  if (indexDType != DType::I32 && indexDType != DType::I64)
    return absl::InvalidArgumentError("gather indices must be i32 or i64");
  size_t rank = dataShape.size();
  if (axis < 0 || axis >= static_cast<int64_t>(rank))
    return absl::InvalidArgumentError("gather axis out of range");
  size_t a = static_cast<size_t>(axis);
  int64_t outer = 1, inner = 1, len = dataShape[a];
  for (size_t d = 0; d < a; ++d)
    outer *= dataShape[d];
  for (size_t d = a + 1; d < rank; ++d)
    inner *= dataShape[d];
  int64_t count = numElements(indicesShape);
  if (outer * count * inner == 0 && count == 0)
    return makeNoOpKernel("native.gather");
  size_t size = dtypeSize(dtype);
  int64_t sliceBytes = inner * static_cast<int64_t>(size);
  return makeKernel("native.gather", [=](const KernelContext &context,
                                         const std::vector<HostTensor> &in,
                                         std::vector<HostTensor> &out) {
    // Resolve and check every index before copying anything.
    std::vector<int64_t> index(static_cast<size_t>(count));
    for (int64_t j = 0; j < count; ++j) {
      int64_t i = indexDType == DType::I32
                      ? static_cast<const int32_t *>(in[1].data())[j]
                      : static_cast<const int64_t *>(in[1].data())[j];
      int64_t resolved = i < 0 ? i + len : i;
      if (resolved < 0 || resolved >= len)
        return absl::OutOfRangeError(absl::StrCat("gather index ", i,
                                                  " is out of range for axis ",
                                                  axis, " of size ", len));
      index[j] = resolved;
    }
    if (outer * inner == 0)
      return absl::OkStatus();
    const char *src = static_cast<const char *>(in[0].data());
    char *dst = static_cast<char *>(out[0].data());
    parallelRange(
        context.numThreads, outer * count,
        std::max<int64_t>(1, 65536 / std::max<int64_t>(sliceBytes, 1)),
        [&](int64_t lo, int64_t hi) {
          for (int64_t job = lo; job < hi; ++job) {
            int64_t o = job / count, j = job % count;
            std::memcpy(dst + job * sliceBytes,
                        src + (o * len + index[j]) * sliceBytes,
                        static_cast<size_t>(sliceBytes));
          }
        });
    return absl::OkStatus();
  });
}

} // namespace tgc::runtime::cpu
