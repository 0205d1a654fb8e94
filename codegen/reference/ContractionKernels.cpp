//===- ContractionKernels.cpp - matmul, conv2d and pools ------------------===//
//
// Floats accumulate in double, integers (matmul only) in wrapping int64; the
// result is rounded/wrapped to its dtype once. Spatial ops work on an NCHW
// (OIHW filter) copy of their operands and write the result back in the op's
// layout.
//
//===----------------------------------------------------------------------===//

#include "codegen/reference/Kernels.h"

#include "dialects/InputQuantization.h"
#include "dialects/ScalarMath.h"
#include "dialects/ShapeUtils.h"
#include "dialects/TgcOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using llvm::Expected;

namespace tgc::reference::detail {
namespace {

using Result = std::optional<Expected<HostTensor>>;

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

/// Copies the matrices of `values` (a tensor of `batches` matrices of
/// rows x cols) transposed, so that each becomes cols x rows.
template <typename T>
std::vector<T> transposeMatrices(const std::vector<T> &values, int64_t batches,
                                 int64_t rows, int64_t cols) {
  std::vector<T> out(values.size());
  for (int64_t b = 0; b < batches; ++b) {
    const T *src = values.data() + b * rows * cols;
    T *dst = out.data() + b * rows * cols;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        dst[c * rows + r] = src[r * cols + c];
  }
  return out;
}

template <typename T, typename Acc>
std::vector<T> matmulImpl(std::vector<T> a, std::vector<T> b,
                          const HostTensor &lhs, const HostTensor &rhs, bool ta,
                          bool tb, int64_t m, int64_t k, int64_t n,
                          const Shape &batch) {
  int64_t ra = lhs.rank(), rb = rhs.rank();
  int64_t aBatches = numElements(llvm::ArrayRef(lhs.shape()).drop_back(2));
  int64_t bBatches = numElements(llvm::ArrayRef(rhs.shape()).drop_back(2));
  // Bring both operands into [batch, M, K] and [batch, K, N] form.
  if (ta)
    a = transposeMatrices(a, aBatches, lhs.dim(ra - 2), lhs.dim(ra - 1));
  if (tb)
    b = transposeMatrices(b, bBatches, rhs.dim(rb - 2), rhs.dim(rb - 1));
  std::array<Shape, 2> strides = {
      broadcastStrides(llvm::ArrayRef(lhs.shape()).drop_back(2), batch),
      broadcastStrides(llvm::ArrayRef(rhs.shape()).drop_back(2), batch)};
  std::vector<T> out(static_cast<size_t>(numElements(batch) * m * n));
  std::vector<Acc> acc(static_cast<size_t>(n));
  forEachBroadcast<2>(batch, strides, [&](int64_t bi, int64_t ia, int64_t ib) {
    const T *am = a.data() + ia * m * k;
    const T *bm = b.data() + ib * k * n;
    T *cm = out.data() + bi * m * n;
    for (int64_t i = 0; i < m; ++i) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t p = 0; p < k; ++p) {
        Acc av = static_cast<Acc>(am[i * k + p]);
        const T *brow = bm + p * n;
        for (int64_t j = 0; j < n; ++j)
          acc[j] += av * static_cast<Acc>(brow[j]);
      }
      for (int64_t j = 0; j < n; ++j)
        cm[i * n + j] = static_cast<T>(acc[j]);
    }
  });
  return out;
}

