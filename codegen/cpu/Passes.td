//===- Passes.td - the CPU backend's passes ----------------*- tablegen -*-===//
//
// Passes of the CPU backend's pipeline and of its loop code generator
// (tgc.fusion <loop> -> linalg -> vector -> LLVM dialect). They live with the
// CPU backend (codegen/cpu), above the target-independent passes
// (passes/Passes.td). docs/TgcCpuPasses.md is generated from this file.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_PASSES_TD
#define TGC_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgcCpuInlineFusions
    : Pass<"tgc-cpu-inline-fusions", "mlir::func::FuncOp"> {
  let summary = "Inline the fusions the CPU backend does not compile as one kernel";
  let description = [{
    Replaces each `tgc.fusion` the CPU backend does not compile as one kernel
    by its body: a contraction fusion whose post-op chain the post-op table
    does not describe, or a loop fusion the loop code generator does not
    take. The last pass of `tgc-cpu`, so that `tgc-opt --tgc-cpu` prints
    exactly the IR the CPU backend plans.
  }];
  let options = [
    Option<"compileLoops", "compile-loops", "bool", /*default=*/"true",
           "Keep the loop fusions the loop code generator compiles">,
  ];
}

def TgcLowerLoopFusionsToLinalg
    : Pass<"tgc-lower-loop-fusions-to-linalg", "mlir::ModuleOp"> {
  let summary = "Replace each loop fusion by a call of a function of linalg ops";
  let description = [{
    The CPU loop code generator's first step, as a pass for inspection: each
    `tgc.fusion <loop>` that the generator supports becomes a private
    function of linalg ops on tensors (one per fusion, `loop_fusion_N`) and
    a `func.call` of it. With `vectorize`, the linalg ops are tiled and
    vectorized; with `to-llvm`, only the generated functions are kept and
    lowered to the LLVM dialect (the JIT's input). With `chunk-rows`, a
    fusion that splits by rows becomes the function of a block of that many
    rows (the kernel calls it once per block).
  }];
  let options = [
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Apply linalg elementwise fusion">,
    Option<"toLLVM", "to-llvm", "bool", /*default=*/"false",
           "Lower the functions to the LLVM dialect (the module must hold "
           "nothing else)">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"false",
           "Tile and vectorize the linalg ops (vector dialect on tensors; "
           "with to-llvm, lowered further)">,
    Option<"chunkRows", "chunk-rows", "int64_t", /*default=*/"-1",
           "Generate the function of a block of this many rows (when the "
           "region splits)">,
  ];
}

def TgcLowerVectorOps : Pass<"tgc-lower-vector-ops", "mlir::ModuleOp"> {
  let summary = "Lower vector ops on buffers to what vector-to-scf/-llvm take";
  let description = [{
    Lowers the vector ops that vectorization leaves (after bufferization) to
    the forms `convert-vector-to-scf` and `convert-vector-to-llvm` take:
    unit dims dropped, broadcasting and permuted transfers split,
    multi-reductions to `vector.reduction`, shape casts and transposes
    lowered. The rewrites are bounded (8 greedy iterations), so a pattern
    set that does not converge cannot hang a compile.
  }];
}

def TgcApproximateMath : Pass<"tgc-approximate-math", "mlir::ModuleOp"> {
  let summary = "Rewrite exp, expm1, tanh, log, log1p and erf as polynomials";
  let description = [{
    Replaces `math.exp`, `expm1`, `tanh`, `log`, `log1p` and `erf` by
    MLIR's polynomial approximations, which vectorize (the libm calls they
    replace do not).
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::vector::VectorDialect"
  ];
}

def TgcNoAliasArguments : Pass<"tgc-noalias-arguments", "mlir::ModuleOp"> {
  let summary = "Mark every function argument llvm.noalias";
  let description = [{
    The loop kernels' buffers never overlap (the runtime allocates each
    output apart from the inputs), so every argument of every function is
    marked `llvm.noalias`, which lets LLVM vectorize and reorder freely.
  }];
}

#endif // TGC_CODEGEN_CPU_PASSES_TD
