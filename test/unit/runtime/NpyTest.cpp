//===- NpyTest.cpp - tests for runtime/Npy.h ------------------------------===//

#include "tgc/Npy.h"
#include "tgc/AbslStatus.h"

#include "runtime/Float16.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

using namespace tgc::runtime;
using ::testing::HasSubstr;

namespace {

/// Builds npy bytes by hand: magic, version, header length, header, data.
/// The header is used verbatim (no padding is added).
std::string makeNpy(int major, std::string_view header,
                    std::string_view data = {}) {
  std::string bytes = "\x93NUMPY";
  bytes.push_back(static_cast<char>(major));
  bytes.push_back(0);
  size_t width = major == 1 ? 2 : 4;
  for (size_t i = 0; i < width; ++i)
    bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  bytes.append(header);
  bytes.append(data);
  return bytes;
}

template <typename T> std::string rawBytes(std::initializer_list<T> values) {
  std::string bytes;
  for (T value : values) {
    char buffer[sizeof(T)];
    std::memcpy(buffer, &value, sizeof(T));
    bytes.append(buffer, sizeof(T));
  }
  return bytes;
}

template <typename T>
std::string bigEndianBytes(std::initializer_list<T> values) {
  std::string bytes;
  for (T value : values) {
    char buffer[sizeof(T)];
    std::memcpy(buffer, &value, sizeof(T));
    for (size_t i = sizeof(T); i-- > 0;)
      bytes.push_back(buffer[i]);
  }
  return bytes;
}

std::string header(std::string_view descr, std::string_view shape,
                   bool fortran = false) {
  std::string result = "{'descr': '";
  result += descr;
  result += "', 'fortran_order': ";
  result += fortran ? "True" : "False";
  result += ", 'shape': ";
  result += shape;
  result += ", }\n";
  return result;
}

HostTensor parseOk(std::string_view bytes) {
  absl::StatusOr<HostTensor> tensor = parseNpy(bytes);
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return tensor.ok() ? *std::move(tensor) : HostTensor();
}

/// Fills `tensor` with distinct values that every dtype represents exactly.
void fillPattern(HostTensor &tensor) {
  for (int64_t i = 0; i < tensor.numElements(); ++i) {
    if (tensor.dtype() == DType::I1)
      tensor.setInt(i, (i * 7 + 3) % 3 == 0);
    else if (isFloatDType(tensor.dtype()))
      tensor.setDouble(i, (i % 2 ? -0.5 : 0.25) * static_cast<double>(i % 97));
    else
      tensor.setInt(i, (i * 37) % 255 - 127);
  }
}

void expectError(std::string_view bytes, std::string_view word) {
  absl::StatusOr<HostTensor> tensor = parseNpy(bytes);
  ASSERT_FALSE(tensor.ok()) << "parsed " << tensor->describe();
  EXPECT_EQ(tensor.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(tensor.status().message()), HasSubstr(word));
}

std::string tempPath(std::string_view name) {
  return ::testing::TempDir() + "/tgc-npy-test-" + std::string(name) + ".npy";
}

TEST(NpyTest, RoundTripEveryDTypeAndRank) {
  const std::vector<std::vector<int64_t>> shapes = {
      {},           {1},          {5},          {0},
      {2, 3},       {3, 0},       {4, 1, 3},    {2, 0, 2},
      {2, 3, 4, 5}, {1, 1, 1, 1}, {0, 2, 3, 4}, {3, 2, 1, 2}};
  for (DType dtype : kAllDTypes) {
    for (const std::vector<int64_t> &shape : shapes) {
      absl::StatusOr<HostTensor> tensor = HostTensor::allocate(dtype, shape);
      ASSERT_TRUE(tensor.ok());
      fillPattern(*tensor);
      absl::StatusOr<std::string> bytes = serializeNpy(*tensor);
      ASSERT_TRUE(bytes.ok()) << bytes.status();
      absl::StatusOr<HostTensor> back = parseNpy(*bytes);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->shape(), shape) << tensor->describe();
      if (dtype == DType::BF16) {
        // No bf16 in numpy: written as an exact f32 upcast.
        ASSERT_EQ(back->dtype(), DType::F32);
        for (int64_t i = 0; i < tensor->numElements(); ++i)
          EXPECT_EQ(back->getDouble(i), tensor->getDouble(i));
      } else {
        ASSERT_EQ(back->dtype(), dtype);
        EXPECT_TRUE(allClose(*back, *tensor, 0, 0).ok()) << tensor->describe();
        EXPECT_EQ(std::memcmp(back->data(), tensor->data(), tensor->byteSize()),
                  0);
      }
    }
  }
}

