//===- TgcOps.td - tgc dialect operations ------------------*- tablegen -*-===//

#ifndef TGC_OPS_TD
#define TGC_OPS_TD

include "dialects/TgcDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// Checks that every tensor an op touches has a well-formed shape: static dims
// are non-negative and the product of the static dims fits in int64.
def Tgc_ValidShapes : NativeOpTrait<"ValidShapes"> {
  let cppNamespace = "::tgc::OpTrait";
}

// Op categories (dialects/TgcOps.h): passes and backends ask
// tgc::isElementwise(op) and friends instead of keeping lists of ops.
def Tgc_Elementwise : NativeOpTrait<"BroadcastingElementwise"> {
  let cppNamespace = "::tgc::OpTrait";
}
def Tgc_ShapeView : NativeOpTrait<"ShapeView"> {
  let cppNamespace = "::tgc::OpTrait";
}
def Tgc_AxisReduction : NativeOpTrait<"AxisReduction"> {
  let cppNamespace = "::tgc::OpTrait";
}
def Tgc_Contraction : NativeOpTrait<"Contraction"> {
  let cppNamespace = "::tgc::OpTrait";
}
def Tgc_DataDependentShape : NativeOpTrait<"DataDependentShape"> {
  let cppNamespace = "::tgc::OpTrait";
}

class Tgc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tgc_Dialect, mnemonic, !listconcat([Pure, Tgc_ValidShapes], traits)>;

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

