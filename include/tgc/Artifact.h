//===- Artifact.h - plans that run without the compiler --------*- C++ -*-===//
//
// A tgc::Artifact is a function compiled ahead of time for the CPU backend
// and saved to a file (`tgc-compile model.onnx -o model.tgcx`, or a plan in
// the persistent compilation cache): its steps, constants and the weights
// its kernels prepacked, for one x86 ISA. Loading it needs the runtime
// alone (tgc::runtime: oneDNN and the C++ runtime, no LLVM or MLIR): the
// kernels are made again from the file, nothing is compiled. Thread-safe;
// copies share the plan.
//
//   auto artifact = tgc::Artifact::load("resnet50.tgcx");
//   StatusOr<std::vector<HostTensor>> y = artifact->run({x});
//
// A CUDA artifact (`tgc-compile --backend=cuda`: cubins with PTX fallbacks,
// cuBLASLt / cuDNN calls, constants) loads the same way and runs on CUDA
// device 0 (the driver is loaded on the first run; no device is an error
// then).
//
// A file that is damaged or truncated, of another tgc version, or made for
// an ISA this CPU lacks (or another than it plans for) is an error naming
// the reason. Part of the public API: no MLIR, LLVM or oneDNN header.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_ARTIFACT_H
#define TGC_ARTIFACT_H

#include "tgc/HostTensor.h"
#include "tgc/TensorInfo.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tgc {

namespace detail {
struct ArtifactState;
} // namespace detail

class CompiledModel;

class Artifact {
public:
  /// Loads the artifact at `path` (see above for the errors).
  static StatusOr<Artifact> load(const std::string &path);

  /// The function's inputs and outputs, static shapes. Names are the ONNX
  /// model's input names where it came from one ("" otherwise; outputs
  /// are "output0", ...).
  const std::vector<TensorInfo> &inputs() const;
  const std::vector<TensorInfo> &outputs() const;

  /// The name of the compiled function ("main" for an ONNX model).
  const std::string &function() const;
  /// The x86 ISA it was compiled for (oneDNN's name, e.g. "avx2"), or
  /// "cuda sm_90" for a CUDA plan.
  const std::string &isa() const;

  /// Runs it. Inputs must have exactly the dtypes and shapes of inputs()
  /// (InvalidArgument naming the first that differs). `numThreads` 0 means
  /// the thread count it was compiled for (its oneDNN primitives are sized
  /// for that count), or TGC_NUM_THREADS or the cores where unrecorded.
  StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs, int numThreads = 0) const;

  /// The plan, one line per step (as tgc-run --print-plan shows it).
  std::string describe() const;

private:
  friend class CompiledModel;
  explicit Artifact(std::shared_ptr<const detail::ArtifactState> state)
      : state(std::move(state)) {}
  std::shared_ptr<const detail::ArtifactState> state;
};

} // namespace tgc

#endif // TGC_ARTIFACT_H
