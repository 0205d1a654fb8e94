//===- Blas.cpp - cuBLASLt matmuls, loaded at run time --------------------===//

#include "runtime/cuda/Blas.h"
#include "runtime/Environment.h"

#include "runtime/cuda/Device.h"
#include "runtime/cuda/Executable.h"

#include "absl/strings/str_cat.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace tgc::cuda;
using namespace tgc::cuda::lt;

std::string tgc::cuda::blasStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  default:
    return absl::StrCat("cublasStatus_t ", status);
  }
}

std::string BlasApi::describe(cublasStatus_t status, const char *what) const {
  const char *text =
      cublasLtGetStatusString ? cublasLtGetStatusString(status) : nullptr;
  return absl::StrCat(what, " failed: ", blasStatusName(status), " (",
                      text ? text : "unknown error", ")");
}

absl::Status BlasApi::check(cublasStatus_t status, const char *what) const {
  if (status == CUBLAS_STATUS_SUCCESS)
    return absl::OkStatus();
  std::string message = describe(status, what);
  if (status == CUBLAS_STATUS_ALLOC_FAILED)
    return absl::ResourceExhaustedError(message);
  return absl::InternalError(message);
}

std::string tgc::cuda::blasLibraryName() {
  if (std::string name = runtime::env::text("TGC_CUBLASLT_LIBRARY");
      !name.empty())
    return name;
  return "libcublasLt.so.13";
}

namespace {
template <typename Fn> bool lookup(void *handle, const char *symbol, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return fn != nullptr;
}
} // namespace

absl::StatusOr<const BlasApi *>
tgc::cuda::loadBlasFrom(const std::string &library) {
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    return absl::NotFoundError(absl::StrCat("cuBLASLt not found (", library,
                                            ": ", error ? error : "not found",
                                            ")"));
  }
  auto api = std::make_unique<BlasApi>();
  const char *missing = nullptr;
