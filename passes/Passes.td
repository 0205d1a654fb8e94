//===- Passes.td - tgc passes ------------------------------*- tablegen -*-===//

#ifndef TGC_PASSES_TD
#define TGC_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcInferShapes : Pass<"tgc-infer-shapes", "mlir::ModuleOp"> {
  let summary = "Refine tensor result types of tgc ops from their operands";
  let description = [{
    Re-runs each tgc op's result type inference (its InferTypeOpInterface;
    for cast, reshape and broadcast_to, whose result type is given, what the
    operand determines) in program order and replaces a result type with the
    inferred one where the inferred type is more static, so that static
    shapes given to function arguments propagate through the body (the shape
    inference of Toy chapter 4, done by an op interface). Users outside tgc
    other than returns keep their types through a `tensor.cast`. Function result types are refined to match
    when the function has no callers in the module; otherwise a
    `tensor.cast` back to the declared type keeps call sites valid.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def TgcFuseElementwise : Pass<"tgc-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Group elementwise, broadcast, reshape/transpose and reduction chains into loop fusions";
  let description = [{
    Groups producer-consumer chains of f32 ops with static shapes that the
    CPU backend's loop code generator compiles (unary and binary
    elementwise ops with numpy broadcasting, broadcast_to, transpose,
    reshape, squeeze, unsqueeze, reduce_sum/mean/max/min/prod) into
    `tgc.fusion <loop>` regions, each compiled into one generated kernel.
    Softmax spelled out as exp / reduce_sum / div, layer norm as
    mean / variance arithmetic, GELU formulas and bias + activation chains
    become one region each.

    Grouping is greedy in program order: an op joins the groups of its
    producers when the union stays within `max-ops` ops and no path leaves
    the union and comes back through an op outside it (that would be a
    cycle between the region and the rest of the graph). A value computed
    in a region and also used outside becomes an extra result. Small
    constants (splats and tensors of at most 16 elements) are copied into
    the regions that use them. Groups with fewer than `min-compute-ops`
    computing ops (reshape-like ops, transposes and broadcasts do not
    count) are left alone.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "64",
           "The most ops one region may hold">,
    Option<"minComputeOps", "min-compute-ops", "int64_t", "2",
           "The fewest computing ops a region must hold">,
  ];
  let dependentDialects = ["tgc::TgcDialect"];
}

#endif // TGC_PASSES_TD
