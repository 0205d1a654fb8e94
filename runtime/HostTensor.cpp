//===- HostTensor.cpp - a dense tensor in host memory ---------------------===//

#include "tgc/HostTensor.h"
#include "tgc/AbslStatus.h"

#include "runtime/Float16.h"
#include "runtime/Shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

using namespace tgc::runtime;

namespace {

constexpr size_t kAlignment = 64;

/// absl::StrCat takes absl::string_view, which is not std::string_view here.
absl::string_view sv(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

std::string shapeString(const std::vector<int64_t> &shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

template <typename T> T load(const void *base, int64_t i) {
  T value;
  std::memcpy(&value, static_cast<const uint8_t *>(base) + i * sizeof(T),
              sizeof(T));
  return value;
}

template <typename T> void store(void *base, int64_t i, T value) {
  std::memcpy(static_cast<uint8_t *>(base) + i * sizeof(T), &value, sizeof(T));
}

/// Truncates toward zero and saturates to [lo, hi]; NaN gives 0.
int64_t saturatingTruncate(double v, int64_t lo, int64_t hi) {
  if (std::isnan(v))
    return 0;
  // 2^63 is exactly representable; every double below it in magnitude
  // truncates to a value that fits int64.
  constexpr double kTwo63 = 9223372036854775808.0;
  int64_t result;
  if (v >= kTwo63)
    result = std::numeric_limits<int64_t>::max();
  else if (v < -kTwo63)
    result = std::numeric_limits<int64_t>::min();
  else
    result = static_cast<int64_t>(v);
  return result < lo ? lo : (result > hi ? hi : result);
}

/// Truncates toward zero and saturates to [0, 2^64 - 1]; NaN gives 0.
uint64_t saturatingTruncateUnsigned(double v) {
  if (std::isnan(v) || v <= 0)
    return 0;
  constexpr double kTwo64 = 18446744073709551616.0;
  if (v >= kTwo64)
    return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(v);
}

/// Saturates `v` (already truncated) to the unsigned range of `bits` bits.
uint64_t saturateUnsigned(uint64_t v, unsigned bits) {
  uint64_t hi = bits >= 64 ? std::numeric_limits<uint64_t>::max()
                           : (uint64_t(1) << bits) - 1;
  return v > hi ? hi : v;
}

/// Like intToDoubleForNarrowing, for an unsigned value.
double uintToDoubleForNarrowing(uint64_t magnitude) {
  if (magnitude <= (uint64_t(1) << 53))
    return static_cast<double>(magnitude);
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t(1) << 53))
    ++shift;
  uint64_t top = magnitude >> shift;
  if ((magnitude & ((uint64_t(1) << shift) - 1)) != 0)
    top |= 1;
  return std::ldexp(static_cast<double>(top), shift);
}

/// Converts an int64 to a double that rounds to any format with at most 24
/// significand bits exactly like `v` itself would: exact for |v| <= 2^53,
/// otherwise the bits lost are folded into a sticky bit far below the
/// rounding point of those formats.
double intToDoubleForNarrowing(int64_t v) {
  uint64_t magnitude =
      v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  if (magnitude <= (uint64_t(1) << 53))
    return static_cast<double>(v);
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t(1) << 53))
    ++shift;
  uint64_t top = magnitude >> shift;
  if ((magnitude & ((uint64_t(1) << shift) - 1)) != 0)
    top |= 1;
  double result = std::ldexp(static_cast<double>(top), shift);
  return v < 0 ? -result : result;
}

/// kAlignment-aligned memory for `bytes` bytes (at least one alignment
/// unit), zero-filled when `zeroFill`, to be released with std::free; null on
/// failure.
void *allocateStorage(uint64_t bytes, bool zeroFill = true) {
  if (bytes > std::numeric_limits<size_t>::max() - kAlignment)
    return nullptr;
  size_t rounded =
      static_cast<size_t>((bytes + kAlignment - 1) / kAlignment * kAlignment);
  if (rounded == 0)
    rounded = kAlignment;
  void *memory = std::aligned_alloc(kAlignment, rounded);
  if (memory && zeroFill)
    std::memset(memory, 0, rounded);
  return memory;
}

