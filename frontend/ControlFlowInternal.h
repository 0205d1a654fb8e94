//===- ControlFlowInternal.h - loops for importers (internal) ---*- C++ -*-===//
//
// Internal to the frontend and the ONNX importer: the counted loop
// tgc::scan and ONNX's Loop and Scan are made of (frontend/ControlFlow.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_CONTROLFLOWINTERNAL_H
#define TGC_FRONTEND_CONTROLFLOWINTERNAL_H

#include "tgc/ControlFlow.h"

#include <optional>

namespace tgc::detail {

/// Traces a tgc.while carrying a step counter (an i64 scalar from 0) and
/// `init`. `condBody` and `body` take the counter and the carried values;
/// `body` returns the next carried values and then `numStacked`
/// per-iteration outputs, which are stacked along a new leading dim into
/// buffers of `length` slices (carried too; slice i is written in iteration
/// i, the others stay zero; `length` must be known when `numStacked` > 0).
/// Returns the carried values and then the stacked buffers (empty when it
/// could not be traced: the error is recorded). With `relaxShapes` (ONNX
/// Loop), a carried value whose shape the body changes (a concat growing it
/// each iteration) is carried with dynamic dims where they differ: the body
/// is traced again for the relaxed types, until they hold.
std::vector<Tensor> traceCountedLoop(const std::vector<Tensor> &init,
                                     std::optional<int64_t> length,
                                     size_t numStacked,
                                     const RegionBody &condBody,
                                     const RegionBody &body, SourceLoc loc,
                                     bool relaxShapes = false);

} // namespace tgc::detail

#endif // TGC_FRONTEND_CONTROLFLOWINTERNAL_H
