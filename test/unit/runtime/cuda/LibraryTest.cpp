//===- LibraryTest.cpp - cuBLASLt / cuDNN steps without a GPU -------------===//
//
// Everything about the library-call steps that runs without a device: the
// loaders' errors (and, where the toolkit's libraries are installed, that
// every entry point is found), the row-major to cuBLASLt mapping (checked
// against an emulation of cuBLASLt's column-major semantics), the cuDNN
// descriptors and paths, describe() formats, and DeviceExecutable::create's
// validation of Matmul and Conv steps.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Dnn.h"
#include "runtime/cuda/Executable.h"

#include "test/unit/runtime/cuda/LibraryReference.h"

#include "absl/strings/match.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>

using namespace tgc::cuda;
using tgc::runtime::DType;
using tgc::runtime::HostTensor;

namespace {
bool startsWith(absl::string_view text, absl::string_view prefix) {
  return absl::StartsWith(text, prefix);
}

std::vector<double> randomValues(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<double> values(count);
  for (double &v : values)
    v = dist(rng) * 0.25;
  return values;
}
} // namespace

//===----------------------------------------------------------------------===//
// Loaders
//===----------------------------------------------------------------------===//

TEST(BlasLoader, MissingLibraryIsAClearError) {
  auto blas = loadBlasFrom("/nonexistent/libcublasLt.so.13");
  ASSERT_FALSE(blas.ok());
  EXPECT_TRUE(absl::IsNotFound(blas.status()));
  EXPECT_TRUE(
      startsWith(blas.status().message(),
                 "cuBLASLt not found (/nonexistent/libcublasLt.so.13: "))
      << blas.status();
}

TEST(BlasLoader, LibraryWithoutTheEntryPointsIsAClearError) {
  auto blas = loadBlasFrom("libm.so.6");
  ASSERT_FALSE(blas.ok());
  EXPECT_EQ(blas.status().message(),
            "cuBLASLt not found (libm.so.6 lacks cublasLtCreate)");
}

TEST(BlasLoader, OverrideIsUsedAndTheErrorCached) {
  // In a fresh child process: loadBlas() caches its first answer per
  // process, and a forked child would inherit this one's (a loaded cuBLASLt
  // on a GPU machine). "threadsafe" death tests re-execute the binary.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("TGC_CUBLASLT_LIBRARY", "/nonexistent/libtgc-blas.so", 1);
        if (blasLibraryName() != "/nonexistent/libtgc-blas.so")
          std::_Exit(2);
        auto first = loadBlas();
        auto second = loadBlas();
        if (first.ok() || first.status() != second.status())
          std::_Exit(3);
        std::fprintf(stderr, "%s\n",
                     std::string(first.status().message()).c_str());
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      "cuBLASLt not found \\(/nonexistent/libtgc-blas.so: ");
}

