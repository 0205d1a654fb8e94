#!/usr/bin/env python3
"""The determinism contract (docs/determinism.md), checked and costed.

For each model, in fresh processes of `tgc-run MODEL --input=X --output=Y`:
  (a) --deterministic=run-to-run: N processes at 2 threads, and the cold
      compile vs a warm cache vs an AOT artifact (tgc-compile +
      run-artifact): all bitwise equal?
  (b) --deterministic=strict: 1 vs 2 vs 4 threads bitwise equal? (and, for
      comparison, the same without a level)
  cost: median latency of `tgc-run --benchmark` at 2 threads with no level,
      run-to-run and strict, measured interleaved in one run (rounds of
      fresh processes), as ratios to no level.
Run it once natively and once with --isa=AVX2 (DNNL_MAX_CPU_ISA=AVX2, an
AVX2-only machine's kernels). State the machine (lscpu) with the numbers.

  /usr/bin/python3 bench/determinism.py [--build build] [--runs 20]
      [--rounds 5] [--isa AVX2] [MODEL.onnx...]
"""
import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

MODELS = ["resnet50-b1", "mlp-b64", "transformer-b1"]
LEVELS = ["default", "run-to-run", "strict"]


def run(cmd, env):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), proc.stdout, proc.stderr))
    return proc.stdout


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def level_flags(level):
    return [] if level == "default" else ["--deterministic=" + level]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--isa", default="",
                        help="DNNL_MAX_CPU_ISA for every process (e.g. AVX2)")
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    bindir = os.path.join(args.build, "bin")
    tgc_run = os.path.join(bindir, "tgc-run")
    env = dict(os.environ)
    env.pop("TGC_DETERMINISTIC", None)
    env.pop("TGC_CACHE_DIR", None)
    if args.isa:
        env["DNNL_MAX_CPU_ISA"] = args.isa
    target = run([tgc_run, "--print-target"], env).strip()
    print("target: %s" % target)
    models = args.models or [
        os.path.join(args.build, "bench-models", m + ".onnx") for m in MODELS
    ]
    for model in models:
        name = os.path.splitext(os.path.basename(model))[0]
        inp = os.path.splitext(model)[0] + "-input.npy"
        if not os.path.exists(model) or not os.path.exists(inp):
            print("%s: missing (make bench-models)" % name)
            continue
        work = tempfile.mkdtemp(prefix="tgc-determinism-")
        try:
            base = [tgc_run, model, "--input=" + inp]

            def output(flags, tag):
                out = os.path.join(work, tag + ".npy")
                run(base + flags + ["--output=" + out], env)
                return digest(out)

            # (a) run to run at 2 threads, cold / warm / artifact.
            a = level_flags("run-to-run")
            outs = {output(a + ["--threads=2"], "a%d" % i)
                    for i in range(args.runs)}
            cache = os.path.join(work, "cache")
            cached = {output(a + ["--threads=2", "--cache-dir=" + cache],
                             "warm%d" % i) for i in range(2)}
            artifact = os.path.join(work, "m.tgcx")
            run([os.path.join(bindir, "tgc-compile"), model, "-o", artifact,
                 "--num-threads=2", "--input=" + inp] + a, env)
            aot = os.path.join(work, "aot.npy")
            run([os.path.join(bindir, "run-artifact"), artifact, "--threads",
                 "2", "--input", inp, "--output", aot], env)
            together = outs | cached | {digest(aot)}
            print("%s: (a) run-to-run, %d fresh processes at 2 threads: %s; "
                  "with cold / warm cache / artifact: %s" %
                  (name, args.runs,
                   "bitwise equal" if len(outs) == 1
                   else "%d distinct outputs" % len(outs),
                   "bitwise equal" if len(together) == 1 else "differ"))

            # (b) across thread counts.
            for level in ["default", "strict"]:
                flags = level_flags(level)
                by_threads = {t: output(flags + ["--threads=%d" % t],
                                        "%s-t%d" % (level, t))
                              for t in (1, 2, 4)}
                differ = [t for t in (2, 4) if by_threads[t] != by_threads[1]]
                print("%s: (b) %s at 1 / 2 / 4 threads: %s" %
                      (name, level, "bitwise equal" if not differ else
                       "differ from 1 thread at %s" % differ))

            # Cost: interleaved rounds, fresh processes.
            times = {level: [] for level in LEVELS}
            for _ in range(args.rounds):
                for level in LEVELS:
                    text = run(base + level_flags(level) +
                               ["--threads=2", "--benchmark=20"], env)
                    match = re.search(r"median ([0-9.]+)", text)
                    if match:
                        times[level].append(float(match.group(1)))
            medians = {level: statistics.median(times[level])
                       for level in LEVELS if times[level]}
            if "default" in medians:
                print("%s: cost at 2 threads (median of %d rounds): %s" % (
                    name, args.rounds, ", ".join(
                        "%s %.3f ms (%.2fx)" % (level, medians[level],
                                                medians[level] /
                                                medians["default"])
                        for level in LEVELS if level in medians)))
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
