//===- Dnn.h - cuDNN convolutions, loaded at run time -----------*- C++ -*-===//
//
// ConvCall steps (Executable.h) run on cuDNN 9's legacy (descriptor) API.
// Like the driver (Driver.h), the library is dlopen'ed on first use --
// libcudnn.so.9, or $TGC_CUDNN_LIBRARY -- and the few types, enum values and
// entry points tgc uses are declared here (namespace dnn, with cuDNN's
// names), so runtime/cuda builds and links without the CUDA toolkit.
// test/unit/runtime/cuda/HeaderAbiTest.cpp checks every value, struct layout
// and signature below against the real v9 headers where the toolkit is
// installed. The loader refuses libraries whose cudnnGetVersion() is not
// 9.x.
//
// cuDNN 9 entry points used (all still exported by libcudnn.so.9; several
// are marked deprecated in the v9 headers, none removed):
//   cudnnGetVersion, cudnnGetErrorString, cudnnGetLastErrorString,
//   cudnnCreate, cudnnDestroy, cudnnSetStream,
//   cudnnCreateTensorDescriptor, cudnnSetTensor4dDescriptor,
//   cudnnDestroyTensorDescriptor,
//   cudnnCreateFilterDescriptor, cudnnSetFilter4dDescriptor,
//   cudnnDestroyFilterDescriptor,
//   cudnnCreateConvolutionDescriptor, cudnnSetConvolution2dDescriptor,
//   cudnnSetConvolutionGroupCount, cudnnSetConvolutionMathType,
//   cudnnGetConvolution2dForwardOutputDim, cudnnDestroyConvolutionDescriptor,
//   cudnnCreateActivationDescriptor, cudnnSetActivationDescriptor,
//   cudnnDestroyActivationDescriptor,
//   cudnnFindConvolutionForwardAlgorithm,
//   cudnnGetConvolutionForwardWorkspaceSize,
//   cudnnConvolutionForward, cudnnConvolutionBiasActivationForward,
//   cudnnAddTensor, cudnnActivationForward.
//
// How a ConvCall runs (y = act(conv(x, w) + alpha2 * z + bias)):
//   - relu: cudnnConvolutionBiasActivationForward with RELU (a zero bias
//     when the call has none, z = y with alpha2 = 0 when it has no z);
//   - no relu, a bias, and the chosen algorithm is IMPLICIT_PRECOMP_GEMM:
//     the same with IDENTITY (cuDNN supports IDENTITY only with that
//     algorithm);
//   - otherwise cudnnConvolutionForward (beta = alpha2 when z is y itself),
//     then cudnnAddTensor for z (alpha2 * z + y) and for the bias (a
//     1 x k x 1 x 1 tensor broadcast over y).
// When cudnnConvolutionBiasActivationForward rejects a configuration
// (CUDNN_STATUS_BAD_PARAM* or CUDNN_STATUS_NOT_SUPPORTED*: nothing was
// enqueued), the convolution switches to the separate path for good, with
// cudnnActivationForward (in place) for the relu.
//
// int8 (ConvCall::dtype I8) is cuDNN's INT8_EXT_CONFIG: x and the filter
// CUDNN_DATA_INT8, y CUDNN_DATA_FLOAT, the convolution computed in
// CUDNN_DATA_INT32 with CUDNN_DEFAULT_MATH, NHWC (filter KRSC), c and k
// multiples of 4, one group; alpha and beta are floats as for f32. It has
// no bias, z or relu (int8Violation()), so it always takes the separate
// path: one cudnnConvolutionForward. Of the algorithms only
// IMPLICIT_PRECOMP_GEMM is expected to succeed; the search keeps whichever
// did.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_DNN_H
#define TGC_RUNTIME_CUDA_DNN_H

#include "runtime/cuda/Driver.h"
#include "runtime/cuda/MemoryPool.h"

#include "tgc/AbslStatus.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tgc::cuda {

class Device;
class Stream;
struct ConvCall;

