//===- ControlFlow.cpp - If, Loop and Scan --------------------------------===//
//
// Converters of ONNX's control-flow ops into tgc.if and tgc.while (the
// tracing API's machinery, frontend/ControlFlowInternal.h): each subgraph is
// imported into a region as it is traced (Importer::importSubgraph), and
// what it reads from the enclosing graphs becomes the region's captures.
//
// - If: the branches must give each output one type.
// - Loop: the trip count M and the condition are both optional; the
//   carried values keep their types. Scan outputs (stacked per-iteration
//   values) need a constant M and a condition that stays true (the
//   condition input absent or constant true, the body's condition output
//   its input or constant true): their length is then M. With M at most
//   64 the loop is unrolled at import instead, as is a Loop that carries
//   sequences or optionals.
// - Scan (opset 9 on): any scan axes and directions; the scanned length
//   must be static. Scan-8 (a batch dim, sequence_lens): Scan-9 per batch
//   element, sequence_lens covering whole sequences.
//
//===----------------------------------------------------------------------===//

#include "frontend/ControlFlowInternal.h"
#include "frontend/TraceState.h"
#include "frontend/onnx/ImporterInternal.h"

#include "mlir/IR/Matchers.h"

#include <limits>
#include <optional>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

/// Remembers the first import error of a subgraph imported from inside a
/// traced region (whose callables return tensors, not errors).
class PendingError {
public:
  ~PendingError() {
    if (error)
      llvm::consumeError(std::move(*error));
  }
  bool failed() const { return error.has_value(); }
  void set(llvm::Error e) {
    if (!error)
      error.emplace(std::move(e));
    else
      llvm::consumeError(std::move(e));
  }
  llvm::Error take() {
    llvm::Error e = std::move(*error);
    error.reset();
    return e;
  }

private:
  std::optional<llvm::Error> error;
};

/// A region body that imports `graph` on the region's arguments.
detail::RegionBody importer(Importer &im, const ::onnx::GraphProto &graph,
                            const char *what, PendingError &pending) {
  return [&im, &graph, what,
          &pending](const std::vector<Tensor> &args) -> std::vector<Tensor> {
    if (pending.failed())
      return {};
    auto results = im.importSubgraph(graph, args, what);
    if (!results) {
      pending.set(results.takeError());
      return {};
    }
    return *results;
  };
}

/// The node's outputs from `results`, or the error that stopped them.
llvm::Error finish(Importer &im, PendingError &pending,
                   const std::vector<Tensor> &results, size_t expected) {
  if (pending.failed())
    return pending.take();
  if (detail::activeTrace()->hasError())
    return im.traceFailure();
  if (results.size() != expected)
    return im.fail("produced " + llvm::Twine(results.size()) +
                   " outputs where " + llvm::Twine(expected) +
                   " were expected");
  for (size_t i = 0; i < results.size(); ++i)
    im.out(static_cast<int>(i), results[i]);
  return llvm::Error::success();
}

/// Whether `t` is a constant whose every element is true (nonzero).
bool isConstantTrue(const Tensor &t) {
  mlir::DenseElementsAttr value;
  if (!t.valid() || !mlir::matchPattern(valueOf(t), mlir::m_Constant(&value)))
    return false;
  for (const llvm::APInt &v : value.getValues<llvm::APInt>())
    if (v.isZero())
      return false;
  return true;
}

/// Whether a subgraph declares an output that is not a tensor (a sequence or
/// an optional).
bool givesStructuredValues(const ::onnx::GraphProto &graph) {
  return llvm::any_of(graph.output(), [](const ::onnx::ValueInfoProto &out) {
    return out.has_type() && !out.type().has_tensor_type();
  });
}

