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
#include "dialects/ConstantData.h"
#include "dialects/FusionBuilder.h"
#include "dialects/InputQuantization.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"
#include "passes/PostOpFusion.h"
#include "runtime/Quantize.h"

#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <cstdint>
#include <cstring>
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

/// The elements of `value` when it is a constant or a transpose of one
/// (tgc-convert-layout leaves the filters' transposes lazy: the CPU backend
/// reorders the constant itself), as the raw bytes of a dense tensor of
/// its type; empty otherwise.
std::vector<char> constantBytes(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  std::optional<int64_t> width = constantElementBytes(type.getElementType());
  if (!type.hasStaticShape() || !width)
    return {};
  auto transpose = value.getDefiningOp<TransposeOp>();
  auto constantOp =
      (transpose ? transpose.getInput() : value).getDefiningOp<ConstantOp>();
  if (!constantOp ||
      constantOp.getValue().getElementType() != type.getElementType())
    return {};
  auto dense = dyn_cast<DenseElementsAttr>(constantOp.getValue());
  if (dense && dense.isSplat()) {
    llvm::ArrayRef<char> raw = dense.getRawData();
    std::vector<char> out(static_cast<size_t>(type.getNumElements() * *width));
    for (size_t i = 0; i < out.size(); i += static_cast<size_t>(*width))
      std::memcpy(&out[i], raw.data(), static_cast<size_t>(*width));
    return out;
  }
  // Dense or dense_resource (a file-backed weight's bytes, copied out here).
  std::optional<ConstantBytes> stored =
      readConstantBytes(constantOp.getValue());
  if (!stored)
    return {};
  if (!transpose)
    return std::vector<char>(stored->bytes.begin(), stored->bytes.end());
  return transposeBytes(
      stored->bytes, *width,
      cast<ShapedType>(constantOp.getValue().getType()).getShape(),
      transpose.getPermutation());
}

/// The f32 weights `outer` holds (constantBytes), or empty when it holds
/// none or any is NaN or infinite (such weights stay f32, as on the CPU).
std::vector<float> constantWeights(Value outer) {
  if (!cast<RankedTensorType>(outer.getType()).getElementType().isF32())
    return {};
  std::vector<char> bytes = constantBytes(outer);
  std::vector<float> w(bytes.size() / sizeof(float));
  std::memcpy(w.data(), bytes.data(), w.size() * sizeof(float));
  if (!llvm::all_of(w, [](float v) { return std::isfinite(v); }))
    return {};
  return w;
}

Value outerOf(FusionOp fusion, Value inner) {
  return fusion.getInputs()[cast<BlockArgument>(inner).getArgNumber()];
}

/// Weights quantized per output channel, symmetric, 8 bits
/// (runtime::quantizePerChannel, as the CPU's int8 kernels quantize them
/// with VNNI).
struct QuantizedWeights {
  /// In the order of the f32 weights.
  std::vector<int8_t> values;
  /// Per output channel: the scale and the sum of the quantized weights.
  std::vector<float> scales;
  std::vector<int64_t> sums;
};

template <typename ChannelOf>
QuantizedWeights quantizeWeights(const std::vector<float> &w, int64_t channels,
                                 ChannelOf channelOf) {
  QuantizedWeights q;
  q.values.resize(w.size());
  q.scales =
      runtime::quantizePerChannel(w.data(), static_cast<int64_t>(w.size()),
                                  channels, 127, channelOf, q.values.data());
  q.sums.assign(static_cast<size_t>(channels), 0);
  for (size_t i = 0; i < w.size(); ++i)
    q.sums[static_cast<size_t>(channelOf(static_cast<int64_t>(i)))] +=
        q.values[i];
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
      std::shared_ptr<const codegen::CalibrationTable> table, bool int8,
      const std::string &tableFile)
      : table(std::move(table)), int8(int8) {
    calibrationTable = tableFile;
  }

  void runOnOperation() override;

private:
  std::shared_ptr<const codegen::CalibrationTable> table;
  /// False: only apply the QDQ grids (precisions other than int8).
  bool int8 = true;
};

