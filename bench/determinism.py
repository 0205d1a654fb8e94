#!/usr/bin/env python3
"""Run-to-run and thread-count determinism of tgc's CPU plans, measured.

For each model, fresh processes of `tgc-run MODEL --input=X --output=Y`:
  (a) N runs at 2 threads: are all outputs bitwise equal?
  (b) 1 thread vs 2 threads: bitwise equal?
and the cold (compiled) vs warm (cache) vs artifact (tgc-compile +
run-artifact) outputs at 2 threads. Prints what holds; no determinism mode is
forced (this measures tgc as it is; issue 19 asks for a contract).

  /usr/bin/python3 bench/determinism.py [--build build] [--runs 20] [MODEL...]
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util

spec = importlib.util.spec_from_file_location(
    "warm_start", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "warm-start.py"))
warm_start = importlib.util.module_from_spec(spec)
spec.loader.exec_module(warm_start)


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), proc.stdout, proc.stderr))


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    bindir = os.path.join(args.build, "bin")
    models = args.models or [
        os.path.join(args.build, "bench-models", "resnet50-b1.onnx")
    ]
    for model in models:
        name = os.path.splitext(os.path.basename(model))[0]
        if not os.path.exists(model):
            print("%s: missing" % name)
            continue
        work = tempfile.mkdtemp(prefix="tgc-determinism-")
        try:
            inp = os.path.join(work, "in.npy")
            warm_start.write_npy(inp, {**warm_start.SHAPES, **warm_start.OTHER_SHAPES}.get(name, (1, 3, 224, 224)))
            tgc_run = os.path.join(bindir, "tgc-run")
            outs = []
            for i in range(args.runs):
                out = os.path.join(work, "r%d.npy" % i)
                run([tgc_run, model, "--threads=2", "--input=" + inp,
                     "--output=" + out])
                outs.append(digest(out))
            one = os.path.join(work, "t1.npy")
            run([tgc_run, model, "--threads=1", "--input=" + inp,
                 "--output=" + one])
            cache = os.path.join(work, "cache")
            warm = os.path.join(work, "warm.npy")
            for _ in range(2):
                run([tgc_run, model, "--threads=2", "--input=" + inp,
                     "--cache-dir=" + cache, "--output=" + warm])
            artifact = os.path.join(work, "m.tgcx")
            run([os.path.join(bindir, "tgc-compile"), model, "-o", artifact,
                 "--num-threads=2", "--input=" + inp])
            aot = os.path.join(work, "aot.npy")
            run([os.path.join(bindir, "run-artifact"), artifact, "--threads",
                 "2", "--input", inp, "--output", aot])
            print("%s: (a) %d fresh processes at 2 threads: %s" %
                  (name, args.runs, "bitwise equal" if len(set(outs)) == 1
                   else "%d distinct outputs" % len(set(outs))))
            print("%s: cold / warm cache / artifact at 2 threads: %s" %
                  (name, "bitwise equal" if len({outs[0], digest(warm),
                                                 digest(aot)}) == 1
                   else "differ"))
            print("%s: (b) 1 thread vs 2 threads: %s" %
                  (name, "bitwise equal" if digest(one) == outs[0]
                   else "differ"))
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
