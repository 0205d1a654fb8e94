//===- WinogradConv.cpp - native F(2x2, 3x3) Winograd convolution ---------===//
//
// Lavin and Gray's F(2x2, 3x3): an output tile of 2x2 needs a 4x4 input
// tile d; with the filter g transformed once, U = G g G^T, and each tile,
// V = B^T d B, the 16 elementwise products M = U . V summed over the input
// channels give the tile as A^T M A. Summed over channels, each of the 16
// positions is one GEMM [tiles x C] x [C x K], 2.25x fewer multiplications
// than the direct convolution's. Its transforms add and subtract only
// (G halves), so it rounds about as the direct convolution does; F(4x4,
// 3x3) (4x fewer multiplications, 6x6 tiles) was 1.2-1.4x faster again
// but rounds ~10x worse (its transforms scale by up to 8 and cancel):
// 1.4e-5 on outputs of 0.03 from 64 channels, past --differential's
// tolerance. The transforms run with AVX2 vectors of 8 channels (the
// functions carry the target themselves: the library builds for baseline
// x86-64 and only AVX2 machines take this kernel).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/WinogradConv.h"

#include "runtime/cpu/Common.h"
#include "runtime/cpu/Recipes.h"

#include "absl/strings/str_cat.h"

#include <dnnl.h>
#include <immintrin.h>

#include <atomic>
#include <mutex>

