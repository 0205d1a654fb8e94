#!/usr/bin/env bash
# The tgc demo: optimize a small model with tgc-opt, then run it on the
# reference interpreter with tgc-run.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build
BIN=$BUILD/bin
EXAMPLE=examples/demo.mlir

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "The input: an MLP block with a residual add and a softmax head ($EXAMPLE)"
grep -v '^//' "$EXAMPLE"

step "tgc-opt --tgc-cleanup: canonicalize, fold (x * 1.0 disappears), CSE, refine shapes"
"$BIN/tgc-opt" --tgc-cleanup "$EXAMPLE"

step "tgc-opt on malformed input: a located error and a non-zero exit"
printf 'func.func @bad(%%a: tensor<2x3xf32>, %%b: tensor<4x3xf32>) -> tensor<2x3xf32> {\n  %%c = tgc.add %%a, %%b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>\n  return %%c : tensor<2x3xf32>\n}\n' > /tmp/tgc-demo-bad.mlir
if "$BIN/tgc-opt" /tmp/tgc-demo-bad.mlir > /dev/null; then
  echo "unexpected success"; exit 1
else
  echo "(exit code $?)"
fi

step "Versions: every tool says which tgc it is ($("$BIN/tgc-run" --version | head -1)); tgc-run exits 2 when results differ, 1 on other errors"
"$BIN/tgc-opt" --version
set +e
"$BIN/tgc-run" "$EXAMPLE" --backend=reference --input=2x4xf32=1,2,3,4,-1,-2,-3,-4 --seed=1 --expected=2x3xf32=0 > /dev/null 2>&1
echo "(a wrong --expected: exit code $?)"
set -e

step "tgc-run on the reference interpreter: x is 2x4 (resolving the dynamic dim), weights random from --seed"
"$BIN/tgc-run" "$EXAMPLE" --backend=reference --input=2x4xf32=1,2,3,4,-1,-2,-3,-4 --seed=1 --output=/tmp/tgc-demo-out.npy --print
echo "(result also written to /tmp/tgc-demo-out.npy)"

step "tgc-run on the CPU backend (oneDNN primitives + native kernels): the compiled plan, checked against the interpreter's result"
"$BIN/tgc-run" "$EXAMPLE" --backend=cpu --input=2x4xf32=1,2,3,4,-1,-2,-3,-4 --seed=1 --print-plan --expected=/tmp/tgc-demo-out.npy

step "The CPU backend against the interpreter on small graphs (MLP, conv-bn-relu, attention)"
"$BIN/tgc-run" --differential test/codegen/cpu/graphs.mlir

step "tgc-run checking the result against expected values (exit code 0 = match)"
"$BIN/tgc-run" "$EXAMPLE" --backend=cpu \
  --input=1x4xf32=0,0,0,0 --input=4x8xf32=0.1 --input=8xf32=0 --input=8x4xf32=1 \
  --expected=1x4xf32=0.25,0.25,0.25,0.25

step "tgc::function: a traced MLP called with varying batch sizes (examples/traced/TracedMlp.cpp)"
"$BIN/traced-mlp"

step "tgc::function: a traced ResNet basic block under reduce_retracing (examples/traced/TracedResidualBlock.cpp)"
"$BIN/traced-residual-block"

step "Control flow in traced functions: tgc::cond, tgc::whileLoop with an early exit, an RNN with tgc::scan, a 10,000-iteration loop; each region compiled into a plan of its own (examples/traced/TracedControlFlow.cpp)"
"$BIN/traced-control-flow"

ONNX_DATA=/usr/share/libonnx-testdata/data
step "tgc::function in a serving loop: exceptions, model identity, scalar captures, concrete functions, compile accounting, the persistent cache (examples/traced/TracedServing.cpp)"
"$BIN/traced-serving"

step "The persistent compilation cache across processes: tgc-run --cache-dir (a cold run stores the plan and its loop kernels, a warm one loads the plan: no compile)"
rm -rf /tmp/tgc-demo-cache
for run in cold warm; do
  start=$(date +%s%N)
  "$BIN/tgc-run" test/tools/tgc-run/Inputs/cache-dir-model.mlir --function=loops --input=16x256xf32=0.5 --input=256xf32=0.25 --compile-only --cache-dir=/tmp/tgc-demo-cache > /dev/null
  echo "$run: $(( ($(date +%s%N) - start) / 1000000 )) ms, $(ls /tmp/tgc-demo-cache | wc -l) cache entries"
