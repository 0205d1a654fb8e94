// RUN: tgc-cuda-codegen %s | FileCheck %s
// RUN: tgc-cuda-codegen %s --emit=ptx | FileCheck %s --check-prefix=PTX

// Pools: one thread per output element, a loop over its window that skips
// padded positions (they never win a max and count for an average only
// with count_include_pad, inside the padded input), NCHW and NHWC.

// ResNet's stem pool: window rows and columns outside the input skipped.
// CHECK-LABEL: // tgc_max_pool_0: max_pool2d over 1x64x56x56 (200704 elements), <<<784, 256>>>
// CHECK:         // tgc.max_pool2d 3x3 window of 112x112 (NCHW)
// CHECK-NEXT:    float [[A:a[0-9]+]] = __int_as_float(0xff800000);
// CHECK-NEXT:    for (idx_t [[R:r[0-9]+]] = 0; [[R]] < 3; ++[[R]]) {
// CHECK-NEXT:      const idx_t [[H:h[0-9]+]] = ((o2 * 2 - 1) + [[R]]);
// CHECK-NEXT:      if ([[H]] < 0 || [[H]] >= 112)
// CHECK-NEXT:        continue;
// CHECK-NEXT:      for (idx_t [[S:s[0-9]+]] = 0; [[S]] < 3; ++[[S]]) {
// CHECK-NEXT:        const idx_t [[W:w[0-9]+]] = ((o3 * 2 - 1) + [[S]]);
// CHECK-NEXT:        if ([[W]] < 0 || [[W]] >= 112)
// CHECK-NEXT:          continue;
// CHECK-NEXT:        const float [[X:v[0-9]+]] = in0[o1 * 12544 + [[H]] * 112 + [[W]]];
// CHECK-NEXT:        [[A]] = tgc_max([[A]], [[X]]);
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    const float [[Y:v[0-9]+]] = [[A]];
// CHECK-NEXT:    out0[i] = [[Y]];
// PTX-LABEL:   .visible .entry tgc_max_pool_0(
func.func @max_pool(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x112x112xf32>):
    %1 = tgc.max_pool2d %a {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
    tgc.yield %1 : tensor<1x64x56x56xf32>
  }
  return %0 : tensor<1x64x56x56xf32>
}

// NHWC, dilations, ceil_mode; f16 loaded and stored as bits.
// CHECK-LABEL: // tgc_max_pool_nhwc_dilated_0: max_pool2d over 2x3x3x3 (54 elements)
// CHECK:         // tgc.max_pool2d 2x2 window of 9x9 (NHWC)
// CHECK:           const idx_t [[H:h[0-9]+]] = ((o1 * 3) + ([[R:r[0-9]+]] * 2));
// CHECK:             const idx_t [[W:w[0-9]+]] = ((o2 * 3) + ([[S:s[0-9]+]] * 2));
// CHECK:             const float [[X:v[0-9]+]] = tgc_load_f16(in0[o0 * 243 + [[H]] * 27 + [[W]] * 3 + o3]);
// CHECK:         out0[i] = tgc_store_f16({{v[0-9]+}});
// PTX-LABEL:   .visible .entry tgc_max_pool_nhwc_dilated_0(
// PTX:         cvt.f32.f16
// PTX:         cvt.rn.f16.f32
func.func @max_pool_nhwc_dilated(%x: tensor<2x9x9x3xf16>) -> tensor<2x3x3x3xf16> {
  %0 = tgc.fusion <loop> (%x) : (tensor<2x9x9x3xf16>) -> tensor<2x3x3x3xf16> {
  ^bb0(%a: tensor<2x9x9x3xf16>):
    %1 = tgc.max_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 3, 3>, dilations = array<i64: 2, 2>, ceil_mode, layout = #tgc.layout<NHWC>} : (tensor<2x9x9x3xf16>) -> tensor<2x3x3x3xf16>
    tgc.yield %1 : tensor<2x3x3x3xf16>
  }
  return %0 : tensor<2x3x3x3xf16>
}

// Without count_include_pad: divided by the real elements of the window.
// CHECK-LABEL: // tgc_avg_pool_0: avg_pool2d over 1x8x4x4 (128 elements)
// CHECK:         float [[A:a[0-9]+]] = 0.0f;
// CHECK-NEXT:    int [[N:n[0-9]+]] = 0;
// CHECK:             [[A]] += {{v[0-9]+}};
// CHECK-NEXT:        ++[[N]];
// CHECK:         const float [[Y:v[0-9]+]] = [[A]] / (float)[[N]];
func.func @avg_pool(%x: tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32> {
  ^bb0(%a: tensor<1x8x7x7xf32>):
    %1 = tgc.avg_pool2d %a {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x7x7xf32>) -> tensor<1x8x4x4xf32>
    tgc.yield %1 : tensor<1x8x4x4xf32>
  }
  return %0 : tensor<1x8x4x4xf32>
}