TEST(BlasLoader, FindsEveryEntryPointWhereInstalled) {
  auto blas = loadBlasFrom("libcublasLt.so.13");
  if (!blas.ok() && !absl::StrContains(blas.status().message(), " lacks "))
    GTEST_SKIP() << "no cuBLASLt 13 here: " << blas.status().message();
  ASSERT_TRUE(blas.ok()) << blas.status();
  EXPECT_GE((*blas)->cublasLtGetVersion(), 130000u);
  EXPECT_EQ(std::string((*blas)->cublasLtGetStatusName(
                lt::CUBLAS_STATUS_NOT_SUPPORTED)),
            "CUBLAS_STATUS_NOT_SUPPORTED");
  // Status names without a library call.
  EXPECT_EQ(blasStatusName(lt::CUBLAS_STATUS_INVALID_VALUE),
            "CUBLAS_STATUS_INVALID_VALUE");
  EXPECT_TRUE(startsWith(
      (*blas)->describe(lt::CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmul"),
      "cublasLtMatmul failed: CUBLAS_STATUS_NOT_SUPPORTED ("));
  EXPECT_TRUE(absl::IsResourceExhausted(
      (*blas)->check(lt::CUBLAS_STATUS_ALLOC_FAILED, "cublasLtCreate")));
}

TEST(BlasLoader, UnknownStatusHasANumber) {
  EXPECT_EQ(blasStatusName(12345), "cublasStatus_t 12345");
}

TEST(DnnLoader, MissingLibraryIsAClearError) {
  auto dnn = loadDnnFrom("/nonexistent/libcudnn.so.9");
  ASSERT_FALSE(dnn.ok());
  EXPECT_TRUE(absl::IsNotFound(dnn.status()));
  EXPECT_TRUE(startsWith(dnn.status().message(),
                         "cuDNN not found (/nonexistent/libcudnn.so.9: "))
      << dnn.status();
}

TEST(DnnLoader, LibraryWithoutTheEntryPointsIsAClearError) {
  auto dnn = loadDnnFrom("libm.so.6");
  ASSERT_FALSE(dnn.ok());
  EXPECT_EQ(dnn.status().message(),
            "cuDNN not found (libm.so.6 lacks cudnnGetVersion)");
}

TEST(DnnLoader, OverrideIsUsedAndTheErrorCached) {
  GTEST_FLAG_SET(death_test_style, "threadsafe"); // As for BlasLoader.
  EXPECT_EXIT(
      {
        setenv("TGC_CUDNN_LIBRARY", "/nonexistent/libtgc-dnn.so", 1);
        if (dnnLibraryName() != "/nonexistent/libtgc-dnn.so")
          std::_Exit(2);
        auto first = loadDnn();
        auto second = loadDnn();
        if (first.ok() || first.status() != second.status())
          std::_Exit(3);
        std::fprintf(stderr, "%s\n",
                     std::string(first.status().message()).c_str());
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      "cuDNN not found \\(/nonexistent/libtgc-dnn.so: ");
}

TEST(DnnLoader, FindsEveryEntryPointWhereInstalled) {
  // Every function Dnn.h uses is still exported by cuDNN 9 (some legacy
  // ones were removed in 9.0; none of these).
  auto dnn = loadDnnFrom("libcudnn.so.9");
  if (!dnn.ok() && !absl::StrContains(dnn.status().message(), " lacks ") &&
      !absl::StrContains(dnn.status().message(), " is version "))
    GTEST_SKIP() << "no cuDNN 9 here: " << dnn.status().message();
  ASSERT_TRUE(dnn.ok()) << dnn.status();
  const size_t version = (*dnn)->cudnnGetVersion();
  EXPECT_GE(version, 90000u);
  EXPECT_LT(version, 100000u);
  EXPECT_TRUE(startsWith((*dnn)->describe(2000, "cudnnConvolutionForward"),
                         "cudnnConvolutionForward failed: CUDNN_STATUS_BAD_"
                         "PARAM"))
      << (*dnn)->describe(2000, "cudnnConvolutionForward");
}

//===----------------------------------------------------------------------===//
// The row-major mapping onto cuBLASLt
//===----------------------------------------------------------------------===//

namespace {
MatmulCall matmul(int64_t batch, int64_t m, int64_t n, int64_t k, bool transA,
                  bool transB) {
  MatmulCall call;
  call.batch = batch;
  call.m = m;
  call.n = n;
  call.k = k;
  call.transA = transA;
  call.transB = transB;
  call.strideA = m * k;
  call.strideB = k * n;
  call.strideC = m * n;
  call.strideD = m * n;
  call.a = 0;
  call.b = 1;
  call.d = 2;
  return call;
}

/// Lowers `call`, emulates cuBLASLt on it and compares with the row-major
/// definition.
void expectMappingMatches(const MatmulCall &call) {
  SCOPED_TRACE(call.describe());
  auto layout = lowerMatmul(call);
  ASSERT_TRUE(layout.ok()) << layout.status();
  const std::vector<double> a = randomValues(
      reference::batchSpan(call, call.m * call.k, call.strideA), 1);
  const std::vector<double> b = randomValues(
      reference::batchSpan(call, call.k * call.n, call.strideB), 2);
  const std::vector<double> c =
      call.c >= 0
          ? randomValues(
                reference::batchSpan(call, call.m * call.n, call.strideC), 3)
          : std::vector<double>();
  const std::vector<double> bias = reference::matmulHasBias(call)
                                       ? randomValues(call.n, 4)
                                       : std::vector<double>();
  const std::vector<double> expected =
      reference::referenceMatmul(call, a, b, c, bias);
  // cuBLASLt's A is our B, its B our A; C stands for itself.
  const std::vector<double> actual =
      reference::emulateBlasLt(call, *layout, b, a, c, bias);
  ASSERT_FALSE(actual.empty()) << "inconsistent cuBLASLt dimensions";
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(actual[i], expected[i], 1e-9) << "element " << i;
}
} // namespace

TEST(BlasMapping, SwapsTheOperands) {
  MatmulCall call = matmul(1, 128, 2304, 768, false, false);
  call.epilogue = MatmulCall::Epilogue::BiasRelu;
  call.bias = 3;
  auto l = lowerMatmul(call);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->m, 2304);
  EXPECT_EQ(l->n, 128);
  EXPECT_EQ(l->k, 768);
  EXPECT_EQ(l->transA, lt::CUBLAS_OP_N);
  EXPECT_EQ(l->transB, lt::CUBLAS_OP_N);
  // cuBLASLt's A: our B (768 x 2304 row-major) as column-major 2304 x 768.
  EXPECT_EQ(l->a.rows, 2304u);
  EXPECT_EQ(l->a.cols, 768u);
  EXPECT_EQ(l->a.ld, 2304);
  EXPECT_EQ(l->b.rows, 768u);
  EXPECT_EQ(l->b.cols, 128u);
  EXPECT_EQ(l->b.ld, 768);
  EXPECT_EQ(l->d.rows, 2304u);
  EXPECT_EQ(l->d.cols, 128u);
  EXPECT_EQ(l->d.ld, 2304);
  // The bias: one value per row of cuBLASLt's D = per column of ours.
  EXPECT_EQ(l->epilogue, lt::CUBLASLT_EPILOGUE_RELU_BIAS);
  EXPECT_TRUE(l->hasBias);
  EXPECT_EQ(l->dataType, lt::CUDA_R_32F);
  EXPECT_EQ(l->outputType, lt::CUDA_R_32F);
  EXPECT_EQ(l->computeType, lt::CUBLAS_COMPUTE_32F);
  EXPECT_EQ(l->scaleType, lt::CUDA_R_32F);
  call.allowTf32 = true;
  EXPECT_EQ(lowerMatmul(call)->computeType, lt::CUBLAS_COMPUTE_32F_FAST_TF32);
  call.dtype = DType::BF16;
  EXPECT_EQ(lowerMatmul(call)->dataType, lt::CUDA_R_16BF);
  EXPECT_EQ(lowerMatmul(call)->computeType, lt::CUBLAS_COMPUTE_32F);
  EXPECT_EQ(lowerMatmul(call)->outputType, lt::CUDA_R_16BF);
  EXPECT_EQ(lowerMatmul(call)->scaleType, lt::CUDA_R_32F);
  call.dtype = DType::F16;
  EXPECT_EQ(lowerMatmul(call)->dataType, lt::CUDA_R_16F);
  EXPECT_EQ(lowerMatmul(call)->outputType, lt::CUDA_R_16F);
  call.dtype = DType::I32;
  EXPECT_EQ(lowerMatmul(call).status().message(),
            "cuBLASLt matmuls take f32, f16, bf16 or i8, not i32");
}

TEST(BlasMapping, EveryTransposeMatchesTheRowMajorDefinition) {
  for (bool transA : {false, true})
    for (bool transB : {false, true})
      expectMappingMatches(matmul(1, 5, 3, 4, transA, transB));
}

TEST(BlasMapping, EveryEpilogueMatchesTheRowMajorDefinition) {
  using E = MatmulCall::Epilogue;
  for (E epilogue :
       {E::None, E::Relu, E::Gelu, E::Bias, E::BiasRelu, E::BiasGelu}) {
    MatmulCall call = matmul(2, 3, 6, 5, false, true);
    call.epilogue = epilogue;
    if (reference::matmulHasBias(call))
      call.bias = 3;
    expectMappingMatches(call);
  }
}

TEST(BlasMapping, BatchesBroadcastsAndResiduals) {
  MatmulCall call = matmul(3, 4, 5, 6, true, false);
  call.strideA = 0; // one A for every batch
  expectMappingMatches(call);
  call = matmul(3, 4, 5, 6, false, true);
  call.strideB = 0;
  call.c = 3;
  call.alpha = 2;
  call.beta = 0.5;
  call.epilogue = MatmulCall::Epilogue::BiasGelu;
  call.bias = 4;
  expectMappingMatches(call);
  // A residual shared by the batches, and padded batch strides.
  call = matmul(2, 3, 4, 5, true, true);
  call.c = 3;
  call.beta = 1;
  call.strideC = 0;
  call.strideA = 17;
  call.strideD = 13;
  expectMappingMatches(call);
}

namespace {
/// D (5 x 8, i32) = A (5 x 12, i8) * B (8 x 12, i8)^T: the int8 form.
MatmulCall int8Matmul(int64_t m = 5, int64_t n = 8, int64_t k = 12) {
  MatmulCall call = matmul(1, m, n, k, false, true);
  call.dtype = DType::I8;
  return call;
}
} // namespace

TEST(BlasMapping, Int8IsCublasLtsTNForm) {
  MatmulCall call = int8Matmul();
  EXPECT_EQ(call.outputDType(), DType::I32);
  auto l = lowerMatmul(call);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->dataType, lt::CUDA_R_8I);
  EXPECT_EQ(l->outputType, lt::CUDA_R_32I);
  EXPECT_EQ(l->computeType, lt::CUBLAS_COMPUTE_32I);
  EXPECT_EQ(l->scaleType, lt::CUDA_R_32I);
  EXPECT_EQ(l->epilogue, lt::CUBLASLT_EPILOGUE_DEFAULT);
  EXPECT_FALSE(l->hasBias);
  // cuBLASLt's m = our n, its n = our m: its m and k are multiples of 4.
  EXPECT_EQ(l->m, 8);
  EXPECT_EQ(l->n, 5);
  EXPECT_EQ(l->k, 12);
  // Its A: our B, stored 8 x 12 row-major = column-major 12 x 8, op T.
  EXPECT_EQ(l->transA, lt::CUBLAS_OP_T);
  EXPECT_EQ(l->a.rows, 12u);
  EXPECT_EQ(l->a.cols, 8u);
  EXPECT_EQ(l->a.ld, 12);
  // Its B: our A, 5 x 12 row-major = column-major 12 x 5, op N.
  EXPECT_EQ(l->transB, lt::CUBLAS_OP_N);
  EXPECT_EQ(l->b.rows, 12u);
  EXPECT_EQ(l->b.cols, 5u);
  EXPECT_EQ(l->b.ld, 12);
  // D: 5 x 8 row-major = column-major 8 x 5 (ld 8, a multiple of 4).
  EXPECT_EQ(l->d.rows, 8u);
  EXPECT_EQ(l->d.cols, 5u);
  EXPECT_EQ(l->d.ld, 8);
  EXPECT_EQ(l->batchCount, 1);
  // TF32 does not apply to int8.
  call.allowTf32 = true;
  EXPECT_EQ(lowerMatmul(call)->computeType, lt::CUBLAS_COMPUTE_32I);
  // And the TN layouts compute the row-major definition.
  expectMappingMatches(int8Matmul());
  expectMappingMatches(int8Matmul(33, 64, 96));
}