done
rm -rf /tmp/tgc-demo-cache

step "A checked ONNX run with the cache warm: tgc-run's front end loads the stored plan and compares its result with the expected .npy, without loading the compiler (tools/lib/FastRun.h)"
rm -rf /tmp/tgc-demo-check
python3 - /tmp/tgc-demo-x.npy <<'PY'
import struct, sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 7, 5), }"
header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
    f.write(struct.pack('<210f', *[((i * 37) % 101) / 50.0 - 1.0 for i in range(210)]))
PY
CONV=$ONNX_DATA/pytorch-converted/test_Conv2d/model.onnx
"$BIN/tgc-run" "$CONV" --input=/tmp/tgc-demo-x.npy --output=/tmp/tgc-demo-y.npy --cache-dir=/tmp/tgc-demo-check
"$BIN/tgc-run" "$CONV" --input=/tmp/tgc-demo-x.npy --expected=/tmp/tgc-demo-y.npy --rtol=0 --atol=0 --cache-dir=/tmp/tgc-demo-check
rm -rf /tmp/tgc-demo-check /tmp/tgc-demo-x.npy /tmp/tgc-demo-y.npy

step "tgc::Model with a cache directory in a program linking libtgc: the cold process imports and compiles; the warm one runs the cached plan without mapping the compiler (LLVM, MLIR, ONNX), which its first traced function then loads (test/package/LazyCompiler.cpp)"
rm -rf /tmp/tgc-demo-model-cache
for run in cold warm; do
  "$BIN/lazy-compiler" $run /usr/share/libonnx-testdata/data/node/test_relu/model.onnx /tmp/tgc-demo-model-cache /tmp/tgc-demo-model-result.bin
done
rm -rf /tmp/tgc-demo-model-cache /tmp/tgc-demo-model-result.bin

step "Ahead of time: tgc-compile saves a plan; the runtime alone (run-artifact: no LLVM or MLIR mapped) and tgc-run run it (docs/aot.md)"
"$BIN/tgc-compile" examples/demo-convnet.mlir -o /tmp/tgc-demo-convnet.tgcx
"$BIN/run-artifact" /tmp/tgc-demo-convnet.tgcx
"$BIN/tgc-run" /tmp/tgc-demo-convnet.tgcx | cut -c1-100
rm -f /tmp/tgc-demo-convnet.tgcx

step "Deploying: a CompiledModel serving async requests with the latency and throughput hints, and strict determinism (examples/traced/EngineServing.cpp, docs/deploy.md)"
"$BIN/engine-serving"

step "tgc-run --requests: throughput and latency percentiles per hint, through the engine; --deterministic=strict gives the same bits at 1 and 2 threads (docs/determinism.md)"
"$BIN/tgc-run" examples/demo-convnet.mlir --requests=200 --hint=latency
"$BIN/tgc-run" examples/demo-convnet.mlir --requests=200 --hint=throughput
for threads in 1 2; do
  "$BIN/tgc-run" test/tools/tgc-run/deterministic.mlir --deterministic=strict --threads=$threads \
    --output=/tmp/tgc-demo-y$threads.npy --output=/tmp/tgc-demo-c$threads.npy > /dev/null
done
cmp /tmp/tgc-demo-y1.npy /tmp/tgc-demo-y2.npy && cmp /tmp/tgc-demo-c1.npy /tmp/tgc-demo-c2.npy &&
  echo "strict: 1 thread and 2 threads give bitwise the same results"
rm -f /tmp/tgc-demo-[yc][12].npy

step "Reduced precision: --precision=auto multiplies convolutions and matmuls in bf16 where the CPU has AVX512_BF16 (kernels named [bf16] in the plan), else keeps f32 (docs/precision.md)"
"$BIN/tgc-run" examples/demo-convnet.mlir --precision=auto --print-plan --compile-only | grep -E "conv2d|matmul|target"
"$BIN/tgc-run" examples/demo-convnet.mlir --precision=f32 --output=/tmp/tgc-demo-f32.npy > /dev/null
"$BIN/tgc-run" examples/demo-convnet.mlir --precision=auto --expected=/tmp/tgc-demo-f32.npy --rtol=0.05 --atol=0.05 | tail -1
rm -f /tmp/tgc-demo-f32.npy

