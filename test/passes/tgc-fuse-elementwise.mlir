// RUN: tgc-opt --tgc-fuse-elementwise --split-input-file %s | FileCheck %s
// RUN: tgc-opt --tgc-fuse-elementwise=max-ops=2 --split-input-file %s | FileCheck %s --check-prefix=LIMIT
// RUN: tgc-opt --tgc-fuse-elementwise="fuse-data-movement min-compute-ops=1" --split-input-file %s | FileCheck %s --check-prefix=MOVE
// RUN: tgc-opt --tgc-fuse-elementwise="narrow-floats" --split-input-file %s | FileCheck %s --check-prefix=NARROW

// Softmax spelled out becomes one region; the splat constant is copied in
// (just before its first user).
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.*]]: tensor<4x17xf32>
// CHECK:         %[[F:.*]] = tgc.fusion <loop>(%[[X]]) : (tensor<4x17xf32>) -> tensor<4x17xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4x17xf32>):
// CHECK-NEXT:      %[[M:.*]] = tgc.reduce_max %[[A]]
// CHECK-NEXT:      %[[D:.*]] = tgc.sub %[[A]], %[[M]]
// CHECK-NEXT:      %[[E:.*]] = tgc.exp %[[D]]
// CHECK-NEXT:      %[[S:.*]] = tgc.reduce_sum %[[E]]
// CHECK-NEXT:      %[[Y:.*]] = tgc.div %[[E]], %[[S]]
// CHECK-NEXT:      %[[C:.*]] = tgc.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:      %[[Z:.*]] = tgc.mul %[[Y]], %[[C]]
// CHECK-NEXT:      tgc.yield %[[Z]] : tensor<4x17xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
// LIMIT-LABEL: func.func @softmax(
// LIMIT-COUNT-3: tgc.fusion <loop>
// LIMIT-NOT: tgc.fusion
func.func @softmax(%x: tensor<4x17xf32>) -> tensor<4x17xf32> {
  %one = tgc.constant dense<1.0> : tensor<f32>
  %m = tgc.reduce_max %x {axes = array<i64: 1>, keepdims} : (tensor<4x17xf32>) -> tensor<4x1xf32>
  %d = tgc.sub %x, %m : (tensor<4x17xf32>, tensor<4x1xf32>) -> tensor<4x17xf32>
  %e = tgc.exp %d : tensor<4x17xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<4x17xf32>) -> tensor<4x1xf32>
  %y = tgc.div %e, %s : (tensor<4x17xf32>, tensor<4x1xf32>) -> tensor<4x17xf32>
  %z = tgc.mul %y, %one : (tensor<4x17xf32>, tensor<f32>) -> tensor<4x17xf32>
  return %z : tensor<4x17xf32>
}

// -----

// The add reads both the neg (in a region) and the matmul of the neg: one
// region holding both would be a cycle through the matmul, so the add and
// relu form a second region after the matmul.
// CHECK-LABEL: func.func @cycle(
// LIMIT-LABEL: func.func @cycle(
// CHECK:         %[[F1:.*]] = tgc.fusion <loop>(%{{.*}}) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK:           tgc.exp
// CHECK-NEXT:      tgc.neg
// CHECK:         }
// CHECK-NEXT:    %[[M:.*]] = tgc.matmul %[[F1]], %{{.*}}
// CHECK-NEXT:    %[[F2:.*]] = tgc.fusion <loop>(%[[F1]], %[[M]]) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK:           tgc.add
// CHECK-NEXT:      tgc.relu
// CHECK:         }
// CHECK-NEXT:    return %[[F2]]
func.func @cycle(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = tgc.exp %x : tensor<4x4xf32>
  %a2 = tgc.neg %a : tensor<4x4xf32>
  %b = tgc.matmul %a2, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = tgc.add %a2, %b : tensor<4x4xf32>
  %d = tgc.relu %c : tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}

// -----

// Two chains joined only through a matmul stay apart (no region spans it).
// CHECK-LABEL: func.func @through_matmul(
// CHECK:         tgc.fusion <loop>
// CHECK:         tgc.matmul
// CHECK:         tgc.fusion <loop>
func.func @through_matmul(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = tgc.exp %x : tensor<4x4xf32>
  %a2 = tgc.neg %a : tensor<4x4xf32>
  %b = tgc.matmul %a2, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = tgc.tanh %b : tensor<4x4xf32>
  %d = tgc.mul %c, %x : tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}

// -----