TEST(BlasMapping, Int8Violations) {
  auto error = [](auto change) {
    MatmulCall call = int8Matmul();
    change(call);
    auto l = lowerMatmul(call);
    EXPECT_TRUE(l.ok() || absl::IsInvalidArgument(l.status())) << l.status();
    EXPECT_EQ(int8Violation(call).empty(), l.ok());
    return std::string(l.status().message());
  };
  EXPECT_EQ(error([](MatmulCall &) {}), "");
  EXPECT_EQ(error([](MatmulCall &c) { c.transB = false; }),
            "matmul 5x12 * 12x8 int8 (s32 out): int8 matmuls need transA "
            "false and transB true (cuBLASLt's TN form), not transA false and "
            "transB false");
  EXPECT_EQ(error([](MatmulCall &c) { c.transA = true; }),
            "matmul (12x5)^T * (8x12)^T int8 (s32 out): int8 matmuls need "
            "transA false and transB true (cuBLASLt's TN form), not transA "
            "true and transB true");
  EXPECT_EQ(error([](MatmulCall &c) { c.batch = 2; }),
            "matmul 2x(5x12 * (8x12)^T) int8 (s32 out): int8 matmuls are not "
            "batched (batch 2)");
  EXPECT_EQ(error([](MatmulCall &c) { c.c = 3; }),
            "matmul 5x12 * (8x12)^T +0*c int8 (s32 out): int8 matmuls take no "
            "C (c -1, beta 0)");
  EXPECT_EQ(error([](MatmulCall &c) { c.beta = 1; }),
            "matmul 5x12 * (8x12)^T +c int8 (s32 out): int8 matmuls take no C "
            "(c -1, beta 0)");
  EXPECT_EQ(
      error([](MatmulCall &c) { c.epilogue = MatmulCall::Epilogue::Relu; }),
      "matmul 5x12 * (8x12)^T relu int8 (s32 out): int8 matmuls take no "
      "bias and no epilogue");
  EXPECT_EQ(error([](MatmulCall &c) { c.bias = 3; }),
            "matmul 5x12 * (8x12)^T int8 (s32 out): int8 matmuls take no bias "
            "and no epilogue");
  EXPECT_EQ(error([](MatmulCall &c) { c.alpha = 2; }),
            "matmul 5x12 * (8x12)^T *2 int8 (s32 out): int8 matmuls take "
            "alpha 1, not 2");
  EXPECT_EQ(error([](MatmulCall &c) { c.n = 6; }),
            "matmul 5x12 * (6x12)^T int8 (s32 out): int8 matmuls need n and k "
            "multiples of 4 (n 6, k 12)");
  EXPECT_EQ(error([](MatmulCall &c) { c.k = 10; }),
            "matmul 5x10 * (8x10)^T int8 (s32 out): int8 matmuls need n and k "
            "multiples of 4 (n 8, k 10)");
  // Any m; and float calls have no int8 limits.
  EXPECT_EQ(error([](MatmulCall &c) { c.m = 7; }), "");
  MatmulCall f32 = int8Matmul();
  f32.dtype = DType::F32;
  f32.n = 6;
  EXPECT_EQ(int8Violation(f32), "");
}

TEST(BlasMapping, Int8ReferenceIsExact) {
  // [1 -2 3 4] . [5 6 -7 8] = 5 - 12 - 21 + 32 = 4; extremes do not wrap.
  MatmulCall call = int8Matmul(2, 1, 4);
  // n = 1 is fine for the reference (the call itself needs n % 4 == 0).
  const std::vector<int8_t> a = {1, -2, 3, 4, -128, -128, 127, -128};
  const std::vector<int8_t> b = {5, 6, -7, 8};
  EXPECT_EQ(reference::referenceMatmulInt8(call, a, b),
            (std::vector<int32_t>{4, -128 * 5 - 128 * 6 - 127 * 7 - 128 * 8}));
  call = int8Matmul(4, 8, 16);
  EXPECT_EQ(reference::referenceMatmulInt8(call, std::vector<int8_t>(64, -128),
                                           std::vector<int8_t>(128, -128)),
            std::vector<int32_t>(32, 16 * 16384));
}

//===----------------------------------------------------------------------===//
// cuDNN descriptors and paths
//===----------------------------------------------------------------------===//