step "int8: calibrate on sample inputs, save the table, then run the convolution in int8; the matmul is the output layer, f32 unless --quantize-output-layers (docs/precision.md)"
"$BIN/tgc-run" test/tools/tgc-run/precision-int8.mlir --precision=int8 \
  --calibration-data=test/tools/tgc-run/Inputs/calibration --calibration-table=/tmp/tgc-demo.table \
  --input=test/tools/tgc-run/Inputs/calibration/s0001.npy --output=/tmp/tgc-demo-int8.npy > /dev/null
head -4 /tmp/tgc-demo.table
"$BIN/tgc-run" test/tools/tgc-run/precision-int8.mlir --precision=int8 --calibration-table=/tmp/tgc-demo.table \
  --print-plan --compile-only | grep -E "conv2d|matmul" | sed -E 's/ at .*: \(/ (/'
rm -f /tmp/tgc-demo.table /tmp/tgc-demo-int8.npy

step "int8 chains: residual blocks keep their activations 8-bit, through the shortcut sums and a projection branch (calibrated '.residual' ranges); only the last block, whose output is f32, reads an f32 residual"
"$BIN/tgc-run" test/tools/tgc-run/precision-int8-residual.mlir --precision=int8 \
  --calibration-data=test/tools/tgc-run/Inputs/calibration --calibrator=minmax --print-plan --compile-only 2>/dev/null \
  | grep -E "tgc\.(fusion|conv2d)" | sed -E 's/^(\[[0-9]+\]) onednn (.*) at .*: \((.*)/\1 \2: (\3/' | cut -c1-200

step "ONNX: import a model from the ONNX test data into the tgc dialect (tgc-import-onnx)"
"$BIN/tgc-import-onnx" "$ONNX_DATA/pytorch-operator/test_operator_conv/model.onnx" \
  --elide-constants-larger-than=16

step "ONNX: large weights stay in the model file (file-backed dense_resource constants, dialects/ConstantData.h): the IR holds no copy, the compiled plan holds each weight once (prepacked); --weights-in-file=false copies them into the IR, with bitwise the same results"
/usr/bin/python3 scripts/weights-model.py /tmp/tgc-demo-weights.onnx 2048
"$BIN/tgc-import-onnx" /tmp/tgc-demo-weights.onnx --elide-constants-larger-than=16 | grep -m2 "dense_resource<onnx"
for wif in true false; do
  /usr/bin/python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:], check=True, stdout=subprocess.DEVNULL)
print("--weights-in-file=%s: peak RSS %d MiB (32 MiB of weights)" % (sys.argv[1], resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024))' \
    $wif "$BIN/tgc-run" /tmp/tgc-demo-weights.onnx --weights-in-file=$wif --input=128x2048xf32=0.5 --output=/tmp/tgc-demo-weights-$wif.npy
done
cmp /tmp/tgc-demo-weights-true.npy /tmp/tgc-demo-weights-false.npy && echo "bitwise the same results"

step "ONNX: tgc-run takes the .onnx model and the test's TensorProto .pb files directly"
T="$ONNX_DATA/node/test_conv_with_strides_and_asymmetric_padding"
"$BIN/tgc-run" "$T/model.onnx" --input="$T/test_data_set_0/input_0.pb" \
  --input="$T/test_data_set_0/input_1.pb" --expected="$T/test_data_set_0/output_0.pb"

step "ONNX: a model with symbolic batch and sequence dims (Shape -> Slice -> Concat -> Reshape) runs at any size"
protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto \
  < test/frontend/onnx/Inputs/dynamic-reshape.txtpb > /tmp/tgc-demo-dynamic.onnx
"$BIN/tgc-import-onnx" /tmp/tgc-demo-dynamic.onnx | grep -E "shape_of|dynamic_reshape"
"$BIN/tgc-run" /tmp/tgc-demo-dynamic.onnx --input=2x3x8xf32=1 | cut -c1-60
"$BIN/tgc-run" /tmp/tgc-demo-dynamic.onnx --input=5x1x8xf32=1 | cut -c1-60

step "ONNX dims an op needs static: an LSTM over a dynamic sequence length is imported for the --input shapes (ModelOptions::inputShapes in the API); GroupNorm's Reshape [0, groups, -1] of a dynamic batch and image reads its shape when it runs"
protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto \
  < test/frontend/onnx/Inputs/lstm-dynamic-seq.txtpb > /tmp/tgc-demo-lstm.onnx
