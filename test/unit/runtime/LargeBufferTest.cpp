//===- LargeBufferTest.cpp - allocateLargeBuffer --------------------------===//

#include "runtime/LargeBuffer.h"

#include "gtest/gtest.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace tgc::runtime;

namespace {

/// Whether this process's kernel reports the mapping at `p` as advised for
/// huge pages (the "hg" flag of /proc/self/smaps).
bool advisedHuge(const void *p) {
  std::ifstream smaps("/proc/self/smaps");
  auto address = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    // A mapping's header ("lo-hi perms ..."); its fields are "Name: ...".
    unsigned long lo, hi;
    if (!line.empty() && (std::isdigit(line[0]) || std::islower(line[0])) &&
        std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2) {
      inside = lo <= address && address < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0)
      return line.find(" hg") != std::string::npos;
  }
  return false;
}

TEST(LargeBuffer, SmallBuffersAreAlignedHeapMemory) {
  for (size_t bytes : {size_t(0), size_t(1), size_t(100), size_t(1) << 20}) {
    auto buffer = allocateLargeBuffer(bytes, /*populate=*/true);
    ASSERT_TRUE(buffer) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.get()) % 64, 0u) << bytes;
    for (size_t i = 0; i < bytes; ++i)
      ASSERT_EQ(buffer.get()[i], 0) << "populated means zeroed, at " << i;
    std::memset(buffer.get(), 0x5a, bytes);
  }
}

TEST(LargeBuffer, LargeBuffersAreHugePageAlignedMappings) {
  for (size_t bytes : {size_t(2) << 20, (size_t(5) << 20) + 12345}) {
    for (bool populate : {false, true}) {
      auto buffer = allocateLargeBuffer(bytes, populate);
      ASSERT_TRUE(buffer) << bytes;
      char *p = buffer.get();
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t(2) << 20), 0u);
      // Zeroed, writable to the last byte.
      EXPECT_EQ(p[0], 0);
      EXPECT_EQ(p[bytes - 1], 0);
      std::memset(p, 0x7f, bytes);
      EXPECT_EQ(p[bytes - 1], 0x7f);
      // Kernels built without transparent huge pages have no such advice.
      if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
        EXPECT_TRUE(advisedHuge(p)) << "not advised as huge pages";
    }
  }
}

TEST(LargeBuffer, ArenasCanKeepSmallPages) {
  auto buffer = allocateLargeBuffer(size_t(4) << 20, /*populate=*/true,
                                    /*hugePages=*/false);
  ASSERT_TRUE(buffer);
  EXPECT_EQ(buffer.get()[(size_t(4) << 20) - 1], 0);
  EXPECT_FALSE(advisedHuge(buffer.get()));
}

TEST(LargeBuffer, SharedOwnersKeepItAlive) {
  std::shared_ptr<char> alias;
  {
    auto buffer = allocateLargeBuffer(size_t(3) << 20);
    ASSERT_TRUE(buffer);
    buffer.get()[42] = 9;
    alias = std::shared_ptr<char>(buffer, buffer.get() + 42);
  }
  EXPECT_EQ(*alias, 9);
}

/// The resident pages of this process's mappings of `path` (KiB).
long residentKiB(const std::string &path) {
  std::ifstream maps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  long total = 0;
  while (std::getline(maps, line)) {
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find('-') != std::string::npos && line.find(' ') < line.size())
      inside = line.size() >= path.size() &&
               line.compare(line.size() - path.size(), path.size(), path) == 0;
    else if (inside && line.rfind("Rss:", 0) == 0)
      total += std::stol(line.substr(4));
  }
  return total;
}

int collatz(int n) {
  int steps = 0;
  while (n != 1 && steps < 1000) {
    n = n % 2 ? 3 * n + 1 : n / 2;
    ++steps;
  }
  return steps;
}

// A tool lets go of its compiler's code pages once compiled: this test
// binary's code goes (its resident pages fall), and runs again as before
// (they come back from the file). Addresses in no loaded object release
// nothing.
TEST(LargeBuffer, CodePagesGoAndComeBack) {
  char exe[4096] = {};
  ssize_t length = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  ASSERT_GT(length, 0);
  long before = residentKiB(exe);
  size_t released =
      releaseCodePages({reinterpret_cast<const void *>(&collatz)});
  EXPECT_GT(released, size_t(0));
  long after = residentKiB(exe);
  EXPECT_LT(after, before);
  EXPECT_EQ(collatz(27), 111); // the code runs again
  EXPECT_GE(residentKiB(exe), after);
  int onStack = 0;
  EXPECT_EQ(releaseCodePages({&onStack}), size_t(0));
  EXPECT_EQ(releaseCodePages({nullptr}), size_t(0));
}

TEST(LargeBuffer, ImpossibleSizesAreNull) {
  EXPECT_FALSE(allocateLargeBuffer(size_t(1) << 62));
  EXPECT_FALSE(allocateLargeBuffer(~size_t(0)));
}

} // namespace
