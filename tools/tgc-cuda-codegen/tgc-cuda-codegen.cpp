//===- tgc-cuda-codegen.cpp - print generated CUDA code and PTX -----------===//

#include "tools/lib/CudaCodegenTool.h"

int main(int argc, char **argv) { return tgc::cudaCodegenToolMain(argc, argv); }
