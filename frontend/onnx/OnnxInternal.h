//===- OnnxInternal.h - shared by the ONNX importer's files -----*- C++ -*-===//
//
// Internal to frontend/onnx: protobuf-level helpers (tensor conversion,
// external data, dtype mapping) used by Model.cpp, Importer.cpp and the
// converters (ImporterInternal.h).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_ONNX_ONNXINTERNAL_H
#define TGC_FRONTEND_ONNX_ONNXINTERNAL_H

#include "frontend/onnx/OnnxImporter.h"
#include "tgc/AbslStatus.h"
#include "tgc/DType.h"
#include "tgc/HostTensor.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

namespace tgc::onnximpl {

inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// An error for a valid model that uses something tgc does not support (see
/// isUnsupportedImport).
inline llvm::Error makeUnsupportedError(const llvm::Twine &message) {
  return llvm::createStringError(std::make_error_code(std::errc::not_supported),
                                 message);
}

/// `error` with `prefix` put before its message; the error code (unsupported
/// or not) is kept.
inline llvm::Error prefixError(const llvm::Twine &prefix, llvm::Error error) {
  std::error_code code = llvm::inconvertibleErrorCode();
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
    if (!message.empty())
      message += "; ";
    message += e.message();
    if (e.convertToErrorCode() == unsupportedErrorCode())
      code = unsupportedErrorCode();
  });
  return llvm::createStringError(code, prefix + message);
}

/// The tgc dtype of an ONNX TensorProto::DataType, or nullopt.
std::optional<runtime::DType> dtypeFromOnnx(int32_t dataType);
/// The ONNX data type of a tgc dtype.
int32_t onnxFromDType(runtime::DType dtype);
/// "FLOAT", "UINT8", ... (or "<unknown N>").
std::string onnxTypeName(int32_t dataType);

/// A model file held open: file-backed constants read their bytes again
/// from it (pread) after their copies were let go.
class ModelFile {
public:
  /// Opens `path`; null when it cannot be opened.
  static std::shared_ptr<ModelFile> open(const std::string &path);
  ~ModelFile();
  ModelFile(const ModelFile &) = delete;
  ModelFile &operator=(const ModelFile &) = delete;
  /// Reads `size` bytes at `offset`; false on a short read or an error.
  bool read(char *out, size_t size, uint64_t offset) const;
  /// Whether the file has the size and modification time it had when
  /// opened (a file renamed over it leaves this one as it was).
  bool unchanged() const;

private:
  ModelFile(int fd, int64_t size, int64_t mtimeNs)
      : fd(fd), size(size), mtimeNs(mtimeNs) {}
  int fd;
  int64_t size, mtimeNs;
};

/// Where external data files may be read from. Empty: none allowed.
struct ExternalData {
  std::string directory;
  /// The bytes of the model file being imported (valid during the import),
  /// where the main graph's large raw initializers stay: they refer to it
  /// as external data under kInModelOffset (withWeightsInPlace): the
  /// file's, or the caller's bytes for importOnnxModelFromBytes.
  llvm::StringRef modelBytes;
  /// Whether `modelBytes` is a read-only file mapping whose pages may be
  /// dropped once read (they come back from the file if read again).
  bool modelBytesMapped = false;
  /// With a mapped model file: what keeps the mapping alive, and the file
  /// itself, open. The large initializers then become file-backed constants
  /// (dialects/ConstantData.h) that read their bytes from there when
  /// something needs them, instead of copies in the IR.
  std::shared_ptr<const void> modelMapping;
  std::shared_ptr<ModelFile> modelFile;
  /// External data files mapped and held open for file-backed constants
  /// (mapExternalTensor), by resolved path: filled during the import.
  std::shared_ptr<std::map<std::string, std::pair<std::shared_ptr<const void>,
                                                  std::shared_ptr<ModelFile>>>>
      externalFiles = std::make_shared<
          std::map<std::string, std::pair<std::shared_ptr<const void>,
                                          std::shared_ptr<ModelFile>>>>();
};

