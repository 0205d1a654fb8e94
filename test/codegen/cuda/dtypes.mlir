// RUN: tgc-cuda-codegen %s | FileCheck %s
// RUN: tgc-cuda-codegen %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: tgc-cuda-codegen %s --emit=ptx --arch=sm_75 | FileCheck %s --check-prefix=SM75

// Element types: f16 and bf16 are stored as their 16-bit encodings and
// computed in f32 (cvt.rn.f16.f32, round-to-nearest-even bf16 bit
// arithmetic); i1 is one byte (0 or 1) computed as bool; integers compute
// in their own C type with wrapping arithmetic. tgc.cast, compare, select
// and the logical ops. An f16/bf16 op's result is rounded where it is
// computed, as the op alone would store it, also when the kernel reads it
// again.

// A cast to f16/bf16 rounds the value (round to nearest even) even when it
// is used again in the kernel.
// CHECK-LABEL: // tgc_cast_f32_f16_bf16_0: cast,cast over 8 (8 elements)
// CHECK-NEXT:  {{.*}}(const float *__restrict__ in0, unsigned short *__restrict__ out0, unsigned short *__restrict__ out1)
// CHECK:         const float [[X:v[0-9]+]] = in0[i];
// CHECK-NEXT:    const float [[H:v[0-9]+]] = tgc_load_f16(tgc_store_f16([[X]]));
// CHECK-NEXT:    const float [[B:v[0-9]+]] = tgc_load_bf16(tgc_store_bf16([[H]]));
// CHECK-NEXT:    out0[i] = tgc_store_f16([[H]]);
// CHECK-NEXT:    out1[i] = tgc_store_bf16([[B]]);
// PTX-LABEL:   .visible .entry tgc_cast_f32_f16_bf16_0(
// PTX:         cvt.rn.f16.f32
// SM75-LABEL:  .visible .entry tgc_cast_f32_f16_bf16_0(
func.func @cast_f32_f16_bf16(%x: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xbf16>) {
  %0:2 = tgc.fusion <loop> (%x) : (tensor<8xf32>) -> (tensor<8xf16>, tensor<8xbf16>) {
  ^bb0(%a: tensor<8xf32>):
    %1 = tgc.cast %a : tensor<8xf32> to tensor<8xf16>
    %2 = tgc.cast %1 : tensor<8xf16> to tensor<8xbf16>
    tgc.yield %1, %2 : tensor<8xf16>, tensor<8xbf16>
  }
  return %0#0, %0#1 : tensor<8xf16>, tensor<8xbf16>
}

// Float to integer saturates, NaN gives 0; to i1 is x != 0 (one byte).
// CHECK-LABEL: // tgc_cast_to_ints_0: cast,cast,cast,cast over 8 (8 elements)
// CHECK-NEXT:  {{.*}}(const float *__restrict__ in0, int *__restrict__ out0, unsigned char *__restrict__ out1, long long *__restrict__ out2, unsigned char *__restrict__ out3)
// CHECK:         const int {{v[0-9]+}} = ((int)tgc_f2s([[X:v[0-9]+]], -2147483648.0, 2147483647.0, ((long long)-2147483648LL), ((long long)2147483647LL)));
// CHECK-NEXT:    const unsigned char {{v[0-9]+}} = ((unsigned char)tgc_f2u([[X]], 256.0, 255ULL));
// CHECK-NEXT:    const long long {{v[0-9]+}} = ((long long)tgc_f2s([[X]], -9223372036854775808.0, 9223372036854775807.0, ((long long)(-9223372036854775807LL - 1)), ((long long)9223372036854775807LL)));
// CHECK-NEXT:    const bool [[B:v[0-9]+]] = ([[X]] != 0.0f);
// CHECK:         out3[i] = (unsigned char)([[B]]);
// PTX-LABEL:   .visible .entry tgc_cast_to_ints_0(
func.func @cast_to_ints(%x: tensor<8xf32>) -> (tensor<8xi32>, tensor<8xui8>, tensor<8xi64>, tensor<8xi1>) {
  %0:4 = tgc.fusion <loop> (%x) : (tensor<8xf32>) -> (tensor<8xi32>, tensor<8xui8>, tensor<8xi64>, tensor<8xi1>) {
  ^bb0(%a: tensor<8xf32>):
    %1 = tgc.cast %a : tensor<8xf32> to tensor<8xi32>
    %2 = tgc.cast %a : tensor<8xf32> to tensor<8xui8>
    %3 = tgc.cast %a : tensor<8xf32> to tensor<8xi64>
    %4 = tgc.cast %a : tensor<8xf32> to tensor<8xi1>
    tgc.yield %1, %2, %3, %4 : tensor<8xi32>, tensor<8xui8>, tensor<8xi64>, tensor<8xi1>
  }
  return %0#0, %0#1, %0#2, %0#3 : tensor<8xi32>, tensor<8xui8>, tensor<8xi64>, tensor<8xi1>
}

