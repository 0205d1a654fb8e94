// RUN: tgc-cuda-codegen %s | FileCheck %s
// RUN: tgc-cuda-codegen %s --emit=ptx | FileCheck %s --check-prefix=PTX

// Reductions over other than the innermost axes (and argmax/argmin,
// softmax, log_softmax over a non-last axis, batch_norm) run one thread per
// output element, each looping over the reduced dims; neighbouring threads
// read neighbouring elements of the kept dims (coalesced columns).

// A column sum: thread i loops down column i.
// CHECK-LABEL: // tgc_column_sum_0: exp,reduce_sum over 200 (200 elements), <<<1, 256>>>
// CHECK:         // tgc.reduce_sum over 100 elements
// CHECK-NEXT:    float [[A:a[0-9]+]] = 0.0f;
// CHECK-NEXT:    for (idx_t [[K:k[0-9]+]] = 0; [[K]] < 100; ++[[K]]) {
// CHECK-NEXT:      const float [[X:v[0-9]+]] = in0[[[K]] * 200 + i];
// CHECK-NEXT:      const float [[E:v[0-9]+]] = expf([[X]]);
// CHECK-NEXT:      [[A]] = tgc_add([[A]], [[E]]);
// CHECK-NEXT:    }
// CHECK-NEXT:    const float [[Y:v[0-9]+]] = [[A]];
// CHECK-NEXT:    out0[i] = [[Y]];
// PTX-LABEL:   .visible .entry tgc_column_sum_0(
func.func @column_sum(%x: tensor<100x200xf32>) -> tensor<200xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<100x200xf32>) -> tensor<200xf32> {
  ^bb0(%a: tensor<100x200xf32>):
    %1 = tgc.exp %a : tensor<100x200xf32>
    %2 = tgc.reduce_sum %1 {axes = array<i64: 0>} : (tensor<100x200xf32>) -> tensor<200xf32>
    tgc.yield %2 : tensor<200xf32>
  }
  return %0 : tensor<200xf32>
}

// Two reduced axes around a kept one, keepdims.
// CHECK-LABEL: // tgc_mean_outer_inner_0: reduce_mean over 1x17x1 (17 elements)
// CHECK:         for (idx_t [[K0:k[0-9]+]] = 0; [[K0]] < 4; ++[[K0]]) {
// CHECK-NEXT:      for (idx_t [[K1:k[0-9]+]] = 0; [[K1]] < 3; ++[[K1]]) {
// CHECK-NEXT:        const float [[X:v[0-9]+]] = in0[[[K0]] * 51 + i * 3 + [[K1]]];
// CHECK:         const float {{v[0-9]+}} = {{a[0-9]+}} / 12.0f;
func.func @mean_outer_inner(%x: tensor<4x17x3xf32>) -> tensor<1x17x1xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x17x3xf32>) -> tensor<1x17x1xf32> {
  ^bb0(%a: tensor<4x17x3xf32>):
    %1 = tgc.reduce_mean %a {axes = array<i64: 0, 2>, keepdims} : (tensor<4x17x3xf32>) -> tensor<1x17x1xf32>
    tgc.yield %1 : tensor<1x17x1xf32>
  }
  return %0 : tensor<1x17x1xf32>
}

// Integers: the type's lowest value as identity.
// CHECK-LABEL: // tgc_int_max_0: reduce_max over 4x3 (12 elements)
// CHECK:         int [[A:a[0-9]+]] = ((int)-2147483648LL);
// CHECK-NEXT:    for (idx_t [[K:k[0-9]+]] = 0; [[K]] < 17; ++[[K]]) {
// CHECK-NEXT:      const int [[X:v[0-9]+]] = in0[o0 * 51 + [[K]] * 3 + o1];
// CHECK-NEXT:      [[A]] = [[X]] > [[A]] ? [[X]] : [[A]];
func.func @int_max(%x: tensor<4x17x3xi32>) -> tensor<4x3xi32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x17x3xi32>) -> tensor<4x3xi32> {
  ^bb0(%a: tensor<4x17x3xi32>):
    %1 = tgc.reduce_max %a {axes = array<i64: 1>} : (tensor<4x17x3xi32>) -> tensor<4x3xi32>
    tgc.yield %1 : tensor<4x3xi32>
  }
  return %0 : tensor<4x3xi32>
}

// Integer reductions (even over the innermost axis) wrap in 64 bits.
// CHECK-LABEL: // tgc_int_sum_inner_0: reduce_sum over 5 (5 elements)
// CHECK:         unsigned long long [[A:a[0-9]+]] = 0ULL;
// CHECK:           [[A]] += (unsigned long long){{v[0-9]+}};
// CHECK:         const long long {{v[0-9]+}} = (long long)[[A]];
func.func @int_sum_inner(%x: tensor<5x7xi64>) -> tensor<5xi64> {
  %0 = tgc.fusion <loop> (%x) : (tensor<5x7xi64>) -> tensor<5xi64> {
  ^bb0(%a: tensor<5x7xi64>):
    %1 = tgc.reduce_sum %a {axes = array<i64: 1>} : (tensor<5x7xi64>) -> tensor<5xi64>
    tgc.yield %1 : tensor<5xi64>
  }
  return %0 : tensor<5xi64>
}

