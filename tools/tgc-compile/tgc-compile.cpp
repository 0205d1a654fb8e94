//===- tgc-compile.cpp - compile a tgc function ahead of time -------------===//

#include "tools/lib/CompileTool.h"
#include "tools/lib/ToolVersion.h"

int main(int argc, char **argv) {
  tgc::installVersionPrinter("tgc-compile");
  return tgc::compileToolMain(argc, argv);
}
