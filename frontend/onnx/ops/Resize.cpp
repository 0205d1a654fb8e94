//===- Resize.cpp - Resize and Upsample -----------------------------------===//
//
// Converters of Resize and Upsample (every mode and coordinate
// transformation): one separable gather-and-weight step per resized axis,
// planned at import time after the ONNX reference implementation.
//
//===----------------------------------------------------------------------===//

#include "dialects/TgcOps.h"
#include "frontend/onnx/ImporterInternal.h"

#include <algorithm>
#include <array>
#include <cmath>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

namespace resize {

/// How Resize maps output coordinates of one axis to the input.
struct Params {
  std::string mode;        // nearest, linear, cubic
  std::string coordMode;   // coordinate_transformation_mode
  std::string nearestMode; // nearest_mode, or "simple" (Upsample, Resize-10)
  double cubicA = -0.75;
  bool excludeOutside = false;
};

/// One resized axis: output position o reads the input at index[o * taps + k]
/// (already clamped into the input) with weight[o * taps + k], or is the
/// extrapolation value when outside[o].
struct AxisPlan {
  int64_t outSize = 0;
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<uint8_t> outside;
  bool anyOutside() const { return llvm::is_contained(outside, 1); }
};

/// The plan of one axis, following the ONNX reference implementation
/// (onnx/backend/test/case/node/resize.py): per output coordinate the source
/// coordinate, the `n` neighbours nearest to it in the edge-padded input
/// (ties to the left, so the ratio is in (0, 1]) and their coefficients.
AxisPlan planAxis(const Params &p, int64_t inSize, int64_t outSize,
                  double scale, float roiStart, float roiEnd) {
  AxisPlan plan;
  plan.outSize = outSize;
  double outWidth = scale * static_cast<double>(inSize);
  double inLast = static_cast<double>(inSize - 1);
  bool nearest = p.mode == "nearest";
  int64_t n = p.mode == "cubic" ? 4 : 2;
  plan.taps = nearest ? 1 : n;
  for (int64_t o = 0; o < outSize; ++o) {
    double x = static_cast<double>(o);
    if (p.nearestMode == "simple") {
      // Upsample and Resize-10 (as onnxruntime): asymmetric, floor when
      // upsampling and ceil when downsampling.
      double xo = x / scale;
      int64_t i =
          static_cast<int64_t>(scale < 1 ? std::ceil(xo) : std::floor(xo));
      plan.index.push_back(std::clamp<int64_t>(i, 0, inSize - 1));
      plan.weight.push_back(1);
      plan.outside.push_back(0);
      continue;
    }
    double xo = 0;
    bool outside = false;
    const std::string &c = p.coordMode;
    if (c == "align_corners") {
      xo = outWidth == 1 ? 0.0 : x * inLast / (outWidth - 1);
    } else if (c == "asymmetric") {
      xo = x / scale;
    } else if (c == "tf_crop_and_resize") {
      // The reference subtracts the two float roi values in float.
      double extent = static_cast<float>(roiEnd - roiStart);
      xo = outWidth == 1 ? extent * inLast / 2
                         : x * extent * inLast / (outWidth - 1);
      xo += static_cast<double>(roiStart) * inLast;
      outside = xo < 0 || xo > inLast;
    } else if (c == "pytorch_half_pixel") {
      xo = outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    } else if (c == "tf_half_pixel_for_nn") {
      xo = (x + 0.5) / scale;
    } else if (c == "half_pixel_symmetric") {
      double adjustment = static_cast<double>(outSize) / outWidth;
      double center = static_cast<double>(inSize) / 2;
      xo = center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
    } else { // half_pixel
      xo = (x + 0.5) / scale - 0.5;
    }
    if (outside) {
      for (int64_t k = 0; k < plan.taps; ++k) {
        plan.index.push_back(0);
        plan.weight.push_back(0);
      }
      plan.outside.push_back(1);
      continue;
    }
    double base = std::floor(xo);
    double ratio = xo - base;
    if (ratio == 0) { // Prefer the pixel on the left: ratio in (0, 1].
      base -= 1;
      ratio = 1;
    }
    std::vector<double> coeffs;
    if (p.mode == "nearest") {
      bool right;
      if (ratio == 1 || p.nearestMode == "ceil")
        right = true;
      else if (p.nearestMode == "floor")
        right = false;
      else if (p.nearestMode == "round_prefer_ceil")
        right = ratio >= 0.5;
      else // round_prefer_floor
        right = ratio > 0.5;
      coeffs = {right ? 0.0 : 1.0, right ? 1.0 : 0.0};
    } else if (p.mode == "linear") {
      coeffs = {1 - ratio, ratio};
    } else {
      double a = p.cubicA, r = ratio, s = 1 - ratio;
      coeffs = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                ((a + 2) * r - (a + 3)) * r * r + 1,
                ((a + 2) * s - (a + 3)) * s * s + 1,
                ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
    }
    // The n nearest indices of the input padded by ceil(n / 2) on each side.
    int64_t pad = (n + 1) / 2;
    int64_t start = static_cast<int64_t>(base) - (n == 4 ? 1 : 0);
    start = std::clamp<int64_t>(start, -pad, inSize + pad - n);
    if (p.excludeOutside) {
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (start + k < 0 || start + k >= inSize)
          coeffs[k] = 0;
        sum += coeffs[k];
      }
      if (sum != 0)
        for (double &w : coeffs)
          w /= sum;
    }
    if (nearest) {
      int64_t best = coeffs[1] > coeffs[0] ? 1 : 0;
      plan.index.push_back(std::clamp<int64_t>(start + best, 0, inSize - 1));
      plan.weight.push_back(1);
    } else {
      for (int64_t k = 0; k < n; ++k) {
        plan.index.push_back(std::clamp<int64_t>(start + k, 0, inSize - 1));
        plan.weight.push_back(coeffs[k]);
      }
    }
    plan.outside.push_back(0);
  }
  // One weight 1 per position (integer source coordinates): a plain gather.
  if (plan.taps > 1 && !plan.anyOutside()) {
    bool single = true;
    std::vector<int64_t> picked;
    for (int64_t o = 0; single && o < outSize; ++o) {
      int64_t at = -1;
      for (int64_t k = 0; k < plan.taps; ++k) {
        double w = plan.weight[o * plan.taps + k];
        if (w == 1 && at < 0)
          at = k;
        else if (w != 0)
          single = false;
      }
      single &= at >= 0;
      if (single)
        picked.push_back(plan.index[o * plan.taps + at]);
    }
    if (single) {
      plan.taps = 1;
      plan.index = picked;
      plan.weight.assign(outSize, 1);
    }
  }
  return plan;
}