TEST(NpyTest, RoundTripSpecialFloats) {
  absl::StatusOr<HostTensor> tensor = HostTensor::allocate(DType::F16, {5});
  ASSERT_TRUE(tensor.ok());
  const uint16_t halves[] = {0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8000};
  std::memcpy(tensor->data(), halves, sizeof(halves));
  absl::StatusOr<HostTensor> back = parseNpy(*serializeNpy(*tensor));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::memcmp(back->data(), halves, sizeof(halves)), 0);
}

TEST(NpyTest, SerializeMatchesNumpyLayout) {
  absl::StatusOr<HostTensor> tensor = HostTensor::allocate(DType::F32, {2, 3});
  ASSERT_TRUE(tensor.ok());
  for (int64_t i = 0; i < 6; ++i)
    tensor->setDouble(i, static_cast<double>(i));
  absl::StatusOr<std::string> bytes = serializeNpy(*tensor);
  ASSERT_TRUE(bytes.ok());
  // What numpy.save writes for np.arange(6, dtype='<f4').reshape(2, 3).
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string expectedHeader =
      dict + std::string(128 - 10 - 1 - dict.size(), ' ') + "\n";
  ASSERT_EQ(bytes->size(), 128u + 24u);
  EXPECT_EQ(bytes->substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(static_cast<unsigned char>((*bytes)[8]), 118);
  EXPECT_EQ((*bytes)[9], 0);
  EXPECT_EQ(bytes->substr(10, 118), expectedHeader);
  EXPECT_EQ(bytes->substr(128), rawBytes<float>({0, 1, 2, 3, 4, 5}));
}

TEST(NpyTest, SerializeHeaderFormatForAllShapes) {
  const std::pair<std::vector<int64_t>, std::string> cases[] = {
      {{}, "()"},
      {{7}, "(7,)"},
      {{2, 3}, "(2, 3)"},
      {{0, 12345678901}, "(0, 12345678901)"},
      {{1, 2, 3, 4}, "(1, 2, 3, 4)"}};
  for (const auto &[shape, repr] : cases) {
    absl::StatusOr<HostTensor> tensor =
        HostTensor::borrow(DType::I64, shape, nullptr);
    if (!tensor.ok()) {
      // Non-empty shapes need data; allocate those.
      tensor = HostTensor::allocate(DType::I64, shape);
      ASSERT_TRUE(tensor.ok());
    }
    absl::StatusOr<std::string> bytes = serializeNpy(*tensor);
    ASSERT_TRUE(bytes.ok());
    size_t headerLength = static_cast<unsigned char>((*bytes)[8]) |
                          static_cast<unsigned char>((*bytes)[9]) << 8;
    EXPECT_EQ((10 + headerLength) % 64, 0u) << repr;
    EXPECT_EQ((*bytes)[10 + headerLength - 1], '\n') << repr;
    std::string headerText = bytes->substr(10, headerLength);
    EXPECT_THAT(headerText,
                HasSubstr("{'descr': '<i8', 'fortran_order': False, 'shape': " +
                          repr + ", }"));
    EXPECT_EQ(bytes->size(),
              10 + headerLength + static_cast<size_t>(tensor->byteSize()));
  }
}

TEST(NpyTest, SerializeDescrs) {
  const std::pair<DType, std::string> cases[] = {
      {DType::F32, "'<f4'"}, {DType::F16, "'<f2'"}, {DType::BF16, "'<f4'"},
      {DType::F64, "'<f8'"}, {DType::I1, "'|b1'"},  {DType::I8, "'|i1'"},
      {DType::I32, "'<i4'"}, {DType::I64, "'<i8'"}};
  for (const auto &[dtype, descr] : cases) {
    absl::StatusOr<HostTensor> tensor = HostTensor::allocate(dtype, {3});
    ASSERT_TRUE(tensor.ok());
    absl::StatusOr<std::string> bytes = serializeNpy(*tensor);
    ASSERT_TRUE(bytes.ok());
    EXPECT_THAT(*bytes, HasSubstr("'descr': " + descr)) << dtypeName(dtype);
  }
}

TEST(NpyTest, ParseVersion1) {
  HostTensor tensor = parseOk(
      makeNpy(1, header("<f4", "(3,)"), rawBytes<float>({1.5f, -2, 3})));
  EXPECT_EQ(tensor.dtype(), DType::F32);
  EXPECT_EQ(tensor.shape(), std::vector<int64_t>{3});
  EXPECT_EQ(tensor.getDouble(0), 1.5);
  EXPECT_EQ(tensor.getDouble(1), -2.0);
  EXPECT_EQ(tensor.getDouble(2), 3.0);
}

TEST(NpyTest, ParseVersion2And3) {
  HostTensor v2 = parseOk(
      makeNpy(2, header("<i8", "(2, 1)"), rawBytes<int64_t>({-5, 1LL << 40})));
  EXPECT_EQ(v2.dtype(), DType::I64);
  EXPECT_EQ(v2.shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(v2.getInt(0), -5);
  EXPECT_EQ(v2.getInt(1), 1LL << 40);

  HostTensor v3 =
      parseOk(makeNpy(3, header("<f8", "()"), rawBytes<double>({0.1})));
  EXPECT_EQ(v3.dtype(), DType::F64);
  EXPECT_EQ(v3.rank(), 0);
  EXPECT_EQ(v3.getDouble(0), 0.1);
}

TEST(NpyTest, ParseNarrowAndUnsignedIntegers) {
  HostTensor u1 =
      parseOk(makeNpy(1, header("|u1", "(2,)"), rawBytes<uint8_t>({255, 7})));
  EXPECT_EQ(u1.dtype(), DType::UI8);
  EXPECT_EQ(u1.getInt(0), 255);
  HostTensor i2 =
      parseOk(makeNpy(1, header("<i2", "(2,)"), rawBytes<int16_t>({-2, 300})));
  EXPECT_EQ(i2.dtype(), DType::I16);
  EXPECT_EQ(i2.getInt(0), -2);
  EXPECT_EQ(i2.getInt(1), 300);
  HostTensor u2 = parseOk(
      makeNpy(1, header(">u2", "(1,)"), bigEndianBytes<uint16_t>({65535})));
  EXPECT_EQ(u2.dtype(), DType::UI16);
  EXPECT_EQ(u2.getInt(0), 65535);
  HostTensor u4 = parseOk(
      makeNpy(1, header("<u4", "(1,)"), rawBytes<uint32_t>({4000000000u})));
  EXPECT_EQ(u4.dtype(), DType::UI32);
  EXPECT_EQ(u4.getInt(0), 4000000000);
  HostTensor u8 = parseOk(
      makeNpy(1, header("<u8", "(1,)"), rawBytes<uint64_t>({~uint64_t(0)})));
  EXPECT_EQ(u8.dtype(), DType::UI64);
  EXPECT_EQ(u8.getUInt(0), ~uint64_t(0));

  // Written with numpy's descrs.
  for (auto [dtype, descr] :
       {std::pair(DType::UI8, "'|u1'"), std::pair(DType::I16, "'<i2'"),
        std::pair(DType::UI16, "'<u2'"), std::pair(DType::UI32, "'<u4'"),
        std::pair(DType::UI64, "'<u8'")}) {
    absl::StatusOr<HostTensor> t = HostTensor::allocate(dtype, {1});
    ASSERT_TRUE(t.ok());
    absl::StatusOr<std::string> bytes = serializeNpy(*t);
    ASSERT_TRUE(bytes.ok());
    EXPECT_THAT(*bytes, HasSubstr(descr));
  }
}

TEST(NpyTest, ParseBigEndian) {
  HostTensor f4 = parseOk(
      makeNpy(1, header(">f4", "(2,)"), bigEndianBytes<float>({1.5f, -3})));
  EXPECT_EQ(f4.dtype(), DType::F32);
  EXPECT_EQ(f4.getDouble(0), 1.5);
  EXPECT_EQ(f4.getDouble(1), -3.0);

  HostTensor f8 =
      parseOk(makeNpy(1, header(">f8", "(1,)"), bigEndianBytes<double>({0.1})));
  EXPECT_EQ(f8.getDouble(0), 0.1);

  HostTensor f2 = parseOk(makeNpy(1, header(">f2", "(2,)"),
                                  bigEndianBytes<uint16_t>({0x3c00, 0xc000})));
  EXPECT_EQ(f2.dtype(), DType::F16);
  EXPECT_EQ(f2.getDouble(0), 1.0);
  EXPECT_EQ(f2.getDouble(1), -2.0);

  HostTensor i4 = parseOk(makeNpy(1, header(">i4", "(2,)"),
                                  bigEndianBytes<int32_t>({-2, 0x01020304})));
  EXPECT_EQ(i4.getInt(0), -2);
  EXPECT_EQ(i4.getInt(1), 0x01020304);

  HostTensor i8 = parseOk(makeNpy(1, header(">i8", "(1,)"),
                                  bigEndianBytes<int64_t>({-(1LL << 50)})));
  EXPECT_EQ(i8.getInt(0), -(1LL << 50));

  HostTensor b1 =
      parseOk(makeNpy(1, header(">b1", "(2,)"), std::string("\x01\x00", 2)));
  EXPECT_EQ(b1.dtype(), DType::I1);
  EXPECT_EQ(b1.getInt(0), 1);
}

TEST(NpyTest, ParseOneByteAndNativeOrders) {
  for (const char *descr : {"|i1", "<i1", "=i1", ">i1"}) {
    HostTensor tensor =
        parseOk(makeNpy(1, header(descr, "(2,)"), std::string("\xff\x7f", 2)));
    EXPECT_EQ(tensor.dtype(), DType::I8) << descr;
    EXPECT_EQ(tensor.getInt(0), -1) << descr;
    EXPECT_EQ(tensor.getInt(1), 127) << descr;
  }
  for (const char *descr : {"|b1", "<b1", "=b1"}) {
    // Non-0/1 bool bytes are normalized to 1.
    HostTensor tensor = parseOk(
        makeNpy(1, header(descr, "(3,)"), std::string("\x00\x01\x02", 3)));
    EXPECT_EQ(tensor.dtype(), DType::I1) << descr;
    EXPECT_EQ(tensor.dataAs<uint8_t>()[0], 0) << descr;
    EXPECT_EQ(tensor.dataAs<uint8_t>()[1], 1) << descr;
    EXPECT_EQ(tensor.dataAs<uint8_t>()[2], 1) << descr;
  }
  HostTensor native =
      parseOk(makeNpy(1, header("=i4", "(1,)"), rawBytes<int32_t>({123456})));
  EXPECT_EQ(native.getInt(0), 123456);
  HostTensor half =
      parseOk(makeNpy(1, header("<f2", "(1,)"), rawBytes<uint16_t>({0x3555})));
  EXPECT_EQ(half.dtype(), DType::F16);
  EXPECT_EQ(half.getDouble(0), 0.333251953125);
}

TEST(NpyTest, ParseFortranOrder) {
  // Column-major data of [[0, 1, 2], [3, 4, 5]].
  HostTensor matrix =
      parseOk(makeNpy(1, header("<i4", "(2, 3)", /*fortran=*/true),
                      rawBytes<int32_t>({0, 3, 1, 4, 2, 5})));
  EXPECT_EQ(matrix.shape(), (std::vector<int64_t>{2, 3}));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(matrix.getInt(i), i);

  // Rank 3, big-endian: element (i, j, k) holds 100i + 10j + k.
  std::string data;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i)
        data += bigEndianBytes<double>({100.0 * i + 10.0 * j + k});
  HostTensor cube = parseOk(makeNpy(1, header(">f8", "(2, 3, 4)", true), data));
  ASSERT_EQ(cube.numElements(), 24);
  for (int64_t flat = 0; flat < 24; ++flat) {
    std::vector<int64_t> index = cube.unflattenIndex(flat);
    EXPECT_EQ(cube.getDouble(flat),
              100.0 * index[0] + 10.0 * index[1] + index[2]);
  }

  // Rank 0 and 1 are the same in either order; zero-size works.
  HostTensor vector = parseOk(
      makeNpy(1, header("<f4", "(3,)", true), rawBytes<float>({1, 2, 3})));
  EXPECT_EQ(vector.getDouble(2), 3.0);
  HostTensor empty = parseOk(makeNpy(1, header("<f4", "(0, 3)", true)));
  EXPECT_EQ(empty.numElements(), 0);
}

TEST(NpyTest, ParseHeaderVariants) {
  const std::string data = rawBytes<int32_t>({1, 2, 3, 4, 5, 6});
  const char *headers[] = {
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)}",
      "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2, 3)}",
      "{'shape': (2, 3), 'fortran_order': False, 'descr': '<i4'}",
      "  {'descr':'<i4','fortran_order':False,'shape':(2,3,)}   \n",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }\n",
      "{\n'descr' : '<i4' ,\n'fortran_order' : False,\n'shape' : ( 2 , 3 ) ,}",
  };
  for (const char *text : headers) {
    HostTensor tensor = parseOk(makeNpy(1, text, data));
    EXPECT_EQ(tensor.shape(), (std::vector<int64_t>{2, 3})) << text;
    EXPECT_EQ(tensor.getInt(5), 6) << text;
  }
  HostTensor scalar = parseOk(makeNpy(1, header("<i4", "()"), data));
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.getInt(0), 1);
  HostTensor single = parseOk(makeNpy(1, header("<i4", "(3,)"), data));
  EXPECT_EQ(single.shape(), std::vector<int64_t>{3});
  // Trailing bytes after the data are ignored.
  HostTensor trailing =
      parseOk(makeNpy(1, header("<i4", "(1,)"), data + "garbage"));
  EXPECT_EQ(trailing.getInt(0), 1);
}