/// x -> clamp(round(x / s) + zp, lo, hi) (then `- zp` and `* s` with
/// `dequantize`), as elementwise ops at `b`'s insertion point.
Value quantizeOps(OpBuilder &b, Location loc, Value x, double scale,
                  double zeroPoint, double lo, double hi, bool dequantize) {
  auto type = cast<RankedTensorType>(x.getType());
  Value s = scalar(b, loc, scale);
  Value v = DivOp::create(b, loc, type, x, s);
  v = RoundOp::create(b, loc, type, v);
  if (zeroPoint != 0)
    v = AddOp::create(b, loc, type, v, scalar(b, loc, zeroPoint));
  v = ClampOp::create(b, loc, type, v, b.getF64FloatAttr(lo),
                      b.getF64FloatAttr(hi));
  if (!dequantize)
    return v;
  if (zeroPoint != 0)
    v = SubOp::create(b, loc, type, v, scalar(b, loc, zeroPoint));
  return MulOp::create(b, loc, type, v, scalar(b, loc, scale));
}

/// The f32 weights of `fusion`'s contraction (matmul: as stored, K x N or
/// with transpose_b N x K; conv2d: HWIO) when it can run as an int8 call,
/// else empty: dynamic shapes, a transposed lhs, batched, run-time or
/// non-finite weights, an NCHW or grouped convolution, no weights at all.
std::vector<float> int8Weights(FusionOp fusion, const PostOpChain &chain) {
  Operation *contraction = chain.contraction;
  for (Value operand : contraction->getOperands())
    if (!cast<RankedTensorType>(operand.getType()).hasStaticShape())
      return {};
  Value weights;
  if (auto mm = dyn_cast<MatmulOp>(contraction)) {
    if (mm.getTransposeA() ||
        cast<RankedTensorType>(mm.getRhs().getType()).getRank() != 2)
      return {};
    weights = mm.getRhs();
  } else {
    auto conv = cast<Conv2DOp>(contraction);
    if (conv.getLayout() != ir::Layout::NHWC || conv.getGroups() != 1)
      return {};
    weights = conv.getFilter();
  }
  if (cast<RankedTensorType>(weights.getType()).getNumElements() == 0)
    return {};
  return constantWeights(outerOf(fusion, weights));
}

/// Rounds the input of `fusion`'s contraction to the grid of `q` with ops
/// before it (the f32 fallback of a QDQ contraction).
void applyGrid(FusionOp fusion, const PostOpChain &chain,
               const InputQuantization &q) {
  Operation *contraction = chain.contraction;
  OpOperand &use = contraction->getOpOperand(0);
  OpBuilder b(fusion);
  Location loc = contraction->getLoc();
  Value rounded = quantizeOps(b, loc, outerOf(fusion, use.get()), q.scale,
                              static_cast<double>(q.zeroPoint), q.lowest(),
                              q.highest(), /*dequantize=*/true);
  fusion.getInputsMutable().append(ValueRange{rounded});
  use.set(fusion.getBlock().addArgument(rounded.getType(), loc));
  contraction->removeAttr(kInputQuantizationAttr);
}

