//===- ReductionKernels.cpp - softmax, norms and reductions ---------------===//
//
// softmax/log_softmax: oneDNN softmax_v2 (f32/bf16/f16), native otherwise.
// layer_norm: oneDNN layer normalization on f32 (the tensor viewed as
// [outer, inner]; oneDNN's JIT statistics kernels), native otherwise.
// batch_norm (inference): native, the tensor viewed as [outer, C, inner];
// f32 through a vectorized loop that outruns oneDNN 2.6's kernels for plain
// layouts. Reductions: oneDNN reduction (sum/mean/max/min/mul) on f32/bf16;
// integers, f64, empty inputs, argmax/argmin are native.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Common.h"
#include "runtime/cpu/Recipes.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tgc::runtime::cpu {
using namespace detail;

namespace {

using dt = dnnl::memory::data_type;

bool isOneDnnFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
}

int64_t product(const Shape &shape, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i)
    n *= shape[i];
  return n;
}

/// Float compute type for statistics: double for f64, float otherwise.
template <typename T>
using Acc =
    std::conditional_t<std::is_same_v<typename T::C, double>, double, float>;

template <typename T>
void nativeSoftmax(int64_t outer, int64_t len, int64_t inner, bool log,
                   const void *in, void *out, int numThreads) {
  using S = typename T::S;
  using C = Acc<T>;
  const S *x = static_cast<const S *>(in);
  S *y = static_cast<S *>(out);
  parallelRange(numThreads, outer * inner, std::max<int64_t>(1, 4096 / len),
                [&](int64_t lo, int64_t hi) {
                  std::vector<C> buf(static_cast<size_t>(len));
                  for (int64_t job = lo; job < hi; ++job) {
                    int64_t o = job / inner, i = job % inner;
                    const S *base = x + o * len * inner + i;
                    S *dst = y + o * len * inner + i;
                    C mx = -std::numeric_limits<C>::infinity();
                    bool nan = false;
                    for (int64_t k = 0; k < len; ++k) {
                      buf[k] = static_cast<C>(T::load(base[k * inner]));
                      nan |= std::isnan(buf[k]);
                      mx = buf[k] > mx ? buf[k] : mx;
                    }
                    if (nan)
                      mx = std::numeric_limits<C>::quiet_NaN();
                    double sum = 0;
                    for (int64_t k = 0; k < len; ++k)
                      sum += std::exp(buf[k] - mx);
                    if (log) {
                      C lse = static_cast<C>(std::log(sum));
                      for (int64_t k = 0; k < len; ++k)
                        dst[k * inner] = T::store(buf[k] - mx - lse);
                    } else {
                      C inv = static_cast<C>(1.0 / sum);
                      for (int64_t k = 0; k < len; ++k)
                        dst[k * inner] = T::store(std::exp(buf[k] - mx) * inv);
                    }
                  }
                });
}

template <typename T>
void nativeLayerNorm(int64_t outer, int64_t inner, double epsilon,
                     const void *in, const void *scale, const void *bias,
                     void *out, int numThreads) {
  using S = typename T::S;
  using C = Acc<T>;
  const S *x = static_cast<const S *>(in);
  const S *g = static_cast<const S *>(scale);
  const S *b = static_cast<const S *>(bias);
  S *y = static_cast<S *>(out);
  parallelRange(numThreads, outer, std::max<int64_t>(1, 4096 / inner),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t o = lo; o < hi; ++o) {
                    const S *row = x + o * inner;
                    double mean = 0, var = 0;
                    for (int64_t i = 0; i < inner; ++i)
                      mean += static_cast<double>(T::load(row[i]));
                    mean /= static_cast<double>(inner);
                    for (int64_t i = 0; i < inner; ++i) {
                      double dv = static_cast<double>(T::load(row[i])) - mean;
                      var += dv * dv;
                    }
                    var /= static_cast<double>(inner);
                    C inv = static_cast<C>(1.0 / std::sqrt(var + epsilon));
                    C m = static_cast<C>(mean);
                    for (int64_t i = 0; i < inner; ++i) {
                      C v = (static_cast<C>(T::load(row[i])) - m) * inv;
                      if (g)
                        v *= static_cast<C>(T::load(g[i]));
                      if (b)
                        v += static_cast<C>(T::load(b[i]));
                      y[o * inner + i] = T::store(v);
                    }
                  }
                });
}