// CHECK-LABEL: // tgc_argmax_0: argmax over 4 (4 elements)
// CHECK-NEXT:  {{.*}}(const float *__restrict__ in0, long long *__restrict__ out0)
// CHECK:         long long [[I:a[0-9]+]] = 0;
// CHECK-NEXT:    float [[B:b[0-9]+]] = 0;
// CHECK-NEXT:    for (idx_t [[K:k[0-9]+]] = 0; [[K]] < 10; ++[[K]]) {
// CHECK-NEXT:      const float [[X:v[0-9]+]] = in0[i * 10 + [[K]]];
// CHECK-NEXT:      if ([[K]] == 0 || tgc_arg_better([[X]], [[B]], true, false)) {
// CHECK-NEXT:        [[B]] = [[X]];
// CHECK-NEXT:        [[I]] = [[K]];
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    out0[i] = [[I]];
// PTX-LABEL:   .visible .entry tgc_argmax_0(
// PTX:         st.global.u64
func.func @argmax(%x: tensor<4x10xf32>) -> tensor<4xi64> {
  %0 = tgc.fusion <loop> (%x) : (tensor<4x10xf32>) -> tensor<4xi64> {
  ^bb0(%a: tensor<4x10xf32>):
    %1 = tgc.argmax %a {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4xi64>
    tgc.yield %1 : tensor<4xi64>
  }
  return %0 : tensor<4xi64>
}

// CHECK-LABEL: // tgc_argmin_last_0: argmin over 1x5 (5 elements)
// CHECK:         if ({{k[0-9]+}} == 0 || tgc_arg_better((long long){{v[0-9]+}}, {{b[0-9]+}}, false, true)) {
func.func @argmin_last(%x: tensor<6x5xi32>) -> tensor<1x5xi64> {
  %0 = tgc.fusion <loop> (%x) : (tensor<6x5xi32>) -> tensor<1x5xi64> {
  ^bb0(%a: tensor<6x5xi32>):
    %1 = tgc.argmin %a {axis = 0 : i64, keepdims, select_last_index} : (tensor<6x5xi32>) -> tensor<1x5xi64>
    tgc.yield %1 : tensor<1x5xi64>
  }
  return %0 : tensor<1x5xi64>
}

// Softmax ops are spelled out (max, shifted exp sum, log); over a non-last
// axis every element loops over its column.
// CHECK-LABEL: // tgc_log_softmax_axis0_0: log_softmax over 10x3 (30 elements)
// CHECK:         // tgc.reduce_max over 10 elements
// CHECK:           const float {{v[0-9]+}} = in0[{{k[0-9]+}} * 3 + o1];
// CHECK:         // tgc.reduce_sum over 10 elements
// CHECK:           a{{[0-9]+}} = tgc_add(
// CHECK:         const float [[L:v[0-9]+]] = logf({{v[0-9]+}});
// CHECK-NEXT:    const float [[Y:v[0-9]+]] = ({{v[0-9]+}} - [[L]]);
// CHECK-NEXT:    out0[i] = [[Y]];
func.func @log_softmax_axis0(%x: tensor<10x3xf32>) -> tensor<10x3xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<10x3xf32>) -> tensor<10x3xf32> {
  ^bb0(%a: tensor<10x3xf32>):
    %1 = tgc.log_softmax %a {axis = 0 : i64} : tensor<10x3xf32>
    tgc.yield %1 : tensor<10x3xf32>
  }
  return %0 : tensor<10x3xf32>
}

// Over the last axis the spelled-out softmax is a row kernel.
// CHECK-LABEL: // tgc_softmax_last_0: softmax over 8x1000 (8 rows of 1000, one block per row), <<<8, 256>>>
// CHECK:         tgc_block_max(
// CHECK:         tgc_block_sum(
// PTX-LABEL:   .visible .entry tgc_softmax_last_0(
// PTX:         shfl.sync.bfly.b32
func.func @softmax_last(%x: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %0 = tgc.fusion <loop> (%x) : (tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  ^bb0(%a: tensor<8x1000xf32>):
    %1 = tgc.softmax %a {axis = 1 : i64} : tensor<8x1000xf32>
    tgc.yield %1 : tensor<8x1000xf32>
  }
  return %0 : tensor<8x1000xf32>
}

// batch_norm: per-channel operands indexed by the channel.
// CHECK-LABEL: // tgc_batch_norm_0: batch_norm over 2x3x4x4 (96 elements)
// CHECK:         const float [[X:v[0-9]+]] = in0[o0 * 48 + o1 * 16 + o2 * 4 + o3];
// CHECK-NEXT:    const float [[M:v[0-9]+]] = in3[o1];
// CHECK-NEXT:    const float [[C:v[0-9]+]] = ([[X]] - [[M]]);
// CHECK-NEXT:    const float [[V:v[0-9]+]] = in4[o1];
// CHECK-NEXT:    const float [[VE:v[0-9]+]] = ([[V]] + 0.00100000005f);
// CHECK-NEXT:    const float [[SQ:v[0-9]+]] = sqrtf([[VE]]);
// CHECK-NEXT:    const float [[INV:v[0-9]+]] = (1.0f / [[SQ]]);
// CHECK-NEXT:    const float [[N:v[0-9]+]] = ([[C]] * [[INV]]);
// CHECK-NEXT:    const float [[G:v[0-9]+]] = in1[o1];
// CHECK-NEXT:    const float [[NG:v[0-9]+]] = ([[N]] * [[G]]);
// CHECK-NEXT:    const float [[B:v[0-9]+]] = in2[o1];
// CHECK-NEXT:    const float [[Y:v[0-9]+]] = ([[NG]] + [[B]]);
// CHECK-NEXT:    out0[i] = [[Y]];
func.func @batch_norm(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %0 = tgc.fusion <loop> (%x, %s, %b, %m, %v) : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  ^bb0(%a: tensor<2x3x4x4xf32>, %sa: tensor<3xf32>, %ba: tensor<3xf32>, %ma: tensor<3xf32>, %va: tensor<3xf32>):
    %1 = tgc.batch_norm %a, %sa, %ba, %ma, %va {epsilon = 1.0e-03 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
    tgc.yield %1 : tensor<2x3x4x4xf32>
  }
  return %0 : tensor<2x3x4x4xf32>
}
