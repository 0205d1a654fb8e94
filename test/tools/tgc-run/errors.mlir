// tgc-run reports bad command lines, bad inputs and run-time errors with a
// clear message and a non-zero exit, never a crash.
// RUN: not tgc-run %s --function=nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not tgc-run %s --function=gather --pipeline=fast 2>&1 | FileCheck %s --check-prefix=BADPIPE
// RUN: not tgc-run %s --backend=reference --function=gather --input=3xf32=1,2,3 --input=2xi64=0,7 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: not tgc-run %s --backend=reference --function=gather --input=3xi32=1,2,3 --input=2xi64=0,1 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not tgc-run %s --function=gather --input=3xf32=1,2 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not tgc-run %s --function=gather --input=3xq7=1 2>&1 | FileCheck %s --check-prefix=BADTYPE
// RUN: not tgc-run %s --function=gather --input=-3xf32=1 2>&1 | FileCheck %s --check-prefix=BADDIM
// RUN: not tgc-run %s --function=gather --input=3xf32=1,2,x 2>&1 | FileCheck %s --check-prefix=BADNUM
// RUN: not tgc-run %s --function=gather --input=%t.missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tgc-run %s --function=gather --input=100000x100000xf32=1 2>&1 | FileCheck %s --check-prefix=HUGE-LITERAL
// RUN: not tgc-run %s --function=gather --input=99999999999999x99999999999999xf32=1 2>&1 | FileCheck %s --check-prefix=OVERFLOW-LITERAL
// RUN: not tgc-run %s --function=dyn 2>&1 | FileCheck %s --check-prefix=NEEDSHAPE
// RUN: not tgc-run %s --backend=reference --function=div --input=2xi32=1,2 --input=2xi32=1,0 2>&1 | FileCheck %s --check-prefix=DIVZERO
// RUN: not tgc-run %s --backend=cpu --function=gather --input=3xf32=1,2,3 --input=2xi64=0,7 2>&1 | FileCheck %s --check-prefix=CPU-OOB
// RUN: not tgc-run %s --backend=cpu --function=gather --input=3xi32=1,2,3 --input=2xi64=0,1 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not tgc-run %s --backend=cpu --function=div --input=2xi32=1,2 --input=2xi32=1,0 2>&1 | FileCheck %s --check-prefix=CPU-DIVZERO
// RUN: not tgc-run %s --backend=tpu 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not tgc-run %s.does-not-exist 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not tgc-run %s --backend=cpu --function=gather --input=3x2xf32=1 --input=2xi64=0,1 2>&1 | FileCheck %s --check-prefix=CPU-SHAPE
// RUN: not tgc-run %s --backend=cpu --function=gather --input=3xi32=1,2,3 --input=2xi64=0,1 2>&1 | FileCheck %s --check-prefix=CPU-DTYPE
// RUN: not tgc-run %s --function=gather --input=3xf32=1,2,3 --input=2xi64=0,1 --expected=2xf32=0 --rtol=nan 2>&1 | FileCheck %s --check-prefix=TOLERANCE
// RUN: not tgc-run %s --function=gather --input=3xf32=1,2,3 --input=2xi64=0,1 --expected=2xf32=0 --atol=-1 2>&1 | FileCheck %s --check-prefix=TOLERANCE
// RUN: not tgc-run %s --differential --function=gather --input=%t.missing.npy 2>&1 | FileCheck %s --check-prefix=DIFF-INPUT
// RUN: not tgc-run %s --differential --function=gather --input=3xf32=1,2,3 --input=2xi64=0,1 --input=1xf32=0 2>&1 | FileCheck %s --check-prefix=DIFF-INPUT
// RUN: not tgc-run %s --differential --function=gather --input=3xf32=1,2,x 2>&1 | FileCheck %s --check-prefix=DIFF-INPUT
// RUN: not tgc-run %s --differential --function=gather --expected=2xf32=0 2>&1 | FileCheck %s --check-prefix=DIFF-EXPECTED
// RUN: not tgc-run %s --differential --function=gather --output=%t.npy 2>&1 | FileCheck %s --check-prefix=DIFF-EXPECTED

// The CPU backend's call-time errors name the function's location, as the
// reference's do.
// CPU-SHAPE: tgc-run: error: {{.*}}errors.mlir:[[# @LINE + 21]]:1: function 'gather' argument #0 expects tensor<3xf32>, got tensor<3x2xf32>
// CPU-DTYPE: tgc-run: error: {{.*}}errors.mlir:[[# @LINE + 20]]:1: function 'gather' argument #0 expects tensor<3xf32>, got tensor<3xi32>
// TOLERANCE: tgc-run: error: --rtol and --atol must be non-negative numbers
// --differential never passes on inputs it could not make, and refuses what
// it would ignore.
// DIFF-INPUT-DAG: @gather: ERROR: inputs:
// DIFF-INPUT-DAG: differential: 1 functions, 0 mismatches, 1 with input errors
// DIFF-INPUT-DAG: tgc-run: error: 1 function(s) could not be given their inputs
// DIFF-EXPECTED: tgc-run: error: --differential compares the backends with each other; it takes no --expected or --output

// NOFUNC: tgc-run: error: no function named 'nope'
// BADPIPE: tgc-run: error: unknown --pipeline 'fast' (available: tgc-cpu, tgc-cpu-unfused)
// OOB: tgc-run: error: {{.*}}errors.mlir:[[# @LINE + 10]]:{{[0-9]+}}: 'tgc.gather' op {{.*}}7{{.*}}out of range
// DTYPE: tgc-run: error: {{.*}}argument #0{{.*}}
// COUNT: tgc-run: error: bad tensor literal '3xf32=1,2': 2 values for shape 3 (3 elements)
// BADTYPE: tgc-run: error: bad tensor literal '3xq7=1': unknown element type 'q7'
// BADDIM: tgc-run: error: bad tensor literal '-3xf32=1': bad dim '-3'
// BADNUM: tgc-run: error: bad tensor literal '3xf32=1,2,x': bad number 'x'
// MISSING: tgc-run: error: {{.*}}missing.npy
// HUGE-LITERAL: tgc-run: error: bad tensor literal '100000x100000xf32=1': shape 100000x100000 has more than 4194304 elements; give such a tensor as a .npy file
// OVERFLOW-LITERAL: tgc-run: error: bad tensor literal '99999999999999x99999999999999xf32=1': shape 99999999999999x99999999999999 has more than 4194304 elements
func.func @gather(%d: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  %0 = tgc.gather %d, %i {axis = 0 : i64} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// NEEDSHAPE: tgc-run: error: argument #0 has dynamic dims; give it with --input
func.func @dyn(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// DIVZERO: tgc-run: error: {{.*}}errors.mlir:[[# @LINE + 2]]:{{[0-9]+}}: 'tgc.div' op {{.*}}division by zero
func.func @div(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = tgc.div %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// CPU-OOB: tgc-run: error: {{.*}}out of range
// CPU-DIVZERO: tgc-run: error: {{.*}}division by zero
// BACKEND: tgc-run: error: unknown backend 'tpu' (available: cpu, cuda, reference)
// NOFILE: tgc-run: error: cannot read '{{.*}}does-not-exist'