template <typename T>
void nativeBatchNorm(int64_t outer, int64_t channels, int64_t inner,
                     double epsilon, const std::vector<HostTensor> &in,
                     void *out, int numThreads) {
  using S = typename T::S;
  using C = Acc<T>;
  const S *x = static_cast<const S *>(in[0].data());
  const S *scale = static_cast<const S *>(in[1].data());
  const S *bias = static_cast<const S *>(in[2].data());
  const S *mean = static_cast<const S *>(in[3].data());
  const S *variance = static_cast<const S *>(in[4].data());
  std::vector<C> mul(static_cast<size_t>(channels)),
      add(static_cast<size_t>(channels));
  bool folded = true;
  for (int64_t c = 0; c < channels; ++c) {
    double inv =
        1.0 / std::sqrt(static_cast<double>(T::load(variance[c])) + epsilon);
    double a = inv * static_cast<double>(T::load(scale[c]));
    mul[c] = static_cast<C>(a);
    add[c] = static_cast<C>(static_cast<double>(T::load(bias[c])) -
                            static_cast<double>(T::load(mean[c])) * a);
    folded &= std::isfinite(static_cast<double>(mul[c])) &&
              std::isfinite(static_cast<double>(add[c]));
  }
  S *y = static_cast<S *>(out);
  if (!folded) {
    // batch_norm as the dialect defines it, (x - mean) / sqrt(variance +
    // eps) * scale + bias: the folded x * a + b turns a zero variance
    // (a = +-inf) into inf - inf = NaN where this gives +-inf. Rare
    // (statistics without epsilon), so one plain loop in double.
    parallelRange(numThreads, outer * channels, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t job = lo; job < hi; ++job) {
        const int64_t c = job % channels;
        const double inv =
            1.0 /
            std::sqrt(static_cast<double>(T::load(variance[c])) + epsilon);
        const double m = static_cast<double>(T::load(mean[c]));
        const double g = static_cast<double>(T::load(scale[c]));
        const double b = static_cast<double>(T::load(bias[c]));
        for (int64_t i = job * inner; i < (job + 1) * inner; ++i)
          y[i] = T::store(static_cast<C>(
              (static_cast<double>(T::load(x[i])) - m) * inv * g + b));
      }
    });
    return;
  }
  parallelRange(numThreads, outer * channels,
                std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t job = lo; job < hi; ++job) {
                    int64_t c = job % channels;
                    const S *src = x + job * inner;
                    S *dst = y + job * inner;
                    for (int64_t i = 0; i < inner; ++i)
                      dst[i] = T::store(
                          static_cast<C>(T::load(src[i])) * mul[c] + add[c]);
                  }
                });
}

/// y = x * a[c] + b[c] over the flat elements [lo, hi) of an [outer, C,
/// inner] tensor (x may be y). Inlined into a baseline and an AVX-512 copy.
[[gnu::always_inline]] inline void
affineChannelsBody(const float *x, float *y, const float *a, const float *b,
                   int64_t channels, int64_t inner, int64_t lo, int64_t hi) {
  if (inner == 1) {
    // Channels last: rows of C.
    int64_t c = lo % channels;
    for (int64_t pos = lo; pos < hi;) {
      int64_t n = std::min(channels - c, hi - pos);
      const float *src = x + pos, *ac = a + c, *bc = b + c;
      float *dst = y + pos;
      for (int64_t k = 0; k < n; ++k)
        dst[k] = src[k] * ac[k] + bc[k];
      pos += n;
      c = 0;
    }
    return;
  }
  // Planes of `inner` elements sharing one channel.
  int64_t plane = lo / inner, i = lo % inner;
  for (int64_t pos = lo; pos < hi; ++plane) {
    int64_t n = std::min(inner - i, hi - pos);
    int64_t c = plane % channels;
    float mul = a[c], add = b[c];
    const float *src = x + pos;
    float *dst = y + pos;
    for (int64_t k = 0; k < n; ++k)
      dst[k] = src[k] * mul + add;
    pos += n;
    i = 0;
  }
}