llvm::Error convIf(Importer &im) {
  TRY(condition, im.in(0));
  TRY(thenGraph, im.attrGraph("then_branch"));
  TRY(elseGraph, im.attrGraph("else_branch"));
  if (thenGraph->output_size() != elseGraph->output_size())
    return im.fail("then_branch has " + llvm::Twine(thenGraph->output_size()) +
                   " outputs but else_branch " +
                   llvm::Twine(elseGraph->output_size()));
  TRY(known, im.constIn(0));
  if (known) {
    // The branch taken is known at import: import it in line (the other one
    // is dead). This is also how branches give sequences and optionals.
    if (known->numElements() != 1)
      return im.fail("the condition must hold one value, not " +
                     known->describe());
    bool taken = known->getInt(0) != 0;
    TRY(outs, im.importSubgraphVals(taken ? *thenGraph : *elseGraph, {},
                                    taken ? "then_branch" : "else_branch"));
    for (auto [i, out] : llvm::enumerate(outs))
      im.outVal(static_cast<int>(i), out);
    return llvm::Error::success();
  }
  if (givesStructuredValues(*thenGraph) || givesStructuredValues(*elseGraph))
    return im.unsupported(
        "branches that give sequences or optionals need a condition known at "
        "import (a constant, or an input the import is specialized on)");
  PendingError pending;
  std::vector<Tensor> results = detail::traceCond(
      condition, {}, importer(im, *thenGraph, "then_branch", pending),
      importer(im, *elseGraph, "else_branch", pending), SourceLoc::current(),
      /*relaxShapes=*/true); // ONNX allows branch outputs of other shapes
  return finish(im, pending, results,
                static_cast<size_t>(thenGraph->output_size()));
}

/// Loops with scan outputs and at most this many iterations known at import
/// are unrolled there.
constexpr int64_t kMaxUnrolledScanLoop = 64;

/// A Loop that carries sequences or optionals, unrolled at import: its trip
/// count and condition must be known at import (the condition after each
/// iteration too), and it runs at most kMaxUnrolled iterations.
llvm::Error unrollLoop(Importer &im, const ::onnx::GraphProto &body,
                       int numCarried, int numScans) {
  constexpr int64_t kMaxUnrolled = 4096;
  std::optional<int64_t> trips;
  if (im.has(0)) {
    TRY(m, im.constIn(0));
    if (!m)
      return im.unsupported(
          "a Loop that carries sequences or optionals is unrolled at import, "
          "so its trip count must be known at import (a constant, or an "
          "input the import is specialized on)");
    if (m->numElements() != 1 || isFloatDType(m->dtype()))
      return im.fail("the trip count must be an int64 scalar, not " +
                     m->describe());
    trips = m->getInt(0);
  }
  bool go = true;
  if (im.has(1)) {
    TRY(c, im.constIn(1));
    if (!c)
      return im.unsupported(
          "a Loop that carries sequences or optionals is unrolled at import, "
          "so its condition must be known at import");
    if (c->numElements() != 1)
      return im.fail("the condition must hold one value, not " + c->describe());
    go = c->getInt(0) != 0;
  }
  std::vector<Val> carried;
  for (int i = 0; i < numCarried; ++i) {
    TRY(v, im.lookup(2 + i));
    carried.push_back(*v);
  }
  std::vector<std::vector<Tensor>> scans(static_cast<size_t>(numScans));
  for (int64_t i = 0; go && (!trips || i < *trips); ++i) {
    if (i >= kMaxUnrolled)
      return im.unsupported("a Loop that carries sequences or optionals is "
                            "unrolled at import, and this one runs more than " +
                            llvm::Twine(kMaxUnrolled) + " iterations");
    std::vector<Val> args;
    args.push_back(Val{Tensor(),
                       std::make_shared<HostTensor>(scalarHost(DType::I64, i)),
                       "iteration"});
    args.push_back(Val{Tensor(),
                       std::make_shared<HostTensor>(scalarHost(DType::I1, 1)),
                       "condition"});
    args.insert(args.end(), carried.begin(), carried.end());
    TRY(outs, im.importSubgraphVals(
                  body, args, "body (iteration " + std::to_string(i) + ")"));
    TRY(next, im.constOf(outs[0], "the body's condition output"));
    if (!next)
      return im.unsupported(
          "a Loop that carries sequences or optionals is unrolled at import, "
          "so the condition its body gives must be known at import; this one "
          "is computed when the function runs");
    go = next->numElements() == 1 && next->getInt(0) != 0;
    for (int k = 0; k < numCarried; ++k)
      carried[static_cast<size_t>(k)] = outs[static_cast<size_t>(1 + k)];
    for (int k = 0; k < numScans; ++k) {
      Val &out = outs[static_cast<size_t>(1 + numCarried + k)];
      TRY(t, im.tensorOf(out, "scan output #" + std::to_string(k)));
      scans[static_cast<size_t>(k)].push_back(t);
    }
  }
  for (int k = 0; k < numCarried; ++k)
    im.outVal(k, carried[static_cast<size_t>(k)]);
  for (int k = 0; k < numScans; ++k) {
    if (scans[static_cast<size_t>(k)].empty())
      return im.unsupported("scan outputs of an unrolled Loop that runs no "
                            "iteration (their element shape is unknown)");
    TRY(stacked, im.stack(scans[static_cast<size_t>(k)], 0));
    im.out(numCarried + k, stacked);
  }
  return llvm::Error::success();
}

