// A small MLP block with a residual connection and a softmax head, written in
// the tgc dialect. `make demo` canonicalizes it with tgc-opt and runs it on the
// reference interpreter.
func.func @mlp(%x: tensor<?x4xf32>, %w1: tensor<4x8xf32>, %b1: tensor<8xf32>,
               %w2: tensor<8x4xf32>) -> tensor<?x4xf32> {
  %h = tgc.matmul %x, %w1 : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
  %hb = tgc.add %h, %b1 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %a = tgc.gelu %hb : tensor<?x8xf32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %scaled = tgc.mul %a, %one : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
  %o = tgc.matmul %scaled, %w2 : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  %r = tgc.add %o, %x : tensor<?x4xf32>
  %s = tgc.softmax %r {axis = 1 : i64} : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
