//===- Blas.h - cuBLASLt matmuls, loaded at run time ------------*- C++ -*-===//
//
// MatmulCall steps (Executable.h) run on cuBLASLt. Like the driver
// (Driver.h), the library is dlopen'ed on first use -- libcublasLt.so.13,
// else libcublasLt.so, or $TGC_CUBLASLT_LIBRARY -- and the few types, enum
// values and entry points tgc uses are declared here (namespace lt, with
// cublasLt.h's names), so runtime/cuda builds and links without the CUDA
// toolkit. test/unit/runtime/cuda/HeaderAbiTest.cpp checks every value,
// struct layout and signature below against the real headers where the
// toolkit is installed.
//
// Row-major matmuls on a column-major library: a row-major R x C matrix
// with leading dimension C is the column-major C x R matrix with the same
// leading dimension, its transpose. So the row-major
//   D (m x n) = op(A) (m x k) * op(B) (k x n)
// is computed as the column-major
//   D^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m),
// i.e. cuBLASLt's A is our B and its B is our A, with m' = n, n' = m, and
// each operand's transpose flag kept (a row-major X stored untransposed is
// already op(X)^T in column-major terms). cuBLASLt's BIAS epilogues add one
// value per row of its D, which is one value per column n of ours: the
// MatmulCall's bias. Batches are strided (CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT
// and _STRIDED_BATCH_OFFSET on every layout; a 0 stride broadcasts).
//
// int8 (MatmulCall::dtype I8): A and B are s8, D is s32, computed in int32
// (CUBLAS_COMPUTE_32I, scale type CUDA_R_32I: alpha 1 and beta 0 passed as
// int32_t). cuBLASLt's IMMA kernels on regular (column-major) layouts take
// only its "TN" form: its A transposed, its B not, its m and k multiples of
// 4. By the mapping above, that is our transB (its A is our B, stored n x k
// row-major = column-major k x n, op T) with our A untransposed (row-major
// m x k = column-major k x m, op N), and our n and k multiples of 4: the
// row-major D[m,n] = A[m,k] * B[n,k]^T. Nothing else (no C, bias, epilogue,
// alpha or batch): int8Violation() says what an int8 call breaks.
//
// cuBLASLt entry points used: cublasLtCreate, cublasLtDestroy,
// cublasLtGetVersion, cublasLtGetStatusName, cublasLtGetStatusString,
// cublasLtMatmulDescCreate/Destroy/SetAttribute,
// cublasLtMatrixLayoutCreate/Destroy/SetAttribute,
// cublasLtMatmulPreferenceCreate/Destroy/SetAttribute,
// cublasLtMatmulAlgoGetHeuristic, cublasLtMatmul.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_BLAS_H
#define TGC_RUNTIME_CUDA_BLAS_H

#include "runtime/cuda/Driver.h"
#include "runtime/cuda/MemoryPool.h"

#include "tgc/AbslStatus.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tgc::cuda {

class Device;
struct MatmulCall;

