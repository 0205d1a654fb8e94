//===- HeaderAbiTest.cpp - our declarations against the real headers -----===//
//
// runtime/cuda declares the cuBLASLt and cuDNN types, enum values and entry
// points it uses itself (it builds without the toolkit). Where the toolkit's
// headers exist, CMake compiles this file with TGC_HAVE_CUDA_HEADERS and
// their include directory, and every declaration is checked at compile time
// against cublasLt.h and cudnn.h: enum values, struct sizes and field
// offsets, and each entry point's signature (arity, and per parameter and
// return value: size, and whether it is a pointer, floating-point or
// integral; the size of the pointee where both are complete types).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Dnn.h"

#include <gtest/gtest.h>

#ifdef TGC_HAVE_CUDA_HEADERS

#include <cublasLt.h>
#include <cuda.h>
#include <cudnn.h>

#include <array>
#include <cstddef>
#include <type_traits>

namespace {
using namespace tgc::cuda;

struct Shape {
  size_t size = 0;
  int kind = 0;       // 0 void, 1 pointer, 2 floating point, 3 integral or enum
  size_t pointee = 0; // sizeof(*T) for complete object pointees, else 0
  constexpr bool operator==(const Shape &) const = default;
};

template <typename T> constexpr size_t pointeeSize() {
  if constexpr (std::is_pointer_v<T>) {
    using P = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_void_v<P> || std::is_function_v<P>)
      return 0;
    else if constexpr (requires { sizeof(P); })
      return sizeof(P);
    else
      return 0;
  } else {
    return 0;
  }
}

template <typename T> constexpr Shape shapeOf() {
  if constexpr (std::is_void_v<T>)
    return {0, 0, 0};
  else if constexpr (std::is_pointer_v<T>)
    return {sizeof(T), 1, pointeeSize<T>()};
  else if constexpr (std::is_floating_point_v<T>)
    return {sizeof(T), 2, 0};
  else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>)
    return {sizeof(T), 3, 0};
  else
    return {sizeof(T), 4, 0};
}

template <typename F> struct Signature;
template <typename R, typename... A> struct Signature<R (*)(A...)> {
  static constexpr std::array<Shape, sizeof...(A) + 1> value = {
      shapeOf<R>(), shapeOf<A>()...};
};

template <typename Ours, typename Theirs> constexpr bool sameAbi() {
  return Signature<Ours>::value.size() == Signature<Theirs>::value.size() &&
         Signature<Ours>::value == Signature<Theirs>::value;
}

#define TGC_SAME_ENTRY(Api, name)                                              \
  static_assert(sameAbi<decltype(Api::name), decltype(&::name)>(),             \
                #name " differs from the header's")
#define TGC_SAME_VALUE(ns, name)                                               \
  static_assert(static_cast<long long>(ns::name) ==                            \
                    static_cast<long long>(::name),                            \
                #name " differs from the header's")

//===----------------------------------------------------------------------===//
// cuBLASLt
//===----------------------------------------------------------------------===//

static_assert(sizeof(lt::cublasStatus_t) == sizeof(::cublasStatus_t));
static_assert(sizeof(lt::cudaDataType_t) == sizeof(::cudaDataType_t));
static_assert(sizeof(lt::cublasComputeType_t) == sizeof(::cublasComputeType_t));
static_assert(sizeof(lt::cublasOperation_t) == sizeof(::cublasOperation_t));
static_assert(sizeof(lt::cublasLtEpilogue_t) == sizeof(::cublasLtEpilogue_t));
static_assert(sizeof(lt::cublasLtMatmulDescAttributes_t) ==
              sizeof(::cublasLtMatmulDescAttributes_t));
static_assert(sizeof(lt::cublasLtMatrixLayoutAttribute_t) ==
              sizeof(::cublasLtMatrixLayoutAttribute_t));
static_assert(sizeof(lt::cublasLtMatmulPreferenceAttributes_t) ==
              sizeof(::cublasLtMatmulPreferenceAttributes_t));
static_assert(sizeof(lt::cublasLtMatmulDescOpaque_t) ==
              sizeof(::cublasLtMatmulDescOpaque_t));
static_assert(sizeof(lt::cublasLtMatrixLayoutOpaque_t) ==
              sizeof(::cublasLtMatrixLayoutOpaque_t));
static_assert(sizeof(lt::cublasLtMatmulPreferenceOpaque_t) ==
              sizeof(::cublasLtMatmulPreferenceOpaque_t));
static_assert(sizeof(lt::cublasLtMatmulAlgo_t) ==
              sizeof(::cublasLtMatmulAlgo_t));
static_assert(alignof(lt::cublasLtMatmulAlgo_t) ==
              alignof(::cublasLtMatmulAlgo_t));
static_assert(sizeof(lt::cublasLtMatmulHeuristicResult_t) ==
              sizeof(::cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(lt::cublasLtMatmulHeuristicResult_t, algo) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, algo));
static_assert(offsetof(lt::cublasLtMatmulHeuristicResult_t, workspaceSize) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(lt::cublasLtMatmulHeuristicResult_t, state) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, state));
static_assert(offsetof(lt::cublasLtMatmulHeuristicResult_t, wavesCount) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, wavesCount));