// With count_include_pad: the window's positions inside the padded input
// (rows -1..5, columns 0..6), not those ceil_mode adds past it.
// CHECK-LABEL: // tgc_avg_pool_include_pad_0: avg_pool2d over 1x4x3x8 (96 elements)
// CHECK:         // tgc.avg_pool2d 2x2 window of 6x6 (NHWC)
// CHECK:         const float [[X:v[0-9]+]] = in0[[[H:h[0-9]+]] * 48 + [[W:w[0-9]+]] * 8 + o3];
// CHECK:         int [[NR:n[0-9]+]] = 0, [[NC:n[0-9]+]] = 0;
// CHECK:           [[NR]] += [[H]] >= -1 && [[H]] < 6;
// CHECK:           [[NC]] += [[W]] >= 0 && [[W]] < 7;
// CHECK:         const float {{v[0-9]+}} = {{a[0-9]+}} / (float)([[NR]] * [[NC]]);
func.func @avg_pool_include_pad(%x: tensor<1x6x6x8xf32>) -> tensor<1x4x3x8xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<1x6x6x8xf32>) -> tensor<1x4x3x8xf32> {
  ^bb0(%a: tensor<1x6x6x8xf32>):
    %1 = tgc.avg_pool2d %a {count_include_pad, ceil_mode, kernel = array<i64: 2, 2>, padding = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 2>, layout = #tgc.layout<NHWC>} : (tensor<1x6x6x8xf32>) -> tensor<1x4x3x8xf32>
    tgc.yield %1 : tensor<1x4x3x8xf32>
  }
  return %0 : tensor<1x4x3x8xf32>
}

// CHECK-LABEL: // tgc_global_avg_pool_0: global_avg_pool2d over 2x2048x1x1 (4096 elements), <<<16, 256>>>
// CHECK:         for (idx_t [[H:h[0-9]+]] = 0; [[H]] < 7; ++[[H]]) {
// CHECK-NEXT:      for (idx_t [[W:w[0-9]+]] = 0; [[W]] < 7; ++[[W]]) {
// CHECK-NEXT:        const float [[X:v[0-9]+]] = in0[o0 * 100352 + o1 * 49 + [[H]] * 7 + [[W]]];
// CHECK-NEXT:        [[A:a[0-9]+]] += [[X]];
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    const float [[Y:v[0-9]+]] = [[A]] / 49.0f;
// CHECK-NEXT:    out0[i] = [[Y]];
// PTX-LABEL:   .visible .entry tgc_global_avg_pool_0(
func.func @global_avg_pool(%x: tensor<2x2048x7x7xf32>) -> tensor<2x2048x1x1xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<2x2048x7x7xf32>) -> tensor<2x2048x1x1xf32> {
  ^bb0(%a: tensor<2x2048x7x7xf32>):
    %1 = tgc.global_avg_pool2d %a : (tensor<2x2048x7x7xf32>) -> tensor<2x2048x1x1xf32>
    tgc.yield %1 : tensor<2x2048x1x1xf32>
  }
  return %0 : tensor<2x2048x1x1xf32>
}

// CHECK-LABEL: // tgc_global_avg_pool_nhwc_0: global_avg_pool2d over 1x1x1x16 (16 elements)
// CHECK:         const float {{v[0-9]+}} = tgc_load_bf16(in0[{{h[0-9]+}} * 112 + {{w[0-9]+}} * 16 + i]);
// CHECK:         out0[i] = tgc_store_bf16({{v[0-9]+}});
// PTX-LABEL:   .visible .entry tgc_global_avg_pool_nhwc_0(
func.func @global_avg_pool_nhwc(%x: tensor<1x7x7x16xbf16>) -> tensor<1x1x1x16xbf16> {
  %0 = tgc.fusion <loop> (%x) : (tensor<1x7x7x16xbf16>) -> tensor<1x1x1x16xbf16> {
  ^bb0(%a: tensor<1x7x7x16xbf16>):
    %1 = tgc.global_avg_pool2d %a {layout = #tgc.layout<NHWC>} : (tensor<1x7x7x16xbf16>) -> tensor<1x1x1x16xbf16>
    tgc.yield %1 : tensor<1x1x1x16xbf16>
  }
  return %0 : tensor<1x1x1x16xbf16>
}