namespace {
ConvCall conv(bool nhwc) {
  ConvCall call;
  call.nhwc = nhwc;
  call.n = 2;
  call.c = 8;
  call.h = 10;
  call.w = 12;
  call.k = 6;
  call.r = 3;
  call.s = 3;
  call.padH = call.padW = 1;
  call.outH = 10;
  call.outW = 12;
  call.x = 0;
  call.filter = 1;
  call.y = 2;
  return call;
}
} // namespace

TEST(DnnMapping, Descriptors) {
  ConvCall call = conv(true);
  call.groups = 2;
  call.strideH = 2;
  call.dilationW = 2;
  call.outH = 5;
  call.outW = 10;
  auto l = lowerConv(call);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->format, dnn::CUDNN_TENSOR_NHWC);
  EXPECT_EQ(l->xType, dnn::CUDNN_DATA_FLOAT);
  EXPECT_EQ(l->filterType, dnn::CUDNN_DATA_FLOAT);
  EXPECT_EQ(l->yType, dnn::CUDNN_DATA_FLOAT);
  EXPECT_EQ(l->computeType, dnn::CUDNN_DATA_FLOAT);
  EXPECT_EQ(l->mathType, dnn::CUDNN_FMA_MATH);
  // (n, c, h, w) whatever the format; the filter has c / groups channels.
  EXPECT_EQ(std::vector<int>(l->x, l->x + 4), (std::vector<int>{2, 8, 10, 12}));
  EXPECT_EQ(std::vector<int>(l->filter, l->filter + 4),
            (std::vector<int>{6, 4, 3, 3}));
  EXPECT_EQ(std::vector<int>(l->y, l->y + 4), (std::vector<int>{2, 6, 5, 10}));
  EXPECT_EQ(l->groups, 2);
  EXPECT_EQ(l->stride[0], 2);
  EXPECT_EQ(l->dilation[1], 2);
  call.allowTf32 = true;
  EXPECT_EQ(lowerConv(call)->mathType, dnn::CUDNN_DEFAULT_MATH);
  call.allowTf32 = false;
  call.dtype = DType::F16;
  EXPECT_EQ(lowerConv(call)->xType, dnn::CUDNN_DATA_HALF);
  EXPECT_EQ(lowerConv(call)->filterType, dnn::CUDNN_DATA_HALF);
  EXPECT_EQ(lowerConv(call)->yType, dnn::CUDNN_DATA_HALF);
  // f16 and bf16 accumulate in f32.
  EXPECT_EQ(lowerConv(call)->computeType, dnn::CUDNN_DATA_FLOAT);
  EXPECT_EQ(lowerConv(call)->mathType, dnn::CUDNN_DEFAULT_MATH);
  call.dtype = DType::BF16;
  EXPECT_EQ(lowerConv(call)->xType, dnn::CUDNN_DATA_BFLOAT16);
  EXPECT_EQ(lowerConv(call)->yType, dnn::CUDNN_DATA_BFLOAT16);
  EXPECT_EQ(lowerConv(conv(false))->format, dnn::CUDNN_TENSOR_NCHW);
  call.dtype = DType::F64;
  EXPECT_EQ(lowerConv(call).status().message(),
            "cuDNN convolutions take f32, f16, bf16 or i8, not f64");
}

namespace {
/// An int8 NHWC convolution: 1x6x6x8 * 4x3x3x8 pad 1 -> 1x6x6x4 (f32).
ConvCall int8Conv() {
  ConvCall call;
  call.dtype = DType::I8;
  call.nhwc = true;
  call.c = 8;
  call.h = call.w = 6;
  call.k = 4;
  call.r = call.s = 3;
  call.padH = call.padW = 1;
  call.outH = call.outW = 6;
  call.x = 0;
  call.filter = 1;
  call.y = 2;
  return call;
}
} // namespace

TEST(DnnMapping, Int8IsInt8ExtConfig) {
  ConvCall call = int8Conv();
  EXPECT_EQ(call.outputDType(), DType::F32);
  auto l = lowerConv(call);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->xType, dnn::CUDNN_DATA_INT8);
  EXPECT_EQ(l->filterType, dnn::CUDNN_DATA_INT8);
  EXPECT_EQ(l->yType, dnn::CUDNN_DATA_FLOAT);
  EXPECT_EQ(l->computeType, dnn::CUDNN_DATA_INT32);
  EXPECT_EQ(l->format, dnn::CUDNN_TENSOR_NHWC);
  EXPECT_EQ(l->mathType, dnn::CUDNN_DEFAULT_MATH);
  EXPECT_EQ(std::vector<int>(l->x, l->x + 4), (std::vector<int>{1, 8, 6, 6}));
  EXPECT_EQ(std::vector<int>(l->filter, l->filter + 4),
            (std::vector<int>{4, 8, 3, 3}));
  EXPECT_EQ(std::vector<int>(l->y, l->y + 4), (std::vector<int>{1, 4, 6, 6}));
  EXPECT_EQ(l->groups, 1);
  // Never fused: one cudnnConvolutionForward.
  EXPECT_EQ(chooseConvPath(
                call, dnn::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM),
            DnnConvPath::Separate);
  // Strides and dilations are allowed; TF32 does not apply.
  call.strideH = call.strideW = 2;
  call.dilationH = 2;
  call.padH = 2;
  call.outH = call.outW = 3;
  call.allowTf32 = true;
  l = lowerConv(call);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->stride[0], 2);
  EXPECT_EQ(l->dilation[0], 2);
  EXPECT_EQ(l->mathType, dnn::CUDNN_DEFAULT_MATH);
}

TEST(DnnMapping, Int8Violations) {
  auto error = [](auto change) {
    ConvCall call = int8Conv();
    change(call);
    auto l = lowerConv(call);
    EXPECT_TRUE(l.ok() || absl::IsInvalidArgument(l.status())) << l.status();
    EXPECT_EQ(int8Violation(call).empty(), l.ok());
    return std::string(l.status().message());
  };
  EXPECT_EQ(error([](ConvCall &) {}), "");
  EXPECT_EQ(error([](ConvCall &c) { c.nhwc = false; }),
            "conv 1x8x6x6 * 4x8x3x3 pad 1 stride 1 -> 1x4x6x6 int8 (f32 out): "
            "int8 convolutions are NHWC only");
  EXPECT_EQ(error([](ConvCall &c) { c.groups = 2; }),
            "conv nhwc 1x6x6x8 * 4x3x3x4 pad 1 stride 1 groups 2 -> 1x6x6x4 "
            "int8 (f32 out): int8 convolutions have one group, not 2");
  EXPECT_EQ(error([](ConvCall &c) { c.c = 6; }),
            "conv nhwc 1x6x6x6 * 4x3x3x6 pad 1 stride 1 -> 1x6x6x4 int8 (f32 "
            "out): int8 convolutions need c and k multiples of 4 (c 6, k 4)");
  EXPECT_EQ(error([](ConvCall &c) { c.k = 6; }),
            "conv nhwc 1x6x6x8 * 6x3x3x8 pad 1 stride 1 -> 1x6x6x6 int8 (f32 "
            "out): int8 convolutions need c and k multiples of 4 (c 8, k 6)");
  const std::string noExtras =
      "int8 convolutions take no bias, no z and no relu";
  EXPECT_TRUE(absl::EndsWith(error([](ConvCall &c) { c.bias = 3; }), noExtras));
  EXPECT_TRUE(absl::EndsWith(error([](ConvCall &c) { c.z = 3; }), noExtras));
  EXPECT_TRUE(
      absl::EndsWith(error([](ConvCall &c) { c.relu = true; }), noExtras));
  ConvCall f32 = int8Conv();
  f32.dtype = DType::F32;
  f32.nhwc = false;
  f32.c = 6;
  EXPECT_EQ(int8Violation(f32), "");
}

