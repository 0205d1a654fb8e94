//===- CudaPipeline.cpp - the CUDA backend's whole pipeline ---------------===//

#include "codegen/cuda/CudaPipeline.h"
#include "codegen/cuda/Passes.h"

#include "dialects/FusionBuilder.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SetVector.h"

namespace tgc::cuda {
#define GEN_PASS_DEF_TGCCUDATRIMCONTRACTIONCHAINS
#include "codegen/cuda/Passes.h.inc"
} // namespace tgc::cuda

using namespace mlir;
using namespace tgc;

namespace {

std::vector<int64_t> shapeOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return {type.getShape().begin(), type.getShape().end()};
}

int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// Before loop fusion: every contraction fusion keeps the post-ops its
/// library call computes (libraryEpilogue); the rest of its chain goes back
/// into the function, where tgc-fuse-elementwise groups it with what
/// follows (an erf-GELU and the softmax after it: one kernel).
struct TrimContractionChainsPass
    : public cuda::impl::TgcCudaTrimContractionChainsBase<
          TrimContractionChainsPass> {
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    if (f.isExternal())
      return;
    Block &body = f.getBody().front();
    for (auto fusion : llvm::make_early_inc_range(body.getOps<FusionOp>())) {
      if (fusion.getKind() != FusionKind::contraction)
        continue;
      auto chain = analyzeContractionFusion(fusion);
      if (!chain)
        continue;
      cuda::LibraryEpilogue epilogue = cuda::libraryEpilogue(*chain);
      if (epilogue.count == chain->postOps.size())
        continue;
      FailureOr<FusionOp> rest =
          cuda::splitChain(fusion, *chain, epilogue.count);
      if (succeeded(rest))
        rest->inlineBody();
    }
  }
};

struct CudaPipelineCLOptions
    : public PassPipelineOptions<CudaPipelineCLOptions> {
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Batch-norm folding, post-op and loop "
                                   "fusion (false: cleanup only)"),
                    llvm::cl::init(true)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("f16 or bf16: contractions and the ops between them "
                     "that only round run on that type "
                     "(tgc-reduce-precision); empty: every op in its own "
                     "type"),
      llvm::cl::init("")};
  Option<bool> int8{
      *this, "int8",
      llvm::cl::desc("Contractions with a QDQ grid (or an entry in "
                     "calibration-table) run as int8 cuBLASLt / cuDNN calls "
                     "(tgc-cuda-quantize-contractions); convolutions run "
                     "NHWC"),
      llvm::cl::init(false)};
  Option<std::string> calibrationTable{
      *this, "calibration-table",
      llvm::cl::desc("With int8: the calibration table file"),
      llvm::cl::init("")};
};

} // namespace

cuda::LibraryEpilogue cuda::libraryEpilogue(const PostOpChain &chain) {
  LibraryEpilogue epilogue;
  Operation *contraction = chain.contraction;
  const bool conv = isa<Conv2DOp>(contraction);
  const int64_t channels =
      shapeOf(contraction->getResult(0))[contractionChannelDim(contraction)];
  if (auto c = dyn_cast<Conv2DOp>(contraction); c && c.getBias()) {
    epilogue.bias = c.getBias();
    epilogue.names.push_back("bias");
  }
  auto &posts = chain.postOps;
  size_t i = 0;
  // matmul: alpha * (A B) first.
  if (!conv && i < posts.size() && posts[i].kind == PostOpKind::Linear &&
      posts[i].beta == 0) {
    epilogue.alpha = static_cast<float>(posts[i].alpha);
    epilogue.names.push_back(posts[i].entry->name.str());
    ++i;
  }
  // Then a bias and a residual, in either order.
  for (int adds = 0; adds < 2 && i < posts.size(); ++adds) {
    const MatchedPostOp &post = posts[i];
    if (post.kind != PostOpKind::Add)
      break;
    if (post.operandClass == OperandClass::PerChannel && !epilogue.bias &&
        product(shapeOf(post.operand)) == channels) {
      epilogue.bias = post.operand;
      epilogue.names.push_back("bias");
    } else if (post.operandClass == OperandClass::Full && !epilogue.residual &&
               shapeOf(post.operand) == shapeOf(contraction->getResult(0))) {
      epilogue.residual = post.operand;
      epilogue.names.push_back("residual add");
    } else {
      break;
    }
    ++i;
  }
  if (i < posts.size()) {
    if (posts[i].kind == PostOpKind::Relu) {
      epilogue.activation = "relu";
    } else if (!conv && posts[i].kind == PostOpKind::GeluTanh &&
               !epilogue.residual) {
      // cuBLASLt adds C before the epilogue's GELU too, which is what the
      // chain says; but keep GELU with a residual on the generated path
      // (no cuBLASLt epilogue promises GELU with beta != 0).
      epilogue.activation = "gelu_tanh";
    }
    if (!epilogue.activation.empty()) {
      epilogue.names.push_back(epilogue.activation);
      ++i;
    }
  }
  epilogue.count = i;
  return epilogue;
}

