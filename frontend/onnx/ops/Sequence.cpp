//===- Sequence.cpp - sequences and optionals -----------------------------===//
//
// Converters of ONNX's sequence and optional ops. A sequence's length and an
// optional's presence are known at import time (a graph input's structure is
// given: ImportOptions::inputStructures), so a sequence is the list of its
// element values (Val::elements) and these ops are list operations done by
// the importer: positions must be known at import (constants, or inputs the
// import is specialized on), SequenceMap's body is imported once per element,
// and the tensors that ConcatFromSequence and SplitToSequence build or take
// apart are ordinary tgc ops.
//
// - SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt,
//   SequenceErase, SequenceLength (a constant);
// - ConcatFromSequence (concat, or stack with new_axis), SplitToSequence
//   (static sizes along the axis);
// - SequenceMap;
// - Optional, OptionalHasElement (a constant), OptionalGetElement.
//
// Identity passes any value through (Elementwise.cpp); If with a known
// condition and Loop over sequences are in ControlFlow.cpp.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

#include <limits>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

using Kind = ValueStructure::Kind;

std::string inputName(Importer &im, int i) {
  return "input #" + std::to_string(i) + " '" + im.node().input(i) + "'";
}

llvm::Expected<Val *> sequenceIn(Importer &im, int i) {
  TRY(val, im.lookup(i));
  if (val->kind != Kind::Sequence)
    return im.fail(inputName(im, i) + " is " + val->describeKind() +
                   " where a sequence is expected");
  return val;
}

/// The element type the elements of a sequence share, checked for `t`.
llvm::Error checkElementType(Importer &im, const Val &seq, const Tensor &t) {
  for (const Val &e : seq.elements)
    if (e.isTensor()) {
      DType dtype = e.tensor.valid() ? e.tensor.dtype()
                    : e.constant     ? e.constant->dtype()
                                     : t.dtype();
      if (dtype != t.dtype())
        return im.fail("the sequence holds " +
                       std::string(runtime::dtypeName(dtype)) +
                       " tensors and cannot take " + t.describe());
      break;
    }
  return llvm::Error::success();
}

/// Input `i`: a position in a sequence of `n` values, known at import time,
/// in [-n, n - 1] (or [-n, n] where it inserts); negative counts from the
/// end.
llvm::Expected<int64_t> positionIn(Importer &im, int i, int64_t n,
                                   bool insert) {
  TRY(value, im.constIn(i));
  if (!value)
    return im.unsupported(
        inputName(im, i) +
        " is a position known only when the function runs (sequences are "
        "lists whose length and positions the import knows)");
  if (value->numElements() != 1 || isFloatDType(value->dtype()))
    return im.fail(inputName(im, i) + " must be one integer, not " +
                   value->describe());
  int64_t p = value->getInt(0);
  int64_t last = insert ? n : n - 1;
  if (p < -n || p > last)
    return im.fail("position " + llvm::Twine(p) +
                   " is out of range for a sequence of " + llvm::Twine(n) +
                   " values (valid: " + llvm::Twine(-n) + " to " +
                   llvm::Twine(last) + ")");
  return p < 0 ? p + n : p;
}

llvm::Error convSequenceEmpty(Importer &im) {
  im.outVal(0, Val::sequence({}));
  return llvm::Error::success();
}

llvm::Error convSequenceConstruct(Importer &im) {
  if (im.numInputs() < 1)
    return im.fail("needs at least one input");
  Val seq = Val::sequence({});
  for (int i = 0; i < im.numInputs(); ++i) {
    TRY(t, im.in(i));
    if (auto error = checkElementType(im, seq, t))
      return error;
    TRY(val, im.lookup(i));
    seq.elements.push_back(*val);
  }
  im.outVal(0, std::move(seq));
  return llvm::Error::success();
}

llvm::Error convSequenceInsert(Importer &im) {
  TRY(seqPtr, sequenceIn(im, 0));
  Val seq = *seqPtr;
  TRY(t, im.in(1));
  if (auto error = checkElementType(im, seq, t))
    return error;
  TRY(val, im.lookup(1));
  int64_t n = static_cast<int64_t>(seq.elements.size());
  int64_t at = n;
  if (im.has(2)) {
    TRY(p, positionIn(im, 2, n, /*insert=*/true));
    at = p;
  }
  seq.elements.insert(seq.elements.begin() + at, *val);
  im.outVal(0, std::move(seq));
  return llvm::Error::success();
}

