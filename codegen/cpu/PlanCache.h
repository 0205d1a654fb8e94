//===- PlanCache.h - whole CPU plans in the persistent cache ----*- C++ -*-===//
//
// cpu::compile through the persistent compilation cache
// (CompileOptions::cacheDir, TGC_CACHE_DIR): a compile whose plan is in the
// directory maps it (runtime/cpu/PlanFile.h: kernels made again from their
// recipes, prepacked weights taken from the file) instead of running the
// pipeline and code generation; a compile that misses stores its plan.
//
// The key is a 128-bit hash of the function (its text with locations, large
// constants elided, and an XXH64 of every dense constant's bytes), the
// input shapes, every option that changes the plan, the ISA and target the
// plan is for, and the LLVM/oneDNN/tgc versions and the tgc binary's
// identity (KernelObjectCache::buildIdentity).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CPU_PLANCACHE_H
#define TGC_CODEGEN_CPU_PLANCACHE_H

#include "codegen/Backend.h"
#include "codegen/cpu/Compiler.h"
#include "runtime/cpu/PlanFile.h"

#include <optional>
#include <string>

namespace tgc::cpu {

/// The cache key of compiling `func` for `inputShapes` with `options`.
std::string planCacheKey(mlir::func::FuncOp func,
                         const std::vector<std::vector<int64_t>> &inputShapes,
                         const CompileOptions &options);

struct CachedCompile {
  CompiledFunction compiled;
  /// The plan came from the cache (no compile ran); `compiled.module` is
  /// null then.
  bool loaded = false;
  /// Why it was not loaded ("absent", ...); empty on a hit or without a
  /// cache directory.
  std::string missReason;
};

/// cpu::compile, served from and stored into options.cacheDir when set. A
/// cache that cannot be read or written is no error: the function compiles.
llvm::Expected<CachedCompile>
compileCached(mlir::func::FuncOp func,
              const std::vector<std::vector<int64_t>> &inputShapes,
              const CompileOptions &options);

/// A key for the plan of a source file (an ONNX model) that lets a client
/// find the plan without reading the file (BackendOptions::planAlias): the
/// file's identity (real path, device, inode, size, modification and change
/// times in ns: any write changes the change time), `extra` (the client's
/// options), the compile options of the environment, the ISA and the tgc
/// build. None where the file cannot be stat'ed.
std::optional<std::string> sourceFileKey(const std::string &path,
                                         const std::string &extra);

/// Whether the ONNX model at `path` may have external data (its bytes hold
/// "location", the key of an external data entry): a sourceFileKey does not
/// cover those files, so such a model's plan gets none.
bool mayHaveExternalData(const std::string &path);

/// What a saved plan of `func` records about it: "function" (its name)
/// and, where every argument has a name (an imported ONNX model's inputs),
/// "inputs" (the names, one per line).
runtime::cpu::PlanMetadata planMetadata(mlir::func::FuncOp func);

/// A loaded plan (runtime::cpu::loadPlan) as the CPU backend's compiled
/// function (loadedFromCache() is true; it has no module).
std::unique_ptr<codegen::CompiledFunction>
makeLoadedCpuFunction(std::shared_ptr<const runtime::Executable> executable);

} // namespace tgc::cpu

#endif // TGC_CODEGEN_CPU_PLANCACHE_H