FailureOr<FusionOp> cuda::splitChain(FusionOp fusion, const PostOpChain &chain,
                                     size_t keep) {
  Block &block = fusion.getBlock();
  Value cut = keep == 0 ? chain.contraction->getResult(0)
                        : chain.postOps[keep - 1].result();
  if (cut.getType() != fusion.getResult(0).getType())
    return failure();
  llvm::SetVector<Operation *> moved;
  for (size_t i = keep; i < chain.postOps.size(); ++i)
    for (Operation *op : chain.postOps[i].ops)
      moved.insert(op);
  // The new fusion's inputs: the cut value, then every block argument the
  // moved ops read.
  SmallVector<Value> inputs{fusion.getResult(0)};
  SmallVector<Value> innerInputs{cut};
  for (Operation *op : moved)
    for (Value operand : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand);
          arg && arg.getOwner() == &block &&
          !llvm::is_contained(innerInputs, operand)) {
        innerInputs.push_back(operand);
        inputs.push_back(fusion.getInputs()[arg.getArgNumber()]);
      }
  OpBuilder builder(fusion->getContext());
  builder.setInsertionPointAfter(fusion);
  auto loop =
      buildFusion(builder, moved.back()->getLoc(), FusionKind::loop, inputs,
                  moved.getArrayRef(), moved.back()->getResult(0), innerInputs);
  fusion.getResult(0).replaceAllUsesExcept(loop.getResult(0), loop);
  auto yield = cast<YieldOp>(block.getTerminator());
  yield->setOperands(ValueRange{cut});
  for (Operation *op : llvm::reverse(moved))
    op->erase();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
  return loop;
}

std::unique_ptr<Pass> cuda::createTrimContractionChainsPass() {
  return createTgcCudaTrimContractionChains();
}

void cuda::buildCudaBackendPipeline(OpPassManager &pm,
                                    const CudaPipelineOptions &options) {
  // The tgc-cuda pipeline (passes/Pipelines.cpp): cleanup, batch-norm
  // folding, post-op fusion into contractions, loop fusion.
  // The pipeline's loop fusion runs after the contraction fusions are
  // trimmed to what cuBLASLt / cuDNN compute, so that the rest of their
  // chains fuses with the ops that follow.
  buildCudaPipeline(pm, options.fuse, /*loopFusion=*/false, options.narrowFloat,
                    options.int8);
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(createTrimContractionChainsPass());
  // Contractions with an input quantization (a QDQ grid, or with int8 a
  // calibration entry) become int8 calls between quantize and dequantize
  // ops, or f32 calls of their input rounded to the grid; loop fusion
  // then groups those ops with their neighbours (a dequantization, its
  // relu and the next layer's quantization: one kernel).
  pm.addNestedPass<func::FuncOp>(createQuantizeContractionsPass(
      options.calibration, options.int8 && options.fuse,
      options.calibrationFile));
  if (options.fuse)
    buildCudaLoopFusion(pm);
}

void cuda::registerCudaPipelines() {
  registerTgcCudaPasses();
  PassPipelineRegistration<CudaPipelineCLOptions>(
      "tgc-cuda",
      "The CUDA backend's pipeline: cleanup, batch-norm folding, post-op "
      "fusion into contractions (cuBLASLt / cuDNN epilogues), the post-ops "
      "no epilogue computes moved out of them, loop fusion of elementwise "
      "and reduction chains (generated kernels): exactly what tgc-run and "
      "tgc::function partition",
      [](OpPassManager &pm, const CudaPipelineCLOptions &options) {
        CudaPipelineOptions pipeline;
        pipeline.fuse = options.fuse;
        pipeline.narrowFloat = options.precision;
        pipeline.int8 = options.int8;
        pipeline.calibrationFile = options.calibrationTable;
        buildCudaBackendPipeline(pm, pipeline);
      });
}
