// MLIR-level tiling and vectorization of loop fusions (TGC_LOOP_VECTORIZE=1
// in the JIT; the `vectorize` option of tgc-lower-loop-fusions-to-linalg
// here): rows tiled by 1, the innermost dim by 64 f32 (4 AVX-512
// registers); an innermost reduction becomes a partial reduction with a
// vector accumulator and one vector.multi_reduction per row.
// RUN: tgc-opt --tgc-lower-loop-fusions-to-linalg=vectorize %s | FileCheck %s
// RUN: tgc-opt "--tgc-lower-loop-fusions-to-linalg=vectorize to-llvm" %s | FileCheck %s --check-prefix=LLVM
// The differential suite of the loop code generator, vectorized (the
// default) and not:
// RUN: tgc-opt --tgc-fuse-elementwise %S/loop-fusion-differential.mlir -o %t.mlir
// RUN: env TGC_LOOP_VECTORIZE=1 tgc-run --differential %t.mlir --threads=1 | FileCheck %s --check-prefix=DIFF
// RUN: env TGC_LOOP_VECTORIZE=1 tgc-run --differential %t.mlir --threads=2 | FileCheck %s --check-prefix=DIFF
// RUN: tgc-run --differential %t.mlir --threads=2 --seed=9 | FileCheck %s --check-prefix=DIFF
// RUN: env TGC_LOOP_VECTORIZE=0 tgc-run --differential %t.mlir --threads=2 | FileCheck %s --check-prefix=DIFF
// DIFF: differential: {{[0-9]+}} functions, 0 mismatches

// CHECK-LABEL: func.func private @loop_fusion_0(
// The row max: a vector<1x64xf32> accumulator carried by the loop over the
// row, reduced once.
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:           %[[MAX:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<1x64xf32>)
// CHECK:             vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<1x64xf32>
// CHECK:             arith.maximumf %[[ACC]], {{.*}} : vector<1x64xf32>
// CHECK:           vector.multi_reduction <maximumf>, %[[MAX]], {{.*}} [1] : vector<1x64xf32> to vector<1xf32>
// The sum of exponentials:
// CHECK:           scf.for {{.*}} -> (vector<1x64xf32>)
// CHECK:             math.exp {{.*}} : vector<1x64xf32>
// CHECK:             arith.addf {{.*}} fastmath<reassoc> : vector<1x64xf32>
// CHECK:           vector.multi_reduction <add>
// The elementwise tail, the row statistics broadcast along the row:
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<1xf32>, vector<1x64xf32>
// CHECK:             arith.divf {{.*}} : vector<1x64xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<1x64xf32>, tensor<1x64xf32>

// Rows of 17 (not a multiple of 8) are vectorized whole.
// CHECK-LABEL: func.func private @loop_fusion_1(
// CHECK:         vector.multi_reduction <add>, {{.*}} : vector<1x17xf32> to vector<1xf32>
// CHECK:         arith.mulf {{.*}} : vector<1x17xf32>

// A transposed read stays a linalg.generic (LLVM's loop vectorizer).
// CHECK-LABEL: func.func private @loop_fusion_2(
// CHECK:         linalg.generic
// CHECK-NOT:     vector.transfer_read

// GELU's erf: one 16-lane register per tile (wider tiles of its polynomial
// spill).
// CHECK-LABEL: func.func private @loop_fusion_3(
// CHECK:         scf.for
// CHECK:           scf.for {{.*}} step %c16
// CHECK:             math.erf {{.*}} : vector<1x16xf32>
// CHECK-NOT:     vector<1x64xf32>

// LLVM-LABEL:  llvm.func @loop_fusion_0(
// LLVM:          llvm.intr.vector.reduce.fmaximum({{.*}}) {{.*}} : (vector<64xf32>) -> f32
// LLVM:          llvm.intr.vector.reduce.fadd{{.*}} <{fastmathFlags = #llvm.fastmath<reassoc>}> : (f32, vector<64xf32>) -> f32
// LLVM-NOT:      {{= vector\.}}
// LLVM-NOT:      linalg.

func.func @softmax(%x: tensor<128x768xf32>) -> tensor<128x768xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<128x768xf32>) -> tensor<128x768xf32> {
  ^bb0(%a: tensor<128x768xf32>):
    %m = tgc.reduce_max %a {axes = array<i64: 1>, keepdims} : (tensor<128x768xf32>) -> tensor<128x1xf32>
    %d = tgc.sub %a, %m : (tensor<128x768xf32>, tensor<128x1xf32>) -> tensor<128x768xf32>
    %e = tgc.exp %d : tensor<128x768xf32>
    %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<128x768xf32>) -> tensor<128x1xf32>
    %y = tgc.div %e, %s : (tensor<128x768xf32>, tensor<128x1xf32>) -> tensor<128x768xf32>
    tgc.yield %y : tensor<128x768xf32>
  }
  return %0 : tensor<128x768xf32>
}

func.func @mean_scale(%x: tensor<8x17xf32>) -> tensor<8x17xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<8x17xf32>) -> tensor<8x17xf32> {
  ^bb0(%a: tensor<8x17xf32>):
    %m = tgc.reduce_mean %a {axes = array<i64: 1>, keepdims} : (tensor<8x17xf32>) -> tensor<8x1xf32>
    %y = tgc.mul %a, %m : (tensor<8x17xf32>, tensor<8x1xf32>) -> tensor<8x17xf32>
    tgc.yield %y : tensor<8x17xf32>
  }
  return %0 : tensor<8x17xf32>
}

func.func @transpose_exp(%x: tensor<32x64xf32>) -> tensor<64x32xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<32x64xf32>) -> tensor<64x32xf32> {
  ^bb0(%a: tensor<32x64xf32>):
    %t = tgc.transpose %a {permutation = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
    %y = tgc.exp %t : tensor<64x32xf32>
    tgc.yield %y : tensor<64x32xf32>
  }
  return %0 : tensor<64x32xf32>
}

func.func @gelu_erf(%x: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<16x256xf32>) -> tensor<16x256xf32> {
  ^bb0(%a: tensor<16x256xf32>):
    %r = tgc.constant dense<0.707106769> : tensor<f32>
    %h = tgc.constant dense<5.000000e-01> : tensor<f32>
    %one = tgc.constant dense<1.000000e+00> : tensor<f32>
    %s = tgc.mul %a, %r : (tensor<16x256xf32>, tensor<f32>) -> tensor<16x256xf32>
    %e = tgc.erf %s : tensor<16x256xf32>
    %p = tgc.add %e, %one : (tensor<16x256xf32>, tensor<f32>) -> tensor<16x256xf32>
    %m = tgc.mul %a, %h : (tensor<16x256xf32>, tensor<f32>) -> tensor<16x256xf32>
    %y = tgc.mul %m, %p : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<16x256xf32>
    tgc.yield %y : tensor<16x256xf32>
  }
  return %0 : tensor<16x256xf32>
}
