//===- Tensor.cpp - shapes and data movement ------------------------------===//
//
// Converters of the ops that move data or compute shapes: Reshape, Flatten,
// Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Pad, Expand, Tile,
// DepthToSpace, SpaceToDepth, Gather, GatherElements, GatherND, Scatter,
// ScatterElements, ScatterND, Shape and Size; and the shape arithmetic on
// partially known values (PartialInts) of the ones exporters use on shapes.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"
#include "runtime/Shape.h"

#include <algorithm>
#include <limits>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

/// `x` reshaped to `shape` (ONNX's: -1 is inferred, 0 copies the input's dim
/// unless allowzero).
llvm::Error reshapeToShape(Importer &im, const Tensor &x,
                           const std::vector<int64_t> &shape) {
  TRY(allowZero, im.attrInt("allowzero", 0));
  std::vector<int64_t> xs = x.shape();
  std::vector<int64_t> target;
  int inferred = 0;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == 0 && !allowZero) {
      if (i >= xs.size())
        return im.fail("shape " + listOf(shape) + " copies dim #" +
                       llvm::Twine(i) + " of the input " + x.describe() +
                       ", which has no such dim");
      target.push_back(xs[i]);
      inferred += xs[i] == kDynamic;
    } else if (d == -1) {
      target.push_back(kDynamic);
      ++inferred;
    } else if (d < 0) {
      return im.fail("shape " + listOf(shape) + " has invalid dim " +
                     llvm::Twine(d));
    } else {
      target.push_back(d);
    }
  }
  if (inferred > 1) {
    // Several dims unknown now (a copied dynamic dim and a -1: GroupNorm's
    // [0, groups, -1] over a dynamic batch and image): the shape is a
    // constant that tgc.dynamic_reshape reads when the function runs, where
    // the copies and the -1 resolve.
    HostTensor value =
        *HostTensor::allocate(DType::I64, {static_cast<int64_t>(shape.size())});
    for (auto [i, d] : llvm::enumerate(shape))
      value.setInt(i, d);
    TRYT(y, tgc::dynamicReshape(x, constant(value), target,
                                /*copyZeros=*/!allowZero));
    im.out(0, y);
    return llvm::Error::success();
  }
  TRY(y, im.reshapeTo(x, target));
  im.out(0, y);
  return llvm::Error::success();
}

/// Reshape before opset 5: the shape is the attribute 'shape'.
llvm::Error convReshapeV1(Importer &im) {
  TRY(x, im.in(0));
  TRY(s, im.attrInts("shape"));
  if (!s)
    return im.fail("attribute 'shape' is required");
  return reshapeToShape(im, x, *s);
}

/// Reshape from opset 5: the shape is input #1, a constant, or computed when
/// the function runs.
llvm::Error convReshapeV5(Importer &im) {
  TRY(x, im.in(0));
  std::vector<int64_t> shape;
  TRY(val, im.lookup(1));
  TRY(known, im.constIn(1));
  if (!known) {
    // A shape computed when the function runs. Known but for one element
    // (typically a dynamic batch): that one is inferred (-1) by a static
    // reshape; otherwise tgc.dynamic_reshape reads it at run time.
    std::optional<PartialInts> p;
    if (val->partial)
      p = *val->partial;
    TRY(allowZeroAttr, im.attrInt("allowzero", 0));
    if (p && !p->scalar) {
      int unknown = 0;
      bool minusOne = false;
      for (const auto &v : p->values) {
        unknown += !v;
        minusOne |= v && *v == -1;
      }
      if (unknown == 1 && !minusOne)
        for (const auto &v : p->values)
          shape.push_back(v ? *v : -1);
    }
    if (shape.empty()) {
      TRY(target, im.shapeIn(1));
      std::vector<int64_t> hint(*target.dim(0), kDynamic);
      if (p && p->values.size() == hint.size())
        for (auto [i, v] : llvm::enumerate(p->values))
          if (v && *v > 0)
            hint[i] = *v;
      TRYT(y, tgc::dynamicReshape(x, target, hint,
                                  /*copyZeros=*/!allowZeroAttr));
      im.out(0, y);
      return llvm::Error::success();
    }
  } else {
    TRY(s, im.constInts(1, "shape"));
    shape = s;
  }
  return reshapeToShape(im, x, shape);
}

llvm::Error convFlatten(Importer &im) {
  TRY(x, im.in(0));
  TRY(axis, im.axisAttr("axis", 1, x.rank(), /*inclusive=*/true));
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> shape = x.shape();
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t &part = d < axis ? outer : inner;
    if (shape[d] == kDynamic || part == kDynamic)
      part = kDynamic;
    else
      part *= shape[d];
  }
  if (outer == kDynamic && inner == kDynamic) {
    // Both parts known only when the function runs: their products of the
    // shape then, read by tgc.dynamic_reshape.
    TRYT(dims, tgc::shapeOf(x));
    TRYT(before, tgc::slice(dims, {0}, {axis}));
    TRYT(after, tgc::slice(dims, {axis}, {x.rank()}));
    TRYT(outerT, tgc::reduceProd(before, {0}, /*keepdims=*/true));
    TRYT(innerT, tgc::reduceProd(after, {0}, /*keepdims=*/true));
    TRYT(target, tgc::concat({outerT, innerT}, 0));
    TRYT(y, tgc::dynamicReshape(x, target, {kDynamic, kDynamic}));
    im.out(0, y);
    return llvm::Error::success();
  }
  TRY(y, im.reshapeTo(x, {outer, inner}));
  im.out(0, y);
  return llvm::Error::success();
}

/// `x` without the dims `axes` (every dim of size 1 when empty).
llvm::Error squeezeAxes(Importer &im, const Tensor &x,
                        std::vector<int64_t> axes) {
  if (axes.empty()) {
    for (int64_t d = 0; d < x.rank(); ++d)
      if (x.dim(d) == 1)
        axes.push_back(d);
    if (axes.empty()) {
      im.out(0, x);
      return llvm::Error::success();
    }
  }
  TRYT(y, tgc::squeeze(x, axes));
  im.out(0, y);
  return llvm::Error::success();
}