// Integer to integer wraps (a C conversion); i1 reads non-zero bytes as true.
// CHECK-LABEL: // tgc_cast_from_ints_0: cast,cast,cast over 8 (8 elements)
// CHECK:         const long long [[X:v[0-9]+]] = in0[i];
// CHECK-NEXT:    const float {{v[0-9]+}} = (float)[[X]];
// CHECK-NEXT:    const signed char {{v[0-9]+}} = ((signed char)[[X]]);
// CHECK-NEXT:    const bool [[M:v[0-9]+]] = (in1[i] != 0);
// CHECK-NEXT:    const float {{v[0-9]+}} = tgc_load_bf16(tgc_store_bf16((float)[[M]]));
func.func @cast_from_ints(%x: tensor<8xi64>, %m: tensor<8xi1>) -> (tensor<8xf32>, tensor<8xi8>, tensor<8xbf16>) {
  %0:3 = tgc.fusion <loop> (%x, %m) : (tensor<8xi64>, tensor<8xi1>) -> (tensor<8xf32>, tensor<8xi8>, tensor<8xbf16>) {
  ^bb0(%a: tensor<8xi64>, %b: tensor<8xi1>):
    %1 = tgc.cast %a : tensor<8xi64> to tensor<8xf32>
    %2 = tgc.cast %a : tensor<8xi64> to tensor<8xi8>
    %3 = tgc.cast %b : tensor<8xi1> to tensor<8xbf16>
    tgc.yield %1, %2, %3 : tensor<8xf32>, tensor<8xi8>, tensor<8xbf16>
  }
  return %0#0, %0#1, %0#2 : tensor<8xf32>, tensor<8xi8>, tensor<8xbf16>
}

// compare (f16, broadcast), logical ops on i1, select with an f16 splat.
// CHECK-LABEL: // tgc_mask_0: compare,logical_not,logical_and,select over 4x8 (32 elements)
// CHECK:         const float [[A:v[0-9]+]] = tgc_load_f16(in0[o0 * 8 + o1]);
// CHECK-NEXT:    const float [[B:v[0-9]+]] = tgc_load_f16(in1[o1]);
// CHECK-NEXT:    const bool [[LT:v[0-9]+]] = ([[A]] < [[B]]);
// CHECK-NEXT:    const bool [[C:v[0-9]+]] = (in2[o0 * 8 + o1] != 0);
// CHECK-NEXT:    const bool [[N:v[0-9]+]] = (![[C]]);
// CHECK-NEXT:    const bool [[AND:v[0-9]+]] = ([[LT]] && [[N]]);
// CHECK-NEXT:    const float [[S:v[0-9]+]] = tgc_load_f16(tgc_store_f16(([[AND]] ? [[A]] : -65504.0f)));
// CHECK-NEXT:    out0[i] = tgc_store_f16([[S]]);
// PTX-LABEL:   .visible .entry tgc_mask_0(
func.func @mask(%x: tensor<4x8xf16>, %y: tensor<8xf16>, %c: tensor<4x8xi1>) -> tensor<4x8xf16> {
  %0 = tgc.fusion <loop> (%x, %y, %c) : (tensor<4x8xf16>, tensor<8xf16>, tensor<4x8xi1>) -> tensor<4x8xf16> {
  ^bb0(%a: tensor<4x8xf16>, %b: tensor<8xf16>, %cc: tensor<4x8xi1>):
    %1 = tgc.compare lt, %a, %b : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xi1>
    %2 = tgc.logical_not %cc : tensor<4x8xi1>
    %3 = tgc.logical_and %1, %2 : tensor<4x8xi1>
    %fill = tgc.constant dense<-6.550400e+04> : tensor<f16>
    %4 = tgc.select %3, %a, %fill : (tensor<4x8xi1>, tensor<4x8xf16>, tensor<f16>) -> tensor<4x8xf16>
    tgc.yield %4 : tensor<4x8xf16>
  }
  return %0 : tensor<4x8xf16>
}

