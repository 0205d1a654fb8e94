//===- MemoryPoolTest.cpp - the caching pool's bookkeeping ----------------===//

#include "runtime/cuda/MemoryPool.h"

#include <gtest/gtest.h>

#include <set>

using namespace tgc::cuda;

namespace {
/// Hands out fake addresses; fails (out of memory) past `capacity` bytes.
class FakeAllocator final : public DeviceAllocator {
public:
  explicit FakeAllocator(size_t capacity = SIZE_MAX) : capacity(capacity) {}
  absl::StatusOr<DevicePtr> allocate(size_t bytes) override {
    if (used + bytes > capacity)
      return absl::ResourceExhaustedError("fake: out of memory");
    used += bytes;
    DevicePtr ptr = next;
    next += bytes + 4096;
    live[ptr] = bytes;
    ++allocations;
    return ptr;
  }
  void free(DevicePtr ptr) override {
    auto it = live.find(ptr);
    ASSERT_NE(it, live.end()) << "freeing an unknown block";
    used -= it->second;
    live.erase(it);
    ++frees;
  }
  size_t capacity, used = 0;
  DevicePtr next = 0x10000;
  std::map<DevicePtr, size_t> live;
  int allocations = 0, frees = 0;
};
} // namespace

TEST(MemoryPool, SizeClasses) {
  EXPECT_EQ(CachingMemoryPool::sizeClass(0), 512u);
  EXPECT_EQ(CachingMemoryPool::sizeClass(1), 512u);
  EXPECT_EQ(CachingMemoryPool::sizeClass(512), 512u);
  EXPECT_EQ(CachingMemoryPool::sizeClass(513), 1024u);
  EXPECT_EQ(CachingMemoryPool::sizeClass(3000), 4096u);
  EXPECT_EQ(CachingMemoryPool::sizeClass(1 << 20), 1u << 20);
  EXPECT_EQ(CachingMemoryPool::sizeClass((1 << 20) + 1), 2u << 20);
  EXPECT_EQ(CachingMemoryPool::sizeClass(5u << 20), 6u << 20);
}

TEST(MemoryPool, ReusesFreedBlocksOfTheSameClass) {
  FakeAllocator allocator;
  CachingMemoryPool pool(allocator);
  DevicePtr a = *pool.allocate(1000);
  pool.free(a);
  // 900 and 1000 bytes share the 1024-byte class: same block, no new
  // device allocation.
  DevicePtr b = *pool.allocate(900);
  EXPECT_EQ(a, b);
  EXPECT_EQ(allocator.allocations, 1);
  // Another class is a new allocation.
  DevicePtr c = *pool.allocate(5000);
  EXPECT_NE(c, b);
  EXPECT_EQ(allocator.allocations, 2);
  MemoryPoolStats stats = pool.stats();
  EXPECT_EQ(stats.hits, 1);
  EXPECT_EQ(stats.misses, 2);
  EXPECT_EQ(stats.bytesInUse, 1024u + 8192u);
  EXPECT_EQ(stats.bytesCached, 0u);
  pool.free(b);
  pool.free(c);
  stats = pool.stats();
  EXPECT_EQ(stats.bytesInUse, 0u);
  EXPECT_EQ(stats.bytesCached, 1024u + 8192u);
  EXPECT_EQ(stats.peakBytesReserved, 1024u + 8192u);
  EXPECT_EQ(allocator.frees, 0);
}

TEST(MemoryPool, LiveBlocksAreDistinct) {
  FakeAllocator allocator;
  CachingMemoryPool pool(allocator);
  std::set<DevicePtr> seen;
  for (int i = 0; i < 10; ++i)
    EXPECT_TRUE(seen.insert(*pool.allocate(100)).second);
  for (DevicePtr p : seen)
    pool.free(p);
  std::set<DevicePtr> again;
  for (int i = 0; i < 10; ++i)
    again.insert(*pool.allocate(100));
  EXPECT_EQ(seen, again);
  EXPECT_EQ(allocator.allocations, 10);
}

TEST(MemoryPool, ReleasesCacheAndRetriesWhenOutOfMemory) {
  FakeAllocator allocator(/*capacity=*/4 * 4096);
  CachingMemoryPool pool(allocator);
  DevicePtr a = *pool.allocate(4096);
  DevicePtr b = *pool.allocate(4096);
  pool.free(a);
  pool.free(b);
  // 8 KiB cached; a 12 KiB request (a 16 KiB block) does not fit next to
  // them: the pool releases the cache and retries.
  absl::StatusOr<DevicePtr> big = pool.allocate(3 * 4096);
  ASSERT_TRUE(big.ok()) << big.status();
  MemoryPoolStats stats = pool.stats();
  EXPECT_EQ(stats.oomRetries, 1);
  EXPECT_EQ(stats.bytesCached, 0u);
  EXPECT_EQ(stats.deviceFrees, 2);
  // Nothing cached left to release: the error comes through.
  absl::StatusOr<DevicePtr> more = pool.allocate(4096);
  EXPECT_TRUE(absl::IsResourceExhausted(more.status())) << more.status();
  pool.free(*big);
}

TEST(MemoryPool, CacheLimitAndUnknownPointers) {
  FakeAllocator allocator;
  CachingMemoryPool pool(allocator, /*maxCachedBytes=*/1024);
  DevicePtr a = *pool.allocate(1024);
  DevicePtr b = *pool.allocate(1024);
  pool.free(a);
  pool.free(b); // over the limit: released
  EXPECT_EQ(pool.stats().bytesCached, 1024u);
  EXPECT_EQ(allocator.frees, 1);
  pool.free(0xdead); // not the pool's: ignored
  pool.free(a);      // double free: ignored
  EXPECT_EQ(pool.stats().bytesCached, 1024u);
  pool.releaseCached();
  EXPECT_EQ(allocator.live.size(), 0u);
}

TEST(MemoryPool, DestructorReleasesCachedBlocks) {
  FakeAllocator allocator;
  {
    CachingMemoryPool pool(allocator);
    pool.free(*pool.allocate(10));
    pool.free(*pool.allocate(1 << 22));
  }
  EXPECT_EQ(allocator.live.size(), 0u);
  EXPECT_EQ(allocator.frees, 2);
}
