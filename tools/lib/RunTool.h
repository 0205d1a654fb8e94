//===- RunTool.h - the tgc-run command line tool ----------------*- C++ -*-===//

#ifndef TGC_TOOLS_LIB_RUNTOOL_H
#define TGC_TOOLS_LIB_RUNTOOL_H

#include "tools/lib/TensorLiteral.h"

#include "llvm/Support/Error.h"

#include <random>
#include <string>

namespace tgc {

/// Runs tgc-run with the given command line; returns the process exit code.
int runToolMain(int argc, char **argv);

} // namespace tgc

#endif // TGC_TOOLS_LIB_RUNTOOL_H
