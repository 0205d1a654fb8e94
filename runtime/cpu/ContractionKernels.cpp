//===- ContractionKernels.cpp - matmul, conv2d and pooling ----------------===//
//
// oneDNN matmul / convolution / pooling_v2 primitives for f32, bf16 (and
// f16 where this CPU's oneDNN has kernels), with eltwise and binary post-ops
// fused; post-ops oneDNN cannot fuse run natively after the primitive. Other
// dtypes, zero-size reductions (K = 0, no input channels) and descriptors
// oneDNN rejects run on native loops with the same semantics.
//
//===----------------------------------------------------------------------===//

#include "runtime/LargeBuffer.h"
#include "runtime/Quantize.h"
#include "runtime/cpu/Common.h"
#include "runtime/cpu/Recipes.h"
#include "runtime/cpu/WinogradConv.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

namespace tgc::runtime::cpu {
using namespace detail;

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

bool isOneDnnFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
}

/// Bias (as an Add post-op) followed by the user's post-ops, with the kernel
/// input of each operand.
void prependBias(const std::vector<PostOp> &postOps,
                 const std::optional<Shape> &biasShape, int biasInput,
                 int firstPostOpInput, std::vector<PostOp> &all,
                 std::vector<int> &inputs) {
  all.clear();
  inputs.clear();
  if (biasShape) {
    PostOp bias;
    bias.kind = PostOp::Kind::Add;
    bias.operandShape = *biasShape;
    all.push_back(bias);
    inputs.push_back(biasInput);
  }
  std::vector<int> rest = postOpInputIndices(postOps, firstPostOpInput);
  all.insert(all.end(), postOps.begin(), postOps.end());
  inputs.insert(inputs.end(), rest.begin(), rest.end());
}

/// Runs `compute` natively, then bias and post-ops.
KernelPtr makeNativeWithPostOps(
    std::string name, std::vector<PostOp> postOps, std::vector<int> inputs,
    std::function<void(const KernelContext &, const std::vector<HostTensor> &,
                       HostTensor &)>
        compute) {
  return makeKernel(std::move(name), [postOps = std::move(postOps),
                                      inputs = std::move(inputs),
                                      compute = std::move(compute)](
                                         const KernelContext &context,
                                         const std::vector<HostTensor> &in,
                                         std::vector<HostTensor> &out) {
    compute(context, in, out[0]);
    std::vector<const HostTensor *> operands(postOps.size(), nullptr);
    for (size_t i = 0; i < postOps.size(); ++i)
      if (inputs[i] >= 0)
        operands[i] = &in[static_cast<size_t>(inputs[i])];
    return applyPostOpsNative(postOps, 0, operands, out[0], context.numThreads);
  });
}

/// Where gemm:jit's constant weights start past a 64-byte boundary (see
/// the matmul kernel).
constexpr size_t kGemmWeightOffset = 16;

/// A buffer of `bytes` whose data starts `offset` bytes past a 64-byte
/// boundary; the returned pointer owns it.
std::shared_ptr<char> offsetBuffer(size_t bytes, size_t offset) {
  std::shared_ptr<char> buffer = allocateLargeBuffer(bytes + offset);
  if (!buffer)
    return nullptr;
  char *start = buffer.get() + offset;
  return std::shared_ptr<char>(std::move(buffer), start);
}

/// `owner` now also keeps `more` alive.
void alsoOwn(std::shared_ptr<const void> &owner, std::shared_ptr<char> more) {
  owner = std::make_shared<
      std::pair<std::shared_ptr<const void>, std::shared_ptr<char>>>(
      owner, std::move(more));
}

} // namespace

/// The cache's entries: per source address, the packings of it.
struct PrepackCache::Impl {
  struct Entry {
    dnnl::memory::desc from, to;
    size_t offset;
    std::weak_ptr<char> buffer;
  };
  mutable std::mutex mutex;
  std::unordered_map<const void *, std::vector<Entry>> entries;
  int64_t packed = 0, shared = 0;
};
PrepackCache::PrepackCache() : impl(std::make_unique<Impl>()) {}
PrepackCache::~PrepackCache() = default;
int64_t PrepackCache::packed() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->packed;
}
int64_t PrepackCache::shared() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->shared;
}

namespace {
thread_local std::shared_ptr<PrepackCache> currentPrepackCache;
} // namespace

SharedPrepacking::SharedPrepacking(std::shared_ptr<PrepackCache> cache)
    : previous(std::move(currentPrepackCache)) {
  currentPrepackCache = cache ? std::move(cache) : previous;
}
SharedPrepacking::~SharedPrepacking() {
  currentPrepackCache = std::move(previous);
}

namespace {

/// The buffer `cache` holds for `data` packed from `from` to `to` at
/// `offset`, or null.
std::shared_ptr<char> findPacked(PrepackCache &cache, const void *data,
                                 const dnnl::memory::desc &from,
                                 const dnnl::memory::desc &to, size_t offset) {
  std::lock_guard<std::mutex> lock(cache.impl->mutex);
  auto it = cache.impl->entries.find(data);
  if (it == cache.impl->entries.end())
    return nullptr;
  std::vector<PrepackCache::Impl::Entry> &list = it->second;
  std::erase_if(list, [](const auto &e) { return e.buffer.expired(); });
  for (const auto &e : list)
    if (e.offset == offset && e.from == from && e.to == to)
      if (std::shared_ptr<char> buffer = e.buffer.lock()) {
        ++cache.impl->shared;
        return buffer;
      }
  return nullptr;
}

void notePacked(PrepackCache &cache, const void *data,
                const dnnl::memory::desc &from, const dnnl::memory::desc &to,
                size_t offset, const std::shared_ptr<char> &buffer) {
  std::lock_guard<std::mutex> lock(cache.impl->mutex);
  cache.impl->entries[data].push_back({from, to, offset, buffer});
  ++cache.impl->packed;
}

/// Constant weights reordered once into `to` (their layout in the
/// primitive; a new buffer, allocateLargeBuffer), or the copy a saved plan
/// supplies (while one is loaded, detail::currentDerivedSupply(): the next
/// saved blob where it has exactly the layout `to`; `owner` then keeps it
/// alive). With `offset`, the
/// weights start that many bytes past a 64-byte boundary
/// (kGemmWeightOffset).
absl::StatusOr<dnnl::memory>
prepack(const dnnl::memory::desc &from, const void *data,
        const dnnl::memory::desc &to, std::shared_ptr<const void> &owner,
        size_t offset = 0, const void *shareKey = nullptr) {
  auto engine = cpuEngine();
  if (!engine.ok())
    return engine.status();
  if (RemakeContext *supply = detail::currentDerivedSupply();
      supply && supply->derivedUsed < supply->derived.size()) {
    const RemakeContext::Derived &saved = supply->derived[supply->derivedUsed];
    // Compared field by field (the struct's padding bytes are not part of
    // the layout).
    std::optional<dnnl_memory_desc_t> layout =
        detail::memoryDescFromBytes(saved.layout, /*blockedOnly=*/false);
    if (layout && dnnl_memory_desc_equal(&*layout, &to.data) &&
        saved.bytes == to.get_size()) {
      ++supply->derivedUsed;
      owner = supply->owner;
      try {
        if (offset && reinterpret_cast<uintptr_t>(saved.data) % 64 != offset) {
          std::shared_ptr<char> copy = offsetBuffer(to.get_size(), offset);
          if (!copy)
            return absl::ResourceExhaustedError("cannot allocate weights");
          std::memcpy(copy.get(), saved.data, to.get_size());
          dnnl::memory moved(to, **engine, copy.get());
          alsoOwn(owner, std::move(copy));
          return moved;
        }
        return dnnl::memory(to, **engine, const_cast<void *>(saved.data));
      } catch (const dnnl::error &error) {
        return unimplementedFrom(error, "saved weights");
      }
    }
  }
  try {
    PrepackCache *cache = shareKey ? currentPrepackCache.get() : nullptr;
    if (cache)
      if (std::shared_ptr<char> packed =
              findPacked(*cache, shareKey, from, to, offset)) {
        dnnl::memory dst(to, **engine, packed.get());
        alsoOwn(owner, std::move(packed));
        return dst;
      }
    dnnl::memory src = wrap(from, data);
    // Huge pages where large (allocateLargeBuffer).
    std::shared_ptr<char> buffer = offsetBuffer(to.get_size(), offset);
    if (!buffer)
      return absl::ResourceExhaustedError("cannot allocate weights");
    dnnl::memory dst(to, **engine, buffer.get());
    if (cache)
      notePacked(*cache, shareKey, from, to, offset, buffer);
    alsoOwn(owner, std::move(buffer));
    dnnl::stream stream(**engine);
    dnnl::reorder(src, dst).execute(stream, src, dst);
    stream.wait();
    return dst;
  } catch (const dnnl::error &error) {
    return unimplementedFrom(error, "weight reorder");
  }
}

/// The arguments shared by matmul and convolution: source, weights (bound
/// as input 1, or prepacked once into `packedWeights` when constant), the
/// optional bias (input 2), destination, and the operands of the fused
/// binary post-ops (the inputs after them). `srcHeld` / `weiHeld`, when
/// given, describe what the inputs hold where the primitive reads another
/// type (bf16 multiplication: converted on each run, Binding::from).
/// `modelWeights`, when given, are the constant `constantWeights` were made
/// from (themselves, or quantized from them): the packing is shared under
/// its address (PrepackCache).
template <typename OperandDesc>
absl::Status bindContraction(
    PrimitiveKernelSpec &spec, const dnnl::memory::desc &src,
    const dnnl::memory::desc &weiPlain, const dnnl::memory::desc &wei,
    const dnnl::memory::desc &packedWeights, const HostTensor *constantWeights,
    const dnnl::memory::desc &bias, bool hasBias, const dnnl::memory::desc &dst,
    const std::vector<PostOp> &postOps, size_t fused, OperandDesc operandDesc,
    const dnnl::memory::desc &srcHeld = {},
    const dnnl::memory::desc &weiHeld = {}, float srcScale = 1,
    int32_t srcZeroPoint = 0, size_t weightOffset = 0,
    const HostTensor *modelWeights = nullptr) {
  spec.bindings.push_back(
      {DNNL_ARG_SRC, 0, src, srcHeld, srcScale, srcZeroPoint});
  if (constantWeights) {
    auto packed = prepack(weiPlain, constantWeights->data(), packedWeights,
                          spec.constantsOwner, weightOffset,
                          modelWeights ? modelWeights->data() : nullptr);
    if (!packed.ok())
      return packed.status();
    spec.constants.emplace_back(DNNL_ARG_WEIGHTS, *packed);
    if (!modelWeights || modelWeights == constantWeights) // not quantized
      spec.packedInputs.push_back({1, DNNL_ARG_WEIGHTS, weiPlain});
  } else {
    spec.bindings.push_back({DNNL_ARG_WEIGHTS, 1, wei, weiHeld});
  }
  if (hasBias)
    spec.bindings.push_back({DNNL_ARG_BIAS, 2, bias});
  spec.bindings.push_back({DNNL_ARG_DST, -1, dst});
  spec.postOps = postOps;
  spec.postOpInputs = postOpInputIndices(postOps, hasBias ? 3 : 2);
  spec.firstNativePostOp = fused;
  for (size_t i = 0; i < fused; ++i)
    if (postOps[i].kind != PostOp::Kind::Eltwise)
      spec.bindings.push_back(
          {DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1,
           spec.postOpInputs[i], operandDesc(i)});
  return absl::OkStatus();
}

/// Constant weights quantized to s8 per output channel, symmetric, for a
/// kernel reading `int8`'s input (int8WeightRule): scales[c] = max |w[c]|
/// / 127 or coarser (1 for an all-zero channel), values = round(w /
/// scales[c]). `channelOf` maps a flat index of `w` to its channel;
/// `reductionOf` to its index along the reduction dim (a matmul's k, a
/// filter's input channel) and that dim's stride and extent, which pair
/// the weights a kernel without VNNI adds in 16 bits.
struct QuantizedWeights {
  HostTensor values;
  std::vector<float> scales;
};
struct ReductionIndex {
  int64_t index, stride, extent;
};
template <typename ChannelOf, typename ReductionOf>
absl::StatusOr<QuantizedWeights>
quantizePerChannel(const HostTensor &w, const Int8Quantization &int8,
                   int64_t channels, ChannelOf channelOf,
                   ReductionOf reductionOf) {
  QuantizedWeights q;
  auto values = HostTensor::allocate(DType::I8, w.shape());
  if (!values.ok())
    return values.status();
  q.values = *std::move(values);
  Int8WeightRule rule = int8WeightRule(int8.unsignedInput);
  // Reduction indices 2m and 2m + 1 at the same output channel and tap.
  auto partnerOf = [&](int64_t i) -> int64_t {
    ReductionIndex r = reductionOf(i);
    if (r.index % 2 == 1)
      return i - r.stride;
    return r.index + 1 < r.extent ? i + r.stride : -1;
  };
  q.scales = runtime::quantizePerChannel(
      static_cast<const float *>(w.data()), w.numElements(), channels,
      rule.levels, channelOf, static_cast<int8_t *>(q.values.data()),
      rule.pairLimit, partnerOf);
  return q;
}

/// int8 multiplication (Int8Quantization): of f32 operands, with constant
/// weights free of NaN and infinities, and a positive finite scale.
absl::Status checkInt8(const std::optional<Int8Quantization> &int8, bool bf16,
                       DType dtype, const HostTensor *constantWeights,
                       std::string_view what) {
  if (!int8)
    return absl::OkStatus();
  std::string name(what);
  if (dtype != DType::F32 || bf16)
    return absl::InvalidArgumentError(absl::StrCat(
        "a ", name, " multiplies in int8 only with f32 operands (not bf16)"));
  if (!(int8->inputScale > 0) || !std::isfinite(int8->inputScale))
    return absl::InvalidArgumentError(absl::StrCat(
        "an int8 ", name, "'s input scale must be positive and finite, not ",
        int8->inputScale));
  if (int8->zeroPoint < 0 || int8->zeroPoint > 255 ||
      (int8->zeroPoint != 0 && !int8->unsignedInput))
    return absl::InvalidArgumentError(
        absl::StrCat("an int8 ", name, "'s zero point must be in [0, 255] ",
                     "with u8 input (0 with s8), not ", int8->zeroPoint));
  if (!constantWeights)
    return absl::UnimplementedError(
        absl::StrCat("an int8 ", name, " needs constant weights"));
  if (detail::constantHasSpecialValues(*constantWeights))
    return absl::UnimplementedError(
        absl::StrCat("an int8 ", name, "'s weights hold NaN or an infinity"));
  return absl::OkStatus();
}

/// A result quantized for an int8 consumer (int8Output): only by an int8
/// contraction (`asInt8`: "an int8 matmul"), with a positive finite scale.
absl::Status checkInt8Output(const std::optional<Int8Quantization> &output,
                             bool int8, std::string_view what,
                             std::string_view asInt8) {
  if (!output)
    return absl::OkStatus();
  if (!int8)
    return absl::InvalidArgumentError(
        absl::StrCat("a ", std::string(what), " writes a quantized result ",
                     "only as ", std::string(asInt8)));
  if (!(output->inputScale > 0) || !std::isfinite(output->inputScale))
    return absl::InvalidArgumentError(
        absl::StrCat("a quantized ", std::string(what),
                     " result's scale must be positive and finite"));
  return absl::OkStatus();
}

/// An int8 primitive's output scales (`mask`: its output-channel dim):
/// the input scale x each channel's weight scale, dequantizing the s32
/// products to f32.
void setDequantization(dnnl::primitive_attr &attr, const QuantizedWeights &q,
                       float inputScale, int mask) {
  std::vector<float> scales = q.scales;
  for (float &s : scales)
    s *= inputScale;
  attr.set_output_scales(mask, scales);
}

/// Requantization for an int8 consumer (int8Output): x / its input scale
/// after every post-op (all of which must be fused); the primitive then
/// rounds and saturates to its 8-bit dst.
absl::Status appendRequantization(dnnl::post_ops &ops,
                                  const std::optional<Int8Quantization> &output,
                                  size_t fused, size_t postOps) {
  if (!output)
    return absl::OkStatus();
  if (fused != postOps)
    return absl::UnimplementedError(
        "a quantized int8 result needs every post-op fused");
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear,
                     1.0f / output->inputScale, 0.0f);
  return absl::OkStatus();
}

