//===- Hash.h - a stable 64-bit hash (XXH64) --------------------*- C++ -*-===//
//
// XXH64 (xxHash's 64-bit hash, bit-compatible with the reference and with
// llvm::xxHash64), for checksums of files the runtime reads: saved plans
// (runtime/cpu/PlanFile.h). Stable across processes, builds and machines,
// unlike std::hash or absl::Hash. The runtime links no LLVM, hence its own.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_HASH_H
#define TGC_RUNTIME_HASH_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tgc::runtime {

/// XXH64 over bytes given in pieces: update() any number of times, then
/// digest() (which does not change the state).
class Hash64 {
public:
  explicit Hash64(uint64_t seed = 0);
  void update(const void *data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  uint64_t digest() const;

private:
  uint64_t lanes[4];
  uint64_t seed;
  uint64_t total = 0;
  unsigned char buffer[32];
  size_t buffered = 0;
};

/// XXH64 of `size` bytes at `data`.
uint64_t hash64(const void *data, size_t size, uint64_t seed = 0);
inline uint64_t hash64(std::string_view bytes, uint64_t seed = 0) {
  return hash64(bytes.data(), bytes.size(), seed);
}

} // namespace tgc::runtime

#endif // TGC_RUNTIME_HASH_H
