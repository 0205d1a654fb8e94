//===- ConstantData.cpp - the bytes of tgc.constant values ----------------===//

#include "dialects/ConstantData.h"

#include "runtime/LargeBuffer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

using namespace mlir;

namespace tgc {
namespace {

std::atomic<int64_t> &residentBytes() {
  static std::atomic<int64_t> bytes{0};
  return bytes;
}

struct Copy;

/// A file-backed constant: its bytes in the file, how to read them again,
/// and the copy readers share while one exists.
struct FileBacked {
  ArrayRef<char> fileBytes;
  ConstantFileSource source;
  std::mutex mutex;
  std::weak_ptr<Copy> copy;
};

/// The aligned copy of a file-backed constant's bytes
/// (runtime::allocateLargeBuffer), whose pages go back to the system when
/// no reader pins it.
struct Copy {
  std::shared_ptr<FileBacked> origin;
  std::shared_ptr<char> buffer;
  size_t bytes = 0;
  // Guarded by origin->mutex.
  int pins = 0;
  bool resident = false;

  char *data() const { return buffer.get(); }
  ~Copy() {
    if (resident)
      residentBytes() -= static_cast<int64_t>(bytes);
  }
};

/// File-backed constants by the address of their file bytes (their blob's
/// data), while their blob lives.
struct Registry {
  std::mutex mutex;
  std::unordered_map<const char *, std::shared_ptr<FileBacked>> entries;

  std::shared_ptr<FileBacked> find(const char *key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    return it == entries.end() ? nullptr : it->second;
  }
};

Registry &registry() {
  // Leaked: blobs of contexts destroyed at exit still unregister.
  static Registry *r = new Registry;
  return *r;
}

void unpin(const std::shared_ptr<Copy> &copy) {
  std::lock_guard<std::mutex> lock(copy->origin->mutex);
  if (--copy->pins > 0)
    return;
  runtime::releaseWholePages(copy->data(), copy->bytes);
  copy->resident = false;
  residentBytes() -= static_cast<int64_t>(copy->bytes);
}

/// Reads a file-backed constant's bytes into `out` from its file (pread:
/// a file cut short since is an error, not a fault on the mapping), or,
/// without a file to read, from the mapping.
bool readSource(const FileBacked &origin, char *out) {
  if (!origin.source.read) {
    std::memcpy(out, origin.fileBytes.data(), origin.fileBytes.size());
    return true;
  }
  return origin.source.read(out, origin.fileBytes.size(), origin.source.offset);
}

/// Fills `copy` from the file (under the origin's mutex), which must be as
/// imported.
bool fill(Copy &copy, std::string *error) {
  FileBacked &origin = *copy.origin;
  bool changed = origin.source.unchanged && !origin.source.unchanged();
  bool read = !changed && readSource(origin, copy.data());
  if (!read) {
    runtime::releaseWholePages(copy.data(), copy.bytes);
    if (error)
      *error = "the " + std::to_string(copy.bytes) +
               " bytes of a constant at offset " +
               std::to_string(origin.source.offset) + " of its model file " +
               (changed ? "changed since the model was imported"
                        : "can no longer be read (the file shrank or went)");
    return false;
  }
  copy.resident = true;
  residentBytes() += static_cast<int64_t>(copy.bytes);
  return true;
}

/// A pin of `copy` (under its origin's mutex): its bytes read back from
/// the file first where they were let go; null (and `error`) when they
/// cannot be.
std::shared_ptr<const void> pinCopy(const std::shared_ptr<Copy> &copy,
                                    std::string *error) {
  if (!copy->resident && !fill(*copy, error))
    return nullptr;
  ++copy->pins;
  return std::shared_ptr<const void>(copy->data(),
                                     [copy](const void *) { unpin(copy); });
}

std::optional<ConstantBytes>
readFileBacked(const std::shared_ptr<FileBacked> &fb, std::string *error) {
  std::lock_guard<std::mutex> lock(fb->mutex);
  std::shared_ptr<Copy> copy = fb->copy.lock();
  if (!copy) {
    copy = std::make_shared<Copy>();
    copy->origin = fb;
    copy->bytes = fb->fileBytes.size();
    copy->buffer = runtime::allocateLargeBuffer(copy->bytes);
    if (!copy->buffer) {
      if (error)
        *error = "cannot allocate " + std::to_string(copy->bytes) +
                 " bytes for a constant's data";
      return std::nullopt;
    }
    fb->copy = copy;
  }
  ConstantBytes out;
  out.pin = pinCopy(copy, error);
  if (!out.pin)
    return std::nullopt;
  out.bytes = ArrayRef<char>(copy->data(), copy->bytes);
  out.anchor = copy;
  out.fileBacked = true;
  return out;
}

AsmResourceBlob *blobOf(DenseResourceElementsAttr resource) {
  return resource.getRawHandle().getBlob();
}

} // namespace

std::optional<int64_t> constantElementBytes(Type elementType) {
  if (!elementType.isIntOrFloat())
    return std::nullopt;
  unsigned bits = elementType.getIntOrFloatBitWidth();
  if (bits == 0 || bits % 8 != 0)
    return std::nullopt;
  return static_cast<int64_t>(bits / 8);
}

LogicalResult
verifyConstantValue(ElementsAttr value,
                    llvm::function_ref<InFlightDiagnostic()> emitError) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return emitError() << "value must have a static shape";
  if (isa<DenseElementsAttr>(value))
    return success();
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  if (!resource)
    return emitError()
           << "value must be a dense or dense_resource elements attribute, got "
           << value;
  std::optional<int64_t> width = constantElementBytes(type.getElementType());
  if (!width)
    return emitError() << "a dense_resource value needs an integer or float "
                          "element type of whole bytes, not "
                       << type.getElementType();
  AsmResourceBlob *blob = blobOf(resource);
  if (!blob)
    return emitError() << "dense_resource '" << resource.getRawHandle().getKey()
                       << "' has no data (no blob of that name in the "
                          "file's dialect_resources)";
  int64_t want = type.getNumElements() * *width;
  if (static_cast<int64_t>(blob->getData().size()) != want)
    return emitError() << "dense_resource '" << resource.getRawHandle().getKey()
                       << "' holds " << blob->getData().size()
                       << " bytes where " << type << " needs " << want;
  return success();
}