llvm::Error convSequenceAt(Importer &im) {
  TRY(seq, sequenceIn(im, 0));
  TRY(p, positionIn(im, 1, static_cast<int64_t>(seq->elements.size()),
                    /*insert=*/false));
  im.outVal(0, seq->elements[static_cast<size_t>(p)]);
  return llvm::Error::success();
}

llvm::Error convSequenceErase(Importer &im) {
  TRY(seqPtr, sequenceIn(im, 0));
  Val seq = *seqPtr;
  int64_t n = static_cast<int64_t>(seq.elements.size());
  if (n == 0)
    return im.fail("cannot erase from an empty sequence");
  int64_t at = n - 1;
  if (im.has(1)) {
    TRY(p, positionIn(im, 1, n, /*insert=*/false));
    at = p;
  }
  seq.elements.erase(seq.elements.begin() + at);
  im.outVal(0, std::move(seq));
  return llvm::Error::success();
}

llvm::Error convSequenceLength(Importer &im) {
  TRY(seq, sequenceIn(im, 0));
  im.outConst(
      0, scalarHost(DType::I64, static_cast<int64_t>(seq->elements.size())));
  return llvm::Error::success();
}

llvm::Error convConcatFromSequence(Importer &im) {
  TRY(seq, sequenceIn(im, 0));
  TRY(axisAttr, im.attrInt("axis"));
  if (!axisAttr)
    return im.fail("needs the attribute 'axis'");
  TRY(newAxis, im.attrFlag("new_axis", false));
  if (seq->elements.empty())
    return im.fail("cannot concatenate an empty sequence (its result's "
                   "shape is unknown)");
  std::vector<Tensor> parts;
  for (auto [i, e] : llvm::enumerate(seq->elements)) {
    TRY(t, im.tensorOf(e, "element #" + std::to_string(i)));
    parts.push_back(t);
  }
  // With new_axis, the axis counts the result's dims (-1 stacks last).
  TRY(axis, im.normalizeAxis(*axisAttr, parts[0].rank() + (newAxis ? 1 : 0)));
  if (newAxis) {
    TRY(stacked, im.stack(parts, axis));
    im.out(0, stacked);
    return llvm::Error::success();
  }
  TRYT(result, concat(parts, axis));
  im.out(0, result);
  return llvm::Error::success();
}

llvm::Error convSplitToSequence(Importer &im) {
  TRY(x, im.in(0));
  TRY(axis, im.axisAttr("axis", 0, x.rank()));
  TRY(keepDims, im.attrFlag("keepdims", true));
  std::optional<int64_t> dim = x.dim(axis);
  if (!dim) {
    // An input the import is specialized on has its value's dims.
    TRY(known, im.constIn(0));
    if (known)
      dim = known->shape()[static_cast<size_t>(axis)];
  }
  if (!dim)
    return im.unsupported("splits along a dynamic dim (the sequence's "
                          "length would be known only when it runs)");
  std::vector<int64_t> sizes;
  bool squeezeEach = false;
  if (im.has(1)) {
    TRY(split, im.constIn(1));
    if (!split)
      return im.unsupported("a 'split' known only when the function runs "
                            "(the sequence's length would be known only "
                            "then)");
    if (isFloatDType(split->dtype()) || split->rank() > 1)
      return im.fail("'split' must be an integer scalar or 1-D tensor, not " +
                     split->describe());
    if (split->rank() == 0) {
      int64_t chunk = split->getInt(0);
      if (chunk <= 0)
        return im.fail("'split' must be positive, not " + llvm::Twine(chunk));
      for (int64_t at = 0; at < *dim; at += chunk)
        sizes.push_back(std::min(chunk, *dim - at));
    } else {
      int64_t total = 0;
      for (int64_t i = 0; i < split->numElements(); ++i) {
        int64_t s = split->getInt(i);
        if (s < 0)
          return im.fail("'split' holds the negative size " + llvm::Twine(s));
        sizes.push_back(s);
        total += s;
      }
      if (total != *dim)
        return im.fail("'split' sizes " + listOf(sizes) + " add up to " +
                       llvm::Twine(total) + ", not the dim's " +
                       llvm::Twine(*dim));
    }
  } else {
    sizes.assign(static_cast<size_t>(*dim), 1);
    squeezeEach = !keepDims;
  }
  Val seq = Val::sequence({});
  int64_t at = 0;
  std::vector<int64_t> starts(static_cast<size_t>(x.rank()), 0);
  std::vector<int64_t> ends(static_cast<size_t>(x.rank()),
                            std::numeric_limits<int64_t>::max());
  for (int64_t size : sizes) {
    starts[static_cast<size_t>(axis)] = at;
    ends[static_cast<size_t>(axis)] = at + size;
    TRYT(part, slice(x, starts, ends));
    Tensor element = part;
    if (squeezeEach) {
      TRYT(squeezed, squeeze(part, {axis}));
      element = squeezed;
    }
    seq.elements.push_back(Val{element, nullptr, ""});
    at += size;
  }
  im.outVal(0, std::move(seq));
  return llvm::Error::success();
}

