//===- Kernels.h - CPU kernels: oneDNN primitives and native loops -*- C++
//-*-===//
//
// Factories for the kernels of the CPU backend. Each takes a descriptor with
// static shapes and returns an immutable Kernel whose oneDNN primitive (or
// native loop) was set up at creation; a descriptor that the kernel cannot
// implement returns an error (absl::UnimplementedError for "not supported
// here, fall back", InvalidArgumentError for malformed descriptors), never
// crashes. Shapes are row-major dims; all tensors are dense row-major.
//
// Semantics are those of the tgc dialect ops (see dialects/TgcOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CPU_KERNELS_H
#define TGC_RUNTIME_CPU_KERNELS_H

#include "runtime/Executable.h"

#include <optional>

namespace tgc::runtime::cpu {

using Shape = std::vector<int64_t>;
using KernelPtr = std::shared_ptr<const Kernel>;

/// The x86 instruction set the CPU backend plans for: the one oneDNN
/// dispatches to on this machine, capped by DNNL_MAX_CPU_ISA (or
/// ONEDNN_MAX_CPU_ISA). The loop kernels the backend JIT-compiles are
/// limited to the same vector extensions, so `DNNL_MAX_CPU_ISA=AVX2` on an
/// AVX-512 machine plans and runs as an AVX2-only machine would
/// (docs/cpu-backend.md, "Instruction sets").
struct CpuIsa {
  /// oneDNN's name for it: "avx512_core_bf16", "avx2", "sse41", ...
  std::string name;
  bool avx2 = false;   ///< AVX2 and FMA
  bool avx512 = false; ///< AVX-512 F/CD/BW/DQ/VL (oneDNN's avx512_core)
  /// Channels per block of the blocked activation layout oneDNN 2.6's
  /// direct convolution and pooling kernels take here: 16 (nChw16c) with
  /// AVX-512, 8 (nChw8c) with AVX2, 0 below (no blocked layouts).
  int64_t channelBlock = 0;
  /// Whether oneDNN 2.6 has f32 Winograd convolution kernels here (only
  /// for AVX-512).
  bool winograd = false;
  /// Whether oneDNN runs bfloat16 contractions natively here: AVX512_BF16
  /// or AMX (oneDNN's avx512_core_bf16 and above). Elsewhere it would
  /// emulate them, slower than f32, so the backend refuses them
  /// (Precision::BF16) or keeps f32 (Precision::Auto).
  bool bf16 = false;
  /// Whether oneDNN's int8 kernels have VNNI here (AVX512_VNNI or
  /// AVX-VNNI): products accumulate straight into 32 bits. Without it they
  /// sum pairs of u8 x s8 products in 16 bits, so pairs of int8 weights
  /// are bounded (int8WeightRule).
  bool vnni = false;
  /// LLVM target features the JIT turns off on this host to stay within
  /// the ISA, e.g. "avx512f" (disabling it disables every AVX-512 and
  /// AVX10 feature that implies it).
  std::vector<std::string> disabledJitFeatures;
};
/// This machine's CpuIsa, determined once on first use.
const CpuIsa &cpuIsa();

/// While alive, the kernels this thread makes (and remakes from a saved
/// plan) give bitwise the same results at every intra-op thread count
/// (Determinism::Strict, docs/determinism.md): a oneDNN contraction whose
/// implementation may split a reduction between threads (gemm-based
/// matmuls and convolutions, Winograd) is made for one thread and runs on
/// one thread; its kernel's name says so ("...[1 thread]"). The other
/// kernels partition only their outputs between threads. Nests.
class ThreadInvariantKernels {
public:
  explicit ThreadInvariantKernels(bool enable);
  ~ThreadInvariantKernels();
  ThreadInvariantKernels(const ThreadInvariantKernels &) = delete;
  ThreadInvariantKernels &operator=(const ThreadInvariantKernels &) = delete;
  /// Whether kernels made on this thread now must be thread-invariant.
  static bool active();

private:
  bool previous;
};
/// Prepacked constant weights shared between kernels: while a
/// SharedPrepacking names a cache on this thread, a kernel whose constant
/// weights are the same bytes (the same address) reordered to the same
/// layout takes the buffer another kernel packed instead of packing its own,
/// so a function compiled for many shapes (every length of a bounded
/// sequence dim, several batch sizes) holds its weights once. Entries are
/// weak: a buffer lives as long as a kernel using it. The addresses must
/// keep their bytes while the cache lives: the CPU backend keeps one per
/// MLIR context, whose constants they are. Thread-safe.
class PrepackCache {
public:
  PrepackCache();
  ~PrepackCache();
  PrepackCache(const PrepackCache &) = delete;
  PrepackCache &operator=(const PrepackCache &) = delete;
  /// Buffers packed and buffers shared since the cache was made.
  int64_t packed() const;
  int64_t shared() const;

