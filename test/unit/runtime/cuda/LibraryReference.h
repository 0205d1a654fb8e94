//===- LibraryReference.h - host references for library steps --*- C++ -*-===//
//
// Naive host implementations of what MatmulCall and ConvCall compute, in
// double, straight from the definitions in runtime/cuda/Executable.h (and,
// for the int8 calls, in int32: what the device must match exactly); and an
// emulation of cuBLASLt's column-major semantics over a BlasMatmulLayout,
// so that the row-major mapping is checked without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TEST_UNIT_RUNTIME_CUDA_LIBRARYREFERENCE_H
#define TGC_TEST_UNIT_RUNTIME_CUDA_LIBRARYREFERENCE_H

#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Executable.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace tgc::cuda::reference {

inline double geluTanh(double x) {
  const double kSqrt2OverPi = 0.7978845608028654;
  return 0.5 * x * (1 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
}

inline bool matmulHasBias(const MatmulCall &call) {
  using E = MatmulCall::Epilogue;
  return call.epilogue == E::Bias || call.epilogue == E::BiasRelu ||
         call.epilogue == E::BiasGelu;
}

inline double matmulActivation(const MatmulCall &call, double v) {
  using E = MatmulCall::Epilogue;
  if (call.epilogue == E::Relu || call.epilogue == E::BiasRelu)
    return v > 0 ? v : 0;
  if (call.epilogue == E::Gelu || call.epilogue == E::BiasGelu)
    return geluTanh(v);
  return v;
}

/// Elements spanned by a batch of `size`-element matrices `stride` apart.
inline int64_t batchSpan(const MatmulCall &call, int64_t size, int64_t stride) {
  return call.batch > 1 ? (call.batch - 1) * stride + size : size;
}

/// D as a MatmulCall defines it (row-major), over D's whole span; `c` and
/// `bias` may be empty when the call has none.
inline std::vector<double> referenceMatmul(const MatmulCall &call,
                                           const std::vector<double> &a,
                                           const std::vector<double> &b,
                                           const std::vector<double> &c,
                                           const std::vector<double> &bias) {
  const int64_t m = call.m, n = call.n, k = call.k;
  std::vector<double> d(batchSpan(call, m * n, call.strideD), 0.0);
  for (int64_t batch = 0; batch < call.batch; ++batch) {
    const int64_t oa = batch * call.strideA, ob = batch * call.strideB,
                  oc = batch * call.strideC, od = batch * call.strideD;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          // op(A) is m x k: A stored m x k, or k x m when transposed.
          const double av = call.transA ? a[oa + p * m + i] : a[oa + i * k + p];
          // op(B) is k x n: B stored k x n, or n x k when transposed.
          const double bv = call.transB ? b[ob + j * k + p] : b[ob + p * n + j];
          sum += av * bv;
        }
        double v = call.alpha * sum;
        if (call.c >= 0)
          v += call.beta * c[oc + i * n + j];
        if (matmulHasBias(call))
          v += bias[j];
        d[od + i * n + j] = matmulActivation(call, v);
      }
  }
  return d;
}

/// What cuBLASLt computes, column-major, for `layout` (its A is the call's
/// B data, its B the call's A data; C is D's data when the call has no C).
/// Returns D's whole span, or an empty vector when the layout's dimensions
/// are inconsistent with cuBLASLt's rules.
inline std::vector<double>
emulateBlasLt(const MatmulCall &call, const BlasMatmulLayout &l,
              const std::vector<double> &ltA, const std::vector<double> &ltB,
              const std::vector<double> &ltC, const std::vector<double> &bias) {
  using Matrix = BlasMatmulLayout::Matrix;
  auto rowsOfOp = [](const Matrix &x, int op) {
    return op == lt::CUBLAS_OP_N ? x.rows : x.cols;
  };
  auto colsOfOp = [](const Matrix &x, int op) {
    return op == lt::CUBLAS_OP_N ? x.cols : x.rows;
  };
  // cuBLASLt's shape rules: op(A) m x k, op(B) k x n, C and D m x n, and
  // leading dimensions at least the rows (column-major).
  if (rowsOfOp(l.a, l.transA) != uint64_t(l.m) ||
      colsOfOp(l.a, l.transA) != uint64_t(l.k) ||
      rowsOfOp(l.b, l.transB) != uint64_t(l.k) ||
      colsOfOp(l.b, l.transB) != uint64_t(l.n) || l.d.rows != uint64_t(l.m) ||
      l.d.cols != uint64_t(l.n) || l.c.rows != l.d.rows || l.c.cols != l.d.cols)
    return {};
  for (const Matrix *x : {&l.a, &l.b, &l.c, &l.d})
    if (x->ld < int64_t(x->rows))
      return {};
  auto at = [](const std::vector<double> &data, const Matrix &x, int64_t batch,
               uint64_t r, uint64_t c) {
    return data[batch * x.batchStride + int64_t(r) + int64_t(c) * x.ld];
  };
  const bool hasBias = l.hasBias;
  std::vector<double> d(batchSpan(call, call.m * call.n, l.d.batchStride), 0.0);
  for (int64_t batch = 0; batch < l.batchCount; ++batch)
    for (int64_t i = 0; i < l.m; ++i)
      for (int64_t j = 0; j < l.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < l.k; ++p) {
          const double av = l.transA == lt::CUBLAS_OP_N
                                ? at(ltA, l.a, batch, i, p)
                                : at(ltA, l.a, batch, p, i);
          const double bv = l.transB == lt::CUBLAS_OP_N
                                ? at(ltB, l.b, batch, p, j)
                                : at(ltB, l.b, batch, j, p);
          sum += av * bv;
        }
        double v = call.alpha * sum;
        if (call.beta != 0)
          v += call.beta * at(ltC, l.c, batch, i, j);
        // cuBLASLt's bias: one value per row of its D.
        if (hasBias)
          v += bias[i];
        v = l.epilogue == lt::CUBLASLT_EPILOGUE_RELU ||
                    l.epilogue == lt::CUBLASLT_EPILOGUE_RELU_BIAS
                ? (v > 0 ? v : 0)
            : l.epilogue == lt::CUBLASLT_EPILOGUE_GELU ||
                    l.epilogue == lt::CUBLASLT_EPILOGUE_GELU_BIAS
                ? geluTanh(v)
                : v;
        d[batch * l.d.batchStride + i + j * l.d.ld] = v;
      }
  return d;
}