/// Whether the plan maps every position to itself.
bool isIdentity(const AxisPlan &plan, int64_t inSize) {
  if (plan.taps != 1 || plan.outSize != inSize || plan.anyOutside())
    return false;
  for (int64_t o = 0; o < plan.outSize; ++o)
    if (plan.index[o] != o)
      return false;
  return true;
}

} // namespace resize

/// What a Resize or Upsample node asks for, read in the form of its opset.
struct ResizeRequest {
  resize::Params p;
  double extrapolation = 0;
  std::string policy = "stretch";
  /// The resized axes.
  std::vector<int64_t> axes;
  /// Per resized axis: the scales, or the output sizes.
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  /// Sizes the function computes (none known before it runs).
  std::optional<Tensor> computedSizes;
};

/// The attribute 'mode' of Upsample and of Resize before opset 11 (nearest
/// or linear, on asymmetric coordinates).
llvm::Error readLegacyMode(Importer &im, ResizeRequest &r) {
  TRY(mode, im.attrString("mode", "nearest"));
  r.p.mode = mode;
  if (mode != "nearest" && mode != "linear")
    return im.fail("attribute 'mode' must be nearest or linear, not '" + mode +
                   "'");
  r.p.coordMode = "asymmetric";
  r.p.nearestMode = mode == "nearest" ? "simple" : "";
  return llvm::Error::success();
}

/// The attributes of Resize from opset 11: mode,
/// coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
/// exclude_outside and extrapolation_value.
llvm::Error readResizeAttributes(Importer &im, ResizeRequest &r) {
  resize::Params &p = r.p;
  TRY(mode, im.attrString("mode", "nearest"));
  p.mode = mode;
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return im.fail("attribute 'mode' must be nearest, linear or cubic, not '" +
                   mode + "'");
  TRY(coordMode, im.attrString("coordinate_transformation_mode", "half_pixel"));
  static const llvm::StringRef coordModes[] = {
      "half_pixel",        "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners",     "asymmetric",           "tf_half_pixel_for_nn",
      "tf_crop_and_resize"};
  if (!llvm::is_contained(coordModes, coordMode))
    return im.fail("attribute 'coordinate_transformation_mode' must be "
                   "half_pixel, half_pixel_symmetric, pytorch_half_pixel, "
                   "align_corners, asymmetric, tf_half_pixel_for_nn or "
                   "tf_crop_and_resize, not '" +
                   coordMode + "'");
  p.coordMode = coordMode;
  TRY(nearestMode, im.attrString("nearest_mode", "round_prefer_floor"));
  if (nearestMode != "round_prefer_floor" &&
      nearestMode != "round_prefer_ceil" && nearestMode != "floor" &&
      nearestMode != "ceil")
    return im.fail("attribute 'nearest_mode' must be round_prefer_floor, "
                   "round_prefer_ceil, floor or ceil, not '" +
                   nearestMode + "'");
  p.nearestMode = nearestMode;
  TRY(cubicA, im.attrFloat("cubic_coeff_a", -0.75));
  p.cubicA = cubicA;
  TRY(exclude, im.attrInt("exclude_outside", 0));
  if (exclude != 0 && exclude != 1)
    return im.fail("attribute 'exclude_outside' must be 0 or 1, not " +
                   llvm::Twine(exclude));
  p.excludeOutside = exclude == 1;
  TRY(extrap, im.attrFloat("extrapolation_value", 0.0));
  r.extrapolation = extrap;
  return llvm::Error::success();
}

/// The attributes Resize has from opset 18: antialias (0 only),
/// keep_aspect_ratio_policy and axes.
llvm::Error readResizeAttributesV18(Importer &im, ResizeRequest &r,
                                    int64_t rank) {
  TRY(antialias, im.attrInt("antialias", 0));
  if (antialias != 0)
    return im.unsupported("Resize with antialias = " + llvm::Twine(antialias) +
                          " is not supported");
  TRY(policyAttr, im.attrString("keep_aspect_ratio_policy", "stretch"));
  if (policyAttr != "stretch" && policyAttr != "not_larger" &&
      policyAttr != "not_smaller")
    return im.fail("attribute 'keep_aspect_ratio_policy' must be stretch, "
                   "not_larger or not_smaller, not '" +
                   policyAttr + "'");
  r.policy = policyAttr;
  TRY(axesAttr, im.attrInts("axes"));
  if (axesAttr) {
    for (int64_t a : *axesAttr) {
      TRY(axis, im.normalizeAxis(a, rank));
      if (llvm::is_contained(r.axes, axis))
        return im.fail("attribute 'axes' " + listOf(*axesAttr) +
                       " has a duplicate");
      r.axes.push_back(axis);
    }
  }
  return llvm::Error::success();
}

