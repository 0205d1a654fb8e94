#!/bin/sh
# Runs on a lent GPU machine (the device tool), in the repository root, with
# the archive of scripts/gpu-bundle.sh carried in .gpu/:
#
#   scripts/gpu-session.sh tests   # the GPU unit tests and the differential suites
#   scripts/gpu-session.sh bench   # ResNet-50 / MLP / transformer vs PyTorch (bench/gpu-models.py)
#
# Unpacks the bundle, points the loader at its libraries and at the
# machine's CUDA libraries (the toolkit's, the driver's and PyTorch's
# nvidia-* wheels: NVRTC, cuBLASLt, cuDNN), links build/bin to it so that the
# repository's scripts find tgc-run, and writes one log per step to $OUT
# (the device tool brings $OUT back; at most 8 files).
set -u
what=${1:-tests}
bundle=${TGC_GPU_BUNDLE:-.gpu/tgc-gpu.tar.xz}
out=${OUT:-/tmp/tgc-gpu-out}
mkdir -p "$out" /tmp/tgc-gpu
[ -f "$bundle" ] || { echo "gpu-session: no $bundle (run scripts/gpu-bundle.sh here first)" >&2; exit 2; }
tar -C /tmp/tgc-gpu -xJf "$bundle"
T=/tmp/tgc-gpu/tgc
cudalibs=$(python3 - <<'PY'
import glob, os, site, sys
roots = set(site.getsitepackages() + [site.getusersitepackages()] + sys.path)
dirs = set()
for root in roots:
    for pattern in ("libnvrtc.so*", "libcublasLt.so*", "libcudnn.so*"):
        for f in glob.glob(os.path.join(root, "nvidia", "**", pattern), recursive=True):
            dirs.add(os.path.dirname(f))
for d in ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
          "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"):
    if os.path.isdir(d):
        dirs.add(d)
print(":".join(sorted(dirs)))
PY
)
export LD_LIBRARY_PATH="$T/lib:$cudalibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p build/bin
for b in "$T"/bin/*; do ln -sf "$b" build/bin/; done
nvidia-smi -L 2>/dev/null || true
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
status=0
step() { # name, command...
  name=$1; shift
  echo "== $name: $*"
  "$@" > "$out/$name.log" 2>&1
  rc=$?
  echo "exit $rc" >> "$out/$name.log"
  tail -n 12 "$out/$name.log"
  [ $rc -eq 0 ] || status=1
}
case "$what" in
  tests)
    step runtime-tests "$T/bin/tgc-cuda-runtime-tests"
    step codegen-tests "$T/bin/tgc-cuda-codegen-tests"
    step compiler-tests "$T/bin/tgc-cuda-compiler-tests"
    step frontend-tests "$T/bin/tgc-frontend-tests" --gtest_filter='DeviceFunction.*'
    step differential test/gpu/cuda-differential.sh "$T/bin/tgc-run" .
    ;;
  bench)
    PYTHONUNBUFFERED=1 step models python3 bench/gpu-models.py --batches 1,32 --precision all
    ;;
  *) echo "gpu-session: tests or bench" >&2; exit 2 ;;
esac
exit $status
