// RUN: tgc-cuda-codegen %s --pass-pipeline='func.func(tgc-fuse-elementwise)' | FileCheck %s
// RUN: tgc-cuda-codegen %s --pass-pipeline='func.func(tgc-fuse-elementwise)' --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tgc-cuda-codegen %s --pass-pipeline='func.func(tgc-fuse-elementwise)' --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=SM80

// Loop fusions with reductions over the innermost axes become row kernels:
// one block per row, a loop of the block's threads over the row per
// reduction, then a block-wide reduction (warp shuffles, shared memory);
// what does not vary along the row is computed once per row; elementwise
// results are stored by one more loop over the row.

// CHECK:       #define TGC_BLOCK_REDUCE(NAME, COMBINE, IDENTITY)
// CHECK:       TGC_BLOCK_REDUCE(tgc_block_sum, tgc_add, 0.0f)
// CHECK:       TGC_BLOCK_REDUCE(tgc_block_max, tgc_max, __int_as_float(0xff800000))
// PTX:         .target sm_90
// SM80:        .target sm_80

// Softmax spelled out: max, shifted exp summed, divided.
// CHECK-LABEL: // tgc_softmax_0: reduce_max,sub,exp,reduce_sum,div over 33x1000 (33 rows of 1000, one block per row), <<<33, 256>>>
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(256) tgc_softmax_0(const float *__restrict__ in0, float *__restrict__ out0) {
// CHECK-NEXT:    typedef int idx_t;
// CHECK-NEXT:    __shared__ float tgc_smem[32];
// CHECK-NEXT:    for (idx_t row = blockIdx.x; row < 33; row += gridDim.x) {
// CHECK-NEXT:      // tgc.reduce_max over 1000 columns
// CHECK-NEXT:      float [[A:a[0-9]+]] = __int_as_float(0xff800000);
// CHECK-NEXT:      for (idx_t j = threadIdx.x; j < 1000; j += blockDim.x) {
// CHECK-NEXT:        const float [[X:v[0-9]+]] = in0[row * 1000 + j];
// CHECK-NEXT:        [[A]] = tgc_max([[A]], [[X]]);
// CHECK-NEXT:      }
// CHECK-NEXT:      const float [[M:v[0-9]+]] = tgc_block_max([[A]], tgc_smem);
// CHECK-NEXT:      // tgc.reduce_sum over 1000 columns
// CHECK-NEXT:      float [[B:a[0-9]+]] = 0.0f;
// CHECK-NEXT:      for (idx_t j = threadIdx.x; j < 1000; j += blockDim.x) {
// CHECK-NEXT:        const float [[X2:v[0-9]+]] = in0[row * 1000 + j];
// CHECK-NEXT:        const float [[D:v[0-9]+]] = ([[X2]] - [[M]]);
// CHECK-NEXT:        const float [[E:v[0-9]+]] = expf([[D]]);
// CHECK-NEXT:        [[B]] = tgc_add([[B]], [[E]]);
// CHECK-NEXT:      }
// CHECK-NEXT:      const float [[S:v[0-9]+]] = tgc_block_sum([[B]], tgc_smem);
// CHECK-NEXT:      for (idx_t j = threadIdx.x; j < 1000; j += blockDim.x) {
// CHECK-NEXT:        const float [[X3:v[0-9]+]] = in0[row * 1000 + j];
// CHECK-NEXT:        const float [[D3:v[0-9]+]] = ([[X3]] - [[M]]);
// CHECK-NEXT:        const float [[E3:v[0-9]+]] = expf([[D3]]);
// CHECK-NEXT:        const float [[Y:v[0-9]+]] = ([[E3]] / [[S]]);
// CHECK-NEXT:        out0[row * 1000 + j] = [[Y]];
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// PTX-LABEL:   .visible .entry tgc_softmax_0(
// PTX:         .maxntid 256, 1, 1
// PTX:         .shared .align 4 .b8 {{.*}}tgc_smem[128];
// PTX:         shfl.sync.bfly.b32
// PTX:         bar.sync 0;
// PTX:         ex2.approx
// PTX:         st.global.f32
// SM80-LABEL:  .visible .entry tgc_softmax_0(
func.func @softmax(%x: tensor<33x1000xf32>) -> tensor<33x1000xf32> {
  %m = tgc.reduce_max %x {axes = array<i64: 1>, keepdims} : (tensor<33x1000xf32>) -> tensor<33x1xf32>
  %d = tgc.sub %x, %m : (tensor<33x1000xf32>, tensor<33x1xf32>) -> tensor<33x1000xf32>
  %e = tgc.exp %d : tensor<33x1000xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<33x1000xf32>) -> tensor<33x1xf32>
  %y = tgc.div %e, %s : (tensor<33x1000xf32>, tensor<33x1xf32>) -> tensor<33x1000xf32>
  return %y : tensor<33x1000xf32>
}

