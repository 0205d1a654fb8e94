// RUN: tgc-cuda-codegen %s | FileCheck %s
// RUN: tgc-cuda-codegen %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tgc-cuda-codegen %s --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: not tgc-cuda-codegen %s --emit=ptx --arch=sm_10 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not tgc-cuda-codegen %s --emit=ptx --arch=ampere 2>&1 | FileCheck %s --check-prefix=BADARCH
// RUN: not tgc-cuda-codegen %s --emit=sass 2>&1 | FileCheck %s --check-prefix=EMIT

// ARCH: tgc-cuda-codegen: error: CUDA arch 'sm_10' is not supported by NVRTC {{[0-9.]+}} (sm_{{[0-9]+}} to sm_{{[0-9]+}})
// BADARCH: tgc-cuda-codegen: error: bad CUDA arch 'ampere' (expected sm_NN, e.g. sm_90)
// EMIT: tgc-cuda-codegen: error: --emit must be cuda or ptx

// Elementwise and broadcast bodies of tgc.fusion <loop> regions become one
// grid-stride kernel each: one thread per output element, broadcast operands
// indexed through the output index, math through the CUDA math library.

// CHECK:       static __device__ __forceinline__ float tgc_max(
// PTX:         .version
// PTX:         .target sm_90
// PTX:         .address_size 64
// PTX:         .global .align 4 .b8 tgc_movement_0_c0[16] = {0, 0, 128, 63,
// SM80:        .target sm_80