/// cuBLASLt's C API (cublasLt.h, cublas_api.h, library_types.h), as much
/// of it as tgc uses. Enums are passed as 32-bit ints (their C ABI).
namespace lt {
using cublasStatus_t = int;
using cudaDataType_t = int;
using cublasComputeType_t = int;
using cublasOperation_t = int;
using cublasLtEpilogue_t = int;
using cublasLtMatmulDescAttributes_t = int;
using cublasLtMatrixLayoutAttribute_t = int;
using cublasLtMatmulPreferenceAttributes_t = int;
struct cublasLtContext;
using cublasLtHandle_t = cublasLtContext *;
struct cublasLtMatmulDescOpaque_t {
  uint64_t data[32];
};
using cublasLtMatmulDesc_t = cublasLtMatmulDescOpaque_t *;
struct cublasLtMatrixLayoutOpaque_t {
  uint64_t data[8];
};
using cublasLtMatrixLayout_t = cublasLtMatrixLayoutOpaque_t *;
struct cublasLtMatmulPreferenceOpaque_t {
  uint64_t data[8];
};
using cublasLtMatmulPreference_t = cublasLtMatmulPreferenceOpaque_t *;
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

inline constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
inline constexpr cublasStatus_t CUBLAS_STATUS_NOT_INITIALIZED = 1;
inline constexpr cublasStatus_t CUBLAS_STATUS_ALLOC_FAILED = 3;
inline constexpr cublasStatus_t CUBLAS_STATUS_INVALID_VALUE = 7;
inline constexpr cublasStatus_t CUBLAS_STATUS_ARCH_MISMATCH = 8;
inline constexpr cublasStatus_t CUBLAS_STATUS_MAPPING_ERROR = 11;
inline constexpr cublasStatus_t CUBLAS_STATUS_EXECUTION_FAILED = 13;
inline constexpr cublasStatus_t CUBLAS_STATUS_INTERNAL_ERROR = 14;
inline constexpr cublasStatus_t CUBLAS_STATUS_NOT_SUPPORTED = 15;
inline constexpr cublasStatus_t CUBLAS_STATUS_LICENSE_ERROR = 16;

inline constexpr cudaDataType_t CUDA_R_32F = 0;
inline constexpr cudaDataType_t CUDA_R_16F = 2;
inline constexpr cudaDataType_t CUDA_R_16BF = 14;
inline constexpr cudaDataType_t CUDA_R_8I = 3;
inline constexpr cudaDataType_t CUDA_R_32I = 10;
inline constexpr cublasComputeType_t CUBLAS_COMPUTE_32F = 68;
inline constexpr cublasComputeType_t CUBLAS_COMPUTE_32I = 72;
inline constexpr cublasComputeType_t CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
inline constexpr cublasOperation_t CUBLAS_OP_N = 0;
inline constexpr cublasOperation_t CUBLAS_OP_T = 1;

inline constexpr cublasLtEpilogue_t CUBLASLT_EPILOGUE_DEFAULT = 1;
inline constexpr cublasLtEpilogue_t CUBLASLT_EPILOGUE_RELU = 2;
inline constexpr cublasLtEpilogue_t CUBLASLT_EPILOGUE_BIAS = 4;
inline constexpr cublasLtEpilogue_t CUBLASLT_EPILOGUE_RELU_BIAS = 6;
inline constexpr cublasLtEpilogue_t CUBLASLT_EPILOGUE_GELU = 32;
inline constexpr cublasLtEpilogue_t CUBLASLT_EPILOGUE_GELU_BIAS = 36;

// Attribute value types (the size passed to SetAttribute must match):
// TRANSA/TRANSB int32_t, EPILOGUE uint32_t, BIAS_POINTER const void *,
// BIAS_DATA_TYPE int32_t; layout BATCH_COUNT int32_t,
// STRIDED_BATCH_OFFSET int64_t; preference MAX_WORKSPACE_BYTES uint64_t,
// MIN_ALIGNMENT_*_BYTES uint32_t.
inline constexpr cublasLtMatmulDescAttributes_t CUBLASLT_MATMUL_DESC_TRANSA = 3;
inline constexpr cublasLtMatmulDescAttributes_t CUBLASLT_MATMUL_DESC_TRANSB = 4;
inline constexpr cublasLtMatmulDescAttributes_t CUBLASLT_MATMUL_DESC_EPILOGUE =
    7;
inline constexpr cublasLtMatmulDescAttributes_t
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
inline constexpr cublasLtMatmulDescAttributes_t
    CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26;
inline constexpr cublasLtMatrixLayoutAttribute_t
    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;
inline constexpr cublasLtMatrixLayoutAttribute_t
    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;
inline constexpr cublasLtMatmulPreferenceAttributes_t
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;
inline constexpr cublasLtMatmulPreferenceAttributes_t
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5;
inline constexpr cublasLtMatmulPreferenceAttributes_t
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6;
inline constexpr cublasLtMatmulPreferenceAttributes_t
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7;
inline constexpr cublasLtMatmulPreferenceAttributes_t
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8;
} // namespace lt

