// Every function of the op round-trip suites runs on the cpu backend and on
// the reference interpreter with the same random inputs (dynamic dims of
// size 3), and the results agree (f32: rtol 1e-4, atol 1e-5), or both
// backends report an error (e.g. a random gather index out of range).
// RUN: tgc-run --differential %S/../../dialects/ops-elementwise.mlir | FileCheck %s
// RUN: tgc-run --differential %S/../../dialects/ops-contraction.mlir | FileCheck %s
// RUN: tgc-run --differential %S/../../dialects/ops-pooling.mlir | FileCheck %s
// RUN: tgc-run --differential %S/../../dialects/ops-reduction.mlir | FileCheck %s
// RUN: tgc-run --differential %S/../../dialects/ops-normalization.mlir | FileCheck %s
// RUN: tgc-run --differential %S/../../dialects/ops-data-movement.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=0 %S/../../dialects/ops-elementwise.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=1 %S/../../dialects/ops-data-movement.mlir | FileCheck %s
// RUN: env TGC_ENABLE_ONEDNN=0 tgc-run --differential %S/../../dialects/ops-contraction.mlir | FileCheck %s

// CHECK-NOT: MISMATCH
// CHECK: differential: {{[1-9][0-9]*}} functions, 0 mismatches
