//===- Common.h - shared helpers of the CPU kernels (private) ---*- C++ -*-===//
//
// The process-wide oneDNN engine, dtype mapping, element traits with a dtype
// dispatcher, broadcast iteration, OpenMP helpers, the scalar eltwise
// functions and the kernel classes shared by every kernel area. Private to
// runtime/cpu.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CPU_COMMON_H
#define TGC_RUNTIME_CPU_COMMON_H

#include "runtime/Shape.h"
#include "runtime/cpu/Kernels.h"

#include "dialects/ScalarMath.h"
#include "runtime/Float16.h"

#include "tgc/AbslStatus.h"

#include "absl/container/inlined_vector.h"

#include <dnnl.hpp>

#include <array>
#include <cassert>
#include <cmath>
#include <cstring>
#include <functional>
#include <omp.h>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tgc::runtime::cpu::detail {

//===----------------------------------------------------------------------===//
// oneDNN basics
//===----------------------------------------------------------------------===//

/// The process-wide CPU engine, created on first use.
absl::StatusOr<const dnnl::engine *> cpuEngine();

/// The oneDNN data type of `dtype`, if oneDNN has one (f32, f16, bf16, s8,
/// s32).
std::optional<dnnl::memory::data_type> toDnnl(DType dtype);

/// Converts a caught oneDNN error into UnimplementedError (unsupported
/// descriptor: the caller falls back) naming `what`.
absl::Status unimplementedFrom(const dnnl::error &error, std::string_view what);

/// UnimplementedError "no native <what> kernel for <dtype>" when `dtype` has
/// no native traits (see hasNativeTraits), otherwise OK.
absl::Status checkNativeDType(DType dtype, std::string_view what);

using Dims = dnnl::memory::dims;

/// A plain row-major memory descriptor.
dnnl::memory::desc plainDesc(const Shape &shape, dnnl::memory::data_type type);
/// A strided memory descriptor.
dnnl::memory::desc stridedDesc(const Shape &dims, const Shape &strides,
                               dnnl::memory::data_type type);

/// Sets the calling thread's OpenMP thread count (what oneDNN uses) to
/// `numThreads` if positive and different.
void useThreads(int numThreads);

/// Whether a oneDNN primitive with implementation `impl` (impl_info_str)
/// may split a reduction between threads, so that its result depends on
/// the thread count: oneDNN 2.6's gemm-based kernels (their sgemm
/// partitions K when M x N is small for the threads) and Winograd.
bool splitsReductions(const char *impl);

/// Sets this thread's OpenMP thread count to 1 while alive, when `enable`
/// (a primitive made inside partitions its work for one thread).
class OneThreadScope {
public:
  explicit OneThreadScope(bool enable);
  ~OneThreadScope();
  OneThreadScope(const OneThreadScope &) = delete;
  OneThreadScope &operator=(const OneThreadScope &) = delete;

private:
  int previous = 0;
};

/// Executes `primitive` on a fresh stream of this run and waits.
absl::Status execute(const dnnl::primitive &primitive,
                     const std::unordered_map<int, dnnl::memory> &args,
                     const KernelContext &context);

/// Attributes every kernel primitive is created with (user-managed
/// scratchpad, so that one primitive may run on several threads at once).
dnnl::primitive_attr makeAttr();

/// Per-thread buffers, grown on demand and freed when the thread exits.
/// Scratchpad: oneDNN's (its library-managed scratchpad forbids running one
/// primitive from several threads at once; with user scratchpads each run
/// brings its own). Staging: a kernel's own copy of an operand, apart from
/// the scratchpad of the primitive it then runs. Null if allocation fails.
enum class ThreadBuffer { Scratchpad, Staging };
void *threadBuffer(ThreadBuffer which, size_t bytes);

/// A memory object over caller memory.
dnnl::memory wrap(const dnnl::memory::desc &desc, const void *data);

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

using RunFn = std::function<absl::Status(const KernelContext &,
                                         const std::vector<HostTensor> &,
                                         std::vector<HostTensor> &)>;

/// A kernel running `fn`; `inPlaceInput` (if >= 0) may share output 0.
KernelPtr makeKernel(std::string name, RunFn fn, int inPlaceInput = -1);

/// A kernel running `fn`, which calls `inner` (captured by `fn`) on
/// inputs it prepares: what `inner` holds, reads and derived from
/// constants is the wrapper's (so a saved plan keeps its prepacked
/// weights, and leaves out the constants it no longer reads).
KernelPtr makeWrappingKernel(std::string name, KernelPtr inner, RunFn fn);

