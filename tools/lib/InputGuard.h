//===- InputGuard.h - refuse .mlir text MLIR's parser crashes on -*- C++
//-*-===//
//
// MLIR 22's parser recurses once per nesting level of brackets, parentheses,
// braces and angle brackets, so deeply nested input overflows the stack, and
// a dense array of an element type it does not support (`array<index: 1>`)
// crashes in FloatType::getWidth. The tools check their input text here
// first and report such input with a location instead of crashing.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_LIB_INPUTGUARD_H
#define TGC_TOOLS_LIB_INPUTGUARD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace tgc {

/// The deepest nesting of `(`, `[`, `{` and `<` the tools parse.
inline constexpr int kMaxInputNesting = 256;

/// Checks `.mlir` text (named `bufferName` in messages) for what MLIR's
/// parser cannot take without crashing: nesting deeper than
/// kMaxInputNesting, and `array<T: ...>` with T other than i1, i8, i16, i32,
/// i64, f32 or f64. The error reads `name:line:col: error: ...`. Comments
/// and string literals are skipped.
llvm::Error checkParserLimits(llvm::StringRef text, llvm::StringRef bufferName);

} // namespace tgc

#endif // TGC_TOOLS_LIB_INPUTGUARD_H
