//===- NN.cpp - convolution, pooling, normalization -----------------------===//
//
// Converters of the neural-network ops: Conv and ConvTranspose (1-D, 2-D),
// pooling, the normalizations (Batch, Instance, Layer, Lp, MeanVariance,
// LRN) and Dropout.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"
#include "runtime/Shape.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Padding [begin..., end...] for SAME auto_pad (or explicit pads), over the
/// spatial dims of an NCHW input.
llvm::Expected<std::vector<int64_t>>
spatialPads(Importer &im, const Tensor &x, llvm::ArrayRef<int64_t> kernel,
            llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
            bool ceilOutputs) {
  size_t n = kernel.size();
  TRY(autoPad, im.attrString("auto_pad", "NOTSET"));
  TRY(pads, im.attrInts("pads"));
  if (autoPad == "NOTSET") {
    if (!pads)
      return std::vector<int64_t>(2 * n, 0);
    if (pads->size() != 2 * n)
      return im.fail("attribute 'pads' has " + llvm::Twine(pads->size()) +
                     " values; " + llvm::Twine(2 * n) + " expected");
    for (int64_t p : *pads)
      if (p < 0)
        return im.fail("attribute 'pads' " + listOf(*pads) +
                       " must be non-negative");
    return *pads;
  }
  if (autoPad == "VALID")
    return std::vector<int64_t>(2 * n, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return im.fail(
        "attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER "
        "or VALID, not '" +
        autoPad + "'");
  std::vector<int64_t> result(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    std::optional<int64_t> size = x.dim(static_cast<int64_t>(2 + i));
    if (!size)
      return im.unsupported("auto_pad " + autoPad +
                            " needs static spatial dims, not " + x.describe());
    int64_t outSize = (*size + strides[i] - 1) / strides[i];
    int64_t total =
        std::max<int64_t>(0, (outSize - 1) * strides[i] +
                                 (kernel[i] - 1) * dilations[i] + 1 - *size);
    (void)ceilOutputs;
    int64_t small = total / 2, large = total - small;
    result[i] = autoPad == "SAME_UPPER" ? small : large;
    result[i + n] = autoPad == "SAME_UPPER" ? large : small;
  }
  return result;
}

constexpr int64_t kToEnd = std::numeric_limits<int64_t>::max();

/// A 3-D convolution of an NCDHW input `x0` and a [M, C/group, kd, kh, kw]
/// weight (pads [d, h, w begin, d, h, w end]) as the sum over the kernel's
/// depth of 2-D convolutions: tap k convolves the input's depth slices k *
/// dilation + i * stride (batched as N * D_out images) with the weight's
/// slice k. Each is a conv2d, which the backends run on their tuned
/// kernels; the bias is added once.
llvm::Expected<Tensor>
conv3dByDepthTaps(Importer &im, const Tensor &x0, const Tensor &w,
                  std::optional<Tensor> bias, llvm::ArrayRef<int64_t> strides,
                  llvm::ArrayRef<int64_t> dilations,
                  llvm::ArrayRef<int64_t> pads, int64_t group) {
  std::vector<int64_t> xs = x0.shape(), ws = w.shape();
  for (int64_t d = 1; d < 5; ++d)
    if (xs[static_cast<size_t>(d)] == kDynamic)
      return im.unsupported("3-D convolutions need static channel and "
                            "spatial dims, not " +
                            x0.describe());
  if (!w.hasStaticShape())
    return im.unsupported("the weight's shape must be static, not " +
                          w.describe());
  Tensor x = x0;
  if (pads[0] || pads[3]) {
    TRYT(padded, tgc::pad(x0, {0, 0, pads[0], 0, 0}, {0, 0, pads[3], 0, 0}));
    x = padded;
  }
  int64_t depth = xs[2] + pads[0] + pads[3];
  int64_t span = (ws[2] - 1) * dilations[0] + 1;
  if (depth < span)
    return im.fail("the kernel spans " + llvm::Twine(span) +
                   " elements in depth but the padded input has " +
                   llvm::Twine(depth));
  int64_t outDepth = (depth - span) / strides[0] + 1;
  Conv2DOptions opts;
  opts.groups = group;
  opts.strides = {strides[1], strides[2]};
  opts.dilations = {dilations[1], dilations[2]};
  opts.padding = {pads[1], pads[2], pads[4], pads[5]};
  std::optional<Tensor> sum;
  for (int64_t k = 0; k < ws[2]; ++k) {
    int64_t start = k * dilations[0];
    TRYT(taps,
         tgc::slice(x, {0, 0, start, 0, 0},
                    {kToEnd, kToEnd, start + (outDepth - 1) * strides[0] + 1,
                     kToEnd, kToEnd},
                    {1, 1, strides[0], 1, 1}));
    TRYT(moved, tgc::transpose(taps, {0, 2, 1, 3, 4}));
    TRYT(images, tgc::reshape(moved, {-1, xs[1], xs[3], xs[4]}));
    TRYT(wk, tgc::slice(w, {0, 0, k, 0, 0},
                        {kToEnd, kToEnd, k + 1, kToEnd, kToEnd}));
    TRYT(filter, tgc::reshape(wk, {ws[0], ws[1], ws[3], ws[4]}));
    TRYT(yk, tgc::conv2d(images, filter, k == 0 ? bias : std::nullopt, opts));
    if (sum) {
      TRYT(total, tgc::add(*sum, yk));
      sum = total;
    } else {
      sum = yk;
    }
  }
  std::vector<int64_t> ys = sum->shape();
  TRYT(split, tgc::reshape(*sum, {-1, outDepth, ys[1], ys[2], ys[3]}));
  TRYT(y, tgc::transpose(split, {0, 2, 1, 3, 4}));
  return y;
}

} // namespace