llvm::Error convSequenceMap(Importer &im) {
  TRY(body, im.attrGraph("body"));
  TRY(first, sequenceIn(im, 0));
  size_t n = first->elements.size();
  std::vector<Val *> inputs;
  for (int i = 0; i < im.numInputs(); ++i) {
    TRY(val, im.lookup(i));
    if (val->kind == Kind::Sequence && val->elements.size() != n)
      return im.fail(inputName(im, i) + " is a sequence of " +
                     llvm::Twine(val->elements.size()) +
                     " values where input #0 has " + llvm::Twine(n));
    if (val->kind == Kind::Optional)
      return im.fail(inputName(im, i) + " is " + val->describeKind() +
                     " where a sequence or a tensor is expected");
    inputs.push_back(val);
  }
  std::vector<Val> results(static_cast<size_t>(body->output_size()),
                           Val::sequence({}));
  for (size_t k = 0; k < n; ++k) {
    std::vector<Val> args;
    for (Val *val : inputs)
      args.push_back(val->kind == Kind::Sequence ? val->elements[k] : *val);
    TRY(outs, im.importSubgraphVals(
                  *body, args, "body (element #" + std::to_string(k) + ")"));
    for (auto [j, out] : llvm::enumerate(outs)) {
      if (!out.isTensor())
        return im.fail("body output '" + body->output(j).name() + "' is " +
                       out.describeKind() + " where a tensor is expected");
      results[j].elements.push_back(out);
    }
  }
  for (auto [j, seq] : llvm::enumerate(results))
    im.outVal(static_cast<int>(j), std::move(seq));
  return llvm::Error::success();
}

llvm::Error convOptional(Importer &im) {
  if (!im.has(0)) {
    if (!im.attr("type"))
      return im.fail("an Optional without an input needs the attribute "
                     "'type'");
    im.outVal(0, Val::optional(std::nullopt));
    return llvm::Error::success();
  }
  TRY(val, im.lookup(0));
  if (val->kind == Kind::Optional)
    return im.fail(inputName(im, 0) + " is " + val->describeKind() +
                   " (optionals do not nest)");
  im.outVal(0, Val::optional(*val));
  return llvm::Error::success();
}

llvm::Error convOptionalHasElement(Importer &im) {
  bool present = false;
  if (im.has(0)) {
    TRY(val, im.lookup(0));
    present = val->kind != Kind::Optional || !val->elements.empty();
  }
  im.outConst(0, scalarHost(DType::I1, present));
  return llvm::Error::success();
}

llvm::Error convOptionalGetElement(Importer &im) {
  TRY(val, im.lookup(0));
  if (val->kind != Kind::Optional) {
    im.outVal(0, *val);
    return llvm::Error::success();
  }
  if (val->elements.empty())
    return im.fail(inputName(im, 0) + " is an empty optional: it has no "
                                      "element to get");
  im.outVal(0, val->elements.front());
  return llvm::Error::success();
}

} // namespace

void tgc::onnximpl::registerSequenceConverters(ConverterTable &table) {
  table.add("SequenceEmpty", 1, convSequenceEmpty);
  table.add("SequenceConstruct", 1, convSequenceConstruct);
  table.add("SequenceInsert", 1, convSequenceInsert);
  table.add("SequenceAt", 1, convSequenceAt);
  table.add("SequenceErase", 1, convSequenceErase);
  table.add("SequenceLength", 1, convSequenceLength);
  table.add("ConcatFromSequence", 1, convConcatFromSequence);
  table.add("SplitToSequence", 1, convSplitToSequence);
  table.add("SequenceMap", 1, convSequenceMap);
  table.add("Optional", 1, convOptional);
  table.add("OptionalHasElement", 1, convOptionalHasElement);
  table.add("OptionalGetElement", 1, convOptionalGetElement);
}
