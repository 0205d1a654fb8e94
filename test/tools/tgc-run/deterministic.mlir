// --deterministic (docs/determinism.md). strict: bitwise the same results at
// 1, 2 and 4 intra-op threads. Without it, on an AVX2 machine (lit-cpu-avx2)
// oneDNN's gemm-based matmul and 1x1 convolution split K between threads
// and these results differ between 1 and 4 threads; strict makes those
// kernels for one thread and the plan says so.
// RUN: tgc-run %s --deterministic=strict --threads=1 --output=%t.y1.npy --output=%t.c1.npy
// RUN: tgc-run %s --deterministic=strict --threads=2 --output=%t.y2.npy --output=%t.c2.npy
// RUN: tgc-run %s --deterministic=strict --threads=4 --output=%t.y4.npy --output=%t.c4.npy
// RUN: cmp %t.y1.npy %t.y2.npy
// RUN: cmp %t.y1.npy %t.y4.npy
// RUN: cmp %t.c1.npy %t.c2.npy
// RUN: cmp %t.c1.npy %t.c4.npy
// run-to-run: the same bits twice at a fixed thread count.
// RUN: TGC_DETERMINISTIC=run-to-run tgc-run %s --threads=2 --output=%t.r1.npy --output=%t.rc1.npy
// RUN: tgc-run %s --deterministic=run-to-run --threads=2 --output=%t.r2.npy --output=%t.rc2.npy
// RUN: cmp %t.r1.npy %t.r2.npy
// RUN: cmp %t.rc1.npy %t.rc2.npy
// RUN: tgc-run %s --deterministic=strict --threads=2 --print-plan --compile-only | FileCheck %s --check-prefixes=PLAN,PLAN-%cpu_isa
// RUN: not tgc-run %s --deterministic=sometimes 2>&1 | FileCheck %s --check-prefix=BAD
// PLAN: [0] onednn tgc.matmul
// PLAN-AVX2-SAME: [onednn.matmul[1 thread]]
// PLAN-AVX512-SAME: [onednn.matmul{{(\[1 thread\])?}}]
// PLAN: onednn tgc.conv2d at
// PLAN-AVX2-SAME: [onednn.conv2d{{.*}}[1 thread]]
// BAD: tgc-run: error: unknown --deterministic 'sometimes' (run-to-run or strict)
func.func @main(%x: tensor<1x2048xf32>, %w: tensor<2048x1000xf32>, %i: tensor<1x512x7x7xf32>, %f: tensor<2048x512x1x1xf32>) -> (tensor<1x1000xf32>, tensor<1x2048x7x7xf32>) {
  %y = tgc.matmul %x, %w : (tensor<1x2048xf32>, tensor<2048x1000xf32>) -> tensor<1x1000xf32>
  %c = tgc.conv2d %i, %f {padding = array<i64: 0, 0, 0, 0>} : (tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<1x2048x7x7xf32>
  return %y, %c : tensor<1x1000xf32>, tensor<1x2048x7x7xf32>
}
