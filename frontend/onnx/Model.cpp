//===- Model.cpp - load, check and prepare ONNX models --------------------===//
//
// Protobuf parsing, the ONNX checker, shape inference and version conversion
// (each of which may throw: everything is caught here), TensorProto
// conversion with external data and its path-safety checks, and the `.pb`
// tensor reader.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/OnnxInternal.h"
#include "runtime/LargeBuffer.h"

#include "onnx/checker.h"
#include "onnx/onnx-data.pb.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace tgc;
using namespace tgc::onnximpl;
using runtime::DType;
using runtime::HostTensor;
using TP = ::onnx::TensorProto;

namespace {
/// The oldest default-domain opset the importer maps directly; older models
/// are converted to it first.
constexpr int64_t kMinDirectOpset = 7;
/// ONNX 1.12 knows opsets up to this one.
constexpr int64_t kMaxOpset = 17;
} // namespace

//===----------------------------------------------------------------------===//
// Data types
//===----------------------------------------------------------------------===//

std::optional<DType> onnximpl::dtypeFromOnnx(int32_t dataType) {
  switch (dataType) {
  case TP::FLOAT:
    return DType::F32;
  case TP::FLOAT16:
    return DType::F16;
  case TP::BFLOAT16:
    return DType::BF16;
  case TP::DOUBLE:
    return DType::F64;
  case TP::BOOL:
    return DType::I1;
  case TP::INT8:
    return DType::I8;
  case TP::INT32:
    return DType::I32;
  case TP::INT64:
    return DType::I64;
  case TP::INT16:
    return DType::I16;
  case TP::UINT8:
    return DType::UI8;
  case TP::UINT16:
    return DType::UI16;
  case TP::UINT32:
    return DType::UI32;
  case TP::UINT64:
    return DType::UI64;
  default:
    return std::nullopt;
  }
}

int32_t onnximpl::onnxFromDType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return TP::FLOAT;
  case DType::F16:
    return TP::FLOAT16;
  case DType::BF16:
    return TP::BFLOAT16;
  case DType::F64:
    return TP::DOUBLE;
  case DType::I1:
    return TP::BOOL;
  case DType::I8:
    return TP::INT8;
  case DType::I32:
    return TP::INT32;
  case DType::I64:
    return TP::INT64;
  case DType::I16:
    return TP::INT16;
  case DType::UI8:
    return TP::UINT8;
  case DType::UI16:
    return TP::UINT16;
  case DType::UI32:
    return TP::UINT32;
  case DType::UI64:
    return TP::UINT64;
  }
  return TP::UNDEFINED;
}

std::string onnximpl::onnxTypeName(int32_t dataType) {
  if (TP::DataType_IsValid(dataType))
    return TP::DataType_Name(static_cast<TP::DataType>(dataType));
  return "<unknown " + std::to_string(dataType) + ">";
}

//===----------------------------------------------------------------------===//
// External data
//===----------------------------------------------------------------------===//

