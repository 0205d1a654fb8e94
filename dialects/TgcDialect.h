//===- TgcDialect.h - tgc dialect -------------------------------*- C++ -*-===//

#ifndef TGC_DIALECTS_TGCDIALECT_H
#define TGC_DIALECTS_TGCDIALECT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "dialects/TgcDialect.h.inc"

#include "dialects/TgcEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TgcAttrs.h.inc"

#endif // TGC_DIALECTS_TGCDIALECT_H