TGC_SAME_VALUE(lt, CUBLAS_STATUS_SUCCESS);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_NOT_INITIALIZED);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_ALLOC_FAILED);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_INVALID_VALUE);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_ARCH_MISMATCH);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_MAPPING_ERROR);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_EXECUTION_FAILED);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_INTERNAL_ERROR);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_NOT_SUPPORTED);
TGC_SAME_VALUE(lt, CUBLAS_STATUS_LICENSE_ERROR);
TGC_SAME_VALUE(lt, CUDA_R_32F);
TGC_SAME_VALUE(lt, CUDA_R_16F);
TGC_SAME_VALUE(lt, CUDA_R_16BF);
TGC_SAME_VALUE(lt, CUDA_R_8I);
TGC_SAME_VALUE(lt, CUDA_R_32I);
TGC_SAME_VALUE(lt, CUBLAS_COMPUTE_32F);
TGC_SAME_VALUE(lt, CUBLAS_COMPUTE_32I);
TGC_SAME_VALUE(lt, CUBLAS_COMPUTE_32F_FAST_TF32);
TGC_SAME_VALUE(lt, CUBLAS_OP_N);
TGC_SAME_VALUE(lt, CUBLAS_OP_T);
TGC_SAME_VALUE(lt, CUBLASLT_EPILOGUE_DEFAULT);
TGC_SAME_VALUE(lt, CUBLASLT_EPILOGUE_RELU);
TGC_SAME_VALUE(lt, CUBLASLT_EPILOGUE_BIAS);
TGC_SAME_VALUE(lt, CUBLASLT_EPILOGUE_RELU_BIAS);
TGC_SAME_VALUE(lt, CUBLASLT_EPILOGUE_GELU);
TGC_SAME_VALUE(lt, CUBLASLT_EPILOGUE_GELU_BIAS);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_DESC_TRANSA);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_DESC_TRANSB);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_DESC_EPILOGUE);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_DESC_BIAS_POINTER);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
TGC_SAME_VALUE(lt, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
TGC_SAME_VALUE(lt, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES);
TGC_SAME_VALUE(lt, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);

TGC_SAME_ENTRY(BlasApi, cublasLtCreate);
TGC_SAME_ENTRY(BlasApi, cublasLtDestroy);
TGC_SAME_ENTRY(BlasApi, cublasLtGetVersion);
TGC_SAME_ENTRY(BlasApi, cublasLtGetStatusName);
TGC_SAME_ENTRY(BlasApi, cublasLtGetStatusString);
TGC_SAME_ENTRY(BlasApi, cublasLtMatmulDescCreate);
TGC_SAME_ENTRY(BlasApi, cublasLtMatmulDescDestroy);
TGC_SAME_ENTRY(BlasApi, cublasLtMatmulDescSetAttribute);
TGC_SAME_ENTRY(BlasApi, cublasLtMatrixLayoutCreate);
TGC_SAME_ENTRY(BlasApi, cublasLtMatrixLayoutDestroy);
TGC_SAME_ENTRY(BlasApi, cublasLtMatrixLayoutSetAttribute);
TGC_SAME_ENTRY(BlasApi, cublasLtMatmulPreferenceCreate);
TGC_SAME_ENTRY(BlasApi, cublasLtMatmulPreferenceDestroy);
TGC_SAME_ENTRY(BlasApi, cublasLtMatmulPreferenceSetAttribute);
TGC_SAME_ENTRY(BlasApi, cublasLtMatmulAlgoGetHeuristic);
TGC_SAME_ENTRY(BlasApi, cublasLtMatmul);

//===----------------------------------------------------------------------===//
// cuDNN
//===----------------------------------------------------------------------===//

static_assert(sizeof(dnn::cudnnStatus_t) == sizeof(::cudnnStatus_t));
static_assert(sizeof(dnn::cudnnDataType_t) == sizeof(::cudnnDataType_t));
static_assert(sizeof(dnn::cudnnTensorFormat_t) ==
              sizeof(::cudnnTensorFormat_t));
static_assert(sizeof(dnn::cudnnMathType_t) == sizeof(::cudnnMathType_t));
static_assert(sizeof(dnn::cudnnConvolutionMode_t) ==
              sizeof(::cudnnConvolutionMode_t));
static_assert(sizeof(dnn::cudnnActivationMode_t) ==
              sizeof(::cudnnActivationMode_t));
static_assert(sizeof(dnn::cudnnNanPropagation_t) ==
              sizeof(::cudnnNanPropagation_t));
static_assert(sizeof(dnn::cudnnConvolutionFwdAlgo_t) ==
              sizeof(::cudnnConvolutionFwdAlgo_t));
static_assert(sizeof(dnn::cudnnDeterminism_t) == sizeof(::cudnnDeterminism_t));
static_assert(sizeof(dnn::cudnnConvolutionFwdAlgoPerf_t) ==
              sizeof(::cudnnConvolutionFwdAlgoPerf_t));
static_assert(offsetof(dnn::cudnnConvolutionFwdAlgoPerf_t, algo) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, algo));
static_assert(offsetof(dnn::cudnnConvolutionFwdAlgoPerf_t, status) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, status));
static_assert(offsetof(dnn::cudnnConvolutionFwdAlgoPerf_t, time) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, time));
static_assert(offsetof(dnn::cudnnConvolutionFwdAlgoPerf_t, memory) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, memory));
static_assert(offsetof(dnn::cudnnConvolutionFwdAlgoPerf_t, determinism) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, determinism));
static_assert(offsetof(dnn::cudnnConvolutionFwdAlgoPerf_t, mathType) ==
              offsetof(::cudnnConvolutionFwdAlgoPerf_t, mathType));

