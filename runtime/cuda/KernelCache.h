//===- KernelCache.h - compiled and loaded kernels, cached -------*- C++
//-*-===//
//
// Generated kernels are compiled once per (source, arch) and loaded once per
// device: the cache maps the source's hash (FNV-1a 64; the source itself is
// compared too, so a collision only costs a recompile) and the target arch
// ("sm_90") to the compiled image (PTX or cubin), and an image and kernel
// name to a loaded function handle.
//
// The runtime links no compiler: compilation and loading are injected.
// codegen/cuda provides an NVRTC compiler and Device a driver loader
// (cuModuleLoadData / cuModuleGetFunction); tests use fakes. Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_KERNELCACHE_H
#define TGC_RUNTIME_CUDA_KERNELCACHE_H

#include "tgc/AbslStatus.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace tgc::cuda {

/// FNV-1a, 64 bits: stable across runs and builds (usable on disk).
uint64_t hashSource(const std::string &source);

/// Compiles CUDA C++ for an arch: the image (PTX or cubin) or an error.
using KernelCompiler = std::function<absl::StatusOr<std::string>(
    const std::string &source, const std::string &arch)>;

/// Loads images and looks up kernels in them (opaque handles).
class ModuleLoader {
public:
  virtual ~ModuleLoader() = default;
  virtual absl::StatusOr<void *> loadModule(const std::string &image) = 0;
  virtual absl::StatusOr<void *> getFunction(void *module,
                                             const std::string &name) = 0;
  virtual void unloadModule(void *module) = 0;
};

struct KernelCacheStats {
  int64_t compilations = 0;
  int64_t compileHits = 0;
  int64_t moduleLoads = 0;
  int64_t functionHits = 0;
};

class KernelCache {
public:
  /// `loader` must outlive the cache (or be null: images only).
  explicit KernelCache(ModuleLoader *loader);
  /// Unloads every module.
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// The image of `source` for `arch`, compiled by `compile` on a miss.
  /// Compile errors are returned and not cached.
  absl::StatusOr<std::string> getImage(const std::string &source,
                                       const std::string &arch,
                                       const KernelCompiler &compile);

  /// The kernel `name` of `source` compiled for `arch`, loaded (once).
  absl::StatusOr<void *> getFunction(const std::string &source,
                                     const std::string &arch,
                                     const std::string &name,
                                     const KernelCompiler &compile);

  /// The kernel `name` of an already compiled `image`, loaded (once).
  absl::StatusOr<void *> getFunctionFromImage(const std::string &image,
                                              const std::string &name);

  KernelCacheStats stats() const;

private:
  struct Entry {
    std::string source;
    std::string image;
  };
  struct Loaded {
    std::string image;
    void *module = nullptr;
    std::map<std::string, void *> functions;
  };
  absl::StatusOr<std::string> getImageLocked(const std::string &source,
                                             const std::string &arch,
                                             const KernelCompiler &compile);
  absl::StatusOr<void *> getFunctionLocked(const std::string &image,
                                           const std::string &name);

  ModuleLoader *loader;
  mutable std::mutex mutex;
  std::multimap<std::pair<uint64_t, std::string>, Entry> images;
  std::multimap<uint64_t, Loaded> modules;
  KernelCacheStats counters;
};

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_KERNELCACHE_H
