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
    count) are left alone. With `fuse-data-movement` (the CUDA pipeline),
    slices, pads and concatenations join regions as well and every op but
    reshape-like views counts as work, so that e.g. an attention head's
    slice, reshape, transpose and scale become one kernel; data movement
    after a reduction stays out of the reduction's region (a row kernel
    cannot also transpose its rows).
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "64",
           "The most ops one region may hold">,
    Option<"minComputeOps", "min-compute-ops", "int64_t", "2",
           "The fewest computing ops a region must hold">,
    Option<"fuseDataMovement", "fuse-data-movement", "bool", "false",
           "Also group slice, pad and concat, and count transposes, "
           "broadcasts and data movement as work (reshapes never are): for "
           "backends whose every op is a kernel launch (CUDA)">,
    Option<"narrowFloats", "narrow-floats", "bool", "false",
           "Also group ops on f16 and bf16 tensors, casts between float "
           "types, and the casts to i8 / from i32 and the i8 pads of int8 "
           "plans: for generators that store narrow and integer types and "
           "compute in f32 (CUDA)">,
  ];
  let dependentDialects = ["tgc::TgcDialect"];
}

def TgcAbsorbFakeQuant : Pass<"tgc-absorb-fake-quant"> {
  let summary = "Fold quantize/dequantize pairs into the conv2d/matmul they feed";
  let description = [{
    A conv2d or matmul (not transposing its lhs) whose activation input is a
    quantize / dequantize pair of f32 values with scalar constant
    parameters, as the ONNX importer spells QuantizeLinear +
    DequantizeLinear (`div` by the scale, `round`, `add` of the zero point,
    `clamp` to the storage range, `cast` to ui8 or i8 and back, `sub` of the
    zero point, `mul` by the scale; the zero point's add and sub only with
    one; a `reshape` may follow, as ONNX's Flatten before a Gemm, or
    reshape the quantized tensor between the two casts, as in ONNX
    Runtime's QOperator format), reads the pair's input (reshaped) instead
    and carries
    `tgc.input_quantization = {scale, storage, zero_point}`: its input is
    rounded to that grid first (dialects/InputQuantization.h). The
    reference interpreter applies exactly that; the CPU backend runs the
    contraction as an int8 kernel with that scale and zero point (a QDQ
    model's quantized convolutions and matmuls). Both sides of the pair
    must have the same scale and zero point, the contraction constant
    weights (operand 1), and an i8 pair no zero point; per-axis activation
    parameters are left alone. The pair stays where it has other users.

    ```mlir
    %y = tgc.conv2d %x, %w : ... {tgc.input_quantization = {scale = 2.0e-02 : f64, storage = ui8, zero_point = 128 : i64}}
    ```
  }];
}

def TgcFoldBatchNorm : Pass<"tgc-fold-batch-norm"> {
  let summary = "Fold inference batch norms into conv2d/matmul weights";
  let description = [{
    Rewrites `batch_norm(conv2d(x, W[, b]))` and
    `batch_norm(matmul(x, W))`, optionally with a constant bias add between
    the contraction and the batch norm, when the weights, the bias and the
    batch norm's scale, bias, mean and variance are constants and the
    intermediate values have no other users. With
    `s = scale / sqrt(variance + epsilon)` per output channel, the weights
    become `W * s` (scaled along O: dim 0 of OIHW, dim 3 of HWIO, the N
    columns of a matmul's rhs, also for grouped and depthwise convolutions)
    and the bias `(b - mean) * s + bias`: a conv2d with a bias operand, or a
    matmul followed by the add of a constant. The batch norm's `axis` must
    be the contraction's channel dim (1 for NCHW, 3 for NHWC, the last for
    matmul). The new constants are computed in double and rounded once to
    the element type.

    Constant subgraphs computing weights (transposes, reshapes, casts and
    elementwise ops of constants, e.g. the weight transposes of exported
    models) fold during the rewrite, as in `tgc-cleanup`.
  }];
}

def TgcReducePrecision : Pass<"tgc-reduce-precision"> {
  let summary = "Run conv2d and matmul, and the ops between them that only round, in f16 or bf16";
  let description = [{
    The reduced-precision policy of a backend whose libraries multiply
    narrow floats with f32 accumulation (the CUDA backend's `--precision=f16`
    / `bf16`: cuBLASLt and cuDNN on tensor cores). Every `tgc.conv2d` and
    `tgc.matmul` of f32 tensors takes `dtype` operands and gives a `dtype`
    result, widened back to f32 for its users. An op with such a widened
    value among its operands then runs on narrow values too (its other f32
    operands converted, as TensorRT's fp16 mode runs whole layers in half),
    if `dtype` changes nothing of it but its result's rounding: reshapes, transposes, broadcasts, slices, pads,
    concatenations, max pooling, and add, sub, mul, max, min, neg, abs,
    relu, leaky_relu, clamp, gelu, tanh and sigmoid. Everything else stays
    f32: exp, log, pow, div, square roots, reductions, average pooling,
    softmax and the normalizations. A narrowing cast of a widening one
    cancels, so a chain of convolutions, biases, activations and residual
    adds stays narrow from its first input to its last result. Constant
    operands (weights, biases) are converted once, rounding to nearest even;
    the function's arguments and results keep their types.

    ```mlir
    // tgc-reduce-precision{dtype=f16}
    %y = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %r = tgc.relu %y : tensor<4x16xf32>
    // becomes
    %x16 = tgc.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
    %w16 = tgc.constant dense<...> : tensor<8x16xf16>
    %y16 = tgc.matmul %x16, %w16 : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
    %r16 = tgc.relu %y16 : tensor<4x16xf16>
    %r = tgc.cast %r16 : tensor<4x16xf16> to tensor<4x16xf32>
    ```
  }];
  let options = [
    Option<"dtype", "dtype", "std::string", "\"f16\"",
           "The narrow float type: f16 or bf16">,
  ];
}

def TgcDecomposeNormalizations : Pass<"tgc-decompose-normalizations"> {
  let summary = "Decompose softmax, log_softmax, layer_norm and batch_norm into primitive ops";
  let description = [{
    For static f32 tensors: `softmax(x) = e / reduce_sum(e)` with
    `e = exp(x - reduce_max(x))` along the op's axis; `log_softmax(x) =
    (x - reduce_max(x)) - log(reduce_sum(e))`; `layer_norm` as
    `(x - mean) * rsqrt(mean((x - mean)^2) + epsilon) * scale + bias` over
    `[axis, rank)` (reductions with `keepdims`); `batch_norm` as
    `(x - mean) * (scale * rsqrt(variance + epsilon)) + bias` with the
    per-channel operands reshaped to broadcast along `axis`. Loop fusion then
    puts each decomposition, with its neighbours, into one generated kernel.
    The CUDA pipeline runs it (after batch-norm folding); the CPU pipeline
    keeps these ops whole for oneDNN's kernels.
  }];
}

def TgcFusePostOps : Pass<"tgc-fuse-post-ops"> {
  let summary = "Fuse conv2d/matmul with bias, activations and residual adds";
  let description = [{
    Grows a `tgc.fusion <contraction>` around each conv2d (plain, grouped,
    depthwise) and matmul (plain, batched, broadcast) with a float result,
    and the longest chain (at most 8) of consumers that the post-op table
    of `passes/PostOpFusion.h` recognizes, each mapped to a oneDNN post-op:

    - activations: relu, clamp (relu6), leaky_relu, elu, gelu (erf and
      tanh), sigmoid, tanh (eltwise post-ops);
    - the same spelled out in primitive ops: `x * sigmoid(x)` (swish),
      `x * tanh(log(1 + exp(x)))` (mish), `x * clamp(x + 3, 0, 6) / 6` and
      `x * clamp(x / 6 + 0.5, 0, 1)` (hardswish), and the erf and tanh GELU
      formulas as PyTorch exports them to ONNX
      (`(x * (1 + erf(x / sqrt(2)))) * 0.5`, ...);
    - `x * c`, `x / c`, `x + c`, `x - c` with a splat constant `c` (linear);
    - `x + b`, `x - b`, `x * b`, `x / b` with `b` broadcast per output
      channel (static shape whose dims are 1 except the channel dim): a
      bias right after the contraction, binary post-ops later;
    - `x + r` with `r` of x's static shape (residual add; binary post-op),
      also when x reaches the add through a single-use `tgc.reshape`: the
      reshape moves after the add and `r` is reshaped (a view) to the
      chain's shape (a transformer's output projection `[S, D]` reshaped to
      `[1, S, D]` before its residual).

    A consumer is fused only when every use of its input, and of the
    values inside a spelled-out pattern, is part of the pattern: an
    intermediate with another user is never fused away. Extra operands
    (bias, residual) become fusion inputs and must not depend on the
    contraction, so no cycle can form. The fusion's inputs are the
    contraction's operands followed by each binary post-op's operand, in
    chain order; splat constants are cloned into the body. The reference
    interpreter runs the body; the CPU backend compiles it into one oneDNN
    convolution or matmul with the bias and post-ops attached.
  }];
}

def TgcConvertLayout : Pass<"tgc-convert-layout"> {
  let summary = "Run NCHW convolutions in NHWC, with transposes only at the boundaries";
  let description = [{
    oneDNN's convolutions are fastest on NHWC activations with HWIO weights;
    models exported from PyTorch are NCHW. This pass rewrites every NCHW
    `tgc.conv2d` (plain, strided, dilated, grouped, depthwise) into an NHWC
    one with `tgc.transpose`s: the input NCHW -> NHWC before, the filter
    OIHW -> HWIO (a constant filter's transpose folds to a new constant at
    compile time), the result NHWC -> NCHW after. It then moves the
    transposes until they meet and cancel (`transpose(transpose(x))`
    composes to the identity):

    - NHWC -> NCHW transposes sink through their consumers: unary and
      binary elementwise ops, compare, select and cast, when every other
      operand is transposed the same way, a scalar, a constant (transposed
      at compile time) or a broadcast operand whose permutation only moves
      size-1 dims (a per-channel `1 x C x 1 x 1` bias becomes a
      `1 x 1 x 1 x C` reshape), or whose NCHW -> NHWC transpose exists
      already (a residual block's input); max/avg/global-average pools
      (layout attribute NCHW -> NHWC); batch norm, softmax and log-softmax
      (channel axis 1 -> 3); pad and slice (per-dim attributes permuted);
      reductions (axes permuted; reducing H and W without keepdims needs no
      transpose after); concat (axis permuted) of transposed or constant
      inputs.
    - NCHW -> NHWC transposes hoist through their producers when these have
      no other use: elementwise ops with at most one operand needing a new
      transpose (so the count never grows), pools, batch norms, softmax,
      pad and slice.

    NHWC -> NCHW transposes only ever move towards the uses and
    NCHW -> NHWC ones towards the definitions, so the rewriting
    terminates. A ResNet becomes NHWC end to end: a transpose of the input,
    and none at the end, since a transpose that only moves size-1 dims (the
    `N x 1 x 1 x C` of a global average pool before a flatten) becomes a
    reshape once the rest has converged. Values used by ops that cannot be
    converted keep an NHWC -> NCHW transpose in front of them. Ops inside
    `tgc.fusion` regions are left alone: run the pass before fusion.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"nhwc\"",
           "The layout convolutions run in (only nhwc)">,
  ];
  let dependentDialects = ["tgc::TgcDialect"];
}

#endif // TGC_PASSES_TD
