//===- AtomicFile.h - files written whole or not at all ---------*- C++ -*-===//
//
// Saved plans (runtime/cpu/PlanFile.h, runtime/cuda/PlanFile.h) are written
// to a temporary file beside their path and renamed into place: a reader
// (another process sharing a cache directory) sees the whole file or none.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_ATOMICFILE_H
#define TGC_RUNTIME_ATOMICFILE_H

#include "tgc/AbslStatus.h"

#include <cstddef>
#include <functional>
#include <string>

namespace tgc::runtime {

/// Receives the file's bytes in order: `write(data, size)`.
using ByteSink = std::function<void(const void *, size_t)>;

/// Writes `path` atomically with the bytes `produce` hands its sink.
/// PermissionDenied when the temporary file cannot be created or renamed,
/// ResourceExhausted when a write fails (the temporary file is removed).
absl::Status
writeFileAtomically(const std::string &path,
                    const std::function<void(const ByteSink &)> &produce);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_ATOMICFILE_H