/// oneDNN adds an int8 primitive's bias before its output scales (scales *
/// (acc + bias)): the kernel passes it divided by them, on each run (a
/// staged per-channel conversion of input 2, scaleBiasBinding), and
/// `biasScales` receives their inverses. (As a binary add post-op after the
/// scales it cost a broadcast read per element: 334 -> 259 us for
/// ResNet-50's 64 -> 256 1x1 convolution with its residual under
/// DNNL_MAX_CPU_ISA=AVX2, 95 -> 79 us with VNNI; 2 threads, Zen 5.) Where
/// a scale does not invert, the bias goes after the scales as that post-op
/// (an add of `postOpShape`, reading the same kernel input, fused with the
/// others): `storage` holds that descriptor and `fused` counts it. Returns
/// the descriptor the primitive is made from.
template <typename Desc>
const Desc &placeInt8Bias(const Desc &desc,
                          const std::optional<QuantizedWeights> &q,
                          const Shape &postOpShape, size_t &fused,
                          Desc &storage, std::vector<float> &biasScales) {
  if (!q || !desc.biasShape)
    return desc;
  std::vector<float> inverse(q->scales.size());
  bool inverts = true;
  for (size_t c = 0; c < inverse.size(); ++c) {
    float scale = q->scales[c] * desc.int8->inputScale;
    inverse[c] = 1.0f / scale;
    inverts = inverts && scale > 0 && std::isfinite(inverse[c]);
  }
  if (inverts) {
    biasScales = std::move(inverse);
    return desc;
  }
  storage = desc;
  PostOp bias;
  bias.kind = PostOp::Kind::Add;
  bias.operandShape = postOpShape;
  storage.postOps.insert(storage.postOps.begin(), bias);
  storage.biasShape.reset();
  ++fused;
  return storage;
}

/// Binds input 2, the bias, divided by the output scales (placeInt8Bias)
/// along dim `dim` of its descriptor: a constant bias (`constantBias`, one
/// value per scale) once, here (a per-run conversion of each of ResNet-50's
/// 53 biases cost 0.12 ms of its 6.2 ms int8 inference with VNNI), any
/// other on each run (a staged conversion).
void scaleBiasBinding(PrimitiveKernelSpec &spec,
                      const std::vector<float> &biasScales, int dim,
                      const HostTensor *constantBias) {
  if (biasScales.empty())
    return;
  for (auto b = spec.bindings.begin(); b != spec.bindings.end(); ++b) {
    if (b->arg != DNNL_ARG_BIAS)
      continue;
    if (constantBias && constantBias->dtype() == DType::F32 &&
        constantBias->numElements() ==
            static_cast<int64_t>(biasScales.size())) {
      const float *bias = constantBias->dataAs<float>();
      std::vector<float> scaled(biasScales.size());
      for (size_t c = 0; c < scaled.size(); ++c)
        scaled[c] = bias[c] * biasScales[c];
      spec.f32Arguments.push_back(
          {DNNL_ARG_BIAS, {b->desc, std::move(scaled)}});
      spec.readAtRemake.push_back(b->input);
      spec.bindings.erase(b);
      return;
    }
    b->from = b->desc;
    b->fromScales = biasScales;
    b->fromScalesMask = 1 << dim;
    return;
  }
}

/// The source (and, for a quantized result, destination) zero points of
/// an int8 primitive: runtime values in the attributes, bound on each run.
std::vector<std::pair<int, std::vector<int32_t>>>
setZeroPoints(dnnl::primitive_attr &attr,
              const std::optional<Int8Quantization> &input,
              const std::optional<Int8Quantization> &output) {
  std::vector<std::pair<int, std::vector<int32_t>>> arguments;
  if (input && input->zeroPoint != 0) {
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    arguments.push_back(
        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, {input->zeroPoint}});
  }
  if (output && output->zeroPoint != 0) {
    attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
    arguments.push_back(
        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, {output->zeroPoint}});
  }
  return arguments;
}

/// The data type an int8 contraction's activation operand is quantized to.
dnnl::memory::data_type int8InputType(const Int8Quantization &q) {
  return q.unsignedInput ? dnnl::memory::data_type::u8
                         : dnnl::memory::data_type::s8;
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

struct MatmulGeometry {
  size_t rank = 0;
  int64_t m = 0, n = 0, k = 0;
  Shape lhsDims, lhsStrides; ///< oneDNN view [batch..., M, K]
  Shape rhsDims, rhsStrides; ///< oneDNN view [batch..., K, N]
  /// MatmulDesc::OperandView: where each operand starts in its input and
  /// how many elements of the input its view spans from the input's start.
  int64_t lhsOffset = 0, rhsOffset = 0, lhsSpan = 0, rhsSpan = 0;
};

absl::StatusOr<MatmulGeometry> matmulGeometry(const MatmulDesc &d) {
  const Shape &a = d.lhsShape, &b = d.rhsShape, &r = d.resultShape;
  for (const Shape *s : {&a, &b, &r})
    if (absl::Status st = checkShape(*s, "matmul operand"); !st.ok())
      return st;
  if (a.size() < 2 || b.size() < 2 || r.size() < 2)
    return absl::InvalidArgumentError("matmul operands need rank >= 2");
  MatmulGeometry g;
  g.rank = r.size();
  if (a.size() > g.rank || b.size() > g.rank)
    return absl::InvalidArgumentError("matmul operand rank exceeds result");
  size_t ra = a.size(), rb = b.size(), R = g.rank;
  g.m = d.transposeA ? a[ra - 1] : a[ra - 2];
  g.k = d.transposeA ? a[ra - 2] : a[ra - 1];
  int64_t k2 = d.transposeB ? b[rb - 1] : b[rb - 2];
  g.n = d.transposeB ? b[rb - 2] : b[rb - 1];
  if (g.k != k2 || r[R - 2] != g.m || r[R - 1] != g.n)
    return absl::InvalidArgumentError(
        absl::StrCat("matmul shapes ", shapeString(a), " x ", shapeString(b),
                     " do not give ", shapeString(r)));
  Shape batch(r.begin(), r.end() - 2);
  Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2), joined;
  if (!broadcastShapes(ba, bb, joined) ||
      padRank(joined, batch.size()) != batch)
    return absl::InvalidArgumentError(
        absl::StrCat("matmul batch dims of ", shapeString(a), " and ",
                     shapeString(b), " do not broadcast to ", shapeString(r)));
  auto view = [&](const Shape &s, bool transpose,
                  const std::optional<MatmulDesc::OperandView> &given,
                  Shape &dims, Shape &strides, int64_t &offset,
                  int64_t &span) -> absl::Status {
    dims = padRank(s, R);
    strides = rowMajorStrides(dims);
    offset = 0;
    span = numElements(dims);
    if (given) {
      if (given->strides.size() != s.size() || given->offset < 0)
        return absl::InvalidArgumentError(
            "a matmul operand view needs one stride per dim and an offset "
            ">= 0");
      int64_t last = given->offset;
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t stride = given->strides[i];
        if (stride < 0)
          return absl::InvalidArgumentError(
              "a matmul operand view has a negative stride");
        strides[R - s.size() + i] = stride;
        if (s[i] <= 1)
          continue;
        if (stride > (std::numeric_limits<int64_t>::max() - last) / (s[i] - 1))
          return absl::InvalidArgumentError(
              "a matmul operand view reaches past the largest offset");
        last += (s[i] - 1) * stride;
      }
      offset = given->offset;
      span = numElements(s) == 0 ? 0 : last + 1;
    }
    if (transpose) {
      std::swap(dims[R - 2], dims[R - 1]);
      std::swap(strides[R - 2], strides[R - 1]);
    }
    return absl::OkStatus();
  };
  if (absl::Status st = view(a, d.transposeA, d.lhsView, g.lhsDims,
                             g.lhsStrides, g.lhsOffset, g.lhsSpan);
      !st.ok())
    return st;
  if (absl::Status st = view(b, d.transposeB, d.rhsView, g.rhsDims,
                             g.rhsStrides, g.rhsOffset, g.rhsSpan);
      !st.ok())
    return st;
  return g;
}

template <typename T>
void nativeMatmul(const MatmulGeometry &g, const Shape &resultShape,
                  const void *lhs, const void *rhs, void *result,
                  int numThreads) {
  using S = typename T::S;
  using C = typename T::C;
  const S *A = static_cast<const S *>(lhs);
  const S *B = static_cast<const S *>(rhs);
  S *out = static_cast<S *>(result);
  size_t R = g.rank;
  Shape batch(resultShape.begin(), resultShape.end() - 2);
  int64_t m = g.m, n = g.n, k = g.k;
  int64_t am = g.lhsStrides[R - 2], ak = g.lhsStrides[R - 1];
  int64_t bk = g.rhsStrides[R - 2], bn = g.rhsStrides[R - 1];
  int64_t rows = numElements(batch) * m;
  parallelRange(numThreads, rows,
                std::max<int64_t>(1, 4096 / std::max<int64_t>(n * k, 1)),
                [&](int64_t lo, int64_t hi) {
                  std::vector<C> acc(static_cast<size_t>(n));
                  for (int64_t row = lo; row < hi; ++row) {
                    int64_t b = row / m, i = row % m;
                    int64_t offA = 0, offB = 0, rem = b;
                    for (size_t d = batch.size(); d-- > 0;) {
                      int64_t idx = rem % batch[d];
                      rem /= batch[d];
                      if (g.lhsDims[d] != 1)
                        offA += idx * g.lhsStrides[d];
                      if (g.rhsDims[d] != 1)
                        offB += idx * g.rhsStrides[d];
                    }
                    std::fill(acc.begin(), acc.end(), C(0));
                    for (int64_t p = 0; p < k; ++p) {
                      C a = T::load(A[offA + i * am + p * ak]);
                      const S *brow = B + offB + p * bk;
                      if (bn == 1) {
                        for (int64_t j = 0; j < n; ++j)
                          acc[j] += a * T::load(brow[j]);
                      } else {
                        for (int64_t j = 0; j < n; ++j)
                          acc[j] += a * T::load(brow[j * bn]);
                      }
                    }
                    S *o = out + row * n;
                    for (int64_t j = 0; j < n; ++j)
                      o[j] = T::store(acc[j]);
                  }
                });
}

