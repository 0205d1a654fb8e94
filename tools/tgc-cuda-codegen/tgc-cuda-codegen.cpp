//===- tgc-cuda-codegen.cpp - print generated CUDA code and PTX -----------===//

#include "tools/lib/CudaCodegenTool.h"
#include "tools/lib/ToolVersion.h"

int main(int argc, char **argv) {
  tgc::installVersionPrinter("tgc-cuda-codegen");
  return tgc::cudaCodegenToolMain(argc, argv);
}
