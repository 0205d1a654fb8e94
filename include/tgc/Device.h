//===- Device.h - where a traced function runs and a tensor lives -*- C++
//-*-===//
//
// A Device names a place: the host CPU ("cpu") or CUDA device N ("cuda:N").
// Its str() is the placement string of TensorSpec::device in TraceTypes
// ("cpu" for host tensors, "cuda:0" for tensors in device 0's memory) and the
// target of a traced function (FunctionOptions::device, the key's
// TraceType::target). No dependency on the CUDA runtime.
//
//   auto d = tgc::Device::parse("cuda:1");   // Device{Cuda, 1}
//   tgc::Device::parse("gpu");               // error naming the accepted forms
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DEVICE_H
#define TGC_DEVICE_H

#include "tgc/Status.h"

#include <string>

namespace tgc {

struct Device {
  enum class Kind { Cpu, Cuda };
  Kind kind = Kind::Cpu;
  /// The CUDA device ordinal (0 for the CPU).
  int ordinal = 0;

  static Device cpu() { return Device{}; }
  static Device cuda(int ordinal = 0) { return Device{Kind::Cuda, ordinal}; }

  /// "cpu", "cuda" (device 0) or "cuda:N" (N a decimal ordinal >= 0).
  /// Anything else is an InvalidArgument error that names the accepted
  /// forms.
  static StatusOr<Device> parse(std::string_view text);

  bool isCpu() const { return kind == Kind::Cpu; }
  bool isCuda() const { return kind == Kind::Cuda; }
  /// "cpu" or "cuda:N": the placement string TraceTypes use.
  std::string str() const;

  bool operator==(const Device &other) const {
    return kind == other.kind &&
           (kind == Kind::Cpu || ordinal == other.ordinal);
  }
  bool operator!=(const Device &other) const { return !(*this == other); }
};

} // namespace tgc

#endif // TGC_DEVICE_H