"$BIN/tgc-import-onnx" /tmp/tgc-demo-lstm.onnx 2>&1 | sed 's/; give/;\n  give/' | cut -c1-160 || true
"$BIN/tgc-run" /tmp/tgc-demo-lstm.onnx --input=5x1x1xf32=0.5 --differential
protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto \
  < test/frontend/onnx/Inputs/reshape-copy-infer.txtpb > /tmp/tgc-demo-group.onnx
"$BIN/tgc-run" /tmp/tgc-demo-group.onnx --input=2x8x3x5xf32=1 | cut -c1-60

step "Data-dependent shapes: NonZero/Compress, Unique and NonMaxSuppression run with one plan before the op, the op on the host, and the rest compiled for the shape it returns (docs/tracing.md)"
"$BIN/tgc-run" test/tools/tgc-run/data-dependent.mlir --function=nms --input=1x3x4xf32=0,0,1,1,0,0.1,1,1.1,0,2,1,3 --input=1x1x3xf32=0.9,0.8,0.7
"$BIN/tgc-run" $ONNX_DATA/node/test_compress_0/model.onnx \
  --input=$ONNX_DATA/node/test_compress_0/test_data_set_0/input_0.pb \
  --input=$ONNX_DATA/node/test_compress_0/test_data_set_0/input_1.pb \
  --expected=$ONNX_DATA/node/test_compress_0/test_data_set_0/output_0.pb --print-plan | grep -E "^staged|^then|^stage|result|match"

step "ONNX sequences and optionals: a sequence input (a SequenceProto .pb) flattens into arguments, a Loop carrying a sequence unrolls at import, outputs flatten into results"
T="$ONNX_DATA/node/test_loop16_seq_none"
"$BIN/tgc-run" "$T/model.onnx" --input="$T/test_data_set_0/input_0.pb" --input="$T/test_data_set_0/input_1.pb" \
  --input="$T/test_data_set_0/input_2.pb" --expected="$T/test_data_set_0/output_0.pb" | sed -E 's|matches .*/(output_[0-9]+\.pb)#[^#]*#([0-9]+)|matches element \2 of \1|'
T="$ONNX_DATA/node/test_sequence_map_extract_shapes"
"$BIN/tgc-run" "$T/model.onnx" --input="$T/test_data_set_0/input_0.pb" --print | head -3

step "ONNX control flow: Scan-8 (per batch element) and a Loop whose slices follow the iteration number (unrolled once the run gives the trip count)"
T="$ONNX_DATA/node/test_scan_sum"
"$BIN/tgc-run" "$T/model.onnx" --input="$T/test_data_set_0/input_0.pb" --input="$T/test_data_set_0/input_1.pb" \
  --expected="$T/test_data_set_0/output_0.pb" --expected="$T/test_data_set_0/output_1.pb" | sed -E 's|matches .*/|matches |'
T="$ONNX_DATA/node/test_loop11"
"$BIN/tgc-run" "$T/model.onnx" --input="$T/test_data_set_0/input_0.pb" --input="$T/test_data_set_0/input_1.pb" \
  --input="$T/test_data_set_0/input_2.pb" --expected="$T/test_data_set_0/output_0.pb" \
  --expected="$T/test_data_set_0/output_1.pb" | sed -E 's|matches .*/|matches |'

step "ONNX 3-D convolutions: Conv3d as 2-D convolutions over depth taps (pytorch-converted/test_Conv3d_dilated_strided)"
T="$ONNX_DATA/pytorch-converted/test_Conv3d_dilated_strided"
"$BIN/tgc-run" "$T/model.onnx" --input="$T/test_data_set_0/input_0.pb" --expected="$T/test_data_set_0/output_0.pb"

step "ONNX conformance: the pytorch-operator backend tests on both backends (make conformance runs all 1072)"
"$BIN/tgc-onnx-conformance" --dir=pytorch-operator

step "Fusion: the tgc-cpu pipeline (tgc-opt --tgc-cpu) on examples/fusion.mlir: NHWC conv, post-ops, a loop fusion"
"$BIN/tgc-opt" --tgc-cpu examples/fusion.mlir | grep -E "tgc.fusion|tgc.transpose|return" | cut -c1-150

step "Fusion: the CPU plan unfused (--pipeline=tgc-cpu-unfused) and fused (default), checked against the interpreter"
"$BIN/tgc-run" examples/fusion.mlir --backend=reference --seed=5 --output=/tmp/tgc-demo-fusion.npy
"$BIN/tgc-run" examples/fusion.mlir --seed=5 --pipeline=tgc-cpu-unfused --print-plan --expected=/tmp/tgc-demo-fusion.npy | grep -E "^ *\[|matches" | sed 's/ at [^ ]*//' | cut -c1-120
echo "--- fused:"
"$BIN/tgc-run" examples/fusion.mlir --seed=5 --print-plan --expected=/tmp/tgc-demo-fusion.npy | grep -E "^ *\[|matches" | sed 's/ at [^ ]*//' | cut -c1-140

