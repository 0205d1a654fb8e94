// RUN: not tgc-opt %s -split-input-file 2>&1 | FileCheck %s --implicit-check-not="Stack dump" --implicit-check-not="PLEASE submit"

// Ill-typed and ill-shaped input: located diagnostics, a non-zero exit and no
// crash.

func.func @element_type_mismatch(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.add' op lhs and rhs must have the same element type, got 'f32' and 'i32'
  %0 = tgc.add %x, %y : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @short_form_type_mismatch(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:20: error: use of value '%y' expects different type than prior uses: 'tensor<4xf32>' vs 'tensor<4xi32>'
  %0 = tgc.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:21: error: custom op 'tgc.exp' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'
  %0 = tgc.exp %x : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @unranked_generic(%x: tensor<*xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.reduce_sum' op operand #0 must be ranked tensor of
  %0 = "tgc.reduce_sum"(%x) <{axes = array<i64: 0>}> : (tensor<*xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @vector(%x: vector<4xf32>) -> vector<4xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:21: error: custom op 'tgc.exp' invalid kind of type specified: expected builtin.tensor, but found 'vector<4xf32>'
  %0 = tgc.exp %x : vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

func.func @vector_generic(%x: vector<4xf32>) -> vector<4xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.add' op operand #0 must be ranked tensor of {{.*}} values, but got 'vector<4xf32>'
  %0 = "tgc.add"(%x, %x) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

func.func @scalar_operand(%x: f32) -> f32 {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.neg' op operand #0 must be ranked tensor of {{.*}} values, but got 'f32'
  %0 = "tgc.neg"(%x) : (f32) -> f32
  return %0 : f32
}

// -----

func.func @index_elements(%x: tensor<4xindex>) -> tensor<4xindex> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.neg' op operand #0 must be ranked tensor of {{.*}} values, but got 'tensor<4xindex>'
  %0 = tgc.neg %x : tensor<4xindex>
  return %0 : tensor<4xindex>
}

// -----

func.func @signed_elements(%x: tensor<4xsi32>) -> tensor<4xsi32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.relu' op operand #0 must be ranked tensor of {{.*}} values, but got 'tensor<4xsi32>'
  %0 = tgc.relu %x : tensor<4xsi32>
  return %0 : tensor<4xsi32>
}

// -----

func.func @odd_width_elements(%x: tensor<4xui7>) -> tensor<4xui7> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.relu' op operand #0 must be ranked tensor of {{.*}} values, but got 'tensor<4xui7>'
  %0 = tgc.relu %x : tensor<4xui7>
  return %0 : tensor<4xui7>
}

// -----

func.func @complex_elements(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.exp' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xcomplex<f32>>'
  %0 = tgc.exp %x : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @wrong_rank(%x: tensor<8xf32>, %w: tensor<8x4xf32>) -> tensor<4xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.matmul' op operands must have rank >= 2, got lhs 8 and rhs 8x4
  %0 = tgc.matmul %x, %w : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @wrong_result_rank(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.exp' op requires the same type for all operands and results
  %0 = "tgc.exp"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:36: error: expected non-function type
func.func @negative_dim(%x: tensor<-1xf32>) -> tensor<-1xf32> {
  return %x : tensor<-1xf32>
}

// -----

// CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:{{[0-9]+}}: error: invalid dimension
func.func @huge_dim(%x: tensor<99999999999999999999xf32>) -> tensor<99999999999999999999xf32> {
  return %x : tensor<99999999999999999999xf32>
}

// -----

func.func @overflowing_operand(%x: tensor<9223372036854775807x4xf32>) -> tensor<9223372036854775807x4xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.relu' op operand #0 has shape 9223372036854775807x4 whose element count overflows int64
  %0 = tgc.relu %x : tensor<9223372036854775807x4xf32>
  return %0 : tensor<9223372036854775807x4xf32>
}

// -----

func.func @overflowing_result(%x: tensor<?x?xf32>) -> tensor<3037000500x3037000500xf32> {
  // 3037000500^2 is just above 2^63.
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.cast' op result #0 has shape 3037000500x3037000500 whose element count overflows int64
  %0 = tgc.cast %x : tensor<?x?xf32> to tensor<3037000500x3037000500xf32>
  return %0 : tensor<3037000500x3037000500xf32>
}

// -----

func.func @overflowing_splat() -> tensor<9223372036854775807x4xf32> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.constant' op result #0 has shape 9223372036854775807x4 whose element count overflows int64
  %0 = tgc.constant dense<1.0> : tensor<9223372036854775807x4xf32>
  return %0 : tensor<9223372036854775807x4xf32>
}

// -----

// Shapes whose product fits are fine even when huge, as long as nothing
// materializes them: this one only fails on the broadcast result.
func.func @overflowing_broadcast(%x: tensor<4611686018427387904x1xi8>, %y: tensor<4xi8>) -> tensor<4611686018427387904x4xi8> {
  // CHECK: {{.*}}malformed-types.mlir:[[@LINE+1]]:8: error: 'tgc.add' op result #0 has shape 4611686018427387904x4 whose element count overflows int64
  %0 = tgc.add %x, %y : (tensor<4611686018427387904x1xi8>, tensor<4xi8>) -> tensor<4611686018427387904x4xi8>
  return %0 : tensor<4611686018427387904x4xi8>
}
