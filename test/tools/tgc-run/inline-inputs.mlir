// RUN: tgc-run %s --function=add --input=2x3xf32=1,2,3,4,5,6 --input=3xf32=10,20,30 | FileCheck %s --check-prefix=ADD
// RUN: tgc-run %s --function=add --input=2x3xf32=1 --input=3xf32=0.5 | FileCheck %s --check-prefix=SPLAT
// RUN: tgc-run %s --function=dyn --input=3xi32=1,2,3 | FileCheck %s --check-prefix=DYN
// RUN: tgc-run %s --function=dyn --input=0xi32= | FileCheck %s --check-prefix=EMPTY
// RUN: tgc-run %s --function=scalar --input=f64=2.5 --input=i1=true | FileCheck %s --check-prefix=SCALAR

// ADD: result #0: tensor<2x3xf32> = [11, 22, 33, 14, 25, 36]
// SPLAT: result #0: tensor<2x3xf32> = [1.5, 1.5, 1.5, 1.5, 1.5, 1.5]
func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = tgc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// DYN: result #0: tensor<3xi32> = [2, 4, 6]
// EMPTY: result #0: tensor<0xi32> = []
func.func @dyn(%a: tensor<?xi32>) -> tensor<?xi32> {
  %0 = tgc.add %a, %a : tensor<?xi32>
  return %0 : tensor<?xi32>
}

// SCALAR: result #0: tensor<f64> = [-2.5]
// SCALAR: result #1: tensor<i1> = [0]
func.func @scalar(%a: tensor<f64>, %b: tensor<i1>) -> (tensor<f64>, tensor<i1>) {
  %0 = tgc.neg %a : tensor<f64>
  %1 = tgc.logical_not %b : tensor<i1>
  return %0, %1 : tensor<f64>, tensor<i1>
}
