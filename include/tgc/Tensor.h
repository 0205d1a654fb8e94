//===- Tensor.h - symbolic tensors and the tgc op set -----------*- C++ -*-===//
//
// Part of the public API (no MLIR or LLVM header): a Tensor is a handle.
//
// The C++ tracing API: a symbolic `Tensor` (an SSA value of the function being
// traced) and one free function per op of the tgc dialect, plus operator
// overloads. Every op records the user's source location (the file:line:col
// of the call in user code, through a defaulted std::source_location
// argument) on the op it creates, so diagnostics and dumps point at user code.
//
// Errors never abort: an op whose operands or attributes are invalid (shape or
// dtype mismatch, bad axis, impossible reshape, ...) records an error with the
// user's location in the active trace and returns a *poisoned* tensor
// (`valid() == false`). Ops on poisoned tensors stay poisoned without
// reporting again, so the trace reports the first error only (see
// frontend/Tracer.h).
//
// Conventions:
// - Element types are never promoted: both operands of a binary op must have
//   the same dtype (an f32 + i32 add is an error; use cast()). Scalars (C++
//   numbers in operators and in the scalar overloads) adopt the tensor's
//   dtype; a scalar that the dtype cannot represent exactly (2.5 for an i32
//   tensor, 300 for i8) is an error. Floats round to the nearest value.
// - Axis arguments accept negative values counted from the end (numpy style)
//   and are normalized to [0, rank) before the op is built.
// - `kDynamic` (-1) marks a dynamic dim in shapes returned by Tensor::shape()
//   and accepted by broadcastTo(); reshape() uses -1 as "infer this dim".
// - The comparison operators (<, <=, >, >=, ==, !=) are elementwise and return
//   i1 tensors (numpy semantics), so `a == b` is *not* an identity test.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TENSOR_H
#define TGC_TENSOR_H

#include "tgc/DType.h"
#include "tgc/HostTensor.h"

#include <cstdint>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tgc {

/// A dynamic dim in shapes (Tensor::shape(), ArgSpec, broadcastTo()).
inline constexpr int64_t kDynamic = -1;

class Tracer;
class Tensor;

namespace detail {
/// Makes tensors and reads their IR values (frontend/Tensor.h, internal).
struct TensorAccess;
} // namespace detail

/// The data layout of a 2-D spatial op: NCHW input with OIHW filters, or NHWC
/// input with HWIO filters (the tgc dialect's #tgc.layout).
enum class Layout : uint32_t { NCHW = 0, NHWC = 1 };

/// An elementwise comparison (the tgc dialect's compare predicate).
enum class ComparePredicate : uint32_t {
  eq = 0,
  ne = 1,
  lt = 2,
  le = 3,
  gt = 4,
  ge = 5
};

/// A symbolic tensor during tracing: an SSA value of the function being
/// traced. Cheap to copy. Shape queries are answered from the static type:
/// dims known while tracing are numbers, dynamic dims are kDynamic.
///
/// A Tensor is only meaningful inside the trace that produced it; using it in
/// another trace is an error reported by that trace. A default-constructed
/// Tensor, and one produced by an op that failed to trace, is invalid
/// (`valid() == false`): its dtype() is f32 and its rank 0.
class Tensor {
public:
  Tensor() = default;

  /// False for a default-constructed tensor and for a tensor produced by an
  /// op that failed to trace (poisoned).
  bool valid() const { return val != nullptr; }

  runtime::DType dtype() const;
  /// Static dims as numbers, dynamic dims as kDynamic.
  std::vector<int64_t> shape() const;
  int64_t rank() const;
  /// The static size of dim `i` (negative `i` counts from the end), or nullopt
  /// when the dim is dynamic, `i` is out of range, or the tensor is invalid.
  std::optional<int64_t> dim(int64_t i) const;
  /// Whether every dim is static.
  bool hasStaticShape() const;
  /// The static element count, or nullopt when a dim is dynamic.
  std::optional<int64_t> numElements() const;