/// Every axis of `x` unless the node names some; only nearest resizes
/// integers.
llvm::Error checkAxesAndType(Importer &im, const Tensor &x, ResizeRequest &r) {
  if (r.axes.empty())
    for (int64_t d = 0; d < x.rank(); ++d)
      r.axes.push_back(d);
  if (r.p.mode != "nearest" && !runtime::isFloatDType(x.dtype()))
    return im.unsupported(r.p.mode + " Resize of a " + x.describe() +
                          " input is not supported (only floating-point)");
  return llvm::Error::success();
}

/// Input `i` (scales or sizes) as a constant of one value per resized axis,
/// or null when it is absent or empty.
llvm::Expected<std::shared_ptr<HostTensor>>
readPerAxisInput(Importer &im, const ResizeRequest &r, int i,
                 llvm::StringRef what) {
  int64_t numAxes = static_cast<int64_t>(r.axes.size());
  if (!im.has(i))
    return nullptr;
  TRY(value, im.constIn(i));
  if (!value)
    return im.unsupported(what + " (input #" + llvm::Twine(i) +
                          ") must be a constant (an initializer or computed "
                          "from constants); a dynamic " +
                          what + " is not supported");
  if (value->numElements() == 0)
    return nullptr;
  if (value->numElements() != numAxes)
    return im.fail(what + " (input #" + llvm::Twine(i) + ") has " +
                   llvm::Twine(value->numElements()) + " values; " +
                   llvm::Twine(numAxes) + " expected");
  return value;
}

/// The scales as input `i` (Upsample from opset 9: #1, Resize: #1 before
/// opset 11, #2 from then on).
llvm::Error readScalesInput(Importer &im, ResizeRequest &r, int i) {
  TRY(scalesValue, readPerAxisInput(im, r, i, "scales"));
  if (scalesValue) {
    if (!runtime::isFloatDType(scalesValue->dtype()))
      return im.fail("scales must be floating-point");
    for (int64_t k = 0; k < static_cast<int64_t>(r.axes.size()); ++k)
      r.scales.push_back(scalesValue->getDouble(k));
  }
  return llvm::Error::success();
}

/// The sizes as input #3 (Resize from opset 11), exclusive with the scales.
/// Sizes the function computes are taken as constants where every element
/// is known before it runs (the static dims read with Shape), else as a
/// tensor (computedSizes).
llvm::Error readSizesInput(Importer &im, ResizeRequest &r) {
  if (im.has(3)) {
    TRY(known, im.constIn(3));
    if (!known) {
      if (!r.scales.empty())
        return im.fail("only one of scales and sizes may be given");
      TRY(sizes, im.in(3));
      auto numAxes = static_cast<int64_t>(r.axes.size());
      if (sizes.rank() != 1 || sizes.dim(0) != numAxes ||
          sizes.dtype() != DType::I64)
        return im.fail("sizes (input #3) must be " + llvm::Twine(numAxes) +
                       " i64 values, not " + sizes.describe());
      auto elements = knownIntElements(valueOf(sizes));
      if (elements && llvm::all_of(*elements, [](std::optional<int64_t> v) {
            return v.has_value();
          })) {
        for (std::optional<int64_t> v : *elements)
          r.sizes.push_back(*v);
        return llvm::Error::success();
      }
      r.computedSizes = sizes;
      return llvm::Error::success();
    }
  }
  TRY(sizesValue, readPerAxisInput(im, r, 3, "sizes"));
  if (sizesValue) {
    if (!r.scales.empty())
      return im.fail("only one of scales and sizes may be given");
    if (runtime::isFloatDType(sizesValue->dtype()) ||
        sizesValue->dtype() == DType::I1)
      return im.fail("sizes must be integers");
    for (int64_t k = 0; k < static_cast<int64_t>(r.axes.size()); ++k)
      r.sizes.push_back(sizesValue->getInt(k));
  }
  return llvm::Error::success();
}