TEST(NpyTest, RejectsBadMagicAndVersion) {
  expectError("", "magic");
  expectError("\x93NUMP", "magic");
  expectError("\x93NUMPX\x01\x00", "magic");
  expectError(std::string("PK\x03\x04", 4) + "zip file contents", "magic");
  expectError("\x93NUMPY", "version");
  expectError("\x93NUMPY\x01", "version");
  expectError(std::string("\x93NUMPY\x04\x00\x10\x00", 10), "version");
  expectError(std::string("\x93NUMPY\x01\x01\x10\x00", 10), "version");
  expectError(std::string("\x93NUMPY\x00\x00\x10\x00", 10), "version");
}

TEST(NpyTest, RejectsTruncatedHeader) {
  expectError(std::string("\x93NUMPY\x01\x00", 8), "truncated");
  expectError(std::string("\x93NUMPY\x01\x00\x10", 9), "truncated");
  expectError(std::string("\x93NUMPY\x02\x00\x10\x00\x00", 11), "truncated");
  std::string full = makeNpy(1, header("<f4", "(1,)"), rawBytes<float>({1}));
  // Cut inside the header.
  expectError(full.substr(0, 30), "truncated");
  // A header length that points past the end.
  std::string bytes = makeNpy(2, header("<f4", "(1,)"));
  bytes[10] = '\x7f'; // Length byte 2 of 4: 8 MB.
  expectError(bytes, "truncated");
}