TEST(DnnMapping, Int8ReferenceIsExact) {
  // A 1x1 convolution is a per-pixel dot product over the channels.
  ConvCall call = int8Conv();
  call.h = 1;
  call.w = 2;
  call.c = 4;
  call.k = 1;
  call.r = call.s = 1;
  call.padH = call.padW = 0;
  call.outH = 1;
  call.outW = 2;
  EXPECT_EQ(reference::referenceConvInt8(
                call, {1, 2, 3, 4, -128, -128, -128, -128}, {1, -1, 2, -2}),
            (std::vector<int32_t>{1 - 2 + 6 - 8, 0}));
  // Against the double reference on a padded, strided, dilated case.
  call = int8Conv();
  call.strideH = 2;
  call.dilationW = 2;
  call.outH = 3;
  call.outW = 4;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> x(6 * 6 * 8), w(4 * 3 * 3 * 8);
  for (int8_t &v : x)
    v = static_cast<int8_t>(dist(rng));
  for (int8_t &v : w)
    v = static_cast<int8_t>(dist(rng));
  const std::vector<int32_t> exact = reference::referenceConvInt8(call, x, w);
  const std::vector<double> approx =
      reference::referenceConv(call, std::vector<double>(x.begin(), x.end()),
                               std::vector<double>(w.begin(), w.end()), {}, {});
  ASSERT_EQ(exact.size(), approx.size());
  for (size_t i = 0; i < exact.size(); ++i)
    ASSERT_EQ(double(exact[i]), approx[i]) << i;
}

TEST(DnnMapping, Paths) {
  ConvCall call = conv(false);
  const int precomp = dnn::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  const int winograd = 6;
  EXPECT_EQ(chooseConvPath(call, precomp), DnnConvPath::Separate);
  call.bias = 3;
  // IDENTITY is fused only on IMPLICIT_PRECOMP_GEMM.
  EXPECT_EQ(chooseConvPath(call, precomp), DnnConvPath::Fused);
  EXPECT_EQ(chooseConvPath(call, winograd), DnnConvPath::Separate);
  call.z = 4;
  EXPECT_EQ(chooseConvPath(call, winograd), DnnConvPath::Separate);
  // RELU with every algorithm, with or without a bias.
  call.relu = true;
  EXPECT_EQ(chooseConvPath(call, winograd), DnnConvPath::Fused);
  call.bias = -1;
  EXPECT_EQ(chooseConvPath(call, 0), DnnConvPath::Fused);
}

TEST(DnnMapping, ReferenceConvolutionBasics) {
  // A 1x1 convolution of a 1x2x1x1 input is a matrix-vector product.
  ConvCall call;
  call.c = 2;
  call.k = 2;
  call.z = 0;
  call.bias = 0;
  call.alpha2 = 0.5;
  call.relu = true;
  auto y = reference::referenceConv(call, {1, 2}, {1, 1, -3, 1}, {0.5, 0.25},
                                    {2, 2});
  // k0: 1 + 2 + 0.5*2 + 0.5 = 4.5; k1: -3 + 2 + 1 + 0.25 = 0.25.
  EXPECT_EQ(y, (std::vector<double>{4.5, 0.25}));
}

//===----------------------------------------------------------------------===//
// describe()
//===----------------------------------------------------------------------===//

TEST(LibraryCalls, MatmulDescriptions) {
  MatmulCall call = matmul(8, 128, 2304, 768, false, false);
  call.epilogue = MatmulCall::Epilogue::BiasRelu;
  call.bias = 3;
  EXPECT_EQ(call.describe(), "matmul 8x(128x768 * 768x2304) +bias relu");
  call = matmul(1, 4, 5, 6, true, true);
  EXPECT_EQ(call.describe(), "matmul (6x4)^T * (5x6)^T");
  call.epilogue = MatmulCall::Epilogue::Gelu;
  call.alpha = 0.5;
  call.c = 3;
  call.beta = 1;
  EXPECT_EQ(call.describe(), "matmul (6x4)^T * (5x6)^T *0.5 +c gelu");
  call.beta = 2;
  call.epilogue = MatmulCall::Epilogue::BiasGelu;
  call.dtype = DType::BF16;
  EXPECT_EQ(call.describe(),
            "matmul (6x4)^T * (5x6)^T *0.5 +2*c +bias gelu bf16");
  call = matmul(3, 2, 2, 2, false, false);
  call.strideB = 0;
  call.c = 4;
  call.beta = 1;
  call.strideC = 0;
  call.allowTf32 = true;
  call.epilogue = MatmulCall::Epilogue::Relu;
  EXPECT_EQ(call.describe(), "matmul 3x(2x2 * 2x2) broadcast B,C +c relu tf32");
  call = int8Matmul();
  call.allowTf32 = true; // irrelevant to int8
  EXPECT_EQ(call.describe(), "matmul 5x12 * (8x12)^T int8 (s32 out)");
}

TEST(LibraryCalls, ConvDescriptions) {
  ConvCall call;
  call.n = 1;
  call.c = 64;
  call.h = call.w = 56;
  call.k = 64;
  call.r = call.s = 3;
  call.padH = call.padW = 1;
  call.outH = call.outW = 56;
  call.bias = 2;
  call.z = 3;
  call.relu = true;
  EXPECT_EQ(call.describe(), "conv 1x64x56x56 * 64x64x3x3 pad 1 stride 1 -> "
                             "1x64x56x56 +bias +z relu");
  call.nhwc = true;
  call.groups = 32;
  call.strideH = 2;
  call.padW = 0;
  call.dilationH = call.dilationW = 2;
  call.outH = 27;
  call.outW = 52;
  call.bias = -1;
  call.alpha2 = 0.5;
  call.relu = false;
  call.dtype = DType::F16;
  EXPECT_EQ(call.describe(),
            "conv nhwc 1x56x56x64 * 64x3x3x2 pad 1x0 stride 2x1 dilation 2 "
            "groups 32 -> 1x27x52x64 +0.5*z f16");
  call = int8Conv();
  call.strideH = call.strideW = 2;
  call.outH = call.outW = 3;
  call.allowTf32 = true; // irrelevant to int8
  EXPECT_EQ(call.describe(), "conv nhwc 1x6x6x8 * 4x3x3x8 pad 1 stride 2 -> "
                             "1x3x3x4 int8 (f32 out)");
}

