//===- CompilerLibrary.cpp - libtgc_compiler ------------------------------===//
//
// libtgc_compiler.so is the compiler's libraries (frontend/, tracing/,
// frontend/onnx/ and what they pull in), linked whole over libtgc; libtgc
// loads it on first use (frontend/CompilerLoader.cpp, cmake/Install.cmake).
// This file is the target's one source; the code is in the archives.
//
//===----------------------------------------------------------------------===//
