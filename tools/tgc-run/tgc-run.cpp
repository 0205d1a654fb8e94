//===- tgc-run.cpp - run a tgc function -----------------------------------===//

#include "tools/lib/RunTool.h"
#include "tools/lib/ToolVersion.h"

int main(int argc, char **argv) {
  tgc::installVersionPrinter("tgc-run");
  return tgc::runToolMain(argc, argv);
}
