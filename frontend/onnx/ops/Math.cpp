//===- Math.cpp - contractions, softmax, cumsum, topk ---------------------===//
//
// Converters of MatMul, Gemm and Einsum, the Softmax family (Softmax,
// LogSoftmax, Hardmax), CumSum and TopK.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"
#include "frontend/onnx/OnnxInternal.h"
#include "runtime/Shape.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

llvm::Error convMatMul(Importer &im) {
  TRY(a0, im.in(0));
  TRY(b0, im.in(1));
  if (a0.rank() == 0 || b0.rank() == 0)
    return im.fail("MatMul operands must have rank >= 1");
  Tensor a = a0, b = b0;
  bool vecA = a.rank() == 1, vecB = b.rank() == 1;
  if (vecA) {
    TRYT(t, tgc::unsqueeze(a, {0}));
    a = t;
  }
  if (vecB) {
    TRYT(t, tgc::unsqueeze(b, {1}));
    b = t;
  }
  TRYT(y0, tgc::matmul(a, b));
  Tensor y = y0;
  if (vecA && vecB) {
    TRYT(t, tgc::squeeze(y, {-2, -1}));
    y = t;
  } else if (vecA) {
    TRYT(t, tgc::squeeze(y, {-2}));
    y = t;
  } else if (vecB) {
    TRYT(t, tgc::squeeze(y, {-1}));
    y = t;
  }
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convGemm(Importer &im) {
  TRY(a, im.in(0));
  TRY(b, im.in(1));
  TRY(alpha, im.attrFloat("alpha", 1.0));
  TRY(beta, im.attrFloat("beta", 1.0));
  TRY(transA, im.attrInt("transA", 0));
  TRY(transB, im.attrInt("transB", 0));
  if (a.rank() != 2 || b.rank() != 2)
    return im.fail("Gemm operands must have rank 2, not " + a.describe() +
                   " and " + b.describe());
  MatmulOptions mm;
  mm.transposeA = transA != 0;
  mm.transposeB = transB != 0;
  TRYT(ab, tgc::matmul(a, b, mm));
  Tensor y = ab;
  if (alpha != 1.0) {
    TRYT(t, tgc::mul(y, Scalar(alpha)));
    y = t;
  }
  if (im.has(2) && beta != 0.0) {
    TRY(c, im.in(2));
    Tensor bc = c;
    if (beta != 1.0) {
      TRYT(t, tgc::mul(c, Scalar(beta)));
      bc = t;
    }
    TRYT(sum, tgc::add(y, bc));
    if (sum.rank() != 2)
      return im.fail("C " + c.describe() + " must broadcast to the product " +
                     y.describe());
    y = sum;
  }
  im.out(0, y);
  return llvm::Error::success();
}

/// Einsum: the equation is parsed into labels (letters by their character
/// code, the dims an ellipsis covers as 256 + j, right-aligned across the
/// operands). Repeated labels within an operand become diagonals (a gather
/// from the two dims flattened), labels needed nowhere else are summed, and
/// the operands are contracted left to right by one batched matmul each
/// (transposed and reshaped to [batch..., M, K] x [batch..., K, N]); a final
/// transpose gives the output order.
llvm::Error convEinsum(Importer &im) {
  TRY(equation0, im.attrString("equation", ""));
  std::string equation;
  for (char ch : equation0)
    if (ch != ' ')
      equation += ch;
  auto malformed = [&](const llvm::Twine &why) {
    return im.fail("equation '" + equation0 + "': " + why);
  };
  constexpr int kEllipsis = 256;
  struct Term {
    std::vector<int> letters;
    int ellipsisAt = -1; // Index into letters where '...' stands.
  };
  auto parseTerm = [&](llvm::StringRef text, Term &term) -> llvm::Error {
    for (size_t p = 0; p < text.size(); ++p) {
      char ch = text[p];
      if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
        term.letters.push_back(static_cast<unsigned char>(ch));
        continue;
      }
      if (text.substr(p).starts_with("...") && term.ellipsisAt < 0) {
        term.ellipsisAt = static_cast<int>(term.letters.size());
        p += 2;
        continue;
      }
      return malformed("unexpected '" + llvm::Twine(ch) + "' in term '" + text +
                       "' (labels are letters, with at most one "
                       "'...' per term)");
    }
    return llvm::Error::success();
  };
  llvm::StringRef eq(equation);
  size_t arrow = eq.find("->");
  llvm::StringRef lhs = eq.substr(0, arrow);
  std::optional<llvm::StringRef> rhs;
  if (arrow != llvm::StringRef::npos)
    rhs = eq.substr(arrow + 2);
  llvm::SmallVector<llvm::StringRef> termTexts;
  lhs.split(termTexts, ',');
  if (static_cast<int>(termTexts.size()) != im.numInputs())
    return malformed("it has " + llvm::Twine(termTexts.size()) +
                     " operand terms but the node has " +
                     llvm::Twine(im.numInputs()) + " inputs");
  std::vector<Term> terms(termTexts.size());
  for (size_t i = 0; i < terms.size(); ++i)
    if (auto error = parseTerm(termTexts[i], terms[i]))
      return error;
  Term outTerm;
  if (rhs)
    if (auto error = parseTerm(*rhs, outTerm))
      return error;

  struct Operand {
    Tensor t;
    std::vector<int> labels;
  };
  std::vector<Operand> operands;
  int64_t ellipsisRank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    TRY(t, im.in(static_cast<int>(i)));
    int64_t named = static_cast<int64_t>(terms[i].letters.size());
    int64_t covered = t.rank() - named;
    if (covered < 0 || (terms[i].ellipsisAt < 0 && covered != 0))
      return malformed("term '" + termTexts[i] + "' does not match the rank " +
                       "of input #" + llvm::Twine(i) + " " + t.describe());
    ellipsisRank = std::max(ellipsisRank, covered);
    operands.push_back({t, {}});
  }
  std::map<int, int64_t> sizes; // kDynamic when unknown.
  std::map<int, int> counts;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term &term = terms[i];
    Operand &o = operands[i];
    int64_t covered = o.t.rank() - static_cast<int64_t>(term.letters.size());
    for (size_t p = 0; p <= term.letters.size(); ++p) {
      if (static_cast<int>(p) == term.ellipsisAt)
        for (int64_t j = 0; j < covered; ++j)
          o.labels.push_back(kEllipsis +
                             static_cast<int>(ellipsisRank - covered + j));
      if (p < term.letters.size())
        o.labels.push_back(term.letters[p]);
    }
    for (auto [d, label] : llvm::enumerate(o.labels)) {
      ++counts[label];
      int64_t size = o.t.shape()[d];
      auto [it, inserted] = sizes.insert({label, size});
      if (inserted || size == it->second || size == kDynamic)
        continue;
      if (it->second == kDynamic) {
        it->second = size;
      } else if (label >= kEllipsis && (size == 1 || it->second == 1)) {
        it->second = std::max(size, it->second); // Broadcast.
      } else {
        std::string name = label >= kEllipsis
                               ? "..."
                               : std::string(1, static_cast<char>(label));
        return malformed("label '" + name + "' has sizes " +
                         llvm::Twine(it->second) + " and " + llvm::Twine(size));
      }
    }
  }
  std::vector<int> output;
  if (rhs) {
    for (size_t p = 0; p <= outTerm.letters.size(); ++p) {
      if (static_cast<int>(p) == outTerm.ellipsisAt)
        for (int64_t j = 0; j < ellipsisRank; ++j)
          output.push_back(kEllipsis + static_cast<int>(j));
      if (p < outTerm.letters.size()) {
        int label = outTerm.letters[p];
        if (!counts.count(label))
          return malformed("output label '" +
                           llvm::Twine(static_cast<char>(label)) +
                           "' is not in any input term");
        if (llvm::is_contained(output, label))
          return malformed("output label '" +
                           llvm::Twine(static_cast<char>(label)) +
                           "' is repeated");
        output.push_back(label);
      }
    }
  } else {
    // Implicit output: the ellipsis dims, then the labels used once, in
    // alphabetical (ASCII) order.
    for (int64_t j = 0; j < ellipsisRank; ++j)
      output.push_back(kEllipsis + static_cast<int>(j));
    for (auto [label, count] : counts)
      if (label < kEllipsis && count == 1)
        output.push_back(label);
  }

  auto dimsOf = [&](const Operand &o, const std::vector<int> &labels) {
    std::vector<int64_t> dims;
    for (int label : labels)
      dims.push_back(
          o.t.shape()[llvm::find(o.labels, label) - o.labels.begin()]);
    return dims;
  };
  auto product = [](const std::vector<int64_t> &dims) {
    int64_t p = 1;
    for (int64_t d : dims) {
      if (d == kDynamic)
        return kDynamic;
      p *= d;
    }
    return p;
  };
  auto reshapeIfNeeded =
      [&](const Tensor &t,
          const std::vector<int64_t> &shape) -> llvm::Expected<Tensor> {
    if (t.shape() == shape)
      return t;
    if (llvm::count(shape, kDynamic) > 1)
      return im.unsupported("Einsum needs a reshape of " + t.describe() +
                            " to " + listOf(shape) +
                            ", which has more than one dynamic dim");
    return im.reshapeTo(t, shape);
  };
  auto permute = [&](Operand &o, const std::vector<int> &order) -> llvm::Error {
    std::vector<int64_t> perm;
    for (int label : order)
      perm.push_back(llvm::find(o.labels, label) - o.labels.begin());
    o.labels = order;
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(perm))
      identity &= static_cast<int64_t>(i) == p;
    if (identity)
      return llvm::Error::success();
    TRYT(t, tgc::transpose(o.t, perm));
    o.t = t;
    return llvm::Error::success();
  };
  // Diagonals of repeated labels.
  auto diagonal = [&](Operand &o) -> llvm::Error {
    for (;;) {
      int label = -1;
      for (size_t p = 0; p < o.labels.size() && label < 0; ++p)
        if (llvm::count(o.labels, o.labels[p]) > 1)
          label = o.labels[p];
      if (label < 0)
        return llvm::Error::success();
      std::vector<int> order, rest;
      for (int l : o.labels)
        if (l != label)
          rest.push_back(l);
      if (llvm::count(o.labels, label) > 2)
        return im.unsupported("a label repeated more than twice in one term "
                              "is not supported");
      int64_t size = sizes[label];
      if (size == kDynamic)
        return im.unsupported("a diagonal over a dynamic dim is not supported");
      order = rest;
      order.push_back(label);
      order.push_back(label);
      // permute() looks labels up by first occurrence: do it by hand.
      std::vector<int64_t> perm;
      for (size_t p = 0; p < o.labels.size(); ++p)
        if (o.labels[p] != label)
          perm.push_back(static_cast<int64_t>(p));
      for (size_t p = 0; p < o.labels.size(); ++p)
        if (o.labels[p] == label)
          perm.push_back(static_cast<int64_t>(p));
      Tensor t = o.t;
      if (!llvm::equal(perm, llvm::seq<int64_t>(0, o.t.rank()))) {
        TRYT(transposed, tgc::transpose(o.t, perm));
        t = transposed;
      }
      std::vector<int64_t> flat = t.shape();
      flat.resize(flat.size() - 2);
      flat.push_back(size * size);
      TRY(r, reshapeIfNeeded(t, flat));
      auto idx = HostTensor::allocate(DType::I64, {size});
      if (!idx.ok())
        return im.fail(std::string(idx.status().message()));
      for (int64_t k = 0; k < size; ++k)
        idx->setInt(k, k * (size + 1));
      TRYT(idxT, im.constantTensor(*idx));
      TRYT(g, tgc::gather(r, idxT, static_cast<int64_t>(rest.size())));
      o.t = g;
      rest.push_back(label);
      o.labels = rest;
    }
  };
  // Sums the labels of `o` that are not in `keep`.
  auto sumOut = [&](Operand &o, const std::set<int> &keep) -> llvm::Error {
    std::vector<int64_t> axes;
    std::vector<int> rest;
    for (auto [d, label] : llvm::enumerate(o.labels)) {
      if (keep.count(label))
        rest.push_back(label);
      else
        axes.push_back(static_cast<int64_t>(d));
    }
    if (axes.empty())
      return llvm::Error::success();
    TRYT(t, tgc::reduceSum(o.t, axes));
    o.t = t;
    o.labels = rest;
    return llvm::Error::success();
  };

  for (Operand &o : operands)
    if (auto error = diagonal(o))
      return error;
  Operand acc = operands[0];
  std::set<int> outputSet(output.begin(), output.end());
  if (operands.size() == 1) {
    if (auto error = sumOut(acc, outputSet))
      return error;
  }
  for (size_t i = 1; i < operands.size(); ++i) {
    Operand b = operands[i];
    std::set<int> keep = outputSet;
    for (size_t j = i + 1; j < operands.size(); ++j)
      keep.insert(operands[j].labels.begin(), operands[j].labels.end());
    std::set<int> keepA = keep, keepB = keep;
    keepA.insert(b.labels.begin(), b.labels.end());
    keepB.insert(acc.labels.begin(), acc.labels.end());
    if (auto error = sumOut(acc, keepA))
      return error;
    if (auto error = sumOut(b, keepB))
      return error;
    std::vector<int> batch, contracted, aOnly, bOnly;
    for (int label : acc.labels) {
      if (!llvm::is_contained(b.labels, label))
        aOnly.push_back(label);
      else if (keep.count(label))
        batch.push_back(label);
      else
        contracted.push_back(label);
    }
    for (int label : b.labels)
      if (!llvm::is_contained(acc.labels, label))
        bOnly.push_back(label);
    std::vector<int> orderA = batch, orderB = batch;
    orderA.insert(orderA.end(), aOnly.begin(), aOnly.end());
    orderA.insert(orderA.end(), contracted.begin(), contracted.end());
    orderB.insert(orderB.end(), contracted.begin(), contracted.end());
    orderB.insert(orderB.end(), bOnly.begin(), bOnly.end());
    if (auto error = permute(acc, orderA))
      return error;
    if (auto error = permute(b, orderB))
      return error;
    std::vector<int64_t> shapeA = dimsOf(acc, batch), shapeB = dimsOf(b, batch);
    std::vector<int64_t> aDims = dimsOf(acc, aOnly), bDims = dimsOf(b, bOnly),
                         kDims = dimsOf(acc, contracted);
    shapeA.push_back(product(aDims));
    shapeA.push_back(product(kDims));
    shapeB.push_back(product(dimsOf(b, contracted)));
    shapeB.push_back(product(bDims));
    TRY(ra, reshapeIfNeeded(acc.t, shapeA));
    TRY(rb, reshapeIfNeeded(b.t, shapeB));
    TRYT(product2, tgc::matmul(ra, rb));
    std::vector<int64_t> shapeY = product2.shape();
    shapeY.resize(shapeY.size() - 2);
    shapeY.insert(shapeY.end(), aDims.begin(), aDims.end());
    shapeY.insert(shapeY.end(), bDims.begin(), bDims.end());
    TRY(y, reshapeIfNeeded(product2, shapeY));
    acc.t = y;
    acc.labels = batch;
    acc.labels.insert(acc.labels.end(), aOnly.begin(), aOnly.end());
    acc.labels.insert(acc.labels.end(), bOnly.begin(), bOnly.end());
  }
  if (auto error = permute(acc, output))
    return error;
  im.out(0, acc.t);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Softmax, CumSum and TopK
