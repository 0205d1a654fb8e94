//===- KernelObjectCache.h - loop kernels' object code on disk --*- C++ -*-===//
//
// The persistent part of the CPU backend's compile: the machine code of
// JIT-compiled loop kernels, kept in a directory that processes share
// (FunctionOptions::cacheDir, tgc-run --cache-dir, TGC_CACHE_DIR). A second
// process that compiles the same kernel for the same CPU loads its object
// code instead of running MLIR's lowering and LLVM's code generation.
//
// - The key is a 128-bit hash of everything that determines the code: the
//   kernel's module before lowering, the loop options, the JIT's target CPU
//   and features, the LLVM and tgc versions and the tgc binary's identity.
// - An entry is one file, `<key>.tgcobj`: a header (magic, format version,
//   payload size, payload checksum) and the object file. It is written to a
//   temporary file in the directory and renamed into place, so readers see
//   a whole entry or none; concurrent writers of one key both write the same
//   bytes.
// - A missing, truncated, corrupt or stale entry is a miss with a reason; a
//   corrupt or stale one is removed (the next compile writes it again).
// - The directory is bounded: after a store, the least recently used entries
//   (by modification time, refreshed on every hit) go until the total is
//   under the bound.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_KERNELOBJECTCACHE_H
#define TGC_CODEGEN_CPU_KERNELOBJECTCACHE_H

#include "runtime/cpu/PlanFile.h"
#include "tgc/AbslStatus.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tgc::cpu {

class KernelObjectCache {
public:
  /// Default bound on the directory's size.
  static constexpr int64_t kDefaultMaxBytes = int64_t(1) << 30;

  /// The cache in `directory` (created if missing).
  static absl::StatusOr<std::shared_ptr<KernelObjectCache>>
  open(const std::string &directory, int64_t maxBytes = kDefaultMaxBytes);

  /// The key of a kernel: a hash of `material` (the text of everything that
  /// determines its code), 32 hex digits.
  static std::string keyOf(llvm::StringRef material);

  struct Lookup {
    /// The object file; null on a miss.
    std::unique_ptr<llvm::MemoryBuffer> object;
    /// Why it missed: "absent", "truncated (...)", "corrupt (...)", ...
    std::string missReason;
  };
  /// The object stored under `key`.
  Lookup load(const std::string &key) const;
  /// Stores `object` under `key` (atomically), then trims the directory to
  /// its bound.
  absl::Status store(const std::string &key, llvm::StringRef object) const;

  /// Whole CPU plans (runtime/cpu/PlanFile.h) live beside the objects, as
  /// `<key>.tgcx`, under the same size bound. A hit maps the file and makes
  /// its kernels again (prepacked weights included): no compile.
  struct PlanLookup {
    /// The plan; null on a miss.
    std::shared_ptr<const runtime::Executable> executable;
    /// Its file's header (on a hit).
    runtime::cpu::PlanFileInfo info;
    /// Why it missed: "absent", or the loader's reason ("... checksum does
    /// not match", "... made for x86 avx2 ..."); a damaged or stale entry
    /// is removed.
    std::string missReason;
  };
  PlanLookup loadPlan(const std::string &key) const;
  /// Saves `executable` under `key` (atomically), then trims the directory.
  absl::Status storePlan(const std::string &key,
                         const runtime::Executable &executable,
                         const runtime::cpu::PlanMetadata &metadata) const;
  std::string planPathOf(const std::string &key) const;

  /// The identity of the tgc build: the path, size and modification time of
  /// the binary this code is in (libtgc.so, or the program tgc is linked
  /// into), so a rebuilt tgc never reads an entry of another build.
  static const std::string &buildIdentity();

  const std::string &directory() const { return dir; }
  std::string pathOf(const std::string &key) const;

  /// What this process did with cache directories (every instance).
  struct Stats {
    uint64_t hits = 0, misses = 0, stores = 0, corrupt = 0, evicted = 0;
    /// Whole plans: loaded, missed, stored.
    uint64_t planHits = 0, planMisses = 0, planStores = 0;
  };
  static Stats processStats();

private:
  KernelObjectCache(std::string dir, int64_t maxBytes)
      : dir(std::move(dir)), maxBytes(maxBytes) {}
  void trim() const;

  std::string dir;
  int64_t maxBytes;
};

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_KERNELOBJECTCACHE_H
