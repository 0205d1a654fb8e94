//===- OnnxImportFuzzer.cpp - the ONNX importer on protobuf bytes
//----------===//
//
// tgc::importOnnxModelFromBytes (ONNX's checker, shape inference, version
// converter, then tgc's converters) on arbitrary bytes: an error or a
// module that verifies, never a crash. Also the TensorProto reader.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/OnnxImporter.h"
#include "tools/lib/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry;
    tgc::registerAllDialects(*r);
    return r;
  }();
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  tgc::ImportOptions options;
  options.modelName = "fuzz.onnx";
  auto module = tgc::importOnnxModelFromBytes(
      context, llvm::StringRef(reinterpret_cast<const char *>(data), size),
      options);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  if (mlir::failed(mlir::verify(**module)))
    std::abort();
  return 0;
}