llvm::Error convLoop(Importer &im) {
  TRY(body, im.attrGraph("body"));
  int numCarried = im.numInputs() - 2;
  if (numCarried < 0)
    numCarried = 0;
  int numScans = body->output_size() - 1 - numCarried;
  if (numScans < 0 || body->input_size() != 2 + numCarried)
    return im.fail("the body takes " + llvm::Twine(body->input_size()) +
                   " inputs and gives " + llvm::Twine(body->output_size()) +
                   " outputs for " + llvm::Twine(numCarried) +
                   " loop-carried values (it takes the iteration number, the "
                   "condition and each value, and gives the condition, each "
                   "value and any scan outputs)");
  bool structured = givesStructuredValues(*body);
  for (int i = 0; i < numCarried && !structured; ++i) {
    TRY(v, im.lookup(2 + i));
    structured = !v->isTensor();
  }
  if (structured)
    return unrollLoop(im, *body, numCarried, numScans);
  std::optional<Tensor> maxTrips;
  std::optional<int64_t> constantTrips;
  if (im.has(0)) {
    TRY(m, im.in(0));
    if (m.dtype() != DType::I64 || m.numElements() != std::optional<int64_t>(1))
      return im.fail("the trip count must be an int64 scalar, not " +
                     m.describe());
    maxTrips = reshape(m, {});
    TRY(known, im.constIn(0));
    if (known)
      constantTrips = known->getInt(0);
  }
  Tensor condition;
  bool alwaysTrue = true;
  if (im.has(1)) {
    TRY(c, im.in(1));
    condition = c;
    TRY(known, im.constIn(1));
    alwaysTrue = false;
    if (known) {
      alwaysTrue = true;
      for (int64_t i = 0; i < known->numElements(); ++i)
        alwaysTrue &= known->getInt(i) != 0;
    }
  } else {
    condition = scalar(true, DType::I1);
  }
  std::vector<Tensor> init = {condition};
  for (int i = 0; i < numCarried; ++i) {
    TRY(v, im.in(2 + i));
    init.push_back(v);
  }
  // Scan outputs of a short loop whose trip count the import knows: the
  // loop is unrolled, so each iteration's outputs keep their own shapes
  // (a slice at the iteration number, test_loop11) and fold where they can.
  if (numScans > 0 && constantTrips && *constantTrips >= 0 &&
      *constantTrips <= kMaxUnrolledScanLoop && alwaysTrue)
    return unrollLoop(im, *body, numCarried, numScans);
  if (numScans > 0) {
    if (!constantTrips)
      return im.unsupported(
          "scan outputs of a Loop whose trip count is known only when it "
          "runs (their length would be data-dependent)");
    if (*constantTrips < 0 || *constantTrips > (int64_t(1) << 24))
      return im.unsupported("scan outputs of a Loop of " +
                            llvm::Twine(*constantTrips) + " iterations");
  }
  PendingError pending;
  detail::RegionBody importBody = importer(im, *body, "body", pending);
  std::vector<Tensor> results = detail::traceCountedLoop(
      init, constantTrips, static_cast<size_t>(numScans),
      [&](const std::vector<Tensor> &args) {
        // args: the iteration number, the condition, the values.
        Tensor go = reshape(args[1], {});
        if (maxTrips)
          go = logicalAnd(less(args[0], *maxTrips), go);
        return std::vector<Tensor>{go};
      },
      [&](const std::vector<Tensor> &args) {
        std::vector<Tensor> out = importBody(args);
        if (!out.empty() && valueOf(out[0]) != valueOf(args[1]) &&
            !isConstantTrue(out[0]))
          alwaysTrue = false;
        return out;
      },
      SourceLoc::current(),
      /*relaxShapes=*/true); // a carried value may grow (a concat per step)
  if (!pending.failed() && numScans > 0 && !alwaysTrue)
    return im.unsupported(
        "scan outputs of a Loop whose condition may stop it early (their "
        "length would be data-dependent)");
  if (!results.empty())
    results.erase(results.begin()); // the final condition
  return finish(im, pending, results,
                static_cast<size_t>(numCarried + numScans));
}