/// y = act(conv(x, w) + alpha2 * z + bias) as a ConvCall defines it, in the
/// call's layout (NCHW / KCRS or NHWC / KRSC); `bias` and `z` may be empty.
inline std::vector<double> referenceConv(const ConvCall &call,
                                         const std::vector<double> &x,
                                         const std::vector<double> &w,
                                         const std::vector<double> &bias,
                                         const std::vector<double> &z) {
  const int64_t cg = call.c / call.groups, kg = call.k / call.groups;
  auto xAt = [&](int64_t n, int64_t c, int64_t h, int64_t wi) {
    return call.nhwc ? x[((n * call.h + h) * call.w + wi) * call.c + c]
                     : x[((n * call.c + c) * call.h + h) * call.w + wi];
  };
  auto wAt = [&](int64_t k, int64_t c, int64_t r, int64_t s) {
    return call.nhwc ? w[((k * call.r + r) * call.s + s) * cg + c]
                     : w[((k * cg + c) * call.r + r) * call.s + s];
  };
  auto yIndex = [&](int64_t n, int64_t k, int64_t h, int64_t wi) {
    return call.nhwc ? ((n * call.outH + h) * call.outW + wi) * call.k + k
                     : ((n * call.k + k) * call.outH + h) * call.outW + wi;
  };
  std::vector<double> y(call.n * call.k * call.outH * call.outW, 0.0);
  for (int64_t n = 0; n < call.n; ++n)
    for (int64_t k = 0; k < call.k; ++k) {
      const int64_t group = k / kg;
      for (int64_t oh = 0; oh < call.outH; ++oh)
        for (int64_t ow = 0; ow < call.outW; ++ow) {
          double sum = 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t r = 0; r < call.r; ++r)
              for (int64_t s = 0; s < call.s; ++s) {
                const int64_t ih =
                    oh * call.strideH - call.padH + r * call.dilationH;
                const int64_t iw =
                    ow * call.strideW - call.padW + s * call.dilationW;
                if (ih < 0 || ih >= call.h || iw < 0 || iw >= call.w)
                  continue;
                sum += xAt(n, group * cg + c, ih, iw) * wAt(k, c, r, s);
              }
          const int64_t index = yIndex(n, k, oh, ow);
          if (call.z >= 0)
            sum += call.alpha2 * z[index];
          if (call.bias >= 0)
            sum += bias[k];
          if (call.relu && sum < 0)
            sum = 0;
          y[index] = sum;
        }
    }
  return y;
}

/// An int8 MatmulCall's D (m x n, row-major) in int32: D[i,j] = sum over p
/// of A[i,p] * B[j,p] (A m x k, B stored n x k: the only int8 form).
inline std::vector<int32_t> referenceMatmulInt8(const MatmulCall &call,
                                                const std::vector<int8_t> &a,
                                                const std::vector<int8_t> &b) {
  const int64_t m = call.m, n = call.n, k = call.k;
  std::vector<int32_t> d(m * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int32_t sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += int32_t(a[i * k + p]) * int32_t(b[j * k + p]);
      d[i * n + j] = sum;
    }
  return d;
}

/// An int8 ConvCall's y (NHWC, filter KRSC, one group, no bias / z / relu)
/// in int32, before cuDNN converts it to float.
inline std::vector<int32_t> referenceConvInt8(const ConvCall &call,
                                              const std::vector<int8_t> &x,
                                              const std::vector<int8_t> &w) {
  std::vector<int32_t> y(call.n * call.outH * call.outW * call.k, 0);
  for (int64_t n = 0; n < call.n; ++n)
    for (int64_t oh = 0; oh < call.outH; ++oh)
      for (int64_t ow = 0; ow < call.outW; ++ow)
        for (int64_t k = 0; k < call.k; ++k) {
          int32_t sum = 0;
          for (int64_t r = 0; r < call.r; ++r)
            for (int64_t s = 0; s < call.s; ++s) {
              const int64_t ih =
                  oh * call.strideH - call.padH + r * call.dilationH;
              const int64_t iw =
                  ow * call.strideW - call.padW + s * call.dilationW;
              if (ih < 0 || ih >= call.h || iw < 0 || iw >= call.w)
                continue;
              for (int64_t c = 0; c < call.c; ++c)
                sum +=
                    int32_t(x[((n * call.h + ih) * call.w + iw) * call.c + c]) *
                    int32_t(w[((k * call.r + r) * call.s + s) * call.c + c]);
            }
          y[((n * call.outH + oh) * call.outW + ow) * call.k + k] = sum;
        }
  return y;
}

} // namespace tgc::cuda::reference

#endif // TGC_TEST_UNIT_RUNTIME_CUDA_LIBRARYREFERENCE_H
