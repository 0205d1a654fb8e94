//===- QuantizeContractions.cpp - int8 contractions for the CUDA backend --===//
//
// tgc-cuda-quantize-contractions (Passes.td has the whole contract): a
// contraction fusion whose conv2d or matmul has an input quantization and
// constant weights becomes a quantizing loop fusion, an integer contraction
// fusion the planner runs as an int8 cuBLASLt GEMM or cuDNN convolution
// (Compiler.cpp, analyzeInt8Contraction), and a dequantizing loop fusion
// that also computes the original chain's post-ops.
//
//===----------------------------------------------------------------------===//

#include "codegen/cuda/CudaPipeline.h"
#include "codegen/cuda/Passes.h"

#include "codegen/Calibration.h"
#include "codegen/ContractionKeys.h"
#include "dialects/FusionBuilder.h"
#include "dialects/InputQuantization.h"
#include "dialects/TgcOps.h"
#include "passes/PostOpFusion.h"

#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace tgc::cuda {
#define GEN_PASS_DEF_TGCCUDAQUANTIZECONTRACTIONS
#include "codegen/cuda/Passes.h.inc"
} // namespace tgc::cuda

using namespace mlir;
using namespace tgc;

namespace {

/// A rank-0 f32 constant.
Value scalar(OpBuilder &b, Location loc, double value) {
  auto type = RankedTensorType::get({}, b.getF32Type());
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type,
                             llvm::ArrayRef<float>{static_cast<float>(value)}));
}

/// A constant of `values` with `shape`.
template <typename T>
Value constant(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
               Type element, llvm::ArrayRef<T> values) {
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get(shape, element), values));
}

/// The f32 elements of a constant fusion input, or empty. A transpose of
/// a constant counts (tgc-convert-layout leaves the filters' transposes
/// lazy: the CPU backend reorders the constant itself).
std::vector<float> constantValues(Value outer) {
  if (auto transpose = outer.getDefiningOp<TransposeOp>()) {
    std::vector<float> in = constantValues(transpose.getInput());
    auto inType = cast<RankedTensorType>(transpose.getInput().getType());
    if (in.empty() || !inType.hasStaticShape())
      return {};
    llvm::ArrayRef<int64_t> perm = transpose.getPermutation();
    llvm::ArrayRef<int64_t> inShape = inType.getShape();
    const size_t rank = inShape.size();
    // Strides of the input, then of the result's dims in the input.
    SmallVector<int64_t> inStrides(rank, 1), strides(rank), outShape(rank);
    for (size_t d = rank; d-- > 1;)
      inStrides[d - 1] = inStrides[d] * inShape[d];
    for (size_t d = 0; d < rank; ++d) {
      strides[d] = inStrides[perm[d]];
      outShape[d] = inShape[perm[d]];
    }
    std::vector<float> out(in.size());
    SmallVector<int64_t> index(rank, 0);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d)
        offset += index[d] * strides[d];
      out[i] = in[offset];
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < outShape[d])
          break;
        index[d] = 0;
      }
    }
    return out;
  }
  auto constantOp = outer.getDefiningOp<ConstantOp>();
  if (!constantOp)
    return {};
  auto attr = dyn_cast<DenseElementsAttr>(constantOp.getValue());
  if (!attr || !attr.getElementType().isF32())
    return {};
  auto values = attr.getValues<float>();
  return std::vector<float>(values.begin(), values.end());
}

Value outerOf(FusionOp fusion, Value inner) {
  return fusion.getInputs()[cast<BlockArgument>(inner).getArgNumber()];
}

/// Weights quantized per output channel, symmetric, 8 bits.
struct QuantizedWeights {
  /// In the order the integer contraction reads them.
  std::vector<int8_t> values;
  /// Per output channel: the scale and the sum of the quantized weights.
  std::vector<float> scales;
  std::vector<int64_t> sums;
};

