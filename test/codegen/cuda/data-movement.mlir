// RUN: tgc-cuda-codegen %s | FileCheck %s
// RUN: tgc-cuda-codegen %s --emit=ptx | FileCheck %s --check-prefix=PTX

// Standalone data-movement ops (what the CUDA compiler wraps alone in a
// one-op loop fusion): one thread per output element, the input index
// computed from the output index.

// Negative starts count from the end; a negative step walks backwards.
// CHECK-LABEL: // tgc_slice_0: slice over 2x5 (10 elements), <<<1, 256>>>
// CHECK:         const float [[V:v[0-9]+]] = in0[(o0 * 2 + 1) * 10 + (o1 * -2 + 9)];
// CHECK-NEXT:    out0[i] = [[V]];
// PTX-LABEL:   .visible .entry tgc_slice_0(
func.func @slice(%x: tensor<4x10xf32>) -> tensor<2x5xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x10xf32>) -> tensor<2x5xf32> {
  ^bb0(%a: tensor<4x10xf32>):
    %1 = tgc.slice %a {starts = array<i64: 1, -1>, ends = array<i64: 9223372036854775807, 0>, steps = array<i64: 2, -2>} : (tensor<4x10xf32>) -> tensor<2x5xf32>
    tgc.yield %1 : tensor<2x5xf32>
  }
  return %0 : tensor<2x5xf32>
}

// The padding value where the output index is outside the input, the
// input (read inside the branch only) elsewhere.
// CHECK-LABEL: // tgc_pad_0: pad over 3x6 (18 elements), <<<1, 256>>>
// CHECK:         float [[P:v[0-9]+]] = -1.5f;
// CHECK-NEXT:    if (o0 >= 1 && o0 < 3 && o1 >= 2 && o1 < 5) {
// CHECK-NEXT:      const idx_t [[Q0:q[0-9]+]] = (o0 - 1);
// CHECK-NEXT:      const idx_t [[Q1:q[0-9]+]] = (o1 - 2);
// CHECK-NEXT:      const float [[X:v[0-9]+]] = in0[[[Q0]] * 3 + [[Q1]]];
// CHECK-NEXT:      [[P]] = [[X]];
// CHECK-NEXT:    }
// CHECK-NEXT:    out0[i] = [[P]];
// PTX-LABEL:   .visible .entry tgc_pad_0(
func.func @pad(%x: tensor<2x3xf32>) -> tensor<3x6xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<2x3xf32>) -> tensor<3x6xf32> {
  ^bb0(%a: tensor<2x3xf32>):
    %1 = tgc.pad %a {low = array<i64: 1, 2>, high = array<i64: 0, 1>, value = -1.5 : f64} : (tensor<2x3xf32>) -> tensor<3x6xf32>
    tgc.yield %1 : tensor<3x6xf32>
  }
  return %0 : tensor<3x6xf32>
}

// The value converted to the element type as tgc.cast does (toward zero).
// CHECK-LABEL: // tgc_pad_int_0: pad over 7 (7 elements)
// CHECK-NEXT:  {{.*}}(const long long *__restrict__ in0, long long *__restrict__ out0)
// CHECK:         long long [[P:v[0-9]+]] = ((long long)7LL);
// CHECK-NEXT:    if (i >= 0 && i < 5) {
func.func @pad_int(%x: tensor<5xi64>) -> tensor<7xi64> {
  %0 = tgc.fusion <loop> (%x) : (tensor<5xi64>) -> tensor<7xi64> {
  ^bb0(%a: tensor<5xi64>):
    %1 = tgc.pad %a {low = array<i64: 0>, high = array<i64: 2>, value = 7.9 : f64} : (tensor<5xi64>) -> tensor<7xi64>
    tgc.yield %1 : tensor<7xi64>
  }
  return %0 : tensor<7xi64>
}