std::optional<std::vector<double>> constantAsDoubles(ElementsAttr value,
                                                     int64_t maxCount) {
  if (!value)
    return std::nullopt;
  Type element = value.getElementType();
  auto integer = dyn_cast<IntegerType>(element);
  if (!isa<FloatType>(element) && !integer)
    return std::nullopt;
  auto fromAPInt = [&](const APInt &v) {
    return integer.isUnsigned() || integer.getWidth() == 1
               ? static_cast<double>(v.getZExtValue())
               : static_cast<double>(v.getSExtValue());
  };
  auto fromAPFloat = [](APFloat v) {
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return v.convertToDouble();
  };
  std::vector<double> out;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat()) {
      out.push_back(integer ? fromAPInt(dense.getSplatValue<APInt>())
                            : fromAPFloat(dense.getSplatValue<APFloat>()));
      return out;
    }
    if (dense.getNumElements() > maxCount)
      return std::nullopt;
    out.reserve(static_cast<size_t>(dense.getNumElements()));
    if (integer)
      for (const APInt &v : dense.getValues<APInt>())
        out.push_back(fromAPInt(v));
    else if (element.isF32())
      for (float v : dense.getValues<float>())
        out.push_back(v);
    else
      for (const APFloat &v : dense.getValues<APFloat>())
        out.push_back(fromAPFloat(v));
    return out;
  }
  if (value.getNumElements() > maxCount)
    return std::nullopt;
  std::optional<ConstantBytes> bytes = readConstantBytes(value);
  std::optional<int64_t> width = constantElementBytes(element);
  if (!bytes || !width)
    return std::nullopt;
  int64_t count = value.getNumElements();
  out.resize(static_cast<size_t>(count));
  const char *data = bytes->data();
  for (int64_t i = 0; i < count; ++i) {
    const char *at = data + i * *width;
    double v = 0;
    if (integer) {
      uint64_t bits = 0;
      std::memcpy(&bits, at, static_cast<size_t>(*width));
      v = fromAPInt(APInt(integer.getWidth(), bits));
    } else if (element.isF32()) {
      float f;
      std::memcpy(&f, at, 4);
      v = f;
    } else if (element.isF64()) {
      std::memcpy(&v, at, 8);
    } else {
      uint64_t bits = 0;
      std::memcpy(&bits, at, static_cast<size_t>(*width));
      v = fromAPFloat(APFloat(cast<FloatType>(element).getFloatSemantics(),
                              APInt(static_cast<unsigned>(*width * 8), bits)));
    }
    out[static_cast<size_t>(i)] = v;
  }
  return out;
}

bool storesElements(Attribute value) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value))
    return !dense.isSplat();
  return isa_and_nonnull<DenseResourceElementsAttr>(value);
}

