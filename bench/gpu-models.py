#!/usr/bin/env python3
"""The CUDA backend on real models, against PyTorch on the same GPU, side by
side in one run: correctness (tgc's result against PyTorch's) and latency.

Models (random weights, fixed seed, exported from PyTorch to ONNX, as
scripts/real-models.py): ResNet-50, the MLP 784-1024-1024-10 and the 2-layer
transformer encoder (d_model 768, 12 heads, ff 3072, seq 128), at each batch
of --batches (default 1 and 32). For each:
  - PyTorch eager and TorchScript (trace + freeze + optimize_for_inference)
    on the GPU, timed with torch.cuda.synchronize() around each call;
  - `tgc-run model.onnx --backend=cuda --benchmark=N`: the input uploaded
    once, each call runs with the arguments and results on the device
    (DeviceExecutable::runOnDevice: one synchronization per call), the
    result checked against PyTorch's (computed in float64 on the CPU) first.
Rounds alternate the three so that clock and thermal drift hit all of them;
medians of per-round medians are reported.

Precision: --precision fp32 (default) turns TF32 off on both sides
(torch.backends.*.allow_tf32 = False; tgc without --allow-tf32); tf32
allows it on both (PyTorch's default for convolutions); fp16 runs PyTorch's
model converted with .half() on a half input against `tgc-run
--precision=f16` (f32 input and output, convolutions, matmuls and the
activations between them in half). `both` runs fp32 and tf32, `all` the
three. TF32 and half keep 10 mantissa bits, so their results cannot meet
rtol 1e-3 against float64 through 50 layers; there the bar is PyTorch's own
error in the same precision: tgc's absolute error may be at most
--tf32-factor (4) times the largest absolute error of PyTorch's result (the
table's "atol" column). int8 (`tgc-run --precision=int8`, docs/precision.md
"On the GPU: int8") is calibrated on 16 other inputs drawn like the
measured one (the table is made on the CPU in the first round and read in
the others); PyTorch has no int8 GPU path, so it is timed against
PyTorch's half model, and its bar is --int8-factor (0.1) of the largest
expected value.

  python3 bench/gpu-models.py [--batches 1,32] [--models resnet50,mlp,transformer]
      [--rounds 5] [--runs 20] [--precision fp32|tf32|fp16|int8|both|all]

Needs a GPU, PyTorch with CUDA and torchvision, and a CUDA build of tgc-run
(the lent GPU machines have the first three: see docs/cuda-backend.md).
"""

import argparse
import copy
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from tgcmodels import (GFLOP_PER_SAMPLE, build_model,  # noqa: E402
                       export_onnx, run_tgc)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="resnet50,mlp,transformer")
    p.add_argument("--batches", default="1,32")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--precision", default="fp32",
                   choices=["fp32", "tf32", "fp16", "both", "all"])
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--tf32-factor", type=float, default=4.0)
    p.add_argument("--int8-factor", type=float, default=0.1)
    p.add_argument("--tgc-run", default=os.path.join(HERE, "..", "build", "bin",
                                                     "tgc-run"))
    p.add_argument("--workdir", default=os.path.join(HERE, "..", "build",
                                                     "gpu-models"))
    return p.parse_args()


