//===- Driver.cpp - the CUDA driver API, loaded at run time ---------------===//

#include "runtime/cuda/Driver.h"
#include "runtime/Environment.h"

#include "absl/strings/str_cat.h"

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <mutex>

using namespace tgc::cuda;

std::string DriverApi::describe(CUresult result, const char *what) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  return absl::StrCat(
      what, " failed: ", name ? name : absl::StrCat("CUresult ", result), " (",
      text ? text : "unknown error", ")");
}

absl::Status DriverApi::check(CUresult result, const char *what) const {
  if (result == CUDA_SUCCESS)
    return absl::OkStatus();
  std::string message = describe(result, what);
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

std::string tgc::cuda::driverLibraryName() {
  if (std::string name = runtime::env::text("TGC_CUDA_DRIVER"); !name.empty())
    return name;
  return "libcuda.so.1";
}

namespace {
template <typename Fn> bool lookup(void *handle, const char *symbol, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return fn != nullptr;
}
} // namespace

absl::StatusOr<const DriverApi *>
tgc::cuda::loadDriverFrom(const std::string &library) {
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return absl::NotFoundError(
        absl::StrCat("no CUDA driver (", library, " not found)"));
  auto api = std::make_unique<DriverApi>();
  const char *missing = nullptr;
#define TGC_LOOKUP(field, symbol)                                              \
  if (!missing && !lookup(handle, symbol, api->field))                         \
    missing = symbol;
  TGC_LOOKUP(cuInit, "cuInit")
  TGC_LOOKUP(cuDriverGetVersion, "cuDriverGetVersion")
  TGC_LOOKUP(cuGetErrorString, "cuGetErrorString")
  TGC_LOOKUP(cuGetErrorName, "cuGetErrorName")
  TGC_LOOKUP(cuDeviceGetCount, "cuDeviceGetCount")
  TGC_LOOKUP(cuDeviceGet, "cuDeviceGet")
  TGC_LOOKUP(cuDeviceGetName, "cuDeviceGetName")
  TGC_LOOKUP(cuDeviceGetAttribute, "cuDeviceGetAttribute")
  TGC_LOOKUP(cuDeviceTotalMem, "cuDeviceTotalMem_v2")
  TGC_LOOKUP(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  TGC_LOOKUP(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")
  TGC_LOOKUP(cuCtxSetCurrent, "cuCtxSetCurrent")
  TGC_LOOKUP(cuCtxSynchronize, "cuCtxSynchronize")
  TGC_LOOKUP(cuMemAlloc, "cuMemAlloc_v2")
  TGC_LOOKUP(cuMemFree, "cuMemFree_v2")
  TGC_LOOKUP(cuMemGetInfo, "cuMemGetInfo_v2")
  TGC_LOOKUP(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")
  TGC_LOOKUP(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")
  TGC_LOOKUP(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")
  TGC_LOOKUP(cuStreamCreate, "cuStreamCreate")
  TGC_LOOKUP(cuStreamDestroy, "cuStreamDestroy_v2")
  TGC_LOOKUP(cuStreamSynchronize, "cuStreamSynchronize")
  TGC_LOOKUP(cuModuleLoadData, "cuModuleLoadData")
  TGC_LOOKUP(cuModuleUnload, "cuModuleUnload")
  TGC_LOOKUP(cuModuleGetFunction, "cuModuleGetFunction")
  TGC_LOOKUP(cuLaunchKernel, "cuLaunchKernel")
#undef TGC_LOOKUP
  if (missing) {
    dlclose(handle);
    return absl::NotFoundError(
        absl::StrCat("no CUDA driver (", library, " lacks ", missing, ")"));
  }
  if (CUresult r = api->cuInit(0); r != CUDA_SUCCESS)
    return absl::NotFoundError(
        absl::StrCat("no CUDA device (", api->describe(r, "cuInit"), ")"));
  // Kept for the life of the process, like the library.
  return api.release();
}

absl::StatusOr<const DriverApi *> tgc::cuda::loadDriver() {
  static absl::StatusOr<const DriverApi *> *driver = [] {
    return new absl::StatusOr<const DriverApi *>(
        loadDriverFrom(driverLibraryName()));
  }();
  return *driver;
}