void affineChannelsBaseline(const float *x, float *y, const float *a,
                            const float *b, int64_t channels, int64_t inner,
                            int64_t lo, int64_t hi) {
  affineChannelsBody(x, y, a, b, channels, inner, lo, hi);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TGC_HAVE_AVX512_CLONE 1
[[gnu::target("avx512f")]] void
affineChannelsAvx512(const float *x, float *y, const float *a, const float *b,
                     int64_t channels, int64_t inner, int64_t lo, int64_t hi) {
  affineChannelsBody(x, y, a, b, channels, inner, lo, hi);
}
#endif

/// f32 inference batch norm of an [outer, C, inner] tensor: the per-channel
/// a = scale / sqrt(var + eps) and b = bias - mean * a are computed (in
/// double) on every run, since the statistics are run-time inputs.
void batchNormF32(int64_t outer, int64_t channels, int64_t inner,
                  double epsilon, const std::vector<HostTensor> &in, void *out,
                  int numThreads) {
  const float *scale = static_cast<const float *>(in[1].data());
  const float *bias = static_cast<const float *>(in[2].data());
  const float *mean = static_cast<const float *>(in[3].data());
  const float *variance = static_cast<const float *>(in[4].data());
  thread_local std::vector<float> params;
  size_t c = static_cast<size_t>(channels);
  if (params.size() < 2 * c)
    params.resize(2 * c);
  float *a = params.data(), *b = a + c;
  bool folded = true;
  for (size_t k = 0; k < c; ++k) {
    double mul = static_cast<double>(scale[k]) /
                 std::sqrt(static_cast<double>(variance[k]) + epsilon);
    a[k] = static_cast<float>(mul);
    b[k] = static_cast<float>(static_cast<double>(bias[k]) -
                              static_cast<double>(mean[k]) * mul);
    folded &= std::isfinite(a[k]) && std::isfinite(b[k]);
  }
  if (!folded) // A non-finite a or b: the generic kernel's unfolded loop.
    return nativeBatchNorm<F32T>(outer, channels, inner, epsilon, in, out,
                                 numThreads);
  auto fn = &affineChannelsBaseline;
#ifdef TGC_HAVE_AVX512_CLONE
  // The ISA the backend plans for (DNNL_MAX_CPU_ISA caps it too).
  if (cpuIsa().avx512 && __builtin_cpu_supports("avx512f"))
    fn = &affineChannelsAvx512;
#endif
  const float *x = static_cast<const float *>(in[0].data());
  float *y = static_cast<float *>(out);
  parallelRange(
      numThreads, outer * channels * inner, 16384,
      [&](int64_t lo, int64_t hi) { fn(x, y, a, b, channels, inner, lo, hi); });
}

/// Kept and reduced dims (collapsed) of a reduction, with input strides.
struct ReducePlan {
  Shape keptDims, keptStrides, redDims, redStrides;
  int64_t outputs = 0, reduced = 0;
};

ReducePlan makeReducePlan(const Shape &shape,
                          const std::vector<int64_t> &axes) {
  ReducePlan p;
  Shape strides = rowMajorStrides(shape);
  std::vector<bool> isReduced(shape.size(), false);
  for (int64_t a : axes)
    isReduced[static_cast<size_t>(a)] = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    Shape &dims = isReduced[d] ? p.redDims : p.keptDims;
    Shape &st = isReduced[d] ? p.redStrides : p.keptStrides;
    if (!dims.empty() && st.back() == strides[d] * shape[d]) {
      dims.back() *= shape[d];
      st.back() = strides[d];
    } else {
      dims.push_back(shape[d]);
      st.push_back(strides[d]);
    }
  }
  p.outputs = numElements(p.keptDims);
  p.reduced = numElements(p.redDims);
  if (p.redDims.empty()) {
    p.redDims = {1};
    p.redStrides = {0};
  }
  return p;
}

/// Calls `fn(offset)` for every reduced element of output `o`.
template <typename Fn>
void forEachReduced(const ReducePlan &p, int64_t o, Fn &&fn) {
  int64_t base = 0, rem = o;
  for (size_t d = p.keptDims.size(); d-- > 0;) {
    base += (rem % p.keptDims[d]) * p.keptStrides[d];
    rem /= p.keptDims[d];
  }
  if (p.reduced == 0)
    return;
  size_t rank = p.redDims.size();
  Shape index(rank, 0);
  int64_t inner = p.redDims[rank - 1], step = p.redStrides[rank - 1];
  while (true) {
    for (int64_t i = 0; i < inner; ++i)
      fn(base + i * step);
    size_t d = rank - 1;
    for (; d-- > 0;) {
      if (++index[d] < p.redDims[d]) {
        base += p.redStrides[d];
        break;
      }
      base -= p.redStrides[d] * (p.redDims[d] - 1);
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1))
      return;
  }
}

template <typename T>
void nativeReduce(ReduceDesc::Kind kind, const ReducePlan &p, const void *in,
                  void *out, int numThreads) {
  using K = ReduceDesc::Kind;
  using S = typename T::S;
  const S *x = static_cast<const S *>(in);
  S *y = static_cast<S *>(out);
  parallelRange(
      numThreads, p.outputs,
      std::max<int64_t>(1, 16384 / std::max<int64_t>(p.reduced, 1)),
      [&](int64_t lo, int64_t hi) {
        for (int64_t o = lo; o < hi; ++o) {
          if constexpr (T::isFloat) {
            double acc =
                kind == K::Prod  ? 1.0
                : kind == K::Max ? -std::numeric_limits<double>::infinity()
                : kind == K::Min ? std::numeric_limits<double>::infinity()
                                 : 0.0;
            bool nan = false;
            forEachReduced(p, o, [&](int64_t off) {
              double v = static_cast<double>(T::load(x[off]));
              switch (kind) {
              case K::Max:
                nan |= std::isnan(v);
                acc = v > acc ? v : acc;
                break;
              case K::Min:
                nan |= std::isnan(v);
                acc = v < acc ? v : acc;
                break;
              case K::Prod:
                acc *= v;
                break;
              default:
                acc += v;
                break;
              }
            });
            if (nan)
              acc = std::numeric_limits<double>::quiet_NaN();
            if (kind == K::Mean)
              acc /= static_cast<double>(p.reduced); // 0 / 0 is NaN
            if constexpr (std::is_same_v<T, F64T>)
              y[o] = acc;
            else if constexpr (std::is_same_v<T, F16T>)
              y[o] = doubleToHalf(acc);
            else if constexpr (std::is_same_v<T, BF16T>)
              y[o] = doubleToBFloat16(acc);
            else
              y[o] = static_cast<float>(acc);
          } else {
            unsigned bits = dtypeBits(T::dtype);
            int64_t lowest =
                bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
            int64_t highest =
                bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
            if (bits == 1) {
              lowest = 0;
              highest = 1;
            }
            uint64_t acc = kind == K::Prod  ? 1
                           : kind == K::Max ? static_cast<uint64_t>(lowest)
                           : kind == K::Min ? static_cast<uint64_t>(highest)
                                            : 0;
            forEachReduced(p, o, [&](int64_t off) {
              int64_t v = T::load(x[off]);
              switch (kind) {
              case K::Max:
                acc = static_cast<uint64_t>(
                    std::max(static_cast<int64_t>(acc), v));
                break;
              case K::Min:
                acc = static_cast<uint64_t>(
                    std::min(static_cast<int64_t>(acc), v));
                break;
              case K::Prod:
                acc *= static_cast<uint64_t>(v);
                break;
              default:
                acc += static_cast<uint64_t>(v);
                break;
              }
            });
            y[o] = T::store(static_cast<int64_t>(acc));
          }
        }
      });
}

