//===- tgc.h - the tgc public API --------------------------------*- C++
//-*-===//
//
// Everything a program that traces functions or runs ONNX models needs:
//
//   #include <tgc/tgc.h>          // find_package(tgc) -> tgc::tgc
//
//   auto f = tgc::function([](tgc::Tensor x) { return tgc::relu(x); });
//   tgc::StatusOr<tgc::runtime::HostTensor> y = (*f)(x);
//
//   auto model = tgc::Model::loadOnnx("model.onnx");
//   auto outputs = model->run({x});
//
// The public headers (this directory) include no MLIR, LLVM, oneDNN or CUDA
// header; they return tgc::Status / tgc::StatusOr (tgc/Status.h;
// tgc/AbslStatus.h converts to Abseil). A program that only handles tensors
// (HostTensor, .npy files) links tgc::runtime instead of tgc::tgc.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TGC_H
#define TGC_TGC_H

#include "tgc/Artifact.h"
#include "tgc/Callback.h"
#include "tgc/ControlFlow.h"
#include "tgc/DType.h"
#include "tgc/Determinism.h"
#include "tgc/Device.h"
#include "tgc/DeviceTensor.h"
#include "tgc/Engine.h"
#include "tgc/Function.h"
#include "tgc/HostTensor.h"
#include "tgc/Model.h"
#include "tgc/Npy.h"
#include "tgc/Precision.h"
#include "tgc/Status.h"
#include "tgc/StridedView.h"
#include "tgc/Tensor.h"
#include "tgc/TensorInfo.h"
#include "tgc/TraceType.h"
#include "tgc/Version.h"

namespace tgc {
/// The version of the tgc library the program runs with ("0.1.0"), which
/// may differ from TGC_VERSION, the version it was compiled against.
const char *libraryVersion();
} // namespace tgc

#endif // TGC_TGC_H
