#!/bin/bash
# Ahead-of-time artifacts: tgc-compile saves a plan; tgc-run and the runtime
# alone (run-artifact, linked with tgc::runtime: no LLVM or MLIR mapped) run
# it bitwise like the JIT path; damaged artifacts and plans a saved file
# cannot hold are errors naming the reason; an ONNX run with a cache
# directory is served the second time without import or compile.
# Usage: artifact.sh TGC_COMPILE TGC_RUN RUN_ARTIFACT SOURCE_DIR
set -euo pipefail
compile=$1
run=$2
artifact=$3
source=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
model=$source/examples/demo-convnet.mlir
fail() { echo "FAIL: $*"; exit 1; }

# An input as a .npy file (f32, 1x3x32x32), written without numpy.
python3 - "$work/in.npy" <<'PY'
import struct, sys
shape = (1, 3, 32, 32)
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 32, 32), }"
header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
data = b''.join(struct.pack('<f', ((i * 37) % 101) / 50.0 - 1.0)
                for i in range(1 * 3 * 32 * 32))
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) +
            header.encode() + data)
PY

"$compile" "$model" -o "$work/convnet.tgcx" --num-threads=2 > "$work/compile.log"
grep -q "wrote .*convnet.tgcx: @convnet, [0-9]* steps" "$work/compile.log" || fail "tgc-compile: $(cat "$work/compile.log")"
"$run" "$model" --threads=2 --input="$work/in.npy" --output="$work/jit.npy"
"$run" "$work/convnet.tgcx" --threads=2 --input="$work/in.npy" --output="$work/run.npy"
"$artifact" "$work/convnet.tgcx" --threads 2 --input "$work/in.npy" --output "$work/aot.npy" > "$work/aot.log"
grep -q "no LLVM, MLIR or ONNX library mapped" "$work/aot.log" || fail "run-artifact: $(cat "$work/aot.log")"
cmp "$work/jit.npy" "$work/run.npy" || fail "tgc-run of the artifact differs from the JIT path"
cmp "$work/jit.npy" "$work/aot.npy" || fail "run-artifact differs from the JIT path"
# An artifact runs with the threads it was made for unless told otherwise.
"$compile" "$model" -o "$work/one.tgcx" --num-threads=1 > /dev/null
"$run" "$model" --threads=1 --input="$work/in.npy" --output="$work/jit1.npy"
"$run" "$work/one.tgcx" --input="$work/in.npy" --output="$work/run1.npy"
"$artifact" "$work/one.tgcx" --input "$work/in.npy" --output "$work/aot1.npy" > /dev/null
cmp "$work/jit1.npy" "$work/run1.npy" || fail "the 1-thread artifact differs under tgc-run"
cmp "$work/jit1.npy" "$work/aot1.npy" || fail "the 1-thread artifact differs under run-artifact"
# The plan prints like a compiled one.
"$run" "$work/convnet.tgcx" --threads=2 --print-plan --compile-only | grep -q "onednn" || fail "no plan printed"

# Damaged artifacts.
size=$(stat -c %s "$work/convnet.tgcx")
head -c $((size / 2)) "$work/convnet.tgcx" > "$work/half.tgcx"
if "$run" "$work/half.tgcx" 2> "$work/half.log"; then fail "a truncated artifact ran"; fi
grep -q "half.tgcx: truncated" "$work/half.log" || fail "truncated: $(cat "$work/half.log")"
if "$artifact" "$work/half.tgcx" 2> "$work/half2.log"; then fail "run-artifact ran a truncated artifact"; fi
grep -q "truncated" "$work/half2.log" || fail "run-artifact, truncated: $(cat "$work/half2.log")"
cp "$work/convnet.tgcx" "$work/flipped.tgcx"
printf '\x55' | dd of="$work/flipped.tgcx" bs=1 seek=$((size - 64)) conv=notrunc status=none
if "$run" "$work/flipped.tgcx" 2> "$work/flipped.log"; then fail "a damaged artifact ran"; fi
grep -q "checksum does not match" "$work/flipped.log" || fail "flipped: $(cat "$work/flipped.log")"
# Wrong inputs are errors, not crashes.
if "$run" "$work/convnet.tgcx" --input=2x2xf32=1,2,3,4 2> "$work/shape.log"; then fail "a wrong input ran"; fi
grep -q "error" "$work/shape.log" || fail "wrong input: $(cat "$work/shape.log")"