/// `fusion` (its contraction's input quantized by `q`, its f32 weights
/// `weights`: int8Weights) as the quantize ops, the integer contraction
/// fusion and the dequantize ops followed by its post-ops.
void rewrite(FusionOp fusion, const PostOpChain &chain,
             const InputQuantization &q, const std::vector<float> &weights) {
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
  Value xq = CastOp::create(b, loc, RankedTensorType::get(xType.getShape(), i8),
                            quantizeOps(b, loc, x, q.scale,
                                        static_cast<double>(zp), -128, 127,
                                        /*dequantize=*/false));

  // 2. The weights, and the integer contraction.
  QuantizedWeights w;
  Value wq;
  Operation *product = nullptr;
  llvm::SmallVector<Operation *> inner;
  int64_t channels = 0;
  if (auto mm = dyn_cast<MatmulOp>(contraction)) {
    auto rhs = cast<RankedTensorType>(mm.getRhs().getType());
    const bool transB = mm.getTransposeB();
    const int64_t k = rhs.getShape()[transB ? 1 : 0];
    channels = rhs.getShape()[transB ? 0 : 1];
    const int64_t n = channels;
    w = quantizeWeights(weights, channels,
                        [&](int64_t i) { return transB ? i / k : i % n; });
    // Stored N x K (cuBLASLt's TN form: the matmul reads it transposed),
    // both padded with zeros to multiples of 4 (what its int8 kernels
    // take): zero weights make the input's padding irrelevant, and the
    // padded columns are sliced off after the product.
    std::vector<int8_t> nk = w.values;
    if (!transB) {
      std::vector<char> t = transposeBytes(
          llvm::ArrayRef(reinterpret_cast<const char *>(nk.data()), nk.size()),
          1, {k, n}, {1, 0});
      std::memcpy(nk.data(), t.data(), t.size());
    }
    const int64_t k4 = roundUp4(k), n4 = roundUp4(n);
    wq = constant(b, loc, {n4, k4}, i8,
                  llvm::ArrayRef(padValues(nk, {n, k}, {n4, k4})));
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
    w = quantizeWeights(weights, channels,
                        [&](int64_t i) { return i % channels; });
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
      xq = PadOp::create(b, loc, RankedTensorType::get(shape, i8), xq,
                         b.getDenseI64ArrayAttr(low),
                         b.getDenseI64ArrayAttr(high),
                         b.getF64FloatAttr(static_cast<double>(zp)));
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
  Value acc = integerFusion.getResult(0);

  // 3. Dequantization, the bias, then the original chain's post-ops.
  auto resultType = cast<RankedTensorType>(contraction->getResult(0).getType());
  auto accType = cast<RankedTensorType>(acc.getType());
  Value y = acc;
  if (accType.getElementType() != f32)
    y = CastOp::create(b, loc, RankedTensorType::get(accType.getShape(), f32),
                       acc);
  if (accType.getShape() != resultType.getShape()) {
    // The padded output channels off.
    const size_t rank = resultType.getRank();
    SmallVector<int64_t> starts(rank, 0), ends(resultType.getShape());
    y = SliceOp::create(b, loc, resultType, y, b.getDenseI64ArrayAttr(starts),
                        b.getDenseI64ArrayAttr(ends), nullptr);
  }
  std::vector<float> scales(channels), offsets(channels);
  for (int64_t n = 0; n < channels; ++n) {
    scales[n] = static_cast<float>(q.scale * w.scales[n]);
    offsets[n] = static_cast<float>(zp * w.sums[n]);
  }
  if (zp != 0)
    y = SubOp::create(
        b, loc, resultType, y,
        constant(b, loc, {channels}, f32, llvm::ArrayRef(offsets)));
  y = MulOp::create(b, loc, resultType, y,
                    constant(b, loc, {channels}, f32, llvm::ArrayRef(scales)));
  IRMapping mapping;
  Block &block = fusion.getBlock();
  for (BlockArgument arg : block.getArguments())
    mapping.map(arg, fusion.getInputs()[arg.getArgNumber()]);
  if (auto conv = dyn_cast<Conv2DOp>(contraction); conv && conv.getBias())
    y = AddOp::create(b, loc, resultType, y, mapping.lookup(conv.getBias()));
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
      const codegen::CalibrationEntry *entry =
          key == keys.end() ? nullptr : table->find(key->second);
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
    std::vector<float> weights;
    if (int8)
      weights = int8Weights(fusion, *chain);
    if (!weights.empty())
      rewrite(fusion, *chain, *q, weights);
    else if (fromModel)
      applyGrid(fusion, *chain, *q);
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
    std::vector<char> bytes = constantBytes(transpose.getResult());
    if (bytes.empty())
      return;
    OpBuilder b(transpose);
    Value folded = ConstantOp::create(
        b, transpose.getLoc(),
        DenseElementsAttr::getFromRawBuffer(transpose.getType(), bytes));
    Value source = transpose.getInput();
    transpose.getResult().replaceAllUsesWith(folded);
    transpose.erase();
    if (source.use_empty())
      source.getDefiningOp()->erase();
  });
}

} // namespace

std::unique_ptr<Pass> cuda::createQuantizeContractionsPass(
    std::shared_ptr<const codegen::CalibrationTable> table, bool int8,
    const std::string &tableFile) {
  return std::make_unique<QuantizeContractionsPass>(std::move(table), int8,
                                                    tableFile);
}