/// `perm` moving dim 0 of a rank-`rank` tensor to `axis`.
std::vector<int64_t> moveFrontTo(int64_t axis, int64_t rank) {
  std::vector<int64_t> perm;
  for (int64_t d = 1; d < rank; ++d) {
    if (static_cast<int64_t>(perm.size()) == axis)
      perm.push_back(0);
    perm.push_back(d);
  }
  if (static_cast<int64_t>(perm.size()) < rank)
    perm.push_back(0);
  return perm;
}

/// Scan-9's loop: `body` over the slices of `xs` along `inAxes` (normalized,
/// static and equal lengths) in `inDirections`, carrying `states`; gives
/// the states' final values, then the scan outputs stacked along
/// `outAxes` in `outDirections`.
llvm::Expected<std::vector<Tensor>>
scanLoop(Importer &im, const ::onnx::GraphProto &body,
         const std::vector<Tensor> &states, const std::vector<Tensor> &xs,
         const std::vector<int64_t> &inAxes,
         const std::vector<int64_t> &inDirections,
         const std::vector<int64_t> &outAxes,
         const std::vector<int64_t> &outDirections) {
  int64_t length = *xs.front().dim(inAxes.front());
  size_t numScans = outAxes.size();
  PendingError pending;
  detail::RegionBody importBody = importer(im, body, "body", pending);
  std::vector<Tensor> results = detail::traceCountedLoop(
      states, length, numScans,
      [&](const std::vector<Tensor> &args) {
        return std::vector<Tensor>{less(args[0], Scalar(length))};
      },
      [&](const std::vector<Tensor> &args) {
        std::vector<Tensor> inputs(args.begin() + 1, args.end());
        Tensor reversed = sub(Scalar(length - 1), args[0]);
        for (size_t j = 0; j < xs.size(); ++j)
          inputs.push_back(
              gather(xs[j], inDirections[j] ? reversed : args[0], inAxes[j]));
        return importBody(inputs);
      },
      SourceLoc::current());
  if (pending.failed())
    return pending.take();
  if (detail::activeTrace()->hasError())
    return im.traceFailure();
  if (results.size() != states.size() + numScans)
    return im.fail("produced " + llvm::Twine(results.size()) +
                   " outputs where " + llvm::Twine(states.size() + numScans) +
                   " were expected");
  // Stacked along dim 0 in iteration order: reversed and moved to their
  // axes where asked.
  for (size_t k = 0; k < numScans; ++k) {
    Tensor &y = results[states.size() + k];
    if (outDirections[k]) {
      HostTensor order = *HostTensor::allocate(DType::I64, {length});
      for (int64_t t = 0; t < length; ++t)
        order.setInt(t, length - 1 - t);
      y = gather(y, constant(order), 0);
    }
    TRY(axis, im.normalizeAxis(outAxes[k], y.rank()));
    if (axis != 0)
      y = transpose(y, moveFrontTo(axis, y.rank()));
  }
  return results;
}

