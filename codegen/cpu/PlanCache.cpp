//===- PlanCache.cpp - whole CPU plans in the persistent cache ------------===//

#include "codegen/cpu/PlanCache.h"
#include "runtime/cpu/SourceKey.h"

#include "codegen/cpu/KernelObjectCache.h"
#include "dialects/ConstantData.h"
#include "runtime/Hash.h"
#include "runtime/cpu/Kernels.h"
#include "runtime/cpu/PlanFile.h"
#include "tgc/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <dnnl.hpp>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;

namespace tgc::cpu {
namespace {

/// XXH64 of the bytes of every dense constant in `func` (walk order); the
/// printed text elides them.
uint64_t hashConstantData(func::FuncOp func) {
  runtime::Hash64 hash;
  auto visit = [&](Attribute attr) {
    // A file-backed weight's bytes are read from the file's mapping, whose
    // pages go again once hashed.
    if (auto elements = dyn_cast<ElementsAttr>(attr))
      visitStoredConstantBytes(elements, [&](ArrayRef<char> raw) {
        hash.update(raw.data(), raw.size());
      });
  };
  func->walk([&](Operation *op) { op->getAttrDictionary().walk(visit); });
  return hash.digest();
}

/// Files the plan stored under `key` under `alias` too: a hard link (the
/// same bytes), made beside and renamed over any old one.
void linkAlias(const KernelObjectCache &cache, const std::string &key,
               const std::string &alias) {
  if (alias.empty() || alias == key)
    return;
  std::string target = cache.planPathOf(alias);
  std::string temp = target + ".link" + std::to_string(::getpid());
  llvm::sys::fs::remove(temp);
  if (llvm::sys::fs::create_hard_link(cache.planPathOf(key), temp))
    return;
  if (llvm::sys::fs::rename(temp, target))
    llvm::sys::fs::remove(temp);
}

} // namespace

std::optional<std::string> sourceFileKey(const std::string &path,
                                         const std::string &extra) {
  // Runtime-only (runtime/cpu/SourceKey.h): tgc-run's front end finds the
  // plan without the compiler.
  return runtime::cpu::sourceFileKey(path, extra,
                                     KernelObjectCache::buildIdentity());
}

bool mayHaveExternalData(const std::string &path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return true;
  llvm::StringRef bytes = (*file)->getBuffer();
  for (const char *at = bytes.data(), *end = at + bytes.size();
       (at = static_cast<const char *>(std::memchr(at, 'l', end - at))); ++at)
    if (end - at >= 8 && std::memcmp(at, "location", 8) == 0)
      return true;
  return false;
}

runtime::cpu::PlanMetadata planMetadata(mlir::func::FuncOp func) {
  std::string inputs;
  bool named = true;
  for (BlockArgument arg : func.getArguments()) {
    auto loc = dyn_cast<NameLoc>(arg.getLoc());
    named &= loc && !loc.getName().getValue().contains('\n');
    if (!named)
      break;
    if (arg.getArgNumber())
      inputs += "\n";
    inputs += loc.getName().str();
  }
  runtime::cpu::PlanMetadata metadata = {{"function", func.getSymName().str()}};
  if (named && func.getNumArguments())
    metadata.push_back({"inputs", inputs});
  return metadata;
}

std::string planCacheKey(mlir::func::FuncOp func,
                         const std::vector<std::vector<int64_t>> &inputShapes,
                         const CompileOptions &options) {
  std::string material;
  llvm::raw_string_ostream os(material);
  os << "tgc cpu plan v" << runtime::cpu::kPlanFormatVersion << "\n";
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(16).enableDebugInfo(/*enable=*/true,
                                                    /*prettyForm=*/false);
  func->print(os, flags);
  os << "\nconstants=" << llvm::format_hex(hashConstantData(func), 18);
  os << "\nshapes=";
  for (const auto &shape : inputShapes) {
    os << "[";
    for (int64_t d : shape)
      os << d << ",";
    os << "]";
  }
  os << "\noptions=" << options.enableOneDnn << options.optimize << options.fuse
     << " threads=" << runtime::resolveThreadCount(options.numThreads)
     << " layouts=" << static_cast<int>(options.activationLayouts)
     << " winograd=" << options.winograd << " loops=" << options.loopVectorize
     << "/" << options.loopVectorTile << " interop=" << options.interOp
     << " determinism=" << toString(options.determinism)
     << " precision=" << toString(options.precision);
  if (options.precision == Precision::Int8 && options.calibration)
    os << " calibration=" << options.calibration->digest();
  const dnnl_version_t *dnnl = dnnl_version();
  os << "\nisa=" << runtime::cpu::cpuIsa().name
     << " target=" << targetDescription() << "\nllvm=" << LLVM_VERSION_STRING
     << " onednn=" << dnnl->major << "." << dnnl->minor << "." << dnnl->patch
     << " tgc=" << TGC_VERSION << " " << KernelObjectCache::buildIdentity();
  return KernelObjectCache::keyOf(material);
}

llvm::Expected<CachedCompile>
compileCached(mlir::func::FuncOp func,
              const std::vector<std::vector<int64_t>> &inputShapes,
              const CompileOptions &requested) {
  // The key holds the policy as this CPU runs it (auto and bf16 share).
  auto resolved = resolveCompileOptions(requested);
  if (!resolved)
    return resolved.takeError();
  const CompileOptions &options = *resolved;
  CachedCompile result;
  std::shared_ptr<KernelObjectCache> cache;
  std::string key;
  if (!options.cacheDir.empty()) {
    if (auto opened = KernelObjectCache::open(options.cacheDir); opened.ok())
      cache = *opened;
  }
  if (cache) {
    key = planCacheKey(func, inputShapes, options);
    KernelObjectCache::PlanLookup hit = cache->loadPlan(key);
    if (hit.executable) {
      result.compiled.executable = std::move(hit.executable);
      result.loaded = true;
      linkAlias(*cache, key, options.planAlias);
      return result;
    }
    result.missReason = std::move(hit.missReason);
  }
  auto compiled = compile(func, inputShapes, options);
  if (!compiled)
    return compiled.takeError();
  result.compiled = std::move(*compiled);
  runtime::cpu::PlanMetadata metadata = planMetadata(func);
  metadata.push_back({"threads", std::to_string(runtime::resolveThreadCount(
                                     options.numThreads))});
  metadata.push_back({"precision", toString(options.precision)});
  metadata.insert(metadata.end(), options.planNotes.begin(),
                  options.planNotes.end());
  if (cache && runtime::cpu::checkSavable(*result.compiled.executable).ok() &&
      cache->storePlan(key, *result.compiled.executable, metadata).ok())
    linkAlias(*cache, key, options.planAlias);
  return result;
}

} // namespace tgc::cpu