/// |a - b| of two unsigned values.
double uintDistance(uint64_t a, uint64_t b) {
  return static_cast<double>(a >= b ? a - b : b - a);
}

/// |a - b| without intermediate overflow or loss of the difference.
double intDistance(int64_t a, int64_t b) {
  uint64_t distance = a >= b
                          ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
                          : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
  return static_cast<double>(distance);
}

/// Shortest round-trip text of `v`.
template <typename T> std::string formatShortest(T v) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
  if (ec != std::errc())
    return "?";
  return std::string(buffer, end);
}

std::string formatDouble(double v) { return formatShortest(v); }

/// An element value as text: shortest float text for the narrow float types
/// (all their values are floats), full double text for f64.
std::string formatElement(DType dtype, double v) {
  if (dtype == DType::F64)
    return formatShortest(v);
  return formatShortest(static_cast<float>(v));
}

} // namespace

HostTensor::HostTensor() {
  void *memory = allocateStorage(dtypeSize(elementType));
  if (!memory)
    throw std::bad_alloc();
  storage.reset(memory, std::free);
  dataPtr = memory;
}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape,
                       int64_t elementCount, std::shared_ptr<void> ownedStorage,
                       void *data)
    : elementType(dtype), dims(std::move(shape)), count(elementCount),
      storage(std::move(ownedStorage)), dataPtr(data) {}

tgc::StatusOr<int64_t>
HostTensor::checkedNumElements(const std::vector<int64_t> &shape) {
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("negative dimension ", shape[i], " at index ", i,
                       " of shape ", shapeString(shape)));
  int64_t product = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    if (d == 0)
      return 0; // Zero elements, whatever the other dims are.
    if (!overflow && __builtin_mul_overflow(product, d, &product))
      overflow = true;
  }
  if (overflow)
    return absl::InvalidArgumentError(absl::StrCat(
        "element count of shape ", shapeString(shape), " overflows int64"));
  return product;
}

static tgc::StatusOr<int64_t> checkShape(DType dtype,
                                         const std::vector<int64_t> &shape) {
  tgc::StatusOr<int64_t> count = HostTensor::checkedNumElements(shape);
  if (!count.ok())
    return count.status();
  int64_t bytes;
  if (__builtin_mul_overflow(*count, static_cast<int64_t>(dtypeSize(dtype)),
                             &bytes))
    return absl::InvalidArgumentError(absl::StrCat(
        "byte size of tensor with shape ", shapeString(shape),
        " and element type ", sv(dtypeName(dtype)), " overflows int64"));
  return count;
}

tgc::StatusOr<HostTensor> HostTensor::allocate(DType dtype,
                                               std::vector<int64_t> shape) {
  tgc::StatusOr<HostTensor> tensor =
      allocateUninitialized(dtype, std::move(shape));
  if (tensor.ok() && tensor->byteSize() != 0)
    std::memset(tensor->data(), 0, tensor->byteSize());
  return tensor;
}

tgc::StatusOr<HostTensor>
HostTensor::allocateUninitialized(DType dtype, std::vector<int64_t> shape) {
  tgc::StatusOr<int64_t> count = checkShape(dtype, shape);
  if (!count.ok())
    return count.status();
  uint64_t bytes = static_cast<uint64_t>(*count) * dtypeSize(dtype);
  void *memory = allocateStorage(bytes, /*zeroFill=*/false);
  if (!memory)
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", bytes, " bytes for a tensor of shape ",
                     shapeString(shape)));
  std::shared_ptr<void> storage(memory, std::free);
  return HostTensor(dtype, std::move(shape), *count, std::move(storage),
                    memory);
}

tgc::StatusOr<HostTensor>
HostTensor::reshapedView(std::vector<int64_t> shape) const {
  tgc::StatusOr<int64_t> newCount = checkShape(elementType, shape);
  if (!newCount.ok())
    return newCount.status();
  if (*newCount != count)
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot view ", describe(), " (", count, " elements) as shape ",
        shapeString(shape), " (", *newCount, " elements)"));
  return HostTensor(elementType, std::move(shape), count, storage, dataPtr);
}

