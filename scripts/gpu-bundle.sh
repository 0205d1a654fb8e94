#!/bin/sh
# Packs tgc's CUDA-facing binaries and the shared libraries they need into
# one archive that a GPU machine without LLVM/MLIR 22, oneDNN or Abseil can
# run (the lent GPU machines: CUDA 13, PyTorch, no Debian toolchain; see
# docs/cuda-backend.md, "For a GPU session").
#
#   scripts/gpu-bundle.sh [BUILD_DIR] [OUT_DIR]     (default build, .gpu)
#
# Writes OUT_DIR/tgc-gpu.tar.xz: bin/ (tgc-run and the CUDA test binaries),
# lib/ (their non-system shared libraries), test/ and bench/ inputs are taken
# from the repository itself. Left out: the C/C++ runtime (the GPU machine's
# newer glibc and libstdc++ run Debian 12 binaries) and the CUDA libraries
# (libnvrtc, libcublasLt, libcudnn: the GPU machine has its own). libz3 and
# libicudata (15 MB compressed, needed by libLLVM/libxml2 only for features
# tgc never uses) are replaced by stubs whose functions abort, which keeps the
# archive under the 64 MiB a device call can carry.
set -eu
build=${1:-build}
out=${2:-.gpu}
bins="tgc-run tgc-run-full tgc-cuda-runtime-tests tgc-cuda-codegen-tests tgc-cuda-compiler-tests tgc-frontend-tests"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/tgc/bin" "$stage/tgc/lib" "$out"
for b in $bins; do
  [ -x "$build/bin/$b" ] || { echo "gpu-bundle: no $build/bin/$b (build first)" >&2; exit 1; }
  cp "$build/bin/$b" "$stage/tgc/bin/"
done
# Every shared library the binaries load, except the C/C++ runtime and CUDA.
for b in $bins; do ldd "$build/bin/$b"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*|libnvrtc[^/]*|libcuda|libcublas[^/]*|libcudnn[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/tgc/lib/"; done
# Stubs for libz3 and libicudata: the symbols the real ones give, aborting.
stub() { # soname, C source
  printf '%s\n' "$2" > "$stage/stub.c"
  cc -shared -fPIC -O1 -Wl,-soname,"$1" -o "$stage/tgc/lib/$1" "$stage/stub.c"
}
z3=$(ls "$stage/tgc/lib" | grep '^libz3\.so' || true)
if [ -n "$z3" ]; then
  syms=$(nm -D --undefined-only "$stage"/tgc/lib/libLLVM.so* | awk '$2 ~ /^Z3_/ {print $2}' | sort -u)
  src='#include <stdlib.h>'
  for s in $syms; do src="$src
void $s(void) { abort(); }"; done
  stub "$z3" "$src"
fi
icudata=$(ls "$stage/tgc/lib" | grep '^libicudata\.so' || true)
if [ -n "$icudata" ]; then
  syms=$(nm -D --undefined-only "$stage"/tgc/lib/libicuuc.so* | awk '$2 ~ /^icudt/ {print $2}' | sort -u)
  src=''
  for s in $syms; do src="$src
const char $s[16] = {0};"; done
  stub "$icudata" "$src"
fi
# Symbols only a debugger needs go (a quarter of tgc's own binaries).
strip --strip-unneeded "$stage"/tgc/bin/* "$stage"/tgc/lib/* 2>/dev/null || true
tar -C "$stage" -cf - tgc | xz -T2 -9 > "$out/tgc-gpu.tar.xz"
size=$(wc -c < "$out/tgc-gpu.tar.xz")
echo "gpu-bundle: $out/tgc-gpu.tar.xz ($((size / 1048576)) MiB): $(ls "$stage/tgc/bin" | tr '\n' ' ')"
if [ "$size" -gt 60000000 ]; then
  echo "gpu-bundle: warning: over 60 MB; a device call carries 64 MiB with the repository" >&2
fi