/// Whether oneDNN's eltwise algorithm for `kind` (alone or as a post-op)
/// maps NaN to NaN: false for Relu and Clamp (max/min return the number)
/// and Exp (saturates to inf).
bool eltwisePropagatesNaN(EltwiseKind kind);

/// Which special values make NaNGuard switch kernels.
enum class NaNGuardScan { NaN, NonFinite };
/// A kernel that runs `fast` (a oneDNN primitive that does not propagate
/// NaN: its max/min/clip return the number, its exp saturates) unless one of
/// the float inputs `scanned` holds a NaN (or, with NonFinite, also an
/// infinity, where a contraction could make NaN), where it runs `exact`
/// (the tgc semantics: NaN propagates; dialects/TgcOps.td). Scanning is
/// one read of the inputs, a fraction of what the kernel itself reads. It
/// runs in place only where both kernels can. Named after `fast`.
KernelPtr makeNaNGuardedKernel(KernelPtr fast, KernelPtr exact,
                               std::vector<int> scanned,
                               NaNGuardScan scan = NaNGuardScan::NaN);
/// As above, with `exact` made on first need (a second oneDNN primitive
/// with its own prepacked weights is not worth keeping for inputs that
/// never hold NaN). With `unpackedConstant` >= 0 (a constant input `fast`
/// holds packed: Kernel::canUnpackConstant), `exact` reads that input's
/// values unpacked from `fast`'s copy, so the guard does not read the
/// constant itself (Kernel::readsInput) and a plan may let its bytes go.
KernelPtr makeNaNGuardedKernel(KernelPtr fast,
                               std::function<absl::StatusOr<KernelPtr>()> exact,
                               std::vector<int> scanned, NaNGuardScan scan,
                               int unpackedConstant = -1);
/// Whether the float tensor `t` (f32, f64, f16, bf16; false for others)
/// holds a NaN, or with NonFinite any NaN or infinity.
bool hasSpecialValues(const HostTensor &t, NaNGuardScan scan,
                      int numThreads = 1);

/// A kernel that does nothing (all outputs are empty).
KernelPtr makeNoOpKernel(std::string name);

/// One memory argument of a primitive: kernel input `input` (or output 0
/// when `input` is -1) passed as `arg` with descriptor `desc`. With a
/// `from` descriptor (an input only), the input holds `from` (e.g. f32)
/// and each run first converts it (a oneDNN reorder) into a staging buffer
/// in `desc` (e.g. bf16) that the primitive reads.
struct Binding {
  int arg;
  int input;
  dnnl::memory::desc desc;
  dnnl::memory::desc from = {};
  /// With `from`: the conversion multiplies by this (int8 quantization:
  /// 1 / the input's scale), adds `fromZeroPoint`, rounds to nearest and
  /// saturates.
  float fromScale = 1;
  int32_t fromZeroPoint = 0;
  /// With `from`, instead of `fromScale`: one factor per index of the dims
  /// in `fromScalesMask` (oneDNN's output-scales mask), e.g. per channel.
  std::vector<float> fromScales = {};
  int fromScalesMask = 0;
  /// Where the argument starts in its input (a strided view into it,
  /// MatmulDesc::OperandView), and the bytes the input must hold from its
  /// start for the view to stay inside it (checked on each run:
  /// checkViewFits).
  int64_t offsetBytes = 0;
  int64_t minBytes = 0;
};

/// InvalidArgument, naming `kernel` and the sizes, where kernel input
/// `index` holds fewer than the `minBytes` a strided view of it reads.
absl::Status checkViewFits(std::string_view kernel, int index,
                           const HostTensor &input, int64_t minBytes);

