//===- Device.cpp - a CUDA device, its streams and memory -----------------===//

#include "runtime/cuda/Device.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <map>
#include <mutex>

using namespace tgc::cuda;

//===----------------------------------------------------------------------===//
// Stream
//===----------------------------------------------------------------------===//

Stream::~Stream() {
  if (stream)
    device.api().cuStreamDestroy(stream);
}

absl::Status Stream::copyToDevice(DevicePtr dst, const void *src,
                                  size_t bytes) {
  if (bytes == 0)
    return absl::OkStatus();
  return device.api().check(
      device.api().cuMemcpyHtoDAsync(dst, src, bytes, stream),
      "cuMemcpyHtoDAsync");
}

absl::Status Stream::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  if (bytes == 0)
    return absl::OkStatus();
  return device.api().check(
      device.api().cuMemcpyDtoHAsync(dst, src, bytes, stream),
      "cuMemcpyDtoHAsync");
}

absl::Status Stream::copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  if (bytes == 0)
    return absl::OkStatus();
  return device.api().check(
      device.api().cuMemcpyDtoDAsync(dst, src, bytes, stream),
      "cuMemcpyDtoDAsync");
}

absl::Status Stream::launch(void *function, unsigned grid, unsigned block,
                            unsigned sharedBytes, void **params) {
  return device.api().check(
      device.api().cuLaunchKernel(static_cast<CUfunction>(function), grid, 1, 1,
                                  block, 1, 1, sharedBytes, stream, params,
                                  nullptr),
      "cuLaunchKernel");
}

absl::Status Stream::synchronize() {
  return device.api().check(device.api().cuStreamSynchronize(stream),
                            "cuStreamSynchronize");
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

namespace {
class DriverAllocator final : public DeviceAllocator {
public:
  explicit DriverAllocator(const Device &device) : device(device) {}
  absl::StatusOr<DevicePtr> allocate(size_t bytes) override {
    if (auto status = device.makeCurrent(); !status.ok())
      return status;
    CUdeviceptr ptr = 0;
    if (auto status = device.api().check(device.api().cuMemAlloc(&ptr, bytes),
                                         "cuMemAlloc");
        !status.ok())
      return status;
    return ptr;
  }
  void free(DevicePtr ptr) override {
    if (device.makeCurrent().ok())
      device.api().cuMemFree(ptr);
  }

private:
  const Device &device;
};

class DriverModuleLoader final : public ModuleLoader {
public:
  explicit DriverModuleLoader(const Device &device) : device(device) {}
  absl::StatusOr<void *> loadModule(const std::string &image) override {
    if (auto status = device.makeCurrent(); !status.ok())
      return status;
    CUmodule module = nullptr;
    // PTX must be NUL-terminated; std::string's data() is.
    if (auto status = device.api().check(
            device.api().cuModuleLoadData(&module, image.c_str()),
            "cuModuleLoadData");
        !status.ok())
      return status;
    return static_cast<void *>(module);
  }
  absl::StatusOr<void *> getFunction(void *module,
                                     const std::string &name) override {
    CUfunction function = nullptr;
    if (auto status = device.api().check(
            device.api().cuModuleGetFunction(
                &function, static_cast<CUmodule>(module), name.c_str()),
            "cuModuleGetFunction");
        !status.ok())
      return status;
    return static_cast<void *>(function);
  }
  void unloadModule(void *module) override {
    if (device.makeCurrent().ok())
      device.api().cuModuleUnload(static_cast<CUmodule>(module));
  }

private:
  const Device &device;
};
} // namespace

Device::~Device() {
  kernelCache.reset();
  memoryPool.reset();
  if (context)
    driver->cuDevicePrimaryCtxRelease(device);
}

std::string Device::arch() const {
  return absl::StrCat("sm_", ccMajor, ccMinor);
}

std::string Device::describe() const {
  return absl::StrFormat("%s (%s, %d SMs, %.1f GiB)", deviceName, arch(),
                         smCount, memoryBytes / double(1ull << 30));
}

absl::Status Device::makeCurrent() const {
  return driver->check(driver->cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

absl::StatusOr<std::unique_ptr<Stream>> Device::createStream() {
  if (auto status = makeCurrent(); !status.ok())
    return status;
  CUstream stream = nullptr;
  if (auto status =
          driver->check(driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                        "cuStreamCreate");
      !status.ok())
    return status;
  return std::unique_ptr<Stream>(new Stream(*this, stream));
}

absl::StatusOr<int> tgc::cuda::deviceCount() {
  absl::StatusOr<const DriverApi *> driver = loadDriver();
  if (!driver.ok())
    return driver.status();
  int count = 0;
  if (auto status = (*driver)->check((*driver)->cuDeviceGetCount(&count),
                                     "cuDeviceGetCount");
      !status.ok())
    return absl::NotFoundError(
        absl::StrCat("no CUDA device (", status.message(), ")"));
  return count;
}

absl::StatusOr<std::shared_ptr<Device>> tgc::cuda::openDevice(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::shared_ptr<Device>> *opened =
      new std::map<int, std::shared_ptr<Device>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = opened->find(ordinal); it != opened->end())
    return it->second;

  absl::StatusOr<int> count = deviceCount();
  if (!count.ok())
    return count.status();
  if (*count == 0)
    return absl::NotFoundError("no CUDA device (the driver reports none)");
  if (ordinal < 0 || ordinal >= *count)
    return absl::NotFoundError(absl::StrCat("no CUDA device with ordinal ",
                                            ordinal, " (", *count, " found)"));
  const DriverApi &api = **loadDriver();
  std::shared_ptr<Device> device(new Device());
  device->driver = &api;
  device->index = ordinal;
  auto check = [&](CUresult r, const char *what) { return api.check(r, what); };
  if (auto s = check(api.cuDeviceGet(&device->device, ordinal), "cuDeviceGet");
      !s.ok())
    return s;
  char name[256] = {};
  if (auto s =
          check(api.cuDeviceGetName(name, sizeof(name) - 1, device->device),
                "cuDeviceGetName");
      !s.ok())
    return s;
  device->deviceName = name;
  struct {
    int attribute;
    int *value;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &device->ccMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &device->ccMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &device->smCount}};
  for (auto &a : attributes)
    if (auto s = check(
            api.cuDeviceGetAttribute(a.value, a.attribute, device->device),
            "cuDeviceGetAttribute");
        !s.ok())
      return s;
  if (auto s = check(api.cuDeviceTotalMem(&device->memoryBytes, device->device),
                     "cuDeviceTotalMem");
      !s.ok())
    return s;
  if (auto s =
          check(api.cuDevicePrimaryCtxRetain(&device->context, device->device),
                "cuDevicePrimaryCtxRetain");
      !s.ok())
    return s;
  device->allocator = std::make_unique<DriverAllocator>(*device);
  device->memoryPool = std::make_unique<CachingMemoryPool>(*device->allocator);
  device->loader = std::make_unique<DriverModuleLoader>(*device);
  device->kernelCache = std::make_unique<KernelCache>(device->loader.get());
  opened->emplace(ordinal, device);
  return device;
}
