//===- Kernels.h - reference interpreter kernels (private) ------*- C++ -*-===//
//
// Shared helpers and the per-area kernel entry points of the reference
// interpreter. Every kernel takes the op and its operand tensors (already
// checked to match the operand types' dtypes and ranks) and returns the result
// tensor, or an llvm::Error whose message starts with the op's location and
// name. Floats are computed in double and integers (and i1) in int64; the
// result is rounded/wrapped to its dtype once, when it is written.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_REFERENCE_KERNELS_H
#define TGC_CODEGEN_REFERENCE_KERNELS_H

#include "codegen/reference/Interpreter.h"
#include "runtime/Shape.h"
#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace tgc::reference::detail {

using runtime::DType;
using runtime::HostTensor;
using Shape = std::vector<int64_t>;
using Operands = llvm::ArrayRef<const HostTensor *>;

//===----------------------------------------------------------------------===//
// Errors and types
//===----------------------------------------------------------------------===//

/// `file:line:col` for a file location (looking through name/call-site/fused
/// locations), otherwise the printed location without its `loc(...)` wrapper.
std::string formatLocation(mlir::Location loc);

/// An error "<loc>: '<op name>' op <message>".
llvm::Error opError(mlir::Operation *op, const llvm::Twine &message);

/// The runtime dtype of an MLIR element type, if tgc supports it.
using tgc::reference::toDType;

/// Renders a shape as `2x3x4` (`scalar` for rank 0) and a tensor as
/// `tensor<2x3xf32>`.
std::string shapeString(llvm::ArrayRef<int64_t> shape);
std::string describeTensor(DType dtype, llvm::ArrayRef<int64_t> shape);

/// Allocates a result tensor (converting allocation failures to op errors).
llvm::Expected<HostTensor> allocate(mlir::Operation *op, DType dtype,
                                    Shape shape);
/// allocate() without the zero fill, for kernels that write every element.
llvm::Expected<HostTensor> allocateUninitialized(mlir::Operation *op,
                                                 DType dtype, Shape shape);

/// The dtype of `op`'s result `index` (its type was validated up front).
DType resultDType(mlir::Operation *op, unsigned index = 0);

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

// Strides and broadcasting of concrete shapes: runtime/Shape.h.
using runtime::broadcastStrides;
using runtime::numElements;
using runtime::rowMajorStrides;
/// Calls `fn(out, off[0], ..., off[N-1])` for every flat output index in
/// row-major order, where off[k] is the element offset into operand k given
/// its (broadcast) strides.
template <size_t N, typename Fn>
void forEachBroadcast(llvm::ArrayRef<int64_t> outShape,
                      const std::array<Shape, N> &strides, Fn &&fn) {
  int64_t total = numElements(outShape);
  if (total == 0)
    return;
  size_t rank = outShape.size();
  if (rank == 0) {
    std::array<int64_t, N> off{};
    std::apply([&](auto... o) { fn(int64_t(0), o...); }, off);
    return;
  }
  Shape index(rank, 0);
  std::array<int64_t, N> base{};
  int64_t inner = outShape[rank - 1];
  std::array<int64_t, N> innerStride;
  for (size_t k = 0; k < N; ++k)
    innerStride[k] = strides[k][rank - 1];
  int64_t out = 0;
  while (true) {
    std::array<int64_t, N> off = base;
    for (int64_t i = 0; i < inner; ++i, ++out) {
      std::apply([&](auto... o) { fn(out, o...); }, off);
      for (size_t k = 0; k < N; ++k)
        off[k] += innerStride[k];
    }
    // Advance the outer dims (odometer).
    int64_t d = static_cast<int64_t>(rank) - 2;
    for (; d >= 0; --d) {
      if (++index[d] < outShape[d]) {
        for (size_t k = 0; k < N; ++k)
          base[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k)
        base[k] -= strides[k][d] * (outShape[d] - 1);
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

//===----------------------------------------------------------------------===//
// Element access in the wide types
//===----------------------------------------------------------------------===//

/// Every element as double (floats; ints and i1 convert).
std::vector<double> readDoubles(const HostTensor &t);
/// Every element as int64 (ints; i1 is 0/1).
std::vector<int64_t> readInts(const HostTensor &t);
/// Writes doubles into a float tensor, rounding to its dtype.
void writeDoubles(HostTensor &t, const std::vector<double> &values);
/// Writes int64 values into an integer tensor, wrapping to its width (i1:
/// non-zero is 1).
void writeInts(HostTensor &t, const std::vector<int64_t> &values);

//===----------------------------------------------------------------------===//
// Kernel entry points, one per area. Each returns std::nullopt when `op` is
// not one of its ops, otherwise the result tensor or an error.
//===----------------------------------------------------------------------===//

/// Elementwise ops, cast, compare, select.
std::optional<llvm::Expected<HostTensor>> runElementwise(mlir::Operation *op,
                                                         Operands operands);
/// matmul, conv2d, pools.
std::optional<llvm::Expected<HostTensor>> runContraction(mlir::Operation *op,
                                                         Operands operands);
/// Reductions, arg-reductions, softmax, layer/batch norm.
std::optional<llvm::Expected<HostTensor>> runReduction(mlir::Operation *op,
                                                       Operands operands);
/// constant, reshape, transpose, broadcast_to, concat, slice, pad, gather,
/// scatter_elements, scatter_nd, squeeze, unsqueeze.
std::optional<llvm::Expected<HostTensor>> runDataMovement(mlir::Operation *op,
                                                          Operands operands);

/// Ops with more than one result (topk): every result in order.
std::optional<llvm::Expected<std::vector<HostTensor>>>
runMultiResult(mlir::Operation *op, Operands operands);

} // namespace tgc::reference::detail

#endif // TGC_CODEGEN_REFERENCE_KERNELS_H
