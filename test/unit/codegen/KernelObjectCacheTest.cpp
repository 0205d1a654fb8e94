//===- KernelObjectCacheTest.cpp - the persistent loop-kernel cache -------===//

#include "codegen/cpu/KernelObjectCache.h"
#include "TestSources.h"
#include "codegen/Backend.h"
#include "codegen/Backends.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tgc;
using cpu::KernelObjectCache;
using runtime::DType;
using runtime::HostTensor;

namespace {

/// A fresh directory under the test's temporary directory.
std::string freshDirectory(const std::string &name) {
  llvm::SmallString<256> path;
  llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, path);
  llvm::sys::path::append(path, "tgc-kernel-cache-" + name + "-" +
                                    std::to_string(::getpid()));
  llvm::sys::fs::remove_directories(path);
  return std::string(path);
}

std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error))
    files.push_back(it->path());
  return files;
}

TEST(KernelObjectCache, StoresLoadsAndNamesEveryMiss) {
  std::string dir = freshDirectory("unit");
  auto cache = KernelObjectCache::open(dir);
  ASSERT_TRUE(cache.ok()) << cache.status();
  std::string key = KernelObjectCache::keyOf("kernel material");
  EXPECT_EQ(key.size(), 32u);
  EXPECT_NE(key, KernelObjectCache::keyOf("other material"));
  EXPECT_EQ((*cache)->load(key).missReason, "absent");

  std::string object(1000, 'x');
  object[10] = 'y';
  ASSERT_TRUE((*cache)->store(key, object).ok());
  auto hit = (*cache)->load(key);
  ASSERT_TRUE(hit.object) << hit.missReason;
  EXPECT_EQ(hit.object->getBuffer(), object);
  EXPECT_EQ(entries(dir).size(), 1u); // no temporary left behind

  // A truncated entry is a miss, and it is removed.
  std::string path = (*cache)->pathOf(key);
  ASSERT_EQ(::truncate(path.c_str(), 500), 0);
  auto truncated = (*cache)->load(key);
  EXPECT_FALSE(truncated.object);
  EXPECT_EQ(truncated.missReason, "truncated (468 of 1000 bytes)");
  EXPECT_FALSE(llvm::sys::fs::exists(path));

  // A flipped byte is caught by the checksum.
  ASSERT_TRUE((*cache)->store(key, object).ok());
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(200);
    file.put('z');
  }
  auto corrupt = (*cache)->load(key);
  EXPECT_FALSE(corrupt.object);
  EXPECT_EQ(corrupt.missReason, "corrupt (checksum mismatch)");

  // Not a cache entry at all.
  {
    std::ofstream file(path, std::ios::binary);
    file << std::string(64, 'q');
  }
  EXPECT_EQ((*cache)->load(key).missReason,
            "corrupt (not a tgc kernel object)");
  llvm::sys::fs::remove_directories(dir);
}

TEST(KernelObjectCache, TheDirectoryIsBoundedLeastRecentlyUsedFirst) {
  std::string dir = freshDirectory("bound");
  // Room for two 1000-byte entries (and their headers), not three.
  auto cache = KernelObjectCache::open(dir, 2100);
  ASSERT_TRUE(cache.ok());
  std::string a = KernelObjectCache::keyOf("a"),
              b = KernelObjectCache::keyOf("b"),
              c = KernelObjectCache::keyOf("c");
  ASSERT_TRUE((*cache)->store(a, std::string(1000, 'a')).ok());
  ASSERT_TRUE((*cache)->store(b, std::string(1000, 'b')).ok());
  // Make `a` older than `b` whatever the file system's time resolution.
  llvm::sys::fs::file_status status;
  {
    int fd = -1;
    ASSERT_FALSE(llvm::sys::fs::openFileForWrite((*cache)->pathOf(a), fd,
                                                 llvm::sys::fs::CD_OpenExisting,
                                                 llvm::sys::fs::OF_Append));
    ASSERT_FALSE(llvm::sys::fs::setLastAccessAndModificationTime(
        fd, llvm::sys::toTimePoint(1000000)));
    ::close(fd);
  }
  ASSERT_TRUE((*cache)->store(c, std::string(1000, 'c')).ok());
  EXPECT_EQ((*cache)->load(a).missReason, "absent");
  EXPECT_TRUE((*cache)->load(b).object);
  EXPECT_TRUE((*cache)->load(c).object);
  llvm::sys::fs::remove_directories(dir);
}