template <typename T>
void nativeArgReduce(bool isMax, bool last, int64_t outer, int64_t len,
                     int64_t inner, const void *in, void *out, int numThreads) {
  using S = typename T::S;
  using C = typename T::C;
  const S *x = static_cast<const S *>(in);
  int64_t *y = static_cast<int64_t *>(out);
  parallelRange(numThreads, outer * inner, std::max<int64_t>(1, 4096 / len),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t job = lo; job < hi; ++job) {
                    int64_t o = job / inner, i = job % inner;
                    const S *base = x + o * len * inner + i;
                    int64_t best = 0;
                    C bv = T::load(base[0]);
                    for (int64_t k = 1; k < len; ++k) {
                      C v = T::load(base[k * inner]);
                      bool better;
                      if constexpr (T::isFloat) {
                        bool vNaN = std::isnan(v), bNaN = std::isnan(bv);
                        if (bNaN)
                          better = vNaN && last;
                        else if (vNaN)
                          better = true;
                        else if (v == bv)
                          better = last;
                        else
                          better = isMax ? v > bv : v < bv;
                      } else {
                        better = v == bv ? last : (isMax ? v > bv : v < bv);
                      }
                      if (better) {
                        best = k;
                        bv = v;
                      }
                    }
                    y[job] = best;
                  }
                });
}

} // namespace

absl::StatusOr<KernelPtr> createSoftmaxUnrecorded(const SoftmaxDesc &d) {
  if (absl::Status s = checkNativeDType(d.dtype, "softmax"); !s.ok())
    return s;
  if (absl::Status s = checkShape(d.shape, "softmax operand"); !s.ok())
    return s;
  int64_t rank = static_cast<int64_t>(d.shape.size());
  if (d.axis < 0 || d.axis >= rank)
    return absl::InvalidArgumentError("softmax axis out of range");
  if (!isFloatDType(d.dtype))
    return absl::InvalidArgumentError("softmax needs a float dtype");
  if (numElements(d.shape) == 0)
    return makeNoOpKernel("native.softmax");
  size_t axis = static_cast<size_t>(d.axis);
  int64_t outer = product(d.shape, 0, axis), len = d.shape[axis],
          inner = product(d.shape, axis + 1, d.shape.size());
  DType dtype = d.dtype;
  bool log = d.log;
  KernelPtr native = makeKernel(
      "native.softmax",
      [=](const KernelContext &context, const std::vector<HostTensor> &in,
          std::vector<HostTensor> &out) {
        dispatchDType(dtype, [&](auto t) {
          nativeSoftmax<decltype(t)>(outer, len, inner, log, in[0].data(),
                                     out[0].data(), context.numThreads);
        });
        return absl::OkStatus();
      },
      0);
  // log_softmax stays native: oneDNN 2.6's softmax_log takes the log with
  // a polynomial ~1.4e-6 off (the log_softmax of a single element comes out
  // +1.43e-6, not 0), which breaks the exact values later ops rely on (pow
  // with that exponent of a negative base is NaN, not 1; tgc-smith found it).
  if (isOneDnnFloat(d.dtype) && !d.log) {
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    try {
      dnnl::memory::desc md = plainDesc(d.shape, *toDnnl(d.dtype));
      dnnl::softmax_v2_forward::desc desc(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::softmax_accurate, md,
                                          md, static_cast<int>(d.axis));
      dnnl::softmax_v2_forward::primitive_desc pd(desc, makeAttr(), **engine);
      PrimitiveKernelSpec spec;
      spec.name = "onednn.softmax";
      spec.primitive = dnnl::softmax_v2_forward(pd);
      spec.work = numElements(d.shape) * 4;
      spec.bindings = {{DNNL_ARG_SRC, 0, md}, {DNNL_ARG_DST, -1, md}};
      spec.inPlaceInput = 0;
      // oneDNN's softmax takes the max of a row with NaN as a number, and
      // its exp saturates the NaN of inf - inf: inputs with NaN or
      // infinities take the native kernel.
      return makeNaNGuardedKernel(makePrimitiveKernel(std::move(spec)), native,
                                  {0}, NaNGuardScan::NonFinite);
    } catch (const dnnl::error &) {
      // Native below.
    }
  }
  return native;
}

