//===- Reduction.cpp - ONNX reductions ------------------------------------===//
//
// Converters of ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, ArgMax
// and ArgMin.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

/// Reads a reduction's axes (not normalized; empty when none are given).
using AxesReader = llvm::Expected<std::vector<int64_t>> (*)(Importer &im);

/// The axes as the attribute 'axes' (ReduceSum before opset 13, the other
/// reductions up to opset 17).
llvm::Expected<std::vector<int64_t>> axesFromAttribute(Importer &im) {
  TRY(a, im.attrInts("axes"));
  return a ? *a : std::vector<int64_t>();
}

/// The axes as the optional input #1, which must be a constant (ReduceSum
/// from opset 13).
llvm::Expected<std::vector<int64_t>> axesFromInput(Importer &im) {
  if (!im.has(1))
    return std::vector<int64_t>();
  return im.constInts(1, "axes");
}

/// The node's reduction, with the axes `readAxes` reads.
llvm::Error reduce(Importer &im, AxesReader readAxes) {
  const std::string &op = im.node().op_type();
  TRY(x, im.in(0));
  TRY(keepdims, im.attrFlag("keepdims", true));
  TRY(noop, im.attrFlag("noop_with_empty_axes", false));
  TRY(given, readAxes(im));
  std::vector<int64_t> axes;
  for (int64_t a : given) {
    TRY(n, im.normalizeAxis(a, x.rank()));
    axes.push_back(n);
  }
  if (axes.empty()) {
    if (noop || x.rank() == 0) {
      im.out(0, x);
      return llvm::Error::success();
    }
    for (int64_t d = 0; d < x.rank(); ++d)
      axes.push_back(d);
  }
  bool keep = keepdims;
  Tensor y;
  if (op == "ReduceSum") {
    TRYT(r, tgc::reduceSum(x, axes, keep));
    y = r;
  } else if (op == "ReduceMean") {
    TRYT(r, tgc::reduceMean(x, axes, keep));
    y = r;
  } else if (op == "ReduceMax") {
    TRYT(r, tgc::reduceMax(x, axes, keep));
    y = r;
  } else if (op == "ReduceMin") {
    TRYT(r, tgc::reduceMin(x, axes, keep));
    y = r;
  } else if (op == "ReduceProd") {
    TRYT(r, tgc::reduceProd(x, axes, keep));
    y = r;
  } else if (op == "ReduceL1") {
    TRYT(a, tgc::abs(x));
    TRYT(r, tgc::reduceSum(a, axes, keep));
    y = r;
  } else if (op == "ReduceL2") {
    TRYT(sq, tgc::mul(x, x));
    TRYT(s, tgc::reduceSum(sq, axes, keep));
    if (runtime::isFloatDType(x.dtype())) {
      TRYT(r, tgc::sqrt(s));
      y = r;
    } else {
      TRYT(f, tgc::cast(s, DType::F64));
      TRYT(r, tgc::sqrt(f));
      TRYT(c, tgc::cast(r, x.dtype()));
      y = c;
    }
  } else if (op == "ReduceSumSquare") {
    TRYT(sq, tgc::mul(x, x));
    TRYT(r, tgc::reduceSum(sq, axes, keep));
    y = r;
  } else if (op == "ReduceLogSum") {
    TRYT(s, tgc::reduceSum(x, axes, keep));
    TRYT(r, tgc::log(s));
    y = r;
  } else { // ReduceLogSumExp
    TRYT(e, tgc::exp(x));
    TRYT(s, tgc::reduceSum(e, axes, keep));
    TRYT(r, tgc::log(s));
    y = r;
  }
  im.out(0, y);
  return llvm::Error::success();
}

llvm::Error convReduceV1(Importer &im) { return reduce(im, axesFromAttribute); }

llvm::Error convReduceSumV13(Importer &im) { return reduce(im, axesFromInput); }

llvm::Error convArgReduce(Importer &im) {
  TRY(x, im.in(0));
  TRY(axis, im.axisAttr("axis", 0, x.rank()));
  TRY(keepdims, im.attrFlag("keepdims", true));
  TRY(last, im.attrFlag("select_last_index", false));
  bool isMax = im.node().op_type() == "ArgMax";
  TRYT(y, isMax ? tgc::argmax(x, axis, keepdims, last)
                : tgc::argmin(x, axis, keepdims, last));
  im.out(0, y);
  return llvm::Error::success();
}

} // namespace

void onnximpl::registerReductionConverters(ConverterTable &table) {
  for (const char *op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                         "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare"})
    table.add(op, 1, convReduceV1);
  table.add("ReduceSum", 13, convReduceSumV13);
  table.add("ArgMax", 1, convArgReduce);
  table.add("ArgMin", 1, convArgReduce);
}
