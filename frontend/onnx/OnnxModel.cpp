//===- OnnxModel.cpp - tgc::Model: compiled ONNX models -------------------===//
//
// The public Model API (include/tgc/Model.h) over the importer and the CPU
// compiler: one MLIR context per model, one plan per set of input shapes.
//
//===----------------------------------------------------------------------===//

#include "tgc/Model.h"

#include "codegen/cpu/Compiler.h"
#include "codegen/reference/Interpreter.h"
#include "frontend/Function.h"
#include "frontend/Tensor.h"
#include "frontend/onnx/OnnxInternal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <map>
#include <mutex>

using namespace tgc;

namespace tgc::detail {

struct ModelState {
  ModelOptions options;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  std::vector<TensorInfo> inputs, outputs;

  std::mutex planMutex;
  std::map<std::vector<std::vector<int64_t>>,
           std::shared_ptr<const cpu::CompiledFunction>>
      plans;
  std::shared_ptr<const cpu::CompiledFunction> lastPlan;
};

} // namespace tgc::detail

namespace {

TensorInfo infoOf(std::string name, mlir::Type type) {
  TensorInfo info;
  info.name = std::move(name);
  auto tensor = mlir::cast<mlir::RankedTensorType>(type);
  info.dtype = toDType(tensor.getElementType()).value_or(runtime::DType::F32);
  for (int64_t dim : tensor.getShape())
    info.shape.push_back(mlir::ShapedType::isDynamic(dim) ? kDynamic : dim);
  return info;
}

/// The graph output names (the imported function does not keep them).
llvm::Expected<std::vector<std::string>> outputNames(const std::string &path) {
  auto model = onnximpl::readModelProto(path);
  if (!model)
    return model.takeError();
  std::vector<std::string> names;
  for (const auto &output : model->graph().output())
    names.push_back(output.name());
  return names;
}

} // namespace

absl::StatusOr<Model> Model::loadOnnx(const std::string &path,
                                      ModelOptions options) {
  if (options.backend != "cpu" && options.backend != "reference")
    return absl::InvalidArgumentError(
        "tgc: unknown backend '" + options.backend +
        "' for a Model (expected 'cpu' or 'reference')");
  if (options.numThreads < 0 || options.interOpThreads < 1)
    return absl::InvalidArgumentError(
        "tgc: ModelOptions: numThreads must be >= 0 and interOpThreads >= 1");
  auto state = std::make_shared<detail::ModelState>();
  state->options = std::move(options);
  auto module = importOnnxModel(state->context, path);
  if (!module)
    return detail::toStatus(module.takeError());
  state->module = std::move(*module);
  for (auto func : state->module->getOps<mlir::func::FuncOp>()) {
    state->func = func;
    break;
  }
  if (!state->func)
    return absl::InternalError(path + ": the imported module has no function");
  auto names = outputNames(path);
  if (!names)
    return detail::toStatus(names.takeError());
  mlir::FunctionType type = state->func.getFunctionType();
  mlir::Block &entry = state->func.getBody().front();
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    std::string name = "input" + std::to_string(i);
    if (auto loc = mlir::dyn_cast<mlir::NameLoc>(entry.getArgument(i).getLoc()))
      name = loc.getName().str();
    state->inputs.push_back(infoOf(std::move(name), input));
  }
  for (auto [i, output] : llvm::enumerate(type.getResults()))
    state->outputs.push_back(
        infoOf(i < names->size() ? (*names)[i] : "output" + std::to_string(i),
               output));
  return Model(std::move(state));
}

const std::vector<TensorInfo> &Model::inputs() const { return state->inputs; }
const std::vector<TensorInfo> &Model::outputs() const { return state->outputs; }

absl::StatusOr<std::vector<runtime::HostTensor>>
Model::run(const std::vector<runtime::HostTensor> &inputs) const {
  // Wrong counts, dtypes and shapes: the interpreter's located messages.
  if (llvm::Error error = reference::checkArguments(state->func, inputs))
    return detail::toStatus(std::move(error));
  if (state->options.backend == "reference") {
    auto results = reference::runFunction(state->func, inputs);
    if (!results)
      return detail::toStatus(results.takeError());
    return std::move(*results);
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const runtime::HostTensor &input : inputs)
    shapes.push_back(input.shape());
  std::shared_ptr<const cpu::CompiledFunction> plan;
  {
    std::lock_guard lock(state->planMutex);
    auto it = state->plans.find(shapes);
    if (it != state->plans.end()) {
      plan = it->second;
    } else {
      cpu::CompileOptions compileOptions;
      compileOptions.numThreads = state->options.numThreads;
      compileOptions.interOp = state->options.interOpThreads > 1;
      compileOptions.fuse = compileOptions.fuse && state->options.fuse;
      auto compiled = cpu::compile(state->func, shapes, compileOptions);
      if (!compiled)
        return detail::toStatus(compiled.takeError());
      plan =
          std::make_shared<const cpu::CompiledFunction>(std::move(*compiled));
      state->plans.emplace(std::move(shapes), plan);
    }
    state->lastPlan = plan;
  }
  runtime::RunOptions runOptions;
  runOptions.numThreads = state->options.numThreads;
  runOptions.interOpThreads = state->options.interOpThreads;
  return plan->executable->run(inputs, runOptions);
}

std::string Model::describePlan() const {
  std::lock_guard lock(state->planMutex);
  return state->lastPlan ? state->lastPlan->executable->describe() : "";
}
