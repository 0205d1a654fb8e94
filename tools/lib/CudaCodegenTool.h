//===- CudaCodegenTool.h - the tgc-cuda-codegen tool ------------*- C++ -*-===//

#ifndef TGC_TOOLS_LIB_CUDACODEGENTOOL_H
#define TGC_TOOLS_LIB_CUDACODEGENTOOL_H

namespace tgc {

/// tgc-cuda-codegen FILE [--emit=cuda|ptx] [--arch=sm_90]
///                  [--pass-pipeline=...] [--verify-diagnostics] [-o PATH]
/// Prints the CUDA C++ generated for the module's loop fusions, or the PTX
/// NVRTC compiles it to.
int cudaCodegenToolMain(int argc, char **argv);

} // namespace tgc

#endif // TGC_TOOLS_LIB_CUDACODEGENTOOL_H
