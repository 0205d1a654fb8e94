//===- MemoryPool.h - a caching device memory pool --------------*- C++ -*-===//
//
// Device allocations (cuMemAlloc) are slow and synchronize the device, so
// freed blocks are kept in size-class bins and handed out again. Sizes are
// rounded up to a size class: powers of two from 512 bytes to 1 MiB, then
// multiples of 2 MiB; a request is served from its class's bin when it
// holds a block, else by the allocator. When the allocator is out of memory,
// the cached blocks are released and the allocation is tried once more.
//
// The pool serves one stream: a block freed after work on it was enqueued
// may be reused by work enqueued later on the same stream without waiting,
// because the stream orders the two. Thread-safe.
//
// The bookkeeping is independent of CUDA: the pool allocates through a
// DeviceAllocator (the driver's cuMemAlloc/cuMemFree, or a fake in tests).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_MEMORYPOOL_H
#define TGC_RUNTIME_CUDA_MEMORYPOOL_H

#include "tgc/DeviceTensor.h"

#include "tgc/AbslStatus.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tgc::cuda {

class DeviceAllocator {
public:
  virtual ~DeviceAllocator() = default;
  /// ResourceExhausted when out of memory.
  virtual absl::StatusOr<DevicePtr> allocate(size_t bytes) = 0;
  virtual void free(DevicePtr ptr) = 0;
};

struct MemoryPoolStats {
  /// Bytes in blocks handed out and not yet freed (size classes).
  size_t bytesInUse = 0;
  /// Bytes in cached free blocks.
  size_t bytesCached = 0;
  /// The highest bytesInUse + bytesCached (what the device holds).
  size_t peakBytesReserved = 0;
  /// Calls of allocate() served from a bin / by the allocator.
  int64_t hits = 0;
  int64_t misses = 0;
  /// Allocator calls: allocations, frees, out-of-memory retries.
  int64_t deviceAllocations = 0;
  int64_t deviceFrees = 0;
  int64_t oomRetries = 0;

  std::string toString() const;
};

class CachingMemoryPool {
public:
  /// `allocator` must outlive the pool. `maxCachedBytes` bounds the cached
  /// free blocks: freeing beyond it releases the block to the allocator.
  explicit CachingMemoryPool(DeviceAllocator &allocator,
                             size_t maxCachedBytes = SIZE_MAX);
  /// Releases every cached block (blocks still in use are reported by
  /// stats() and leaked on purpose: the device may still be using them).
  ~CachingMemoryPool();
  CachingMemoryPool(const CachingMemoryPool &) = delete;
  CachingMemoryPool &operator=(const CachingMemoryPool &) = delete;

  /// The size class of a request: the bytes a block for it holds.
  static size_t sizeClass(size_t bytes);

  /// A block of at least `bytes` (at least one byte is reserved for 0).
  absl::StatusOr<DevicePtr> allocate(size_t bytes);
  /// Returns a block from allocate() to its bin. Unknown pointers are
  /// ignored (and counted nowhere): the pool never frees what it does not
  /// own.
  void free(DevicePtr ptr);
  /// Releases every cached free block to the allocator.
  void releaseCached();

  MemoryPoolStats stats() const;

private:
  void releaseCachedLocked();

  DeviceAllocator &allocator;
  const size_t maxCachedBytes;
  mutable std::mutex mutex;
  /// size class -> free blocks of that class.
  std::map<size_t, std::vector<DevicePtr>> bins;
  /// block -> its size class, for blocks in use.
  std::unordered_map<DevicePtr, size_t> inUse;
  MemoryPoolStats counters;
};

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_MEMORYPOOL_H