/// Squeeze before opset 13: the axes are the optional attribute 'axes'.
llvm::Error convSqueezeV1(Importer &im) {
  TRY(x, im.in(0));
  TRY(a, im.attrInts("axes"));
  return squeezeAxes(im, x, a ? *a : std::vector<int64_t>());
}

/// Squeeze from opset 13: the axes are the optional input #1, a constant.
llvm::Error convSqueezeV13(Importer &im) {
  TRY(x, im.in(0));
  std::vector<int64_t> axes;
  if (im.has(1)) {
    TRY(a, im.constInts(1, "axes"));
    axes = a;
  }
  return squeezeAxes(im, x, axes);
}

/// Unsqueeze before opset 13: the axes are the attribute 'axes'.
llvm::Error convUnsqueezeV1(Importer &im) {
  TRY(x, im.in(0));
  TRY(axes, im.attrInts("axes"));
  if (!axes)
    return im.fail("attribute 'axes' is required");
  TRYT(y, tgc::unsqueeze(x, *axes));
  im.out(0, y);
  return llvm::Error::success();
}

/// Unsqueeze from opset 13: the axes are input #1, a constant.
llvm::Error convUnsqueezeV13(Importer &im) {
  TRY(x, im.in(0));
  TRY(axes, im.constInts(1, "axes"));
  TRYT(y, tgc::unsqueeze(x, axes));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convTranspose(Importer &im) {
  TRY(x, im.in(0));
  TRY(perm, im.attrInts("perm"));
  TRYT(y, tgc::transpose(x, perm.value_or(std::vector<int64_t>{})));
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Concatenation, slicing and padding
//===----------------------------------------------------------------------===//

llvm::Error convConcat(Importer &im) {
  std::vector<Tensor> inputs;
  for (int i = 0; i < im.numInputs(); ++i) {
    if (!im.has(i))
      continue;
    TRY(t, im.in(i));
    inputs.push_back(t);
  }
  if (inputs.empty())
    return im.fail("needs at least one input");
  TRY(axisOpt, im.attrInt("axis"));
  if (!axisOpt)
    return im.fail("attribute 'axis' is required");
  TRY(axis, im.normalizeAxis(*axisOpt, inputs[0].rank()));
  TRYT(y, tgc::concat(inputs, axis));
  im.out(0, y);
  return llvm::Error::success();
}

/// Reads the sizes of a Split (empty when none are given).
using SplitReader = llvm::Expected<std::vector<int64_t>> (*)(Importer &im);

/// The sizes as the optional attribute 'split' (before opset 13).
llvm::Expected<std::vector<int64_t>> splitFromAttribute(Importer &im) {
  TRY(s, im.attrInts("split"));
  return s ? *s : std::vector<int64_t>();
}

/// The sizes as the optional input #1, a constant (from opset 13).
llvm::Expected<std::vector<int64_t>> splitFromInput(Importer &im) {
  if (!im.has(1))
    return std::vector<int64_t>();
  return im.constInts(1, "split");
}

/// Split into the sizes `readSizes` reads (equal parts when none).
llvm::Error split(Importer &im, SplitReader readSizes) {
  TRY(x, im.in(0));
  TRY(axis, im.axisAttr("axis", 0, x.rank()));
  std::optional<int64_t> size = x.dim(axis);
  if (!size)
    return im.unsupported("Split needs a static size along the axis");
  TRY(sizes, readSizes(im));
  int n = im.node().output_size();
  if (sizes.empty()) {
    if (n == 0 || *size % n != 0)
      return im.fail("the axis size " + llvm::Twine(*size) +
                     " does not split evenly into " + llvm::Twine(n) +
                     " outputs");
    sizes.assign(n, *size / n);
  }
  if (static_cast<int>(sizes.size()) != n)
    return im.fail("split " + listOf(sizes) + " has " +
                   llvm::Twine(sizes.size()) + " sizes for " + llvm::Twine(n) +
                   " outputs");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return im.fail("split sizes must be non-negative");
    total += s;
  }
  if (total != *size)
    return im.fail("split " + listOf(sizes) +
                   " does not add up to the axis size " + llvm::Twine(*size));
  int64_t start = 0;
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> starts(x.rank(), 0),
        ends(x.rank(), std::numeric_limits<int64_t>::max());
    starts[axis] = start;
    ends[axis] = start + sizes[i];
    start += sizes[i];
    TRYT(part, tgc::slice(x, starts, ends));
    im.out(i, part);
  }
  return llvm::Error::success();
}

llvm::Error convSplitV1(Importer &im) { return split(im, splitFromAttribute); }

llvm::Error convSplitV13(Importer &im) { return split(im, splitFromInput); }

/// x[starts:ends:steps] along `axes` (all dims in order when empty; steps 1
/// when empty).
llvm::Error sliceAlong(Importer &im, const Tensor &x,
                       const std::vector<int64_t> &starts,
                       const std::vector<int64_t> &ends,
                       std::vector<int64_t> axes, std::vector<int64_t> steps) {
  if (ends.size() != starts.size())
    return im.fail("starts and ends have different lengths");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(static_cast<int64_t>(i));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return im.fail("starts, ends, axes and steps must have the same length");
  int64_t rank = x.rank();
  std::vector<int64_t> fs(rank, 0),
      fe(rank, std::numeric_limits<int64_t>::max()), fst(rank, 1);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    TRY(a, im.normalizeAxis(axes[i], rank));
    if (seen[a])
      return im.fail("axis " + llvm::Twine(axes[i]) + " is repeated");
    seen[a] = true;
    if (steps[i] == 0)
      return im.fail("steps must not be 0");
    fs[a] = starts[i];
    fe[a] = ends[i];
    fst[a] = steps[i];
  }
  TRYT(y, tgc::slice(x, fs, fe, fst));
  im.out(0, y);
  return llvm::Error::success();
}

/// Slice before opset 10: starts, ends and axes are attributes.
llvm::Error convSliceV1(Importer &im) {
  TRY(x, im.in(0));
  TRY(s, im.attrInts("starts"));
  TRY(e, im.attrInts("ends"));
  TRY(a, im.attrInts("axes"));
  if (!s || !e)
    return im.fail("attributes 'starts' and 'ends' are required");
  return sliceAlong(im, x, *s, *e, a ? *a : std::vector<int64_t>(), {});
}

