//===- ControlFlow.h - conditionals and loops in traced functions -*- C++
//-*-===//
//
// A traced function runs C++ `if` and `for` while it is traced: they decide
// what is traced, once. Branches and loops that depend on tensor values are
// traced into the function with these (jax.lax.cond / while_loop /
// fori_loop / scan, tf.cond / tf.while_loop):
//
//   Tensor y = tgc::cond(tgc::greater(tgc::reduceSum(x, {0}), 0.0),
//                        [](Tensor v) { return tgc::relu(v); },
//                        [](Tensor v) { return tgc::neg(v); }, x);
//
//   auto [i, s] = tgc::whileLoop(
//       [&](const std::pair<Tensor, Tensor> &c) { return tgc::less(c.first, n);
//       },
//       [&](const std::pair<Tensor, Tensor> &c) {
//         return std::pair{tgc::add(c.first, 1), tgc::mul(c.second, 0.5)};
//       },
//       std::pair{tgc::scalar(0, DType::I64), x});
//
// The callables are traced once each, into regions of a tgc.if / tgc.while
// op (docs/TgcDialect.md); the compiled function runs them as often as the
// values say. Operands and carried values are any output structure
// (tgc/Structure.h: tuples, pairs, vectors, arrays, optionals, maps of
// Tensors, nested); a branch returns any output structure, both branches
// the same one. A callable may also read tensors of the enclosing trace
// directly: they become inputs of the region (captures).
//
// Errors are recorded at the caller's source location like any op's, and
// the results are then invalid tensors: a condition that is not a
// tensor<i1> holding one element; branches returning different structures,
// dtypes or shapes; a loop body that returns another structure or changes a
// carried value's dtype or shape.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CONTROLFLOW_H
#define TGC_CONTROLFLOW_H

#include "tgc/Structure.h"
#include "tgc/Tensor.h"

#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace tgc {

namespace detail {
/// A region traced from a callable: given the region's arguments, returns
/// the tensors it yields (the callable's result, flattened).
using RegionBody =
    std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;

/// Traces a tgc.if of `condition` over `operands`; returns its results
/// (empty when it could not be traced: the error is recorded). With
/// `relaxShapes`, branch results of one dtype and rank whose dims differ
/// give a result with those dims dynamic (ONNX If's outputs), not an error.
std::vector<Tensor> traceCond(const Tensor &condition,
                              const std::vector<Tensor> &operands,
                              const RegionBody &thenBody,
                              const RegionBody &elseBody, SourceLoc loc,
                              bool relaxShapes = false);

/// Traces a tgc.while carrying `init`; returns its results (empty when it
/// could not be traced: the error is recorded).
std::vector<Tensor> traceWhile(const std::vector<Tensor> &init,
                               const RegionBody &condBody,
                               const RegionBody &body, SourceLoc loc);

/// Rebuilds a structure shaped like `like` from `flat` (invalid tensors
/// where `flat` runs short).
template <typename S>
S restructure(const S &like, const std::vector<Tensor> &flat) {
  std::vector<Tensor> copy = flat;
  size_t pos = 0;
  return unflattenOutputs(like, copy, pos);
}
} // namespace detail

/// Runs `thenFn(operands)` when the one element of `condition` (a
/// tensor<i1>) is true, `elseFn(operands)` otherwise, and returns what it
/// returns.
template <typename S, typename ThenFn, typename ElseFn>
requires kIsOutputStructure<S>
auto cond(const Tensor &condition, ThenFn thenFn, ElseFn elseFn,
          const S &operands, SourceLoc loc = SourceLoc::current()) {
  using R = std::remove_cvref_t<std::invoke_result_t<ThenFn &, const S &>>;
  static_assert(kIsOutputStructure<R>,
                "tgc::cond: a branch must return a Tensor or a structure of "
                "them");
  std::optional<R> shape;
  auto branch = [&](auto &fn) {
    return [&](const std::vector<Tensor> &args) {
      R result = fn(detail::restructure(operands, args));
      std::vector<Tensor> flat = flattenOutputs(result);
      if (!shape)
        shape = std::move(result);
      return flat;
    };
  };
  std::vector<Tensor> results = detail::traceCond(
      condition, flattenOutputs(operands), branch(thenFn), branch(elseFn), loc);
  if (!shape)
    return R();
  return detail::restructure(*shape, results);
}