/// The cubic convolution weights of the taps at offsets -1, 0, 1, 2 for
/// the fraction `t` (the coefficient `a`: -0.75 as PyTorch, ONNX's
/// cubic_coeff_a).
llvm::Expected<std::array<Tensor, 4>>
cubicWeights(Importer &im, const Tensor &t, double a = -0.75) {
  // w(d) = ((a+2)|d| - (a+3))|d|^2 + 1 for |d| <= 1,
  //        ((a|d| - 5a)|d| + 8a)|d| - 4a for 1 < |d| < 2.
  auto near = [&](const Tensor &d) -> llvm::Expected<Tensor> {
    TRYT(p, tgc::mul(d, Scalar(a + 2)));
    TRYT(q, tgc::sub(p, Scalar(a + 3)));
    TRYT(d2, tgc::mul(d, d));
    TRYT(r, tgc::mul(q, d2));
    TRYT(s, tgc::add(r, Scalar(1.0)));
    return s;
  };
  auto far = [&](const Tensor &d) -> llvm::Expected<Tensor> {
    TRYT(p, tgc::mul(d, Scalar(a)));
    TRYT(q, tgc::sub(p, Scalar(5 * a)));
    TRYT(r, tgc::mul(q, d));
    TRYT(s, tgc::add(r, Scalar(8 * a)));
    TRYT(u, tgc::mul(s, d));
    TRYT(v, tgc::sub(u, Scalar(4 * a)));
    return v;
  };
  TRYT(t1, tgc::add(t, Scalar(1.0)));
  TRYT(oneMinus, tgc::sub(Scalar(1.0), t));
  TRYT(twoMinus, tgc::sub(Scalar(2.0), t));
  TRY(w0, far(t1));
  TRY(w1, near(t));
  TRY(w2, near(oneMinus));
  TRY(w3, far(twoMinus));
  return std::array<Tensor, 4>{w0, w1, w2, w3};
}
/// `x` resized to sizes the function computes (`r.computedSizes`), one
/// separable step per axis with the positions and weights computed in the
/// graph (the same formulas as resize::planAxis; once the shapes are known
/// they fold to the constant tables). Nearest (every nearest_mode), linear
/// and cubic (any cubic_coeff_a; exclude_outside or not) on half_pixel,
/// pytorch_half_pixel, align_corners and asymmetric coordinates.
llvm::Error resizeToComputedSizes(Importer &im, const Tensor &x,
                                  const ResizeRequest &r) {
  const resize::Params &p = r.p;
  static const llvm::StringRef coordModes[] = {
      "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"};
  if (!llvm::is_contained(coordModes, p.coordMode) ||
      p.nearestMode == "simple" || r.policy != "stretch")
    return im.unsupported(
        "a Resize to sizes computed when the function runs supports the "
        "half_pixel, pytorch_half_pixel, align_corners and asymmetric "
        "coordinate transformations with the stretch policy, not '" +
        p.coordMode + "'" +
        (r.policy != "stretch" ? " with '" + r.policy + "'" : std::string()));
  int64_t rank = x.rank();
  Tensor y = x;
  auto elements = knownIntElements(valueOf(*r.computedSizes));
  for (auto [k, axis] : llvm::enumerate(r.axes)) {
    std::optional<int64_t> known =
        elements ? (*elements)[k] : std::optional<int64_t>();
    if (known && x.dim(axis) && *known == *x.dim(axis))
      continue; // the same size: the identity on these transformations
    TRYT(kth, tgc::gather(
                  *r.computedSizes,
                  tgc::scalar(Scalar(static_cast<int64_t>(k)), DType::I64), 0));
    TRYT(inN, tgc::gather(tgc::shapeOf(y),
                          tgc::scalar(Scalar(axis), DType::I64), 0));
    TRYT(out, tgc::cast(kth, DType::F64));
    TRYT(in, tgc::cast(inN, DType::F64));
    TRY(positions, positionsUpTo(im, kth));
    TRYT(o, tgc::cast(positions, DType::F64));
    // The source coordinate of each output position, as resize::planAxis
    // computes it (scale = out / in, outWidth = scale * in).
    TRYT(scale, tgc::div(out, in));
    TRYT(outWidth, tgc::mul(scale, in));
    TRYT(single, tgc::compare(ComparePredicate::eq, outWidth,
                              tgc::scalar(Scalar(1.0), DType::F64)));
    Tensor src;
    if (p.coordMode == "align_corners") {
      TRYT(s, tgc::div(tgc::mul(o, tgc::sub(in, Scalar(1.0))),
                       tgc::sub(outWidth, Scalar(1.0))));
      TRYT(sel, tgc::select(single, Scalar(0.0), s));
      src = sel;
    } else if (p.coordMode == "asymmetric") {
      TRYT(s, tgc::div(o, scale));
      src = s;
    } else {
      TRYT(s, tgc::sub(tgc::div(tgc::add(o, Scalar(0.5)), scale), Scalar(0.5)));
      src = s;
      if (p.coordMode == "pytorch_half_pixel") {
        TRYT(sel, tgc::select(single, Scalar(-0.5), src));
        src = sel;
      }
    }
    TRYT(last, tgc::sub(in, Scalar(1.0)));
    auto index = [&](const Tensor &at) -> llvm::Expected<Tensor> {
      TRYT(clamped, tgc::minimum(tgc::maximum(at, Scalar(0.0)), last));
      TRYT(i, tgc::cast(clamped, DType::I64));
      return i;
    };
    std::vector<int64_t> column(static_cast<size_t>(rank - axis), 1);
    column[0] = -1;
    if (p.mode == "nearest") {
      Tensor at;
      if (p.nearestMode == "floor")
        at = tgc::floor(src);
      else if (p.nearestMode == "ceil")
        at = tgc::ceil(src);
      else if (p.nearestMode == "round_prefer_ceil")
        at = tgc::floor(tgc::add(src, Scalar(0.5)));
      else // round_prefer_floor
        at = tgc::ceil(tgc::sub(src, Scalar(0.5)));
      TRY(i, index(at));
      TRYT(g, tgc::gather(y, i, axis));
      y = g;
      continue;
    }
    TRYT(left, tgc::floor(src));
    TRYT(weight, tgc::sub(src, left));
    // The taps around the source coordinate (edge padded) and their
    // weights: the left and right neighbours by distance (linear), or the
    // four at -1, 0, 1, 2 by the cubic convolution of their distances. With
    // exclude_outside (as resize::planAxis) the taps outside the input
    // weigh 0 and the others are scaled to sum to 1.
    std::vector<Tensor> at, w;
    if (p.mode == "cubic") {
      TRY(cubic, cubicWeights(im, weight, p.cubicA));
      w.assign(cubic.begin(), cubic.end());
      for (int k = 0; k < 4; ++k) {
        TRYT(pos, tgc::add(left, Scalar(double(k - 1))));
        at.push_back(pos);
      }
    } else {
      TRYT(right, tgc::add(left, Scalar(1.0)));
      TRYT(leftWeight, tgc::sub(Scalar(1.0), weight));
      at = {left, right};
      w = {leftWeight, weight};
    }
    // The sum of `terms`, left to right.
    auto sum = [&](const std::vector<Tensor> &terms) -> llvm::Expected<Tensor> {
      Tensor total = terms[0];
      for (size_t k = 1; k < terms.size(); ++k) {
        TRYT(next, tgc::add(total, terms[k]));
        total = next;
      }
      return total;
    };
    if (p.excludeOutside) {
      const Tensor zeroF64 = tgc::scalar(Scalar(0.0), DType::F64);
      for (size_t k = 0; k < at.size(); ++k) {
        TRYT(below, tgc::compare(ComparePredicate::lt, at[k], zeroF64));
        TRYT(above, tgc::compare(ComparePredicate::gt, at[k], last));
        TRYT(outside, tgc::logicalOr(below, above));
        TRYT(kept, tgc::select(outside, Scalar(0.0), w[k]));
        w[k] = kept;
      }
      TRY(total, sum(w));
      TRYT(zero, tgc::compare(ComparePredicate::eq, total, zeroF64));
      for (Tensor &wk : w) {
        TRYT(scaled, tgc::select(zero, wk, tgc::div(wk, total)));
        wk = scaled;
      }
    }
    std::vector<Tensor> terms;
    for (size_t k = 0; k < at.size(); ++k) {
      TRY(i, index(at[k]));
      TRYT(g, tgc::gather(y, i, axis));
      TRYT(wk, tgc::reshape(tgc::cast(w[k], x.dtype()), column));
      TRYT(term, tgc::mul(g, wk));
      terms.push_back(term);
    }
    TRY(mixed, sum(terms));
    y = mixed;
  }
  im.out(0, y);
  return llvm::Error::success();
}

