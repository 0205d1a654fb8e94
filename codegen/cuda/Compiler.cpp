//===- Compiler.cpp - tgc functions to CUDA device executables ------------===//

#include "codegen/cuda/Compiler.h"

#include "codegen/Backend.h"
#include "codegen/cuda/CudaPipeline.h"
#include "codegen/reference/Interpreter.h"
#include "dialects/DTypeMapping.h"
#include "dialects/FusionBuilder.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"
#include "passes/Passes.h"
#include "passes/PostOpFusion.h"
#include "passes/Specialize.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace tgc;
using cuda::LibraryEpilogue;
using cuda::libraryEpilogue;
using cuda::splitChain;
using runtime::HostTensor;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The ops the CUDA backend runs without a kernel: views of their operand's
/// buffer.
bool isView(Operation *op) {
  return isShapeView(op) || isa<tensor::CastOp>(op);
}

/// `func` specialized for `shapes` (tgc::specializeForShapes), then the
/// tgc-cuda pipeline (codegen/cuda/CudaPipeline.h).
llvm::Expected<OwningOpRef<ModuleOp>>
specialize(func::FuncOp func, const std::vector<std::vector<int64_t>> &shapes,
           const cuda::CompileOptions &options) {
  return tgc::specializeAndLower(
      func, shapes, "tgc-cuda", [&](OpPassManager &pm) {
        std::string narrow = options.precision == Precision::F16    ? "f16"
                             : options.precision == Precision::BF16 ? "bf16"
                                                                    : "";
        if (options.optimize) {
          cuda::CudaPipelineOptions pipeline;
          pipeline.fuse = options.fuse;
          pipeline.narrowFloat = narrow;
          pipeline.int8 = options.precision == Precision::Int8;
          pipeline.calibration = options.calibration;
          cuda::buildCudaBackendPipeline(pm, pipeline);
        } else if (!narrow.empty())
          pm.addNestedPass<func::FuncOp>(
              createTgcReducePrecision(TgcReducePrecisionOptions{narrow}));
      });
}

std::string shapeText(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  std::string s;
  for (int64_t d : tensor.getShape())
    s += std::to_string(d) + "x";
  std::string element;
  llvm::raw_string_ostream os(element);
  tensor.getElementType().print(os);
  return s + element;
}

/// An UnsupportedError: "<op> at <location> is not supported by the cuda
/// backend yet[: why]".
llvm::Error notSupported(Operation *op, const std::string &why = "") {
  std::string message = op->getName().getStringRef().str() + " at " +
                        locationString(op->getLoc()) +
                        " is not supported by the cuda backend yet";
  if (!why.empty())
    message += ": " + why;
  return codegen::makeUnsupportedError(message);
}

//===----------------------------------------------------------------------===//
// Contractions: cuBLASLt matmuls and cuDNN convolutions
//===----------------------------------------------------------------------===//

std::vector<int64_t> shapeOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return {type.getShape().begin(), type.getShape().end()};
}

size_t byteSizeOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  auto dtype = reference::toDType(tensor.getElementType());
  return static_cast<size_t>(tensor.getNumElements()) *
         (dtype ? runtime::dtypeSize(*dtype) : 4);
}

int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Wraps a contraction outside any fusion in a `tgc.fusion <contraction>`
/// with no post-ops.
FusionOp wrapContraction(Operation *op) {
  return wrapInFusion(op, FusionKind::contraction);
}

/// A contraction fusion tgc-cuda-quantize-contractions made: an i32
/// matmul (transposed rhs) or an NHWC conv2d of its two i8 inputs, each
/// cast (to i32 or f32) inside, and nothing else.
struct Int8Contraction {
  Operation *contraction = nullptr;
  /// The i8 block arguments: the input (lhs), then the weights.
  BlockArgument input, weights;
};

std::optional<Int8Contraction> analyzeInt8Contraction(FusionOp fusion) {
  if (fusion.getKind() != FusionKind::contraction ||
      fusion.getNumResults() != 1)
    return std::nullopt;
  Block &block = fusion.getBlock();
  auto yield = cast<YieldOp>(block.getTerminator());
  if (block.getOperations().size() != 4 || yield.getValues().size() != 1)
    return std::nullopt;
  Operation *contraction = yield.getValues()[0].getDefiningOp();
  if (!isa_and_nonnull<MatmulOp, Conv2DOp>(contraction) ||
      contraction->getBlock() != &block)
    return std::nullopt;
  auto i8Arg = [&](Value v) -> BlockArgument {
    auto castOp = v.getDefiningOp<CastOp>();
    if (!castOp)
      return nullptr;
    auto arg = dyn_cast<BlockArgument>(castOp.getInput());
    if (!arg || arg.getOwner() != &block ||
        !cast<RankedTensorType>(arg.getType()).getElementType().isInteger(8) ||
        cast<RankedTensorType>(arg.getType())
            .getElementType()
            .isUnsignedInteger())
      return nullptr;
    return arg;
  };
  Int8Contraction result;
  result.contraction = contraction;
  if (auto mm = dyn_cast<MatmulOp>(contraction)) {
    if (!cast<RankedTensorType>(mm.getType()).getElementType().isInteger(32) ||
        mm.getTransposeA() || !mm.getTransposeB() ||
        cast<RankedTensorType>(mm.getRhs().getType()).getRank() != 2)
      return std::nullopt;
    result.input = i8Arg(mm.getLhs());
    result.weights = i8Arg(mm.getRhs());
  } else {
    auto conv = cast<Conv2DOp>(contraction);
    if (!cast<RankedTensorType>(conv.getType()).getElementType().isF32() ||
        conv.getBias() || conv.getLayout() != ir::Layout::NHWC ||
        conv.getGroups() != 1)
      return std::nullopt;
    result.input = i8Arg(conv.getInput());
    result.weights = i8Arg(conv.getFilter());
  }
  if (!result.input || !result.weights)
    return std::nullopt;
  return result;
}