/// cond without operands: the branches read what they need from the
/// enclosing trace.
template <typename ThenFn, typename ElseFn>
auto cond(const Tensor &condition, ThenFn thenFn, ElseFn elseFn,
          SourceLoc loc = SourceLoc::current()) {
  return cond(
      condition, [&](const std::vector<Tensor> &) { return thenFn(); },
      [&](const std::vector<Tensor> &) { return elseFn(); },
      std::vector<Tensor>{}, loc);
}

/// Carries `init` through `bodyFn` while `condFn` (returning a tensor<i1>
/// holding one element) is true; returns the carried values. The body
/// returns the structure it is given, with the same dtypes and shapes.
template <typename S, typename CondFn, typename BodyFn>
S whileLoop(CondFn condFn, BodyFn bodyFn, const S &init,
            SourceLoc loc = SourceLoc::current()) {
  static_assert(kIsOutputStructure<S>,
                "tgc::whileLoop: carried values must be a Tensor or a "
                "structure of them");
  std::vector<Tensor> results = detail::traceWhile(
      flattenOutputs(init),
      [&](const std::vector<Tensor> &args) {
        return std::vector<Tensor>{condFn(detail::restructure(init, args))};
      },
      [&](const std::vector<Tensor> &args) {
        return flattenOutputs(
            static_cast<S>(bodyFn(detail::restructure(init, args))));
      },
      loc);
  return detail::restructure(init, results);
}

/// `bodyFn(i, carried)` for i from `lower` to `upper` - 1 (i64 scalars);
/// returns the carried values.
template <typename S, typename BodyFn>
S forLoop(const Tensor &lower, const Tensor &upper, BodyFn bodyFn,
          const S &init, SourceLoc loc = SourceLoc::current()) {
  auto result = whileLoop(
      [&](const std::pair<Tensor, S> &c) { return less(c.first, upper, loc); },
      [&](const std::pair<Tensor, S> &c) {
        return std::pair<Tensor, S>(add(c.first, Scalar(1), loc),
                                    static_cast<S>(bodyFn(c.first, c.second)));
      },
      std::pair<Tensor, S>(lower, init), loc);
  return result.second;
}

/// forLoop over constant bounds.
template <typename S, typename BodyFn>
S forLoop(int64_t lower, int64_t upper, BodyFn bodyFn, const S &init,
          SourceLoc loc = SourceLoc::current()) {
  return forLoop(scalar(lower, runtime::DType::I64, loc),
                 scalar(upper, runtime::DType::I64, loc), bodyFn, init, loc);
}

namespace detail {
/// One scan step: the carry (flattened) and x in, the next carry
/// (flattened) and y out, y last.
using ScanStep = std::function<std::vector<Tensor>(const std::vector<Tensor> &,
                                                   const Tensor &)>;

/// Traces a scan over the leading dim of `xs` as a tgc.while; returns the
/// last carry (flattened) and the stacked ys, last (empty when it could
/// not be traced: the error is recorded).
std::vector<Tensor> traceScan(const std::vector<Tensor> &init, const Tensor &xs,
                              const ScanStep &step, SourceLoc loc);
} // namespace detail

/// Scans `fn(carry, x)` over the leading dim of `xs` (which must be
/// static): each call returns the next carry and a y (a std::pair); returns
/// the last carry and the ys stacked along a new leading dim, as
/// jax.lax.scan does. An RNN is a scan whose carry is its state.
template <typename C, typename Fn>
std::pair<C, Tensor> scan(Fn fn, const C &init, const Tensor &xs,
                          SourceLoc loc = SourceLoc::current()) {
  static_assert(kIsOutputStructure<C>,
                "tgc::scan: the carry must be a Tensor or a structure of them");
  std::vector<Tensor> results = detail::traceScan(
      flattenOutputs(init), xs,
      [&](const std::vector<Tensor> &carry, const Tensor &x) {
        auto step = fn(detail::restructure(init, carry), x);
        std::vector<Tensor> flat = flattenOutputs(static_cast<C>(step.first));
        flat.push_back(step.second);
        return flat;
      },
      loc);
  if (results.empty())
    return {detail::restructure(init, {}), Tensor()};
  Tensor ys = results.back();
  results.pop_back();
  return {detail::restructure(init, results), ys};
}

} // namespace tgc

#endif // TGC_CONTROLFLOW_H