def Tgc_ConstantOp : Tgc_Op<"constant",
    [ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor (dense, splat or dense_resource)";
  let description = [{
    Produces a tensor with statically known contents. The value is a builtin
    dense elements attribute; a splat (`dense<1.0> : tensor<4x4xf32>`) stores a
    single element however large the tensor. The shape must be static.

    The value may also be a `dense_resource` (MLIR's resource blobs, as
    torch-mlir and IREE write large weights): the blob of that name in the
    file's `dialect_resources` holds the elements' bytes (an integer or
    float element type of whole bytes; its size must be the tensor's). The
    ONNX importer makes large initializers such constants whose blob stays
    in the model file: the IR holds no copy of the weights, and a compiled
    CPU plan holds them once (dialects/ConstantData.h).

    ```mlir
    %0 = tgc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %1 = tgc.constant dense<0> : tensor<16xi32>
    %2 = tgc.constant dense_resource<w> : tensor<2xf32>
    ...
    {-#
      dialect_resources: { builtin: { w: "0x040000000000803F00000040" } }
    #-}
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tgc_CastOp : Tgc_Op<"cast", [Tgc_Elementwise]> {
  let summary = "Elementwise conversion between element types";
  let description = [{
    Converts every element to the result element type; the shape is kept.
    Float to integer rounds toward zero and saturates at the integer range
    (NaN becomes 0; negative values become 0 for unsigned types, so
    `-1.0 : f32` casts to `0 : ui8`). Integer to integer wraps modulo 2^width
    (truncation, or sign extension from a signed and zero extension from an
    unsigned type: `-1 : i8` casts to `255 : ui8`, `255 : ui8` to `255 : i32`).
    Anything to i1 is `x != 0`; i1 to a number is 0 or 1. Integer to float
    and float to float round to nearest even.

    ```mlir
    %1 = tgc.cast %0 : tensor<2x?xf32> to tensor<2x?xbf16>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

class Tgc_UnaryOp<string mnemonic, Type tensorType, string opSummary,
                  string formula, list<Trait> traits = []>
    : Tgc_Op<mnemonic, !listconcat([SameOperandsAndResultType, Tgc_Elementwise], traits)> {
  let summary = opSummary;
  let description = "Elementwise `y = " # formula # "`. Operand and result "
      # "have the same type; dynamic dims are preserved.\n\n"
      # "```mlir\n%y = tgc." # mnemonic # " %x : tensor<?x4xf32>\n```";
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Tgc_NegOp : Tgc_UnaryOp<"neg", Tgc_NumericTensor, "Elementwise negation", "-x">;
def Tgc_AbsOp : Tgc_UnaryOp<"abs", Tgc_NumericTensor, "Elementwise absolute value", "|x|">;
def Tgc_ExpOp : Tgc_UnaryOp<"exp", Tgc_FloatTensor, "Elementwise exponential", "e^x">;
def Tgc_LogOp : Tgc_UnaryOp<"log", Tgc_FloatTensor, "Elementwise natural logarithm", "ln(x)">;
def Tgc_SqrtOp : Tgc_UnaryOp<"sqrt", Tgc_FloatTensor, "Elementwise square root", "sqrt(x)">;
def Tgc_RsqrtOp : Tgc_UnaryOp<"rsqrt", Tgc_FloatTensor, "Elementwise reciprocal square root", "1 / sqrt(x)">;
def Tgc_ReciprocalOp : Tgc_UnaryOp<"reciprocal", Tgc_FloatTensor, "Elementwise reciprocal", "1 / x">;
def Tgc_TanhOp : Tgc_UnaryOp<"tanh", Tgc_FloatTensor, "Elementwise hyperbolic tangent", "tanh(x)">;
def Tgc_SigmoidOp : Tgc_UnaryOp<"sigmoid", Tgc_FloatTensor, "Elementwise logistic sigmoid", "1 / (1 + e^-x)">;
def Tgc_ReluOp : Tgc_UnaryOp<"relu", Tgc_NumericTensor, "Elementwise rectified linear unit", "max(x, 0)">;
def Tgc_ErfOp : Tgc_UnaryOp<"erf", Tgc_FloatTensor, "Elementwise Gauss error function", "erf(x)">;
def Tgc_SinOp : Tgc_UnaryOp<"sin", Tgc_FloatTensor, "Elementwise sine", "sin(x)">;
def Tgc_CosOp : Tgc_UnaryOp<"cos", Tgc_FloatTensor, "Elementwise cosine", "cos(x)">;
def Tgc_FloorOp : Tgc_UnaryOp<"floor", Tgc_FloatTensor, "Elementwise round toward negative infinity", "floor(x)">;
def Tgc_CeilOp : Tgc_UnaryOp<"ceil", Tgc_FloatTensor, "Elementwise round toward positive infinity", "ceil(x)">;
def Tgc_RoundOp : Tgc_UnaryOp<"round", Tgc_FloatTensor,
    "Elementwise round to nearest, ties to even", "round_half_even(x)">;
def Tgc_SignOp : Tgc_UnaryOp<"sign", Tgc_NumericTensor,
    "Elementwise sign (-1, 0 or 1; NaN stays NaN)", "sign(x)">;
def Tgc_LogicalNotOp : Tgc_UnaryOp<"logical_not", Tgc_BoolTensor, "Elementwise boolean negation", "!x">;

def Tgc_LeakyReluOp : Tgc_UnaryOp<"leaky_relu", Tgc_FloatTensor,
    "Elementwise leaky rectified linear unit", "x >= 0 ? x : alpha * x"> {
  let arguments = (ins Tgc_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
}
def Tgc_EluOp : Tgc_UnaryOp<"elu", Tgc_FloatTensor,
    "Elementwise exponential linear unit", "x > 0 ? x : alpha * (e^x - 1)"> {
  let arguments = (ins Tgc_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
}
def Tgc_ClampOp : Tgc_UnaryOp<"clamp", Tgc_NumericTensor,
    "Elementwise clamp to [min, max]", "min(max(x, min), max)"> {
  let description = [{
    Elementwise `y = min(max(x, min), max)`. `min` and `max` are f64
    attributes, converted to the element type (rounded toward zero and
    saturated for integers); `min <= max` is required. NaN propagates.

    ```mlir
    %y = tgc.clamp %x {max = 6.0 : f64, min = 0.0 : f64} : tensor<8xf32>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$input, F64Attr:$min, F64Attr:$max);
  let hasVerifier = 1;
}
def Tgc_GeluOp : Tgc_UnaryOp<"gelu", Tgc_FloatTensor,
    "Elementwise Gaussian error linear unit", "x * Phi(x)"> {
  let description = [{
    Elementwise GELU. With `approximate = #tgc.gelu_approximation<none>` (the
    default) `y = 0.5 * x * (1 + erf(x / sqrt(2)))`; with `tanh`,
    `y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    ```mlir
    %y = tgc.gelu %x {approximate = #tgc.gelu_approximation<tanh>} : tensor<4xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input,
      DefaultValuedAttr<Tgc_GeluApproximationAttr, "GeluApproximation::none">:$approximate);
}

//===----------------------------------------------------------------------===//
// Binary elementwise with broadcasting
//===----------------------------------------------------------------------===//

class Tgc_BinaryOp<string mnemonic, Type tensorType, string opSummary,
                   string formula, list<Trait> traits = []>
    : Tgc_Op<mnemonic, !listconcat([InferTypeOpAdaptorWithIsCompatible, Tgc_Elementwise], traits)> {
  let summary = opSummary;
  let description = "Elementwise `z = " # formula # "` with numpy "
      # "broadcasting: shapes are right-aligned, each pair of dims must be "
      # "equal or one of them 1, and the result takes the larger. A dynamic "
      # "dim against 1 stays dynamic; against a static size n > 1 it becomes n "
      # "(checked when the function runs). When both operands and the result "
      # "share one type it is written once.\n\n"
      # "```mlir\n%z = tgc." # mnemonic # " %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>\n"
      # "%w = tgc." # mnemonic # " %x, %x : tensor<2x3xf32>\n```";
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<BroadcastTypes>(type($lhs), type($rhs), type($result))
  }];
  let hasFolder = 1;
}

def Tgc_AddOp : Tgc_BinaryOp<"add", Tgc_NumericTensor, "Elementwise addition", "x + y", [Commutative]>;
def Tgc_SubOp : Tgc_BinaryOp<"sub", Tgc_NumericTensor, "Elementwise subtraction", "x - y">;
def Tgc_MulOp : Tgc_BinaryOp<"mul", Tgc_NumericTensor, "Elementwise multiplication", "x * y", [Commutative]>;
def Tgc_DivOp : Tgc_BinaryOp<"div", Tgc_NumericTensor,
    "Elementwise division (integers round toward zero; dividing by zero is a run-time error)", "x / y">;
def Tgc_PowOp : Tgc_BinaryOp<"pow", Tgc_NumericTensor,
    "Elementwise power (integers: exact, negative exponents give 0 unless |x| = 1)", "x ^ y">;
def Tgc_ShiftLeftOp : Tgc_BinaryOp<"shift_left", Tgc_IntegerTensor,
    "Elementwise left shift (integers; shift amounts outside [0, width) give 0)", "x << y">;
def Tgc_ShiftRightOp : Tgc_BinaryOp<"shift_right", Tgc_IntegerTensor,
    "Elementwise right shift (logical for unsigned, arithmetic for signed integers; shift amounts outside [0, width) shift every bit out)", "x >> y">;
def Tgc_MaxOp : Tgc_BinaryOp<"max", Tgc_NumericTensor, "Elementwise maximum (NaN propagates)", "max(x, y)", [Commutative]>;
def Tgc_MinOp : Tgc_BinaryOp<"min", Tgc_NumericTensor, "Elementwise minimum (NaN propagates)", "min(x, y)", [Commutative]>;
def Tgc_LogicalAndOp : Tgc_BinaryOp<"logical_and", Tgc_BoolTensor, "Elementwise boolean and", "x && y", [Commutative]>;
def Tgc_LogicalOrOp : Tgc_BinaryOp<"logical_or", Tgc_BoolTensor, "Elementwise boolean or", "x || y", [Commutative]>;

def Tgc_CompareOp : Tgc_Op<"compare", [InferTypeOpAdaptorWithIsCompatible, Tgc_Elementwise]> {
  let summary = "Elementwise comparison with broadcasting, producing i1";
  let description = [{
    Compares two tensors of the same element type elementwise under numpy
    broadcasting and produces an i1 tensor. The predicate is one of `eq`,
    `ne`, `lt`, `le`, `gt`, `ge`; comparisons with NaN are false except `ne`.
    Booleans support only `eq` and `ne`.

    ```mlir
    %m = tgc.compare lt, %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    ```
  }];
  let arguments = (ins Tgc_ComparePredicateAttr:$predicate, Tgc_Tensor:$lhs, Tgc_Tensor:$rhs);
  let results = (outs Tgc_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Tgc_SelectOp : Tgc_Op<"select", [InferTypeOpAdaptorWithIsCompatible, Tgc_Elementwise]> {
  let summary = "Elementwise choice between two tensors under a boolean mask";
  let description = [{
    `z = cond ? x : y` elementwise, broadcasting all three operands together
    with numpy rules. `x` and `y` share an element type, which the result takes.

    ```mlir
    %z = tgc.select %c, %x, %y : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Tgc_BoolTensor:$condition, Tgc_Tensor:$true_value, Tgc_Tensor:$false_value);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Tgc_MatmulOp : Tgc_Op<"matmul", [InferTypeOpAdaptorWithIsCompatible, Tgc_Contraction]> {
  let summary = "Batched matrix multiplication with broadcast batch dims";
  let description = [{
    `C[..., m, n] = sum_k A[..., m, k] * B[..., k, n]`. Both operands have rank
    at least 2; the last two dims are the matrix, the leading dims are batch
    dims broadcast together with numpy rules (so a rank-2 operand is shared by
    every batch). `transpose_a` / `transpose_b` swap the last two dims of the
    operand first. Both operands and the result share an element type; f16,
    bf16 and f32 accumulate in at least f32 precision, integers in i64 and
    wrap on the final conversion.

    ```mlir
    %c = tgc.matmul %a, %b {transpose_b} : (tensor<8x?x64xf32>, tensor<128x64xf32>) -> tensor<8x?x128xf32>
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$lhs, Tgc_NumericTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Tgc_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Tgc_Conv2DOp : Tgc_Op<"conv2d", [InferTypeOpAdaptorWithIsCompatible, Tgc_Contraction]> {
  let summary = "2-D convolution (NCHW or NHWC, strided, padded, dilated, grouped)";
  let description = [{
    A 2-D cross-correlation. With `layout = #tgc.layout<NCHW>` (the default)
    the input is `N x C x H x W`, the filter `O x C/groups x KH x KW` (OIHW)
    and the result `N x O x OH x OW`; with `NHWC` the input is
    `N x H x W x C`, the filter `KH x KW x C/groups x O` (HWIO) and the result
    `N x OH x OW x O`. `C` and `O` must be divisible by `groups`;
    `groups = C` with `O = C * multiplier` is a depthwise convolution.
    The optional bias has shape `O`.

    `strides = [sh, sw]` and `dilations = [dh, dw]` are positive (default 1);
    `padding = [top, left, bottom, right]` is non-negative (default 0), the
    order ONNX uses. `OH = floor((H + top + bottom - dh * (KH - 1) - 1) / sh) + 1`,
    and likewise `OW`; the padded input must hold at least one dilated window.

    ```mlir
    %y = tgc.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
        : (tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, Tgc_FloatTensor:$filter,
      Optional<Tgc_FloatTensor>:$bias,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
      DefaultValuedAttr<I64Attr, "1">:$groups,
      DefaultValuedAttr<Tgc_LayoutAttr, "::tgc::ir::Layout::NCHW">:$layout);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class Tgc_PoolOp<string mnemonic, string opSummary> : Tgc_Op<mnemonic,
    [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = opSummary;
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Tgc_MaxPool2DOp : Tgc_PoolOp<"max_pool2d", "2-D max pooling"> {
  let description = [{
    Max over each `kernel = [kh, kw]` window of the spatial dims of an NCHW or
    NHWC input. `strides`, `dilations` (default 1) and
    `padding = [top, left, bottom, right]` (default 0) work as in
    `tgc.conv2d`; padded positions never win. With `ceil_mode` the output size
    rounds up, as long as the last window starts inside the input or its left
    padding. Each padding amount must be smaller than the dilated window.

    ```mlir
    %y = tgc.max_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
        : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
      UnitAttr:$ceil_mode,
      DefaultValuedAttr<Tgc_LayoutAttr, "::tgc::ir::Layout::NCHW">:$layout);
}

def Tgc_AvgPool2DOp : Tgc_PoolOp<"avg_pool2d", "2-D average pooling"> {
  let description = [{
    Mean over each `kernel = [kh, kw]` window, with `strides`, `padding`,
    `dilations`, `ceil_mode` and `layout` as in `tgc.max_pool2d`. With
    `count_include_pad` the divisor counts padded positions inside the padded
    input (positions past it, added by `ceil_mode`, never count); without it
    the divisor is the number of real input elements in the window.

    ```mlir
    %y = tgc.avg_pool2d %x {count_include_pad, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<1x8x?x?xf32>) -> tensor<1x8x?x?xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
      UnitAttr:$ceil_mode, UnitAttr:$count_include_pad,
      DefaultValuedAttr<Tgc_LayoutAttr, "::tgc::ir::Layout::NCHW">:$layout);
}

def Tgc_GlobalAvgPool2DOp : Tgc_PoolOp<"global_avg_pool2d", "Global 2-D average pooling"> {
  let description = [{
    Mean over both spatial dims of an NCHW or NHWC input; the spatial dims of
    the result are 1 (`N x C x 1 x 1` or `N x 1 x 1 x C`).

    ```mlir
    %y = tgc.global_avg_pool2d %x : (tensor<?x2048x7x7xf32>) -> tensor<?x2048x1x1xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input,
      DefaultValuedAttr<Tgc_LayoutAttr, "::tgc::ir::Layout::NCHW">:$layout);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Tgc_ReduceOp<string mnemonic, Type tensorType, string opSummary, string identity>
    : Tgc_Op<mnemonic, [InferTypeOpAdaptorWithIsCompatible, Tgc_AxisReduction]> {
  let summary = opSummary;
  let description = opSummary # " over `axes` (strictly increasing, each in "
      # "`[0, rank)`, at least one). With `keepdims` the reduced dims stay as "
      # "1, otherwise they are removed. Reducing an empty set of elements "
      # "gives " # identity # ". Floats accumulate in at least f32 precision. "
      # "Reducing only dims of size 1 canonicalizes to a `tgc.squeeze` of "
      # "them (to the input with `keepdims`).\n\n"
      # "```mlir\n%y = tgc." # mnemonic # " %x {axes = array<i64: 1>, keepdims} : "
      # "(tensor<4x?xf32>) -> tensor<4x1xf32>\n```";
  let arguments = (ins tensorType:$input, DenseI64ArrayAttr:$axes, UnitAttr:$keepdims);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  // Integer constants fold (shape arithmetic: reduce_prod of a shape_of);
  // a reduction over dims of size 1 is a squeeze (or nothing).
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tgc_ReduceSumOp : Tgc_ReduceOp<"reduce_sum", Tgc_NumericTensor, "Sum", "0">;
def Tgc_ReduceMeanOp : Tgc_ReduceOp<"reduce_mean", Tgc_FloatTensor, "Arithmetic mean", "NaN">;
def Tgc_ReduceMaxOp : Tgc_ReduceOp<"reduce_max", Tgc_NumericTensor, "Maximum", "the lowest value of the type (-inf for floats)">;
def Tgc_ReduceMinOp : Tgc_ReduceOp<"reduce_min", Tgc_NumericTensor, "Minimum", "the highest value of the type (+inf for floats)">;
def Tgc_ReduceProdOp : Tgc_ReduceOp<"reduce_prod", Tgc_NumericTensor, "Product", "1">;

class Tgc_ArgReduceOp<string mnemonic, string which>
    : Tgc_Op<mnemonic, [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Index of the " # which # " along an axis";
  let description = "The i64 index of the " # which # " along `axis`. Ties "
      # "give the first index, or the last with `select_last_index`; NaN wins "
      # "over numbers. With `keepdims` the axis stays as 1. The axis must not "
      # "be empty when the function runs.\n\n"
      # "```mlir\n%i = tgc." # mnemonic # " %x {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4xi64>\n```";
  let arguments = (ins Tgc_NumericTensor:$input, I64Attr:$axis, UnitAttr:$keepdims,
                       UnitAttr:$select_last_index);
  let results = (outs Tgc_I64Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Tgc_ArgMaxOp : Tgc_ArgReduceOp<"argmax", "maximum">;
def Tgc_ArgMinOp : Tgc_ArgReduceOp<"argmin", "minimum">;

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

class Tgc_SoftmaxBase<string mnemonic, string opSummary, string formula>
    : Tgc_Op<mnemonic, [SameOperandsAndResultType]> {
  let summary = opSummary;
  let description = "`y = " # formula # "` along `axis` (in `[0, rank)`), "
      # "computed stably (the maximum is subtracted first).\n\n"
      # "```mlir\n%y = tgc." # mnemonic # " %x {axis = 1 : i64} : tensor<?x1000xf32>\n```";
  let arguments = (ins Tgc_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tgc_SoftmaxOp : Tgc_SoftmaxBase<"softmax", "Softmax along an axis",
    "exp(x) / sum(exp(x))">;
def Tgc_LogSoftmaxOp : Tgc_SoftmaxBase<"log_softmax", "Log-softmax along an axis",
    "x - log(sum(exp(x)))">;

def Tgc_LayerNormOp : Tgc_Op<"layer_norm",
    [AttrSizedOperandSegments, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Layer normalization over the trailing dims";
  let description = [{
    Normalizes over the dims `[axis, rank)`:
    `y = (x - mean) / sqrt(var + epsilon) * scale + bias`, with the biased
    variance. The optional `scale` and `bias` have the shape of the normalized
    dims (`x.shape[axis:]`) and the element type of `x`. `epsilon` must be
    non-negative (default 1e-5). Statistics are computed in at least f32.

    ```mlir
    %y = tgc.layer_norm %x scale %g bias %b {axis = 2 : i64}
        : (tensor<?x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x128x768xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, Optional<Tgc_FloatTensor>:$scale,
      Optional<Tgc_FloatTensor>:$bias, I64Attr:$axis,
      DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Tgc_BatchNormOp : Tgc_Op<"batch_norm", [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Batch normalization in inference form";
  let description = [{
    `y = (x - mean) / sqrt(variance + epsilon) * scale + bias` with the running
    statistics given as operands. `scale`, `bias`, `mean` and `variance` are
    1-D with the size of the channel dim `axis` of `x` (default 1, as in
    NCHW; use the last dim for NHWC); `epsilon` is non-negative (default 1e-5).

    ```mlir
    %y = tgc.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-03 : f64}
        : (tensor<?x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x64x56x56xf32>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$input, Tgc_FloatTensor:$scale,
      Tgc_FloatTensor:$bias, Tgc_FloatTensor:$mean, Tgc_FloatTensor:$variance,
      DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
      DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Tgc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tgc_ReshapeOp : Tgc_Op<"reshape", [Tgc_ShapeView]> {
  let summary = "Reinterpret a tensor with a new shape";
  let description = [{
    Keeps the elements in row-major order and changes the shape to the result
    type. The element counts must agree; the result may have at most one
    dynamic dim, which takes `numel(input) / product(static result dims)`
    when the function runs (the `-1` of numpy's reshape).

    ```mlir
    %y = tgc.reshape %x : tensor<?x4x4xf32> to tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tgc_ShapeOfOp : Tgc_Op<"shape_of", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "The shape of a tensor as a 1-D i64 tensor";
  let description = [{
    `result[i] = input.shape[i]`, known when the function runs. Folds to a
    constant when the input's shape is static (as it is once a function is
    specialized for concrete input shapes), so shape arithmetic built on it
    (gather, concat, mul, ...) folds away before code generation.

    ```mlir
    %s = tgc.shape_of %x : tensor<?x16xf32> -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input);
  let results = (outs Tgc_I64Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Tgc_DynamicReshapeOp : Tgc_Op<"dynamic_reshape", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Reshape to a shape given as a tensor";
  let description = [{
    Like `tgc.reshape`, with the new shape taken from the 1-D i64 tensor
    `shape` when the function runs: each entry is a dim (>= 0), or -1 (at most
    once) for the dim that takes the remaining elements. With `copy_zeros`, an
    entry 0 keeps the input's dim at the same position (ONNX's Reshape
    without `allowzero`). The result's rank is
    the length of `shape`; its dims are static where `shape` is a constant
    (the declared result type may refine dynamic dims). With a constant
    `shape` it canonicalizes to `tgc.reshape`.

    ```mlir
    %y = tgc.dynamic_reshape %x, %shape : (tensor<?x?x64xf32>, tensor<4xi64>) -> tensor<?x?x4x16xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, Tgc_I64Tensor:$shape,
                       UnitAttr:$copy_zeros);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input `,` $shape (`copy_zeros` $copy_zeros^)? attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def Tgc_TransposeOp : Tgc_Op<"transpose", [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Permute the dims of a tensor";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`; `permutation` is a
    permutation of `[0, rank)`.

    With `lazy`, a transpose of a constant is not folded into a transposed
    copy of it: its consumer may read the constant in its own order instead.
    tgc-convert-layout marks the OIHW -> HWIO transposes of constant
    convolution filters so: the CPU backend's convolutions reorder (prepack)
    their filters anyway and read an OIHW constant as it is, so a model's
    weights are not held twice (ResNet-50: 98 MB). Elsewhere it runs as a
    transpose; the values are the same either way.

    ```mlir
    %y = tgc.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, DenseI64ArrayAttr:$permutation,
                       UnitAttr:$lazy);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tgc_BroadcastToOp : Tgc_Op<"broadcast_to"> {
  let summary = "Broadcast a tensor to the result shape";
  let description = [{
    Broadcasts with numpy rules to the result type's shape: the input's dims
    are right-aligned with the result's, and each must be 1 or equal to the
    result dim. A dynamic result dim must line up with an input dim, whose
    size it takes when the function runs; dims the input does not have must
    be static.

    ```mlir
    %y = tgc.broadcast_to %x : tensor<?x1xf32> to tensor<4x?x8xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tgc_ConcatOp : Tgc_Op<"concat", [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Concatenate tensors along an axis";
  let description = [{
    Joins one or more tensors of the same rank and element type along `axis`;
    every other dim must agree.

    ```mlir
    %y = tgc.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
    ```
  }];
  let arguments = (ins Variadic<Tgc_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasFolder = 1;
}

def Tgc_SliceOp : Tgc_Op<"slice", [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Strided slice with numpy semantics";
  let description = [{
    Takes `input[starts[d] : ends[d] : steps[d]]` in every dim `d`, with
    Python/numpy semantics: negative starts and ends count from the end, both
    are clamped to the dim, and a negative step walks backwards. `steps` is
    optional (all 1) and may not contain 0. Use a large `ends` value such as
    `9223372036854775807` for "to the end".

    ```mlir
    %y = tgc.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 4, 9223372036854775807>, steps = array<i64: 2, 1>}
        : (tensor<4x5xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, DenseI64ArrayAttr:$starts,
      DenseI64ArrayAttr:$ends, OptionalAttr<DenseI64ArrayAttr>:$steps);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tgc_PadOp : Tgc_Op<"pad", [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Pad a tensor with a constant";
  let description = [{
    Adds `low[d]` elements before and `high[d]` after each dim `d` (both
    non-negative), filled with `value` converted to the element type.

    ```mlir
    %y = tgc.pad %x {high = array<i64: 0, 1>, low = array<i64: 1, 0>, value = 0.0 : f64} : (tensor<2x2xf32>) -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, DenseI64ArrayAttr:$low,
      DenseI64ArrayAttr:$high, DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tgc_GatherOp : Tgc_Op<"gather", [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Gather slices along an axis by index";
  let description = [{
    `result[p..., i..., s...] = data[p..., indices[i...], s...]` where `p` runs
    over the dims before `axis` and `s` over those after, so the result shape
    is `data.shape[:axis] + indices.shape + data.shape[axis+1:]`. Indices are
    i32 or i64; negative ones count from the end; an index out of range is a
    run-time error.

    ```mlir
    %y = tgc.gather %table, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<?x8xi64>) -> tensor<?x8x64xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$data, Tgc_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";  let hasFolder = 1;
}

def Tgc_ScatterElementsOp : Tgc_Op<"scatter_elements",
    [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Scatter updates into a copy of the data, element by element";
  let description = [{
    The result is `data` with, for every position `p` of `indices` (in
    row-major order), the element at `p` with `p[axis]` replaced by
    `indices[p]` set to `updates[p]` (`reduction = none`, the default; a later
    update to the same element wins) or combined with it (`add`, `mul`,
    `max`, `min`; NaN propagates through `max` and `min`). `indices` and
    `updates` have the same shape and the rank of `data`; outside `axis`
    their dims must not exceed those of `data`. Indices are i32 or i64;
    negative ones count from the end; an index out of range is a run-time
    error. Reductions other than `none` need a numeric element type.

    ```mlir
    %y = tgc.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = #tgc.scatter_reduction<add>}
        : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$data, Tgc_IndexTensor:$indices,
      Tgc_Tensor:$updates, I64Attr:$axis,
      DefaultValuedAttr<Tgc_ScatterReductionAttr, "ScatterReduction::none">:$reduction);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
}

def Tgc_ScatterNDOp : Tgc_Op<"scatter_nd", [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Scatter slices into a copy of the data by index tuples";
  let description = [{
    `indices` has rank `q >= 1` and a static last dim `k` in `[1, rank(data)]`;
    each of its `k`-tuples addresses a slice `data[i0, ..., ik-1]` of shape
    `data.shape[k:]`. `updates` has shape `indices.shape[:-1] +
    data.shape[k:]`. The result is `data` with, for every tuple (in row-major
    order), its slice replaced by the matching slice of `updates`
    (`reduction = none`, the default; a later tuple wins) or combined with it
    element by element (`add`, `mul`, `max`, `min`). Indices are i32 or i64;
    negative ones count from the end; an index out of range is a run-time
    error. Reductions other than `none` need a numeric element type.

    ```mlir
    %y = tgc.scatter_nd %x, %i, %u {reduction = #tgc.scatter_reduction<mul>}
        : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$data, Tgc_IndexTensor:$indices,
      Tgc_Tensor:$updates,
      DefaultValuedAttr<Tgc_ScatterReductionAttr, "ScatterReduction::none">:$reduction);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
}

def Tgc_TopKOp : Tgc_Op<"topk", [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "The k largest (or smallest) elements along an axis";
  let description = [{
    Selects the `k` largest elements (`largest = false`: the smallest) along
    `axis` (in `[0, rank)`) and returns them and their i64 indices; the
    results have the input's shape with dim `axis` equal to `k`. Elements
    come in order, best first (also when `sorted = false`, which only allows
    any order); equal elements keep the order of their indices (the lower
    index first), and NaN counts as larger than every number. `k` must not
    exceed the dim (a dynamic dim is checked when the function runs); `k =
    -1` takes every element, a sort, and the results' dim is the input's,
    dynamic or not (ONNX TopK with a K computed at run time over a dynamic
    dim sorts, then slices). A sorted topk whose results only feed slices
    of the same first `c` elements along `axis` canonicalizes to `k = c`
    (that K once the shapes are known).

    ```mlir
    %v, %i = tgc.topk %x {axis = 1 : i64, k = 3 : i64}
        : (tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x3xi64>)
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$input, I64Attr:$k, I64Attr:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$largest,
      DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Tgc_NumericTensor:$values, Tgc_I64Tensor:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def Tgc_NonZeroOp : Tgc_Op<"nonzero", [Tgc_DataDependentShape]> {
  let summary = "The indices of the nonzero elements (a data-dependent shape)";
  let description = [{
    Returns the coordinates of the input's nonzero elements as an i64
    tensor of shape `[rank, n]`: column `j` holds the coordinates of the
    `j`-th nonzero element in row-major order (ONNX NonZero, numpy's
    `nonzero` stacked). NaN counts as nonzero, -0.0 as zero. `n` is known
    only when the function runs, so the result's last dim is dynamic; the
    CPU backend runs the ops before it as one plan, allocates the result
    when it runs, and specializes the rest of the function for its size
    (docs/tracing.md, "Data-dependent shapes").

    ```mlir
    %i = tgc.nonzero %x : (tensor<2x3xf32>) -> tensor<2x?xi64>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input);
  let results = (outs Tgc_I64Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tgc_UniqueOp : Tgc_Op<"unique", [Tgc_DataDependentShape]> {
  let summary = "The distinct elements or slices (a data-dependent shape)";
  let description = [{
    ONNX Unique. Without `axis`: the distinct elements of the flattened
    input; with `axis`: the distinct slices along it. `sorted` (the default)
    orders them ascending (slices lexicographically), otherwise by first
    occurrence. Also returns, as i64, each one's first index in the input,
    the index into `values` of every input element (slice), and how often
    each occurs. The number of distinct ones is known only when the function
    runs.

    ```mlir
    %v, %i, %inv, %c = tgc.unique %x {sorted = true}
        : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
    ```
  }];
  let arguments = (ins Tgc_NumericTensor:$input, OptionalAttr<I64Attr>:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Tgc_NumericTensor:$values, Tgc_I64Tensor:$indices,
      Tgc_I64Tensor:$inverse, Tgc_I64Tensor:$counts);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tgc_NonMaxSuppressionOp : Tgc_Op<"non_max_suppression", [Tgc_DataDependentShape]> {
  let summary = "Greedy non-maximum suppression of boxes (a data-dependent shape)";
  let description = [{
    ONNX NonMaxSuppression. `boxes` [batch, n, 4] holds corners (y1, x1, y2,
    x2, in either order) or, with `center_point_box`, (x, y, width, height);
    `scores` [batch, classes, n]. Per batch and class, the boxes whose score
    exceeds the one-element `score_threshold` are taken best score first
    (the lower index first among equal scores); each is kept unless its
    intersection over union with a box kept before exceeds `iou_threshold`,
    at most `max_per_class` (one i64 element) of them. The result holds one
    (batch, class, box) row per kept box, in batch, class and selection
    order; its length is known only when the function runs.

    ```mlir
    %s = tgc.non_max_suppression %boxes, %scores, %max, %iou, %min
        : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
    ```
  }];
  let arguments = (ins Tgc_FloatTensor:$boxes, Tgc_FloatTensor:$scores,
      Tgc_I64Tensor:$max_per_class, Tgc_FloatTensor:$iou_threshold,
      Tgc_FloatTensor:$score_threshold,
      DefaultValuedAttr<BoolAttr, "false">:$center_point_box);
  let results = (outs Tgc_I64Tensor:$selected);
  let assemblyFormat = [{
    $boxes `,` $scores `,` $max_per_class `,` $iou_threshold `,` $score_threshold
        attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tgc_DynamicSliceOp : Tgc_Op<"dynamic_slice", [Tgc_DataDependentShape]> {
  let summary = "A slice whose bounds are known only when it runs";
  let description = [{
    ONNX Slice with bounds computed by the function: along each of `axes`
    (distinct, in `[0, rank)`), the elements from `starts[i]` towards
    `ends[i]` by `steps[i]` (i64 tensors of one element per axis; negative
    bounds count from the end and are clamped as numpy does; a step must
    not be 0). The other dims are kept. The sliced dims are known only when
    the function runs (`tgc.slice` takes constant bounds); constant bounds
    canonicalize to a `tgc.slice`.

    ```mlir
    %y = tgc.dynamic_slice %x, %s, %e, %st {axes = array<i64: 1>}
        : (tensor<4x10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x?xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, Tgc_I64Tensor:$starts,
      Tgc_I64Tensor:$ends, Tgc_I64Tensor:$steps, DenseI64ArrayAttr:$axes);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $starts `,` $ends `,` $steps attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tgc_DynamicBroadcastToOp : Tgc_Op<"dynamic_broadcast_to", [Tgc_DataDependentShape]> {
  let summary = "Broadcast to a shape known only when it runs";
  let description = [{
    Numpy broadcasting of the input's shape and the shape held by the 1-D i64
    tensor `shape` (ONNX Expand: each pair of right-aligned dims must be
    equal or one of them 1; ONNX ConstantOfShape broadcasts a scalar). The
    result's rank is the larger of the two; its dims are known where the
    declared type gives them, and otherwise only when the function runs. With
    a constant `shape` it canonicalizes to `tgc.broadcast_to` (or to the
    input itself); otherwise the CPU and CUDA backends run it on the host
    between compiled stages, like `tgc.dynamic_slice`.

    ```mlir
    %y = tgc.dynamic_broadcast_to %x, %shape : (tensor<f32>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, Tgc_I64Tensor:$shape);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input `,` $shape attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tgc_SqueezeOp : Tgc_Op<"squeeze", [InferTypeOpAdaptorWithIsCompatible, Tgc_ShapeView]> {
  let summary = "Remove size-1 dims";
  let description = [{
    Removes the dims listed in `axes` (strictly increasing, in `[0, rank)`),
    each of which must have size 1 (a dynamic dim is checked when the
    function runs).

    ```mlir
    %y = tgc.squeeze %x {axes = array<i64: 0, 2>} : (tensor<1x3x1xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tgc_UnsqueezeOp : Tgc_Op<"unsqueeze", [InferTypeOpAdaptorWithIsCompatible, Tgc_ShapeView]> {
  let summary = "Insert size-1 dims";
  let description = [{
    Inserts size-1 dims so that they sit at the positions `axes` of the result
    (strictly increasing, in `[0, rank + len(axes))`).

    ```mlir
    %y = tgc.unsqueeze %x {axes = array<i64: 0, 2>} : (tensor<3x?xf32>) -> tensor<1x3x1x?xf32>
    ```
  }];
  let arguments = (ins Tgc_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs Tgc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Fusion regions
//===----------------------------------------------------------------------===//

def Tgc_FusionOp : Tgc_Op<"fusion", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "A group of ops compiled into one kernel";
  let description = [{
    Holds a group of tgc ops that a backend compiles into a single kernel:
    the region's block arguments are the `inputs` (in order), the
    `tgc.yield` gives the `results`. The region is isolated from above, so a
    fusion reads nothing but its inputs. `kind` says how the group becomes a
    kernel:

    - `contraction`: one conv2d or matmul with the elementwise consumers
      that become its post-ops (bias, activation chain, residual add), as
      the post-op fusion table allows (`tgc-fuse-post-ops`); the CPU backend
      emits one oneDNN primitive with post-ops.
    - `loop`: elementwise, broadcast, reshape/transpose and reduction ops
      (`tgc-fuse-elementwise`), compiled into generated loops.

    Semantically a fusion is its body: the reference interpreter runs the
    ops one by one.

    ```mlir
    %y = tgc.fusion #tgc.fusion_kind<contraction> (%x, %w, %b) : (tensor<1x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<1x32xf32> {
    ^bb0(%a: tensor<1x64xf32>, %c: tensor<64x32xf32>, %d: tensor<32xf32>):
      %0 = tgc.matmul %a, %c : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
      %1 = tgc.add %0, %d : (tensor<1x32xf32>, tensor<32xf32>) -> tensor<1x32xf32>
      %2 = tgc.relu %1 : tensor<1x32xf32>
      tgc.yield %2 : tensor<1x32xf32>
    }
    ```
  }];
  let arguments = (ins Tgc_FusionKindAttr:$kind, Variadic<Tgc_Tensor>:$inputs);
  let results = (outs Variadic<Tgc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
  // A fusion of constants is inlined so that its ops fold.
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    mlir::Block &getBlock() { return getBody().front(); }
    /// Replaces this fusion by the ops of its body (for backends that run it
    /// op by op) and erases it.
    void inlineBody();
  }];
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Tgc_IfOp : Op<Tgc_Dialect, "if", [Tgc_ValidShapes, IsolatedFromAbove,
    RecursiveMemoryEffects]> {
  let summary = "A conditional: one of two regions runs, on a tensor's value";
  let description = [{
    Runs `then` when the one element of `condition` (a `tensor<i1>` of any
    shape holding exactly one element) is true, `else` otherwise. Both
    regions take the `inputs` as block arguments (they are isolated from
    above: what a branch reads from outside is an input) and end with a
    `tgc.yield` of the results, the same number and compatible types in
    both.

    Canonicalization inlines the branch a constant condition picks.

    ```mlir
    %r = tgc.if %p (%x, %y) : tensor<i1>, (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
      %s = tgc.add %a, %b : tensor<4xf32>
      tgc.yield %s : tensor<4xf32>
    } else {
    ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
      tgc.yield %b : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Tgc_BoolTensor:$condition, Variadic<Tgc_Tensor>:$inputs);
  let results = (outs Variadic<Tgc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion, SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $condition `(` $inputs `)` attr-dict `:` type($condition) `,`
    functional-type($inputs, $results) $thenRegion `else` $elseRegion
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    mlir::Block &getThenBlock() { return getThenRegion().front(); }
    mlir::Block &getElseBlock() { return getElseRegion().front(); }
  }];
}

def Tgc_WhileOp : Op<Tgc_Dialect, "while", [Tgc_ValidShapes, IsolatedFromAbove,
    RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "A loop over carried tensors while a condition region holds";
  let description = [{
    Carries the values `inits` through iterations: `cond` computes a
    `tensor<i1>` holding one element from the carried values; while it is
    true, `body` computes the next carried values from them. The results
    are the carried values when `cond` first yields false (the `inits`
    when it does at once).

    Both regions take the carried values and then the `captures` (values
    every iteration reads unchanged) as block arguments: they are isolated
    from above. `cond` yields the condition, `body` one value per carried
    value, of the carried type: a carried value keeps its type (and so its
    static shape) across iterations.

    ```mlir
    %n:2 = tgc.while (%i0, %s0) captures(%step : tensor<4xf32>) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
    ^bb0(%i: tensor<i64>, %s: tensor<4xf32>, %d: tensor<4xf32>):
      %ten = tgc.constant dense<10> : tensor<i64>
      %c = tgc.compare lt, %i, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>
      tgc.yield %c : tensor<i1>
    } do {
    ^bb0(%i: tensor<i64>, %s: tensor<4xf32>, %d: tensor<4xf32>):
      %one = tgc.constant dense<1> : tensor<i64>
      %j = tgc.add %i, %one : tensor<i64>
      %t = tgc.add %s, %d : tensor<4xf32>
      tgc.yield %j, %t : tensor<i64>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Tgc_Tensor>:$inits,
                       Variadic<Tgc_Tensor>:$captures);
  let results = (outs Variadic<Tgc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inits `)` (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict `:` functional-type($inits, $results) `cond` $cond `do` $body
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    mlir::Block &getCondBlock() { return getCond().front(); }
    mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Tgc_YieldOp : Tgc_Op<"yield", [Terminator, ReturnLike,
    ParentOneOf<["FusionOp", "IfOp", "WhileOp"]>]> {
  let summary = "The results of a fusion, a branch or a loop region";
  let description = [{
    Terminates a `tgc.fusion` body (its operands are the fusion's results),
    a `tgc.if` branch (the if's results), a `tgc.while` condition (the
    condition) or body (the next carried values).
  }];
  let arguments = (ins Variadic<Tgc_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing yielded */ }]>];
}

#endif // TGC_OPS_TD
