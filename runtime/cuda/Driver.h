//===- Driver.h - the CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// tgc never links libcuda: the stub in the toolkit has the SONAME
// libcuda.so.1, so a binary linked against it would not even start on a
// machine without a driver. Instead the driver is dlopen'ed on first use and
// the entry points tgc calls are looked up with dlsym. The few types and
// constants needed are declared here (the driver ABI is stable), so this
// file and runtime/cuda build without the CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_DRIVER_H
#define TGC_RUNTIME_CUDA_DRIVER_H

#include "tgc/AbslStatus.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tgc::cuda {

// Driver API types (cuda.h).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
using CUcontext = CUctx_st *;
struct CUstream_st;
using CUstream = CUstream_st *;
struct CUmod_st;
using CUmodule = CUmod_st *;
struct CUfunc_st;
using CUfunction = CUfunc_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;

/// The driver entry points tgc uses. Versioned ones are looked up under
/// their current names (cuMemAlloc_v2, ...), as cuda.h maps them.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorString)(CUresult error, const char **str);
  CUresult (*cuGetErrorName)(CUresult error, const char **str);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemGetInfo)(size_t *free, size_t *total);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
                                CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
                                CUstream stream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                CUstream stream);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gridX, unsigned gridY,
                             unsigned gridZ, unsigned blockX, unsigned blockY,
                             unsigned blockZ, unsigned sharedBytes,
                             CUstream stream, void **params, void **extra);

  /// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result, const char *what) const;
  /// OK for CUDA_SUCCESS, else an internal error described as above
  /// (resource exhausted for out of memory).
  absl::Status check(CUresult result, const char *what) const;
};

/// The name tgc loads: libcuda.so.1, or $TGC_CUDA_DRIVER when it is set
/// (tests point it at libraries that are not a driver).
std::string driverLibraryName();

/// Loads the driver from `library` and calls cuInit(0). Errors (never
/// crashes): "no CUDA driver (<library> not found)" when dlopen fails,
/// "no CUDA driver (<library> lacks <symbol>)" when an entry point is
/// missing, "no CUDA device (cuInit: ...)" when cuInit fails (no device or
/// a driver/kernel-module mismatch). The returned API is never unloaded.
absl::StatusOr<const DriverApi *> loadDriverFrom(const std::string &library);

/// loadDriverFrom(driverLibraryName()), once per process (the result,
/// error included, is cached).
absl::StatusOr<const DriverApi *> loadDriver();

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_DRIVER_H