/// The node's Conv attributes applied to `x0` and `w0` (Conv, ConvInteger,
/// QLinearConv).
llvm::Expected<Tensor> onnximpl::convolve(Importer &im, const Tensor &x0,
                                          const Tensor &w0,
                                          std::optional<Tensor> bias) {
  int64_t rank = x0.rank();
  if (rank < 3 || rank > 5)
    return im.unsupported(
        "only 1-D, 2-D and 3-D convolutions are supported: the input " +
        x0.describe() + " is not supported");
  if (w0.rank() != rank)
    return im.fail("weight " + w0.describe() +
                   " must have the rank of the input " + x0.describe());
  size_t n = static_cast<size_t>(rank - 2);
  std::vector<int64_t> kernel;
  for (size_t i = 0; i < n; ++i) {
    std::optional<int64_t> k = w0.dim(static_cast<int64_t>(2 + i));
    if (!k)
      return im.unsupported("the weight's spatial dims must be static");
    kernel.push_back(*k);
  }
  TRY(kernelAttr, im.attrInts("kernel_shape"));
  if (kernelAttr && *kernelAttr != kernel)
    return im.fail("attribute 'kernel_shape' " + listOf(*kernelAttr) +
                   " does not match the weight " + w0.describe());
  TRY(stridesAttr, im.attrInts("strides"));
  TRY(dilationsAttr, im.attrInts("dilations"));
  std::vector<int64_t> strides =
      stridesAttr.value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations =
      dilationsAttr.value_or(std::vector<int64_t>(n, 1));
  if (strides.size() != n || dilations.size() != n)
    return im.fail("attributes 'strides' and 'dilations' need " +
                   llvm::Twine(n) + " values");
  for (size_t i = 0; i < n; ++i)
    if (strides[i] < 1 || dilations[i] < 1)
      return im.fail("strides and dilations must be >= 1");
  TRY(group, im.attrInt("group", 1));
  if (group < 1)
    return im.fail("attribute 'group' must be >= 1, not " + llvm::Twine(group));
  TRY(pads, spatialPads(im, x0, kernel, strides, dilations, false));
  if (n == 3)
    return conv3dByDepthTaps(im, x0, w0, bias, strides, dilations, pads, group);

  Tensor x = x0, w = w0;
  Conv2DOptions opts;
  opts.groups = group;
  if (n == 1) {
    TRYT(xu, tgc::unsqueeze(x0, {2}));
    TRYT(wu, tgc::unsqueeze(w0, {2}));
    x = xu;
    w = wu;
    opts.strides = {1, strides[0]};
    opts.dilations = {1, dilations[0]};
    opts.padding = {0, pads[0], 0, pads[1]};
  } else {
    opts.strides = strides;
    opts.dilations = dilations;
    opts.padding = pads;
  }
  TRYT(y0, tgc::conv2d(x, w, bias, opts));
  Tensor y = y0;
  if (n == 1) {
    TRYT(t, tgc::squeeze(y0, {2}));
    y = t;
  }
  return y;
}