#define TGC_LOOKUP(name)                                                       \
  if (!missing && !lookup(handle, #name, api->name))                           \
    missing = #name;
  TGC_LOOKUP(cublasLtCreate)
  TGC_LOOKUP(cublasLtDestroy)
  TGC_LOOKUP(cublasLtGetVersion)
  TGC_LOOKUP(cublasLtGetStatusName)
  TGC_LOOKUP(cublasLtGetStatusString)
  TGC_LOOKUP(cublasLtMatmulDescCreate)
  TGC_LOOKUP(cublasLtMatmulDescDestroy)
  TGC_LOOKUP(cublasLtMatmulDescSetAttribute)
  TGC_LOOKUP(cublasLtMatrixLayoutCreate)
  TGC_LOOKUP(cublasLtMatrixLayoutDestroy)
  TGC_LOOKUP(cublasLtMatrixLayoutSetAttribute)
  TGC_LOOKUP(cublasLtMatmulPreferenceCreate)
  TGC_LOOKUP(cublasLtMatmulPreferenceDestroy)
  TGC_LOOKUP(cublasLtMatmulPreferenceSetAttribute)
  TGC_LOOKUP(cublasLtMatmulAlgoGetHeuristic)
  TGC_LOOKUP(cublasLtMatmul)
#undef TGC_LOOKUP
  if (missing) {
    dlclose(handle);
    return absl::NotFoundError(
        absl::StrCat("cuBLASLt not found (", library, " lacks ", missing, ")"));
  }
  // Kept for the life of the process, like the library.
  return api.release();
}

absl::StatusOr<const BlasApi *> tgc::cuda::loadBlas() {
  static absl::StatusOr<const BlasApi *> *blas = [] {
    const std::string name = blasLibraryName();
    absl::StatusOr<const BlasApi *> api = loadBlasFrom(name);
    if (!api.ok() && name == "libcublasLt.so.13")
      if (absl::StatusOr<const BlasApi *> unversioned =
              loadBlasFrom("libcublasLt.so");
          unversioned.ok())
        api = unversioned;
    return new absl::StatusOr<const BlasApi *>(std::move(api));
  }();
  return *blas;
}

//===----------------------------------------------------------------------===//
// The row-major to column-major mapping
//===----------------------------------------------------------------------===//

std::string tgc::cuda::int8Violation(const MatmulCall &call) {
  if (call.dtype != runtime::DType::I8)
    return "";
  if (call.transA || !call.transB)
    return absl::StrCat("int8 matmuls need transA false and transB true "
                        "(cuBLASLt's TN form), not transA ",
                        call.transA ? "true" : "false", " and transB ",
                        call.transB ? "true" : "false");
  if (call.batch != 1)
    return absl::StrCat("int8 matmuls are not batched (batch ", call.batch,
                        ")");
  if (call.c >= 0 || call.beta != 0)
    return "int8 matmuls take no C (c -1, beta 0)";
  if (call.bias >= 0 || call.epilogue != MatmulCall::Epilogue::None)
    return "int8 matmuls take no bias and no epilogue";
  if (call.alpha != 1)
    return absl::StrCat("int8 matmuls take alpha 1, not ", call.alpha);
  if (call.n % 4 != 0 || call.k % 4 != 0)
    return absl::StrCat("int8 matmuls need n and k multiples of 4 (n ", call.n,
                        ", k ", call.k, ")");
  return "";
}

absl::StatusOr<BlasMatmulLayout>
tgc::cuda::lowerMatmul(const MatmulCall &call) {
  BlasMatmulLayout l;
  switch (call.dtype) {
  case runtime::DType::F32:
    l.dataType = CUDA_R_32F;
    l.computeType =
        call.allowTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    break;
  case runtime::DType::F16:
    l.dataType = CUDA_R_16F;
    break;
  case runtime::DType::BF16:
    l.dataType = CUDA_R_16BF;
    break;
  case runtime::DType::I8:
    if (std::string violation = int8Violation(call); !violation.empty())
      return absl::InvalidArgumentError(
          absl::StrCat(call.describe(), ": ", violation));
    l.dataType = CUDA_R_8I;
    l.outputType = CUDA_R_32I;
    l.computeType = CUBLAS_COMPUTE_32I;
    l.scaleType = CUDA_R_32I;
    break;
  default:
    return absl::InvalidArgumentError(
        absl::StrCat("cuBLASLt matmuls take f32, f16, bf16 or i8, not ",
                     std::string(runtime::dtypeName(call.dtype))));
  }
  if (call.dtype != runtime::DType::I8)
    l.outputType = l.dataType;
  // D^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m), column-major.
  l.m = call.n;
  l.n = call.m;
  l.k = call.k;
  l.batchCount = static_cast<int32_t>(call.batch);
  // cuBLASLt's A: our B. Row-major B is k x n (ld n), i.e. column-major
  // n x k = op(B)^T: no transpose. Transposed, B is stored n x k (ld k),
  // column-major k x n: cuBLASLt transposes it.
  l.transA = call.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  l.a = call.transB ? BlasMatmulLayout::Matrix{uint64_t(call.k),
                                               uint64_t(call.n), call.k, 0}
                    : BlasMatmulLayout::Matrix{uint64_t(call.n),
                                               uint64_t(call.k), call.n, 0};
  l.a.batchStride = call.strideB;
  // cuBLASLt's B: our A, row-major m x k (ld k) = column-major k x m =
  // op(A)^T; transposed, stored k x m (ld m) = column-major m x k.
  l.transB = call.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  l.b = call.transA ? BlasMatmulLayout::Matrix{uint64_t(call.m),
                                               uint64_t(call.k), call.m, 0}
                    : BlasMatmulLayout::Matrix{uint64_t(call.k),
                                               uint64_t(call.m), call.k, 0};
  l.b.batchStride = call.strideA;
  // D (and C): row-major m x n (ld n) = column-major n x m.
  l.d = {uint64_t(call.n), uint64_t(call.m), call.n, call.strideD};
  l.c = {uint64_t(call.n), uint64_t(call.m), call.n,
         call.c >= 0 ? call.strideC : call.strideD};
  using E = MatmulCall::Epilogue;
  switch (call.epilogue) {
  case E::None:
    l.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    break;
  case E::Relu:
    l.epilogue = CUBLASLT_EPILOGUE_RELU;
    break;
  case E::Gelu:
    l.epilogue = CUBLASLT_EPILOGUE_GELU;
    break;
  case E::Bias:
    l.epilogue = CUBLASLT_EPILOGUE_BIAS;
    break;
  case E::BiasRelu:
    l.epilogue = CUBLASLT_EPILOGUE_RELU_BIAS;
    break;
  case E::BiasGelu:
    l.epilogue = CUBLASLT_EPILOGUE_GELU_BIAS;
    break;
  }
  l.hasBias = call.epilogue == E::Bias || call.epilogue == E::BiasRelu ||
              call.epilogue == E::BiasGelu;
  return l;
}

//===----------------------------------------------------------------------===//
// Handles and prepared matmuls
//===----------------------------------------------------------------------===//

namespace {
/// One cuBLASLt handle per device, created on first use and kept for the
/// life of the process (like the devices). cuBLASLt handles carry no
/// stream: each cublasLtMatmul names its own.
absl::StatusOr<cublasLtHandle_t> deviceHandle(const BlasApi &api,
                                              Device &device) {
  static std::mutex mutex;
  static auto *handles = new std::map<const Device *, cublasLtHandle_t>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = handles->find(&device); it != handles->end())
    return it->second;
  if (auto status = device.makeCurrent(); !status.ok())
    return status;
  cublasLtHandle_t handle = nullptr;
  if (auto status = api.check(api.cublasLtCreate(&handle), "cublasLtCreate");
      !status.ok())
    return status;
  handles->emplace(&device, handle);
  return handle;
}

/// The largest power of two (at most 256) dividing `bytes`; 256 for 0.
uint32_t alignmentOf(uint64_t bytes) {
  uint32_t alignment = 256;
  while (alignment > 1 && bytes % alignment != 0)
    alignment /= 2;
  return alignment;
}
} // namespace

