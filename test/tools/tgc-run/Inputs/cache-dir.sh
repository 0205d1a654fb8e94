#!/bin/bash
# The persistent compilation cache across processes (tgc-run --cache-dir):
# a cold directory is filled, a warm one serves every loop kernel with
# bitwise-equal results, 8 processes started together on one cold directory
# all succeed, and a truncated entry is detected and written again.
# Usage: cache-dir.sh TGC_RUN MODEL.mlir
set -euo pipefail
run=$1
model=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$work/cache
args=(--function=loops --input=16x256xf32=0.5 --input=256xf32=0.25 --threads=1)

"$run" "$model" "${args[@]}" --cache-dir="$cache" --output="$work/cold.npy" 2> "$work/cold.log"
grep -q "loop kernel(s) loaded, [1-9][0-9]* compiled and stored" "$work/cold.log" || { echo "FAIL: cold run: $(cat "$work/cold.log")"; exit 1; }
entries=$(ls "$cache"/*.tgcobj | wc -l)
[ "$entries" -ge 1 ] || { echo "FAIL: no cache entry after a cold run"; exit 1; }
TGC_CACHE_DIR="$cache" "$run" "$model" "${args[@]}" --output="$work/warm.npy" 2> "$work/warm.log"
# Zero compiles, by the accounting.
grep -q "$entries loop kernel(s) loaded, 0 compiled and stored" "$work/warm.log" || { echo "FAIL: warm run: $(cat "$work/warm.log")"; exit 1; }
cmp "$work/cold.npy" "$work/warm.npy" || { echo "FAIL: warm result differs"; exit 1; }
[ "$(ls "$cache"/*.tgcobj | wc -l)" -eq "$entries" ] || { echo "FAIL: a warm run wrote entries"; exit 1; }
# The warm run compiled nothing new: every entry was only read (none rewritten).
[ -z "$(ls "$cache" | grep -v '\.tgcobj$' || true)" ] || { echo "FAIL: temporaries left: $(ls "$cache")"; exit 1; }

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

# A truncated entry is a miss: the run still succeeds and writes it again.
victim=$(ls "$cache"/*.tgcobj | head -1)
size=$(stat -c %s "$victim")
truncate -s $((size / 2)) "$victim"
"$run" "$model" "${args[@]}" --cache-dir="$cache" --output="$work/repaired.npy" 2> "$work/repaired.log"
grep -q "(1 bad entry replaced)" "$work/repaired.log" || { echo "FAIL: repaired run: $(cat "$work/repaired.log")"; exit 1; }
cmp "$work/cold.npy" "$work/repaired.npy" || { echo "FAIL: result after repair differs"; exit 1; }
[ "$(stat -c %s "$victim")" -eq "$size" ] || { echo "FAIL: the truncated entry was not rewritten"; exit 1; }
echo "cache-dir: $entries kernel(s) cached; warm, concurrent and repaired runs bitwise equal"