/// An int attribute per scan input or output (`count`), zeros by default.
llvm::Expected<std::vector<int64_t>>
perScanValue(Importer &im, llvm::StringRef name, int count) {
  TRY(values, im.attrInts(name));
  if (!values)
    return std::vector<int64_t>(static_cast<size_t>(count), 0);
  if (static_cast<int>(values->size()) != count)
    return im.fail("attribute '" + name + "' has " +
                   llvm::Twine(values->size()) + " values for " +
                   llvm::Twine(count) + " scan inputs or outputs");
  return *values;
}

/// The body, the number of state variables and of scan outputs of a Scan
/// whose states and scan inputs are its inputs from `first` on.
struct ScanShape {
  const ::onnx::GraphProto *body;
  int numStates, numScanInputs, numScans;
};
llvm::Expected<ScanShape> scanShape(Importer &im, int first) {
  TRY(body, im.attrGraph("body"));
  TRY(numScanInputs, im.attrInt("num_scan_inputs"));
  int numInputs = im.numInputs() - first;
  if (!numScanInputs || *numScanInputs < 1 || *numScanInputs > numInputs)
    return im.fail("needs num_scan_inputs between 1 and its " +
                   llvm::Twine(numInputs) + " states and scan inputs");
  int numStates = numInputs - static_cast<int>(*numScanInputs);
  int numScans = body->output_size() - numStates;
  if (numScans < 0 || body->input_size() != numInputs)
    return im.fail("the body takes " + llvm::Twine(body->input_size()) +
                   " inputs and gives " + llvm::Twine(body->output_size()) +
                   " outputs for " + llvm::Twine(numStates) +
                   " state variables and " + llvm::Twine(*numScanInputs) +
                   " scan inputs");
  return ScanShape{body, numStates, static_cast<int>(*numScanInputs), numScans};
}

llvm::Error convScan(Importer &im) {
  TRY(shape, scanShape(im, 0));
  TRY(inAxes, perScanValue(im, "scan_input_axes", shape.numScanInputs));
  TRY(inDirections,
      perScanValue(im, "scan_input_directions", shape.numScanInputs));
  TRY(outAxes, perScanValue(im, "scan_output_axes", shape.numScans));
  TRY(outDirections,
      perScanValue(im, "scan_output_directions", shape.numScans));
  std::vector<Tensor> states, xs;
  for (int i = 0; i < shape.numStates; ++i) {
    TRY(s, im.in(i));
    states.push_back(s);
  }
  std::optional<int64_t> length;
  for (int j = 0; j < shape.numScanInputs; ++j) {
    TRY(x, im.in(shape.numStates + j));
    TRY(axis, im.normalizeAxis(inAxes[j], x.rank()));
    inAxes[j] = axis;
    std::optional<int64_t> n = x.dim(axis);
    if (!n)
      return im.unsupported("scan input #" + llvm::Twine(j) +
                            " has a dynamic length along its scan axis");
    if (length && *length != *n)
      return im.fail("scan inputs of lengths " + llvm::Twine(*length) +
                     " and " + llvm::Twine(*n));
    length = n;
    xs.push_back(x);
  }
  TRY(results, scanLoop(im, *shape.body, states, xs, inAxes, inDirections,
                        outAxes, outDirections));
  for (auto [i, t] : llvm::enumerate(results))
    im.out(static_cast<int>(i), t);
  return llvm::Error::success();
}

