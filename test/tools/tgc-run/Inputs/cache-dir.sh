#!/bin/bash
# The persistent compilation cache across processes (tgc-run --cache-dir):
# a cold directory is filled (the whole plan and its loop kernels), a warm
# one serves the plan with bitwise-equal results and zero compiles, without
# the plan the loop kernels are served, 8 processes started together on one
# cold directory all succeed, and truncated entries (plan and kernel) are
# detected and written again.
# Usage: cache-dir.sh TGC_RUN MODEL.mlir
set -euo pipefail
run=$1
model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$work/cache
args=(--function=loops --input=16x256xf32=0.5 --input=256xf32=0.25 --threads=1)

"$run" "$model" "${args[@]}" --cache-dir="$cache" --output="$work/cold.npy" 2> "$work/cold.log"
grep -q "plan compiled and stored; 0 loop kernel(s) loaded, [1-9][0-9]* compiled and stored" "$work/cold.log" || { echo "FAIL: cold run: $(cat "$work/cold.log")"; exit 1; }
entries=$(ls "$cache"/*.tgcobj | wc -l)
[ "$entries" -ge 1 ] || { echo "FAIL: no cache entry after a cold run"; exit 1; }
[ "$(ls "$cache"/*.tgcx | wc -l)" -eq 1 ] || { echo "FAIL: no plan after a cold run: $(ls "$cache")"; exit 1; }
TGC_CACHE_DIR="$cache" "$run" "$model" "${args[@]}" --output="$work/warm.npy" 2> "$work/warm.log"
# Zero compiles, by the accounting: the whole plan was loaded.
grep -q "plan loaded (no compile); 0 loop kernel(s) loaded, 0 compiled and stored" "$work/warm.log" || { echo "FAIL: warm run: $(cat "$work/warm.log")"; exit 1; }
cmp "$work/cold.npy" "$work/warm.npy" || { echo "FAIL: warm result differs"; exit 1; }
[ "$(ls "$cache"/*.tgcobj | wc -l)" -eq "$entries" ] || { echo "FAIL: a warm run wrote entries"; exit 1; }
# Nothing else (no temporary) is left.
[ -z "$(ls "$cache" | grep -v -e '\.tgcobj$' -e '\.tgcx$' || true)" ] || { echo "FAIL: temporaries left: $(ls "$cache")"; exit 1; }
# Without the plan, the compile runs and serves every loop kernel.
rm "$cache"/*.tgcx
"$run" "$model" "${args[@]}" --cache-dir="$cache" --output="$work/kernels.npy" 2> "$work/kernels.log"
grep -q "plan compiled and stored; $entries loop kernel(s) loaded, 0 compiled and stored" "$work/kernels.log" || { echo "FAIL: kernel run: $(cat "$work/kernels.log")"; exit 1; }
cmp "$work/cold.npy" "$work/kernels.npy" || { echo "FAIL: result with cached kernels differs"; exit 1; }

# 8 processes on one cold directory.
shared=$work/shared
pids=()
for i in 1 2 3 4 5 6 7 8; do
  "$run" "$model" "${args[@]}" --cache-dir="$shared" --output="$work/p$i.npy" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || { echo "FAIL: a concurrent process failed"; exit 1; }
done
for i in 1 2 3 4 5 6 7 8; do
  cmp "$work/cold.npy" "$work/p$i.npy" || { echo "FAIL: process $i differs"; exit 1; }
done
[ "$(ls "$shared"/*.tgcobj | wc -l)" -eq "$entries" ] || { echo "FAIL: concurrent runs left $(ls "$shared")"; exit 1; }
[ "$(ls "$shared"/*.tgcx | wc -l)" -eq 1 ] || { echo "FAIL: concurrent runs left $(ls "$shared")"; exit 1; }
[ -z "$(ls "$shared" | grep -v -e '\.tgcobj$' -e '\.tgcx$' || true)" ] || { echo "FAIL: concurrent runs left temporaries: $(ls "$shared")"; exit 1; }

# A truncated plan is a miss: the run still succeeds and writes it again.
plan=$(ls "$cache"/*.tgcx | head -1)
plansize=$(stat -c %s "$plan")
truncate -s $((plansize / 2)) "$plan"
"$run" "$model" "${args[@]}" --cache-dir="$cache" --output="$work/replan.npy" 2> "$work/replan.log"
grep -q "plan compiled and stored.*(1 bad entry replaced)" "$work/replan.log" || { echo "FAIL: run after a truncated plan: $(cat "$work/replan.log")"; exit 1; }
cmp "$work/cold.npy" "$work/replan.npy" || { echo "FAIL: result after the plan's repair differs"; exit 1; }
[ "$(stat -c %s "$plan")" -eq "$plansize" ] || { echo "FAIL: the truncated plan was not rewritten"; exit 1; }

# A truncated kernel entry (without the plan) is a miss too.
rm "$cache"/*.tgcx
victim=$(ls "$cache"/*.tgcobj | head -1)
size=$(stat -c %s "$victim")
truncate -s $((size / 2)) "$victim"
"$run" "$model" "${args[@]}" --cache-dir="$cache" --output="$work/repaired.npy" 2> "$work/repaired.log"
grep -q "(1 bad entry replaced)" "$work/repaired.log" || { echo "FAIL: repaired run: $(cat "$work/repaired.log")"; exit 1; }
cmp "$work/cold.npy" "$work/repaired.npy" || { echo "FAIL: result after repair differs"; exit 1; }
[ "$(stat -c %s "$victim")" -eq "$size" ] || { echo "FAIL: the truncated entry was not rewritten"; exit 1; }
echo "cache-dir: a plan and $entries kernel(s) cached; warm, concurrent and repaired runs bitwise equal"