/// cuDNN 9's C API (cudnn_graph_v9.h, cudnn_ops_v9.h, cudnn_cnn_v9.h), as
/// much of it as tgc uses. Enums are passed as 32-bit ints (their C ABI).
namespace dnn {
using cudnnStatus_t = int;
using cudnnDataType_t = int;
using cudnnTensorFormat_t = int;
using cudnnMathType_t = int;
using cudnnConvolutionMode_t = int;
using cudnnActivationMode_t = int;
using cudnnNanPropagation_t = int;
using cudnnConvolutionFwdAlgo_t = int;
using cudnnDeterminism_t = int;
struct cudnnContext;
using cudnnHandle_t = cudnnContext *;
struct cudnnTensorStruct;
using cudnnTensorDescriptor_t = cudnnTensorStruct *;
struct cudnnFilterStruct;
using cudnnFilterDescriptor_t = cudnnFilterStruct *;
struct cudnnConvolutionStruct;
using cudnnConvolutionDescriptor_t = cudnnConvolutionStruct *;
struct cudnnActivationStruct;
using cudnnActivationDescriptor_t = cudnnActivationStruct *;
struct cudnnConvolutionFwdAlgoPerf_t {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
};

inline constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
inline constexpr cudnnStatus_t
    CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED = 4003;
inline constexpr cudnnStatus_t
    CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED = 4004;
inline constexpr cudnnDataType_t CUDNN_DATA_FLOAT = 0;
inline constexpr cudnnDataType_t CUDNN_DATA_HALF = 2;
inline constexpr cudnnDataType_t CUDNN_DATA_INT8 = 3;
inline constexpr cudnnDataType_t CUDNN_DATA_INT32 = 4;
inline constexpr cudnnDataType_t CUDNN_DATA_BFLOAT16 = 9;
inline constexpr cudnnTensorFormat_t CUDNN_TENSOR_NCHW = 0;
inline constexpr cudnnTensorFormat_t CUDNN_TENSOR_NHWC = 1;
inline constexpr cudnnMathType_t CUDNN_DEFAULT_MATH = 0;
inline constexpr cudnnMathType_t CUDNN_TENSOR_OP_MATH = 1;
inline constexpr cudnnMathType_t CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2;
inline constexpr cudnnMathType_t CUDNN_FMA_MATH = 3;
inline constexpr cudnnConvolutionMode_t CUDNN_CROSS_CORRELATION = 1;
inline constexpr cudnnActivationMode_t CUDNN_ACTIVATION_RELU = 1;
inline constexpr cudnnActivationMode_t CUDNN_ACTIVATION_IDENTITY = 5;
inline constexpr cudnnNanPropagation_t CUDNN_PROPAGATE_NAN = 1;
inline constexpr cudnnConvolutionFwdAlgo_t
    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1;
inline constexpr cudnnConvolutionFwdAlgo_t CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8;
} // namespace dnn

