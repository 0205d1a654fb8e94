//===- Dnn.cpp - cuDNN convolutions, loaded at run time -------------------===//

#include "runtime/cuda/Dnn.h"
#include "runtime/Environment.h"

#include "runtime/cuda/Device.h"
#include "runtime/cuda/Executable.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <vector>

using namespace tgc::cuda;
using namespace tgc::cuda::dnn;

std::string DnnApi::describe(cudnnStatus_t status, const char *what) const {
  const char *name =
      cudnnGetErrorString ? cudnnGetErrorString(status) : nullptr;
  char last[512] = {};
  if (cudnnGetLastErrorString)
    cudnnGetLastErrorString(last, sizeof(last) - 1);
  std::string text =
      absl::StrCat(what, " failed: ",
                   name && *name ? std::string(name)
                                 : absl::StrCat("cudnnStatus_t ", status));
  if (last[0])
    absl::StrAppend(&text, " (", last, ")");
  return text;
}

absl::Status DnnApi::check(cudnnStatus_t status, const char *what) const {
  if (status == CUDNN_STATUS_SUCCESS)
    return absl::OkStatus();
  std::string message = describe(status, what);
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

std::string tgc::cuda::dnnLibraryName() {
  if (std::string name = runtime::env::text("TGC_CUDNN_LIBRARY"); !name.empty())
    return name;
  return "libcudnn.so.9";
}

namespace {
template <typename Fn> bool lookup(void *handle, const char *symbol, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return fn != nullptr;
}
} // namespace

absl::StatusOr<const DnnApi *>
tgc::cuda::loadDnnFrom(const std::string &library) {
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    return absl::NotFoundError(absl::StrCat("cuDNN not found (", library, ": ",
                                            error ? error : "not found", ")"));
  }
  auto api = std::make_unique<DnnApi>();
  const char *missing = nullptr;
#define TGC_LOOKUP(name)                                                       \
  if (!missing && !lookup(handle, #name, api->name))                           \
    missing = #name;
  TGC_LOOKUP(cudnnGetVersion)
  TGC_LOOKUP(cudnnGetErrorString)
  TGC_LOOKUP(cudnnGetLastErrorString)
  TGC_LOOKUP(cudnnCreate)
  TGC_LOOKUP(cudnnDestroy)
  TGC_LOOKUP(cudnnSetStream)
  TGC_LOOKUP(cudnnCreateTensorDescriptor)
  TGC_LOOKUP(cudnnSetTensor4dDescriptor)
  TGC_LOOKUP(cudnnDestroyTensorDescriptor)
  TGC_LOOKUP(cudnnCreateFilterDescriptor)
  TGC_LOOKUP(cudnnSetFilter4dDescriptor)
  TGC_LOOKUP(cudnnDestroyFilterDescriptor)
  TGC_LOOKUP(cudnnCreateConvolutionDescriptor)
  TGC_LOOKUP(cudnnSetConvolution2dDescriptor)
  TGC_LOOKUP(cudnnSetConvolutionGroupCount)
  TGC_LOOKUP(cudnnSetConvolutionMathType)
  TGC_LOOKUP(cudnnGetConvolution2dForwardOutputDim)
  TGC_LOOKUP(cudnnDestroyConvolutionDescriptor)
  TGC_LOOKUP(cudnnCreateActivationDescriptor)
  TGC_LOOKUP(cudnnSetActivationDescriptor)
  TGC_LOOKUP(cudnnDestroyActivationDescriptor)
  TGC_LOOKUP(cudnnFindConvolutionForwardAlgorithm)
  TGC_LOOKUP(cudnnGetConvolutionForwardWorkspaceSize)
  TGC_LOOKUP(cudnnConvolutionForward)
  TGC_LOOKUP(cudnnConvolutionBiasActivationForward)
  TGC_LOOKUP(cudnnActivationForward)
  TGC_LOOKUP(cudnnAddTensor)
#undef TGC_LOOKUP
  if (missing) {
    dlclose(handle);
    return absl::NotFoundError(
        absl::StrCat("cuDNN not found (", library, " lacks ", missing, ")"));
  }
  // The declarations above are cuDNN 9's (MAJOR * 10000 + MINOR * 100 +
  // PATCH).
  const size_t version = api->cudnnGetVersion();
  if (version < 90000 || version >= 100000) {
    dlclose(handle);
    return absl::NotFoundError(absl::StrCat("cuDNN not found (", library,
                                            " is version ", version,
                                            ", tgc needs 9.x)"));
  }
  // Kept for the life of the process, like the library.
  return api.release();
}

absl::StatusOr<const DnnApi *> tgc::cuda::loadDnn() {
  static absl::StatusOr<const DnnApi *> *dnnApi = [] {
    return new absl::StatusOr<const DnnApi *>(loadDnnFrom(dnnLibraryName()));
  }();
  return *dnnApi;
}

//===----------------------------------------------------------------------===//
// Descriptors and paths
//===----------------------------------------------------------------------===//

std::string tgc::cuda::int8Violation(const ConvCall &call) {
  if (call.dtype != runtime::DType::I8)
    return "";
  if (!call.nhwc)
    return "int8 convolutions are NHWC only";
  if (call.groups != 1)
    return absl::StrCat("int8 convolutions have one group, not ", call.groups);
  if (call.c % 4 != 0 || call.k % 4 != 0)
    return absl::StrCat("int8 convolutions need c and k multiples of 4 (c ",
                        call.c, ", k ", call.k, ")");
  if (call.bias >= 0 || call.z >= 0 || call.relu)
    return "int8 convolutions take no bias, no z and no relu";
  return "";
}

absl::StatusOr<DnnConvLayout> tgc::cuda::lowerConv(const ConvCall &call) {
  DnnConvLayout l;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  switch (call.dtype) {
  case runtime::DType::F32:
    type = CUDNN_DATA_FLOAT;
    l.mathType = call.allowTf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    break;
  case runtime::DType::F16:
    type = CUDNN_DATA_HALF;
    l.mathType = CUDNN_DEFAULT_MATH;
    break;
  case runtime::DType::BF16:
    type = CUDNN_DATA_BFLOAT16;
    l.mathType = CUDNN_DEFAULT_MATH;
    break;
  case runtime::DType::I8:
    if (std::string violation = int8Violation(call); !violation.empty())
      return absl::InvalidArgumentError(
          absl::StrCat(call.describe(), ": ", violation));
    type = CUDNN_DATA_INT8;
    l.mathType = CUDNN_DEFAULT_MATH;
    break;
  default:
    return absl::InvalidArgumentError(
        absl::StrCat("cuDNN convolutions take f32, f16, bf16 or i8, not ",
                     std::string(runtime::dtypeName(call.dtype))));
  }
  // INT8_EXT_CONFIG: int8 in, float out, int32 accumulation.
  const bool int8 = call.dtype == runtime::DType::I8;
  l.xType = l.filterType = type;
  l.yType = int8 ? CUDNN_DATA_FLOAT : type;
  l.computeType = int8 ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT;
  const int64_t values[] = {
      call.n,         call.c,         call.h,       call.w,
      call.k,         call.r,         call.s,       call.groups,
      call.padH,      call.padW,      call.strideH, call.strideW,
      call.dilationH, call.dilationW, call.outH,    call.outW};
  for (int64_t v : values)
    if (v < 0 || v > INT_MAX)
      return absl::InvalidArgumentError(
          absl::StrCat(call.describe(), ": ", v, " does not fit cuDNN's int"));
  auto i = [](int64_t v) { return static_cast<int>(v); };
  l.format = call.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  l.groups = i(call.groups);
  l.x[0] = i(call.n), l.x[1] = i(call.c), l.x[2] = i(call.h),
  l.x[3] = i(call.w);
  l.filter[0] = i(call.k);
  l.filter[1] = call.groups > 0 ? i(call.c / call.groups) : 0;
  l.filter[2] = i(call.r), l.filter[3] = i(call.s);
  l.y[0] = i(call.n), l.y[1] = i(call.k), l.y[2] = i(call.outH),
  l.y[3] = i(call.outW);
  l.pad[0] = i(call.padH), l.pad[1] = i(call.padW);
  l.stride[0] = i(call.strideH), l.stride[1] = i(call.strideW);
  l.dilation[0] = i(call.dilationH), l.dilation[1] = i(call.dilationW);
  return l;
}

DnnConvPath tgc::cuda::chooseConvPath(const ConvCall &call,
                                      cudnnConvolutionFwdAlgo_t algo) {
  // cudnnConvolutionBiasActivationForward supports RELU with every
  // algorithm, IDENTITY only with IMPLICIT_PRECOMP_GEMM.
  if (call.relu)
    return DnnConvPath::Fused;
  if (call.bias >= 0 &&
      algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
    return DnnConvPath::Fused;
  return DnnConvPath::Separate;
}

//===----------------------------------------------------------------------===//
// Handles and prepared convolutions
//===----------------------------------------------------------------------===//

/// One cuDNN handle per device, created on first use and kept for the life
/// of the process (like the devices). A cuDNN handle has a stream, and
/// executables have one stream each: every use sets the stream under the
/// handle's mutex.
struct DnnConv::Handle {
  std::mutex mutex;
  cudnnHandle_t handle = nullptr;
};

namespace {
absl::StatusOr<DnnConv::Handle *> deviceHandle(const DnnApi &api,
                                               Device &device) {
  static std::mutex mutex;
  static auto *handles = new std::map<const Device *, DnnConv::Handle *>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = handles->find(&device); it != handles->end())
    return it->second;
  if (auto status = device.makeCurrent(); !status.ok())
    return status;
  auto handle = std::make_unique<DnnConv::Handle>();
  if (auto status = api.check(api.cudnnCreate(&handle->handle), "cudnnCreate");
      !status.ok())
    return status;
  DnnConv::Handle *raw = handle.release();
  handles->emplace(&device, raw);
  return raw;
}
} // namespace

DnnConv::~DnnConv() {
  if (api) {
    for (cudnnTensorDescriptor_t desc : {xDesc, yDesc, biasDesc})
      if (desc)
        api->cudnnDestroyTensorDescriptor(desc);
    if (wDesc)
      api->cudnnDestroyFilterDescriptor(wDesc);
    if (convDesc)
      api->cudnnDestroyConvolutionDescriptor(convDesc);
    if (activationDesc)
      api->cudnnDestroyActivationDescriptor(activationDesc);
  }
  // Freed after the executable's last call synchronized: no work is pending.
  if (zeroBias && device)
    device->pool().free(zeroBias);
}

absl::StatusOr<std::unique_ptr<DnnConv>>
DnnConv::create(Device &device, Stream &stream, const ConvCall &call) {
  absl::StatusOr<DnnConvLayout> lowered = lowerConv(call);
  if (!lowered.ok())
    return lowered.status();
  const DnnConvLayout &l = *lowered;
  absl::StatusOr<const DnnApi *> loaded = loadDnn();
  if (!loaded.ok())
    return loaded.status();
  const DnnApi &api = **loaded;
  absl::StatusOr<Handle *> handle = deviceHandle(api, device);
  if (!handle.ok())
    return handle.status();

  std::unique_ptr<DnnConv> conv(new DnnConv());
  conv->api = &api;
  conv->device = &device;
  conv->handle = *handle;
  conv->description = call.describe();
  conv->relu = call.relu;
  conv->hasBias = call.bias >= 0;
  conv->hasZ = call.z >= 0;
  conv->alpha2 = call.alpha2;

  auto check = [&](cudnnStatus_t status, const char *what) {
    return api.check(status, what);
  };
#define TGC_CHECK(call, what)                                                  \
  if (absl::Status s = check(call, what); !s.ok())                             \
    return s;
  TGC_CHECK(api.cudnnCreateTensorDescriptor(&conv->xDesc),
            "cudnnCreateTensorDescriptor")
  TGC_CHECK(api.cudnnSetTensor4dDescriptor(conv->xDesc, l.format, l.xType,
                                           l.x[0], l.x[1], l.x[2], l.x[3]),
            "cudnnSetTensor4dDescriptor")
  TGC_CHECK(api.cudnnCreateTensorDescriptor(&conv->yDesc),
            "cudnnCreateTensorDescriptor")
  TGC_CHECK(api.cudnnSetTensor4dDescriptor(conv->yDesc, l.format, l.yType,
                                           l.y[0], l.y[1], l.y[2], l.y[3]),
            "cudnnSetTensor4dDescriptor")
  TGC_CHECK(api.cudnnCreateFilterDescriptor(&conv->wDesc),
            "cudnnCreateFilterDescriptor")
  TGC_CHECK(api.cudnnSetFilter4dDescriptor(conv->wDesc, l.filterType, l.format,
                                           l.filter[0], l.filter[1],
                                           l.filter[2], l.filter[3]),
            "cudnnSetFilter4dDescriptor")
  TGC_CHECK(api.cudnnCreateConvolutionDescriptor(&conv->convDesc),
            "cudnnCreateConvolutionDescriptor")
  TGC_CHECK(api.cudnnSetConvolution2dDescriptor(
                conv->convDesc, l.pad[0], l.pad[1], l.stride[0], l.stride[1],
                l.dilation[0], l.dilation[1], CUDNN_CROSS_CORRELATION,
                l.computeType),
            "cudnnSetConvolution2dDescriptor")
  TGC_CHECK(api.cudnnSetConvolutionGroupCount(conv->convDesc, l.groups),
            "cudnnSetConvolutionGroupCount")
  TGC_CHECK(api.cudnnSetConvolutionMathType(conv->convDesc, l.mathType),
            "cudnnSetConvolutionMathType")
  int dims[4] = {};
  TGC_CHECK(api.cudnnGetConvolution2dForwardOutputDim(
                conv->convDesc, conv->xDesc, conv->wDesc, &dims[0], &dims[1],
                &dims[2], &dims[3]),
            "cudnnGetConvolution2dForwardOutputDim")
  if (dims[0] != l.y[0] || dims[1] != l.y[1] || dims[2] != l.y[2] ||
      dims[3] != l.y[3])
    return absl::InvalidArgumentError(absl::StrCat(
        conv->description, ": cuDNN computes a ", dims[0], "x", dims[1], "x",
        dims[2], "x", dims[3], " output (n, c, h, w)"));
  // The bias (and the activation) also serve the fused path without a
  // bias: a relu gets a zero bias.
  TGC_CHECK(api.cudnnCreateTensorDescriptor(&conv->biasDesc),
            "cudnnCreateTensorDescriptor")
  TGC_CHECK(api.cudnnSetTensor4dDescriptor(conv->biasDesc, CUDNN_TENSOR_NCHW,
                                           l.yType, 1, l.y[1], 1, 1),
            "cudnnSetTensor4dDescriptor")
  TGC_CHECK(api.cudnnCreateActivationDescriptor(&conv->activationDesc),
            "cudnnCreateActivationDescriptor")
  TGC_CHECK(api.cudnnSetActivationDescriptor(
                conv->activationDesc,
                call.relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
                CUDNN_PROPAGATE_NAN, 0.0),
            "cudnnSetActivationDescriptor")

  {
    std::lock_guard<std::mutex> lock(conv->handle->mutex);
    TGC_CHECK(api.cudnnSetStream(conv->handle->handle, stream.handle()),
              "cudnnSetStream")
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {};
    int found = 0;
    TGC_CHECK(api.cudnnFindConvolutionForwardAlgorithm(
                  conv->handle->handle, conv->xDesc, conv->wDesc,
                  conv->convDesc, conv->yDesc, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                  &found, perf),
              "cudnnFindConvolutionForwardAlgorithm")
    // Fastest first. Strict f32 (FMA math) never takes a tensor-op result.
    const bool strict = l.mathType == CUDNN_FMA_MATH;
    const cudnnConvolutionFwdAlgoPerf_t *chosen = nullptr;
    for (int i = 0; i < found && !chosen; ++i) {
      const cudnnConvolutionFwdAlgoPerf_t &p = perf[i];
      if (p.status != CUDNN_STATUS_SUCCESS || p.memory > kMaxWorkspaceBytes)
        continue;
      if (strict && (p.mathType == CUDNN_TENSOR_OP_MATH ||
                     p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION))
        continue;
      chosen = &p;
    }
    if (!chosen)
      return absl::UnimplementedError(
          absl::StrCat("cuDNN has no algorithm for ", conv->description));
    conv->algo = chosen->algo;
    // Run with the math type that was measured (as PyTorch does); strict
    // f32 keeps FMA.
    if (!strict)
      TGC_CHECK(
          api.cudnnSetConvolutionMathType(conv->convDesc, chosen->mathType),
          "cudnnSetConvolutionMathType")
    size_t workspace = 0;
    TGC_CHECK(api.cudnnGetConvolutionForwardWorkspaceSize(
                  conv->handle->handle, conv->xDesc, conv->wDesc,
                  conv->convDesc, conv->yDesc, conv->algo, &workspace),
              "cudnnGetConvolutionForwardWorkspaceSize")
    conv->workspaceSize = std::max(workspace, chosen->memory);
  }
#undef TGC_CHECK
  conv->convPath = chooseConvPath(call, conv->algo);

  if (conv->relu && !conv->hasBias) {
    const size_t bytes =
        static_cast<size_t>(call.k) * runtime::dtypeSize(call.outputDType());
    absl::StatusOr<DevicePtr> zeros = device.pool().allocate(bytes);
    if (!zeros.ok())
      return zeros.status();
    conv->zeroBias = *zeros;
    // Zero bytes are 0.0 in f32, f16 and bf16.
    std::vector<unsigned char> host(bytes, 0);
    if (auto s = stream.copyToDevice(*zeros, host.data(), bytes); !s.ok())
      return s;
    // `host` must outlive the copy.
    if (auto s = stream.synchronize(); !s.ok())
      return s;
  }
  return conv;
}

absl::Status DnnConv::enqueue(CUstream stream, DevicePtr x, DevicePtr filter,
                              DevicePtr bias, DevicePtr z, DevicePtr y,
                              DevicePtr workspace, size_t workspaceBytes) {
  if (workspaceBytes < workspaceSize || (workspaceSize && !workspace))
    return absl::InternalError(absl::StrCat(description, ": ", workspaceBytes,
                                            " bytes of workspace, needs ",
                                            workspaceSize));
  auto ptr = [](DevicePtr p) { return reinterpret_cast<void *>(p); };
  const float one = 1, zero = 0;
  std::lock_guard<std::mutex> lock(handle->mutex);
  cudnnHandle_t h = handle->handle;
  if (auto s = api->check(api->cudnnSetStream(h, stream), "cudnnSetStream");
      !s.ok())
    return s;
  if (convPath == DnnConvPath::Fused) {
    // y = act(1 * conv(x) + alpha2 * z + bias); without z, z is y itself
    // scaled by 0.
    const float scaleZ = hasZ ? alpha2 : 0.0f;
    const cudnnStatus_t status = api->cudnnConvolutionBiasActivationForward(
        h, &one, xDesc, ptr(x), wDesc, ptr(filter), convDesc, algo,
        ptr(workspace), workspaceBytes, &scaleZ, yDesc, ptr(hasZ ? z : y),
        biasDesc, ptr(hasBias ? bias : zeroBias), activationDesc, yDesc,
        ptr(y));
    if (status == CUDNN_STATUS_SUCCESS)
      return absl::OkStatus();
    // Rejected parameters (2xxx) or configurations (3xxx) enqueue nothing:
    // run the separate calls from now on. Anything else is an error.
    const int category = status / 1000 * 1000;
    if (category != 2000 && category != 3000)
      return api->check(status, "cudnnConvolutionBiasActivationForward");
    fusedFailure =
        api->describe(status, "cudnnConvolutionBiasActivationForward");
    convPath = DnnConvPath::Separate;
  }
  // y = conv(x) + beta * y, where beta adds a residual that is y itself.
  const bool zInPlace = hasZ && z == y;
  const float beta = zInPlace ? alpha2 : 0.0f;
  if (auto s = api->check(api->cudnnConvolutionForward(
                              h, &one, xDesc, ptr(x), wDesc, ptr(filter),
                              convDesc, algo, ptr(workspace), workspaceBytes,
                              zInPlace ? &beta : &zero, yDesc, ptr(y)),
                          "cudnnConvolutionForward");
      !s.ok())
    return s;
  if (hasZ && !zInPlace)
    if (auto s = api->check(
            api->cudnnAddTensor(h, &alpha2, yDesc, ptr(z), &one, yDesc, ptr(y)),
            "cudnnAddTensor");
        !s.ok())
      return s;
  if (hasBias)
    if (auto s = api->check(api->cudnnAddTensor(h, &one, biasDesc, ptr(bias),
                                                &one, yDesc, ptr(y)),
                            "cudnnAddTensor");
        !s.ok())
      return s;
  if (relu)
    if (auto s = api->check(api->cudnnActivationForward(h, activationDesc, &one,
                                                        yDesc, ptr(y), &zero,
                                                        yDesc, ptr(y)),
                            "cudnnActivationForward");
        !s.ok())
      return s;
  return absl::OkStatus();
}
