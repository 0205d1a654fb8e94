#!/usr/bin/env python3
"""int8 on the same QDQ model: tgc against ONNX Runtime (issue 20).

For each model of the bench-models exports (bench/models.py writes them:
MODEL-bBATCH.onnx with an input and the f32 expected output):
  1. calibrate with tgc on --calibration-samples random inputs (tgc-run
     --precision=int8 --calibration-data --calibration-table);
  2. write the QDQ model (bench-qdq-export: QuantizeLinear/DequantizeLinear
     on every Conv/Gemm/MatMul activation input with the table's scales,
     per-channel symmetric int8 weights: ORT quantize_static's QDQ format);
  3. time it on tgc (tgc-run QDQ.onnx) and on ORT (bench/ort-run.js), and
     the f32 model on both, rounds interleaved, fresh processes, the same
     threads; report medians, ratios and each engine's largest error
     against the f32 model's output.

  /usr/bin/python3 bench/qdq.py [--configs mlp:64,resnet50:1]
      [--rounds 5] [--runs 50] [--threads 2] [--calibration-samples 16]
"""
import argparse
import os
import random
import re
import statistics
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from tgcmodels import run_tgc  # noqa: E402

ORT_SCRIPT = os.path.join(HERE, "ort-run.js")


def npy_shape(path):
    with open(path, "rb") as f:
        head = f.read(10)
        header = f.read(struct.unpack("<H", head[8:10])[0]).decode("latin1")
    dims = re.search(r"'shape':\s*\(([^)]*)\)", header).group(1)
    return tuple(int(d) for d in dims.split(",") if d.strip())


def npy_floats(path):
    with open(path, "rb") as f:
        data = f.read()
    start = 10 + struct.unpack("<H", data[8:10])[0]
    return struct.unpack("<%df" % ((len(data) - start) // 4), data[start:])


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        ", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
    header += " " * (118 - len(header)) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), proc.stdout,
                                       proc.stderr))
    return proc.stdout + proc.stderr


def run_ort(model, inp, expected, threads, runs):
    """(median ms, max |error| against `expected`)."""
    out = run(["node", ORT_SCRIPT, model, inp, expected, str(threads),
               str(runs), "1", "1e9"])
    median = float(re.search(r"median ([0-9.]+)", out).group(1))
    error = float(re.search(r"max-abs-error ([0-9.e+-]+)", out).group(1))
    return median, error


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--configs", default="mlp:64,resnet50:1")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--calibration-samples", type=int, default=16)
    p.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    args = p.parse_args()
    bindir = os.path.join(args.build, "bin")
    tgc_run = os.path.join(bindir, "tgc-run")
    models = os.path.join(args.build, "bench-models")
    print("machine: %s; %d threads; %d rounds x %d runs, medians; ORT 1.30 "
          "(onnxruntime-node)" % (cpu_model(), args.threads, args.rounds,
                                  args.runs))
    print("%-14s %9s %9s %9s %9s %8s %8s %11s %11s" % (
        "model", "tgc int8", "ORT int8", "tgc f32", "ORT f32", "int8 vs",
        "f32 vs", "tgc |err|", "ORT |err|"))
    print("%-14s %9s %9s %9s %9s %8s %8s %11s %11s" % (
        "", "ms", "ms", "ms", "ms", "ORT", "ORT", "vs f32", "vs f32"))
    for config in args.configs.split(","):
        name, batch = config.split(":")
        base = os.path.join(models, "%s-b%s" % (name, batch))
        model, inp, expected = base + ".onnx", base + "-input.npy", \
            base + "-expected.npy"
        if not os.path.exists(model):
            print("%-14s missing (bench/models.py exports it)" % config)
            continue
        work = tempfile.mkdtemp(prefix="tgc-qdq-")
        try:
            calib = os.path.join(work, "calibration")
            os.makedirs(calib)
            shape = npy_shape(inp)
            count = 1
            for d in shape:
                count *= d
            for i in range(args.calibration_samples):
                rng = random.Random(1000 + i)
                write_npy(os.path.join(calib, "s%03d.npy" % i), shape,
                          [rng.gauss(0, 1) for _ in range(count)])
            table = os.path.join(work, "table.txt")
            run([tgc_run, model, "--precision=int8",
                 "--calibration-data=" + calib,
                 "--calibration-table=" + table, "--compile-only"])
            qdq = os.path.join(work, "qdq.onnx")
            run([os.path.join(bindir, "bench-qdq-export"), model, table, qdq])
            out = os.path.join(work, "tgc-qdq.npy")
            run([tgc_run, qdq, "--input=" + inp, "--output=" + out,
                 "--threads=%d" % args.threads])
            want, got = npy_floats(expected), npy_floats(out)
            tgc_error = max(abs(a - b) for a, b in zip(got, want))
            times = {k: [] for k in ("tgc", "ort", "tgc32", "ort32")}
            ort_error = 0.0
            for _ in range(args.rounds):
                for key, path in (("tgc", qdq), ("tgc32", model)):
                    status, ms, log, cmd = run_tgc(
                        tgc_run, path, inp, expected, args.threads,
                        args.runs, 1, 1e9)
                    if status != 0 or ms is None:
                        sys.exit("failed: %s\n%s" % (" ".join(cmd), log))
                    times[key].append(ms)
                ms, ort_error = run_ort(qdq, inp, expected, args.threads,
                                        args.runs)
                times["ort"].append(ms)
                ms, _ = run_ort(model, inp, expected, args.threads,
                                args.runs)
                times["ort32"].append(ms)
            m = {k: statistics.median(v) for k, v in times.items()}
            largest = max(abs(x) for x in want)
            print("%-14s %9.3f %9.3f %9.3f %9.3f %7.2fx %7.2fx %10.2f%% "
                  "%10.2f%%" % (config, m["tgc"], m["ort"], m["tgc32"],
                                m["ort32"], m["ort"] / m["tgc"],
                                m["ort32"] / m["tgc32"],
                                100 * tgc_error / largest,
                                100 * ort_error / largest))
        finally:
            subprocess.run(["rm", "-rf", work])
    print("|err|: the largest absolute difference from the f32 model's "
          "output, in % of its largest magnitude")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    main()
