//===- Compiler.cpp - tgc functions to CUDA device executables ------------===//

#include "codegen/cuda/Compiler.h"

#include "codegen/reference/Interpreter.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"
#include "passes/Passes.h"
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
using runtime::HostTensor;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// Collects (and swallows) the error diagnostics emitted while it lives.
struct DiagnosticCapture {
  explicit DiagnosticCapture(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error && first.empty())
            first = diag.str();
          return success();
        }) {}
  std::string first;
  ScopedDiagnosticHandler handler;
};

/// The ops the CUDA backend runs without a kernel: views of their operand's
/// buffer.
bool isView(Operation *op) {
  return isa<ReshapeOp, SqueezeOp, UnsqueezeOp, tensor::CastOp>(op);
}

/// Wraps `op` in a one-op `tgc.fusion <loop>`.
FusionOp wrapInFusion(Operation *op) {
  OpBuilder builder(op);
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (!llvm::is_contained(inputs, operand))
      inputs.push_back(operand);
  auto fusion = FusionOp::create(
      builder, op->getLoc(), op->getResultTypes(),
      FusionKindAttr::get(builder.getContext(), FusionKind::loop), inputs);
  Block *body = new Block();
  fusion.getBody().push_back(body);
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  Operation *clone = inner.clone(*op, mapping);
  YieldOp::create(inner, op->getLoc(), clone->getResults());
  op->replaceAllUsesWith(fusion.getResults());
  op->erase();
  return fusion;
}

/// `func` specialized for `shapes` (tgc::specializeForShapes), then the
/// tgc-cuda pipeline.
llvm::Expected<OwningOpRef<ModuleOp>>
specialize(func::FuncOp func, const std::vector<std::vector<int64_t>> &shapes,
           const cuda::CompileOptions &options) {
  MLIRContext *context = func.getContext();
  auto specialized = tgc::specializeForShapes(func, shapes);
  if (!specialized)
    return specialized.takeError();
  OwningOpRef<ModuleOp> module = std::move(*specialized);
  DiagnosticCapture diagnostics(context);
  auto fail = [&](const llvm::Twine &message) {
    return makeError(diagnostics.first.empty() ? message.str()
                                               : diagnostics.first);
  };
  if (options.optimize) {
    // The tgc-cuda pipeline: cleanup and loop fusion. No NHWC layout
    // conversion (a oneDNN preference) and no post-op fusion: contractions
    // have no GPU kernel yet (cuBLASLt / cuDNN epilogues will take them).
    PassManager pm(context);
    tgc::buildCleanupPipeline(pm);
    if (options.fuse)
      pm.addNestedPass<func::FuncOp>(createTgcFuseElementwise());
    if (failed(pm.run(*module)))
      return fail("the tgc-cuda pipeline failed on '" + func.getName() + "'");
  }
  return module;
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

std::string notSupported(Operation *op, const std::string &why = "") {
  std::string message = op->getName().getStringRef().str() + " at " +
                        locationString(op->getLoc()) +
                        " is not supported by the cuda backend yet";
  if (!why.empty())
    message += ": " + why;
  return message;
}

} // namespace

std::string cuda::CompiledFunction::describe() const { return planText; }