// CHECK-LABEL: // tgc_gelu_bias_0: add,gelu,exp over 4x17 (68 elements), <<<1, 256>>>
// CHECK-NEXT:  extern "C" __global__ void __launch_bounds__(256) tgc_gelu_bias_0(const float *__restrict__ in0, const float *__restrict__ in1, float *__restrict__ out0) {
// CHECK-NEXT:    typedef int idx_t;
// CHECK-NEXT:    for (idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; i < 68; i += (idx_t)blockDim.x * gridDim.x) {
// CHECK-NEXT:      const idx_t o0 = (i / 17);
// CHECK-NEXT:      const idx_t o1 = (i % 17);
// CHECK-NEXT:      const float [[X:v[0-9]+]] = in0[o0 * 17 + o1];
// CHECK-NEXT:      const float [[B:v[0-9]+]] = in1[o1];
// CHECK-NEXT:      const float [[S:v[0-9]+]] = ([[X]] + [[B]]);
// CHECK-NEXT:      const float [[G:v[0-9]+]] = (0.5f * [[S]] * (1.0f + tanhf(0.797884561f * ([[S]] + 0.044715f * [[S]] * [[S]] * [[S]]))));
// CHECK-NEXT:      const float [[E:v[0-9]+]] = expf([[G]]);
// CHECK-NEXT:      out0[i] = [[E]];
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// PTX-LABEL:   .visible .entry tgc_gelu_bias_0(
// PTX:         .maxntid 256, 1, 1
// PTX:         ld.global.nc.f32
// PTX:         ex2.approx
// PTX:         st.global.f32
// SM80-LABEL:  .visible .entry tgc_gelu_bias_0(
func.func @gelu_bias(%x: tensor<4x17xf32>, %b: tensor<17xf32>) -> tensor<4x17xf32> {
  %0 = tgc.fusion <loop> (%x, %b) : (tensor<4x17xf32>, tensor<17xf32>) -> tensor<4x17xf32> {
  ^bb0(%a: tensor<4x17xf32>, %c: tensor<17xf32>):
    %1 = tgc.add %a, %c : (tensor<4x17xf32>, tensor<17xf32>) -> tensor<4x17xf32>
    %2 = tgc.gelu %1 {approximate = #tgc.gelu_approximation<tanh>} : tensor<4x17xf32>
    %3 = tgc.exp %2 : tensor<4x17xf32>
    tgc.yield %3 : tensor<4x17xf32>
  }
  return %0 : tensor<4x17xf32>
}

// Column broadcast (size-1 dim reads index 0), scalar splat constants as
// literals, NaN-propagating max, two results, erf GELU.
// CHECK-LABEL: // tgc_two_results_0: sub,max,gelu over 3x5 (15 elements), <<<1, 256>>>
// CHECK:         const float [[X:v[0-9]+]] = in0[o0 * 5 + o1];
// CHECK-NEXT:    const float [[M:v[0-9]+]] = in1[o0];
// CHECK-NEXT:    const float [[D:v[0-9]+]] = ([[X]] - [[M]]);
// CHECK-NEXT:    const float [[R:v[0-9]+]] = tgc_max([[D]], -2.5f);
// CHECK-NEXT:    const float [[G:v[0-9]+]] = (0.5f * [[R]] * (1.0f + erff([[R]] * 0.707106781f)));
// CHECK-NEXT:    out0[i] = [[R]];
// CHECK-NEXT:    out1[i] = [[G]];
// PTX-LABEL:   .visible .entry tgc_two_results_0(
func.func @two_results(%x: tensor<3x5xf32>, %m: tensor<3x1xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %0:2 = tgc.fusion <loop> (%x, %m) : (tensor<3x5xf32>, tensor<3x1xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  ^bb0(%a: tensor<3x5xf32>, %c: tensor<3x1xf32>):
    %k = tgc.constant dense<-2.5> : tensor<f32>
    %1 = tgc.sub %a, %c : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
    %2 = tgc.max %1, %k : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
    %3 = tgc.gelu %2 : tensor<3x5xf32>
    tgc.yield %2, %3 : tensor<3x5xf32>, tensor<3x5xf32>
  }
  return %0#0, %0#1 : tensor<3x5xf32>, tensor<3x5xf32>
}

// A transpose permutes the index; a reshape goes through the linear index;
// a non-splat constant becomes a device array.
// CHECK-LABEL: // tgc_movement_0: transpose,reshape,mul,tanh over 6x4 (24 elements), <<<1, 256>>>
// CHECK-NEXT:  __device__ const float tgc_movement_0_c0[4] = {1.0f, 2.0f, 0.5f, -1.0f};
// CHECK:         const idx_t o0 = (i / 4);
// CHECK-NEXT:    const idx_t o1 = (i % 4);
// CHECK-NEXT:    const idx_t [[L:l[0-9]+]] = o0 * 4 + o1;
// CHECK-NEXT:    const float [[X:v[0-9]+]] = in0[([[L]] % 3) * 8 + ([[L]] / 3)];
// CHECK-NEXT:    const float [[C:v[0-9]+]] = tgc_movement_0_c0[o1];
// CHECK-NEXT:    const float [[P:v[0-9]+]] = ([[X]] * [[C]]);
// CHECK-NEXT:    const float [[T:v[0-9]+]] = tanhf([[P]]);
// CHECK-NEXT:    out0[i] = [[T]];
// PTX-LABEL:   .visible .entry tgc_movement_0(
// PTX:         mov.u64 {{.*}}, tgc_movement_0_c0;
func.func @movement(%x: tensor<3x8xf32>) -> tensor<6x4xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<3x8xf32>) -> tensor<6x4xf32> {
  ^bb0(%a: tensor<3x8xf32>):
    %c = tgc.constant dense<[1.0, 2.0, 0.5, -1.0]> : tensor<4xf32>
    %1 = tgc.transpose %a {permutation = array<i64: 1, 0>} : (tensor<3x8xf32>) -> tensor<8x3xf32>
    %2 = tgc.reshape %1 : tensor<8x3xf32> to tensor<6x4xf32>
    %3 = tgc.mul %2, %c : (tensor<6x4xf32>, tensor<4xf32>) -> tensor<6x4xf32>
    %4 = tgc.tanh %3 : tensor<6x4xf32>
    tgc.yield %4 : tensor<6x4xf32>
  }
  return %0 : tensor<6x4xf32>
}

// Contraction fusions and ops outside fusions are not generated kernels.
// CHECK-NOT:   tgc_dense
func.func @dense(%x: tensor<1x2xf32>, %w: tensor<2x3xf32>) -> tensor<1x3xf32> {
  %0 = tgc.fusion <contraction> (%x, %w) : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32> {
  ^bb0(%a: tensor<1x2xf32>, %c: tensor<2x3xf32>):
    %1 = tgc.matmul %a, %c : (tensor<1x2xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
    %2 = tgc.relu %1 : tensor<1x3xf32>
    tgc.yield %2 : tensor<1x3xf32>
  }
  return %0 : tensor<1x3xf32>
}
