//===- ByteStream.h - bounded binary encoding ------------------*- C++ -*-===//
//
// Little-endian fixed-width integers, doubles, length-prefixed strings and
// vectors, for the files the runtime writes and reads back (saved plans).
// A ByteReader never reads past its bytes: a short or malformed input makes
// it fail (ok() turns false, every later read returns zeros/empties) with
// the first problem as the message, so decoders read on and check once.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_BYTESTREAM_H
#define TGC_RUNTIME_BYTESTREAM_H

#include "tgc/AbslStatus.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tgc::runtime {

class ByteWriter {
public:
  template <typename T> void put(T value) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    if constexpr (std::is_enum_v<T>)
      put(static_cast<int64_t>(value));
    else if constexpr (std::is_same_v<T, bool>)
      bytes.push_back(value ? 1 : 0);
    else
      bytes.append(reinterpret_cast<const char *>(&value), sizeof(T));
  }
  void putString(std::string_view s) {
    put<uint64_t>(s.size());
    bytes.append(s.data(), s.size());
  }
  void putInts(const std::vector<int64_t> &values) {
    put<uint64_t>(values.size());
    for (int64_t v : values)
      put(v);
  }
  std::string &data() { return bytes; }
  std::string take() { return std::move(bytes); }

private:
  std::string bytes;
};

class ByteReader {
public:
  explicit ByteReader(std::string_view bytes, std::string what = "data")
      : bytes(bytes), what(std::move(what)) {}

  bool ok() const { return error.empty(); }
  /// OK, or DataLoss naming the first problem.
  absl::Status status() const {
    return ok() ? absl::OkStatus() : absl::DataLossError(error);
  }
  void fail(std::string message) {
    if (error.empty())
      error = what + ": " + std::move(message);
  }
  size_t remaining() const { return bytes.size() - position; }
  bool atEnd() const { return position == bytes.size(); }

  template <typename T> T get() {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    if constexpr (std::is_enum_v<T>) {
      return static_cast<T>(get<int64_t>());
    } else if constexpr (std::is_same_v<T, bool>) {
      return get<uint8_t>() != 0;
    } else {
      T value{};
      if (!take(sizeof(T)))
        return value;
      std::memcpy(&value, bytes.data() + position - sizeof(T), sizeof(T));
      return value;
    }
  }
  /// A count of at most `limit` items (each at least `minItemBytes` long
  /// in what is left): a corrupt count fails here, before any allocation.
  uint64_t getCount(size_t minItemBytes = 1) {
    uint64_t n = get<uint64_t>();
    if (ok() && minItemBytes && n > remaining() / minItemBytes) {
      fail("a count of " + std::to_string(n) + " exceeds what is left");
      return 0;
    }
    return n;
  }
  std::string getString() {
    uint64_t n = getCount(1);
    if (!take(n))
      return {};
    return std::string(bytes.substr(position - n, n));
  }
  std::string_view getBytes(uint64_t n) {
    if (!take(n))
      return {};
    return bytes.substr(position - n, n);
  }
  std::vector<int64_t> getInts() {
    uint64_t n = getCount(sizeof(int64_t));
    std::vector<int64_t> values;
    values.reserve(n);
    for (uint64_t i = 0; i < n && ok(); ++i)
      values.push_back(get<int64_t>());
    return values;
  }
  /// An enum stored by put(): fails unless 0 <= value <= `last`.
  template <typename E> E getEnum(E last) {
    int64_t v = get<int64_t>();
    if (v < 0 || v > static_cast<int64_t>(last)) {
      fail("an enumerator " + std::to_string(v) + " is out of range");
      return E{};
    }
    return static_cast<E>(v);
  }

private:
  bool take(uint64_t n) {
    if (!ok())
      return false;
    if (n > remaining()) {
      fail("truncated (" + std::to_string(n) + " bytes wanted, " +
           std::to_string(remaining()) + " left)");
      return false;
    }
    position += n;
    return true;
  }

  std::string_view bytes;
  size_t position = 0;
  std::string what;
  std::string error;
};

} // namespace tgc::runtime

#endif // TGC_RUNTIME_BYTESTREAM_H
