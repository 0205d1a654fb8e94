// tgc-run on the cpu backend: outputs round-trip through .npy, a planted
// mismatch is detected, plans and profiles are printed, bad inputs are
// caught before any kernel runs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tgc-run %s --backend=reference --seed=3 --output=%t/ref.npy
// RUN: tgc-run %s --backend=cpu --seed=3 --expected=%t/ref.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --backend=cpu --seed=3 --output=%t/cpu.npy && tgc-run %s --backend=reference --seed=3 --expected=%t/cpu.npy | FileCheck %s --check-prefix=MATCH
// RUN: not tgc-run %s --backend=cpu --seed=3 --expected=2x4xf32=0 2>&1 | FileCheck %s --check-prefix=PLANTED
// RUN: tgc-run %s --backend=cpu --pipeline=tgc-cpu-unfused --print-plan --threads=1 | FileCheck %s --check-prefix=PLAN
// RUN: tgc-run %s --backend=cpu --profile=%t/profile.json --benchmark=3 | FileCheck %s --check-prefix=BENCH
// RUN: FileCheck %s --check-prefix=PROFILE --input-file=%t/profile.json
// RUN: not tgc-run %s --backend=cpu --input=2x5xf32=1 2>&1 | FileCheck %s --check-prefix=BADSHAPE
// RUN: env TGC_VERBOSE=1 tgc-run %s --backend=cpu 2>&1 | FileCheck %s --check-prefix=VERBOSE

// MATCH: result #0: matches
// PLANTED: result #0: MISMATCH
// PLANTED: tgc-run: error: results differ
// PLAN: tgc.matmul
// PLAN: tgc.relu
// PLAN: arena:
// BENCH: @f on cpu: 3 runs, latency ms min
// BENCH: top 1 kernels of 5 run(s), {{[0-9.]+}} ms in kernels:
// BENCH-NEXT: total ms   calls    mean us   share  kernel
// BENCH-NEXT: {{[0-9.]+ +}}5 {{[0-9.]+ +}}100.0%  onednn.matmul tgc.fusion(tgc.matmul + eltwise_relu) at {{.*}}tgc-run-cpu.mlir
// PROFILE: "traceEvents"
// PROFILE: "ph":"X"
// PROFILE-SAME: "args":{"run":0,"shapes":"in=tensor<2x4xf32>,tensor<4x4xf32> out=tensor<2x4xf32>"}
// PROFILE: "name":"run 4","cat":"run"
// BADSHAPE: tgc-run: error: {{.*}}tgc-run-cpu.mlir:[[# @LINE + 3]]:1: function 'f' argument #0 expects tensor<2x4xf32>, got tensor<2x5xf32>
// VERBOSE: tgc: {{.*}}matmul

func.func @f(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %0 = tgc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %1 = tgc.relu %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