/// Quantizes `w`, whose element (k, n) of `rows` x `channels` is at
/// w[k * channels + n], into values[out(k, n)].
template <typename Index>
QuantizedWeights quantizeWeights(const std::vector<float> &w, int64_t rows,
                                 int64_t channels, Index out) {
  QuantizedWeights q;
  q.values.assign(w.size(), 0);
  q.scales.assign(channels, 1.0f);
  q.sums.assign(channels, 0);
  for (int64_t n = 0; n < channels; ++n) {
    float maxAbs = 0;
    for (int64_t k = 0; k < rows; ++k)
      maxAbs = std::fmax(maxAbs, std::fabs(w[k * channels + n]));
    const float scale =
        maxAbs > 0 && std::isfinite(maxAbs) ? maxAbs / 127.0f : 1.0f;
    q.scales[n] = scale;
    for (int64_t k = 0; k < rows; ++k) {
      float v = std::nearbyint(w[k * channels + n] / scale);
      v = std::fmin(std::fmax(v, -127.0f), 127.0f);
      if (std::isnan(v))
        v = 0;
      auto i = static_cast<int8_t>(v);
      q.values[out(k, n)] = i;
      q.sums[n] += i;
    }
  }
  return q;
}

int64_t roundUp4(int64_t n) { return (n + 3) / 4 * 4; }