Expected<HostTensor> runMatmul(MatmulOp op, Operands operands) {
  const HostTensor &lhs = *operands[0], &rhs = *operands[1];
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  int64_t ra = lhs.rank(), rb = rhs.rank();
  int64_t m = ta ? lhs.dim(ra - 1) : lhs.dim(ra - 2);
  int64_t ka = ta ? lhs.dim(ra - 2) : lhs.dim(ra - 1);
  int64_t kb = tb ? rhs.dim(rb - 1) : rhs.dim(rb - 2);
  int64_t n = tb ? rhs.dim(rb - 2) : rhs.dim(rb - 1);
  if (ka != kb)
    return opError(
        op, "contraction dims differ: lhs " + shapeString(lhs.shape()) +
                (ta ? " (transposed)" : "") + " has K = " + std::to_string(ka) +
                ", rhs " + shapeString(rhs.shape()) +
                (tb ? " (transposed)" : "") + " has K = " + std::to_string(kb));
  Shape batch;
  if (!runtime::broadcastShapes(llvm::ArrayRef(lhs.shape()).drop_back(2),
                                llvm::ArrayRef(rhs.shape()).drop_back(2),
                                batch))
    return opError(op, "batch dims of lhs " + shapeString(lhs.shape()) +
                           " and rhs " + shapeString(rhs.shape()) +
                           " are not broadcast-compatible");
  Shape shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  auto out = allocate(op, resultDType(op), shape);
  if (!out)
    return out.takeError();
  if (runtime::isFloatDType(lhs.dtype())) {
    writeDoubles(*out,
                 matmulImpl<double, double>(readDoubles(lhs), readDoubles(rhs),
                                            lhs, rhs, ta, tb, m, ka, n, batch));
  } else {
    // Wrapping arithmetic in uint64, converted back to int64.
    std::vector<int64_t> a = readInts(lhs), b = readInts(rhs);
    std::vector<uint64_t> ua(a.begin(), a.end()), ub(b.begin(), b.end());
    std::vector<uint64_t> r = matmulImpl<uint64_t, uint64_t>(
        std::move(ua), std::move(ub), lhs, rhs, ta, tb, m, ka, n, batch);
    writeInts(*out, std::vector<int64_t>(r.begin(), r.end()));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Layout helpers
//===----------------------------------------------------------------------===//

/// A 4-D tensor as doubles in NCHW order, with its dims.
struct Nchw {
  std::vector<double> values;
  int64_t n, c, h, w;
};

Nchw toNchw(const HostTensor &t, bool nhwc) {
  Nchw r;
  std::vector<double> v = readDoubles(t);
  if (!nhwc) {
    r = {std::move(v), t.dim(0), t.dim(1), t.dim(2), t.dim(3)};
    return r;
  }
  r.n = t.dim(0);
  r.h = t.dim(1);
  r.w = t.dim(2);
  r.c = t.dim(3);
  r.values.resize(v.size());
  for (int64_t n = 0; n < r.n; ++n)
    for (int64_t h = 0; h < r.h; ++h)
      for (int64_t w = 0; w < r.w; ++w)
        for (int64_t c = 0; c < r.c; ++c)
          r.values[((n * r.c + c) * r.h + h) * r.w + w] =
              v[((n * r.h + h) * r.w + w) * r.c + c];
  return r;
}

/// Allocates the result of a spatial op with NCHW dims and writes
/// `values` (NCHW order) into it in the op's layout.
Expected<HostTensor> fromNchw(Operation *op, const std::vector<double> &values,
                              int64_t n, int64_t c, int64_t h, int64_t w,
                              bool nhwc) {
  Shape shape = nhwc ? Shape{n, h, w, c} : Shape{n, c, h, w};
  auto out = allocate(op, resultDType(op), shape);
  if (!out)
    return out.takeError();
  if (!nhwc) {
    writeDoubles(*out, values);
    return out;
  }
  std::vector<double> t(values.size());
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw)
          t[((in * h + ih) * w + iw) * c + ic] =
              values[((in * c + ic) * h + ih) * w + iw];
  writeDoubles(*out, t);
  return out;
}

/// The output size of a window op along one spatial dim, or an error.
Expected<int64_t> outputSize(Operation *op, const char *which, int64_t size,
                             int64_t kernel, int64_t stride, int64_t padBegin,
                             int64_t padEnd, int64_t dilation, bool ceilMode) {
  auto out = windowOutputSize(size, kernel, stride, padBegin, padEnd, dilation,
                              ceilMode);
  if (!out)
    return opError(op, std::string("padded input ") + which + " " +
                           std::to_string(size + padBegin + padEnd) +
                           " is smaller than the dilated window " +
                           std::to_string(dilation * (kernel - 1) + 1));
  return *out;
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

Expected<HostTensor> runConv2D(Conv2DOp op, Operands operands) {
  bool nhwc = op.getLayout() == ir::Layout::NHWC;
  const HostTensor &input = *operands[0], &filter = *operands[1];
  const HostTensor *bias = operands.size() > 2 ? operands[2] : nullptr;
  int64_t groups = static_cast<int64_t>(op.getGroups());
  llvm::ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPadding(),
                          dilations = op.getDilations();

  Nchw x = toNchw(input, nhwc);
  // Filter dims: OIHW, or HWIO for NHWC.
  int64_t o = nhwc ? filter.dim(3) : filter.dim(0);
  int64_t ci = nhwc ? filter.dim(2) : filter.dim(1);
  int64_t kh = nhwc ? filter.dim(0) : filter.dim(2);
  int64_t kw = nhwc ? filter.dim(1) : filter.dim(3);
  if (kh < 1 || kw < 1)
    return opError(op, "filter spatial dims must be positive, got filter " +
                           shapeString(filter.shape()));
  if (x.c % groups != 0)
    return opError(op, "input channels " + std::to_string(x.c) +
                           " are not divisible by groups " +
                           std::to_string(groups));
  if (o % groups != 0)
    return opError(op, "output channels " + std::to_string(o) +
                           " are not divisible by groups " +
                           std::to_string(groups));
  if (ci != x.c / groups)
    return opError(op, "filter " + shapeString(filter.shape()) + " has " +
                           std::to_string(ci) +
                           " input channels per group, but the input has " +
                           std::to_string(x.c) + " channels in " +
                           std::to_string(groups) + " group(s)");
  if (bias && bias->dim(0) != o)
    return opError(op, "bias must have shape " + std::to_string(o) + ", got " +
                           shapeString(bias->shape()));
  auto oh = outputSize(op, "height", x.h, kh, strides[0], pads[0], pads[2],
                       dilations[0], false);
  if (!oh)
    return oh.takeError();
  auto ow = outputSize(op, "width", x.w, kw, strides[1], pads[1], pads[3],
                       dilations[1], false);
  if (!ow)
    return ow.takeError();
  int64_t OH = *oh, OW = *ow;

  // Filter as OIHW doubles.
  std::vector<double> f = readDoubles(filter);
  if (nhwc) {
    std::vector<double> t(f.size());
    for (int64_t h = 0; h < kh; ++h)
      for (int64_t w = 0; w < kw; ++w)
        for (int64_t i = 0; i < ci; ++i)
          for (int64_t oc = 0; oc < o; ++oc)
            t[((oc * ci + i) * kh + h) * kw + w] =
                f[((h * kw + w) * ci + i) * o + oc];
    f = std::move(t);
  }
  std::vector<double> b = bias ? readDoubles(*bias) : std::vector<double>();

  int64_t sh = strides[0], sw = strides[1], dh = dilations[0],
          dw = dilations[1], pt = pads[0], pl = pads[1];
  int64_t og = o / groups;
  std::vector<double> out(static_cast<size_t>(x.n * o * OH * OW));
  for (int64_t n = 0; n < x.n; ++n) {
    for (int64_t oc = 0; oc < o; ++oc) {
      int64_t g = oc / og;
      double *acc = out.data() + (n * o + oc) * OH * OW;
      std::fill(acc, acc + OH * OW, bias ? b[oc] : 0.0);
      for (int64_t i = 0; i < ci; ++i) {
        int64_t c = g * ci + i;
        const double *plane = x.values.data() + (n * x.c + c) * x.h * x.w;
        for (int64_t r = 0; r < kh; ++r) {
          for (int64_t s = 0; s < kw; ++s) {
            double wv = f[((oc * ci + i) * kh + r) * kw + s];
            // Columns: iw = ow * sw + off must lie in [0, W).
            int64_t off = s * dw - pl;
            int64_t owLo = off >= 0 ? 0 : (-off + sw - 1) / sw;
            int64_t owHi =
                x.w - 1 - off < 0 ? 0 : std::min(OW, (x.w - 1 - off) / sw + 1);
            for (int64_t y = 0; y < OH; ++y) {
              int64_t ih = y * sh - pt + r * dh;
              if (ih < 0 || ih >= x.h)
                continue;
              const double *row = plane + ih * x.w;
              double *accRow = acc + y * OW;
              for (int64_t z = owLo; z < owHi; ++z)
                accRow[z] += wv * row[z * sw + off];
            }
          }
        }
      }
    }
  }
  return fromNchw(op, out, x.n, o, OH, OW, nhwc);
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

template <typename PoolOp>
Expected<HostTensor> runPool(PoolOp op, const HostTensor &input, bool isMax,
                             bool countIncludePad) {
  bool nhwc = op.getLayout() == ir::Layout::NHWC;
  llvm::ArrayRef<int64_t> kernel = op.getKernel(), strides = op.getStrides(),
                          pads = op.getPadding(), dilations = op.getDilations();
  bool ceilMode = op.getCeilMode();
  Nchw x = toNchw(input, nhwc);
  auto oh = outputSize(op, "height", x.h, kernel[0], strides[0], pads[0],
                       pads[2], dilations[0], ceilMode);
  if (!oh)
    return oh.takeError();
  auto ow = outputSize(op, "width", x.w, kernel[1], strides[1], pads[1],
                       pads[3], dilations[1], ceilMode);
  if (!ow)
    return ow.takeError();
  int64_t OH = *oh, OW = *ow;
  int64_t kh = kernel[0], kw = kernel[1], sh = strides[0], sw = strides[1],
          dh = dilations[0], dw = dilations[1], pt = pads[0], pl = pads[1],
          pb = pads[2], pr = pads[3];
  std::vector<double> out(static_cast<size_t>(x.n * x.c * OH * OW));
  for (int64_t plane = 0; plane < x.n * x.c; ++plane) {
    const double *in = x.values.data() + plane * x.h * x.w;
    double *o = out.data() + plane * OH * OW;
    for (int64_t y = 0; y < OH; ++y) {
      for (int64_t z = 0; z < OW; ++z) {
        int64_t h0 = y * sh - pt, w0 = z * sw - pl;
        double best = -std::numeric_limits<double>::infinity();
        double sum = 0;
        int64_t real = 0, padRows = 0, padCols = 0;
        for (int64_t r = 0; r < kh; ++r) {
          int64_t ih = h0 + r * dh;
          padRows += ih >= -pt && ih < x.h + pb;
          if (ih < 0 || ih >= x.h)
            continue;
          for (int64_t s = 0; s < kw; ++s) {
            int64_t iw = w0 + s * dw;
            if (iw < 0 || iw >= x.w)
              continue;
            double v = in[ih * x.w + iw];
            best = scalar::maxNaN(best, v);
            sum += v;
            ++real;
          }
        }
        if (isMax) {
          o[y * OW + z] = best;
          continue;
        }
        for (int64_t s = 0; s < kw; ++s) {
          int64_t iw = w0 + s * dw;
          padCols += iw >= -pl && iw < x.w + pr;
        }
        int64_t divisor = countIncludePad ? padRows * padCols : real;
        o[y * OW + z] = sum / static_cast<double>(divisor);
      }
    }
  }
  return fromNchw(op, out, x.n, x.c, OH, OW, nhwc);
}

Expected<HostTensor> runGlobalAvgPool(GlobalAvgPool2DOp op,
                                      const HostTensor &input) {
  bool nhwc = op.getLayout() == ir::Layout::NHWC;
  Nchw x = toNchw(input, nhwc);
  int64_t hw = x.h * x.w;
  std::vector<double> out(static_cast<size_t>(x.n * x.c));
  for (int64_t plane = 0; plane < x.n * x.c; ++plane) {
    double sum = 0;
    for (int64_t i = 0; i < hw; ++i)
      sum += x.values[plane * hw + i];
    out[plane] = sum / static_cast<double>(hw);
  }
  return fromNchw(op, out, x.n, x.c, 1, 1, nhwc);
}

} // namespace

/// The contraction's input rounded to its tgc.input_quantization grid
/// (tgc-absorb-fake-quant).
Expected<HostTensor> quantizedInput(Operation *op, const HostTensor &x,
                                    const InputQuantization &q) {
  auto out = allocateUninitialized(op, DType::F32, x.shape());
  if (!out)
    return out.takeError();
  const float *in = x.dataAs<float>();
  float *y = out->dataAs<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    y[i] = q.apply(in[i]);
  return out;
}

Result runContraction(Operation *op, Operands operands) {
  if (isa<MatmulOp, Conv2DOp>(op)) {
    std::optional<InputQuantization> q = getInputQuantization(op);
    std::optional<HostTensor> quantized;
    llvm::SmallVector<const HostTensor *, 4> replaced(operands.begin(),
                                                      operands.end());
    if (q && !operands.empty() && operands[0]->dtype() == DType::F32) {
      auto x = quantizedInput(op, *operands[0], *q);
      if (!x)
        return x.takeError();
      quantized = std::move(*x);
      replaced[0] = &*quantized;
      operands = replaced;
    }
    if (auto o = dyn_cast<MatmulOp>(op))
      return runMatmul(o, operands);
    return runConv2D(cast<Conv2DOp>(op), operands);
  }
  if (auto o = dyn_cast<MaxPool2DOp>(op)) {
    return runPool(o, *operands[0], /*isMax=*/true, false);
  }
  if (auto o = dyn_cast<AvgPool2DOp>(op)) {
    return runPool(o, *operands[0], /*isMax=*/false, o.getCountIncludePad());
  }
  if (auto o = dyn_cast<GlobalAvgPool2DOp>(op)) {
    return runGlobalAvgPool(o, *operands[0]);
  }
  return std::nullopt;
}

} // namespace tgc::reference::detail