/// Pads a convolution's input outside its fusion when the padding is
/// asymmetric (cuDNN pads symmetrically): the conv then pads by the
/// smaller amount on each side.
void padAsymmetricConvolution(FusionOp fusion, Conv2DOp conv) {
  llvm::ArrayRef<int64_t> pad = conv.getPadding();
  if (pad.size() != 4 || (pad[0] == pad[2] && pad[1] == pad[3]))
    return;
  const bool nhwc = conv.getLayout() == ir::Layout::NHWC;
  int64_t padH = std::min(pad[0], pad[2]), padW = std::min(pad[1], pad[3]);
  SmallVector<int64_t> low(4, 0), high(4, 0);
  int hDim = nhwc ? 1 : 2, wDim = nhwc ? 2 : 3;
  low[hDim] = pad[0] - padH;
  high[hDim] = pad[2] - padH;
  low[wDim] = pad[1] - padW;
  high[wDim] = pad[3] - padW;
  auto arg = cast<BlockArgument>(conv.getInput());
  Value outer = fusion.getInputs()[arg.getArgNumber()];
  auto type = cast<RankedTensorType>(outer.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (int d = 0; d < 4; ++d)
    shape[d] += low[d] + high[d];
  OpBuilder builder(fusion);
  auto padded = PadOp::create(
      builder, conv.getLoc(),
      RankedTensorType::get(shape, type.getElementType()), outer,
      builder.getDenseI64ArrayAttr(low), builder.getDenseI64ArrayAttr(high),
      builder.getF64FloatAttr(0.0));
  // A new fusion input (the old one may have other users inside).
  fusion.getInputsMutable().append(ValueRange{padded.getResult()});
  BlockArgument newArg =
      fusion.getBlock().addArgument(padded.getType(), conv.getLoc());
  conv.getInputMutable().assign(newArg);
  conv.setPaddingAttr(builder.getDenseI64ArrayAttr({padH, padW, padH, padW}));
}

/// Replaces operand `arg` (a block argument of `fusion`) of `user` with a
/// new fusion input computed outside by `build` from the outer value.
template <typename Build>
void materializeOperand(FusionOp fusion, OpOperand &use, Build build) {
  auto arg = cast<BlockArgument>(use.get());
  Value outer = fusion.getInputs()[arg.getArgNumber()];
  OpBuilder builder(fusion);
  Value value = build(builder, outer);
  fusion.getInputsMutable().append(ValueRange{value});
  use.set(fusion.getBlock().addArgument(value.getType(), value.getLoc()));
}

/// A matmul whose operand's batch dims broadcast against the other's only
/// in part (2x1xMxK * 3xKxN) gets the operand broadcast to the result's
/// batch dims first: cuBLASLt batches have one stride per operand.
void broadcastPartialBatches(FusionOp fusion, MatmulOp matmul) {
  auto resultType = cast<RankedTensorType>(matmul.getType());
  llvm::ArrayRef<int64_t> outBatch = resultType.getShape().drop_back(2);
  for (OpOperand &use : matmul->getOpOperands()) {
    auto type = cast<RankedTensorType>(use.get().getType());
    llvm::ArrayRef<int64_t> batch = type.getShape().drop_back(2);
    if (product(batch) == 1)
      continue;
    SmallVector<int64_t> padded(outBatch.size() - batch.size(), 1);
    padded.append(batch.begin(), batch.end());
    if (llvm::ArrayRef<int64_t>(padded) == outBatch)
      continue;
    SmallVector<int64_t> shape(outBatch);
    shape.append(type.getShape().take_back(2).begin(),
                 type.getShape().take_back(2).end());
    materializeOperand(fusion, use, [&](OpBuilder &b, Value outer) -> Value {
      return BroadcastToOp::create(
          b, matmul.getLoc(),
          RankedTensorType::get(shape, type.getElementType()), outer);
    });
  }
}

/// Contraction fusions the library calls compute: unanalyzable ones are
/// split into their ops, lone contractions get a fusion of their own,
/// asymmetric conv padding moves into a pad op, partially broadcast matmul
/// batches into a broadcast, and post-ops no library epilogue computes
/// into a loop fusion after the call. `ohwiFilters` receives, for NHWC
/// convolutions with a computed filter, the filter transposed to cuDNN's
/// OHWI by a kernel before the call.
LogicalResult
prepareContractions(Block &body,
                    llvm::DenseMap<Operation *, Value> &ohwiFilters) {
  for (auto fusion : llvm::make_early_inc_range(body.getOps<FusionOp>()))
    if (fusion.getKind() == FusionKind::contraction &&
        !analyzeContractionFusion(fusion) && !analyzeInt8Contraction(fusion))
      fusion.inlineBody();
  for (Operation &op : llvm::make_early_inc_range(body))
    if (isFusableContraction(&op))
      wrapContraction(&op);
  for (auto fusion : llvm::make_early_inc_range(body.getOps<FusionOp>())) {
    if (fusion.getKind() != FusionKind::contraction ||
        analyzeInt8Contraction(fusion))
      continue;
    auto chain = analyzeContractionFusion(fusion);
    if (!chain)
      return fusion.emitError(
          "internal error: unanalyzable contraction fusion");
    if (auto conv = dyn_cast<Conv2DOp>(chain->contraction)) {
      padAsymmetricConvolution(fusion, conv);
      Value filter = fusion.getInputs()[cast<BlockArgument>(conv.getFilter())
                                            .getArgNumber()];
      if (conv.getLayout() == ir::Layout::NHWC &&
          !isa_and_nonnull<ConstantOp>(filter.getDefiningOp())) {
        auto type = cast<RankedTensorType>(filter.getType());
        llvm::ArrayRef<int64_t> hwio = type.getShape();
        OpBuilder builder(fusion);
        auto transpose = TransposeOp::create(
            builder, conv.getLoc(),
            RankedTensorType::get({hwio[3], hwio[0], hwio[1], hwio[2]},
                                  type.getElementType()),
            filter, builder.getDenseI64ArrayAttr({3, 0, 1, 2}));
        // A kernel of its own (nothing in the IR uses it: the plan does).
        ohwiFilters[conv] = wrapInFusion(transpose)->getResult(0);
      }
    }
    if (auto matmul = dyn_cast<MatmulOp>(chain->contraction))
      broadcastPartialBatches(fusion, matmul);
    // An empty contraction (no K, no input channels, an empty filter)
    // with a non-empty result is zeros: the fusion becomes a loop fusion of
    // its post-ops on a zero constant.
    Operation *contraction = chain->contraction;
    auto resultType = cast<RankedTensorType>(contraction->getResultTypes()[0]);
    bool emptyOperand =
        llvm::any_of(contraction->getOperandTypes(), [](Type t) {
          return cast<RankedTensorType>(t).getNumElements() == 0;
        });
    auto conv = dyn_cast<Conv2DOp>(contraction);
    if (emptyOperand && resultType.getNumElements() > 0 &&
        !(conv && conv.getBias())) {
      OpBuilder builder(contraction);
      Attribute zero = builder.getZeroAttr(resultType.getElementType());
      Value zeros =
          ConstantOp::create(builder, contraction->getLoc(),
                             DenseElementsAttr::get(resultType, zero));
      contraction->getResult(0).replaceAllUsesWith(zeros);
      contraction->erase();
      fusion->setAttr(
          "kind", FusionKindAttr::get(fusion->getContext(), FusionKind::loop));
      continue;
    }
    LibraryEpilogue epilogue = libraryEpilogue(*chain);
    if (epilogue.count < chain->postOps.size() &&
        failed(splitChain(fusion, *chain, epilogue.count)))
      return fusion.emitError("internal error: cannot split the post-ops");
  }
  return success();
}

} // namespace