/// `x` resized as `r` asks.
llvm::Error resizeAs(Importer &im, const Tensor &x, const ResizeRequest &r) {
  if (r.computedSizes)
    return resizeToComputedSizes(im, x, r);
  const resize::Params &p = r.p;
  const std::vector<int64_t> &axes = r.axes;
  const std::vector<double> &scales = r.scales;
  const std::vector<int64_t> &sizes = r.sizes;
  const std::string &policy = r.policy;
  double extrapolation = r.extrapolation;
  int64_t rank = x.rank();
  int64_t numAxes = static_cast<int64_t>(axes.size());
  if (scales.empty() && sizes.empty())
    return im.fail("one of scales and sizes is required");
  for (double s : scales)
    if (!(s > 0) || !std::isfinite(s))
      return im.fail("scales must be positive and finite");
  for (int64_t s : sizes)
    if (s < 1)
      return im.fail("sizes " + listOf(sizes) + " must be positive");

  std::vector<float> roiStart(numAxes, 0), roiEnd(numAxes, 1);
  if (p.coordMode == "tf_crop_and_resize") {
    if (!im.has(1))
      return im.fail("tf_crop_and_resize needs the roi (input #1)");
    TRY(roi, im.constIn(1));
    if (!roi)
      return im.unsupported(
          "tf_crop_and_resize needs a constant roi (input #1)");
    if (roi->numElements() != 2 * numAxes ||
        !runtime::isFloatDType(roi->dtype()))
      return im.fail("roi (input #1) must have " + llvm::Twine(2 * numAxes) +
                     " floating-point values, not " + roi->describe());
    for (int64_t k = 0; k < numAxes; ++k) {
      roiStart[k] = static_cast<float>(roi->getDouble(k));
      roiEnd[k] = static_cast<float>(roi->getDouble(numAxes + k));
    }
  }

  // Input, output size and scale per listed axis.
  std::vector<int64_t> inSizes(numAxes), outSizes(numAxes);
  std::vector<double> axisScales(numAxes);
  // floor(v) as a size, or -1 when it is out of range (v may be huge).
  auto toSize = [](double v) -> int64_t {
    v = std::floor(v);
    return v >= 0 && v <= double(int64_t(1) << 31) ? static_cast<int64_t>(v)
                                                   : -1;
  };
  std::vector<bool> skip(numAxes, false);
  bool identityAtScaleOne = p.coordMode != "tf_crop_and_resize" &&
                            p.coordMode != "tf_half_pixel_for_nn";
  for (int64_t k = 0; k < numAxes; ++k) {
    std::optional<int64_t> inSize = x.dim(axes[k]);
    if (!sizes.empty() && inSize && *inSize == sizes[k] && identityAtScaleOne &&
        policy == "stretch") {
      skip[k] = true;
      continue;
    }
    if (!scales.empty() && scales[k] == 1 && identityAtScaleOne) {
      skip[k] = true;
      continue;
    }
    if (!inSize)
      return im.unsupported("Resize needs a static dim " +
                            llvm::Twine(axes[k]) + " in " + x.describe() +
                            ": resizing a dynamic dim is not supported");
    if (*inSize == 0)
      return im.unsupported("Resize of an empty input is not supported");
    inSizes[k] = *inSize;
    if (!scales.empty()) {
      axisScales[k] = scales[k];
      outSizes[k] = toSize(scales[k] * static_cast<double>(*inSize));
    } else {
      axisScales[k] =
          static_cast<double>(sizes[k]) / static_cast<double>(*inSize);
      outSizes[k] = sizes[k];
    }
  }
  if (!sizes.empty() && policy != "stretch") {
    for (int64_t k = 0; k < numAxes; ++k)
      if (skip[k])
        return im.unsupported("keep_aspect_ratio_policy needs static dims");
    double scale = axisScales[0];
    for (double s : axisScales)
      scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
    for (int64_t k = 0; k < numAxes; ++k) {
      axisScales[k] = scale;
      outSizes[k] = toSize(scale * static_cast<double>(inSizes[k]) + 0.5);
    }
  }
  for (int64_t k = 0; k < numAxes; ++k)
    if (!skip[k] && outSizes[k] < 1)
      return im.unsupported("Resize of dim " + llvm::Twine(axes[k]) + " of " +
                            x.describe() +
                            " gives an empty or too large output dim, which is "
                            "not supported");

  // One separable step per axis (shrinking axes first): gathers of the source
  // positions, weighted and summed.
  std::vector<int64_t> order;
  for (int64_t k = 0; k < numAxes; ++k)
    if (!skip[k])
      order.push_back(k);
  llvm::stable_sort(order, [&](int64_t a, int64_t b) {
    return outSizes[a] * inSizes[b] < outSizes[b] * inSizes[a];
  });
  Tensor y = x;
  for (int64_t k : order) {
    int64_t axis = axes[k];
    resize::AxisPlan plan = resize::planAxis(
        p, inSizes[k], outSizes[k], axisScales[k], roiStart[k], roiEnd[k]);
    if (resize::isIdentity(plan, inSizes[k]))
      continue;
    int64_t positions = plan.outSize;
    std::vector<int64_t> columnShape(rank - axis, 1);
    columnShape[0] = positions;
    Tensor acc;
    for (int64_t t = 0; t < plan.taps; ++t) {
      bool allZero = true, allOne = true;
      auto idx = HostTensor::allocate(DType::I64, {positions});
      auto w = HostTensor::allocate(x.dtype(), columnShape);
      if (!idx.ok() || !w.ok())
        return im.fail("cannot allocate the resize tables");
      for (int64_t o = 0; o < positions; ++o) {
        double weight = plan.weight[o * plan.taps + t];
        idx->setInt(o, plan.index[o * plan.taps + t]);
        w->setDouble(o, weight);
        allZero &= weight == 0;
        allOne &= weight == 1;
      }
      if (allZero && (acc.valid() || t + 1 < plan.taps))
        continue;
      TRYT(idxT, im.constantTensor(*idx));
      TRYT(g, tgc::gather(y, idxT, axis));
      Tensor term = g;
      if (!allOne) {
        TRYT(wT, im.constantTensor(*w));
        TRYT(m, tgc::mul(g, wT));
        term = m;
      }
      if (acc.valid()) {
        TRYT(sum, tgc::add(acc, term));
        acc = sum;
      } else {
        acc = term;
      }
    }
    if (plan.anyOutside()) {
      auto mask = HostTensor::allocate(DType::I1, columnShape);
      if (!mask.ok())
        return im.fail("cannot allocate the resize tables");
      for (int64_t o = 0; o < positions; ++o)
        mask->setInt(o, plan.outside[o]);
      TRYT(maskT, im.constantTensor(*mask));
      TRYT(sel, tgc::select(maskT, Scalar(extrapolation), acc));
      acc = sel;
    }
    y = acc;
  }
  im.out(0, y);
  return llvm::Error::success();
}

