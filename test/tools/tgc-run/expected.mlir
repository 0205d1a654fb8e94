// Outputs round-trip through .npy, and --expected compares with tolerances.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tgc-run %s --input=4xf32=1,4,9,16 --output=%t/out.npy | FileCheck %s --check-prefix=NONE --allow-empty
// RUN: tgc-run %s --input=4xf32=1,4,9,16 --expected=%t/out.npy | FileCheck %s --check-prefix=MATCH
// RUN: tgc-run %s --input=4xf32=1,4,9,16 --expected=4xf32=1,2,3,4 | FileCheck %s --check-prefix=MATCH-LIT
// RUN: not tgc-run %s --input=4xf32=1,4,9,16 --expected=4xf32=1,2,3,4.01 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: tgc-run %s --input=4xf32=1,4,9,16 --expected=4xf32=1,2,3,4.01 --atol=0.02 | FileCheck %s --check-prefix=MATCH-LIT
// RUN: tgc-run %s --input=%t/out.npy --expected=4xf32=1,1.41421356,1.73205081,2 | FileCheck %s --check-prefix=MATCH-LIT

// NONE-NOT: result
// MATCH: result #0: matches {{.*}}out.npy
// MATCH-LIT: result #0: matches 4xf32=
// MISMATCH: result #0: MISMATCH against 4xf32=1,2,3,4.01
// MISMATCH: tgc-run: error: results differ from the expected values (rtol 0.0001, atol 1e-05)

func.func @sqrt(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.sqrt %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