/// Scan before opset 9: inputs [sequence_lens], states [B, ...], scan
/// inputs [B, S, ...] (scanned along dim 1), outputs batched the same way.
/// Each batch element is Scan-9 over its own slices (the batch dim static);
/// sequence_lens, where given, must be known at import and cover whole
/// sequences.
llvm::Error convScan8(Importer &im) {
  TRY(shape, scanShape(im, 1));
  TRY(directions, perScanValue(im, "directions", shape.numScanInputs));
  std::vector<Tensor> states, xs;
  for (int i = 0; i < shape.numStates + shape.numScanInputs; ++i) {
    TRY(t, im.in(1 + i));
    (i < shape.numStates ? states : xs).push_back(t);
  }
  std::optional<int64_t> batch, length;
  for (auto [j, t] : llvm::enumerate(llvm::concat<Tensor>(states, xs))) {
    bool scanned = j >= states.size();
    if (t.rank() < (scanned ? 2 : 1))
      return im.fail("Scan-8 states need a batch dim and scan inputs a batch "
                     "and a sequence dim, not " +
                     t.describe());
    std::optional<int64_t> b = t.dim(0);
    std::optional<int64_t> s = scanned ? t.dim(1) : length;
    if (!b || (scanned && !s))
      return im.unsupported("Scan-8 needs static batch and sequence dims, "
                            "not " +
                            t.describe());
    if ((batch && *batch != *b) || (scanned && length && *length != *s))
      return im.fail("Scan-8 inputs of different batch or sequence sizes: " +
                     t.describe());
    batch = b;
    if (scanned)
      length = s;
  }
  if (*batch == 0)
    return im.unsupported("Scan-8 over an empty batch");
  if (im.has(0)) {
    TRY(lens, im.constIn(0));
    if (!lens)
      return im.unsupported("sequence_lens known only when it runs");
    for (int64_t i = 0; i < lens->numElements(); ++i)
      if (lens->getInt(i) != *length)
        return im.unsupported("sequence_lens shorter than the sequence (" +
                              llvm::Twine(lens->getInt(i)) + " of " +
                              llvm::Twine(*length) + ")");
  }
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  auto element = [&](const Tensor &t, int64_t b) -> llvm::Expected<Tensor> {
    std::vector<int64_t> starts(static_cast<size_t>(t.rank()), 0);
    std::vector<int64_t> ends(static_cast<size_t>(t.rank()), kEnd);
    starts[0] = b;
    ends[0] = b + 1;
    TRYT(sliced, slice(t, starts, ends));
    TRYT(squeezed, squeeze(sliced, {0}));
    return squeezed;
  };
  std::vector<std::vector<Tensor>> perBatch;
  std::vector<int64_t> zeros(static_cast<size_t>(shape.numScanInputs), 0);
  for (int64_t b = 0; b < *batch; ++b) {
    std::vector<Tensor> bStates, bXs;
    for (const Tensor &t : states) {
      TRY(e, element(t, b));
      bStates.push_back(e);
    }
    for (const Tensor &t : xs) {
      TRY(e, element(t, b));
      bXs.push_back(e);
    }
    TRY(results,
        scanLoop(im, *shape.body, bStates, bXs, zeros, directions,
                 std::vector<int64_t>(static_cast<size_t>(shape.numScans), 0),
                 std::vector<int64_t>(static_cast<size_t>(shape.numScans), 0)));
    perBatch.push_back(std::move(results));
  }
  for (size_t k = 0; k < perBatch.front().size(); ++k) {
    std::vector<Tensor> rows;
    for (const std::vector<Tensor> &results : perBatch)
      rows.push_back(results[k]);
    TRY(stacked, im.stack(rows, 0));
    im.out(static_cast<int>(k), stacked);
  }
  return llvm::Error::success();
}

} // namespace

void tgc::onnximpl::registerControlFlowConverters(ConverterTable &table) {
  table.add("If", 1, convIf);
  table.add("Loop", 1, convLoop);
  table.add("Scan", 1, convScan8);
  table.add("Scan", 9, convScan);
}