/// Upsample before opset 9: the scales are the attribute 'scales'.
llvm::Error convUpsampleV1(Importer &im) {
  TRY(x, im.in(0));
  ResizeRequest r;
  if (auto error = readLegacyMode(im, r))
    return error;
  if (auto error = checkAxesAndType(im, x, r))
    return error;
  TRY(scalesAttr, im.attrFloats("scales"));
  if (!scalesAttr)
    return im.fail("attribute 'scales' is required");
  if (static_cast<int64_t>(scalesAttr->size()) != x.rank())
    return im.fail("attribute 'scales' has " + llvm::Twine(scalesAttr->size()) +
                   " values; " + llvm::Twine(x.rank()) + " expected");
  r.scales.assign(scalesAttr->begin(), scalesAttr->end());
  return resizeAs(im, x, r);
}

/// Upsample from opset 9, and Resize before opset 11: nearest or linear on
/// asymmetric coordinates, the scales are input #1.
llvm::Error convResizeV1(Importer &im) {
  TRY(x, im.in(0));
  ResizeRequest r;
  if (auto error = readLegacyMode(im, r))
    return error;
  if (auto error = checkAxesAndType(im, x, r))
    return error;
  if (auto error = readScalesInput(im, r, 1))
    return error;
  return resizeAs(im, x, r);
}

/// Resize from opset 11: every mode and coordinate transformation; roi,
/// scales and sizes are inputs #1 to #3.
llvm::Error convResizeV11(Importer &im) {
  TRY(x, im.in(0));
  ResizeRequest r;
  if (auto error = readResizeAttributes(im, r))
    return error;
  if (auto error = checkAxesAndType(im, x, r))
    return error;
  if (auto error = readScalesInput(im, r, 2))
    return error;
  if (auto error = readSizesInput(im, r))
    return error;
  return resizeAs(im, x, r);
}

