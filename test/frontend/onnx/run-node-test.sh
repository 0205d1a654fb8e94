#!/bin/sh
# run-node-test.sh NODE_DIR TEST BACKEND: runs every test_data_set of one ONNX
# node test with tgc-run (ONNX's tolerances: rtol 1e-3, atol 1e-7).
set -e
dir=$1/$2
backend=$3
for ds in "$dir"/test_data_set_*; do
  set --
  for f in $(ls "$ds" | grep '^input_' | sort -t_ -k2 -n); do set -- "$@" --input="$ds/$f"; done
  for f in $(ls "$ds" | grep '^output_' | sort -t_ -k2 -n); do set -- "$@" --expected="$ds/$f"; done
  tgc-run "$dir/model.onnx" --backend="$backend" --rtol=1e-3 --atol=1e-7 "$@"
done
