//===- Backends.cpp - registering the backends built in -------------------===//

#include "codegen/Backends.h"

#include <mutex>

void tgc::codegen::registerAllBackends() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerReferenceBackend();
    registerCpuBackend();
#ifdef TGC_HAVE_CUDA_CODEGEN
    registerCudaBackend();
#endif
  });
}