tgc::StatusOr<HostTensor>
HostTensor::borrow(DType dtype, std::vector<int64_t> shape, void *data) {
  tgc::StatusOr<int64_t> count = checkShape(dtype, shape);
  if (!count.ok())
    return count.status();
  if (!data && *count != 0)
    return absl::InvalidArgumentError(
        absl::StrCat("cannot borrow null data for a tensor of shape ",
                     shapeString(shape), " with ", *count, " elements"));
  return HostTensor(dtype, std::move(shape), *count, nullptr, data);
}

double HostTensor::getDouble(int64_t i) const {
  assert(i >= 0 && i < count && "element index out of range");
  switch (elementType) {
  case DType::F32:
    return load<float>(dataPtr, i);
  case DType::F16:
    return halfToFloat(load<uint16_t>(dataPtr, i));
  case DType::BF16:
    return bfloat16ToFloat(load<uint16_t>(dataPtr, i));
  case DType::F64:
    return load<double>(dataPtr, i);
  case DType::I1:
    return load<uint8_t>(dataPtr, i) != 0 ? 1.0 : 0.0;
  case DType::I8:
    return load<int8_t>(dataPtr, i);
  case DType::I32:
    return load<int32_t>(dataPtr, i);
  case DType::I64:
    return static_cast<double>(load<int64_t>(dataPtr, i));
  case DType::I16:
    return load<int16_t>(dataPtr, i);
  case DType::UI8:
    return load<uint8_t>(dataPtr, i);
  case DType::UI16:
    return load<uint16_t>(dataPtr, i);
  case DType::UI32:
    return load<uint32_t>(dataPtr, i);
  case DType::UI64:
    return static_cast<double>(load<uint64_t>(dataPtr, i));
  }
  assert(false && "unknown DType");
  return 0;
}

int64_t HostTensor::getInt(int64_t i) const {
  assert(i >= 0 && i < count && "element index out of range");
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  switch (elementType) {
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::F64:
    return saturatingTruncate(getDouble(i), kMin, kMax);
  case DType::I1:
    return load<uint8_t>(dataPtr, i) != 0 ? 1 : 0;
  case DType::I8:
    return load<int8_t>(dataPtr, i);
  case DType::I32:
    return load<int32_t>(dataPtr, i);
  case DType::I64:
    return load<int64_t>(dataPtr, i);
  case DType::I16:
    return load<int16_t>(dataPtr, i);
  case DType::UI8:
    return load<uint8_t>(dataPtr, i);
  case DType::UI16:
    return load<uint16_t>(dataPtr, i);
  case DType::UI32:
    return load<uint32_t>(dataPtr, i);
  case DType::UI64:
    return static_cast<int64_t>(load<uint64_t>(dataPtr, i));
  }
  assert(false && "unknown DType");
  return 0;
}

uint64_t HostTensor::getUInt(int64_t i) const {
  assert(i >= 0 && i < count && "element index out of range");
  if (isFloatDType(elementType))
    return saturatingTruncateUnsigned(getDouble(i));
  return static_cast<uint64_t>(getInt(i));
}