//===----------------------------------------------------------------------===//

/// Softmax, LogSoftmax or Hardmax (the node's op type) of `t` along `a`.
llvm::Expected<Tensor> softmaxAlong(Importer &im, const Tensor &t, int64_t a) {
  const std::string &op = im.node().op_type();
  if (op == "Softmax") {
    TRYT(y, tgc::softmax(t, a));
    return y;
  }
  if (op == "LogSoftmax") {
    TRYT(y, tgc::logSoftmax(t, a));
    return y;
  }
  // Hardmax: 1 at the first maximum along the axis.
  std::optional<int64_t> size = t.dim(a);
  if (!size)
    return im.unsupported("Hardmax needs a static size along the axis");
  TRYT(idx, tgc::argmax(t, a, true));
  std::vector<int64_t> iotaShape(t.rank(), 1);
  iotaShape[a] = *size;
  auto iota = HostTensor::allocate(DType::I64, iotaShape);
  if (!iota.ok())
    return im.fail(std::string(iota.status().message()));
  for (int64_t k = 0; k < *size; ++k)
    iota->setInt(k, k);
  TRYT(iotaT, im.constantTensor(*iota));
  TRYT(hot, tgc::equal(idx, iotaT));
  TRYT(y, tgc::cast(hot, t.dtype()));
  return y;
}

