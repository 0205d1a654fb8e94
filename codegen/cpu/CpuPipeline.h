//===- CpuPipeline.h - the CPU backend's whole pipeline ---------*- C++ -*-===//
//
// What cpu::compile runs on a function specialized to its input shapes, as
// one named pipeline with options, so that `tgc-opt --tgc-cpu` prints
// exactly what the CPU backend plans kernels from:
//
//   tgc-cpu{fuse=true compile-loops=true}
//     = tgc's cleanup, layout, batch-norm, post-op and loop fusion passes
//       (passes/Pipelines.cpp, buildCpuPipeline)
//     + tgc-cpu-inline-fusions: each tgc.fusion the CPU backend does not
//       compile as one kernel (a contraction with a post-op chain the
//       post-op table describes, or, with compile-loops, a loop fusion the
//       loop code generator takes) is replaced by its body.
//
// `tgc-cpu-unfused` is tgc-cpu{fuse=false}.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_CPUPIPELINE_H
#define TGC_CODEGEN_CPU_CPUPIPELINE_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace tgc::cpu {

struct CpuPipelineOptions {
  /// The layout, batch-norm and fusion passes (false: cleanup only).
  bool fuse = true;
  /// Keep the loop fusions the loop code generator compiles (false: inline
  /// them too, every op then runs on its own kernel).
  bool compileLoops = true;
};

/// Adds the whole CPU pipeline to `pm`.
void buildCpuBackendPipeline(mlir::OpPassManager &pm,
                             const CpuPipelineOptions &options);

/// tgc-cpu-inline-fusions.
std::unique_ptr<mlir::Pass> createInlineFusionsPass(bool compileLoops);

/// Registers tgc-cpu (with its options), tgc-cpu-unfused and
/// tgc-cpu-inline-fusions.
void registerCpuPipelines();

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_CPUPIPELINE_H