/// Slice from opset 10: starts, ends, axes and steps are inputs #1 to #4,
/// constants.
/// An i64 tensor of input `i` flattened to [n] (cast from i32).
llvm::Expected<Tensor> int64Vector(Importer &im, int i) {
  TRY(t, im.in(i));
  if (t.dtype() != DType::I64 && t.dtype() != DType::I32)
    return im.fail("input #" + llvm::Twine(i) + " " + t.describe() +
                   " must be int32 or int64");
  TRYT(flat, tgc::reshape(t, {-1}));
  if (flat.dtype() == DType::I64)
    return flat;
  TRYT(wide, tgc::cast(flat, DType::I64));
  return wide;
}

/// Slice whose starts, ends or steps are computed by the function: a
/// tgc.dynamic_slice (a data-dependent shape). The axes must be constants.
llvm::Error dynamicSliceOf(Importer &im, const Tensor &x) {
  TRY(starts, int64Vector(im, 1));
  TRY(ends, int64Vector(im, 2));
  std::optional<int64_t> n = starts.dim(0);
  if (!n)
    return im.unsupported("a Slice with a dynamic number of starts is not "
                          "supported");
  std::vector<int64_t> axes;
  if (im.has(3)) {
    TRY(a, im.constInts(3, "axes"));
    axes = a;
  } else {
    for (int64_t i = 0; i < *n; ++i)
      axes.push_back(i);
  }
  Tensor steps;
  if (im.has(4)) {
    TRY(st, int64Vector(im, 4));
    steps = st;
  } else {
    TRYT(ones, tgc::full({*n}, Scalar(1), DType::I64));
    steps = ones;
  }
  TRYT(y, tgc::dynamicSlice(x, starts, ends, steps, axes));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convSliceV10(Importer &im) {
  TRY(x, im.in(0));
  for (int i : {1, 2, 4})
    if (im.has(i) && !im.isConstantOpIn(i)) {
      TRY(known, im.constIn(i));
      if (!known)
        return dynamicSliceOf(im, x);
    }
  TRY(starts, im.constInts(1, "starts"));
  TRY(ends, im.constInts(2, "ends"));
  std::vector<int64_t> axes, steps;
  if (im.has(3)) {
    TRY(a, im.constInts(3, "axes"));
    axes = a;
  }
  if (im.has(4)) {
    TRY(st, im.constInts(4, "steps"));
    steps = st;
  }
  return sliceAlong(im, x, starts, ends, axes, steps);
}

/// The attribute 'mode' of a Pad: constant, reflect or edge.
llvm::Expected<std::string> padMode(Importer &im) {
  TRY(mode, im.attrString("mode", "constant"));
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return im.unsupported("pad mode '" + mode +
                          "' is not supported (constant, reflect "
                          "and edge are)");
  return mode;
}

/// `x` padded by `pads` ([begin..., end...]; negative values crop) in `mode`,
/// with `value` for mode constant.
llvm::Error padBy(Importer &im, const Tensor &x, const std::string &mode,
                  const std::vector<int64_t> &pads, double value) {
  int64_t rank = x.rank();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return im.fail("pads " + listOf(pads) + " must have 2 * rank = " +
                   llvm::Twine(2 * rank) + " values");
  std::vector<int64_t> low(rank), high(rank), starts(rank), ends(rank);
  bool crop = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t lo = pads[d], hi = pads[d + rank];
    low[d] = std::max<int64_t>(lo, 0);
    high[d] = std::max<int64_t>(hi, 0);
    starts[d] = lo < 0 ? -lo : 0;
    ends[d] = hi < 0 ? hi : std::numeric_limits<int64_t>::max();
    crop |= lo < 0 || hi < 0;
  }
  Tensor src = x;
  if (crop) {
    TRYT(c, tgc::slice(x, starts, ends));
    src = c;
  }
  if (mode == "constant") {
    TRYT(y, tgc::pad(src, low, high, value));
    im.out(0, y);
    return llvm::Error::success();
  }
  // reflect / edge: concatenate mirrored or repeated border slices, one dim
  // at a time.
  Tensor y = src;
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  for (int64_t d = 0; d < rank; ++d) {
    if (!low[d] && !high[d])
      continue;
    std::optional<int64_t> size = y.dim(d);
    if (!size)
      return im.unsupported("pad mode '" + mode + "' needs static dims");
    if (mode == "reflect" && (low[d] >= *size || high[d] >= *size))
      return im.fail("reflect padding must be smaller than the dim (" +
                     llvm::Twine(*size) + ")");
    if (*size == 0)
      return im.fail("cannot " + mode + "-pad an empty dim");
    auto part = [&](int64_t start, int64_t end,
                    int64_t step) -> llvm::Expected<Tensor> {
      std::vector<int64_t> starts(rank, 0), ends(rank, kEnd), steps(rank, 1);
      starts[d] = start;
      // A negative end would count from the back: "before index 0" is
      // spelled -(size + 1).
      ends[d] = end < 0 ? -(*size + 1) : end;
      steps[d] = step;
      TRYT(t, tgc::slice(y, starts, ends, steps));
      return t;
    };
    std::vector<Tensor> pieces;
    if (low[d]) {
      if (mode == "reflect") {
        // x[low], x[low-1], ..., x[1]
        TRY(t, part(low[d], 0, -1));
        pieces.push_back(t);
      } else {
        TRY(t, part(0, 1, 1));
        for (int64_t k = 0; k < low[d]; ++k)
          pieces.push_back(t);
      }
    }
    pieces.push_back(y);
    if (high[d]) {
      if (mode == "reflect") {
        // x[n-2], ..., x[n-1-high]
        TRY(t, part(*size - 2, *size - 2 - high[d], -1));
        pieces.push_back(t);
      } else {
        TRY(t, part(*size - 1, *size, 1));
        for (int64_t k = 0; k < high[d]; ++k)
          pieces.push_back(t);
      }
    }
    TRYT(joined, tgc::concat(pieces, d));
    y = joined;
  }
  im.out(0, y);
  return llvm::Error::success();
}

