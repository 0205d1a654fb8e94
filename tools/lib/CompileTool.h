//===- CompileTool.h - the tgc-compile command line tool --------*- C++ -*-===//
//
// tgc-compile MODEL(.onnx|.mlir) -o OUT.tgcx: compiles a function ahead of
// time for the CPU backend and saves the plan (runtime/cpu/PlanFile.h), which
// tgc-run and the runtime alone (tgc::Artifact) load and run.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_LIB_COMPILETOOL_H
#define TGC_TOOLS_LIB_COMPILETOOL_H

namespace tgc {

/// Runs tgc-compile with the given command line; returns the exit code.
int compileToolMain(int argc, char **argv);

} // namespace tgc

#endif // TGC_TOOLS_LIB_COMPILETOOL_H
