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

#endif // TGC_PASSES_TD
