#!/usr/bin/env bash
# Installs every Debian 12 package tgc needs to build and test.
# Idempotent: packages already installed are skipped, and apt is not touched
# at all when nothing is missing.
#   scripts/setup.sh                the build and test dependencies
#   scripts/setup.sh --fuzz         also clang-22 and its libFuzzer runtime
#                                   for `make fuzz`
#   scripts/setup.sh --real-models  also PyTorch, torchvision and the OpenMP
#                                   OpenBLAS for scripts/real-models.py, and
#                                   ONNX Runtime 1.30 (npm onnxruntime-node,
#                                   in ~/.cache/tgc-ort) for bench/models.py
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build python3 make
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers
  libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
)
if [[ "${1:-}" == "--fuzz" ]]; then
  # libFuzzer with ASan/UBSan (the fuzz CMake preset). Not libomp-22-dev:
  # its libgomp.so.1 alias in /usr/lib/llvm-22/lib would replace GCC's
  # OpenMP runtime in every tgc binary (their RUNPATH has that directory);
  # the preset builds against GCC's libgomp, as oneDNN is.
  PACKAGES+=(clang-22 libclang-rt-22-dev)
fi
if [[ "${1:-}" == "--real-models" ]]; then
  PACKAGES+=(python3-torch python3-torchvision python3-numpy libopenblas0-openmp)
fi

# ONNX Runtime's CPU build ships in the npm package onnxruntime-node; its
# postinstall script downloads GPU binaries (and fails offline), so skip it.
# Not fatal: bench/models.py skips ORT, saying so, where it is missing.
install_ort() {
  local dir="${HOME}/.cache/tgc-ort"
  if [[ -f "$dir/node_modules/onnxruntime-node/package.json" ]] ||
     ! command -v npm >/dev/null; then
    return 0
  fi
  mkdir -p "$dir"
  (cd "$dir" && npm install --ignore-scripts --prefer-offline --no-audit \
     --no-fund onnxruntime-node@1.30.0 >/dev/null 2>&1) ||
    echo "setup: could not install onnxruntime-node (bench/models.py will skip ONNX Runtime)"
}

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  [[ "${1:-}" == "--real-models" ]] && install_ort
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
[[ "${1:-}" == "--real-models" ]] && install_ort
echo "setup: done"
