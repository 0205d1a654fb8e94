//===- Model.h - compiled ONNX models ----------------------------*- C++
//-*-===//
//
// A tgc::Model is an ONNX model imported into the tgc dialect and compiled
// for a backend. Inputs may have dynamic dims (a dynamic batch or sequence
// length): the model compiles one plan per set of input shapes on first use
// and keeps it. Thread-safe; copies share the compiled plans.
//
//   auto model = tgc::Model::loadOnnx("resnet50.onnx");
//   StatusOr<std::vector<HostTensor>> y = model->run({x});
//
// Part of the public API: no MLIR, LLVM or ONNX header.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_MODEL_H
#define TGC_MODEL_H

#include "tgc/Determinism.h"
#include "tgc/HostTensor.h"
#include "tgc/Precision.h"
#include "tgc/TensorInfo.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tgc {

struct ModelOptions {
  /// The backend, by its registered name: "cpu" (oneDNN primitives, fused
  /// loop kernels, native kernels), "reference" (the reference interpreter)
  /// or, in CUDA builds, "cuda" (device 0; host tensors are copied in and
  /// out).
  std::string backend = "cpu";
  /// Intra-op threads for the CPU backend (0: TGC_NUM_THREADS,
  /// OMP_NUM_THREADS or all cores).
  int numThreads = 0;
  /// Run up to this many independent kernels at once (CPU backend).
  int interOpThreads = 1;
  /// Compile with the `tgc-cpu` pipeline (false: `tgc-cpu-unfused`).
  bool fuse = true;
  /// The persistent compilation cache directory, shared by processes
  /// (empty: TGC_CACHE_DIR, else none); see FunctionOptions::cacheDir.
  std::string cacheDir;
  /// The determinism contract (tgc/Determinism.h, docs/determinism.md);
  /// Default: TGC_DETERMINISTIC.
  Determinism determinism = Determinism::Default;
  /// The precision policy (tgc/Precision.h, docs/precision.md); Default:
  /// TGC_PRECISION, else F32.
  Precision precision = Precision::Default;
  /// With precision Int8: the calibration table file (Model::calibrate or
  /// `tgc-run --calibration-table` wrote it), read when the model loads.
  std::string calibrationTable;
  /// The model's large weights (64 KiB and up, in the model file or its
  /// external data files) stay there, held open, and are read when a
  /// compile needs them: the imported model holds no copy, a compiled plan
  /// holds each weight once (docs/cpu-backend.md). A file changed in place
  /// after loading is then an error when a compile reads it (a file renamed
  /// over it is fine). False: the weights are copied when the model loads,
  /// and its files may change or go.
  bool weightsInFile = true;
  /// Sizes for the model's dynamic input dims, by input name (entries of -1
  /// stay dynamic): the model is imported for them, as ONNX Runtime's free
  /// dimension overrides do, and then serves only inputs of those sizes.
  /// Needed where the model leaves a dim dynamic that an op needs static: an
  /// LSTM, GRU or RNN over a dynamic sequence length is unrolled over its
  /// steps. An input the model lacks, or a size its declared dims do not
  /// allow, is an error when it loads.
  std::vector<TensorInfo> inputShapes;
};

namespace detail {
struct ModelState;
} // namespace detail

class CompiledModel;

class Model {
public:
  /// Imports the ONNX model at `path` (checked, shape-inferred, converted to
  /// the tgc dialect). Errors name the model, the node and the op.
  static StatusOr<Model> loadOnnx(const std::string &path,
                                  ModelOptions options = {});

  /// The graph inputs that are not initializers, in order.
  const std::vector<TensorInfo> &inputs() const;
  /// The graph outputs, in order.
  const std::vector<TensorInfo> &outputs() const;

  /// Runs the model on one tensor per input (in inputs() order). Inputs of
  /// the wrong count, dtype or shape are an error naming the input.
  StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs) const;

  /// The compiled plan for the shapes of the last run (kernels, layouts,
  /// fusions), or "" before the first run.
  std::string describePlan() const;

  /// Plans this model has compiled so far. A plan the persistent cache
  /// (ModelOptions::cacheDir) held is loaded, not compiled: a model whose
  /// runs all found their plan there says 0.
  size_t compileCount() const;

  /// Post-training int8 calibration (docs/precision.md): runs the model at
  /// f32 over `samples` (one tensor per input each, any batch size the
  /// model accepts), records the range of every contraction's activation
  /// input and writes the calibration table to `options.tablePath`. A model
  /// loaded with Precision::Int8 and that table runs its convolutions and
  /// matmuls in int8. CPU backend only.
  Status calibrate(const std::vector<std::vector<runtime::HostTensor>> &samples,
                   const CalibrationOptions &options) const;
  /// The same over `count` samples `read(i)` hands over one at a time
  /// (twice each for the entropy and percentile calibrators), for sample
  /// sets that do not fit in memory.
  Status calibrate(
      size_t count,
      const std::function<StatusOr<std::vector<runtime::HostTensor>>(size_t)>
          &read,
      const CalibrationOptions &options) const;

private:
  friend class CompiledModel;
  explicit Model(std::shared_ptr<detail::ModelState> state)
      : state(std::move(state)) {}
  std::shared_ptr<detail::ModelState> state;
};

} // namespace tgc

#endif // TGC_MODEL_H
