// Matmul operands read through strided views: the slices, transposes and
// reshapes that cut an attention head's query, key and value out of the
// projection's result are folded into the matmuls that read them (no copy
// steps; the kernels say [strided]), and a query's scaling by a power of
// two becomes the matmul's post-op. Chains that cannot be a view (a
// reshape across dims a transpose separated, a negative step) and scalings
// that would round differently (not a power of two) keep their steps.
// Results always match the reference interpreter.
// RUN: tgc-run --differential %s | FileCheck %s
// RUN: tgc-run --differential --threads=1 --seed=7 %s | FileCheck %s
// RUN: env DNNL_MAX_CPU_ISA=AVX2 tgc-run --differential %s | FileCheck %s
// RUN: tgc-run %s --function=attention --print-plan | FileCheck %s --check-prefix=ATTN
// RUN: tgc-run %s --function=batched --print-plan | FileCheck %s --check-prefix=BATCHED
// RUN: tgc-run %s --function=inexact_scale --print-plan | FileCheck %s --check-prefix=INEXACT
// RUN: tgc-run %s --function=shared_slice --print-plan | FileCheck %s --check-prefix=SHARED
// RUN: tgc-run %s --function=not_a_view --print-plan | FileCheck %s --check-prefix=NOVIEW
// RUN: tgc-run %s --function=merged_heads --print-plan | FileCheck %s --check-prefix=MERGED
// RUN: tgc-run %s --function=conflicting_splits --print-plan | FileCheck %s --check-prefix=CONFLICT

// CHECK-DAG: @attention: ok
// CHECK-DAG: @batched: ok
// CHECK-DAG: @inexact_scale: ok
// CHECK-DAG: @shared_slice: ok
// CHECK-DAG: @not_a_view: ok
// CHECK-DAG: @reversed: ok
// CHECK-DAG: @merged_heads: ok
// CHECK-DAG: @conflicting_splits: ok
// CHECK: differential: 8 functions, 0 mismatches

// Two heads of 16 over 8 positions; %p is the projection's result
// [q | k | v].
// ATTN-NOT:  tgc.slice
// ATTN-NOT:  tgc.transpose {{.*}}tensor<8x2x16xf32>) ->
// ATTN-NOT:  tgc.div
// ATTN:      tgc.matmul {{.*}}: (tensor<8x96xf32>, tensor<8x96xf32>) -> tensor<2x8x8xf32> [onednn.matmul[strided]]
// ATTN:      tgc.softmax
// ATTN:      tgc.matmul {{.*}}: (tensor<2x8x8xf32>, tensor<8x96xf32>) -> tensor<2x8x16xf32> [onednn.matmul[strided]]
// ATTN:      arena:
func.func @attention(%p: tensor<8x96xf32>) -> tensor<8x32xf32> {
  %q = tgc.slice %p {starts = array<i64: 0, 0>, ends = array<i64: 9223372036854775807, 32>} : (tensor<8x96xf32>) -> tensor<8x32xf32>
  %k = tgc.slice %p {starts = array<i64: 0, 32>, ends = array<i64: 9223372036854775807, 64>} : (tensor<8x96xf32>) -> tensor<8x32xf32>
  %v = tgc.slice %p {starts = array<i64: 0, -32>, ends = array<i64: 9223372036854775807, 9223372036854775807>} : (tensor<8x96xf32>) -> tensor<8x32xf32>
  %q3 = tgc.reshape %q : tensor<8x32xf32> to tensor<8x2x16xf32>
  %k3 = tgc.reshape %k : tensor<8x32xf32> to tensor<8x2x16xf32>
  %v3 = tgc.reshape %v : tensor<8x32xf32> to tensor<8x2x16xf32>
  %qh = tgc.transpose %q3 {permutation = array<i64: 1, 0, 2>} : (tensor<8x2x16xf32>) -> tensor<2x8x16xf32>
  %kt = tgc.transpose %k3 {permutation = array<i64: 1, 2, 0>} : (tensor<8x2x16xf32>) -> tensor<2x16x8xf32>
  %vh = tgc.transpose %v3 {permutation = array<i64: 1, 0, 2>} : (tensor<8x2x16xf32>) -> tensor<2x8x16xf32>
  %four = tgc.constant dense<4.0> : tensor<f32>
  %qs = tgc.div %qh, %four : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8x16xf32>
  %s = tgc.matmul %qs, %kt : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
  %a = tgc.softmax %s {axis = 2 : i64} : tensor<2x8x8xf32>
  %o = tgc.matmul %a, %vh : (tensor<2x8x8xf32>, tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %ot = tgc.transpose %o {permutation = array<i64: 1, 0, 2>} : (tensor<2x8x16xf32>) -> tensor<8x2x16xf32>
  %r = tgc.reshape %ot : tensor<8x2x16xf32> to tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// A batch of 3 sequences (batch-first), the key transposed by the
// matmul's flag, the query scaled by a multiplication.
// BATCHED-NOT: tgc.slice
// BATCHED-NOT: tgc.mul
// BATCHED:     tgc.matmul {{.*}}: (tensor<3x8x96xf32>, tensor<3x8x96xf32>) -> tensor<3x2x8x8xf32> [onednn.matmul[strided]]
func.func @batched(%p: tensor<3x8x96xf32>) -> tensor<3x2x8x8xf32> {
  %q = tgc.slice %p {starts = array<i64: 0, 0, 0>, ends = array<i64: 3, 8, 32>} : (tensor<3x8x96xf32>) -> tensor<3x8x32xf32>
  %k = tgc.slice %p {starts = array<i64: 0, 0, 32>, ends = array<i64: 3, 8, 64>} : (tensor<3x8x96xf32>) -> tensor<3x8x32xf32>
  %q4 = tgc.reshape %q : tensor<3x8x32xf32> to tensor<3x8x2x16xf32>
  %k4 = tgc.reshape %k : tensor<3x8x32xf32> to tensor<3x8x2x16xf32>
  %qh = tgc.transpose %q4 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<3x8x2x16xf32>) -> tensor<3x2x8x16xf32>
  %kh = tgc.transpose %k4 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<3x8x2x16xf32>) -> tensor<3x2x8x16xf32>
  %eighth = tgc.constant dense<0.125> : tensor<f32>
  %qs = tgc.mul %qh, %eighth : (tensor<3x2x8x16xf32>, tensor<f32>) -> tensor<3x2x8x16xf32>
  %s = tgc.matmul %qs, %kh {transpose_b} : (tensor<3x2x8x16xf32>, tensor<3x2x8x16xf32>) -> tensor<3x2x8x8xf32>
  return %s : tensor<3x2x8x8xf32>
}

