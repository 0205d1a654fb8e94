//===- ToolVersion.h - --version for the tgc tools --------------*- C++ -*-===//

#ifndef TGC_TOOLS_LIB_TOOLVERSION_H
#define TGC_TOOLS_LIB_TOOLVERSION_H

#include "llvm/ADT/StringRef.h"

namespace tgc {

/// Makes `--version` print "<tool> (tgc) <TGC_VERSION>" and the LLVM/MLIR
/// version tgc was built with, instead of LLVM's own banner. Call before
/// the command line is parsed; `tool` must outlive the parse (a literal).
void installVersionPrinter(llvm::StringRef tool);

} // namespace tgc

#endif // TGC_TOOLS_LIB_TOOLVERSION_H
