#!/usr/bin/python3
"""End-to-end model benchmark: tgc's fused and unfused CPU pipelines against
PyTorch TorchScript, side by side in one run.

Models (random weights, fixed seed, exported from PyTorch to ONNX): ResNet-50
batch 1, the MLP 784-1024-1024-10 batch 64, the 2-layer transformer encoder
(d_model 768, 12 heads, ff 3072, seq 128) batch 1. For each, at the same
thread count: TorchScript (trace + freeze + optimize_for_inference, Debian's
PyTorch with the OpenMP OpenBLAS), `tgc-run --pipeline=tgc-cpu-unfused` and
`tgc-run --pipeline=tgc-cpu`; rounds alternate the three so that machine
noise hits all of them, and each round runs each of them in a fresh process
(PyTorch's speed varies between processes far more than inside one: the
MLP's TorchScript medians ranged over 0.62-1.17 ms across 30 processes,
while one process mostly held its level for 40 samples; a single process
would draw the whole comparison from one sample); medians of the per-round
medians are reported, with the ratios, the achieved GFLOP/s and the fraction of this machine's f32 peak
and of a GEMM, both measured in the same run (the peak by bench-peak: FMA
chains on every thread; the VMs' clock drifts between 3.5 and 5 GHz, so
the nominal 229 GFLOP/s per core of ../shared/docs/peer-baselines.md can be
off by 40%). GFLOP counts are the models' direct-convolution/GEMM counts:
where tgc runs a 3x3 convolution with the Winograd algorithm (fewer
multiplications) the rate is an effective one and can exceed the peak.

  /usr/bin/python3 bench/models.py [--threads 2] [--rounds 5] [--runs 10]
      [--models resnet50,mlp,transformer]

Needs python3-torch, python3-torchvision, libopenblas0-openmp (`make
real-models` installs them). Run on an otherwise idle machine.
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from tgcmodels import (GFLOP_PER_SAMPLE, build_model,  # noqa: E402
                       export_onnx, median_ms, reexec_with_peer_environment,
                       run_tgc, torchscript)

PEAK_PER_CORE = 229.0  # GFLOP/s, f32: nominal, when bench-peak is missing
BATCH = {"resnet50": 1, "mlp": 64, "transformer": 1}
TARGET = {"resnet50": 1.3, "mlp": 1.5, "transformer": 1.2}
PIPELINES = ["tgc-cpu-unfused", "tgc-cpu"]


def measured_peak(tgc_run, threads):
    """bench-peak's f32 FMA rate on `threads` threads (it sits next to
    tgc-run), or the nominal peak where it is missing or fails."""
    import re
    import subprocess
    peak_bin = os.path.join(os.path.dirname(tgc_run), "bench-peak")
    try:
        out = subprocess.run([peak_bin, "--threads", str(threads)],
                             capture_output=True, text=True, timeout=60,
                             check=True).stdout
        m = re.search(r"([0-9.]+) GFLOP/s", out)
        if m:
            return float(m.group(1))
    except (OSError, subprocess.SubprocessError):
        pass
    print(f"bench-peak missing or failed: using the nominal "
          f"{PEAK_PER_CORE:.0f} GFLOP/s per core", file=sys.stderr)
    return PEAK_PER_CORE * threads


def torchscript_worker(name, batch, threads, runs, expected_path):
    """One round of TorchScript in this (fresh) process: rebuilds the
    model (seeded: the same weights and input as the parent's ONNX export,
    checked against its expected output), scripts it, and prints the median
    of `runs` calls after a warm-up."""
    import numpy as np
    import torch
    torch.set_num_threads(threads)
    model, make_input = build_model(name, torch)
    model.eval()
    x = make_input(batch)
    scripted = torchscript(torch, model, x)
    with torch.no_grad():
        got = scripted(x).numpy()
        expected = np.load(expected_path)
        if not np.allclose(got, expected, rtol=1e-3,
                           atol=1e-5 * float(np.abs(expected).max())):
            print(f"{name}: the rebuilt model differs from {expected_path}",
                  file=sys.stderr)
            return 1
        scripted(x)
        print(f"median {median_ms(lambda: scripted(x), runs)}")
    return 0


def run_torchscript(name, batch, threads, runs, expected_path):
    """Median ms of one TorchScript round in a fresh process, or None."""
    import subprocess
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--torchscript-worker",
         name, "--batch", str(batch), "--threads", str(threads), "--runs",
         str(runs), "--expected", expected_path], capture_output=True,
        text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("median "):
            return float(line.split()[1]), proc.stdout + proc.stderr
    return None, proc.stdout + proc.stderr


def main():
    reexec_with_peer_environment()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--torchscript-worker", metavar="MODEL",
                   help=argparse.SUPPRESS)
    p.add_argument("--batch", type=int, help=argparse.SUPPRESS)
    p.add_argument("--expected", help=argparse.SUPPRESS)
    p.add_argument("--models", default="resnet50,mlp,transformer")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=10,
                   help="calls per sample, at least (raised so that a "
                   "sample takes --sample-ms)")
    p.add_argument("--sample-ms", type=float, default=200.0)
    p.add_argument("--tgc-run", default=os.path.join(HERE, "..", "build",
                                                     "bin", "tgc-run"))
    p.add_argument("--workdir", default=os.path.join(HERE, "..", "build",
                                                     "bench-models"))
    args = p.parse_args()
    if args.torchscript_worker:
        return torchscript_worker(args.torchscript_worker, args.batch,
                                  args.threads, args.runs, args.expected)
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(f"bench/models.py: {e}: run `make real-models` first (it "
              "installs Debian's python3-torch and friends)", file=sys.stderr)
        return 2
    os.makedirs(args.workdir, exist_ok=True)
    torch.set_num_threads(args.threads)

    # A GEMM in the same run: the practical peak of this machine right now.
    a = torch.randn(2048, 2048)
    b = torch.randn(2048, 2048)
    torch.mm(a, b)
    gemm_ms = median_ms(lambda: torch.mm(a, b), 5)
    gemm = 2 * 2048 ** 3 / gemm_ms / 1e6
    peak = measured_peak(args.tgc_run, args.threads)
    print(f"{args.threads} thread(s): f32 peak {peak:.0f} GFLOP/s, "
          f"torch.mm 2048^3 {gemm:.0f} GFLOP/s ({100 * gemm / peak:.0f}% of "
          "peak)")

    rows = []
    failed = False
    for name in args.models.split(","):
        model, make_input = build_model(name, torch)
        model.eval()
        batch = BATCH[name]
        x = make_input(batch)
        base = os.path.join(args.workdir, f"{name}-b{batch}")
        with torch.no_grad():
            expected = model(x)
        export_onnx(torch, model, x, base + ".onnx")
        scripted = torchscript(torch, model, x)
        np.save(base + "-input.npy", x.numpy())
        np.save(base + "-expected.npy", expected.numpy())
        atol = 1e-5 * float(expected.abs().max())
        times = {k: [] for k in ["torchscript"] + PIPELINES}
        with torch.no_grad():
            for _ in range(2):
                scripted(x)
            # Short calls (the MLP's ~0.5 ms) need many per sample for a
            # stable median.
            runs = max(args.runs, int(args.sample_ms /
                                      median_ms(lambda: scripted(x), 5)))
            for _ in range(args.rounds):
                ms, log = run_torchscript(name, batch, args.threads, runs,
                                          base + "-expected.npy")
                if ms is None:
                    print(f"{name}: the TorchScript round failed:\n{log}",
                          file=sys.stderr)
                    failed = True
                    break
                times["torchscript"].append(ms)
                for pipeline in PIPELINES:
                    status, ms, log, cmd = run_tgc(
                        args.tgc_run, base + ".onnx", base + "-input.npy",
                        base + "-expected.npy", args.threads, runs, 1e-3,
                        atol, extra=[f"--pipeline={pipeline}"])
                    if status != 0 or ms is None:
                        print(f"{name}: {' '.join(cmd)} failed:\n{log}",
                              file=sys.stderr)
                        failed = True
                        break
                    times[pipeline].append(ms)
                if failed:
                    break
        if failed:
            break
        med = {k: statistics.median(v) for k, v in times.items()}
        gflop = GFLOP_PER_SAMPLE[name] * batch
        rows.append((name, batch, med, gflop))
        print(f"  {name}: done", flush=True)

    print(f"\n| model | batch | TorchScript ms | tgc unfused ms | tgc fused ms "
          f"| fused vs unfused | tgc vs TorchScript (target) | tgc GFLOP/s | "
          f"% of peak | % of GEMM | TorchScript % of peak |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, batch, med, gflop in rows:
        fused = med["tgc-cpu"]
        rate = gflop / fused * 1e3
        print(f"| {name} | {batch} | {med['torchscript']:.2f} | "
              f"{med['tgc-cpu-unfused']:.2f} | {fused:.2f} | "
              f"{med['tgc-cpu-unfused'] / fused:.2f}x | "
              f"{med['torchscript'] / fused:.2f}x ({TARGET[name]}x) | "
              f"{rate:.0f} | {100 * rate / peak:.0f}% | "
              f"{100 * rate / gemm:.0f}% | "
              f"{100 * gflop / med['torchscript'] * 1e3 / peak:.0f}% |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
