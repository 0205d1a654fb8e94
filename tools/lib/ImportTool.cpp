//===- ImportTool.cpp - the tgc-import-onnx command line tool -------------===//
//
// tgc-import-onnx MODEL.onnx [-o OUT.mlir] [--function=NAME]
//                 [--no-checker] [--no-shape-inference] [--no-fold]
//                 [--mlir-print-debuginfo]
//
//===----------------------------------------------------------------------===//

#include "tools/lib/ImportTool.h"

#include "frontend/onnx/OnnxImporter.h"
#include "tools/lib/Registration.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

int tgc::importOnnxToolMain(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::opt<std::string> input(cl::Positional, cl::desc("<model.onnx>"),
                             cl::Required);
  cl::opt<std::string> output("o",
                              cl::desc("Output .mlir file (default: "
                                       "stdout)"),
                              cl::init("-"));
  cl::opt<std::string> function(
      "function", cl::desc("Name of the imported function"), cl::init("main"));
  cl::opt<bool> noChecker("no-checker",
                          cl::desc("Skip onnx::checker::check_model"));
  cl::opt<bool> noShapeInference("no-shape-inference",
                                 cl::desc("Skip ONNX shape inference"));
  cl::opt<bool> noFold("no-fold",
                       cl::desc("Do not fold nodes whose inputs are constant"));
  cl::opt<bool> debugInfo("mlir-print-debuginfo",
                          cl::desc("Print the locations of ops"));
  cl::opt<int64_t> elide(
      "elide-constants-larger-than",
      cl::desc("Print constants with more elements than this as "
               "dense_resource placeholders (\"...\"); 0 prints all"),
      cl::init(0));
  cl::list<std::string> structures(
      "input-structure",
      cl::desc("The structure of each graph input in order: tensor, "
               "seq[tensor,tensor], optional[], optional[seq[tensor]], ... "
               "(sequence and optional inputs need one)"));
  cl::ParseCommandLineOptions(argc, argv,
                              "tgc-import-onnx: import an ONNX model into the "
                              "tgc dialect\n");

  mlir::DialectRegistry registry;
  tgc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  ImportOptions options;
  options.functionName = function;
  options.runChecker = !noChecker;
  options.runShapeInference = !noShapeInference;
  options.foldConstants = !noFold;
  for (const std::string &text : structures) {
    auto structure = ValueStructure::parse(text);
    if (!structure) {
      errs() << "tgc-import-onnx: error: --input-structure: "
             << toString(structure.takeError()) << "\n";
      return 1;
    }
    options.inputStructures.push_back(std::move(*structure));
  }
  // Warnings (a graph output declared with another shape) go to stderr;
  // errors come back from the importer.
  mlir::ScopedDiagnosticHandler warnings(&context, [](mlir::Diagnostic &diag) {
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Warning)
      return mlir::failure();
    errs() << "tgc-import-onnx: warning: " << diag.getLocation() << ": "
           << diag.str() << "\n";
    return mlir::success();
  });
  auto module = importOnnxModel(context, input, options);
  if (!module) {
    errs() << "tgc-import-onnx: error: " << toString(module.takeError())
           << "\n";
    return 1;
  }
  std::error_code ec;
  ToolOutputFile out(output, ec, sys::fs::OF_None);
  if (ec) {
    errs() << "tgc-import-onnx: error: cannot write '" << output
           << "': " << ec.message() << "\n";
    return 1;
  }
  mlir::OpPrintingFlags flags;
  if (debugInfo)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  if (elide > 0) {
    flags.elideLargeElementsAttrs(elide);
    // File-backed weights (dense_resource): their blobs too.
    flags.elideLargeResourceString(elide);
  }
  (*module)->print(out.os(), flags);
  out.os() << "\n";
  out.keep();
  return 0;
}
