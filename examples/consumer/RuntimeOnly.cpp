// Links tgc::runtime alone: writes a tensor to .npy and reads it back.
// `ldd runtime-only` lists no LLVM, MLIR, ONNX or NVRTC library.
//
//   runtime-only OUT.npy

#include <tgc/HostTensor.h>
#include <tgc/Npy.h>

#include <cstdio>

using tgc::runtime::DType;
using tgc::runtime::HostTensor;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: runtime-only OUT.npy\n");
    return 2;
  }
  auto t = *HostTensor::allocate(DType::F32, {2, 3});
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.dataAs<float>()[i] = static_cast<float>(i) * 1.5f;
  if (auto status = tgc::runtime::writeNpy(argv[1], t); !status.ok()) {
    std::fprintf(stderr, "runtime-only: %s\n",
                 std::string(status.message()).c_str());
    return 1;
  }
  auto back = tgc::runtime::readNpy(argv[1]);
  if (!back.ok() || back->shape() != t.shape()) {
    std::fprintf(stderr, "runtime-only: reading back failed\n");
    return 1;
  }
  for (int64_t i = 0; i < t.numElements(); ++i)
    if (back->dataAs<float>()[i] != t.dataAs<float>()[i]) {
      std::fprintf(stderr, "runtime-only: element %ld differs\n",
                   static_cast<long>(i));
      return 1;
    }
  std::printf("runtime-only: 2x3xf32 round trip through %s\n", argv[1]);
  return 0;
}
