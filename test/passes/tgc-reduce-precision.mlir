// RUN: tgc-opt %s --split-input-file --tgc-reduce-precision --cse | FileCheck %s
// RUN: tgc-opt %s --split-input-file '--tgc-reduce-precision=dtype=bf16' | FileCheck %s --check-prefix=BF16
// RUN: not tgc-opt %s --split-input-file '--tgc-reduce-precision=dtype=f8' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: tgc-reduce-precision: dtype must be f16 or bf16, not 'f8'

// A dense layer: the matmul, its constant bias and the relu run in f16 and
// the next matmul takes the relu's f16 result; the constants are converted
// at compile time; the softmax stays f32, behind one widening cast.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:      %[[X:.*]]: tensor<4x8xf32>) -> tensor<4x2xf32>
// CHECK-DAG:     %[[W2:.*]] = tgc.constant dense<2.500000e-01> : tensor<16x2xf16>
// CHECK-DAG:     %[[B:.*]] = tgc.constant dense<{{.*}}> : tensor<16xf16>
// CHECK-DAG:     %[[W1:.*]] = tgc.constant dense<5.000000e-01> : tensor<8x16xf16>
// CHECK:         %[[X16:.*]] = tgc.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-NEXT:    %[[M1:.*]] = tgc.matmul %[[X16]], %[[W1]] : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[M1]], %[[B]] : (tensor<4x16xf16>, tensor<16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT:    %[[R:.*]] = tgc.relu %[[A]] : tensor<4x16xf16>
// CHECK-NEXT:    %[[M2:.*]] = tgc.matmul %[[R]], %[[W2]] : (tensor<4x16xf16>, tensor<16x2xf16>) -> tensor<4x2xf16>
// CHECK-NEXT:    %[[W:.*]] = tgc.cast %[[M2]] : tensor<4x2xf16> to tensor<4x2xf32>
// CHECK-NEXT:    %[[S:.*]] = tgc.softmax %[[W]] {axis = 1 : i64} : tensor<4x2xf32>
// CHECK-NEXT:    return %[[S]]
// BF16-LABEL: func.func @mlp(
// BF16:         tgc.matmul {{.*}} -> tensor<4x16xbf16>
// BF16:         tgc.relu {{.*}} : tensor<4x16xbf16>
// BF16:         tgc.matmul {{.*}} -> tensor<4x2xbf16>
// BF16:         tgc.softmax {{.*}} : tensor<4x2xf32>
func.func @mlp(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %w1 = tgc.constant dense<0.5> : tensor<8x16xf32>
  %b1 = tgc.constant dense<[0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.4]> : tensor<16xf32>
  %w2 = tgc.constant dense<0.25> : tensor<16x2xf32>
  %0 = tgc.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = tgc.add %0, %b1 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = tgc.relu %1 : tensor<4x16xf32>
  %3 = tgc.matmul %2, %w2 : (tensor<4x16xf32>, tensor<16x2xf32>) -> tensor<4x2xf32>
  %4 = tgc.softmax %3 {axis = 1 : i64} : tensor<4x2xf32>
  return %4 : tensor<4x2xf32>
}

// -----

// A residual block: both convolutions (with the bias operand), the
// residual add, the relus and the max pool stay f16; the average pool
// (a sum over many values) runs in f32.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME:      %[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x4x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-DAG:     %[[X16:.*]] = tgc.cast %[[X]] : tensor<1x4x8x8xf32> to tensor<1x4x8x8xf16>
// CHECK-DAG:     %[[W16:.*]] = tgc.cast %[[W]] : tensor<4x4x3x3xf32> to tensor<4x4x3x3xf16>
// CHECK-DAG:     %[[B16:.*]] = tgc.cast %[[B]] : tensor<4xf32> to tensor<4xf16>
// CHECK:         %[[C1:.*]] = tgc.conv2d %[[X16]], %[[W16]], %[[B16]] {{.*}} -> tensor<1x4x8x8xf16>
// CHECK-NEXT:    %[[R1:.*]] = tgc.relu %[[C1]] : tensor<1x4x8x8xf16>
// CHECK-NEXT:    %[[C2:.*]] = tgc.conv2d %[[R1]], %[[W16]] {{.*}} -> tensor<1x4x8x8xf16>
// CHECK-NEXT:    %[[A:.*]] = tgc.add %[[C2]], %[[X16]] : tensor<1x4x8x8xf16>
// CHECK-NEXT:    %[[R2:.*]] = tgc.relu %[[A]] : tensor<1x4x8x8xf16>
// CHECK-NEXT:    %[[P:.*]] = tgc.max_pool2d %[[R2]] {{.*}} -> tensor<1x4x4x4xf16>
// CHECK-NEXT:    %[[P32:.*]] = tgc.cast %[[P]] : tensor<1x4x4x4xf16> to tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[G:.*]] = tgc.global_avg_pool2d %[[P32]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    return %[[G]]
func.func @residual(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x1x1xf32> {
  %c1 = tgc.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r1 = tgc.relu %c1 : tensor<1x4x8x8xf32>
  %c2 = tgc.conv2d %r1, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %a = tgc.add %c2, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %r2 = tgc.relu %a : tensor<1x4x8x8xf32>
  %p = tgc.max_pool2d %r2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %g = tgc.global_avg_pool2d %p : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32>
  return %g : tensor<1x4x1x1xf32>
}

// -----

// Ops that would overflow or lose f16's range stay f32 (exp, div), and so
// does everything after them; elementwise ops without a narrow operand are
// untouched, as are integer matmuls.
// CHECK-LABEL: func.func @stays_f32(
// CHECK:         %[[M:.*]] = tgc.matmul {{.*}} -> tensor<2x2xf16>
// CHECK-NEXT:    %[[W:.*]] = tgc.cast %[[M]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK-NEXT:    %[[E:.*]] = tgc.exp %[[W]] : tensor<2x2xf32>
// CHECK-NEXT:    %[[D:.*]] = tgc.div %[[E]], %{{.*}} : tensor<2x2xf32>
// CHECK-NEXT:    %[[N:.*]] = tgc.neg %[[D]] : tensor<2x2xf32>
// CHECK-NEXT:    %[[I:.*]] = tgc.matmul %{{.*}}, %{{.*}} : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
// CHECK-NEXT:    return %[[N]], %[[I]]
func.func @stays_f32(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>, %i: tensor<2x2xi32>) -> (tensor<2x2xf32>, tensor<2x2xi32>) {
  %m = tgc.matmul %x, %y : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = tgc.exp %m : tensor<2x2xf32>
  %d = tgc.div %e, %y : tensor<2x2xf32>
  %n = tgc.neg %d : tensor<2x2xf32>
  %j = tgc.matmul %i, %i : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  return %n, %j : tensor<2x2xf32>, tensor<2x2xi32>
}

// -----

// Contractions already inside a fusion region are left alone (the region's
// types are its own); an f16 function is untouched.
// CHECK-LABEL: func.func @in_fusion(
// CHECK:         tgc.matmul %{{.*}}, %{{.*}} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-LABEL: func.func @already_f16(
// CHECK-NEXT:    %[[M:.*]] = tgc.matmul %{{.*}}, %{{.*}} : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
// CHECK-NEXT:    return %[[M]]
func.func @in_fusion(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tgc.fusion <contraction> (%x) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %1 = tgc.matmul %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    tgc.yield %1 : tensor<2x2xf32>
  }
  return %0 : tensor<2x2xf32>
}
func.func @already_f16(%x: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %0 = tgc.matmul %x, %x : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}
