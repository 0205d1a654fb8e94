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
#include <string_view>

namespace tgc::runtime {

/// Receives the file's bytes in order: `write(data, size)`.
using ByteSink = std::function<void(const void *, size_t)>;

/// Writes `path` atomically with the bytes `produce` hands its sink.
/// PermissionDenied when the temporary file cannot be created or renamed,
/// ResourceExhausted when a write fails (the temporary file is removed).
absl::Status
writeFileAtomically(const std::string &path,
                    const std::function<void(const ByteSink &)> &produce);

/// Whether the file at `path` starts with `prefix` (a format's magic);
/// false when it cannot be read.
bool fileStartsWith(const std::string &path, std::string_view prefix);

/// Sets the modification time of the file at `path` to now (a cache's
/// least-recently-used order); a file that cannot be opened is left alone.
void touchFile(const std::string &path);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_ATOMICFILE_H
