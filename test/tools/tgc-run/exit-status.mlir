// tgc-run's exit status tells a wrong answer (2) from a failure to run (1).
// RUN: tgc-run %s --input=2xf32=1,2 --expected=2xf32=2,5 > /dev/null 2>&1 || echo "exit $?" > %t.mismatch
// RUN: FileCheck %s --check-prefix=MISMATCH --input-file=%t.mismatch
// RUN: tgc-run %s --input=2xf32=1,2 --expected=2xf32=2,4 > /dev/null && echo "exit 0" > %t.match
// RUN: FileCheck %s --check-prefix=MATCH --input-file=%t.match
// RUN: tgc-run %s --input=2xf32=1,2,3 > /dev/null 2>&1 || echo "exit $?" > %t.error
// RUN: FileCheck %s --check-prefix=ERROR --input-file=%t.error
// MISMATCH: exit 2
// MATCH: exit 0
// ERROR: exit 1
func.func @double(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tgc.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