TGC_SAME_VALUE(dnn, CUDNN_STATUS_SUCCESS);
TGC_SAME_VALUE(dnn, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED);
TGC_SAME_VALUE(dnn, CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED);
TGC_SAME_VALUE(dnn, CUDNN_DATA_FLOAT);
TGC_SAME_VALUE(dnn, CUDNN_DATA_HALF);
TGC_SAME_VALUE(dnn, CUDNN_DATA_BFLOAT16);
TGC_SAME_VALUE(dnn, CUDNN_DATA_INT8);
TGC_SAME_VALUE(dnn, CUDNN_DATA_INT32);
TGC_SAME_VALUE(dnn, CUDNN_TENSOR_NCHW);
TGC_SAME_VALUE(dnn, CUDNN_TENSOR_NHWC);
TGC_SAME_VALUE(dnn, CUDNN_DEFAULT_MATH);
TGC_SAME_VALUE(dnn, CUDNN_TENSOR_OP_MATH);
TGC_SAME_VALUE(dnn, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION);
TGC_SAME_VALUE(dnn, CUDNN_FMA_MATH);
TGC_SAME_VALUE(dnn, CUDNN_CROSS_CORRELATION);
TGC_SAME_VALUE(dnn, CUDNN_ACTIVATION_RELU);
TGC_SAME_VALUE(dnn, CUDNN_ACTIVATION_IDENTITY);
TGC_SAME_VALUE(dnn, CUDNN_PROPAGATE_NAN);
TGC_SAME_VALUE(dnn, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
TGC_SAME_VALUE(dnn, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
// cudnnGetVersion()'s encoding, which the loader's 9.x check assumes.
static_assert(CUDNN_VERSION ==
              CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL);
static_assert(CUDNN_MAJOR == 9);

TGC_SAME_ENTRY(DnnApi, cudnnGetVersion);
TGC_SAME_ENTRY(DnnApi, cudnnGetErrorString);
TGC_SAME_ENTRY(DnnApi, cudnnGetLastErrorString);
TGC_SAME_ENTRY(DnnApi, cudnnCreate);
TGC_SAME_ENTRY(DnnApi, cudnnDestroy);
TGC_SAME_ENTRY(DnnApi, cudnnSetStream);
TGC_SAME_ENTRY(DnnApi, cudnnCreateTensorDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnSetTensor4dDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnDestroyTensorDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnCreateFilterDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnSetFilter4dDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnDestroyFilterDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnCreateConvolutionDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnSetConvolution2dDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnSetConvolutionGroupCount);
TGC_SAME_ENTRY(DnnApi, cudnnSetConvolutionMathType);
TGC_SAME_ENTRY(DnnApi, cudnnGetConvolution2dForwardOutputDim);
TGC_SAME_ENTRY(DnnApi, cudnnDestroyConvolutionDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnCreateActivationDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnSetActivationDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnDestroyActivationDescriptor);
TGC_SAME_ENTRY(DnnApi, cudnnFindConvolutionForwardAlgorithm);
TGC_SAME_ENTRY(DnnApi, cudnnGetConvolutionForwardWorkspaceSize);
TGC_SAME_ENTRY(DnnApi, cudnnConvolutionForward);
TGC_SAME_ENTRY(DnnApi, cudnnConvolutionBiasActivationForward);
TGC_SAME_ENTRY(DnnApi, cudnnActivationForward);
TGC_SAME_ENTRY(DnnApi, cudnnAddTensor);

//===----------------------------------------------------------------------===//
// The driver (Driver.h): constants and unversioned entry points
//===----------------------------------------------------------------------===//

TGC_SAME_VALUE(tgc::cuda, CUDA_SUCCESS);
TGC_SAME_VALUE(tgc::cuda, CUDA_ERROR_OUT_OF_MEMORY);
TGC_SAME_VALUE(tgc::cuda, CUDA_ERROR_NO_DEVICE);
TGC_SAME_VALUE(tgc::cuda, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
TGC_SAME_VALUE(tgc::cuda, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
TGC_SAME_VALUE(tgc::cuda, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
TGC_SAME_VALUE(tgc::cuda, CU_STREAM_NON_BLOCKING);
static_assert(sizeof(tgc::cuda::CUdeviceptr) == sizeof(::CUdeviceptr));
static_assert(sizeof(tgc::cuda::CUresult) == sizeof(::CUresult));
// cuBLASLt's and cuDNN's cudaStream_t is the driver's CUstream.
static_assert(std::is_same_v<::cudaStream_t, ::CUstream>);
TGC_SAME_ENTRY(DriverApi, cuInit);
TGC_SAME_ENTRY(DriverApi, cuModuleGetFunction);
TGC_SAME_ENTRY(DriverApi, cuLaunchKernel);
TGC_SAME_ENTRY(DriverApi, cuStreamSynchronize);
} // namespace

TEST(HeaderAbi, DeclarationsMatchTheToolkitHeaders) {
  // Everything is checked by the static_asserts above.
  SUCCEED();
}

#else

TEST(HeaderAbi, DeclarationsMatchTheToolkitHeaders) {
  GTEST_SKIP() << "no CUDA toolkit headers at configure time";
}

#endif // TGC_HAVE_CUDA_HEADERS
