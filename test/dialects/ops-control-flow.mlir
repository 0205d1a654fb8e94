// RUN: tgc-opt %s | tgc-opt | FileCheck %s
// RUN: tgc-opt %s --mlir-print-op-generic | tgc-opt | FileCheck %s
// RUN: tgc-run %s --backend=reference --function=piecewise --input=i1=1 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 | FileCheck %s --check-prefix=THEN
// RUN: tgc-run %s --backend=cpu --function=piecewise --input=i1=1 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 | FileCheck %s --check-prefix=THEN
// RUN: tgc-run %s --backend=reference --function=piecewise --input=i1=0 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 | FileCheck %s --check-prefix=ELSE
// RUN: tgc-run %s --backend=cpu --function=piecewise --input=i1=0 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 | FileCheck %s --check-prefix=ELSE
// RUN: tgc-run %s --backend=reference --function=count --input=i64=5 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 | FileCheck %s --check-prefix=COUNT5
// RUN: tgc-run %s --backend=cpu --function=count --input=i64=5 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 | FileCheck %s --check-prefix=COUNT5
// RUN: tgc-run %s --backend=cpu --function=count --input=i64=0 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 | FileCheck %s --check-prefix=COUNT0
// RUN: tgc-run %s --backend=cpu --function=count --input=i64=6 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 --differential | FileCheck %s --check-prefix=DIFF
// RUN: tgc-run %s --backend=cpu --function=nested --input=4xf32=1,-2,3,-4 --differential | FileCheck %s --check-prefix=DIFF
// RUN: tgc-run %s --backend=cpu --function=nested --input=4xf32=1,-2,3,-4 --print-plan | FileCheck %s --check-prefix=PLAN
// An ahead-of-time artifact holds the nested plans:
// RUN: tgc-compile %s --function=count --input=i64=1 --input=4xf32=1 --input=4xf32=1 -o %t.tgcx
// RUN: tgc-run %t.tgcx --input=i64=5 --input=4xf32=1,2,3,4 --input=4xf32=0.5,0.5,0.5,1 | FileCheck %s --check-prefix=COUNT5
// RUN: tgc-compile %s --function=nested --input=4xf32=1 -o %t.nested.tgcx
// RUN: tgc-run %t.nested.tgcx --input=4xf32=1,-2,3,-4 | FileCheck %s --check-prefix=NESTED

// Round trip of tgc.if and tgc.while; the reference interpreter and the
// CPU backend (each region compiled into a plan of its own, one step
// running them) run them alike.

