//===- ImportTool.h - the tgc-import-onnx command line tool -----*- C++ -*-===//

#ifndef TGC_TOOLS_LIB_IMPORTTOOL_H
#define TGC_TOOLS_LIB_IMPORTTOOL_H

namespace tgc {

/// Runs tgc-import-onnx with the given command line; returns the process exit
/// code.
int importOnnxToolMain(int argc, char **argv);

} // namespace tgc

#endif // TGC_TOOLS_LIB_IMPORTTOOL_H
