// Loop fusions (tgc-fuse-elementwise) compiled by the JIT loop code generator
// against the reference interpreter, on one thread and split into chunks.
// RUN: tgc-opt --tgc-fuse-elementwise %s -o %t.mlir
// RUN: tgc-run --differential %t.mlir --threads=1 | FileCheck %s
// RUN: tgc-run --differential %t.mlir --threads=2 | FileCheck %s
// RUN: tgc-run --differential %t.mlir --threads=3 | FileCheck %s
// RUN: tgc-run %t.mlir --function=softmax_big --print-plan --threads=2 | FileCheck %s --check-prefix=PLAN
// RUN: tgc-run %t.mlir --function=layer_norm --print-plan --threads=2 | FileCheck %s --check-prefix=LN
// RUN: tgc-run %t.mlir --function=bias_relu --print-plan | FileCheck %s --check-prefix=BR
// RUN: tgc-run %t.mlir --function=two_results --print-plan | FileCheck %s --check-prefix=TWO

// PLAN: [0] jit tgc.fusion <loop> at {{.*}} [jit.loop[reduce_max,sub,exp,reduce_sum,div]]
// PLAN-NOT: [1]
// LN: [0] jit tgc.fusion <loop> at {{.*}} [jit.loop[reduce_mean,sub,mul,reduce_mean,add,rsqrt,mul,mul,add]]
// LN-NOT: [1]
// BR: [0] jit tgc.fusion <loop> at {{.*}} [jit.loop[add,relu]]
// TWO: [0] jit tgc.fusion <loop> at {{.*}} -> tensor<3x17xf32>, tensor<3xf32> [jit.loop[exp,reduce_sum]]

// CHECK-DAG: @softmax: ok
// CHECK-DAG: @softmax_big: ok
// CHECK-DAG: @softmax_3d: ok
// CHECK-DAG: @softmax_outer: ok
// CHECK-DAG: @layer_norm: ok
// CHECK-DAG: @layer_norm_odd: ok
// CHECK-DAG: @gelu_erf: ok
// CHECK-DAG: @gelu_tanh: ok
// CHECK-DAG: @bias_relu: ok
// CHECK-DAG: @bias_sigmoid_mul: ok
// CHECK-DAG: @reduce_inner: ok
// CHECK-DAG: @reduce_outer: ok
// CHECK-DAG: @reduce_all: ok
// CHECK-DAG: @reduce_middle: ok
// CHECK-DAG: @broadcast_kinds: ok
// CHECK-DAG: @broadcast_scalar: ok
// CHECK-DAG: @broadcast_to_chain: ok
// CHECK-DAG: @transpose_chain: ok
// CHECK-DAG: @reshape_chain: ok
// CHECK-DAG: @size_one: ok
// CHECK-DAG: @two_results: ok
// CHECK-DAG: @unary_zoo: ok
// CHECK-DAG: @binary_zoo: ok
// CHECK-DAG: @wide_rows: ok
// CHECK: differential: 24 functions, 0 mismatches

func.func @softmax(%x: tensor<3x17xf32>) -> tensor<3x17xf32> {
  %m = tgc.reduce_max %x {axes = array<i64: 1>, keepdims} : (tensor<3x17xf32>) -> tensor<3x1xf32>
  %d = tgc.sub %x, %m : (tensor<3x17xf32>, tensor<3x1xf32>) -> tensor<3x17xf32>
  %e = tgc.exp %d : tensor<3x17xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<3x17xf32>) -> tensor<3x1xf32>
  %y = tgc.div %e, %s : (tensor<3x17xf32>, tensor<3x1xf32>) -> tensor<3x17xf32>
  return %y : tensor<3x17xf32>
}

func.func @softmax_big(%x: tensor<33x1000xf32>) -> tensor<33x1000xf32> {
  %m = tgc.reduce_max %x {axes = array<i64: 1>, keepdims} : (tensor<33x1000xf32>) -> tensor<33x1xf32>
  %d = tgc.sub %x, %m : (tensor<33x1000xf32>, tensor<33x1xf32>) -> tensor<33x1000xf32>
  %e = tgc.exp %d : tensor<33x1000xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<33x1000xf32>) -> tensor<33x1xf32>
  %y = tgc.div %e, %s : (tensor<33x1000xf32>, tensor<33x1xf32>) -> tensor<33x1000xf32>
  return %y : tensor<33x1000xf32>
}