// Layer norm: mean, variance of the centered row, rsqrt once per row,
// scale and shift per column.
// CHECK-LABEL: // tgc_layer_norm_0: reduce_mean,sub,mul,reduce_mean,add,rsqrt,mul,mul,add over 64x768 (64 rows of 768, one block per row), <<<64, 256>>>
// CHECK:         for (idx_t row = blockIdx.x; row < 64; row += gridDim.x) {
// CHECK-NEXT:      // tgc.reduce_mean over 768 columns
// CHECK:           const float [[MEAN:v[0-9]+]] = tgc_block_sum({{a[0-9]+}}, tgc_smem) / 768.0f;
// CHECK-NEXT:      // tgc.reduce_mean over 768 columns
// CHECK:             const float [[C:v[0-9]+]] = ({{v[0-9]+}} - [[MEAN]]);
// CHECK-NEXT:        const float [[SQ:v[0-9]+]] = ([[C]] * [[C]]);
// CHECK:           const float [[VAR:v[0-9]+]] = tgc_block_sum({{a[0-9]+}}, tgc_smem) / 768.0f;
// CHECK-NEXT:      const float [[VE:v[0-9]+]] = ([[VAR]] + 9.99999975e-06f);
// CHECK-NEXT:      const float [[R:v[0-9]+]] = rsqrtf([[VE]]);
// CHECK-NEXT:      for (idx_t j = threadIdx.x; j < 768; j += blockDim.x) {
// CHECK:             const float [[N:v[0-9]+]] = ({{v[0-9]+}} * [[R]]);
// CHECK-NEXT:        const float [[G:v[0-9]+]] = in1[j];
// CHECK-NEXT:        const float [[NG:v[0-9]+]] = ([[N]] * [[G]]);
// CHECK-NEXT:        const float [[BI:v[0-9]+]] = in2[j];
// CHECK-NEXT:        const float [[Y:v[0-9]+]] = ([[NG]] + [[BI]]);
// CHECK-NEXT:        out0[row * 768 + j] = [[Y]];
// PTX-LABEL:   .visible .entry tgc_layer_norm_0(
// PTX:         rsqrt.approx.f32
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

// Layer norm as PyTorch exports it (pow, sqrt, div) over 3-D rows of an
// odd length: a warp per block; the row index splits into its dims.
// CHECK-LABEL: // tgc_layer_norm_pow_0: reduce_mean,sub,pow,reduce_mean,add,sqrt,div,mul,add over 2x3x17 (6 rows of 17, one block per row), <<<6, 32>>>
// CHECK:           const idx_t [[R0:r[0-9]+]] = (row / 3);
// CHECK-NEXT:      const idx_t [[R1:r[0-9]+]] = (row % 3);
// CHECK:             const float {{v[0-9]+}} = in0[[[R0]] * 51 + [[R1]] * 17 + j];
// CHECK:             const float {{v[0-9]+}} = powf({{v[0-9]+}}, 2.0f);
// CHECK:           const float [[SD:v[0-9]+]] = sqrtf({{v[0-9]+}});
// CHECK:             const float {{v[0-9]+}} = ({{v[0-9]+}} / [[SD]]);
// CHECK:             out0[row * 17 + j] = {{v[0-9]+}};
// PTX-LABEL:   .visible .entry tgc_layer_norm_pow_0(
// PTX:         .maxntid 32, 1, 1
func.func @layer_norm_pow(%x: tensor<2x3x17xf32>, %g: tensor<17xf32>, %b: tensor<17xf32>) -> tensor<2x3x17xf32> {
  %eps = tgc.constant dense<1.0e-05> : tensor<f32>
  %two = tgc.constant dense<2.0> : tensor<f32>
  %mean = tgc.reduce_mean %x {axes = array<i64: 2>, keepdims} : (tensor<2x3x17xf32>) -> tensor<2x3x1xf32>
  %d = tgc.sub %x, %mean : (tensor<2x3x17xf32>, tensor<2x3x1xf32>) -> tensor<2x3x17xf32>
  %sq = tgc.pow %d, %two : (tensor<2x3x17xf32>, tensor<f32>) -> tensor<2x3x17xf32>
  %var = tgc.reduce_mean %sq {axes = array<i64: 2>, keepdims} : (tensor<2x3x17xf32>) -> tensor<2x3x1xf32>
  %ve = tgc.add %var, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %sd = tgc.sqrt %ve : tensor<2x3x1xf32>
  %n = tgc.div %d, %sd : (tensor<2x3x17xf32>, tensor<2x3x1xf32>) -> tensor<2x3x17xf32>
  %s = tgc.mul %n, %g : (tensor<2x3x17xf32>, tensor<17xf32>) -> tensor<2x3x17xf32>
  %y = tgc.add %s, %b : (tensor<2x3x17xf32>, tensor<17xf32>) -> tensor<2x3x17xf32>
  return %y : tensor<2x3x17xf32>
}

