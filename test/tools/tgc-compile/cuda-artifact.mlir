// tgc-compile --backend=cuda: a CUDA artifact (cubins for --cuda-arch, PTX
// fallbacks, the cuBLASLt call, the plan text), made without a GPU; tgc-run
// loads it and prints its plan without a GPU, and runs it where one is
// (elsewhere it says there is no device).
// REQUIRES: cuda-toolkit
// RUN: tgc-compile --backend=cuda --cuda-arch=sm_80 %s -o %t.tgcx | FileCheck %s --check-prefix=WROTE
// RUN: tgc-run %t.tgcx --print-plan --compile-only | FileCheck %s --check-prefix=PLAN
// RUN: not tgc-run %t.tgcx --backend=cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tgc-run %t.tgcx --function=other 2>&1 | FileCheck %s --check-prefix=FUNCTION
// RUN: not tgc-compile --backend=tpu %s -o %t.bad.tgcx 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: head -c 100 %t.tgcx > %t.short.tgcx
// RUN: not tgc-run %t.short.tgcx 2>&1 | FileCheck %s --check-prefix=SHORT
// WROTE: tgc-compile: wrote {{.*}}.tgcx: @mlp, 2 steps, {{[0-9.]+}} MiB, for CUDA sm_80
// PLAN: cuda plan for @mlp (sm_80, cubin + ptx fallback
// PLAN: cublasLt matmul (8x64 * 64x32) + relu
// PLAN: results: b3:8x32xf32
// CPU: error: '{{.*}}.tgcx' is a saved cuda plan: it runs on --backend=cuda only
// FUNCTION: error: '{{.*}}.tgcx' holds @mlp, not @other
// BACKEND: tgc-compile: error: unknown --backend 'tpu' (cpu or cuda)
// SHORT: tgc-run: error: {{.*}}short.tgcx: truncated (68 of {{[0-9]+}} bytes)
func.func @mlp(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %h = tgc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %r = tgc.relu %h : tensor<8x32xf32>
  %s = tgc.softmax %r {axis = 1 : i64} : tensor<8x32xf32>
  return %s : tensor<8x32xf32>
}