void HostTensor::setDouble(int64_t i, double v) {
  assert(i >= 0 && i < count && "element index out of range");
  switch (elementType) {
  case DType::F32:
    return store<float>(dataPtr, i, static_cast<float>(v));
  case DType::F16:
    return store<uint16_t>(dataPtr, i, doubleToHalf(v));
  case DType::BF16:
    return store<uint16_t>(dataPtr, i, doubleToBFloat16(v));
  case DType::F64:
    return store<double>(dataPtr, i, v);
  case DType::I1:
    return store<uint8_t>(dataPtr, i, v != 0 ? 1 : 0);
  case DType::I8:
    return store<int8_t>(dataPtr, i,
                         static_cast<int8_t>(saturatingTruncate(v, -128, 127)));
  case DType::I32:
    return store<int32_t>(dataPtr, i,
                          static_cast<int32_t>(saturatingTruncate(
                              v, std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int32_t>::max())));
  case DType::I64:
    return store<int64_t>(
        dataPtr, i,
        saturatingTruncate(v, std::numeric_limits<int64_t>::min(),
                           std::numeric_limits<int64_t>::max()));
  case DType::I16:
    return store<int16_t>(
        dataPtr, i, static_cast<int16_t>(saturatingTruncate(v, -32768, 32767)));
  case DType::UI8:
    return store<uint8_t>(dataPtr, i,
                          static_cast<uint8_t>(saturateUnsigned(
                              saturatingTruncateUnsigned(v), 8)));
  case DType::UI16:
    return store<uint16_t>(dataPtr, i,
                           static_cast<uint16_t>(saturateUnsigned(
                               saturatingTruncateUnsigned(v), 16)));
  case DType::UI32:
    return store<uint32_t>(dataPtr, i,
                           static_cast<uint32_t>(saturateUnsigned(
                               saturatingTruncateUnsigned(v), 32)));
  case DType::UI64:
    return store<uint64_t>(dataPtr, i, saturatingTruncateUnsigned(v));
  }
  assert(false && "unknown DType");
}

void HostTensor::setInt(int64_t i, int64_t v) {
  assert(i >= 0 && i < count && "element index out of range");
  switch (elementType) {
  case DType::F32:
    return store<float>(dataPtr, i, static_cast<float>(v));
  case DType::F16:
    return store<uint16_t>(dataPtr, i,
                           doubleToHalf(intToDoubleForNarrowing(v)));
  case DType::BF16:
    return store<uint16_t>(dataPtr, i,
                           doubleToBFloat16(intToDoubleForNarrowing(v)));
  case DType::F64:
    return store<double>(dataPtr, i, static_cast<double>(v));
  case DType::I1:
    return store<uint8_t>(dataPtr, i, v != 0 ? 1 : 0);
  case DType::I8:
    return store<int8_t>(dataPtr, i, static_cast<int8_t>(v));
  case DType::I32:
    return store<int32_t>(dataPtr, i, static_cast<int32_t>(v));
  case DType::I64:
    return store<int64_t>(dataPtr, i, v);
  case DType::I16:
    return store<int16_t>(dataPtr, i, static_cast<int16_t>(v));
  case DType::UI8:
    return store<uint8_t>(dataPtr, i, static_cast<uint8_t>(v));
  case DType::UI16:
    return store<uint16_t>(dataPtr, i, static_cast<uint16_t>(v));
  case DType::UI32:
    return store<uint32_t>(dataPtr, i, static_cast<uint32_t>(v));
  case DType::UI64:
    return store<uint64_t>(dataPtr, i, static_cast<uint64_t>(v));
  }
  assert(false && "unknown DType");
}

void HostTensor::setUInt(int64_t i, uint64_t v) {
  assert(i >= 0 && i < count && "element index out of range");
  switch (elementType) {
  case DType::F32:
    return store<float>(dataPtr, i, static_cast<float>(v));
  case DType::F16:
    return store<uint16_t>(dataPtr, i,
                           doubleToHalf(uintToDoubleForNarrowing(v)));
  case DType::BF16:
    return store<uint16_t>(dataPtr, i,
                           doubleToBFloat16(uintToDoubleForNarrowing(v)));
  case DType::F64:
    return store<double>(dataPtr, i, static_cast<double>(v));
  default:
    return setInt(i, static_cast<int64_t>(v));
  }
}

HostTensor HostTensor::clone() const {
  tgc::StatusOr<HostTensor> copy = allocate(elementType, dims);
  // The shape was validated when this tensor was made; only running out of
  // memory can fail here, reported like any other C++ allocation.
  if (!copy.ok())
    throw std::bad_alloc();
  if (byteSize() != 0)
    std::memcpy(copy->data(), dataPtr, byteSize());
  return *std::move(copy);
}

std::string HostTensor::describe() const {
  return tensorTypeString(elementType, dims);
}

