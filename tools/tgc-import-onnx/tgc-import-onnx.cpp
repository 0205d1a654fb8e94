//===- tgc-import-onnx.cpp - import an ONNX model into tgc MLIR -----------===//

#include "frontend/onnx/OnnxImporter.h"

int main(int argc, char **argv) { return tgc::importOnnxToolMain(argc, argv); }
