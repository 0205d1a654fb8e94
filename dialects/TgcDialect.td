//===- TgcDialect.td - tgc dialect definition --------------*- tablegen -*-===//
//
// The tgc dialect: the graph-level tensor operations a traced tgc function is
// recorded into. Every op works on builtin ranked tensors with static or
// dynamic dims.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECT_TD
#define TGC_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tgc_Dialect : Dialect {
  let name = "tgc";
  let summary = "The tgc traced-graph tensor dialect";
  let description = [{
    The tgc dialect holds the tensor operations that tgc traces user functions
    into. Functions are `func.func`; every op consumes and produces builtin
    ranked tensors whose element type is one of f32, f16, bf16, f64, i1, i8,
    i16, i32, i64, ui8, ui16, ui32 or ui64 (signless integers are interpreted
    as signed two's complement, `ui*` as unsigned with arithmetic modulo
    2^width; i1 is the boolean type). Dims may be static or dynamic (`?`);
    every op infers its result type from its operands and attributes, and
    dynamic dims propagate through inference. Where a result type is written
    out it may refine a dynamic inferred dim to a static one, which is checked
    when the function runs.

    Attributes naming axes use non-negative axis numbers in `[0, rank)`;
    frontends normalize negative axes before building ops. Elementwise binary
    ops broadcast with numpy rules: shapes are right-aligned and each pair of
    dims must be equal or one of them 1.

    NaN and infinities follow IEEE 754 and propagate: every float result that
    depends on a NaN is NaN. In particular `relu`, `clamp`, `max`, `min`,
    `reduce_max`, `reduce_min`, `max_pool2d` and the maximum inside `softmax`
    and `log_softmax` return NaN where their input holds one (a softmax row
    with a NaN is NaN throughout), `exp(NaN)` is NaN, and a contraction
    (`matmul`, `conv2d`) whose sum meets NaN, `inf * 0` or `inf - inf` gives
    NaN, which its fused activation keeps; `conv2d`'s padding adds no terms
    (it is not a zero times the filter, so an infinite or NaN filter tap over
    padding alone adds nothing). `batch_norm` is
    `(x - mean) / sqrt(variance + epsilon) * scale + bias`, so a zero variance
    without epsilon gives +-inf (NaN where `x == mean`), not the NaN of a
    folded `x * a + b`. `argmax`/`argmin` and `topk` rank
    NaN above every number; comparisons with NaN are false except `ne`.
    Reductions over an empty set give their identity (`reduce_max`: -inf,
    `reduce_min`: +inf, `reduce_mean`: NaN), and a pooling window that covers
    only padding is empty (`max_pool2d`: -inf; `avg_pool2d` without
    `count_include_pad`: NaN). Every backend follows these rules: the CPU
    backend runs inputs holding NaN on its native kernels where oneDNN's
    would drop it (docs/cpu-backend.md).
  }];
  let cppNamespace = "::tgc";
  // tensor.cast bridges a static and a dynamic type where shape inference
  // and the folds of tgc.if / tgc.fusion meet one.
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// State a backend keeps across its compiles of this context's functions
    /// (the CPU backend's prepacked weights, shared by the plans of one
    /// function's shapes), made by `make` on first use under `key`; it goes
    /// with the context, whose constants it may refer to. Thread-safe.
    std::shared_ptr<void>
    backendState(llvm::StringRef key,
                 llvm::function_ref<std::shared_ptr<void>()> make);

  private:
    std::mutex backendStateMutex;
    llvm::StringMap<std::shared_ptr<void>> backendStates;

  public:
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tgc_LayoutNCHW : I32EnumAttrCase<"NCHW", 0>;
def Tgc_LayoutNHWC : I32EnumAttrCase<"NHWC", 1>;
def Tgc_Layout : I32EnumAttr<"Layout",
    "data layout of a 2-D spatial op (NCHW filters are OIHW, NHWC filters are HWIO)",
    [Tgc_LayoutNCHW, Tgc_LayoutNHWC]> {
  let genSpecializedAttr = 0;
  // ::tgc::Layout is the public API's enum (include/tgc/Tensor.h), with the
  // same values; the frontend converts between the two.
  let cppNamespace = "::tgc::ir";
}
def Tgc_LayoutAttr : EnumAttr<Tgc_Dialect, Tgc_Layout, "layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tgc_GeluNone : I32EnumAttrCase<"none", 0>;
def Tgc_GeluTanh : I32EnumAttrCase<"tanh", 1>;
def Tgc_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation used by gelu", [Tgc_GeluNone, Tgc_GeluTanh]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tgc";
}
def Tgc_GeluApproximationAttr
    : EnumAttr<Tgc_Dialect, Tgc_GeluApproximation, "gelu_approximation"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tgc_FusionContraction : I32EnumAttrCase<"contraction", 0>;