ElementsAttr reshapeConstant(Attribute value, ShapedType type) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value))
    return dense.getType().getNumElements() == type.getNumElements() &&
                   dense.getElementType() == type.getElementType()
               ? ElementsAttr(dense.reshape(type))
               : ElementsAttr();
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value);
  if (!resource ||
      resource.getType().getNumElements() != type.getNumElements() ||
      resource.getType().getElementType() != type.getElementType())
    return {};
  return DenseResourceElementsAttr::get(type, resource.getRawHandle());
}

bool isFileBackedConstant(ElementsAttr value) {
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob = resource ? blobOf(resource) : nullptr;
  return blob && registry().find(blob->getData().data()) != nullptr;
}

std::optional<ConstantBytes> readConstantBytes(ElementsAttr value,
                                               std::string *error) {
  if (error)
    error->clear();
  if (!value)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> width = constantElementBytes(type.getElementType());
  if (!width)
    return std::nullopt;
  size_t want = static_cast<size_t>(type.getNumElements() * *width);
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat() && type.getNumElements() != 1)
      return std::nullopt;
    ArrayRef<char> raw = dense.getRawData();
    if (raw.size() != want || reinterpret_cast<uintptr_t>(raw.data()) %
                                  static_cast<uintptr_t>(*width))
      return std::nullopt;
    return ConstantBytes{raw, nullptr, nullptr};
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob = resource ? blobOf(resource) : nullptr;
  if (!blob || blob->getData().size() != want)
    return std::nullopt;
  ArrayRef<char> data = blob->getData();
  if (std::shared_ptr<FileBacked> fb = registry().find(data.data()))
    return readFileBacked(fb, error);
  if (reinterpret_cast<uintptr_t>(data.data()) %
          static_cast<uintptr_t>(*width) ==
      0)
    return ConstantBytes{data, nullptr, nullptr};
  // An unaligned blob (a parsed or made one): an aligned copy of its own.
  std::shared_ptr<char> copy = runtime::allocateLargeBuffer(want);
  if (!copy)
    return std::nullopt;
  std::memcpy(copy.get(), data.data(), want);
  ConstantBytes out;
  out.bytes = ArrayRef<char>(copy.get(), want);
  out.pin = copy;
  out.anchor = copy;
  return out;
}

std::shared_ptr<const void> pinConstantBytes(const ConstantBytes &held,
                                             std::string *error) {
  if (error)
    error->clear();
  if (!held.fileBacked || !held.anchor)
    return nullptr;
  auto copy = std::static_pointer_cast<Copy>(
      std::const_pointer_cast<void>(held.anchor));
  std::lock_guard<std::mutex> lock(copy->origin->mutex);
  return pinCopy(copy, error);
}

bool visitStoredConstantBytes(ElementsAttr value,
                              llvm::function_ref<void(ArrayRef<char>)> visit) {
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(value)) {
    visit(dense.getRawData());
    return true;
  }
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob = resource ? blobOf(resource) : nullptr;
  if (!blob)
    return false;
  ArrayRef<char> data = blob->getData();
  std::shared_ptr<FileBacked> fb = registry().find(data.data());
  if (!fb || !fb->source.read) {
    visit(data);
    return true;
  }
  // A file-backed constant: its bytes read from the file in pieces (the
  // mapping's pages are never touched).
  constexpr size_t kPiece = size_t(1) << 20;
  std::vector<char> piece(std::min(kPiece, data.size()));
  for (size_t at = 0; at < data.size(); at += kPiece) {
    size_t n = std::min(kPiece, data.size() - at);
    if (!fb->source.read(piece.data(), n, fb->source.offset + at))
      return false;
    visit(ArrayRef<char>(piece.data(), n));
  }
  return true;
}

ElementsAttr makeFileBackedConstant(RankedTensorType type, StringRef name,
                                    ArrayRef<char> fileBytes,
                                    ConstantFileSource source) {
  auto fb = std::make_shared<FileBacked>();
  fb->fileBytes = fileBytes;
  fb->source = std::move(source);
  const char *key = fileBytes.data();
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.entries[key] = fb;
  }
  AsmResourceBlob blob(
      fileBytes, /*dataAlignment=*/1,
      [key, weak = std::weak_ptr<FileBacked>(fb)](void *, size_t, size_t) {
        Registry &r = registry();
        std::lock_guard<std::mutex> lock(r.mutex);
        auto it = r.entries.find(key);
        if (it != r.entries.end() && it->second == weak.lock())
          r.entries.erase(it);
      },
      /*dataIsMutable=*/false);
  return DenseResourceElementsAttr::get(type, name, std::move(blob));
}

int64_t residentFileBackedBytes() { return residentBytes().load(); }

} // namespace tgc
