//===- ToolVersion.cpp - --version for the tgc tools ----------------------===//

#include "tools/lib/ToolVersion.h"

#include "tgc/Version.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

void tgc::installVersionPrinter(llvm::StringRef tool) {
  llvm::cl::SetVersionPrinter([tool](llvm::raw_ostream &os) {
    os << tool << " (tgc) " << TGC_VERSION << "\n"
       << "  built with LLVM/MLIR " << LLVM_VERSION_STRING << "\n";
  });
}
