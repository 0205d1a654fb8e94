//===- ControlFlow.h - kernels that run nested plans ----------*- C++ -*-===//
//
// tgc.if and tgc.while on a compiled backend: each region is compiled into
// its own Executable (planned like a function: fused, memory planned), and
// one step of the enclosing plan runs them.
//
// - An if step reads its condition (input 0, one i1 element) and runs one
//   branch's plan on the step's inputs (the branch plans take the
//   condition too, unread), writing straight into the step's outputs.
// - A while step carries its first `carried` inputs: it runs the condition
//   plan on the carried values and the captures (the remaining inputs),
//   and while that yields true, the body plan, whose results are the next
//   carried values. The carried values alternate between the step's
//   outputs and one scratch buffer per value, allocated once per step run:
//   an iteration allocates nothing (each nested run takes its arena from
//   its plan's pool) and copies nothing.
//
// Both kinds are immutable and may run on several threads at once, like
// every kernel. runtime/cpu/Recipes.h's createIfKernel / createWhileKernel
// give them a recipe holding the nested plans, so that a plan with them
// can be saved.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CONTROLFLOW_H
#define TGC_RUNTIME_CONTROLFLOW_H

#include "runtime/Executable.h"

#include <memory>

namespace tgc::runtime {

/// What keeps the nested plans' own references alive (the compiler's
/// modules that reference steps point into), type-erased.
using NestedPlanOwner = std::shared_ptr<const void>;

std::shared_ptr<const Kernel>
makeIfKernel(std::shared_ptr<const Executable> thenPlan,
             std::shared_ptr<const Executable> elsePlan, NestedPlanOwner owner);

std::shared_ptr<const Kernel>
makeWhileKernel(std::shared_ptr<const Executable> condPlan,
                std::shared_ptr<const Executable> bodyPlan, size_t carried,
                NestedPlanOwner owner);

} // namespace tgc::runtime

#endif // TGC_RUNTIME_CONTROLFLOW_H
