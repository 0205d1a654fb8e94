// `tgc-opt --tgc-cpu` prints exactly what the cpu backend plans kernels from:
// the function tgc-run compiles, specialized and lowered (--print-lowered),
// is the pipeline's output (the backend runs no C++ step outside it).
//
// RUN: tgc-opt --tgc-cpu %s > %t.opt
// RUN: tgc-run %s --compile-only --print-lowered > %t.run
// RUN: diff -B %t.opt %t.run
// RUN: FileCheck %s < %t.opt
//
// The variants are pipeline options; tgc-cpu-unfused is tgc-cpu{fuse=false}.
// RUN: tgc-opt --tgc-cpu=fuse=false %s > %t.unfused
// RUN: tgc-opt --tgc-cpu-unfused %s | diff - %t.unfused
// RUN: tgc-run %s --compile-only --print-lowered --pipeline=tgc-cpu-unfused | diff -B - %t.unfused
// RUN: FileCheck %s --check-prefix=UNFUSED < %t.unfused
//
// The backend honours the pass manager's options.
// RUN: tgc-run %s --compile-only --mlir-print-ir-after=tgc-cpu-inline-fusions 2>&1 | FileCheck %s --check-prefix=AFTER

// CHECK-LABEL: func.func @block
// The convolution runs in NHWC (transposes at the boundary); the batch norm
// (its statistics are arguments, not constants) stays; ReLU, the residual
// add, the layout change back, the reshape, exp and tanh are one loop kernel.
// CHECK: %[[X:.*]] = tgc.transpose %arg0
// CHECK: %[[C:.*]] = tgc.conv2d {{.*}}layout = #tgc.layout<NHWC>
// CHECK: %[[N:.*]] = tgc.batch_norm %[[C]]
// CHECK: %[[L:.*]] = tgc.fusion <loop>(%[[N]], %[[X]])
// CHECK: tgc.relu
// CHECK: tgc.add
// CHECK: tgc.exp
// CHECK: tgc.tanh
// CHECK: tgc.yield
// CHECK: tgc.softmax %[[L]]
// CHECK: return

// UNFUSED-LABEL: func.func @block
// UNFUSED-NOT: tgc.fusion
// UNFUSED: tgc.conv2d
// UNFUSED: tgc.batch_norm

// AFTER: IR Dump After TgcCpuInlineFusions (tgc-cpu-inline-fusions)
// AFTER: func.func @block
func.func @block(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x64xf32> {
  %c = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %n = tgc.batch_norm %c, %s, %b, %m, %v {epsilon = 1.0e-05 : f64} : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = tgc.relu %n : tensor<1x8x8x8xf32>
  %a = tgc.add %r, %x : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %f = tgc.reshape %a : tensor<1x8x8x8xf32> to tensor<1x8x64xf32>
  %e = tgc.exp %f : tensor<1x8x64xf32>
  %t = tgc.tanh %e : tensor<1x8x64xf32>
  %sm = tgc.softmax %t {axis = 2 : i64} : tensor<1x8x64xf32>
  return %sm : tensor<1x8x64xf32>
}
