//===- TgcDialect.h - tgc dialect -------------------------------*- C++ -*-===//

#ifndef TGC_DIALECTS_TGCDIALECT_H
#define TGC_DIALECTS_TGCDIALECT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <mutex>

#include "dialects/TgcDialect.h.inc"

#include "dialects/TgcEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TgcAttrs.h.inc"

namespace tgc::ir {
// The Layout and ComparePredicate enums live in tgc::ir (tgc::Layout and
// tgc::ComparePredicate are the public API's); attribute classes are
// generated in the dialect's namespace.
using LayoutAttr = ::tgc::LayoutAttr;
} // namespace tgc::ir

namespace tgc {
/// The meaning of a tgc.compare predicate on two values of one type, shared by
/// the folder and the reference interpreter (comparisons with NaN are false
/// except `ne`).
template <typename T>
bool evaluateCompare(ir::ComparePredicate predicate, T a, T b) {
  switch (predicate) {
  case ir::ComparePredicate::eq:
    return a == b;
  case ir::ComparePredicate::ne:
    return a != b;
  case ir::ComparePredicate::lt:
    return a < b;
  case ir::ComparePredicate::le:
    return a <= b;
  case ir::ComparePredicate::gt:
    return a > b;
  case ir::ComparePredicate::ge:
    return a >= b;
  }
  return false;
}
} // namespace tgc

#endif // TGC_DIALECTS_TGCDIALECT_H