def Tgc_FusionLoop : I32EnumAttrCase<"loop", 1>;
def Tgc_FusionKind : I32EnumAttr<"FusionKind",
    "how a fusion region becomes one kernel",
    [Tgc_FusionContraction, Tgc_FusionLoop]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tgc";
}
def Tgc_FusionKindAttr : EnumAttr<Tgc_Dialect, Tgc_FusionKind, "fusion_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tgc_ScatterNone : I32EnumAttrCase<"none", 0>;
def Tgc_ScatterAdd : I32EnumAttrCase<"add", 1>;
def Tgc_ScatterMul : I32EnumAttrCase<"mul", 2>;
def Tgc_ScatterMax : I32EnumAttrCase<"max", 3>;
def Tgc_ScatterMin : I32EnumAttrCase<"min", 4>;
def Tgc_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how a scatter combines an update with the element it lands on",
    [Tgc_ScatterNone, Tgc_ScatterAdd, Tgc_ScatterMul, Tgc_ScatterMax,
     Tgc_ScatterMin]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tgc";
}
def Tgc_ScatterReductionAttr
    : EnumAttr<Tgc_Dialect, Tgc_ScatterReduction, "scatter_reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tgc_CmpEQ : I32EnumAttrCase<"eq", 0>;
def Tgc_CmpNE : I32EnumAttrCase<"ne", 1>;
def Tgc_CmpLT : I32EnumAttrCase<"lt", 2>;
def Tgc_CmpLE : I32EnumAttrCase<"le", 3>;
def Tgc_CmpGT : I32EnumAttrCase<"gt", 4>;
def Tgc_CmpGE : I32EnumAttrCase<"ge", 5>;
def Tgc_ComparePredicateAttr : I32EnumAttr<"ComparePredicate",
    "elementwise comparison predicate",
    [Tgc_CmpEQ, Tgc_CmpNE, Tgc_CmpLT, Tgc_CmpLE, Tgc_CmpGT, Tgc_CmpGE]> {
  // Like Layout: ::tgc::ComparePredicate is the public API's enum.
  let cppNamespace = "::tgc::ir";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tgc_FloatElement : AnyTypeOf<[F16, BF16, F32, F64]>;
def Tgc_Element : AnyTypeOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64,
                             UI8, UI16, UI32, UI64]>;

def Tgc_Tensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64,
                                 UI8, UI16, UI32, UI64]>;
def Tgc_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
// Numbers: every element type but i1.
def Tgc_NumericTensor : RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64,
                                        UI8, UI16, UI32, UI64]>;
// Integers, signed and unsigned (not i1).
def Tgc_IntegerTensor : RankedTensorOf<[I8, I16, I32, I64, UI8, UI16, UI32,
                                        UI64]>;
def Tgc_BoolTensor : RankedTensorOf<[I1]>;
def Tgc_IndexTensor : RankedTensorOf<[I32, I64]>;
def Tgc_I64Tensor : RankedTensorOf<[I64]>;

#endif // TGC_DIALECT_TD
