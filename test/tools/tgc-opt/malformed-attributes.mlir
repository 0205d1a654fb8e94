// RUN: not tgc-opt %s -split-input-file 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// Missing, ill-typed and out-of-range attributes and wrong operand counts:
// located diagnostics, a non-zero exit and no crash.

func.func @generic_missing_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:8: error: 'tgc.softmax' op requires attribute 'axis'
  %0 = "tgc.softmax"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @custom_missing_attribute(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:8: error: 'tgc.transpose' op requires attribute 'permutation'
  %0 = tgc.transpose %x : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @attribute_wrong_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:23: error: custom op 'tgc.softmax' 'tgc.softmax' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute
  %0 = tgc.softmax %x {axis = 1.0 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @generic_attribute_wrong_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:8: error: invalid properties {axis = "one"} for op tgc.softmax: Invalid attribute `axis` in property conversion: "one"
  %0 = "tgc.softmax"(%x) <{axis = "one"}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @array_attribute_wrong_type(%x: tensor<1x4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}'tgc.squeeze' op attribute 'axes' failed to satisfy constraint: i64 dense array attribute
  %0 = tgc.squeeze %x {axes = [0]} : (tensor<1x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_enum_case(%x: tensor<4xf32>) -> tensor<4xi1> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:20: error: custom op 'tgc.compare' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]
  %0 = tgc.compare lte, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @wrong_operand_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:8: error: 'tgc.add' op expected 2 operands, but found 1
  %0 = "tgc.add"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @too_many_operands(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:8: error: 'tgc.exp' op requires a single operand
  %0 = "tgc.exp"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @wrong_result_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:10: error: 'tgc.exp' op requires one result
  %0:2 = "tgc.exp"(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func @conv2d_generic_missing_bias_segment(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // conv2d has an optional operand but no segment attribute: three operands
  // are read as input, filter and bias.
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:8: error: 'tgc.conv2d' op bias must have shape 4, got 1x3x8x8
  %0 = "tgc.conv2d"(%x, %w, %x) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x3x8x8xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @huge_slice_bounds(%x: tensor<4xf32>) -> tensor<5xf32> {
  // CHECK: {{.*}}malformed-attributes.mlir:[[@LINE+1]]:8: error: 'tgc.slice' op inferred type(s) 'tensor<1xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'
  %0 = tgc.slice %x {ends = array<i64: -9223372036854775808>, starts = array<i64: 9223372036854775807>, steps = array<i64: -9223372036854775808>} : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