namespace {

llvm::Error convConv(Importer &im) {
  TRY(x, im.in(0));
  TRY(w, im.in(1));
  std::optional<Tensor> bias;
  if (im.has(2)) {
    TRY(b, im.in(2));
    bias = b;
  }
  TRY(y, convolve(im, x, w, bias));
  im.out(0, y);
  return llvm::Error::success();
}

/// ConvTranspose as a regular convolution: the input with stride - 1 zeros
/// inserted after each element (reshape to [N, C, H, 1, W, 1], zero-pad to
/// [N, C, H, sh, W, sw], reshape to [N, C, H*sh, W*sw]), padded by
/// dilation * (kernel - 1) - pads plus output_padding (cropped where
/// negative), convolved with the kernel flipped spatially and its in/out
/// channels swapped per group. The weight transforms fold when it is a
/// constant. 1-D goes through 2-D; 3-D ends in conv3dByDepthTaps.
llvm::Error convConvTranspose(Importer &im) {
  TRY(x0, im.in(0));
  TRY(w0, im.in(1));
  int64_t rank = x0.rank();
  if (rank < 3 || rank > 5)
    return im.unsupported("only 1-D, 2-D and 3-D transposed convolutions are "
                          "supported: the input " +
                          x0.describe() + " is not supported");
  if (w0.rank() != rank)
    return im.fail("weight " + w0.describe() +
                   " must have the rank of the input " + x0.describe());
  if (!w0.hasStaticShape())
    return im.unsupported("the weight's shape must be static, not " +
                          w0.describe());
  std::vector<int64_t> xs = x0.shape(), ws = w0.shape();
  for (int64_t d = 1; d < rank; ++d)
    if (xs[d] == kDynamic)
      return im.unsupported("the input's channel and spatial dims must be "
                            "static, not " +
                            x0.describe());
  size_t n = static_cast<size_t>(rank - 2);
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  TRY(kernelAttr, im.attrInts("kernel_shape"));
  if (kernelAttr && *kernelAttr != kernel)
    return im.fail("attribute 'kernel_shape' " + listOf(*kernelAttr) +
                   " does not match the weight " + w0.describe());
  TRY(stridesAttr, im.attrInts("strides"));
  TRY(dilationsAttr, im.attrInts("dilations"));
  TRY(outputPaddingAttr, im.attrInts("output_padding"));
  TRY(outputShapeAttr, im.attrInts("output_shape"));
  std::vector<int64_t> strides =
      stridesAttr.value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations =
      dilationsAttr.value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> outputPadding =
      outputPaddingAttr.value_or(std::vector<int64_t>(n, 0));
  if (strides.size() != n || dilations.size() != n)
    return im.fail("attributes 'strides' and 'dilations' need " +
                   llvm::Twine(n) + " values");
  if (outputPadding.size() != n)
    return im.fail("attribute 'output_padding' " + listOf(outputPadding) +
                   " needs " + llvm::Twine(n) + " values");
  for (size_t i = 0; i < n; ++i) {
    if (strides[i] < 1 || dilations[i] < 1)
      return im.fail("strides and dilations must be >= 1");
    if (outputPadding[i] < 0)
      return im.fail("attribute 'output_padding' " + listOf(outputPadding) +
                     " must be non-negative");
  }
  TRY(group, im.attrInt("group", 1));
  if (group < 1)
    return im.fail("attribute 'group' must be >= 1, not " + llvm::Twine(group));
  if (xs[1] != ws[0] || xs[1] % group)
    return im.fail("the input " + x0.describe() + " and the weight " +
                   w0.describe() +
                   " must have the same number of input channels, divisible by "
                   "the group (" +
                   llvm::Twine(group) + ")");
  int64_t channels = xs[1], outChannels = ws[1] * group;

  // Padding: explicit, or from output_shape / SAME (total padding split with
  // floor division, the larger half at the end for SAME_UPPER, else at the
  // beginning; a negative total, from an output_shape larger than the full
  // result, extends the output with zeros).
  TRY(autoPad, im.attrString("auto_pad", "NOTSET"));
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return im.fail(
        "attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER "
        "or VALID, not '" +
        autoPad + "'");
  TRY(padsAttr, im.attrInts("pads"));
  std::vector<int64_t> full(n), begin(n, 0), end(n, 0);
  for (size_t i = 0; i < n; ++i)
    full[i] = strides[i] * (xs[2 + i] - 1) + outputPadding[i] +
              (kernel[i] - 1) * dilations[i] + 1;
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (outputShapeAttr || same) {
    std::vector<int64_t> target(n);
    if (outputShapeAttr) {
      target = *outputShapeAttr;
      // Some exporters include the batch and channel dims.
      if (target.size() == n + 2)
        target.erase(target.begin(), target.begin() + 2);
      if (target.size() != n)
        return im.fail("attribute 'output_shape' " + listOf(*outputShapeAttr) +
                       " needs " + llvm::Twine(n) + " values");
    } else {
      // SAME as ONNX's shape inference computes it: a total padding of
      // max(0, effective kernel - stride), so output_padding still adds.
      for (size_t i = 0; i < n; ++i)
        target[i] =
            full[i] - std::max<int64_t>(0, (kernel[i] - 1) * dilations[i] + 1 -
                                               strides[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      if (target[i] < 1)
        return im.fail("attribute 'output_shape' " + listOf(target) +
                       " must be positive");
      int64_t total = full[i] - target[i];
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2); // floor
      if (autoPad == "SAME_UPPER") {
        begin[i] = half;
        end[i] = total - half;
      } else {
        begin[i] = total - half;
        end[i] = half;
      }
    }
  } else if (autoPad == "NOTSET" && padsAttr) {
    if (padsAttr->size() != 2 * n)
      return im.fail("attribute 'pads' has " + llvm::Twine(padsAttr->size()) +
                     " values; " + llvm::Twine(2 * n) + " expected");
    for (int64_t p : *padsAttr)
      if (p < 0)
        return im.fail("attribute 'pads' " + listOf(*padsAttr) +
                       " must be non-negative");
    for (size_t i = 0; i < n; ++i) {
      begin[i] = (*padsAttr)[i];
      end[i] = (*padsAttr)[i + n];
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (full[i] - begin[i] - end[i] < 1)
      return im.fail(
          "the output would have " + llvm::Twine(full[i] - begin[i] - end[i]) +
          " elements in spatial dim " + llvm::Twine(i) + " (pads " +
          listOf(begin) + " + " + listOf(end) + " remove everything)");

  // 1-D goes through 2-D: [h, w] per spatial parameter; 3-D stays 3-D.
  auto lift = [&](const std::vector<int64_t> &v, int64_t one) {
    return n == 1 ? std::vector<int64_t>{one, v[0]} : v;
  };
  std::vector<int64_t> s2 = lift(strides, 1), d2 = lift(dilations, 1),
                       k2 = lift(kernel, 1), b2 = lift(begin, 0),
                       e2 = lift(end, 0), op2 = lift(outputPadding, 0);
  const size_t m = s2.size(); // Spatial dims: 2 or 3.
  Tensor x = x0, w = w0;
  if (n == 1) {
    TRYT(xu, tgc::unsqueeze(x0, {2}));
    TRYT(wu, tgc::unsqueeze(w0, {2}));
    x = xu;
    w = wu;
  }
  auto iota = [](size_t from, size_t to) {
    std::vector<int64_t> v;
    for (size_t i = from; i < to; ++i)
      v.push_back(static_cast<int64_t>(i));
    return v;
  };

  // The filter: [C, M/g, k...] -> [M, C/g, k...], flipped spatially.
  Tensor filter = w;
  if (group == 1) {
    std::vector<int64_t> perm = {1, 0};
    for (int64_t d : iota(2, m + 2))
      perm.push_back(d);
    TRYT(t, tgc::transpose(w, perm));
    filter = t;
  } else {
    std::vector<int64_t> grouped = {group, channels / group,
                                    outChannels / group};
    std::vector<int64_t> perm = {0, 2, 1};
    std::vector<int64_t> merged = {outChannels, channels / group};
    for (size_t i = 0; i < m; ++i) {
      grouped.push_back(k2[i]);
      perm.push_back(static_cast<int64_t>(3 + i));
      merged.push_back(k2[i]);
    }
    TRY(r, im.reshapeTo(w, grouped));
    TRYT(t, tgc::transpose(r, perm));
    TRY(f, im.reshapeTo(t, merged));
    filter = f;
  }
  if (llvm::any_of(k2, [](int64_t k) { return k > 1; })) {
    std::vector<int64_t> starts = {0, 0}, ends = {kToEnd, kToEnd},
                         steps = {1, 1};
    for (size_t i = 0; i < m; ++i) {
      starts.push_back(-1);
      ends.push_back(-(k2[i] + 1));
      steps.push_back(-1);
    }
    TRYT(flipped, tgc::slice(filter, starts, ends, steps));
    filter = flipped;
  }

  // The input: zeros inserted, then padded (the convolution's padding) or
  // cropped.
  std::vector<int64_t> lo(m), hi(m);
  for (size_t i = 0; i < m; ++i) {
    lo[i] = (k2[i] - 1) * d2[i] - b2[i];
    hi[i] = (k2[i] - 1) * d2[i] - e2[i] + op2[i];
  }
  std::vector<int64_t> shape = x.shape();
  if (llvm::any_of(s2, [](int64_t s) { return s > 1; })) {
    // [N, C, d0, 1, d1, 1, ...] padded to [N, C, d0, s0, d1, s1, ...].
    std::vector<int64_t> interleaved = {shape[0], shape[1]},
                         zeros(2 + 2 * m, 0), after(2 + 2 * m, 0),
                         inserted = {shape[0], shape[1]};
    for (size_t i = 0; i < m; ++i) {
      interleaved.push_back(shape[2 + i]);
      interleaved.push_back(1);
      after[3 + 2 * i] = s2[i] - 1;
      inserted.push_back(shape[2 + i] * s2[i]);
    }
    TRY(r, im.reshapeTo(x, interleaved));
    TRYT(p, tgc::pad(r, zeros, after));
    TRY(z, im.reshapeTo(p, inserted));
    x = z;
    // The zeros after the last element are part of the high padding.
    for (size_t i = 0; i < m; ++i)
      hi[i] -= s2[i] - 1;
    shape = x.shape();
  }
  if (llvm::any_of(lo, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(hi, [](int64_t v) { return v < 0; })) {
    std::vector<int64_t> starts = {0, 0}, ends = {kToEnd, kToEnd};
    for (size_t i = 0; i < m; ++i) {
      starts.push_back(std::max<int64_t>(0, -lo[i]));
      ends.push_back(shape[2 + i] - std::max<int64_t>(0, -hi[i]));
      if (ends.back() <= starts.back())
        return im.unsupported("pads that crop away the whole input are not "
                              "supported");
    }
    TRYT(c, tgc::slice(x, starts, ends));
    x = c;
  }
  std::vector<int64_t> padding;
  for (int64_t v : lo)
    padding.push_back(std::max<int64_t>(0, v));
  for (int64_t v : hi)
    padding.push_back(std::max<int64_t>(0, v));
  std::optional<Tensor> bias;
  if (im.has(2)) {
    TRY(b, im.in(2));
    bias = b;
  }
  if (m == 3) {
    TRY(y,
        conv3dByDepthTaps(im, x, filter, bias, {1, 1, 1}, d2, padding, group));
    im.out(0, y);
    return llvm::Error::success();
  }
  Conv2DOptions opts;
  opts.groups = group;
  opts.strides = {1, 1};
  opts.dilations = d2;
  opts.padding = padding;
  TRYT(y0, tgc::conv2d(x, filter, bias, opts));
  Tensor y = y0;
  if (n == 1) {
    TRYT(t, tgc::squeeze(y0, {2}));
    y = t;
  }
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// MaxPool's Indices output for a static NCHW input: per output element,
/// the flat index (row-major; with `columnMajor`, h and w swapped) of its
/// window's first largest element. The windows' indices are a constant
/// table [outputs, window] (padding points at an appended -inf); a gather,
/// an argmax along the window and a gather from the table give them.
llvm::Expected<Tensor> maxPoolIndices(Importer &im, const Tensor &x,
                                      const Pool2DOptions &opts,
                                      const std::vector<int64_t> &outShape,
                                      bool columnMajor) {
  std::vector<int64_t> shape = x.shape();
  const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  const int64_t oh = outShape[2], ow = outShape[3];
  const int64_t kh = opts.kernel[0], kw = opts.kernel[1];
  const int64_t outputs = n * c * oh * ow, window = kh * kw;
  const int64_t sentinel = n * c * h * w;
  auto reads = HostTensor::allocate(DType::I64, {outputs * window});
  auto onnxIndex = HostTensor::allocate(DType::I64, {outputs * window});
  if (!reads.ok() || !onnxIndex.ok())
    return im.fail("MaxPool's index table does not fit in memory");
  int64_t at = 0;
  for (int64_t b = 0; b < n * c; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t u = 0; u < kh; ++u)
          for (int64_t v = 0; v < kw; ++v, ++at) {
            int64_t y =
                i * opts.strides[0] - opts.padding[0] + u * opts.dilations[0];
            int64_t z =
                j * opts.strides[1] - opts.padding[1] + v * opts.dilations[1];
            bool inside = y >= 0 && y < h && z >= 0 && z < w;
            reads->setInt(at, inside ? (b * h + y) * w + z : sentinel);
            onnxIndex->setInt(at, !inside       ? -1
                                  : columnMajor ? (b * w + z) * h + y
                                                : (b * h + y) * w + z);
          }
  TRYT(flat, tgc::reshape(x, {sentinel}));
  auto lowest = HostTensor::allocate(x.dtype(), {1});
  if (!lowest.ok())
    return im.fail(std::string(lowest.status().message()));
  lowest->setDouble(0, -std::numeric_limits<double>::infinity());
  TRYT(extended, tgc::concat({flat, im.constantTensor(*lowest)}, 0));
  TRYT(windowValues, tgc::gather(extended, im.constantTensor(*reads), 0));
  TRYT(grid, tgc::reshape(windowValues, {outputs, window}));
  TRYT(best, tgc::argmax(grid, 1));
  auto rowStarts = HostTensor::allocate(DType::I64, {outputs});
  if (!rowStarts.ok())
    return im.fail(std::string(rowStarts.status().message()));
  for (int64_t r = 0; r < outputs; ++r)
    rowStarts->setInt(r, r * window);
  TRYT(position, tgc::add(best, im.constantTensor(*rowStarts)));
  TRYT(picked, tgc::gather(im.constantTensor(*onnxIndex), position, 0));
  TRYT(indices, tgc::reshape(picked, {n, c, oh, ow}));
  return indices;
}

llvm::Error convPool(Importer &im) {
  bool isMax = im.node().op_type() == "MaxPool";
  TRY(x0, im.in(0));
  int64_t rank = x0.rank();
  if (rank != 3 && rank != 4 && !(rank == 5 && x0.hasStaticShape()))
    return im.unsupported("only 1-D, 2-D and static 3-D pooling is "
                          "supported: the input " +
                          x0.describe() + " is not supported");
  if (isMax && im.wantsOutput(1) && (rank != 4 || !x0.hasStaticShape()))
    return im.unsupported("the Indices output of MaxPool is supported for "
                          "static 2-D pooling only, not " +
                          x0.describe());
  size_t n = static_cast<size_t>(rank - 2);
  TRY(kernelAttr, im.attrInts("kernel_shape"));
  if (!kernelAttr)
    return im.fail("attribute 'kernel_shape' is required");
  std::vector<int64_t> kernel = *kernelAttr;
  TRY(stridesAttr, im.attrInts("strides"));
  TRY(dilationsAttr, im.attrInts("dilations"));
  std::vector<int64_t> strides =
      stridesAttr.value_or(std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations =
      dilationsAttr.value_or(std::vector<int64_t>(n, 1));
  if (kernel.size() != n || strides.size() != n || dilations.size() != n)
    return im.fail(
        "attributes 'kernel_shape', 'strides' and 'dilations' need " +
        llvm::Twine(n) + " values");
  for (size_t i = 0; i < n; ++i)
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1)
      return im.fail("kernel_shape, strides and dilations must be >= 1");
  TRY(ceilMode, im.attrInt("ceil_mode", 0));
  TRY(countIncludePad, im.attrInt("count_include_pad", 0));
  TRY(storageOrder, im.attrInt("storage_order", 0));
  TRY(pads, spatialPads(im, x0, kernel, strides, dilations, ceilMode != 0));

  // Integer MaxPool (ONNX allows 8-bit inputs) pools in f32, which holds
  // every 8- and 16-bit integer exactly; max commutes with the casts.
  Tensor x = x0;
  DType dtype = x0.dtype();
  bool viaF32 = isMax && (dtype == DType::I8 || dtype == DType::UI8 ||
                          dtype == DType::I16 || dtype == DType::UI16);
  if (!runtime::isFloatDType(dtype) && !viaF32)
    return im.unsupported("pooling " + x0.describe() + " is not supported");
  if (viaF32) {
    TRYT(xf, tgc::cast(x0, DType::F32));
    x = xf;
  }
  Pool2DOptions opts;
  opts.ceilMode = ceilMode != 0;
  opts.countIncludePad = countIncludePad != 0;
  if (n == 3) {
    // A box pool is separable: pool (H, W) of every depth slice, then
    // depth windows over the pooled slices (max of maxes; the mean of
    // means, every window being a box of per-dim counts).
    if (!isMax && opts.ceilMode)
      return im.unsupported("3-D average pooling with ceil_mode");
    std::vector<int64_t> shape = x.shape();
    TRYT(slices,
         tgc::reshape(x, {shape[0], shape[1] * shape[2], shape[3], shape[4]}));
    Pool2DOptions plane = opts;
    plane.kernel = {kernel[1], kernel[2]};
    plane.strides = {strides[1], strides[2]};
    plane.dilations = {dilations[1], dilations[2]};
    plane.padding = {pads[1], pads[2], pads[4], pads[5]};
    TRYT(pooled,
         isMax ? tgc::maxPool2d(slices, plane) : tgc::avgPool2d(slices, plane));
    std::vector<int64_t> p = pooled.shape();
    TRYT(columns,
         tgc::reshape(pooled, {shape[0], shape[1], shape[2], p[2] * p[3]}));
    Pool2DOptions depth = opts;
    depth.kernel = {kernel[0], 1};
    depth.strides = {strides[0], 1};
    depth.dilations = {dilations[0], 1};
    depth.padding = {pads[0], 0, pads[3], 0};
    TRYT(deep, isMax ? tgc::maxPool2d(columns, depth)
                     : tgc::avgPool2d(columns, depth));
    std::vector<int64_t> d = deep.shape();
    TRYT(y3, tgc::reshape(deep, {shape[0], shape[1], d[2], p[2], p[3]}));
    Tensor y = y3;
    if (viaF32) {
      TRYT(yi, tgc::cast(y, dtype));
      y = yi;
    }
    im.out(0, y);
    return llvm::Error::success();
  }
  if (n == 1) {
    TRYT(xu, tgc::unsqueeze(x, {2}));
    x = xu;
    opts.kernel = {1, kernel[0]};
    opts.strides = {1, strides[0]};
    opts.dilations = {1, dilations[0]};
    opts.padding = {0, pads[0], 0, pads[1]};
  } else {
    opts.kernel = kernel;
    opts.strides = strides;
    opts.dilations = dilations;
    opts.padding = pads;
  }
  TRYT(y0, isMax ? tgc::maxPool2d(x, opts) : tgc::avgPool2d(x, opts));
  if (isMax && im.wantsOutput(1)) {
    TRY(indices, maxPoolIndices(im, x, opts, y0.shape(), storageOrder != 0));
    im.out(1, indices);
  }
  Tensor y = y0;
  if (n == 1) {
    TRYT(t, tgc::squeeze(y0, {2}));
    y = t;
  }
  if (viaF32) {
    TRYT(yi, tgc::cast(y, dtype));
    y = yi;
  }
  im.out(0, y);
  return llvm::Error::success();
}

/// RoiAlign (avg mode, a fixed sampling_ratio) of a static X: per roi, a
/// grid of out x ratio sample positions per axis computed from the roi's
/// coordinates, each read bilinearly (as ONNX Runtime does: samples beyond
/// [-1, size] read 0, positions clamped at the edges) by four gathers from
/// the roi's image, then averaged per bin. The number of rois may be
/// dynamic (a detector's proposals after NonZero).
llvm::Error convRoiAlign(Importer &im) {
  TRY(x, im.in(0));
  TRY(rois, im.in(1));
  TRY(batchIndices, im.in(2));
  if (!x.hasStaticShape() || x.rank() != 4 || rois.rank() != 2 ||
      rois.dim(1) != std::optional<int64_t>(4))
    return im.unsupported("RoiAlign needs a static X [N, C, H, W] and rois "
                          "[num_rois, 4], not " +
                          x.describe() + " and " + rois.describe());
  TRY(mode, im.attrString("mode", "avg"));
  if (mode != "avg")
    return im.unsupported("RoiAlign mode '" + mode + "' (only avg)");
  TRY(outH, im.attrInt("output_height", 1));
  TRY(outW, im.attrInt("output_width", 1));
  TRY(ratio, im.attrInt("sampling_ratio", 0));
  TRY(scale, im.attrFloat("spatial_scale", 1.0));
  TRY(transform,
      im.attrString("coordinate_transformation_mode",
                    im.opset() >= 16 ? "half_pixel" : "output_half_pixel"));
  if (outH < 1 || outW < 1)
    return im.fail("output_height and output_width must be >= 1");
  if (ratio < 1)
    return im.unsupported("RoiAlign with an adaptive sampling_ratio (0): the "
                          "number of samples would depend on the rois");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return im.fail("coordinate_transformation_mode must be half_pixel or "
                   "output_half_pixel, not '" +
                   transform + "'");
  const bool halfPixel = transform == "half_pixel";
  std::vector<int64_t> shape = x.shape();
  const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  // The number of rois, or -1 where it is known only when the function runs
  // (reshapes infer it).
  const int64_t r = rois.dim(0).value_or(-1);
  Tensor boxes = rois;
  if (boxes.dtype() != x.dtype()) {
    TRYT(cast, tgc::cast(boxes, x.dtype()));
    boxes = cast;
  }
  struct Axis {
    Tensor low, high, wLow, wHigh, valid;
  };
  // Sample positions along one axis: [r, out * ratio].
  auto samples = [&](int64_t column, int64_t size,
                     int64_t out) -> llvm::Expected<Axis> {
    constexpr int64_t kAll = std::numeric_limits<int64_t>::max();
    TRYT(begin0, tgc::slice(boxes, {0, column}, {kAll, column + 1}));
    TRYT(end0, tgc::slice(boxes, {0, column + 2}, {kAll, column + 3}));
    TRYT(begin1, tgc::mul(begin0, Scalar(scale)));
    TRYT(end1, tgc::mul(end0, Scalar(scale)));
    TRYT(begin, tgc::sub(begin1, Scalar(halfPixel ? 0.5 : 0.0)));
    TRYT(end, tgc::sub(end1, Scalar(halfPixel ? 0.5 : 0.0)));
    TRYT(length0, tgc::sub(end, begin));
    Tensor length = length0;
    if (!halfPixel) {
      TRYT(atLeastOne, tgc::maximum(length0, Scalar(1.0)));
      length = atLeastOne;
    }
    TRYT(bin, tgc::div(length, Scalar(static_cast<double>(out))));
    auto fractions = HostTensor::allocate(x.dtype(), {1, out * ratio});
    if (!fractions.ok())
      return im.fail(std::string(fractions.status().message()));
    for (int64_t p = 0; p < out; ++p)
      for (int64_t i = 0; i < ratio; ++i)
        fractions->setDouble(p * ratio + i, static_cast<double>(p) +
                                                (static_cast<double>(i) + 0.5) /
                                                    static_cast<double>(ratio));
    TRYT(offsets, tgc::mul(im.constantTensor(*fractions), bin));
    TRYT(position, tgc::add(begin, offsets));
    TRYT(aboveLow, tgc::greaterEqual(position, Scalar(-1.0)));
    TRYT(belowHigh,
         tgc::lessEqual(position, Scalar(static_cast<double>(size))));
    TRYT(inside, tgc::logicalAnd(aboveLow, belowHigh));
    TRYT(valid, tgc::cast(inside, x.dtype()));
    TRYT(p0, tgc::maximum(position, Scalar(0.0)));
    TRYT(floor0, tgc::floor(p0));
    TRYT(edge,
         tgc::greaterEqual(floor0, Scalar(static_cast<double>(size - 1))));
    const double last = static_cast<double>(size - 1);
    TRYT(low, tgc::select(edge, Scalar(last), floor0));
    TRYT(next, tgc::add(floor0, Scalar(1.0)));
    TRYT(high, tgc::select(edge, Scalar(last), next));
    TRYT(p1, tgc::select(edge, low, p0));
    TRYT(wHigh, tgc::sub(p1, low));
    TRYT(wLow, tgc::sub(Scalar(1.0), wHigh));
    TRYT(lowI, tgc::cast(low, DType::I64));
    TRYT(highI, tgc::cast(high, DType::I64));
    return Axis{lowI, highI, wLow, wHigh, valid};
  };
  TRY(ys, samples(1, h, outH));
  TRY(xs, samples(0, w, outW));
  const int64_t ky = outH * ratio, kx = outW * ratio;
  // Each roi's image, flattened; the base index of (roi, channel).
  Tensor batch = batchIndices;
  if (batch.dtype() != DType::I64) {
    TRYT(cast, tgc::cast(batch, DType::I64));
    batch = cast;
  }
  // Gathers read X flattened: (roi's image, channel) starts at
  // (batch[roi] * c + channel) * h * w.
  TRYT(flat, tgc::reshape(x, {n * c * h * w}));
  auto channelBases = HostTensor::allocate(DType::I64, {1, c, 1, 1});
  if (!channelBases.ok())
    return im.fail(std::string(channelBases.status().message()));
  for (int64_t i = 0; i < c; ++i)
    channelBases->setInt(i, i * h * w);
  TRYT(imageBase0, tgc::reshape(batch, {r, 1, 1, 1}));
  TRYT(imageBase, tgc::mul(imageBase0, Scalar(c * h * w)));
  TRYT(base, tgc::add(imageBase, im.constantTensor(*channelBases)));
  auto corner = [&](const Tensor &yi, const Tensor &wy, const Tensor &xi,
                    const Tensor &wx) -> llvm::Expected<Tensor> {
    TRYT(row, tgc::reshape(yi, {r, 1, ky, 1}));
    TRYT(column, tgc::reshape(xi, {r, 1, 1, kx}));
    TRYT(rowOffset, tgc::mul(row, Scalar(w)));
    TRYT(spatial, tgc::add(rowOffset, column));
    TRYT(index, tgc::add(base, spatial));
    TRYT(values, tgc::gather(flat, index, 0));
    TRYT(wyB, tgc::reshape(wy, {r, 1, ky, 1}));
    TRYT(wxB, tgc::reshape(wx, {r, 1, 1, kx}));
    TRYT(weight, tgc::mul(wyB, wxB));
    TRYT(weighted, tgc::mul(values, weight));
    return weighted;
  };
  TRY(a, corner(ys.low, ys.wLow, xs.low, xs.wLow));
  TRY(b, corner(ys.low, ys.wLow, xs.high, xs.wHigh));
  TRY(cc, corner(ys.high, ys.wHigh, xs.low, xs.wLow));
  TRY(d, corner(ys.high, ys.wHigh, xs.high, xs.wHigh));
  TRYT(ab, tgc::add(a, b));
  TRYT(cd, tgc::add(cc, d));
  TRYT(sum, tgc::add(ab, cd));
  TRYT(validY, tgc::reshape(ys.valid, {r, 1, ky, 1}));
  TRYT(validX, tgc::reshape(xs.valid, {r, 1, 1, kx}));
  TRYT(valid, tgc::mul(validY, validX));
  TRYT(masked, tgc::mul(sum, valid));
  TRYT(bins, tgc::reshape(masked, {r, c, outH, ratio, outW, ratio}));
  TRYT(y, tgc::reduceMean(bins, {3, 5}, /*keepdims=*/false));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convGlobalPool(Importer &im) {
  TRY(x, im.in(0));
  bool isMax = im.node().op_type() == "GlobalMaxPool";
  if (x.rank() < 3)
    return im.fail("input " + x.describe() + " must have rank >= 3");
  if (!isMax && x.rank() == 4) {
    TRYT(y, tgc::globalAvgPool2d(x));
    im.out(0, y);
    return llvm::Error::success();
  }
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < x.rank(); ++d)
    axes.push_back(d);
  TRYT(y,
       isMax ? tgc::reduceMax(x, axes, true) : tgc::reduceMean(x, axes, true));
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// BatchNormalization's scale, bias, mean and variance (inputs 1 to 4) in
/// the input's dtype.
llvm::Expected<std::vector<Tensor>> batchNormParams(Importer &im,
                                                    const Tensor &x) {
  std::vector<Tensor> params;
  for (int i = 1; i <= 4; ++i) {
    TRY(p, im.in(i));
    Tensor t = p;
    if (p.dtype() != x.dtype()) {
      TRYT(c, tgc::cast(p, x.dtype()));
      t = c;
    }
    params.push_back(t);
  }
  return params;
}

/// BatchNormalization in training mode (opset 14+): normalized with the
/// batch's mean and (population) variance over every dim but the
/// channels; outputs 1 and 2 are the running statistics, input * momentum
/// + batch * (1 - momentum).
llvm::Error batchNormTraining(Importer &im, const Tensor &x) {
  if (x.rank() < 2)
    return im.fail("input " + x.describe() + " must have rank >= 2");
  TRY(eps, im.attrFloat("epsilon", 1e-5));
  TRY(momentum, im.attrFloat("momentum", 0.9));
  std::vector<int64_t> axes = {0}, channelShape = {-1};
  for (int64_t d = 2; d < x.rank(); ++d) {
    axes.push_back(d);
    channelShape.push_back(1);
  }
  TRY(params, batchNormParams(im, x));
  TRYT(mean, tgc::reduceMean(x, axes, /*keepdims=*/true));
  TRYT(centered, tgc::sub(x, mean));
  TRYT(square, tgc::mul(centered, centered));
  TRYT(var, tgc::reduceMean(square, axes, /*keepdims=*/true));
  TRYT(shifted, tgc::add(var, Scalar(eps)));
  TRYT(inv, tgc::rsqrt(shifted));
  TRYT(scale, tgc::reshape(params[0], channelShape));
  TRYT(bias, tgc::reshape(params[1], channelShape));
  TRYT(normalized, tgc::mul(centered, inv));
  TRYT(scaled, tgc::mul(normalized, scale));
  TRYT(y, tgc::add(scaled, bias));
  im.out(0, y);
  // Running statistics, per channel.
  TRYT(batchMean, tgc::reshape(mean, {-1}));
  TRYT(batchVar, tgc::reshape(var, {-1}));
  auto running = [&](const Tensor &old,
                     const Tensor &batch) -> llvm::Expected<Tensor> {
    TRYT(a, tgc::mul(old, Scalar(momentum)));
    TRYT(b, tgc::mul(batch, Scalar(1.0 - momentum)));
    TRYT(sum, tgc::add(a, b));
    return sum;
  };
  TRY(runningMean, running(params[2], batchMean));
  TRY(runningVar, running(params[3], batchVar));
  im.out(1, runningMean);
  im.out(2, runningVar);
  return llvm::Error::success();
}

llvm::Error convBatchNorm(Importer &im) {
  TRY(x, im.in(0));
  TRY(training, im.attrInt("training_mode", 0));
  if (training != 0)
    return batchNormTraining(im, x);
  for (int i = 1; i < im.node().output_size(); ++i)
    if (im.wantsOutput(i))
      return im.fail("the training outputs (running statistics) are not "
                     "supported");
  TRY(eps, im.attrFloat("epsilon", 1e-5));
  TRY(params, batchNormParams(im, x));
  TRYT(y,
       tgc::batchNorm(x, params[0], params[1], params[2], params[3], eps, 1));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convInstanceNorm(Importer &im) {
  TRY(x, im.in(0));
  TRY(scale, im.in(1));
  TRY(bias, im.in(2));
  TRY(eps, im.attrFloat("epsilon", 1e-5));
  if (x.rank() < 3)
    return im.fail("input " + x.describe() + " must have rank >= 3");
  std::vector<int64_t> axes, paramShape = {kDynamic};
  for (int64_t d = 2; d < x.rank(); ++d) {
    axes.push_back(d);
    paramShape.push_back(1);
  }
  TRYT(mean, tgc::reduceMean(x, axes, true));
  TRYT(centered, tgc::sub(x, mean));
  TRYT(sq, tgc::mul(centered, centered));
  TRYT(var, tgc::reduceMean(sq, axes, true));
  TRYT(ve, tgc::add(var, Scalar(eps)));
  TRYT(inv, tgc::rsqrt(ve));
  TRYT(normed, tgc::mul(centered, inv));
  TRY(s, im.reshapeTo(scale, paramShape));
  TRY(b, im.reshapeTo(bias, paramShape));
  TRYT(scaled, tgc::mul(normed, s));
  TRYT(y, tgc::add(scaled, b));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convLayerNorm(Importer &im) {
  TRY(x, im.in(0));
  TRY(axis, im.axisAttr("axis", -1, x.rank()));
  TRY(eps, im.attrFloat("epsilon", 1e-5));
  std::vector<int64_t> xShape = x.shape();
  std::vector<int64_t> normShape(xShape.begin() + axis, xShape.end());
  auto fit = [&](int i) -> llvm::Expected<std::optional<Tensor>> {
    if (!im.has(i))
      return std::optional<Tensor>();
    TRY(p, im.in(i));
    Tensor t = p;
    if (t.dtype() != x.dtype()) {
      TRYT(c, tgc::cast(t, x.dtype()));
      t = c;
    }
    if (t.shape() != normShape) {
      if (llvm::is_contained(normShape, kDynamic))
        return im.fail("input #" + llvm::Twine(i) + " " + p.describe() +
                       " must have the normalized shape " + listOf(normShape));
      TRYT(bc, tgc::broadcastTo(t, normShape));
      t = bc;
    }
    return std::optional<Tensor>(t);
  };
  TRY(scale, fit(1));
  TRY(bias, fit(2));
  TRYT(y, tgc::layerNorm(x, scale, bias, axis, eps));
  im.out(0, y);
  if (im.wantsOutput(1) || im.wantsOutput(2)) {
    std::vector<int64_t> axes;
    for (int64_t d = axis; d < x.rank(); ++d)
      axes.push_back(d);
    TRYT(mean, tgc::reduceMean(x, axes, true));
    TRYT(centered, tgc::sub(x, mean));
    TRYT(sq, tgc::mul(centered, centered));
    TRYT(var, tgc::reduceMean(sq, axes, true));
    TRYT(ve, tgc::add(var, Scalar(eps)));
    TRYT(inv, tgc::rsqrt(ve));
    im.out(1, mean);
    im.out(2, inv);
  }
  return llvm::Error::success();
}

llvm::Error convLpNorm(Importer &im) {
  TRY(x, im.in(0));
  TRY(axis, im.axisAttr("axis", -1, x.rank()));
  TRY(p, im.attrInt("p", 2));
  if (p != 1 && p != 2)
    return im.fail("attribute 'p' must be 1 or 2, not " + llvm::Twine(p));
  Tensor norm;
  if (p == 1) {
    TRYT(a, tgc::abs(x));
    TRYT(s, tgc::reduceSum(a, {axis}, true));
    norm = s;
  } else {
    TRYT(sq, tgc::mul(x, x));
    TRYT(s, tgc::reduceSum(sq, {axis}, true));
    TRYT(r, tgc::sqrt(s));
    norm = r;
  }
  TRYT(y, tgc::div(x, norm));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convMeanVarianceNorm(Importer &im) {
  TRY(x, im.in(0));
  TRY(axesAttr, im.attrInts("axes"));
  std::vector<int64_t> axes = axesAttr.value_or(std::vector<int64_t>{0, 2, 3});
  TRYT(mean, tgc::reduceMean(x, axes, true));
  TRYT(meanSq, tgc::mul(mean, mean));
  TRYT(sq, tgc::mul(x, x));
  TRYT(sqMean, tgc::reduceMean(sq, axes, true));
  TRYT(var, tgc::sub(sqMean, meanSq));
  TRYT(stddev, tgc::sqrt(var));
  TRYT(centered, tgc::sub(x, mean));
  TRYT(den, tgc::add(stddev, Scalar(1e-9)));
  TRYT(y, tgc::div(centered, den));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convLRN(Importer &im) {
  TRY(x, im.in(0));
  TRY(sizeAttr, im.attrInt("size"));
  if (!sizeAttr)
    return im.fail("attribute 'size' is required");
  if (*sizeAttr < 1)
    return im.fail("attribute 'size' must be >= 1, not " +
                   llvm::Twine(*sizeAttr));
  TRY(alpha, im.attrFloat("alpha", 1e-4));
  TRY(beta, im.attrFloat("beta", 0.75));
  TRY(bias, im.attrFloat("bias", 1.0));
  if (!runtime::isFloatDType(x.dtype()))
    return im.fail("the input " + x.describe() + " must be floating-point");
  if (x.rank() < 2)
    return im.fail("the input " + x.describe() +
                   " must have rank >= 2 (N x C x D1 x ...)");
  std::optional<int64_t> channels = x.dim(1);
  if (!channels)
    return im.unsupported("LRN needs a static channel dim, not " +
                          x.describe());
  int64_t size = *sizeAttr, c = *channels;
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  TRYT(sq, tgc::mul(x, x));
  // The mean of the squares over the channel window [c - lo, c + hi], zero
  // outside: an average pool over [N, 1, C, rest] when the shape is static,
  // else a sum of shifted slices (then alpha / size scales the sum).
  Tensor mean;
  if (x.hasStaticShape()) {
    std::vector<int64_t> shape = x.shape();
    int64_t rest = 1;
    for (int64_t d = 2; d < x.rank(); ++d)
      rest *= shape[d];
    TRY(r, im.reshapeTo(sq, {shape[0], 1, c, rest}));
    Pool2DOptions opts;
    opts.kernel = {size, 1};
    opts.padding = {lo, 0, hi, 0};
    opts.countIncludePad = true;
    TRYT(pooled, tgc::avgPool2d(r, opts));
    TRY(back, im.reshapeTo(pooled, shape));
    mean = back;
  } else {
    std::vector<int64_t> low(x.rank(), 0), high(x.rank(), 0);
    low[1] = lo;
    high[1] = hi;
    TRYT(padded, tgc::pad(sq, low, high));
    Tensor sum;
    for (int64_t k = 0; k < size; ++k) {
      std::vector<int64_t> starts(x.rank(), 0),
          ends(x.rank(), std::numeric_limits<int64_t>::max());
      starts[1] = k;
      ends[1] = k + c;
      TRYT(part, tgc::slice(padded, starts, ends));
      if (sum.valid()) {
        TRYT(s, tgc::add(sum, part));
        sum = s;
      } else {
        sum = part;
      }
    }
    mean = sum;
    alpha /= static_cast<double>(size);
  }
  TRYT(scaled, tgc::mul(mean, Scalar(alpha)));
  TRYT(shifted, tgc::add(scaled, Scalar(bias)));
  TRYT(den, tgc::pow(shifted, Scalar(beta)));
  TRYT(y, tgc::div(x, den));
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

/// Dropout in inference mode: the identity, and an all-true mask when the
/// node wants it.
llvm::Error dropoutIdentity(Importer &im, const Tensor &x) {
  TRY(isTest, im.attrInt("is_test", 1));
  (void)isTest;
  im.out(0, x);
  if (im.wantsOutput(1)) {
    if (!x.hasStaticShape())
      return im.unsupported("the mask output needs a static shape");
    TRYT(mask, tgc::full(x.shape(), Scalar(1), DType::I1));
    im.out(1, mask);
  }
  return llvm::Error::success();
}

/// Dropout before opset 12: always in inference mode.
llvm::Error convDropoutV1(Importer &im) {
  TRY(x, im.in(0));
  return dropoutIdentity(im, x);
}

/// Dropout from opset 12: the optional training_mode (input #2) must be a
/// constant, and training mode is supported only with ratio 0.
llvm::Error convDropoutV12(Importer &im) {
  TRY(x, im.in(0));
  if (im.has(2)) {
    TRY(training, im.constIn(2));
    if (!training)
      return im.unsupported("a non-constant training_mode is not supported");
    if (training->numElements() != 1)
      return im.fail("training_mode (input #2) must have one element, not " +
                     llvm::Twine(training->numElements()));
    // Training mode drops each element with probability `ratio` (default
    // 0.5) and scales the rest by 1 / (1 - ratio): random unless the ratio
    // is 0, where it is the identity (PyTorch exports attention dropout
    // of p = 0 this way, e.g. torchvision's Swin).
    if (training->getInt(0) != 0) {
      double ratio = 0.5;
      if (im.has(1)) {
        TRY(r, im.constIn(1));
        if (!r)
          return im.unsupported("training mode (training_mode = true) with a "
                                "non-constant ratio is not supported");
        if (r->numElements() != 1)
          return im.fail("ratio (input #1) must have one element, not " +
                         llvm::Twine(r->numElements()));
        ratio = r->getDouble(0);
      }
      if (ratio != 0)
        return im.unsupported(
            "training mode (training_mode = true) with ratio " +
            llvm::Twine(llvm::formatv("{0}", ratio).str()) +
            " is random: only ratio 0 (the identity) is "
            "supported");
    }
  }
  return dropoutIdentity(im, x);
}

} // namespace

/// MaxUnpool: zeros of the output shape (output_shape when given, else
/// (in - 1) * stride + kernel - pads per spatial dim) with X's values at
/// the flat positions I holds (MaxPool's Indices).
llvm::Error convMaxUnpool(Importer &im) {
  TRY(x, im.in(0));
  TRY(indices, im.in(1));
  if (!x.hasStaticShape() || x.rank() < 3 || indices.shape() != x.shape())
    return im.unsupported("MaxUnpool needs static X and I of one shape, of "
                          "rank 3 or more; got " +
                          x.describe() + " and " + indices.describe());
  int64_t spatial = x.rank() - 2;
  TRY(kernel, im.attrInts("kernel_shape"));
  if (!kernel || static_cast<int64_t>(kernel->size()) != spatial)
    return im.fail("needs kernel_shape with one size per spatial dim");
  TRY(stridesAttr, im.attrInts("strides"));
  TRY(padsAttr, im.attrInts("pads"));
  std::vector<int64_t> strides =
      stridesAttr ? *stridesAttr : std::vector<int64_t>(spatial, 1);
  std::vector<int64_t> pads =
      padsAttr ? *padsAttr : std::vector<int64_t>(2 * spatial, 0);
  if (static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial)
    return im.fail("strides and pads must have one (two) entries per "
                   "spatial dim");
  std::vector<int64_t> in = x.shape(), out = in;
  for (int64_t d = 0; d < spatial; ++d)
    out[2 + d] = (in[2 + d] - 1) * strides[d] + (*kernel)[d] - pads[d] -
                 pads[spatial + d];
  // I indexes the unpooled shape; a larger output_shape places it at the
  // start of each dim.
  std::vector<int64_t> unpooled = out;
  if (im.has(2)) {
    TRY(given, im.constInts(2, "output_shape"));
    if (static_cast<int64_t>(given.size()) != x.rank())
      return im.fail("output_shape must have one size per dim of X");
    for (int64_t d = 0; d < x.rank(); ++d)
      if (d < 2 ? given[d] != in[d] : given[d] < out[d])
        return im.fail("output_shape " + listOf(given) +
                       " is smaller than the unpooled shape " + listOf(out));
    out = given;
  }
  int64_t total = 1;
  for (int64_t d : out) {
    if (d < 0 || (d && total > std::numeric_limits<int64_t>::max() / d))
      return im.fail("the output shape " + listOf(out) + " is too large");
    total *= d;
  }
  Tensor idx = indices;
  if (idx.dtype() != DType::I64) {
    TRYT(c, tgc::cast(idx, DType::I64));
    idx = c;
  }
  if (out != unpooled) {
    // Re-flatten: the coordinates in `unpooled`, then offsets in `out`.
    std::vector<int64_t> outStrides = runtime::rowMajorStrides(out);
    Tensor rest = idx, linear;
    for (int64_t d = x.rank(); d-- > 0;) {
      TRYT(quotient, tgc::div(rest, Scalar(unpooled[d])));
      TRYT(back, tgc::mul(quotient, Scalar(unpooled[d])));
      TRYT(coord, tgc::sub(rest, back));
      TRYT(term, tgc::mul(coord, Scalar(outStrides[d])));
      if (linear.valid()) {
        TRYT(sum, tgc::add(linear, term));
        linear = sum;
      } else {
        linear = term;
      }
      rest = quotient;
    }
    idx = linear;
  }
  TRYT(zeros, tgc::full({total}, Scalar(0), x.dtype()));
  TRYT(where, tgc::reshape(idx, {*x.numElements(), 1}));
  TRYT(values, tgc::reshape(x, {*x.numElements()}));
  TRYT(flat, tgc::scatterND(zeros, where, values, "none"));
  TRYT(y, tgc::reshape(flat, out));
  im.out(0, y);
  return llvm::Error::success();
}

void onnximpl::registerNNConverters(ConverterTable &table) {
  table.add("MaxUnpool", 1, convMaxUnpool);
  table.add("Conv", 1, convConv);
  table.add("ConvTranspose", 1, convConvTranspose);
  table.add("MaxPool", 1, convPool);
  table.add("RoiAlign", 10, convRoiAlign);
  table.add("AveragePool", 1, convPool);
  table.add("GlobalMaxPool", 1, convGlobalPool);
  table.add("GlobalAveragePool", 1, convGlobalPool);
  table.add("BatchNormalization", 1, convBatchNorm);
  table.add("InstanceNormalization", 1, convInstanceNorm);
  table.add("LayerNormalization", 1, convLayerNorm);
  table.add("LpNormalization", 1, convLpNorm);
  table.add("MeanVarianceNormalization", 1, convMeanVarianceNorm);
  table.add("LRN", 1, convLRN);
  table.add("Dropout", 1, convDropoutV1);
  table.add("Dropout", 12, convDropoutV12);
}
