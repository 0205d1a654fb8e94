//===- Hash.cpp - XXH64 ---------------------------------------------------===//
//
// The XXH64 algorithm as specified in xxHash's doc/xxhash_spec.md.
//
//===----------------------------------------------------------------------===//

#include "runtime/Hash.h"

#include <cstring>

using namespace tgc::runtime;

namespace {
constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t read64(const unsigned char *p) {
  uint64_t v;
  std::memcpy(&v, p, 8); // x86 and every target tgc builds for: little endian
  return v;
}

uint32_t read32(const unsigned char *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t round(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  acc = rotl(acc, 31);
  return acc * kPrime1;
}

uint64_t mergeRound(uint64_t acc, uint64_t lane) {
  acc ^= round(0, lane);
  return acc * kPrime1 + kPrime4;
}
} // namespace

Hash64::Hash64(uint64_t seed) : seed(seed) {
  lanes[0] = seed + kPrime1 + kPrime2;
  lanes[1] = seed + kPrime2;
  lanes[2] = seed;
  lanes[3] = seed - kPrime1;
}

void Hash64::update(const void *data, size_t size) {
  const auto *p = static_cast<const unsigned char *>(data);
  total += size;
  if (buffered + size < 32) {
    if (size)
      std::memcpy(buffer + buffered, p, size);
    buffered += size;
    return;
  }
  if (buffered) {
    size_t take = 32 - buffered;
    std::memcpy(buffer + buffered, p, take);
    for (int i = 0; i < 4; ++i)
      lanes[i] = round(lanes[i], read64(buffer + 8 * i));
    p += take;
    size -= take;
    buffered = 0;
  }
  uint64_t v0 = lanes[0], v1 = lanes[1], v2 = lanes[2], v3 = lanes[3];
  while (size >= 32) {
    v0 = round(v0, read64(p));
    v1 = round(v1, read64(p + 8));
    v2 = round(v2, read64(p + 16));
    v3 = round(v3, read64(p + 24));
    p += 32;
    size -= 32;
  }
  lanes[0] = v0, lanes[1] = v1, lanes[2] = v2, lanes[3] = v3;
  if (size)
    std::memcpy(buffer, p, size);
  buffered = size;
}

uint64_t Hash64::digest() const {
  uint64_t h;
  if (total >= 32) {
    h = rotl(lanes[0], 1) + rotl(lanes[1], 7) + rotl(lanes[2], 12) +
        rotl(lanes[3], 18);
    for (uint64_t lane : lanes)
      h = mergeRound(h, lane);
  } else {
    h = seed + kPrime5;
  }
  h += total;
  const unsigned char *p = buffer;
  size_t left = buffered;
  while (left >= 8) {
    h ^= round(0, read64(p));
    h = rotl(h, 27) * kPrime1 + kPrime4;
    p += 8;
    left -= 8;
  }
  if (left >= 4) {
    h ^= static_cast<uint64_t>(read32(p)) * kPrime1;
    h = rotl(h, 23) * kPrime2 + kPrime3;
    p += 4;
    left -= 4;
  }
  while (left--) {
    h ^= static_cast<uint64_t>(*p++) * kPrime5;
    h = rotl(h, 11) * kPrime1;
  }
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

uint64_t tgc::runtime::hash64(const void *data, size_t size, uint64_t seed) {
  Hash64 hash(seed);
  hash.update(data, size);
  return hash.digest();
}
