//===- Npy.cpp - NumPy .npy reading and writing ---------------------------===//
//
// Format reference: numpy/lib/format.py. A file is the magic "\x93NUMPY", a
// major and minor version byte, a little-endian header length (uint16 for
// 1.0, uint32 for 2.0 and 3.0), the header (a Python dict literal with the
// keys 'descr', 'fortran_order' and 'shape', padded with spaces and ending
// in '\n'), then the raw array data.
//
//===----------------------------------------------------------------------===//

#include "tgc/Npy.h"
#include "tgc/AbslStatus.h"

#include "runtime/Float16.h"

#include "absl/strings/str_cat.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

using namespace tgc::runtime;

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kArrayAlign = 64;
constexpr size_t kGrowthAxisMaxDigits = 21;
constexpr bool kHostIsBigEndian = std::endian::native == std::endian::big;

/// absl::StrCat takes absl::string_view, which is not std::string_view here.
absl::string_view sv(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

tgc::Status npyError(std::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("npy: ", sv(message)));
}

/// Printable rendering of untrusted header text for error messages.
std::string quoted(std::string_view text) {
  constexpr size_t kMaxLength = 80;
  std::string result = "'";
  for (size_t i = 0; i < text.size() && i < kMaxLength; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      result.push_back(static_cast<char>(c));
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      result += escaped;
    }
  }
  if (text.size() > kMaxLength)
    result += "...";
  result += "'";
  return result;
}

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// A parser for the restricted Python dict literal of an npy header.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view headerText) : text(headerText) {}

  tgc::StatusOr<NpyHeader> parse() {
    NpyHeader header;
    bool sawDescr = false, sawFortran = false, sawShape = false;
    skipSpace();
    if (!consume('{'))
      return error("header is not a dict: expected '{'");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      tgc::StatusOr<std::string> key = parseString();
      if (!key.ok())
        return key.status();
      skipSpace();
      if (!consume(':'))
        return error(absl::StrCat("expected ':' after key ", quoted(*key)));
      skipSpace();
      bool *seen;
      tgc::Status status;
      if (*key == "descr") {
        seen = &sawDescr;
        if (peek() == '[' || peek() == '{')
          return npyError("structured descr is not supported in header");
        tgc::StatusOr<std::string> descr = parseString();
        status = descr.status();
        if (descr.ok())
          header.descr = *std::move(descr);
      } else if (*key == "fortran_order") {
        seen = &sawFortran;
        status = parseBool(header.fortranOrder);
      } else if (*key == "shape") {
        seen = &sawShape;
        status = parseShape(header.shape);
      } else {
        return error(absl::StrCat("unexpected key ", quoted(*key)));
      }
      if (!status.ok())
        return status;
      if (*seen)
        return error(absl::StrCat("duplicate key ", quoted(*key)));
      *seen = true;
      skipSpace();
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return error("expected ',' or '}' in dict");
    }
    skipSpace();
    if (pos != text.size())
      return error("unexpected text after the dict");
    if (!sawDescr)
      return npyError("header is missing the key 'descr'");
    if (!sawFortran)
      return npyError("header is missing the key 'fortran_order'");
    if (!sawShape)
      return npyError("header is missing the key 'shape'");
    return header;
  }

private:
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }

  bool consume(char c) {
    if (peek() != c || pos >= text.size())
      return false;
    ++pos;
    return true;
  }

  bool consumeWord(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  tgc::Status error(std::string_view message) const {
    return npyError(absl::StrCat("invalid header at offset ", pos, ": ",
                                 sv(message), "; header is ", quoted(text)));
  }

  tgc::StatusOr<std::string> parseString() {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return error("expected a quoted string");
    size_t start = ++pos;
    size_t end = text.find(quote, start);
    if (end == std::string_view::npos)
      return error("unterminated string");
    pos = end + 1;
    return std::string(text.substr(start, end - start));
  }

  tgc::Status parseBool(bool &result) {
    if (consumeWord("True")) {
      result = true;
      return absl::OkStatus();
    }
    if (consumeWord("False")) {
      result = false;
      return absl::OkStatus();
    }
    return error("'fortran_order' must be True or False");
  }

  /// A tuple of integers: (), (3,), (2, 3), (2, 3,).
  tgc::Status parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return error("'shape' must be a tuple");
    skipSpace();
    while (!consume(')')) {
      bool negative = consume('-');
      if (peek() < '0' || peek() > '9')
        return error("expected an integer dimension in 'shape'");
      uint64_t value = 0;
      while (peek() >= '0' && peek() <= '9') {
        uint64_t digit = static_cast<uint64_t>(peek() - '0');
        if (value >
            (uint64_t(std::numeric_limits<int64_t>::max()) - digit) / 10)
          return error("dimension in 'shape' overflows int64");
        value = value * 10 + digit;
        ++pos;
      }
      consume('L'); // Python 2 long suffix.
      if (negative && value != 0)
        return error(
            absl::StrCat("negative dimension -", value, " in 'shape'"));
      shape.push_back(static_cast<int64_t>(value));
      skipSpace();
      if (consume(',')) {
        skipSpace();
        continue;
      }
      if (consume(')'))
        break;
      return error("expected ',' or ')' in 'shape'");
    }
    return absl::OkStatus();
  }

  std::string_view text;
  size_t pos = 0;
};