step "Instruction sets: the plan follows the ISA oneDNN runs (this machine: $("$BIN/tgc-run" --print-target)); DNNL_MAX_CPU_ISA=AVX2 plans as an AVX2-only machine would"
"$BIN/tgc-run" test/codegen/cpu/winograd.mlir --function=chain --print-plan > /tmp/tgc-demo-plan.txt
grep -E "^ *\[|^target" /tmp/tgc-demo-plan.txt | sed -E 's/ at [^ ]*//; s/ \(tensor.* \[/ [/' | cut -c1-140
echo "(Winograd kernels in this plan: $(grep -c 'winograd' /tmp/tgc-demo-plan.txt || true))"
echo "--- DNNL_MAX_CPU_ISA=AVX2 (nChw8c blocks, no Winograd):"
DNNL_MAX_CPU_ISA=AVX2 "$BIN/tgc-run" test/codegen/cpu/winograd.mlir --function=chain --print-plan | grep -E "^ *\[|^target" | sed -E 's/ at [^ ]*//; s/ \(tensor.* \[/ [/' | cut -c1-140
"$BIN/tgc-run" test/codegen/cpu/winograd.mlir --differential | tail -1
DNNL_MAX_CPU_ISA=AVX2 "$BIN/tgc-run" test/codegen/cpu/winograd.mlir --differential | tail -1
echo "--- a matmul of 16 rows by constant weights: with AVX2 (no AVX-512) it runs as the 1x1 convolution it is, oneDNN's faster kernel there (docs/cpu-backend.md)"
cat > /tmp/tgc-demo-dense.mlir <<'MLIR'
func.func @dense(%x: tensor<16x8xf32>) -> tensor<16x4xf32> {
  %w = tgc.constant dense<0.25> : tensor<8x4xf32>
  %y = tgc.matmul %x, %w : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %r = tgc.relu %y : tensor<16x4xf32>
  return %r : tensor<16x4xf32>
}
MLIR
for isa in "" AVX2; do
  echo "${isa:-this machine}: $(env ${isa:+DNNL_MAX_CPU_ISA=$isa} "$BIN/tgc-run" /tmp/tgc-demo-dense.mlir --print-plan --compile-only | grep '^\[' | sed -E 's/ at [^ ]*//; s/ \(tensor.* \[/ [/'); $(env ${isa:+DNNL_MAX_CPU_ISA=$isa} "$BIN/tgc-run" /tmp/tgc-demo-dense.mlir --differential | tail -1)"
done

step "NaN propagates on every backend: relu, softmax, max pooling of [nan, 1, -2] (oneDNN's kernels would drop the NaN)"
"$BIN/tgc-run" test/codegen/cpu/nan-semantics.mlir --function=relu --input=3xf32=nan,1,-2 | tail -1
"$BIN/tgc-run" test/codegen/cpu/nan-semantics.mlir --function=softmax --input=3xf32=nan,1,-2 | tail -1
echo "(and infinities and signed zeros: max pooling of [-inf, -inf, -inf], then rsqrt(neg(x)) of [0, -0, -4]; found by tgc-smith)"
"$BIN/tgc-run" test/codegen/cpu/nan-semantics.mlir --function=max_pool --input=1x1x1x3xf32=-inf,-inf,-inf | tail -1
"$BIN/tgc-run" test/codegen/cpu/nan-semantics.mlir --function=neg_then_rsqrt --pipeline=tgc-cpu-unfused --input=3xf32=0,-0,-4 | tail -1

step "Random programs: tgc-smith generates well-typed functions of every op and dtype and compares the CPU backend with the interpreter (make fuzz-graphs N=... runs long campaigns)"
/usr/bin/env python3 test/fuzz/tgc_smith.py generate --seed 7 --index 3 | head -12
/usr/bin/env python3 test/fuzz/tgc_smith.py campaign --count 20 --seed 7 --rotate 1 --jobs 2 --no-minimize \
  --out /tmp/tgc-demo-smith --tgc-run "$BIN/tgc-run" --tgc-opt "$BIN/tgc-opt" | tail -3