TEST(NpyTest, RejectsInvalidHeaderDict) {
  expectError(makeNpy(1, "[1, 2, 3]"), "dict");
  expectError(makeNpy(1, ""), "dict");
  expectError(makeNpy(1, "{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (1,)"),
              "header");
  expectError(makeNpy(1, "{'descr' '<f4'}"), "':'");
  expectError(makeNpy(1, "{descr: '<f4'}"), "string");
  expectError(makeNpy(1, "{'descr: '<f4'}"), "header");
  expectError(makeNpy(1, "{'descr': '<f4"), "unterminated");
  expectError(makeNpy(1, "{'descr': '<f4' 'shape': (1,)}"), "header");
  expectError(makeNpy(1, header("<f4", "(1,)") + "x"), "after the dict");
  expectError(makeNpy(1, "{'descr': '<f4', 'descr': '<f4', "
                         "'fortran_order': False, 'shape': ()}"),
              "duplicate");
  expectError(makeNpy(1, "{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (), 'extra': 1}"),
              "unexpected key");
  expectError(makeNpy(1, std::string("{'descr': '<f4'\0}", 17)), "header");
}

TEST(NpyTest, RejectsMissingKeys) {
  expectError(makeNpy(1, "{'fortran_order': False, 'shape': (1,)}"), "'descr'");
  expectError(makeNpy(1, "{'descr': '<f4', 'shape': (1,)}"), "'fortran_order'");
  expectError(makeNpy(1, "{'descr': '<f4', 'fortran_order': False}"),
              "'shape'");
  expectError(makeNpy(1, "{}"), "missing");
}