/// Pad before opset 11: pads and value are attributes.
llvm::Error convPadV1(Importer &im) {
  TRY(x, im.in(0));
  TRY(mode, padMode(im));
  TRY(pads, im.attrInts("pads"));
  if (!pads)
    return im.fail("attribute 'pads' is required");
  TRY(value, im.attrFloat("value", 0.0));
  return padBy(im, x, mode, *pads, value);
}

/// Pad from opset 11: pads and the constant value are inputs #1 and #2,
/// constants.
llvm::Error convPadV11(Importer &im) {
  TRY(x, im.in(0));
  TRY(mode, padMode(im));
  TRY(pads, im.constInts(1, "pads"));
  double value = 0.0;
  if (im.has(2)) {
    TRY(v, im.constScalar(2, "the constant value"));
    value = v;
  }
  return padBy(im, x, mode, pads, value);
}

//===----------------------------------------------------------------------===//
// Broadcasting and repetition
//===----------------------------------------------------------------------===//

/// Broadcast of two static-or-dynamic shapes (kDynamic = -1), numpy rules;
/// nullopt when incompatible.
std::optional<std::vector<int64_t>> broadcastShapes(std::vector<int64_t> a,
                                                    std::vector<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (a[i] == 1)
      out[i] = b[i];
    else if (b[i] == 1)
      out[i] = a[i];
    else if (a[i] == kDynamic)
      out[i] = b[i];
    else if (b[i] == kDynamic || a[i] == b[i])
      out[i] = a[i];
    else
      return std::nullopt;
  }
  return out;
}

