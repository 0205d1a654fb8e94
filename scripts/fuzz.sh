#!/usr/bin/env bash
# Coverage-guided fuzzing of tgc's input boundaries (libFuzzer, ASan + UBSan):
#   scripts/fuzz.sh BUILD_DIR RUNS [TARGET...]
# runs each fuzz target (default: all four) for RUNS executions, starting
# from its seed corpus (test/fuzz/corpus, and the test suites' .mlir files);
# the grown corpora stay in BUILD_DIR/fuzz-work, crashers go to
# BUILD_DIR/findings/ (`fuzz-TARGET-crash-...`). Exits non-zero on a finding.
# Minimized crashers belong in test/fuzz/corpus/<target>/, where `make test`
# replays them.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-fuzz}
RUNS=${2:-200000}
shift 2 || true
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(npy tensor-literal onnx-import mlir-pipeline)
mkdir -p "$BUILD/findings"
# Debian's LLVM/MLIR libraries are not instrumented, but LLVM's inline
# allocator code in tgc's objects poisons memory those libraries then use:
# false reports unless ASan ignores manual poisoning.
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0}"
status=0
for t in "${TARGETS[@]}"; do
  case "$t" in
    npy) seeds=(test/fuzz/corpus/npy); len=4096 ;;
    tensor-literal) seeds=(test/fuzz/corpus/tensor-literal); len=256 ;;
    onnx-import) seeds=(test/fuzz/corpus/onnx); len=16384 ;;
    mlir-pipeline) seeds=(test/fuzz/corpus/mlir test/dialects test/passes); len=8192 ;;
    *) echo "fuzz: unknown target '$t'" >&2; exit 2 ;;
  esac
  work="$BUILD/fuzz-work/$t"
  mkdir -p "$work"
  echo "== fuzz-$t: $RUNS runs"
  start=$(date +%s)
  if "$BUILD/bin/fuzz-$t" -runs="$RUNS" -max_len="$len" -rss_limit_mb=2048 \
      -timeout=30 -print_final_stats=1 \
      -artifact_prefix="$BUILD/findings/fuzz-$t-" "$work" "${seeds[@]}" \
      > "$BUILD/fuzz-work/$t.log" 2>&1; then
    echo "fuzz-$t: $(grep -E '^Done' "$BUILD/fuzz-work/$t.log" | tail -1) ($(( $(date +%s) - start )) s, $(grep -E 'stat::number_of_executed_units' "$BUILD/fuzz-work/$t.log" | awk '{print $2}') units)"
  else
    status=1
    echo "fuzz-$t: FINDING (see $BUILD/fuzz-work/$t.log):"
    grep -E "ERROR|SUMMARY|Test unit written" "$BUILD/fuzz-work/$t.log" | head -5
  fi
done
exit $status