absl::StatusOr<KernelPtr> createNativeMatmul(const MatmulDesc &d,
                                             const MatmulGeometry &g) {
  std::vector<PostOp> all;
  std::vector<int> inputs;
  int biasInput = 2, firstPost = d.biasShape ? 3 : 2;
  prependBias(d.postOps, d.biasShape, biasInput, firstPost, all, inputs);
  std::shared_ptr<HostTensor> constant;
  if (d.constantRhs)
    constant = std::make_shared<HostTensor>(d.constantRhs->clone());
  DType dtype = d.dtype;
  Shape resultShape = d.resultShape;
  KernelPtr kernel = makeNativeWithPostOps(
      "native.matmul", all, inputs,
      [g, dtype, resultShape, constant](const KernelContext &context,
                                        const std::vector<HostTensor> &in,
                                        HostTensor &out) {
        const HostTensor &rhs = constant ? *constant : in[1];
        size_t size = dtypeSize(dtype);
        // The operand views (MatmulDesc::OperandView) were checked against
        // the inputs' sizes before (the kernel below).
        const char *lhsData =
            static_cast<const char *>(in[0].data()) + g.lhsOffset * size;
        const char *rhsData =
            static_cast<const char *>(rhs.data()) + g.rhsOffset * size;
        dispatchDType(dtype, [&](auto t) {
          nativeMatmul<decltype(t)>(g, resultShape, lhsData, rhsData,
                                    out.data(), context.numThreads);
        });
      });
  if (!d.lhsView && !d.rhsView)
    return kernel;
  // Strided operand views stay inside their inputs.
  int64_t size = static_cast<int64_t>(dtypeSize(dtype));
  int64_t spans[2] = {g.lhsSpan * size, constant ? 0 : g.rhsSpan * size};
  return makeKernel(
      "native.matmul[strided]",
      [kernel, spans](const KernelContext &context,
                      const std::vector<HostTensor> &in,
                      std::vector<HostTensor> &out) -> absl::Status {
        for (int i = 0; i < 2; ++i)
          if (absl::Status fits = checkViewFits(
                  "native.matmul", i, in[static_cast<size_t>(i)], spans[i]);
              !fits.ok())
            return fits;
        return kernel->run(context, in, out);
      });
}

absl::StatusOr<KernelPtr> tryOneDnnMatmul(const MatmulDesc &given,
                                          const MatmulGeometry &g,
                                          size_t fused) {
  auto engine = cpuEngine();
  if (!engine.ok())
    return engine.status();
  // int8: the rhs quantized per column (n), the lhs on each run.
  std::optional<QuantizedWeights> quantized;
  if (given.int8) {
    int64_t K = g.k, N = g.n;
    bool tb = given.transposeB;
    auto q = quantizePerChannel(
        *given.constantRhs, *given.int8, N,
        [&](int64_t i) {
          return tb ? (i / std::max<int64_t>(K, 1)) % N : i % N;
        },
        [&](int64_t i) {
          return tb ? ReductionIndex{i % K, 1, K}
                    : ReductionIndex{(i / N) % K, N, K};
        });
    if (!q.ok())
      return q.status();
    quantized = *std::move(q);
  }
  MatmulDesc storage;
  std::vector<float> biasScales;
  const MatmulDesc &d = placeInt8Bias(
      given, quantized, given.biasShape ? *given.biasShape : Shape(), fused,
      storage, biasScales);
  dt type = *toDnnl(d.dtype);
  // The type the products are taken in (bf16: converted operands).
  dt mul = d.bf16 ? dt::bf16 : type;
  size_t R = g.rank;
  dt srcType = d.int8 ? int8InputType(*d.int8) : mul;
  dt weiType = d.int8 ? dt::s8 : mul;
  try {
    dnnl::memory::desc srcHeld = stridedDesc(g.lhsDims, g.lhsStrides, type);
    dnnl::memory::desc src =
        d.bf16 || d.int8 ? plainDesc(g.lhsDims, srcType) : srcHeld;
    // An int8 chain: the lhs quantized by its producer, read as it is.
    bool quantizedInput = d.int8 && d.int8->quantizedInput;
    if (quantizedInput && d.transposeA)
      return absl::UnimplementedError(
          "a quantized int8 matmul input cannot be transposed");
    dnnl::memory::desc weiPlain =
        stridedDesc(g.rhsDims, g.rhsStrides, d.int8 ? dt::s8 : type);
    dnnl::memory::desc wei =
        d.constantRhs
            ? dnnl::memory::desc(Dims(g.rhsDims.begin(), g.rhsDims.end()),
                                 weiType, tag::any)
            : (d.bf16 ? plainDesc(g.rhsDims, mul) : weiPlain);
    dnnl::memory::desc dst = plainDesc(
        d.resultShape, d.int8Output ? int8InputType(*d.int8Output) : type);
    dnnl::memory::desc bias;
    if (d.biasShape)
      bias = plainDesc(padRank(*d.biasShape, R), type);
    auto operandDesc = [&](size_t i) {
      return plainDesc(padRank(d.postOps[i].operandShape, R), type);
    };
    dnnl::post_ops ops;
    buildPostOps(d.postOps, fused, operandDesc, ops);
    if (absl::Status s =
            appendRequantization(ops, d.int8Output, fused, d.postOps.size());
        !s.ok())
      return s;
    dnnl::primitive_attr attr = makeAttr();
    attr.set_post_ops(ops);
    if (quantized) // per column
      setDequantization(attr, *quantized, d.int8->inputScale, 1 << (R - 1));
    auto zeroPoints = setZeroPoints(attr, d.int8, d.int8Output);
    dnnl::matmul::desc desc(src, wei, bias, dst);
    dnnl::matmul::primitive_desc pd(desc, attr, **engine);
    // Strict determinism: made and run for one thread where the
    // implementation would split K between threads.
    bool serial = ThreadInvariantKernels::active() &&
                  splitsReductions(pd.impl_info_str());
    OneThreadScope oneThread(serial);
    if (serial)
      pd = dnnl::matmul::primitive_desc(desc, attr, **engine);

    // A strided operand view where oneDNN would run its reference kernel
    // (strides its brgemm and gemm kernels do not take): Unimplemented, so
    // that the planner materializes the operand instead.
    bool views = d.lhsView || d.rhsView;
    if (views && std::string_view(pd.impl_info_str()).starts_with("ref"))
      return absl::UnimplementedError(
          absl::StrCat("no fast oneDNN matmul for these operand strides (",
                       pd.impl_info_str(), ")"));

    PrimitiveKernelSpec spec;
    spec.name = "onednn.matmul";
    if (views)
      spec.name += "[strided]";
    if (d.bf16)
      spec.name += "[bf16]";
    if (d.int8)
      spec.name += "[int8]";
    if (serial)
      spec.name += "[1 thread]";
    spec.serial = serial;
    if (quantized) // the scales come from the f32 rhs
      spec.readAtRemake.push_back(1);
    spec.int32Arguments = zeroPoints;
    spec.primitive = dnnl::matmul(pd);
    spec.work = numElements(d.resultShape) * std::max<int64_t>(g.k, 1);
    // oneDNN 2.6's gemm:jit (the f32 matmul without brgemm: AVX2) reads
    // weights that start on a 64-byte boundary with its no-copy kernel,
    // 1.6-1.9x slower than packing them (128x768x3072: 5.6 vs 2.9 ms;
    // 64x1024x1024: 0.99 vs 0.59 ms, 2 threads, DNNL_MAX_CPU_ISA=AVX2;
    // the MLP b64 2.05 -> 1.19 ms, the transformer b1 23.9 -> 18.8 ms):
    // prepacked weights start kGemmWeightOffset bytes past one. (Its int8
    // kernels run the same either way.)
    bool gemm = std::string_view(pd.impl_info_str()).starts_with("gemm:");
    size_t weightOffset =
        gemm && d.constantRhs && !d.bf16 && !d.int8 ? kGemmWeightOffset : 0;
    if (absl::Status status = bindContraction(
            spec, src, weiPlain, wei, pd.weights_desc(),
            quantized ? &quantized->values : d.constantRhs, bias,
            d.biasShape.has_value(), dst, d.postOps, fused, operandDesc,
            (d.bf16 || d.int8) && !quantizedInput ? srcHeld
                                                  : dnnl::memory::desc(),
            d.bf16 && !d.constantRhs ? weiPlain : dnnl::memory::desc(),
            d.int8 ? 1.0f / d.int8->inputScale : 1.0f,
            d.int8 ? d.int8->zeroPoint : 0, weightOffset, d.constantRhs);
        !status.ok())
      return status;
    size_t size = dtypeSize(d.dtype);
    for (Binding &b : spec.bindings) {
      if (b.arg == DNNL_ARG_SRC && d.lhsView) {
        b.offsetBytes = g.lhsOffset * static_cast<int64_t>(size);
        b.minBytes = g.lhsSpan * static_cast<int64_t>(size);
      } else if (b.arg == DNNL_ARG_WEIGHTS && d.rhsView) {
        b.offsetBytes = g.rhsOffset * static_cast<int64_t>(size);
        b.minBytes = g.rhsSpan * static_cast<int64_t>(size);
      }
    }
    scaleBiasBinding(spec, biasScales, static_cast<int>(R) - 1, d.constantBias);
    return makePrimitiveKernel(std::move(spec));
  } catch (const dnnl::error &error) {
    return unimplementedFrom(error, "matmul");
  }
}

//===----------------------------------------------------------------------===//
// Blocked activation layouts
//===----------------------------------------------------------------------===//

/// `desc` with elements of `type` (the same dims, layout and element
/// strides).
dnnl::memory::desc withType(const dnnl::memory::desc &desc, dt type) {
  dnnl_memory_desc_t md = desc.data;
  md.data_type = static_cast<dnnl_data_type_t>(type);
  return dnnl::memory::desc(md);
}

dnnl::memory::desc descOf(const ActivationLayout &layout) {
  return dnnl::memory::desc(
      *static_cast<const dnnl_memory_desc_t *>(layout.desc.get()));
}

/// oneDNN's tag spelling of a 4-D activation descriptor (logical dims
/// n, c, h, w): outer dims by decreasing stride, blocked ones upper case,
/// then the inner blocks, e.g. "nChw16c", "nhwc".
std::string layoutName(const dnnl::memory::desc &md) {
  const dnnl_memory_desc_t &d = md.data;
  if (d.format_kind != dnnl_blocked || d.ndims != 4)
    return "opaque";
  const char *letters = "nchw";
  const dnnl_blocking_desc_t &b = d.format_desc.blocking;
  bool blocked[4] = {false, false, false, false};
  for (int k = 0; k < b.inner_nblks; ++k)
    blocked[b.inner_idxs[k]] = true;
  int order[4] = {0, 1, 2, 3};
  std::stable_sort(order, order + 4,
                   [&](int x, int y) { return b.strides[x] > b.strides[y]; });
  std::string name;
  for (int i : order)
    name += blocked[i] ? static_cast<char>(letters[i] - 'a' + 'A') : letters[i];
  for (int k = 0; k < b.inner_nblks; ++k)
    absl::StrAppend(&name, b.inner_blks[k],
                    std::string(1, letters[b.inner_idxs[k]]));
  return name;
}

ActivationLayout layoutOf(const dnnl::memory::desc &md) {
  ActivationLayout layout;
  layout.desc = std::make_shared<dnnl_memory_desc_t>(md.data);
  layout.bytes = static_cast<int64_t>(md.get_size());
  layout.name = layoutName(md);
  return layout;
}

/// An NHWC-shaped tensor (logical n, c, h, w for oneDNN) in `format`.
dnnl::memory::desc logicalDesc(const Shape &nhwcShape, dt type, tag format) {
  return dnnl::memory::desc(
      {nhwcShape[0], nhwcShape[3], nhwcShape[1], nhwcShape[2]}, type, format);
}

/// Plain NHWC (logical n, c, h, w) of an NHWC-shaped tensor.
dnnl::memory::desc nhwcDesc(const Shape &nhwcShape, dt type) {
  return logicalDesc(nhwcShape, type, tag::nhwc);
}

/// Whether a primitive runs oneDNN's reference implementation (far slower
/// than the plain NHWC path the caller falls back to).
bool isReferenceImpl(const char *implInfo) {
  return std::string(implInfo).find("ref") != std::string::npos;
}

