// Every function of the op round-trip suites runs on the cpu backend and on
// the reference interpreter with the same random inputs, with dynamic dims of
// size 0 (zero-size tensors), 1 (broadcasting against 1) and 3, and the
// results agree (f32: rtol 1e-4, atol 1e-5; f16/bf16 looser by their
// epsilon), or both backends fail at the same op (e.g. a random gather index
// out of range, or a declared static dim the random size contradicts).
// RUN: tgc-run --differential --dynamic-size=0 %S/../../dialects/ops-elementwise.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=1 %S/../../dialects/ops-elementwise.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=3 %S/../../dialects/ops-elementwise.mlir | FileCheck %s
// RUN: tgc-run --differential --pipeline=tgc-cpu-unfused --dynamic-size=3 %S/../../dialects/ops-elementwise.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=0 %S/../../dialects/ops-contraction.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=1 %S/../../dialects/ops-contraction.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=3 %S/../../dialects/ops-contraction.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=0 %S/../../dialects/ops-pooling.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=1 %S/../../dialects/ops-pooling.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=3 %S/../../dialects/ops-pooling.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=0 %S/../../dialects/ops-reduction.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=1 %S/../../dialects/ops-reduction.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=3 %S/../../dialects/ops-reduction.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=0 %S/../../dialects/ops-normalization.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=1 %S/../../dialects/ops-normalization.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=3 %S/../../dialects/ops-normalization.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=0 %S/../../dialects/ops-data-movement.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=1 %S/../../dialects/ops-data-movement.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=3 %S/../../dialects/ops-data-movement.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=0 %S/../../dialects/ops-integer-types.mlir | FileCheck %s
// RUN: tgc-run --differential --dynamic-size=3 %S/../../dialects/ops-integer-types.mlir | FileCheck %s
// RUN: env TGC_ENABLE_ONEDNN=0 tgc-run --differential %S/../../dialects/ops-contraction.mlir | FileCheck %s

// CHECK-NOT: MISMATCH
// CHECK: differential: {{[1-9][0-9]*}} functions, 0 mismatches