TEST(LibraryCalls, ExecutableDescription) {
  ExecutableSpec spec;
  spec.inputs = {{DType::F32, {4, 3}}, {DType::F32, {3, 5}}, {DType::F32, {5}}};
  spec.intermediates = {{DType::F32, {20}}, {DType::F32, {2 * 4 * 3 * 3}}};
  spec.constants.push_back(*HostTensor::allocate(DType::F32, {4, 1, 3, 3}));
  MatmulCall mm = matmul(1, 4, 5, 3, false, false);
  mm.epilogue = MatmulCall::Epilogue::Bias;
  mm.bias = 2;
  mm.d = 4;
  spec.matmuls.push_back(mm);
  ConvCall cv;
  cv.n = 1;
  cv.c = 1;
  cv.h = 4;
  cv.w = 5;
  cv.k = 4;
  cv.r = cv.s = 3;
  cv.padH = cv.padW = 1;
  cv.outH = 4;
  cv.outW = 5;
  cv.x = 4;
  cv.filter = 3;
  cv.y = 5;
  cv.relu = true;
  spec.intermediates[1] = {DType::F32, {20 * 4}};
  spec.convs.push_back(cv);
  Launch step;
  step.kind = Launch::Kind::Matmul;
  step.kernel = 0;
  spec.launches.push_back(step);
  step.kind = Launch::Kind::Conv;
  spec.launches.push_back(step);
  spec.results = {5};
  auto executable = DeviceExecutable::create(spec);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->describe(),
            "matmul 4x3 * 3x5 +bias (A b0:4x3xf32, B b1:3x5xf32, bias "
            "b2:5xf32) -> b4:20xf32\n"
            "conv 1x1x4x5 * 4x1x3x3 pad 1 stride 1 -> 1x4x4x5 relu (x "
            "b4:20xf32, w b3:4x1x3x3xf32) -> b5:80xf32\n"
            "results: b5\n");
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

namespace {
/// A valid spec with one matmul (4x3 * 3x5, batch 2) and one conv.
ExecutableSpec librarySpec() {
  ExecutableSpec spec;
  spec.inputs = {{DType::F32, {2, 4, 3}},     // b0: A
                 {DType::F32, {3, 5}},        // b1: B (broadcast)
                 {DType::F32, {5}},           // b2: bias
                 {DType::F32, {1, 2, 6, 6}},  // b3: conv x
                 {DType::F32, {4, 2, 3, 3}}}; // b4: filter
  spec.intermediates = {{DType::F32, {40}},   // b5: D
                        {DType::F32, {64}}};  // b6: conv y (1x4x4x4)
  MatmulCall mm = matmul(2, 4, 5, 3, false, false);
  mm.strideB = 0;
  mm.d = 5;
  spec.matmuls.push_back(mm);
  ConvCall cv;
  cv.c = 2;
  cv.h = cv.w = 6;
  cv.k = 4;
  cv.r = cv.s = 3;
  cv.outH = cv.outW = 4;
  cv.x = 3;
  cv.filter = 4;
  cv.y = 6;
  spec.convs.push_back(cv);
  Launch step;
  step.kind = Launch::Kind::Matmul;
  spec.launches.push_back(step);
  step.kind = Launch::Kind::Conv;
  spec.launches.push_back(step);
  spec.results = {5, 6};
  return spec;
}

std::string createError(const ExecutableSpec &spec) {
  auto executable = DeviceExecutable::create(spec);
  if (executable.ok())
    return "ok";
  EXPECT_TRUE(absl::IsInvalidArgument(executable.status()));
  return std::string(executable.status().message());
}
} // namespace

TEST(LibraryCalls, ValidSpecIsAccepted) {
  EXPECT_EQ(createError(librarySpec()), "ok");
}

TEST(LibraryCalls, BadMatmulSteps) {
  ExecutableSpec spec = librarySpec();
  spec.launches[0].kernel = 1;
  EXPECT_EQ(createError(spec), "launch 0: no matmul 1");
  spec = librarySpec();
  spec.launches[0].buffers = {0, 9};
  EXPECT_EQ(createError(spec), "launch 0: no buffer 9");

  auto bad = [](auto change) {
    ExecutableSpec spec = librarySpec();
    change(spec.matmuls[0]);
    return createError(spec);
  };
  EXPECT_EQ(bad([](MatmulCall &c) { c.dtype = DType::I32; }),
            "matmul 0: dtype i32 (cuBLASLt takes f32, f16, bf16 or i8)");
  // int8 has its own limits (BadInt8MatmulSteps).
  EXPECT_EQ(bad([](MatmulCall &c) { c.dtype = DType::I8; }),
            "matmul 0: int8 matmuls need transA false and transB true "
            "(cuBLASLt's TN form), not transA false and transB false");
  EXPECT_EQ(bad([](MatmulCall &c) { c.dtype = DType::F16; }),
            "matmul 0: A is f16, buffer 0 is 2x4x3xf32");
  EXPECT_EQ(bad([](MatmulCall &c) { c.k = 0; }),
            "matmul 0: bad shape: batch 2, m 4, n 5, k 0");
  EXPECT_EQ(bad([](MatmulCall &c) { c.strideA = -1; }),
            "matmul 0: negative batch stride -1");
  EXPECT_EQ(bad([](MatmulCall &c) { c.strideD = 19; }),
            "matmul 0: strideD 19 overlaps the batch's 4x5 results");
  EXPECT_EQ(bad([](MatmulCall &c) { c.strideA = 13; }),
            "matmul 0: A needs 100 bytes, buffer 0 (2x4x3xf32) has 96");
  EXPECT_EQ(bad([](MatmulCall &c) { c.strideB = 15; }),
            "matmul 0: B needs 120 bytes, buffer 1 (3x5xf32) has 60");
  EXPECT_EQ(bad([](MatmulCall &c) { c.strideD = 21; }),
            "matmul 0: D needs 164 bytes, buffer 5 (40xf32) has 160");
  EXPECT_EQ(bad([](MatmulCall &c) { c.beta = 1; }),
            "matmul 0: beta 1 without a C");
  EXPECT_EQ(bad([](MatmulCall &c) { c.epilogue = MatmulCall::Epilogue::Bias; }),
            "matmul 0: the epilogue adds a bias, but there is none");
  EXPECT_EQ(bad([](MatmulCall &c) { c.bias = 2; }),
            "matmul 0: a bias, but the epilogue adds none");
  {
    ExecutableSpec small = librarySpec();
    small.inputs[2] = {DType::F32, {3}};
    small.matmuls[0].epilogue = MatmulCall::Epilogue::Bias;
    small.matmuls[0].bias = 2;
    EXPECT_EQ(createError(small),
              "matmul 0: the bias needs 20 bytes, buffer 2 (3xf32) has 12");
  }
  EXPECT_EQ(bad([](MatmulCall &c) { c.a = 7; }), "matmul 0: no buffer 7 for A");
  EXPECT_EQ(bad([](MatmulCall &c) { c.d = 3; }),
            "matmul 0: D is buffer 3, an input or constant: library calls "
            "write intermediates only");
  EXPECT_EQ(bad([](MatmulCall &c) {
              c.c = 5;
              c.beta = 1;
              c.strideC = 0;
            }),
            "matmul 0: C is D, with another batch stride");
}

