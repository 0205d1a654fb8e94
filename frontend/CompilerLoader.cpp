//===- CompilerLoader.cpp - libtgc's compiler, loaded on first use --------===//
//
// libtgc holds the runtime and the compiler-free half of the public API
// (tgc::Model's cached plans, host tensors, .npy files, artifacts, the
// engine). The compiler (tracing, ONNX import, passes, codegen; libLLVM,
// libMLIR, libonnx, libprotobuf behind them) is libtgc_compiler in the same
// directory. libtgc exports a stub for each of its public functions
// (cmake/CompilerStubs.py writes them); the first call of any of them
// comes here, loads the library and points every stub at its function.
// So a process that only runs cached or ahead-of-time plans never maps
// LLVM or MLIR: about 30 ms and 80 MiB less at start.
//
// Only libtgc holds this file; programs that link the compiler statically
// (the tools, the tests) call the compiler directly.
//
//===----------------------------------------------------------------------===//

#include "runtime/LargeBuffer.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#ifndef TGC_COMPILER_LIBRARY
#error "TGC_COMPILER_LIBRARY (the compiler's file name) is not defined"
#endif

// Written by cmake/CompilerStubs.py.
#define TGC_HIDDEN __attribute__((visibility("hidden")))
extern "C" {
TGC_HIDDEN extern void *tgc_compiler_slots[];
TGC_HIDDEN extern const unsigned tgc_compiler_symbol_count;
TGC_HIDDEN extern const char tgc_compiler_symbol_names[];
TGC_HIDDEN void *tgc_compiler_resolve(unsigned index);
}

namespace tgc::detail {

const char *compilerLibraryPath() {
  // Beside libtgc (the build tree's lib/ or the installed libdir).
  static const std::string *path = [] {
    std::string directory = ".";
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&compilerLibraryPath), &info) &&
        info.dli_fname) {
      std::string self = info.dli_fname;
      size_t slash = self.rfind('/');
      if (slash != std::string::npos)
        directory = self.substr(0, slash);
    }
    return new std::string(directory + "/" TGC_COMPILER_LIBRARY);
  }();
  return path->c_str();
}

} // namespace tgc::detail

namespace {

[[noreturn]] void fail(const std::string &message) {
  // Reached only when libtgc and libtgc_compiler do not belong together
  // (a partial install, or files of two builds): nothing to return to, as
  // the caller's function does not exist.
  std::fprintf(stderr, "tgc: %s\n", message.c_str());
  std::abort();
}

/// Loads the compiler and fills every slot (once).
void loadCompiler() {
  const char *path = tgc::detail::compilerLibraryPath();
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    fail(std::string("cannot load the compiler library ") + path + ": " +
         (error ? error : "unknown error") +
         " (libtgc needs it beside itself to trace, import or compile)");
  }
  Dl_info self;
  if (!dladdr(reinterpret_cast<void *>(&loadCompiler), &self))
    self.dli_fbase = nullptr;
  const char *name = tgc_compiler_symbol_names;
  for (unsigned i = 0; i < tgc_compiler_symbol_count; ++i) {
    void *function = dlsym(handle, name);
    Dl_info where;
    if (!function ||
        (dladdr(function, &where) && where.dli_fbase == self.dli_fbase))
      fail(std::string(path) + " does not define " + name +
           ": it is not the compiler this libtgc was built with");
    __atomic_store_n(&tgc_compiler_slots[i], function, __ATOMIC_RELEASE);
    name += std::strlen(name) + 1;
  }
  // Loading ran the compiler's static constructors (LLVM's and MLIR's),
  // whose page faults made tens of megabytes of its code resident that no
  // compile runs again: they go back (runtime::releaseCodePages; what runs
  // comes back from the file).
  if (tgc_compiler_symbol_count > 0)
    tgc::runtime::releaseCodePages(
        {__atomic_load_n(&tgc_compiler_slots[0], __ATOMIC_ACQUIRE)});
}

} // namespace

extern "C" void *tgc_compiler_resolve(unsigned index) {
  static std::once_flag once;
  std::call_once(once, loadCompiler);
  return __atomic_load_n(&tgc_compiler_slots[index], __ATOMIC_ACQUIRE);
}