/// The cuDNN entry points tgc uses.
struct DnnApi {
  size_t (*cudnnGetVersion)();
  const char *(*cudnnGetErrorString)(dnn::cudnnStatus_t status);
  void (*cudnnGetLastErrorString)(char *message, size_t maxSize);
  dnn::cudnnStatus_t (*cudnnCreate)(dnn::cudnnHandle_t *handle);
  dnn::cudnnStatus_t (*cudnnDestroy)(dnn::cudnnHandle_t handle);
  dnn::cudnnStatus_t (*cudnnSetStream)(dnn::cudnnHandle_t handle,
                                       CUstream stream);
  dnn::cudnnStatus_t (*cudnnCreateTensorDescriptor)(
      dnn::cudnnTensorDescriptor_t *desc);
  dnn::cudnnStatus_t (*cudnnSetTensor4dDescriptor)(
      dnn::cudnnTensorDescriptor_t desc, dnn::cudnnTensorFormat_t format,
      dnn::cudnnDataType_t dataType, int n, int c, int h, int w);
  dnn::cudnnStatus_t (*cudnnDestroyTensorDescriptor)(
      dnn::cudnnTensorDescriptor_t desc);
  dnn::cudnnStatus_t (*cudnnCreateFilterDescriptor)(
      dnn::cudnnFilterDescriptor_t *desc);
  dnn::cudnnStatus_t (*cudnnSetFilter4dDescriptor)(
      dnn::cudnnFilterDescriptor_t desc, dnn::cudnnDataType_t dataType,
      dnn::cudnnTensorFormat_t format, int k, int c, int h, int w);
  dnn::cudnnStatus_t (*cudnnDestroyFilterDescriptor)(
      dnn::cudnnFilterDescriptor_t desc);
  dnn::cudnnStatus_t (*cudnnCreateConvolutionDescriptor)(
      dnn::cudnnConvolutionDescriptor_t *desc);
  dnn::cudnnStatus_t (*cudnnSetConvolution2dDescriptor)(
      dnn::cudnnConvolutionDescriptor_t desc, int padH, int padW, int u, int v,
      int dilationH, int dilationW, dnn::cudnnConvolutionMode_t mode,
      dnn::cudnnDataType_t computeType);
  dnn::cudnnStatus_t (*cudnnSetConvolutionGroupCount)(
      dnn::cudnnConvolutionDescriptor_t desc, int groupCount);
  dnn::cudnnStatus_t (*cudnnSetConvolutionMathType)(
      dnn::cudnnConvolutionDescriptor_t desc, dnn::cudnnMathType_t mathType);
  dnn::cudnnStatus_t (*cudnnGetConvolution2dForwardOutputDim)(
      dnn::cudnnConvolutionDescriptor_t desc,
      dnn::cudnnTensorDescriptor_t inputDesc,
      dnn::cudnnFilterDescriptor_t filterDesc, int *n, int *c, int *h, int *w);
  dnn::cudnnStatus_t (*cudnnDestroyConvolutionDescriptor)(
      dnn::cudnnConvolutionDescriptor_t desc);
  dnn::cudnnStatus_t (*cudnnCreateActivationDescriptor)(
      dnn::cudnnActivationDescriptor_t *desc);
  dnn::cudnnStatus_t (*cudnnSetActivationDescriptor)(
      dnn::cudnnActivationDescriptor_t desc, dnn::cudnnActivationMode_t mode,
      dnn::cudnnNanPropagation_t reluNanOpt, double coef);
  dnn::cudnnStatus_t (*cudnnDestroyActivationDescriptor)(
      dnn::cudnnActivationDescriptor_t desc);
  dnn::cudnnStatus_t (*cudnnFindConvolutionForwardAlgorithm)(
      dnn::cudnnHandle_t handle, dnn::cudnnTensorDescriptor_t xDesc,
      dnn::cudnnFilterDescriptor_t wDesc,
      dnn::cudnnConvolutionDescriptor_t convDesc,
      dnn::cudnnTensorDescriptor_t yDesc, int requestedAlgoCount,
      int *returnedAlgoCount, dnn::cudnnConvolutionFwdAlgoPerf_t *perfResults);
  dnn::cudnnStatus_t (*cudnnGetConvolutionForwardWorkspaceSize)(
      dnn::cudnnHandle_t handle, dnn::cudnnTensorDescriptor_t xDesc,
      dnn::cudnnFilterDescriptor_t wDesc,
      dnn::cudnnConvolutionDescriptor_t convDesc,
      dnn::cudnnTensorDescriptor_t yDesc, dnn::cudnnConvolutionFwdAlgo_t algo,
      size_t *sizeInBytes);
  dnn::cudnnStatus_t (*cudnnConvolutionForward)(
      dnn::cudnnHandle_t handle, const void *alpha,
      dnn::cudnnTensorDescriptor_t xDesc, const void *x,
      dnn::cudnnFilterDescriptor_t wDesc, const void *w,
      dnn::cudnnConvolutionDescriptor_t convDesc,
      dnn::cudnnConvolutionFwdAlgo_t algo, void *workSpace,
      size_t workSpaceSizeInBytes, const void *beta,
      dnn::cudnnTensorDescriptor_t yDesc, void *y);
  dnn::cudnnStatus_t (*cudnnConvolutionBiasActivationForward)(
      dnn::cudnnHandle_t handle, const void *alpha1,
      dnn::cudnnTensorDescriptor_t xDesc, const void *x,
      dnn::cudnnFilterDescriptor_t wDesc, const void *w,
      dnn::cudnnConvolutionDescriptor_t convDesc,
      dnn::cudnnConvolutionFwdAlgo_t algo, void *workSpace,
      size_t workSpaceSizeInBytes, const void *alpha2,
      dnn::cudnnTensorDescriptor_t zDesc, const void *z,
      dnn::cudnnTensorDescriptor_t biasDesc, const void *bias,
      dnn::cudnnActivationDescriptor_t activationDesc,
      dnn::cudnnTensorDescriptor_t yDesc, void *y);
  dnn::cudnnStatus_t (*cudnnActivationForward)(
      dnn::cudnnHandle_t handle, dnn::cudnnActivationDescriptor_t desc,
      const void *alpha, dnn::cudnnTensorDescriptor_t xDesc, const void *x,
      const void *beta, dnn::cudnnTensorDescriptor_t yDesc, void *y);
  dnn::cudnnStatus_t (*cudnnAddTensor)(dnn::cudnnHandle_t handle,
                                       const void *alpha,
                                       dnn::cudnnTensorDescriptor_t aDesc,
                                       const void *a, const void *beta,
                                       dnn::cudnnTensorDescriptor_t cDesc,
                                       void *c);

