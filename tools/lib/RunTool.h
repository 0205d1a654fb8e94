//===- RunTool.h - the tgc-run command line tool ----------------*- C++ -*-===//

#ifndef TGC_TOOLS_LIB_RUNTOOL_H
#define TGC_TOOLS_LIB_RUNTOOL_H

#include "runtime/HostTensor.h"

#include "llvm/Support/Error.h"

#include <random>
#include <string>

namespace tgc {

/// Parses an inline tensor literal `[DIMSx]DTYPE=V1,V2,...` such as
/// `2x3xf32=1,2,3,4,5,6` or `i64=7`; a single value fills the whole tensor.
llvm::Expected<runtime::HostTensor> parseTensorLiteral(llvm::StringRef spec);

/// Runs tgc-run with the given command line; returns the process exit code.
int runToolMain(int argc, char **argv);

} // namespace tgc

#endif // TGC_TOOLS_LIB_RUNTOOL_H
