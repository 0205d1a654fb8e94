"""Shared by scripts/real-models.py and bench/models.py: the three real
models (PyTorch definitions, random weights, fixed seed), their ONNX export,
PyTorch's environment for fair timing, and running tgc-run."""

import os
import re
import statistics
import subprocess
import sys
import time

OPENBLAS_OPENMP = "/usr/lib/x86_64-linux-gnu/openblas-openmp"


def reexec_with_peer_environment():
    """PyTorch's BLAS must be the OpenMP OpenBLAS (the default reference BLAS
    is 27-40x slower, the pthread one fights PyTorch's OpenMP pool), and
    OPENBLAS_CORETYPE=Haswell halves its speed: both are read at load time,
    so fix the environment and start again."""
    env = dict(os.environ)
    changed = False
    if os.path.isdir(OPENBLAS_OPENMP) and OPENBLAS_OPENMP not in env.get(
            "LD_LIBRARY_PATH", ""):
        env["LD_LIBRARY_PATH"] = ":".join(
            p for p in [OPENBLAS_OPENMP, env.get("LD_LIBRARY_PATH", "")] if p)
        changed = True
    if "OPENBLAS_CORETYPE" in env:
        del env["OPENBLAS_CORETYPE"]
        changed = True
    if changed:
        os.execve(sys.executable, [sys.executable] + sys.argv, env)


def build_model(name, torch):
    torch.manual_seed(0)
    nn = torch.nn
    if name == "resnet50":
        import torchvision
        model = torchvision.models.resnet50(weights=None)
        return model, lambda b: torch.randn(b, 3, 224, 224)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(),
                              nn.Linear(1024, 1024), nn.ReLU(),
                              nn.Linear(1024, 10))
        return model, lambda b: torch.randn(b, 784)
    if name == "transformer":
        layer = nn.TransformerEncoderLayer(d_model=768, nhead=12,
                                           dim_feedforward=3072, dropout=0.0,
                                           activation="gelu",
                                           batch_first=True)
        model = nn.TransformerEncoder(layer, num_layers=2,
                                      enable_nested_tensor=False)
        return model, lambda b: torch.randn(b, 128, 768)
    raise SystemExit(f"unknown model '{name}' (resnet50, mlp, transformer)")


def median_ms(fn, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def run_tgc(tgc_run, model_path, input_path, expected_path, threads, runs,
            rtol, atol, extra=()):
    """Runs tgc-run (the CPU backend unless `extra` says otherwise): checks
    the result against `expected_path` and times `runs` runs after a
    warm-up; returns (exit status, median ms or None, output, command).
    `threads` None leaves the thread count alone."""
    cmd = [tgc_run, model_path, f"--input={input_path}",
           f"--expected={expected_path}", f"--rtol={rtol}", f"--atol={atol}",
           f"--benchmark={runs}", *extra]
    if threads is not None:
        cmd.append(f"--threads={threads}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    match = re.search(r"median ([0-9.]+)", proc.stdout)
    return proc.returncode, (float(match.group(1)) if match else None), \
        proc.stdout + proc.stderr, cmd




def export_onnx(torch, model, x, path):
    """Exports with gradients enabled: the transformer layers then take their
    composite path (their inference fast paths are fused aten ops ONNX cannot
    express); the numbers are the same. The TorchScript-based exporter
    (opset 17): newer PyTorch defaults to the dynamo one, which needs
    onnxscript."""
    kwargs = dict(opset_version=17, input_names=["input"],
                  output_names=["output"], do_constant_folding=True)
    try:
        torch.onnx.export(model, (x,), path, dynamo=False, **kwargs)
    except TypeError:  # PyTorch without the dynamo switch (Debian's)
        torch.onnx.export(model, (x,), path, **kwargs)


def torchscript(torch, model, x):
    """trace + freeze + optimize_for_inference, as the peer baselines."""
    with torch.no_grad():
        return torch.jit.optimize_for_inference(
            torch.jit.freeze(torch.jit.trace(model, (x,))))


# GFLOP per forward at batch 1 (2 * MACs of the contractions), as in
# ../shared/docs/peer-baselines.md; they scale with the batch.
GFLOP_PER_SAMPLE = {"resnet50": 8.18, "mlp": 0.0037, "transformer": 3.72}