/// `values` of a row-major tensor of `shape` copied into one of `padded`
/// (each dim at least as large), zeros around.
std::vector<int8_t> padValues(const std::vector<int8_t> &values,
                              llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<int64_t> padded) {
  if (shape == padded)
    return values;
  int64_t total = 1;
  for (int64_t d : padded)
    total *= d;
  std::vector<int8_t> out(total, 0);
  const size_t rank = shape.size();
  SmallVector<int64_t> index(rank, 0);
  for (int8_t v : values) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset = offset * padded[d] + index[d];
    out[offset] = v;
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

struct QuantizeContractionsPass
    : public cuda::impl::TgcCudaQuantizeContractionsBase<
          QuantizeContractionsPass> {
  using TgcCudaQuantizeContractionsBase::TgcCudaQuantizeContractionsBase;
  QuantizeContractionsPass(
      std::shared_ptr<const codegen::CalibrationTable> table, bool int8)
      : table(std::move(table)), int8(int8) {}

  void runOnOperation() override;

private:
  /// Why `fusion`'s contraction cannot run as an int8 call ("" if it can).
  std::string blocker(FusionOp fusion, const PostOpChain &chain) const;
  void rewrite(FusionOp fusion, const PostOpChain &chain,
               const InputQuantization &q);
  /// Rounds the input of `fusion`'s contraction to the grid of `q` with a
  /// loop fusion before it (the f32 fallback of a QDQ contraction).
  void applyGrid(FusionOp fusion, const PostOpChain &chain,
                 const InputQuantization &q);

  std::shared_ptr<const codegen::CalibrationTable> table;
  /// False: only apply the QDQ grids (precisions other than int8).
  bool int8 = true;
};

/// x -> clamp(round(x / s) + zp, lo, hi) (then `- zp` and `* s` with
/// `dequantize`), as elementwise ops after `b`'s insertion point.
Value quantizeOps(OpBuilder &b, Location loc, Value x, double scale,
                  double zeroPoint, double lo, double hi, bool dequantize,
                  llvm::SmallVectorImpl<Operation *> &ops) {
  auto type = cast<RankedTensorType>(x.getType());
  auto add = [&](Operation *op) {
    ops.push_back(op);
    return op->getResult(0);
  };
  Value s = scalar(b, loc, scale);
  Value v = add(DivOp::create(b, loc, type, x, s));
  v = add(RoundOp::create(b, loc, type, v));
  if (zeroPoint != 0)
    v = add(AddOp::create(b, loc, type, v, scalar(b, loc, zeroPoint)));
  v = add(ClampOp::create(b, loc, type, v, b.getF64FloatAttr(lo),
                          b.getF64FloatAttr(hi)));
  if (!dequantize)
    return v;
  if (zeroPoint != 0)
    v = add(SubOp::create(b, loc, type, v, scalar(b, loc, zeroPoint)));
  return add(MulOp::create(b, loc, type, v, scalar(b, loc, scale)));
}

std::string QuantizeContractionsPass::blocker(FusionOp fusion,
                                              const PostOpChain &chain) const {
  Operation *contraction = chain.contraction;
  for (Value operand : contraction->getOperands())
    if (!cast<RankedTensorType>(operand.getType()).hasStaticShape())
      return "dynamic shapes";
  if (auto mm = dyn_cast<MatmulOp>(contraction)) {
    if (mm.getTransposeA())
      return "a transposed lhs";
    auto rhs = cast<RankedTensorType>(mm.getRhs().getType());
    if (rhs.getRank() != 2)
      return "batched weights";
    if (constantValues(outerOf(fusion, mm.getRhs())).empty())
      return "run-time weights";
    int64_t k = rhs.getShape()[mm.getTransposeB() ? 1 : 0];
    int64_t n = rhs.getShape()[mm.getTransposeB() ? 0 : 1];
    if (k == 0 || n == 0)
      return "empty weights";
    return "";
  }
  auto conv = cast<Conv2DOp>(contraction);
  if (conv.getLayout() != ir::Layout::NHWC)
    return "NCHW";
  if (conv.getGroups() != 1)
    return "groups";
  auto filter = cast<RankedTensorType>(conv.getFilter().getType());
  if (filter.getNumElements() == 0)
    return "empty weights";
  if (constantValues(outerOf(fusion, conv.getFilter())).empty())
    return "run-time weights";
  return "";
}

void QuantizeContractionsPass::applyGrid(FusionOp fusion,
                                         const PostOpChain &chain,
                                         const InputQuantization &q) {
  Operation *contraction = chain.contraction;
  OpOperand &use = contraction->getOpOperand(0);
  Value outer = outerOf(fusion, use.get());
  OpBuilder b(fusion);
  Location loc = contraction->getLoc();
  llvm::SmallVector<Operation *> ops;
  Value rounded =
      quantizeOps(b, loc, outer, q.scale, static_cast<double>(q.zeroPoint),
                  q.lowest(), q.highest(), /*dequantize=*/true, ops);
  fusion.getInputsMutable().append(ValueRange{rounded});
  use.set(fusion.getBlock().addArgument(rounded.getType(), loc));
  contraction->removeAttr(kInputQuantizationAttr);
}

void QuantizeContractionsPass::rewrite(FusionOp fusion,
                                       const PostOpChain &chain,
                                       const InputQuantization &q) {
  Operation *contraction = chain.contraction;
  Location loc = contraction->getLoc();
  OpBuilder b(fusion);
  Type i8 = b.getIntegerType(8), i32 = b.getIntegerType(32),
       f32 = b.getF32Type();
  // The grid on s8: a u8 grid shifted by -128.
  const int64_t zp = q.zeroPoint - (q.isUnsigned ? 128 : 0);

  // 1. The input quantized to i8.
  Value x = outerOf(fusion, contraction->getOperand(0));
  auto xType = cast<RankedTensorType>(x.getType());
  llvm::SmallVector<Operation *> ops;
  Value clamped = quantizeOps(b, loc, x, q.scale, static_cast<double>(zp), -128,
                              127, /*dequantize=*/false, ops);
  Value xq = CastOp::create(b, loc, RankedTensorType::get(xType.getShape(), i8),
                            clamped);

  // 2. The weights, and the integer contraction.
  QuantizedWeights w;
  Value wq;
  Operation *product = nullptr;
  llvm::SmallVector<Operation *> inner;
  int64_t channels = 0;
  Value acc;
  if (auto mm = dyn_cast<MatmulOp>(contraction)) {
    auto rhs = cast<RankedTensorType>(mm.getRhs().getType());
    const bool transB = mm.getTransposeB();
    const int64_t k = rhs.getShape()[transB ? 1 : 0];
    channels = rhs.getShape()[transB ? 0 : 1];
    std::vector<float> values = constantValues(outerOf(fusion, mm.getRhs()));
    if (transB) { // [N, K]: make it [K, N] for quantizeWeights.
      std::vector<float> kn(values.size());
      for (int64_t n = 0; n < channels; ++n)
        for (int64_t i = 0; i < k; ++i)
          kn[i * channels + n] = values[n * k + i];
      values = std::move(kn);
    }
    // Stored N x K (cuBLASLt's TN form: the matmul reads it transposed),
    // both padded with zeros to multiples of 4 (what its int8 kernels
    // take): zero weights make the input's padding irrelevant, and the
    // padded columns are sliced off after the product.
    w = quantizeWeights(values, k, channels,
                        [&](int64_t i, int64_t n) { return n * k + i; });
    const int64_t k4 = roundUp4(k), n4 = roundUp4(channels);
    wq = constant(b, loc, {n4, k4}, i8,
                  llvm::ArrayRef(padValues(w.values, {channels, k}, {n4, k4})));
    SmallVector<int64_t> lhsShape(xType.getShape());
    if (k4 != k) {
      SmallVector<int64_t> low(lhsShape.size(), 0), high(lhsShape.size(), 0);
      high.back() = k4 - k;
      lhsShape.back() = k4;
      xq = PadOp::create(b, loc, RankedTensorType::get(lhsShape, i8), xq,
                         b.getDenseI64ArrayAttr(low),
                         b.getDenseI64ArrayAttr(high), b.getF64FloatAttr(0));
    }
    auto lhs32 =
        CastOp::create(b, loc, RankedTensorType::get(lhsShape, i32), xq);
    auto rhs32 =
        CastOp::create(b, loc, RankedTensorType::get({n4, k4}, i32), wq);
    SmallVector<int64_t> resultShape(
        cast<RankedTensorType>(mm.getResult().getType()).getShape());
    resultShape.back() = n4;
    auto integer =
        MatmulOp::create(b, loc, RankedTensorType::get(resultShape, i32),
                         lhs32.getResult(), rhs32.getResult(),
                         /*transpose_a=*/false,
                         /*transpose_b=*/true);
    inner = {lhs32, rhs32, integer};
    product = integer;
  } else {
    auto conv = cast<Conv2DOp>(contraction);
    auto filter = cast<RankedTensorType>(conv.getFilter().getType());
    llvm::ArrayRef<int64_t> hwio = filter.getShape();
    channels = hwio[3];
    const int64_t rows = hwio[0] * hwio[1] * hwio[2];
    w = quantizeWeights(constantValues(outerOf(fusion, conv.getFilter())), rows,
                        channels,
                        [&](int64_t i, int64_t n) { return i * channels + n; });
    // Input and output channels padded with zeros to multiples of 4
    // (cuDNN's int8 convolutions take no others): ResNet's 3-channel stem.
    const int64_t c4 = roundUp4(hwio[2]), k4 = roundUp4(hwio[3]);
    SmallVector<int64_t> hwio4{hwio[0], hwio[1], c4, k4};
    wq = constant(b, loc, hwio4, i8,
                  llvm::ArrayRef(padValues(w.values, hwio, hwio4)));
    llvm::ArrayRef<int64_t> pad = conv.getPadding();
    const bool padded = llvm::any_of(pad, [](int64_t p) { return p != 0; });
    const bool symmetric = pad[0] == pad[2] && pad[1] == pad[3];
    SmallVector<int64_t> convPad(pad);
    const bool padSpace = padded && (zp != 0 || !symmetric);
    if (padSpace || c4 != hwio[2]) {
      // The spatial padding holds the grid's zero (zp), which the
      // convolution's zero padding would not; padded channels meet zero
      // weights (any value does).
      SmallVector<int64_t> low{0, 0, 0, 0}, high{0, 0, 0, c4 - hwio[2]};
      if (padSpace) {
        low = {0, pad[0], pad[1], 0};
        high = {0, pad[2], pad[3], c4 - hwio[2]};
        convPad.assign(4, 0);
      }
      SmallVector<int64_t> shape(xType.getShape());
      shape[1] += low[1] + high[1];
      shape[2] += low[2] + high[2];
      shape[3] = c4;
      auto padOp = PadOp::create(b, loc, RankedTensorType::get(shape, i8), xq,
                                 b.getDenseI64ArrayAttr(low),
                                 b.getDenseI64ArrayAttr(high),
                                 b.getF64FloatAttr(static_cast<double>(zp)));
      xq = padOp.getResult();
    }
    auto xf = CastOp::create(
        b, loc,
        RankedTensorType::get(cast<RankedTensorType>(xq.getType()).getShape(),
                              f32),
        xq);
    auto wf = CastOp::create(b, loc, RankedTensorType::get(hwio4, f32), wq);
    SmallVector<int64_t> outShape(
        cast<RankedTensorType>(conv.getType()).getShape());
    outShape[3] = k4;
    auto integer = cast<Conv2DOp>(b.clone(*conv));
    integer.getResult().setType(RankedTensorType::get(outShape, f32));
    integer.getInputMutable().assign(xf.getResult());
    integer.getFilterMutable().assign(wf.getResult());
    integer.getBiasMutable().clear();
    integer.setPaddingAttr(b.getDenseI64ArrayAttr(convPad));
    integer->removeAttr(kInputQuantizationAttr);
    inner = {xf, wf, integer};
    product = integer;
  }
  FusionOp integerFusion =
      buildFusion(b, loc, FusionKind::contraction, ValueRange{xq, wq}, inner,
                  product->getResult(0));
  for (Operation *op : llvm::reverse(inner))
    op->erase();
  acc = integerFusion.getResult(0);

  // 3. Dequantization, the bias, then the original chain's post-ops.
  auto resultType = cast<RankedTensorType>(contraction->getResult(0).getType());
  auto append = [&](Operation *op) { return op->getResult(0); };
  Value y = acc;
  auto accType = cast<RankedTensorType>(acc.getType());
  if (accType.getElementType() != f32)
    y = append(CastOp::create(
        b, loc, RankedTensorType::get(accType.getShape(), f32), acc));
  if (accType.getShape() != resultType.getShape()) {
    // The padded output channels off.
    const size_t rank = resultType.getRank();
    SmallVector<int64_t> starts(rank, 0), ends(resultType.getShape());
    y = append(SliceOp::create(b, loc, resultType, y,
                               b.getDenseI64ArrayAttr(starts),
                               b.getDenseI64ArrayAttr(ends), nullptr));
  }
  std::vector<float> scales(channels), offsets(channels);
  for (int64_t n = 0; n < channels; ++n) {
    scales[n] = static_cast<float>(q.scale * w.scales[n]);
    offsets[n] = static_cast<float>(zp * w.sums[n]);
  }
  if (zp != 0) {
    Value offset = constant(b, loc, {channels}, f32, llvm::ArrayRef(offsets));
    y = append(SubOp::create(b, loc, resultType, y, offset));
  }
  Value scale = constant(b, loc, {channels}, f32, llvm::ArrayRef(scales));
  y = append(MulOp::create(b, loc, resultType, y, scale));
  IRMapping mapping;
  Block &block = fusion.getBlock();
  for (BlockArgument arg : block.getArguments())
    mapping.map(arg, fusion.getInputs()[arg.getArgNumber()]);
  if (auto conv = dyn_cast<Conv2DOp>(contraction); conv && conv.getBias()) {
    Value bias = mapping.lookup(conv.getBias());
    y = append(AddOp::create(b, loc, resultType, y, bias));
  }
  mapping.map(contraction->getResult(0), y);
  for (Operation &op : block.without_terminator())
    if (&op != contraction)
      b.clone(op, mapping);
  Value result = mapping.lookupOrDefault(
      cast<YieldOp>(block.getTerminator()).getValues()[0]);
  fusion.getResult(0).replaceAllUsesWith(result);
  SmallVector<Value> oldInputs(fusion.getInputs());
  fusion->erase();
  // The f32 weights (and their lazy transpose), unless something else
  // reads them.
  for (Value input : oldInputs) {
    Operation *def = input.getDefiningOp();
    if (!def || !def->use_empty() || !isa<ConstantOp, TransposeOp>(def))
      continue;
    Value source = isa<TransposeOp>(def) ? def->getOperand(0) : Value();
    def->erase();
    if (source)
      if (auto c = source.getDefiningOp<ConstantOp>(); c && c->use_empty())
        c->erase();
  }
}

void QuantizeContractionsPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (!int8)
    table = nullptr;
  else if (!table && !calibrationTable.empty()) {
    auto loaded = codegen::CalibrationTable::loadShared(calibrationTable);
    if (!loaded.ok()) {
      func.emitError("tgc-cuda-quantize-contractions: ")
          << loaded.status().message();
      return signalPassFailure();
    }
    table = *loaded;
  }
  Block &body = func.getBody().front();
  // Lone contractions (no post-op fused) get a fusion of their own.
  for (Operation &op : llvm::make_early_inc_range(body))
    if (isFusableContraction(&op) && (table || getInputQuantization(&op)))
      wrapInFusion(&op, FusionKind::contraction);
  llvm::DenseMap<Operation *, std::string> keys;
  if (table)
    for (auto &[op, key] : codegen::contractionKeys(func))
      keys[op] = key;
  SmallVector<FusionOp> fusions;
  for (auto fusion : body.getOps<FusionOp>())
    if (fusion.getKind() == FusionKind::contraction)
      fusions.push_back(fusion);
  for (FusionOp fusion : fusions) {
    auto chain = analyzeContractionFusion(fusion);
    if (!chain)
      continue;
    std::optional<InputQuantization> q =
        getInputQuantization(chain->contraction);
    const bool fromModel = q.has_value();
    if (!q && table) {
      auto key = keys.find(chain->contraction);
      if (key == keys.end())
        continue;
      const codegen::CalibrationEntry *entry = table->find(key->second);
      if (!entry)
        continue;
      codegen::ActivationQuantization a =
          entry->quantization(table->asymmetric);
      q = InputQuantization{a.scale, a.zeroPoint, a.unsignedValues};
      if (!q->valid())
        continue;
    }
    if (!q)
      continue;
    if (!int8 || !blocker(fusion, *chain).empty()) {
      if (fromModel)
        applyGrid(fusion, *chain, *q);
      continue;
    }
    rewrite(fusion, *chain, *q);
  }
  if (!int8)
    return;
  // The filters of the convolutions left f32 (tgc-convert-layout's lazy
  // transposes of constants, which the CPU backend reorders itself): fold
  // them here, once, rather than transpose them on every call.
  func.walk([&](TransposeOp transpose) {
    if (!transpose.getLazy() ||
        !transpose.getInput().getDefiningOp<ConstantOp>())
      return;
    std::vector<float> values = constantValues(transpose.getResult());
    if (values.empty())
      return;
    OpBuilder b(transpose);
    Value folded =
        constant(b, transpose.getLoc(), transpose.getType().getShape(),
                 b.getF32Type(), llvm::ArrayRef(values));
    Value source = transpose.getInput();
    transpose.getResult().replaceAllUsesWith(folded);
    transpose.erase();
    if (source.use_empty())
      source.getDefiningOp()->erase();
  });
}

} // namespace

std::unique_ptr<Pass> cuda::createQuantizeContractionsPass(
    std::shared_ptr<const codegen::CalibrationTable> table, bool int8) {
  return std::make_unique<QuantizeContractionsPass>(std::move(table), int8);
}
