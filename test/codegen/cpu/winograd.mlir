// Winograd convolutions (CompileOptions::winograd, TGC_WINOGRAD): f32 3x3
// stride-1 undilated ungrouped convolutions with at least 32 input and
// output channels run on oneDNN's Winograd kernels, which take nChw16c
// activations, so a function with one in a chain of convolutions and
// pools gets blocked layouts (the default ActivationLayouts::Auto). Results match the reference interpreter with
// and without it. Filters are constants (folded by tgc-cleanup from
// a few small ones): oneDNN prepacks them into its Winograd layout.
// RUN: tgc-run --differential %s | FileCheck %s
// RUN: tgc-run --differential --threads=1 --seed=5 %s | FileCheck %s
// RUN: env TGC_WINOGRAD=0 tgc-run --differential %s | FileCheck %s
// RUN: tgc-run %s --function=chain --print-plan | FileCheck %s --check-prefix=%if cpu-winograd %{CHAIN%} %else %{OFF%}
// RUN: tgc-run %s --function=not_candidates --print-plan | FileCheck %s --check-prefix=%if cpu-winograd %{NOT%} %else %{OFF%}
// RUN: tgc-run %s --function=dynamic_batch --input=3x32x8x8xf32=0.5 --print-plan | FileCheck %s --check-prefix=%if cpu-winograd %{DYNAMIC%} %else %{OFF%}
// RUN: tgc-run %s --function=shapes --print-plan | FileCheck %s --check-prefix=%if cpu-winograd %{SHAPES%} %else %{OFF%}
// RUN: tgc-run %s --function=before_concat --print-plan | FileCheck %s --check-prefix=OFF
// RUN: env TGC_WINOGRAD=0 tgc-run %s --function=chain --print-plan | FileCheck %s --check-prefix=OFF
// RUN: env TGC_BLOCKED_LAYOUTS=0 tgc-run %s --function=chain --print-plan | FileCheck %s --check-prefix=OFF
// Without AVX-512 (an AVX2 machine, or oneDNN capped at AVX2), tgc's own
// F(2x2, 3x3) kernel runs the candidates with at least 64 channels and 48
// output tiles, in plain NHWC.
// RUN: env DNNL_MAX_CPU_ISA=AVX2 tgc-run --differential %s | FileCheck %s
// RUN: env DNNL_MAX_CPU_ISA=AVX2 tgc-run --differential --threads=1 --seed=9 %s | FileCheck %s
// RUN: env DNNL_MAX_CPU_ISA=AVX2 tgc-run %s --function=native --print-plan | FileCheck %s --check-prefix=NATIVE
// RUN: env DNNL_MAX_CPU_ISA=AVX2 TGC_WINOGRAD=0 tgc-run %s --function=native --print-plan | FileCheck %s --check-prefix=NATIVE-OFF

// CHECK-DAG: @chain: ok
// CHECK-DAG: @not_candidates: ok
// CHECK-DAG: @dynamic_batch: ok
// CHECK-DAG: @shapes: ok
// CHECK-DAG: @before_concat: ok
// CHECK-DAG: @native: ok
// CHECK: differential: 6 functions, 0 mismatches

// Both 3x3 convolutions on Winograd kernels in nChw16c, the 1x1 one (with
// the residual add, also blocked) on the direct kernel; reorders only at
// the boundaries.
// CHAIN:     layout reorder nhwc -> nChw16c
// CHAIN:     tgc.conv2d + bias + eltwise_relu [nChw16c -> nChw16c]{{.*}}[onednn.conv2d.winograd]
// CHAIN:     tgc.conv2d + eltwise_relu [nChw16c -> nChw16c]{{.*}}[onednn.conv2d.winograd]
// CHAIN:     binary_add + eltwise_relu [nChw16c -> nChw16c]{{.*}}[onednn.conv2d]
// CHAIN:     layout reorder nChw16c -> nhwc
// CHAIN-NOT: layout reorder

// One candidate (after a 1x1 convolution, before convolutions only: a
// chain); stride 2, dilation 2, 2 groups and 16 channels stay direct.
// NOT:     [onednn.conv2d.winograd]
// NOT-NOT: onednn.conv2d.winograd

// A chain at any batch size; a lone candidate between plain values stays
// plain and direct (reorders in and out would cost what Winograd saves).
// Two of the three candidates write only to convolutions: blocked layouts.
// DYNAMIC:     layout reorder nhwc -> nChw16c
// DYNAMIC:     tgc.conv2d [nChw16c -> nChw16c]{{.*}}[onednn.conv2d]
// DYNAMIC:     tgc.conv2d + bias + eltwise_relu [nChw16c -> nChw16c]{{.*}}[onednn.conv2d.winograd]
// DYNAMIC:     tgc.conv2d [nChw16c -> nChw16c]{{.*}}[onednn.conv2d.winograd]
// DYNAMIC:     tgc.conv2d [nChw16c -> nChw16c]{{.*}}[onednn.conv2d]
// DYNAMIC:     layout reorder nChw16c -> nhwc
// DYNAMIC-NOT: layout reorder
// DYNAMIC:     tgc.conv2d{{.*}}[onednn.conv2d]
// DYNAMIC-NOT: layout reorder

// oneDNN's Winograd kernels take no clamp post-op and no asymmetric
// padding: those run on its direct kernel, still in nChw16c.
// SHAPES:      tgc.conv2d + eltwise_clip [nChw16c -> nChw16c]{{.*}}[onednn.conv2d]
// SHAPES-NEXT: tgc.conv2d [nChw16c -> nChw16c]{{.*}}[onednn.conv2d.winograd]
// SHAPES-NEXT: tgc.conv2d [nChw16c -> nChw16c]{{.*}}[onednn.conv2d]
// SHAPES:      tgc.conv2d [nChw16c -> nChw16c]{{.*}}-> tensor<2x5x10x40xf32> (nChw16c) [onednn.conv2d.winograd]

