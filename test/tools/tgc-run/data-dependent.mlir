// Data-dependent shapes through tgc-run, with values worked out by hand:
// the plan is staged (the ops before the data-dependent op as one plan, the
// op on the host, the rest compiled for the shape it returns), and the
// reference backend agrees.
// RUN: tgc-run %s --function=uniq --input=6xf32=2,1,1,3,4,3 | FileCheck %s --check-prefix=UNIQ
// RUN: tgc-run %s --function=uniq --input=6xf32=2,1,1,3,4,3 --backend=reference | FileCheck %s --check-prefix=UNIQ
// RUN: tgc-run %s --function=nms --input=1x3x4xf32=0,0,1,1,0,0.1,1,1.1,0,2,1,3 --input=1x1x3xf32=0.9,0.8,0.7 | FileCheck %s --check-prefix=NMS
// RUN: tgc-run %s --function=nms --input=1x3x4xf32=0,0,1,1,0,0.1,1,1.1,0,2,1,3 --input=1x1x3xf32=0.9,0.8,0.7 --backend=reference | FileCheck %s --check-prefix=NMS
// RUN: tgc-run %s --function=nms --input=1x3x4xf32=0,0,1,1,0,0.1,1,1.1,0,2,1,3 --input=1x1x3xf32=0.9,0.8,0.7 --print-plan | FileCheck %s --check-prefix=PLAN
// RUN: not tgc-run %s --function=nms --input=1x3x4xf32=0,0,1,1,0,0.1,1,1.1,0,2,1,3 --input=1x1x3xf32=0.9,0.8,0.7 --profile=%t.json 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE: tgc-run: error: --profile needs one plan; this function is compiled in stages (a data-dependent shape), see --print-plan
// RUN: not tgc-run %s --function=bad_step --input=4xf32=1,2,3,4 --input=1xi64=0 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not tgc-run %s --function=bad_step --input=4xf32=1,2,3,4 --input=1xi64=0 --backend=reference 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: 'tgc.dynamic_slice' {{.*}}step 0 is 0
// RUN: not tgc-run %s --function=bad_threshold --input=1x3x4xf32=0 --input=1x1x3xf32=0.5 --input=2xf32=0.5,0.5 2>&1 | FileCheck %s --check-prefix=THRESHOLD
// RUN: not tgc-run %s --function=bad_threshold --input=1x3x4xf32=0 --input=1x1x3xf32=0.5 --input=2xf32=0.5,0.5 --backend=reference 2>&1 | FileCheck %s --check-prefix=THRESHOLD
// THRESHOLD: 'tgc.non_max_suppression' {{.*}}max_per_class, iou_threshold and score_threshold must hold one element each, not {{'?}}tensor<2xf32>
// RUN: not tgc-run %s --function=bad_broadcast --input=3xf32=1,2,3 --input=2xi64=2,-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not tgc-run %s --function=bad_broadcast --input=3xf32=1,2,3 --input=2xi64=2,-1 --backend=reference 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: 'tgc.dynamic_broadcast_to' {{.*}}dynamic_broadcast_to: the shape [2, -1]... has a negative size
// RUN: not tgc-run %s --function=bad_broadcast --input=3xf32=1,2,3 --input=2xi64=2,4 2>&1 | FileCheck %s --check-prefix=MISFIT
// RUN: not tgc-run %s --function=bad_broadcast --input=3xf32=1,2,3 --input=2xi64=2,4 --backend=reference 2>&1 | FileCheck %s --check-prefix=MISFIT
// MISFIT: 'tgc.dynamic_broadcast_to' {{.*}}dynamic_broadcast_to: the input tensor<3xf32> does not broadcast with the shape [2, 4]
// RUN: not tgc-run %s --function=bad_broadcast --input=3xf32=1,2,3 --input=2xi64=4611686018427387904,3 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: 'tgc.dynamic_broadcast_to' {{.*}}overflow
// RUN: tgc-run %s --function=bad_broadcast --input=3xf32=1,2,3 --input=2xi64=2,1 | FileCheck %s --check-prefix=FITS
// FITS: result #0: tensor<2x3xf32> = [1, 2, 3, 1, 2, 3]
// RUN: tgc-run %s --function=first_rows --input=3x5xf32=1,2,3,4,5,-1,-2,-3,-4,-5,1,1,1,1,1 | FileCheck %s --check-prefix=SLICE
// RUN: tgc-run %s --function=first_rows --input=3x5xf32=1,2,3,4,5,-1,-2,-3,-4,-5,1,1,1,1,1 --backend=reference | FileCheck %s --check-prefix=SLICE

// In order of first occurrence, then sorted; the inverse maps each input
// element to its value, the counts say how often each occurs.
// UNIQ: result #0: tensor<4xf32> = [2, 1, 3, 4]
// UNIQ: result #1: tensor<6xi64> = [0, 1, 1, 2, 3, 2]
// UNIQ: result #2: tensor<4xf32> = [1, 2, 3, 4]
// UNIQ: result #3: tensor<4xi64> = [1, 0, 3, 4]
// UNIQ: result #4: tensor<4xi64> = [2, 1, 2, 1]
func.func @uniq(%x: tensor<6xf32>) -> (tensor<?xf32>, tensor<6xi64>, tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) {
  %v, %i, %inv, %c = tgc.unique %x {sorted = false} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  %w, %j, %inw, %d = tgc.unique %x : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  return %v, %inv, %w, %j, %d : tensor<?xf32>, tensor<6xi64>, tensor<?xf32>, tensor<?xi64>, tensor<?xi64>
}

