//===- PlanFile.h - CPU plans saved to disk and loaded back -----*- C++ -*-===//
//
// A CPU plan (runtime::Executable) in a file: its values, steps (each
// kernel's recipe, runtime/cpu/Recipes.h), constants and the weights its
// kernels prepacked, for the persistent compilation cache and for
// ahead-of-time artifacts (`tgc-compile model.onnx -o model.tgcx`).
// Loading needs no compiler: the kernels are made again from their
// recipes with the saved prepacked weights, and the constants are views of
// the mapped file.
//
// Format (little endian), version kPlanFormatVersion:
//   "TGCXPLAN", u32 version, u32 0, u64 header size, u64 XXH64(header),
//   header: tgc version, oneDNN version, ISA, target, metadata, plan size,
//           constants size, XXH64(plan + padding + constants),
//   plan (ByteWriter encoding), zero padding to a multiple of 64 bytes,
//   constants: each constant and prepacked blob at a 64-byte boundary (a
//   constant no kernel reads, because every reader prepacked it, is left
//   out and loads as zeros).
// A file that is short, damaged, of another format version or tgc version,
// or made for another ISA is an error naming the reason; it never crashes.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CPU_PLANFILE_H
#define TGC_RUNTIME_CPU_PLANFILE_H

#include "runtime/Executable.h"
#include "tgc/TensorInfo.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tgc::runtime::cpu {

inline constexpr uint32_t kPlanFormatVersion = 10;

/// Key/value pairs a client keeps with a plan (a model's input names, the
/// function it was compiled from, ...). "threads", the intra-op thread
/// count the plan was made for, is read by loadPlan: its kernels are made
/// again for that count.
using PlanMetadata = std::vector<std::pair<std::string, std::string>>;

/// What a plan file's header says.
struct PlanFileInfo {
  uint32_t formatVersion = 0;
  std::string tgcVersion;
  std::string oneDnnVersion;
  /// oneDNN's name of the ISA it was planned for (CpuIsa::name).
  std::string isa;
  std::string target;
  PlanMetadata metadata;
  /// The file's size in bytes.
  uint64_t bytes = 0;

  /// The value of metadata `key`, or "" when absent.
  std::string get(std::string_view key) const;
  /// The lines of metadata `key` (a list such as "inputs"), none when
  /// absent.
  std::vector<std::string> list(std::string_view key) const;
  /// Metadata "threads": the intra-op thread count the plan was made for,
  /// or 0 when absent or not a count.
  int threads() const;
};

/// OK when every step of `executable` can be saved; otherwise
/// FailedPrecondition naming the first step that cannot (an op on the
/// reference interpreter, a kernel without a recipe).
absl::Status checkSavable(const Executable &executable);

/// The file's bytes, for the file at `path` or a buffer.
absl::StatusOr<std::string> serializePlan(const Executable &executable,
                                          const PlanMetadata &metadata);

/// Writes the plan to `path` atomically: a temporary file in the same
/// directory, renamed over `path`, so that readers see the old file or the
/// whole new one.
absl::Status savePlan(const Executable &executable,
                      const PlanMetadata &metadata, const std::string &path);

struct LoadedPlan {
  std::shared_ptr<const Executable> executable;
  PlanFileInfo info;
  /// Steps whose prepacked weights were taken from the file (the others
  /// were packed again).
  size_t prepackedReused = 0;
};

/// Maps and checks the file at `path` (checksums, versions, ISA) and makes
/// its kernels again. Errors name the file and the reason: NotFound,
/// DataLoss (damaged or truncated), FailedPrecondition (another version,
/// another ISA), Unimplemented (a kernel this process cannot load).
absl::StatusOr<LoadedPlan> loadPlan(const std::string &path);

/// loadPlan for a plan's bytes in memory (serializePlan's; a control-flow
/// step's nested plans); `what` names them in errors.
absl::StatusOr<LoadedPlan> loadPlanFromBytes(std::string_view bytes,
                                             const std::string &what);

/// Whether the file at `path` starts like a plan file.
bool isPlanFile(const std::string &path);

/// The plan's inputs (`ids` = executable.inputs) or outputs as TensorInfos,
/// named by `names` where it has one per tensor, else `prefix` and the
/// index ("output0"; "" with an empty prefix).
std::vector<TensorInfo> planTensors(const Executable &executable,
                                    const std::vector<int64_t> &ids,
                                    const std::vector<std::string> &names,
                                    std::string_view prefix);

/// DNNL_MAX_CPU_ISA's spelling of a oneDNN ISA name ("avx2" -> "AVX2").
std::string isaEnvironmentName(std::string_view isa);

} // namespace tgc::runtime::cpu

#endif // TGC_RUNTIME_CPU_PLANFILE_H
