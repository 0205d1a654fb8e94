#!/usr/bin/env python3
"""Warm starts: how fast a second process reaches the first result of a model.

For each ONNX model (default: the bench-models exports of ResNet-50 b1 and
b8), fresh processes, rounds interleaved, medians reported:
  cold     tgc-run MODEL --cache-dir EMPTY   (import, compile, run; stores
           the plan)
  warm     tgc-run MODEL --cache-dir SAME    (the plan loaded: no import, no
           compile)
  aot      run-artifact MODEL.tgcx           (tgc-compile'd once; the runtime
           alone, no LLVM/MLIR mapped)
  model    bench-model-start MODEL ... CACHE (tgc::Model in a program
           linking libtgc: cold on an empty cache, warm on the same one,
           which must report 0 plans compiled)
Each is the wall time of the whole process to its first result (written to
a .npy), and every result is checked bitwise against the cold one.

  /usr/bin/python3 bench/warm-start.py [--build build] [--rounds 5] [MODEL...]
"""
import argparse
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

SHAPES = {"resnet50-b1": (1, 3, 224, 224), "resnet50-b8": (8, 3, 224, 224)}
# Other models bench/determinism.py knows the input of.
OTHER_SHAPES = {"transformer-b1": (1, 128, 768), "transformer-b8": (8, 128, 768)}


def write_npy(path, shape):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % d for d in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    count = 1
    for d in shape:
        count *= d
    data = struct.pack("<%df" % count,
                       *(((i * 37) % 101) / 50.0 - 1.0 for i in range(count)))
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                header.encode() + data)


def timed(cmd, env=None):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), proc.stdout,
                                       proc.stderr))
    return wall, proc.stdout + proc.stderr


def same(a, b):
    with open(a, "rb") as x, open(b, "rb") as y:
        return x.read() == y.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("models", nargs="*")
    args = parser.parse_args()
    bindir = os.path.join(args.build, "bin")
    models = args.models or [
        os.path.join(args.build, "bench-models", m + ".onnx") for m in SHAPES
    ]
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    cpu = next((l.split(":", 1)[1].strip() for l in lscpu.splitlines()
                if l.startswith("Model name")), "unknown CPU")
    print("machine: %s, %d CPUs; threads %d; %d rounds, medians" %
          (cpu, os.cpu_count(), args.threads, args.rounds))
    print("%-14s %9s %9s %9s %8s %8s %9s %9s %8s" %
          ("model", "cold s", "warm s", "aot s", "cold/warm", "cold/aot",
           "Model cold", "Model warm", "ratio"))
    for model in models:
        name = os.path.splitext(os.path.basename(model))[0]
        if not os.path.exists(model):
            print("%-14s missing (bench/models.py exports it)" % name)
            continue
        work = tempfile.mkdtemp(prefix="tgc-warm-start-")
        try:
            inp = os.path.join(work, "in.npy")
            write_npy(inp, SHAPES.get(name, (1, 3, 224, 224)))
            threads = "--threads=%d" % args.threads
            artifact = os.path.join(work, name + ".tgcx")
            timed([os.path.join(bindir, "tgc-compile"), model, "-o", artifact,
                   "--num-threads=%d" % args.threads, "--input=" + inp])
            cold, warm, aot, mcold, mwarm = [], [], [], [], []
            model_start = os.path.join(bindir, "bench-model-start")
            for r in range(args.rounds):
                cache = os.path.join(work, "cache%d" % r)
                out = os.path.join(work, "cold%d.npy" % r)
                base = [os.path.join(bindir, "tgc-run"), model, threads,
                        "--input=" + inp, "--cache-dir=" + cache]
                wall, _ = timed(base + ["--output=" + out])
                cold.append(wall)
                wout = os.path.join(work, "warm%d.npy" % r)
                wall, log = timed(base + ["--output=" + wout])
                if "no import, no compile" not in log:
                    sys.exit("the warm run compiled:\n" + log)
                warm.append(wall)
                aout = os.path.join(work, "aot%d.npy" % r)
                wall, log = timed([
                    os.path.join(bindir, "run-artifact"), artifact,
                    "--threads", str(args.threads), "--input", inp,
                    "--output", aout
                ])
                aot.append(wall)
                if not (same(out, wout) and same(out, aout)):
                    sys.exit("results differ between cold, warm and aot")
                shutil.rmtree(cache)
                if os.path.exists(model_start):
                    mcache = os.path.join(work, "mcache%d" % r)
                    for runs, tag in ((mcold, "mcold"), (mwarm, "mwarm")):
                        mout = os.path.join(work, "%s%d.npy" % (tag, r))
                        wall, log = timed([model_start, model, inp, mout,
                                           mcache, str(args.threads)])
                        runs.append(wall)
                        # The model's own accounting: the warm one compiled
                        # nothing.
                        warm_ok = " 0 plan(s) compiled" in log
                        if warm_ok != (tag == "mwarm"):
                            sys.exit("tgc::Model %s start:\n%s" % (tag, log))
                        if not same(out, mout):
                            sys.exit("tgc::Model's result differs from "
                                     "tgc-run's")
                    shutil.rmtree(mcache)
            c, w, a = (statistics.median(x) for x in (cold, warm, aot))
            line = "%-14s %9.3f %9.3f %9.3f %8.1fx %8.1fx" % (
                name, c, w, a, c / w, c / a)
            if mcold:
                mc, mw = statistics.median(mcold), statistics.median(mwarm)
                line += " %9.3f %9.3f %8.1fx" % (mc, mw, mc / mw)
            print(line)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("results: cold, warm and aot bitwise equal in every round")


if __name__ == "__main__":
    main()
