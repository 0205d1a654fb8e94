//===- ConstantData.h - the bytes of tgc.constant values --------*- C++ -*-===//
//
// A tgc.constant holds a DenseElementsAttr (its data in the MLIR context,
// for ever) or a DenseResourceElementsAttr (MLIR's resource blobs: what
// `dense_resource<name>` parses to, and what the ONNX importer makes of a
// large initializer, whose blob views the model file's mapping and which
// never holds the weights in the context: file-backed constants).
//
// Code that reads a constant's elements takes them from readConstantBytes:
// the bytes of the elements, aligned for their type, valid while the
// returned ConstantBytes lives. For a file-backed constant they are a copy
// read from the file, shared by every reader holding one; when the last
// holder lets go, its pages go back to the system (the copy's address stays
// reserved while anything anchors it, so that caches keyed by that address,
// runtime::cpu::PrepackCache, stay valid). A compiled plan therefore holds
// the weights once, prepacked, instead of the IR's copy plus its own.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECTS_CONSTANTDATA_H
#define TGC_DIALECTS_CONSTANTDATA_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/FunctionExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tgc {

/// The bytes of a constant's elements, row-major, in the element type's
/// storage (a byte per i8/ui8, little-endian words), aligned to the element
/// size.
struct ConstantBytes {
  llvm::ArrayRef<char> bytes;
  /// Keeps `bytes` valid and resident while held; null when the MLIR
  /// context owns them (a DenseElementsAttr, a blob of its own).
  std::shared_ptr<const void> pin;
  /// Keeps the address of `bytes` reserved (not their contents) while held:
  /// the identity of a file-backed constant's copy; null when the context
  /// owns them.
  std::shared_ptr<const void> anchor;
  /// Whether `bytes` are a file-backed constant's copy: pinConstantBytes
  /// makes them resident again after `pin` was let go.
  bool fileBacked = false;

  const char *data() const { return bytes.data(); }
  size_t size() const { return bytes.size(); }
};

/// Bytes per element of a constant of `elementType` stored densely: whole
/// bytes of an integer or float type; nullopt for i1 and other types
/// (which only DenseElementsAttr stores).
std::optional<int64_t> constantElementBytes(mlir::Type elementType);

/// Whether `value` can be a tgc.constant's value: a DenseElementsAttr of a
/// static shape, or a DenseResourceElementsAttr of a static shape whose
/// element type constantElementBytes takes and whose blob holds exactly
/// its elements' bytes. Errors go to `emitError`.
mlir::LogicalResult
verifyConstantValue(mlir::ElementsAttr value,
                    llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The elements of a non-splat constant (see ConstantBytes); nullopt for a
/// splat, an i1 or other non-byte element type, or a resource without its
/// data. A blob's unaligned data comes as an aligned copy. A file-backed
/// constant whose file no longer holds its bytes gives nullopt and, with
/// `error`, says so there (empty in every other nullopt case).
std::optional<ConstantBytes> readConstantBytes(mlir::ElementsAttr value,
                                               std::string *error = nullptr);

/// Pins `held` (readConstantBytes's, of a file-backed constant) again:
/// its bytes, read back from the file if they were let go, stay valid and
/// resident while the result lives. Null (and `error` says why) when the
/// file no longer holds them; null without an error for bytes that are not
/// file-backed (always resident).
std::shared_ptr<const void> pinConstantBytes(const ConstantBytes &held,
                                             std::string *error = nullptr);

/// Calls `visit` with the bytes of a constant as stored (maybe unaligned,
/// maybe in several pieces: for hashing, not for reading typed elements; a
/// file-backed constant's read from its file a piece at a time). False
/// when it has none, or its file can no longer be read.
bool visitStoredConstantBytes(
    mlir::ElementsAttr value,
    llvm::function_ref<void(llvm::ArrayRef<char>)> visit);

/// The elements of a float or integer constant as doubles, row-major (one
/// for a splat DenseElementsAttr); nullopt for other element types, more
/// than `maxCount` stored elements, or a resource without its data.
std::optional<std::vector<double>> constantAsDoubles(mlir::ElementsAttr value,
                                                     int64_t maxCount);

/// Whether `value` stores every element (a non-splat DenseElementsAttr or a
/// dense_resource): the constants whose bytes readConstantBytes gives.
bool storesElements(mlir::Attribute value);

/// `value` with the type `type` of as many elements (a reshape): a
/// DenseElementsAttr reshaped, or a dense_resource of the same blob. Null
/// for other attributes.
mlir::ElementsAttr reshapeConstant(mlir::Attribute value,
                                   mlir::ShapedType type);

/// Whether `value` is a file-backed constant (makeFileBackedConstant).
bool isFileBackedConstant(mlir::ElementsAttr value);

/// Where a file-backed constant's bytes are read from: the file (an open
/// descriptor) and the offset of the bytes. Every read first checks that
/// the file is still the one imported: a file changed since is an error.
struct ConstantFileSource {
  /// Keeps the mapping `bytes` views alive.
  std::shared_ptr<const void> mapping;
  /// Reads `size` bytes at `offset` of the file into `out`; false when it
  /// cannot (the file shrank or went).
  std::function<bool(char *out, size_t size, uint64_t offset)> read;
  /// Whether the file is as imported (its size and modification time);
  /// null: not checked.
  std::function<bool()> unchanged;
  uint64_t offset = 0;
};

/// A constant of `type` (static shape, element type constantElementBytes
/// takes) whose elements are `fileBytes`, a view of a read-only file
/// mapping (maybe unaligned) that `source.mapping` keeps alive: a
/// DenseResourceElementsAttr named after `name` (made unique in the
/// context) whose blob views those bytes (for the printer). Readers get
/// them read from the file (`source.read`, not through the mapping: a file
/// cut short after the import is an error, not a fault); only printing the
/// blob touches the mapping.
mlir::ElementsAttr makeFileBackedConstant(mlir::RankedTensorType type,
                                          llvm::StringRef name,
                                          llvm::ArrayRef<char> fileBytes,
                                          ConstantFileSource source);

/// The bytes of file-backed constants' copies resident now, in this
/// process (tests and memory reports).
int64_t residentFileBackedBytes();

} // namespace tgc

#endif // TGC_DIALECTS_CONSTANTDATA_H
