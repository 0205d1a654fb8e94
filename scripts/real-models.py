#!/usr/bin/python3
"""Real models through ONNX: PyTorch vs tgc, side by side in one run.

Exports three models with PyTorch (random weights, fixed seed) to ONNX --
torchvision ResNet-50 (224x224), an MLP 784-1024-1024-10 with ReLU, and a
2-layer transformer encoder (d_model 768, 12 heads, ff 3072, GELU, seq 128) --
one file per batch size (static shapes), runs each in PyTorch (eager and
TorchScript: trace + freeze + optimize_for_inference) and in tgc (`tgc-run
model.onnx` on the CPU backend), checks tgc's outputs against PyTorch's
(rtol 1e-3) and prints the median latencies side by side at the same thread
count. Rounds alternate PyTorch and tgc so that machine noise hits both.

Needs Debian's python3-torch, python3-torchvision and libopenblas0-openmp
(`make real-models` installs them and runs this). Not part of `make test`.

  /usr/bin/python3 scripts/real-models.py [--models resnet50,mlp,transformer]
      [--batches 1,8] [--threads 1,2] [--runs 10] [--rounds 3]
      [--tgc-run build/bin/tgc-run] [--workdir build/real-models]

Exit status: 0 when every model matches, 1 when one does not, 2 when the
packages are missing.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tgcmodels import (build_model, export_onnx, median_ms,  # noqa: E402
                       reexec_with_peer_environment, run_tgc, torchscript)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="resnet50,mlp,transformer")
    p.add_argument("--batches", default="1,8")
    p.add_argument("--threads", default="2")
    p.add_argument("--runs", type=int, default=10,
                   help="timed runs per round and backend")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--tgc-run", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin",
        "tgc-run"))
    p.add_argument("--workdir", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build",
        "real-models"))
    return p.parse_args()


def main():
    reexec_with_peer_environment()
    args = parse_args()
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(f"real-models: {e}: install Debian's python3-torch "
              "python3-torchvision libopenblas0-openmp (or run "
              "`make real-models`) and use /usr/bin/python3", file=sys.stderr)
        return 2
    if not os.access(args.tgc_run, os.X_OK):
        print(f"real-models: no tgc-run at {args.tgc_run}: build first "
              "(make build)", file=sys.stderr)
        return 2
    os.makedirs(args.workdir, exist_ok=True)
    models = args.models.split(",")
    batches = [int(b) for b in args.batches.split(",")]
    threads = [int(t) for t in args.threads.split(",")]

    print(f"PyTorch {torch.__version__}, tgc-run {os.path.abspath(args.tgc_run)}"
          f"; median ms over {args.rounds} rounds x {args.runs} runs")
    rows = []
    all_ok = True
    for name in models:
        model, make_input = build_model(name, torch)
        model.eval()
        for batch in batches:
            x = make_input(batch)
            base = os.path.join(args.workdir, f"{name}-b{batch}")
            onnx_path = base + ".onnx"
            with torch.no_grad():
                expected = model(x)
            export_onnx(torch, model, x, onnx_path)
            scripted = torchscript(torch, model, x)
            np.save(base + "-input.npy", x.numpy())
            np.save(base + "-expected.npy", expected.numpy())
            # Outputs near zero get an absolute tolerance scaled to the
            # output's magnitude (rtol alone cannot hold there).
            atol = 1e-5 * float(expected.abs().max())
            for t in threads:
                torch.set_num_threads(t)
                eager, script, ours = [], [], []
                status, log, cmd = 0, "", []
                with torch.no_grad():
                    for _ in range(2):  # warm-up
                        model(x)
                        scripted(x)
                    for _ in range(args.rounds):
                        eager.append(median_ms(lambda: model(x), args.runs))
                        script.append(median_ms(lambda: scripted(x),
                                                args.runs))
                        status, ms, log, cmd = run_tgc(
                            args.tgc_run, onnx_path, base + "-input.npy",
                            base + "-expected.npy", t, args.runs, args.rtol,
                            atol)
                        if status != 0 or ms is None:
                            break
                        ours.append(ms)
                ok = status == 0 and ours
                all_ok &= bool(ok)
                if not ok:
                    print(f"\n{name} batch {batch}: tgc FAILED "
                          f"({' '.join(cmd)}):\n{log}", file=sys.stderr)
                rows.append((name, batch, t, statistics.median(eager),
                             statistics.median(script),
                             statistics.median(ours) if ours else None, ok))
                print(f"  {name} b{batch} t{t}: done", flush=True)

    print("\n| model | batch | threads | matches PyTorch (rtol "
          f"{args.rtol:g}) | PyTorch eager ms | TorchScript ms | tgc ms | "
          "tgc speedup vs best PyTorch |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for name, batch, t, e, s, ours, ok in rows:
        speed = f"{min(e, s) / ours:.2f}x" if ours else "-"
        tgc = f"{ours:.2f}" if ours else "-"
        print(f"| {name} | {batch} | {t} | {'yes' if ok else 'NO'} | "
              f"{e:.2f} | {s:.2f} | {tgc} | {speed} |")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