TEST(NpyTest, RejectsBadValues) {
  expectError(
      makeNpy(1, header("<f4", "(1,)")
                     .replace(header("<f4", "(1,)").find("False"), 5, "maybe")),
      "fortran_order");
  expectError(makeNpy(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}"),
              "fortran_order");
  expectError(makeNpy(1, header("<f4", "[2, 3]")), "shape");
  expectError(makeNpy(1, header("<f4", "2")), "shape");
  expectError(makeNpy(1, header("<f4", "(2, x)")), "shape");
  expectError(makeNpy(1, header("<f4", "(2,,)")), "shape");
  expectError(makeNpy(1, header("<f4", "(2 3)")), "shape");
  expectError(makeNpy(1, header("<f4", "(2.5,)")), "shape");
  expectError(makeNpy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, "
                         "'shape': (1,)}"),
              "structured");
  expectError(makeNpy(1, "{'descr': 4, 'fortran_order': False, "
                         "'shape': (1,)}"),
              "string");
}

TEST(NpyTest, RejectsUnknownDescrs) {
  const std::pair<const char *, const char *> cases[] = {
      {"<u16", "descr"},     {"<i16", "descr"},
      {"|u2", "'|'"},        {"<i3", "descr"},
      {"<c8", "descr"},      {"<f16", "descr"},
      {"|f4", "'|'"},        {"f4", "descr"},
      {"", "descr"},         {"<f", "descr"},
      {"<fx", "descr"},      {"|S10", "descr"},
      {"<M8[ns]", "descr"},  {"O", "descr"},
      {"!f4", "byte order"}, {"<f99999999999999999999", "descr"}};
  for (const auto &[descr, word] : cases)
    expectError(makeNpy(1, header(descr, "(1,)"), std::string(64, '\0')), word);
}