// Leading size-1 dim: the chunks split dim 1.
func.func @softmax_3d(%x: tensor<1x40x500xf32>) -> tensor<1x40x500xf32> {
  %m = tgc.reduce_max %x {axes = array<i64: 2>} : (tensor<1x40x500xf32>) -> tensor<1x40xf32>
  %m1 = tgc.unsqueeze %m {axes = array<i64: 2>} : (tensor<1x40xf32>) -> tensor<1x40x1xf32>
  %d = tgc.sub %x, %m1 : (tensor<1x40x500xf32>, tensor<1x40x1xf32>) -> tensor<1x40x500xf32>
  %e = tgc.exp %d : tensor<1x40x500xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 2>, keepdims} : (tensor<1x40x500xf32>) -> tensor<1x40x1xf32>
  %y = tgc.div %e, %s : (tensor<1x40x500xf32>, tensor<1x40x1xf32>) -> tensor<1x40x500xf32>
  return %y : tensor<1x40x500xf32>
}

// Softmax over the outer axis: no row split.
func.func @softmax_outer(%x: tensor<100x200xf32>) -> tensor<100x200xf32> {
  %m = tgc.reduce_max %x {axes = array<i64: 0>, keepdims} : (tensor<100x200xf32>) -> tensor<1x200xf32>
  %d = tgc.sub %x, %m : (tensor<100x200xf32>, tensor<1x200xf32>) -> tensor<100x200xf32>
  %e = tgc.exp %d : tensor<100x200xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 0>, keepdims} : (tensor<100x200xf32>) -> tensor<1x200xf32>
  %y = tgc.div %e, %s : (tensor<100x200xf32>, tensor<1x200xf32>) -> tensor<100x200xf32>
  return %y : tensor<100x200xf32>
}

