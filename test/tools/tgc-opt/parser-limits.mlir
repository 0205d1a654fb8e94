// Input MLIR 22's parser crashes on is refused with a located error first
// (tools/lib/InputGuard.h): nesting deeper than 256 levels overflows the
// parser's stack, and a dense array of `index` crashes it. Nesting up to the
// limit, `!llvm.array<...>` types and brackets in comments and strings are
// fine.
// RUN: not tgc-opt %S/Inputs/deep-nesting.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not tgc-run %S/Inputs/deep-nesting.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not tgc-opt %s -split-input-file 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not tgc-run %s 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: sed -n '/^\/\/ OK-BEGIN/,/^\/\/ OK-END/p' %s | tgc-opt | FileCheck %s --check-prefix=OK

// DEEP: deep-nesting.mlir:3:281: error: nesting deeper than 256 levels of brackets is not supported
// ARRAY: parser-limits.mlir:[[# @LINE + 1]]:38: error: dense arrays hold i1, i8, i16, i32, i64, f32 or f64 elements, not 'index'
func.func @f() attributes {x = array<index: 1>} {
  return
}

// OK-BEGIN
// OK: func.func @g() attributes {s = "((((((((", t = !llvm.array<4 x i32>, x = array<i64: 1, 2>}
func.func @g() attributes {x = array<i64: 1, 2>, s = "((((((((", t = !llvm.array<4 x i32>} {
  return
}
// OK-END