absl::StatusOr<KernelPtr> createLayerNormUnrecorded(const LayerNormDesc &d) {
  if (absl::Status s = checkNativeDType(d.dtype, "layer_norm"); !s.ok())
    return s;
  if (absl::Status s = checkShape(d.shape, "layer_norm operand"); !s.ok())
    return s;
  int64_t rank = static_cast<int64_t>(d.shape.size());
  if (d.axis < 0 || d.axis >= rank)
    return absl::InvalidArgumentError("layer_norm axis out of range");
  if (!isFloatDType(d.dtype) || d.epsilon < 0)
    return absl::InvalidArgumentError(
        "layer_norm needs a float dtype and epsilon >= 0");
  if (numElements(d.shape) == 0)
    return makeNoOpKernel("native.layer_norm");
  size_t axis = static_cast<size_t>(d.axis);
  int64_t outer = product(d.shape, 0, axis),
          inner = product(d.shape, axis, d.shape.size());
  int scaleInput = d.hasScale ? 1 : -1;
  int biasInput = d.hasBias ? (d.hasScale ? 2 : 1) : -1;
  // Without epsilon a constant row is 0 / 0 = NaN; oneDNN's f32 statistics
  // (one thread: a mean a rounding off) make it +-1 instead, so epsilon 0
  // (never in trained models) runs natively, with double statistics.
  if (d.dtype == DType::F32 && d.epsilon > 0) {
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    try {
      dnnl::memory::desc md({outer, inner}, dt::f32,
                            dnnl::memory::format_tag::ab);
      dnnl::memory::desc paramMd({inner}, dt::f32, dnnl::memory::format_tag::a);
      auto flags = static_cast<dnnl::normalization_flags>(0);
      if (d.hasScale)
        flags |= dnnl::normalization_flags::use_scale;
      if (d.hasBias)
        flags |= dnnl::normalization_flags::use_shift;
      dnnl::layer_normalization_forward::desc desc(
          dnnl::prop_kind::forward_inference, md, static_cast<float>(d.epsilon),
          flags);
      dnnl::layer_normalization_forward::primitive_desc pd(desc, makeAttr(),
                                                           **engine);
      PrimitiveKernelSpec spec;
      spec.name = "onednn.layer_norm";
      spec.primitive = dnnl::layer_normalization_forward(pd);
      spec.work = outer * inner * 2;
      spec.bindings = {{DNNL_ARG_SRC, 0, md}, {DNNL_ARG_DST, -1, md}};
      if (d.hasScale)
        spec.bindings.push_back({DNNL_ARG_SCALE, scaleInput, paramMd});
      if (d.hasBias)
        spec.bindings.push_back({DNNL_ARG_SHIFT, biasInput, paramMd});
      spec.inPlaceInput = 0;
      return makePrimitiveKernel(std::move(spec));
    } catch (const dnnl::error &) {
      // Native below.
    }
  }
  DType dtype = d.dtype;
  double epsilon = d.epsilon;
  return makeKernel(
      "native.layer_norm",
      [=](const KernelContext &context, const std::vector<HostTensor> &in,
          std::vector<HostTensor> &out) {
        const void *scale = scaleInput >= 0 ? in[scaleInput].data() : nullptr;
        const void *bias = biasInput >= 0 ? in[biasInput].data() : nullptr;
        dispatchDType(dtype, [&](auto t) {
          nativeLayerNorm<decltype(t)>(outer, inner, epsilon, in[0].data(),
                                       scale, bias, out[0].data(),
                                       context.numThreads);
        });
        return absl::OkStatus();
      },
      0);
}

