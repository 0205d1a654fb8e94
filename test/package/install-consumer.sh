#!/usr/bin/env bash
# The installed package, as a program outside the tree uses it:
#   1. `cmake --install` the build tree into a fresh prefix;
#   2. the public headers parse alone and include no MLIR, LLVM, oneDNN, CUDA
#      or generated header (the include list is checked; the parse time is
#      printed, not asserted: timings live in bench/);
#   3. examples/consumer is configured against the prefix, moved elsewhere
#      (relocatable), built and run: a traced function and an ONNX model
#      checked against plain loops, and a program linking tgc::runtime only;
#   4. the runtime-only program loads no LLVM, MLIR, ONNX or NVRTC library,
#      and the consumer (tgc::tgc) none at start: libtgc loads the installed
#      libtgc_compiler when the consumer first traces (which step 3 ran).
#
# install-consumer.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tgc-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/tgc/tgc.h"
test -f "$work/prefix/include/tgc/Version.h"
test -f "$work/prefix/lib/cmake/tgc/tgcConfig.cmake"

# Relocatable: nothing in the package names the prefix it was installed to.
mv "$work/prefix" "$work/moved"
prefix="$work/moved"
if grep -rl "$work/prefix" "$prefix/lib/cmake" "$prefix/include"; then
  echo "FAIL: the package names its install prefix" >&2
  exit 1
fi

# 2. The public header alone.
cat > "$work/user.cpp" <<'CPP'
#include <tgc/tgc.h>
int main() { return 0; }
CPP
TIMEFORMAT='%R %U'
times=$( { time g++ -std=c++20 -fsyntax-only -H -I"$prefix/include" \
  "$work/user.cpp" 2> "$work/includes.txt"; } 2>&1 )
headers=$(grep -c '^\.' "$work/includes.txt" || true)
if grep -E '^\.+ .*(mlir/|llvm/|llvm-c/|absl/|dnnl|oneapi|cuda|\.h\.inc$|\.cpp\.inc$)' \
     "$work/includes.txt"; then
  echo "FAIL: the public header includes the headers above" >&2
  exit 1
fi
if grep -E '^\.+ ' "$work/includes.txt" | grep -v -E \
     "^\.+ ($prefix/include/tgc/|/usr/include/|/usr/lib/gcc/)"; then
  echo "FAIL: the public header includes files outside tgc/ and the system" >&2
  exit 1
fi
read -r wall cpu <<< "$times"
# ctest runs other tests beside this one: the best of three more runs is
# the figure to compare (the issue's bar is 1 s on an idle machine).
best=$wall
for _ in 1 2 3; do
  t=$( { time g++ -std=c++20 -fsyntax-only -I"$prefix/include" \
    "$work/user.cpp"; } 2>&1 )
  read -r w _ <<< "$t"
  best=$(awk -v a="$best" -v b="$w" 'BEGIN { print (b < a) ? b : a }')
done
echo "public header: $headers headers; g++ -fsyntax-only took ${wall} s" \
  "(${cpu} s of CPU) on the first run, ${best} s at best of 4"

# 3. The consumer project.
cmake -S "$source/examples/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer" \
  /usr/share/libonnx-testdata/data/node/test_matmul_2d/model.onnx
"$work/consumer/runtime-only" "$work/t.npy"
# An artifact compiled by the tree's tgc-compile, run by the installed
# runtime alone.
"$build/bin/tgc-compile" "$source/examples/demo-convnet.mlir" \
  -o "$work/convnet.tgcx" >/dev/null
"$work/consumer/run-artifact" "$work/convnet.tgcx"

# 4. The runtime alone.
for program in runtime-only run-artifact; do
  if ldd "$work/consumer/$program" | grep -E -i 'llvm|mlir|onnx|nvrtc|protobuf'; then
    echo "FAIL: $program loads the libraries above" >&2
    exit 1
  fi
done
if ldd "$work/consumer/consumer" | grep -E -i 'llvm|mlir|onnx|nvrtc|protobuf'; then
  echo "FAIL: consumer (tgc::tgc) loads the libraries above at start" >&2
  exit 1
fi
compgen -G "$prefix/lib/libtgc_compiler.so.*" >/dev/null
echo "runtime-only: $(ldd "$work/consumer/runtime-only" | wc -l) shared libraries"
echo "PASS"
