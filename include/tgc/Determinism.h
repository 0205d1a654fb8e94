//===- Determinism.h - what a run promises about its bits -------*- C++ -*-===//
//
// The determinism contract (docs/determinism.md), chosen per compile with
// FunctionOptions::deterministic, ModelOptions::determinism,
// EngineOptions::determinism, `tgc-run --deterministic=...` or
// TGC_DETERMINISTIC:
//
//   RunToRun  the same inputs give bitwise the same outputs on every run at
//             a fixed thread count: cold compile, warm cache and an AOT
//             artifact alike, whatever the alignment of the caller's
//             buffers.
//   Strict    also bitwise the same at every intra-op thread count (1, 2,
//             N): kernels whose result depends on how work is split
//             between threads run on one thread.
//
// Part of the public API: no MLIR, LLVM or oneDNN header.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DETERMINISM_H
#define TGC_DETERMINISM_H

#include <optional>
#include <string_view>

namespace tgc {

enum class Determinism {
  /// Not asked for: TGC_DETERMINISTIC decides (unset: no promise; runs are
  /// as fast as they can be).
  Default,
  RunToRun,
  Strict,
};

/// "default", "run-to-run", "strict".
const char *toString(Determinism level);

/// Parses a level: "default" / "0" / "off" / "false" / "no",
/// "run-to-run" / "1" / "on" / "true" / "yes", "strict" (any case);
/// nullopt for anything else.
std::optional<Determinism> parseDeterminism(std::string_view text);

/// The level TGC_DETERMINISTIC asks for (Default when unset or not
/// understood).
Determinism determinismFromEnvironment();

/// `requested` unless it is Default, else TGC_DETERMINISTIC's level.
inline Determinism resolveDeterminism(Determinism requested) {
  return requested != Determinism::Default ? requested
                                           : determinismFromEnvironment();
}

} // namespace tgc

#endif // TGC_DETERMINISM_H
