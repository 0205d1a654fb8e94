//===- ReferenceBackend.cpp - the "reference" backend ---------------------===//
//
// The interpreter as a backend: "compiling" keeps a copy of the function's
// module (so calls resolve) and every run interprets it, for any input
// shapes.
//
//===----------------------------------------------------------------------===//

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/reference/Interpreter.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace tgc;
using namespace tgc::codegen;

namespace {
class ReferenceFunction final : public CompiledFunction {
public:
  ReferenceFunction(mlir::OwningOpRef<mlir::ModuleOp> owned,
                    mlir::func::FuncOp func)
      : owned(std::move(owned)), func(func) {}
  llvm::StringRef backend() const override { return "reference"; }
  std::string describe() const override {
    mlir::func::FuncOp f = func;
    int64_t ops = 0;
    f.walk([&](mlir::Operation *) { ++ops; });
    return "reference interpreter: function '" + f.getName().str() + "', " +
           std::to_string(ops - 1) + " ops interpreted per call\n";
  }
  mlir::ModuleOp module() const override { return owned.get(); }
  absl::StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs,
      const RunContext &) const override {
    auto results = reference::runFunction(func, inputs);
    if (!results) {
      std::string message = llvm::toString(results.takeError());
      return absl::InvalidArgumentError(message);
    }
    return std::move(*results);
  }

private:
  mlir::OwningOpRef<mlir::ModuleOp> owned;
  mlir::func::FuncOp func;
};

class ReferenceBackend final : public Backend {
public:
  llvm::StringRef name() const override { return "reference"; }
  std::string description() const override {
    return "the reference interpreter (any shapes; the oracle)";
  }
  bool servesAnyShapes() const override { return true; }
  llvm::Expected<std::unique_ptr<CompiledFunction>>
  compile(mlir::func::FuncOp func, llvm::ArrayRef<std::vector<int64_t>>,
          const BackendOptions &) const override {
    // The function and those it calls, transitively, so that calls
    // resolve (not the whole module: a module of many functions is run one
    // function at a time by --differential).
    auto parent = func->getParentOfType<mlir::ModuleOp>();
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::ModuleOp::create(func.getLoc());
    llvm::SetVector<mlir::Operation *> needed;
    needed.insert(func);
    for (size_t i = 0; i < needed.size(); ++i)
      needed[i]->walk([&](mlir::func::CallOp call) {
        if (parent)
          if (auto callee =
                  parent.lookupSymbol<mlir::func::FuncOp>(call.getCallee()))
            needed.insert(callee);
      });
    for (mlir::Operation *op : needed)
      module->push_back(op->clone());
    auto copy = module->lookupSymbol<mlir::func::FuncOp>(func.getName());
    return std::make_unique<ReferenceFunction>(std::move(module), copy);
  }
};
} // namespace

void codegen::registerReferenceBackend() {
  registerBackend(std::make_unique<ReferenceBackend>());
}
