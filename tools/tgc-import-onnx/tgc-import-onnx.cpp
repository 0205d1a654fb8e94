//===- tgc-import-onnx.cpp - import an ONNX model into tgc MLIR -----------===//

#include "tools/lib/ImportTool.h"
#include "tools/lib/ToolVersion.h"

int main(int argc, char **argv) {
  tgc::installVersionPrinter("tgc-import-onnx");
  return tgc::importOnnxToolMain(argc, argv);
}