  /// "cudnnConvolutionForward failed: CUDNN_STATUS_BAD_PARAM (<cuDNN's last
  /// error message>)".
  std::string describe(dnn::cudnnStatus_t status, const char *what) const;
  /// OK for CUDNN_STATUS_SUCCESS, else an internal error described as above
  /// (resource exhausted for allocation failures).
  absl::Status check(dnn::cudnnStatus_t status, const char *what) const;
};

/// $TGC_CUDNN_LIBRARY when it is set, else "libcudnn.so.9".
std::string dnnLibraryName();

/// Loads cuDNN from `library`. Errors (never crashes): "cuDNN not found
/// (<library>: <dlerror>)", "cuDNN not found (<library> lacks <symbol>)",
/// "cuDNN not found (<library> is version V, tgc needs 9.x)". The returned
/// API is never unloaded.
absl::StatusOr<const DnnApi *> loadDnnFrom(const std::string &library);

/// loadDnnFrom(dnnLibraryName()), once per process (the result, error
/// included, is cached).
absl::StatusOr<const DnnApi *> loadDnn();

/// How a ConvCall is described to cuDNN. Pure: computed and tested without
/// a GPU.
struct DnnConvLayout {
  /// The tensors' types: all the call's dtype, except for int8 (x and the
  /// filter INT8, y FLOAT). The bias and z have y's.
  dnn::cudnnDataType_t xType = dnn::CUDNN_DATA_FLOAT,
                       filterType = dnn::CUDNN_DATA_FLOAT,
                       yType = dnn::CUDNN_DATA_FLOAT;
  /// The convolution descriptor's compute type: FLOAT (f32, f16 and bf16
  /// accumulate in f32), INT32 for int8.
  dnn::cudnnDataType_t computeType = dnn::CUDNN_DATA_FLOAT;
  dnn::cudnnTensorFormat_t format = dnn::CUDNN_TENSOR_NCHW;
  /// FMA for f32 unless TF32 is allowed; DEFAULT otherwise (f16 and bf16
  /// may use tensor cores; they accumulate in f32 either way; int8).
  dnn::cudnnMathType_t mathType = dnn::CUDNN_FMA_MATH;
  /// Dimensions in cuDNN's (n, c, h, w) order whatever the format; the
  /// filter's c is the channels per group.
  int x[4] = {}, filter[4] = {}, y[4] = {};
  int pad[2] = {}, stride[2] = {}, dilation[2] = {};
  int groups = 1;
};