func.func @layer_norm(%x: tensor<64x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<64x768xf32> {
  %eps = tgc.constant dense<1.0e-05> : tensor<f32>
  %mean = tgc.reduce_mean %x {axes = array<i64: 1>, keepdims} : (tensor<64x768xf32>) -> tensor<64x1xf32>
  %d = tgc.sub %x, %mean : (tensor<64x768xf32>, tensor<64x1xf32>) -> tensor<64x768xf32>
  %sq = tgc.mul %d, %d : tensor<64x768xf32>
  %var = tgc.reduce_mean %sq {axes = array<i64: 1>, keepdims} : (tensor<64x768xf32>) -> tensor<64x1xf32>
  %ve = tgc.add %var, %eps : (tensor<64x1xf32>, tensor<f32>) -> tensor<64x1xf32>
  %r = tgc.rsqrt %ve : tensor<64x1xf32>
  %n = tgc.mul %d, %r : (tensor<64x768xf32>, tensor<64x1xf32>) -> tensor<64x768xf32>
  %s = tgc.mul %n, %g : (tensor<64x768xf32>, tensor<768xf32>) -> tensor<64x768xf32>
  %y = tgc.add %s, %b : (tensor<64x768xf32>, tensor<768xf32>) -> tensor<64x768xf32>
  return %y : tensor<64x768xf32>
}

func.func @layer_norm_odd(%x: tensor<2x3x17xf32>, %g: tensor<17xf32>) -> tensor<2x3x17xf32> {
  %eps = tgc.constant dense<1.0e-05> : tensor<1xf32>
  %mean = tgc.reduce_mean %x {axes = array<i64: 2>, keepdims} : (tensor<2x3x17xf32>) -> tensor<2x3x1xf32>
  %d = tgc.sub %x, %mean : (tensor<2x3x17xf32>, tensor<2x3x1xf32>) -> tensor<2x3x17xf32>
  %p2 = tgc.constant dense<2.0> : tensor<f32>
  %sq = tgc.pow %d, %p2 : (tensor<2x3x17xf32>, tensor<f32>) -> tensor<2x3x17xf32>
  %var = tgc.reduce_mean %sq {axes = array<i64: 2>, keepdims} : (tensor<2x3x17xf32>) -> tensor<2x3x1xf32>
  %ve = tgc.add %var, %eps : (tensor<2x3x1xf32>, tensor<1xf32>) -> tensor<2x3x1xf32>
  %r = tgc.sqrt %ve : tensor<2x3x1xf32>
  %n = tgc.div %d, %r : (tensor<2x3x17xf32>, tensor<2x3x1xf32>) -> tensor<2x3x17xf32>
  %y = tgc.mul %n, %g : (tensor<2x3x17xf32>, tensor<17xf32>) -> tensor<2x3x17xf32>
  return %y : tensor<2x3x17xf32>
}

func.func @gelu_erf(%x: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %c = tgc.constant dense<0.707106769> : tensor<f32>
  %h = tgc.constant dense<0.5> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %0 = tgc.mul %x, %c : (tensor<8x1000xf32>, tensor<f32>) -> tensor<8x1000xf32>
  %1 = tgc.erf %0 : tensor<8x1000xf32>
  %2 = tgc.add %1, %one : (tensor<8x1000xf32>, tensor<f32>) -> tensor<8x1000xf32>
  %3 = tgc.mul %x, %2 : tensor<8x1000xf32>
  %4 = tgc.mul %3, %h : (tensor<8x1000xf32>, tensor<f32>) -> tensor<8x1000xf32>
  %5 = tgc.gelu %4 : tensor<8x1000xf32>
  return %5 : tensor<8x1000xf32>
}

func.func @gelu_tanh(%x: tensor<17x3xf32>, %b: tensor<3xf32>) -> tensor<17x3xf32> {
  %k = tgc.constant dense<0.797884583> : tensor<f32>
  %a = tgc.constant dense<0.044715> : tensor<f32>
  %h = tgc.constant dense<0.5> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %x0 = tgc.add %x, %b : (tensor<17x3xf32>, tensor<3xf32>) -> tensor<17x3xf32>
  %x2 = tgc.mul %x0, %x0 : tensor<17x3xf32>
  %x3 = tgc.mul %x2, %x0 : tensor<17x3xf32>
  %0 = tgc.mul %x3, %a : (tensor<17x3xf32>, tensor<f32>) -> tensor<17x3xf32>
  %1 = tgc.add %x0, %0 : tensor<17x3xf32>
  %2 = tgc.mul %1, %k : (tensor<17x3xf32>, tensor<f32>) -> tensor<17x3xf32>
  %3 = tgc.tanh %2 : tensor<17x3xf32>
  %4 = tgc.add %3, %one : (tensor<17x3xf32>, tensor<f32>) -> tensor<17x3xf32>
  %5 = tgc.mul %x0, %4 : tensor<17x3xf32>
  %6 = tgc.mul %5, %h : (tensor<17x3xf32>, tensor<f32>) -> tensor<17x3xf32>
  %7 = tgc.gelu %6 {approximate = #tgc.gelu_approximation<tanh>} : tensor<17x3xf32>
  return %7 : tensor<17x3xf32>
}

func.func @bias_relu(%x: tensor<37x1000xf32>, %b: tensor<1000xf32>) -> tensor<37x1000xf32> {
  %0 = tgc.add %x, %b : (tensor<37x1000xf32>, tensor<1000xf32>) -> tensor<37x1000xf32>
  %1 = tgc.relu %0 : tensor<37x1000xf32>
  return %1 : tensor<37x1000xf32>
}

func.func @bias_sigmoid_mul(%x: tensor<5x17xf32>, %b: tensor<17xf32>) -> tensor<5x17xf32> {
  %0 = tgc.add %x, %b : (tensor<5x17xf32>, tensor<17xf32>) -> tensor<5x17xf32>
  %1 = tgc.sigmoid %0 : tensor<5x17xf32>
  %2 = tgc.mul %0, %1 : tensor<5x17xf32>
  %3 = tgc.leaky_relu %2 {alpha = 0.2 : f64} : tensor<5x17xf32>
  %4 = tgc.elu %3 : tensor<5x17xf32>
  %5 = tgc.clamp %4 {min = -0.5 : f64, max = 6.0 : f64} : tensor<5x17xf32>
  return %5 : tensor<5x17xf32>
}

func.func @reduce_inner(%x: tensor<17x1000xf32>) -> (tensor<17xf32>, tensor<17x1xf32>, tensor<17xf32>) {
  %e = tgc.abs %x : tensor<17x1000xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>} : (tensor<17x1000xf32>) -> tensor<17xf32>
  %m = tgc.reduce_min %e {axes = array<i64: 1>, keepdims} : (tensor<17x1000xf32>) -> tensor<17x1xf32>
  %n = tgc.neg %s : tensor<17xf32>
  return %s, %m, %n : tensor<17xf32>, tensor<17x1xf32>, tensor<17xf32>
}

func.func @reduce_outer(%x: tensor<1000x17xf32>) -> (tensor<17xf32>, tensor<1x17xf32>) {
  %e = tgc.mul %x, %x : tensor<1000x17xf32>
  %s = tgc.reduce_mean %e {axes = array<i64: 0>} : (tensor<1000x17xf32>) -> tensor<17xf32>
  %m = tgc.reduce_max %e {axes = array<i64: 0>, keepdims} : (tensor<1000x17xf32>) -> tensor<1x17xf32>
  return %s, %m : tensor<17xf32>, tensor<1x17xf32>
}

func.func @reduce_all(%x: tensor<3x17xf32>) -> tensor<f32> {
  %e = tgc.sigmoid %x : tensor<3x17xf32>
  %p = tgc.reduce_prod %e {axes = array<i64: 0, 1>} : (tensor<3x17xf32>) -> tensor<f32>
  %l = tgc.log %p : tensor<f32>
  return %l : tensor<f32>
}

func.func @reduce_middle(%x: tensor<4x17x3xf32>) -> tensor<4x1x3xf32> {
  %e = tgc.exp %x : tensor<4x17x3xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<4x17x3xf32>) -> tensor<4x1x3xf32>
  %l = tgc.log %s : tensor<4x1x3xf32>
  return %l : tensor<4x1x3xf32>
}