/// An external data tensor's bytes in its mapped file (a file-backed
/// constant's source): a view of the mapping, the mapping's owner, the
/// file held open and the bytes' offset in it.
struct MappedTensorBytes {
  llvm::StringRef bytes;
  std::shared_ptr<const void> mapping;
  std::shared_ptr<ModelFile> file;
  uint64_t offset = 0;
};

/// For a tensor of 64 KiB and up whose data is in an external file (not in
/// the model: kInModelOffset), of a dtype other than bool: its bytes in
/// that file, mapped (checked as tensorFromProto checks them: a location
/// inside the model's directory, an offset and length inside the file, the
/// length the shape needs). nullopt for other tensors, or where the file
/// is not mapped; an error for a malformed reference.
llvm::Expected<std::optional<MappedTensorBytes>>
mapExternalTensor(const ::onnx::TensorProto &tensor,
                  const ExternalData &external, const std::string &what);

/// The external_data key of an initializer whose raw data was left in the
/// model file at this offset (importOnnxModel), with a "length" entry.
inline constexpr const char *kInModelOffset = "tgc.in-model-offset";

/// An in-model initializer's bytes (kInModelOffset, checked against the
/// model's size and the tensor's shape and type), nullopt for any other
/// tensor; an error for a malformed reference.
llvm::Expected<std::optional<llvm::StringRef>>
inModelBytes(const ::onnx::TensorProto &tensor, const ExternalData &external,
             const std::string &what);

/// Converts a TensorProto (typed fields, raw_data or external data) into a
/// host tensor; `what` names it in errors ("initializer 'w'").
llvm::Expected<runtime::HostTensor>
tensorFromProto(const ::onnx::TensorProto &tensor, const ExternalData &external,
                const std::string &what);

/// A view (no copy) of a TensorProto's raw data where those bytes are the
/// tensor's: raw data inside the model, of its shape's size, aligned for its
/// element type, a dtype other than bool (whose bytes tensorFromProto
/// normalizes). nullopt otherwise (tensorFromProto then converts, and reports
/// what is wrong). The view must not outlive `tensor`.
std::optional<runtime::HostTensor>
viewTensorProto(const ::onnx::TensorProto &tensor);

/// Checks a TensorProto's dims (non-negative, element count and byte size
/// within int64) against the data it holds (raw bytes, typed values; an
/// external tensor is checked when read), allocating nothing.
llvm::Error checkTensorData(const ::onnx::TensorProto &tensor,
                            runtime::DType dtype, const std::string &what);

/// Checks what ONNX 1.12's shape inference and version converter assume of
/// `model` and crash on (segfaults, unbounded allocation) when it does not
/// hold: initializers whose dims claim more data than they have, graph
/// outputs no node, input or initializer produces, convolutions whose
/// weights are not rank >= 3 with non-zero dims or whose input and weight
/// ranks differ, MaxUnpool without its indices. The error names the node.
llvm::Error checkOnnxLibraryAssumptions(const ::onnx::ModelProto &model,
                                        const std::string &modelName);

/// Reads and parses the serialized ModelProto at `path` (no checks) for
/// what it says about the model, without its weights: the main graph's
/// initializers keep their names, types and dims but not their data.
llvm::Expected<::onnx::ModelProto> readModelMetadata(llvm::StringRef path);

/// "tensor", "seq(T)" or "optional(T)" for an ONNX type; "map" and
/// "sparse_tensor" for those, "unknown" for none.
std::string onnxValueTypeString(const ::onnx::TypeProto &type);

/// Imports a checked, shape-inferred model.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importModelProto(mlir::MLIRContext &context, ::onnx::ModelProto &model,
                 const ExternalData &external, const ImportOptions &options);

} // namespace tgc::onnximpl

#endif // TGC_FRONTEND_ONNX_ONNXINTERNAL_H