// Box 1 overlaps box 0 with IoU 0.9 / 1.1 > 0.5 and is suppressed; box 2
// overlaps nothing. The kept boxes' scores follow from the second stage.
// NMS: result #0: tensor<2x3xi64> = [0, 0, 0, 0, 0, 2]
// NMS: result #1: tensor<2xf32> = [0.9, 0.7]
// PLAN: staged plan: the shape of 'tgc.non_max_suppression' at {{.*}}data-dependent.mlir:{{[0-9]+}}:{{[0-9]+}} depends on values
// PLAN: then 'tgc.non_max_suppression' on the host (its result allocated when it runs)
// PLAN: stage 2 (the ops after it): compiled for each shape a call brings; 0 so far
func.func @nms(%b: tensor<1x3x4xf32>, %s: tensor<1x1x3xf32>) -> (tensor<?x3xi64>, tensor<?xf32>) {
  %m = tgc.constant dense<3> : tensor<1xi64>
  %iou = tgc.constant dense<0.5> : tensor<1xf32>
  %min = tgc.constant dense<0.0> : tensor<1xf32>
  %r = tgc.non_max_suppression %b, %s, %m, %iou, %min : (tensor<1x3x4xf32>, tensor<1x1x3xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  %k = tgc.slice %r {starts = array<i64: 0, 2>, ends = array<i64: 9223372036854775807, 3>, steps = array<i64: 1, 1>} : (tensor<?x3xi64>) -> tensor<?x1xi64>
  %kk = tgc.reshape %k : tensor<?x1xi64> to tensor<?xi64>
  %flat = tgc.reshape %s : tensor<1x1x3xf32> to tensor<3xf32>
  %scores = tgc.gather %flat, %kk {axis = 0 : i64} : (tensor<3xf32>, tensor<?xi64>) -> tensor<?xf32>
  return %r, %scores : tensor<?x3xi64>, tensor<?xf32>
}

// A slice whose bounds the function computes: the first n rows, n = the
// number of rows with a positive sum (2 here), columns reversed (from -1
// down past the start).
// SLICE: result #0: tensor<2x5xf32> = [5, 4, 3, 2, 1, -5, -4, -3, -2, -1]
func.func @first_rows(%x: tensor<3x5xf32>) -> tensor<?x?xf32> {
  %s = tgc.reduce_sum %x {axes = array<i64: 1>} : (tensor<3x5xf32>) -> tensor<3xf32>
  %z = tgc.constant dense<0.0> : tensor<f32>
  %p = tgc.compare gt, %s, %z : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %c = tgc.cast %p : tensor<3xi1> to tensor<3xi64>
  %n = tgc.reduce_sum %c {axes = array<i64: 0>, keepdims} : (tensor<3xi64>) -> tensor<1xi64>
  %past = tgc.constant dense<-100> : tensor<1xi64>
  %ends = tgc.concat %n, %past {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %starts = tgc.constant dense<[0, -1]> : tensor<2xi64>
  %steps = tgc.constant dense<[1, -1]> : tensor<2xi64>
  %y = tgc.dynamic_slice %x, %starts, %ends, %steps {axes = array<i64: 0, 1>} : (tensor<3x5xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// Bounds the function computes can be wrong when it runs: a step of 0, a
// threshold of two elements; each is an error naming the op.
func.func @bad_step(%x: tensor<4xf32>, %step: tensor<1xi64>) -> tensor<?xf32> {
  %s = tgc.constant dense<0> : tensor<1xi64>
  %e = tgc.constant dense<4> : tensor<1xi64>
  %y = tgc.dynamic_slice %x, %s, %e, %step {axes = array<i64: 0>} : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}
func.func @bad_threshold(%b: tensor<1x3x4xf32>, %s: tensor<1x1x3xf32>, %t: tensor<?xf32>) -> tensor<?x3xi64> {
  %m = tgc.constant dense<3> : tensor<1xi64>
  %r = tgc.non_max_suppression %b, %s, %m, %t, %t : (tensor<1x3x4xf32>, tensor<1x1x3xf32>, tensor<1xi64>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x3xi64>
  return %r : tensor<?x3xi64>
}
// A shape the function is given: negative, not broadcasting with the input,
// or too large to allocate.
func.func @bad_broadcast(%x: tensor<3xf32>, %shape: tensor<2xi64>) -> tensor<?x?xf32> {
  %y = tgc.dynamic_broadcast_to %x, %shape : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// Bounds that are constants (no shape arithmetic around them) fold away
// once the function is specialized: one plan, no split.
// RUN: tgc-run %s --function=constant_bounds --input=6xf32=1,2,3,4,5,6 --print-plan | FileCheck %s --check-prefix=CONSTANT-BOUNDS
// CONSTANT-BOUNDS-NOT: staged plan
// CONSTANT-BOUNDS: result #0: tensor<3xf32> = [2, 4, 6]
func.func @constant_bounds(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = tgc.constant dense<1> : tensor<1xi64>
  %e = tgc.constant dense<9> : tensor<1xi64>
  %st = tgc.constant dense<2> : tensor<1xi64>
  %y = tgc.dynamic_slice %x, %s, %e, %st {axes = array<i64: 0>} : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}
