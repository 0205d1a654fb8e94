// RUN: tgc-opt --split-input-file --tgc-cuda-quantize-contractions %s | FileCheck %s
// RUN: printf '# tgc calibration table v1\ncalibrator\tminmax\nactivations\tasymmetric\nsamples\t1\ndense.onnx:1:0#0\t-1\t3\t2\n' > %t.table
// RUN: tgc-opt --split-input-file --tgc-cuda-quantize-contractions="calibration-table=%t.table" %s | FileCheck %s --check-prefix=TABLE
// RUN: tgc-opt --split-input-file --tgc-cuda="int8=true calibration-table=%t.table" %s | FileCheck %s --check-prefix=PIPELINE

// A matmul on a u8 grid (scale 0.02, zero point 100): the input is
// quantized onto s8 (zero point 100 - 128 = -28), the weights per output
// column (symmetric, 127 levels, stored N x K for cuBLASLt's TN form), the
// integer product is an i32 matmul of the casts, and the dequantization
// subtracts zp * colsum(Wq) and multiplies by 0.02 * the column's scale
// (column 0: max |w| = 1, so 0.02 / 127 = 1.5748e-4; its weights sum to
// 380, so -28 * 380 = -10640). Column 1 (-2, 1, 1, 0.5, twice) lies on the
// int8 grid of 2 / 128 and keeps it (runtime/Quantize.h): -128, 64, 64,
// 32, scale 0.02 * 2 / 128 = 3.125e-4, offset -28 * 64 = -1792.
// CHECK-LABEL: func.func @matmul_u8
// CHECK-SAME:    (%[[X:.*]]: tensor<2x8xf32>)
// CHECK-DAG:     %[[S:.*]] = tgc.constant dense<2.000000e-02> : tensor<f32>
// CHECK:         %[[D:.*]] = tgc.div %[[X]], %[[S]]
// CHECK:         %[[R:.*]] = tgc.round %[[D]]
// CHECK:         %[[ZP:.*]] = tgc.constant dense<-2.800000e+01> : tensor<f32>
// CHECK:         %[[A:.*]] = tgc.add %[[R]], %[[ZP]]
// CHECK:         %[[C:.*]] = tgc.clamp %[[A]] {max = 1.270000e+02 : f64, min = -1.280000e+02 : f64}
// CHECK:         %[[Q:.*]] = tgc.cast %[[C]] : tensor<2x8xf32> to tensor<2x8xi8>
// CHECK:         %[[W:.*]] = tgc.constant dense<{{\[\[}}127, 0, 127, -64, 127, 0, 127, -64], [-128, 64, 64, 32, -128, 64, 64, 32], [32, 127, 64, -32, 32, 127, 64, -32], [32, -127, 127, 64, 32, -127, 127, 64]]> : tensor<4x8xi8>
// CHECK:         %[[ACC:.*]] = tgc.fusion <contraction>(%[[Q]], %[[W]]) : (tensor<2x8xi8>, tensor<4x8xi8>) -> tensor<2x4xi32>
// CHECK:           tgc.cast %{{.*}} : tensor<2x8xi8> to tensor<2x8xi32>
// CHECK:           tgc.cast %{{.*}} : tensor<4x8xi8> to tensor<4x8xi32>
// CHECK:           tgc.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<2x8xi32>, tensor<4x8xi32>) -> tensor<2x4xi32>
// CHECK:         %[[F:.*]] = tgc.cast %[[ACC]] : tensor<2x4xi32> to tensor<2x4xf32>
// CHECK:         %[[OFF:.*]] = tgc.constant dense<[-1.064000e+04, -1.792000e+03, -1.069600e+04, -5.376000e+03]>
// CHECK:         %[[SUB:.*]] = tgc.sub %[[F]], %[[OFF]]
// CHECK:         %[[SC:.*]] = tgc.constant dense<[1.57480317E-4, 3.125000e-04, 3.14960635E-4, 1.57480317E-4]>
// CHECK:         %[[Y:.*]] = tgc.mul %[[SUB]], %[[SC]]
// CHECK:         return %[[Y]]
// CHECK-NOT:     tensor<8x4xf32>
func.func @matmul_u8(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  %w = tgc.constant dense<[[1.0, -2.0, 0.5, 0.25], [0.0, 1.0, 2.0, -1.0], [1.0, 1.0, 1.0, 1.0], [-0.5, 0.5, -0.5, 0.5], [1.0, -2.0, 0.5, 0.25], [0.0, 1.0, 2.0, -1.0], [1.0, 1.0, 1.0, 1.0], [-0.5, 0.5, -0.5, 0.5]]> : tensor<8x4xf32>
  %y = tgc.matmul %x, %w {tgc.input_quantization = {scale = 0.02 : f64, zero_point = 100 : i64, storage = ui8}} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// An NHWC convolution on a u8 grid with zero point 10 (-118 on s8): zero
// padding would not be the grid's zero, so the i8 input is padded with
// -118 and the convolution runs unpadded; the filter cast to f32 (cuDNN's
// INT8_EXT: f32 results), the bias after the dequantization, then the
// chain's relu.
// CHECK-LABEL: func.func @conv_padded
// CHECK:         %[[Q:.*]] = tgc.cast %{{.*}} : tensor<1x5x5x4xf32> to tensor<1x5x5x4xi8>
// CHECK:         %[[P:.*]] = tgc.pad %[[Q]] {high = array<i64: 0, 1, 1, 0>, low = array<i64: 0, 1, 1, 0>, value = -1.180000e+02 : f64} : (tensor<1x5x5x4xi8>) -> tensor<1x7x7x4xi8>
// CHECK:         %[[ACC:.*]] = tgc.fusion <contraction>(%[[P]], %{{.*}}) : (tensor<1x7x7x4xi8>, tensor<3x3x4x8xi8>) -> tensor<1x5x5x8xf32>
// CHECK:           tgc.cast %{{.*}} : tensor<1x7x7x4xi8> to tensor<1x7x7x4xf32>
// CHECK:           tgc.conv2d %{{.*}}, %{{.*}} {layout = #tgc.layout<NHWC>} : (tensor<1x7x7x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32>
// CHECK:         %[[SUB:.*]] = tgc.sub %[[ACC]], %{{.*}}
// CHECK:         %[[MUL:.*]] = tgc.mul %[[SUB]], %{{.*}}
// CHECK:         %[[ADD:.*]] = tgc.add %[[MUL]], %{{.*}}
// CHECK:         %[[RELU:.*]] = tgc.relu %[[ADD]]
// CHECK:         return %[[RELU]]
func.func @conv_padded(%x: tensor<1x5x5x4xf32>) -> tensor<1x5x5x8xf32> {
  %w = tgc.constant dense<0.25> : tensor<3x3x4x8xf32>
  %b = tgc.constant dense<[0.1, 0.2, 0.3, 0.4, -0.1, -0.2, -0.3, -0.4]> : tensor<8xf32>
  %0 = tgc.fusion <contraction>(%x, %w, %b) : (tensor<1x5x5x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32> {
  ^bb0(%a: tensor<1x5x5x4xf32>, %f: tensor<3x3x4x8xf32>, %c: tensor<8xf32>):
    %1 = tgc.conv2d %a, %f, %c {layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>, tgc.input_quantization = {scale = 0.05 : f64, zero_point = 10 : i64, storage = ui8}} : (tensor<1x5x5x4xf32>, tensor<3x3x4x8xf32>, tensor<8xf32>) -> tensor<1x5x5x8xf32>
    %2 = tgc.relu %1 : tensor<1x5x5x8xf32>
    tgc.yield %2 : tensor<1x5x5x8xf32>
  }
  return %0 : tensor<1x5x5x8xf32>
}

// -----

// An s8 grid (zero point 0) keeps cuDNN's padding, and no offset is
// subtracted.
// CHECK-LABEL: func.func @conv_s8
// CHECK-NOT:     tgc.pad
// CHECK:         tgc.conv2d %{{.*}}, %{{.*}} {layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
// CHECK-NOT:     tgc.sub
// CHECK:         tgc.mul
func.func @conv_s8(%x: tensor<1x6x6x8xf32>) -> tensor<1x3x3x4xf32> {
  %w = tgc.constant dense<-0.5> : tensor<3x3x8x4xf32>
  %y = tgc.conv2d %x, %w {layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, tgc.input_quantization = {scale = 0.1 : f64, zero_point = 0 : i64, storage = i8}} : (tensor<1x6x6x8xf32>, tensor<3x3x8x4xf32>) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}

// -----

// No int8 call for a grouped convolution: its input is rounded to the QDQ
// grid by elementwise ops (quantize, then dequantize) and the attribute
// goes; the convolution stays f32.
// CHECK-LABEL: func.func @grouped
// CHECK:         %[[C:.*]] = tgc.clamp %{{.*}} {max = 2.550000e+02 : f64, min = 0.000000e+00 : f64}
// CHECK:         %[[S:.*]] = tgc.sub %[[C]], %{{.*}}
// CHECK:         %[[G:.*]] = tgc.mul %[[S]], %{{.*}}
// CHECK:         tgc.fusion <contraction>(%{{.*}}, %{{.*}}, %[[G]])
// CHECK-NOT:     tgc.input_quantization
// CHECK:         tgc.conv2d {{.*}} : (tensor<1x6x6x8xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
func.func @grouped(%x: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %w = tgc.constant dense<0.5> : tensor<3x3x4x8xf32>
  %y = tgc.conv2d %x, %w {groups = 2 : i64, layout = #tgc.layout<NHWC>, padding = array<i64: 1, 1, 1, 1>, tgc.input_quantization = {scale = 0.02 : f64, zero_point = 3 : i64, storage = ui8}} : (tensor<1x6x6x8xf32>, tensor<3x3x4x8xf32>) -> tensor<1x6x6x8xf32>
  return %y : tensor<1x6x6x8xf32>
}

// -----

// A matmul without a grid is quantized by the calibration table's entry
// for its key (location "dense.onnx":1:0, first contraction there): the
// range [-1, 3] clipped at 2 is u8 over [-1, 2] (scale 3 / 255, zero
// point 85, -43 on s8); without the table it stays f32. The pipeline
// (tgc-cuda with int8) fuses the dequantization with the bias and relu.
// CHECK-LABEL: func.func @calibrated
// CHECK-NOT:     tgc.fusion
// CHECK:         tgc.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
// TABLE-LABEL: func.func @calibrated
// TABLE:         tgc.constant dense<-4.300000e+01> : tensor<f32>
// TABLE:         tgc.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x4xi32>
// PIPELINE-LABEL: func.func @calibrated
// PIPELINE:       tgc.fusion <loop>
// PIPELINE:         tgc.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xi8>
// PIPELINE:       tgc.fusion <contraction>
// PIPELINE:         tgc.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x4xi32>
// PIPELINE:       tgc.fusion <loop>
// PIPELINE:         tgc.cast %{{.*}} : tensor<4x4xi32> to tensor<4x4xf32>
// PIPELINE:         tgc.sub
// PIPELINE:         tgc.mul
// PIPELINE:         tgc.add
// PIPELINE-NEXT:    tgc.relu
// PIPELINE-NEXT:    tgc.yield
func.func @calibrated(%x: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<4x4xf32> {
  %w = tgc.constant dense<[[1.0, -2.0, 0.5, 0.25], [0.0, 1.0, 2.0, -1.0], [1.0, 1.0, 1.0, 1.0], [-0.5, 0.5, -0.5, 0.5], [1.0, -2.0, 0.5, 0.25], [0.0, 1.0, 2.0, -1.0], [1.0, 1.0, 1.0, 1.0], [-0.5, 0.5, -0.5, 0.5]]> : tensor<8x4xf32>
  %y = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32> loc("dense.onnx":1:0)
  %z = tgc.add %y, %b : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %r = tgc.relu %z : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// K and N not multiples of 4 (what cuBLASLt's int8 kernels take): the
// weights are padded with zeros to 12 x 8, the quantized input with zeros
// to K = 8, and the two padded columns of the product are sliced off
// before the dequantization.
// CHECK-LABEL: func.func @padded_matmul
// CHECK:         %[[Q:.*]] = tgc.cast %{{.*}} : tensor<5x6xf32> to tensor<5x6xi8>
// CHECK:         %[[W:.*]] = tgc.constant dense<{{.*}}> : tensor<12x8xi8>
// CHECK:         %[[P:.*]] = tgc.pad %[[Q]] {high = array<i64: 0, 2>, low = array<i64: 0, 0>} : (tensor<5x6xi8>) -> tensor<5x8xi8>
// CHECK:         %[[ACC:.*]] = tgc.fusion <contraction>(%[[P]], %[[W]])
// CHECK:           tgc.matmul {{.*}} : (tensor<5x8xi32>, tensor<12x8xi32>) -> tensor<5x12xi32>
// CHECK:         %[[F:.*]] = tgc.cast %[[ACC]] : tensor<5x12xi32> to tensor<5x12xf32>
// CHECK:         %[[S:.*]] = tgc.slice %[[F]] {ends = array<i64: 5, 10>, starts = array<i64: 0, 0>} : (tensor<5x12xf32>) -> tensor<5x10xf32>
// CHECK:         tgc.mul %[[S]], %{{.*}} : (tensor<5x10xf32>, tensor<10xf32>)
func.func @padded_matmul(%x: tensor<5x6xf32>) -> tensor<5x10xf32> {
  %w = tgc.constant dense<0.5> : tensor<6x10xf32>
  %y = tgc.matmul %x, %w {tgc.input_quantization = {scale = 0.02 : f64, zero_point = 0 : i64, storage = i8}} : (tensor<5x6xf32>, tensor<6x10xf32>) -> tensor<5x10xf32>
  return %y : tensor<5x10xf32>
}

// -----

// A QDQ model's pair, as the importer spells it (QuantizeLinear to ui8 with
// zero point 3, DequantizeLinear), on a convolution's NCHW input: the
// int8 pipeline folds it into the convolution (tgc-absorb-fake-quant),
// runs the convolution NHWC (tgc-convert-layout), and quantizes it with the
// model's grid (no table needed): one kernel transposes, quantizes and pads
// the input with the grid's zero (3 - 128 = -125 on s8), the convolution
// is an integer one, and one kernel dequantizes and transposes back.
// PIPELINE-LABEL: func.func @qdq_conv
// PIPELINE:       tgc.fusion <loop>
// PIPELINE:         tgc.transpose
// PIPELINE:         tgc.constant dense<-1.250000e+02> : tensor<f32>
// PIPELINE:         tgc.cast %{{.*}} : tensor<1x4x4x4xf32> to tensor<1x4x4x4xi8>
// PIPELINE:         tgc.pad %{{.*}} {{.*}}value = -1.250000e+02 : f64} : (tensor<1x4x4x4xi8>) -> tensor<1x6x6x4xi8>
// PIPELINE:       tgc.fusion <contraction>
// PIPELINE:         tgc.conv2d {{.*}} : (tensor<1x6x6x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x4x4x8xf32>
// PIPELINE:       tgc.fusion <loop>
// PIPELINE-NOT:     tgc.input_quantization
// PIPELINE:         tgc.transpose
func.func @qdq_conv(%x: tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %s = tgc.constant dense<0.05> : tensor<f32>
  %z = tgc.constant dense<3.0> : tensor<f32>
  %w = tgc.constant dense<0.125> : tensor<8x4x3x3xf32>
  %0 = tgc.div %x, %s : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %1 = tgc.round %0 : tensor<1x4x4x4xf32>
  %2 = tgc.add %1, %z : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %3 = tgc.clamp %2 {max = 2.550000e+02 : f64, min = 0.000000e+00 : f64} : tensor<1x4x4x4xf32>
  %4 = tgc.cast %3 : tensor<1x4x4x4xf32> to tensor<1x4x4x4xui8>
  %5 = tgc.cast %4 : tensor<1x4x4x4xui8> to tensor<1x4x4x4xf32>
  %6 = tgc.sub %5, %z : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %7 = tgc.mul %6, %s : (tensor<1x4x4x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  %8 = tgc.conv2d %7, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %8 : tensor<1x8x4x4xf32>
}

// -----

// Weights holding an infinity (or NaN) have no int8 scale: the matmul stays
// f32, as on the CPU, with its input rounded to the QDQ grid.
// CHECK-LABEL: func.func @nonfinite_weights
// CHECK-NOT:     xi8>
// CHECK:         tgc.clamp %{{.*}} {max = 2.550000e+02 : f64, min = 0.000000e+00 : f64}
// CHECK:         tgc.matmul %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
func.func @nonfinite_weights(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = tgc.constant dense<[[1.0, 0x7F800000, 0.5, 0.25], [0.0, 1.0, 2.0, -1.0], [1.0, 1.0, 1.0, 1.0], [-0.5, 0.5, -0.5, 0.5]]> : tensor<4x4xf32>
  %y = tgc.matmul %x, %w {tgc.input_quantization = {scale = 0.02 : f64, zero_point = 100 : i64, storage = ui8}} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