TEST(LibraryCalls, BadConvSteps) {
  ExecutableSpec spec = librarySpec();
  spec.launches[1].kernel = 2;
  EXPECT_EQ(createError(spec), "launch 1: no conv 2");

  auto bad = [](auto change) {
    ExecutableSpec spec = librarySpec();
    change(spec.convs[0]);
    return createError(spec);
  };
  EXPECT_EQ(bad([](ConvCall &c) { c.dtype = DType::F64; }),
            "conv 0: dtype f64 (cuDNN takes f32, f16, bf16 or i8)");
  EXPECT_EQ(bad([](ConvCall &c) { c.dtype = DType::I8; }),
            "conv 0: int8 convolutions are NHWC only");
  EXPECT_EQ(bad([](ConvCall &c) { c.strideH = 0; }),
            "conv 0: bad shape or parameter 0 in conv 1x2x6x6 * 4x2x3x3 pad "
            "0 stride 0x1 -> 1x4x4x4");
  EXPECT_EQ(bad([](ConvCall &c) { c.padW = -1; }), "conv 0: bad padding 0x-1");
  EXPECT_EQ(bad([](ConvCall &c) { c.groups = 3; }),
            "conv 0: 3 groups do not divide 2 input and 4 output channels");
  EXPECT_EQ(bad([](ConvCall &c) { c.outH = 5; }),
            "conv 0: the output is 4x4, not 5x4 (conv 1x2x6x6 * 4x2x3x3 pad 0 "
            "stride 1 -> 1x4x5x4)");
  EXPECT_EQ(bad([](ConvCall &c) {
              c.padH = c.padW = 1;
              c.outH = c.outW = 6;
            }),
            "conv 0: y needs 576 bytes, buffer 6 (64xf32) has 256");
  EXPECT_EQ(bad([](ConvCall &c) { c.c = 4; }),
            "conv 0: x needs 576 bytes, buffer 3 (1x2x6x6xf32) has 288");
  EXPECT_EQ(bad([](ConvCall &c) { c.k = 8; }),
            "conv 0: the filter needs 576 bytes, buffer 4 (4x2x3x3xf32) has "
            "288");
  EXPECT_EQ(bad([](ConvCall &c) { c.bias = 9; }),
            "conv 0: no buffer 9 for the bias");
  EXPECT_EQ(bad([](ConvCall &c) { c.z = 5; }),
            "conv 0: z needs 256 bytes, buffer 5 (40xf32) has 160");
  EXPECT_EQ(bad([](ConvCall &c) { c.z = 6; }), "ok"); // a residual in place
  EXPECT_EQ(bad([](ConvCall &c) { c.z = 2; }),
            "conv 0: z needs 256 bytes, buffer 2 (5xf32) has 20");
  EXPECT_EQ(bad([](ConvCall &c) { c.y = 0; }),
            "conv 0: y needs 256 bytes, buffer 0 (2x4x3xf32) has 96");
  EXPECT_EQ(bad([](ConvCall &c) { c.y = 3; }),
            "conv 0: y is buffer 3, an input or constant: library calls "
            "write intermediates only");
  EXPECT_EQ(bad([](ConvCall &c) {
              c.bias = 6;
              c.y = 6;
            }),
            "conv 0: y (buffer 6) is also an input of the convolution");
  EXPECT_EQ(bad([](ConvCall &c) { c.filter = 2; }),
            "conv 0: the filter needs 288 bytes, buffer 2 (5xf32) has 20");
}

namespace {
/// A valid spec with one int8 matmul (5x12 * (8x12)^T -> 5x8 i32) and one
/// int8 NHWC conv (1x6x6x8 * 4x3x3x8 pad 1 -> 1x6x6x4 f32).
ExecutableSpec int8Spec() {
  ExecutableSpec spec;
  spec.inputs = {{DType::I8, {5, 12}},        // b0: A
                 {DType::I8, {8, 12}},        // b1: B (n x k)
                 {DType::F32, {40}},          // b2: 160 bytes of f32
                 {DType::I8, {1, 6, 6, 8}},   // b3: conv x
                 {DType::I8, {4, 3, 3, 8}}};  // b4: filter (KRSC)
  spec.intermediates = {{DType::I32, {40}},   // b5: D
                        {DType::F32, {144}},  // b6: conv y
                        {DType::F32, {144}}}; // b7: spare
  MatmulCall mm = int8Matmul();
  mm.strideA = mm.strideB = mm.strideC = mm.strideD = 0;
  mm.d = 5;
  spec.matmuls.push_back(mm);
  ConvCall cv = int8Conv();
  cv.x = 3;
  cv.filter = 4;
  cv.y = 6;
  spec.convs.push_back(cv);
  Launch step;
  step.kind = Launch::Kind::Matmul;
  spec.launches.push_back(step);
  step.kind = Launch::Kind::Conv;
  spec.launches.push_back(step);
  spec.results = {5, 6};
  return spec;
}
} // namespace

TEST(LibraryCalls, Int8SpecIsAcceptedAndDescribed) {
  auto executable = DeviceExecutable::create(int8Spec());
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->describe(),
            "matmul 5x12 * (8x12)^T int8 (s32 out) (A b0:5x12xi8, B "
            "b1:8x12xi8) -> b5:40xi32\n"
            "conv nhwc 1x6x6x8 * 4x3x3x8 pad 1 stride 1 -> 1x6x6x4 int8 (f32 "
            "out) (x b3:1x6x6x8xi8, w b4:4x3x3x8xi8) -> b6:144xf32\n"
            "results: b5, b6\n");
}