/// The blocked activation format of this ISA (CpuIsa::channelBlock):
/// nChw16c with AVX-512, nChw8c with AVX2; nullopt without one.
std::optional<tag> blockedTag() {
  switch (cpuIsa().channelBlock) {
  case 16:
    return tag::nChw16c;
  case 8:
    return tag::nChw8c;
  default:
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

struct ConvGeometry {
  int64_t n, c, h, w, o, ci, kh, kw, oh, ow;
};

int64_t windowOutput(int64_t size, int64_t kernel, int64_t stride,
                     int64_t padBegin, int64_t padEnd, int64_t dilation,
                     bool ceilMode) {
  int64_t padded = size + padBegin + padEnd;
  int64_t window = dilation * (kernel - 1) + 1;
  if (padded < window)
    return -1;
  int64_t span = padded - window;
  int64_t out = ceilMode ? (span + stride - 1) / stride + 1 : span / stride + 1;
  if (ceilMode && (out - 1) * stride >= size + padBegin)
    --out;
  return out;
}

absl::StatusOr<ConvGeometry> convGeometry(const Conv2DDesc &d) {
  for (const Shape *s : {&d.inputShape, &d.filterShape, &d.resultShape})
    if (absl::Status st = checkShape(*s, "conv2d operand"); !st.ok())
      return st;
  if (d.inputShape.size() != 4 || d.filterShape.size() != 4 ||
      d.resultShape.size() != 4)
    return absl::InvalidArgumentError("conv2d operands must have rank 4");
  if (d.filterOIHW && !d.nhwc)
    return absl::InvalidArgumentError(
        "an OIHW-ordered filter is for NHWC convolutions");
  const Shape &x = d.inputShape, &f = d.filterShape;
  ConvGeometry g;
  g.n = x[0];
  g.c = d.nhwc ? x[3] : x[1];
  g.h = d.nhwc ? x[1] : x[2];
  g.w = d.nhwc ? x[2] : x[3];
  g.o = d.nhwc ? f[3] : f[0];
  g.ci = d.nhwc ? f[2] : f[1];
  g.kh = d.nhwc ? f[0] : f[2];
  g.kw = d.nhwc ? f[1] : f[3];
  if (d.groups < 1 || g.c % d.groups || g.o % d.groups ||
      g.ci != g.c / d.groups || g.kh < 1 || g.kw < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("conv2d filter ", shapeString(f), " does not match input ",
                     shapeString(x), " with ", d.groups, " groups"));
  for (int i = 0; i < 2; ++i)
    if (d.strides[i] < 1 || d.dilations[i] < 1)
      return absl::InvalidArgumentError(
          "conv2d strides/dilations must be >= 1");
  for (int64_t p : d.padding)
    if (p < 0)
      return absl::InvalidArgumentError("conv2d padding must be >= 0");
  g.oh = windowOutput(g.h, g.kh, d.strides[0], d.padding[0], d.padding[2],
                      d.dilations[0], false);
  g.ow = windowOutput(g.w, g.kw, d.strides[1], d.padding[1], d.padding[3],
                      d.dilations[1], false);
  Shape expected =
      d.nhwc ? Shape{g.n, g.oh, g.ow, g.o} : Shape{g.n, g.o, g.oh, g.ow};
  if (g.oh < 0 || g.ow < 0 || expected != d.resultShape)
    return absl::InvalidArgumentError(
        absl::StrCat("conv2d result ", shapeString(d.resultShape),
                     " does not match the computed ", shapeString(expected)));
  if (d.biasShape && *d.biasShape != Shape{g.o})
    return absl::InvalidArgumentError("conv2d bias must have shape [O]");
  return g;
}

/// Whether the constant filter has the filter's dtype and shape; an
/// OIHW-ordered one (filterOIHW) may also have its OIHW shape (a saved
/// plan's constant does).
bool constantFilterFits(const Conv2DDesc &d) {
  const HostTensor &c = *d.constantFilter;
  if (c.dtype() != d.dtype)
    return false;
  if (c.shape() == d.filterShape)
    return true;
  const Shape &f = d.filterShape;
  return d.filterOIHW && f.size() == 4 &&
         c.shape() == Shape{f[3], f[2], f[0], f[1]};
}

/// Element strides of the filter's (o, i, h, w) dims as it is stored: HWIO
/// for an NHWC convolution (unless `filterOIHW`), else OIHW; `i` counts the
/// input channels of a group.
Shape filterStrides(const Conv2DDesc &d, const ConvGeometry &g) {
  if (d.nhwc && !d.filterOIHW)
    return {1, g.o, g.kw * g.ci * g.o, g.ci * g.o};
  return {g.ci * g.kh * g.kw, g.kh * g.kw, g.kw, 1};
}

template <typename T>
void nativeConv(const Conv2DDesc &d, const ConvGeometry &g, const void *input,
                const void *filter, const void *bias, void *result,
                int numThreads) {
  using S = typename T::S;
  using C = typename T::C;
  const S *x = static_cast<const S *>(input);
  const S *f = static_cast<const S *>(filter);
  const S *b = static_cast<const S *>(bias);
  S *out = static_cast<S *>(result);
  // Element strides of input (n, c, h, w), filter (o, i, h, w), result.
  Shape xs = d.nhwc ? Shape{g.h * g.w * g.c, 1, g.w * g.c, g.c}
                    : Shape{g.c * g.h * g.w, g.h * g.w, g.w, 1};
  Shape fs = filterStrides(d, g);
  Shape os = d.nhwc ? Shape{g.oh * g.ow * g.o, 1, g.ow * g.o, g.o}
                    : Shape{g.o * g.oh * g.ow, g.oh * g.ow, g.ow, 1};
  int64_t og = g.o / d.groups;
  parallelRange(numThreads, g.n * g.o, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t plane = lo; plane < hi; ++plane) {
      int64_t n = plane / g.o, oc = plane % g.o, grp = oc / og;
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t z = 0; z < g.ow; ++z) {
          // The bias is part of the sum, rounded once with it (as the
          // reference and oneDNN do): a bf16 or f16 result rounded before
          // its bias was added differed by an ulp, which a following
          // normalization amplified (found by tgc-smith under AVX2).
          C acc = b ? T::load(b[oc]) : C(0);
          for (int64_t i = 0; i < g.ci; ++i) {
            int64_t c = grp * g.ci + i;
            for (int64_t r = 0; r < g.kh; ++r) {
              int64_t ih = y * d.strides[0] - d.padding[0] + r * d.dilations[0];
              if (ih < 0 || ih >= g.h)
                continue;
              for (int64_t s = 0; s < g.kw; ++s) {
                int64_t iw =
                    z * d.strides[1] - d.padding[1] + s * d.dilations[1];
                if (iw < 0 || iw >= g.w)
                  continue;
                acc +=
                    T::load(
                        x[n * xs[0] + c * xs[1] + ih * xs[2] + iw * xs[3]]) *
                    T::load(f[oc * fs[0] + i * fs[1] + r * fs[2] + s * fs[3]]);
              }
            }
          }
          out[n * os[0] + oc * os[1] + y * os[2] + z * os[3]] = T::store(acc);
        }
      }
    }
  });
}

/// The oneDNN descriptor (logical NCHW dims) of a post-op operand given in
/// the tgc layout of a rank-4 result.
dnnl::memory::desc convOperandDesc(const Shape &operandShape, bool nhwc,
                                   dt type) {
  Shape s = padRank(operandShape, 4);
  Shape st = rowMajorStrides(s);
  if (!nhwc)
    return stridedDesc(s, st, type);
  return stridedDesc({s[0], s[3], s[1], s[2]}, {st[0], st[3], st[1], st[2]},
                     type);
}