struct NpyElementType {
  DType dtype;
  size_t itemSize;
  bool bigEndian;
};

tgc::StatusOr<NpyElementType> parseDescr(std::string_view descr) {
  auto unsupported = [&](std::string_view why) {
    return npyError(
        absl::StrCat("unsupported descr ", quoted(descr), ": ", sv(why)));
  };
  if (descr.size() < 3)
    return unsupported("expected a byte order, a kind and a size");
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return unsupported("unknown byte order");
  char kind = descr[1];
  std::string_view sizeText = descr.substr(2);
  size_t size = 0;
  for (char c : sizeText) {
    if (c < '0' || c > '9' || size > 1000)
      return unsupported("expected a byte order, a kind and a size");
    size = size * 10 + static_cast<size_t>(c - '0');
  }
  std::optional<DType> dtype;
  switch (kind) {
  case 'f':
    dtype = size == 2   ? std::optional(DType::F16)
            : size == 4 ? std::optional(DType::F32)
            : size == 8 ? std::optional(DType::F64)
                        : std::nullopt;
    break;
  case 'i':
    dtype = size == 1   ? std::optional(DType::I8)
            : size == 2 ? std::optional(DType::I16)
            : size == 4 ? std::optional(DType::I32)
            : size == 8 ? std::optional(DType::I64)
                        : std::nullopt;
    break;
  case 'b':
    if (size == 1)
      dtype = DType::I1;
    break;
  case 'u':
    dtype = size == 1   ? std::optional(DType::UI8)
            : size == 2 ? std::optional(DType::UI16)
            : size == 4 ? std::optional(DType::UI32)
            : size == 8 ? std::optional(DType::UI64)
                        : std::nullopt;
    break;
  default:
    break;
  }
  if (!dtype)
    return unsupported(
        "supported descrs are f2, f4, f8, i1, i2, i4, i8, u1, u2, u4, u8 "
        "and b1");
  if (order == '|' && size != 1)
    return unsupported("byte order '|' is only valid for one-byte types");
  bool bigEndian = order == '>' || (order == '=' && kHostIsBigEndian);
  return NpyElementType{*dtype, size, bigEndian};
}

uint32_t readLittleEndian(std::string_view bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |=
        static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i]))
        << (8 * i);
  return value;
}

void byteSwapElements(uint8_t *data, int64_t count, size_t itemSize) {
  for (int64_t i = 0; i < count; ++i) {
    uint8_t *element = data + static_cast<size_t>(i) * itemSize;
    for (size_t lo = 0, hi = itemSize - 1; lo < hi; ++lo, --hi) {
      uint8_t byte = element[lo];
      element[lo] = element[hi];
      element[hi] = byte;
    }
  }
}

/// Copies column-major `source` into row-major `dest`.
void transposeFromFortran(const uint8_t *source, uint8_t *dest,
                          const std::vector<int64_t> &shape, int64_t count,
                          size_t itemSize) {
  size_t rank = shape.size();
  std::vector<int64_t> rowStrides(rank, 1);
  for (size_t k = rank; k-- > 1;)
    rowStrides[k - 1] = rowStrides[k] * shape[k];
  // Walk the source in order, keeping the multi-index with dim 0 fastest.
  std::vector<int64_t> index(rank, 0);
  int64_t destOffset = 0;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dest + static_cast<size_t>(destOffset) * itemSize,
                source + static_cast<size_t>(i) * itemSize, itemSize);
    for (size_t k = 0; k < rank; ++k) {
      destOffset += rowStrides[k];
      if (++index[k] < shape[k])
        break;
      destOffset -= index[k] * rowStrides[k];
      index[k] = 0;
    }
  }
}

