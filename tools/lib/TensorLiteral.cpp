//===- TensorLiteral.cpp - tensors written on a command line
//---------------===//

#include "tools/lib/TensorLiteral.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;
using tgc::runtime::DType;
using tgc::runtime::HostTensor;

namespace {
Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

std::string formatDims(ArrayRef<int64_t> shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text.empty() ? "scalar" : text;
}
} // namespace

Expected<HostTensor> tgc::parseTensorLiteral(StringRef spec) {
  auto [typePart, valuePart] = spec.split('=');
  SmallVector<StringRef> pieces;
  typePart.split(pieces, 'x');
  std::optional<DType> dtype = tgc::runtime::parseDType(pieces.back());
  if (!dtype)
    return makeError("bad tensor literal '" + spec +
                     "': unknown element type '" + pieces.back() + "'");
  std::vector<int64_t> shape;
  for (StringRef dim : ArrayRef(pieces).drop_back()) {
    int64_t size;
    if (dim.getAsInteger(10, size) || size < 0)
      return makeError("bad tensor literal '" + spec + "': bad dim '" + dim +
                       "'");
    shape.push_back(size);
  }
  // A literal fills a tensor from the command line: larger ones belong in
  // a .npy file (and a typo must not allocate terabytes).
  auto count = HostTensor::checkedNumElements(shape);
  if (!count.ok() || *count > kMaxLiteralElements)
    return makeError("bad tensor literal '" + spec + "': shape " +
                     formatDims(shape) + " has more than " +
                     Twine(kMaxLiteralElements) +
                     " elements; give such a tensor as a .npy file");
  auto tensor = HostTensor::allocate(*dtype, shape);
  if (!tensor.ok())
    return makeError("bad tensor literal '" + spec +
                     "': " + std::string(tensor.status().message()));
  SmallVector<StringRef> values;
  if (!valuePart.trim().empty())
    valuePart.split(values, ',');
  int64_t n = tensor->numElements();
  if (!(static_cast<int64_t>(values.size()) == n ||
        (values.size() == 1 && n > 0)))
    return makeError("bad tensor literal '" + spec +
                     "': " + Twine(values.size()) + " values for shape " +
                     formatDims(shape) + " (" + Twine(n) + " elements)");
  for (int64_t i = 0; i < n; ++i) {
    StringRef text = values[values.size() == 1 ? 0 : i].trim();
    if (tgc::runtime::isFloatDType(*dtype)) {
      double v;
      std::string lower = text.lower();
      if (lower == "nan")
        v = std::nan("");
      else if (lower == "inf" || lower == "+inf")
        v = INFINITY;
      else if (lower == "-inf")
        v = -INFINITY;
      else if (text.getAsDouble(v))
        return makeError("bad tensor literal '" + spec + "': bad number '" +
                         text + "'");
      tensor->setDouble(i, v);
    } else if (tgc::runtime::isUnsignedDType(*dtype)) {
      uint64_t v;
      if (text.getAsInteger(10, v))
        return makeError("bad tensor literal '" + spec + "': bad integer '" +
                         text + "'");
      tensor->setUInt(i, v);
    } else {
      int64_t v;
      if (*dtype == DType::I1 && (text == "true" || text == "false"))
        v = text == "true";
      else if (text.getAsInteger(10, v))
        return makeError("bad tensor literal '" + spec + "': bad integer '" +
                         text + "'");
      tensor->setInt(i, v);
    }
  }
  return std::move(*tensor);
}