def gpu_median_ms(torch, fn, runs):
    times = []
    for _ in range(runs):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    args = parse_args()
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(f"gpu-models: {e}: needs PyTorch and numpy", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gpu-models: no CUDA device visible to PyTorch", file=sys.stderr)
        return 77
    if not os.access(args.tgc_run, os.X_OK):
        print(f"gpu-models: no tgc-run at {args.tgc_run}", file=sys.stderr)
        return 2
    os.makedirs(args.workdir, exist_ok=True)
    precisions = {"both": ["fp32", "tf32"],
                  "all": ["fp32", "tf32", "fp16", "int8"]}.get(args.precision,
                                                       [args.precision])
    device = torch.device("cuda")
    print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name()}; "
          f"tgc-run {os.path.abspath(args.tgc_run)}; median ms over "
          f"{args.rounds} rounds x {args.runs} runs", flush=True)

    rows, all_ok = [], True
    for name in args.models.split(","):
        model, make_input = build_model(name, torch)
        model.eval()
        for batch in [int(b) for b in args.batches.split(",")]:
            x = make_input(batch)
            base = os.path.join(args.workdir, f"{name}-b{batch}")
            export_onnx(torch, model, x, base + ".onnx")
            with torch.no_grad():
                # The expected result in float64 on the CPU: neither side's
                # rounding is the reference.
                expected = model.double()(x.double()).float()
                model.float()
            np.save(base + "-input.npy", x.numpy())
            np.save(base + "-expected.npy", expected.numpy())
            # int8 calibration samples: other inputs drawn the same way.
            calibration = base + "-calibration"
            os.makedirs(calibration, exist_ok=True)
            torch.manual_seed(1000 + batch)
            for i in range(16):
                np.save(os.path.join(calibration, f"s{i:04d}.npy"),
                        make_input(batch).numpy())
            table = base + ".table"
            if os.path.exists(table):
                os.remove(table)
            atol = 1e-5 * float(expected.abs().max())
            gpu_model = model.to(device)
            xd = x.to(device)
            for precision in precisions:
                tf32 = precision == "tf32"
                int8 = precision == "int8"
                half = precision == "fp16" or int8
                torch.backends.cuda.matmul.allow_tf32 = tf32
                torch.backends.cudnn.allow_tf32 = tf32
                theirs_model, theirs_x = gpu_model, xd
                if half:
                    theirs_model = copy.deepcopy(gpu_model).half()
                    theirs_x = xd.half()
                tol = atol
                if int8:
                    tol = args.int8_factor * float(expected.abs().max())
                elif tf32 or half:
                    with torch.no_grad():
                        theirs = theirs_model(theirs_x).float().cpu()
                    tol = max(atol, args.tf32_factor *
                              float((theirs - expected).abs().max()))
                with torch.no_grad():
                    scripted = torch.jit.optimize_for_inference(
                        torch.jit.freeze(torch.jit.trace(theirs_model,
                                                         (theirs_x,))))
                    for _ in range(3):  # warm-up (cuDNN autotuning, caches)
                        theirs_model(theirs_x)
                        scripted(theirs_x)
                    eager, script, ours = [], [], []
                    status, log, cmd = 0, "", []
                    for _ in range(args.rounds):
                        eager.append(gpu_median_ms(
                            torch, lambda: theirs_model(theirs_x), args.runs))
                        script.append(gpu_median_ms(
                            torch, lambda: scripted(theirs_x), args.runs))
                        status, ms, log, cmd = run_tgc(
                            args.tgc_run, base + ".onnx", base + "-input.npy",
                            base + "-expected.npy", None, args.runs,
                            args.rtol, tol,
                            ["--backend=cuda"] +
                            (["--allow-tf32"] if tf32 else []) +
                            (["--precision=f16"] if half and not int8
                             else []) +
                            (["--precision=int8",
                              f"--calibration-table={table}"] +
                             ([] if os.path.exists(table) else
                              [f"--calibration-data={calibration}"])
                             if int8 else []))
                        if status != 0 or ms is None:
                            break
                        ours.append(ms)
                ok = status == 0 and bool(ours)
                all_ok &= ok
                if not ok:
                    print(f"\n{name} b{batch} {precision}: tgc FAILED "
                          f"({' '.join(cmd)}):\n{log}", file=sys.stderr)
                rows.append((name, batch, precision,
                             statistics.median(eager),
                             statistics.median(script),
                             statistics.median(ours) if ours else None, ok,
                             tol))
                print(f"  {name} b{batch} {precision}: done", flush=True)
            model.cpu()

    print("\n(int8 rows: PyTorch's columns are its half model's)")
    print(f"\n| model | batch | precision | matches float64 (rtol {args.rtol:g})"
          " | atol | PyTorch eager ms | TorchScript ms | tgc ms"
          " | tgc vs best PyTorch | tgc TFLOP/s |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for name, batch, precision, e, s, ours, ok, tol in rows:
        speed = f"{min(e, s) / ours:.2f}x" if ours else "-"
        tflops = (f"{GFLOP_PER_SAMPLE[name] * batch / ours:.1f}"
                  if ours else "-")
        tgc = f"{ours:.3f}" if ours else "-"
        print(f"| {name} | {batch} | {precision} | {'yes' if ok else 'NO'} | "
              f"{tol:.2g} | {e:.3f} | {s:.3f} | {tgc} | {speed} | {tflops} |")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
