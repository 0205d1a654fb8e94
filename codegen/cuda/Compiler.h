//===- Compiler.h - tgc functions to CUDA device executables ----*- C++ -*-===//
//
// Mirrors cpu::compile (codegen/cpu/Compiler.h): the function is cloned and
// specialized for concrete input shapes, the `tgc-cuda` pipeline runs
// (cleanup, batch-norm folding, post-op fusion into contractions, loop
// fusion; no layout conversion), and the graph is partitioned:
//  - every `tgc.fusion <contraction>` becomes one library call: matmuls on
//    cuBLASLt (alpha, bias, residual C, relu / tanh-GELU epilogues), 2-D
//    convolutions on cuDNN (bias, residual, relu fused). Post-ops of the
//    same table that no epilogue computes move into a loop fusion right
//    after the call; asymmetric conv padding into a pad kernel before it;
//  - every loop fusion becomes a generated kernel (KernelGen.h), as do
//    single ops the generator covers.
// NVRTC compiles the kernels for the target arch in one translation unit,
// and a DeviceExecutable plan (buffers, steps in order, one synchronization
// per call) is built.
//
// Compiling needs no GPU or driver: the arch comes from the options.
// Ops that nothing covers are compile errors naming the op and its
// location.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CUDA_COMPILER_H
#define TGC_CODEGEN_CUDA_COMPILER_H

#include "codegen/Calibration.h"
#include "codegen/cuda/KernelGen.h"
#include "codegen/cuda/Nvrtc.h"
#include "runtime/cuda/Executable.h"
#include "tgc/Precision.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tgc::cuda {

struct CompileOptions {
  /// The GPU to compile for ("sm_90": H100/H200). tgc-run passes the arch
  /// of the device it opened.
  std::string arch = "sm_90";
  /// Cubin for exactly `arch` (the default: no driver JIT at load time) or
  /// PTX for compute_NN (the driver JIT-compiles it for newer GPUs).
  ImageKind imageKind = ImageKind::Cubin;
  /// With a cubin: keep the PTX of the same compilation, loaded when the cubin
  /// does not (another GPU of a newer arch, an older driver).
  bool ptxFallback = true;
  /// Run tgc-cleanup on the specialized function.
  bool optimize = true;
  /// With `optimize`: the tgc-cuda pipeline's fusions (post-ops into
  /// cuBLASLt / cuDNN epilogues, loop fusions); otherwise every op is a
  /// kernel or library call of its own.
  bool fuse = true;
  /// Let f32 matmuls and convolutions use TF32 tensor cores (PyTorch's
  /// default for convolutions; ~1e-3 relative error). Off: full f32.
  bool allowTf32 = false;
  /// F32 (every op in its own type), F16 or BF16: convolutions and matmuls
  /// multiply narrow values on tensor cores, with the ops between them that
  /// only round (tgc-reduce-precision); softmax, norms and reductions stay
  /// f32.
  Precision precision = Precision::F32;
  /// Int8: the calibration table whose entries quantize contractions
  /// (tgc-cuda-quantize-contractions); contractions of a QDQ model use
  /// their own grid. Null: only those run int8.
  std::shared_ptr<const codegen::CalibrationTable> calibration;
};

/// One kernel launch of the plan.
struct PlannedLaunch {
  std::string kernel;
  /// "row" (one block per row) or "elementwise" (grid-stride).
  std::string kind;
  std::string opList;
  std::string location;
  LaunchConfig launch;
  int64_t rows = 0, rowLength = 0, numElements = 0;
  /// Buffer and type of every operand, then every result.
  std::vector<std::pair<int, std::string>> operands, results;
};

struct CompiledFunction {
  std::shared_ptr<DeviceExecutable> executable;
  /// The specialized, fused copy of the function.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string functionName;
  std::string arch;
  ImageKind imageKind = ImageKind::Cubin;
  /// The generated CUDA C++ of every kernel (one translation unit).
  std::string source;
  std::vector<PlannedLaunch> launches;
  /// The plan: kernels with their ops, launch shapes, buffers and sizes.
  std::string describe() const;
  std::string planText;
};

/// Compiles `func` for inputs of exactly `inputShapes` (one per argument).
/// `func` itself is not modified.
llvm::Expected<CompiledFunction>
compile(mlir::func::FuncOp func,
        const std::vector<std::vector<int64_t>> &inputShapes,
        const CompileOptions &options = {});

} // namespace tgc::cuda

#endif // TGC_CODEGEN_CUDA_COMPILER_H