absl::StatusOr<KernelPtr> createBatchNormUnrecorded(const BatchNormDesc &d) {
  if (absl::Status s = checkNativeDType(d.dtype, "batch_norm"); !s.ok())
    return s;
  if (absl::Status s = checkShape(d.shape, "batch_norm operand"); !s.ok())
    return s;
  int64_t rank = static_cast<int64_t>(d.shape.size());
  if (d.axis < 0 || d.axis >= rank)
    return absl::InvalidArgumentError("batch_norm axis out of range");
  if (!isFloatDType(d.dtype) || d.epsilon < 0)
    return absl::InvalidArgumentError(
        "batch_norm needs a float dtype and epsilon >= 0");
  if (numElements(d.shape) == 0)
    return makeNoOpKernel("native.batch_norm");
  size_t axis = static_cast<size_t>(d.axis);
  int64_t outer = product(d.shape, 0, axis), channels = d.shape[axis],
          inner = product(d.shape, axis + 1, d.shape.size());
  if (d.dtype == DType::F32) {
    // Native rather than oneDNN: y = x * a[c] + b[c] is memory bound, and
    // oneDNN 2.6 only JIT-compiles inference batch norm for nhwc and blocked
    // layouts; its plain-layout kernel (ncsp_bnorm) runs at ~10 GB/s (3 GB/s
    // for [N*H*W, C]), this loop at 60-200 GB/s in cache, also ahead of the
    // nhwc JIT kernel (see bench/CpuBackend.cpp, ResNet-50).
    double epsilon = d.epsilon;
    return makeKernel(
        "native.batch_norm",
        [=](const KernelContext &context, const std::vector<HostTensor> &in,
            std::vector<HostTensor> &out) {
          batchNormF32(outer, channels, inner, epsilon, in, out[0].data(),
                       context.numThreads);
          return absl::OkStatus();
        },
        0);
  }
  DType dtype = d.dtype;
  double epsilon = d.epsilon;
  return makeKernel(
      "native.batch_norm",
      [=](const KernelContext &context, const std::vector<HostTensor> &in,
          std::vector<HostTensor> &out) {
        dispatchDType(dtype, [&](auto t) {
          nativeBatchNorm<decltype(t)>(outer, channels, inner, epsilon, in,
                                       out[0].data(), context.numThreads);
        });
        return absl::OkStatus();
      },
      0);
}

absl::StatusOr<KernelPtr> createReduceUnrecorded(const ReduceDesc &d) {
  using K = ReduceDesc::Kind;
  if (absl::Status s = checkNativeDType(d.dtype, "reduction"); !s.ok())
    return s;
  for (const Shape *s : {&d.inputShape, &d.resultShape})
    if (absl::Status st = checkShape(*s, "reduction operand"); !st.ok())
      return st;
  int64_t rank = static_cast<int64_t>(d.inputShape.size());
  if (d.axes.empty())
    return absl::InvalidArgumentError("reduction needs at least one axis");
  for (size_t i = 0; i < d.axes.size(); ++i)
    if (d.axes[i] < 0 || d.axes[i] >= rank || (i && d.axes[i] <= d.axes[i - 1]))
      return absl::InvalidArgumentError(
          "reduction axes must be strictly increasing and in [0, rank)");
  bool isArg = d.kind == K::ArgMax || d.kind == K::ArgMin;
  if (isArg && d.axes.size() != 1)
    return absl::InvalidArgumentError("argmax/argmin take exactly one axis");
  if (d.kind == K::Mean && !isFloatDType(d.dtype))
    return absl::InvalidArgumentError("reduce_mean needs a float dtype");
  Shape kept, expected;
  for (int64_t i = 0; i < rank; ++i) {
    bool reduced = std::find(d.axes.begin(), d.axes.end(), i) != d.axes.end();
    kept.push_back(reduced ? 1 : d.inputShape[static_cast<size_t>(i)]);
    if (!reduced || d.keepdims)
      expected.push_back(kept.back());
  }
  if (expected != d.resultShape)
    return absl::InvalidArgumentError(
        absl::StrCat("reduction result ", shapeString(d.resultShape),
                     " does not match ", shapeString(expected)));
  if (numElements(d.resultShape) == 0)
    return makeNoOpKernel("native.reduce");

  if (isArg) {
    size_t axis = static_cast<size_t>(d.axes[0]);
    int64_t outer = product(d.inputShape, 0, axis), len = d.inputShape[axis],
            inner = product(d.inputShape, axis + 1, d.inputShape.size());
    if (len == 0)
      return absl::InvalidArgumentError("argmax/argmin over an empty axis");
    bool isMax = d.kind == K::ArgMax, last = d.selectLastIndex;
    DType dtype = d.dtype;
    return makeKernel("native.argreduce", [=](const KernelContext &context,
                                              const std::vector<HostTensor> &in,
                                              std::vector<HostTensor> &out) {
      dispatchDType(dtype, [&](auto t) {
        nativeArgReduce<decltype(t)>(isMax, last, outer, len, inner,
                                     in[0].data(), out[0].data(),
                                     context.numThreads);
      });
      return absl::OkStatus();
    });
  }

  auto plan =
      std::make_shared<ReducePlan>(makeReducePlan(d.inputShape, d.axes));
  K kind = d.kind;
  DType dtype = d.dtype;
  KernelPtr native =
      makeKernel("native.reduce", [=](const KernelContext &context,
                                      const std::vector<HostTensor> &in,
                                      std::vector<HostTensor> &out) {
        dispatchDType(dtype, [&](auto t) {
          nativeReduce<decltype(t)>(kind, *plan, in[0].data(), out[0].data(),
                                    context.numThreads);
        });
        return absl::OkStatus();
      });
  bool trivial = numElements(d.inputShape) == numElements(d.resultShape);
  // A bf16 product shrinks fast into bf16's subnormals, which the CPU's
  // own bf16 conversion (vcvtneps2bf16, oneDNN's with AVX512_BF16) flushes
  // to zero: 125 sigmoids gave 0 where the dialect gives 4.6e-40 (tgc-smith
  // seed 10300 index 546). The native kernel rounds to them.
  bool flushes = d.dtype == DType::BF16 && d.kind == K::Prod && cpuIsa().bf16;
  if ((d.dtype == DType::F32 || d.dtype == DType::BF16) &&
      numElements(d.inputShape) > 0 && !trivial && !flushes) {
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    dnnl::algorithm alg;
    switch (d.kind) {
    case K::Sum:
      alg = dnnl::algorithm::reduction_sum;
      break;
    case K::Mean:
      alg = dnnl::algorithm::reduction_mean;
      break;
    case K::Max:
      alg = dnnl::algorithm::reduction_max;
      break;
    case K::Min:
      alg = dnnl::algorithm::reduction_min;
      break;
    default:
      alg = dnnl::algorithm::reduction_mul;
      break;
    }
    try {
      dt type = *toDnnl(d.dtype);
      dnnl::memory::desc src = plainDesc(d.inputShape, type);
      dnnl::memory::desc dst = plainDesc(kept, type);
      dnnl::reduction::desc desc(alg, src, dst, 0.f, 0.f);
      dnnl::reduction::primitive_desc pd(desc, makeAttr(), **engine);
      PrimitiveKernelSpec spec;
      spec.name = "onednn.reduction";
      spec.primitive = dnnl::reduction(pd);
      spec.work = numElements(d.inputShape);
      spec.bindings = {{DNNL_ARG_SRC, 0, src}, {DNNL_ARG_DST, -1, dst}};
      KernelPtr primitive = makePrimitiveKernel(std::move(spec));
      // oneDNN's max and min skip NaN and start from the largest finite
      // value (a max of -infs gave -3.4e38; tgc-smith seed 9130 index
      // 7890): inputs with NaN or an infinity take the native kernel.
      if (d.kind == K::Max || d.kind == K::Min)
        return makeNaNGuardedKernel(primitive, native, {0},
                                    NaNGuardScan::NonFinite);
      return primitive;
    } catch (const dnnl::error &) {
      // Native below.
    }
  }
  return native;
}