namespace tgc::runtime::cpu::detail {
namespace {

#define TGC_AVX2_FMA __attribute__((target("avx2,fma")))

/// 4 x 4 input positions per 2 x 2 output tile.
constexpr int64_t kAlpha = 4, kPositions = kAlpha * kAlpha, kTile = 2;
/// What a chunk of tiles' transforms and products take at most (but 32
/// tiles): ResNet-50's 56x56 layers at batch 8 would take 51 MB unchunked.
constexpr int64_t kStagingBytes = int64_t{4} << 20;
/// The largest transformed filter (16/9 of the filter's bytes) the kernel
/// takes: each one stays in memory for the plan's life (ResNet-50's
/// 512-channel layers hold 16.8 MB each).
constexpr int64_t kMaxFilterBytes = int64_t{16} << 20;

struct WinogradShape {
  int64_t n, h, w, c, k, oh, ow, padTop, padLeft, tilesH, tilesW, tiles;
};

std::optional<WinogradShape> winogradShape(const Conv2DDesc &d) {
  if (!d.nhwc || d.inputShape.size() != 4 || d.filterShape.size() != 4 ||
      d.resultShape.size() != 4)
    return std::nullopt;
  WinogradShape s;
  s.n = d.inputShape[0];
  s.h = d.inputShape[1];
  s.w = d.inputShape[2];
  s.c = d.inputShape[3];
  s.k = d.filterShape[3];
  s.oh = d.resultShape[1];
  s.ow = d.resultShape[2];
  s.padTop = d.padding[0];
  s.padLeft = d.padding[1];
  if (d.filterShape[0] != 3 || d.filterShape[1] != 3 ||
      d.filterShape[2] != s.c || d.resultShape[0] != s.n ||
      d.resultShape[3] != s.k ||
      s.oh != s.h + d.padding[0] + d.padding[2] - 2 ||
      s.ow != s.w + d.padding[1] + d.padding[3] - 2 || s.oh <= 0 || s.ow <= 0)
    return std::nullopt;
  s.tilesH = (s.oh + kTile - 1) / kTile;
  s.tilesW = (s.ow + kTile - 1) / kTile;
  s.tiles = s.n * s.tilesH * s.tilesW;
  return s;
}

/// U = G g G^T for every (input, output) channel pair, in double: [16][C][K].
std::vector<float> transformFilter(const WinogradShape &s, const HostTensor &f,
                                   bool oihw) {
  static constexpr double G[kAlpha][3] = {
      {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const float *g = static_cast<const float *>(f.data());
  std::vector<float> u(static_cast<size_t>(kPositions * s.c * s.k));
  for (int64_t c = 0; c < s.c; ++c)
    for (int64_t k = 0; k < s.k; ++k) {
      auto at = [&](int64_t y, int64_t x) -> double {
        return oihw ? g[((k * s.c + c) * 3 + y) * 3 + x]
                    : g[((y * 3 + x) * s.c + c) * s.k + k];
      };
      double t[kAlpha][3];
      for (int i = 0; i < kAlpha; ++i)
        for (int x = 0; x < 3; ++x)
          t[i][x] =
              G[i][0] * at(0, x) + G[i][1] * at(1, x) + G[i][2] * at(2, x);
      for (int i = 0; i < kAlpha; ++i)
        for (int j = 0; j < kAlpha; ++j)
          u[static_cast<size_t>(((i * kAlpha + j) * s.c + c) * s.k + k)] =
              static_cast<float>(t[i][0] * G[j][0] + t[i][1] * G[j][1] +
                                 t[i][2] * G[j][2]);
    }
  return u;
}

/// o = B^T d (one dim), 8 channels per vector.
TGC_AVX2_FMA inline void inputRows(const __m256 d[kAlpha], __m256 o[kAlpha]) {
  o[0] = _mm256_sub_ps(d[0], d[2]);
  o[1] = _mm256_add_ps(d[1], d[2]);
  o[2] = _mm256_sub_ps(d[2], d[1]);
  o[3] = _mm256_sub_ps(d[1], d[3]);
}

/// o = A^T m (one dim).
TGC_AVX2_FMA inline void outputRows(const __m256 m[kAlpha], __m256 o[kTile]) {
  o[0] = _mm256_add_ps(_mm256_add_ps(m[0], m[1]), m[2]);
  o[1] = _mm256_sub_ps(_mm256_sub_ps(m[1], m[2]), m[3]);
}

/// Tile t's image in the batch and its first output row and column.
struct TileOrigin {
  int64_t image, y, x;
};
TileOrigin tileOrigin(const WinogradShape &s, int64_t t) {
  int64_t perImage = s.tilesH * s.tilesW, r = t % perImage;
  return {t / perImage, r / s.tilesW * kTile, r % s.tilesW * kTile};
}

/// V for the tiles first + [lo, hi) of a chunk of `count`: [16][count][C].
/// False where the input read holds NaN or an infinity (found while it is
/// read here: a guard's scan of the input (makeNaNGuardedKernel) cost 3%
/// of ResNet-50 under AVX2).
TGC_AVX2_FMA bool transformInput(const WinogradShape &s, const float *x,
                                 float *v, int64_t first, int64_t count,
                                 int64_t lo, int64_t hi) {
  __m256 special = _mm256_setzero_ps(); // x - x: 0, or NaN where not finite
  for (int64_t local = lo; local < hi; ++local) {
    TileOrigin o = tileOrigin(s, first + local);
    int64_t y0 = o.y - s.padTop, x0 = o.x - s.padLeft;
    const float *image = x + o.image * s.h * s.w * s.c;
    for (int64_t c = 0; c < s.c; c += 8) {
      __m256 d[kAlpha][kAlpha];
      for (int i = 0; i < kAlpha; ++i)
        for (int j = 0; j < kAlpha; ++j) {
          int64_t y = y0 + i, xx = x0 + j;
          if (y < 0 || y >= s.h || xx < 0 || xx >= s.w) {
            d[i][j] = _mm256_setzero_ps();
            continue;
          }
          d[i][j] = _mm256_loadu_ps(image + (y * s.w + xx) * s.c + c);
          special = _mm256_or_ps(special, _mm256_sub_ps(d[i][j], d[i][j]));
        }
      __m256 rows[kAlpha][kAlpha];
      for (int j = 0; j < kAlpha; ++j) {
        __m256 column[kAlpha], out[kAlpha];
        for (int i = 0; i < kAlpha; ++i)
          column[i] = d[i][j];
        inputRows(column, out);
        for (int i = 0; i < kAlpha; ++i)
          rows[i][j] = out[i];
      }
      for (int i = 0; i < kAlpha; ++i) {
        __m256 out[kAlpha];
        inputRows(rows[i], out);
        for (int j = 0; j < kAlpha; ++j)
          _mm256_storeu_ps(v + ((i * kAlpha + j) * count + local) * s.c + c,
                           out[j]);
      }
    }
  }
  return _mm256_movemask_ps(_mm256_cmp_ps(special, special, _CMP_UNORD_Q)) == 0;
}

/// The output tiles first + [lo, hi) from M ([16][count][K]), plus the bias,
/// then max(0, .) with `relu` (NaN stays NaN: MAXPS returns its second operand
/// where either is NaN).
TGC_AVX2_FMA void transformOutput(const WinogradShape &s, const float *m,
                                  const float *bias, bool relu, float *y,
                                  int64_t first, int64_t count, int64_t lo,
                                  int64_t hi) {
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t local = lo; local < hi; ++local) {
    TileOrigin o = tileOrigin(s, first + local);
    int64_t oy = o.y, ox = o.x;
    float *image = y + o.image * s.oh * s.ow * s.k;
    for (int64_t k = 0; k < s.k; k += 8) {
      __m256 p[kAlpha][kAlpha];
      for (int i = 0; i < kAlpha; ++i)
        for (int j = 0; j < kAlpha; ++j)
          p[i][j] =
              _mm256_loadu_ps(m + ((i * kAlpha + j) * count + local) * s.k + k);
      __m256 rows[kTile][kAlpha];
      for (int j = 0; j < kAlpha; ++j) {
        __m256 column[kAlpha], out[kTile];
        for (int i = 0; i < kAlpha; ++i)
          column[i] = p[i][j];
        outputRows(column, out);
        for (int i = 0; i < kTile; ++i)
          rows[i][j] = out[i];
      }
      __m256 b = bias ? _mm256_loadu_ps(bias + k) : zero;
      for (int i = 0; i < kTile && oy + i < s.oh; ++i) {
        __m256 out[kTile];
        outputRows(rows[i], out);
        for (int j = 0; j < kTile && ox + j < s.ow; ++j) {
          __m256 value = _mm256_add_ps(out[j], b);
          if (relu) // + 0: -0 becomes +0, as tgc.relu gives
            value = _mm256_add_ps(_mm256_max_ps(zero, value), zero);
          _mm256_storeu_ps(image + ((oy + i) * s.ow + ox + j) * s.k + k, value);
        }
      }
    }
  }
}

class WinogradKernel final : public Kernel {
public:
  WinogradKernel(WinogradShape shape, std::vector<float> u, bool bias,
                 bool relu, Conv2DDesc exactDesc)
      : shape(shape), u(std::move(u)), bias(bias), relu(relu),
        exactDesc(std::move(exactDesc)) {}
  std::string_view name() const override { return "native.conv2d.winograd"; }
  int64_t heldBytes() const override {
    return static_cast<int64_t>(u.size() * sizeof(float));
  }
  // The filter's transform is made from the constant when the kernel is
  // made, again from a saved plan: the plan keeps it (readsInput).

  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs) const override {
    const WinogradShape &s = shape;
    // Tiles go in chunks whose transformed tiles and products stay within
    // kStagingBytes (in cache, and a bounded buffer), but of at least 32
    // tiles (shorter products run slowly).
    int64_t perTile = kPositions * (s.c + s.k) * int64_t(sizeof(float));
    int64_t chunk =
        std::min(s.tiles, std::max<int64_t>(32, kStagingBytes / perTile));
    auto *v = static_cast<float *>(threadBuffer(
        ThreadBuffer::Staging, static_cast<size_t>(chunk * perTile)));
    if (!v)
      return absl::ResourceExhaustedError(
          "cannot allocate the Winograd convolution's transformed tiles");
    float *m = v + kPositions * chunk * s.c;
    const float *x = static_cast<const float *>(inputs[0].data());
    const float *b =
        bias ? static_cast<const float *>(inputs[2].data()) : nullptr;
    float *y = static_cast<float *>(outputs[0].data());
    int64_t grain = std::max<int64_t>(1, 8192 / (kPositions * s.c));
    for (int64_t first = 0; first < s.tiles; first += chunk) {
      int64_t count = std::min(chunk, s.tiles - first);
      std::atomic<bool> finite{true};
      parallelRange(context.numThreads, count, grain,
                    [&](int64_t lo, int64_t hi) {
                      if (!transformInput(s, x, v, first, count, lo, hi))
                        finite = false;
                    });
      if (!finite)
        return runExact(context, inputs, outputs);
      std::atomic<bool> failed{false};
      // 16 independent products, each on one thread (its sgemm then runs
      // the same whatever the thread count: deterministic).
      parallelRange(
          context.numThreads, kPositions, 1, [&](int64_t lo, int64_t hi) {
            OneThreadScope one(true);
            for (int64_t p = lo; p < hi; ++p)
              if (dnnl_sgemm('N', 'N', count, s.k, s.c, 1.0f,
                             v + p * count * s.c, s.c, u.data() + p * s.c * s.k,
                             s.k, 0.0f, m + p * count * s.k,
                             s.k) != dnnl_success)
                failed = true;
          });
      if (failed)
        return absl::InternalError(
            "oneDNN's sgemm failed in a Winograd convolution");
      parallelRange(context.numThreads, count, grain,
                    [&](int64_t lo, int64_t hi) {
                      transformOutput(s, m, b, relu, y, first, count, lo, hi);
                    });
    }
    return absl::OkStatus();
  }

private:
  /// The direct convolution, made on first need (inputs holding NaN or
  /// infinities are rare): it reads the filter from its input.
  absl::Status runExact(const KernelContext &context,
                        const std::vector<HostTensor> &inputs,
                        std::vector<HostTensor> &outputs) const {
    std::call_once(exactOnce, [&] {
      absl::StatusOr<KernelPtr> made = createConv2D(exactDesc);
      if (made.ok())
        exact = *made;
      else
        exactError = made.status();
    });
    if (!exact)
      return exactError;
    return exact->run(context, inputs, outputs);
  }

  WinogradShape shape;
  std::vector<float> u;
  bool bias, relu;
  Conv2DDesc exactDesc;
  mutable std::once_flag exactOnce;
  mutable KernelPtr exact;
  mutable absl::Status exactError;
};

} // namespace

bool nativeWinogradPays(const Conv2DDesc &d) {
  const CpuIsa &isa = cpuIsa();
  if (!d.winograd || !isa.avx2 || isa.winograd || !winogradCandidate(d) ||
      d.dtype != DType::F32 || d.bf16 || d.int8 || d.int8Output ||
      d.sumQuantization || !d.constantFilter ||
      d.constantFilter->dtype() != DType::F32)
    return false;
  std::optional<WinogradShape> s = winogradShape(d);
  // Measured (docs/cpu-backend.md, "Winograd convolutions"): below 64
  // channels the direct kernel is as fast. Below 48 tiles the 16 products
  // are too short to pay for reading the transformed filter (ResNet-50's
  // 7x7 layers at batch 1, 16 tiles: 0.73x the direct kernel's speed).
  if (!s || s->c < 64 || s->k < 64 || s->c % 8 || s->k % 8 || s->tiles < 48 ||
      kPositions * s->c * s->k * int64_t(sizeof(float)) > kMaxFilterBytes)
    return false;
  if (d.biasShape && numElements(*d.biasShape) != s->k)
    return false;
  if (d.postOps.size() > 1 ||
      (d.postOps.size() == 1 &&
       (d.postOps[0].kind != PostOp::Kind::Eltwise ||
        d.postOps[0].eltwise != EltwiseKind::Relu || d.postOps[0].alpha != 0)))
    return false;
  return !constantHasSpecialValues(*d.constantFilter);
}

absl::StatusOr<KernelPtr> createNativeWinogradConv2D(const Conv2DDesc &desc) {
  std::optional<WinogradShape> s = winogradShape(desc);
  if (!s || !desc.constantFilter)
    return absl::InvalidArgumentError(
        "no Winograd convolution for these shapes");
  Conv2DDesc exactDesc = desc;
  exactDesc.winograd = false;
  exactDesc.constantFilter = nullptr;
  exactDesc.constantBias = nullptr;
  return std::make_shared<WinogradKernel>(
      *s, transformFilter(*s, *desc.constantFilter, desc.filterOIHW),
      desc.biasShape.has_value(), !desc.postOps.empty(), std::move(exactDesc));
}

} // namespace tgc::runtime::cpu::detail
