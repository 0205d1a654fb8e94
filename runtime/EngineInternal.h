//===- EngineInternal.h - what a CompiledModel runs -------------*- C++ -*-===//
//
// The engine (include/tgc/Engine.h) runs requests on streams; what a
// request runs is a ModelSource: a saved plan (runtime/cpu/Artifact.cpp),
// an ONNX model compiled per input shapes (frontend/onnx/OnnxModel.cpp) or
// a traced function's plan (frontend/Function.cpp). Not a public header.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_ENGINEINTERNAL_H
#define TGC_RUNTIME_ENGINEINTERNAL_H

#include "runtime/Executable.h"
#include "tgc/Engine.h"

#include <memory>
#include <string>
#include <vector>

namespace tgc::detail {

class ModelSource {
public:
  virtual ~ModelSource();
  /// Runs one request on the calling thread with `options` (intra-op
  /// threads, result buffers). Checks the inputs (InvalidArgument naming
  /// the first that does not fit).
  virtual absl::StatusOr<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &inputs,
      const runtime::RunOptions &options) const = 0;
  /// The plan(s), as --print-plan shows them.
  virtual std::string describe() const = 0;
  /// Scratch memory one request takes (its arena) where known, else 0.
  virtual int64_t requestBytes() const { return 0; }

  std::vector<TensorInfo> inputs, outputs;
};

/// A source over one static plan (an artifact, a traced function's plan):
/// `keepAlive` is whatever the plan borrows from.
std::shared_ptr<const ModelSource>
executableSource(std::shared_ptr<const runtime::Executable> executable,
                 std::vector<TensorInfo> inputs,
                 std::vector<TensorInfo> outputs,
                 std::shared_ptr<const void> keepAlive = nullptr);

/// The streams and threads for `options` on a machine with `cores` physical
/// cores and the budget `budget`, before the model is compiled (it is then
/// compiled for threadsPerStream): InvalidArgument for negative counts.
/// `compiledThreads` > 0 is the thread count a saved plan was made for
/// (the default threads per stream of an artifact).
absl::StatusOr<StreamConfig> planStreams(const EngineOptions &options,
                                         int cores, int budget,
                                         int compiledThreads = 0);

/// The CompiledModel over `source` with `config` (streams capped so that
/// their arenas take at most a quarter of physical memory).
CompiledModel makeCompiledModel(std::shared_ptr<const ModelSource> source,
                                PerformanceHint hint, StreamConfig config);

} // namespace tgc::detail

#endif // TGC_RUNTIME_ENGINEINTERNAL_H