/// A kernel that executes one oneDNN primitive, then applies the post-ops
/// oneDNN could not fuse natively.
struct PrimitiveKernelSpec {
  std::string name;
  dnnl::primitive primitive;
  std::vector<Binding> bindings;
  /// Arguments owned by the kernel (e.g. prepacked weights).
  std::vector<std::pair<int, dnnl::memory>> constants;
  /// Constant inputs held only as `constants` (argument `arg`), packed
  /// losslessly from `plain`, their layout as inputs
  /// (Kernel::unpackConstant).
  struct PackedInput {
    int input;
    int arg;
    dnnl::memory::desc plain;
  };
  std::vector<PackedInput> packedInputs;
  /// Non-null when those arguments borrow memory (a mapped plan file) that
  /// this keeps alive.
  std::shared_ptr<const void> constantsOwner;
  /// Post-ops from `firstNativePostOp` on run natively after the primitive;
  /// `postOpInputs[i]` is the kernel input of binary post-op i.
  std::vector<PostOp> postOps;
  size_t firstNativePostOp = 0;
  std::vector<int> postOpInputs;
  int inPlaceInput = -1;
  /// Run on one thread whatever the caller's count (a primitive made for
  /// one thread under ThreadInvariantKernels).
  bool serial = false;
  /// Inputs the kernel does not read when it runs but needs to be remade
  /// from a saved plan (Kernel::readsInput: kept in plan files), e.g. the
  /// f32 weights an int8 kernel takes its scales from.
  std::vector<int> readAtRemake;
  /// Small s32 arguments bound on every run (runtime zero points: e.g.
  /// DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC); not saved as constants.
  std::vector<std::pair<int, std::vector<int32_t>>> int32Arguments;
  /// Small f32 arguments computed once at creation from constant inputs
  /// and bound on every run (an int8 primitive's constant bias divided by
  /// its output scales); not saved as constants: a remade kernel computes
  /// them again (their inputs are in readAtRemake).
  std::vector<std::pair<int, std::pair<dnnl::memory::desc, std::vector<float>>>>
      f32Arguments;
  /// The kernel input a `sum` post-op adds (the primitive accumulates into
  /// its destination): output 0 must hold it when the primitive starts, so
  /// the kernel runs in place over it (inPlaceInput) or copies it first.
  int sumInput = -1;
  /// The bytes of the sum input to copy (a quantized residual: one per
  /// element, where its f32 view says four); negative: all of them.
  int64_t sumBytes = -1;
  /// Work of one run (elements written, or multiply-adds for contractions);
  /// below kSerialWork the primitive runs on the calling thread alone: a
  /// oneDNN primitive opens an OpenMP parallel region however small its
  /// work, which costs more than the work itself. Negative: unknown.
  int64_t work = -1;
};
KernelPtr makePrimitiveKernel(PrimitiveKernelSpec spec);

/// Work (see PrimitiveKernelSpec::work) below which a primitive runs on one
/// thread. Measured with oneDNN 2.6 eltwise/binary on 2 threads: a second
/// thread starts to pay off between 8K and 16K simple elements.
inline constexpr int64_t kSerialWork = 16384;

/// The kernel input of each post-op's operand (eltwise: -1), given the
/// index of the first post-op input.
std::vector<int> postOpInputIndices(const std::vector<PostOp> &postOps,
                                    int firstInput);

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

// Strides and broadcasting: runtime/Shape.h.
using runtime::broadcastShapes;
using runtime::broadcastsTo;
using runtime::broadcastStrides;
using runtime::numElements;
using runtime::padRank;
using runtime::rowMajorStrides;
std::string shapeString(const Shape &shape);
absl::Status checkShape(const Shape &shape, std::string_view what);

