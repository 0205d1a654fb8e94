//===- OnnxCompilation.h - the compiler's half of tgc::Model ----*- C++ -*-===//
//
// tgc::Model (include/tgc/Model.h) is two halves. frontend/onnx/LazyModel.cpp
// holds what needs no compiler: options, the plan the
// persistent cache holds for the model file, runs of it. An
// OnnxCompilation (OnnxModel.cpp) is the rest: the model imported into an
// MLIR context and compiled per input shapes on a backend. In libtgc the
// compiler lives in libtgc_compiler, loaded on the first call of a
// function declared here (frontend/CompilerLoader.cpp), so a process whose
// models all come from the cache never maps LLVM or MLIR.
//
// No MLIR type appears here: LazyModel.cpp is compiled without them.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_ONNX_ONNXCOMPILATION_H
#define TGC_FRONTEND_ONNX_ONNXCOMPILATION_H

#include "tgc/AbslStatus.h"
#include "tgc/Engine.h"
#include "tgc/HostTensor.h"
#include "tgc/Model.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tgc::codegen {
class CalibrationTable;
enum class Calibrator;
} // namespace tgc::codegen

namespace tgc::runtime {
struct RunOptions;
} // namespace tgc::runtime

namespace tgc::detail {

class OnnxCompilation;

/// The API whose options gave ModelOptions::inputShapes, as their errors
/// name it: tgc::Model's, or CompiledModel::compileOnnx's EngineOptions.
struct InputShapesOrigin {
  std::string api = "Model", option = "ModelOptions";
};

/// Imports the ONNX model at `path` for `options.backend` (checks the
/// backend's name and opens its device), for `options.inputShapes` where
/// given (errors name `origin`). `calibration` is
/// ModelOptions::calibrationTable, read. A cpu plan for the model's static
/// shapes is also filed under `planKey` in the cache directory (LazyModel.cpp
/// computed it; "" for none). Errors name the model, the node and the op.
absl::StatusOr<std::shared_ptr<OnnxCompilation>> openOnnxCompilation(
    const std::string &path, const ModelOptions &options,
    std::shared_ptr<const codegen::CalibrationTable> calibration,
    const std::string &planKey, const InputShapesOrigin &origin = {});

/// The model's inputs (those that are not initializers) and outputs.
const std::vector<TensorInfo> &
compilationInputs(const OnnxCompilation &compilation);
const std::vector<TensorInfo> &
compilationOutputs(const OnnxCompilation &compilation);

/// Runs the model, compiling the plan for the inputs' shapes on first use;
/// wrong inputs are the interpreter's located errors.
absl::StatusOr<std::vector<runtime::HostTensor>>
runCompilation(OnnxCompilation &compilation,
               const std::vector<runtime::HostTensor> &inputs,
               const runtime::RunOptions &options);

/// The plan of the last run, as --print-plan shows it ("" before a run).
std::string describeCompilation(const OnnxCompilation &compilation);

/// Plans compiled (not loaded from the persistent cache) so far.
size_t compilationCompiles(const OnnxCompilation &compilation);

/// Model::calibrate with `calibrator` (codegen::calibratorOf(options),
/// checked by the caller).
absl::Status calibrateCompilation(
    OnnxCompilation &compilation, size_t count,
    const std::function<StatusOr<std::vector<runtime::HostTensor>>(size_t)>
        &read,
    codegen::Calibrator calibrator, const CalibrationOptions &options);

/// CompiledModel::compileOnnx when the cache does not hold the plan: the
/// model imported and compiled for `config`'s threads per stream
/// (`modelOptions`), its plan for static shapes also filed under
/// `planKey`.
absl::StatusOr<CompiledModel>
compileOnnxModel(const std::string &path, const EngineOptions &options,
                 const StreamConfig &config, const ModelOptions &modelOptions,
                 std::shared_ptr<const codegen::CalibrationTable> calibration,
                 const std::string &planKey);

/// Registers the compiler's kernel loaders with the runtime (the loop
/// kernels' object code), so that a saved plan holding such kernels loads.
void registerCompilerKernelLoaders();

/// The same, as runtime/cpu/Recipes.cpp finds it when a saved plan needs a
/// loader it lacks (a weak reference: the runtime alone has no compiler).
/// Defined in LazyModel.cpp.
void registerCompilerKernelLoadersOnDemand();

} // namespace tgc::detail

#endif // TGC_FRONTEND_ONNX_ONNXCOMPILATION_H