/// The oneDNN convolution of `d` with its first `fused` post-ops in the
/// primitive. With `layouts` (NHWC only; all post-ops fused), activations
/// may be blocked and the result layout is reported in `resultLayout`.
absl::StatusOr<KernelPtr> tryOneDnnConv(const Conv2DDesc &given,
                                        const ConvGeometry &g, size_t fused,
                                        const ConvLayouts *layouts = nullptr,
                                        LayoutKernel *chosen = nullptr) {
  auto engine = cpuEngine();
  if (!engine.ok())
    return engine.status();
  std::optional<QuantizedWeights> quantized;
  if (given.int8) {
    int64_t O = g.o, perChannel = g.ci * g.kh * g.kw;
    bool outputInnermost = given.nhwc && !given.filterOIHW;
    int64_t taps = g.kh * g.kw, ci = g.ci;
    auto q = quantizePerChannel(
        *given.constantFilter, *given.int8, O,
        [&](int64_t i) {
          return outputInnermost ? i % O : i / std::max<int64_t>(perChannel, 1);
        },
        [&](int64_t i) {
          // HWIO: ((y * kw + x) * ci + c) * O + o; OIHW: ((o * ci + c) *
          // kh + y) * kw + x.
          return outputInnermost ? ReductionIndex{(i / O) % ci, O, ci}
                                 : ReductionIndex{(i / taps) % ci, taps, ci};
        });
    if (!q.ok())
      return q.status();
    quantized = *std::move(q);
  }
  Conv2DDesc storage;
  std::vector<float> biasScales;
  const Conv2DDesc &d = placeInt8Bias(
      given, quantized, given.nhwc ? Shape{1, 1, 1, g.o} : Shape{1, g.o, 1, 1},
      fused, storage, biasScales);
  dt type = *toDnnl(d.dtype);
  // The type the products are taken in (bf16: converted operands, and
  // bf16 activations where the layouts are open; int8: the input quantized
  // on each run, the filter per output channel).
  dt mul = d.bf16 ? dt::bf16 : d.int8 ? int8InputType(*d.int8) : type;
  try {
    tag act = d.nhwc ? tag::nhwc : tag::nchw;
    dnnl::memory::desc src({g.n, g.c, g.h, g.w}, type, act);
    dnnl::memory::desc dst({g.n, g.o, g.oh, g.ow}, type, act);
    dnnl::memory::desc plainSrc = src, plainDst = dst;
    // An int8 chain: the input quantized by its producer, the result
    // quantized for its consumer.
    if (d.int8 && d.int8->quantizedInput)
      src = dnnl::memory::desc({g.n, g.c, g.h, g.w}, mul, act);
    if (d.int8Output)
      dst = dnnl::memory::desc({g.n, g.o, g.oh, g.ow},
                               int8InputType(*d.int8Output), act);
    if (layouts) {
      tag preferred =
          layouts->blockTag && blockedTag() ? *blockedTag() : tag::any;
      if (layouts->input)
        src = descOf(*layouts->input);
      else if (layouts->anyInput)
        src = dnnl::memory::desc({g.n, g.c, g.h, g.w}, mul, tag::any);
      dst = layouts->result
                ? descOf(*layouts->result)
                : dnnl::memory::desc({g.n, g.o, g.oh, g.ow}, mul, preferred);
    }
    // What input 0 holds when the primitive reads it converted to bf16.
    dnnl::memory::desc srcHeld;
    if ((d.bf16 || d.int8) && src.data_type() != mul) {
      srcHeld = src;
      src = withType(src, mul);
    }
    Shape wdims, wstrides = filterStrides(d, g);
    if (d.groups == 1) {
      wdims = {g.o, g.ci, g.kh, g.kw};
    } else {
      // (group, o within it, i, h, w): a group is `og` output channels.
      int64_t og = g.o / d.groups;
      wdims = {d.groups, og, g.ci, g.kh, g.kw};
      wstrides.insert(wstrides.begin(), og * wstrides[0]);
    }
    dnnl::memory::desc weiPlain =
        stridedDesc(wdims, wstrides, quantized ? dt::s8 : type);
    dnnl::memory::desc wei =
        d.constantFilter
            ? dnnl::memory::desc(Dims(wdims.begin(), wdims.end()),
                                 quantized ? dt::s8 : mul, tag::any)
            : (d.bf16 ? plainDesc(wdims, mul) : weiPlain);
    dnnl::memory::desc bias;
    if (d.biasShape)
      bias = dnnl::memory::desc({g.o}, type, tag::a);
    auto operandDesc = [&](size_t i) {
      if (layouts && i < layouts->postOpOperands.size() &&
          layouts->postOpOperands[i])
        return descOf(*layouts->postOpOperands[i]);
      return convOperandDesc(d.postOps[i].operandShape, d.nhwc, type);
    };
    // An int8 convolution adds a residual (a full-shape add operand) as a
    // `sum` post-op placed first, over the residual in place: oneDNN 2.6
    // runs that on its brgemm kernel; with the residual as a binary
    // post-op it takes the older jit_int8_1x1 one, ~1.6-3x slower
    // (docs/precision.md).
    // A quantized residual (sumQuantization) accumulates the same way in
    // the 8-bit destination, with its scale and zero point.
    std::optional<size_t> sumIndex;
    const std::optional<Int8Quantization> &sumQ = d.sumQuantization;
    if (d.int8 && !layouts && fused == d.postOps.size() &&
        ((!d.int8Output && !sumQ && dst == plainDst) || (d.int8Output && sumQ)))
      for (size_t i = 0; i < d.postOps.size(); ++i)
        if (d.postOps[i].kind == PostOp::Kind::Add &&
            padRank(d.postOps[i].operandShape, 4) == d.resultShape) {
          sumIndex = i;
          break;
        }
    if (sumQ && !sumIndex)
      return absl::UnimplementedError(
          "a quantized residual needs a sum post-op of a fused int8 "
          "convolution with a quantized result");
    // The post-ops of the primitive's chain after the sum, and which of
    // d.postOps each is.
    std::vector<PostOp> chain;
    std::vector<size_t> chainOrigin;
    for (size_t i = 0; i < d.postOps.size(); ++i)
      if (i != sumIndex) {
        chain.push_back(d.postOps[i]);
        chainOrigin.push_back(i);
      }
    dnnl::post_ops ops;
    if (sumIndex) {
      if (sumQ)
        ops.append_sum(sumQ->inputScale,
                       sumQ->unsignedInput ? sumQ->zeroPoint : 0,
                       int8InputType(*sumQ));
      else
        ops.append_sum(1.0f);
      buildPostOps(
          chain, chain.size(),
          [&](size_t j) { return operandDesc(chainOrigin[j]); }, ops);
    } else {
      buildPostOps(d.postOps, fused, operandDesc, ops);
    }
    if (absl::Status s =
            appendRequantization(ops, d.int8Output, fused, d.postOps.size());
        !s.ok())
      return s;
    dnnl::primitive_attr attr = makeAttr();
    attr.set_post_ops(ops);
    if (quantized) // per output channel
      setDequantization(attr, *quantized, d.int8->inputScale, 1 << 1);
    auto zeroPoints = setZeroPoints(attr, d.int8, d.int8Output);
    auto primitiveDesc = [&](dnnl::algorithm algorithm,
                             const dnnl::primitive_attr &with) {
      dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, algorithm, src, wei, bias, dst,
          {d.strides[0], d.strides[1]},
          {d.dilations[0] - 1, d.dilations[1] - 1},
          {d.padding[0], d.padding[1]}, {d.padding[2], d.padding[3]});
      return dnnl::convolution_forward::primitive_desc(desc, with, **engine);
    };
    // Winograd where asked for and oneDNN has a kernel for these layouts
    // and post-ops (it throws otherwise): the direct algorithm then.
    std::optional<dnnl::convolution_forward::primitive_desc> winograd;
    dnnl::primitive_attr winogradAttr;
    // Not under ThreadInvariantKernels: oneDNN 2.6's Winograd kernels pick
    // their schedule and blocking from the thread count, while the direct
    // kernel partitions only outputs (and stays multi-threaded).
    if (layouts && layouts->winograd && cpuIsa().winograd && !d.bf16 &&
        !d.int8 && winogradCandidate(d) && !ThreadInvariantKernels::active()) {
      try {
        // oneDNN's Winograd kernels take a ReLU only as eltwise_relu (not
        // as the clip every other kernel gets): there a negative sum
        // becomes -0 rather than +0 (eltwiseAlgorithm).
        dnnl::post_ops reluOps;
        buildPostOps(d.postOps, fused, operandDesc, reluOps,
                     /*reluAsMax=*/true);
        winogradAttr = makeAttr();
        winogradAttr.set_post_ops(reluOps);
        winograd =
            primitiveDesc(dnnl::algorithm::convolution_winograd, winogradAttr);
        // A transformed filter larger than the last-level cache streams
        // from memory on every call: ResNet-50's 512-channel 7x7 layers at
        // batch 4 (jit_wino_4x3, 37.7 MB) ran 3.1 ms against the direct
        // kernel's 1.9-2.2 ms. At batch 1 (jit_fp32_wino_2x3, 16.8 MB) they
        // win.
        if (isReferenceImpl(winograd->impl_info_str()) ||
            static_cast<int64_t>(winograd->weights_desc().get_size()) >
                lastLevelCacheBytes())
          winograd.reset();
      } catch (const dnnl::error &) {
      }
    }
    dnnl::convolution_forward::primitive_desc pd =
        winograd ? *winograd
                 : primitiveDesc(dnnl::algorithm::convolution_direct, attr);
    // Strict determinism: made and run for one thread where the
    // implementation would split a reduction between threads.
    bool serial = ThreadInvariantKernels::active() &&
                  splitsReductions(pd.impl_info_str());
    OneThreadScope oneThread(serial);
    if (serial)
      pd = winograd ? primitiveDesc(dnnl::algorithm::convolution_winograd,
                                    winogradAttr)
                    : primitiveDesc(dnnl::algorithm::convolution_direct, attr);
    if (layouts) {
      if (isReferenceImpl(pd.impl_info_str()))
        return absl::UnimplementedError(
            "blocked-layout convolution runs only on oneDNN's reference path");
      src = pd.src_desc();
      dst = pd.dst_desc();
      chosen->inputLayout = std::nullopt;
      chosen->resultLayout = std::nullopt;
      chosen->winograd = winograd.has_value();
      if (!layouts->input && src != plainSrc)
        chosen->inputLayout = layoutOf(src);
      if (dst != plainDst)
        chosen->resultLayout = layoutOf(dst);
    }
    // oneDNN 2.6's gemm-based convolution reads a binary post-op operand
    // that is not broadcast over the spatial dims at the wrong offsets for
    // NHWC results: such post-ops run natively after it instead.
    if (d.nhwc && dst == plainDst &&
        std::string(pd.impl_info_str()).find("gemm") != std::string::npos)
      for (size_t i = 0; i < fused; ++i)
        if (d.postOps[i].kind != PostOp::Kind::Eltwise &&
            numElements(d.postOps[i].operandShape) > g.o)
          return absl::UnimplementedError(
              "gemm convolution with a spatial NHWC binary post-op");

    PrimitiveKernelSpec spec;
    spec.name = winograd                ? "onednn.conv2d.winograd"
                : !d.kernelName.empty() ? d.kernelName
                                        : "onednn.conv2d";
    if (d.bf16)
      spec.name += "[bf16]";
    if (d.int8)
      spec.name += "[int8]";
    if (serial)
      spec.name += "[1 thread]";
    if (!d.kernelName.empty())
      spec.name += "[1x1 conv]";
    spec.serial = serial;
    if (quantized) // the scales come from the f32 filter
      spec.readAtRemake.push_back(1);
    spec.int32Arguments = zeroPoints;
    spec.primitive = dnnl::convolution_forward(pd);
    spec.work = g.n * g.o * g.oh * g.ow * g.ci * g.kh * g.kw;
    if (absl::Status status = bindContraction(
            spec, src, weiPlain, wei, pd.weights_desc(),
            quantized ? &quantized->values : d.constantFilter, bias,
            d.biasShape.has_value(), dst,
            sumIndex ? std::vector<PostOp>() : d.postOps, sumIndex ? 0 : fused,
            operandDesc, srcHeld,
            d.bf16 && !d.constantFilter ? weiPlain : dnnl::memory::desc(),
            d.int8 ? 1.0f / d.int8->inputScale : 1.0f,
            d.int8 && !d.int8->quantizedInput ? d.int8->zeroPoint : 0, 0,
            d.constantFilter);
        !status.ok())
      return status;
    if (sumIndex) {
      // The chain's binary operands at their places after the sum, read
      // from the kernel inputs d.postOps gave them.
      std::vector<int> inputs =
          postOpInputIndices(d.postOps, d.biasShape ? 3 : 2);
      spec.postOps = chain;
      spec.postOpInputs.clear();
      for (size_t j = 0; j < chain.size(); ++j) {
        int input = inputs[chainOrigin[j]];
        spec.postOpInputs.push_back(input);
        if (chain[j].kind != PostOp::Kind::Eltwise)
          spec.bindings.push_back(
              {DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(j + 1)) |
                   DNNL_ARG_SRC_1,
               input, operandDesc(chainOrigin[j])});
      }
      spec.firstNativePostOp = chain.size();
      spec.sumInput = inputs[*sumIndex];
      spec.inPlaceInput = spec.sumInput;
      if (sumQ)
        spec.sumBytes = numElements(d.resultShape);
    }
    scaleBiasBinding(spec, biasScales, 0, d.constantBias);
    return makePrimitiveKernel(std::move(spec));
  } catch (const dnnl::error &error) {
    return unimplementedFrom(error, "convolution");
  }
}

absl::StatusOr<KernelPtr> createNativeConv(const Conv2DDesc &d,
                                           const ConvGeometry &g) {
  // The bias (input 2) is summed by the kernel itself; post-ops follow.
  std::vector<PostOp> all;
  std::vector<int> inputs;
  prependBias(d.postOps, std::nullopt, 2, d.biasShape ? 3 : 2, all, inputs);
  bool hasBias = d.biasShape.has_value();
  std::shared_ptr<HostTensor> constant;
  if (d.constantFilter)
    constant = std::make_shared<HostTensor>(d.constantFilter->clone());
  Conv2DDesc desc = d;
  desc.constantFilter = nullptr;
  desc.postOps.clear();
  return makeNativeWithPostOps(
      "native.conv2d", all, inputs,
      [desc, g, constant, hasBias](const KernelContext &context,
                                   const std::vector<HostTensor> &in,
                                   HostTensor &out) {
        const void *filter = constant ? constant->data() : in[1].data();
        const void *bias = hasBias ? in[2].data() : nullptr;
        dispatchDType(desc.dtype, [&](auto t) {
          nativeConv<decltype(t)>(desc, g, in[0].data(), filter, bias,
                                  out.data(), context.numThreads);
        });
      });
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

struct PoolGeometry {
  int64_t n, c, h, w, oh, ow;
  int64_t kernel[2], strides[2], padding[4], dilations[2];
  bool isMax, includePad;
};

template <typename T>
void nativePool(const PoolGeometry &g, bool nhwc, const void *input,
                void *result, int numThreads) {
  using S = typename T::S;
  using C =
      std::conditional_t<std::is_same_v<typename T::C, double>, double, float>;
  const S *x = static_cast<const S *>(input);
  S *out = static_cast<S *>(result);
  Shape xs = nhwc ? Shape{g.h * g.w * g.c, 1, g.w * g.c, g.c}
                  : Shape{g.c * g.h * g.w, g.h * g.w, g.w, 1};
  Shape os = nhwc ? Shape{g.oh * g.ow * g.c, 1, g.ow * g.c, g.c}
                  : Shape{g.c * g.oh * g.ow, g.oh * g.ow, g.ow, 1};
  int64_t kh = g.kernel[0], kw = g.kernel[1], sh = g.strides[0],
          sw = g.strides[1], dh = g.dilations[0], dw = g.dilations[1],
          pt = g.padding[0], pl = g.padding[1], pb = g.padding[2],
          pr = g.padding[3];
  parallelRange(numThreads, g.n * g.c * g.oh, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t job = lo; job < hi; ++job) {
      int64_t y = job % g.oh, nc = job / g.oh, n = nc / g.c, c = nc % g.c;
      const S *plane = x + n * xs[0] + c * xs[1];
      for (int64_t z = 0; z < g.ow; ++z) {
        int64_t h0 = y * sh - pt, w0 = z * sw - pl;
        C best = -std::numeric_limits<C>::infinity(), sum = 0;
        bool nan = false;
        int64_t real = 0, padRows = 0, padCols = 0;
        for (int64_t r = 0; r < kh; ++r) {
          int64_t ih = h0 + r * dh;
          padRows += ih >= -pt && ih < g.h + pb;
          if (ih < 0 || ih >= g.h)
            continue;
          for (int64_t s = 0; s < kw; ++s) {
            int64_t iw = w0 + s * dw;
            if (iw < 0 || iw >= g.w)
              continue;
            C v = static_cast<C>(T::load(plane[ih * xs[2] + iw * xs[3]]));
            nan |= std::isnan(v);
            best = v > best ? v : best;
            sum += v;
            ++real;
          }
        }
        C value;
        if (g.isMax) {
          value = nan ? std::numeric_limits<C>::quiet_NaN() : best;
        } else {
          for (int64_t s = 0; s < kw; ++s) {
            int64_t iw = w0 + s * dw;
            padCols += iw >= -pl && iw < g.w + pr;
          }
          int64_t divisor = g.includePad ? padRows * padCols : real;
          value = sum / static_cast<C>(divisor);
        }
        out[n * os[0] + c * os[1] + y * os[2] + z * os[3]] = T::store(value);
      }
    }
  });
}

} // namespace

namespace {
/// Whether `s` is 1 in every dim but (possibly) the last.
bool onlyLastDim(const Shape &s) {
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] != 1)
      return false;
  return true;
}

/// lhs [B..., M, K] x rhs [K, N] is one [B*M, K] x [K, N] GEMM over the same
/// memory (row-major, contiguous): a batch of B small GEMMs sharing the rhs
/// is far slower (e.g. [128, 1, 768] x [768, 2304] as 128 GEMVs). Batch
/// dims of 1 are dropped too: oneDNN 2.6 prepacks a constant 2-D rhs into
/// its blocked GEMM layout but keeps a rank-3 one plain (abc), 15-20% slower
/// on a transformer's [1, 128, 768] x [768, 3072]. Returns the
/// flattened description, or nullopt where it does not apply (rhs batched,
/// lhs transposed, bias or binary post-op operands broadcast over the batch
/// in other ways than along the last dim).
std::optional<MatmulDesc> flattenSharedRhs(const MatmulDesc &d) {
  size_t ra = d.lhsShape.size(), rr = d.resultShape.size();
  if (ra <= 2 || d.transposeA || rr != ra ||
      !onlyLastDim(Shape(d.rhsShape.begin(), d.rhsShape.end() - 1)))
    return std::nullopt;
  if (d.rhsShape.size() > 2 && d.constantRhs)
    return std::nullopt; // The prepacked constant keeps its shape.
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < ra; ++i)
    rows *= d.lhsShape[i];
  int64_t n = d.resultShape[rr - 1];
  MatmulDesc flat = d;
  flat.lhsShape = {rows, d.lhsShape[ra - 1]};
  flat.rhsShape = {d.rhsShape[d.rhsShape.size() - 2], d.rhsShape.back()};
  flat.resultShape = {rows, n};
  auto flatten = [&](const Shape &s) -> std::optional<Shape> {
    if (onlyLastDim(s))
      return Shape{1, s.empty() ? 1 : s.back()};
    if (s == d.resultShape)
      return Shape{rows, n};
    return std::nullopt;
  };
  if (d.biasShape) {
    auto bias = flatten(*d.biasShape);
    if (!bias)
      return std::nullopt;
    flat.biasShape = *bias;
  }
  for (PostOp &op : flat.postOps) {
    if (op.kind == PostOp::Kind::Eltwise)
      continue;
    auto operand = flatten(op.operandShape);
    if (!operand)
      return std::nullopt;
    op.operandShape = *operand;
  }
  return flat;
}
} // namespace