/// An N-operand broadcast iteration over an output shape, with dims that
/// are contiguous for every operand merged.
template <size_t N> struct BroadcastPlan {
  Shape shape;
  std::array<Shape, N> strides;
  int64_t total = 0;

  BroadcastPlan(const Shape &outShape, std::array<Shape, N> operandStrides) {
    total = numElements(outShape);
    // Drop size-1 dims, then merge mergeable neighbours.
    for (size_t d = 0; d < outShape.size(); ++d) {
      if (outShape[d] == 1)
        continue;
      if (!shape.empty()) {
        bool mergeable = true;
        for (size_t k = 0; k < N; ++k)
          if (strides[k].back() != operandStrides[k][d] * outShape[d])
            mergeable = false;
        if (mergeable) {
          shape.back() *= outShape[d];
          for (size_t k = 0; k < N; ++k)
            strides[k].back() = operandStrides[k][d];
          continue;
        }
      }
      shape.push_back(outShape[d]);
      for (size_t k = 0; k < N; ++k)
        strides[k].push_back(operandStrides[k][d]);
    }
    if (shape.empty()) {
      shape.push_back(1);
      for (size_t k = 0; k < N; ++k)
        strides[k].push_back(0);
    }
  }

  /// Calls `fn(out, count, offsets, innerStrides)` for runs of `count`
  /// consecutive output elements starting at flat index `out`, covering the
  /// flat range [begin, end).
  template <typename Fn> void run(int64_t begin, int64_t end, Fn &&fn) const {
    if (begin >= end)
      return;
    size_t rank = shape.size();
    int64_t inner = shape[rank - 1];
    std::array<int64_t, N> innerStride;
    for (size_t k = 0; k < N; ++k)
      innerStride[k] = strides[k][rank - 1];
    // Multi-index of `begin` (on the stack: a run allocates nothing).
    absl::InlinedVector<int64_t, 8> index(rank, 0);
    int64_t rem = begin;
    for (size_t d = rank; d-- > 0;) {
      index[d] = rem % shape[d];
      rem /= shape[d];
    }
    std::array<int64_t, N> base{};
    for (size_t k = 0; k < N; ++k)
      for (size_t d = 0; d + 1 < rank; ++d)
        base[k] += index[d] * strides[k][d];
    int64_t out = begin;
    int64_t col = index[rank - 1];
    while (out < end) {
      int64_t count = std::min(inner - col, end - out);
      std::array<int64_t, N> off;
      for (size_t k = 0; k < N; ++k)
        off[k] = base[k] + col * innerStride[k];
      fn(out, count, off, innerStride);
      out += count;
      col = 0;
      for (size_t d = rank - 1; d-- > 0;) {
        if (++index[d] < shape[d]) {
          for (size_t k = 0; k < N; ++k)
            base[k] += strides[k][d];
          break;
        }
        for (size_t k = 0; k < N; ++k)
          base[k] -= strides[k][d] * (shape[d] - 1);
        index[d] = 0;
      }
    }
  }
};

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

/// Splits [0, n) into chunks of at least `grain` and runs `fn(begin, end)`
/// on up to `numThreads` OpenMP threads.
template <typename Fn>
void parallelRange(int numThreads, int64_t n, int64_t grain, Fn &&fn) {
  if (n <= 0)
    return;
  int64_t maxChunks = std::max<int64_t>(1, n / std::max<int64_t>(grain, 1));
  int threads =
      static_cast<int>(std::min<int64_t>(std::max(numThreads, 1), maxChunks));
  if (threads <= 1) {
    fn(int64_t(0), n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    int64_t t = omp_get_thread_num(), count = omp_get_num_threads();
    int64_t begin = n * t / count, end = n * (t + 1) / count;
    if (begin < end)
      fn(begin, end);
  }
}

//===----------------------------------------------------------------------===//
// Element traits
//===----------------------------------------------------------------------===//

/// Storage type S, compute type C (float for f32/f16/bf16, double for f64,
/// int64 for integers and i1); store() rounds or wraps once.
struct F32T {
  using S = float;
  using C = float;
  static constexpr bool isFloat = true;
  static constexpr DType dtype = DType::F32;
  static C load(S v) { return v; }
  static S store(C v) { return v; }
};
struct F64T {
  using S = double;
  using C = double;
  static constexpr bool isFloat = true;
  static constexpr DType dtype = DType::F64;
  static C load(S v) { return v; }
  static S store(C v) { return v; }
};
struct F16T {
  using S = uint16_t;
  using C = float;
  static constexpr bool isFloat = true;
  static constexpr DType dtype = DType::F16;
  static C load(S v) { return halfToFloat(v); }
  static S store(C v) { return floatToHalf(v); }
};
struct BF16T {
  using S = uint16_t;
  using C = float;
  static constexpr bool isFloat = true;
  static constexpr DType dtype = DType::BF16;
  static C load(S v) { return bfloat16ToFloat(v); }
  static S store(C v) { return floatToBFloat16(v); }
};
template <typename T, DType D> struct IntT {
  using S = T;
  using C = int64_t;
  static constexpr bool isFloat = false;
  static constexpr DType dtype = D;
  static C load(S v) { return v; }
  static S store(C v) { return static_cast<S>(v); } // wraps (C++20)
};
using I8T = IntT<int8_t, DType::I8>;
using I32T = IntT<int32_t, DType::I32>;
using I64T = IntT<int64_t, DType::I64>;
struct I1T {
  using S = uint8_t;
  using C = int64_t;
  static constexpr bool isFloat = false;
  static constexpr DType dtype = DType::I1;
  static C load(S v) { return v != 0; }
  static S store(C v) { return v != 0; }
};

/// Whether the native kernels compute on `dtype`, i.e. dispatchDType has
/// traits for it. i16 and the unsigned integer types have none: kernels that
/// compute return Unimplemented for them (the CPU compiler then runs the op
/// on the reference interpreter); kernels that only move bytes take them.
inline bool hasNativeTraits(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16:
  case DType::I1:
  case DType::I8:
  case DType::I32:
  case DType::I64:
    return true;
  case DType::I16:
  case DType::UI8:
  case DType::UI16:
  case DType::UI32:
  case DType::UI64:
    return false;
  }
  return false;
}