TEST(NpyTest, RejectsBadShapes) {
  expectError(makeNpy(1, header("<f4", "(-1,)")), "negative");
  expectError(makeNpy(1, header("<f4", "(2, -3)")), "negative");
  // Element count overflow.
  expectError(makeNpy(1, header("<f4", "(4294967296, 4294967296)")),
              "overflow");
  // Byte size overflow (count fits int64).
  expectError(makeNpy(1, header("<f8", "(2305843009213693952,)")), "overflow");
  // A single dim that does not fit int64.
  expectError(makeNpy(1, header("<f4", "(9223372036854775808,)")), "overflow");
  expectError(makeNpy(1, header("<f4", "(99999999999999999999999,)")),
              "overflow");
  // A huge but representable shape with no data is truncated, not allocated.
  expectError(makeNpy(1, header("<i1", "(9223372036854775807,)")), "truncated");
}

TEST(NpyTest, RejectsShortData) {
  expectError(makeNpy(1, header("<f4", "(3,)"), rawBytes<float>({1, 2})),
              "truncated data");
  expectError(makeNpy(1, header("<f8", "()")), "truncated data");
  expectError(makeNpy(1, header("<i4", "(2, 2)"), std::string(15, '\0')),
              "needs 16 bytes");
}

TEST(NpyTest, NeverCrashesOnTruncationOrCorruption) {
  absl::StatusOr<HostTensor> tensor = HostTensor::allocate(DType::F32, {3, 4});
  ASSERT_TRUE(tensor.ok());
  fillPattern(*tensor);
  std::string bytes = *serializeNpy(*tensor);
  for (size_t length = 0; length < bytes.size(); ++length)
    EXPECT_FALSE(parseNpy(std::string_view(bytes).substr(0, length)).ok())
        << length;
  EXPECT_TRUE(parseNpy(bytes).ok());

  // Random corruption of the header must never crash; results are either an
  // error or a well-formed tensor backed by enough data.
  std::mt19937 random(1234);
  for (int trial = 0; trial < 5000; ++trial) {
    std::string corrupt = bytes;
    int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = random() % 128;
      const char alphabet[] = "(),:'\"{} -0123456789<>|=fibuTrueFals\n\x00\xff";
      corrupt[at] = alphabet[random() % (sizeof(alphabet) - 1)];
    }
    absl::StatusOr<HostTensor> parsed = parseNpy(corrupt);
    if (parsed.ok()) {
      EXPECT_LE(parsed->byteSize(), corrupt.size());
    }
  }
}

