//===- TensorInfo.h - a named tensor's dtype and shape ----------*- C++ -*-===//
//
// Part of the public API: no MLIR, LLVM or ONNX header.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TENSORINFO_H
#define TGC_TENSORINFO_H

#include "tgc/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tgc {

/// A graph input or output: its name, dtype and shape (kDynamic, -1, for a
/// dim known only when the model runs).
struct TensorInfo {
  std::string name;
  runtime::DType dtype = runtime::DType::F32;
  std::vector<int64_t> shape;
};

} // namespace tgc

#endif // TGC_TENSORINFO_H
