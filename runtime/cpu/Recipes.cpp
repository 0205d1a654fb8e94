//===- Recipes.cpp - kernels made again from saved descriptors ------------===//
//
// The recording factories of Kernels.h and remakeKernel. Each factory's
// arguments are encoded field by field in declaration order; decoding reads
// them back in the same order and checks enumerators, counts and constant
// slots, so a damaged descriptor is an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/Recipes.h"

#include "runtime/ByteStream.h"
#include "runtime/ControlFlow.h"
#include "runtime/cpu/Common.h"
#include "runtime/cpu/PlanFile.h"

#include <map>
#include <mutex>

namespace tgc::detail {
// Defined where a program has the compiler within reach (libtgc, or a
// program linking tgc::Model's library: frontend/onnx/LazyModel.cpp):
// registers the compiler's kernel loaders (the loop kernels'), loading
// libtgc_compiler first in libtgc. The runtime alone (libtgc_runtime) has
// none: a plan with loop kernels is then an error saying so.
__attribute__((weak)) void registerCompilerKernelLoadersOnDemand();
} // namespace tgc::detail

namespace tgc::runtime::cpu {
namespace {

void putDType(ByteWriter &w, DType d) {
  w.put<int64_t>(static_cast<int64_t>(d));
}
DType getDType(ByteReader &r) { return r.getEnum(DType::UI64); }

void putPostOps(ByteWriter &w, const std::vector<PostOp> &ops) {
  w.put<uint64_t>(ops.size());
  for (const PostOp &op : ops) {
    w.put(op.kind);
    w.put(op.eltwise);
    w.put(op.alpha);
    w.put(op.beta);
    w.putInts(op.operandShape);
  }
}

std::vector<PostOp> getPostOps(ByteReader &r) {
  std::vector<PostOp> ops(r.getCount(8));
  for (PostOp &op : ops) {
    op.kind = r.getEnum(PostOp::Kind::Div);
    op.eltwise = r.getEnum(EltwiseKind::Linear);
    op.alpha = r.get<double>();
    op.beta = r.get<double>();
    op.operandShape = r.getInts();
  }
  return ops;
}

template <size_t N> void putArray(ByteWriter &w, const int64_t (&a)[N]) {
  for (int64_t v : a)
    w.put(v);
}
template <size_t N> void getArray(ByteReader &r, int64_t (&a)[N]) {
  for (int64_t &v : a)
    v = r.get<int64_t>();
}

void putOptionalShape(ByteWriter &w, const std::optional<Shape> &s) {
  w.put(s.has_value());
  if (s)
    w.putInts(*s);
}
std::optional<Shape> getOptionalShape(ByteReader &r) {
  if (!r.get<bool>())
    return std::nullopt;
  return r.getInts();
}

/// A constant slot: -1 for none, else its index in the recipe's constants.
void putConstant(ByteWriter &w, const HostTensor *constant,
                 std::vector<const void *> &constants) {
  if (!constant) {
    w.put<int64_t>(-1);
    return;
  }
  w.put<int64_t>(static_cast<int64_t>(constants.size()));
  constants.push_back(constant->data());
}
const HostTensor *getConstant(ByteReader &r, const RemakeContext &context) {
  int64_t slot = r.get<int64_t>();
  if (slot < 0)
    return nullptr;
  if (static_cast<size_t>(slot) >= context.constants.size() ||
      !context.constants[static_cast<size_t>(slot)]) {
    r.fail("constant slot " + std::to_string(slot) + " is not given");
    return nullptr;
  }
  return context.constants[static_cast<size_t>(slot)];
}

/// Whether oneDNN can be given `md` (see memoryDescFromBytes).
bool plausibleMemoryDesc(const dnnl_memory_desc_t &md, bool blockedOnly) {
  constexpr int64_t kMaxDim = int64_t(1) << 40;
  if (md.ndims <= 0 || md.ndims > DNNL_MAX_NDIMS ||
      md.data_type <= dnnl_data_type_undef || md.data_type > dnnl_u8 ||
      md.offset0 < 0 || md.offset0 > kMaxDim)
    return false;
  for (int d = 0; d < md.ndims; ++d)
    if (md.dims[d] <= 0 || md.dims[d] > kMaxDim ||
        md.padded_dims[d] < md.dims[d] || md.padded_dims[d] > kMaxDim ||
        md.padded_offsets[d] < 0 || md.padded_offsets[d] > md.padded_dims[d])
      return false;
  if (md.format_kind != dnnl_blocked)
    return !blockedOnly && md.format_kind >= dnnl_format_kind_wino &&
           md.format_kind <= dnnl_format_kind_rnn_packed;
  const dnnl_blocking_desc_t &b = md.format_desc.blocking;
  if (b.inner_nblks < 0 || b.inner_nblks > DNNL_MAX_NDIMS)
    return false;
  for (int d = 0; d < md.ndims; ++d)
    if (b.strides[d] < 0 || b.strides[d] > kMaxDim)
      return false;
  for (int k = 0; k < b.inner_nblks; ++k)
    if (b.inner_blks[k] <= 0 || b.inner_blks[k] > 1024 || b.inner_idxs[k] < 0 ||
        b.inner_idxs[k] >= md.ndims)
      return false;
  return true;
}

void putLayout(ByteWriter &w, const ActivationLayout *layout) {
  w.put(layout != nullptr);
  if (!layout)
    return;
  w.putString(std::string_view(static_cast<const char *>(layout->desc.get()),
                               sizeof(dnnl_memory_desc_t)));
  w.put(layout->bytes);
  w.putString(layout->name);
}
std::optional<ActivationLayout> getLayout(ByteReader &r) {
  if (!r.get<bool>())
    return std::nullopt;
  std::string desc = r.getString();
  ActivationLayout layout;
  layout.bytes = r.get<int64_t>();
  layout.name = r.getString();
  if (!r.ok())
    return std::nullopt;
  // oneDNN trusts its descriptors: a damaged one must not reach it.
  std::optional<dnnl_memory_desc_t> parsed =
      detail::memoryDescFromBytes(desc, /*blockedOnly=*/true);
  if (!parsed) {
    r.fail("a damaged layout descriptor");
    return std::nullopt;
  }
  auto md = std::make_shared<dnnl_memory_desc_t>(*parsed);
  try {
    if (static_cast<int64_t>(dnnl::memory::desc(*md).get_size()) !=
        layout.bytes) {
      r.fail("a layout descriptor whose size is not the one saved");
      return std::nullopt;
    }
  } catch (const dnnl::error &) {
    r.fail("a layout descriptor oneDNN rejects");
    return std::nullopt;
  }
  layout.desc = std::move(md);
  return layout;
}
const ActivationLayout *ptr(const std::optional<ActivationLayout> &layout) {
  return layout ? &*layout : nullptr;
}

void putInt8(ByteWriter &w, const std::optional<Int8Quantization> &q) {
  w.put(q.has_value());
  if (q) {
    w.put(q->inputScale);
    w.put(q->unsignedInput);
    w.put(q->quantizedInput);
    w.put(q->zeroPoint);
  }
}
std::optional<Int8Quantization> getInt8(ByteReader &r) {
  if (!r.get<bool>())
    return std::nullopt;
  Int8Quantization q;
  q.inputScale = r.get<float>();
  q.unsignedInput = r.get<bool>();
  q.quantizedInput = r.get<bool>();
  q.zeroPoint = r.get<int32_t>();
  return q;
}

void putMatmul(ByteWriter &w, const MatmulDesc &d,
               std::vector<const void *> &constants) {
  putDType(w, d.dtype);
  w.putInts(d.lhsShape);
  w.putInts(d.rhsShape);
  w.putInts(d.resultShape);
  w.put(d.transposeA);
  w.put(d.transposeB);
  putOptionalShape(w, d.biasShape);
  putPostOps(w, d.postOps);
  putConstant(w, d.constantRhs, constants);
  putConstant(w, d.constantBias, constants);
  w.put(d.bf16);
  putInt8(w, d.int8);
  putInt8(w, d.int8Output);
  for (const auto *view : {&d.lhsView, &d.rhsView}) {
    w.put(view->has_value());
    if (*view) {
      w.putInts((*view)->strides);
      w.put((*view)->offset);
    }
  }
}
MatmulDesc getMatmul(ByteReader &r, const RemakeContext &context) {
  MatmulDesc d{getDType(r)};
  d.lhsShape = r.getInts();
  d.rhsShape = r.getInts();
  d.resultShape = r.getInts();
  d.transposeA = r.get<bool>();
  d.transposeB = r.get<bool>();
  d.biasShape = getOptionalShape(r);
  d.postOps = getPostOps(r);
  d.constantRhs = getConstant(r, context);
  d.constantBias = getConstant(r, context);
  d.bf16 = r.get<bool>();
  d.int8 = getInt8(r);
  d.int8Output = getInt8(r);
  for (auto *view : {&d.lhsView, &d.rhsView}) {
    if (!r.get<bool>())
      continue;
    MatmulDesc::OperandView v;
    v.strides = r.getInts();
    v.offset = r.get<int64_t>();
    *view = std::move(v);
  }
  return d;
}

void putConv(ByteWriter &w, const Conv2DDesc &d,
             std::vector<const void *> &constants) {
  putDType(w, d.dtype);
  w.put(d.nhwc);
  w.putInts(d.inputShape);
  w.putInts(d.filterShape);
  w.putInts(d.resultShape);
  putOptionalShape(w, d.biasShape);
  putArray(w, d.strides);
  putArray(w, d.padding);
  putArray(w, d.dilations);
  w.put(d.groups);
  putPostOps(w, d.postOps);
  putConstant(w, d.constantFilter, constants);
  putConstant(w, d.constantBias, constants);
  w.put(d.filterOIHW);
  w.put(d.bf16);
  putInt8(w, d.int8);
  putInt8(w, d.int8Output);
  putInt8(w, d.sumQuantization);
  w.put(d.winograd);
}
Conv2DDesc getConv(ByteReader &r, const RemakeContext &context) {
  Conv2DDesc d{getDType(r)};
  d.nhwc = r.get<bool>();
  d.inputShape = r.getInts();
  d.filterShape = r.getInts();
  d.resultShape = r.getInts();
  d.biasShape = getOptionalShape(r);
  getArray(r, d.strides);
  getArray(r, d.padding);
  getArray(r, d.dilations);
  d.groups = r.get<int64_t>();
  d.postOps = getPostOps(r);
  d.constantFilter = getConstant(r, context);
  d.constantBias = getConstant(r, context);
  d.filterOIHW = r.get<bool>();
  d.bf16 = r.get<bool>();
  d.int8 = getInt8(r);
  d.int8Output = getInt8(r);
  d.sumQuantization = getInt8(r);
  d.winograd = r.get<bool>();
  return d;
}

void putPool(ByteWriter &w, const Pool2DDesc &d) {
  w.put(d.kind);
  putDType(w, d.dtype);
  w.put(d.nhwc);
  w.putInts(d.inputShape);
  w.putInts(d.resultShape);
  putArray(w, d.kernel);
  putArray(w, d.strides);
  putArray(w, d.padding);
  putArray(w, d.dilations);
  w.put(d.ceilMode);
  w.put(d.countIncludePad);
}
Pool2DDesc getPool(ByteReader &r) {
  Pool2DDesc d{r.getEnum(Pool2DDesc::Kind::GlobalAvg), getDType(r)};
  d.nhwc = r.get<bool>();
  d.inputShape = r.getInts();
  d.resultShape = r.getInts();
  getArray(r, d.kernel);
  getArray(r, d.strides);
  getArray(r, d.padding);
  getArray(r, d.dilations);
  d.ceilMode = r.get<bool>();
  d.countIncludePad = r.get<bool>();
  return d;
}

/// The layouts a layout kernel came out with, recorded after its arguments:
/// remaking it must give the same ones (the plan's arena was sized for
/// them).
void putOutcome(ByteWriter &w, const LayoutKernel &made) {
  putLayout(w, ptr(made.inputLayout));
  putLayout(w, ptr(made.resultLayout));
  w.put(made.winograd);
}
absl::Status checkOutcome(ByteReader &r, const LayoutKernel &made,
                          std::string_view factory) {
  std::optional<ActivationLayout> input = getLayout(r);
  std::optional<ActivationLayout> result = getLayout(r);
  bool winograd = r.get<bool>();
  if (!r.ok())
    return r.status();
  auto same = [](const std::optional<ActivationLayout> &a,
                 const std::optional<ActivationLayout> &b) {
    return a.has_value() == b.has_value() && (!a || sameLayout(*a, *b));
  };
  if (!same(input, made.inputLayout) || !same(result, made.resultLayout) ||
      winograd != made.winograd)
    return absl::FailedPreconditionError(
        absl::StrCat(std::string(factory),
                     ": oneDNN picks other layouts on this machine (saved ",
                     result ? result->name : "plain", ", now ",
                     made.resultLayout ? made.resultLayout->name : "plain",
                     "): the plan was made for another CPU"));
  return absl::OkStatus();
}

LayoutKernel recordLayoutKernel(LayoutKernel made, std::string factory,
                                ByteWriter w,
                                std::vector<const void *> constants) {
  putOutcome(w, made);
  made.kernel = withRecipe(std::move(made.kernel), std::move(factory), w.take(),
                           std::move(constants));
  return made;
}

std::mutex &loaderMutex() {
  static std::mutex mutex;
  return mutex;
}
std::map<std::string, KernelLoader, std::less<>> &loaders() {
  static auto *table = new std::map<std::string, KernelLoader, std::less<>>();
  return *table;
}

thread_local RemakeContext *derivedSupply = nullptr;

/// While alive, `context` is this thread's currentDerivedSupply().
class DerivedSupplyScope {
public:
  explicit DerivedSupplyScope(RemakeContext &context)
      : previous(derivedSupply) {
    derivedSupply = &context;
  }
  ~DerivedSupplyScope() { derivedSupply = previous; }
  DerivedSupplyScope(const DerivedSupplyScope &) = delete;
  DerivedSupplyScope &operator=(const DerivedSupplyScope &) = delete;

private:
  RemakeContext *previous;
};
} // namespace

//===----------------------------------------------------------------------===//
// Recording
//===----------------------------------------------------------------------===//

KernelPtr withRecipe(KernelPtr kernel, std::string factory,
                     std::string descriptor,
                     std::vector<const void *> constants) {
  if (!kernel)
    return kernel;
  auto recipe = std::make_shared<KernelRecipe>();
  recipe->factory = std::move(factory);
  recipe->descriptor = std::move(descriptor);
  recipe->constants = std::move(constants);
  // Made by the factory that calls this and not shared yet.
  const_cast<Kernel &>(*kernel).recipe = std::move(recipe);
  return kernel;
}

std::optional<dnnl_memory_desc_t>
detail::memoryDescFromBytes(std::string_view bytes, bool blockedOnly) {
  dnnl_memory_desc_t md;
  if (bytes.size() != sizeof(md))
    return std::nullopt;
  std::memcpy(&md, bytes.data(), sizeof(md));
  if (!plausibleMemoryDesc(md, blockedOnly))
    return std::nullopt;
  return md;
}

RemakeContext *detail::currentDerivedSupply() { return derivedSupply; }
bool detail::constantHasSpecialValues(const HostTensor &constant) {
  if (derivedSupply)
    for (const HostTensor *known : derivedSupply->finite)
      if (known == &constant || (known->data() == constant.data() &&
                                 known->byteSize() == constant.byteSize()))
        return false;
  return hasSpecialValues(constant, NaNGuardScan::NonFinite);
}

#define TGC_RECORD(FACTORY, CALL, ENCODE)                                      \
  do {                                                                         \
    auto made = CALL;                                                          \
    if (!made.ok())                                                            \
      return made;                                                             \
    ByteWriter w;                                                              \
    std::vector<const void *> constants;                                       \
    ENCODE;                                                                    \
    return withRecipe(*std::move(made), FACTORY, w.take(),                     \
                      std::move(constants));                                   \
  } while (false)

absl::StatusOr<KernelPtr> createMatmul(const MatmulDesc &d) {
  TGC_RECORD("matmul", createMatmulUnrecorded(d), putMatmul(w, d, constants));
}
absl::StatusOr<KernelPtr> createConv2D(const Conv2DDesc &d) {
  TGC_RECORD("conv2d", createConv2DUnrecorded(d), putConv(w, d, constants));
}
absl::StatusOr<KernelPtr> createPool2D(const Pool2DDesc &d) {
  TGC_RECORD("pool2d", createPool2DUnrecorded(d), putPool(w, d));
}
absl::StatusOr<KernelPtr> createEltwise(const EltwiseDesc &d) {
  TGC_RECORD("eltwise", createEltwiseUnrecorded(d), {
    w.put(d.kind);
    putDType(w, d.dtype);
    w.putInts(d.shape);
    w.put(d.alpha);
    w.put(d.beta);
  });
}
absl::StatusOr<KernelPtr> createBinary(const BinaryDesc &d) {
  TGC_RECORD("binary", createBinaryUnrecorded(d), {
    w.put(d.kind);
    putDType(w, d.dtype);
    w.putInts(d.lhsShape);
    w.putInts(d.rhsShape);
    w.putInts(d.resultShape);
  });
}
absl::StatusOr<KernelPtr> createSelect(const SelectDesc &d) {
  TGC_RECORD("select", createSelectUnrecorded(d), {
    putDType(w, d.dtype);
    w.putInts(d.conditionShape);
    w.putInts(d.trueShape);
    w.putInts(d.falseShape);
    w.putInts(d.resultShape);
  });
}
absl::StatusOr<KernelPtr> createSoftmax(const SoftmaxDesc &d) {
  TGC_RECORD("softmax", createSoftmaxUnrecorded(d), {
    putDType(w, d.dtype);
    w.putInts(d.shape);
    w.put(d.axis);
    w.put(d.log);
  });
}
absl::StatusOr<KernelPtr> createLayerNorm(const LayerNormDesc &d) {
  TGC_RECORD("layer_norm", createLayerNormUnrecorded(d), {
    putDType(w, d.dtype);
    w.putInts(d.shape);
    w.put(d.axis);
    w.put(d.epsilon);
    w.put(d.hasScale);
    w.put(d.hasBias);
  });
}
absl::StatusOr<KernelPtr> createBatchNorm(const BatchNormDesc &d) {
  TGC_RECORD("batch_norm", createBatchNormUnrecorded(d), {
    putDType(w, d.dtype);
    w.putInts(d.shape);
    w.put(d.axis);
    w.put(d.epsilon);
  });
}
absl::StatusOr<KernelPtr> createReduce(const ReduceDesc &d) {
  TGC_RECORD("reduce", createReduceUnrecorded(d), {
    w.put(d.kind);
    putDType(w, d.dtype);
    w.putInts(d.inputShape);
    w.putInts(d.resultShape);
    w.putInts(d.axes);
    w.put(d.keepdims);
    w.put(d.selectLastIndex);
  });
}
absl::StatusOr<KernelPtr> createTopK(const TopKDesc &d) {
  TGC_RECORD("topk", createTopKUnrecorded(d), {
    putDType(w, d.dtype);
    w.putInts(d.inputShape);
    w.put(d.axis);
    w.put(d.k);
    w.put(d.largest);
  });
}
absl::StatusOr<KernelPtr> createLogicalNot(const Shape &shape) {
  TGC_RECORD("logical_not", createLogicalNotUnrecorded(shape),
             { w.putInts(shape); });
}
absl::StatusOr<KernelPtr> createCast(DType from, DType to, const Shape &shape) {
  TGC_RECORD("cast", createCastUnrecorded(from, to, shape), {
    putDType(w, from);
    putDType(w, to);
    w.putInts(shape);
  });
}
absl::StatusOr<KernelPtr> createTranspose(DType dtype, const Shape &inputShape,
                                          const std::vector<int64_t> &perm) {
  TGC_RECORD("transpose", createTransposeUnrecorded(dtype, inputShape, perm), {
    putDType(w, dtype);
    w.putInts(inputShape);
    w.putInts(perm);
  });
}
absl::StatusOr<KernelPtr> createBroadcastTo(DType dtype,
                                            const Shape &inputShape,
                                            const Shape &resultShape) {
  TGC_RECORD("broadcast_to",
             createBroadcastToUnrecorded(dtype, inputShape, resultShape), {
               putDType(w, dtype);
               w.putInts(inputShape);
               w.putInts(resultShape);
             });
}
absl::StatusOr<KernelPtr>
createConcat(DType dtype, const std::vector<Shape> &inputShapes, int64_t axis) {
  TGC_RECORD("concat", createConcatUnrecorded(dtype, inputShapes, axis), {
    putDType(w, dtype);
    w.put<uint64_t>(inputShapes.size());
    for (const Shape &s : inputShapes)
      w.putInts(s);
    w.put(axis);
  });
}
absl::StatusOr<KernelPtr> createSlice(DType dtype, const Shape &inputShape,
                                      const std::vector<int64_t> &starts,
                                      const std::vector<int64_t> &steps,
                                      const Shape &resultShape) {
  TGC_RECORD(
      "slice",
      createSliceUnrecorded(dtype, inputShape, starts, steps, resultShape), {
        putDType(w, dtype);
        w.putInts(inputShape);
        w.putInts(starts);
        w.putInts(steps);
        w.putInts(resultShape);
      });
}
absl::StatusOr<KernelPtr> createPad(DType dtype, const Shape &inputShape,
                                    const std::vector<int64_t> &low,
                                    const Shape &resultShape, double value) {
  TGC_RECORD("pad",
             createPadUnrecorded(dtype, inputShape, low, resultShape, value), {
               putDType(w, dtype);
               w.putInts(inputShape);
               w.putInts(low);
               w.putInts(resultShape);
               w.put(value);
             });
}
absl::StatusOr<KernelPtr> createGather(DType dtype, const Shape &dataShape,
                                       DType indexDType,
                                       const Shape &indicesShape,
                                       int64_t axis) {
  TGC_RECORD(
      "gather",
      createGatherUnrecorded(dtype, dataShape, indexDType, indicesShape, axis),
      {
        putDType(w, dtype);
        w.putInts(dataShape);
        putDType(w, indexDType);
        w.putInts(indicesShape);
        w.put(axis);
      });
}
absl::StatusOr<KernelPtr> createLayoutReorder(DType dtype,
                                              const Shape &nhwcShape,
                                              const ActivationLayout *from,
                                              const ActivationLayout *to) {
  TGC_RECORD("layout_reorder",
             createLayoutReorderUnrecorded(dtype, nhwcShape, from, to), {
               putDType(w, dtype);
               w.putInts(nhwcShape);
               putLayout(w, from);
               putLayout(w, to);
             });
}
#undef TGC_RECORD

KernelPtr createNoOp(std::string name) {
  ByteWriter w;
  w.putString(name);
  return withRecipe(detail::makeNoOpKernel(std::move(name)), "noop", w.take());
}

absl::StatusOr<LayoutKernel> createLayoutConv2D(const Conv2DDesc &desc,
                                                const ConvLayouts &layouts) {
  auto made = createLayoutConv2DUnrecorded(desc, layouts);
  if (!made.ok())
    return made;
  ByteWriter w;
  std::vector<const void *> constants;
  putConv(w, desc, constants);
  putLayout(w, layouts.input);
  w.put(layouts.anyInput);
  w.put(layouts.blockTag);
  w.put(layouts.winograd);
  putLayout(w, layouts.result);
  w.put<uint64_t>(layouts.postOpOperands.size());
  for (const ActivationLayout *operand : layouts.postOpOperands)
    putLayout(w, operand);
  return recordLayoutKernel(*std::move(made), "layout_conv2d", std::move(w),
                            std::move(constants));
}

absl::StatusOr<LayoutKernel> createLayoutPool2D(const Pool2DDesc &desc,
                                                const ActivationLayout &input) {
  auto made = createLayoutPool2DUnrecorded(desc, input);
  if (!made.ok())
    return made;
  ByteWriter w;
  putPool(w, desc);
  putLayout(w, &input);
  return recordLayoutKernel(*std::move(made), "layout_pool2d", std::move(w),
                            {});
}

absl::StatusOr<LayoutKernel>
createLayoutConcat(DType dtype, const std::vector<Shape> &nhwcInputs,
                   const std::vector<const ActivationLayout *> &inputs,
                   bool blockTag) {
  auto made = createLayoutConcatUnrecorded(dtype, nhwcInputs, inputs, blockTag);
  if (!made.ok())
    return made;
  ByteWriter w;
  putDType(w, dtype);
  w.put<uint64_t>(nhwcInputs.size());
  for (const Shape &s : nhwcInputs)
    w.putInts(s);
  w.put<uint64_t>(inputs.size());
  for (const ActivationLayout *layout : inputs)
    putLayout(w, layout);
  w.put(blockTag);
  return recordLayoutKernel(*std::move(made), "layout_concat", std::move(w),
                            {});
}

namespace {
/// Appends both nested plans to `w` (serialized); false where either
/// cannot be saved.
bool putNestedPlans(ByteWriter &w, const Executable &first,
                    const Executable &second) {
  for (const Executable *plan : {&first, &second}) {
    if (!checkSavable(*plan).ok())
      return false;
    auto bytes = serializePlan(*plan, {});
    if (!bytes.ok())
      return false;
    w.putString(*bytes);
  }
  return true;
}
} // namespace

KernelPtr createIfKernel(std::shared_ptr<const Executable> thenPlan,
                         std::shared_ptr<const Executable> elsePlan,
                         std::shared_ptr<const void> owner, bool savable) {
  KernelPtr kernel = makeIfKernel(thenPlan, elsePlan, std::move(owner));
  ByteWriter w;
  if (!savable || !putNestedPlans(w, *thenPlan, *elsePlan))
    return kernel;
  return withRecipe(std::move(kernel), "control.if", w.take());
}

KernelPtr createWhileKernel(std::shared_ptr<const Executable> condPlan,
                            std::shared_ptr<const Executable> bodyPlan,
                            size_t carried, std::shared_ptr<const void> owner,
                            bool savable) {
  KernelPtr kernel =
      makeWhileKernel(condPlan, bodyPlan, carried, std::move(owner));
  ByteWriter w;
  w.put<uint64_t>(carried);
  if (!savable || !putNestedPlans(w, *condPlan, *bodyPlan))
    return kernel;
  return withRecipe(std::move(kernel), "control.while", w.take());
}

//===----------------------------------------------------------------------===//
// Remaking
//===----------------------------------------------------------------------===//

void registerKernelLoader(std::string factory, KernelLoader loader) {
  std::lock_guard<std::mutex> lock(loaderMutex());
  loaders().emplace(std::move(factory), std::move(loader));
}

namespace {
absl::StatusOr<LayoutKernel> remakeLayoutKernel(std::string_view factory,
                                                ByteReader &r,
                                                RemakeContext &context) {
  absl::StatusOr<LayoutKernel> made = absl::InternalError("unreachable");
  if (factory == "layout_conv2d") {
    Conv2DDesc desc = getConv(r, context);
    std::optional<ActivationLayout> input = getLayout(r);
    ConvLayouts layouts;
    layouts.input = ptr(input);
    layouts.anyInput = r.get<bool>();
    layouts.blockTag = r.get<bool>();
    layouts.winograd = r.get<bool>();
    std::optional<ActivationLayout> result = getLayout(r);
    layouts.result = ptr(result);
    std::vector<std::optional<ActivationLayout>> operands(r.getCount(1));
    for (auto &operand : operands)
      operand = getLayout(r);
    for (auto &operand : operands)
      layouts.postOpOperands.push_back(ptr(operand));
    if (!r.ok())
      return r.status();
    made = createLayoutConv2D(desc, layouts);
  } else if (factory == "layout_pool2d") {
    Pool2DDesc desc = getPool(r);
    std::optional<ActivationLayout> input = getLayout(r);
    if (r.ok() && !input)
      r.fail("a layout pool without its input layout");
    if (!r.ok())
      return r.status();
    made = createLayoutPool2D(desc, *input);
  } else {
    DType dtype = getDType(r);
    std::vector<Shape> shapes(r.getCount(8));
    for (Shape &s : shapes)
      s = r.getInts();
    std::vector<std::optional<ActivationLayout>> layouts(r.getCount(1));
    for (auto &layout : layouts)
      layout = getLayout(r);
    bool blockTag = r.get<bool>();
    if (!r.ok())
      return r.status();
    std::vector<const ActivationLayout *> pointers;
    for (auto &layout : layouts)
      pointers.push_back(ptr(layout));
    made = createLayoutConcat(dtype, shapes, pointers, blockTag);
  }
  if (!made.ok())
    return made;
  if (absl::Status s = checkOutcome(r, *made, factory); !s.ok())
    return s;
  return made;
}

/// The kernel of a runtime/cpu factory; nullopt for another factory.
std::optional<absl::StatusOr<KernelPtr>>
remakeBuiltin(std::string_view factory, ByteReader &r, RemakeContext &context) {
  if (factory == "control.if" || factory == "control.while") {
    bool loop = factory == "control.while";
    uint64_t carried = loop ? r.get<uint64_t>() : 0;
    std::shared_ptr<const Executable> plans[2];
    ByteWriter again; // the descriptor, for the remade kernel's recipe
    if (loop)
      again.put(carried);
    for (int i = 0; i < 2 && r.ok(); ++i) {
      std::string bytes = r.getString();
      if (!r.ok())
        break;
      again.putString(bytes);
      auto loaded = loadPlanFromBytes(
          bytes, absl::StrCat("the nested plan #", i, " of a ",
                              std::string(factory), " step"));
      if (!loaded.ok())
        return absl::StatusOr<KernelPtr>(loaded.status());
      plans[i] = loaded->executable;
    }
    if (!r.ok())
      return absl::StatusOr<KernelPtr>(r.status());
    if (loop &&
        (plans[1]->outputs.size() != carried || plans[0]->outputs.size() != 1))
      return absl::StatusOr<KernelPtr>(absl::DataLossError(
          "a control.while step's nested plans do not fit its carried values"));
    KernelPtr kernel =
        loop ? makeWhileKernel(plans[0], plans[1], carried, nullptr)
             : makeIfKernel(plans[0], plans[1], nullptr);
    return absl::StatusOr<KernelPtr>(
        withRecipe(std::move(kernel), std::string(factory), again.take()));
  }
  // Decode first; call the factory only on a whole descriptor.
  auto call = [&](auto &&make) -> absl::StatusOr<KernelPtr> {
    if (!r.ok())
      return r.status();
    return make();
  };
  if (factory == "matmul") {
    MatmulDesc d = getMatmul(r, context);
    return call([&] { return createMatmul(d); });
  }
  if (factory == "conv2d") {
    Conv2DDesc d = getConv(r, context);
    return call([&] { return createConv2D(d); });
  }
  if (factory == "pool2d") {
    Pool2DDesc d = getPool(r);
    return call([&] { return createPool2D(d); });
  }
  if (factory == "eltwise") {
    EltwiseDesc d{r.getEnum(EltwiseKind::Linear), getDType(r), r.getInts()};
    d.alpha = r.get<double>();
    d.beta = r.get<double>();
    return call([&] { return createEltwise(d); });
  }
  if (factory == "binary") {
    BinaryDesc d{r.getEnum(BinaryDesc::Kind::Ge), getDType(r)};
    d.lhsShape = r.getInts();
    d.rhsShape = r.getInts();
    d.resultShape = r.getInts();
    return call([&] { return createBinary(d); });
  }
  if (factory == "select") {
    SelectDesc d{getDType(r)};
    d.conditionShape = r.getInts();
    d.trueShape = r.getInts();
    d.falseShape = r.getInts();
    d.resultShape = r.getInts();
    return call([&] { return createSelect(d); });
  }
  if (factory == "softmax") {
    SoftmaxDesc d{getDType(r), r.getInts()};
    d.axis = r.get<int64_t>();
    d.log = r.get<bool>();
    return call([&] { return createSoftmax(d); });
  }
  if (factory == "layer_norm") {
    LayerNormDesc d{getDType(r), r.getInts()};
    d.axis = r.get<int64_t>();
    d.epsilon = r.get<double>();
    d.hasScale = r.get<bool>();
    d.hasBias = r.get<bool>();
    return call([&] { return createLayerNorm(d); });
  }
  if (factory == "batch_norm") {
    BatchNormDesc d{getDType(r), r.getInts()};
    d.axis = r.get<int64_t>();
    d.epsilon = r.get<double>();
    return call([&] { return createBatchNorm(d); });
  }
  if (factory == "reduce") {
    ReduceDesc d{r.getEnum(ReduceDesc::Kind::ArgMin), getDType(r)};
    d.inputShape = r.getInts();
    d.resultShape = r.getInts();
    d.axes = r.getInts();
    d.keepdims = r.get<bool>();
    d.selectLastIndex = r.get<bool>();
    return call([&] { return createReduce(d); });
  }
  if (factory == "topk") {
    TopKDesc d{getDType(r), r.getInts()};
    d.axis = r.get<int64_t>();
    d.k = r.get<int64_t>();
    d.largest = r.get<bool>();
    return call([&] { return createTopK(d); });
  }
  if (factory == "logical_not") {
    Shape shape = r.getInts();
    return call([&] { return createLogicalNot(shape); });
  }
  if (factory == "cast") {
    DType from = getDType(r), to = getDType(r);
    Shape shape = r.getInts();
    return call([&] { return createCast(from, to, shape); });
  }
  if (factory == "transpose") {
    DType dtype = getDType(r);
    Shape shape = r.getInts();
    std::vector<int64_t> perm = r.getInts();
    return call([&] { return createTranspose(dtype, shape, perm); });
  }
  if (factory == "broadcast_to") {
    DType dtype = getDType(r);
    Shape in = r.getInts(), out = r.getInts();
    return call([&] { return createBroadcastTo(dtype, in, out); });
  }
  if (factory == "concat") {
    DType dtype = getDType(r);
    std::vector<Shape> shapes(r.getCount(8));
    for (Shape &s : shapes)
      s = r.getInts();
    int64_t axis = r.get<int64_t>();
    return call([&] { return createConcat(dtype, shapes, axis); });
  }
  if (factory == "slice") {
    DType dtype = getDType(r);
    Shape in = r.getInts();
    std::vector<int64_t> starts = r.getInts(), steps = r.getInts();
    Shape out = r.getInts();
    return call([&] { return createSlice(dtype, in, starts, steps, out); });
  }
  if (factory == "pad") {
    DType dtype = getDType(r);
    Shape in = r.getInts();
    std::vector<int64_t> low = r.getInts();
    Shape out = r.getInts();
    double value = r.get<double>();
    return call([&] { return createPad(dtype, in, low, out, value); });
  }
  if (factory == "gather") {
    DType dtype = getDType(r);
    Shape data = r.getInts();
    DType indexDType = getDType(r);
    Shape indices = r.getInts();
    int64_t axis = r.get<int64_t>();
    return call(
        [&] { return createGather(dtype, data, indexDType, indices, axis); });
  }
  if (factory == "layout_reorder") {
    DType dtype = getDType(r);
    Shape shape = r.getInts();
    std::optional<ActivationLayout> from = getLayout(r), to = getLayout(r);
    return call(
        [&] { return createLayoutReorder(dtype, shape, ptr(from), ptr(to)); });
  }
  if (factory == "noop") {
    std::string name = r.getString();
    return call([&]() -> absl::StatusOr<KernelPtr> {
      return createNoOp(std::move(name));
    });
  }
  if (factory == "layout_conv2d" || factory == "layout_pool2d" ||
      factory == "layout_concat") {
    auto made = remakeLayoutKernel(factory, r, context);
    if (!made.ok())
      return made.status();
    return made->kernel;
  }
  return std::nullopt;
}
} // namespace

absl::StatusOr<KernelPtr> remakeKernel(std::string_view factory,
                                       std::string_view descriptor,
                                       RemakeContext &context) {
  ByteReader r(descriptor, absl::StrCat("the ", std::string(factory),
                                        " kernel's descriptor"));
  std::optional<absl::StatusOr<KernelPtr>> made;
  {
    DerivedSupplyScope scope(context);
    made = remakeBuiltin(factory, r, context);
  }
  if (!made) {
    auto find = [&] {
      std::lock_guard<std::mutex> lock(loaderMutex());
      auto it = loaders().find(factory);
      return it != loaders().end() ? it->second : KernelLoader();
    };
    KernelLoader loader = find();
    // Where the compiler is within reach (libtgc: it is loaded now), its
    // loaders register on demand.
    if (!loader && &tgc::detail::registerCompilerKernelLoadersOnDemand) {
      tgc::detail::registerCompilerKernelLoadersOnDemand();
      loader = find();
    }
    if (!loader)
      return absl::UnimplementedError(absl::StrCat(
          "no loader for '", std::string(factory),
          "' kernels in this process (the compiler's loop kernels load "
          "where libtgc is linked)"));
    return loader(descriptor, context);
  }
  if (made->ok() && r.ok() && !r.atEnd())
    r.fail(absl::StrCat(r.remaining(), " unread bytes at the end"));
  if (!r.ok())
    return r.status();
  return *std::move(made);
}

} // namespace tgc::runtime::cpu
