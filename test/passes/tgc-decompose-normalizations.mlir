// RUN: tgc-opt %s -tgc-decompose-normalizations -split-input-file | FileCheck %s
// The decomposition computes what the ops compute: the reference
// interpreter gives the same results (same seeded random inputs) before
// and after.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tgc-opt %s -tgc-decompose-normalizations -o %t/all.mlir
// RUN: tgc-run %s --function=softmax --backend=reference --seed=7 --output=%t/softmax.npy
// RUN: tgc-run %t/all.mlir --function=softmax --backend=reference --seed=7 --expected=%t/softmax.npy --rtol=1e-6 | FileCheck %s --check-prefix=SAME
// RUN: tgc-run %s --function=log_softmax --backend=reference --seed=7 --output=%t/log_softmax.npy
// RUN: tgc-run %t/all.mlir --function=log_softmax --backend=reference --seed=7 --expected=%t/log_softmax.npy --rtol=1e-6 | FileCheck %s --check-prefix=SAME
// RUN: tgc-run %s --function=layer_norm --backend=reference --seed=7 --output=%t/layer_norm.npy
// RUN: tgc-run %t/all.mlir --function=layer_norm --backend=reference --seed=7 --expected=%t/layer_norm.npy --rtol=1e-5 --atol=1e-6 | FileCheck %s --check-prefix=SAME
// RUN: tgc-run %s --function=batch_norm --backend=reference --seed=7 --output=%t/batch_norm.npy
// RUN: tgc-run %t/all.mlir --function=batch_norm --backend=reference --seed=7 --expected=%t/batch_norm.npy --rtol=1e-5 --atol=1e-6 | FileCheck %s --check-prefix=SAME
// SAME: result #0: matches

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8xf32>)
// CHECK:         %[[MAX:.*]] = tgc.reduce_max %[[X]] {axes = array<i64: 1>, keepdims} : (tensor<2x8xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    %[[SHIFTED:.*]] = tgc.sub %[[X]], %[[MAX]]
// CHECK-NEXT:    %[[E:.*]] = tgc.exp %[[SHIFTED]]
// CHECK-NEXT:    %[[SUM:.*]] = tgc.reduce_sum %[[E]] {axes = array<i64: 1>, keepdims}
// CHECK-NEXT:    %[[Y:.*]] = tgc.div %[[E]], %[[SUM]]
// CHECK-NEXT:    return %[[Y]]
// CHECK-NOT:     tgc.softmax
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = tgc.softmax %x {axis = 1 : i64} : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// An inner axis: the reductions keep the other dims.
// CHECK-LABEL: func.func @log_softmax(
// CHECK-SAME:    %[[X:.*]]: tensor<4x3x5xf32>)
// CHECK:         %[[MAX:.*]] = tgc.reduce_max %[[X]] {axes = array<i64: 1>, keepdims} : (tensor<4x3x5xf32>) -> tensor<4x1x5xf32>
// CHECK-NEXT:    %[[SHIFTED:.*]] = tgc.sub %[[X]], %[[MAX]]
// CHECK-NEXT:    %[[E:.*]] = tgc.exp %[[SHIFTED]]
// CHECK-NEXT:    %[[SUM:.*]] = tgc.reduce_sum %[[E]]
// CHECK-NEXT:    %[[LOG:.*]] = tgc.log %[[SUM]]
// CHECK-NEXT:    %[[Y:.*]] = tgc.sub %[[SHIFTED]], %[[LOG]]
// CHECK-NEXT:    return %[[Y]]
func.func @log_softmax(%x: tensor<4x3x5xf32>) -> tensor<4x3x5xf32> {
  %y = tgc.log_softmax %x {axis = 1 : i64} : tensor<4x3x5xf32>
  return %y : tensor<4x3x5xf32>
}

// -----

// Over the trailing dims [1, 3), with scale and bias of their shape.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<2x4x6xf32>, %[[G:.*]]: tensor<4x6xf32>, %[[B:.*]]: tensor<4x6xf32>)
// CHECK-DAG:     %[[EPS:.*]] = tgc.constant dense<1.000000e-03> : tensor<f32>
// CHECK-DAG:     %[[MEAN:.*]] = tgc.reduce_mean %[[X]] {axes = array<i64: 1, 2>, keepdims} : (tensor<2x4x6xf32>) -> tensor<2x1x1xf32>
// CHECK:         %[[C:.*]] = tgc.sub %[[X]], %[[MEAN]]
// CHECK-NEXT:    %[[SQ:.*]] = tgc.mul %[[C]], %[[C]]
// CHECK-NEXT:    %[[VAR:.*]] = tgc.reduce_mean %[[SQ]] {axes = array<i64: 1, 2>, keepdims}
// CHECK-NEXT:    %[[VE:.*]] = tgc.add %[[VAR]], %[[EPS]]
// CHECK-NEXT:    %[[INV:.*]] = tgc.rsqrt %[[VE]]
// CHECK-NEXT:    %[[N:.*]] = tgc.mul %[[C]], %[[INV]]
// CHECK-NEXT:    %[[S:.*]] = tgc.mul %[[N]], %[[G]]
// CHECK-NEXT:    %[[Y:.*]] = tgc.add %[[S]], %[[B]]
// CHECK-NEXT:    return %[[Y]]
func.func @layer_norm(%x: tensor<2x4x6xf32>, %g: tensor<4x6xf32>, %b: tensor<4x6xf32>) -> tensor<2x4x6xf32> {
  %y = tgc.layer_norm %x scale %g bias %b {axis = 1 : i64, epsilon = 1.0e-03 : f64} : (tensor<2x4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<2x4x6xf32>
  return %y : tensor<2x4x6xf32>
}

// -----

// Per-channel statistics are viewed as 1x3x1x1 along the channel axis.
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<1x3x4x4xf32>, %[[S:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>, %[[M:.*]]: tensor<3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK:         %[[VE:.*]] = tgc.add %[[V]], %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[INV:.*]] = tgc.rsqrt %[[VE]]
// CHECK-NEXT:    %[[F:.*]] = tgc.mul %[[S]], %[[INV]]
// CHECK-NEXT:    %[[M4:.*]] = tgc.reshape %[[M]] : tensor<3xf32> to tensor<1x3x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = tgc.sub %[[X]], %[[M4]]
// CHECK-NEXT:    %[[F4:.*]] = tgc.reshape %[[F]] : tensor<3xf32> to tensor<1x3x1x1xf32>
// CHECK-NEXT:    %[[SC:.*]] = tgc.mul %[[C]], %[[F4]]
// CHECK-NEXT:    %[[B4:.*]] = tgc.reshape %[[B]] : tensor<3xf32> to tensor<1x3x1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = tgc.add %[[SC]], %[[B4]]
// CHECK-NEXT:    return %[[Y]]
func.func @batch_norm(%x: tensor<1x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %y = tgc.batch_norm %x, %s, %b, %m, %v : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// Negative: dynamic shapes and other element types stay (the backend
// specializes shapes first).
// CHECK-LABEL: func.func @dynamic(
// CHECK:         tgc.softmax
// CHECK-LABEL: func.func @f16(
// CHECK:         tgc.layer_norm
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = tgc.softmax %x {axis = 1 : i64} : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
func.func @f16(%x: tensor<2x8xf16>) -> tensor<2x8xf16> {
  %y = tgc.layer_norm %x {axis = 1 : i64} : (tensor<2x8xf16>) -> tensor<2x8xf16>
  return %y : tensor<2x8xf16>
}