/// Softmax, LogSoftmax and Hardmax before opset 13: the input is coerced to
/// 2-D [prod(:axis), prod(axis:)], the axis is 1 by default.
llvm::Error convSoftmaxV1(Importer &im) {
  const std::string &op = im.node().op_type();
  TRY(x, im.in(0));
  if (x.rank() == 0)
    return im.fail("input must have rank >= 1");
  TRY(axis, im.axisAttr("axis", 1, x.rank()));
  if (axis == x.rank() - 1) {
    TRY(y, softmaxAlong(im, x, axis));
    im.out(0, y);
    return llvm::Error::success();
  }
  std::vector<int64_t> shape = x.shape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t &part = d < axis ? outer : inner;
    if (shape[d] == kDynamic || part == kDynamic)
      part = kDynamic;
    else
      part *= shape[d];
  }
  if (inner == kDynamic)
    return im.unsupported("opset < 13 " + op +
                          " needs static dims from the axis on");
  TRY(flat, im.reshapeTo(x, {outer, inner}));
  TRY(y2, softmaxAlong(im, flat, 1));
  std::vector<int64_t> back = shape;
  if (llvm::count(back, kDynamic) > 1)
    return im.fail("cannot restore the shape " + x.describe());
  TRY(y, im.reshapeTo(y2, back));
  im.out(0, y);
  return llvm::Error::success();
}