/// The cuBLASLt entry points tgc uses.
struct BlasApi {
  lt::cublasStatus_t (*cublasLtCreate)(lt::cublasLtHandle_t *handle);
  lt::cublasStatus_t (*cublasLtDestroy)(lt::cublasLtHandle_t handle);
  size_t (*cublasLtGetVersion)();
  const char *(*cublasLtGetStatusName)(lt::cublasStatus_t status);
  const char *(*cublasLtGetStatusString)(lt::cublasStatus_t status);
  lt::cublasStatus_t (*cublasLtMatmulDescCreate)(
      lt::cublasLtMatmulDesc_t *desc, lt::cublasComputeType_t computeType,
      lt::cudaDataType_t scaleType);
  lt::cublasStatus_t (*cublasLtMatmulDescDestroy)(lt::cublasLtMatmulDesc_t);
  lt::cublasStatus_t (*cublasLtMatmulDescSetAttribute)(
      lt::cublasLtMatmulDesc_t desc, lt::cublasLtMatmulDescAttributes_t attr,
      const void *buf, size_t sizeInBytes);
  lt::cublasStatus_t (*cublasLtMatrixLayoutCreate)(
      lt::cublasLtMatrixLayout_t *layout, lt::cudaDataType_t type,
      uint64_t rows, uint64_t cols, int64_t ld);
  lt::cublasStatus_t (*cublasLtMatrixLayoutDestroy)(lt::cublasLtMatrixLayout_t);
  lt::cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(
      lt::cublasLtMatrixLayout_t layout,
      lt::cublasLtMatrixLayoutAttribute_t attr, const void *buf,
      size_t sizeInBytes);
  lt::cublasStatus_t (*cublasLtMatmulPreferenceCreate)(
      lt::cublasLtMatmulPreference_t *pref);
  lt::cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(
      lt::cublasLtMatmulPreference_t pref);
  lt::cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(
      lt::cublasLtMatmulPreference_t pref,
      lt::cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
      size_t sizeInBytes);
  lt::cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(
      lt::cublasLtHandle_t handle, lt::cublasLtMatmulDesc_t operationDesc,
      lt::cublasLtMatrixLayout_t aDesc, lt::cublasLtMatrixLayout_t bDesc,
      lt::cublasLtMatrixLayout_t cDesc, lt::cublasLtMatrixLayout_t dDesc,
      lt::cublasLtMatmulPreference_t preference, int requestedAlgoCount,
      lt::cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
      int *returnAlgoCount);
  lt::cublasStatus_t (*cublasLtMatmul)(
      lt::cublasLtHandle_t handle, lt::cublasLtMatmulDesc_t computeDesc,
      const void *alpha, const void *a, lt::cublasLtMatrixLayout_t aDesc,
      const void *b, lt::cublasLtMatrixLayout_t bDesc, const void *beta,
      const void *c, lt::cublasLtMatrixLayout_t cDesc, void *d,
      lt::cublasLtMatrixLayout_t dDesc, const lt::cublasLtMatmulAlgo_t *algo,
      void *workspace, size_t workspaceSizeInBytes, CUstream stream);

  /// "cublasLtMatmul failed: CUBLAS_STATUS_NOT_SUPPORTED (the functionality
  /// requested is not supported)".
  std::string describe(lt::cublasStatus_t status, const char *what) const;
  /// OK for CUBLAS_STATUS_SUCCESS, else an internal error described as
  /// above (resource exhausted for CUBLAS_STATUS_ALLOC_FAILED).
  absl::Status check(lt::cublasStatus_t status, const char *what) const;
};

/// The status code's name ("CUBLAS_STATUS_NOT_SUPPORTED"), without the
/// library: "cublasStatus_t 42" for unknown codes.
std::string blasStatusName(lt::cublasStatus_t status);

/// $TGC_CUBLASLT_LIBRARY when it is set, else "libcublasLt.so.13".
std::string blasLibraryName();

/// Loads cuBLASLt from `library`. Errors (never crashes): "cuBLASLt not
/// found (<library>: <dlerror>)", "cuBLASLt not found (<library> lacks
/// <symbol>)". The returned API is never unloaded.
absl::StatusOr<const BlasApi *> loadBlasFrom(const std::string &library);

/// loadBlasFrom(blasLibraryName()), falling back to "libcublasLt.so" when
/// libcublasLt.so.13 is not there (the error names the first), once per
/// process (the result, error included, is cached).
absl::StatusOr<const BlasApi *> loadBlas();

