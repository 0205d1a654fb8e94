//===- KernelCacheTest.cpp - compile once per (source, arch) --------------===//

#include "runtime/cuda/KernelCache.h"

#include <gtest/gtest.h>

using namespace tgc::cuda;

namespace {
class FakeLoader final : public ModuleLoader {
public:
  absl::StatusOr<void *> loadModule(const std::string &image) override {
    if (image.find("bad") != std::string::npos)
      return absl::InvalidArgumentError("fake: bad image");
    ++loads;
    return reinterpret_cast<void *>(static_cast<uintptr_t>(0x1000 * loads));
  }
  absl::StatusOr<void *> getFunction(void *module,
                                     const std::string &name) override {
    ++lookups;
    return reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(module) +
                                    name.size());
  }
  void unloadModule(void *) override { ++unloads; }
  int loads = 0, lookups = 0, unloads = 0;
};
} // namespace

TEST(KernelCache, HashIsStable) {
  EXPECT_EQ(hashSource(""), 14695981039346656037ull);
  EXPECT_EQ(hashSource("a"), 12638187200555641996ull);
  EXPECT_NE(hashSource("kernel a"), hashSource("kernel b"));
}

TEST(KernelCache, CompilesOncePerSourceAndArch) {
  int compilations = 0;
  KernelCompiler compile =
      [&](const std::string &source,
          const std::string &arch) -> absl::StatusOr<std::string> {
    ++compilations;
    return "image of " + source + " for " + arch;
  };
  KernelCache cache(nullptr);
  EXPECT_EQ(*cache.getImage("k1", "sm_90", compile), "image of k1 for sm_90");
  EXPECT_EQ(*cache.getImage("k1", "sm_90", compile), "image of k1 for sm_90");
  EXPECT_EQ(compilations, 1);
  EXPECT_EQ(*cache.getImage("k1", "sm_80", compile), "image of k1 for sm_80");
  EXPECT_EQ(*cache.getImage("k2", "sm_90", compile), "image of k2 for sm_90");
  EXPECT_EQ(compilations, 3);
  KernelCacheStats stats = cache.stats();
  EXPECT_EQ(stats.compilations, 3);
  EXPECT_EQ(stats.compileHits, 1);
  // Without a loader there are no functions.
  EXPECT_FALSE(cache.getFunction("k1", "sm_90", "f", compile).ok());
}

TEST(KernelCache, CompileErrorsAreNotCached) {
  int calls = 0;
  KernelCompiler failing =
      [&](const std::string &,
          const std::string &) -> absl::StatusOr<std::string> {
    ++calls;
    return absl::InvalidArgumentError("syntax error");
  };
  KernelCache cache(nullptr);
  EXPECT_EQ(cache.getImage("x", "sm_90", failing).status().message(),
            "syntax error");
  EXPECT_FALSE(cache.getImage("x", "sm_90", failing).ok());
  EXPECT_EQ(calls, 2);
}

TEST(KernelCache, LoadsEachImageOnceAndUnloadsAtTheEnd) {
  FakeLoader loader;
  KernelCompiler compile = [](const std::string &source, const std::string &)
      -> absl::StatusOr<std::string> { return "image:" + source; };
  {
    KernelCache cache(&loader);
    void *f = *cache.getFunction("src", "sm_90", "f", compile);
    void *g = *cache.getFunction("src", "sm_90", "gg", compile);
    EXPECT_NE(f, g);
    EXPECT_EQ(*cache.getFunction("src", "sm_90", "f", compile), f);
    EXPECT_EQ(*cache.getFunctionFromImage("image:src", "f"), f);
    EXPECT_EQ(loader.loads, 1);
    EXPECT_EQ(loader.lookups, 2);
    EXPECT_EQ(cache.stats().functionHits, 2);
    EXPECT_NE(*cache.getFunction("src2", "sm_90", "f", compile), f);
    EXPECT_EQ(loader.loads, 2);
    EXPECT_FALSE(cache.getFunctionFromImage("bad", "f").ok());
  }
  EXPECT_EQ(loader.unloads, 2);
}