# The tools' own errors.
expect_error() { # expect_error WORDS COMMAND...
  local words=$1; shift
  if "$@" > "$work/err.log" 2>&1; then fail "succeeded: $*"; fi
  grep -qF -- "$words" "$work/err.log" || fail "$*: $(cat "$work/err.log")"
}
expect_error "tgc-compile: error: no output file (-o OUT.tgcx)" "$compile" "$model"
expect_error "tgc-compile: error: no input file" "$compile" -o "$work/x.tgcx"
expect_error "unknown --pipeline 'fast'" "$compile" "$model" -o "$work/x.tgcx" --pipeline=fast
expect_error "no function named 'nope'" "$compile" "$model" -o "$work/x.tgcx" --function=nope
expect_error "is a saved cpu plan: it runs on --backend=cpu only" "$run" "$work/convnet.tgcx" --backend=reference
expect_error "is a saved plan: it has no IR for --differential or --print-lowered" "$run" "$work/convnet.tgcx" --differential
expect_error "holds @convnet, not @other" "$run" "$work/convnet.tgcx" --function=other
# Loop kernels' machine code loads where the compiler is linked (tgc-run),
# not in the runtime alone, which says so.
loops=$source/test/tools/tgc-run/Inputs/cache-dir-model.mlir
"$compile" "$loops" --function=loops --input=16x256xf32=0.5 --input=256xf32=0.25 -o "$work/loops.tgcx" > /dev/null
"$run" "$work/loops.tgcx" --input=16x256xf32=0.5 --input=256xf32=0.25 --output="$work/loops.npy"
expect_error "no loader for 'jit.loop' kernels in this process" "$artifact" "$work/loops.tgcx"

# A plan with reference steps cannot be saved: the error names the step.
if TGC_ENABLE_ONEDNN=0 "$compile" "$model" -o "$work/ref.tgcx" 2> "$work/ref.log"; then fail "a reference plan was saved"; fi
grep -q "cannot save the plan of @convnet: step 0 (tgc\..*) runs .* on the reference path" "$work/ref.log" || fail "reference: $(cat "$work/ref.log")"
[ ! -e "$work/ref.tgcx" ] || fail "a file was left behind"

# An ONNX model: compiled ahead of time it runs by its input names; run with
# a cache directory, the second run neither imports nor compiles.
onnx=/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d
"$compile" "$onnx/model.onnx" -o "$work/conv2d.tgcx" > /dev/null
"$run" "$work/conv2d.tgcx" --input="$onnx/test_data_set_0/input_0.pb" \
  --expected="$onnx/test_data_set_0/output_0.pb" | grep -q "matches" || fail "the ONNX artifact's result"