/// How a row-major MatmulCall maps onto cuBLASLt's column-major operands
/// (see the top of this file). Pure: computed and tested without a GPU.
struct BlasMatmulLayout {
  struct Matrix {
    /// The stored (untransposed) column-major matrix.
    uint64_t rows = 0, cols = 0;
    int64_t ld = 0;
    /// Elements between the matrices of the batch.
    int64_t batchStride = 0;
  };
  /// cuBLASLt's A is the call's B, its B the call's A; C and D are the
  /// call's C and D viewed as column-major n x m.
  Matrix a, b, c, d;
  lt::cublasOperation_t transA = lt::CUBLAS_OP_N, transB = lt::CUBLAS_OP_N;
  /// cuBLASLt's m, n, k (m = the call's n, n = the call's m).
  int64_t m = 0, n = 0, k = 0;
  int32_t batchCount = 1;
  /// A's and B's type (and the bias's).
  lt::cudaDataType_t dataType = lt::CUDA_R_32F;
  /// C's and D's type: dataType, except CUDA_R_32I for int8.
  lt::cudaDataType_t outputType = lt::CUDA_R_32F;
  lt::cublasComputeType_t computeType = lt::CUBLAS_COMPUTE_32F;
  /// alpha's and beta's type (the matmul descriptor's scale type): float,
  /// except CUDA_R_32I (int32_t) for int8.
  lt::cudaDataType_t scaleType = lt::CUDA_R_32F;
  lt::cublasLtEpilogue_t epilogue = lt::CUBLASLT_EPILOGUE_DEFAULT;
  bool hasBias = false;
};

/// What an int8 MatmulCall (dtype I8) asks for that cuBLASLt's int8 path
/// does not do (see the top of this file), e.g. "int8 matmuls need n and k
/// multiples of 4 (n 6, k 12)"; empty when nothing (or the call is not
/// int8). The executable's validation reports the same.
std::string int8Violation(const MatmulCall &call);

/// Errors for dtypes cuBLASLt does not get from tgc (only f32, f16, bf16
/// and i8) and for int8 calls that int8Violation() rejects.
absl::StatusOr<BlasMatmulLayout> lowerMatmul(const MatmulCall &call);

/// A MatmulCall prepared for one device: descriptors, layouts and the
/// algorithm cuBLASLt's heuristic chose, once. Not thread-safe (the bias
/// pointer is set per call): an executable serializes its calls.
class BlasMatmul {
public:
  /// The most workspace an algorithm may ask for.
  static constexpr size_t kMaxWorkspaceBytes = size_t(32) << 20;

  /// Loads cuBLASLt, creates the device's handle on first use (the device's
  /// context must be current), the descriptors, and picks an algorithm.
  /// "cuBLASLt has no algorithm for <call.describe()>" when the heuristic
  /// returns none.
  static absl::StatusOr<std::unique_ptr<BlasMatmul>>
  create(Device &device, const MatmulCall &call);
  ~BlasMatmul();
  BlasMatmul(const BlasMatmul &) = delete;
  BlasMatmul &operator=(const BlasMatmul &) = delete;

  /// The workspace the chosen algorithm needs (<= kMaxWorkspaceBytes).
  size_t workspaceBytes() const { return workspaceSize; }

  /// Enqueues the matmul on `stream`. `c` and `bias` are 0 when the call
  /// has none; `workspace` holds at least workspaceBytes().
  absl::Status enqueue(CUstream stream, DevicePtr a, DevicePtr b, DevicePtr c,
                       DevicePtr bias, DevicePtr d, DevicePtr workspace,
                       size_t workspaceBytes);

private:
  BlasMatmul() = default;

  const BlasApi *api = nullptr;
  lt::cublasLtHandle_t handle = nullptr;
  std::string description;
  BlasMatmulLayout layout;
  /// The scales, as layout.scaleType has them (CUDA_R_32I: always 1, 0).
  float alpha = 1, beta = 0;
  const int32_t alphaInt = 1, betaInt = 0;
  bool hasC = false;
  lt::cublasLtMatmulDesc_t desc = nullptr;
  lt::cublasLtMatrixLayout_t aDesc = nullptr, bDesc = nullptr, cDesc = nullptr,
                             dDesc = nullptr;
  lt::cublasLtMatmulAlgo_t algo = {};
  size_t workspaceSize = 0;
  /// The alignment (bytes) each operand's base address and batch stride
  /// was promised to the heuristic: A, B, C, D in cuBLASLt's order.
  uint32_t alignment[4] = {256, 256, 256, 256};
};

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_BLAS_H
