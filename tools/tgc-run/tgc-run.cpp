//===- tgc-run.cpp - run a tgc function -----------------------------------===//

#include "tools/lib/RunTool.h"

int main(int argc, char **argv) { return tgc::runToolMain(argc, argv); }