TEST(NpyTest, ReadAndWriteFiles) {
  absl::StatusOr<HostTensor> tensor = HostTensor::allocate(DType::F64, {2, 2});
  ASSERT_TRUE(tensor.ok());
  fillPattern(*tensor);
  std::string path = tempPath("roundtrip");
  ASSERT_TRUE(writeNpy(path, *tensor).ok());
  absl::StatusOr<HostTensor> back = readNpy(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(allClose(*back, *tensor, 0, 0).ok());

  absl::StatusOr<HostTensor> bf16 = HostTensor::allocate(DType::BF16, {3});
  ASSERT_TRUE(bf16.ok());
  bf16->setDouble(0, 1.5);
  bf16->setDouble(1, -std::numeric_limits<double>::infinity());
  bf16->setDouble(2, 3.0e38);
  ASSERT_TRUE(writeNpy(path, *bf16).ok());
  back = readNpy(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->dtype(), DType::F32);
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_EQ(back->getDouble(i), bf16->getDouble(i));
  std::remove(path.c_str());
}

TEST(NpyTest, FileErrors) {
  absl::StatusOr<HostTensor> missing = readNpy(tempPath("does-not-exist"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("does-not-exist"));

  HostTensor tensor;
  absl::Status status = writeNpy("/nonexistent-dir/tgc/x.npy", tensor);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("x.npy"));

  absl::StatusOr<HostTensor> directory = readNpy(::testing::TempDir());
  EXPECT_FALSE(directory.ok());

  // A malformed file names the path and the problem.
  std::string path = tempPath("malformed");
  std::FILE *file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fputs("not an npy file", file);
  std::fclose(file);
  absl::StatusOr<HostTensor> malformed = readNpy(path);
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(malformed.status().message()), HasSubstr("magic"));
  EXPECT_THAT(std::string(malformed.status().message()), HasSubstr(path));
  std::remove(path.c_str());
}

} // namespace
