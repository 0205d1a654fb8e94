// RUN: not tgc-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: not tgc-opt %s 2>&1 | FileCheck %s --check-prefix=FIRST

// Syntax errors: each gives one located diagnostic and a non-zero exit (and
// no crash, which `not` would not accept). Without -split-input-file the
// parser stops at the first error.

// FIRST: {{.*}}malformed-input.mlir:[[@LINE+3]]:15: error: expected SSA operand
// FIRST-NOT: error:
func.func @missing_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.exp : tensor<4xf32>
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE-1]]:15: error: expected SSA operand
  return %0 : tensor<4xf32>
}

// -----

func.func @missing_second_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected SSA operand
  %0 = tgc.add %x, : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:8: error: custom op 'tgc.nope' is unknown
  %0 = tgc.nope %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_generic_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:8: error: unregistered operation 'tgc.nope' found in dialect ('tgc') that does not allow unknown operations
  %0 = "tgc.nope"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @undefined_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:16: error: use of undeclared SSA value name
  %0 = tgc.exp %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @missing_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:18: error: expected ':'
  %0 = tgc.exp %x
  return %0 : tensor<4xf32>
}

// -----

func.func @missing_arrow(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '->'
  %0 = tgc.add %x, %x : (tensor<4xf32>, tensor<4xf32>) tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @missing_to(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = tgc.cast %x : tensor<4xf32>
  return %0 : tensor<4xi32>
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE-1]]:3: error: custom op 'tgc.cast' expected 'to'
}

// -----

func.func @unclosed_array(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '>' to close an array attribute
  %0 = tgc.transpose %x {permutation = array<i64: 1, 0} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @constant_missing_value() -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:20: error: expected attribute value
  %0 = tgc.constant : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_size_mismatch() -> tensor<3xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:21: error: inferred shape of elements literal ([2]) does not match type ([3])
  %0 = tgc.constant dense<[1.0, 2.0]> : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @constant_dynamic() -> tensor<?xf32> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:21: error: elements literal type must have static shape
  %0 = tgc.constant dense<1.0> : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @constant_out_of_range() -> tensor<4xi8> {
  // CHECK: {{.*}}malformed-input.mlir:[[@LINE+1]]:27: error: integer constant out of range for type
  %0 = tgc.constant dense<300> : tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @extra_brace(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
}
// CHECK: {{.*}}malformed-input.mlir:[[@LINE-2]]:{{[0-9]+}}: error: expected operation name in quotes

// -----

// The last case: the function is never closed, the error is at the end of
// the file.
// CHECK: {{.*}}malformed-input.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected operation name in quotes
func.func @unbalanced(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tgc.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
