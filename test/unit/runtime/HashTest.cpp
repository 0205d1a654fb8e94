//===- HashTest.cpp - XXH64 and the bounded byte reader -------------------===//

#include "runtime/Hash.h"
#include "runtime/ByteStream.h"

#include <gtest/gtest.h>

#include <string>

using namespace tgc::runtime;

namespace {

// Reference values of XXH64 (xxHash's sanity tests; llvm::xxHash64 agrees).
TEST(Hash64, MatchesTheReference) {
  EXPECT_EQ(hash64("", 0), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(hash64("a"), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(hash64("abc"), 0x44BC2CF5AD770999ULL);
  EXPECT_NE(hash64("abc", 1), hash64("abc"));
}

TEST(Hash64, PiecesHashLikeTheWhole) {
  std::string bytes;
  for (int i = 0; i < 1000; ++i)
    bytes += static_cast<char>(i * 7 + i / 13);
  for (size_t split : {0u, 1u, 7u, 31u, 32u, 33u, 100u, 999u}) {
    Hash64 hash;
    hash.update(bytes.data(), split);
    hash.update(bytes.data() + split, 300 > split ? 300 - split : 0);
    hash.update(bytes.data() + std::max<size_t>(split, 300),
                bytes.size() - std::max<size_t>(split, 300));
    EXPECT_EQ(hash.digest(), hash64(bytes)) << split;
  }
}

TEST(ByteReader, ReadsWhatWasWrittenAndFailsOnShortInput) {
  ByteWriter w;
  w.put<int64_t>(-5);
  w.put(2.5);
  w.put(true);
  w.putString("name");
  w.putInts({1, 2, 3});
  std::string bytes = w.take();
  ByteReader r(bytes, "test");
  EXPECT_EQ(r.get<int64_t>(), -5);
  EXPECT_EQ(r.get<double>(), 2.5);
  EXPECT_TRUE(r.get<bool>());
  EXPECT_EQ(r.getString(), "name");
  EXPECT_EQ(r.getInts(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.atEnd());
  EXPECT_EQ(r.get<int64_t>(), 0); // past the end: fails, returns zero
  EXPECT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("test: truncated"),
            std::string::npos)
      << r.status();

  // A count larger than what is left fails before allocating.
  ByteWriter huge;
  huge.put<uint64_t>(uint64_t(1) << 60);
  std::string hugeBytes = huge.take();
  ByteReader h(hugeBytes, "huge");
  EXPECT_TRUE(h.getInts().empty());
  EXPECT_FALSE(h.ok());
  EXPECT_NE(std::string(h.status().message()).find("exceeds what is left"),
            std::string::npos);

  // Enumerators out of range fail.
  ByteWriter e;
  e.put<int64_t>(9);
  std::string enumBytes = e.take();
  ByteReader er(enumBytes, "enum");
  enum class Small { A, B };
  er.getEnum(Small::B);
  EXPECT_FALSE(er.ok());
}

} // namespace