namespace {
bool hasPadding(const Conv2DDesc &d) {
  return d.padding[0] || d.padding[1] || d.padding[2] || d.padding[3];
}

/// A contraction kernel `fast` whose first `fused` post-ops run inside its
/// oneDNN primitive, made NaN-exact: oneDNN's relu, clip and exp post-ops
/// drop NaN (eltwisePropagatesNaN), so where one of them is fused, inputs
/// holding NaN or an infinity (which a contraction turns into NaN) run on
/// a kernel that fuses only the post-ops before it, and applies the rest
/// natively. `withFused(desc, k)` makes that kernel; it is made on first
/// need, reading a constant operand as its plain input (the executable
/// still passes it). A constant holding NaN or infinities takes it
/// always. Overflow inside the contraction itself is not caught.
template <typename Desc, typename WithFused>
absl::StatusOr<KernelPtr>
guardNaNDroppingPostOps(KernelPtr fast, const Desc &desc, size_t fused,
                        const HostTensor *constant, WithFused withFused) {
  size_t first = 0;
  while (first < fused && (desc.postOps[first].kind != PostOp::Kind::Eltwise ||
                           eltwisePropagatesNaN(desc.postOps[first].eltwise)))
    ++first;
  if (first == fused)
    return fast;
  int inputs = 2 + (desc.biasShape ? 1 : 0);
  for (const PostOp &p : desc.postOps)
    inputs += p.kind != PostOp::Kind::Eltwise;
  std::vector<int> scanned;
  for (int i = 0; i < inputs; ++i)
    if (i != 1 || !constant)
      scanned.push_back(i);
  Desc exactDesc = desc;
  exactDesc.postOps = desc.postOps;
  auto makeExact = [exactDesc, first, withFused]() mutable {
    return withFused(exactDesc, first);
  };
  if (constant && detail::constantHasSpecialValues(*constant))
    return makeExact();
  // The exact kernel reads the weights as its input 1: from `fast`'s packed
  // copy where it holds one, so that the plan need not keep the constant's
  // bytes as well (an MLP's weights, otherwise held twice).
  int unpacked =
      constant && fast->canUnpackConstant(1, constant->byteSize()) ? 1 : -1;
  return makeNaNGuardedKernel(std::move(fast), std::move(makeExact),
                              std::move(scanned), NaNGuardScan::NonFinite,
                              unpacked);
}
} // namespace

namespace {
/// bf16 multiplication (MatmulDesc::bf16, Conv2DDesc::bf16): of f32
/// operands, on a CPU with native bf16 kernels.
absl::Status checkBf16(bool bf16, DType dtype, std::string_view what) {
  if (!bf16)
    return absl::OkStatus();
  if (dtype != DType::F32)
    return absl::InvalidArgumentError(
        absl::StrCat("a ", std::string(what),
                     " multiplies in bf16 only with f32 operands, not ",
                     std::string(dtypeName(dtype))));
  if (!cpuIsa().bf16)
    return absl::UnimplementedError(absl::StrCat(
        "a bf16 ", std::string(what),
        " needs AVX512_BF16 or AMX; this CPU runs ", cpuIsa().name));
  return absl::OkStatus();
}
} // namespace

/// A contraction's reduced-precision fields (bf16, int8, int8Output), for
/// a "matmul" or "conv2d" (`asInt8`: how an int8 one is named).
template <typename Desc>
absl::Status checkPrecision(const Desc &desc, const HostTensor *constantWeights,
                            std::string_view what, std::string_view asInt8) {
  if (absl::Status s = checkNativeDType(desc.dtype, what); !s.ok())
    return s;
  if (absl::Status s = checkBf16(desc.bf16, desc.dtype, what); !s.ok())
    return s;
  if (absl::Status s =
          checkInt8(desc.int8, desc.bf16, desc.dtype, constantWeights, what);
      !s.ok())
    return s;
  return checkInt8Output(desc.int8Output, desc.int8.has_value(), what, asInt8);
}

/// A matmul of rows by constant weights as the 1x1 convolution it is (the
/// rows as pixels, NHWC; the weights as an HWIO or, transposed, OIHW
/// filter), on ISAs where oneDNN 2.6's convolution kernels beat its matmul:
/// with AVX2 but not AVX-512, gemm:jit's f32 and int8 kernels against
/// jit_1x1:avx2 and jit_uni_int8_1x1:avx2, 2 threads (Zen 5 under
/// DNNL_MAX_CPU_ISA=AVX2; rows x K x N, us):
///
///   | shape             | f32 matmul | f32 conv | int8 matmul | int8 conv |
///   | 64 x 784 x 1024   |        431 |      399 |         244 |       201 |
///   | 64 x 1024 x 1024  |        563 |      527 |         308 |       263 |
///   | 128 x 768 x 3072  |       2616 |     2378 |        1283 |      1175 |
///   | 1024 x 3072 x 768 |      20012 |    19691 |        9934 |      9569 |
///   | 8 x 2048 x 1000   |        313 |      141 |          96 |        66 |
///   | 1 x 2048 x 1000   |         54 |       95 |          36 |        10 |
///
/// so f32 takes it from 8 rows, int8 (u8 inputs) always.
///
/// With AVX-512, brgemm matmuls match the brgemm convolutions
/// (brgconv_1x1:avx512_core) on the transformer's and the MLP's wide
/// products, but not on narrow or single-row ones, f32, 2 threads (Zen 4,
/// AMD EPYC family 25 model 17; us):
///
///   | shape             | f32 matmul | f32 conv |
///   | 64 x 1024 x 10    |       24.5 |     11.7 |
///   | 64 x 1024 x 16    |       22.8 |     10.3 |
///   | 64 x 1024 x 32    |       21.9 |     19.4 |
///   | 64 x 1024 x 64    |       37.2 |     37.0 |
///   | 1 x 2048 x 1000   |       47.2 |     42.6 |
///   | 2 x 2048 x 1000   |       52.2 |     43.2 |
///   | 4 x 2048 x 1000   |       75.0 |     75.8 |
///   | 128 x 768 x 3072  |       2770 |     2733 |
///
/// so there f32 takes it for at most 32 columns or 2 rows (a classifier
/// head; int8 and bf16 keep the matmul). A binary post-op operand
/// broadcast along the rows ([M, 1]) has no such kernel: the matmul runs
/// it. nullopt elsewhere, and where the matmul is not such a product
/// (batched or transposed lhs, a bias not per column) or the convolution
/// kernel refuses it.
std::optional<KernelPtr> tryPointwiseConvMatmul(const MatmulDesc &d,
                                                const MatmulGeometry &g,
                                                size_t fused) {
  const CpuIsa &isa = cpuIsa();
  bool pays =
      isa.avx512 ? !d.int8 && (g.n <= 32 || g.m <= 2) : d.int8 || g.m >= 8;
  // Without VNNI, oneDNN's int8 convolutions halve the weights of an s8
  // input (its scale adjustment against vpmaddubsw's saturation) on top of
  // our 63 levels: u8 inputs only.
  if (!pays || !isa.avx2 || !d.constantRhs || d.lhsView || g.rank != 2 ||
      d.transposeA || d.dtype != DType::F32 || d.bf16 ||
      (d.int8 && !d.int8->unsignedInput && !isa.vnni) || g.k == 0 ||
      g.lhsStrides != Shape{g.k, 1} || d.resultShape != Shape{g.m, g.n})
    return std::nullopt;
  auto asPixels = [](const Shape &s) -> std::optional<Shape> {
    if (s.size() > 2)
      return std::nullopt;
    Shape two = padRank(s, 2);
    return Shape{1, two[0], 1, two[1]};
  };
  Conv2DDesc c;
  c.dtype = d.dtype;
  c.nhwc = true;
  c.inputShape = {1, g.m, 1, g.k};
  c.filterShape = {1, 1, g.k, g.n};
  c.filterOIHW = d.transposeB;
  c.resultShape = {1, g.m, 1, g.n};
  if (d.biasShape) {
    if (numElements(*d.biasShape) != g.n || d.biasShape->empty() ||
        d.biasShape->back() != g.n)
      return std::nullopt;
    c.biasShape = Shape{g.n};
    c.constantBias = d.constantBias;
  }
  for (PostOp op : d.postOps) {
    if (op.kind != PostOp::Kind::Eltwise) {
      std::optional<Shape> shape = asPixels(op.operandShape);
      if (!shape)
        return std::nullopt;
      op.operandShape = *shape;
    }
    c.postOps.push_back(std::move(op));
  }
  // The constant as the filter it is: a view of the same data (prepacking
  // and PrepackCache read it at creation, by its address).
  Shape filter = d.transposeB ? Shape{g.n, g.k, 1, 1} : Shape{1, 1, g.k, g.n};
  auto view = HostTensor::borrow(d.constantRhs->dtype(), filter,
                                 const_cast<void *>(d.constantRhs->data()));
  if (!view.ok())
    return std::nullopt;
  c.constantFilter = &*view;
  c.int8 = d.int8;
  c.int8Output = d.int8Output;
  c.kernelName = "onednn.matmul";
  auto geometry = convGeometry(c);
  if (!geometry.ok())
    return std::nullopt;
  auto kernel = tryOneDnnConv(c, *geometry, fused);
  if (!kernel.ok())
    return std::nullopt;
  return *std::move(kernel);
}

/// tryPointwiseConvMatmul where it applies, else the oneDNN matmul.
absl::StatusOr<KernelPtr> tryOneDnnContraction(const MatmulDesc &d,
                                               const MatmulGeometry &g,
                                               size_t fused) {
  if (std::optional<KernelPtr> conv = tryPointwiseConvMatmul(d, g, fused))
    return *std::move(conv);
  return tryOneDnnMatmul(d, g, fused);
}

absl::StatusOr<KernelPtr> createMatmulUnrecorded(const MatmulDesc &original) {
  if (absl::Status s = checkPrecision(original, original.constantRhs, "matmul",
                                      "an int8 matmul");
      !s.ok())
    return s;
  auto geometry = matmulGeometry(original);
  if (!geometry.ok())
    return geometry.status();
  bool views = original.lhsView || original.rhsView;
  if (views && (original.bf16 || original.int8 ||
                (original.rhsView && original.constantRhs)))
    return absl::InvalidArgumentError(
        "matmul operand views are for operands that are not constant, "
        "without bf16 or int8");
  std::optional<MatmulDesc> flat =
      views ? std::nullopt : flattenSharedRhs(original);
  const MatmulDesc &desc = flat ? *flat : original;
  if (flat)
    geometry = matmulGeometry(desc);
  if (!geometry.ok())
    return geometry.status();
  if (desc.biasShape && !broadcastsTo(*desc.biasShape, desc.resultShape))
    return absl::InvalidArgumentError("matmul bias does not broadcast");
  if (absl::Status s = checkPostOps(desc.postOps, desc.resultShape); !s.ok())
    return s;
  if (desc.constantRhs && (desc.constantRhs->dtype() != desc.dtype ||
                           desc.constantRhs->shape() != desc.rhsShape))
    return absl::InvalidArgumentError("constant rhs does not match rhsShape");
  if (numElements(desc.resultShape) == 0)
    return makeNoOpKernel("native.matmul");
  if (desc.int8 && (desc.int8->quantizedInput || desc.int8Output)) {
    // 8-bit operands or result: no f32 kernel could stand in for it.
    if (geometry->k == 0)
      return absl::UnimplementedError("an empty int8 chain matmul");
    return tryOneDnnContraction(desc, *geometry, desc.postOps.size());
  }
  if (isOneDnnFloat(desc.dtype) && geometry->k > 0) {
    size_t fused = fusablePostOps(desc.postOps);
    auto kernel = tryOneDnnContraction(desc, *geometry, fused);
    if (!kernel.ok() && fused > 0)
      kernel = tryOneDnnContraction(desc, *geometry, fused = 0);
    // Strides oneDNN runs slowly: the caller materializes the operands.
    if (!kernel.ok() && views)
      return kernel.status();
    // int8 quantization does not keep NaN anyway: no guard.
    if (kernel.ok() && desc.int8)
      return kernel;
    if (kernel.ok())
      return guardNaNDroppingPostOps(
          *kernel, desc, fused, desc.constantRhs,
          [g = *geometry](MatmulDesc d, size_t k) -> absl::StatusOr<KernelPtr> {
            d.constantRhs = nullptr;
            d.int8.reset(); // int8 needs the constant: the exact path is f32
            auto exact = tryOneDnnMatmul(d, g, k);
            return exact.ok() ? exact : createNativeMatmul(d, g);
          });
  }
  return createNativeMatmul(desc, *geometry);
}