cache=$work/cache
"$run" "$onnx/model.onnx" --cache-dir="$cache" --input="$onnx/test_data_set_0/input_0.pb" --output="$work/cold.npy" 2> "$work/cold.log"
grep -q "plan compiled and stored" "$work/cold.log" || fail "cold ONNX run: $(cat "$work/cold.log")"
"$run" "$onnx/model.onnx" --cache-dir="$cache" --input="$onnx/test_data_set_0/input_0.pb" --output="$work/warm.npy" 2> "$work/warm.log"
grep -q "plan loaded (no import, no compile)" "$work/warm.log" || fail "warm ONNX run: $(cat "$work/warm.log")"
cmp "$work/cold.npy" "$work/warm.npy" || fail "the warm ONNX run differs"
# Other inputs are another key (the importer may specialize on given values).
"$run" "$onnx/model.onnx" --cache-dir="$cache" --seed=3 2> "$work/other.log" > /dev/null
grep -q "plan loaded (no import, no compile)" "$work/other.log" && fail "random inputs were served the given inputs' plan"
# tgc-run's front end (tools/lib/FastRun.h) links no LLVM or MLIR library;
# it runs an artifact, and an ONNX model whose plan the cache holds, on
# .npy inputs into --output files itself, with the full tool's results.
if ldd "$run" | grep -E -q "libLLVM|libMLIR"; then fail "tgc-run links the compiler: $(ldd "$run" | grep -E 'libLLVM|libMLIR')"; fi
python3 -c "
import struct
shape = (2, 3, 7, 5)
header = \"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 7, 5), }\"
header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
with open('$work/x.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
    f.write(struct.pack('<210f', *[((i * 37) % 101) / 50.0 - 1.0 for i in range(210)]))
"
fast=$work/fast-cache
"$run" "$onnx/model.onnx" --cache-dir="$fast" --input="$work/x.npy" --output="$work/fast-cold.npy" 2> "$work/fast-cold.log"
grep -q "plan compiled and stored" "$work/fast-cold.log" || fail "cold ONNX run on .npy: $(cat "$work/fast-cold.log")"
"$run" "$onnx/model.onnx" --cache-dir="$fast" --input="$work/x.npy" --output="$work/fast-warm.npy" 2> "$work/fast-warm.log"
grep -q "plan loaded (no import, no compile)" "$work/fast-warm.log" || fail "warm ONNX run on .npy: $(cat "$work/fast-warm.log")"
cmp "$work/fast-cold.npy" "$work/fast-warm.npy" || fail "the front end's warm run differs"
# Results checked against .npy files stay in the front end, with the full
# tool's report and exit status (2 when they differ); what it does not
# serve (a bad tolerance) goes to the full tool, which names it.
"$run" "$onnx/model.onnx" --cache-dir="$fast" --input="$work/x.npy" --expected="$work/fast-cold.npy" --rtol=0 --atol=0 > "$work/check.out" 2> "$work/check.log" || fail "checking a warm run: $(cat "$work/check.log")"
grep -q "plan loaded (no import, no compile)" "$work/check.log" || fail "a checked warm run went to the full tool: $(cat "$work/check.log")"
grep -q "result #0: matches $work/fast-cold.npy" "$work/check.out" || fail "checked warm run: $(cat "$work/check.out")"
status=0
"$run" "$onnx/model.onnx" --cache-dir="$fast" --input="$work/x.npy" --expected="$work/x.npy" > /dev/null 2> "$work/differ.log" || status=$?
[ "$status" = 2 ] || fail "a warm run whose results differ exits $status: $(cat "$work/differ.log")"
grep -q "plan loaded (no import, no compile)" "$work/differ.log" || fail "a differing warm run went to the full tool"
grep -q "result #0: MISMATCH against $work/x.npy" "$work/differ.log" || fail "differing warm run: $(cat "$work/differ.log")"
grep -q "tgc-run: error: results differ from the expected values (rtol 0.0001, atol 1e-05)" "$work/differ.log" || fail "differing warm run: $(cat "$work/differ.log")"
expect_error "--rtol and --atol must be non-negative" "$run" "$onnx/model.onnx" --cache-dir="$fast" --input="$work/x.npy" --expected="$work/fast-cold.npy" --rtol=-1
# Another thread count is another key: the full tool compiles it.
"$run" "$onnx/model.onnx" --cache-dir="$fast" --input="$work/x.npy" --threads=1 --output="$work/fast-one.npy" 2> "$work/fast-one.log"
grep -q "plan compiled and stored" "$work/fast-one.log" || fail "another thread count was served: $(cat "$work/fast-one.log")"
# An artifact on .npy inputs, and a wrong input handed to the full tool's
# diagnostics.
"$compile" "$onnx/model.onnx" -o "$work/conv2d-npy.tgcx" --input="$work/x.npy" > /dev/null
"$run" "$work/conv2d-npy.tgcx" --input="$work/x.npy" --output="$work/fast-aot.npy"
cmp "$work/fast-cold.npy" "$work/fast-aot.npy" || fail "the front end's artifact run differs"
expect_error "tgc-run: error" "$run" "$work/conv2d-npy.tgcx" --input="$work/fast-cold.npy" --output="$work/bad.npy"
echo "artifact: tgc-compile, tgc-run and run-artifact agree bitwise; errors named"
