// --precision=int8 (docs/precision.md): calibrate on --calibration-data,
// save the table, compile the contractions to int8 kernels; a later run
// reads the table instead; results stay near f32's.
// RUN: rm -f %t.table
// RUN: tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --calibration-table=%t.table --calibrator=minmax --quantize-output-layers --input=%S/Inputs/calibration/s0001.npy --output=%t.int8.npy 2>&1 | FileCheck %s --check-prefix=CAL
// CAL: tgc-run: calibrated 2 activation(s) on 4 sample(s) (minmax)
// By default the output layer (the matmul, whose result the function
// returns) stays f32: it is left out of the table.
// RUN: tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --calibration-table=%t.default --calibrator=minmax --print-plan --compile-only 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: tgc-run: calibrated 1 activation(s) on 4 sample(s) (minmax)
// DEFAULT: tgc.conv2d
// DEFAULT-SAME: [onednn.conv2d[int8]]
// DEFAULT: tgc.matmul
// DEFAULT-NOT: [int8]
// DEFAULT-SAME: [onednn.matmul{{(\[1x1 conv\])?}}]
// RUN: FileCheck %s --check-prefix=TABLE < %t.table
// TABLE: # tgc calibration table v1
// TABLE-NEXT: calibrator minmax
// TABLE-NEXT: activations asymmetric
// TABLE-NEXT: samples 4
// TABLE: precision-int8.mlir:{{[0-9]+}}:{{[0-9]+}}#0
// RUN: tgc-run %s --input=%S/Inputs/calibration/s0001.npy --output=%t.f32.npy
// RUN: tgc-run %s --precision=int8 --calibration-table=%t.table --input=%S/Inputs/calibration/s0001.npy --expected=%t.f32.npy --rtol=0.05 --atol=0.05 --output=%t.int8b.npy
// RUN: cmp %t.int8.npy %t.int8b.npy
// RUN: not cmp -s %t.int8.npy %t.f32.npy
// An ahead-of-time int8 artifact from the same table runs the same bits.
// RUN: tgc-compile %s -o %t.tgcx --precision=int8 --calibration-table=%t.table
// RUN: tgc-run %t.tgcx --input=%S/Inputs/calibration/s0001.npy --output=%t.aot.npy
// RUN: cmp %t.int8.npy %t.aot.npy
// RUN: not tgc-compile %s -o %t.bad.tgcx --precision=int8 2>&1 | FileCheck %s --check-prefix=AOTNONE
// AOTNONE: precision int8 needs a calibration table
// RUN: tgc-run %s --precision=int8 --calibration-table=%t.table --print-plan --compile-only | FileCheck %s --check-prefix=PLAN
// PLAN: tgc.conv2d
// PLAN-SAME: [onednn.conv2d[int8]]
// PLAN: tgc.matmul
// PLAN-SAME: [onednn.matmul[int8]{{(\[1x1 conv\])?}}]
// RUN: tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --calibrator=entropy --input=%S/Inputs/calibration/s0001.npy --expected=%t.f32.npy --rtol=0.05 --atol=0.05 2>&1 | FileCheck %s --check-prefix=ENTROPY
// ENTROPY: (entropy)
// RUN: tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --activations=symmetric --calibration-table=%t.sym --input=%S/Inputs/calibration/s0001.npy --expected=%t.f32.npy --rtol=0.05 --atol=0.05
// RUN: FileCheck %s --check-prefix=SYM < %t.sym
// SYM: activations symmetric
// RUN: not tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --activations=lopsided 2>&1 | FileCheck %s --check-prefix=BADACT
// BADACT: tgc-run: error: unknown --activations 'lopsided' (asymmetric or symmetric)
// RUN: not tgc-run %s --precision=int8 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: tgc-run: error: --precision=int8 needs a calibration: --calibration-data=DIR (sample inputs) or --calibration-table=FILE (a table made before)
// RUN: not tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --calibrator=median 2>&1 | FileCheck %s --check-prefix=BADCAL
// BADCAL: tgc-run: error: unknown --calibrator 'median' (minmax, entropy or percentile)
// RUN: not tgc-run %s --precision=int8 --calibration-data=%t.nowhere 2>&1 | FileCheck %s --check-prefix=NODATA
// NODATA: tgc-run: error: --calibration-data '{{.*}}nowhere': {{.*}}
// RUN: not tgc-run %s --precision=int8 --calibration-table=%t.table --backend=reference 2>&1 | FileCheck %s --check-prefix=NOTCPU
// NOTCPU: tgc-run: error: --precision=int8 runs on the cpu and cuda backends
// Calibration data that does not fit the function.
// RUN: rm -rf %t.dirs %t.empty && mkdir -p %t.dirs/a %t.empty
// RUN: cp %S/Inputs/calibration/s0000.npy %S/Inputs/calibration/s0001.npy %t.dirs/a/
// RUN: not tgc-run %s --precision=int8 --calibration-data=%t.dirs 2>&1 | FileCheck %s --check-prefix=SUBDIR
// SUBDIR: tgc-run: error: --calibration-data: sample '{{.*}}a' holds 2 .npy/.pb file(s); @main takes 1 input(s)
// RUN: not tgc-run %s --precision=int8 --calibration-data=%t.empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: tgc-run: error: --calibration-data '{{.*}}empty' holds no samples (.npy or .pb files, or subdirectories of them)
// RUN: not tgc-run %S/precision.mlir --precision=int8 --calibration-data=%S/Inputs/calibration 2>&1 | FileCheck %s --check-prefix=INPUTS
// INPUTS: tgc-run: error: --calibration-data '{{.*}}calibration' holds one file per sample, but @main takes 4 inputs: put each sample's inputs in a subdirectory of their own
// tgc-compile's own errors.
// RUN: not tgc-compile %s -o %t.bad.tgcx --precision=fp8 2>&1 | FileCheck %s --check-prefix=AOTBAD
// AOTBAD: unknown --precision 'fp8' (f32, bf16, f16, int8 or auto)
// RUN: not tgc-compile %s -o %t.bad.tgcx --precision=int8 --calibration-table=%t.nowhere 2>&1 | FileCheck %s --check-prefix=AOTTABLE
// AOTTABLE: cannot read the calibration table '{{.*}}nowhere'
// The table's keys leave out the directories of the source's path: it
// serves the same file moved elsewhere. A table that matches none of the
// function's contractions is an error, not an f32 plan.
// RUN: rm -rf %t.moved && mkdir -p %t.moved/sub && cp %s %t.moved/sub/
// RUN: tgc-run %t.moved/sub/precision-int8.mlir --precision=int8 --calibration-table=%t.table --input=%S/Inputs/calibration/s0001.npy --output=%t.moved.npy
// RUN: cmp %t.int8.npy %t.moved.npy
// RUN: not tgc-run %S/precision.mlir --precision=int8 --calibration-table=%t.table --compile-only 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: tgc-run: error: the calibration table matches none of the {{[0-9]+}} contractions of @{{.*}} (its first key is 'precision-int8.mlir:{{[0-9]+}}:{{[0-9]+}}#0', the function's first 'precision.mlir:{{[0-9]+}}:{{[0-9]+}}#0'): it was made for another model or function
// RUN: not tgc-run %s --precision=int8 --calibration-table=%s 2>&1 | FileCheck %s --check-prefix=BADTABLE
// BADTABLE: tgc-run: error: {{.*}}precision-int8.mlir:1: not a tgc calibration table
// Contractions kept in f32 (--exclude-nodes, here by source location): the
// table leaves the matmul (14 lines below the RUN line) out, and its kernel
// stays f32 while the convolution's is int8; a name matching no
// contraction is an error.
// RUN: tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --quantize-output-layers --exclude-nodes=%s:%(line+14) --calibration-table=%t.excluded --print-plan --compile-only | FileCheck %s --check-prefix=EXCLUDED
// EXCLUDED: tgc.conv2d
// EXCLUDED-SAME: [onednn.conv2d[int8]]
// EXCLUDED: tgc.matmul
// EXCLUDED-NOT: [int8]
// EXCLUDED-SAME: [onednn.matmul{{(\[1x1 conv\])?}}]
// RUN: not tgc-run %s --precision=int8 --calibration-data=%S/Inputs/calibration --exclude-nodes=nosuch --compile-only 2>&1 | FileCheck %s --check-prefix=NOSUCH
// NOSUCH: tgc-run: error: --exclude-nodes: no calibrated contraction is named 'nosuch' (an ONNX node name, or a source location file:line)
func.func @main(%x: tensor<1x8x6x6xf32>) -> tensor<1x16x6x10xf32> {
  %f = tgc.constant dense<0.125> : tensor<16x8x3x3xf32>
  %b = tgc.constant dense<[0.5, -0.5, 0.25, -0.25, 0.0, 1.0, -1.0, 0.75, 0.5, -0.5, 0.25, -0.25, 0.0, 1.0, -1.0, 0.75]> : tensor<16xf32>
  %c = tgc.conv2d %x, %f, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
  %r = tgc.relu %c : tensor<1x16x6x6xf32>
  %w = tgc.constant dense<[[0.3, -0.2, 0.1, 0.0, 0.5, -0.4, 0.2, 0.1, -0.1, 0.25], [0.1, 0.2, -0.3, 0.4, -0.5, 0.6, -0.7, 0.8, -0.9, 1.0], [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5], [-0.5, 0.4, -0.3, 0.2, -0.1, 0.0, 0.1, -0.2, 0.3, -0.4], [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1], [0.2, 0.2, 0.2, -0.2, -0.2, -0.2, 0.3, 0.3, -0.3, -0.3]]> : tensor<6x10xf32>
  %y = tgc.matmul %r, %w : (tensor<1x16x6x6xf32>, tensor<6x10xf32>) -> tensor<1x16x6x10xf32>
  return %y : tensor<1x16x6x10xf32>
}
