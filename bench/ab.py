#!/usr/bin/python3
"""A/B of two tgc-run binaries (say, main before and after a change) on the
ONNX exports `make bench-models` leaves in build/bench-models: rounds
alternate the two, each run in a fresh process at the same thread count,
and the medians of the per-round medians are reported with their ratio.

  python3 bench/ab.py OLD_TGC_RUN NEW_TGC_RUN [--rounds 5] [--runs 10]
      [--threads 2] [--models resnet50-b1,mlp-b64,transformer-b1]

A ratio within the spread of the rounds is noise; say the machine
(`lscpu`) with every figure.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(binary, model, workdir, threads, runs):
    cmd = [binary, os.path.join(workdir, f"{model}.onnx"),
           f"--input={os.path.join(workdir, model + '-input.npy')}",
           f"--expected={os.path.join(workdir, model + '-expected.npy')}",
           "--rtol=1e-3", "--atol=1e-4", f"--benchmark={runs}",
           f"--threads={threads}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    match = re.search(r"median ([0-9.]+)", proc.stdout)
    if proc.returncode != 0 or not match:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return float(match.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--models", default="resnet50-b1,mlp-b64,transformer-b1")
    p.add_argument("--workdir",
                   default=os.path.join(HERE, "..", "build", "bench-models"))
    args = p.parse_args()
    models = args.models.split(",")
    for model in models:
        if not os.path.exists(os.path.join(args.workdir, model + ".onnx")):
            sys.exit(f"no {model}.onnx in {args.workdir}: run `make "
                     "bench-models` first")
    times = {(m, b): [] for m in models for b in ("old", "new")}
    for r in range(args.rounds):
        for m in models:
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for b in order:
                binary = args.old if b == "old" else args.new
                times[(m, b)].append(run(binary, m, args.workdir,
                                         args.threads, args.runs))
    print(f"{args.rounds} rounds x {args.runs} runs, {args.threads} threads;"
          " median of per-round medians (min-max) ms")
    print(f"{'model':<16} {'old':>22} {'new':>22} {'new/old':>8}")
    for m in models:
        old, new = times[(m, "old")], times[(m, "new")]
        mo, mn = statistics.median(old), statistics.median(new)
        print(f"{m:<16} {mo:9.3f} ({min(old):.3f}-{max(old):.3f}) "
              f"{mn:9.3f} ({min(new):.3f}-{max(new):.3f}) {mn / mo:8.3f}")


if __name__ == "__main__":
    main()