  /// MLIR-style type, e.g. "tensor<?x4xf32>", or "<invalid tensor>".
  std::string describe() const;

private:
  friend struct detail::TensorAccess;
  Tensor(const void *value, const void *type, uint64_t traceId)
      : val(value), ty(type), trace(traceId) {}

  // The SSA value and its ranked tensor type in the trace's IR, as opaque
  // pointers (null when invalid); see frontend/Tensor.h.
  const void *val = nullptr;
  const void *ty = nullptr;
  uint64_t trace = 0; // Id of the trace that produced it; 0 for none.
};

/// A C++ number used as an operand of a tensor op. It becomes a rank-0
/// constant of the other operand's dtype. Integers are kept exactly.
class Scalar {
public:
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Scalar(T v) { // NOLINT: implicit on purpose.
    if constexpr (std::is_floating_point_v<T>) {
      isInt = false;
      floatValue = static_cast<double>(v);
    } else if constexpr (std::is_unsigned_v<T> && sizeof(T) >= 8) {
      if (v > static_cast<T>(INT64_MAX)) {
        // A double for every type but ui64, which keeps the exact value.
        isInt = false;
        floatValue = static_cast<double>(v);
        bigUnsigned = true;
        intValue = static_cast<int64_t>(v);
      } else {
        intValue = static_cast<int64_t>(v);
      }
    } else {
      intValue = static_cast<int64_t>(v);
    }
  }

  bool isInteger() const { return isInt; }
  int64_t getInt() const { return intValue; }
  double getDouble() const {
    return isInt ? static_cast<double>(intValue) : floatValue;
  }
  /// Whether this is an unsigned integer above INT64_MAX; getUInt64() is
  /// its exact value (getDouble() a rounded one).
  bool isBigUnsigned() const { return bigUnsigned; }
  uint64_t getUInt64() const { return static_cast<uint64_t>(intValue); }
  std::string str() const;

private:
  bool isInt = true;
  bool bigUnsigned = false;
  int64_t intValue = 0;
  double floatValue = 0;
};

/// Captures the source location of an operator expression: operators cannot
/// have default arguments, so the implicit conversion of the Tensor operand
/// to this type records where the operator was used.
struct TensorOperand {
  TensorOperand(const Tensor &tensor, // NOLINT: implicit on purpose.
                std::source_location loc = std::source_location::current())
      : tensor(tensor), loc(loc) {}
  const Tensor &tensor;
  std::source_location loc;
};

using SourceLoc = std::source_location;

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

/// A constant with the contents, dtype and shape of a host tensor (the data is
/// copied; a tensor whose elements are all equal is stored as a splat). Must
/// be called while a trace is active on this thread; otherwise returns an
/// invalid tensor.
Tensor constant(const runtime::HostTensor &value,
                SourceLoc loc = SourceLoc::current());
/// A rank-0 constant.
Tensor scalar(Scalar value, runtime::DType dtype,
              SourceLoc loc = SourceLoc::current());
/// A constant of a static shape with every element `value` (a splat).
Tensor full(std::vector<int64_t> shape, Scalar value, runtime::DType dtype,
            SourceLoc loc = SourceLoc::current());