absl::StatusOr<KernelPtr> createConv2DUnrecorded(const Conv2DDesc &desc) {
  if (absl::Status s = checkPrecision(desc, desc.constantFilter, "conv2d",
                                      "an int8 convolution");
      !s.ok())
    return s;
  auto geometry = convGeometry(desc);
  if (!geometry.ok())
    return geometry.status();
  if (absl::Status s = checkPostOps(desc.postOps, desc.resultShape); !s.ok())
    return s;
  if (!isFloatDType(desc.dtype))
    return absl::InvalidArgumentError("conv2d needs a float dtype");
  if (desc.constantFilter && !constantFilterFits(desc))
    return absl::InvalidArgumentError(
        "constant filter does not match filterShape");
  if (numElements(desc.resultShape) == 0)
    return makeNoOpKernel("native.conv2d");
  if (desc.sumQuantization && !(desc.int8 && desc.int8Output))
    return absl::UnimplementedError(
        "a quantized residual sums into the 8-bit result of an int8 "
        "convolution only");
  if (desc.int8 && (desc.int8->quantizedInput || desc.int8Output)) {
    // 8-bit operands or result: no f32 kernel could stand in for it, and
    // no NaN to guard (quantization maps it away).
    if (numElements(desc.inputShape) == 0)
      return absl::UnimplementedError("an empty int8 chain convolution");
    return tryOneDnnConv(desc, *geometry, desc.postOps.size());
  }
  if (nativeWinogradPays(desc))
    return createNativeWinogradConv2D(desc);
  if (isOneDnnFloat(desc.dtype) && numElements(desc.inputShape) > 0) {
    size_t fused = fusablePostOps(desc.postOps);
    auto kernel = tryOneDnnConv(desc, *geometry, fused);
    if (!kernel.ok() && fused > 0)
      kernel = tryOneDnnConv(desc, *geometry, fused = 0);
    // int8 quantization does not keep NaN anyway: no guard (whose f32
    // stand-in could not run in place over a summed residual).
    if (kernel.ok() && desc.int8)
      return kernel;
    if (kernel.ok() && hasPadding(desc)) {
      // oneDNN may multiply the padding by the filter (0 * inf = NaN) where
      // the dialect adds no term for it: a filter holding NaN or an
      // infinity runs on the native kernel, which skips padded taps.
      if (desc.constantFilter &&
          detail::constantHasSpecialValues(*desc.constantFilter))
        return createNativeConv(desc, *geometry);
      if (!desc.constantFilter)
        kernel = makeNaNGuardedKernel(
            *kernel,
            [desc, g = *geometry]() { return createNativeConv(desc, g); }, {1},
            NaNGuardScan::NonFinite);
    }
    if (kernel.ok())
      return guardNaNDroppingPostOps(
          *kernel, desc, fused, desc.constantFilter,
          [g = *geometry](Conv2DDesc d, size_t k) -> absl::StatusOr<KernelPtr> {
            d.constantFilter = nullptr;
            d.int8.reset(); // int8 needs the constant: the exact path is f32
            auto exact = tryOneDnnConv(d, g, k);
            return exact.ok() ? exact : createNativeConv(d, g);
          });
  }
  return createNativeConv(desc, *geometry);
}

int64_t lastLevelCacheBytes() {
  static const int64_t bytes = [] {
    // sysconf(_SC_LEVEL3_CACHE_SIZE) reports the host's total on these VMs
    // (384 MiB for 32): the kernel's topology for this CPU is right.
    for (const char *level : {"index3", "index2"}) {
      std::FILE *file = std::fopen(
          absl::StrCat("/sys/devices/system/cpu/cpu0/cache/", level, "/size")
              .c_str(),
          "r");
      if (!file)
        continue;
      long long value = 0;
      char unit = 0;
      int read = std::fscanf(file, "%lld%c", &value, &unit);
      std::fclose(file);
      if (read < 1 || value <= 0)
        continue;
      int64_t scale = unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
      return static_cast<int64_t>(value) * scale;
    }
    return int64_t{32} << 20;
  }();
  return bytes;
}

bool winogradCandidate(const Conv2DDesc &d) {
  auto g = convGeometry(d);
  return g.ok() && d.dtype == DType::F32 && d.groups == 1 && g->kh == 3 &&
         g->kw == 3 && d.strides[0] == 1 && d.strides[1] == 1 &&
         d.dilations[0] == 1 && d.dilations[1] == 1 && g->ci >= 32 &&
         g->o >= 32;
}

bool weightBoundConv(const Conv2DDesc &d) {
  // Only where oneDNN has brgemm kernels for the plain layout (AVX-512).
  auto g = convGeometry(d);
  if (!cpuIsa().avx512 || !g.ok() || !isOneDnnFloat(d.dtype) || d.groups != 1 ||
      g->kh * g->kw == 1 || winogradCandidate(d))
    return false;
  // Element counts as doubles: no overflow for any valid shape.
  double filter = static_cast<double>(g->o) * static_cast<double>(g->ci) *
                  static_cast<double>(g->kh * g->kw);
  double activations = static_cast<double>(numElements(d.inputShape)) +
                       static_cast<double>(numElements(d.resultShape));
  return filter >= 4 * activations;
}

bool isDenseNchw(const ActivationLayout &layout, DType dtype,
                 const Shape &nhwcShape) {
  auto type = toDnnl(dtype);
  if (!layout.desc || !type || nhwcShape.size() != 4)
    return false;
  try {
    return descOf(layout) == logicalDesc(nhwcShape, *type, tag::nchw);
  } catch (const dnnl::error &) {
    return false;
  }
}

ActivationLayout quantizedLayout(const Shape &shape, bool nhwc,
                                 bool unsignedValues) {
  dt type = unsignedValues ? dt::u8 : dt::s8;
  if (shape.size() != 4) {
    ActivationLayout layout = layoutOf(plainDesc(shape, type));
    layout.name = unsignedValues ? "plain u8" : "plain s8";
    return layout;
  }
  ActivationLayout layout =
      layoutOf(nhwc ? logicalDesc(shape, type, tag::nhwc)
                    : dnnl::memory::desc(Dims(shape.begin(), shape.end()), type,
                                         tag::nchw));
  layout.name =
      std::string(nhwc ? "nhwc" : "nchw") + (unsignedValues ? " u8" : " s8");
  return layout;
}

bool sameLayout(const ActivationLayout &a, const ActivationLayout &b) {
  return a.desc && b.desc && descOf(a) == descOf(b);
}

namespace {
/// A strided, unpadded 1x1 convolution over an nChw16c (nChw8c) input as a
/// copy of the pixels it reads (whole channel blocks) followed by the same
/// convolution at stride 1. oneDNN 2.6's blocked 1x1 kernel gathers a
/// strided input itself, slowly: ResNet-50's 56x56x256 -> 28x28x512
/// downsample took 494 us, the copy and the stride-1 convolution take
/// about 400. nullopt where this does not apply (or the stride-1
/// convolution cannot keep the layouts): the caller goes on as usual.
std::optional<LayoutKernel>
trySubsampledPointwiseConv(const Conv2DDesc &desc, const ConvLayouts &layouts) {
  const Shape &in = desc.inputShape, &f = desc.filterShape;
  if (!layouts.input || desc.bf16 || desc.groups != 1 || f.size() != 4 ||
      f[0] != 1 || f[1] != 1 ||
      (desc.strides[0] == 1 && desc.strides[1] == 1) ||
      desc.dilations[0] != 1 || desc.dilations[1] != 1 ||
      desc.padding[0] != 0 || desc.padding[1] != 0 || desc.padding[2] != 0 ||
      desc.padding[3] != 0 || in.size() != 4 || desc.resultShape.size() != 4)
    return std::nullopt;
  auto type = toDnnl(desc.dtype);
  std::optional<tag> blocked = blockedTag();
  if (!type || !blocked || dtypeSize(desc.dtype) != 4 ||
      descOf(*layouts.input) != logicalDesc(in, *type, *blocked))
    return std::nullopt;
  const int64_t block = cpuIsa().channelBlock;
  Conv2DDesc unit = desc;
  unit.strides[0] = unit.strides[1] = 1;
  unit.inputShape = {in[0], desc.resultShape[1], desc.resultShape[2], in[3]};
  ActivationLayout subLayout =
      layoutOf(logicalDesc(unit.inputShape, *type, *blocked));
  ConvLayouts unitLayouts = layouts;
  unitLayouts.input = &subLayout;
  unitLayouts.anyInput = false;
  auto geometry = convGeometry(unit);
  if (!geometry.ok())
    return std::nullopt;
  LayoutKernel result;
  auto inner = tryOneDnnConv(unit, *geometry, unit.postOps.size(), &unitLayouts,
                             &result);
  if (!inner.ok() || result.inputLayout)
    return std::nullopt;
  int64_t n = in[0], h = in[1], w = in[2], blocks = (in[3] + block - 1) / block;
  int64_t oh = unit.inputShape[1], ow = unit.inputShape[2];
  int64_t sh = desc.strides[0], sw = desc.strides[1];
  int64_t subBytes = subLayout.bytes;
  const int64_t pixelBytes = block * 4; // one channel block of f32
  KernelPtr conv = *inner;
  result.kernel = makeWrappingKernel(
      "onednn.conv2d.subsampled", conv,
      [=](const KernelContext &context, const std::vector<HostTensor> &inputs,
          std::vector<HostTensor> &outputs) -> absl::Status {
        void *buffer =
            threadBuffer(ThreadBuffer::Staging, static_cast<size_t>(subBytes));
        if (!buffer)
          return absl::ResourceExhaustedError(
              "cannot allocate the subsampled convolution input");
        const char *src = static_cast<const char *>(inputs[0].data());
        char *dst = static_cast<char *>(buffer);
        // Rows (image, block, output row): every sw-th pixel of every
        // sh-th input row.
        parallelRange(context.numThreads, n * blocks * oh,
                      std::max<int64_t>(1, 256 / std::max<int64_t>(ow, 1)),
                      [&](int64_t lo, int64_t hi) {
                        for (int64_t r = lo; r < hi; ++r) {
                          int64_t y = r % oh, plane = r / oh;
                          const char *from =
                              src + (plane * h + y * sh) * w * pixelBytes;
                          char *to = dst + r * ow * pixelBytes;
                          for (int64_t x = 0; x < ow; ++x)
                            std::memcpy(to + x * pixelBytes,
                                        from + x * sw * pixelBytes, pixelBytes);
                        }
                      });
        auto view = HostTensor::borrow(
            desc.dtype, {subBytes / static_cast<int64_t>(sizeof(float))},
            buffer);
        if (!view.ok())
          return view.status();
        std::vector<HostTensor> unitInputs = inputs;
        unitInputs[0] = *view;
        return conv->run(context, unitInputs, outputs);
      });
  return result;
}
} // namespace

absl::StatusOr<LayoutKernel>
createLayoutConv2DUnrecorded(const Conv2DDesc &desc,
                             const ConvLayouts &layouts) {
  if (!desc.nhwc || !isOneDnnFloat(desc.dtype))
    return absl::UnimplementedError(
        "blocked layouts need an NHWC float conv2d");
  if (absl::Status s = checkBf16(desc.bf16, desc.dtype, "conv2d"); !s.ok())
    return s;
  if (desc.int8)
    return absl::UnimplementedError(
        "int8 convolutions run on plain layouts (createConv2D)");
  auto geometry = convGeometry(desc);
  if (!geometry.ok())
    return geometry.status();
  if (absl::Status s = checkPostOps(desc.postOps, desc.resultShape); !s.ok())
    return s;
  if (desc.constantFilter && !constantFilterFits(desc))
    return absl::InvalidArgumentError(
        "constant filter does not match filterShape");
  if (numElements(desc.resultShape) == 0 || numElements(desc.inputShape) == 0)
    return absl::UnimplementedError("blocked layouts of an empty conv2d");
  // Winograd mixes every tap of a tile (inf - inf = NaN) and oneDNN may
  // multiply padding by the filter: a constant filter holding NaN or an
  // infinity takes createConv2D's exact path.
  if (desc.constantFilter &&
      detail::constantHasSpecialValues(*desc.constantFilter))
    return absl::UnimplementedError(
        "blocked layouts of a filter holding NaN or an infinity");
  if (fusablePostOps(desc.postOps) != desc.postOps.size())
    return absl::UnimplementedError(
        "blocked layouts need every post-op fused into the convolution");
  for (size_t i = 0; i < layouts.postOpOperands.size(); ++i)
    if (layouts.postOpOperands[i] &&
        (i >= desc.postOps.size() ||
         desc.postOps[i].operandShape != desc.resultShape || !layouts.result ||
         !sameLayout(*layouts.postOpOperands[i], *layouts.result)))
      return absl::UnimplementedError(
          "a blocked post-op operand must be in the result's layout");
  if (auto subsampled = trySubsampledPointwiseConv(desc, layouts))
    return std::move(*subsampled);
  LayoutKernel result;
  auto kernel =
      tryOneDnnConv(desc, *geometry, desc.postOps.size(), &layouts, &result);
  if (!kernel.ok())
    return kernel.status();
  result.kernel = *kernel;
  return result;
}

namespace {
absl::StatusOr<KernelPtr>
createPool2DImpl(const Pool2DDesc &d, const ActivationLayout *inputLayout,
                 std::optional<ActivationLayout> *resultLayout);
} // namespace