// Dividing by 3 rounds otherwise than dividing the product by 3: the
// division keeps its step; the views still fold.
// INEXACT:     tgc.div
// INEXACT:     tgc.matmul {{.*}}[onednn.matmul[strided]]
func.func @inexact_scale(%p: tensor<8x64xf32>) -> tensor<2x8x8xf32> {
  %q = tgc.slice %p {starts = array<i64: 0, 0>, ends = array<i64: 8, 32>} : (tensor<8x64xf32>) -> tensor<8x32xf32>
  %k = tgc.slice %p {starts = array<i64: 0, 32>, ends = array<i64: 8, 64>} : (tensor<8x64xf32>) -> tensor<8x32xf32>
  %q3 = tgc.reshape %q : tensor<8x32xf32> to tensor<8x2x16xf32>
  %k3 = tgc.reshape %k : tensor<8x32xf32> to tensor<8x2x16xf32>
  %qh = tgc.transpose %q3 {permutation = array<i64: 1, 0, 2>} : (tensor<8x2x16xf32>) -> tensor<2x8x16xf32>
  %kt = tgc.transpose %k3 {permutation = array<i64: 1, 2, 0>} : (tensor<8x2x16xf32>) -> tensor<2x16x8xf32>
  %three = tgc.constant dense<3.0> : tensor<f32>
  %qs = tgc.div %qh, %three : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8x16xf32>
  %s = tgc.matmul %qs, %kt : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
  return %s : tensor<2x8x8xf32>
}

// The slice is also a result: its step stays for that, the matmul reads
// the projection's result anyway.
// SHARED:     tgc.slice
// SHARED:     tgc.matmul {{.*}}: (tensor<8x64xf32>, tensor<32x4xf32>) -> tensor<8x4xf32> [onednn.matmul[strided]]
func.func @shared_slice(%p: tensor<8x64xf32>, %w: tensor<32x4xf32>) -> (tensor<8x4xf32>, tensor<8x32xf32>) {
  %x = tgc.slice %p {starts = array<i64: 0, 16>, ends = array<i64: 8, 48>} : (tensor<8x64xf32>) -> tensor<8x32xf32>
  %y = tgc.matmul %x, %w : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  return %y, %x : tensor<8x4xf32>, tensor<8x32xf32>
}

// A reshape that merges dims a transpose separated is no view: the
// transpose runs and the matmul reads its result.
// NOVIEW:     tgc.transpose
// NOVIEW:     tgc.matmul {{.*}}: (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32> [onednn.matmul]
func.func @not_a_view(%x: tensor<2x8x16xf32>, %w: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %t = tgc.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x8x16xf32>) -> tensor<8x2x16xf32>
  %r = tgc.reshape %t : tensor<8x2x16xf32> to tensor<8x32xf32>
  %y = tgc.matmul %r, %w : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// A negative step walks backwards: no view, the slice runs.
