//===- TensorLiteralFuzzer.cpp - tgc-run's literal input specs
//-------------===//
//
// tgc::parseTensorLiteral (`2x3xf32=1,2,...`) on arbitrary text: an error or
// a tensor of at most kMaxLiteralElements, never a crash.
//
//===----------------------------------------------------------------------===//

#include "tools/lib/TensorLiteral.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto tensor = tgc::parseTensorLiteral(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }
  if (tensor->numElements() > tgc::kMaxLiteralElements)
    std::abort();
  return 0;
}
