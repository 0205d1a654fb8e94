//===- AdaptDType.h - tensors read from files, as a result's dtype -*- C++ -*-//
//
// Shared by the full tool (TensorIO) and tgc-run's front end (FastRun),
// which links only the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_LIB_ADAPTDTYPE_H
#define TGC_TOOLS_LIB_ADAPTDTYPE_H

#include "tgc/HostTensor.h"

namespace tgc::tooling {

/// Converts `tensor` to `dtype` when the file format cannot hold it (bf16 is
/// stored as f32 in .npy); other mismatches are left for the interpreter to
/// report.
inline runtime::HostTensor adaptDType(runtime::HostTensor tensor,
                                      runtime::DType dtype) {
  if (tensor.dtype() != runtime::DType::F32 || dtype != runtime::DType::BF16)
    return tensor;
  auto converted = runtime::HostTensor::allocate(dtype, tensor.shape());
  if (!converted.ok())
    return tensor;
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    converted->setDouble(i, tensor.getDouble(i));
  return *std::move(converted);
}

} // namespace tgc::tooling

#endif // TGC_TOOLS_LIB_ADAPTDTYPE_H