/// What an int8 ConvCall (dtype I8) asks for that cuDNN's INT8_EXT_CONFIG
/// does not do (see the top of this file), e.g. "int8 convolutions need c
/// and k multiples of 4 (c 6, k 8)"; empty when nothing (or the call is not
/// int8). The executable's validation reports the same.
std::string int8Violation(const ConvCall &call);

/// Errors for dtypes cuDNN does not get from tgc (only f32, f16, bf16 and
/// i8), int8 calls that int8Violation() rejects, and sizes beyond int.
absl::StatusOr<DnnConvLayout> lowerConv(const ConvCall &call);

/// Which cuDNN calls run a ConvCall (see the top of this file).
enum class DnnConvPath {
  /// cudnnConvolutionBiasActivationForward (relu, or identity with a bias
  /// on IMPLICIT_PRECOMP_GEMM).
  Fused,
  /// cudnnConvolutionForward, then cudnnAddTensor for z and the bias, and
  /// cudnnActivationForward for a relu (only after the fused call was
  /// rejected).
  Separate,
};
DnnConvPath chooseConvPath(const ConvCall &call,
                           dnn::cudnnConvolutionFwdAlgo_t algo);

/// A ConvCall prepared for one device: descriptors and the algorithm
/// cudnnFindConvolutionForwardAlgorithm measured fastest, once.
class DnnConv {
public:
  /// The most workspace an algorithm may ask for.
  static constexpr size_t kMaxWorkspaceBytes = size_t(256) << 20;

  /// Loads cuDNN, creates the device's handle on first use (the device's
  /// context must be current), the descriptors, and benchmarks the
  /// algorithms on `stream` (synchronizing it). "cuDNN has no algorithm
  /// for <call.describe()>" when none runs within kMaxWorkspaceBytes.
  static absl::StatusOr<std::unique_ptr<DnnConv>>
  create(Device &device, Stream &stream, const ConvCall &call);
  ~DnnConv();
  DnnConv(const DnnConv &) = delete;
  DnnConv &operator=(const DnnConv &) = delete;

  size_t workspaceBytes() const { return workspaceSize; }
  dnn::cudnnConvolutionFwdAlgo_t algorithm() const { return algo; }
  /// The path enqueue() takes (Separate after the fused call was rejected:
  /// fusedError says why).
  DnnConvPath path() const { return convPath; }
  const std::string &fusedError() const { return fusedFailure; }

  /// A device's cuDNN handle and the mutex its users hold (Dnn.cpp).
  struct Handle;

  /// Enqueues the convolution on `stream`. `bias` and `z` are 0 when the
  /// call has none; `workspace` holds at least workspaceBytes().
  absl::Status enqueue(CUstream stream, DevicePtr x, DevicePtr filter,
                       DevicePtr bias, DevicePtr z, DevicePtr y,
                       DevicePtr workspace, size_t workspaceBytes);

private:
  DnnConv() = default;

  const DnnApi *api = nullptr;
  Device *device = nullptr;
  Handle *handle = nullptr;
  std::string description;
  bool relu = false, hasBias = false, hasZ = false;
  float alpha2 = 1;
  dnn::cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr,
                               biasDesc = nullptr;
  dnn::cudnnFilterDescriptor_t wDesc = nullptr;
  dnn::cudnnConvolutionDescriptor_t convDesc = nullptr;
  dnn::cudnnActivationDescriptor_t activationDesc = nullptr;
  dnn::cudnnConvolutionFwdAlgo_t algo = 0;
  DnnConvPath convPath = DnnConvPath::Separate;
  std::string fusedFailure;
  size_t workspaceSize = 0;
  /// Zeros (k values) for a relu without a bias, from the device's pool.
  DevicePtr zeroBias = 0;
};

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_DNN_H