/// Softmax, LogSoftmax and Hardmax from opset 13: along one axis, the last by
/// default.
llvm::Error convSoftmaxV13(Importer &im) {
  TRY(x, im.in(0));
  if (x.rank() == 0)
    return im.fail("input must have rank >= 1");
  TRY(axis, im.axisAttr("axis", -1, x.rank()));
  TRY(y, softmaxAlong(im, x, axis));
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convCumSum(Importer &im) {
  TRY(x, im.in(0));
  TRY(axisV, im.constScalar(1, "axis"));
  TRY(axis, im.normalizeAxis(static_cast<int64_t>(axisV), x.rank()));
  TRY(exclusive, im.attrInt("exclusive", 0));
  TRY(reverse, im.attrInt("reverse", 0));
  std::optional<int64_t> n = x.dim(axis);
  if (!n)
    return im.unsupported("CumSum needs a static size along the axis");
  if (x.dtype() == DType::I1)
    return im.unsupported("CumSum of booleans is not supported");
  // y[..., j] = sum_i x[..., i] * T[i, j]: move the axis last, multiply by a
  // triangular matrix, move it back.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  auto tri = HostTensor::allocate(x.dtype(), {*n, *n});
  if (!tri.ok())
    return im.fail(std::string(tri.status().message()));
  for (int64_t i = 0; i < *n; ++i)
    for (int64_t j = 0; j < *n; ++j) {
      bool on =
          reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      tri->setInt(i * *n + j, on ? 1 : 0);
    }
  TRYT(triT, im.constantTensor(*tri));
  Tensor moved = x;
  bool needsMove = axis != x.rank() - 1;
  if (needsMove) {
    TRYT(t, tgc::transpose(x, perm));
    moved = t;
  }
  Tensor lhs = moved;
  if (moved.rank() == 1) {
    TRYT(t, tgc::unsqueeze(moved, {0}));
    lhs = t;
  }
  TRYT(prod, tgc::matmul(lhs, triT));
  Tensor y = prod;
  if (moved.rank() == 1) {
    TRYT(t, tgc::squeeze(prod, {0}));
    y = t;
  }
  if (needsMove) {
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inverse[perm[i]] = static_cast<int64_t>(i);
    TRYT(t, tgc::transpose(y, inverse));
    y = t;
  }
  im.out(0, y);
  return llvm::Error::success();
}

/// The `k` largest or smallest elements of `x` along `axis`.
llvm::Error topK(Importer &im, const Tensor &x, int64_t axis, int64_t k) {
  if (k < 0)
    return im.fail("K must be non-negative, not " + llvm::Twine(k));
  TRY(largest, im.attrInt("largest", 1));
  TRY(sorted, im.attrInt("sorted", 1));
  auto [values, indices] = tgc::topk(x, k, axis, largest != 0, sorted != 0);
  if (!values.valid() || !indices.valid())
    return im.traceFailure();
  im.out(0, values);
  im.out(1, indices);
  return llvm::Error::success();
}

/// TopK before opset 10: K is the attribute 'k'.
llvm::Error convTopKV1(Importer &im) {
  TRY(x, im.in(0));
  TRY(axis, im.axisAttr("axis", -1, x.rank()));
  TRY(kAttr, im.attrInt("k"));
  if (!kAttr)
    return im.fail("attribute 'k' is required");
  return topK(im, x, axis, *kAttr);
}

/// TopK from opset 10: K is input #1, which must be a constant.
llvm::Error convTopKV10(Importer &im) {
  TRY(x, im.in(0));
  TRY(axis, im.axisAttr("axis", -1, x.rank()));
  TRY(known, im.constIn(1));
  if (!known) {
    // K computed by the function: every element in order (a sort: k = -1,
    // also over a dynamic dim), then the first K (a tgc.dynamic_slice: a
    // data-dependent shape).
    // Sorted whatever 'sorted' says: the first K must be the best K.
    TRY(largest, im.attrInt("largest", 1));
    auto [values, indices] = tgc::topk(x, x.dim(axis).value_or(-1), axis,
                                       largest != 0, /*sorted=*/true);
    if (!values.valid() || !indices.valid())
      return im.traceFailure();
    TRY(k, im.in(1));
    TRYT(flatK, tgc::reshape(k, {1}));
    Tensor end = flatK;
    if (end.dtype() != DType::I64) {
      TRYT(c, tgc::cast(end, DType::I64));
      end = c;
    }
    TRYT(start, tgc::full({1}, Scalar(0), DType::I64));
    TRYT(step, tgc::full({1}, Scalar(1), DType::I64));
    TRYT(v, tgc::dynamicSlice(values, start, end, step, {axis}));
    TRYT(i, tgc::dynamicSlice(indices, start, end, step, {axis}));
    im.out(0, v);
    im.out(1, i);
    return llvm::Error::success();
  }
  TRY(ks, im.constInts(1, "K"));
  if (ks.size() != 1)
    return im.fail("K (input #1) must have one element, not " +
                   llvm::Twine(ks.size()));
  return topK(im, x, axis, ks[0]);
}

} // namespace