absl::StatusOr<KernelPtr> createPool2DUnrecorded(const Pool2DDesc &d) {
  return createPool2DImpl(d, nullptr, nullptr);
}

absl::StatusOr<LayoutKernel>
createLayoutPool2DUnrecorded(const Pool2DDesc &desc,
                             const ActivationLayout &input) {
  if (!desc.nhwc || !isOneDnnFloat(desc.dtype))
    return absl::UnimplementedError("blocked layouts need an NHWC float pool");
  LayoutKernel result;
  auto kernel = createPool2DImpl(desc, &input, &result.resultLayout);
  if (!kernel.ok())
    return kernel.status();
  result.kernel = *kernel;
  return result;
}

absl::StatusOr<LayoutKernel> createLayoutConcatUnrecorded(
    DType dtype, const std::vector<Shape> &nhwcInputs,
    const std::vector<const ActivationLayout *> &inputs, bool blockTag) {
  if (nhwcInputs.size() < 2 || nhwcInputs.size() != inputs.size())
    return absl::UnimplementedError("a blocked concat takes 2+ inputs");
  auto type = toDnnl(dtype);
  if (!type || !isOneDnnFloat(dtype))
    return absl::UnimplementedError("blocked layouts need a float concat");
  std::optional<tag> blocked = blockedTag();
  if (!blockTag || !blocked)
    return absl::UnimplementedError(
        "a blocked concat writes the ISA's blocked layout "
        "(ActivationLayouts::Blocked)");
  const int64_t block = cpuIsa().channelBlock;
  const std::string blockName = blockedLayoutName(block);
  // nChw16c is [N][C/16][H][W][16]: with whole blocks (no padded channels
  // inside the result), a concat along the channels is one along dim 1 of
  // that 5-D view, a few memcpys per image (oneDNN 2.6's concat of these
  // inputs took 30x longer).
  const Shape &first = nhwcInputs[0];
  int64_t channels = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape &s = nhwcInputs[i];
    if (inputs[i] && descOf(*inputs[i]).data_type() != *type)
      return absl::UnimplementedError(
          "a blocked concat joins activations of its own dtype");
    if (s.size() != 4 || s[0] != first[0] || s[1] != first[1] ||
        s[2] != first[2] || numElements(s) == 0 || !inputs[i] ||
        inputs[i]->name != blockName || s[3] % block != 0)
      return absl::UnimplementedError(absl::StrCat(
          "a blocked concat joins non-empty NHWC activations along the "
          "channels, all in ",
          blockName, " with whole ", block, "-channel blocks"));
    channels += s[3];
  }
  std::vector<Shape> blocks;
  for (const Shape &s : nhwcInputs)
    blocks.push_back({s[0], s[3] / block, s[1], s[2], block});
  auto kernel = createConcat(dtype, blocks, 1);
  if (!kernel.ok())
    return kernel.status();
  LayoutKernel result;
  result.kernel = *kernel;
  result.resultLayout = layoutOf(dnnl::memory::desc(
      {first[0], channels, first[1], first[2]}, *type, *blocked));
  return result;
}

absl::StatusOr<KernelPtr>
createLayoutReorderUnrecorded(DType dtype, const Shape &nhwcShape,
                              const ActivationLayout *from,
                              const ActivationLayout *to) {
  if (nhwcShape.size() != 4)
    return absl::InvalidArgumentError("layout reorders take NHWC shapes");
  auto type = toDnnl(dtype);
  if (!type)
    return absl::UnimplementedError("no oneDNN type for a layout reorder");
  auto engine = cpuEngine();
  if (!engine.ok())
    return engine.status();
  try {
    dnnl::memory::desc src = from ? descOf(*from) : nhwcDesc(nhwcShape, *type);
    dnnl::memory::desc dst = to ? descOf(*to) : nhwcDesc(nhwcShape, *type);
    dnnl::reorder::primitive_desc pd(**engine, src, **engine, dst, makeAttr());
    PrimitiveKernelSpec spec;
    spec.name = "onednn.reorder";
    spec.primitive = dnnl::reorder(pd);
    spec.work = numElements(nhwcShape);
    spec.bindings = {{DNNL_ARG_FROM, 0, src}, {DNNL_ARG_TO, -1, dst}};
    return makePrimitiveKernel(std::move(spec));
  } catch (const dnnl::error &error) {
    return unimplementedFrom(error, "layout reorder");
  }
}

namespace {
KernelPtr nativePoolKernel(const PoolGeometry &g, const Pool2DDesc &d) {
  bool nhwc = d.nhwc;
  DType dtype = d.dtype;
  return makeKernel(
      "native.pool2d", [g, nhwc, dtype](const KernelContext &context,
                                        const std::vector<HostTensor> &in,
                                        std::vector<HostTensor> &out) {
        dispatchDType(dtype, [&](auto t) {
          nativePool<decltype(t)>(g, nhwc, in[0].data(), out[0].data(),
                                  context.numThreads);
        });
        return absl::OkStatus();
      });
}

absl::StatusOr<KernelPtr>
createPool2DImpl(const Pool2DDesc &d, const ActivationLayout *inputLayout,
                 std::optional<ActivationLayout> *resultLayout) {
  if (absl::Status s = checkNativeDType(d.dtype, "pool"); !s.ok())
    return s;
  for (const Shape *s : {&d.inputShape, &d.resultShape})
    if (absl::Status st = checkShape(*s, "pool operand"); !st.ok())
      return st;
  if (d.inputShape.size() != 4 || d.resultShape.size() != 4)
    return absl::InvalidArgumentError("pool operands must have rank 4");
  if (!isFloatDType(d.dtype))
    return absl::InvalidArgumentError("pooling needs a float dtype");
  const Shape &x = d.inputShape;
  PoolGeometry g;
  g.n = x[0];
  g.c = d.nhwc ? x[3] : x[1];
  g.h = d.nhwc ? x[1] : x[2];
  g.w = d.nhwc ? x[2] : x[3];
  bool global = d.kind == Pool2DDesc::Kind::GlobalAvg;
  g.isMax = d.kind == Pool2DDesc::Kind::Max;
  g.includePad = !global && d.countIncludePad;
  for (int i = 0; i < 2; ++i) {
    g.kernel[i] = global ? (i ? g.w : g.h) : d.kernel[i];
    g.strides[i] = global ? 1 : d.strides[i];
    g.dilations[i] = global ? 1 : d.dilations[i];
  }
  for (int i = 0; i < 4; ++i)
    g.padding[i] = global ? 0 : d.padding[i];
  if (global) {
    g.oh = g.ow = 1;
  } else {
    for (int i = 0; i < 2; ++i)
      if (g.kernel[i] < 1 || g.strides[i] < 1 || g.dilations[i] < 1)
        return absl::InvalidArgumentError(
            "pool kernel, strides and dilations must be >= 1");
    for (int64_t p : g.padding)
      if (p < 0)
        return absl::InvalidArgumentError("pool padding must be >= 0");
    g.oh = windowOutput(g.h, g.kernel[0], g.strides[0], g.padding[0],
                        g.padding[2], g.dilations[0], d.ceilMode);
    g.ow = windowOutput(g.w, g.kernel[1], g.strides[1], g.padding[1],
                        g.padding[3], g.dilations[1], d.ceilMode);
  }
  Shape expected =
      d.nhwc ? Shape{g.n, g.oh, g.ow, g.c} : Shape{g.n, g.c, g.oh, g.ow};
  if (g.oh < 0 || g.ow < 0 || expected != d.resultShape)
    return absl::InvalidArgumentError(
        absl::StrCat("pool result ", shapeString(d.resultShape),
                     " does not match the computed ", shapeString(expected)));
  if (numElements(d.resultShape) == 0) {
    if (inputLayout)
      return absl::UnimplementedError("blocked layouts of an empty pool");
    return makeNoOpKernel("native.pool2d");
  }

  // oneDNN: the bottom/right padding is enlarged so that its (floor) output
  // size formula gives the ceil-mode size; positions there are outside the
  // input, so max and avg-exclude-padding ignore them. avg-include-padding
  // would count them, which tgc does not: that case runs natively.
  int64_t padEnd[2];
  bool extended = false;
  for (int i = 0; i < 2; ++i) {
    int64_t size = i ? g.w : g.h, out = i ? g.ow : g.oh;
    int64_t needed = (out - 1) * g.strides[i] +
                     (g.kernel[i] - 1) * g.dilations[i] + 1 - size -
                     g.padding[i];
    padEnd[i] = std::max(needed, g.padding[i + 2]);
    extended |= padEnd[i] > g.padding[i + 2];
  }
  // A window over padding only has no elements: max gives -inf and
  // average-exclude-padding NaN (0 / 0) in tgc; oneDNN gives the lowest
  // finite value and 0. Such pools run natively.
  bool paddingOnlyWindow = false;
  for (int i = 0; i < 2 && !paddingOnlyWindow; ++i) {
    int64_t size = i ? g.w : g.h, out = i ? g.ow : g.oh;
    for (int64_t o = 0; o < out && !paddingOnlyWindow; ++o) {
      int64_t first = o * g.strides[i] - g.padding[i];
      int64_t last = first + (g.kernel[i] - 1) * g.dilations[i];
      bool touches = false;
      for (int64_t p = first; p <= last && !touches; p += g.dilations[i])
        touches = p >= 0 && p < size;
      paddingOnlyWindow = !touches;
    }
  }
  bool useOneDnn = isOneDnnFloat(d.dtype) && g.h > 0 && g.w > 0 &&
                   !(g.includePad && extended) &&
                   !(paddingOnlyWindow && !(g.includePad && !g.isMax));
  if (useOneDnn) {
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    try {
      dt type = *toDnnl(d.dtype);
      tag act = d.nhwc ? tag::nhwc : tag::nchw;
      dnnl::memory::desc src({g.n, g.c, g.h, g.w}, type, act);
      dnnl::memory::desc dst({g.n, g.c, g.oh, g.ow}, type, act);
      dnnl::memory::desc plainDst = dst;
      bool quantized = false;
      if (inputLayout) {
        src = descOf(*inputLayout);
        // bf16 activations (a bf16 convolution's) stay bf16; int8 ones
        // (quantizedLayout: an int8 producer's, for int8 consumers) stay
        // int8 and NHWC, as their consumers read them.
        quantized = src.data_type() == dt::u8 || src.data_type() == dt::s8;
        dst = dnnl::memory::desc({g.n, g.c, g.oh, g.ow}, src.data_type(),
                                 quantized ? act : tag::any);
        if (quantized && (!g.isMax || !d.nhwc))
          return absl::UnimplementedError(
              "int8 pooling here is an NHWC max pool");
      }
      dnnl::algorithm alg =
          g.isMax
              ? dnnl::algorithm::pooling_max
              : (g.includePad ? dnnl::algorithm::pooling_avg_include_padding
                              : dnnl::algorithm::pooling_avg_exclude_padding);
      dnnl::pooling_v2_forward::desc desc(
          dnnl::prop_kind::forward_inference, alg, src, dst,
          {g.strides[0], g.strides[1]}, {g.kernel[0], g.kernel[1]},
          {g.dilations[0] - 1, g.dilations[1] - 1},
          {g.padding[0], g.padding[1]}, {padEnd[0], padEnd[1]});
      dnnl::pooling_v2_forward::primitive_desc pd(desc, makeAttr(), **engine);
      if (inputLayout) {
        if (isReferenceImpl(pd.impl_info_str()))
          return absl::UnimplementedError(
              "blocked-layout pooling runs only on oneDNN's reference path");
        dst = pd.dst_desc();
        *resultLayout = std::nullopt;
        if (quantized)
          *resultLayout = quantizedLayout(d.resultShape, /*nhwc=*/true,
                                          src.data_type() == dt::u8);
        else if (dst != plainDst)
          *resultLayout = layoutOf(dst);
      }
      PrimitiveKernelSpec spec;
      spec.name = "onednn.pool2d";
      spec.primitive = dnnl::pooling_v2_forward(pd);
      spec.work = g.n * g.c * std::max<int64_t>(g.oh * g.ow, g.h * g.w);
      spec.bindings = {{DNNL_ARG_SRC, 0, src}, {DNNL_ARG_DST, -1, dst}};
      KernelPtr primitive = makePrimitiveKernel(std::move(spec));
      // oneDNN's max pooling skips NaN and starts from the lowest finite
      // value, so a window of -inf gives -FLT_MAX (tgc-smith seeds 9128 and
      // 9129, functions 795 and 657): plain inputs with NaN or an infinity
      // take the native kernel (blocked ones stay on oneDNN's;
      // docs/cpu-backend.md).
      if (g.isMax && !inputLayout)
        return makeNaNGuardedKernel(primitive, nativePoolKernel(g, d), {0},
                                    NaNGuardScan::NonFinite);
      return primitive;
    } catch (const dnnl::error &error) {
      if (inputLayout)
        return unimplementedFrom(error, "blocked-layout pooling");
      // Fall through to the native loop.
    }
  }
  if (inputLayout)
    return absl::UnimplementedError("no oneDNN pooling for this layout");
  return nativePoolKernel(g, d);
}
} // namespace

} // namespace tgc::runtime::cpu
