//===- PlanFile.h - CUDA plans saved to disk and loaded back ----*- C++ -*-===//
//
// A CUDA plan (ExecutableSpec: kernel images as cubins with PTX fallbacks,
// cuBLASLt matmul and cuDNN convolution calls, launches, constants) in a
// file: the ahead-of-time artifact of the cuda backend (`tgc-compile
// --backend=cuda`, CompiledFunction::saveArtifact). Loading needs no
// compiler and no GPU (DeviceExecutable::create checks the plan); running
// it needs a device, which loads the cubin, or JIT-compiles the PTX where
// the cubin does not fit the GPU.
//
// Format (little endian), version kDevicePlanFormatVersion:
//   "TGCXCUDA", u32 version, u32 0, u64 body size, u64 XXH64(body),
//   body (ByteWriter encoding): tgc version, target arch, metadata, spec.
// A file that is short, damaged, of another format or tgc version is an
// error naming the reason; it never crashes.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_PLANFILE_H
#define TGC_RUNTIME_CUDA_PLANFILE_H

#include "runtime/cuda/Executable.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tgc::cuda {

inline constexpr uint32_t kDevicePlanFormatVersion = 1;

using PlanMetadata = std::vector<std::pair<std::string, std::string>>;

struct DevicePlanInfo {
  uint32_t formatVersion = 0;
  std::string tgcVersion;
  /// The GPU architecture the cubins were made for ("sm_90").
  std::string arch;
  PlanMetadata metadata;
  uint64_t bytes = 0;
  /// The value of metadata `key`, or "" when absent.
  std::string get(std::string_view key) const;
};

/// The file's bytes for `spec`.
std::string encodeDevicePlan(const ExecutableSpec &spec,
                             const std::string &arch,
                             const PlanMetadata &metadata);

/// The plan in `bytes` (`what` names it in errors): DataLoss for a damaged
/// or truncated file, FailedPrecondition for another format or tgc
/// version, InvalidArgument for something that is not a CUDA plan.
absl::StatusOr<std::pair<ExecutableSpec, DevicePlanInfo>>
decodeDevicePlan(std::string_view bytes, const std::string &what);

/// Writes the plan to `path` atomically (a temporary file renamed).
absl::Status saveDevicePlan(const ExecutableSpec &spec, const std::string &arch,
                            const PlanMetadata &metadata,
                            const std::string &path);

struct LoadedDevicePlan {
  std::unique_ptr<DeviceExecutable> executable;
  DevicePlanInfo info;
};

/// Reads, checks and decodes the plan at `path` into an executable (not yet
/// bound to a device).
absl::StatusOr<LoadedDevicePlan> loadDevicePlan(const std::string &path);

/// Whether `path` starts like a CUDA plan file.
bool isDevicePlanFile(const std::string &path);

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_PLANFILE_H