namespace {
/// A topk candidate: an order-preserving key of its element (larger is
/// better) and its index along the line.
struct TopKEntry {
  uint64_t key;
  int64_t index;
};
/// Whether `a` goes before `b`: a larger key, or the same key (equal
/// elements) and a lower index. A strict total order.
inline bool topKBefore(const TopKEntry &a, const TopKEntry &b) {
  return a.key != b.key ? a.key > b.key : a.index < b.index;
}

/// The key of a float: NaN above every number (+inf included), -0 equal to
/// +0; order-preserving on the bits of the double (the sign bit flipped
/// for positives, every bit for negatives).
inline uint64_t floatKey(double v) {
  if (std::isnan(v))
    return std::numeric_limits<uint64_t>::max();
  if (v == 0)
    v = 0; // -0 ties with +0
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits >> 63) ? ~bits : bits | (uint64_t(1) << 63);
}

/// The best `k` of `entries` (k <= size), in order, in its first k.
void selectBest(std::vector<TopKEntry> &entries, int64_t k) {
  auto middle = entries.begin() + k;
  if (middle != entries.end())
    std::nth_element(entries.begin(), middle, entries.end(), topKBefore);
  std::sort(entries.begin(), middle, topKBefore);
  entries.resize(static_cast<size_t>(k));
}

/// The best `k` of the line elements [lo, hi) (`keyAt(j)`), in order: a
/// bounded heap whose top is its worst entry when k is small against the
/// range, else every entry selected and sorted.
template <typename KeyAt>
std::vector<TopKEntry> bestOfRange(const KeyAt &keyAt, int64_t lo, int64_t hi,
                                   int64_t k) {
  std::vector<TopKEntry> best;
  k = std::min(k, hi - lo);
  if (k <= 0)
    return best;
  if (k * 16 <= hi - lo) {
    best.reserve(static_cast<size_t>(k));
    for (int64_t j = lo; j < hi; ++j) {
      TopKEntry e{keyAt(j), j};
      if (static_cast<int64_t>(best.size()) < k) {
        best.push_back(e);
        std::push_heap(best.begin(), best.end(), topKBefore);
      } else if (topKBefore(e, best.front())) {
        std::pop_heap(best.begin(), best.end(), topKBefore);
        best.back() = e;
        std::push_heap(best.begin(), best.end(), topKBefore);
      }
    }
    std::sort_heap(best.begin(), best.end(), topKBefore);
    return best;
  }
  best.reserve(static_cast<size_t>(hi - lo));
  for (int64_t j = lo; j < hi; ++j)
    best.push_back({keyAt(j), j});
  selectBest(best, k);
  return best;
}