if [ -x "$BIN/tgc-cuda-codegen" ]; then
  step "CUDA: the same function planned for a GPU (compile only, no GPU needed): cuDNN conv with bias+relu, cuBLASLt matmul with bias, generated kernels"
  "$BIN/tgc-run" examples/fusion.mlir --backend=cuda --compile-only --print-plan --seed=5 | grep -E "^cuda plan|^ *\[" | sed 's/ at [^ ]*//' | cut -c1-150
  step "CUDA: which functions of the op suite compile for the GPU (tgc-run --differential --backend=cuda --compile-only)"
  "$BIN/tgc-run" test/dialects/ops-pooling.mlir --differential --backend=cuda --compile-only | tail -3
  step "CUDA reduced precision: --precision=f16 runs convolutions and matmuls on half tensor cores, with the layers between them in half (compile only; docs/precision.md)"
  "$BIN/tgc-run" examples/fusion.mlir --backend=cuda --compile-only --precision=f16 --print-plan --seed=5 | grep -E "^ *\[" | sed 's/ at [^ ]*//' | cut -c1-150
  step "CUDA int8: the CPU calibration's table quantizes the GPU plan too: each convolution is an int8 cuDNN call (s32 sums, f32 out) between kernels that quantize its input and dequantize its result, fused with the bias, relu, residual sums and the next layer's quantization (compile only; docs/precision.md)"
  "$BIN/tgc-run" test/tools/tgc-run/precision-int8-residual.mlir --backend=cuda --precision=int8 \
    --calibration-data=test/tools/tgc-run/Inputs/calibration --calibrator=minmax --compile-only --print-plan 2>/dev/null \
    | grep -E "^int8|^ *\[[0-3]\]" | sed 's/ at [^ ]*//' | cut -c1-150
  step "CUDA: running needs a GPU and its driver; without one tgc says so"
  "$BIN/tgc-run" examples/fusion.mlir --backend=cuda --seed=5 2>&1 | head -2 || true
fi

step "tgc-opt --tgc-cpu is exactly what the CPU backend plans kernels from (tgc-run --print-lowered), and the backend honours --mlir-print-ir-after"
"$BIN/tgc-opt" --tgc-cpu test/codegen/cpu/tgc-cpu-pipeline.mlir > /tmp/tgc-demo-opt.mlir
"$BIN/tgc-run" test/codegen/cpu/tgc-cpu-pipeline.mlir --compile-only --print-lowered > /tmp/tgc-demo-run.mlir
diff -B /tmp/tgc-demo-opt.mlir /tmp/tgc-demo-run.mlir && echo "identical ($(grep -c 'tgc\.' /tmp/tgc-demo-opt.mlir) tgc ops)"
echo "passes run by tgc-run's compile: $("$BIN/tgc-run" test/codegen/cpu/tgc-cpu-pipeline.mlir --compile-only --mlir-print-ir-after-all 2>&1 | grep "IR Dump" | sed -E 's/.*\(([a-z-]+)\).*/\1/' | paste -sd' ')"

step "Settings: every TGC_* variable in one table with one rule (TGC_FUSION=false turns fusion off; a misspelt name is flagged)"
TGC_FUSION=false TGC_FUSON=1 "$BIN/tgc-run" --print-settings | grep -A3 "^Set now"

step "tgc as a library: cmake --install, then a separate CMake project (examples/consumer) with find_package(tgc) traces a function and runs an ONNX model"
rm -rf /tmp/tgc-demo-prefix /tmp/tgc-demo-consumer
cmake --install "$BUILD" --prefix /tmp/tgc-demo-prefix > /dev/null
ls /tmp/tgc-demo-prefix/include/tgc | tr '\n' ' '; echo
cmake -S examples/consumer -B /tmp/tgc-demo-consumer -G Ninja -DCMAKE_PREFIX_PATH=/tmp/tgc-demo-prefix > /dev/null
cmake --build /tmp/tgc-demo-consumer > /dev/null
/tmp/tgc-demo-consumer/consumer /usr/share/libonnx-testdata/data/node/test_matmul_2d/model.onnx
/tmp/tgc-demo-consumer/runtime-only /tmp/tgc-demo-t.npy
echo "runtime-only program: $(ldd /tmp/tgc-demo-consumer/runtime-only | wc -l) shared libraries, $(ldd /tmp/tgc-demo-consumer/runtime-only | grep -ciE 'llvm|mlir|onnx|nvrtc' || true) of them LLVM/MLIR/ONNX/NVRTC"
