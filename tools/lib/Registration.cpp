//===- Registration.cpp - dialects and passes seen by tgc tools -----------===//
//
// The single registration point for tgc tools: keep all dialect and pass
// registration here (each such file is expensive to compile).
//
//===----------------------------------------------------------------------===//

#include "tools/lib/Registration.h"

#include "codegen/cpu/CpuPipeline.h"
#include "codegen/cpu/LoopCodegen.h"
#include "codegen/cuda/CudaPipeline.h"
#include "dialects/TgcDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/AllExtensions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void tgc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<
      tgc::TgcDialect, mlir::func::FuncDialect, mlir::arith::ArithDialect,
      mlir::tensor::TensorDialect, mlir::math::MathDialect,
      mlir::linalg::LinalgDialect, mlir::scf::SCFDialect,
      mlir::cf::ControlFlowDialect, mlir::memref::MemRefDialect,
      mlir::bufferization::BufferizationDialect, mlir::vector::VectorDialect,
      mlir::affine::AffineDialect, mlir::LLVM::LLVMDialect>();
  mlir::func::registerAllExtensions(registry);
}

void tgc::registerAllPasses() {
  // Upstream: canonicalize, cse, inline, symbol-dce, sccp, ...
  mlir::registerTransformsPasses();
  tgc::registerTgcPasses();
  tgc::registerTgcPipelines();
  tgc::cpu::registerLoopCodegenPasses();
  tgc::cpu::registerCpuPipelines();
  tgc::cuda::registerCudaPipelines();
}
