// Inputs not given are random from --seed: the same seed gives the same
// values, another seed different ones, and --benchmark reports latencies.
// RUN: tgc-run %s --seed=7 > %t.a && tgc-run %s --seed=7 > %t.b && diff %t.a %t.b
// RUN: tgc-run %s --seed=8 > %t.c && not diff %t.a %t.c
// RUN: FileCheck %s --input-file=%t.a
// RUN: tgc-run %s --benchmark=3 | FileCheck %s --check-prefix=BENCH

// CHECK: result #0: tensor<2x2xf32> = [{{-?[0-9.e-]+}}, {{-?[0-9.e-]+}}, {{-?[0-9.e-]+}}, {{-?[0-9.e-]+}}]
// BENCH: @f on {{cpu|reference}}: 3 runs, latency ms min {{[0-9.]+}} median {{[0-9.]+}} max {{[0-9.]+}}
func.func @f(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tgc.tanh %a : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