TEST(KernelObjectCache, AnUnusableDirectoryIsAnError) {
  EXPECT_FALSE(KernelObjectCache::open("").ok());
  auto file = KernelObjectCache::open("/proc/self/status/x");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(std::string(file.status().message()).find("cache directory"),
            std::string::npos)
      << file.status();
}

constexpr const char *kLoopSource = R"mlir(
func.func @f(%x: tensor<8x64xf32>, %y: tensor<64xf32>) -> tensor<8x64xf32> {
  %0 = tgc.mul %x, %y : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %1 = tgc.tanh %0 : tensor<8x64xf32>
  %2 = tgc.exp %1 : tensor<8x64xf32>
  return %2 : tensor<8x64xf32>
}
)mlir";

// The CPU backend stores its loop kernels' object code in the cache
// directory and a later compile (of another context, as in another process)
// loads it: the results are bitwise the same.
TEST(KernelObjectCache, TheCpuBackendReusesLoopKernels) {
  std::string dir = freshDirectory("backend");
  codegen::registerAllBackends();
  const codegen::Backend *cpu = codegen::lookupBackend("cpu");
  ASSERT_NE(cpu, nullptr);
  HostTensor x = *HostTensor::allocate(DType::F32, {8, 64});
  HostTensor y = *HostTensor::allocate(DType::F32, {64});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setDouble(i, 0.01 * static_cast<double>(i % 97) - 0.3);
  for (int64_t i = 0; i < y.numElements(); ++i)
    y.setDouble(i, 0.5 + 0.01 * static_cast<double>(i));
  codegen::BackendOptions options;
  options.numThreads = 1;
  options.cacheDir = dir;
  auto compileAndRun = [&]() -> std::vector<HostTensor> {
    mlir::MLIRContext context;
    tgc::testing::loadAllDialects(context);
    auto module =
        mlir::parseSourceString<mlir::ModuleOp>(kLoopSource, &context);
    EXPECT_TRUE(module);
    auto func = module->lookupSymbol<mlir::func::FuncOp>("f");
    auto compiled = cpu->compile(func, {{8, 64}, {64}}, options);
    EXPECT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    if (!compiled)
      return {};
    EXPECT_NE((*compiled)->describe().find("jit.loop"), std::string::npos)
        << (*compiled)->describe();
    auto results = (*compiled)->run({x, y}, {});
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() ? *results : std::vector<HostTensor>{};
  };
  auto before = KernelObjectCache::processStats();
  std::vector<HostTensor> cold = compileAndRun();
  auto afterCold = KernelObjectCache::processStats();
  EXPECT_GE(afterCold.stores - before.stores, 1u);
  EXPECT_EQ(afterCold.hits, before.hits);
  EXPECT_EQ(afterCold.planStores - before.planStores, 1u);
  // The second compile loads the whole plan (its loop kernel included).
  std::vector<HostTensor> planned = compileAndRun();
  auto afterPlan = KernelObjectCache::processStats();
  EXPECT_EQ(afterPlan.planHits - afterCold.planHits, 1u);
  EXPECT_EQ(afterPlan.hits, afterCold.hits);
  ASSERT_EQ(planned.size(), 1u);
  ASSERT_EQ(cold.size(), 1u);
  EXPECT_EQ(std::memcmp(cold[0].data(), planned[0].data(), cold[0].byteSize()),
            0);
  // Without the plan, the compile runs and loads the loop kernels' objects.
  for (const std::string &file : entries(dir))
    if (llvm::StringRef(file).ends_with(".tgcx"))
      llvm::sys::fs::remove(file);
  std::vector<HostTensor> warm = compileAndRun();
  auto afterWarm = KernelObjectCache::processStats();
  EXPECT_EQ(afterWarm.hits - afterPlan.hits, afterCold.stores - before.stores);
  EXPECT_EQ(afterWarm.stores, afterCold.stores);
  ASSERT_EQ(cold.size(), 1u);
  ASSERT_EQ(warm.size(), 1u);
  EXPECT_EQ(std::memcmp(cold[0].data(), warm[0].data(), cold[0].byteSize()), 0);
  // And the values are right.
  for (int64_t i = 0; i < x.numElements(); i += 37) {
    double expected = std::exp(std::tanh(x.getDouble(i) * y.getDouble(i % 64)));
    EXPECT_NEAR(warm[0].getDouble(i), expected, 1e-5 * expected) << i;
  }
  // No dump or temporary file is left behind.
  for (const std::string &file : entries(dir))
    EXPECT_TRUE(llvm::StringRef(file).ends_with(".tgcobj") ||
                llvm::StringRef(file).ends_with(".tgcx"))
        << file;
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
