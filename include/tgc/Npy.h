//===- Npy.h - NumPy .npy reading and writing -------------------*- C++ -*-===//
//
// Reads and writes HostTensors in NumPy's .npy format (format versions 1.0,
// 2.0 and 3.0). Supported descrs: f2, f4, f8, i1, i4, i8 and b1, in either
// byte order (big-endian data is byte-swapped on read); fortran_order arrays
// are transposed into row-major. NumPy has no bfloat16, so BF16 tensors are
// written as '<f4' (an exact upcast) and reading never produces BF16.
// Malformed input gives InvalidArgument, never a crash. Pure C++, no
// LLVM/MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_NPY_H
#define TGC_NPY_H

#include "tgc/HostTensor.h"

#include "tgc/Status.h"

#include <string>
#include <string_view>

namespace tgc::runtime {

/// Parses the contents of a .npy file. Bytes after the array data are ignored.
StatusOr<HostTensor> parseNpy(std::string_view bytes);

/// Reads and parses a .npy file.
StatusOr<HostTensor> readNpy(const std::string &path);

/// Serializes `tensor` the way numpy.save does (format 1.0 unless the header
/// needs 2.0; data 64-byte aligned; little-endian, C order).
StatusOr<std::string> serializeNpy(const HostTensor &tensor);

/// Serializes `tensor` and writes it to `path`.
Status writeNpy(const std::string &path, const HostTensor &tensor);

} // namespace tgc::runtime

#endif // TGC_NPY_H