std::string shapeRepr(const std::vector<int64_t> &shape) {
  std::string result = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    absl::StrAppend(&result, i ? ", " : "", shape[i]);
  if (shape.size() == 1)
    result += ",";
  return result + ")";
}

std::string_view npyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::BF16: // Written as an exact upcast to f32.
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::F64:
    return "<f8";
  case DType::I1:
    return "|b1";
  case DType::I8:
    return "|i1";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::I16:
    return "<i2";
  case DType::UI8:
    return "|u1";
  case DType::UI16:
    return "<u2";
  case DType::UI32:
    return "<u4";
  case DType::UI64:
    return "<u8";
  }
  return "";
}

std::string errnoMessage(int error) {
  char buffer[256];
  // GNU strerror_r may return a static string instead of filling buffer.
  auto result = strerror_r(error, buffer, sizeof(buffer));
  if constexpr (std::is_same_v<decltype(result), int>)
    return result == 0 ? std::string(buffer) : absl::StrCat("errno ", error);
  else
    return std::string(result);
}

tgc::Status fileError(std::string_view action, const std::string &path,
                      int error) {
  std::string message = absl::StrCat("npy: cannot ", sv(action), " ", path,
                                     ": ", errnoMessage(error));
  switch (error) {
  case ENOENT:
    return absl::NotFoundError(message);
  case EACCES:
  case EPERM:
    return absl::PermissionDeniedError(message);
  default:
    return absl::UnknownError(message);
  }
}

} // namespace

tgc::StatusOr<HostTensor> tgc::runtime::parseNpy(std::string_view bytes) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic)
    return npyError("bad magic: not an npy file");
  if (bytes.size() < kMagic.size() + 2)
    return npyError("truncated: missing the format version");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  unsigned minor = static_cast<unsigned char>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return npyError(absl::StrCat("unsupported format version ", major, ".",
                                 minor, " (supported: 1.0, 2.0, 3.0)"));
  size_t lengthWidth = major == 1 ? 2 : 4;
  size_t headerStart = 8 + lengthWidth;
  if (bytes.size() < headerStart)
    return npyError("truncated: missing the header length");
  size_t headerLength = readLittleEndian(bytes, 8, lengthWidth);
  if (bytes.size() - headerStart < headerLength)
    return npyError(absl::StrCat("truncated header: header length is ",
                                 headerLength, " but only ",
                                 bytes.size() - headerStart, " bytes follow"));
  std::string_view headerText = bytes.substr(headerStart, headerLength);
  tgc::StatusOr<NpyHeader> header = HeaderParser(headerText).parse();
  if (!header.ok())
    return header.status();
  tgc::StatusOr<NpyElementType> type = parseDescr(header->descr);
  if (!type.ok())
    return type.status();

  tgc::StatusOr<int64_t> count = HostTensor::checkedNumElements(header->shape);
  if (!count.ok())
    return npyError(
        absl::StrCat("invalid shape: ", std::string(count.status().message())));
  int64_t dataBytes;
  if (__builtin_mul_overflow(*count, static_cast<int64_t>(type->itemSize),
                             &dataBytes))
    return npyError(absl::StrCat("invalid shape ", shapeRepr(header->shape),
                                 ": data size overflows int64"));
  size_t dataStart = headerStart + headerLength;
  size_t available = bytes.size() - dataStart;
  if (static_cast<uint64_t>(dataBytes) > available)
    return npyError(absl::StrCat("truncated data: shape ",
                                 shapeRepr(header->shape), " of ",
                                 header->descr, " needs ", dataBytes,
                                 " bytes but only ", available, " remain"));

  tgc::StatusOr<HostTensor> tensor =
      HostTensor::allocate(type->dtype, header->shape);
  if (!tensor.ok())
    return tensor.status();
  auto *dest = static_cast<uint8_t *>(tensor->data());
  const auto *source =
      reinterpret_cast<const uint8_t *>(bytes.data() + dataStart);
  if (dataBytes != 0) {
    if (header->fortranOrder && header->shape.size() > 1)
      transposeFromFortran(source, dest, header->shape, *count, type->itemSize);
    else
      std::memcpy(dest, source, static_cast<size_t>(dataBytes));
  }
  if (type->itemSize > 1 && type->bigEndian != kHostIsBigEndian)
    byteSwapElements(dest, *count, type->itemSize);
  if (type->dtype == DType::I1)
    for (int64_t i = 0; i < *count; ++i)
      dest[i] = dest[i] != 0 ? 1 : 0;
  return tensor;
}

