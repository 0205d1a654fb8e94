// Casts from and to the types without native arithmetic (i16, the unsigned
// integers) run on the CPU backend's native cast kernel, with the reference
// interpreter's conversions: floats truncate and saturate (NaN is 0),
// integers wrap. QDQ models quantize through f32 -> ui8 and back.
// RUN: tgc-run %s --input=10xf32=-1,0,0.5,1.9,254.9,255.5,256,1e10,nan,-inf --input=6xi64=-1,0,255,256,-300,4294967297 | FileCheck %s
// RUN: tgc-run %s --input=10xf32=-1,0,0.5,1.9,254.9,255.5,256,1e10,nan,-inf --input=6xi64=-1,0,255,256,-300,4294967297 --backend=reference | FileCheck %s
// CHECK: result #0: tensor<10xui8> = [0, 0, 0, 1, 254, 255, 255, 255, 0, 0]
// CHECK: result #1: tensor<10xf32> = [0, 0, 0, 1, 254, 255, 255, 255, 0, 0]
// CHECK: result #2: tensor<10xui16> = [0, 0, 0, 1, 254, 255, 256, 65535, 0, 0]
// CHECK: result #3: tensor<10xi16> = [-1, 0, 0, 1, 254, 255, 256, 32767, 0, -32768]
// CHECK: result #4: tensor<6xui8> = [255, 0, 255, 0, 212, 1]
// CHECK: result #5: tensor<6xui32> = [4294967295, 0, 255, 256, 4294966996, 1]
// CHECK: result #6: tensor<6xf32> = [4.29497e+09, 0, 255, 256, 4.29497e+09, 1]
// CHECK: result #7: tensor<10xui64> = [0, 0, 0, 1, 254, 255, 256, 10000000000, 0, 0]
// RUN: tgc-run %s --input=10xf32=0 --input=6xi64=0 --print-plan --compile-only | FileCheck %s --check-prefix=PLAN
// PLAN-COUNT-8: native tgc.cast
// PLAN: fallback to the reference path: 0 ops
//
// Large enough to run on the threads, against the reference.
// RUN: tgc-run %s --function=big --seed=3 --differential | FileCheck %s --check-prefix=BIG
// BIG: differential: 1 functions, 0 mismatches
func.func @main(%x: tensor<10xf32>, %y: tensor<6xi64>) -> (tensor<10xui8>, tensor<10xf32>, tensor<10xui16>, tensor<10xi16>, tensor<6xui8>, tensor<6xui32>, tensor<6xf32>, tensor<10xui64>) {
  %0 = tgc.cast %x : tensor<10xf32> to tensor<10xui8>
  %1 = tgc.cast %0 : tensor<10xui8> to tensor<10xf32>
  %2 = tgc.cast %x : tensor<10xf32> to tensor<10xui16>
  %3 = tgc.cast %x : tensor<10xf32> to tensor<10xi16>
  %4 = tgc.cast %y : tensor<6xi64> to tensor<6xui8>
  %5 = tgc.cast %y : tensor<6xi64> to tensor<6xui32>
  %6 = tgc.cast %5 : tensor<6xui32> to tensor<6xf32>
  %7 = tgc.cast %x : tensor<10xf32> to tensor<10xui64>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<10xui8>, tensor<10xf32>, tensor<10xui16>, tensor<10xi16>, tensor<6xui8>, tensor<6xui32>, tensor<6xf32>, tensor<10xui64>
}

func.func @big(%x: tensor<300x300xf32>) -> (tensor<300x300xui8>, tensor<300x300xf32>, tensor<300x300xbf16>) {
  %c = tgc.constant dense<200.0> : tensor<f32>
  %s = tgc.mul %x, %c : (tensor<300x300xf32>, tensor<f32>) -> tensor<300x300xf32>
  %0 = tgc.cast %s : tensor<300x300xf32> to tensor<300x300xui8>
  %1 = tgc.cast %0 : tensor<300x300xui8> to tensor<300x300xf32>
  %2 = tgc.cast %s : tensor<300x300xf32> to tensor<300x300xi16>
  %3 = tgc.cast %2 : tensor<300x300xi16> to tensor<300x300xbf16>
  return %0, %1, %3 : tensor<300x300xui8>, tensor<300x300xf32>, tensor<300x300xbf16>
}