std::vector<int64_t> HostTensor::unflattenIndex(int64_t flat) const {
  std::vector<int64_t> index(dims.size(), 0);
  for (size_t k = dims.size(); k-- > 0;) {
    if (dims[k] == 0)
      break;
    index[k] = flat % dims[k];
    flat /= dims[k];
  }
  return index;
}

tgc::Status tgc::runtime::allClose(const HostTensor &actual,
                                   const HostTensor &expected, double rtol,
                                   double atol) {
  if (actual.dtype() != expected.dtype())
    return absl::InvalidArgumentError(
        absl::StrCat("allClose: dtype mismatch: got ", actual.describe(),
                     ", expected ", expected.describe()));
  if (actual.shape() != expected.shape())
    return absl::InvalidArgumentError(
        absl::StrCat("allClose: shape mismatch: got ", actual.describe(),
                     ", expected ", expected.describe()));

  if (!(rtol >= 0) || !(atol >= 0))
    return absl::InvalidArgumentError(
        absl::StrCat("allClose: tolerances must be non-negative numbers (rtol=",
                     formatDouble(rtol), ", atol=", formatDouble(atol), ")"));
  const bool isFloat = isFloatDType(actual.dtype());
  const bool isUnsigned = isUnsignedDType(actual.dtype());
  const int64_t n = actual.numElements();
  int64_t mismatches = 0;
  int64_t worstIndex = -1;
  double worstScore = -std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    double score;
    if (isFloat) {
      double a = actual.getDouble(i), b = expected.getDouble(i);
      if (std::isnan(a) || std::isnan(b)) {
        if (std::isnan(a) && std::isnan(b))
          continue;
        score = std::numeric_limits<double>::infinity();
      } else if (std::isinf(a) || std::isinf(b)) {
        if (a == b)
          continue;
        score = std::numeric_limits<double>::infinity();
      } else {
        double diff = std::fabs(a - b);
        double tolerance = atol + rtol * std::fabs(b);
        if (diff <= tolerance)
          continue;
        score = diff - tolerance;
      }
    } else {
      int64_t a = actual.getInt(i), b = expected.getInt(i);
      if (a == b)
        continue;
      score = isUnsigned ? uintDistance(static_cast<uint64_t>(a),
                                        static_cast<uint64_t>(b))
                         : intDistance(a, b);
    }
    ++mismatches;
    if (worstIndex < 0 || score > worstScore) {
      worstScore = score;
      worstIndex = i;
    }
  }
  if (mismatches == 0)
    return absl::OkStatus();

  std::string got, want;
  double absError, relError;
  if (isFloat) {
    double a = actual.getDouble(worstIndex), b = expected.getDouble(worstIndex);
    got = formatElement(actual.dtype(), a);
    want = formatElement(actual.dtype(), b);
    absError = std::fabs(a - b);
    relError = absError / std::fabs(b);
  } else if (isUnsigned) {
    uint64_t a = actual.getUInt(worstIndex), b = expected.getUInt(worstIndex);
    got = absl::StrCat(a);
    want = absl::StrCat(b);
    absError = uintDistance(a, b);
    relError = absError / static_cast<double>(b);
  } else {
    int64_t a = actual.getInt(worstIndex), b = expected.getInt(worstIndex);
    got = absl::StrCat(a);
    want = absl::StrCat(b);
    absError = intDistance(a, b);
    relError = absError / std::fabs(static_cast<double>(b));
  }
  std::string position = absl::StrCat(worstIndex);
  if (actual.rank() > 1)
    absl::StrAppend(&position, " ",
                    shapeString(actual.unflattenIndex(worstIndex)));
  return absl::InvalidArgumentError(absl::StrCat(
      "allClose: ", mismatches, " of ", n, " elements of ", actual.describe(),
      " differ (rtol=", formatDouble(rtol), ", atol=", formatDouble(atol),
      "); worst at index ", position, ": got ", got, ", expected ", want,
      ", abs error ", formatDouble(absError), ", rel error ",
      formatDouble(relError)));
}