/// Calls `fn(Traits{})` for the traits of `dtype`, which must have them
/// (hasNativeTraits).
template <typename Fn> decltype(auto) dispatchDType(DType dtype, Fn &&fn) {
  assert(hasNativeTraits(dtype) && "dispatchDType: no native traits");
  switch (dtype) {
  case DType::F32:
    return fn(F32T{});
  case DType::F64:
    return fn(F64T{});
  case DType::F16:
    return fn(F16T{});
  case DType::BF16:
    return fn(BF16T{});
  case DType::I8:
    return fn(I8T{});
  case DType::I32:
    return fn(I32T{});
  case DType::I64:
    return fn(I64T{});
  case DType::I1:
  case DType::I16:
  case DType::UI8:
  case DType::UI16:
  case DType::UI32:
  case DType::UI64:
    break;
  }
  return fn(I1T{});
}

/// Copies by element size: calls `fn(T{})` with an unsigned integer type of
/// the element's size.
template <typename Fn> decltype(auto) dispatchBytes(size_t size, Fn &&fn) {
  switch (size) {
  case 1:
    return fn(uint8_t{});
  case 2:
    return fn(uint16_t{});
  case 4:
    return fn(uint32_t{});
  default:
    break;
  }
  return fn(uint64_t{});
}

//===----------------------------------------------------------------------===//
// Eltwise
//===----------------------------------------------------------------------===//

/// The oneDNN algorithm (with its alpha/beta) of an eltwise kind, if any.
std::optional<dnnl::algorithm> eltwiseAlgorithm(EltwiseKind kind, double &alpha,
                                                double &beta,
                                                bool reluAsMax = false);

/// Whether `kind` is defined for integers (Relu, Neg, Abs, Clamp, Sign,
/// Square).
bool eltwiseSupportsIntegers(EltwiseKind kind);

template <typename C> inline C sigmoidOf(C x) {
  if (x >= 0)
    return C(1) / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return e / (C(1) + e);
}

/// The float semantics of each eltwise kind (dialects/ScalarMath.h, in the
/// compute type C).
template <EltwiseKind K, typename C> inline C eltwiseFloat(C x, C a, C b) {
  using E = EltwiseKind;
  if constexpr (K == E::Relu)
    return std::isnan(x) ? x : (x > 0 ? x : C(0));
  else if constexpr (K == E::LeakyRelu)
    return x >= 0 ? x : a * x;
  else if constexpr (K == E::Elu)
    return x > 0 ? x : a * std::expm1(x);
  else if constexpr (K == E::Tanh)
    return std::tanh(x);
  else if constexpr (K == E::Sigmoid)
    return sigmoidOf(x);
  else if constexpr (K == E::Exp)
    return std::exp(x);
  else if constexpr (K == E::Log)
    return std::log(x);
  else if constexpr (K == E::Sqrt)
    return std::sqrt(x);
  else if constexpr (K == E::Rsqrt)
    return C(1) / std::sqrt(x);
  else if constexpr (K == E::Abs)
    return std::fabs(x);
  else if constexpr (K == E::Neg)
    return -x;
  else if constexpr (K == E::Clamp)
    return std::isnan(x) ? x : (x < a ? a : (x > b ? b : x));
  else if constexpr (K == E::GeluErf)
    return C(0.5) * x * (C(1) + std::erf(x * C(0.70710678118654752440)));
  else if constexpr (K == E::GeluTanh)
    return C(0.5) * x *
           (C(1) +
            std::tanh(C(0.7978845608028654) * (x + C(0.044715) * x * x * x)));
  else if constexpr (K == E::Round)
    return static_cast<C>(scalar::roundHalfEven(static_cast<double>(x)));
  else if constexpr (K == E::Reciprocal)
    return C(1) / x;
  else if constexpr (K == E::Square)
    return x * x;
  else if constexpr (K == E::Swish)
    return x * sigmoidOf(x);
  else if constexpr (K == E::HardSwish)
    return x * std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
  else if constexpr (K == E::Mish)
    return x * std::tanh(x > C(20) ? x : std::log1p(std::exp(x)));
  else if constexpr (K == E::Floor)
    return std::floor(x);
  else if constexpr (K == E::Ceil)
    return std::ceil(x);
  else if constexpr (K == E::Erf)
    return std::erf(x);
  else if constexpr (K == E::Sin)
    return std::sin(x);
  else if constexpr (K == E::Cos)
    return std::cos(x);
  else if constexpr (K == E::Linear)
    return a * x + b;
  else
    return std::isnan(x) ? x : (x > 0 ? C(1) : (x < 0 ? C(-1) : C(0)));
}