std::string cuda::CompiledFunction::describe() const { return planText; }

namespace tgc::cuda {
namespace {

/// "2x3x4".
std::string dimsText(llvm::ArrayRef<int64_t> shape) {
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s;
}

/// The value outside `fusion` that its block argument `inner` stands for.
Value outerValue(FusionOp fusion, Value inner) {
  return fusion.getInputs()[cast<BlockArgument>(inner).getArgNumber()];
}

/// Plans a specialized function as a DeviceExecutable, in the manner of
/// XLA's thunk emitter: the function is partitioned into library calls and
/// generated kernels, one emit member per op family plans its steps, and
/// the state they share (the spec being built, the logical buffers of the
/// values, the steps, the memory plan) is in members.
class CudaPlanEmitter {
public:
  CudaPlanEmitter(func::FuncOp func, func::FuncOp specialized,
                  const CompileOptions &options);

  /// The compiled function (without its module): partition, steps, memory
  /// plan, NVRTC compilation, launches, the plan text and the executable.
  llvm::Expected<CompiledFunction> emit();

private:
  // Logical buffers: inputs, constants, then one per kernel result.
  struct Logical {
    enum Kind { Input, Constant, Intermediate } kind;
    int index;
    size_t bytes;
  };
  struct Step {
    FusionOp fusion;
    Launch::Kind kind = Launch::Kind::Kernel;
    GeneratedKernel kernel;
    /// Library calls, with logical buffer numbers until the memory plan.
    MatmulCall matmul;
    ConvCall conv;
    std::string description;
    std::vector<int> operands, results;
    /// Library calls: the type of each operand, for the plan.
    std::vector<std::string> operandTexts;
  };

  // 1. Partition.
  llvm::Error partition();
  llvm::Error wrapSingleOps();

  // 2. Steps, in order.
  int addLogical(Logical::Kind kind, int index, size_t bytes);
  llvm::Error emitArguments();
  llvm::Error emitOp(Operation &op);
  llvm::Error emitConstant(ConstantOp constant);
  llvm::Error emitEmptyResults(FusionOp fusion);
  llvm::Error emitContraction(FusionOp fusion);
  llvm::Error planLibraryCall(FusionOp fusion, Step &step);
  int operandBuffer(FusionOp fusion, Value inner, Step &step);
  llvm::Error planMatmul(MatmulOp mm, const LibraryEpilogue &epilogue,
                         runtime::DType dtype, FusionOp fusion, Step &step);
  llvm::Error planConv(Conv2DOp c2d, const LibraryEpilogue &epilogue,
                       runtime::DType dtype, FusionOp fusion, Step &step);
  llvm::Error planInt8(const Int8Contraction &int8, FusionOp fusion,
                       Step &step);
  llvm::Error addOhwiFilter(Conv2DOp c2d, Value filterValue, Type elementType,
                            Step &step);
  static std::string describeConv(const ConvCall &conv,
                                  llvm::ArrayRef<int64_t> in);
  llvm::Error emitLoopKernel(FusionOp fusion);

  // 3. Memory plan.
  void planMemory();
  int physical(int b) const;

  // 4. Kernels and launches.
  llvm::Error compileKernels();
  void emitLibraryLaunch(Step &step);
  void emitKernelLaunch(Step &step);
  llvm::Error emitResultSpecs();

  // 5. The plan.
  void describePlan();

  func::FuncOp func;
  func::FuncOp specialized;
  const CompileOptions &options;
  MLIRContext *context;
  Block &body;

  CompiledFunction compiled;
  ExecutableSpec spec;
  llvm::DenseMap<Operation *, Value> ohwiFilters;
  llvm::DenseMap<Value, int> bufferOf;
  std::vector<Logical> logical;
  std::vector<Step> steps;
  std::vector<Value> returned;
  int kernelIndex = 0;
  std::string sanitized;

  std::vector<size_t> slotBytes;
  std::vector<int> slotOf;
  size_t intermediateBytes = 0;
  int numInputs = 0, numConstants = 0;

