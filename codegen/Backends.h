//===- Backends.h - registering the backends built in ----------*- C++ -*-===//
//
// Each backend library has its own registration function; this one calls
// those of the backends this build has (the CUDA backend only where it was
// configured). Registration is idempotent and thread-safe; clients call it
// once before selecting a backend by name (codegen/Backend.h).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_BACKENDS_H
#define TGC_CODEGEN_BACKENDS_H

namespace tgc::codegen {

/// The reference interpreter ("reference"), in codegen/reference.
void registerReferenceBackend();
/// oneDNN primitives and generated loops ("cpu"), in codegen/cpu.
void registerCpuBackend();
/// Generated CUDA kernels, cuBLASLt and cuDNN ("cuda"), in codegen/cuda;
/// only in builds with CUDA code generation.
void registerCudaBackend();

/// Registers every backend of this build.
void registerAllBackends();

} // namespace tgc::codegen

#endif // TGC_CODEGEN_BACKENDS_H
