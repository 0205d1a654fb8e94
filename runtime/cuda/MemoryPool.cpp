//===- MemoryPool.cpp - a caching device memory pool ----------------------===//

#include "runtime/cuda/MemoryPool.h"

#include "absl/strings/str_format.h"

#include <algorithm>

using namespace tgc::cuda;

namespace {
constexpr size_t kMinBlock = 512;
constexpr size_t kSmallLimit = size_t(1) << 20;
constexpr size_t kLargeGranule = size_t(2) << 20;
} // namespace

std::string MemoryPoolStats::toString() const {
  return absl::StrFormat(
      "in use %d B, cached %d B, peak reserved %d B, hits %d, misses %d, "
      "device allocations %d, device frees %d, out-of-memory retries %d",
      bytesInUse, bytesCached, peakBytesReserved, hits, misses,
      deviceAllocations, deviceFrees, oomRetries);
}

CachingMemoryPool::CachingMemoryPool(DeviceAllocator &allocator,
                                     size_t maxCachedBytes)
    : allocator(allocator), maxCachedBytes(maxCachedBytes) {}

CachingMemoryPool::~CachingMemoryPool() { releaseCached(); }

size_t CachingMemoryPool::sizeClass(size_t bytes) {
  if (bytes <= kMinBlock)
    return kMinBlock;
  if (bytes <= kSmallLimit) {
    size_t size = kMinBlock;
    while (size < bytes)
      size <<= 1;
    return size;
  }
  return (bytes + kLargeGranule - 1) / kLargeGranule * kLargeGranule;
}

absl::StatusOr<DevicePtr> CachingMemoryPool::allocate(size_t bytes) {
  const size_t size = sizeClass(bytes);
  std::lock_guard<std::mutex> lock(mutex);
  auto bin = bins.find(size);
  if (bin != bins.end() && !bin->second.empty()) {
    DevicePtr ptr = bin->second.back();
    bin->second.pop_back();
    counters.bytesCached -= size;
    counters.bytesInUse += size;
    ++counters.hits;
    inUse.emplace(ptr, size);
    return ptr;
  }
  ++counters.misses;
  absl::StatusOr<DevicePtr> ptr = allocator.allocate(size);
  ++counters.deviceAllocations;
  if (!ptr.ok() && absl::IsResourceExhausted(ptr.status()) &&
      counters.bytesCached > 0) {
    ++counters.oomRetries;
    releaseCachedLocked();
    ptr = allocator.allocate(size);
    ++counters.deviceAllocations;
  }
  if (!ptr.ok())
    return ptr.status();
  counters.bytesInUse += size;
  counters.peakBytesReserved = std::max(
      counters.peakBytesReserved, counters.bytesInUse + counters.bytesCached);
  inUse.emplace(*ptr, size);
  return *ptr;
}

void CachingMemoryPool::free(DevicePtr ptr) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = inUse.find(ptr);
  if (it == inUse.end())
    return;
  const size_t size = it->second;
  inUse.erase(it);
  counters.bytesInUse -= size;
  if (counters.bytesCached + size > maxCachedBytes) {
    allocator.free(ptr);
    ++counters.deviceFrees;
    return;
  }
  bins[size].push_back(ptr);
  counters.bytesCached += size;
}

void CachingMemoryPool::releaseCached() {
  std::lock_guard<std::mutex> lock(mutex);
  releaseCachedLocked();
}

void CachingMemoryPool::releaseCachedLocked() {
  for (auto &[size, blocks] : bins)
    for (DevicePtr ptr : blocks) {
      allocator.free(ptr);
      ++counters.deviceFrees;
    }
  bins.clear();
  counters.bytesCached = 0;
}

MemoryPoolStats CachingMemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counters;
}
