//===- DataDependent.h - ops whose result shape depends on values -*- C++
//-*-===//
//
// The host kernels of the ops whose result shapes are known only when they
// run (tgc.nonzero; OpTrait::DataDependentShape): each allocates its result
// at run time. The staged functions of codegen/Staged.h run them between
// the plan of the ops before and the plan specialized for what follows.
// Part of the runtime: no compiler library.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_DATADEPENDENT_H
#define TGC_RUNTIME_DATADEPENDENT_H

#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"

namespace tgc::runtime {

/// The coordinates of the nonzero elements of `input` (any dtype; NaN is
/// nonzero, -0.0 is zero) as i64 [rank, n], one column per element in
/// row-major order.
absl::StatusOr<HostTensor> nonZero(const HostTensor &input);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_DATADEPENDENT_H