/// Resize from opset 18: as from 11, with antialias, keep_aspect_ratio_policy
/// and axes.
llvm::Error convResizeV18(Importer &im) {
  TRY(x, im.in(0));
  ResizeRequest r;
  if (auto error = readResizeAttributes(im, r))
    return error;
  if (auto error = readResizeAttributesV18(im, r, x.rank()))
    return error;
  if (auto error = checkAxesAndType(im, x, r))
    return error;
  if (auto error = readScalesInput(im, r, 2))
    return error;
  if (auto error = readSizesInput(im, r))
    return error;
  return resizeAs(im, x, r);
}

} // namespace

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

namespace {
/// GridSample (opset 16) over a static 4-D X: every output pixel reads the
/// taps its grid point needs (1, 4 or 16) with gathers from the flattened
/// X and sums them with their weights, as PyTorch's grid_sample does (the
/// ONNX tests' reference): border and reflection padding move the sampled
/// coordinate (bicubic: each tap's), zeros padding drops taps outside.
class GridSampler {
public:
  GridSampler(Importer &im, const Tensor &x, bool alignCorners,
              std::string padding)
      : im(im), x(x), alignCorners(alignCorners), padding(std::move(padding)) {
    std::vector<int64_t> shape = x.shape();
    n = shape[0];
    c = shape[1];
    h = shape[2];
    w = shape[3];
  }

  /// The pixel coordinate of normalized `g` along a dim of `size`.
  llvm::Expected<Tensor> unnormalize(const Tensor &g, int64_t size) {
    if (alignCorners) {
      TRYT(a, tgc::add(g, Scalar(1.0)));
      TRYT(b, tgc::mul(a, Scalar(0.5 * double(size - 1))));
      return b;
    }
    TRYT(a, tgc::add(g, Scalar(1.0)));
    TRYT(b, tgc::mul(a, Scalar(double(size))));
    TRYT(d, tgc::sub(b, Scalar(1.0)));
    TRYT(e, tgc::mul(d, Scalar(0.5)));
    return e;
  }

  /// Border: clamp to [0, size - 1]; reflection: reflect into the image
  /// (over [0, size - 1] with aligned corners, [-0.5, size - 0.5]
  /// otherwise) and clamp; zeros: unchanged.
  llvm::Expected<Tensor> pad(const Tensor &coord, int64_t size) {
    if (padding == "border")
      return clampTo(coord, size);
    if (padding != "reflection")
      return coord;
    double low = alignCorners ? 0.0 : -0.5;
    double span = alignCorners ? double(size - 1) : double(size);
    if (span <= 0) {
      TRYT(zero, tgc::mul(coord, Scalar(0.0)));
      return zero;
    }
    // Distance from `low`, folded with period 2 * span.
    TRYT(shifted, tgc::sub(coord, Scalar(low)));
    TRYT(distance, tgc::abs(shifted));
    TRYT(periods, tgc::div(distance, Scalar(2 * span)));
    TRYT(whole, tgc::floor(periods));
    TRYT(wrapped, tgc::mul(whole, Scalar(2 * span)));
    TRYT(rest, tgc::sub(distance, wrapped));
    TRYT(beyond, tgc::greater(rest, Scalar(span)));
    TRYT(mirrored, tgc::sub(Scalar(2 * span), rest));
    TRYT(folded, tgc::select(beyond, mirrored, rest));
    TRYT(back, tgc::add(folded, Scalar(low)));
    return clampTo(back, size);
  }

  /// One tap at integer coordinates (floats) `xi`, `yi` ([N, Ho, Wo]),
  /// times `weight`; taps outside read 0.
  llvm::Expected<Tensor> tap(const Tensor &xi, const Tensor &yi,
                             const Tensor &weight) {
    TRYT(xInside0, tgc::greaterEqual(xi, Scalar(0.0)));
    TRYT(xInside1, tgc::lessEqual(xi, Scalar(double(w - 1))));
    TRYT(yInside0, tgc::greaterEqual(yi, Scalar(0.0)));
    TRYT(yInside1, tgc::lessEqual(yi, Scalar(double(h - 1))));
    TRYT(xInside, tgc::logicalAnd(xInside0, xInside1));
    TRYT(yInside, tgc::logicalAnd(yInside0, yInside1));
    TRYT(inside, tgc::logicalAnd(xInside, yInside));
    TRYT(kept, tgc::select(inside, weight, Scalar(0.0)));
    TRY(xc, clampTo(xi, w));
    TRY(yc, clampTo(yi, h));
    TRYT(row, tgc::mul(yc, Scalar(double(w))));
    TRYT(pixel, tgc::add(row, xc));
    TRYT(pixelI, tgc::cast(pixel, DType::I64));
    // [N, 1, Ho, Wo] + the start of each image's channel [N, C, 1, 1].
    std::vector<int64_t> gs = pixelI.shape();
    TRYT(pixel4, tgc::reshape(pixelI, {gs[0], 1, gs[1], gs[2]}));
    auto bases = HostTensor::allocate(DType::I64, {n, c, 1, 1});
    if (!bases.ok())
      return im.fail(std::string(bases.status().message()));
    for (int64_t i = 0; i < n * c; ++i)
      bases->setInt(i, i * h * w);
    TRYT(base, im.constantTensor(*bases));
    TRYT(index, tgc::add(pixel4, base));
    TRYT(flat, tgc::reshape(x, {n * c * h * w}));
    TRYT(values, tgc::gather(flat, index, 0));
    TRYT(kept4, tgc::reshape(kept, {gs[0], 1, gs[1], gs[2]}));
    TRYT(weighted, tgc::mul(values, kept4));
    return weighted;
  }