// A reduction without keepdims reshaped back, a leading size-1 dim.
// CHECK-LABEL: // tgc_softmax_3d_0: reduce_max,unsqueeze,sub,exp,reduce_sum,div over 1x40x500 (40 rows of 500, one block per row), <<<40, 256>>>
// CHECK:             out0[row * 500 + j] = {{v[0-9]+}};
func.func @softmax_3d(%x: tensor<1x40x500xf32>) -> tensor<1x40x500xf32> {
  %m = tgc.reduce_max %x {axes = array<i64: 2>} : (tensor<1x40x500xf32>) -> tensor<1x40xf32>
  %m1 = tgc.unsqueeze %m {axes = array<i64: 2>} : (tensor<1x40xf32>) -> tensor<1x40x1xf32>
  %d = tgc.sub %x, %m1 : (tensor<1x40x500xf32>, tensor<1x40x1xf32>) -> tensor<1x40x500xf32>
  %e = tgc.exp %d : tensor<1x40x500xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 2>, keepdims} : (tensor<1x40x500xf32>) -> tensor<1x40x1xf32>
  %y = tgc.div %e, %s : (tensor<1x40x500xf32>, tensor<1x40x1xf32>) -> tensor<1x40x500xf32>
  return %y : tensor<1x40x500xf32>
}

// Per-row results (with and without keepdims, and computed from a
// reduction) are stored once per row by thread 0; several reduction kinds;
// two innermost axes reduced together.
// CHECK-LABEL: // tgc_per_row_0: abs,reduce_sum,reduce_min,neg,reduce_prod over 17x4x25 (17 rows of 100, one block per row), <<<17, 128>>>
// CHECK:             const idx_t [[J0:j[0-9]+]] = (j / 25);
// CHECK-NEXT:        const idx_t [[J1:j[0-9]+]] = (j % 25);
// CHECK-NEXT:        const float {{v[0-9]+}} = in0[row * 100 + [[J0]] * 25 + [[J1]]];
// CHECK:           const float {{v[0-9]+}} = tgc_block_min({{a[0-9]+}}, tgc_smem);
// CHECK:           float [[P:a[0-9]+]] = 1.0f;
// CHECK:           const float {{v[0-9]+}} = tgc_block_prod([[P]], tgc_smem);
// CHECK:           if (threadIdx.x == 0) { out0[row] = {{v[0-9]+}}; out1[row] = {{v[0-9]+}}; out2[row] = {{v[0-9]+}}; out3[row] = {{v[0-9]+}}; }
// PTX-LABEL:   .visible .entry tgc_per_row_0(
func.func @per_row(%x: tensor<17x4x25xf32>) -> (tensor<17xf32>, tensor<17x1x1xf32>, tensor<17xf32>, tensor<17xf32>) {
  %a = tgc.abs %x : tensor<17x4x25xf32>
  %s = tgc.reduce_sum %a {axes = array<i64: 1, 2>} : (tensor<17x4x25xf32>) -> tensor<17xf32>
  %m = tgc.reduce_min %a {axes = array<i64: 1, 2>, keepdims} : (tensor<17x4x25xf32>) -> tensor<17x1x1xf32>
  %n = tgc.neg %s : tensor<17xf32>
  %p = tgc.reduce_prod %a {axes = array<i64: 1, 2>} : (tensor<17x4x25xf32>) -> tensor<17xf32>
  return %s, %m, %n, %p : tensor<17xf32>, tensor<17x1x1xf32>, tensor<17xf32>, tensor<17xf32>
}

// Elementwise kernels are unchanged: no shared memory, no block reduction.
// CHECK-LABEL: // tgc_elementwise_0: add,tanh over 4x17 (68 elements), <<<1, 256>>>
// CHECK-NOT:   tgc_smem
// CHECK:       }
func.func @elementwise(%x: tensor<4x17xf32>, %b: tensor<17xf32>) -> tensor<4x17xf32> {
  %0 = tgc.add %x, %b : (tensor<4x17xf32>, tensor<17xf32>) -> tensor<4x17xf32>
  %1 = tgc.tanh %0 : tensor<4x17xf32>
  return %1 : tensor<4x17xf32>
}
