//===- DeviceTensor.h - tensors resident in a CUDA device's memory -*- C++
//-*-===//
//
// A cuda::DeviceTensor is a tensor in a CUDA device's memory: the result of a
// traced function called with device tensors (no host round trip), or a copy
// of a host tensor made with fromHost(). Part of the public API; it names the
// device only through an opaque cuda::Device (runtime/cuda/Device.h), so it
// needs no CUDA header. A traced function keys a device tensor argument by
// dtype, shape and placement ("Tensor<2x3xf32, cuda:0>").
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DEVICETENSOR_H
#define TGC_DEVICETENSOR_H

#include "tgc/HostTensor.h"
#include "tgc/TraceTraits.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tgc::cuda {

/// A device address (CUdeviceptr).
using DevicePtr = unsigned long long;

class Device;

/// The dtype and static shape of a device buffer.
struct TensorSpec {
  runtime::DType dtype = runtime::DType::F32;
  std::vector<int64_t> shape;
  size_t byteSize() const;
  std::string describe() const;
};

/// A tensor that lives in a device's memory (a block of its pool, returned
/// when the last copy of the DeviceTensor goes). Results of runOnDevice are
/// DeviceTensors, so chained calls never go through the host.
class DeviceTensor {
public:
  DeviceTensor() = default;
  /// An uninitialized tensor on `device`.
  static StatusOr<DeviceTensor> allocate(std::shared_ptr<Device> device,
                                         TensorSpec spec);
  /// A copy of `host` on `device` (synchronous).
  static StatusOr<DeviceTensor> fromHost(std::shared_ptr<Device> device,
                                         const runtime::HostTensor &host);
  /// A copy on the host (synchronous).
  StatusOr<runtime::HostTensor> toHost() const;

  bool valid() const { return storage != nullptr; }
  const TensorSpec &spec() const { return tensorSpec; }
  runtime::DType dtype() const { return tensorSpec.dtype; }
  const std::vector<int64_t> &shape() const { return tensorSpec.shape; }
  size_t byteSize() const { return tensorSpec.byteSize(); }
  DevicePtr data() const;
  /// The device it lives on (null for a default-constructed tensor).
  Device *device() const;
  /// Where it lives, "cuda:0" ("cuda:?" for a default-constructed tensor).
  std::string placement() const;
  /// "cuda:0 2x3xf32".
  std::string describe() const;

private:
  friend class DeviceExecutable;
  struct Storage;
  /// Takes over `ptr`, a block of `device`'s pool.
  static DeviceTensor adopt(std::shared_ptr<Device> device, DevicePtr ptr,
                            TensorSpec spec);
  std::shared_ptr<Storage> storage;
  TensorSpec tensorSpec;
};

} // namespace tgc::cuda

namespace tgc::tracing {
/// A device tensor is keyed by dtype, shape and placement ("cuda:0"): never
/// equal to a host tensor of the same type.
template <> struct TraceTraits<cuda::DeviceTensor> {
  static TraceType traceType(const cuda::DeviceTensor &tensor) {
    return TraceType::tensor(
        TensorSpec{tensor.dtype(), tensor.shape(), false, tensor.placement()});
  }
};
} // namespace tgc::tracing

#endif // TGC_DEVICETENSOR_H