  int64_t n, c, h, w;

private:
  llvm::Expected<Tensor> clampTo(const Tensor &coord, int64_t size) {
    TRYT(low, tgc::maximum(coord, Scalar(0.0)));
    TRYT(high,
         tgc::minimum(low, Scalar(double(std::max<int64_t>(size - 1, 0)))));
    return high;
  }

  Importer &im;
  Tensor x;
  bool alignCorners;
  std::string padding;
};

} // namespace

static llvm::Error convGridSample(Importer &im) {
  TRY(x, im.in(0));
  TRY(grid, im.in(1));
  TRY(alignCorners, im.attrFlag("align_corners", false));
  TRY(mode, im.attrString("mode", "bilinear"));
  TRY(padding, im.attrString("padding_mode", "zeros"));
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return im.fail("mode must be bilinear, nearest or bicubic, not '" + mode +
                   "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return im.fail("padding_mode must be zeros, border or reflection, not '" +
                   padding + "'");
  if (!x.hasStaticShape() || x.rank() != 4 || !grid.hasStaticShape() ||
      grid.rank() != 4 || grid.dim(3) != std::optional<int64_t>(2) ||
      grid.dim(0) != x.dim(0))
    return im.unsupported("GridSample needs a static 4-D X and a static "
                          "[N, H_out, W_out, 2] grid; got " +
                          x.describe() + " and " + grid.describe());
  if (grid.dtype() != x.dtype()) {
    TRYT(g, tgc::cast(grid, x.dtype()));
    grid = g;
  }
  GridSampler sampler(im, x, alignCorners, padding);
  std::vector<int64_t> gs = grid.shape();
  TRYT(gx4, tgc::slice(grid, {0, 0, 0, 0}, {gs[0], gs[1], gs[2], 1}));
  TRYT(gy4, tgc::slice(grid, {0, 0, 0, 1}, {gs[0], gs[1], gs[2], 2}));
  TRYT(gx, tgc::reshape(gx4, {gs[0], gs[1], gs[2]}));
  TRYT(gy, tgc::reshape(gy4, {gs[0], gs[1], gs[2]}));
  TRY(ux, sampler.unnormalize(gx, sampler.w));
  TRY(uy, sampler.unnormalize(gy, sampler.h));
  TRYT(one, tgc::full({gs[0], gs[1], gs[2]}, Scalar(1.0), x.dtype()));
  Tensor result;
  auto accumulate = [&](const Tensor &term) -> llvm::Error {
    if (!result.valid()) {
      result = term;
      return llvm::Error::success();
    }
    TRYT(sum, tgc::add(result, term));
    result = sum;
    return llvm::Error::success();
  };
  if (mode == "nearest" || mode == "bilinear") {
    TRY(px, sampler.pad(ux, sampler.w));
    TRY(py, sampler.pad(uy, sampler.h));
    if (mode == "nearest") {
      TRYT(rx, tgc::round(px));
      TRYT(ry, tgc::round(py));
      TRY(v, sampler.tap(rx, ry, one));
      if (auto e = accumulate(v))
        return e;
    } else {
      TRYT(x0, tgc::floor(px));
      TRYT(y0, tgc::floor(py));
      TRYT(x1, tgc::add(x0, Scalar(1.0)));
      TRYT(y1, tgc::add(y0, Scalar(1.0)));
      TRYT(fx, tgc::sub(px, x0));
      TRYT(fy, tgc::sub(py, y0));
      TRYT(gx0, tgc::sub(Scalar(1.0), fx));
      TRYT(gy0, tgc::sub(Scalar(1.0), fy));
      const Tensor *xs[2] = {&x0, &x1}, *ys[2] = {&y0, &y1};
      const Tensor *wx[2] = {&gx0, &fx}, *wy[2] = {&gy0, &fy};
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
          TRYT(weight, tgc::mul(*wx[i], *wy[j]));
          TRY(v, sampler.tap(*xs[i], *ys[j], weight));
          if (auto e = accumulate(v))
            return e;
        }
    }
  } else { // bicubic: padding applies to each tap's coordinate
    TRYT(x0, tgc::floor(ux));
    TRYT(y0, tgc::floor(uy));
    TRYT(tx, tgc::sub(ux, x0));
    TRYT(ty, tgc::sub(uy, y0));
    TRY(wx, cubicWeights(im, tx));
    TRY(wy, cubicWeights(im, ty));
    for (int j = 0; j < 4; ++j) {
      TRYT(yj, tgc::add(y0, Scalar(double(j - 1))));
      TRY(yp, sampler.pad(yj, sampler.h));
      for (int i = 0; i < 4; ++i) {
        TRYT(xi, tgc::add(x0, Scalar(double(i - 1))));
        TRY(xp, sampler.pad(xi, sampler.w));
        TRYT(weight,
             tgc::mul(wx[static_cast<size_t>(i)], wy[static_cast<size_t>(j)]));
        TRY(v, sampler.tap(xp, yp, weight));
        if (auto e = accumulate(v))
          return e;
      }
    }
  }
  im.out(0, result);
  return llvm::Error::success();
}

void onnximpl::registerResizeConverters(ConverterTable &table) {
  table.add("GridSample", 1, convGridSample);
  table.add("Upsample", 1, convUpsampleV1);
  table.add("Upsample", 9, convResizeV1);
  table.add("Resize", 1, convResizeV1);
  table.add("Resize", 11, convResizeV11);
  table.add("Resize", 18, convResizeV18);
}