namespace {
/// Det of the trailing [n, n] matrices of a static X with n <= 4, by the
/// Leibniz formula: the sum over the n! permutations p of
/// sign(p) * x[0][p(0)] * ... * x[n-1][p(n-1)].
llvm::Error convDet(Importer &im) {
  TRY(x, im.in(0));
  if (!x.hasStaticShape() || x.rank() < 2 || x.dim(-1) != x.dim(-2))
    return im.unsupported("Det needs a static input of square matrices, not " +
                          x.describe());
  int64_t n = *x.dim(-1);
  if (n > 4)
    return im.unsupported("Det of " + llvm::Twine(n) + "x" + llvm::Twine(n) +
                          " matrices (tgc computes it for n <= 4)");
  std::vector<int64_t> shape = x.shape();
  std::vector<int64_t> batch(shape.begin(), shape.end() - 2);
  if (n == 0) {
    TRYT(one, tgc::full(batch, Scalar(1.0), x.dtype()));
    im.out(0, one);
    return llvm::Error::success();
  }
  // Each element as a tensor of the batch shape.
  std::vector<std::vector<Tensor>> element(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      std::vector<int64_t> starts(shape.size(), 0), ends = shape;
      starts[shape.size() - 2] = i;
      ends[shape.size() - 2] = i + 1;
      starts[shape.size() - 1] = j;
      ends[shape.size() - 1] = j + 1;
      TRYT(cell, tgc::slice(x, starts, ends));
      TRYT(flat, tgc::reshape(cell, batch));
      element[static_cast<size_t>(i)].push_back(flat);
    }
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    p[static_cast<size_t>(i)] = i;
  Tensor total;
  do {
    int64_t inversions = 0;
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = a + 1; b < n; ++b)
        inversions += p[static_cast<size_t>(a)] > p[static_cast<size_t>(b)];
    Tensor term = element[0][static_cast<size_t>(p[0])];
    for (int64_t i = 1; i < n; ++i) {
      TRYT(product,
           tgc::mul(term, element[static_cast<size_t>(i)][static_cast<size_t>(
                              p[static_cast<size_t>(i)])]));
      term = product;
    }
    if (!total.valid() && inversions % 2 == 0) {
      total = term;
    } else if (!total.valid()) {
      TRYT(negated, tgc::neg(term));
      total = negated;
    } else {
      TRYT(sum, inversions % 2 ? tgc::sub(total, term) : tgc::add(total, term));
      total = sum;
    }
  } while (std::next_permutation(p.begin(), p.end()));
  im.out(0, total);
  return llvm::Error::success();
}
/// DFT (opset 17) of a static signal: along `axis`, products with the
/// constant cosine and sine matrices C[n][k] = cos(2 pi n k / N) and S
/// (computed in double): forward re' = re C + im S, im' = im C - re S;
/// inverse re' = (re C - im S) / N, im' = (im C + re S) / N; `onesided`
/// keeps the first N / 2 + 1 frequencies of a real signal.
llvm::Expected<Tensor> dftAlong(Importer &im, const Tensor &x, int64_t axisAttr,
                                bool inverse, bool onesided) {
  if (!x.hasStaticShape() || x.rank() < 3)
    return im.unsupported(
        "DFT needs a static input [batch, ..., 1 or 2], not " + x.describe());
  std::vector<int64_t> shape = x.shape();
  const int64_t r = x.rank();
  const int64_t parts = shape.back();
  if (parts != 1 && parts != 2)
    return im.fail("the last dim of the input " + x.describe() +
                   " must be 1 (real) or 2 (complex)");
  int64_t axis = axisAttr < 0 ? axisAttr + r : axisAttr;
  if (axis < 1 || axis >= r - 1)
    return im.fail("axis " + llvm::Twine(axisAttr) +
                   " must name a signal dim of " + x.describe());
  const int64_t n = shape[static_cast<size_t>(axis)];
  if (onesided && (inverse || parts == 2))
    return im.unsupported("a onesided DFT of a complex or inverse signal is "
                          "not supported");
  const int64_t k = onesided ? n / 2 + 1 : n;
  auto matrix = [&](bool sine) -> llvm::Expected<Tensor> {
    auto m = HostTensor::allocate(x.dtype(), {n, k});
    if (!m.ok())
      return im.fail(std::string(m.status().message()));
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = 0; b < k; ++b) {
        // The angle of a * b mod n, exact in integers.
        double angle = 2.0 * M_PI * static_cast<double>((a * b) % n) /
                       static_cast<double>(n);
        double v = sine ? std::sin(angle) : std::cos(angle);
        m->setDouble(a * k + b, inverse ? v / static_cast<double>(n) : v);
      }
    return im.constantTensor(*m);
  };
  TRY(cosines, matrix(false));
  TRY(sines, matrix(true));
  // The signal dim moved last, the other dims flattened: [rows, n].
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < r - 1; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  std::vector<int64_t> movedShape;
  for (int64_t d : perm)
    movedShape.push_back(shape[static_cast<size_t>(d)]);
  const int64_t rows = runtime::numElements(movedShape) / n;
  auto part = [&](int64_t p) -> llvm::Expected<Tensor> {
    std::vector<int64_t> starts(static_cast<size_t>(r), 0), ends = shape;
    starts.back() = p;
    ends.back() = p + 1;
    TRYT(slice, tgc::slice(x, starts, ends));
    TRYT(squeezed, tgc::reshape(slice, std::vector<int64_t>(shape.begin(),
                                                            shape.end() - 1)));
    TRYT(moved, tgc::transpose(squeezed, perm));
    TRYT(flat, tgc::reshape(moved, {rows, n}));
    return flat;
  };
  TRY(re, part(0));
  TRYT(reC, tgc::matmul(re, cosines));
  TRYT(reS, tgc::matmul(re, sines));
  Tensor yRe = reC, yIm;
  TRYT(negReS, tgc::neg(reS));
  yIm = inverse ? reS : negReS;
  if (parts == 2) {
    TRY(imag, part(1));
    TRYT(imC, tgc::matmul(imag, cosines));
    TRYT(imS, tgc::matmul(imag, sines));
    TRYT(newRe, inverse ? tgc::sub(reC, imS) : tgc::add(reC, imS));
    TRYT(newIm, tgc::add(imC, yIm));
    yRe = newRe;
    yIm = newIm;
  }
  // Back to the input's layout, with the frequencies where the signal was.
  std::vector<int64_t> outMoved = movedShape;
  outMoved.back() = k;
  std::vector<int64_t> back(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    back[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  auto restore = [&](const Tensor &t) -> llvm::Expected<Tensor> {
    TRYT(unflat, tgc::reshape(t, outMoved));
    TRYT(moved, tgc::transpose(unflat, back));
    std::vector<int64_t> withPart = moved.shape();
    withPart.push_back(1);
    TRYT(y, tgc::reshape(moved, withPart));
    return y;
  };
  TRY(outRe, restore(yRe));
  TRY(outIm, restore(yIm));
  TRYT(y, tgc::concat({outRe, outIm}, r - 1));
  return y;
}

/// MelWeightMatrix (opset 17) of constant arguments, computed at import
/// time as ONNX's reference does: triangular filters between mel-spaced
/// edge bins, [dft_length / 2 + 1, num_mel_bins].
llvm::Error convMelWeightMatrix(Importer &im) {
  TRY(bins, im.constScalar(0, "num_mel_bins"));
  TRY(dftLength, im.constScalar(1, "dft_length"));
  TRY(sampleRate, im.constScalar(2, "sample_rate"));
  TRY(lower, im.constScalar(3, "lower_edge_hertz"));
  TRY(upper, im.constScalar(4, "upper_edge_hertz"));
  TRY(outputType, im.attrInt("output_datatype", 1));
  std::optional<DType> dtype = dtypeFromOnnx(static_cast<int32_t>(outputType));
  if (!dtype)
    return im.fail("output_datatype " + llvm::Twine(outputType) +
                   " is not a type tgc supports");
  const int64_t melBins = static_cast<int64_t>(bins);
  const int64_t length = static_cast<int64_t>(dftLength);
  const int64_t rate = static_cast<int64_t>(sampleRate);
  if (melBins < 1 || length < 1 || rate < 1 || melBins > (1 << 20) ||
      length > (1 << 24))
    return im.fail("num_mel_bins, dft_length and sample_rate must be "
                   "positive (and of a sensible size)");
  const int64_t spectrogramBins = length / 2 + 1;
  // The edges in f32, as ONNX's reference computes them from f32 scalars
  // (numpy keeps a float32 scalar's arithmetic in float32); the bins in
  // double.
  auto toMel = [](float hertz) {
    return 2595.0f * std::log10(1.0f + hertz / 700.0f);
  };
  const float low = toMel(static_cast<float>(lower));
  const float high = toMel(static_cast<float>(upper));
  // num_mel_bins + 2 edges, spaced by the mel range over their count (as
  // ONNX's reference and backend test data have it).
  const float step = (high - low) / static_cast<float>(melBins + 2);
  std::vector<int64_t> edges;
  for (int64_t i = 0; i < melBins + 2; ++i) {
    double mel = static_cast<double>(i) * static_cast<double>(step) +
                 static_cast<double>(low);
    double hertz = 700 * (std::pow(10.0, mel / 2595) - 1);
    edges.push_back(static_cast<int64_t>(std::floor(
        static_cast<double>(length + 1) * hertz / static_cast<double>(rate))));
  }
  auto out = HostTensor::allocate(*dtype, {spectrogramBins, melBins});
  if (!out.ok())
    return im.fail(std::string(out.status().message()));
  auto set = [&](int64_t row, int64_t column, double value) {
    if (row >= 0 && row < spectrogramBins)
      out->setDouble(row * melBins + column, value);
  };
  for (int64_t i = 0; i < melBins; ++i) {
    const int64_t left = edges[i], center = edges[i + 1], right = edges[i + 2];
    if (center == left) {
      set(center, i, 1);
    } else {
      for (int64_t j = left; j <= center; ++j)
        set(j, i,
            static_cast<double>(j - left) / static_cast<double>(center - left));
    }
    for (int64_t j = center; j < right; ++j)
      set(j, i,
          static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  im.outConst(0, *std::move(out));
  return llvm::Error::success();
}

llvm::Error convDFT(Importer &im) {
  TRY(x, im.in(0));
  TRY(axis, im.attrInt("axis", 1));
  TRY(inverse, im.attrInt("inverse", 0));
  TRY(onesided, im.attrInt("onesided", 0));
  if (im.has(1)) {
    TRY(length, im.constInts(1, "dft_length"));
    int64_t a = axis < 0 ? axis + x.rank() : axis;
    if (length.size() != 1 || a < 0 || a >= x.rank() ||
        std::optional<int64_t>(length[0]) != x.dim(a))
      return im.unsupported("DFT with a dft_length other than the signal's "
                            "length is not supported");
  }
  TRY(y, dftAlong(im, x, axis, inverse != 0, onesided != 0));
  im.out(0, y);
  return llvm::Error::success();
}

/// STFT (opset 17): the frames of `frame_length` samples every
/// `frame_step` (constants), times the window, each transformed by
/// dftAlong (onesided by default).
llvm::Error convSTFT(Importer &im) {
  TRY(signal, im.in(0));
  if (!signal.hasStaticShape() || signal.rank() != 3)
    return im.unsupported("STFT needs a static signal [batch, length, 1 or "
                          "2], not " +
                          signal.describe());
  TRY(steps, im.constInts(1, "frame_step"));
  if (steps.size() != 1 || steps[0] < 1)
    return im.fail("frame_step must be one positive integer");
  std::optional<Tensor> window;
  int64_t frameLength = -1;
  if (im.has(2)) {
    TRY(w, im.in(2));
    if (w.rank() != 1 || !w.dim(0))
      return im.fail("window " + w.describe() + " must be a static vector");
    window = w;
    frameLength = *w.dim(0);
  }
  if (im.has(3)) {
    TRY(lengths, im.constInts(3, "frame_length"));
    if (lengths.size() != 1 || lengths[0] < 1 ||
        (window && lengths[0] != frameLength))
      return im.fail("frame_length must be one positive integer (the "
                     "window's length when there is one)");
    frameLength = lengths[0];
  }
  if (frameLength < 1)
    return im.fail("STFT needs a window or a frame_length");
  TRY(onesided, im.attrInt("onesided", 1));
  std::vector<int64_t> shape = signal.shape();
  const int64_t length = shape[1], step = steps[0];
  if (frameLength > length)
    return im.fail("frame_length " + llvm::Twine(frameLength) +
                   " exceeds the signal's length " + llvm::Twine(length));
  const int64_t frames = (length - frameLength) / step + 1;
  auto index = HostTensor::allocate(DType::I64, {frames * frameLength});
  if (!index.ok())
    return im.fail(std::string(index.status().message()));
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < frameLength; ++j)
      index->setInt(f * frameLength + j, f * step + j);
  TRYT(gathered, tgc::gather(signal, im.constantTensor(*index), 1));
  TRYT(framed,
       tgc::reshape(gathered, {shape[0], frames, frameLength, shape[2]}));
  Tensor weighted = framed;
  if (window) {
    TRYT(w, tgc::reshape(*window, {1, 1, frameLength, 1}));
    TRYT(product, tgc::mul(framed, w));
    weighted = product;
  }
  TRY(y, dftAlong(im, weighted, 2, /*inverse=*/false,
                  onesided != 0 && shape[2] == 1));
  im.out(0, y);
  return llvm::Error::success();
}
/// TfIdfVectorizer (integer tokens): per row of X ([C] or [B, C]), the
/// number of occurrences of each n-gram of the pool (pool_int64s, grouped
/// by length at ngram_counts), at every start and every skip distance up to
/// max_skip_count + 1 (unigrams counted once), for lengths from
/// min_gram_length to max_gram_length; scattered to the output coordinates
/// ngram_indexes and weighted by mode (TF: counts, IDF: min(count, 1) *
/// weight, TFIDF: count * weight). With n-grams of length n and skip s, the
/// windows X[:, i + k*s] (k < n) are gathered at once, compared with every
/// pool n-gram of that length, and the matches summed: a fixed number of
/// ops whatever the pool's size; a matmul with a one-hot matrix places the
/// counts.
llvm::Error convTfIdfVectorizer(Importer &im) {
  TRY(x, im.in(0));
  if (x.dtype() != DType::I32 && x.dtype() != DType::I64)
    return im.unsupported("TfIdfVectorizer of " + x.describe() +
                          " (tgc has no string tokens; int32 and int64 "
                          "tokens are supported)");
  if ((x.rank() != 1 && x.rank() != 2) || !x.hasStaticShape())
    return im.unsupported("TfIdfVectorizer needs a static [C] or [B, C] "
                          "input, not " +
                          x.describe());
  TRY(minGram, im.attrInt("min_gram_length"));
  TRY(maxGram, im.attrInt("max_gram_length"));
  TRY(maxSkip, im.attrInt("max_skip_count"));
  TRY(mode, im.attrString("mode", ""));
  TRY(counts, im.attrInts("ngram_counts"));
  TRY(indexes, im.attrInts("ngram_indexes"));
  TRY(pool, im.attrInts("pool_int64s"));
  TRY(weights, im.attrFloats("weights"));
  if (!minGram || !maxGram || !maxSkip || !counts || !indexes)
    return im.fail("needs the attributes min_gram_length, max_gram_length, "
                   "max_skip_count, ngram_counts and ngram_indexes");
  if (!pool)
    return im.unsupported("TfIdfVectorizer without pool_int64s (string "
                          "pools are not supported)");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return im.fail("attribute 'mode' must be TF, IDF or TFIDF, not '" + mode +
                   "'");
  if (*minGram < 1 || *maxGram < *minGram || *maxSkip < 0)
    return im.fail("needs 1 <= min_gram_length <= max_gram_length and "
                   "max_skip_count >= 0");
  if (static_cast<int64_t>(counts->size()) < *maxGram)
    return im.fail("ngram_counts " + listOf(*counts) + " lists fewer than " +
                   llvm::Twine(*maxGram) + " n-gram lengths");
  // The pool's n-grams: length n starts at counts[n - 1] and ends where the
  // next length starts.
  struct Gram {
    std::vector<int64_t> tokens;
    int64_t output;
  };
  std::vector<std::vector<Gram>> byLength(static_cast<size_t>(*maxGram) + 1);
  int64_t ordinal = 0, width = 0;
  for (int64_t n = 1; n <= static_cast<int64_t>(counts->size()); ++n) {
    int64_t begin = (*counts)[static_cast<size_t>(n - 1)];
    int64_t end = n < static_cast<int64_t>(counts->size())
                      ? (*counts)[static_cast<size_t>(n)]
                      : static_cast<int64_t>(pool->size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool->size()) ||
        (end - begin) % n)
      return im.fail("ngram_counts " + listOf(*counts) +
                     " does not split pool_int64s (" +
                     llvm::Twine(pool->size()) + " values) into n-grams");
    for (int64_t at = begin; at < end; at += n, ++ordinal) {
      if (ordinal >= static_cast<int64_t>(indexes->size()))
        return im.fail("ngram_indexes has fewer entries than the pool has "
                       "n-grams");
      int64_t output = (*indexes)[static_cast<size_t>(ordinal)];
      if (output < 0)
        return im.fail("ngram_indexes holds the negative index " +
                       llvm::Twine(output));
      width = std::max(width, output + 1);
      if (n <= *maxGram)
        byLength[static_cast<size_t>(n)].push_back(
            {std::vector<int64_t>(pool->begin() + at, pool->begin() + at + n),
             output});
    }
  }
  if (weights && static_cast<int64_t>(weights->size()) < ordinal)
    return im.fail("weights has fewer entries than the pool has n-grams");
  if (width > (int64_t(1) << 24))
    return im.unsupported("an output of " + llvm::Twine(width) + " counts");
  bool batched = x.rank() == 2;
  Tensor rows = x;
  if (!batched) {
    TRYT(r, tgc::unsqueeze(x, {0}));
    rows = r;
  }
  const int64_t batch = rows.shape()[0], columns = rows.shape()[1];
  std::optional<Tensor> total;
  for (int64_t n = *minGram; n <= *maxGram; ++n) {
    const std::vector<Gram> &grams = byLength[static_cast<size_t>(n)];
    if (grams.empty())
      continue;
    const int64_t p = static_cast<int64_t>(grams.size());
    // The pool's n-grams of length n, [P, n], in the input's dtype.
    HostTensor tokens = *HostTensor::allocate(x.dtype(), {p, n});
    // Their output coordinates, one-hot [P, width] (f32).
    HostTensor place = *HostTensor::allocate(DType::F32, {p, width});
    for (int64_t g = 0; g < p; ++g) {
      for (int64_t k = 0; k < n; ++k)
        tokens.setInt(g * n + k, grams[static_cast<size_t>(g)].tokens[k]);
      place.setDouble(g * width + grams[static_cast<size_t>(g)].output, 1.0);
    }
    std::optional<Tensor> counted; // [B, P]
    int64_t skips = n == 1 ? 1 : *maxSkip + 1;
    for (int64_t distance = 1; distance <= skips; ++distance) {
      int64_t starts = columns - (n - 1) * distance;
      if (starts <= 0)
        break;
      HostTensor windows = *HostTensor::allocate(DType::I64, {starts, n});
      for (int64_t i = 0; i < starts; ++i)
        for (int64_t k = 0; k < n; ++k)
          windows.setInt(i * n + k, i + k * distance);
      TRYT(gathered, tgc::gather(rows, im.constantTensor(windows), 1));
      TRYT(expanded, tgc::reshape(gathered, {batch, starts, 1, n}));
      TRYT(pattern, tgc::reshape(im.constantTensor(tokens), {1, 1, p, n}));
      TRYT(same, tgc::compare(ComparePredicate::eq, expanded, pattern));
      TRYT(asNumber, tgc::cast(same, DType::F32));
      TRYT(whole, tgc::reduceMin(asNumber, {3})); // [B, L, P]
      TRYT(here, tgc::reduceSum(whole, {1}));     // [B, P]
      if (counted) {
        TRYT(sum, tgc::add(*counted, here));
        counted = sum;
      } else {
        counted = here;
      }
    }
    if (!counted)
      continue;
    TRYT(placed, tgc::matmul(*counted, im.constantTensor(place)));
    if (total) {
      TRYT(sum, tgc::add(*total, placed));
      total = sum;
    } else {
      total = placed;
    }
  }
  Tensor y;
  if (total) {
    y = *total;
  } else {
    TRYT(zeros, tgc::full({batch, width}, 0.0, DType::F32));
    y = zeros;
  }
  if (mode != "TF") {
    // Per output coordinate: the weight of the n-gram placed there (1
    // without weights).
    HostTensor w = *HostTensor::allocate(DType::F32, {1, width});
    for (int64_t c = 0; c < width; ++c)
      w.setDouble(c, 1.0);
    if (weights)
      for (int64_t g = 0; g < ordinal; ++g)
        w.setDouble((*indexes)[static_cast<size_t>(g)],
                    (*weights)[static_cast<size_t>(g)]);
    Tensor scaled = y;
    if (mode == "IDF") {
      TRYT(present, tgc::minimum(y, tgc::full({1}, 1.0, DType::F32)));
      scaled = present;
    }
    TRYT(weighted, tgc::mul(scaled, im.constantTensor(w)));
    y = weighted;
  }
  if (!batched) {
    TRYT(flat, tgc::reshape(y, {width}));
    y = flat;
  }
  im.out(0, y);
  return llvm::Error::success();
}
} // namespace

void onnximpl::registerMathConverters(ConverterTable &table) {
  table.add("TfIdfVectorizer", 1, convTfIdfVectorizer);
  table.add("Det", 1, convDet);
  table.add("DFT", 17, convDFT);
  table.add("STFT", 17, convSTFT);
  table.add("MelWeightMatrix", 17, convMelWeightMatrix);
  table.add("MatMul", 1, convMatMul);
  table.add("Gemm", 1, convGemm);
  table.add("Einsum", 1, convEinsum);
  for (const char *op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    table.add(op, 1, convSoftmaxV1);
    table.add(op, 13, convSoftmaxV13);
  }
  table.add("CumSum", 1, convCumSum);
  table.add("TopK", 1, convTopKV1);
  table.add("TopK", 10, convTopKV10);
}