namespace {

/// Reads `length` bytes at `offset` of the external file `location`, relative
/// to `directory`, after checking that the path stays inside the directory.
/// An external data file checked (inside the model's directory, a regular
/// file, the range inside it): its resolved path and the range's length.
struct ResolvedExternal {
  std::string path;
  int64_t length = 0;
};

llvm::Expected<ResolvedExternal> resolveExternal(const ExternalData &external,
                                                 const std::string &location,
                                                 int64_t offset,
                                                 std::optional<int64_t> length,
                                                 const std::string &what) {
  auto fail = [&](const llvm::Twine &why) {
    return makeError(what + ": external data '" + location + "': " + why);
  };
  if (external.directory.empty())
    return fail("external data needs the model's directory (import the model "
                "from a file)");
  if (location.empty())
    return fail("empty location");
  if (llvm::sys::path::is_absolute(location) || location[0] == '/' ||
      location[0] == '\\')
    return fail("absolute paths are not allowed (the location must be "
                "relative to the model's directory)");
  if (location.find('\0') != std::string::npos)
    return fail("the location contains a NUL character");
  for (auto it = llvm::sys::path::begin(location),
            end = llvm::sys::path::end(location);
       it != end; ++it)
    if (*it == "..")
      return fail("'..' is not allowed in the location");
  if (llvm::StringRef(location).contains('\\'))
    return fail("backslashes are not allowed in the location");

  char dirBuf[PATH_MAX], fileBuf[PATH_MAX];
  if (!::realpath(external.directory.c_str(), dirBuf))
    return fail("cannot resolve the model's directory '" + external.directory +
                "': " + std::strerror(errno));
  std::string joined = external.directory + "/" + location;
  if (!::realpath(joined.c_str(), fileBuf))
    return fail(llvm::Twine("cannot open: ") + std::strerror(errno));
  llvm::StringRef dir(dirBuf), file(fileBuf);
  if (!file.starts_with(dir) || file.size() <= dir.size() ||
      (file[dir.size()] != '/' && dir != "/"))
    return fail("the path resolves to '" + file +
                "', outside the model's directory '" + dir +
                "' (symlinks may not leave it)");
  struct stat info;
  if (::stat(fileBuf, &info) != 0)
    return fail(llvm::Twine("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return fail("not a regular file");
  int64_t size = info.st_size;
  if (offset < 0 || offset > size)
    return fail("offset " + llvm::Twine(offset) + " is outside the file (" +
                llvm::Twine(size) + " bytes)");
  int64_t n = length ? *length : size - offset;
  if (n < 0 || n > size - offset)
    return fail("offset " + llvm::Twine(offset) + " + length " +
                llvm::Twine(n) + " exceeds the file size (" +
                llvm::Twine(size) + " bytes)");
  return ResolvedExternal{fileBuf, n};
}

llvm::Expected<std::string> readExternal(const ExternalData &external,
                                         const std::string &location,
                                         int64_t offset,
                                         std::optional<int64_t> length,
                                         const std::string &what) {
  auto resolved = resolveExternal(external, location, offset, length, what);
  if (!resolved)
    return resolved.takeError();
  auto buffer = llvm::MemoryBuffer::getFileSlice(
      resolved->path, resolved->length, offset, /*IsVolatile=*/false);
  if (!buffer)
    return makeError(what + ": external data '" + location +
                     "': cannot read: " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

llvm::Expected<int64_t> parseExternalInt(llvm::StringRef value,
                                         llvm::StringRef key,
                                         const std::string &what) {
  int64_t n;
  if (value.getAsInteger(10, n) || n < 0)
    return makeError(what + ": external data " + key + " '" + value +
                     "' is not a non-negative integer");
  return n;
}

/// The external_data entries tgc reads: location, offset and length, and
/// the in-model offset importOnnxModel leaves (kInModelOffset).
struct ExternalEntries {
  std::string location;
  int64_t offset = 0;
  std::optional<int64_t> length, inModelOffset;
};

llvm::Expected<ExternalEntries> externalEntries(const TP &tensor,
                                                const std::string &what) {
  ExternalEntries out;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      out.location = entry.value();
      continue;
    }
    bool isOffset = entry.key() == "offset";
    if (!isOffset && entry.key() != "length" && entry.key() != kInModelOffset)
      continue;
    auto n = parseExternalInt(entry.value(), entry.key(), what);
    if (!n)
      return n.takeError();
    if (isOffset)
      out.offset = *n;
    else if (entry.key() == "length")
      out.length = *n;
    else
      out.inModelOffset = *n;
  }
  return out;
}

} // namespace

static std::string formatDims(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

//===----------------------------------------------------------------------===//
// TensorProto -> HostTensor
//===----------------------------------------------------------------------===//

llvm::Error onnximpl::checkTensorData(const TP &tensor, DType dtype,
                                      const std::string &what) {
  std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  for (int64_t d : shape)
    if (d < 0)
      return makeError(what + " has negative dim " + llvm::Twine(d));
  size_t elementSize = runtime::dtypeSize(dtype);
  // Check the data against the shape before allocating anything: a bogus
  // shape (or a file that is not a TensorProto) must not allocate terabytes.
  auto checkedCount = HostTensor::checkedNumElements(shape);
  int64_t bytes = 0;
  if (!checkedCount.ok() ||
      __builtin_mul_overflow(*checkedCount, static_cast<int64_t>(elementSize),
                             &bytes))
    return makeError(what + ": shape " + formatDims(shape) + " is too large");
  int64_t available = -1; // Elements (typed fields) or bytes (raw data).
  bool availableIsBytes = true;
  if (tensor.data_location() == TP::EXTERNAL) {
    available = bytes; // Checked against the file below.
  } else if (tensor.has_raw_data()) {
    available = static_cast<int64_t>(tensor.raw_data().size());
  } else {
    availableIsBytes = false;
    switch (tensor.data_type()) {
    case TP::FLOAT:
      available = tensor.float_data_size();
      break;
    case TP::DOUBLE:
      available = tensor.double_data_size();
      break;
    case TP::INT64:
      available = tensor.int64_data_size();
      break;
    case TP::UINT32:
    case TP::UINT64:
      available = tensor.uint64_data_size();
      break;
    default:
      available = tensor.int32_data_size();
      break;
    }
  }
  if (availableIsBytes ? available != bytes : available != *checkedCount)
    return makeError(
        what + " has " + llvm::Twine(available) +
        (availableIsBytes ? " bytes" : " values") + " of data but its shape " +
        formatDims(shape) + " and type " + onnxTypeName(tensor.data_type()) +
        " need " + llvm::Twine(availableIsBytes ? bytes : *checkedCount));
  return llvm::Error::success();
}

std::optional<HostTensor> onnximpl::viewTensorProto(const TP &tensor) {
  if (tensor.data_location() == TP::EXTERNAL || !tensor.has_raw_data() ||
      tensor.has_segment())
    return std::nullopt;
  std::optional<DType> dtype = dtypeFromOnnx(tensor.data_type());
  if (!dtype || *dtype == DType::I1)
    return std::nullopt;
  // What tensorFromProto would reject (bad dims, a size mismatch) it also
  // reports: leave it to that path.
  if (llvm::Error error = checkTensorData(tensor, *dtype, "")) {
    llvm::consumeError(std::move(error));
    return std::nullopt;
  }
  const std::string &raw = tensor.raw_data();
  if (reinterpret_cast<uintptr_t>(raw.data()) % runtime::dtypeSize(*dtype))
    return std::nullopt;
  std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  auto view = HostTensor::borrow(*dtype, std::move(shape),
                                 const_cast<char *>(raw.data()));
  if (!view.ok())
    return std::nullopt;
  return std::move(*view);
}

llvm::Expected<std::optional<llvm::StringRef>>
onnximpl::inModelBytes(const TP &tensor, const ExternalData &external,
                       const std::string &what) {
  if (tensor.data_location() != TP::EXTERNAL)
    return std::nullopt;
  auto entries = externalEntries(tensor, what);
  if (!entries)
    return entries.takeError();
  std::optional<int64_t> offset = entries->inModelOffset,
                         length = entries->length;
  if (!offset)
    return std::nullopt;
  std::optional<DType> dtype = dtypeFromOnnx(tensor.data_type());
  if (!dtype)
    return makeError(what + " has element type " +
                     onnxTypeName(tensor.data_type()) + " and in-model data");
  auto count = HostTensor::checkedNumElements(
      std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end()));
  int64_t bytes = 0;
  if (!count.ok() ||
      __builtin_mul_overflow(
          *count, static_cast<int64_t>(runtime::dtypeSize(*dtype)), &bytes))
    return makeError(what + ": its shape is too large");
  // The raw data's own size: the message checkTensorData gives.
  if (!length || *length != bytes)
    return makeError(what + " has " + llvm::Twine(length ? *length : -1) +
                     " bytes of data but its shape " +
                     formatDims(std::vector<int64_t>(tensor.dims().begin(),
                                                     tensor.dims().end())) +
                     " and type " + onnxTypeName(tensor.data_type()) +
                     " need " + llvm::Twine(bytes));
  int64_t size = static_cast<int64_t>(external.modelBytes.size());
  if (*offset > size || bytes > size - *offset)
    return makeError(what + ": in-model data at offset " +
                     llvm::Twine(*offset) + " (" + llvm::Twine(bytes) +
                     " bytes) does not fit the model (" + llvm::Twine(size) +
                     " bytes)");
  return external.modelBytes.substr(static_cast<size_t>(*offset),
                                    static_cast<size_t>(bytes));
}

llvm::Expected<HostTensor>
onnximpl::tensorFromProto(const TP &tensor, const ExternalData &external,
                          const std::string &what) {
  std::optional<DType> dtype = dtypeFromOnnx(tensor.data_type());
  if (!dtype)
    return makeUnsupportedError(
        what + " has element type " + onnxTypeName(tensor.data_type()) +
        ", which tgc does not support (supported: FLOAT, "
        "FLOAT16, BFLOAT16, DOUBLE, BOOL, INT8, INT16, INT32, "
        "INT64, UINT8, UINT16, UINT32, UINT64)");
  if (tensor.has_segment())
    return makeUnsupportedError(what + " is segmented, which is not supported");
  std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (auto error = checkTensorData(tensor, *dtype, what))
    return std::move(error);
  size_t elementSize = runtime::dtypeSize(*dtype);
  // checkTensorData bounded count * size. External data is read (and
  // checked against its file) before anything of that size is allocated.
  int64_t byteSize = *HostTensor::checkedNumElements(shape) *
                     static_cast<int64_t>(elementSize);
  std::optional<std::string> externalBytes;
  auto inModel = inModelBytes(tensor, external, what);
  if (!inModel)
    return inModel.takeError();
  if (*inModel) {
    externalBytes = (*inModel)->str();
  } else if (tensor.data_location() == TP::EXTERNAL) {
    auto entries = externalEntries(tensor, what);
    if (!entries)
      return entries.takeError();
    const std::string &location = entries->location;
    int64_t offset = entries->offset;
    std::optional<int64_t> length = entries->length;
    if (location.empty())
      return makeError(what + " has external data without a location");
    if (length && *length != static_cast<int64_t>(byteSize))
      return makeError(what + ": external data length " + llvm::Twine(*length) +
                       " does not match its shape and "
                       "type (" +
                       llvm::Twine(byteSize) + " bytes)");
    if (!length)
      length = static_cast<int64_t>(byteSize);
    auto bytes = readExternal(external, location, offset, length, what);
    if (!bytes)
      return bytes.takeError();
    externalBytes = std::move(*bytes);
  }
  // Every path below writes every element (or fails): no zero fill.
  auto allocated = HostTensor::allocateUninitialized(*dtype, shape);
  if (!allocated.ok())
    return makeError(what + ": " + std::string(allocated.status().message()));
  HostTensor result = std::move(*allocated);
  int64_t count = result.numElements();

  auto fromRaw = [&](llvm::StringRef raw) -> llvm::Error {
    if (raw.size() != result.byteSize())
      return makeError(what + " has " + llvm::Twine(raw.size()) +
                       " bytes of data but its shape and type need " +
                       llvm::Twine(result.byteSize()));
    if (raw.size())
      std::memcpy(result.data(), raw.data(), raw.size());
    if (*dtype == DType::I1)
      for (int64_t i = 0; i < count; ++i)
        result.dataAs<uint8_t>()[i] = result.dataAs<uint8_t>()[i] != 0;
    return llvm::Error::success();
  };

  if (externalBytes) {
    if (auto error = fromRaw(*externalBytes))
      return std::move(error);
    return result;
  }
  if (tensor.has_raw_data()) {
    if (auto error = fromRaw(tensor.raw_data()))
      return std::move(error);
    return result;
  }

  auto checkCount = [&](int64_t n, llvm::StringRef field) -> llvm::Error {
    if (n != count)
      return makeError(what + " has " + llvm::Twine(n) + " values in " + field +
                       " but its shape " + "needs " + llvm::Twine(count));
    return llvm::Error::success();
  };
  switch (tensor.data_type()) {
  case TP::FLOAT:
    if (auto error = checkCount(tensor.float_data_size(), "float_data"))
      return std::move(error);
    if (count)
      std::memcpy(result.data(), tensor.float_data().data(),
                  count * elementSize);
    break;
  case TP::DOUBLE:
    if (auto error = checkCount(tensor.double_data_size(), "double_data"))
      return std::move(error);
    if (count)
      std::memcpy(result.data(), tensor.double_data().data(),
                  count * elementSize);
    break;
  case TP::INT64:
    if (auto error = checkCount(tensor.int64_data_size(), "int64_data"))
      return std::move(error);
    if (count)
      std::memcpy(result.data(), tensor.int64_data().data(),
                  count * elementSize);
    break;
  case TP::UINT32:
  case TP::UINT64:
    // uint32 and uint64 live in uint64_data.
    if (auto error = checkCount(tensor.uint64_data_size(), "uint64_data"))
      return std::move(error);
    for (int64_t i = 0; i < count; ++i)
      result.setUInt(i, tensor.uint64_data(static_cast<int>(i)));
    break;
  case TP::INT32:
  case TP::INT8:
  case TP::INT16:
  case TP::UINT8:
  case TP::UINT16:
  case TP::BOOL:
  case TP::FLOAT16:
  case TP::BFLOAT16: {
    if (auto error = checkCount(tensor.int32_data_size(), "int32_data"))
      return std::move(error);
    for (int64_t i = 0; i < count; ++i) {
      int32_t v = tensor.int32_data(static_cast<int>(i));
      switch (tensor.data_type()) {
      case TP::INT32:
        result.dataAs<int32_t>()[i] = v;
        break;
      case TP::INT8:
        result.dataAs<int8_t>()[i] = static_cast<int8_t>(v);
        break;
      case TP::INT16:
      case TP::UINT8:
      case TP::UINT16:
        result.setInt(i, v); // Wraps to the width.
        break;
      case TP::BOOL:
        result.dataAs<uint8_t>()[i] = v != 0;
        break;
      default: // The 16 bits of a half or bfloat.
        result.dataAs<uint16_t>()[i] = static_cast<uint16_t>(v);
        break;
      }
    }
    break;
  }
  default:
    return makeUnsupportedError(what + " has unsupported element type " +
                                onnxTypeName(tensor.data_type()));
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

namespace {

/// The opset of the default domain ("" or "ai.onnx"), or nullopt.
std::optional<int64_t> defaultOpset(const ::onnx::ModelProto &model) {
  for (const auto &opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return opset.version();
  return std::nullopt;
}

/// Model-local functions that call themselves, directly or through others,
/// would send ONNX's shape inference (and the inliner) into endless
/// recursion: reject them before anything walks the functions.
llvm::Error checkFunctionRecursion(const ::onnx::ModelProto &model,
                                   const std::string &name) {
  std::map<std::pair<std::string, std::string>, const ::onnx::FunctionProto *>
      functions;
  for (const auto &f : model.functions())
    functions[{f.domain(), f.name()}] = &f;
  // 0: unvisited, 1: on the stack, 2: done.
  std::map<const ::onnx::FunctionProto *, int> state;
  std::vector<std::string> path;
  std::function<llvm::Error(const ::onnx::FunctionProto *)> visit =
      [&](const ::onnx::FunctionProto *f) -> llvm::Error {
    state[f] = 1;
    path.push_back(f->name());
    for (const auto &n : f->node()) {
      auto it = functions.find({n.domain(), n.op_type()});
      if (it == functions.end())
        continue;
      int s = state[it->second];
      if (s == 1) {
        std::string cycle;
        for (const std::string &p : path)
          cycle += "'" + p + "' -> ";
        return makeError(name + ": model-local function '" +
                         it->second->name() + "' calls itself (" + cycle + "'" +
                         it->second->name() +
                         "'): recursive functions are not supported");
      }
      if (s == 0)
        if (auto error = visit(it->second))
          return error;
    }
    path.pop_back();
    state[f] = 2;
    return llvm::Error::success();
  };
  for (const auto &[key, f] : functions)
    if (state[f] == 0)
      if (auto error = visit(f))
        return error;
  return llvm::Error::success();
}

} // namespace

llvm::Error
onnximpl::checkOnnxLibraryAssumptions(const ::onnx::ModelProto &model,
                                      const std::string &modelName) {
  const ::onnx::GraphProto &graph = model.graph();
  // Known ranks and dims (-1: unknown dim) of the graph's named values.
  std::map<std::string, std::vector<int64_t>> shapes;
  std::set<std::string> defined;
  auto noteValueInfo = [&](const ::onnx::ValueInfoProto &info) {
    if (!info.type().has_tensor_type() ||
        !info.type().tensor_type().has_shape())
      return;
    std::vector<int64_t> dims;
    for (const auto &d : info.type().tensor_type().shape().dim())
      dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    shapes[info.name()] = dims;
  };
  for (const auto &input : graph.input()) {
    defined.insert(input.name());
    noteValueInfo(input);
  }
  for (const auto &info : graph.value_info())
    noteValueInfo(info);
  for (const auto &init : graph.initializer()) {
    std::string what = modelName + ": initializer '" + init.name() + "'";
    if (std::optional<DType> dtype = dtypeFromOnnx(init.data_type()))
      if (auto error = checkTensorData(init, *dtype, what))
        return error;
    defined.insert(init.name());
    shapes[init.name()] =
        std::vector<int64_t>(init.dims().begin(), init.dims().end());
  }
  auto nodeError = [&](const ::onnx::NodeProto &node, const llvm::Twine &why) {
    return makeError(modelName + ": node '" + node.name() + "' (" +
                     node.op_type() + "): " + why);
  };
  auto rankOf = [&](const std::string &name) -> std::optional<size_t> {
    auto it = shapes.find(name);
    if (it == shapes.end())
      return std::nullopt;
    return it->second.size();
  };
  for (const auto &node : graph.node()) {
    for (const auto &attr : node.attribute())
      if (attr.has_t())
        if (std::optional<DType> dtype = dtypeFromOnnx(attr.t().data_type()))
          if (auto error =
                  checkTensorData(attr.t(), *dtype,
                                  modelName + ": node '" + node.name() +
                                      "' attribute '" + attr.name() + "'"))
            return error;
    const std::string &op = node.op_type();
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    // ONNX's convolution and pooling shape inference divides by the
    // strides: a zero one raised SIGFPE (found by fuzz-onnx-import). Other
    // bad values get the converters' own errors.
    if (defaultDomain &&
        (op == "Conv" || op == "ConvInteger" || op == "QLinearConv" ||
         op == "MaxPool" || op == "AveragePool" || op == "LpPool" ||
         op == "MaxUnpool"))
      for (const auto &attr : node.attribute())
        if (attr.name() == "strides")
          for (int64_t v : attr.ints())
            if (v == 0)
              return nodeError(node,
                               "attribute 'strides' must be positive, not 0");
    if (defaultDomain && (op == "Conv" || op == "ConvTranspose" ||
                          op == "ConvInteger" || op == "QLinearConv")) {
      size_t xIndex = 0, wIndex = op == "QLinearConv" ? 3 : 1;
      if (node.input_size() > static_cast<int>(wIndex)) {
        const std::string &w = node.input(static_cast<int>(wIndex));
        auto wShape = shapes.find(w);
        if (wShape != shapes.end()) {
          const std::vector<int64_t> &dims = wShape->second;
          if (dims.size() < 3)
            return nodeError(node, "the weight '" + w + "' has rank " +
                                       llvm::Twine(dims.size()) +
                                       "; it needs rank 3 or more");
          for (int64_t d : dims)
            if (d == 0)
              return nodeError(node,
                               "the weight '" + w + "' has a zero-size dim");
          // A smaller input rank is what ONNX's inference indexes past;
          // other mismatches get the importer's own error.
          auto xRank = rankOf(node.input(static_cast<int>(xIndex)));
          if (xRank && (*xRank < 3 || *xRank < dims.size()))
            return nodeError(node, "the input has rank " + llvm::Twine(*xRank) +
                                       " but the weight '" + w + "' rank " +
                                       llvm::Twine(dims.size()));
        }
      }
    }
    if (defaultDomain && op == "MaxUnpool" &&
        (node.input_size() < 2 || node.input(1).empty()))
      return nodeError(node, "MaxUnpool needs its indices (input #1)");
    for (const auto &out : node.output())
      defined.insert(out);
  }
  for (const auto &output : graph.output())
    if (!defined.count(output.name()))
      return makeError(modelName + ": graph output '" + output.name() +
                       "' is produced by no node, input or initializer");
  return llvm::Error::success();
}

namespace {

/// Runs `body`, turning any exception into an error prefixed with `stage`.
template <typename F>
llvm::Error guarded(llvm::StringRef stage, const std::string &model, F body) {
  try {
    body();
    return llvm::Error::success();
  } catch (const std::exception &e) {
    std::string message = e.what();
    while (!message.empty() &&
           (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    return makeError(model + ": " + stage + ": " + message);
  } catch (...) {
    return makeError(model + ": " + stage + ": unknown error");
  }
}

/// Parses a serialized ModelProto.
llvm::Error parseModel(llvm::StringRef bytes, const std::string &name,
                       ::onnx::ModelProto &model) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return makeError(name + ": the model is larger than 2 GiB; store its "
                            "weights as external data");
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return makeError(name + ": not a valid ONNX model: the protobuf failed to "
                            "parse (truncated or not an ONNX file)");
  return llvm::Error::success();
}

/// Checks and imports a parsed model.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importParsed(mlir::MLIRContext &context, ::onnx::ModelProto &model,
             const ExternalData &external, const ImportOptions &options) {
  const std::string &name = options.modelName;
  if (!model.has_graph())
    return makeError(name + ": not a valid ONNX model: it has no graph");
  std::optional<int64_t> opset = defaultOpset(model);
  if (opset && *opset > kMaxOpset)
    return makeUnsupportedError(
        name + ": opset " + llvm::Twine(*opset) +
        " of the default domain is newer than the newest this "
        "importer knows (" +
        llvm::Twine(kMaxOpset) + ")");

  if (auto error = checkFunctionRecursion(model, name))
    return std::move(error);
  if (auto error = checkOnnxLibraryAssumptions(model, name))
    return std::move(error);

  if (options.runChecker) {
    // The checker looks for external data files relative to a directory it
    // only knows when it loads the file itself; our own reader checks them
    // (with stricter path rules), so give it a copy without them.
    ::onnx::ModelProto checked;
    const ::onnx::ModelProto *toCheck = &model;
    bool hasExternal = false;
    for (const auto &init : model.graph().initializer())
      hasExternal |= init.data_location() == TP::EXTERNAL;
    if (hasExternal) {
      checked = model;
      for (auto &init : *checked.mutable_graph()->mutable_initializer())
        if (init.data_location() == TP::EXTERNAL) {
          // A scalar of the same type stands in for the external tensor.
          init.clear_external_data();
          init.clear_data_location();
          init.clear_dims();
          std::optional<DType> dtype = dtypeFromOnnx(init.data_type());
          init.set_raw_data(
              std::string(dtype ? runtime::dtypeSize(*dtype) : 1, '\0'));
        }
      toCheck = &checked;
    }
    if (auto error = guarded("the ONNX checker rejected the model", name,
                             [&] { ::onnx::checker::check_model(*toCheck); }))
      return std::move(error);
  }

  // Shape inference is lenient (node-level inference errors are left to the
  // importer, whose errors name the node): older exporters produced models
  // that ONNX 1.12's strict mode rejects but that are well-formed.
  auto inferShapes = [&] {
    return guarded("shape inference failed", name, [&] {
      ::onnx::ShapeInferenceOptions inferOptions(/*check_type=*/false,
                                                 /*strict_mode=*/0,
                                                 /*data_prop=*/false);
      ::onnx::shape_inference::InferShapes(
          model, ::onnx::OpSchemaRegistry::Instance(), inferOptions);
    });
  };

  if (opset && *opset < kMinDirectOpset) {
    // The converter's adapters need the shapes.
    if (auto error = inferShapes())
      return std::move(error);
    if (auto error =
            guarded("converting from opset " + std::to_string(*opset) + " to " +
                        std::to_string(kMinDirectOpset) + " failed",
                    name, [&] {
                      model = ::onnx::version_conversion::ConvertVersion(
                          model, static_cast<int>(kMinDirectOpset));
                    }))
      return std::move(error);
  }

  if (options.runShapeInference)
    if (auto error = inferShapes())
      return std::move(error);
  return importModelProto(context, model, external, options);
}

} // namespace

llvm::Expected<std::vector<std::string>>
tgc::onnxModelOpTypes(llvm::StringRef path) {
  auto model = onnximpl::readModelMetadata(path);
  if (!model)
    return model.takeError();
  std::vector<std::string> types;
  for (const auto &node : model->graph().node()) {
    std::string type = node.domain().empty() || node.domain() == "ai.onnx"
                           ? node.op_type()
                           : node.domain() + "." + node.op_type();
    if (llvm::find(types, type) == types.end())
      types.push_back(std::move(type));
  }
  return types;
}

bool tgc::isOnnxModelPath(llvm::StringRef path) {
  if (path.ends_with_insensitive(".onnx"))
    return true;
  if (path.ends_with_insensitive(".mlir") || path == "-")
    return false;
  // By content: a serialized ModelProto starts with its field 1, ir_version,
  // a varint (tag byte 0x08), which no .mlir text file does.
  auto head = llvm::MemoryBuffer::getFileSlice(path, /*MapSize=*/1,
                                               /*Offset=*/0);
  return head && (*head)->getBufferSize() == 1 &&
         (*head)->getBuffer()[0] == '\x08';
}

namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

/// Appends `value` as a varint.
void appendVarint(std::string &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

/// Appends a length-delimited field.
void appendDelimited(std::string &out, uint32_t field, llvm::StringRef bytes) {
  appendVarint(out, WireFormatLite::MakeTag(
                        field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  appendVarint(out, bytes.size());
  out.append(bytes.data(), bytes.size());
}

/// Calls `visit(field, payload, whole)` for each field of the serialized
/// message `bytes`: `whole` is the field as written (tag included),
/// `payload` a length-delimited field's contents (nullopt for the others).
/// False when the message is malformed or `visit` returns false.
template <typename F> bool forEachField(llvm::StringRef bytes, F visit) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return false;
  CodedInputStream in(reinterpret_cast<const uint8_t *>(bytes.data()),
                      static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(INT_MAX);
  while (true) {
    int start = in.CurrentPosition();
    uint32_t tag = in.ReadTag();
    if (!tag)
      return in.ConsumedEntireMessage() &&
             static_cast<size_t>(in.CurrentPosition()) == bytes.size();
    std::optional<llvm::StringRef> payload;
    if (WireFormatLite::GetTagWireType(tag) ==
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t size;
      if (!in.ReadVarint32(&size) ||
          static_cast<size_t>(in.CurrentPosition()) + size > bytes.size())
        return false;
      payload = bytes.substr(in.CurrentPosition(), size);
      if (!in.Skip(static_cast<int>(size)))
        return false;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
    if (!visit(WireFormatLite::GetTagFieldNumber(tag), payload,
               bytes.slice(start, in.CurrentPosition())))
      return false;
  }
}

/// A serialized TensorProto without its data fields (float_data = 4,
/// int32_data = 5, string_data = 6, int64_data = 7, raw_data = 9,
/// double_data = 10, uint64_data = 11): name, type, dims and external data
/// locations stay.
std::optional<std::string> withoutTensorData(llvm::StringRef tensor) {
  std::string out;
  bool ok =
      forEachField(tensor, [&](uint32_t field, std::optional<llvm::StringRef>,
                               llvm::StringRef whole) {
        if (!((field >= 4 && field <= 7) || (field >= 9 && field <= 11)))
          out += whole;
        return true;
      });
  if (!ok)
    return std::nullopt;
  return out;
}

/// `message` with the length-delimited fields numbered `field` replaced by
/// what `rewrite` makes of their payload (nullopt: malformed), the other
/// fields as they are; nullopt when malformed.
template <typename F>
std::optional<std::string> rewriteFields(llvm::StringRef message,
                                         uint32_t field, F rewrite) {
  std::string out;
  bool ok = forEachField(message, [&](uint32_t number,
                                      std::optional<llvm::StringRef> payload,
                                      llvm::StringRef whole) {
    if (number != field || !payload) {
      out += whole;
      return true;
    }
    std::optional<std::string> rewritten = rewrite(*payload);
    if (!rewritten)
      return false;
    appendDelimited(out, field, *rewritten);
    return true;
  });
  if (!ok)
    return std::nullopt;
  return out;
}

/// A serialized ModelProto with the tensor data of its main graph's
/// initializers (GraphProto.initializer = 5, in ModelProto.graph = 7) left
/// out, or nullopt when `bytes` is not a well-formed message. A ResNet-50
/// is 100 MB of weights that a full parse would copy only to be thrown
/// away.
std::optional<std::string> withoutWeights(llvm::StringRef bytes) {
  return rewriteFields(bytes, 7, [](llvm::StringRef graph) {
    return rewriteFields(graph, 5, withoutTensorData);
  });
}

/// Raw data from this size on stays in the model file during an import
/// (withWeightsInPlace): weights, not the small tensors (shapes, scales)
/// that ONNX's shape inference may read.
constexpr size_t kInPlaceBytes = 64 * 1024;

/// Appends the varint field `field` = `value`.
void appendVarintField(std::string &out, uint32_t field, uint64_t value) {
  appendVarint(out,
               WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_VARINT));
  appendVarint(out, value);
}

/// A serialized TensorProto with its raw data (field 9, at least
/// kInPlaceBytes) left where it is in `file`: the tensor becomes external
/// data (data_location = 14) at that offset of the model's own bytes
/// (external_data = 13: kInModelOffset and "length" entries, key = 1,
/// value = 2). A tensor with other data, a location of its own or less raw
/// data is copied as it is.
std::optional<std::string> rawDataInPlace(llvm::StringRef tensor,
                                          llvm::StringRef file) {
  std::optional<llvm::StringRef> raw;
  bool located = false, typed = false;
  if (!forEachField(tensor, [&](uint32_t field,
                                std::optional<llvm::StringRef> payload,
                                llvm::StringRef) {
        if (field == 9)
          raw = payload;
        located |= field == 13 || field == 14;
        typed |= (field >= 4 && field <= 7) || field == 10 || field == 11;
        return true;
      }))
    return std::nullopt;
  if (!raw || raw->size() < kInPlaceBytes || located || typed)
    return std::string(tensor);
  std::string out;
  forEachField(tensor, [&](uint32_t field, std::optional<llvm::StringRef>,
                           llvm::StringRef whole) {
    if (field != 9)
      out += whole;
    return true;
  });
  auto entry = [&](llvm::StringRef key, uint64_t value) {
    std::string e;
    appendDelimited(e, 1, key);
    appendDelimited(e, 2, std::to_string(value));
    appendDelimited(out, 13, e);
  };
  entry(kInModelOffset, static_cast<uint64_t>(raw->data() - file.data()));
  entry("length", raw->size());
  appendVarintField(out, 14, 1); // EXTERNAL
  return out;
}

/// The serialized ModelProto `file` with the large raw data of its main
/// graph's initializers left in `file` (rawDataInPlace), or nullopt when
/// `file` is not a well-formed message. Parsing it copies no weights: the
/// import reads them from the file once, into the IR.
std::optional<std::string> withWeightsInPlace(llvm::StringRef file) {
  return rewriteFields(file, 7, [&](llvm::StringRef graph) {
    return rewriteFields(graph, 5, [&](llvm::StringRef tensor) {
      return rawDataInPlace(tensor, file);
    });
  });
}

/// Parses the serialized ModelProto `bytes` with its large raw weights left
/// in `bytes` (withWeightsInPlace; as it is where that does not parse),
/// which `external` then refers to: `bytes` must outlive the import.
llvm::Error parseWeightsInPlace(llvm::StringRef bytes, const std::string &name,
                                ::onnx::ModelProto &model,
                                ExternalData &external) {
  std::optional<std::string> inPlace = withWeightsInPlace(bytes);
  if (auto error =
          parseModel(inPlace ? llvm::StringRef(*inPlace) : bytes, name, model))
    return error;
  external.modelBytes = bytes;
  return llvm::Error::success();
}

} // namespace

llvm::Expected<::onnx::ModelProto>
onnximpl::readModelMetadata(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  std::optional<std::string> bytes = withoutWeights((*buffer)->getBuffer());
  ::onnx::ModelProto model;
  if (!bytes || bytes->size() > static_cast<size_t>(INT_MAX) ||
      !model.ParseFromString(*bytes))
    return makeError(path + ": not a valid ONNX model: the protobuf failed to "
                            "parse");
  return model;
}

llvm::Expected<std::vector<std::string>>
tgc::onnxModelInputNames(llvm::StringRef path) {
  auto model = onnximpl::readModelMetadata(path);
  if (!model)
    return model.takeError();
  llvm::StringSet<> initializers;
  for (const auto &initializer : model->graph().initializer())
    initializers.insert(initializer.name());
  std::vector<std::string> names;
  for (const auto &input : model->graph().input())
    if (!initializers.contains(input.name()))
      names.push_back(input.name());
  return names;
}

namespace {
int64_t mtimeNsOf(const struct stat &st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 +
         st.st_mtim.tv_nsec;
}
} // namespace

llvm::Expected<std::optional<MappedTensorBytes>>
onnximpl::mapExternalTensor(const TP &tensor, const ExternalData &external,
                            const std::string &what) {
  if (tensor.data_location() != TP::EXTERNAL || !external.externalFiles)
    return std::nullopt;
  auto entries = externalEntries(tensor, what);
  if (!entries)
    return entries.takeError();
  if (entries->inModelOffset)
    return std::nullopt;
  const std::string &location = entries->location;
  int64_t offset = entries->offset;
  std::optional<int64_t> length = entries->length;
  std::optional<DType> dtype = dtypeFromOnnx(tensor.data_type());
  auto count = HostTensor::checkedNumElements(
      std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end()));
  int64_t bytes = 0;
  if (location.empty() || !dtype || *dtype == DType::I1 || !count.ok() ||
      __builtin_mul_overflow(
          *count, static_cast<int64_t>(runtime::dtypeSize(*dtype)), &bytes) ||
      bytes < (int64_t{1} << 16) || (length && *length != bytes))
    return std::nullopt; // tensorFromProto reads it (or says what is wrong)
  auto resolved = resolveExternal(external, location, offset, bytes, what);
  if (!resolved)
    return resolved.takeError();
  auto &files = *external.externalFiles;
  auto it = files.find(resolved->path);
  if (it == files.end()) {
    std::pair<std::shared_ptr<const void>, std::shared_ptr<ModelFile>> held;
    auto buffer = llvm::MemoryBuffer::getFile(resolved->path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (buffer &&
        (*buffer)->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap) {
      std::shared_ptr<llvm::MemoryBuffer> mapping(std::move(*buffer));
      if (auto file = ModelFile::open(resolved->path)) {
        held.first = mapping;
        held.second = std::move(file);
      }
    }
    it = files.emplace(resolved->path, std::move(held)).first;
  }
  if (!it->second.first)
    return std::nullopt; // not mapped: read as before
  auto *mapping =
      static_cast<const llvm::MemoryBuffer *>(it->second.first.get());
  if (static_cast<uint64_t>(offset) + static_cast<uint64_t>(bytes) >
      mapping->getBufferSize())
    return std::nullopt;
  MappedTensorBytes out;
  out.bytes = mapping->getBuffer().substr(static_cast<size_t>(offset),
                                          static_cast<size_t>(bytes));
  out.mapping = it->second.first;
  out.file = it->second.second;
  out.offset = static_cast<uint64_t>(offset);
  return std::optional<MappedTensorBytes>(std::move(out));
}

std::shared_ptr<ModelFile> onnximpl::ModelFile::open(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return nullptr;
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return nullptr;
  }
  return std::shared_ptr<ModelFile>(
      new ModelFile(fd, static_cast<int64_t>(st.st_size), mtimeNsOf(st)));
}

bool onnximpl::ModelFile::unchanged() const {
  struct stat st;
  return ::fstat(fd, &st) == 0 && static_cast<int64_t>(st.st_size) == size &&
         mtimeNsOf(st) == mtimeNs;
}

onnximpl::ModelFile::~ModelFile() { ::close(fd); }

bool onnximpl::ModelFile::read(char *out, size_t size, uint64_t offset) const {
  while (size) {
    ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    out += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
tgc::importOnnxModel(mlir::MLIRContext &context, llvm::StringRef path,
                     const ImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  ImportOptions withName = options;
  if (withName.modelName == ImportOptions().modelName)
    withName.modelName = path.str();
  ExternalData external;
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  external.directory = dir.empty() ? "." : std::string(dir);
  std::shared_ptr<llvm::MemoryBuffer> mapped(std::move(*buffer));
  auto module = [&]() -> llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> {
    ::onnx::ModelProto model;
    llvm::StringRef file = mapped->getBuffer();
    // The weights stay in the file (a mapping, for a large one): the
    // protobuf does not hold a second copy, and the IR's large constants
    // read them from there when needed (file-backed constants).
    if (auto error =
            parseWeightsInPlace(file, withName.modelName, model, external))
      return std::move(error);
    external.modelBytesMapped =
        mapped->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap;
    if (external.modelBytesMapped) {
      external.modelFile = ModelFile::open(path.str());
      if (external.modelFile)
        external.modelMapping = mapped;
    }
    return importParsed(context, model, external, withName);
  }();
  // The file-backed constants keep the mapping they view, but none of its
  // pages: those parsing touched (and their neighbours, which a fault maps
  // too) go; the constants read their bytes with pread.
  if (external.modelBytesMapped)
    runtime::releaseWholePages(mapped->getBufferStart(),
                               mapped->getBufferSize());
  external.modelMapping.reset();
  mapped.reset();
  // The protobuf's copies of smaller tensors are gone: their pages too.
  runtime::releaseFreedHeapMemory();
  return module;
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
tgc::importOnnxModelFromBytes(mlir::MLIRContext &context, llvm::StringRef bytes,
                              const ImportOptions &options) {
  ExternalData external;
  external.directory = options.modelDirectory;
  ::onnx::ModelProto model;
  // As from a file: the weights stay in `bytes` until the IR copies them.
  if (auto error =
          parseWeightsInPlace(bytes, options.modelName, model, external))
    return std::move(error);
  return importParsed(context, model, external, options);
}

//===----------------------------------------------------------------------===//
// Value structures
//===----------------------------------------------------------------------===//

int64_t ValueStructure::numTensors() const {
  if (kind == Kind::Tensor)
    return 1;
  int64_t n = 0;
  for (const ValueStructure &e : elements)
    n += e.numTensors();
  return n;
}

std::string ValueStructure::str() const {
  if (kind == Kind::Tensor)
    return "tensor";
  std::string text = kind == Kind::Sequence ? "seq[" : "optional[";
  for (auto [i, e] : llvm::enumerate(elements))
    text += (i ? "," : "") + e.str();
  return text + "]";
}

namespace {
llvm::Expected<ValueStructure>
parseStructure(llvm::StringRef &text, llvm::StringRef whole, unsigned depth) {
  auto bad = [&](const llvm::Twine &why) {
    return makeError("malformed value structure '" + whole + "' at offset " +
                     llvm::Twine(whole.size() - text.size()) + ": " + why);
  };
  if (depth > 64)
    return bad("nested more than 64 deep");
  if (text.consume_front("tensor"))
    return ValueStructure::tensor();
  ValueStructure s;
  if (text.consume_front("seq["))
    s.kind = ValueStructure::Kind::Sequence;
  else if (text.consume_front("optional["))
    s.kind = ValueStructure::Kind::Optional;
  else
    return bad("expected 'tensor', 'seq[' or 'optional['");
  while (!text.consume_front("]")) {
    if (!s.elements.empty() && !text.consume_front(","))
      return bad("expected ',' or ']'");
    auto element = parseStructure(text, whole, depth + 1);
    if (!element)
      return element.takeError();
    s.elements.push_back(std::move(*element));
  }
  if (s.kind == ValueStructure::Kind::Optional && s.elements.size() > 1)
    return bad("an optional holds at most one value");
  return s;
}
} // namespace

llvm::Expected<ValueStructure> ValueStructure::parse(llvm::StringRef text) {
  llvm::StringRef rest = text;
  auto s = parseStructure(rest, text, 0);
  if (s && !rest.empty())
    return makeError("malformed value structure '" + text + "': unexpected '" +
                     rest + "' after it");
  return s;
}

std::string onnximpl::onnxValueTypeString(const ::onnx::TypeProto &type) {
  if (type.has_tensor_type())
    return "tensor";
  if (type.has_sequence_type())
    return "seq(" + onnxValueTypeString(type.sequence_type().elem_type()) + ")";
  if (type.has_optional_type())
    return "optional(" + onnxValueTypeString(type.optional_type().elem_type()) +
           ")";
  if (type.has_map_type())
    return "map";
  if (type.has_sparse_tensor_type())
    return "sparse_tensor";
  return "unknown";
}

llvm::Expected<OnnxValueTypes> tgc::onnxModelValueTypes(llvm::StringRef path) {
  auto model = onnximpl::readModelMetadata(path);
  if (!model)
    return model.takeError();
  llvm::StringSet<> initializers;
  for (const auto &initializer : model->graph().initializer())
    initializers.insert(initializer.name());
  OnnxValueTypes types;
  for (const auto &input : model->graph().input())
    if (!initializers.contains(input.name()))
      types.inputs.push_back(onnxValueTypeString(input.type()));
  for (const auto &output : model->graph().output())
    types.outputs.push_back(onnxValueTypeString(output.type()));
  return types;
}

namespace {
/// The tensor a TensorProto read from `path` holds (external data next to
/// the file); `noDataType` ends the message for one without a valid data
/// type.
llvm::Expected<HostTensor>
tensorFromFile(const TP &tensor, llvm::StringRef path,
               llvm::StringRef noDataType = "no valid data type") {
  if (!tensor.has_data_type() || !TP::DataType_IsValid(tensor.data_type()))
    return makeError(path + ": not an ONNX TensorProto (" + noDataType + ")");
  ExternalData external;
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  external.directory = dir.empty() ? "." : std::string(dir);
  std::string what = path.str() + ": tensor";
  if (!tensor.name().empty())
    what += " '" + tensor.name() + "'";
  try {
    return tensorFromProto(tensor, external, what);
  } catch (const std::exception &e) {
    return makeError(what + ": " + e.what());
  }
}

/// Appends the value of `type` held by a SequenceProto's or OptionalProto's
/// fields to `value`.
llvm::Error readStructured(const ::onnx::SequenceProto *seq,
                           const ::onnx::OptionalProto *opt,
                           llvm::StringRef type, llvm::StringRef path,
                           OnnxValue &value, ValueStructure &structure,
                           unsigned depth);

llvm::Error readElement(llvm::StringRef type, const TP *tensor,
                        const ::onnx::SequenceProto *seq,
                        const ::onnx::OptionalProto *opt, llvm::StringRef path,
                        OnnxValue &value, ValueStructure &structure,
                        unsigned depth) {
  if (type == "tensor") {
    if (!tensor)
      return makeError(path + ": expected a tensor");
    auto t = tensorFromFile(*tensor, path);
    if (!t)
      return t.takeError();
    value.tensors.push_back(std::move(*t));
    structure = ValueStructure::tensor();
    return llvm::Error::success();
  }
  return readStructured(seq, opt, type, path, value, structure, depth + 1);
}

llvm::Error readStructured(const ::onnx::SequenceProto *seq,
                           const ::onnx::OptionalProto *opt,
                           llvm::StringRef type, llvm::StringRef path,
                           OnnxValue &value, ValueStructure &structure,
                           unsigned depth) {
  if (depth > 64)
    return makeError(path + ": values nested more than 64 deep");
  llvm::StringRef inner = type;
  if (inner.consume_front("seq(") && inner.consume_back(")")) {
    if (!seq)
      return makeError(path + ": expected a sequence");
    structure = ValueStructure::sequence({});
    int n = std::max({seq->tensor_values_size(), seq->sequence_values_size(),
                      seq->optional_values_size()});
    for (int i = 0; i < n; ++i) {
      ValueStructure element;
      if (auto error = readElement(
              inner,
              i < seq->tensor_values_size() ? &seq->tensor_values(i) : nullptr,
              i < seq->sequence_values_size() ? &seq->sequence_values(i)
                                              : nullptr,
              i < seq->optional_values_size() ? &seq->optional_values(i)
                                              : nullptr,
              path, value, element, depth))
        return error;
      structure.elements.push_back(std::move(element));
    }
    return llvm::Error::success();
  }
  inner = type;
  if (inner.consume_front("optional(") && inner.consume_back(")")) {
    if (!opt)
      return makeError(path + ": expected an optional");
    structure = ValueStructure::optional(std::nullopt);
    bool present = opt->has_tensor_value() || opt->has_sequence_value() ||
                   opt->has_optional_value();
    if (!present)
      return llvm::Error::success();
    ValueStructure element;
    if (auto error = readElement(
            inner, opt->has_tensor_value() ? &opt->tensor_value() : nullptr,
            opt->has_sequence_value() ? &opt->sequence_value() : nullptr,
            opt->has_optional_value() ? &opt->optional_value() : nullptr, path,
            value, element, depth))
      return error;
    structure.elements.push_back(std::move(element));
    return llvm::Error::success();
  }
  return makeUnsupportedError(path + ": values of type " + type +
                              " are not supported");
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readProtoFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  if ((*buffer)->getBufferSize() > static_cast<size_t>(INT_MAX))
    return makeError(path + ": larger than a protobuf can be");
  return std::move(*buffer);
}
} // namespace

llvm::Expected<OnnxValue> tgc::readValueProto(llvm::StringRef path,
                                              llvm::StringRef type) {
  auto buffer = readProtoFile(path);
  if (!buffer)
    return buffer.takeError();
  llvm::StringRef bytes = (*buffer)->getBuffer();
  OnnxValue value;
  auto parseFailed = [&](const char *what) {
    return makeError(path + ": not a valid ONNX " + what +
                     " (the protobuf failed to parse)");
  };
  try {
    if (type == "tensor") {
      TP tensor;
      if (!tensor.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return parseFailed("TensorProto");
      if (auto error = readElement(type, &tensor, nullptr, nullptr, path, value,
                                   value.structure, 0))
        return std::move(error);
      return value;
    }
    if (type.starts_with("seq(")) {
      ::onnx::SequenceProto seq;
      if (!seq.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return parseFailed("SequenceProto");
      if (auto error = readStructured(&seq, nullptr, type, path, value,
                                      value.structure, 0))
        return std::move(error);
      return value;
    }
    if (type.starts_with("optional(")) {
      ::onnx::OptionalProto opt;
      if (!opt.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return parseFailed("OptionalProto");
      if (auto error = readStructured(nullptr, &opt, type, path, value,
                                      value.structure, 0))
        return std::move(error);
      return value;
    }
  } catch (const std::exception &e) {
    return makeError(path + ": " + e.what());
  }
  return makeUnsupportedError(path + ": values of type " + type +
                              " are not supported");
}

llvm::Expected<HostTensor> tgc::readTensorProto(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  TP tensor;
  if (bytes.size() > static_cast<size_t>(INT_MAX) ||
      !tensor.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return makeError(path + ": not a valid ONNX TensorProto (the protobuf "
                            "failed to parse)");
  return tensorFromFile(tensor, path,
                        "no valid data type; sequences and optionals are not "
                        "supported");
}
