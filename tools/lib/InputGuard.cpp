//===- InputGuard.cpp - refuse .mlir text MLIR's parser crashes on --------===//

#include "tools/lib/InputGuard.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace {
/// The error at byte `offset` of `text`.
Error errorAt(StringRef text, size_t offset, StringRef bufferName,
              const Twine &message) {
  StringRef before = text.take_front(offset);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column =
      offset - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1;
  return createStringError(inconvertibleErrorCode(),
                           bufferName + ":" + Twine(line) + ":" +
                               Twine(column) + ": error: " + message);
}

bool isDenseArrayElementType(StringRef type) {
  return type == "i1" || type == "i8" || type == "i16" || type == "i32" ||
         type == "i64" || type == "f32" || type == "f64";
}
} // namespace

Error tgc::checkParserLimits(StringRef text, StringRef bufferName) {
  int depth = 0;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      size_t end = text.find('\n', i);
      if (end == StringRef::npos)
        break;
      i = end;
      continue;
    }
    if (c == '"') {
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxInputNesting)
        return errorAt(text, i, bufferName,
                       "nesting deeper than " + Twine(kMaxInputNesting) +
                           " levels of brackets is not supported");
      StringRef before = text.substr(0, i);
      if (c == '<' && before.ends_with("array") &&
          (before.size() == 5 || !(isAlnum(before[before.size() - 6]) ||
                                   before[before.size() - 6] == '.' ||
                                   before[before.size() - 6] == '_'))) {
        // array<TYPE: ...> or array<TYPE>: the element type is a name.
        size_t start = i + 1;
        while (start < n && isSpace(text[start]))
          ++start;
        size_t end = start;
        while (end < n && (isAlnum(text[end]) || text[end] == '_'))
          ++end;
        StringRef type = text.slice(start, end);
        if (!isDenseArrayElementType(type))
          return errorAt(text, start, bufferName,
                         "dense arrays hold i1, i8, i16, i32, i64, f32 or "
                         "f64 elements, not '" +
                             type + "'");
      }
      continue;
    }
    if (c == ')' || c == ']' || c == '}' ||
        (c == '>' && !(i > 0 && text[i - 1] == '-') &&
         !(i + 1 < n && text[i + 1] == '=')))
      depth = depth > 0 ? depth - 1 : 0;
  }
  return Error::success();
}
