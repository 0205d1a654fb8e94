//===- ElementwiseKernels.cpp - eltwise, binary, select, cast -------------===//
//
// Unary eltwise: oneDNN eltwise for f32/bf16/f16 and kinds with a oneDNN
// algorithm, native loops otherwise. Binary: oneDNN binary for add, sub,
// mul, div, max, min on f32/bf16/f16 when only one operand broadcasts;
// everything else (pow, logical ops, comparisons, integers, f64, two-sided
// broadcasts) is native. Select is native; cast uses a oneDNN reorder
// between f32/f16/bf16 (from s8/s32 too) and native loops for every other
// pair (tgc's saturating float->int and wrapping int->int conversions).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Common.h"
#include "runtime/cpu/Recipes.h"

#include "absl/strings/str_cat.h"

#include <atomic>

namespace tgc::runtime::cpu {
using namespace detail;

namespace {

using dt = dnnl::memory::data_type;

/// Relative cost per element of an eltwise kind (for PrimitiveKernelSpec::
/// work): transcendental functions cost several simple ones.
int64_t eltwiseCost(EltwiseKind kind) {
  using E = EltwiseKind;
  switch (kind) {
  case E::Elu:
  case E::Tanh:
  case E::Sigmoid:
  case E::Exp:
  case E::Log:
  case E::GeluErf:
  case E::GeluTanh:
  case E::Swish:
  case E::Mish:
    return 4;
  default:
    return 1;
  }
}

bool isOneDnnFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

template <typename T, typename R, typename Fn>
void binaryLoop(const BroadcastPlan<3> &plan, const void *a, const void *b,
                void *o, int numThreads, Fn fn) {
  using S = typename T::S;
  parallelRange(numThreads, plan.total, 16384, [&](int64_t lo, int64_t hi) {
    plan.run(
        lo, hi,
        [&](int64_t out, int64_t count, const auto &off, const auto &step) {
          const S *x = static_cast<const S *>(a) + off[1];
          const S *y = static_cast<const S *>(b) + off[2];
          R *z = static_cast<R *>(o) + out;
          if (step[1] == 1 && step[2] == 1) {
            for (int64_t i = 0; i < count; ++i)
              z[i] = fn(T::load(x[i]), T::load(y[i]));
          } else if (step[1] == 1 && step[2] == 0) {
            auto yv = T::load(*y);
            for (int64_t i = 0; i < count; ++i)
              z[i] = fn(T::load(x[i]), yv);
          } else if (step[1] == 0 && step[2] == 1) {
            auto xv = T::load(*x);
            for (int64_t i = 0; i < count; ++i)
              z[i] = fn(xv, T::load(y[i]));
          } else {
            for (int64_t i = 0; i < count; ++i)
              z[i] = fn(T::load(x[i * step[1]]), T::load(y[i * step[2]]));
          }
        });
  });
}

template <typename T>
absl::Status nativeBinary(BinaryDesc::Kind kind, const BroadcastPlan<3> &plan,
                          const void *a, const void *b, void *o,
                          int numThreads) {
  using K = BinaryDesc::Kind;
  using S = typename T::S;
  using C = typename T::C;
  auto arith = [&](auto fn) {
    binaryLoop<T, S>(plan, a, b, o, numThreads,
                     [&](C x, C y) { return T::store(fn(x, y)); });
    return absl::OkStatus();
  };
  auto compare = [&](auto fn) {
    binaryLoop<T, uint8_t>(plan, a, b, o, numThreads,
                           [&](C x, C y) -> uint8_t { return fn(x, y); });
    return absl::OkStatus();
  };
  switch (kind) {
  case K::Eq:
    return compare([](C x, C y) { return x == y; });
  case K::Ne:
    return compare([](C x, C y) { return x != y; });
  case K::Lt:
    return compare([](C x, C y) { return x < y; });
  case K::Le:
    return compare([](C x, C y) { return x <= y; });
  case K::Gt:
    return compare([](C x, C y) { return x > y; });
  case K::Ge:
    return compare([](C x, C y) { return x >= y; });
  case K::And:
    return arith([](C x, C y) -> C { return x != 0 && y != 0; });
  case K::Or:
    return arith([](C x, C y) -> C { return x != 0 || y != 0; });
  default:
    break;
  }
  if constexpr (T::isFloat) {
    switch (kind) {
    case K::Add:
      return arith([](C x, C y) { return x + y; });
    case K::Sub:
      return arith([](C x, C y) { return x - y; });
    case K::Mul:
      return arith([](C x, C y) { return x * y; });
    case K::Div:
      return arith([](C x, C y) { return x / y; });
    case K::Max:
      return arith([](C x, C y) {
        return (std::isnan(x) || std::isnan(y)) ? x + y : (x > y ? x : y);
      });
    case K::Min:
      return arith([](C x, C y) {
        return (std::isnan(x) || std::isnan(y)) ? x + y : (x < y ? x : y);
      });
    default: // Pow
      return arith([](C x, C y) { return std::pow(x, y); });
    }
  } else {
    auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
    switch (kind) {
    case K::Add:
      return arith([&](C x, C y) {
        return wrap(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
      });
    case K::Sub:
      return arith([&](C x, C y) {
        return wrap(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
      });
    case K::Mul:
      return arith([&](C x, C y) {
        return wrap(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
      });
    case K::Max:
      return arith([](C x, C y) { return std::max(x, y); });
    case K::Min:
      return arith([](C x, C y) { return std::min(x, y); });
    case K::Pow:
      return arith([](C x, C y) { return scalar::powInt(x, y); });
    default: { // Div
      std::atomic<bool> failed{false};
      unsigned bits = dtypeBits(T::dtype);
      (void)arith([&](C x, C y) -> C {
        auto q = scalar::divInt(x, y, bits);
        if (!q) {
          failed.store(true, std::memory_order_relaxed);
          return 0;
        }
        return *q;
      });
      if (failed.load())
        return absl::InvalidArgumentError(
            "integer division by zero or overflow");
      return absl::OkStatus();
    }
    }
  }
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

/// Float -> signed integer of `bits` bits: truncate, saturate, NaN -> 0
/// (scalar::floatToInt with the bounds hoisted).
inline int64_t saturateToInt(double v, double lo, double hi, int64_t ilo,
                             int64_t ihi) {
  if (std::isnan(v))
    return 0;
  if (v <= lo)
    return ilo;
  if (v >= hi)
    return ihi;
  return static_cast<int64_t>(v);
}

/// dst[i] = fn(src[i]) for the `count` elements of `in` into `out`, on the
/// threads, through restrict pointers (a byte store may alias anything:
/// through the captured pointers the loop would reload them every element
/// and not vectorize).
template <typename S, typename D, typename Fn>
void mapElements(const void *in, void *out, int64_t count, int numThreads,
                 Fn fn) {
  const S *source = static_cast<const S *>(in);
  D *destination = static_cast<D *>(out);
  parallelRange(numThreads, count, 32768, [&](int64_t b, int64_t e) {
    const S *__restrict src = source;
    D *__restrict dst = destination;
    for (int64_t i = b; i < e; ++i)
      dst[i] = fn(src[i]);
  });
}

template <typename F, typename T>
void castLoop(const void *in, void *out, int64_t count, int numThreads) {
  using SF = typename F::S;
  using ST = typename T::S;
  unsigned bits = dtypeBits(T::dtype);
  double lo = bits >= 64 ? -9223372036854775808.0 : -std::ldexp(1.0, bits - 1);
  double hi =
      bits >= 64 ? 9223372036854775807.0 : std::ldexp(1.0, bits - 1) - 1;
  int64_t ilo = bits >= 64 ? INT64_MIN : static_cast<int64_t>(lo);
  int64_t ihi = bits >= 64 ? INT64_MAX : static_cast<int64_t>(hi);
  mapElements<SF, ST>(in, out, count, numThreads, [&](SF v) -> ST {
    if constexpr (F::isFloat && T::isFloat) {
      if constexpr (std::is_same_v<F, F64T>) {
        if constexpr (std::is_same_v<T, F16T>)
          return doubleToHalf(v);
        else if constexpr (std::is_same_v<T, BF16T>)
          return doubleToBFloat16(v);
        else
          return static_cast<ST>(v);
      } else if constexpr (std::is_same_v<T, F64T>) {
        return static_cast<double>(F::load(v));
      } else {
        return T::store(F::load(v));
      }
    } else if constexpr (F::isFloat) {
      double x = static_cast<double>(F::load(v));
      if constexpr (std::is_same_v<T, I1T>)
        return x != 0;
      else
        return static_cast<ST>(saturateToInt(x, lo, hi, ilo, ihi));
    } else if constexpr (T::isFloat) {
      int64_t x = F::load(v);
      if constexpr (std::is_same_v<T, F16T>)
        return doubleToHalf(static_cast<double>(x));
      else if constexpr (std::is_same_v<T, BF16T>)
        return doubleToBFloat16(static_cast<double>(x));
      else
        return static_cast<ST>(x);
    } else {
      return T::store(F::load(v));
    }
  });
}

/// A cast from or to a dtype without native traits (i16, the unsigned
/// types): the reference interpreter's conversions (its runCast), element by
/// element through the tensors' accessors, on the threads. f32 <-> u8 (the
/// quantized tensors of QDQ models) take a direct loop with the same
/// results.
void castThroughAccessors(const HostTensor &in, HostTensor &out,
                          int numThreads) {
  const DType from = in.dtype(), to = out.dtype();
  const int64_t count = in.numElements();
  if (from == DType::F32 && to == DType::UI8)
    // scalar::floatToInt(x, 8, unsigned): NaN and x <= 0 give 0, x >= 255
    // gives 255, the rest truncates; branch-free, so it vectorizes.
    return mapElements<float, uint8_t>(
        in.data(), out.data(), count, numThreads, [](float x) {
          float c = x > 0.0f ? x : 0.0f;
          c = c < 255.0f ? c : 255.0f;
          return static_cast<uint8_t>(static_cast<int32_t>(c));
        });
  if (from == DType::UI8 && to == DType::F32)
    return mapElements<uint8_t, float>(
        in.data(), out.data(), count, numThreads,
        [](uint8_t x) { return static_cast<float>(x); });
  const bool fromFloat = isFloatDType(from),
             fromUnsigned = isUnsignedDType(from);
  const unsigned bits = dtypeBits(to);
  const bool toFloat = isFloatDType(to), toUnsigned = isUnsignedDType(to);
  parallelRange(numThreads, count, 32768, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      if (toFloat) {
        if (fromFloat)
          out.setDouble(i, in.getDouble(i));
        else if (fromUnsigned)
          out.setUInt(i, in.getUInt(i));
        else
          out.setInt(i, in.getInt(i));
      } else {
        out.setInt(
            i, fromFloat ? scalar::floatToInt(in.getDouble(i), bits, toUnsigned)
                         : scalar::wrapInt(in.getInt(i), bits, toUnsigned));
      }
    }
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// Factories
//===----------------------------------------------------------------------===//

absl::StatusOr<KernelPtr> createEltwiseUnrecorded(const EltwiseDesc &d) {
  if (absl::Status s = checkShape(d.shape, "eltwise operand"); !s.ok())
    return s;
  if (absl::Status s = checkNativeDType(d.dtype, "eltwise"); !s.ok())
    return s;
  if (!isFloatDType(d.dtype) && !eltwiseSupportsIntegers(d.kind))
    return absl::UnimplementedError(
        absl::StrCat("eltwise kind ", static_cast<int>(d.kind),
                     " is not defined for ", std::string(dtypeName(d.dtype))));
  int64_t count = numElements(d.shape);
  if (count == 0)
    return makeNoOpKernel("native.eltwise");
  EltwiseDesc desc = d;
  KernelPtr native = makeKernel(
      "native.eltwise",
      [desc, count](const KernelContext &context,
                    const std::vector<HostTensor> &in,
                    std::vector<HostTensor> &out) {
        return eltwiseNative(desc.kind, desc.dtype, desc.alpha, desc.beta,
                             in[0].data(), out[0].data(), count,
                             context.numThreads);
      },
      0);
  double alpha = d.alpha, beta = d.beta;
  auto alg = eltwiseAlgorithm(d.kind, alpha, beta);
  if (alg && isOneDnnFloat(d.dtype)) {
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    try {
      dnnl::memory::desc md({count}, *toDnnl(d.dtype),
                            dnnl::memory::format_tag::a);
      dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, *alg,
                                       md, static_cast<float>(alpha),
                                       static_cast<float>(beta));
      dnnl::eltwise_forward::primitive_desc pd(desc, makeAttr(), **engine);
      PrimitiveKernelSpec spec;
      spec.name = "onednn.eltwise";
      spec.primitive = dnnl::eltwise_forward(pd);
      spec.work = count * eltwiseCost(d.kind);
      spec.bindings = {{DNNL_ARG_SRC, 0, md}, {DNNL_ARG_DST, -1, md}};
      spec.inPlaceInput = 0;
      KernelPtr primitive = makePrimitiveKernel(std::move(spec));
      // oneDNN's relu and clip return the number for NaN, its exp
      // saturates NaN to inf: NaN inputs take the native kernel.
      if (!eltwisePropagatesNaN(d.kind))
        return makeNaNGuardedKernel(primitive, native, {0});
      return primitive;
    } catch (const dnnl::error &) {
      // Native below.
    }
  }
  return native;
}

absl::StatusOr<KernelPtr> createBinaryUnrecorded(const BinaryDesc &d) {
  using K = BinaryDesc::Kind;
  if (absl::Status s = checkNativeDType(d.dtype, "binary"); !s.ok())
    return s;
  for (const Shape *s : {&d.lhsShape, &d.rhsShape, &d.resultShape})
    if (absl::Status st = checkShape(*s, "binary operand"); !st.ok())
      return st;
  Shape joined;
  if (!broadcastShapes(d.lhsShape, d.rhsShape, joined) ||
      joined != d.resultShape)
    return absl::InvalidArgumentError(
        absl::StrCat("operand shapes ", shapeString(d.lhsShape), ", ",
                     shapeString(d.rhsShape), " do not broadcast to ",
                     shapeString(d.resultShape)));
  bool isCompare = d.kind == K::Eq || d.kind == K::Ne || d.kind == K::Lt ||
                   d.kind == K::Le || d.kind == K::Gt || d.kind == K::Ge;
  if ((d.kind == K::And || d.kind == K::Or) && d.dtype != DType::I1)
    return absl::InvalidArgumentError("logical ops need i1 operands");
  if (d.dtype == DType::I1 && !isCompare && d.kind != K::And && d.kind != K::Or)
    return absl::UnimplementedError("arithmetic on i1");
  if (numElements(d.resultShape) == 0)
    return makeNoOpKernel("native.binary");
  size_t rank = d.resultShape.size();
  Shape lhs = padRank(d.lhsShape, rank), rhs = padRank(d.rhsShape, rank);
  bool commutative = d.kind == K::Add || d.kind == K::Mul || d.kind == K::Max ||
                     d.kind == K::Min;
  int inPlace = -1;
  if (!isCompare) {
    if (lhs == d.resultShape)
      inPlace = 0;
    else if (rhs == d.resultShape)
      inPlace = 1;
  }

  std::optional<dnnl::algorithm> alg;
  switch (d.kind) {
  case K::Add:
    alg = dnnl::algorithm::binary_add;
    break;
  case K::Sub:
    alg = dnnl::algorithm::binary_sub;
    break;
  case K::Mul:
    alg = dnnl::algorithm::binary_mul;
    break;
  case K::Div:
    alg = dnnl::algorithm::binary_div;
    break;
  default:
    // max/min run natively: oneDNN's binary_max/min do not propagate NaN
    // the way tgc.max/tgc.min must.
    break;
  }
  // oneDNN broadcasts src1 only: swap commutative operands if needed.
  int first = -1;
  if (lhs == d.resultShape)
    first = 0;
  else if (commutative && rhs == d.resultShape)
    first = 1;
  if (alg && first >= 0 && isOneDnnFloat(d.dtype)) {
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    try {
      dt type = *toDnnl(d.dtype);
      dnnl::memory::desc src0 = plainDesc(first ? rhs : lhs, type);
      dnnl::memory::desc src1 = plainDesc(first ? lhs : rhs, type);
      dnnl::memory::desc dst = plainDesc(d.resultShape, type);
      dnnl::binary::desc desc(*alg, src0, src1, dst);
      dnnl::binary::primitive_desc pd(desc, makeAttr(), **engine);
      PrimitiveKernelSpec spec;
      spec.name = "onednn.binary";
      spec.primitive = dnnl::binary(pd);
      spec.work = numElements(d.resultShape);
      spec.bindings = {{DNNL_ARG_SRC_0, first, src0},
                       {DNNL_ARG_SRC_1, 1 - first, src1},
                       {DNNL_ARG_DST, -1, dst}};
      spec.inPlaceInput = first;
      return makePrimitiveKernel(std::move(spec));
    } catch (const dnnl::error &) {
      // Native below.
    }
  }
  auto plan = std::make_shared<BroadcastPlan<3>>(
      d.resultShape,
      std::array<Shape, 3>{rowMajorStrides(d.resultShape),
                           broadcastStrides(d.lhsShape, d.resultShape),
                           broadcastStrides(d.rhsShape, d.resultShape)});
  K kind = d.kind;
  DType dtype = d.dtype;
  return makeKernel(
      isCompare ? "native.compare" : "native.binary",
      [plan, kind, dtype](const KernelContext &context,
                          const std::vector<HostTensor> &in,
                          std::vector<HostTensor> &out) {
        return dispatchDType(dtype, [&](auto t) {
          return nativeBinary<decltype(t)>(kind, *plan, in[0].data(),
                                           in[1].data(), out[0].data(),
                                           context.numThreads);
        });
      },
      inPlace);
}

absl::StatusOr<KernelPtr> createSelectUnrecorded(const SelectDesc &d) {
  for (const Shape *s :
       {&d.conditionShape, &d.trueShape, &d.falseShape, &d.resultShape})
    if (absl::Status st = checkShape(*s, "select operand"); !st.ok())
      return st;
  Shape joined, all;
  if (!broadcastShapes(d.conditionShape, d.trueShape, joined) ||
      !broadcastShapes(joined, d.falseShape, all) || all != d.resultShape)
    return absl::InvalidArgumentError("select operands do not broadcast to "
                                      "the result");
  if (numElements(d.resultShape) == 0)
    return makeNoOpKernel("native.select");
  auto plan = std::make_shared<BroadcastPlan<4>>(
      d.resultShape,
      std::array<Shape, 4>{rowMajorStrides(d.resultShape),
                           broadcastStrides(d.conditionShape, d.resultShape),
                           broadcastStrides(d.trueShape, d.resultShape),
                           broadcastStrides(d.falseShape, d.resultShape)});
  size_t size = dtypeSize(d.dtype);
  int inPlace =
      padRank(d.trueShape, d.resultShape.size()) == d.resultShape
          ? 1
          : (padRank(d.falseShape, d.resultShape.size()) == d.resultShape ? 2
                                                                          : -1);
  return makeKernel(
      "native.select",
      [plan, size](const KernelContext &context,
                   const std::vector<HostTensor> &in,
                   std::vector<HostTensor> &out) {
        dispatchBytes(size, [&](auto type) {
          using T = decltype(type);
          const uint8_t *c = static_cast<const uint8_t *>(in[0].data());
          const T *x = static_cast<const T *>(in[1].data());
          const T *y = static_cast<const T *>(in[2].data());
          T *o = static_cast<T *>(out[0].data());
          parallelRange(context.numThreads, plan->total, 16384,
                        [&](int64_t lo, int64_t hi) {
                          plan->run(lo, hi,
                                    [&](int64_t at, int64_t count,
                                        const auto &off, const auto &step) {
                                      for (int64_t i = 0; i < count; ++i)
                                        o[at + i] =
                                            c[off[1] + i * step[1]]
                                                ? x[off[2] + i * step[2]]
                                                : y[off[3] + i * step[3]];
                                    });
                        });
        });
        return absl::OkStatus();
      },
      inPlace);
}

absl::StatusOr<KernelPtr> createLogicalNotUnrecorded(const Shape &shape) {
  if (absl::Status s = checkShape(shape, "logical_not operand"); !s.ok())
    return s;
  int64_t count = numElements(shape);
  return makeKernel(
      "native.logical_not",
      [count](const KernelContext &context, const std::vector<HostTensor> &in,
              std::vector<HostTensor> &out) {
        const uint8_t *x = static_cast<const uint8_t *>(in[0].data());
        uint8_t *y = static_cast<uint8_t *>(out[0].data());
        parallelRange(context.numThreads, count, 1 << 16,
                      [&](int64_t lo, int64_t hi) {
                        for (int64_t i = lo; i < hi; ++i)
                          y[i] = x[i] == 0;
                      });
        return absl::OkStatus();
      },
      0);
}

absl::StatusOr<KernelPtr> createCastUnrecorded(DType from, DType to,
                                               const Shape &shape) {
  if (absl::Status s = checkShape(shape, "cast operand"); !s.ok())
    return s;
  int64_t count = numElements(shape);
  if (count == 0)
    return makeNoOpKernel("native.cast");
  size_t bytes = static_cast<size_t>(count) * dtypeSize(from);
  if (from == to)
    return makeKernel(
        "native.copy",
        [bytes](const KernelContext &, const std::vector<HostTensor> &in,
                std::vector<HostTensor> &out) {
          if (out[0].data() != in[0].data())
            std::memcpy(out[0].data(), in[0].data(), bytes);
          return absl::OkStatus();
        },
        0);
  if (!hasNativeTraits(from) || !hasNativeTraits(to))
    return makeKernel(
        "native.cast",
        [](const KernelContext &context, const std::vector<HostTensor> &in,
           std::vector<HostTensor> &out) {
          castThroughAccessors(in[0], out[0], context.numThreads);
          return absl::OkStatus();
        },
        dtypeSize(from) == dtypeSize(to) ? 0 : -1);
  bool oneDnnFrom =
      isOneDnnFloat(from) || from == DType::I8 || from == DType::I32;
  // oneDNN 2.6 reorders f16 with its reference implementation (simple:any,
  // ~20 ns an element): the native loop converts it faster.
  if (oneDnnFrom && isOneDnnFloat(to) && from != DType::F16 &&
      to != DType::F16) {
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    try {
      dnnl::memory::desc src({count}, *toDnnl(from),
                             dnnl::memory::format_tag::a);
      dnnl::memory::desc dst({count}, *toDnnl(to), dnnl::memory::format_tag::a);
      dnnl::reorder::primitive_desc pd(**engine, src, **engine, dst,
                                       makeAttr());
      PrimitiveKernelSpec spec;
      spec.name = "onednn.reorder";
      spec.primitive = dnnl::reorder(pd);
      spec.work = count;
      spec.bindings = {{DNNL_ARG_FROM, 0, src}, {DNNL_ARG_TO, -1, dst}};
      return makePrimitiveKernel(std::move(spec));
    } catch (const dnnl::error &) {
      // Native below.
    }
  }
  int inPlace = dtypeSize(from) == dtypeSize(to) ? 0 : -1;
  return makeKernel(
      "native.cast",
      [from, to, count](const KernelContext &context,
                        const std::vector<HostTensor> &in,
                        std::vector<HostTensor> &out) {
        dispatchDType(from, [&](auto f) {
          dispatchDType(to, [&](auto t) {
            castLoop<decltype(f), decltype(t)>(in[0].data(), out[0].data(),
                                               count, context.numThreads);
          });
        });
        return absl::OkStatus();
      },
      inPlace);
}

} // namespace tgc::runtime::cpu
