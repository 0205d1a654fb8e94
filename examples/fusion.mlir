// A small block as exporters write it: a conv with bias, relu and a residual
// add (NCHW), then a dense layer with bias and GELU spelled out with erf,
// then a softmax spelled out with reductions. `make demo` shows how the
// tgc-cpu pipeline fuses it.
func.func @block(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8x1x1xf32>,
                 %d: tensor<288x16xf32>, %db: tensor<16xf32>) -> tensor<1x16xf32> {
  %c = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  %cb = tgc.add %c, %b : (tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) -> tensor<1x8x6x6xf32>
  %r = tgc.relu %cb : tensor<1x8x6x6xf32>
  %res = tgc.add %r, %x : tensor<1x8x6x6xf32>
  %flat = tgc.reshape %res : tensor<1x8x6x6xf32> to tensor<1x288xf32>
  %m = tgc.matmul %flat, %d : (tensor<1x288xf32>, tensor<288x16xf32>) -> tensor<1x16xf32>
  %mb = tgc.add %m, %db : (tensor<1x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
  %sqrt2 = tgc.constant dense<1.41421354> : tensor<f32>
  %half = tgc.constant dense<0.5> : tensor<f32>
  %one = tgc.constant dense<1.0> : tensor<f32>
  %g0 = tgc.div %mb, %sqrt2 : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
  %g1 = tgc.erf %g0 : tensor<1x16xf32>
  %g2 = tgc.add %g1, %one : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
  %g3 = tgc.mul %mb, %g2 : tensor<1x16xf32>
  %g = tgc.mul %g3, %half : (tensor<1x16xf32>, tensor<f32>) -> tensor<1x16xf32>
  %mx = tgc.reduce_max %g {axes = array<i64: 1>, keepdims} : (tensor<1x16xf32>) -> tensor<1x1xf32>
  %sh = tgc.sub %g, %mx : (tensor<1x16xf32>, tensor<1x1xf32>) -> tensor<1x16xf32>
  %e = tgc.exp %sh : tensor<1x16xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<1x16xf32>) -> tensor<1x1xf32>
  %y = tgc.div %e, %s : (tensor<1x16xf32>, tensor<1x1xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}
