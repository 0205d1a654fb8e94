//===- Device.h - a CUDA device, its streams and memory ---------*- C++ -*-===//
//
// openDevice(ordinal) loads the driver (Driver.h), retains the device's
// primary context and gives a Device with a caching memory pool
// (MemoryPool.h) over cuMemAlloc/cuMemFree and a kernel cache (KernelCache.h)
// over cuModuleLoadData/cuModuleGetFunction. Devices are opened once per
// process and shared.
//
// On a machine without a driver or a GPU, openDevice returns an error whose
// message says so ("no CUDA driver (libcuda.so.1 not found)", "no CUDA
// device (...)"); nothing else in tgc depends on a device being present.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_DEVICE_H
#define TGC_RUNTIME_CUDA_DEVICE_H

#include "runtime/cuda/Driver.h"
#include "runtime/cuda/KernelCache.h"
#include "runtime/cuda/MemoryPool.h"

#include <memory>
#include <string>

namespace tgc::cuda {

class Device;

/// A non-blocking stream of one device. Work on one stream runs in order;
/// synchronize() waits for all of it.
class Stream {
public:
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  CUstream handle() const { return stream; }
  absl::Status copyToDevice(DevicePtr dst, const void *src, size_t bytes);
  absl::Status copyToHost(void *dst, DevicePtr src, size_t bytes);
  absl::Status copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes);
  /// Enqueues `function` (a CUfunction) with one-dimensional grid and
  /// blocks; `params` points at each kernel argument.
  absl::Status launch(void *function, unsigned grid, unsigned block,
                      unsigned sharedBytes, void **params);
  absl::Status synchronize();

private:
  friend class Device;
  Stream(const Device &device, CUstream stream)
      : device(device), stream(stream) {}
  const Device &device;
  CUstream stream;
};

class Device {
public:
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  int ordinal() const { return index; }
  const std::string &name() const { return deviceName; }
  int computeCapabilityMajor() const { return ccMajor; }
  int computeCapabilityMinor() const { return ccMinor; }
  /// "sm_90" for compute capability 9.0.
  std::string arch() const;
  int multiprocessorCount() const { return smCount; }
  size_t totalMemory() const { return memoryBytes; }
  /// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)".
  std::string describe() const;

  const DriverApi &api() const { return *driver; }
  /// Makes the device's context current on the calling thread.
  absl::Status makeCurrent() const;
  CachingMemoryPool &pool() { return *memoryPool; }
  KernelCache &kernels() { return *kernelCache; }
  absl::StatusOr<std::unique_ptr<Stream>> createStream();

private:
  friend absl::StatusOr<std::shared_ptr<Device>> openDevice(int);
  Device() = default;

  const DriverApi *driver = nullptr;
  int index = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string deviceName;
  int ccMajor = 0, ccMinor = 0, smCount = 0;
  size_t memoryBytes = 0;
  std::unique_ptr<DeviceAllocator> allocator;
  std::unique_ptr<CachingMemoryPool> memoryPool;
  std::unique_ptr<ModuleLoader> loader;
  std::unique_ptr<KernelCache> kernelCache;
};

/// The number of devices, or the error openDevice would give.
absl::StatusOr<int> deviceCount();

/// Device `ordinal`, opened on first use and shared afterwards. Errors:
/// "no CUDA driver (...)", "no CUDA device (...)", "no CUDA device with
/// ordinal N (M found)".
absl::StatusOr<std::shared_ptr<Device>> openDevice(int ordinal = 0);

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_DEVICE_H
