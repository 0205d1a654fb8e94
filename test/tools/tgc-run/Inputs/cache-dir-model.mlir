// A function of loop fusions for test/tools/tgc-run/cache-dir.sh (the
// persistent compilation cache across processes).
func.func @loops(%x: tensor<16x256xf32>, %y: tensor<256xf32>) -> (tensor<16x256xf32>, tensor<16xf32>) {
  %0 = tgc.mul %x, %y : (tensor<16x256xf32>, tensor<256xf32>) -> tensor<16x256xf32>
  %1 = tgc.tanh %0 : tensor<16x256xf32>
  %2 = tgc.exp %1 : tensor<16x256xf32>
  %3 = tgc.reduce_sum %2 {axes = array<i64: 1>} : (tensor<16x256xf32>) -> tensor<16xf32>
  return %2, %3 : tensor<16x256xf32>, tensor<16xf32>
}