// CHECK-LABEL: func.func @piecewise(
// CHECK-SAME:    %[[P:[^:]+]]: tensor<i1>, %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = tgc.if %[[P]](%[[X]], %[[Y]]) : tensor<i1>, (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[S:.*]] = tgc.add %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:      tgc.yield %[[S]] : tensor<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:    ^bb0(%[[C:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[T:.*]] = tgc.sub %[[C]], %[[D]] : tensor<4xf32>
// CHECK-NEXT:      tgc.yield %[[T]] : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
// THEN: result #0: tensor<4xf32> = [1.5, 2.5, 3.5, 5]
// ELSE: result #0: tensor<4xf32> = [0.5, 1.5, 2.5, 3]
func.func @piecewise(%p: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = tgc.if %p (%x, %y) : tensor<i1>, (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = tgc.add %a, %b : tensor<4xf32>
    tgc.yield %s : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = tgc.sub %a, %b : tensor<4xf32>
    tgc.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @count(
// CHECK-SAME:    %[[N:[^:]+]]: tensor<i64>, %[[S0:[^:]+]]: tensor<4xf32>, %[[STEP:[^:]+]]: tensor<4xf32>
// CHECK:         %[[ZERO:.*]] = tgc.constant dense<0> : tensor<i64>
// CHECK-NEXT:    %[[W:.*]]:2 = tgc.while(%[[ZERO]], %[[S0]]) captures(%[[N]], %[[STEP]] : tensor<i64>, tensor<4xf32>) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
// CHECK-NEXT:    ^bb0(%[[I:.*]]: tensor<i64>, %{{.*}}: tensor<4xf32>, %[[M:.*]]: tensor<i64>, %{{.*}}: tensor<4xf32>):
// CHECK-NEXT:      %[[C:.*]] = tgc.compare lt, %[[I]], %[[M]]
// CHECK-NEXT:      tgc.yield %[[C]] : tensor<i1>
// CHECK-NEXT:    } do {
// CHECK:           tgc.yield %{{.*}}, %{{.*}} : tensor<i64>, tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[W]]#0, %[[W]]#1
// COUNT5: result #0: tensor<i64> = [5]
// COUNT5: result #1: tensor<4xf32> = [3.5, 4.5, 5.5, 9]
// COUNT0: result #0: tensor<i64> = [0]
// COUNT0: result #1: tensor<4xf32> = [1, 2, 3, 4]
// DIFF: differential: 1 functions, 0 mismatches
func.func @count(%n: tensor<i64>, %s0: tensor<4xf32>, %step: tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) {
  %zero = tgc.constant dense<0> : tensor<i64>
  %r:2 = tgc.while (%zero, %s0) captures(%n, %step : tensor<i64>, tensor<4xf32>) : (tensor<i64>, tensor<4xf32>) -> (tensor<i64>, tensor<4xf32>) cond {
  ^bb0(%i: tensor<i64>, %s: tensor<4xf32>, %m: tensor<i64>, %d: tensor<4xf32>):
    %c = tgc.compare lt, %i, %m : (tensor<i64>, tensor<i64>) -> tensor<i1>
    tgc.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i64>, %s: tensor<4xf32>, %m: tensor<i64>, %d: tensor<4xf32>):
    %one = tgc.constant dense<1> : tensor<i64>
    %j = tgc.add %i, %one : tensor<i64>
    %t = tgc.add %s, %d : tensor<4xf32>
    tgc.yield %j, %t : tensor<i64>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<i64>, tensor<4xf32>
}

// Halves the vector while its sum of magnitudes exceeds 1, negating it on
// every other step: an if inside a while body, a reduction in the
// condition.
// CHECK-LABEL: func.func @nested(
// CHECK:         tgc.while
// CHECK:           tgc.if
// NESTED: result #0: tensor<4xf32> = [0.0625, -0.125, 0.1875, -0.25]
// NESTED-NEXT: result #1: tensor<i1> = [0]
// PLAN:      [0] control tgc.while at {{.*}}: (tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, tensor<i1> [control.while]
// PLAN-NEXT:     cond:
// PLAN-NEXT:       [0] jit tgc.fusion <loop> {{.*}}[jit.loop[abs,reduce_sum]]
// PLAN:          body:
// PLAN:            [1] control tgc.if {{.*}}[control.if]
// PLAN-NEXT:           then:
// PLAN-NEXT:             [0] {{.*}} tgc.neg
// PLAN:                else:
// PLAN-NEXT:             arena: 0 bytes
func.func @nested(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<i1>) {
  %false = tgc.constant dense<false> : tensor<i1>
  %r:2 = tgc.while (%x, %false) : (tensor<4xf32>, tensor<i1>) -> (tensor<4xf32>, tensor<i1>) cond {
  ^bb0(%v: tensor<4xf32>, %odd: tensor<i1>):
    %a = tgc.abs %v : tensor<4xf32>
    %s = tgc.reduce_sum %a {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
    %one = tgc.constant dense<1.0> : tensor<f32>
    %c = tgc.compare gt, %s, %one : (tensor<f32>, tensor<f32>) -> tensor<i1>
    tgc.yield %c : tensor<i1>
  } do {
  ^bb0(%v: tensor<4xf32>, %odd: tensor<i1>):
    %half = tgc.constant dense<0.5> : tensor<f32>
    %h = tgc.mul %v, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    %n = tgc.if %odd (%h) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %g = tgc.neg %a : tensor<4xf32>
      tgc.yield %g : tensor<4xf32>
    } else {
    ^bb0(%a: tensor<4xf32>):
      tgc.yield %a : tensor<4xf32>
    }
    %flip = tgc.logical_not %odd : tensor<i1>
    tgc.yield %n, %flip : tensor<4xf32>, tensor<i1>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<i1>
}
