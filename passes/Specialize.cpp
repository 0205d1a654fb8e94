//===- Specialize.cpp - a function specialized for concrete shapes --------===//

#include "passes/Specialize.h"

#include "dialects/DTypeMapping.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using tgc::typeString;

std::string tgc::locationString(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
    return s;
  }
  if (auto name = dyn_cast<NameLoc>(loc)) {
    // Imported models name their nodes:
    // "model.onnx:0:0 (node '/conv1/Conv' (Conv, opset 17))".
    std::string child = locationString(name.getChildLoc());
    if (name.getName().getValue().empty())
      return child;
    return child + " (" + name.getName().getValue().str() + ")";
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return locationString(fused.getLocations().front());
  loc.print(os);
  return s;
}

tgc::DiagnosticCapture::DiagnosticCapture(MLIRContext *context)
    : handler(context, [this](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error &&
            firstError.empty()) {
          firstText = diag.str();
          firstError =
              tgc::locationString(diag.getLocation()) + ": " + firstText;
        }
        return success();
      }) {}

llvm::Error tgc::DiagnosticCapture::error(const llvm::Twine &fallback) const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 firstError.empty() ? fallback.str()
                                                    : firstError);
}

llvm::Expected<OwningOpRef<ModuleOp>> tgc::specializeAndLower(
    func::FuncOp func, llvm::ArrayRef<std::vector<int64_t>> shapes,
    llvm::StringRef pipelineName,
    llvm::function_ref<void(OpPassManager &)> buildPipeline) {
  auto module = specializeForShapes(func, shapes);
  if (!module)
    return module.takeError();
  DiagnosticCapture diagnostics(func.getContext());
  PassManager pm(func.getContext());
  // The tool's --mlir-print-ir-after-all and friends, where registered.
  (void)applyPassManagerCLOptions(pm);
  buildPipeline(pm);
  if (failed(pm.run(**module)))
    return diagnostics.error("the " + pipelineName + " pipeline failed on '" +
                             func.getName() + "'");
  return std::move(*module);
}

namespace {} // namespace

llvm::Expected<OwningOpRef<ModuleOp>>
tgc::specializeForShapes(func::FuncOp func,
                         llvm::ArrayRef<std::vector<int64_t>> shapes) {
  MLIRContext *context = func.getContext();
  DiagnosticCapture diagnostics(context);
  auto fail = [&](const llvm::Twine &message) {
    return diagnostics.error(message);
  };
  // The whole module comes along so that calls can be inlined.
  auto parent = func->getParentOfType<ModuleOp>();
  OwningOpRef<ModuleOp> module = parent ? cast<ModuleOp>(parent->clone())
                                        : ModuleOp::create(func.getLoc());
  if (!parent)
    module->push_back(cast<func::FuncOp>(func->clone()));
  auto clone = module->lookupSymbol<func::FuncOp>(func.getName());
  bool hasCalls = false;
  clone.walk([&](func::CallOp) { hasCalls = true; });
  if (hasCalls) {
    PassManager pm(context);
    pm.addPass(createInlinerPass());
    if (failed(pm.run(*module)))
      return fail("cannot inline the calls of '" + func.getName() + "'");
    bool callsLeft = false;
    clone.walk([&](func::CallOp) { callsLeft = true; });
    if (callsLeft)
      return fail("'" + func.getName() +
                  "' has calls that cannot be inlined (recursion?); the "
                  "backends compile call-free functions");
  }
  for (auto other : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (other != clone)
      other.erase();
  clone.setPublic();
  if (shapes.size() != clone.getNumArguments())
    return fail("function '" + func.getName() + "' takes " +
                llvm::Twine(clone.getNumArguments()) + " arguments, got " +
                llvm::Twine(shapes.size()));
  SmallVector<Type> argTypes;
  for (auto [i, arg] : llvm::enumerate(clone.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      return fail("argument #" + llvm::Twine(i) + " is not a ranked tensor");
    const std::vector<int64_t> &shape = shapes[i];
    bool fits = static_cast<int64_t>(shape.size()) == type.getRank();
    for (size_t d = 0; fits && d < shape.size(); ++d)
      fits = shape[d] >= 0 && dimsCompatible(type.getDimSize(d), shape[d]);
    if (!fits)
      return fail("argument #" + llvm::Twine(i) + ": expected " +
                  typeString(type) + ", got shape " + formatShape(shape));
    auto concrete = RankedTensorType::get(shape, type.getElementType());
    arg.setType(concrete);
    argTypes.push_back(concrete);
  }
  tgc::inferShapes(*module);
  // Shape arithmetic (tgc.shape_of and what imported models compute from it)
  // folds to constants now that shapes are concrete; tgc-infer-shapes then
  // makes tgc.dynamic_reshape results static and canonicalization turns them
  // into tgc.reshape; data-dependent ops whose operands became constants
  // fold too (a dynamic_slice of constant bounds, a nonzero of a constant).
  // Alternate until none is left.
  auto hasShapeOps = [&] {
    bool found = false;
    clone.walk([&](Operation *op) {
      found |=
          isa<ShapeOfOp, DynamicReshapeOp>(op) || hasDataDependentShape(op);
    });
    return found;
  };
  // The function's result types follow the returned values.
  auto updateSignature = [&] {
    clone.walk([&](func::ReturnOp ret) {
      clone.setType(
          FunctionType::get(context, argTypes, ret->getOperandTypes()));
    });
  };
  updateSignature();
  // A round that changes nothing ends it: what is left depends on values
  // (a tgc.dynamic_broadcast_to of a count), not on shapes.
  for (int round = 0; round < 8 && hasShapeOps(); ++round) {
    OperationFingerPrint before(module->getOperation());
    PassManager pm(context);
    tgc::buildCleanupPipeline(pm);
    if (failed(pm.run(*module)))
      return fail("folding the shape computations of '" + func.getName() +
                  "' failed");
    tgc::inferShapes(*module);
    updateSignature();
    if (OperationFingerPrint(module->getOperation()) == before)
      break;
  }
  if (failed(verify(*module)))
    return fail("the specialized function failed to verify");
  return module;
}