/// Elementwise conversion to `dtype` (see tgc.cast for the rounding rules).
Tensor cast(const Tensor &x, runtime::DType dtype,
            SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

Tensor neg(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor abs(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor exp(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor log(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor sqrt(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor rsqrt(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor reciprocal(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor tanh(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor sigmoid(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor relu(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor erf(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor sin(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor cos(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor floor(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor ceil(const Tensor &x, SourceLoc loc = SourceLoc::current());
/// Round to nearest, ties to even.
Tensor round(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor sign(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor logicalNot(const Tensor &x, SourceLoc loc = SourceLoc::current());
Tensor leakyRelu(const Tensor &x, double alpha = 0.01,
                 SourceLoc loc = SourceLoc::current());
Tensor elu(const Tensor &x, double alpha = 1.0,
           SourceLoc loc = SourceLoc::current());
/// min(max(x, min), max); min <= max is required.
Tensor clamp(const Tensor &x, double min, double max,
             SourceLoc loc = SourceLoc::current());
Tensor gelu(const Tensor &x, bool tanhApproximation = false,
            SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Binary elementwise (numpy broadcasting; same dtype required)
//===----------------------------------------------------------------------===//

#define TGC_DECLARE_BINARY(NAME)                                               \
  Tensor NAME(const Tensor &a, const Tensor &b,                                \
              SourceLoc loc = SourceLoc::current());                           \
  Tensor NAME(const Tensor &a, Scalar b,                                       \
              SourceLoc loc = SourceLoc::current());                           \
  Tensor NAME(Scalar a, const Tensor &b, SourceLoc loc = SourceLoc::current());
TGC_DECLARE_BINARY(add)
TGC_DECLARE_BINARY(sub)
TGC_DECLARE_BINARY(mul)
/// Integers round toward zero.
TGC_DECLARE_BINARY(div)
TGC_DECLARE_BINARY(pow)
/// Elementwise maximum / minimum (tgc.max / tgc.min).
TGC_DECLARE_BINARY(maximum)
TGC_DECLARE_BINARY(minimum)
/// Bit shifts of integers (tgc.shift_left / tgc.shift_right: logical for
/// unsigned, arithmetic for signed types; amounts outside [0, width) shift
/// every bit out).
TGC_DECLARE_BINARY(shiftLeft)
TGC_DECLARE_BINARY(shiftRight)
// Comparisons produce i1 tensors.
TGC_DECLARE_BINARY(equal)
TGC_DECLARE_BINARY(notEqual)
TGC_DECLARE_BINARY(less)
TGC_DECLARE_BINARY(lessEqual)
TGC_DECLARE_BINARY(greater)
TGC_DECLARE_BINARY(greaterEqual)
#undef TGC_DECLARE_BINARY

Tensor logicalAnd(const Tensor &a, const Tensor &b,
                  SourceLoc loc = SourceLoc::current());
Tensor logicalOr(const Tensor &a, const Tensor &b,
                 SourceLoc loc = SourceLoc::current());
Tensor compare(ComparePredicate predicate, const Tensor &a, const Tensor &b,
               SourceLoc loc = SourceLoc::current());
/// cond ? a : b elementwise; `cond` is i1, all three broadcast together.
Tensor select(const Tensor &cond, const Tensor &a, const Tensor &b,
              SourceLoc loc = SourceLoc::current());
Tensor select(const Tensor &cond, const Tensor &a, Scalar b,
              SourceLoc loc = SourceLoc::current());
Tensor select(const Tensor &cond, Scalar a, const Tensor &b,
              SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Contractions and windows
//===----------------------------------------------------------------------===//

struct MatmulOptions {
  bool transposeA = false;
  bool transposeB = false;
};
/// Batched matrix multiplication (rank >= 2, broadcast batch dims).
Tensor matmul(const Tensor &a, const Tensor &b, MatmulOptions opts = {},
              SourceLoc loc = SourceLoc::current());

struct Conv2DOptions {
  std::vector<int64_t> strides = {1, 1};
  /// [top, left, bottom, right]; two values [h, w] mean [h, w, h, w].
  std::vector<int64_t> padding = {0, 0, 0, 0};
  std::vector<int64_t> dilations = {1, 1};
  int64_t groups = 1;
  /// NCHW input with OIHW filter, or NHWC input with HWIO filter.
  Layout layout = Layout::NCHW;
};
Tensor conv2d(const Tensor &x, const Tensor &filter, std::optional<Tensor> bias,
              Conv2DOptions opts = {}, SourceLoc loc = SourceLoc::current());
Tensor conv2d(const Tensor &x, const Tensor &filter, Conv2DOptions opts = {},
              SourceLoc loc = SourceLoc::current());

struct Pool2DOptions {
  std::vector<int64_t> kernel = {1, 1};
  std::vector<int64_t> strides = {1, 1};
  /// [top, left, bottom, right]; two values [h, w] mean [h, w, h, w].
  std::vector<int64_t> padding = {0, 0, 0, 0};
  std::vector<int64_t> dilations = {1, 1};
  bool ceilMode = false;
  /// avgPool2d only: count padded positions in the divisor.
  bool countIncludePad = false;
  Layout layout = Layout::NCHW;
};
Tensor maxPool2d(const Tensor &x, Pool2DOptions opts,
                 SourceLoc loc = SourceLoc::current());
Tensor avgPool2d(const Tensor &x, Pool2DOptions opts,
                 SourceLoc loc = SourceLoc::current());
Tensor globalAvgPool2d(const Tensor &x, Layout layout = Layout::NCHW,
                       SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// `axes` may be negative and in any order (duplicates are an error); an empty
// list reduces over every dim (numpy's axis=None).
Tensor reduceSum(const Tensor &x, std::vector<int64_t> axes,
                 bool keepdims = false, SourceLoc loc = SourceLoc::current());
Tensor reduceMean(const Tensor &x, std::vector<int64_t> axes,
                  bool keepdims = false, SourceLoc loc = SourceLoc::current());
Tensor reduceMax(const Tensor &x, std::vector<int64_t> axes,
                 bool keepdims = false, SourceLoc loc = SourceLoc::current());
Tensor reduceMin(const Tensor &x, std::vector<int64_t> axes,
                 bool keepdims = false, SourceLoc loc = SourceLoc::current());
Tensor reduceProd(const Tensor &x, std::vector<int64_t> axes,
                  bool keepdims = false, SourceLoc loc = SourceLoc::current());
/// i64 index of the maximum / minimum along `axis`.
Tensor argmax(const Tensor &x, int64_t axis, bool keepdims = false,
              bool selectLastIndex = false,
              SourceLoc loc = SourceLoc::current());
Tensor argmin(const Tensor &x, int64_t axis, bool keepdims = false,
              bool selectLastIndex = false,
              SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

Tensor softmax(const Tensor &x, int64_t axis = -1,
               SourceLoc loc = SourceLoc::current());
Tensor logSoftmax(const Tensor &x, int64_t axis = -1,
                  SourceLoc loc = SourceLoc::current());
/// Normalizes over dims [axis, rank); scale and bias have shape
/// x.shape[axis:].
Tensor layerNorm(const Tensor &x, std::optional<Tensor> scale,
                 std::optional<Tensor> bias, int64_t axis = -1,
                 double epsilon = 1e-5, SourceLoc loc = SourceLoc::current());
/// Inference-form batch norm; `axis` is the channel dim (1 for NCHW, -1 for
/// NHWC).
Tensor batchNorm(const Tensor &x, const Tensor &scale, const Tensor &bias,
                 const Tensor &mean, const Tensor &variance,
                 double epsilon = 1e-5, int64_t axis = 1,
                 SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// New shape in numpy style: at most one -1, inferred from the element count
/// (dynamic when the input has dynamic dims).
Tensor reshape(const Tensor &x, std::vector<int64_t> shape,
               SourceLoc loc = SourceLoc::current());
/// The shape of `x` as a 1-D i64 tensor, known when the function runs.
Tensor shapeOf(const Tensor &x, SourceLoc loc = SourceLoc::current());
/// Numpy broadcasting of `x` and the shape held by the 1-D i64 tensor
/// `shape` (ONNX Expand; a scalar `x` gives ConstantOfShape), known when
/// the function runs.
Tensor dynamicBroadcastTo(const Tensor &x, const Tensor &shape,
                          SourceLoc loc = SourceLoc::current());
/// Reshape to the shape held by the 1-D i64 tensor `shape` (entries >= 0, or
/// -1 once); `hint` (optional, of the same length) gives dims known now
/// (tgc::kDynamic elsewhere) for the result type. With `copyZeros`, a 0 entry
/// keeps the input's dim at that position (ONNX Reshape's default).
Tensor dynamicReshape(const Tensor &x, const Tensor &shape,
                      std::vector<int64_t> hint = {}, bool copyZeros = false,
                      SourceLoc loc = SourceLoc::current());
/// result.shape[i] = x.shape[perm[i]]; negative entries count from the end; an
/// empty `perm` reverses the dims.
Tensor transpose(const Tensor &x, std::vector<int64_t> perm = {},
                 SourceLoc loc = SourceLoc::current());
/// Numpy broadcast to `shape`; kDynamic dims must line up with an input dim.
Tensor broadcastTo(const Tensor &x, std::vector<int64_t> shape,
                   SourceLoc loc = SourceLoc::current());
Tensor concat(const std::vector<Tensor> &inputs, int64_t axis,
              SourceLoc loc = SourceLoc::current());
/// x[starts[d]:ends[d]:steps[d]] per dim with numpy semantics (negative
/// indices count from the end, clamped); empty `steps` means all 1. Use
/// INT64_MAX as "to the end".
Tensor slice(const Tensor &x, std::vector<int64_t> starts,
             std::vector<int64_t> ends, std::vector<int64_t> steps = {},
             SourceLoc loc = SourceLoc::current());
/// Pads low[d] before and high[d] after each dim with `value`.
Tensor pad(const Tensor &x, std::vector<int64_t> low, std::vector<int64_t> high,
           double value = 0.0, SourceLoc loc = SourceLoc::current());
/// data.shape[:axis] + indices.shape + data.shape[axis+1:].
Tensor gather(const Tensor &data, const Tensor &indices, int64_t axis = 0,
              SourceLoc loc = SourceLoc::current());
/// A copy of `data` with `updates[p]` stored (or combined by `reduction`:
/// "none", "add", "mul", "max", "min") at `p` with `p[axis]` replaced by
/// `indices[p]`; negative axis and indices count from the end.
Tensor scatterElements(const Tensor &data, const Tensor &indices,
                       const Tensor &updates, int64_t axis = 0,
                       std::string_view reduction = "none",
                       SourceLoc loc = SourceLoc::current());
/// A copy of `data` with the slices addressed by the index tuples in the
/// last dim of `indices` replaced by (or combined with) `updates`.
Tensor scatterND(const Tensor &data, const Tensor &indices,
                 const Tensor &updates, std::string_view reduction = "none",
                 SourceLoc loc = SourceLoc::current());
/// The coordinates of the nonzero elements of `x` as i64 [rank, n], one
/// column per element in row-major order (NaN counts as nonzero). `n` is
/// known only when the function runs: the CPU backend specializes what
/// follows for it when it runs (docs/tracing.md, "Data-dependent shapes").
Tensor nonzero(const Tensor &x, SourceLoc loc = SourceLoc::current());
/// x sliced along `axes` with bounds computed by the function: i64 tensors
/// `starts`, `ends` and `steps` of one value per axis (ONNX Slice; negative
/// bounds count from the end, clamped). The sliced dims are known only when
/// the function runs.
Tensor dynamicSlice(const Tensor &x, const Tensor &starts, const Tensor &ends,
                    const Tensor &steps, std::vector<int64_t> axes,
                    SourceLoc loc = SourceLoc::current());
/// ONNX Unique: the distinct elements of `x` (flattened; with `axis`, the
/// distinct slices along it), ascending when `sorted`, else by first
/// occurrence, with the i64 index of each one's first occurrence, the index
/// into `values` of every element (slice) of `x`, and each one's count.
/// Their number is known only when the function runs.
struct UniqueTensors {
  Tensor values, indices, inverse, counts;
};
UniqueTensors unique(const Tensor &x, std::optional<int64_t> axis = {},
                     bool sorted = true, SourceLoc loc = SourceLoc::current());
/// ONNX NonMaxSuppression: per batch and class of `scores` [batch, classes,
/// n], the boxes of `boxes` [batch, n, 4] (corners, or with
/// `centerPointBox` center, width and height) scoring above
/// `scoreThreshold`, best first, each kept unless its IoU with one kept
/// before exceeds `iouThreshold`, at most `maxPerClass`; one i64 (batch,
/// class, box) row per kept box. The thresholds and the maximum are
/// one-element tensors (i64 for the maximum).
Tensor nonMaxSuppression(const Tensor &boxes, const Tensor &scores,
                         const Tensor &maxPerClass, const Tensor &iouThreshold,
                         const Tensor &scoreThreshold,
                         bool centerPointBox = false,
                         SourceLoc loc = SourceLoc::current());
/// The k largest (or smallest) elements along `axis` and their i64 indices,
/// best first; ties in index order. k = -1 takes every element (a sort along
/// `axis`, of a dynamic dim too).
std::pair<Tensor, Tensor> topk(const Tensor &x, int64_t k, int64_t axis = -1,
                               bool largest = true, bool sorted = true,
                               SourceLoc loc = SourceLoc::current());
/// Removes the listed size-1 dims; an empty list removes every static size-1
/// dim.
Tensor squeeze(const Tensor &x, std::vector<int64_t> axes = {},
               SourceLoc loc = SourceLoc::current());
/// Inserts size-1 dims at positions `axes` of the result (negative values
/// count from the end of the result).
Tensor unsqueeze(const Tensor &x, std::vector<int64_t> axes,
                 SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

// Arithmetic (numpy broadcasting; scalars adopt the tensor's dtype).
Tensor operator+(TensorOperand a, TensorOperand b);
Tensor operator+(TensorOperand a, Scalar b);
Tensor operator+(Scalar a, TensorOperand b);
Tensor operator-(TensorOperand a, TensorOperand b);
Tensor operator-(TensorOperand a, Scalar b);
Tensor operator-(Scalar a, TensorOperand b);
Tensor operator*(TensorOperand a, TensorOperand b);
Tensor operator*(TensorOperand a, Scalar b);
Tensor operator*(Scalar a, TensorOperand b);
Tensor operator/(TensorOperand a, TensorOperand b);
Tensor operator/(TensorOperand a, Scalar b);
Tensor operator/(Scalar a, TensorOperand b);
Tensor operator-(TensorOperand x);

// Elementwise comparisons returning i1 tensors (not bool!).
Tensor operator<(TensorOperand a, TensorOperand b);
Tensor operator<(TensorOperand a, Scalar b);
Tensor operator<(Scalar a, TensorOperand b);
Tensor operator<=(TensorOperand a, TensorOperand b);
Tensor operator<=(TensorOperand a, Scalar b);
Tensor operator<=(Scalar a, TensorOperand b);
Tensor operator>(TensorOperand a, TensorOperand b);
Tensor operator>(TensorOperand a, Scalar b);
Tensor operator>(Scalar a, TensorOperand b);
Tensor operator>=(TensorOperand a, TensorOperand b);
Tensor operator>=(TensorOperand a, Scalar b);
Tensor operator>=(Scalar a, TensorOperand b);
Tensor operator==(TensorOperand a, TensorOperand b);
Tensor operator==(TensorOperand a, Scalar b);
Tensor operator==(Scalar a, TensorOperand b);
Tensor operator!=(TensorOperand a, TensorOperand b);
Tensor operator!=(TensorOperand a, Scalar b);
Tensor operator!=(Scalar a, TensorOperand b);

} // namespace tgc

#endif // TGC_TENSOR_H