llvm::Expected<cuda::CompiledFunction>
cuda::compile(func::FuncOp func,
              const std::vector<std::vector<int64_t>> &inputShapes,
              const CompileOptions &options) {
  auto archNumber = parseArch(options.arch);
  if (!archNumber.ok())
    return makeError(std::string(archNumber.status().message()));
  auto module = specialize(func, inputShapes, options);
  if (!module)
    return module.takeError();
  auto specialized = (*module)->lookupSymbol<func::FuncOp>(func.getName());
  MLIRContext *context = func.getContext();
  Block &body = specialized.getBody().front();

  // 1. Partition: contraction fusions run as their ops (no GPU kernel for
  //    contractions yet); loop fusions the generator rejects are split into
  //    their ops; single loop-fusable ops become one-op fusions.
  for (auto fusion : llvm::make_early_inc_range(body.getOps<FusionOp>())) {
    if (fusion.getKind() != FusionKind::loop) {
      fusion.inlineBody();
      continue;
    }
    DiagnosticCapture capture(context);
    if (failed(generateLoopKernel(fusion, "probe")))
      fusion.inlineBody();
  }
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (isa<func::ReturnOp, ConstantOp, FusionOp>(op) || isView(&op))
      continue;
    if (!isLoopFusable(&op) && !hasStandaloneKernel(&op)) {
      std::string why;
      for (Type type :
           llvm::concat<Type>(llvm::to_vector(op.getOperandTypes()),
                              llvm::to_vector(op.getResultTypes()))) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        if (tensor && !tensor.getElementType().isF32()) {
          why = "generated kernels compute on f32, got " + typeString(type);
          break;
        }
      }
      return makeError(notSupported(&op, why));
    }
    wrapInFusion(&op);
  }

  // 2. Kernels, in order.
  CompiledFunction compiled;
  compiled.functionName = func.getName().str();
  compiled.arch = options.arch;
  compiled.imageKind = options.imageKind;
  ExecutableSpec spec;
  llvm::DenseMap<Value, int> bufferOf;
  // Logical buffers: inputs, constants, then one per kernel result.
  struct Logical {
    enum Kind { Input, Constant, Intermediate } kind;
    int index;
    size_t bytes;
  };
  std::vector<Logical> logical;
  for (auto [i, arg] : llvm::enumerate(specialized.getArguments())) {
    auto type = cast<RankedTensorType>(arg.getType());
    auto dtype = reference::toDType(type.getElementType());
    if (!dtype)
      return makeError("argument #" + llvm::Twine(i) + " has type " +
                       typeString(type) +
                       ", which the cuda backend does not support");
    TensorSpec input{*dtype, {type.getShape().begin(), type.getShape().end()}};
    spec.inputs.push_back(input);
    bufferOf[arg] = static_cast<int>(logical.size());
    logical.push_back({Logical::Input, static_cast<int>(i), input.byteSize()});
  }
  struct Step {
    FusionOp fusion;
    GeneratedKernel kernel;
    std::vector<int> operands, results;
  };
  std::vector<Step> steps;
  std::vector<Value> returned;
  int kernelIndex = 0;
  std::string sanitized;
  for (char c : func.getName())
    sanitized += llvm::isAlnum(c) ? c : '_';
  for (Operation &op : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      returned.assign(ret.getOperands().begin(), ret.getOperands().end());
      continue;
    }
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto value = reference::runOp(&op, {});
      if (!value)
        return value.takeError();
      bufferOf[constant.getResult()] = static_cast<int>(logical.size());
      logical.push_back({Logical::Constant,
                         static_cast<int>(spec.constants.size()),
                         value->byteSize()});
      spec.constants.push_back(std::move(*value));
      continue;
    }
    if (isView(&op)) {
      bufferOf[op.getResult(0)] = bufferOf.lookup(op.getOperand(0));
      continue;
    }
    auto fusion = cast<FusionOp>(op);
    std::string name = "tgc_" + sanitized + "_" + std::to_string(kernelIndex++);
    DiagnosticCapture capture(context);
    FailureOr<GeneratedKernel> kernel = generateLoopKernel(fusion, name);
    if (failed(kernel)) {
      // A one-op fusion (multi-op ones the generator rejects were split).
      Operation &inner = fusion.getBlock().front();
      std::string why = capture.first;
      if (llvm::StringRef(why).starts_with("CUDA codegen: "))
        why = why.substr(strlen("CUDA codegen: "));
      return makeError(notSupported(&inner, why));
    }
    Step step{fusion, std::move(*kernel), {}, {}};
    for (Value operand : fusion.getInputs())
      step.operands.push_back(bufferOf.lookup(operand));
    for (Value result : fusion.getResults()) {
      auto type = cast<RankedTensorType>(result.getType());
      bufferOf[result] = static_cast<int>(logical.size());
      step.results.push_back(static_cast<int>(logical.size()));
      logical.push_back({Logical::Intermediate, -1,
                         static_cast<size_t>(type.getNumElements()) * 4});
    }
    steps.push_back(std::move(step));
  }

  // 3. Memory plan: intermediates share device buffers by liveness (a
  //    buffer is free after the last launch reading it; results live to the
  //    end). Buffers come from the pool once per call.
  std::vector<int> lastUse(logical.size(), -1);
  for (size_t s = 0; s < steps.size(); ++s)
    for (int b : steps[s].operands)
      lastUse[b] = static_cast<int>(s);
  for (Value v : returned)
    lastUse[bufferOf.lookup(v)] = std::numeric_limits<int>::max();
  std::vector<size_t> slotBytes;
  std::vector<bool> slotFree;
  std::vector<int> slotOf(logical.size(), -1);
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
  const int numInputs = static_cast<int>(spec.inputs.size());
  const int numConstants = static_cast<int>(spec.constants.size());
  auto physical = [&](int b) {
    switch (logical[b].kind) {
    case Logical::Input:
      return logical[b].index;
    case Logical::Constant:
      return numInputs + logical[b].index;
    case Logical::Intermediate:
      break;
    }
    return numInputs + numConstants + slotOf[b];
  };
  size_t intermediateBytes = 0;
  for (size_t bytes : slotBytes) {
    spec.intermediates.push_back(
        TensorSpec{runtime::DType::F32, {static_cast<int64_t>(bytes / 4)}});
    intermediateBytes += bytes;
  }

  // 4. One translation unit, compiled once.
  compiled.source = kernelPrelude();
  for (const Step &step : steps)
    compiled.source += "\n" + step.kernel.code;
  std::string image;
  if (!steps.empty()) {
    auto compiledImage =
        compileCuda(compiled.source, options.arch, options.imageKind);
    if (!compiledImage.ok())
      return makeError(
          "compiling the kernels of '" + func.getName() +
          "' with NVRTC: " + std::string(compiledImage.status().message()));
    image = std::move(*compiledImage);
  }
  for (Step &step : steps) {
    Launch launch;
    launch.kernel = static_cast<int>(spec.kernels.size());
    spec.kernels.push_back(KernelImage{step.kernel.name, image});
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
  std::vector<std::string> resultTexts;
  for (Value v : returned) {
    auto type = cast<RankedTensorType>(v.getType());
    auto dtype = reference::toDType(type.getElementType());
    if (!dtype)
      return makeError("a result of '" + func.getName() + "' has type " +
                       typeString(type) +
                       ", which the cuda backend does not support");
    int b = physical(bufferOf.lookup(v));
    spec.results.push_back(b);
    spec.resultSpecs.push_back(
        TensorSpec{*dtype, {type.getShape().begin(), type.getShape().end()}});
    resultTexts.push_back("b" + std::to_string(b) + ":" +
                          shapeText(v.getType()));
  }

  // 5. The plan.
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "cuda plan for @" << func.getName() << " (" << options.arch << ", "
     << (options.imageKind == ImageKind::Cubin ? "cubin" : "ptx") << ", "
     << nvrtcVersion() << "): " << steps.size() << " kernel"
     << (steps.size() == 1 ? "" : "s") << ", one synchronization per call\n";
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
    os << "[" << i << "] " << planned.kernel << " <<<" << planned.launch.grid
       << ", " << planned.launch.block << ">>> " << planned.kind;
    if (planned.kind == "row")
      os << " (" << planned.rows << " rows of " << planned.rowLength
         << ", one block per row)";
    else
      os << " (" << planned.numElements << " elements)";
    os << " [" << planned.opList << "] at " << planned.location << " (";
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

  auto executable = DeviceExecutable::create(std::move(spec));
  if (!executable.ok())
    return makeError("internal error: " +
                     std::string(executable.status().message()));
  compiled.executable = std::move(*executable);
  compiled.module = std::move(*module);
  return compiled;
}
