//===- KernelCache.cpp - compiled and loaded kernels, cached --------------===//

#include "runtime/cuda/KernelCache.h"

#include "tgc/AbslStatus.h"

using namespace tgc::cuda;

uint64_t tgc::cuda::hashSource(const std::string &source) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : source) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

KernelCache::KernelCache(ModuleLoader *loader) : loader(loader) {}

KernelCache::~KernelCache() {
  if (!loader)
    return;
  for (auto &[hash, loaded] : modules)
    loader->unloadModule(loaded.module);
}

absl::StatusOr<std::string>
KernelCache::getImageLocked(const std::string &source, const std::string &arch,
                            const KernelCompiler &compile) {
  auto key = std::make_pair(hashSource(source), arch);
  auto [begin, end] = images.equal_range(key);
  for (auto it = begin; it != end; ++it)
    if (it->second.source == source) {
      ++counters.compileHits;
      return it->second.image;
    }
  ++counters.compilations;
  absl::StatusOr<std::string> image = compile(source, arch);
  if (!image.ok())
    return image.status();
  images.emplace(key, Entry{source, *image});
  return *image;
}

absl::StatusOr<void *> KernelCache::getFunctionLocked(const std::string &image,
                                                      const std::string &name) {
  if (!loader)
    return absl::FailedPreconditionError("kernel cache without a loader");
  uint64_t hash = hashSource(image);
  Loaded *loaded = nullptr;
  auto [begin, end] = modules.equal_range(hash);
  for (auto it = begin; it != end && !loaded; ++it)
    if (it->second.image == image)
      loaded = &it->second;
  if (!loaded) {
    absl::StatusOr<void *> module = loader->loadModule(image);
    if (!module.ok())
      return module.status();
    ++counters.moduleLoads;
    loaded = &modules.emplace(hash, Loaded{image, *module, {}})->second;
  }
  if (auto it = loaded->functions.find(name); it != loaded->functions.end()) {
    ++counters.functionHits;
    return it->second;
  }
  absl::StatusOr<void *> function = loader->getFunction(loaded->module, name);
  if (!function.ok())
    return function.status();
  loaded->functions.emplace(name, *function);
  return *function;
}

absl::StatusOr<std::string>
KernelCache::getImage(const std::string &source, const std::string &arch,
                      const KernelCompiler &compile) {
  std::lock_guard<std::mutex> lock(mutex);
  return getImageLocked(source, arch, compile);
}

absl::StatusOr<void *> KernelCache::getFunction(const std::string &source,
                                                const std::string &arch,
                                                const std::string &name,
                                                const KernelCompiler &compile) {
  std::lock_guard<std::mutex> lock(mutex);
  absl::StatusOr<std::string> image = getImageLocked(source, arch, compile);
  if (!image.ok())
    return image.status();
  return getFunctionLocked(*image, name);
}

absl::StatusOr<void *>
KernelCache::getFunctionFromImage(const std::string &image,
                                  const std::string &name) {
  std::lock_guard<std::mutex> lock(mutex);
  return getFunctionLocked(image, name);
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counters;
}