// Every kind of broadcast: scalar, row, column, rank extension, both sides.
func.func @broadcast_kinds(%a: tensor<3x1x17xf32>, %b: tensor<1x5x1xf32>, %c: tensor<17xf32>, %d: tensor<5x1xf32>, %s: tensor<f32>) -> tensor<3x5x17xf32> {
  %0 = tgc.add %a, %b : (tensor<3x1x17xf32>, tensor<1x5x1xf32>) -> tensor<3x5x17xf32>
  %1 = tgc.mul %0, %c : (tensor<3x5x17xf32>, tensor<17xf32>) -> tensor<3x5x17xf32>
  %2 = tgc.sub %d, %1 : (tensor<5x1xf32>, tensor<3x5x17xf32>) -> tensor<3x5x17xf32>
  %3 = tgc.max %2, %s : (tensor<3x5x17xf32>, tensor<f32>) -> tensor<3x5x17xf32>
  return %3 : tensor<3x5x17xf32>
}

func.func @broadcast_scalar(%s: tensor<f32>, %x: tensor<1xf32>) -> tensor<1xf32> {
  %0 = tgc.add %s, %x : (tensor<f32>, tensor<1xf32>) -> tensor<1xf32>
  %1 = tgc.exp %0 : tensor<1xf32>
  return %1 : tensor<1xf32>
}

func.func @broadcast_to_chain(%x: tensor<17xf32>, %y: tensor<40x17xf32>) -> tensor<40x17xf32> {
  %0 = tgc.tanh %x : tensor<17xf32>
  %1 = tgc.broadcast_to %0 : tensor<17xf32> to tensor<40x17xf32>
  %2 = tgc.add %1, %y : tensor<40x17xf32>
  %3 = tgc.abs %2 : tensor<40x17xf32>
  return %3 : tensor<40x17xf32>
}

func.func @transpose_chain(%x: tensor<3x17x5xf32>) -> tensor<5x3x17xf32> {
  %0 = tgc.exp %x : tensor<3x17x5xf32>
  %1 = tgc.transpose %0 {permutation = array<i64: 2, 0, 1>} : (tensor<3x17x5xf32>) -> tensor<5x3x17xf32>
  %2 = tgc.sqrt %1 : tensor<5x3x17xf32>
  return %2 : tensor<5x3x17xf32>
}