// Off, plain layouts, (before_concat) candidates writing to a concat, as
// in DenseNet and Inception blocks (reorders back to NHWC would cost what
// Winograd saves), or an ISA without Winograd kernels (oneDNN 2.6 has them
// only for AVX-512; `DNNL_MAX_CPU_ISA=AVX2`): the function stays plain.
// OFF-NOT: onednn.conv2d.winograd
// OFF-NOT: nChw
func.func @chain(%x: tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32> {
  %wao = tgc.constant dense<[-1.06, -2.09, 0.91, -2.57, 0.22, -0.81, -2.65, 0.04, -2.78, -0.40, -2.58, -2.46, -0.45, 1.96, -2.26, -1.66, 0.76, 2.69, 0.46, -0.62, 2.86, -2.72, 2.15, -1.26, -2.13, -2.29, -1.15, 1.90, -1.92, 0.49, 0.83, -0.77]> : tensor<32xf32>
  %wai = tgc.constant dense<[0.29, -2.62, -2.64, -1.76, 1.08, -0.43, -1.12, 0.51, -0.28, -1.20, 1.77, 1.19, -1.54, 0.45, 0.15, 2.25, 1.38, -1.27, 2.88, -2.29, -0.49, 1.54, -2.09, -0.07, -2.76, 1.01, 1.59, 0.44, 2.25, -1.12, 1.17, 0.57]> : tensor<32xf32>
  %wak = tgc.constant dense<[0.48, -0.26, 2.04, 2.67, -0.16, 0.98, -2.64, 1.21, 0.88]> : tensor<9xf32>
  %wa0 = tgc.reshape %wao : tensor<32xf32> to tensor<32x1x1x1xf32>
  %wa1 = tgc.reshape %wai : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wa2 = tgc.reshape %wak : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wa3 = tgc.add %wa0, %wa1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %wa4 = tgc.add %wa3, %wa2 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %wa5 = tgc.sin %wa4 : tensor<32x32x3x3xf32>
  %wa6 = tgc.constant dense<0.0722> : tensor<f32>
  %wa = tgc.mul %wa5, %wa6 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %ba = tgc.constant dense<[0.99, 0.64, -0.43, -0.23, 0.34, -0.95, -0.08, -0.66, -0.77, -0.88, 0.54, -0.74, -0.50, -0.22, 0.74, -0.84, -0.10, 0.10, 0.77, 0.64, 0.73, -0.44, -0.17, -0.28, 0.77, 0.92, -0.70, -0.65, -0.54, -0.53, -0.03, 0.18]> : tensor<32xf32>
  %wbo = tgc.constant dense<[-1.42, -2.98, -0.49, -0.78, 0.40, 2.72, 1.14, 0.09, 0.71, 1.06, -2.68, 2.40, 1.68, 2.25, 1.79, -0.65, -0.61, -2.38, 0.81, -2.63, -2.60, -1.75, -2.03, -0.96, -2.68, -3.00, -2.09, -2.39, -0.82, -2.85, 2.25, 0.68, -2.11, -1.49, -0.92, -0.82, -2.26, 2.09, 2.96, -0.20, -0.10, -2.48, -2.39, -0.94, -1.41, 1.97, -2.03, -2.86]> : tensor<48xf32>
  %wbi = tgc.constant dense<[2.71, 0.17, -2.12, 0.26, -2.84, 0.17, 2.87, 2.18, 1.18, -1.43, -0.80, -2.00, 1.63, 0.20, 1.67, -1.02, -1.66, 1.87, 2.91, 2.12, 1.84, 1.91, 1.44, -1.64, 0.11, -0.87, -2.83, -2.83, -1.32, -1.44, 1.16, 2.74]> : tensor<32xf32>
  %wbk = tgc.constant dense<[-0.32, 2.62, 2.93, 2.73, -0.81, -1.68, -1.64, -1.82, -1.77]> : tensor<9xf32>
  %wb0 = tgc.reshape %wbo : tensor<48xf32> to tensor<48x1x1x1xf32>
  %wb1 = tgc.reshape %wbi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wb2 = tgc.reshape %wbk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wb3 = tgc.add %wb0, %wb1 : (tensor<48x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<48x32x1x1xf32>
  %wb4 = tgc.add %wb3, %wb2 : (tensor<48x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<48x32x3x3xf32>
  %wb5 = tgc.sin %wb4 : tensor<48x32x3x3xf32>
  %wb6 = tgc.constant dense<0.0722> : tensor<f32>
  %wb = tgc.mul %wb5, %wb6 : (tensor<48x32x3x3xf32>, tensor<f32>) -> tensor<48x32x3x3xf32>
  %wco = tgc.constant dense<[0.74, 2.40, 2.04, -0.12, 0.92, 1.80, -2.49, 0.96, 2.46, 1.69, 1.50, -0.13, -1.93, 1.73, -1.00, 1.80, 2.83, -0.62, -0.59, 2.68, 1.35, -1.98, -2.24, -2.09, 2.43, 1.84, -2.12, 1.96, 2.88, 0.94, -0.90, 0.29]> : tensor<32xf32>
  %wci = tgc.constant dense<[-2.21, -2.91, 2.83, 0.90, 0.16, 2.60, -0.40, 2.23, 1.96, -1.73, -1.49, -1.24, -1.56, 0.52, -1.44, -0.49, -2.21, 2.46, -0.88, -0.25, 0.50, 2.43, -0.48, 2.51, 0.01, 0.19, 0.14, -2.89, -0.36, -1.90, -2.98, 1.80, -1.97, -0.16, 1.35, 0.34, -1.04, 0.11, 0.33, 1.71, -2.36, 0.36, -1.51, -1.34, 1.63, 0.05, 0.37, 1.56]> : tensor<48xf32>
  %wck = tgc.constant dense<[2.47]> : tensor<1xf32>
  %wc0 = tgc.reshape %wco : tensor<32xf32> to tensor<32x1x1x1xf32>
  %wc1 = tgc.reshape %wci : tensor<48xf32> to tensor<1x48x1x1xf32>
  %wc2 = tgc.reshape %wck : tensor<1xf32> to tensor<1x1x1x1xf32>
  %wc3 = tgc.add %wc0, %wc1 : (tensor<32x1x1x1xf32>, tensor<1x48x1x1xf32>) -> tensor<32x48x1x1xf32>
  %wc4 = tgc.add %wc3, %wc2 : (tensor<32x48x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<32x48x1x1xf32>
  %wc5 = tgc.sin %wc4 : tensor<32x48x1x1xf32>
  %wc6 = tgc.constant dense<0.1768> : tensor<f32>
  %wc = tgc.mul %wc5, %wc6 : (tensor<32x48x1x1xf32>, tensor<f32>) -> tensor<32x48x1x1xf32>
  %0 = tgc.conv2d %x, %wa, %ba {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x10x10xf32>, tensor<32x32x3x3xf32>, tensor<32xf32>) -> tensor<1x32x10x10xf32>
  %1 = tgc.relu %0 : tensor<1x32x10x10xf32>
  %2 = tgc.conv2d %1, %wb {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x10x10xf32>, tensor<48x32x3x3xf32>) -> tensor<1x48x10x10xf32>
  %3 = tgc.relu %2 : tensor<1x48x10x10xf32>
  %4 = tgc.conv2d %3, %wc : (tensor<1x48x10x10xf32>, tensor<32x48x1x1xf32>) -> tensor<1x32x10x10xf32>
  %5 = tgc.add %4, %1 : (tensor<1x32x10x10xf32>, tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32>
  %6 = tgc.relu %5 : tensor<1x32x10x10xf32>
  return %6 : tensor<1x32x10x10xf32>
}

// -----

func.func @not_candidates(%x: tensor<1x32x12x12xf32>) -> (tensor<1x32x6x6xf32>, tensor<1x32x12x12xf32>, tensor<1x32x12x12xf32>, tensor<1x16x12x12xf32>) {
  %wqo = tgc.constant dense<[-0.34, 0.68, 0.03, 0.07, 1.16, -0.29, 0.20, -0.13, 2.65, 1.20, 2.26, 2.65, -1.44, 0.36, 2.66, 2.04, -2.18, -2.27, -0.35, -2.56, -1.56, -2.56, 1.02, 1.70, 2.38, -2.07, 1.30, 0.96, -2.14, 2.30, 2.81, -1.68]> : tensor<32xf32>
  %wqi = tgc.constant dense<[2.72, -0.61, -0.08, 2.94, 1.99, -2.03, -0.41, 0.09, -0.97, -1.83, -1.09, 1.33, -2.88, 0.32, -0.36, -2.89, -1.01, 0.74, 0.07, -2.61, 2.91, 1.73, 2.83, -2.37, -1.41, -2.76, 1.67, -1.38, -2.22, -0.47, 2.47, 1.91]> : tensor<32xf32>
  %wqk = tgc.constant dense<[-1.45]> : tensor<1xf32>
  %wq0 = tgc.reshape %wqo : tensor<32xf32> to tensor<32x1x1x1xf32>
  %wq1 = tgc.reshape %wqi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wq2 = tgc.reshape %wqk : tensor<1xf32> to tensor<1x1x1x1xf32>
  %wq3 = tgc.add %wq0, %wq1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %wq4 = tgc.add %wq3, %wq2 : (tensor<32x32x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<32x32x1x1xf32>
  %wq5 = tgc.sin %wq4 : tensor<32x32x1x1xf32>
  %wq6 = tgc.constant dense<0.2165> : tensor<f32>
  %wq = tgc.mul %wq5, %wq6 : (tensor<32x32x1x1xf32>, tensor<f32>) -> tensor<32x32x1x1xf32>
  %w0o = tgc.constant dense<[-2.10, 2.52, 0.42, 1.20, -2.46, -2.65, 1.13, -0.45, -2.57, 2.63, 0.81, 1.81, -2.50, 2.14, -2.60, 2.18, -0.28, -0.97, 0.32, 2.56, -1.39, -2.22, 0.16, -1.57, -2.34, -2.03, -2.70, -1.79, -1.13, -1.17, 1.56, -1.26]> : tensor<32xf32>
  %w0i = tgc.constant dense<[0.00, -1.93, -0.92, -2.89, -1.50, -2.91, 1.40, 0.31, -1.86, -0.15, 2.61, -2.36, 1.91, -0.41, -0.03, 2.01, -0.64, 0.04, 1.13, 2.89, -0.94, 1.99, 1.24, 0.82, -0.57, -0.91, -2.67, -2.22, -2.58, 1.45, -1.47, -2.02]> : tensor<32xf32>
  %w0k = tgc.constant dense<[-2.49, 2.05, 2.22, 1.02, -1.31, -1.55, -1.24, -0.24, -2.05]> : tensor<9xf32>
  %w00 = tgc.reshape %w0o : tensor<32xf32> to tensor<32x1x1x1xf32>
  %w01 = tgc.reshape %w0i : tensor<32xf32> to tensor<1x32x1x1xf32>
  %w02 = tgc.reshape %w0k : tensor<9xf32> to tensor<1x1x3x3xf32>
  %w03 = tgc.add %w00, %w01 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %w04 = tgc.add %w03, %w02 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %w05 = tgc.sin %w04 : tensor<32x32x3x3xf32>
  %w06 = tgc.constant dense<0.0722> : tensor<f32>
  %w0 = tgc.mul %w05, %w06 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %wso = tgc.constant dense<[-0.33, -1.42, 2.77, 2.84, 0.28, -1.53, 2.79, -1.14, -0.86, -2.99, -0.71, -0.15, 0.02, -1.79, 0.03, -2.97, -1.41, -2.46, -0.60, -2.75, -2.87, -1.17, -1.60, 0.51, 0.18, 1.50, 0.95, 1.30, 2.27, -0.66, -1.04, 2.91]> : tensor<32xf32>
  %wsi = tgc.constant dense<[-2.10, 1.34, 0.86, -2.74, 2.01, 2.35, 0.76, 1.40, 1.87, -2.16, 0.14, 0.03, 2.01, 1.83, 1.96, 0.50, 2.36, 1.10, 1.16, -1.62, -2.81, -2.20, -0.84, -2.37, 2.01, 0.35, 0.77, 0.76, 1.08, -0.06, -2.98, 1.79]> : tensor<32xf32>
  %wsk = tgc.constant dense<[1.49, 0.02, 0.21, 0.96, -2.60, 1.42, -1.49, -2.55, -1.41]> : tensor<9xf32>
  %ws0 = tgc.reshape %wso : tensor<32xf32> to tensor<32x1x1x1xf32>
  %ws1 = tgc.reshape %wsi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %ws2 = tgc.reshape %wsk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %ws3 = tgc.add %ws0, %ws1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %ws4 = tgc.add %ws3, %ws2 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %ws5 = tgc.sin %ws4 : tensor<32x32x3x3xf32>
  %ws6 = tgc.constant dense<0.0722> : tensor<f32>
  %ws = tgc.mul %ws5, %ws6 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %wdo = tgc.constant dense<[1.38, -1.77, 1.44, 2.85, -0.04, -0.70, -0.13, 1.10, 1.60, 0.70, 0.86, -2.54, -2.12, -1.48, 1.46, -1.17, 0.41, -2.93, -2.64, -1.39, 1.03, 1.15, 1.05, -1.25, 0.10, -0.21, -0.20, -2.29, 2.36, -1.80, 2.87, 2.62]> : tensor<32xf32>
  %wdi = tgc.constant dense<[-2.89, -0.25, 1.92, 2.81, -0.30, -1.39, -1.74, 2.67, -1.74, 0.49, -2.15, 0.14, 2.72, -2.20, 1.92, 0.05, 2.32, 1.22, -1.61, 2.39, -0.08, -2.85, -2.98, -0.05, -0.30, -1.19, -2.16, -0.94, -1.10, 2.04, -2.99, 1.50]> : tensor<32xf32>
  %wdk = tgc.constant dense<[2.03, -2.28, 2.56, 1.28, 2.41, -1.26, -0.77, -0.64, 2.99]> : tensor<9xf32>
  %wd0 = tgc.reshape %wdo : tensor<32xf32> to tensor<32x1x1x1xf32>
  %wd1 = tgc.reshape %wdi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wd2 = tgc.reshape %wdk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wd3 = tgc.add %wd0, %wd1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %wd4 = tgc.add %wd3, %wd2 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %wd5 = tgc.sin %wd4 : tensor<32x32x3x3xf32>
  %wd6 = tgc.constant dense<0.0722> : tensor<f32>
  %wd = tgc.mul %wd5, %wd6 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %wgo = tgc.constant dense<[0.54, -0.84, -0.43, -1.35, -2.71, -2.39, 2.01, -1.29, 2.61, -1.50, -1.41, 0.07, -1.86, -0.76, 2.74, 2.31, 1.87, 0.79, 2.48, 2.64, 0.30, 1.32, -2.70, 1.39, -0.29, 1.52, 0.87, -1.28, -2.71, 2.56, -2.24, -0.17]> : tensor<32xf32>
  %wgi = tgc.constant dense<[-0.94, -1.21, 1.43, 2.86, -1.44, 0.94, -1.19, 0.34, -0.63, -2.00, -2.03, -1.75, 2.44, -0.02, -1.68, 2.44]> : tensor<16xf32>
  %wgk = tgc.constant dense<[2.98, -0.30, -2.16, -1.85, -2.46, -0.95, -2.45, -1.57, -1.45]> : tensor<9xf32>
  %wg0 = tgc.reshape %wgo : tensor<32xf32> to tensor<32x1x1x1xf32>
  %wg1 = tgc.reshape %wgi : tensor<16xf32> to tensor<1x16x1x1xf32>
  %wg2 = tgc.reshape %wgk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wg3 = tgc.add %wg0, %wg1 : (tensor<32x1x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<32x16x1x1xf32>
  %wg4 = tgc.add %wg3, %wg2 : (tensor<32x16x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x16x3x3xf32>
  %wg5 = tgc.sin %wg4 : tensor<32x16x3x3xf32>
  %wg6 = tgc.constant dense<0.1021> : tensor<f32>
  %wg = tgc.mul %wg5, %wg6 : (tensor<32x16x3x3xf32>, tensor<f32>) -> tensor<32x16x3x3xf32>
  %wpo = tgc.constant dense<[0.42, 2.32, 1.50, -0.52, -0.52, 0.15, -0.74, -0.97, -2.63, -1.33, 2.81, -2.24, 0.02, 0.78, 2.18, -1.70]> : tensor<16xf32>
  %wpi = tgc.constant dense<[-1.37, -1.51, -0.60, -0.32, 2.72, 2.09, 2.24, -2.87, -2.81, 1.26, 2.37, -0.16, 0.52, -3.00, -0.65, 2.56, 1.95, 2.13, 2.83, -1.51, -2.35, -2.07, 0.13, 1.09, 2.65, 1.33, 0.88, 1.59, -0.26, 0.31, -2.76, 1.69]> : tensor<32xf32>
  %wpk = tgc.constant dense<[-1.60]> : tensor<1xf32>
  %wp0 = tgc.reshape %wpo : tensor<16xf32> to tensor<16x1x1x1xf32>
  %wp1 = tgc.reshape %wpi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wp2 = tgc.reshape %wpk : tensor<1xf32> to tensor<1x1x1x1xf32>
  %wp3 = tgc.add %wp0, %wp1 : (tensor<16x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<16x32x1x1xf32>
  %wp4 = tgc.add %wp3, %wp2 : (tensor<16x32x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<16x32x1x1xf32>
  %wp5 = tgc.sin %wp4 : tensor<16x32x1x1xf32>
  %wp6 = tgc.constant dense<0.2165> : tensor<f32>
  %wp = tgc.mul %wp5, %wp6 : (tensor<16x32x1x1xf32>, tensor<f32>) -> tensor<16x32x1x1xf32>
  %wno = tgc.constant dense<[2.52, 0.87, -1.18, -2.23, -1.49, 0.82, 1.19, -2.33, -2.58, 0.15, 0.50, -0.67, -1.66, 0.61, -2.94, -1.19]> : tensor<16xf32>
  %wni = tgc.constant dense<[-0.24, 2.75, 0.87, 2.30, -0.15, -1.59, -1.52, 2.76, 1.23, -1.16, -2.87, -0.01, 1.05, -0.48, -1.46, 1.00]> : tensor<16xf32>
  %wnk = tgc.constant dense<[2.55, -1.64, -2.80, -0.97, -0.48, 1.10, -1.81, 1.78, 1.43]> : tensor<9xf32>
  %wn0 = tgc.reshape %wno : tensor<16xf32> to tensor<16x1x1x1xf32>
  %wn1 = tgc.reshape %wni : tensor<16xf32> to tensor<1x16x1x1xf32>
  %wn2 = tgc.reshape %wnk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wn3 = tgc.add %wn0, %wn1 : (tensor<16x1x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<16x16x1x1xf32>
  %wn4 = tgc.add %wn3, %wn2 : (tensor<16x16x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<16x16x3x3xf32>
  %wn5 = tgc.sin %wn4 : tensor<16x16x3x3xf32>
  %wn6 = tgc.constant dense<0.1021> : tensor<f32>
  %wn = tgc.mul %wn5, %wn6 : (tensor<16x16x3x3xf32>, tensor<f32>) -> tensor<16x16x3x3xf32>
  %q = tgc.conv2d %x, %wq : (tensor<1x32x12x12xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x12x12xf32>
  %0 = tgc.conv2d %q, %w0 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x12x12xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x12x12xf32>
  %1 = tgc.conv2d %0, %ws {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x32x12x12xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x6x6xf32>
  %2 = tgc.conv2d %0, %wd {padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>} : (tensor<1x32x12x12xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x12x12xf32>
  %3 = tgc.conv2d %0, %wg {padding = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : (tensor<1x32x12x12xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x12x12xf32>
  %4 = tgc.conv2d %0, %wp : (tensor<1x32x12x12xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x12x12xf32>
  %5 = tgc.conv2d %4, %wn {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x12x12xf32>
  return %1, %2, %3, %5 : tensor<1x32x6x6xf32>, tensor<1x32x12x12xf32>, tensor<1x32x12x12xf32>, tensor<1x16x12x12xf32>
}

// -----

func.func @dynamic_batch(%x: tensor<?x32x8x8xf32>) -> (tensor<?x32x8x8xf32>, tensor<?x32x8x8xf32>) {
  %uo = tgc.constant dense<[0.03, -1.77, 2.82, -1.13, 1.92, -1.62, -1.67, 1.56, -1.23, 2.71, -0.03, -1.88, -1.66, -0.50, 0.99, 2.69, -2.12, -0.64, -1.72, 2.84, -2.15, -2.69, -2.64, -0.64, 2.39, 2.30, 1.40, 2.99, 2.59, -1.02, -1.89, 2.62]> : tensor<32xf32>
  %ui = tgc.constant dense<[1.48, -2.81, 0.99, -0.73, -0.76, -1.01, -1.98, -2.98, -1.32, -0.89, 2.73, -2.26, 2.79, -1.76, -0.86, 1.93, 1.93, -0.41, -2.70, -0.16, -0.76, 2.52, -1.84, -0.81, 2.38, -2.82, -0.54, 1.87, 1.60, -2.76, -2.79, -2.62]> : tensor<32xf32>
  %uk = tgc.constant dense<[2.52]> : tensor<1xf32>
  %u0 = tgc.reshape %uo : tensor<32xf32> to tensor<32x1x1x1xf32>
  %u1 = tgc.reshape %ui : tensor<32xf32> to tensor<1x32x1x1xf32>
  %u2 = tgc.reshape %uk : tensor<1xf32> to tensor<1x1x1x1xf32>
  %u3 = tgc.add %u0, %u1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %u4 = tgc.add %u3, %u2 : (tensor<32x32x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<32x32x1x1xf32>
  %u5 = tgc.sin %u4 : tensor<32x32x1x1xf32>
  %u6 = tgc.constant dense<0.2165> : tensor<f32>
  %u = tgc.mul %u5, %u6 : (tensor<32x32x1x1xf32>, tensor<f32>) -> tensor<32x32x1x1xf32>
  %wo = tgc.constant dense<[-1.46, 1.48, 2.39, -0.97, -1.37, 2.75, 0.70, -1.43, 1.30, -1.10, -1.35, -2.98, 1.53, 2.50, 0.80, 2.66, -2.85, -1.60, -0.15, 2.74, 2.72, -0.68, -1.49, -0.42, -0.04, 2.57, -1.90, 1.82, 1.43, 1.94, 1.64, 0.64]> : tensor<32xf32>
  %wi = tgc.constant dense<[-1.03, -1.08, -0.83, 1.69, -2.53, -1.82, 1.52, -1.52, -2.61, -2.80, 0.32, -1.05, 2.88, 2.30, 2.93, -1.41, -2.50, -2.42, -0.01, 1.26, -0.32, -1.59, -0.50, 0.72, 1.04, 1.49, 2.08, 0.99, -2.27, 2.05, -1.24, 0.40]> : tensor<32xf32>
  %wk = tgc.constant dense<[-0.76, 1.43, -1.80, -1.52, -1.53, -2.08, 2.31, 0.47, -1.04]> : tensor<9xf32>
  %w0 = tgc.reshape %wo : tensor<32xf32> to tensor<32x1x1x1xf32>
  %w1 = tgc.reshape %wi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %w2 = tgc.reshape %wk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %w3 = tgc.add %w0, %w1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %w4 = tgc.add %w3, %w2 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %w5 = tgc.sin %w4 : tensor<32x32x3x3xf32>
  %w6 = tgc.constant dense<0.0722> : tensor<f32>
  %w = tgc.mul %w5, %w6 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %b = tgc.constant dense<[-0.21, 0.98, 0.01, -0.54, 0.62, 0.31, 0.98, -0.80, -0.05, 0.64, 0.68, 0.83, -0.92, -0.41, -0.76, -0.62, 0.95, 0.17, 0.86, -0.26, 0.73, -0.10, -0.48, 0.56, 0.89, -0.79, 0.19, 0.24, -0.56, -0.26, -0.72, -0.59]> : tensor<32xf32>
  %vo = tgc.constant dense<[-1.47, 0.60, 0.91, -1.78, -2.93, -1.04, 1.07, -1.89, -1.13, -1.78, 1.77, 0.29, -2.62, -2.39, -0.63, 0.30, 0.84, -2.45, -2.02, 1.17, -0.54, -1.30, -1.15, 2.72, -1.13, 0.40, -0.86, -0.50, 2.19, 2.98, -0.82, -1.82]> : tensor<32xf32>
  %vi = tgc.constant dense<[1.37, -1.78, -2.96, 2.41, -0.46, 1.92, -0.56, 2.30, -0.23, -2.02, -2.91, 0.31, 0.84, 2.46, -2.47, 0.73, -0.77, 0.03, -2.12, -1.30, 0.13, 2.55, -2.35, -0.06, 1.83, 2.80, -1.82, -2.24, 2.66, 2.85, -0.10, -2.68]> : tensor<32xf32>
  %vk = tgc.constant dense<[2.56, -0.67, 2.43, 0.72, 1.95, -2.04, 1.71, -1.67, -0.57]> : tensor<9xf32>
  %v0 = tgc.reshape %vo : tensor<32xf32> to tensor<32x1x1x1xf32>
  %v1 = tgc.reshape %vi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %v2 = tgc.reshape %vk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %v3 = tgc.add %v0, %v1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %v4 = tgc.add %v3, %v2 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %v5 = tgc.sin %v4 : tensor<32x32x3x3xf32>
  %v6 = tgc.constant dense<0.0722> : tensor<f32>
  %v = tgc.mul %v5, %v6 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %p = tgc.conv2d %x, %u : (tensor<?x32x8x8xf32>, tensor<32x32x1x1xf32>) -> tensor<?x32x8x8xf32>
  %0 = tgc.conv2d %p, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>, tensor<32xf32>) -> tensor<?x32x8x8xf32>
  %1 = tgc.relu %0 : tensor<?x32x8x8xf32>
  %2 = tgc.conv2d %1, %v {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  %5 = tgc.conv2d %2, %u : (tensor<?x32x8x8xf32>, tensor<32x32x1x1xf32>) -> tensor<?x32x8x8xf32>
  %3 = tgc.exp %x : tensor<?x32x8x8xf32>
  %4 = tgc.conv2d %3, %v {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<?x32x8x8xf32>
  return %5, %4 : tensor<?x32x8x8xf32>, tensor<?x32x8x8xf32>
}

// -----

// Batch 2, a 7x12 image; no padding, asymmetric padding, a residual add and
// a clamp (relu6) after Winograd convolutions.
func.func @shapes(%x: tensor<2x32x7x12xf32>, %r: tensor<2x40x5x10xf32>) -> (tensor<2x40x5x10xf32>, tensor<2x32x8x13xf32>) {
  %wvo = tgc.constant dense<[2.08, 1.98, -1.90, -1.69, -0.60, 0.11, -0.70, -2.26, -1.52, 1.35, 2.38, -2.75, 0.37, 1.54, -2.77, 2.03, -2.29, 0.60, 0.30, 0.76, -1.16, -0.48, 0.50, -0.45, 0.95, -0.32, -0.37, -2.86, 0.71, -0.06, -1.59, 1.58, 1.68, -0.25, -1.92, -0.16, -2.36, -2.23, -0.42, -2.45]> : tensor<40xf32>
  %wvi = tgc.constant dense<[-0.35, 0.06, -2.76, 0.82, -2.51, 1.40, 1.67, 0.07, -2.67, 0.02, -0.73, 2.71, -2.18, 2.14, 2.98, 1.39, 1.89, -1.84, 2.89, -0.05, 2.74, 2.50, -2.01, 1.73, 2.58, -2.61, -0.89, 1.54, -2.05, 2.38, -1.35, 1.89]> : tensor<32xf32>
  %wvk = tgc.constant dense<[-2.14, 0.01, 2.52, -1.75, -1.42, 0.04, -1.09, -2.78, -1.91]> : tensor<9xf32>
  %wv0 = tgc.reshape %wvo : tensor<40xf32> to tensor<40x1x1x1xf32>
  %wv1 = tgc.reshape %wvi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wv2 = tgc.reshape %wvk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wv3 = tgc.add %wv0, %wv1 : (tensor<40x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<40x32x1x1xf32>
  %wv4 = tgc.add %wv3, %wv2 : (tensor<40x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<40x32x3x3xf32>
  %wv5 = tgc.sin %wv4 : tensor<40x32x3x3xf32>
  %wv6 = tgc.constant dense<0.0722> : tensor<f32>
  %wv = tgc.mul %wv5, %wv6 : (tensor<40x32x3x3xf32>, tensor<f32>) -> tensor<40x32x3x3xf32>
  %wao = tgc.constant dense<[-2.03, 2.62, 1.08, 2.37, -1.99, 1.71, -2.31, 0.18, 0.82, -0.84, 2.24, 0.33, 0.48, 2.30, -2.37, 2.96, 0.78, -0.63, 1.79, -1.41, 2.94, 0.46, -0.84, 1.59, -0.35, -1.94, 1.46, -2.71, 1.92, -1.48, 0.84, 2.90]> : tensor<32xf32>
  %wai = tgc.constant dense<[0.52, 0.98, -1.12, -2.99, -2.80, -2.10, 0.70, -0.41, 0.08, 2.37, -2.21, -1.64, 0.92, -2.87, -2.98, -0.87, -2.36, -0.86, -1.65, 0.50, 0.53, -1.77, 0.74, -0.15, -2.19, 2.62, -1.54, -2.10, -2.43, 0.83, 2.23, 1.69]> : tensor<32xf32>
  %wak = tgc.constant dense<[-0.59, -1.41, -2.93, 0.87, 0.37, -0.90, 0.87, -0.34, 2.62]> : tensor<9xf32>
  %wa0 = tgc.reshape %wao : tensor<32xf32> to tensor<32x1x1x1xf32>
  %wa1 = tgc.reshape %wai : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wa2 = tgc.reshape %wak : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wa3 = tgc.add %wa0, %wa1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %wa4 = tgc.add %wa3, %wa2 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %wa5 = tgc.sin %wa4 : tensor<32x32x3x3xf32>
  %wa6 = tgc.constant dense<0.0722> : tensor<f32>
  %wa = tgc.mul %wa5, %wa6 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %wbo = tgc.constant dense<[1.40, -1.51, 2.42, -2.74, 0.19, -0.56, -1.57, -2.65, 1.67, -2.93, 0.31, 2.65, -2.15, -1.80, 0.65, 0.04, 0.85, 1.88, -1.95, -1.14, -1.20, -2.71, 2.34, 1.70, 1.29, -2.96, 2.07, 1.47, -0.21, 1.45, -0.29, -1.64]> : tensor<32xf32>
  %wbi = tgc.constant dense<[-2.37, -1.61, -2.77, -0.99, 1.50, 1.17, 2.07, 1.27, -1.40, 0.32, -0.38, 1.73, 0.14, -1.41, 0.85, 2.79, -1.70, 2.28, -2.91, -1.44, -1.58, 1.46, 2.67, 1.48, -1.04, 2.28, -1.03, -1.56, 2.45, 0.78, 1.16, 0.99]> : tensor<32xf32>
  %wbk = tgc.constant dense<[2.87, -0.18, 2.04, 1.19, 2.15, -0.38, 1.35, 0.42, -1.15]> : tensor<9xf32>
  %wb0 = tgc.reshape %wbo : tensor<32xf32> to tensor<32x1x1x1xf32>
  %wb1 = tgc.reshape %wbi : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wb2 = tgc.reshape %wbk : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wb3 = tgc.add %wb0, %wb1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %wb4 = tgc.add %wb3, %wb2 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %wb5 = tgc.sin %wb4 : tensor<32x32x3x3xf32>
  %wb6 = tgc.constant dense<0.0722> : tensor<f32>
  %wb = tgc.mul %wb5, %wb6 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %wco = tgc.constant dense<[-1.73, 0.74, -2.53, 2.46, -2.13, -2.84, -2.36, 2.57, -0.93, -2.15, -2.83, -2.75, 1.16, 0.80, 1.18, 1.42, -2.61, 0.54, -0.82, 1.91, 1.92, 2.35, -2.60, 2.21, 2.49, 2.67, -2.36, -1.77, -2.33, -2.79, 2.09, 1.87]> : tensor<32xf32>
  %wci = tgc.constant dense<[0.81, 1.95, 0.79, -1.28, -2.40, -2.41, 1.54, -1.77, -1.09, -0.46, -2.87, -1.46, -1.30, 1.29, -0.79, -1.08, 2.78, 0.02, 2.11, 0.71, -2.81, -0.52, -0.38, 1.64, -0.92, 1.23, 0.23, -1.70, 2.17, -2.45, 1.92, -1.98]> : tensor<32xf32>
  %wck = tgc.constant dense<[-2.99, -1.79, 1.57, 2.87, -2.97, -0.06, -0.05, 1.78, -1.89]> : tensor<9xf32>
  %wc0 = tgc.reshape %wco : tensor<32xf32> to tensor<32x1x1x1xf32>
  %wc1 = tgc.reshape %wci : tensor<32xf32> to tensor<1x32x1x1xf32>
  %wc2 = tgc.reshape %wck : tensor<9xf32> to tensor<1x1x3x3xf32>
  %wc3 = tgc.add %wc0, %wc1 : (tensor<32x1x1x1xf32>, tensor<1x32x1x1xf32>) -> tensor<32x32x1x1xf32>
  %wc4 = tgc.add %wc3, %wc2 : (tensor<32x32x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x32x3x3xf32>
  %wc5 = tgc.sin %wc4 : tensor<32x32x3x3xf32>
  %wc6 = tgc.constant dense<0.0722> : tensor<f32>
  %wc = tgc.mul %wc5, %wc6 : (tensor<32x32x3x3xf32>, tensor<f32>) -> tensor<32x32x3x3xf32>
  %2 = tgc.conv2d %x, %wa {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x32x7x12xf32>, tensor<32x32x3x3xf32>) -> tensor<2x32x7x12xf32>
  %3 = tgc.clamp %2 {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x32x7x12xf32>
  %4 = tgc.conv2d %3, %wb {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x32x7x12xf32>, tensor<32x32x3x3xf32>) -> tensor<2x32x7x12xf32>
  %5 = tgc.conv2d %4, %wc {padding = array<i64: 2, 1, 1, 2>} : (tensor<2x32x7x12xf32>, tensor<32x32x3x3xf32>) -> tensor<2x32x8x13xf32>
  %0 = tgc.conv2d %4, %wv : (tensor<2x32x7x12xf32>, tensor<40x32x3x3xf32>) -> tensor<2x40x5x10xf32>
  %1 = tgc.add %0, %r : (tensor<2x40x5x10xf32>, tensor<2x40x5x10xf32>) -> tensor<2x40x5x10xf32>
  return %1, %5 : tensor<2x40x5x10xf32>, tensor<2x32x8x13xf32>
}

// -----

func.func @before_concat(%x: tensor<1x64x9x9xf32>) -> tensor<1x96x9x9xf32> {
  %wpo = tgc.constant dense<[-0.03, -0.92, 1.99, -1.44, 2.66, -1.30, -1.71, 1.20, -0.01, -2.34, 0.82, -2.51, 1.73, 1.18, 1.72, 0.77, -0.87, -0.59, -0.63, 2.34, -2.48, 2.33, -2.85, -1.76, -1.42, 2.41, 0.01, -0.72, 2.30, -1.60, -0.23, 0.19, 1.53, 1.52, 0.88, -0.91, -1.04, -2.07, 2.06, 0.97, 1.45, -1.98, -0.37, 1.64, 0.48, -2.24, -0.23, 2.31]> : tensor<48xf32>
  %wpi = tgc.constant dense<[-1.57, -1.85, -1.19, 1.22, 2.06, -2.07, -2.06, -1.51, -1.04, 0.13, -2.03, -1.03, -1.86, 2.85, 1.37, -2.39, 2.77, -2.39, -0.69, 2.90, 1.77, 1.40, -0.39, -1.82, 0.83, -2.36, -1.76, -0.67, -2.80, -0.61, 1.75, 1.16, 0.00, 0.79, -0.22, -2.15, 0.62, -0.57, 1.45, 2.45, -0.42, 0.44, 1.49, -0.47, -1.63, 1.33, 2.28, 1.64, 1.20, 2.11, 1.08, 0.85, -0.28, -1.12, 0.77, -2.41, -0.48, 1.69, 1.28, 0.78, -1.50, -0.46, -0.27, 0.73]> : tensor<64xf32>
  %wpk = tgc.constant dense<[-0.54]> : tensor<1xf32>
  %wp0 = tgc.reshape %wpo : tensor<48xf32> to tensor<48x1x1x1xf32>
  %wp1 = tgc.reshape %wpi : tensor<64xf32> to tensor<1x64x1x1xf32>
  %wp2 = tgc.reshape %wpk : tensor<1xf32> to tensor<1x1x1x1xf32>
  %wp3 = tgc.add %wp0, %wp1 : (tensor<48x1x1x1xf32>, tensor<1x64x1x1xf32>) -> tensor<48x64x1x1xf32>
  %wp4 = tgc.add %wp3, %wp2 : (tensor<48x64x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<48x64x1x1xf32>
  %wp5 = tgc.sin %wp4 : tensor<48x64x1x1xf32>
  %wp6 = tgc.constant dense<0.1531> : tensor<f32>
  %wp = tgc.mul %wp5, %wp6 : (tensor<48x64x1x1xf32>, tensor<f32>) -> tensor<48x64x1x1xf32>
  %w3o = tgc.constant dense<[1.05, 2.58, -1.90, 0.93, 1.67, -0.67, -0.06, 2.85, -2.77, 0.26, -2.03, 1.69, 2.64, 0.12, -2.39, 0.45, 0.25, 1.30, 0.07, 0.84, 1.97, 0.13, -0.54, 2.69, -1.74, 1.11, -0.65, 1.58, -2.27, 2.91, -0.87, -2.66]> : tensor<32xf32>
  %w3i = tgc.constant dense<[-1.35, -0.60, -2.92, -0.49, -0.48, 1.19, -0.89, -1.41, -1.65, 1.45, 2.64, 0.16, -1.69, 1.81, -0.65, -1.73, -2.22, 1.66, 1.86, 0.81, -0.19, 0.37, -1.64, 2.78, -0.88, 0.83, 1.91, 1.90, -0.19, -1.23, 0.29, -2.25, 2.00, -0.87, 2.10, -1.40, -0.74, -1.48, -0.44, -1.88, -2.98, 1.33, -1.31, -1.53, -1.19, -0.12, -0.43, 0.82]> : tensor<48xf32>
  %w3k = tgc.constant dense<[0.96, -0.83, 2.57, 2.13, -2.66, 1.97, 2.43, 1.70, -2.16]> : tensor<9xf32>
  %w30 = tgc.reshape %w3o : tensor<32xf32> to tensor<32x1x1x1xf32>
  %w31 = tgc.reshape %w3i : tensor<48xf32> to tensor<1x48x1x1xf32>
  %w32 = tgc.reshape %w3k : tensor<9xf32> to tensor<1x1x3x3xf32>
  %w33 = tgc.add %w30, %w31 : (tensor<32x1x1x1xf32>, tensor<1x48x1x1xf32>) -> tensor<32x48x1x1xf32>
  %w34 = tgc.add %w33, %w32 : (tensor<32x48x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<32x48x3x3xf32>
  %w35 = tgc.sin %w34 : tensor<32x48x3x3xf32>
  %w36 = tgc.constant dense<0.0589> : tensor<f32>
  %w3 = tgc.mul %w35, %w36 : (tensor<32x48x3x3xf32>, tensor<f32>) -> tensor<32x48x3x3xf32>
  %0 = tgc.conv2d %x, %wp : (tensor<1x64x9x9xf32>, tensor<48x64x1x1xf32>) -> tensor<1x48x9x9xf32>
  %1 = tgc.relu %0 : tensor<1x48x9x9xf32>
  %2 = tgc.conv2d %1, %w3 {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x48x9x9xf32>, tensor<32x48x3x3xf32>) -> tensor<1x32x9x9xf32>
  %3 = tgc.concat %x, %2 {axis = 1 : i64} : (tensor<1x64x9x9xf32>, tensor<1x32x9x9xf32>) -> tensor<1x96x9x9xf32>
  return %3 : tensor<1x96x9x9xf32>
}

// 64 channels at 32x32 (256 output tiles of 2x2) with ReLU, then 64 at
// 11x13 without padding (30 tiles: direct). The filters are products of
// small constants (folded by tgc-cleanup).
// NATIVE:     tgc.conv2d + bias + eltwise_relu) {{.*}}: (tensor<1x32x32x64xf32>, {{.*}}) -> tensor<1x32x32x64xf32> [native.conv2d.winograd]
// NATIVE:     (tensor<1x11x13x64xf32>, {{.*}}) -> tensor<1x9x11x64xf32> [onednn.conv2d]
// NATIVE-OFF-NOT: native.conv2d.winograd
func.func @native(%x: tensor<1x32x32x64xf32>, %y: tensor<1x11x13x64xf32>) -> (tensor<1x32x32x64xf32>, tensor<1x9x11x64xf32>) {
  %t = tgc.constant dense<[[[[-0.052]], [[0.009]], [[-0.026]]], [[[0.021]], [[0.025]], [[-0.087]]], [[[-0.097]], [[0.067]], [[-0.048]]]]> : tensor<3x3x1x1xf32>
  %ci = tgc.constant dense<[[1.269], [1.373], [0.544], [1.115], [0.545], [1.218], [0.831], [1.381], [1.481], [1.005], [1.499], [0.81], [0.577], [1.1], [0.531], [0.697], [0.908], [1.11], [0.656], [0.542], [1.368], [0.814], [1.459], [1.397], [0.878], [0.96], [1.02], [1.144], [1.096], [1.059], [1.12], [1.441], [1.007], [0.931], [1.22], [0.738], [0.801], [1.478], [1.021], [1.048], [0.511], [0.915], [1.08], [0.52], [1.116], [1.132], [0.56], [1.127], [0.966], [1.179], [0.853], [1.207], [1.238], [0.522], [0.561], [1.176], [1.463], [0.751], [0.956], [1.093], [0.82], [0.864], [0.813], [0.869]]> : tensor<64x1xf32>
  %co = tgc.constant dense<[0.734, 1.496, 0.97, 1.336, 0.976, 1.139, 0.651, 1.135, 1.368, 1.023, 1.241, 1.171, 0.564, 1.258, 1.091, 0.801, 0.531, 1.366, 0.973, 1.219, 1.379, 1.214, 1.421, 0.895, 1.301, 0.945, 1.436, 1.379, 0.597, 0.636, 0.717, 1.465, 0.936, 1.127, 0.801, 1.007, 0.886, 0.851, 1.085, 1.084, 1.404, 1.182, 1.429, 1.356, 1.491, 1.171, 0.663, 1.361, 1.465, 1.405, 1.069, 1.214, 0.711, 1.332, 1.074, 0.785, 0.563, 1.354, 1.49, 0.589, 1.301, 0.91, 0.651, 0.794]> : tensor<64xf32>
  %a = tgc.mul %t, %ci : (tensor<3x3x1x1xf32>, tensor<64x1xf32>) -> tensor<3x3x64x1xf32>
  %w = tgc.mul %a, %co : (tensor<3x3x64x1xf32>, tensor<64xf32>) -> tensor<3x3x64x64xf32>
  %b = tgc.constant dense<[0.057, -0.12, -0.074, 0.163, -0.284, 0.042, 0.141, -0.114, -0.166, 0.182, -0.157, -0.188, -0.039, 0.119, -0.239, -0.107, -0.1, 0.2, -0.037, 0.213, -0.198, -0.098, 0.09, 0.231, -0.029, -0.165, -0.227, 0.018, -0.186, 0.184, 0.203, -0.19, -0.133, 0.184, 0.085, 0.184, -0.093, -0.222, -0.125, 0.176, -0.137, -0.092, -0.05, -0.048, -0.054, 0.252, -0.206, -0.297, 0.266, 0.228, 0.292, -0.039, 0.27, 0.256, -0.167, 0.147, 0.202, 0.098, 0.011, -0.127, -0.095, -0.164, -0.259, 0.053]> : tensor<64xf32>
  %c = tgc.conv2d %x, %w, %b {layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>} : (tensor<1x32x32x64xf32>, tensor<3x3x64x64xf32>, tensor<64xf32>) -> tensor<1x32x32x64xf32>
  %r = tgc.relu %c : tensor<1x32x32x64xf32>
  %d = tgc.conv2d %y, %w {layout = #tgc.layout<NHWC>} : (tensor<1x11x13x64xf32>, tensor<3x3x64x64xf32>) -> tensor<1x9x11x64xf32>
  return %r, %d : tensor<1x32x32x64xf32>, tensor<1x9x11x64xf32>
}