// Intermediates used outside become extra results: the exp is returned and
// read by a matmul.
// CHECK-LABEL: func.func @extra_results(
// CHECK:         %[[F:.*]]:2 = tgc.fusion <loop>(%{{.*}}) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
// CHECK:           %[[E:.*]] = tgc.exp
// CHECK-NEXT:      %[[S:.*]] = tgc.reduce_sum %[[E]]
// CHECK-NEXT:      tgc.yield %[[E]], %[[S]] : tensor<4x4xf32>, tensor<4xf32>
// CHECK:         %[[M:.*]] = tgc.matmul %[[F]]#0, %{{.*}}
// CHECK:         return %[[F]]#1, %[[M]], %[[F]]#0
func.func @extra_results(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tgc.exp %x : tensor<4x4xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4xf32>
  %m = tgc.matmul %e, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s, %m, %e : tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Not fusable: f16 and dynamic shapes (the code generator is f32 with static
// shapes), ops outside the elementwise/reduction set (softmax, gather,
// argmax, concat), and single computing ops (a lone add, a reshape + relu).
// CHECK-LABEL: func.func @not_fusable(
// CHECK-NOT:     tgc.fusion
// CHECK:         return
func.func @not_fusable(%h: tensor<4x4xf16>, %d: tensor<?x4xf32>, %x: tensor<4x4xf32>, %i: tensor<2xi64>)
    -> (tensor<4x4xf16>, tensor<?x4xf32>, tensor<4x4xf32>, tensor<16xf32>, tensor<4xi64>, tensor<2x4xf32>) {
  %0 = tgc.exp %h : tensor<4x4xf16>
  %1 = tgc.neg %0 : tensor<4x4xf16>
  %2 = tgc.exp %d : tensor<?x4xf32>
  %3 = tgc.neg %2 : tensor<?x4xf32>
  %4 = tgc.softmax %x {axis = 1 : i64} : tensor<4x4xf32>
  %5 = tgc.add %4, %x : tensor<4x4xf32>
  %6 = tgc.reshape %x : tensor<4x4xf32> to tensor<16xf32>
  %7 = tgc.relu %6 : tensor<16xf32>
  %8 = tgc.argmax %5 {axis = 1 : i64} : (tensor<4x4xf32>) -> tensor<4xi64>
  %9 = tgc.gather %x, %i {axis = 0 : i64} : (tensor<4x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %1, %3, %5, %7, %8, %9 : tensor<4x4xf16>, tensor<?x4xf32>, tensor<4x4xf32>, tensor<16xf32>, tensor<4xi64>, tensor<2x4xf32>
}

// -----

// Bias + GELU (tanh formula) after a matmul; the large constant bias is an
// input, the scalars are copied in; reshape and transpose join the region.
// CHECK-LABEL: func.func @bias_gelu(
// CHECK:         %[[M:.*]] = tgc.matmul
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <loop>(%[[M]], %{{.*}}) : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<32x8xf32> {
// CHECK:           tgc.add
// CHECK:           tgc.constant dense<4.471500e-02>
// CHECK:           tgc.constant dense<0.797884583>
// CHECK:           tgc.tanh
// CHECK:           tgc.constant dense<5.000000e-01>
// CHECK:           tgc.transpose
// CHECK:           tgc.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[F]]
func.func @bias_gelu(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<32x8xf32> {
  %b = tgc.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]> : tensor<32xf32>
  %k = tgc.constant dense<0.797884583> : tensor<f32>
  %a = tgc.constant dense<0.044715> : tensor<f32>
  %h = tgc.constant dense<0.5> : tensor<f32>
  %m = tgc.matmul %x, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %x0 = tgc.add %m, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %x3 = tgc.mul %x0, %x0 : tensor<8x32xf32>
  %0 = tgc.mul %x3, %a : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %1 = tgc.mul %0, %k : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %2 = tgc.tanh %1 : tensor<8x32xf32>
  %3 = tgc.mul %2, %h : (tensor<8x32xf32>, tensor<f32>) -> tensor<8x32xf32>
  %4 = tgc.reshape %3 : tensor<8x32xf32> to tensor<8x4x8xf32>
  %5 = tgc.reshape %4 : tensor<8x4x8xf32> to tensor<8x32xf32>
  %6 = tgc.transpose %5 {permutation = array<i64: 1, 0>} : (tensor<8x32xf32>) -> tensor<32x8xf32>
  return %6 : tensor<32x8xf32>
}

// -----

// With fuse-data-movement (the CUDA pipeline) an attention head's slice,
// reshape, transpose and scale are one region; by default the slice stays
// out (the CPU loop code generator does not index slices) and the rest has
// one computing op, below min-compute-ops. A lone reshape is a view either
// way: no region.
// CHECK-LABEL: func.func @head(
// CHECK:         tgc.slice
// CHECK-NOT:     tgc.fusion
// MOVE-LABEL:  func.func @head(
// MOVE-SAME:     %[[QKV:.*]]: tensor<128x2304xf32>)
// MOVE:          %[[R:.*]] = tgc.fusion <loop>(%[[QKV]]) : (tensor<128x2304xf32>) -> tensor<12x128x64xf32> {
// MOVE:            tgc.slice
// MOVE-NEXT:       tgc.reshape
// MOVE-NEXT:       tgc.transpose
// MOVE-NEXT:       tgc.constant dense<8.000000e+00>
// MOVE-NEXT:       tgc.div
// MOVE-NEXT:       tgc.yield
// MOVE:          return %[[R]]
// MOVE-LABEL:  func.func @view(
// MOVE-NOT:      tgc.fusion
// MOVE:          tgc.reshape
func.func @head(%qkv: tensor<128x2304xf32>) -> tensor<12x128x64xf32> {
  %s = tgc.slice %qkv {starts = array<i64: 0, 0>, ends = array<i64: 128, 768>, steps = array<i64: 1, 1>} : (tensor<128x2304xf32>) -> tensor<128x768xf32>
  %r = tgc.reshape %s : tensor<128x768xf32> to tensor<128x12x64xf32>
  %t = tgc.transpose %r {permutation = array<i64: 1, 0, 2>} : (tensor<128x12x64xf32>) -> tensor<12x128x64xf32>
  %c = tgc.constant dense<8.0> : tensor<f32>
  %d = tgc.div %t, %c : (tensor<12x128x64xf32>, tensor<f32>) -> tensor<12x128x64xf32>
  return %d : tensor<12x128x64xf32>
}
func.func @view(%x: tensor<4x6xf32>) -> tensor<24xf32> {
  %r = tgc.reshape %x : tensor<4x6xf32> to tensor<24xf32>
  return %r : tensor<24xf32>
}

// -----

// With fuse-data-movement, data movement after a reduction stays out of
// its region: the normalized rows are one row kernel on the GPU, the
// transpose of the result another (together each thread would re-reduce its
// row). Without the option the transpose joins (the CPU's loops handle it).
// MOVE-LABEL:  func.func @norm_then_transpose(
// MOVE:          %[[N:.*]] = tgc.fusion <loop>
// MOVE:            tgc.reduce_sum
// MOVE-NOT:        tgc.transpose
// MOVE:            tgc.yield
// MOVE:          %[[T:.*]] = tgc.fusion <loop>(%[[N]])
// MOVE-NEXT:     ^bb0
// MOVE-NEXT:       tgc.transpose
// CHECK-LABEL: func.func @norm_then_transpose(
// CHECK:         tgc.fusion <loop>
// CHECK:           tgc.reduce_sum
// CHECK:           tgc.transpose
// CHECK:           tgc.yield
func.func @norm_then_transpose(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %s = tgc.reduce_sum %x {axes = array<i64: 1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = tgc.div %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = tgc.exp %d : tensor<4x8xf32>
  %t = tgc.transpose %e {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

// f16 values and casts between float types join regions only with
// narrow-floats (the CUDA pipeline, whose kernels store half and compute in
// f32): a widening cast, a row reduction in f32 and a narrowing cast become
// one region there; elsewhere only the f32 ops between the casts do.
// CHECK-LABEL: func.func @half_rows(
// CHECK:         %[[W:.*]] = tgc.cast %{{.*}} : tensor<4x8xf16> to tensor<4x8xf32>
// CHECK-NEXT:    %[[F:.*]] = tgc.fusion <loop>(%[[W]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:         %[[N:.*]] = tgc.cast %[[F]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[N]] : tensor<4x8xf16>
// CHECK-NEXT:    return %[[R]]
// NARROW-LABEL: func.func @half_rows(
// NARROW-SAME:    %[[X:.*]]: tensor<4x8xf16>
// NARROW:         %[[F:.*]] = tgc.fusion <loop>(%[[X]]) : (tensor<4x8xf16>) -> tensor<4x8xf16> {
// NARROW-NEXT:    ^bb0(%[[A:.*]]: tensor<4x8xf16>):
// NARROW-NEXT:      %[[W:.*]] = tgc.cast %[[A]] : tensor<4x8xf16> to tensor<4x8xf32>
// NARROW-NEXT:      %[[M:.*]] = tgc.reduce_max %[[W]]
// NARROW-NEXT:      %[[D:.*]] = tgc.sub %[[W]], %[[M]]
// NARROW-NEXT:      %[[N:.*]] = tgc.cast %[[D]] : tensor<4x8xf32> to tensor<4x8xf16>
// NARROW-NEXT:      %[[R:.*]] = tgc.relu %[[N]] : tensor<4x8xf16>
// NARROW-NEXT:      tgc.yield %[[R]]
// NARROW:         return %[[F]]
func.func @half_rows(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %w = tgc.cast %x : tensor<4x8xf16> to tensor<4x8xf32>
  %m = tgc.reduce_max %w {axes = array<i64: 1>, keepdims} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = tgc.sub %w, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %n = tgc.cast %d : tensor<4x8xf32> to tensor<4x8xf16>
  %r = tgc.relu %n : tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}