// One branch per non-empty input, in order.
// CHECK-LABEL: // tgc_concat_0: concat over 2x6 (12 elements)
// CHECK:         float [[R:v[0-9]+]];
// CHECK-NEXT:    if (o1 < 3) {
// CHECK-NEXT:      const idx_t [[Q:q[0-9]+]] = o1;
// CHECK-NEXT:      const float [[A:v[0-9]+]] = in0[o0 * 3 + [[Q]]];
// CHECK-NEXT:      [[R]] = [[A]];
// CHECK-NEXT:    } else if (o1 < 4) {
// CHECK-NEXT:      const idx_t {{q[0-9]+}} = (o1 - 3);
// CHECK-NEXT:      const float [[C:v[0-9]+]] = in2[o0];
// CHECK-NEXT:      [[R]] = [[C]];
// CHECK-NEXT:    } else {
// CHECK-NEXT:      const idx_t [[Q3:q[0-9]+]] = (o1 - 4);
// CHECK-NEXT:      const float [[D:v[0-9]+]] = in3[o0 * 2 + [[Q3]]];
// CHECK-NEXT:      [[R]] = [[D]];
// CHECK-NEXT:    }
// CHECK-NEXT:    out0[i] = [[R]];
// PTX-LABEL:   .visible .entry tgc_concat_0(
func.func @concat(%x: tensor<2x3xf32>, %y: tensor<2x0xf32>, %z: tensor<2x1xf32>, %w: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %0 = tgc.fusion <loop> (%x, %y, %z, %w) : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32> {
  ^bb0(%a: tensor<2x3xf32>, %b: tensor<2x0xf32>, %c: tensor<2x1xf32>, %d: tensor<2x2xf32>):
    %1 = tgc.concat %a, %b, %c, %d {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
    tgc.yield %1 : tensor<2x6xf32>
  }
  return %0 : tensor<2x6xf32>
}

// Indices (i64 here) wrap when negative; one out of range sets the kernel's
// status (check 0 here), which fails the call.
// CHECK-LABEL: // tgc_gather_0: gather over 2x8x64 (1024 elements), <<<4, 256>>>
// CHECK-NEXT:  {{.*}}(const float *__restrict__ in0, const long long *__restrict__ in1, float *__restrict__ out0, unsigned long long *__restrict__ tgc_status)
// CHECK:         const long long [[I:v[0-9]+]] = in1[o0 * 8 + o1];
// CHECK-NEXT:    const idx_t [[G:g[0-9]+]] = (idx_t)tgc_gather_index((long long)[[I]], 1000LL, tgc_status, 0ull);
// CHECK-NEXT:    const float [[V:v[0-9]+]] = in0[[[G]] * 64 + o2];
// CHECK-NEXT:    out0[i] = [[V]];
// PTX-LABEL:   .visible .entry tgc_gather_0(
// PTX:         ld.global.nc.u64
func.func @gather(%t: tensor<1000x64xf32>, %ids: tensor<2x8xi64>) -> tensor<2x8x64xf32> {
  %0 = tgc.fusion <loop> (%t, %ids) : (tensor<1000x64xf32>, tensor<2x8xi64>) -> tensor<2x8x64xf32> {
  ^bb0(%a: tensor<1000x64xf32>, %b: tensor<2x8xi64>):
    %1 = tgc.gather %a, %b {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<2x8xi64>) -> tensor<2x8x64xf32>
    tgc.yield %1 : tensor<2x8x64xf32>
  }
  return %0 : tensor<2x8x64xf32>
}

// CHECK-LABEL: // tgc_gather_middle_0: gather over 3x4x2 (24 elements)
// CHECK-NEXT:  {{.*}}(const unsigned short *__restrict__ in0, const int *__restrict__ in1, unsigned short *__restrict__ out0, unsigned long long *__restrict__ tgc_status)
// CHECK:         const int [[I:v[0-9]+]] = in1[o1];
// CHECK-NEXT:    const idx_t [[G:g[0-9]+]] = (idx_t)tgc_gather_index((long long)[[I]], 5LL, tgc_status, 0ull);
// CHECK-NEXT:    const float [[V:v[0-9]+]] = tgc_load_f16(in0[o0 * 10 + [[G]] * 2 + o2]);
// CHECK-NEXT:    out0[i] = tgc_store_f16([[V]]);
func.func @gather_middle(%t: tensor<3x5x2xf16>, %ids: tensor<4xi32>) -> tensor<3x4x2xf16> {
  %0 = tgc.fusion <loop> (%t, %ids) : (tensor<3x5x2xf16>, tensor<4xi32>) -> tensor<3x4x2xf16> {
  ^bb0(%a: tensor<3x5x2xf16>, %b: tensor<4xi32>):
    %1 = tgc.gather %a, %b {axis = 1 : i64} : (tensor<3x5x2xf16>, tensor<4xi32>) -> tensor<3x4x2xf16>
    tgc.yield %1 : tensor<3x4x2xf16>
  }
  return %0 : tensor<3x4x2xf16>
}

// CHECK-LABEL: // tgc_broadcast_transpose_0: broadcast_to,transpose over 2x3x4 (24 elements)
// CHECK-NEXT:  {{.*}}(const int *__restrict__ in0, int *__restrict__ out0)
// CHECK:         const int [[V:v[0-9]+]] = in0[o1];
// CHECK-NEXT:    out0[i] = [[V]];
// PTX-LABEL:   .visible .entry tgc_broadcast_transpose_0(
func.func @broadcast_transpose(%x: tensor<1x3xi32>) -> tensor<2x3x4xi32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<1x3xi32>) -> tensor<2x3x4xi32> {
  ^bb0(%a: tensor<1x3xi32>):
    %1 = tgc.broadcast_to %a : tensor<1x3xi32> to tensor<2x4x3xi32>
    %2 = tgc.transpose %1 {permutation = array<i64: 0, 2, 1>} : (tensor<2x4x3xi32>) -> tensor<2x3x4xi32>
    tgc.yield %2 : tensor<2x3x4xi32>
  }
  return %0 : tensor<2x3x4xi32>
}