template <typename T>
void nativeTopK(int64_t outer, int64_t len, int64_t inner, int64_t k,
                bool largest, const void *in, void *values, int64_t *indices,
                int numThreads) {
  using S = typename T::S;
  const S *x = static_cast<const S *>(in);
  S *v = static_cast<S *>(values);
  auto key = [largest](S s) {
    uint64_t u;
    if constexpr (T::isFloat)
      u = floatKey(static_cast<double>(T::load(s)));
    else
      u = static_cast<uint64_t>(static_cast<int64_t>(T::load(s))) ^
          (uint64_t(1) << 63);
    return largest ? u : ~u;
  };
  auto write = [&](int64_t line, const std::vector<TopKEntry> &best) {
    int64_t o = line / inner, i = line % inner;
    const S *src = x + o * len * inner + i;
    for (int64_t j = 0; j < k; ++j) {
      int64_t to = (o * k + j) * inner + i;
      v[to] = src[best[static_cast<size_t>(j)].index * inner];
      indices[to] = best[static_cast<size_t>(j)].index;
    }
  };
  int64_t lines = outer * inner;
  // Few long lines and few of many: each line split across the threads,
  // their candidates merged (the best k of the line are among the best k of
  // each part). A large k gains nothing: the merge sorts them all again.
  constexpr int64_t kSplitLength = 1 << 16;
  if (numThreads > 1 && lines < numThreads && len >= kSplitLength &&
      k * 16 <= len) {
    for (int64_t line = 0; line < lines; ++line) {
      int64_t o = line / inner, i = line % inner;
      const S *src = x + o * len * inner + i;
      auto keyAt = [&](int64_t j) { return key(src[j * inner]); };
      int64_t parts = numThreads;
      std::vector<std::vector<TopKEntry>> partial(static_cast<size_t>(parts));
      parallelRange(numThreads, parts, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t p = lo; p < hi; ++p)
          partial[static_cast<size_t>(p)] =
              bestOfRange(keyAt, len * p / parts, len * (p + 1) / parts, k);
      });
      std::vector<TopKEntry> merged;
      for (const auto &part : partial)
        merged.insert(merged.end(), part.begin(), part.end());
      selectBest(merged, k);
      write(line, merged);
    }
    return;
  }
  parallelRange(numThreads, lines, std::max<int64_t>(1, 16384 / len),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t line = lo; line < hi; ++line) {
                    int64_t o = line / inner, i = line % inner;
                    const S *src = x + o * len * inner + i;
                    auto keyAt = [&](int64_t j) { return key(src[j * inner]); };
                    write(line, bestOfRange(keyAt, 0, len, k));
                  }
                });
}
} // namespace

absl::StatusOr<KernelPtr> createTopKUnrecorded(const TopKDesc &d) {
  if (absl::Status s = checkNativeDType(d.dtype, "topk"); !s.ok())
    return s;
  if (d.dtype == DType::I1)
    return absl::UnimplementedError("no native topk kernel for i1");
  if (absl::Status st = checkShape(d.inputShape, "topk operand"); !st.ok())
    return st;
  auto rank = static_cast<int64_t>(d.inputShape.size());
  if (d.axis < 0 || d.axis >= rank)
    return absl::InvalidArgumentError(
        absl::StrCat("topk axis ", d.axis, " is out of range for input ",
                     shapeString(d.inputShape)));
  auto axis = static_cast<size_t>(d.axis);
  int64_t len = d.inputShape[axis];
  int64_t k = d.k == -1 ? len : d.k;
  if (k < 0 || k > len)
    return absl::InvalidArgumentError(
        absl::StrCat("topk k = ", d.k, " is not in [0, ", len, "] (dim ",
                     d.axis, " of input ", shapeString(d.inputShape), ")"));
  int64_t outer = product(d.inputShape, 0, axis),
          inner = product(d.inputShape, axis + 1, d.inputShape.size());
  if (outer * inner * k == 0)
    return makeNoOpKernel("native.topk");
  DType dtype = d.dtype;
  bool largest = d.largest;
  return makeKernel("native.topk", [=](const KernelContext &context,
                                       const std::vector<HostTensor> &in,
                                       std::vector<HostTensor> &out) {
    dispatchDType(dtype, [&](auto t) {
      nativeTopK<decltype(t)>(
          outer, len, inner, k, largest, in[0].data(), out[0].data(),
          static_cast<int64_t *>(out[1].data()), context.numThreads);
    });
    return absl::OkStatus();
  });
}

} // namespace tgc::runtime::cpu
