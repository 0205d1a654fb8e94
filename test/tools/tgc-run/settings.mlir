// Every TGC_* variable is read with one rule (runtime/Environment.h), and
// tgc-run --print-settings lists them with what is set now.
//
// RUN: env TGC_FUSION=false TGC_FUSON=1 TGC_WINOGRAD=maybe tgc-run --print-settings | FileCheck %s --check-prefix=SETTINGS
// SETTINGS: TGC_* environment variables
// SETTINGS: TGC_NUM_THREADS (integer, default 0): unset
// SETTINGS: TGC_FUSION (flag, default 1): false
// SETTINGS: TGC_WINOGRAD (flag, default 1): maybe
// SETTINGS: Set now:
// SETTINGS-DAG: TGC_FUSION=false{{$}}
// SETTINGS-DAG: TGC_FUSON=1  (unknown: ignored; see --print-settings)
// SETTINGS-DAG: TGC_WINOGRAD=maybe  (not understood: 1 is used; flags take 1/0, true/false, on/off, yes/no)
//
// TGC_FUSION=false turns fusion off (it used to take only "0").
// RUN: tgc-run %s --compile-only --print-plan | FileCheck %s --check-prefix=FUSED
// RUN: env TGC_FUSION=false tgc-run %s --compile-only --print-plan | FileCheck %s --check-prefix=UNFUSED
// RUN: env TGC_FUSION=off tgc-run %s --compile-only --print-plan | FileCheck %s --check-prefix=UNFUSED
// RUN: env TGC_FUSION=0 tgc-run %s --compile-only --print-plan | FileCheck %s --check-prefix=UNFUSED
// FUSED: [0] onednn tgc.fusion(tgc.matmul + bias + eltwise_relu)
// FUSED-NOT: [1]
// UNFUSED: [0] onednn tgc.matmul
// UNFUSED: [1] onednn tgc.add
// UNFUSED: [2] onednn tgc.relu
func.func @mlp(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = tgc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = tgc.add %0, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = tgc.relu %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