/// Calls `fn(std::integral_constant<EltwiseKind, K>{})` for `kind`.
template <typename Fn>
decltype(auto) dispatchEltwise(EltwiseKind kind, Fn &&fn) {
  using E = EltwiseKind;
#define TGC_ELT_CASE(K)                                                        \
  case E::K:                                                                   \
    return fn(std::integral_constant<E, E::K>{});
  switch (kind) {
    TGC_ELT_CASE(Relu)
    TGC_ELT_CASE(LeakyRelu)
    TGC_ELT_CASE(Elu)
    TGC_ELT_CASE(Tanh)
    TGC_ELT_CASE(Sigmoid)
    TGC_ELT_CASE(Exp)
    TGC_ELT_CASE(Log)
    TGC_ELT_CASE(Sqrt)
    TGC_ELT_CASE(Rsqrt)
    TGC_ELT_CASE(Abs)
    TGC_ELT_CASE(Neg)
    TGC_ELT_CASE(Clamp)
    TGC_ELT_CASE(GeluErf)
    TGC_ELT_CASE(GeluTanh)
    TGC_ELT_CASE(Round)
    TGC_ELT_CASE(Reciprocal)
    TGC_ELT_CASE(Square)
    TGC_ELT_CASE(Swish)
    TGC_ELT_CASE(HardSwish)
    TGC_ELT_CASE(Mish)
    TGC_ELT_CASE(Floor)
    TGC_ELT_CASE(Ceil)
    TGC_ELT_CASE(Erf)
    TGC_ELT_CASE(Sin)
    TGC_ELT_CASE(Cos)
    TGC_ELT_CASE(Linear)
  case E::Sign:
    break;
  }
#undef TGC_ELT_CASE
  return fn(std::integral_constant<E, E::Sign>{});
}

/// Applies an eltwise function natively: `out[i] = f(in[i])` for `count`
/// elements of `dtype` (in and out may alias). Unimplemented for a kind
/// that integers lack.
absl::Status eltwiseNative(EltwiseKind kind, DType dtype, double alpha,
                           double beta, const void *in, void *out,
                           int64_t count, int numThreads);

/// Applies `postOps[first..]` natively to `out` (shape `resultShape`) in
/// order; `operands[i]` is the extra input of postOps[i] (nullptr for
/// eltwise post-ops).
absl::Status applyPostOpsNative(const std::vector<PostOp> &postOps,
                                size_t first,
                                const std::vector<const HostTensor *> &operands,
                                HostTensor &out, int numThreads);

/// The oneDNN binary algorithm of a post-op kind.
dnnl::algorithm postOpBinaryAlgorithm(PostOp::Kind kind);

/// Validates post-op operand shapes against `resultShape`.
absl::Status checkPostOps(const std::vector<PostOp> &postOps,
                          const Shape &resultShape);

/// Builds oneDNN post-ops for postOps[0..count). `operandDesc(i)` returns
/// the memory descriptor of post-op i's operand. Returns false when one of
/// them has no oneDNN equivalent. A Relu becomes eltwise_clip(0, inf) (+0
/// below zero, as tgc.relu), with `reluAsMax` eltwise_relu (-0 below zero:
/// oneDNN's Winograd kernels take only that).
bool buildPostOps(const std::vector<PostOp> &postOps, size_t count,
                  const std::function<dnnl::memory::desc(size_t)> &operandDesc,
                  dnnl::post_ops &result, bool reluAsMax = false);

/// The number of leading post-ops that oneDNN can fuse.
size_t fusablePostOps(const std::vector<PostOp> &postOps);

} // namespace tgc::runtime::cpu::detail

#endif // TGC_RUNTIME_CPU_COMMON_H
