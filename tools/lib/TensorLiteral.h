//===- TensorLiteral.h - tensors written on a command line ------*- C++ -*-===//

#ifndef TGC_TOOLS_LIB_TENSORLITERAL_H
#define TGC_TOOLS_LIB_TENSORLITERAL_H

#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace tgc {

/// The most elements a literal may fill (4 Mi: 16 MiB of f32; larger
/// tensors belong in a .npy file).
inline constexpr int64_t kMaxLiteralElements = int64_t{1} << 22;

/// Parses an inline tensor literal `[DIMSx]DTYPE=V1,V2,...` such as
/// `2x3xf32=1,2,3,4,5,6` or `i64=7`; a single value fills the whole tensor,
/// floats take nan/inf/-inf, i1 takes true/false. Bad dims, types, counts
/// and numbers, and shapes over kMaxLiteralElements, are errors naming the
/// literal.
llvm::Expected<runtime::HostTensor> parseTensorLiteral(llvm::StringRef spec);

} // namespace tgc

#endif // TGC_TOOLS_LIB_TENSORLITERAL_H