BlasMatmul::~BlasMatmul() {
  if (!api)
    return;
  // cDesc is dDesc when the call has no C.
  for (cublasLtMatrixLayout_t layoutDesc :
       {aDesc, bDesc, dDesc, cDesc != dDesc ? cDesc : nullptr})
    if (layoutDesc)
      api->cublasLtMatrixLayoutDestroy(layoutDesc);
  if (desc)
    api->cublasLtMatmulDescDestroy(desc);
}

absl::StatusOr<std::unique_ptr<BlasMatmul>>
BlasMatmul::create(Device &device, const MatmulCall &call) {
  absl::StatusOr<BlasMatmulLayout> lowered = lowerMatmul(call);
  if (!lowered.ok())
    return lowered.status();
  absl::StatusOr<const BlasApi *> loaded = loadBlas();
  if (!loaded.ok())
    return loaded.status();
  const BlasApi &api = **loaded;
  absl::StatusOr<cublasLtHandle_t> handle = deviceHandle(api, device);
  if (!handle.ok())
    return handle.status();

  std::unique_ptr<BlasMatmul> plan(new BlasMatmul());
  plan->api = &api;
  plan->handle = *handle;
  plan->description = call.describe();
  plan->layout = *lowered;
  plan->alpha = call.alpha;
  plan->beta = call.beta;
  // int8 calls have alpha 1 and beta 0 (int8Violation): alphaInt and
  // betaInt keep their defaults.
  plan->hasC = call.c >= 0;
  const BlasMatmulLayout &l = plan->layout;

  if (auto status = api.check(
          api.cublasLtMatmulDescCreate(&plan->desc, l.computeType, l.scaleType),
          "cublasLtMatmulDescCreate");
      !status.ok())
    return status;
  auto setDesc = [&](cublasLtMatmulDescAttributes_t attr, const void *value,
                     size_t size) {
    return api.check(
        api.cublasLtMatmulDescSetAttribute(plan->desc, attr, value, size),
        "cublasLtMatmulDescSetAttribute");
  };
  const int32_t transA = l.transA, transB = l.transB;
  const uint32_t epilogue = static_cast<uint32_t>(l.epilogue);
  if (auto s = setDesc(CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof(transA));
      !s.ok())
    return s;
  if (auto s = setDesc(CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof(transB));
      !s.ok())
    return s;
  if (auto s =
          setDesc(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
      !s.ok())
    return s;
  if (l.hasBias) {
    const int32_t biasType = l.dataType;
    if (auto s = setDesc(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType,
                         sizeof(biasType));
        !s.ok())
      return s;
    // The heuristic reads the bias pointer's alignment, never the data: a
    // 256-byte aligned stand-in until enqueue() sets the real one.
    const void *bias = reinterpret_cast<const void *>(uintptr_t(256));
    if (auto s =
            setDesc(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
        !s.ok())
      return s;
  }

  auto makeLayout = [&](const BlasMatmulLayout::Matrix &m, cudaDataType_t type,
                        cublasLtMatrixLayout_t &out) -> absl::Status {
    if (auto s = api.check(
            api.cublasLtMatrixLayoutCreate(&out, type, m.rows, m.cols, m.ld),
            "cublasLtMatrixLayoutCreate");
        !s.ok())
      return s;
    if (l.batchCount == 1)
      return absl::OkStatus();
    const int32_t count = l.batchCount;
    const int64_t stride = m.batchStride;
    if (auto s = api.check(
            api.cublasLtMatrixLayoutSetAttribute(
                out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
            "cublasLtMatrixLayoutSetAttribute");
        !s.ok())
      return s;
    return api.check(api.cublasLtMatrixLayoutSetAttribute(
                         out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                         &stride, sizeof(stride)),
                     "cublasLtMatrixLayoutSetAttribute");
  };
  if (auto s = makeLayout(l.a, l.dataType, plan->aDesc); !s.ok())
    return s;
  if (auto s = makeLayout(l.b, l.dataType, plan->bDesc); !s.ok())
    return s;
  if (auto s = makeLayout(l.d, l.outputType, plan->dDesc); !s.ok())
    return s;
  // Without C, cuBLASLt gets D's pointer and layout for it (beta is 0).
  if (plan->hasC) {
    if (auto s = makeLayout(l.c, l.outputType, plan->cDesc); !s.ok())
      return s;
  } else {
    plan->cDesc = plan->dDesc;
  }

  // What the operands' addresses promise: pool blocks are 256-byte aligned;
  // batch i starts i * stride elements (of the operand's type) further.
  const size_t inputSize = runtime::dtypeSize(call.dtype);
  const size_t outputSize = runtime::dtypeSize(call.outputDType());
  const BlasMatmulLayout::Matrix *matrices[4] = {&l.a, &l.b, &l.c, &l.d};
  const size_t elementSizes[4] = {inputSize, inputSize, outputSize, outputSize};
  for (int i = 0; i < 4; ++i)
    plan->alignment[i] =
        l.batchCount > 1
            ? alignmentOf(uint64_t(matrices[i]->batchStride) * elementSizes[i])
            : 256;

  cublasLtMatmulPreference_t preference = nullptr;
  if (auto s = api.check(api.cublasLtMatmulPreferenceCreate(&preference),
                         "cublasLtMatmulPreferenceCreate");
      !s.ok())
    return s;
  struct PreferenceGuard {
    const BlasApi &api;
    cublasLtMatmulPreference_t preference;
    ~PreferenceGuard() { api.cublasLtMatmulPreferenceDestroy(preference); }
  } guard{api, preference};
  const uint64_t maxWorkspace = kMaxWorkspaceBytes;
  if (auto s =
          api.check(api.cublasLtMatmulPreferenceSetAttribute(
                        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                        &maxWorkspace, sizeof(maxWorkspace)),
                    "cublasLtMatmulPreferenceSetAttribute");
      !s.ok())
    return s;
  const cublasLtMatmulPreferenceAttributes_t alignmentAttributes[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4; ++i) {
    const uint32_t alignment = plan->alignment[i];
    if (auto s = api.check(api.cublasLtMatmulPreferenceSetAttribute(
                               preference, alignmentAttributes[i], &alignment,
                               sizeof(alignment)),
                           "cublasLtMatmulPreferenceSetAttribute");
        !s.ok())
      return s;
  }

  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  cublasStatus_t status = api.cublasLtMatmulAlgoGetHeuristic(
      plan->handle, plan->desc, plan->aDesc, plan->bDesc, plan->cDesc,
      plan->dDesc, preference, 1, &result, &found);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED ||
      (status == CUBLAS_STATUS_SUCCESS &&
       (found == 0 || result.state != CUBLAS_STATUS_SUCCESS)))
    return absl::UnimplementedError(
        absl::StrCat("cuBLASLt has no algorithm for ", plan->description,
                     status == CUBLAS_STATUS_SUCCESS
                         ? ""
                         : absl::StrCat(" (", blasStatusName(status), ")")));
  if (auto s = api.check(status, "cublasLtMatmulAlgoGetHeuristic"); !s.ok())
    return s;
  plan->algo = result.algo;
  plan->workspaceSize = result.workspaceSize;
  return plan;
}

absl::Status BlasMatmul::enqueue(CUstream stream, DevicePtr a, DevicePtr b,
                                 DevicePtr c, DevicePtr bias, DevicePtr d,
                                 DevicePtr workspace, size_t workspaceBytes) {
  if (workspaceBytes < workspaceSize || (workspaceSize && !workspace))
    return absl::InternalError(absl::StrCat(description, ": ", workspaceBytes,
                                            " bytes of workspace, needs ",
                                            workspaceSize));
  if (!hasC)
    c = d;
  // cuBLASLt's A is ours B, and so on (see lowerMatmul).
  const DevicePtr operands[4] = {b, a, c, d};
  for (int i = 0; i < 4; ++i)
    if (operands[i] % alignment[i] != 0)
      return absl::InternalError(absl::StrCat(
          description, ": operand address 0x", absl::Hex(operands[i]),
          " is not ", alignment[i], "-byte aligned"));
  if (layout.hasBias) {
    if (bias % 16 != 0)
      return absl::InternalError(
          absl::StrCat(description, ": bias address is not 16-byte aligned"));
    const void *biasPointer = reinterpret_cast<const void *>(bias);
    if (auto s = api->check(api->cublasLtMatmulDescSetAttribute(
                                desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                &biasPointer, sizeof(biasPointer)),
                            "cublasLtMatmulDescSetAttribute");
        !s.ok())
      return s;
  }
  const bool intScale = layout.scaleType == CUDA_R_32I;
  const void *alphaPointer = intScale ? static_cast<const void *>(&alphaInt)
                                      : static_cast<const void *>(&alpha);
  const void *betaPointer = intScale ? static_cast<const void *>(&betaInt)
                                     : static_cast<const void *>(&beta);
  return api->check(
      api->cublasLtMatmul(
          handle, desc, alphaPointer, reinterpret_cast<const void *>(b), aDesc,
          reinterpret_cast<const void *>(a), bDesc, betaPointer,
          reinterpret_cast<const void *>(c), cDesc, reinterpret_cast<void *>(d),
          dDesc, &algo, reinterpret_cast<void *>(workspace), workspaceBytes,
          stream),
      "cublasLtMatmul");
}