// Wrapping integer arithmetic (through unsigned 64 bits); integer
// constants as a __device__ array.
// CHECK-LABEL: // tgc_integers_0: mul,add,abs,max over 6 (6 elements)
// CHECK-NEXT:  __device__ const int tgc_integers_0_c0[6] = {1, -2, 3, -4, 5, ((int)-2147483648LL)};
// CHECK:         const int [[P:v[0-9]+]] = ((int)((unsigned long long){{v[0-9]+}} * (unsigned long long){{v[0-9]+}}));
// CHECK:         const int [[S:v[0-9]+]] = ((int)((unsigned long long)[[P]] + (unsigned long long)[[Y:v[0-9]+]]));
// CHECK-NEXT:    const int [[A:v[0-9]+]] = ([[S]] < 0 ? ((int)(0ULL - (unsigned long long)[[S]])) : [[S]]);
// CHECK-NEXT:    const int [[M:v[0-9]+]] = ([[A]] < [[Y]] ? [[Y]] : [[A]]);
// CHECK-NEXT:    out0[i] = [[M]];
// PTX-LABEL:   .visible .entry tgc_integers_0(
func.func @integers(%x: tensor<6xi32>, %y: tensor<6xi32>) -> tensor<6xi32> {
  %0 = tgc.fusion <loop> (%x, %y) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32> {
  ^bb0(%a: tensor<6xi32>, %b: tensor<6xi32>):
    %k = tgc.constant dense<[1, -2, 3, -4, 5, -2147483648]> : tensor<6xi32>
    %1 = tgc.mul %a, %k : tensor<6xi32>
    %2 = tgc.add %1, %b : tensor<6xi32>
    %3 = tgc.abs %2 : tensor<6xi32>
    %4 = tgc.max %3, %b : tensor<6xi32>
    tgc.yield %4 : tensor<6xi32>
  }
  return %0 : tensor<6xi32>
}

// CHECK-LABEL: // tgc_sin_bf16_0: sin over 8 (8 elements)
// CHECK:         const float [[X:v[0-9]+]] = tgc_load_bf16(in0[i]);
// CHECK-NEXT:    const float [[Y:v[0-9]+]] = tgc_load_bf16(tgc_store_bf16(sinf([[X]])));
// CHECK-NEXT:    out0[i] = tgc_store_bf16([[Y]]);
// PTX-LABEL:   .visible .entry tgc_sin_bf16_0(
// SM75-LABEL:  .visible .entry tgc_sin_bf16_0(
func.func @sin_bf16(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = tgc.fusion <loop> (%x) : (tensor<8xbf16>) -> tensor<8xbf16> {
  ^bb0(%a: tensor<8xbf16>):
    %1 = tgc.sin %a : tensor<8xbf16>
    tgc.yield %1 : tensor<8xbf16>
  }
  return %0 : tensor<8xbf16>
}