  std::string image, fallback;
  size_t numKernels = 0;
  std::vector<std::string> resultTexts;
};

CudaPlanEmitter::CudaPlanEmitter(func::FuncOp func, func::FuncOp specialized,
                                 const CompileOptions &options)
    : func(func), specialized(specialized), options(options),
      context(func.getContext()), body(specialized.getBody().front()) {
  compiled.functionName = func.getName().str();
  compiled.arch = options.arch;
  compiled.imageKind = options.imageKind;
  for (char c : func.getName())
    sanitized += llvm::isAlnum(c) ? c : '_';
}

llvm::Expected<CompiledFunction> CudaPlanEmitter::emit() {
  if (auto error = partition())
    return std::move(error);

  // 2. Kernels, in order.
  if (auto error = emitArguments())
    return std::move(error);
  for (Operation &op : body)
    if (auto error = emitOp(op))
      return std::move(error);

  planMemory();

  if (auto error = compileKernels())
    return std::move(error);
  for (Step &step : steps) {
    if (step.kind != Launch::Kind::Kernel)
      emitLibraryLaunch(step);
    else
      emitKernelLaunch(step);
  }
  if (auto error = emitResultSpecs())
    return std::move(error);

  describePlan();

  auto executable = DeviceExecutable::create(std::move(spec));
  if (!executable.ok())
    return makeError("internal error: " +
                     std::string(executable.status().message()));
  compiled.executable = std::move(*executable);
  return std::move(compiled);
}

//===----------------------------------------------------------------------===//
// 1. Partition
//===----------------------------------------------------------------------===//

llvm::Error CudaPlanEmitter::partition() {
  // 1. Partition: contraction fusions become library calls (cuBLASLt,
  //    cuDNN) with what their epilogues compute, the rest of their post-ops
  //    a loop fusion after them; loop fusions the generator rejects are
  //    split into their ops; single ops with a kernel become one-op fusions.
  {
    DiagnosticCapture capture(context);
    if (failed(prepareContractions(body, ohwiFilters)))
      return makeError(capture.first());
  }
  for (auto fusion : llvm::make_early_inc_range(body.getOps<FusionOp>())) {
    if (fusion.getKind() != FusionKind::loop)
      continue;
    DiagnosticCapture capture(context);
    if (failed(generateLoopKernel(fusion, "probe")))
      fusion.inlineBody();
  }
  return wrapSingleOps();
}

/// Wraps every op outside a fusion (but views, constants and the return) in
/// a one-op fusion; an op with no kernel is an UnsupportedError.
llvm::Error CudaPlanEmitter::wrapSingleOps() {
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (isa<func::ReturnOp, ConstantOp, FusionOp>(op) || isView(&op))
      continue;
    if (!isLoopFusable(&op) && !hasStandaloneKernel(&op)) {
      if (isa<IfOp, WhileOp>(op))
        return notSupported(&op,
                            "control flow runs on the CPU backend (the CUDA "
                            "planner does not compile regions)");
      if (isContraction(&op))
        return notSupported(
            &op, "cuBLASLt and cuDNN calls take f32, f16 or bf16 here, got " +
                     typeString(op.getResultTypes()[0]));
      // The generator's own reason (the compile fails anyway, so the op
      // may be wrapped).
      Operation *inner = &op;
      DiagnosticCapture capture(context);
      FusionOp probe = wrapInFusion(&op);
      inner = &probe.getBlock().front();
      (void)generateLoopKernel(probe, "probe");
      std::string why = capture.firstMessage();
      if (llvm::StringRef(why).starts_with("CUDA codegen: "))
        why = why.substr(strlen("CUDA codegen: "));
      return notSupported(inner, why);
    }
    wrapInFusion(&op);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// 2. Steps
//===----------------------------------------------------------------------===//

/// A new logical buffer; returns its number.
int CudaPlanEmitter::addLogical(Logical::Kind kind, int index, size_t bytes) {
  logical.push_back({kind, index, bytes});
  return static_cast<int>(logical.size()) - 1;
}

llvm::Error CudaPlanEmitter::emitArguments() {
  for (auto [i, arg] : llvm::enumerate(specialized.getArguments())) {
    auto type = cast<RankedTensorType>(arg.getType());
    auto dtype = reference::toDType(type.getElementType());
    if (!dtype)
      return codegen::makeUnsupportedError(
          "argument #" + llvm::Twine(i) + " has type " + typeString(type) +
          ", which the cuda backend does not support");
    TensorSpec input{*dtype, {type.getShape().begin(), type.getShape().end()}};
    spec.inputs.push_back(input);
    bufferOf[arg] =
        addLogical(Logical::Input, static_cast<int>(i), input.byteSize());
  }
  return llvm::Error::success();
}

/// The step (or buffer) of one op of the partitioned body.
llvm::Error CudaPlanEmitter::emitOp(Operation &op) {
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    returned.assign(ret.getOperands().begin(), ret.getOperands().end());
    return llvm::Error::success();
  }
  if (auto constant = dyn_cast<ConstantOp>(op))
    return emitConstant(constant);
  if (isView(&op)) {
    bufferOf[op.getResult(0)] = bufferOf.lookup(op.getOperand(0));
    return llvm::Error::success();
  }
  auto fusion = cast<FusionOp>(op);
  // Results with no elements need no work: empty constants stand for them.
  if (llvm::all_of(fusion.getResults(), [](Value v) {
        return cast<RankedTensorType>(v.getType()).getNumElements() == 0;
      }))
    return emitEmptyResults(fusion);
  if (fusion.getKind() == FusionKind::contraction)
    return emitContraction(fusion);
  return emitLoopKernel(fusion);
}

llvm::Error CudaPlanEmitter::emitConstant(ConstantOp constant) {
  auto value = reference::runOp(constant.getOperation(), {});
  if (!value)
    return value.takeError();
  bufferOf[constant.getResult()] =
      addLogical(Logical::Constant, static_cast<int>(spec.constants.size()),
                 value->byteSize());
  spec.constants.push_back(std::move(*value));
  return llvm::Error::success();
}

llvm::Error CudaPlanEmitter::emitEmptyResults(FusionOp fusion) {
  for (Value result : fusion.getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    auto dtype = reference::toDType(type.getElementType());
    if (!dtype)
      return notSupported(fusion, "element type " + typeString(type));
    auto empty = HostTensor::allocate(
        *dtype, {type.getShape().begin(), type.getShape().end()});
    if (!empty.ok())
      return makeError(std::string(empty.status().message()));
    bufferOf[result] = addLogical(Logical::Constant,
                                  static_cast<int>(spec.constants.size()), 0);
    spec.constants.push_back(std::move(*empty));
  }
  return llvm::Error::success();
}

/// A contraction fusion: one cuBLASLt or cuDNN call writing a new buffer.
llvm::Error CudaPlanEmitter::emitContraction(FusionOp fusion) {
  Step step;
  step.fusion = fusion;
  if (auto error = planLibraryCall(fusion, step))
    return std::move(error);
  Value result = fusion.getResult(0);
  int b = addLogical(Logical::Intermediate, -1, byteSizeOf(result.getType()));
  bufferOf[result] = b;
  step.results.push_back(b);
  if (step.kind == Launch::Kind::Matmul)
    step.matmul.d = step.results[0];
  else
    step.conv.y = step.results[0];
  steps.push_back(std::move(step));
  return llvm::Error::success();
}

// A contraction fusion (its chain is what the library epilogue computes:
// prepareContractions split off the rest) as a cuBLASLt or cuDNN call.
// Buffers are logical here; the result buffer is filled in by the caller.
llvm::Error CudaPlanEmitter::planLibraryCall(FusionOp fusion, Step &step) {
  if (auto int8 = analyzeInt8Contraction(fusion))
    return planInt8(*int8, fusion, step);
  auto chain = analyzeContractionFusion(fusion);
  if (!chain)
    return makeError("internal error: unanalyzable contraction fusion at " +
                     locationString(fusion.getLoc()));
  LibraryEpilogue epilogue = libraryEpilogue(*chain);
  Operation *contraction = chain->contraction;
  if (epilogue.count != chain->postOps.size())
    return notSupported(contraction, "post-ops left unsplit");
  auto resultType = cast<RankedTensorType>(contraction->getResultTypes()[0]);
  auto dtype = reference::toDType(resultType.getElementType());
  if (!dtype ||
      (*dtype != runtime::DType::F32 && *dtype != runtime::DType::F16 &&
       *dtype != runtime::DType::BF16))
    return notSupported(contraction,
                        "cuBLASLt and cuDNN calls take f32, f16 or bf16, got " +
                            typeString(resultType));
  if (auto mm = dyn_cast<MatmulOp>(contraction))
    return planMatmul(mm, epilogue, *dtype, fusion, step);
  return planConv(cast<Conv2DOp>(contraction), epilogue, *dtype, fusion, step);
}

/// The logical buffer of the fusion's input `inner`, appended to the step's
/// operands.
int CudaPlanEmitter::operandBuffer(FusionOp fusion, Value inner, Step &step) {
  int b = bufferOf.lookup(outerValue(fusion, inner));
  step.operands.push_back(b);
  step.operandTexts.push_back(shapeText(inner.getType()));
  return b;
}

/// The cuBLASLt call of `mm`.
llvm::Error CudaPlanEmitter::planMatmul(MatmulOp mm,
                                        const LibraryEpilogue &epilogue,
                                        runtime::DType dtype, FusionOp fusion,
                                        Step &step) {
  MatmulCall &matmul = step.matmul;
  step.kind = Launch::Kind::Matmul;
  std::vector<int64_t> lhs = shapeOf(mm.getLhs()), rhs = shapeOf(mm.getRhs()),
                       out = shapeOf(mm.getResult());
  const size_t rank = out.size();
  matmul.dtype = dtype;
  matmul.transA = mm.getTransposeA();
  matmul.transB = mm.getTransposeB();
  matmul.m = out[rank - 2];
  matmul.n = out[rank - 1];
  matmul.k = matmul.transA ? lhs[lhs.size() - 2] : lhs.back();
  llvm::ArrayRef<int64_t> outBatch(out.data(), rank - 2);
  const int64_t batch = product(outBatch);
  // Elements between batch matrices of an operand: 0 when one matrix
  // serves every batch, the matrix size when its batch dims are the
  // result's; other broadcasts have no single stride.
  auto strideOf = [&](llvm::ArrayRef<int64_t> shape) -> int64_t {
    llvm::ArrayRef<int64_t> b = shape.drop_back(2);
    if (product(b) == 1)
      return 0;
    SmallVector<int64_t> padded(outBatch.size() - b.size(), 1);
    padded.append(b.begin(), b.end());
    if (llvm::ArrayRef<int64_t>(padded) != outBatch)
      return -1;
    return shape[shape.size() - 2] * shape.back();
  };
  matmul.batch = batch;
  matmul.strideA = strideOf(lhs);
  matmul.strideB = strideOf(rhs);
  if (matmul.strideA < 0 || matmul.strideB < 0)
    return notSupported(mm, "batch dims broadcast partially (" + dimsText(lhs) +
                                " * " + dimsText(rhs) +
                                "); cuBLASLt batches need one stride");
  matmul.strideC = matmul.strideD = batch > 1 ? matmul.m * matmul.n : 0;
  // [B.., M, K] x [K, N]: one GEMM of B*M rows.
  if (batch > 1 && matmul.strideB == 0 && !matmul.transA &&
      matmul.strideA == matmul.m * matmul.k) {
    matmul.m *= batch;
    matmul.batch = 1;
    matmul.strideA = matmul.strideC = matmul.strideD = 0;
  }
  matmul.alpha = epilogue.alpha;
  matmul.allowTf32 = options.allowTf32;
  matmul.a = operandBuffer(fusion, mm.getLhs(), step);
  matmul.b = operandBuffer(fusion, mm.getRhs(), step);
  if (epilogue.residual) {
    matmul.c = operandBuffer(fusion, epilogue.residual, step);
    matmul.beta = 1;
  }
  if (epilogue.bias)
    matmul.bias = operandBuffer(fusion, epilogue.bias, step);
  using E = MatmulCall::Epilogue;
  const bool bias = static_cast<bool>(epilogue.bias);
  if (epilogue.activation == "relu")
    matmul.epilogue = bias ? E::BiasRelu : E::Relu;
  else if (epilogue.activation == "gelu_tanh")
    matmul.epilogue = bias ? E::BiasGelu : E::Gelu;
  else
    matmul.epilogue = bias ? E::Bias : E::None;
  std::string fused;
  for (const std::string &name : epilogue.names)
    fused += " + " + name;
  step.description =
      "cublasLt matmul " +
      (matmul.batch > 1 ? std::to_string(matmul.batch) + "x" : "") + "(" +
      std::to_string(matmul.m) + "x" + std::to_string(matmul.k) + " * " +
      std::to_string(matmul.k) + "x" + std::to_string(matmul.n) + ")" +
      (matmul.transA ? " transA" : "") + (matmul.transB ? " transB" : "") +
      fused;
  return llvm::Error::success();
}

/// The cuDNN call of `c2d`.
llvm::Error CudaPlanEmitter::planConv(Conv2DOp c2d,
                                      const LibraryEpilogue &epilogue,
                                      runtime::DType dtype, FusionOp fusion,
                                      Step &step) {
  ConvCall &conv = step.conv;
  step.kind = Launch::Kind::Conv;
  std::vector<int64_t> in = shapeOf(c2d.getInput()),
                       filter = shapeOf(c2d.getFilter()),
                       out = shapeOf(c2d.getResult());
  conv.dtype = dtype;
  conv.nhwc = c2d.getLayout() == ir::Layout::NHWC;
  conv.n = in[0];
  if (conv.nhwc) {
    conv.h = in[1], conv.w = in[2], conv.c = in[3];
    conv.r = filter[0], conv.s = filter[1], conv.k = filter[3];
    conv.outH = out[1], conv.outW = out[2];
  } else {
    conv.c = in[1], conv.h = in[2], conv.w = in[3];
    conv.k = filter[0], conv.r = filter[2], conv.s = filter[3];
    conv.outH = out[2], conv.outW = out[3];
  }
  llvm::ArrayRef<int64_t> pad = c2d.getPadding();
  if (pad[0] != pad[2] || pad[1] != pad[3])
    return notSupported(c2d, "asymmetric padding");
  conv.padH = pad[0], conv.padW = pad[1];
  conv.strideH = c2d.getStrides()[0], conv.strideW = c2d.getStrides()[1];
  conv.dilationH = c2d.getDilations()[0];
  conv.dilationW = c2d.getDilations()[1];
  conv.groups = c2d.getGroups();
  conv.relu = epilogue.activation == "relu";
  conv.allowTf32 = options.allowTf32;
  conv.x = operandBuffer(fusion, c2d.getInput(), step);
  if (!conv.nhwc) {
    conv.filter = operandBuffer(fusion, c2d.getFilter(), step);
  } else if (Value transposed = ohwiFilters.lookup(c2d)) {
    // Transposed by a kernel before the call.
    conv.filter = bufferOf.lookup(transposed);
    step.operands.push_back(conv.filter);
    step.operandTexts.push_back(shapeText(transposed.getType()) + " (OHWI)");
  } else if (auto error =
                 addOhwiFilter(c2d, outerValue(fusion, c2d.getFilter()),
                               cast<RankedTensorType>(c2d.getResult().getType())
                                   .getElementType(),
                               step)) {
    return std::move(error);
  }
  if (epilogue.bias)
    conv.bias = operandBuffer(fusion, epilogue.bias, step);
  if (epilogue.residual) {
    conv.z = operandBuffer(fusion, epilogue.residual, step);
    conv.alpha2 = 1;
  }
  step.description = describeConv(conv, in);
  for (const std::string &name : epilogue.names)
    step.description += " + " + name;
  return llvm::Error::success();
}

/// An int8 contraction (analyzeInt8Contraction): a cuBLASLt GEMM of s8
/// operands with s32 results in its TN form, or a cuDNN convolution of s8
/// operands with f32 results (INT8_EXT_CONFIG).
llvm::Error CudaPlanEmitter::planInt8(const Int8Contraction &int8,
                                      FusionOp fusion, Step &step) {
  if (auto mm = dyn_cast<MatmulOp>(int8.contraction)) {
    MatmulCall &matmul = step.matmul;
    step.kind = Launch::Kind::Matmul;
    std::vector<int64_t> lhs = shapeOf(mm.getLhs()), rhs = shapeOf(mm.getRhs());
    matmul.dtype = runtime::DType::I8;
    matmul.transA = false;
    matmul.transB = true;
    matmul.k = lhs.back();
    matmul.m = product(llvm::ArrayRef<int64_t>(lhs).drop_back());
    matmul.n = rhs[0];
    matmul.a = operandBuffer(fusion, int8.input, step);
    matmul.b = operandBuffer(fusion, int8.weights, step);
    step.description = "cublasLt matmul (" + std::to_string(matmul.m) + "x" +
                       std::to_string(matmul.k) + " * " +
                       std::to_string(matmul.k) + "x" +
                       std::to_string(matmul.n) + ") int8 -> s32";
    return llvm::Error::success();
  }
  auto c2d = cast<Conv2DOp>(int8.contraction);
  ConvCall &conv = step.conv;
  step.kind = Launch::Kind::Conv;
  std::vector<int64_t> in = shapeOf(c2d.getInput()),
                       filter = shapeOf(c2d.getFilter()),
                       out = shapeOf(c2d.getResult());
  conv.dtype = runtime::DType::I8;
  conv.nhwc = true;
  conv.n = in[0], conv.h = in[1], conv.w = in[2], conv.c = in[3];
  conv.r = filter[0], conv.s = filter[1], conv.k = filter[3];
  conv.outH = out[1], conv.outW = out[2];
  llvm::ArrayRef<int64_t> pad = c2d.getPadding();
  if (pad[0] != pad[2] || pad[1] != pad[3])
    return makeError("internal error: the int8 convolution at " +
                     locationString(c2d.getLoc()) + " pads asymmetrically");
  conv.padH = pad[0], conv.padW = pad[1];
  conv.strideH = c2d.getStrides()[0], conv.strideW = c2d.getStrides()[1];
  conv.dilationH = c2d.getDilations()[0];
  conv.dilationW = c2d.getDilations()[1];
  conv.x = operandBuffer(fusion, int8.input, step);
  if (auto error = addOhwiFilter(
          c2d, outerValue(fusion, int8.weights),
          cast<RankedTensorType>(int8.weights.getType()).getElementType(),
          step))
    return error;
  step.description = describeConv(conv, in) + " int8 -> f32";
  return llvm::Error::success();
}

/// The constant HWIO filter `filterValue` of an NHWC convolution permuted to
/// a new OHWI constant, the call's filter operand.
llvm::Error CudaPlanEmitter::addOhwiFilter(Conv2DOp c2d, Value filterValue,
                                           Type elementType, Step &step) {
  ConvCall &conv = step.conv;
  std::vector<int64_t> filter = shapeOf(c2d.getFilter());
  // cuDNN's NHWC filters are KRSC (OHWI); tgc's are HWIO: permute the
  // constant once, here.
  int b = bufferOf.lookup(filterValue);
  if (logical[b].kind != Logical::Constant)
    return makeError("internal error: the filter of an NHWC convolution "
                     "at " +
                     locationString(c2d.getLoc()) +
                     " is neither constant nor transposed");
  const HostTensor &hwio = spec.constants[logical[b].index];
  auto ohwi = HostTensor::allocateUninitialized(
      hwio.dtype(), {conv.k, conv.r, conv.s, filter[2]});
  if (!ohwi.ok())
    return makeError(std::string(ohwi.status().message()));
  const size_t size = runtime::dtypeSize(hwio.dtype());
  const auto *src = static_cast<const char *>(hwio.data());
  auto *dst = static_cast<char *>(ohwi->data());
  const int64_t ci = filter[2];
  for (int64_t r = 0; r < conv.r; ++r)
    for (int64_t s = 0; s < conv.s; ++s)
      for (int64_t c = 0; c < ci; ++c)
        for (int64_t k = 0; k < conv.k; ++k)
          std::memcpy(dst + (((k * conv.r + r) * conv.s + s) * ci + c) * size,
                      src + (((r * conv.s + s) * ci + c) * conv.k + k) * size,
                      size);
  if (filterValue.hasOneUse()) {
    // Nothing else reads the HWIO constant: the OHWI one takes its place.
    conv.filter = b;
    spec.constants[logical[b].index] = std::move(*ohwi);
  } else {
    conv.filter =
        addLogical(Logical::Constant, static_cast<int>(spec.constants.size()),
                   ohwi->byteSize());
    spec.constants.push_back(std::move(*ohwi));
  }
  step.operands.push_back(conv.filter);
  step.operandTexts.push_back(dimsText({conv.k, conv.r, conv.s, filter[2]}) +
                              "x" + typeString(elementType) + " (OHWI)");
  return llvm::Error::success();
}

/// "cudnn conv2d NHWC 1x8x8x3 * 16x3x3x3 stride 2 pad 1", without the
/// fused post-ops.
std::string CudaPlanEmitter::describeConv(const ConvCall &conv,
                                          llvm::ArrayRef<int64_t> in) {
  std::string description =
      "cudnn conv2d " + std::string(conv.nhwc ? "NHWC " : "") + dimsText(in) +
      " * " + std::to_string(conv.k) + "x" +
      std::to_string(conv.c / conv.groups) + "x" + std::to_string(conv.r) +
      "x" + std::to_string(conv.s);
  if (conv.strideH != 1 || conv.strideW != 1)
    description +=
        " stride " + std::to_string(conv.strideH) +
        (conv.strideW != conv.strideH ? "," + std::to_string(conv.strideW)
                                      : "");
  if (conv.padH || conv.padW)
    description +=
        " pad " + std::to_string(conv.padH) +
        (conv.padW != conv.padH ? "," + std::to_string(conv.padW) : "");
  if (conv.dilationH != 1 || conv.dilationW != 1)
    description += " dilation " + std::to_string(conv.dilationH) + "," +
                   std::to_string(conv.dilationW);
  if (conv.groups != 1)
    description += " groups " + std::to_string(conv.groups);
  return description;
}

/// A loop fusion (or one-op fusion) as a generated kernel.
llvm::Error CudaPlanEmitter::emitLoopKernel(FusionOp fusion) {
  std::string name = "tgc_" + sanitized + "_" + std::to_string(kernelIndex++);
  DiagnosticCapture capture(context);
  FailureOr<GeneratedKernel> kernel = generateLoopKernel(fusion, name);
  if (failed(kernel)) {
    // A one-op fusion (multi-op ones the generator rejects were split).
    Operation &inner = fusion.getBlock().front();
    std::string why = capture.firstMessage();
    if (llvm::StringRef(why).starts_with("CUDA codegen: "))
      why = why.substr(strlen("CUDA codegen: "));
    return notSupported(&inner, why);
  }
  Step step;
  step.fusion = fusion;
  step.kernel = std::move(*kernel);
  for (Value operand : fusion.getInputs())
    step.operands.push_back(bufferOf.lookup(operand));
  for (Value result : fusion.getResults()) {
    int b = addLogical(Logical::Intermediate, -1, byteSizeOf(result.getType()));
    bufferOf[result] = b;
    step.results.push_back(b);
  }
  steps.push_back(std::move(step));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// 3. Memory plan
//===----------------------------------------------------------------------===//

void CudaPlanEmitter::planMemory() {
  // 3. Memory plan: intermediates share device buffers by liveness (a
  //    buffer is free after the last launch reading it; results live to the
  //    end). Buffers come from the pool once per call.
  std::vector<int> lastUse(logical.size(), -1);
  for (size_t s = 0; s < steps.size(); ++s)
    for (int b : steps[s].operands)
      lastUse[b] = static_cast<int>(s);
  for (Value v : returned)
    lastUse[bufferOf.lookup(v)] = std::numeric_limits<int>::max();
  std::vector<bool> slotFree;
  slotOf.assign(logical.size(), -1);
  std::vector<std::pair<int, int>> live; // (logical, slot)
  for (size_t s = 0; s < steps.size(); ++s) {
    for (auto it = live.begin(); it != live.end();) {
      if (lastUse[it->first] < static_cast<int>(s)) {
        slotFree[it->second] = true;
        it = live.erase(it);
      } else {
        ++it;
      }
    }
    for (int b : steps[s].results) {
      // The smallest free slot that fits, else the largest free one
      // (grown), else a new one.
      const size_t need = logical[b].bytes;
      int best = -1;
      for (size_t k = 0; k < slotBytes.size(); ++k) {
        if (!slotFree[k])
          continue;
        if (best < 0) {
          best = static_cast<int>(k);
          continue;
        }
        bool fits = slotBytes[k] >= need, bestFits = slotBytes[best] >= need;
        if ((fits && !bestFits) ||
            (fits && bestFits && slotBytes[k] < slotBytes[best]) ||
            (!fits && !bestFits && slotBytes[k] > slotBytes[best]))
          best = static_cast<int>(k);
      }
      if (best < 0) {
        best = static_cast<int>(slotBytes.size());
        slotBytes.push_back(0);
        slotFree.push_back(true);
      }
      slotBytes[best] = std::max(slotBytes[best], logical[b].bytes);
      slotFree[best] = false;
      slotOf[b] = best;
      live.push_back({b, best});
    }
  }
  numInputs = static_cast<int>(spec.inputs.size());
  numConstants = static_cast<int>(spec.constants.size());
  for (size_t bytes : slotBytes) {
    spec.intermediates.push_back(TensorSpec{
        runtime::DType::F32, {static_cast<int64_t>((bytes + 3) / 4)}});
    intermediateBytes += bytes;
  }
}

/// The physical buffer of logical buffer `b`: inputs, constants, then the
/// intermediate slots.
int CudaPlanEmitter::physical(int b) const {
  switch (logical[b].kind) {
  case Logical::Input:
    return logical[b].index;
  case Logical::Constant:
    return numInputs + logical[b].index;
  case Logical::Intermediate:
    break;
  }
  return numInputs + numConstants + slotOf[b];
}

//===----------------------------------------------------------------------===//
// 4. Kernels and launches
//===----------------------------------------------------------------------===//

llvm::Error CudaPlanEmitter::compileKernels() {
  // 4. One translation unit, compiled once.
  compiled.source = kernelPrelude();
  for (const Step &step : steps)
    if (step.kind == Launch::Kind::Kernel) {
      compiled.source += "\n" + step.kernel.code;
      ++numKernels;
    }
  if (numKernels) {
    // One NVRTC compilation gives the cubin and its PTX fallback.
    auto compiledImage = compileCuda(
        compiled.source, options.arch, options.imageKind,
        options.imageKind == ImageKind::Cubin && options.ptxFallback ? &fallback
                                                                     : nullptr);
    if (!compiledImage.ok())
      return makeError(
          "compiling the kernels of '" + func.getName() +
          "' with NVRTC: " + std::string(compiledImage.status().message()));
    image = std::move(*compiledImage);
  }
  return llvm::Error::success();
}

void CudaPlanEmitter::emitLibraryLaunch(Step &step) {
  Launch launch;
  launch.kind = step.kind;
  PlannedLaunch planned;
  planned.kind = step.kind == Launch::Kind::Matmul ? "cublasLt" : "cudnn";
  planned.opList = step.description;
  planned.location = locationString(step.fusion.getLoc());
  auto remap = [&](int &b) {
    if (b >= 0)
      b = physical(b);
  };
  if (step.kind == Launch::Kind::Matmul) {
    MatmulCall call = step.matmul;
    for (int *b : {&call.a, &call.b, &call.c, &call.bias, &call.d})
      remap(*b);
    launch.kernel = static_cast<int>(spec.matmuls.size());
    spec.matmuls.push_back(call);
  } else {
    ConvCall call = step.conv;
    for (int *b : {&call.x, &call.filter, &call.bias, &call.z, &call.y})
      remap(*b);
    launch.kernel = static_cast<int>(spec.convs.size());
    spec.convs.push_back(call);
  }
  // Operands in the call's order: the fusion's inputs are not (a
  // permuted filter is a constant of its own).
  for (auto [b, text] : llvm::zip(step.operands, step.operandTexts)) {
    launch.buffers.push_back(physical(b));
    planned.operands.push_back({physical(b), text});
  }
  for (auto [b, v] : llvm::zip(step.results, step.fusion.getResults())) {
    launch.buffers.push_back(physical(b));
    planned.results.push_back({physical(b), shapeText(v.getType())});
  }
  spec.launches.push_back(std::move(launch));
  compiled.launches.push_back(std::move(planned));
}

void CudaPlanEmitter::emitKernelLaunch(Step &step) {
  Launch launch;
  launch.kernel = static_cast<int>(spec.kernels.size());
  KernelImage kernelImage{step.kernel.name, image, fallback, {}};
  for (const GeneratedKernel::Check &check : step.kernel.checks)
    kernelImage.checks.push_back(locationString(check.loc) + ": " +
                                 check.message);
  spec.kernels.push_back(std::move(kernelImage));
  launch.grid = step.kernel.launch.grid;
  launch.block = step.kernel.launch.block;
  PlannedLaunch planned;
  planned.kernel = step.kernel.name;
  planned.kind = step.kernel.rows > 0 ? "row" : "elementwise";
  planned.opList = step.kernel.opList;
  planned.location = locationString(step.fusion.getLoc());
  planned.launch = step.kernel.launch;
  planned.rows = step.kernel.rows;
  planned.rowLength = step.kernel.rowLength;
  planned.numElements = step.kernel.numElements;
  for (auto [b, v] : llvm::zip(step.operands, step.fusion.getInputs())) {
    launch.buffers.push_back(physical(b));
    planned.operands.push_back({physical(b), shapeText(v.getType())});
  }
  for (auto [b, v] : llvm::zip(step.results, step.fusion.getResults())) {
    launch.buffers.push_back(physical(b));
    planned.results.push_back({physical(b), shapeText(v.getType())});
  }
  spec.launches.push_back(std::move(launch));
  compiled.launches.push_back(std::move(planned));
}

llvm::Error CudaPlanEmitter::emitResultSpecs() {
  for (Value v : returned) {
    auto type = cast<RankedTensorType>(v.getType());
    auto dtype = reference::toDType(type.getElementType());
    if (!dtype)
      return codegen::makeUnsupportedError(
          "a result of '" + func.getName() + "' has type " + typeString(type) +
          ", which the cuda backend does not support");
    int b = physical(bufferOf.lookup(v));
    spec.results.push_back(b);
    spec.resultSpecs.push_back(
        TensorSpec{*dtype, {type.getShape().begin(), type.getShape().end()}});
    resultTexts.push_back("b" + std::to_string(b) + ":" +
                          shapeText(v.getType()));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// 5. The plan
//===----------------------------------------------------------------------===//

void CudaPlanEmitter::describePlan() {
  // 5. The plan.
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "cuda plan for @" << func.getName() << " (" << options.arch << ", "
     << (options.imageKind == ImageKind::Ptx ? "ptx"
         : options.ptxFallback               ? "cubin + ptx fallback"
                                             : "cubin")
     << ", " << nvrtcVersion() << "): " << numKernels << " kernel"
     << (numKernels == 1 ? "" : "s");
  if (!spec.matmuls.empty())
    os << ", " << spec.matmuls.size() << " cuBLASLt matmul"
       << (spec.matmuls.size() == 1 ? "" : "s");
  if (!spec.convs.empty())
    os << ", " << spec.convs.size() << " cuDNN convolution"
       << (spec.convs.size() == 1 ? "" : "s");
  os << ", one synchronization per call\n";
  if (options.precision == Precision::Int8) {
    size_t int8 = 0, calls = spec.matmuls.size() + spec.convs.size();
    for (const MatmulCall &m : spec.matmuls)
      int8 += m.dtype == runtime::DType::I8;
    for (const ConvCall &c : spec.convs)
      int8 += c.dtype == runtime::DType::I8;
    os << "int8: " << int8 << " of " << calls << " library call"
       << (calls == 1 ? "" : "s")
       << (int8 == calls ? ""
                         : " (the others f32: no QDQ grid or calibration "
                           "entry, or not expressible as an int8 call)")
       << "\n";
  }
  os << "buffers:";
  for (int i = 0; i < numInputs; ++i)
    os << " b" << i << " input " << spec.inputs[i].describe() << ";";
  for (int i = 0; i < numConstants; ++i)
    os << " b" << numInputs + i << " constant "
       << TensorSpec{spec.constants[i].dtype(), spec.constants[i].shape()}
              .describe()
       << ";";
  for (size_t i = 0; i < slotBytes.size(); ++i)
    os << " b" << numInputs + numConstants + static_cast<int>(i)
       << " intermediate " << slotBytes[i] << " B;";
  os << "\n";
  for (auto [i, planned] : llvm::enumerate(compiled.launches)) {
    os << "[" << i << "] ";
    if (planned.kind == "cublasLt" || planned.kind == "cudnn") {
      os << planned.opList << " at " << planned.location << " (";
    } else {
      os << planned.kernel << " <<<" << planned.launch.grid << ", "
         << planned.launch.block << ">>> " << planned.kind;
      if (planned.kind == "row")
        os << " (" << planned.rows << " rows of " << planned.rowLength
           << ", one block per row)";
      else
        os << " (" << planned.numElements << " elements)";
      os << " [" << planned.opList << "] at " << planned.location << " (";
    }
    for (auto [k, operand] : llvm::enumerate(planned.operands))
      os << (k ? ", " : "") << "b" << operand.first << ":" << operand.second;
    os << ") -> (";
    for (auto [k, result] : llvm::enumerate(planned.results))
      os << (k ? ", " : "") << "b" << result.first << ":" << result.second;
    os << ")\n";
  }
  os << "results: " << llvm::join(resultTexts, ", ") << "\n";
  os << "intermediates: " << slotBytes.size() << " buffer"
     << (slotBytes.size() == 1 ? "" : "s") << ", " << intermediateBytes
     << " bytes\n";
  compiled.planText = std::move(text);
}

} // namespace
} // namespace tgc::cuda

llvm::Expected<cuda::CompiledFunction>
cuda::compile(func::FuncOp func,
              const std::vector<std::vector<int64_t>> &inputShapes,
              const CompileOptions &options) {
  auto archNumber = parseArch(options.arch);
  if (!archNumber.ok())
    return makeError(std::string(archNumber.status().message()));
  if (options.precision != Precision::F32 &&
      options.precision != Precision::F16 &&
      options.precision != Precision::BF16 &&
      options.precision != Precision::Int8)
    return makeError(std::string("the cuda backend runs precision f32, f16, "
                                 "bf16 or int8, not ") +
                     toString(options.precision));
  auto module = specialize(func, inputShapes, options);
  if (!module)
    return module.takeError();
  auto specialized = (*module)->lookupSymbol<func::FuncOp>(func.getName());
  CudaPlanEmitter emitter(func, specialized, options);
  auto compiled = emitter.emit();
  if (!compiled)
    return compiled.takeError();
  compiled->module = std::move(*module);
  return compiled;
}