func.func @reversed(%p: tensor<8x64xf32>, %w: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %x = tgc.slice %p {starts = array<i64: 0, 40>, ends = array<i64: 8, 8>, steps = array<i64: 1, -1>} : (tensor<8x64xf32>) -> tensor<8x32xf32>
  %y = tgc.matmul %x, %w : (tensor<8x32xf32>, tensor<32x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// Sequence-major, as PyTorch's multi-head attention exports it: a batch of
// 2 with 2 heads of 16 each, the batch and the heads merged into one dim
// of 4 that no single stride walks. The matmuls split it back into two
// batch dims (2 x 2) and read the projection's result in place.
// MERGED-NOT:  tgc.slice
// MERGED-NOT:  tgc.transpose {{.*}}tensor<8x4x16xf32>) ->
// MERGED-NOT:  tgc.mul
// MERGED:      tgc.matmul {{.*}}: (tensor<8x2x96xf32>, tensor<8x2x96xf32>) -> tensor<4x8x8xf32> [onednn.matmul[strided]]
// MERGED:      tgc.softmax
// MERGED:      tgc.matmul {{.*}}: (tensor<4x8x8xf32>, tensor<8x2x96xf32>) -> tensor<4x8x16xf32> [onednn.matmul[strided]]
// MERGED:      arena:
func.func @merged_heads(%p: tensor<8x2x96xf32>) -> tensor<8x2x32xf32> {
  %q = tgc.slice %p {starts = array<i64: 0, 0, 0>, ends = array<i64: 8, 2, 32>} : (tensor<8x2x96xf32>) -> tensor<8x2x32xf32>
  %k = tgc.slice %p {starts = array<i64: 0, 0, 32>, ends = array<i64: 8, 2, 64>} : (tensor<8x2x96xf32>) -> tensor<8x2x32xf32>
  %v = tgc.slice %p {starts = array<i64: 0, 0, 64>, ends = array<i64: 8, 2, 96>} : (tensor<8x2x96xf32>) -> tensor<8x2x32xf32>
  %q3 = tgc.reshape %q : tensor<8x2x32xf32> to tensor<8x4x16xf32>
  %k3 = tgc.reshape %k : tensor<8x2x32xf32> to tensor<8x4x16xf32>
  %v3 = tgc.reshape %v : tensor<8x2x32xf32> to tensor<8x4x16xf32>
  %qh = tgc.transpose %q3 {permutation = array<i64: 1, 0, 2>} : (tensor<8x4x16xf32>) -> tensor<4x8x16xf32>
  %kt = tgc.transpose %k3 {permutation = array<i64: 1, 2, 0>} : (tensor<8x4x16xf32>) -> tensor<4x16x8xf32>
  %vh = tgc.transpose %v3 {permutation = array<i64: 1, 0, 2>} : (tensor<8x4x16xf32>) -> tensor<4x8x16xf32>
  %quarter = tgc.constant dense<0.25> : tensor<f32>
  %qs = tgc.mul %qh, %quarter : (tensor<4x8x16xf32>, tensor<f32>) -> tensor<4x8x16xf32>
  %s = tgc.matmul %qs, %kt : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
  %a = tgc.softmax %s {axis = 2 : i64} : tensor<4x8x8xf32>
  %o = tgc.matmul %a, %vh : (tensor<4x8x8xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %ot = tgc.transpose %o {permutation = array<i64: 1, 0, 2>} : (tensor<4x8x16xf32>) -> tensor<8x4x16xf32>
  %r = tgc.reshape %ot : tensor<8x4x16xf32> to tensor<8x2x32xf32>
  return %r : tensor<8x2x32xf32>
}

// The lhs's view splits its batch of 6 as 2 x 3, the rhs's as 3 x 2: no
// one split serves both, so the lhs folds and the rhs's transpose runs.
// CONFLICT-NOT: tgc.transpose {{.*}}(tensor<3x2x4x5xf32>) ->
// CONFLICT:     tgc.transpose {{.*}}(tensor<2x3x5x7xf32>) -> tensor<3x2x5x7xf32>
// CONFLICT:     tgc.matmul {{.*}}: (tensor<3x2x4x5xf32>, tensor<6x5x7xf32>) -> tensor<6x4x7xf32> [onednn.matmul[strided]]
func.func @conflicting_splits(%a: tensor<3x2x4x5xf32>, %b: tensor<2x3x5x7xf32>) -> tensor<6x4x7xf32> {
  %at = tgc.transpose %a {permutation = array<i64: 1, 0, 2, 3>} : (tensor<3x2x4x5xf32>) -> tensor<2x3x4x5xf32>
  %bt = tgc.transpose %b {permutation = array<i64: 1, 0, 2, 3>} : (tensor<2x3x5x7xf32>) -> tensor<3x2x5x7xf32>
  %a3 = tgc.reshape %at : tensor<2x3x4x5xf32> to tensor<6x4x5xf32>
  %b3 = tgc.reshape %bt : tensor<3x2x5x7xf32> to tensor<6x5x7xf32>
  %c = tgc.matmul %a3, %b3 : (tensor<6x4x5xf32>, tensor<6x5x7xf32>) -> tensor<6x4x7xf32>
  return %c : tensor<6x4x7xf32>
}
