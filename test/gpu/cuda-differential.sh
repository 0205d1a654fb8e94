#!/bin/sh
# The CUDA backend against the reference interpreter: every function of the
# op suites (test/dialects/ops-*.mlir) and of the CPU backend's graph and
# fusion tests runs on the GPU and on the interpreter with the same random
# inputs (dynamic dims of size 0, 1 and 3) and must agree, or both must fail at
# the same op. Functions the cuda backend has no kernel for are listed as
# "unsupported" (not mismatches).
#
#   cuda-differential.sh TGC_RUN SOURCE_DIR            run on GPU 0
#   cuda-differential.sh TGC_RUN SOURCE_DIR --compile-only
#       compile every function for cuda (no GPU needed) and fail if one
#       fails for another reason than an op without a cuda kernel
#
# Exits 77 (ctest's skip code) when there is no GPU or driver.
set -u
run=$1
src=$2
mode=${3:-}
files="
  test/dialects/ops-elementwise.mlir
  test/dialects/ops-contraction.mlir
  test/dialects/ops-pooling.mlir
  test/dialects/ops-reduction.mlir
  test/dialects/ops-normalization.mlir
  test/dialects/ops-data-movement.mlir
  test/dialects/ops-fusion.mlir
  test/dialects/ops-data-dependent.mlir
  test/codegen/cpu/graphs.mlir
  test/codegen/cpu/post-op-fusion.mlir
  test/codegen/cpu/loop-fusion-differential.mlir
  test/codegen/cpu/layout-differential.mlir
  test/codegen/cpu/fold-batch-norm.mlir
"
status=0
for file in $files; do
  for size in 0 1 3; do
    echo "== $file (dynamic dims $size)"
    if [ "$mode" = "--compile-only" ]; then
      "$run" --differential --backend=cuda --compile-only --dynamic-size=$size "$src/$file"
      rc=$?
    else
      "$run" --differential --backend=cuda --no-device-exit-code=77 --dynamic-size=$size "$src/$file"
      rc=$?
      if [ $rc -eq 77 ]; then
        echo "SKIPPED: no CUDA device"
        exit 77
      fi
    fi
    [ $rc -eq 0 ] || status=1
  done
done
exit $status
