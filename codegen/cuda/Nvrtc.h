//===- Nvrtc.h - CUDA C++ to PTX or cubin with NVRTC ------------*- C++ -*-===//
//
// NVRTC compiles without a GPU or driver, so generated kernels are compiled
// (and their PTX checked) on every machine with the toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CUDA_NVRTC_H
#define TGC_CODEGEN_CUDA_NVRTC_H

#include "tgc/AbslStatus.h"

#include <string>

namespace tgc::cuda {

enum class ImageKind {
  /// PTX for the arch's virtual architecture (compute_NN); the driver
  /// JIT-compiles it for the GPU present (also newer ones).
  Ptx,
  /// SASS for exactly sm_NN.
  Cubin,
};

/// The compute capability of "sm_90" / "compute_90" / "90" as 90; an error
/// for anything else or an arch NVRTC cannot target.
absl::StatusOr<int> parseArch(const std::string &arch);

/// Compiles `source` for `arch` ("sm_90"). Errors carry NVRTC's log. With
/// a cubin, `ptx` (when given) receives the PTX of the same compilation
/// (`.target sm_NN`, which the driver can JIT for newer GPUs).
absl::StatusOr<std::string> compileCuda(const std::string &source,
                                        const std::string &arch,
                                        ImageKind kind = ImageKind::Ptx,
                                        std::string *ptx = nullptr);

/// "NVRTC 13.0".
std::string nvrtcVersion();

} // namespace tgc::cuda

#endif // TGC_CODEGEN_CUDA_NVRTC_H
