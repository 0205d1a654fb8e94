//===- NpyFuzzer.cpp - .npy parsing ---------------------------------------===//
//
// runtime::parseNpy on arbitrary bytes: an error or a tensor whose bytes
// match its shape, never a crash, an overflow or an unbounded allocation.
//
//===----------------------------------------------------------------------===//

#include "tgc/Npy.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto tensor = tgc::runtime::parseNpy(
      std::string_view(reinterpret_cast<const char *>(data), size));
  if (tensor.ok() &&
      tensor->byteSize() !=
          tensor->numElements() *
              static_cast<int64_t>(tgc::runtime::dtypeSize(tensor->dtype())))
    std::abort();
  return 0;
}
