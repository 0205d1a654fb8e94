//===- CudaCodegenTool.cpp - the tgc-cuda-codegen tool --------------------===//

#include "tools/lib/CudaCodegenTool.h"

#include "codegen/cuda/KernelGen.h"
#include "codegen/cuda/Nvrtc.h"
#include "tools/lib/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

int tgc::cudaCodegenToolMain(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::opt<std::string> file(cl::Positional, cl::desc("<input .mlir file>"),
                            cl::init("-"));
  cl::opt<std::string> emit("emit", cl::desc("What to print: cuda or ptx"),
                            cl::init("cuda"));
  cl::opt<std::string> arch("arch", cl::desc("Target GPU arch for --emit=ptx"),
                            cl::init("sm_90"));
  cl::opt<std::string> pipeline(
      "pass-pipeline",
      cl::desc("Passes to run first, e.g. "
               "'tgc-cleanup,func.func(tgc-fuse-elementwise)'"));
  cl::opt<bool> verify("verify-diagnostics",
                       cl::desc("Check expected-* diagnostics in the input"));
  cl::opt<std::string> output("o", cl::desc("Output file"), cl::init("-"));
  tgc::registerAllPasses();
  cl::ParseCommandLineOptions(
      argc, argv,
      "tgc-cuda-codegen: CUDA C++ (and NVRTC's PTX) for the tgc.fusion <loop> "
      "regions of a module\n");
  if (emit != "cuda" && emit != "ptx") {
    errs() << "tgc-cuda-codegen: error: --emit must be cuda or ptx\n";
    return 1;
  }

  mlir::DialectRegistry registry;
  tgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  std::string errorMessage;
  auto buffer = mlir::openInputFile(file, &errorMessage);
  if (!buffer) {
    errs() << "tgc-cuda-codegen: error: " << errorMessage << "\n";
    return 1;
  }
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> handler;
  std::unique_ptr<mlir::SourceMgrDiagnosticVerifierHandler> verifier;
  if (verify)
    verifier = std::make_unique<mlir::SourceMgrDiagnosticVerifierHandler>(
        sourceMgr, &context);
  else
    handler =
        std::make_unique<mlir::SourceMgrDiagnosticHandler>(sourceMgr, &context);
  auto finish = [&](bool ok) {
    if (verify)
      return mlir::failed(verifier->verify()) ? 1 : 0;
    return ok ? 0 : 1;
  };

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return finish(false);
  if (!pipeline.empty()) {
    mlir::PassManager pm(&context);
    if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, errs())))
      return 1;
    if (mlir::failed(pm.run(*module)))
      return finish(false);
  }
  mlir::FailureOr<tgc::cuda::GeneratedModule> generated =
      tgc::cuda::generateModuleKernels(*module);
  if (mlir::failed(generated))
    return finish(false);
  if (verify)
    return finish(true);

  std::string text = generated->source;
  if (emit == "ptx") {
    auto ptx = tgc::cuda::compileCuda(generated->source, arch);
    if (!ptx.ok()) {
      errs() << "tgc-cuda-codegen: error: "
             << std::string(ptx.status().message()) << "\n";
      return 1;
    }
    text = *ptx;
  }
  auto out = mlir::openOutputFile(output, &errorMessage);
  if (!out) {
    errs() << "tgc-cuda-codegen: error: " << errorMessage << "\n";
    return 1;
  }
  out->os() << text;
  out->keep();
  return 0;
}