func.func @reshape_chain(%x: tensor<6x17xf32>, %b: tensor<17xf32>) -> tensor<17x6xf32> {
  %0 = tgc.add %x, %b : (tensor<6x17xf32>, tensor<17xf32>) -> tensor<6x17xf32>
  %1 = tgc.reshape %0 : tensor<6x17xf32> to tensor<2x3x17xf32>
  %2 = tgc.reduce_sum %1 {axes = array<i64: 0>} : (tensor<2x3x17xf32>) -> tensor<3x17xf32>
  %3 = tgc.reshape %2 : tensor<3x17xf32> to tensor<51xf32>
  %4 = tgc.reshape %3 : tensor<51xf32> to tensor<17x3xf32>
  %u = tgc.unsqueeze %2 {axes = array<i64: 0>} : (tensor<3x17xf32>) -> tensor<1x3x17xf32>
  %5 = tgc.squeeze %u {axes = array<i64: 0>} : (tensor<1x3x17xf32>) -> tensor<3x17xf32>
  %6 = tgc.transpose %5 {permutation = array<i64: 1, 0>} : (tensor<3x17xf32>) -> tensor<17x3xf32>
  %7 = tgc.mul %4, %6 : tensor<17x3xf32>
  %8 = tgc.concat %7, %7 {axis = 1 : i64} : (tensor<17x3xf32>, tensor<17x3xf32>) -> tensor<17x6xf32>
  %9 = tgc.floor %8 : tensor<17x6xf32>
  return %9 : tensor<17x6xf32>
}

func.func @size_one(%x: tensor<1x1xf32>, %y: tensor<1xf32>) -> tensor<1x1xf32> {
  %0 = tgc.mul %x, %y : (tensor<1x1xf32>, tensor<1xf32>) -> tensor<1x1xf32>
  %1 = tgc.reduce_sum %0 {axes = array<i64: 1>, keepdims} : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %2 = tgc.sign %1 : tensor<1x1xf32>
  return %2 : tensor<1x1xf32>
}

// The exp is also a result: the region has two.
func.func @two_results(%x: tensor<3x17xf32>) -> (tensor<3x17xf32>, tensor<3xf32>) {
  %e = tgc.exp %x : tensor<3x17xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>} : (tensor<3x17xf32>) -> tensor<3xf32>
  return %e, %s : tensor<3x17xf32>, tensor<3xf32>
}

func.func @unary_zoo(%x: tensor<3x17xf32>) -> tensor<3x17xf32> {
  %0 = tgc.neg %x : tensor<3x17xf32>
  %1 = tgc.abs %0 : tensor<3x17xf32>
  %2 = tgc.sqrt %1 : tensor<3x17xf32>
  %3 = tgc.reciprocal %2 : tensor<3x17xf32>
  %4 = tgc.log %3 : tensor<3x17xf32>
  %5 = tgc.ceil %4 : tensor<3x17xf32>
  %6 = tgc.round %4 : tensor<3x17xf32>
  %7 = tgc.add %5, %6 : tensor<3x17xf32>
  %8 = tgc.tanh %x : tensor<3x17xf32>
  %9 = tgc.add %7, %8 : tensor<3x17xf32>
  %10 = tgc.erf %9 : tensor<3x17xf32>
  return %10 : tensor<3x17xf32>
}

func.func @binary_zoo(%x: tensor<3x17xf32>, %y: tensor<17xf32>) -> tensor<3x17xf32> {
  %0 = tgc.sub %x, %y : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  %1 = tgc.min %0, %y : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  %2 = tgc.max %1, %x : tensor<3x17xf32>
  %3 = tgc.abs %2 : tensor<3x17xf32>
  %4 = tgc.pow %3, %y : (tensor<3x17xf32>, tensor<17xf32>) -> tensor<3x17xf32>
  %5 = tgc.div %4, %x : tensor<3x17xf32>
  return %5 : tensor<3x17xf32>
}

// Rows long enough for the vector loops and split over threads.
func.func @wide_rows(%x: tensor<8x4099xf32>, %b: tensor<4099xf32>) -> tensor<8x4099xf32> {
  %0 = tgc.add %x, %b : (tensor<8x4099xf32>, tensor<4099xf32>) -> tensor<8x4099xf32>
  %1 = tgc.exp %0 : tensor<8x4099xf32>
  %2 = tgc.mul %1, %x : tensor<8x4099xf32>
  return %2 : tensor<8x4099xf32>
}
