// The interpreter runs what tgc-infer-shapes produces, including the
// tensor.cast it inserts to keep a called function's signature.
// RUN: tgc-opt %s -tgc-infer-shapes | FileCheck %s --check-prefix=IR
// RUN: tgc-opt %s -tgc-infer-shapes | tgc-run - --backend=reference --function=main --input=2xf32=1,-2 | FileCheck %s
// RUN: tgc-opt %s -tgc-infer-shapes | tgc-run - --backend=cpu --function=main --input=2xf32=1,-2 | FileCheck %s
// RUN: not tgc-run %s --backend=reference --function=callee --input=3xf32=1,2,3 2>&1 | FileCheck %s --check-prefix=BAD

// IR-LABEL: func.func @callee
// IR: %[[A:.*]] = tgc.add %{{.*}}, %{{.*}} : tensor<2xf32>
// IR: %[[C:.*]] = tensor.cast %[[A]] : tensor<2xf32> to tensor<?xf32>
// IR: return %[[C]] : tensor<?xf32>
// CHECK: result #0: tensor<2xf32> = [2, -4]
// BAD: tgc-run: error: {{.*}}function 'callee' argument #0 expects tensor<2xf32>, got tensor<3xf32>
func.func @callee(%a: tensor<2xf32>) -> tensor<?xf32> {
  %0 = tgc.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @callee(%a) : (tensor<2xf32>) -> tensor<?xf32>
  %1 = tensor.cast %0 : tensor<?xf32> to tensor<2xf32>
  return %1 : tensor<2xf32>
}