  struct Impl;
  std::unique_ptr<Impl> impl;
};
/// While alive, kernels made on this thread share prepacked weights through
/// `cache` (null: no sharing). Nests.
class SharedPrepacking {
public:
  explicit SharedPrepacking(std::shared_ptr<PrepackCache> cache);
  ~SharedPrepacking();
  SharedPrepacking(const SharedPrepacking &) = delete;
  SharedPrepacking &operator=(const SharedPrepacking &) = delete;

private:
  std::shared_ptr<PrepackCache> previous;
};

/// The blocked activation layout's name for `channelBlock`: "nChw16c".
std::string blockedLayoutName(int64_t channelBlock);

/// An elementwise function applied after a contraction, or alone. Besides
/// the tgc unary ops: Square is x*x, Swish x*sigmoid(x), HardSwish
/// x*min(max(x+3, 0), 6)/6, Mish x*tanh(log(1+e^x)), Linear alpha*x+beta.
/// Integers support Relu,
/// Neg, Abs, Clamp, Sign and Square (wrapping); other kinds are Unimplemented
/// for them.
enum class EltwiseKind {
  Relu,
  LeakyRelu,
  Elu,
  Tanh,
  Sigmoid,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Abs,
  Neg,
  Clamp,
  GeluErf,
  GeluTanh,
  Round,
  Reciprocal,
  Square,
  Swish,
  HardSwish,
  Mish,
  Floor,
  Ceil,
  Erf,
  Sin,
  Cos,
  Sign,
  Linear
};

struct EltwiseDesc {
  EltwiseKind kind;
  DType dtype;
  Shape shape;
  double alpha = 0; ///< LeakyRelu/Elu alpha; Clamp min
  double beta = 0;  ///< Clamp max
};

/// A post-op fused into a contraction: an eltwise function, or a binary
/// operation with an extra input tensor (broadcast to the result shape).
struct PostOp {
  enum class Kind { Eltwise, Add, Mul, Max, Min, Sub, Div };
  Kind kind = Kind::Eltwise;
  EltwiseKind eltwise = EltwiseKind::Relu;
  double alpha = 0, beta = 0;
  Shape operandShape; ///< for binary post-ops (one extra kernel input each)
};

/// int8 multiplication of a contraction with constant weights (the int8
/// precision policy, its scales from a calibration table): the activation
/// operand is quantized on each run, x_q = round(x / inputScale) +
/// zeroPoint saturated to u8 [0, 255] when `unsignedInput`, or to s8
/// [-128, 127] otherwise (zero point 0: symmetric); the
/// constant weights once, at creation, to s8 per output channel
/// (scale_w[c] = max |w[c]| / 127, or coarser: int8WeightRule); products
/// accumulate in
/// s32 and are
/// dequantized to f32 (inputScale * scale_w[c]) before bias and post-ops,
/// which stay f32, as does the result. The kernel's name ends in "[int8]".
struct Int8Quantization {
  float inputScale = 1;
  bool unsignedInput = false;
  /// u8 only: asymmetric quantization, x_q = round(x / inputScale) +
  /// zeroPoint saturated to [0, 255] (a signed activation over all 256
  /// levels); oneDNN subtracts it again (its source zero points).
  int32_t zeroPoint = 0;
  /// Input 0 arrives quantized already (u8 or s8 as `unsignedInput` says,
  /// with `inputScale`: a producer's Conv2DDesc::int8Output): read as it
  /// is, no conversion.
  bool quantizedInput = false;
};
/// How a kernel's constant int8 weights are quantized here
/// (runtime::quantizePerChannel): their largest magnitude, and the bound on
/// |q| of two weights whose products the kernel adds in 16 bits. With VNNI
/// (vpdpbusd) every product is added in 32 bits: 127 levels, no pairs.
/// Without it oneDNN's kernels multiply u8 inputs by s8 weights with
/// vpmaddubsw, which adds the products of reduction indices 2m and 2m + 1
/// in 16 bits with saturation: 127 levels with pairs limited to 128 (255 x
/// 128 fits), so only pairs of large weights cost precision (ONNX Runtime's
/// reduce_range takes 7 bits everywhere). s8 inputs without VNNI keep 63
/// levels: oneDNN shifts them to u8 and compensates, and with 127 levels
/// its gemm:jit s8s8 matmul saturates (tried: errors of 87% of the result).
struct Int8WeightRule {
  int levels = 127;
  int pairLimit = 0; ///< 0: no pairs
};
Int8WeightRule int8WeightRule(bool unsignedInput);

struct MatmulDesc {
  DType dtype;
  Shape lhsShape, rhsShape, resultShape; ///< rank >= 2, batch dims broadcast
  bool transposeA = false, transposeB = false;
  std::optional<Shape> biasShape; ///< broadcast to the result
  std::vector<PostOp> postOps;
  /// When the rhs is a constant it may be reordered once at creation into
  /// the primitive's preferred layout; the kernel then ignores input 1.
  const HostTensor *constantRhs = nullptr;
  /// The bias (input 2) when it is a constant: an int8 kernel divides it
  /// by its output scales once, at creation, instead of on each run.
  const HostTensor *constantBias = nullptr;
  /// Multiply in bfloat16 (an f32 matmul only; CpuIsa::bf16): see
  /// Conv2DDesc::bf16.
  bool bf16 = false;
  /// Multiply in int8 (an f32 matmul with a constant rhs only; per output
  /// column scales). A quantizedInput lhs must not be transposed.
  std::optional<Int8Quantization> int8;
  /// With `int8`: write the result quantized for an int8 consumer, in its
  /// plain layout (Conv2DDesc::int8Output).
  std::optional<Int8Quantization> int8Output;
  /// An operand read through a strided view of its input's elements rather
  /// than as a dense tensor of its shape: the slices, transposes and
  /// reshapes that made it, folded away by the planner (an attention
  /// head's query, key or value inside the projection's result). One
  /// element stride per dim of lhsShape (rhsShape), before transposeA
  /// (transposeB) applies, each >= 0, and an element offset into the
  /// input. Operands that are not constant, without bf16 or int8 (oneDNN's
  /// float kernels, the native one for other dtypes); Unimplemented where
  /// oneDNN has no fast kernel for the strides.
  struct OperandView {
    Shape strides;
    int64_t offset = 0;
  };
  std::optional<OperandView> lhsView, rhsView;
};
/// Inputs: lhs, rhs, [bias], post-op operands. Output: result.
absl::StatusOr<KernelPtr> createMatmul(const MatmulDesc &desc);

struct Conv2DDesc {
  DType dtype;
  bool nhwc = false; ///< NCHW+OIHW, or NHWC+HWIO
  Shape inputShape, filterShape, resultShape;
  std::optional<Shape> biasShape;
  int64_t strides[2] = {1, 1};
  int64_t padding[4] = {0, 0, 0, 0}; ///< top, left, bottom, right
  int64_t dilations[2] = {1, 1};     ///< tgc convention: 1 = dense
  int64_t groups = 1;
  std::vector<PostOp> postOps;
  const HostTensor *constantFilter = nullptr; ///< prepacked at creation
  /// The bias (input 2) when it is a constant (MatmulDesc::constantBias).
  const HostTensor *constantBias = nullptr;
  /// With `nhwc`: the filter (operand and constantFilter) holds its
  /// elements in OIHW order, as the model's constant does (a lazy
  /// transpose, tgc.transpose): the kernel reads it in that order rather
  /// than the plan holding a transposed copy of the weights. filterShape
  /// stays HWIO; the constant may have either shape.
  bool filterOIHW = false;
  /// Multiply in bfloat16 (an f32 convolution only; CpuIsa::bf16, else
  /// Unimplemented): the operands are rounded to bfloat16 (a constant
  /// filter once, at creation; the others as each run reads them) and the
  /// products accumulate in f32; bias and post-ops apply in f32. The result
  /// is f32, or bfloat16 where a blocked layout asks for it (ConvLayouts:
  /// oneDNN's bf16 kernels then write bfloat16 activations that the next
  /// bf16 convolution reads as they are). The kernel's name ends in
  /// "[bf16]". Never Winograd (oneDNN 2.6 has none for bf16; its bf16
  /// direct kernels run as fast as the f32 Winograd ones).
  bool bf16 = false;
  /// Multiply in int8 (an f32 convolution with a constant filter only; per
  /// output channel scales). Plain layouts only: createLayoutConv2D
  /// refuses it (Unimplemented).
  std::optional<Int8Quantization> int8;
  /// With `int8`: write the result quantized for an int8 consumer that
  /// reads it as its quantizedInput: after bias and post-ops (all fused),
  /// divided by `inputScale` and saturated to u8 (`unsignedInput`) or s8,
  /// in the result's plain layout (quantizedLayout). An int8 chain keeps
  /// its activations in 8 bits between layers. NaN does not survive it.
  std::optional<Int8Quantization> int8Output;
  /// With `int8Output`: the residual (the first add post-op whose operand
  /// has the result's shape) arrives quantized as this says (u8 or s8, its
  /// producer's int8Output, or a max pool's): a `sum` post-op with its scale
  /// and zero point accumulates it in the 8-bit destination, over it in
  /// place (ResNet's shortcuts stay 8-bit). Unimplemented where oneDNN has
  /// no such kernel.
  std::optional<Int8Quantization> sumQuantization;
  /// Run a winogradCandidate() in plain NHWC by Winograd's F(2x2, 3x3) on
  /// tgc's own kernel where oneDNN has no Winograd kernel and it pays
  /// (AVX2 machines; detail::nativeWinogradPays): CompileOptions::winograd.
  bool winograd = false;
  /// Set by createMatmul for a matmul it runs as this convolution: the
  /// kernel's name ("onednn.conv2d" otherwise), its tags then "[1x1 conv]"
  /// following it.
  std::string kernelName = {};
};
/// Inputs: input, filter, [bias], post-op operands. Output: result.
absl::StatusOr<KernelPtr> createConv2D(const Conv2DDesc &desc);
/// Whether `desc` is worth running with the Winograd algorithm: an f32,
/// ungrouped, 3x3, stride-1, undilated convolution with at least 32 input
/// and 32 output channels. oneDNN's Winograd kernels run those 1.2-2.5x
/// faster than its direct ones on AVX-512 machines at the same accuracy
/// (differences ~1e-6 relative; docs/cpu-backend.md), and lose below 32
/// channels. They take only blocked activation layouts (ConvLayouts).
bool winogradCandidate(const Conv2DDesc &desc);
/// This CPU's last-level cache in bytes, from the kernel's cache topology
/// (sysfs); 32 MiB where that cannot be read. A Winograd filter larger
/// than this runs on the direct kernel instead.
int64_t lastLevelCacheBytes();
/// Whether `desc` is weight-bound: an ungrouped float convolution with a
/// kernel larger than 1x1 that is no winogradCandidate and whose filter
/// holds at least 4x the bytes of its input and result together (batch 1,
/// late strided layers: ResNet-50's layer4.0.conv2, a 9.4 MB filter for
/// 0.5 MB of activations). oneDNN's blocked direct kernel streams such a
/// filter from memory slowly; its NHWC brgemm kernel does not (ConvLayouts).
/// False without AVX-512 (CpuIsa::avx512), where oneDNN 2.6 has no brgemm.
bool weightBoundConv(const Conv2DDesc &desc);

struct Pool2DDesc {
  enum class Kind { Max, Avg, GlobalAvg } kind;
  DType dtype;
  bool nhwc = false;
  Shape inputShape, resultShape;
  int64_t kernel[2] = {1, 1};
  int64_t strides[2] = {1, 1};
  int64_t padding[4] = {0, 0, 0, 0};
  int64_t dilations[2] = {1, 1};
  bool ceilMode = false;
  bool countIncludePad = false;
};
absl::StatusOr<KernelPtr> createPool2D(const Pool2DDesc &desc);

//===----------------------------------------------------------------------===//
// Blocked activation layouts
//===----------------------------------------------------------------------===//

/// An activation layout picked by oneDNN for an NHWC convolution or pooling
/// result (e.g. nChw16c), opaque outside these kernels: a value in it flows
/// only between kernels created for it (ValueInfo::layout), with a reorder
/// (createLayoutReorder) where plain NHWC is needed. `bytes` may exceed the
/// dense size: blocked layouts pad channels to the block (3 -> 16), and
/// the kernels keep the padding zero.
struct ActivationLayout {
  std::shared_ptr<const void> desc; ///< the oneDNN memory descriptor
  int64_t bytes = 0;
  std::string name; ///< e.g. "nChw16c"
};
bool sameLayout(const ActivationLayout &a, const ActivationLayout &b);
/// Whether `layout` is the dense NCHW layout of an NHWC-shaped (logical n,
/// h, w, c) `dtype` tensor: the bytes of its NCHW transpose.
bool isDenseNchw(const ActivationLayout &layout, DType dtype,
                 const Shape &nhwcShape);

/// The layout of an int8-quantized activation (Conv2DDesc::int8Output,
/// MatmulDesc::int8Output) of `shape`: one byte per element, 4-D shapes in
/// NHWC or NCHW as `nhwc` says ("nhwc u8"), others row-major ("plain
/// u8").
ActivationLayout quantizedLayout(const Shape &shape, bool nhwc,
                                 bool unsignedValues);

/// A kernel and the layouts of its input and result (nullopt: plain NHWC).
struct LayoutKernel {
  KernelPtr kernel;
  /// With ConvLayouts::anyInput: the layout the input must be reordered to.
  std::optional<ActivationLayout> inputLayout;
  std::optional<ActivationLayout> resultLayout;
  /// A convolution on oneDNN's Winograd kernel (ConvLayouts::winograd).
  bool winograd = false;
};

/// The activation layouts of a blocked convolution; null is plain NHWC.
struct ConvLayouts {
  const ActivationLayout *input = nullptr;
  /// Without `input`: let oneDNN pick the input's layout too (it keeps a
  /// plain input's layout for the result otherwise).
  bool anyInput = false;
  /// Ask for the ISA's blocked layout (CpuIsa::channelBlock: nChw16c,
  /// nChw8c) rather than oneDNN's choice (format `any`, which oneDNN 2.6
  /// resolves to NHWC for NHWC inputs on AVX-512 brgemm machines) where the
  /// layout is open.
  bool blockTag = false;
  /// Run a winogradCandidate() on oneDNN's Winograd kernels where the ISA
  /// has them (CpuIsa::winograd) and they take these layouts (nChw16c),
  /// else on its direct ones.
  bool winograd = false;
  /// The result in exactly this layout; null: oneDNN's preferred one.
  const ActivationLayout *result = nullptr;
  /// Per desc.postOps entry, the layout of its binary operand (a residual
  /// of the result's shape in `result`'s layout, or null).
  std::vector<const ActivationLayout *> postOpOperands;
};
/// An NHWC oneDNN convolution whose activations may be in blocked layouts:
/// every post-op must fuse into the primitive, and a descriptor only
/// oneDNN's reference implementation runs is refused. Unimplemented when
/// not possible: the caller uses createConv2D on plain NHWC operands.
absl::StatusOr<LayoutKernel> createLayoutConv2D(const Conv2DDesc &desc,
                                                const ConvLayouts &layouts);
/// An NHWC oneDNN pooling over an input in `input`, writing the layout
/// oneDNN pairs with it. Unimplemented as createLayoutConv2D.
absl::StatusOr<LayoutKernel> createLayoutPool2D(const Pool2DDesc &desc,
                                                const ActivationLayout &input);
/// Concatenates NHWC-shaped activations in the ISA's blocked layout
/// (nChw16c, nChw8c) along the channels into that layout (`blockTag`:
/// ActivationLayouts::Blocked), every input with whole channel blocks (no
/// padding inside the result): block copies.
/// Unimplemented otherwise.
absl::StatusOr<LayoutKernel>
createLayoutConcat(DType dtype, const std::vector<Shape> &nhwcInputs,
                   const std::vector<const ActivationLayout *> &inputs,
                   bool blockTag);
/// Reorders an NHWC-shaped activation between layouts (null: plain NHWC).
absl::StatusOr<KernelPtr> createLayoutReorder(DType dtype,
                                              const Shape &nhwcShape,
                                              const ActivationLayout *from,
                                              const ActivationLayout *to);

/// Unary elementwise op (tgc unary ops incl. leaky_relu/elu/clamp/gelu).
absl::StatusOr<KernelPtr> createEltwise(const EltwiseDesc &desc);

struct BinaryDesc {
  enum class Kind {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge
  } kind;
  DType dtype; ///< operand dtype (result is i1 for comparisons)
  Shape lhsShape, rhsShape, resultShape; ///< numpy broadcasting
};
absl::StatusOr<KernelPtr> createBinary(const BinaryDesc &desc);

struct SelectDesc {
  DType dtype;
  Shape conditionShape, trueShape, falseShape, resultShape;
};
absl::StatusOr<KernelPtr> createSelect(const SelectDesc &desc);

struct SoftmaxDesc {
  DType dtype;
  Shape shape;
  int64_t axis;
  bool log = false;
};
absl::StatusOr<KernelPtr> createSoftmax(const SoftmaxDesc &desc);

struct LayerNormDesc {
  DType dtype;
  Shape shape;
  int64_t axis; ///< normalizes [axis, rank)
  double epsilon;
  bool hasScale = false, hasBias = false;
};
/// Inputs: input, [scale], [bias].
absl::StatusOr<KernelPtr> createLayerNorm(const LayerNormDesc &desc);

struct BatchNormDesc {
  DType dtype;
  Shape shape;
  int64_t axis; ///< channel axis
  double epsilon;
};
/// Inputs: input, scale, bias, mean, variance.
absl::StatusOr<KernelPtr> createBatchNorm(const BatchNormDesc &desc);

struct ReduceDesc {
  enum class Kind { Sum, Mean, Max, Min, Prod, ArgMax, ArgMin } kind;
  DType dtype; ///< input dtype (ArgMax/ArgMin produce i64)
  Shape inputShape, resultShape;
  std::vector<int64_t> axes;
  bool keepdims = false;
  bool selectLastIndex = false;
};
absl::StatusOr<KernelPtr> createReduce(const ReduceDesc &desc);

/// tgc.topk: along `axis` of `inputShape`, the `k` largest (`largest =
/// false`: smallest) elements, best first, and their i64 indices; equal
/// elements in index order, NaN above every number, values copied bit for
/// bit. `k = -1` takes every element (a sort). Outputs: values, indices.
struct TopKDesc {
  DType dtype;
  Shape inputShape;
  int64_t axis = 0;
  int64_t k = -1;
  bool largest = true;
};
/// Native: per line a bounded heap (small k) or a selection and a sort,
/// lines in parallel; one long line is split across the threads and their
/// candidates merged.
absl::StatusOr<KernelPtr> createTopK(const TopKDesc &desc);

/// Copy with a dtype conversion (tgc.cast semantics).
absl::StatusOr<KernelPtr> createCast(DType from, DType to, const Shape &shape);
/// Elementwise boolean not of an i1 tensor of `shape` (native).
absl::StatusOr<KernelPtr> createLogicalNot(const Shape &shape);
absl::StatusOr<KernelPtr> createTranspose(DType dtype, const Shape &inputShape,
                                          const std::vector<int64_t> &perm);
absl::StatusOr<KernelPtr> createBroadcastTo(DType dtype,
                                            const Shape &inputShape,
                                            const Shape &resultShape);
absl::StatusOr<KernelPtr>
createConcat(DType dtype, const std::vector<Shape> &inputShapes, int64_t axis);
/// `starts[d]` is the first index taken in dim d (negative counts from the
/// end), `steps` (empty: all 1) may be negative; `resultShape[d]` elements
/// are taken per dim and must stay inside the input.
absl::StatusOr<KernelPtr> createSlice(DType dtype, const Shape &inputShape,
                                      const std::vector<int64_t> &starts,
                                      const std::vector<int64_t> &steps,
                                      const Shape &resultShape);
absl::StatusOr<KernelPtr> createPad(DType dtype, const Shape &inputShape,
                                    const std::vector<int64_t> &low,
                                    const Shape &resultShape, double value);
/// Inputs: data, indices (i32 or i64, negative counts from the end). An
/// out-of-range index makes run() return OutOfRangeError before any write.
absl::StatusOr<KernelPtr> createGather(DType dtype, const Shape &dataShape,
                                       DType indexDType,
                                       const Shape &indicesShape, int64_t axis);

/// A kernel that does nothing: for ops whose results are all empty.
KernelPtr createNoOp(std::string name);

} // namespace tgc::runtime::cpu

#endif // TGC_RUNTIME_CPU_KERNELS_H
