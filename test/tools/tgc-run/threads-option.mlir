// --threads takes its value after `=` or as the next argument (it used to
// be silently ignored with a space, LLVM having an option of that name).
// RUN: tgc-run %s --threads 1 --input=2xf32=1,2 | FileCheck %s
// RUN: tgc-run %s --threads=2 --input=2xf32=1,2 | FileCheck %s
// RUN: not tgc-run %s --threads x --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tgc-run %s --threads=-1 --input=2xf32=1,2 2>&1 | FileCheck %s --check-prefix=BAD-NEG
// CHECK: result #0: tensor<2xf32> = [2, 4]
// BAD: tgc-run: error: bad --threads value 'x'
// BAD-NEG: tgc-run: error: bad --threads value '-1'
func.func @double(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tgc.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