llvm::Error convExpand(Importer &im) {
  TRY(x, im.in(0));
  TRY(known, im.constIn(1));
  if (!known) {
    // A shape computed when the function runs: broadcast to it then.
    TRY(dims, im.shapeIn(1));
    TRYT(y, tgc::dynamicBroadcastTo(x, dims));
    im.out(0, y);
    return llvm::Error::success();
  }
  TRY(shape, im.constInts(1, "shape"));
  auto target = broadcastShapes(x.shape(), shape);
  if (!target)
    return im.fail("the input " + x.describe() + " cannot be expanded to " +
                   listOf(shape));
  if (*target == x.shape()) {
    im.out(0, x);
    return llvm::Error::success();
  }
  TRYT(y, tgc::broadcastTo(x, *target));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convTile(Importer &im) {
  TRY(x, im.in(0));
  TRY(repeats, im.constInts(1, "repeats"));
  if (static_cast<int64_t>(repeats.size()) != x.rank())
    return im.fail("repeats " + listOf(repeats) +
                   " must have one value per dim");
  Tensor y = x;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (repeats[d] < 0)
      return im.fail("repeats must be non-negative");
    if (repeats[d] == 1)
      continue;
    if (repeats[d] == 0) {
      std::vector<int64_t> starts(x.rank(), 0),
          ends(x.rank(), std::numeric_limits<int64_t>::max());
      ends[d] = 0;
      TRYT(t, tgc::slice(y, starts, ends));
      y = t;
      continue;
    }
    std::vector<Tensor> copies(static_cast<size_t>(repeats[d]), y);
    TRYT(t, tgc::concat(copies, d));
    y = t;
  }
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convDepthToSpace(Importer &im) {
  TRY(x, im.in(0));
  TRY(bs, im.attrInt("blocksize"));
  TRY(mode, im.attrString("mode", "DCR"));
  if (!bs || *bs < 1)
    return im.fail("attribute 'blocksize' must be >= 1");
  if (x.rank() != 4)
    return im.fail("input must have rank 4");
  std::vector<int64_t> s = x.shape();
  if (s[1] == kDynamic || s[2] == kDynamic || s[3] == kDynamic)
    return im.unsupported("DepthToSpace needs static C, H and W");
  int64_t b = *bs;
  if (s[1] % (b * b))
    return im.fail("channels must be divisible by blocksize^2");
  int64_t c = s[1] / (b * b);
  std::vector<int64_t> mid, perm;
  if (mode == "DCR") {
    mid = {s[0], b, b, c, s[2], s[3]};
    perm = {0, 3, 4, 1, 5, 2};
  } else if (mode == "CRD") {
    mid = {s[0], c, b, b, s[2], s[3]};
    perm = {0, 1, 4, 2, 5, 3};
  } else {
    return im.fail("attribute 'mode' must be DCR or CRD, not '" + mode + "'");
  }
  TRY(r, im.reshapeTo(x, mid));
  TRYT(t, tgc::transpose(r, perm));
  TRY(y, im.reshapeTo(t, {s[0], c, s[2] * b, s[3] * b}));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convSpaceToDepth(Importer &im) {
  TRY(x, im.in(0));
  TRY(bs, im.attrInt("blocksize"));
  if (!bs || *bs < 1)
    return im.fail("attribute 'blocksize' must be >= 1");
  if (x.rank() != 4)
    return im.fail("input must have rank 4");
  std::vector<int64_t> s = x.shape();
  if (s[1] == kDynamic || s[2] == kDynamic || s[3] == kDynamic)
    return im.unsupported("SpaceToDepth needs static C, H and W");
  int64_t b = *bs;
  if (s[2] % b || s[3] % b)
    return im.fail("H and W must be divisible by the blocksize");
  TRY(r, im.reshapeTo(x, {s[0], s[1], s[2] / b, b, s[3] / b, b}));
  TRYT(t, tgc::transpose(r, {0, 3, 5, 1, 2, 4}));
  TRY(y, im.reshapeTo(t, {s[0], s[1] * b * b, s[2] / b, s[3] / b}));
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Gather and scatter
//===----------------------------------------------------------------------===//

llvm::Error convGather(Importer &im) {
  TRY(data, im.in(0));
  TRY(indices, im.in(1));
  TRY(axis, im.axisAttr("axis", 0, data.rank()));
  TRYT(y, tgc::gather(data, indices, axis));
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Data-dependent shapes: the CPU backend compiles what follows them when it
// runs (codegen/Staged.h)
//===----------------------------------------------------------------------===//

llvm::Error convNonZero(Importer &im) {
  TRY(x, im.in(0));
  TRYT(y, tgc::nonzero(x));
  im.out(0, y);
  return llvm::Error::success();
}

/// Compress: the slices along `axis` (the flattened input without one)
/// where `condition` is true: a gather of nonzero(condition). A condition
/// shorter than the axis selects from its first entries only.
llvm::Error convCompress(Importer &im) {
  TRY(x, im.in(0));
  TRY(condition, im.in(1));
  if (condition.rank() != 1)
    return im.fail("condition " + condition.describe() + " must have rank 1");
  TRY(axisAttr, im.attrInt("axis"));
  Tensor data = x;
  int64_t axis = 0;
  if (axisAttr) {
    TRY(normalized, im.axisAttr("axis", 0, x.rank()));
    axis = normalized;
  } else {
    std::optional<int64_t> count = x.numElements();
    if (!count)
      return im.unsupported("Compress without an axis needs a static input");
    TRYT(flat, tgc::reshape(x, {*count}));
    data = flat;
  }
  std::optional<int64_t> length = condition.dim(0);
  std::optional<int64_t> size = data.dim(axis);
  if (length && size && *length > *size)
    return im.fail("condition " + condition.describe() +
                   " is longer than dim " + llvm::Twine(axis) + " of " +
                   data.describe());
  if (length && size && *length < *size) {
    std::vector<int64_t> starts(static_cast<size_t>(data.rank()), 0);
    std::vector<int64_t> ends(static_cast<size_t>(data.rank()), INT64_MAX);
    ends[static_cast<size_t>(axis)] = *length;
    TRYT(head, tgc::slice(data, starts, ends));
    data = head;
  }
  TRYT(where, tgc::nonzero(condition));
  TRYT(indices, tgc::reshape(where, {-1}));
  TRYT(y, tgc::gather(data, indices, axis));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convUnique(Importer &im) {
  TRY(x, im.in(0));
  TRY(axisAttr, im.attrInt("axis"));
  TRY(sorted, im.attrInt("sorted", 1));
  std::optional<int64_t> axis;
  if (axisAttr) {
    TRY(normalized, im.axisAttr("axis", 0, x.rank()));
    axis = normalized;
  }
  tgc::UniqueTensors r = tgc::unique(x, axis, sorted != 0);
  if (!r.values.valid())
    return im.traceFailure();
  im.out(0, r.values);
  im.out(1, r.indices);
  im.out(2, r.inverse);
  im.out(3, r.counts);
  return llvm::Error::success();
}

/// NonMaxSuppression: a missing max_output_boxes_per_class keeps no box,
/// a missing iou_threshold is 0 and a missing score_threshold keeps every
/// score.
llvm::Error convNonMaxSuppression(Importer &im) {
  TRY(boxes, im.in(0));
  TRY(scores, im.in(1));
  TRY(center, im.attrInt("center_point_box", 0));
  if (center != 0 && center != 1)
    return im.fail("attribute 'center_point_box' must be 0 or 1, not " +
                   llvm::Twine(center));
  auto scalarOr = [&](int i, DType dtype,
                      double dflt) -> llvm::Expected<Tensor> {
    if (im.has(i)) {
      TRY(t, im.in(i));
      if (t.numElements() && *t.numElements() != 1)
        return im.fail("input " + llvm::Twine(i) + " " + t.describe() +
                       " must hold one element");
      TRYT(flat, tgc::reshape(t, {1}));
      if (flat.dtype() == dtype)
        return flat;
      TRYT(c, tgc::cast(flat, dtype));
      return c;
    }
    TRYT(value, tgc::full({1}, Scalar(dflt), dtype));
    return value;
  };
  TRY(maxPerClass, scalarOr(2, DType::I64, 0));
  TRY(iou, scalarOr(3, scores.dtype(), 0));
  TRY(minScore,
      scalarOr(4, scores.dtype(), -std::numeric_limits<double>::infinity()));
  TRYT(y, tgc::nonMaxSuppression(boxes, scores, maxPerClass, iou, minScore,
                                 center == 1));
  im.out(0, y);
  return llvm::Error::success();
}

/// For every element of a tensor of `shape`: the offset of its
/// coordinates in every dim but `skipped` under `strides`, and (into
/// `coordinate`, when given) its coordinate in `skipped`.
llvm::Expected<HostTensor> offsetsWithout(Importer &im,
                                          const std::vector<int64_t> &shape,
                                          const std::vector<int64_t> &strides,
                                          int64_t skipped,
                                          HostTensor *coordinate) {
  auto offsets = HostTensor::allocate(DType::I64, shape);
  if (!offsets.ok())
    return im.fail(std::string(offsets.status().message()));
  if (coordinate) {
    auto allocated = HostTensor::allocate(DType::I64, shape);
    if (!allocated.ok())
      return im.fail(std::string(allocated.status().message()));
    *coordinate = *std::move(allocated);
  }
  for (int64_t i = 0; i < offsets->numElements(); ++i) {
    std::vector<int64_t> coord = offsets->unflattenIndex(i);
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (static_cast<int64_t>(d) != skipped)
        off += coord[d] * strides[d];
    offsets->setInt(i, off);
    if (coordinate)
      coordinate->setInt(i, coord[static_cast<size_t>(skipped)]);
  }
  return *std::move(offsets);
}

llvm::Error convGatherElements(Importer &im) {
  TRY(data, im.in(0));
  TRY(indices0, im.in(1));
  TRY(axis, im.axisAttr("axis", 0, data.rank()));
  if (!data.hasStaticShape() || !indices0.hasStaticShape())
    return im.unsupported(
        "GatherElements with dynamic shapes is not supported");
  if (indices0.rank() != data.rank())
    return im.fail("indices " + indices0.describe() +
                   " must have the rank of the data " + data.describe());
  std::vector<int64_t> dataShape = data.shape(), idxShape = indices0.shape();
  std::vector<int64_t> strides = runtime::rowMajorStrides(dataShape);
  // linear = wrap(idx) * stride[axis] + sum over the other dims of
  // coord[d] * stride[d]; then a gather from the flattened data.
  TRY(offsets, offsetsWithout(im, idxShape, strides, axis, nullptr));
  Tensor idx = indices0;
  if (idx.dtype() != DType::I64) {
    TRYT(c, tgc::cast(idx, DType::I64));
    idx = c;
  }
  TRYT(isNeg, tgc::less(idx, Scalar(0)));
  TRYT(wrapped, tgc::add(idx, Scalar(dataShape[axis])));
  TRYT(fixed, tgc::select(isNeg, wrapped, idx));
  TRYT(scaled, tgc::mul(fixed, Scalar(strides[axis])));
  TRYT(offT, im.constantTensor(offsets));
  TRYT(linear, tgc::add(scaled, offT));
  TRYT(flat, tgc::reshape(data, {*data.numElements()}));
  TRYT(y, tgc::gather(flat, linear, 0));
  im.out(0, y);
  return llvm::Error::success();
}

/// ReverseSequence: along time_axis, the first sequence_lens[b] elements of
/// each batch entry b in reverse order, the rest as they are; a gather
/// from the flattened input at offsets computed per element.
llvm::Error convReverseSequence(Importer &im) {
  TRY(x, im.in(0));
  TRY(lens, im.in(1));
  if (!x.hasStaticShape() || x.rank() < 2)
    return im.unsupported("ReverseSequence needs a static input of rank 2 "
                          "or more, not " +
                          x.describe());
  TRY(batchAxis, im.axisAttr("batch_axis", 1, x.rank()));
  TRY(timeAxis, im.axisAttr("time_axis", 0, x.rank()));
  if (batchAxis == timeAxis || (batchAxis > 1 || timeAxis > 1))
    return im.fail("batch_axis and time_axis must be 0 and 1 in some order");
  std::vector<int64_t> shape = x.shape();
  if (lens.rank() != 1 ||
      lens.dim(0) != std::optional<int64_t>(shape[batchAxis]))
    return im.fail("sequence_lens " + lens.describe() +
                   " must have one "
                   "length per batch entry of " +
                   x.describe());
  std::vector<int64_t> strides = runtime::rowMajorStrides(shape);
  // Per element: its offset without the time coordinate, and its time
  // coordinate t (constants); the source time is len - 1 - t where t < len.
  HostTensor timeCoordinates;
  TRY(rest, offsetsWithout(im, shape, strides, timeAxis, &timeCoordinates));
  Tensor len = lens;
  if (len.dtype() != DType::I64) {
    TRYT(c, tgc::cast(len, DType::I64));
    len = c;
  }
  // The lengths along the batch axis, broadcast over the others.
  std::vector<int64_t> lenShape(static_cast<size_t>(x.rank()), 1);
  lenShape[batchAxis] = shape[batchAxis];
  TRYT(lenB, tgc::reshape(len, lenShape));
  TRYT(t, im.constantTensor(timeCoordinates));
  TRYT(inside, tgc::less(t, lenB));
  TRYT(lenMinus1, tgc::sub(lenB, Scalar(1)));
  TRYT(reversed, tgc::sub(lenMinus1, t));
  TRYT(source, tgc::select(inside, reversed, t));
  TRYT(scaled, tgc::mul(source, Scalar(strides[timeAxis])));
  TRYT(offsets, im.constantTensor(rest));
  TRYT(linear, tgc::add(scaled, offsets));
  TRYT(flat, tgc::reshape(x, {*x.numElements()}));
  TRYT(y, tgc::gather(flat, linear, 0));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convGatherND(Importer &im) {
  TRY(data, im.in(0));
  TRY(indices0, im.in(1));
  TRY(batchDims, im.attrInt("batch_dims", 0));
  std::vector<int64_t> dataShape = data.shape(), idxShape = indices0.shape();
  int64_t r = data.rank(), q = indices0.rank(), b = batchDims;
  if (q < 1 || b < 0 || b >= std::min(r, q))
    return im.fail("batch_dims " + llvm::Twine(b) + " is out of range");
  int64_t k = idxShape[q - 1];
  if (k == kDynamic)
    return im.unsupported("GatherND with a dynamic index length (indices " +
                          indices0.describe() + ") is not supported");
  if (k < 1 || b + k > r)
    return im.fail("the last dim of the indices (" + llvm::Twine(k) +
                   ") must be in [1, rank(data) - batch_dims]");
  // The dims the indices address (and the batch dims) must be static; the
  // positions (indices' leading dims, e.g. NonZero's count) may be dynamic
  // without batch dims, and one trailing dim of the data may be.
  auto isDynamic = [](int64_t d) { return d == kDynamic; };
  if (std::any_of(dataShape.begin(), dataShape.begin() + b + k, isDynamic) ||
      std::count_if(dataShape.begin() + b + k, dataShape.end(), isDynamic) >
          1 ||
      (b > 0 && !indices0.hasStaticShape()))
    return im.unsupported(
        "GatherND of data " + data.describe() + " at indices " +
        indices0.describe() + " (batch_dims " + llvm::Twine(b) +
        ") is not supported: the dims the indices address must be static, "
        "and with batch dims the indices' shape too");
  // linear = sum_j wrap(idx[..., j]) * stride_j + batch offset, indexing the
  // data reshaped to [prod(shape[:b+k]), shape[b+k:]...].
  std::vector<int64_t> outer(dataShape.begin(), dataShape.begin() + b + k);
  std::vector<int64_t> outerStrides = runtime::rowMajorStrides(outer);
  auto dims = HostTensor::allocate(DType::I64, {k});
  auto steps = HostTensor::allocate(DType::I64, {k});
  for (int64_t j = 0; j < k; ++j) {
    dims->setInt(j, dataShape[b + j]);
    steps->setInt(j, outerStrides[b + j]);
  }
  Tensor idx = indices0;
  if (idx.dtype() != DType::I64) {
    TRYT(c, tgc::cast(idx, DType::I64));
    idx = c;
  }
  TRYT(dimsT, im.constantTensor(*dims));
  TRYT(stepsT, im.constantTensor(*steps));
  TRYT(isNeg, tgc::less(idx, Scalar(0)));
  TRYT(wrapped, tgc::add(idx, dimsT));
  TRYT(fixed, tgc::select(isNeg, wrapped, idx));
  TRYT(scaled, tgc::mul(fixed, stepsT));
  TRYT(summed, tgc::reduceSum(scaled, {q - 1}, false));
  Tensor linear = summed;
  if (b > 0) {
    // Each position's batch offset (the indices' shape is static here).
    std::vector<int64_t> posShape(idxShape.begin(), idxShape.end() - 1);
    auto batchOff = HostTensor::allocate(DType::I64, posShape);
    for (int64_t i = 0; i < batchOff->numElements(); ++i) {
      std::vector<int64_t> coord = batchOff->unflattenIndex(i);
      int64_t off = 0;
      for (int64_t d = 0; d < b; ++d)
        off += coord[d] * outerStrides[d];
      batchOff->setInt(i, off);
    }
    TRYT(offT, im.constantTensor(*batchOff));
    TRYT(withBatch, tgc::add(summed, offT));
    linear = withBatch;
  }
  int64_t outerCount = 1;
  for (int64_t d : outer)
    outerCount *= d;
  std::vector<int64_t> flatShape = {outerCount};
  flatShape.insert(flatShape.end(), dataShape.begin() + b + k, dataShape.end());
  TRYT(flat, tgc::reshape(data, flatShape));
  TRYT(y, tgc::gather(flat, linear, 0));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Expected<std::string> scatterReduction(Importer &im) {
  TRY(reduction, im.attrString("reduction", "none"));
  if (reduction != "none" && reduction != "add" && reduction != "mul" &&
      reduction != "max" && reduction != "min")
    return im.fail("attribute 'reduction' must be none, add, mul, max or min, "
                   "not '" +
                   reduction + "'");
  return reduction;
}

llvm::Error convScatterElements(Importer &im) {
  TRY(data, im.in(0));
  TRY(indices, im.in(1));
  TRY(updates, im.in(2));
  TRY(axis, im.axisAttr("axis", 0, data.rank()));
  TRY(reduction, scatterReduction(im));
  TRYT(y, tgc::scatterElements(data, indices, updates, axis, reduction));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convScatterND(Importer &im) {
  TRY(data, im.in(0));
  TRY(indices, im.in(1));
  TRY(updates, im.in(2));
  TRY(reduction, scatterReduction(im));
  TRYT(y, tgc::scatterND(data, indices, updates, reduction));
  im.out(0, y);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

llvm::Error convShape(Importer &im) {
  TRY(x, im.in(0));
  int64_t rank = x.rank();
  TRY(startAttr, im.attrInt("start", 0));
  TRY(endAttr, im.attrInt("end"));
  int64_t start = startAttr < 0 ? startAttr + rank : startAttr;
  int64_t end = endAttr ? (*endAttr < 0 ? *endAttr + rank : *endAttr) : rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  int64_t n = std::max<int64_t>(end - start, 0);
  // Dynamic dims are known when the function runs: tgc.shape_of computes
  // them; what is known now travels along as a partial value.
  PartialInts shape;
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = x.shape()[start + i];
    shape.values.push_back(d == kDynamic ? std::nullopt
                                         : std::optional<int64_t>(d));
  }
  if (!x.hasStaticShape()) {
    Tensor full = tgc::shapeOf(x);
    if (n != rank)
      full = tgc::slice(full, {start}, {start + n});
    im.out(0, full);
  }
  im.outPartial(0, std::move(shape));
  return llvm::Error::success();
}

llvm::Error convSize(Importer &im) {
  TRY(x, im.in(0));
  std::optional<int64_t> n = x.numElements();
  if (!n) {
    TRYT(size, tgc::reduceProd(tgc::shapeOf(x), {0}, /*keepDims=*/false));
    im.out(0, size);
    return llvm::Error::success();
  }
  auto t = HostTensor::allocate(DType::I64, {});
  t->setInt(0, *n);
  im.outConst(0, std::move(*t));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Shape arithmetic on partially known values
//===----------------------------------------------------------------------===//

/// The axes of a Squeeze or Unsqueeze before opset 13 (the attribute).
std::optional<std::vector<int64_t>> partialAxesFromAttribute(Importer &im) {
  std::vector<int64_t> axes;
  const AP *a = im.attr("axes");
  if (!a)
    return axes;
  for (int64_t v : a->ints())
    axes.push_back(v);
  return axes;
}

/// The axes of a Squeeze or Unsqueeze from opset 13 (input #1), or nullopt
/// when some are unknown.
std::optional<std::vector<int64_t>>
partialAxesFromInput(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  std::vector<int64_t> axes;
  if (!im.has(1))
    return axes;
  for (const auto &v : ins[1].values) {
    if (!v)
      return std::nullopt;
    axes.push_back(*v);
  }
  return axes;
}

/// Whether Squeeze/Unsqueeze `axes` name at most dim 0 (of a rank 0 or 1
/// value).
bool onlyDimZero(const std::vector<int64_t> &axes) {
  return axes.empty() || (axes.size() == 1 && (axes[0] == 0 || axes[0] == -1));
}

/// A known scalar unsqueezed to [1].
PartialResult
unsqueezePartial(PartialInts x,
                 const std::optional<std::vector<int64_t>> &axes) {
  if (!axes || !x.scalar || !onlyDimZero(*axes) || axes->empty())
    return std::optional<PartialInts>();
  x.scalar = false;
  return std::optional<PartialInts>(std::move(x));
}

/// A known [1] squeezed to a scalar.
PartialResult squeezePartial(PartialInts x,
                             const std::optional<std::vector<int64_t>> &axes) {
  if (!axes || x.scalar || x.values.size() != 1 || !onlyDimZero(*axes))
    return std::optional<PartialInts>();
  x.scalar = true;
  return std::optional<PartialInts>(std::move(x));
}

PartialResult partialUnsqueezeV1(Importer &im,
                                 llvm::ArrayRef<PartialInts> ins) {
  return unsqueezePartial(ins[0], partialAxesFromAttribute(im));
}

PartialResult partialUnsqueezeV13(Importer &im,
                                  llvm::ArrayRef<PartialInts> ins) {
  return unsqueezePartial(ins[0], partialAxesFromInput(im, ins));
}

PartialResult partialSqueezeV1(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  return squeezePartial(ins[0], partialAxesFromAttribute(im));
}

PartialResult partialSqueezeV13(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  return squeezePartial(ins[0], partialAxesFromInput(im, ins));
}

/// A rank 0 or 1 value reshaped to rank 0 or 1.
PartialResult partialReshape(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  PartialInts x = ins[0];
  if (!im.has(1) || ins[1].scalar || ins[1].values.size() > 1)
    return std::optional<PartialInts>();
  int64_t n = static_cast<int64_t>(x.values.size());
  if (ins[1].values.empty()) {
    if (n != 1)
      return std::optional<PartialInts>();
    x.scalar = true;
    return std::optional<PartialInts>(std::move(x));
  }
  const auto &target = ins[1].values[0];
  if (!target || (*target != -1 && *target != n))
    return std::optional<PartialInts>();
  x.scalar = false;
  return std::optional<PartialInts>(std::move(x));
}

/// Elements of a known 1-D value.
PartialResult partialGather(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  PartialInts x = ins[0];
  TRY(axis, im.attrInt("axis", 0));
  if (x.scalar || (axis != 0 && axis != -1))
    return std::optional<PartialInts>();
  PartialInts result;
  result.dtype = x.dtype;
  result.scalar = ins[1].scalar;
  int64_t n = static_cast<int64_t>(x.values.size());
  for (const auto &index : ins[1].values) {
    if (!index || *index < -n || *index >= n)
      return std::optional<PartialInts>();
    result.values.push_back(x.values[*index < 0 ? *index + n : *index]);
  }
  return std::optional<PartialInts>(std::move(result));
}

/// Known 1-D values joined.
PartialResult partialConcat(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  PartialInts x = ins[0];
  TRY(axis, im.attrInt("axis"));
  if (!axis || (*axis != 0 && *axis != -1))
    return std::optional<PartialInts>();
  PartialInts result;
  result.dtype = x.dtype;
  for (int i = 0; i < im.numInputs(); ++i) {
    if (!im.has(i))
      continue;
    if (ins[i].scalar || ins[i].dtype != x.dtype)
      return std::optional<PartialInts>();
    llvm::append_range(result.values, ins[i].values);
  }
  return std::optional<PartialInts>(std::move(result));
}

/// A slice of a known 1-D value (from opset 10: starts, ends, axes and steps
/// are inputs).
PartialResult partialSliceV10(Importer &im, llvm::ArrayRef<PartialInts> ins) {
  PartialInts x = ins[0];
  if (x.scalar)
    return std::optional<PartialInts>();
  auto scalarOf = [&](int i, int64_t fallback) -> std::optional<int64_t> {
    if (!im.has(i))
      return fallback;
    if (ins[i].values.size() != 1 || !ins[i].values[0])
      return std::nullopt;
    return *ins[i].values[0];
  };
  std::optional<int64_t> start = scalarOf(1, 0), end = scalarOf(2, 0),
                         axis = scalarOf(3, 0), step = scalarOf(4, 1);
  if (!start || !end || !axis || !step || (*axis != 0 && *axis != -1) ||
      *step == 0)
    return std::optional<PartialInts>();
  int64_t n = static_cast<int64_t>(x.values.size());
  auto clampIndex = [&](int64_t v, bool forEnd) {
    if (v < 0)
      v += n;
    if (*step > 0)
      return std::clamp<int64_t>(v, 0, n);
    return std::clamp<int64_t>(v, forEnd ? -1 : 0, n - 1);
  };
  int64_t b = clampIndex(*start, false), e = clampIndex(*end, true);
  PartialInts result;
  result.dtype = x.dtype;
  for (int64_t k = b; *step > 0 ? k < e : k > e; k += *step)
    if (k >= 0 && k < n)
      result.values.push_back(x.values[k]);
  return std::optional<PartialInts>(std::move(result));
}

} // namespace

void onnximpl::registerTensorConverters(ConverterTable &table) {
  table.add("Reshape", 1, convReshapeV1, partialReshape);
  table.add("Reshape", 5, convReshapeV5, partialReshape);
  table.add("Flatten", 1, convFlatten);
  table.add("Squeeze", 1, convSqueezeV1, partialSqueezeV1);
  table.add("Squeeze", 13, convSqueezeV13, partialSqueezeV13);
  table.add("Unsqueeze", 1, convUnsqueezeV1, partialUnsqueezeV1);
  table.add("Unsqueeze", 13, convUnsqueezeV13, partialUnsqueezeV13);
  table.add("Transpose", 1, convTranspose);
  table.add("Concat", 1, convConcat, partialConcat);
  table.add("Split", 1, convSplitV1);
  table.add("Split", 13, convSplitV13);
  // Before opset 10 nothing of a Slice is tracked (a partial input is
  // sliced when the function runs).
  table.add("Slice", 1, convSliceV1);
  table.add("Slice", 10, convSliceV10, partialSliceV10);
  table.add("Pad", 1, convPadV1);
  table.add("Pad", 11, convPadV11);
  table.add("Expand", 1, convExpand);
  table.add("Tile", 1, convTile);
  table.add("DepthToSpace", 1, convDepthToSpace);
  table.add("SpaceToDepth", 1, convSpaceToDepth);
  table.add("Gather", 1, convGather, partialGather);
  table.add("GatherElements", 1, convGatherElements);
  table.add("ReverseSequence", 1, convReverseSequence);
  table.add("NonZero", 9, convNonZero);
  table.add("Compress", 9, convCompress);
  table.add("Unique", 11, convUnique);
  table.add("NonMaxSuppression", 10, convNonMaxSuppression);
  table.add("GatherND", 1, convGatherND);
  table.add("Scatter", 1, convScatterElements);
  table.add("ScatterElements", 1, convScatterElements);
  table.add("ScatterND", 1, convScatterND);
  table.add("Shape", 1, convShape);
  table.add("Size", 1, convSize);
}