TEST(LibraryCalls, BadInt8MatmulSteps) {
  auto bad = [](auto change) {
    ExecutableSpec spec = int8Spec();
    change(spec, spec.matmuls[0]);
    return createError(spec);
  };
  using Spec = ExecutableSpec;
  EXPECT_EQ(bad([](Spec &, MatmulCall &) {}), "ok");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.transB = false; }),
            "matmul 0: int8 matmuls need transA false and transB true "
            "(cuBLASLt's TN form), not transA false and transB false");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.transA = true; }),
            "matmul 0: int8 matmuls need transA false and transB true "
            "(cuBLASLt's TN form), not transA true and transB true");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) {
              c.batch = 2;
              c.strideD = 40;
            }),
            "matmul 0: int8 matmuls are not batched (batch 2)");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) {
              c.c = 7;
              c.beta = 1;
            }),
            "matmul 0: int8 matmuls take no C (c -1, beta 0)");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.c = 7; }),
            "matmul 0: int8 matmuls take no C (c -1, beta 0)");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.beta = 1; }),
            "matmul 0: int8 matmuls take no C (c -1, beta 0)");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) {
              c.epilogue = MatmulCall::Epilogue::Bias;
              c.bias = 2;
            }),
            "matmul 0: int8 matmuls take no bias and no epilogue");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) {
              c.epilogue = MatmulCall::Epilogue::Gelu;
            }),
            "matmul 0: int8 matmuls take no bias and no epilogue");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.alpha = 0.5; }),
            "matmul 0: int8 matmuls take alpha 1, not 0.5");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.n = 6; }),
            "matmul 0: int8 matmuls need n and k multiples of 4 (n 6, k 12)");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.k = 6; }),
            "matmul 0: int8 matmuls need n and k multiples of 4 (n 8, k 6)");
  // Any m (a smaller one fits the buffers); TF32 is irrelevant.
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) {
              c.m = 3;
              c.allowTf32 = true;
            }),
            "ok");
  // A and B are i8; D is i32 (4 bytes an element).
  EXPECT_EQ(bad([](Spec &s, MatmulCall &) {
              s.inputs[0] = {DType::F32, {5, 12}};
            }),
            "matmul 0: A is i8, buffer 0 is 5x12xf32");
  EXPECT_EQ(bad([](Spec &s, MatmulCall &) {
              s.inputs[1] = {DType::I32, {8, 12}};
            }),
            "matmul 0: B is i8, buffer 1 is 8x12xi32");
  EXPECT_EQ(bad([](Spec &s, MatmulCall &) {
              s.intermediates[0] = {DType::I8, {40}};
            }),
            "matmul 0: D needs 160 bytes, buffer 5 (40xi8) has 40");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.d = 1; }),
            "matmul 0: D needs 160 bytes, buffer 1 (8x12xi8) has 96");
  EXPECT_EQ(bad([](Spec &, MatmulCall &c) { c.d = 2; }),
            "matmul 0: D is i32, buffer 2 is 40xf32");
}

TEST(LibraryCalls, BadInt8ConvSteps) {
  auto bad = [](auto change) {
    ExecutableSpec spec = int8Spec();
    change(spec, spec.convs[0]);
    return createError(spec);
  };
  using Spec = ExecutableSpec;
  EXPECT_EQ(bad([](Spec &, ConvCall &) {}), "ok");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.nhwc = false; }),
            "conv 0: int8 convolutions are NHWC only");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.groups = 2; }),
            "conv 0: int8 convolutions have one group, not 2");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.c = 6; }),
            "conv 0: int8 convolutions need c and k multiples of 4 (c 6, k 4)");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.k = 2; }),
            "conv 0: int8 convolutions need c and k multiples of 4 (c 8, k 2)");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.bias = 7; }),
            "conv 0: int8 convolutions take no bias, no z and no relu");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.z = 7; }),
            "conv 0: int8 convolutions take no bias, no z and no relu");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.relu = true; }),
            "conv 0: int8 convolutions take no bias, no z and no relu");
  // Strides and dilations are fine.
  EXPECT_EQ(bad([](Spec &, ConvCall &c) {
              c.strideH = 2;
              c.dilationW = 2;
              c.outH = 3;
              c.outW = 4;
            }),
            "ok");
  // x and the filter are i8; y is f32 (4 bytes an element).
  EXPECT_EQ(bad([](Spec &s, ConvCall &) {
              s.inputs[3] = {DType::F32, {1, 6, 6, 8}};
            }),
            "conv 0: x is i8, buffer 3 is 1x6x6x8xf32");
  EXPECT_EQ(bad([](Spec &s, ConvCall &) {
              s.inputs[4] = {DType::UI8, {4, 3, 3, 8}};
            }),
            "conv 0: the filter is i8, buffer 4 is 4x3x3x8xui8");
  EXPECT_EQ(bad([](Spec &s, ConvCall &) {
              s.intermediates[1] = {DType::I8, {144}};
            }),
            "conv 0: y needs 576 bytes, buffer 6 (144xi8) has 144");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.y = 2; }),
            "conv 0: y needs 576 bytes, buffer 2 (40xf32) has 160");
  EXPECT_EQ(bad([](Spec &, ConvCall &c) { c.y = 7; }), "ok");
  EXPECT_EQ(bad([](Spec &s, ConvCall &) {
              s.inputs[3] = {DType::I8, {1, 6, 6, 4}};
            }),
            "conv 0: x needs 288 bytes, buffer 3 (1x6x6x4xi8) has 144");
}

TEST(LibraryCalls, DefaultDeviceTensor) {
  DeviceTensor tensor;
  EXPECT_FALSE(tensor.valid());
  EXPECT_EQ(tensor.device(), nullptr);
  EXPECT_EQ(tensor.data(), 0u);
  EXPECT_EQ(tensor.describe(), "(no device) f32");
  EXPECT_FALSE(tensor.toHost().ok());
  EXPECT_FALSE(DeviceTensor::allocate(nullptr, {DType::F32, {2}}).ok());
}

TEST(LibraryCalls, RunOnDeviceChecksItsArguments) {
  auto executable = DeviceExecutable::create(librarySpec());
  ASSERT_TRUE(executable.ok());
  auto none = (*executable)->runOnDevice({});
  EXPECT_EQ(none.status().message(), "expected 5 arguments, got 0");
  std::vector<DeviceTensor> invalid(5);
  EXPECT_EQ((*executable)->runOnDevice(invalid).status().message(),
            "argument #0 holds no device memory");
}