tgc::StatusOr<HostTensor> tgc::runtime::readNpy(const std::string &path) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return fileError("open", path, errno);
  std::string contents;
  char buffer[1 << 16];
  size_t read;
  while ((read = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    contents.append(buffer, read);
  bool failed = std::ferror(file) != 0;
  int error = errno;
  std::fclose(file);
  if (failed)
    return fileError("read", path, error);
  tgc::StatusOr<HostTensor> tensor = parseNpy(contents);
  if (!tensor.ok())
    return tgc::Status(
        tensor.status().code(),
        absl::StrCat(path, ": ", std::string(tensor.status().message())));
  return tensor;
}

tgc::StatusOr<std::string>
tgc::runtime::serializeNpy(const HostTensor &tensor) {
  const std::vector<int64_t> &shape = tensor.shape();
  std::string dict = absl::StrCat(
      "{'descr': '", sv(npyDescr(tensor.dtype())),
      "', 'fortran_order': False, 'shape': ", shapeRepr(shape), ", }");
  // numpy leaves room to grow the first axis in place.
  if (!shape.empty()) {
    size_t digits = absl::StrCat(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits)
      dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  size_t lengthWidth = 2;
  size_t headerLength = dict.size() + 1; // With the final '\n'.
  size_t padding =
      kArrayAlign -
      (kMagic.size() + 2 + lengthWidth + headerLength) % kArrayAlign;
  if (headerLength + padding > std::numeric_limits<uint16_t>::max()) {
    lengthWidth = 4;
    padding = kArrayAlign -
              (kMagic.size() + 2 + lengthWidth + headerLength) % kArrayAlign;
    if (headerLength + padding > std::numeric_limits<uint32_t>::max())
      return npyError("header too long");
  }

  const bool upcastBF16 = tensor.dtype() == DType::BF16;
  const size_t itemSize = upcastBF16 ? 4 : dtypeSize(tensor.dtype());
  const int64_t count = tensor.numElements();
  std::string result;
  size_t dataStart = kMagic.size() + 2 + lengthWidth + headerLength + padding;
  result.reserve(dataStart + static_cast<size_t>(count) * itemSize);
  result.append(kMagic);
  result.push_back(lengthWidth == 2 ? 1 : 2);
  result.push_back(0);
  uint32_t totalHeader = static_cast<uint32_t>(headerLength + padding);
  for (size_t i = 0; i < lengthWidth; ++i)
    result.push_back(static_cast<char>((totalHeader >> (8 * i)) & 0xff));
  result += dict;
  result.append(padding, ' ');
  result.push_back('\n');

  size_t dataOffset = result.size();
  result.resize(dataOffset + static_cast<size_t>(count) * itemSize);
  auto *dest = reinterpret_cast<uint8_t *>(result.data() + dataOffset);
  if (upcastBF16) {
    for (int64_t i = 0; i < count; ++i) {
      float value = static_cast<float>(tensor.getDouble(i));
      std::memcpy(dest + static_cast<size_t>(i) * 4, &value, 4);
    }
  } else if (count != 0) {
    std::memcpy(dest, tensor.data(), tensor.byteSize());
  }
  if (kHostIsBigEndian && itemSize > 1)
    byteSwapElements(dest, count, itemSize);
  return result;
}

tgc::Status tgc::runtime::writeNpy(const std::string &path,
                                   const HostTensor &tensor) {
  tgc::StatusOr<std::string> bytes = serializeNpy(tensor);
  if (!bytes.ok())
    return bytes.status();
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return fileError("open", path, errno);
  size_t written = std::fwrite(bytes->data(), 1, bytes->size(), file);
  int error = errno;
  if (written != bytes->size()) {
    std::fclose(file);
    return fileError("write", path, error);
  }
  if (std::fclose(file) != 0)
    return fileError("write", path, errno);
  return absl::OkStatus();
}
