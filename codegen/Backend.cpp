//===- Backend.cpp - the backend registry ---------------------------------===//

#include "codegen/Backend.h"

#include "runtime/Environment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>

using namespace tgc;
using namespace tgc::codegen;

char UnsupportedError::ID = 0;

void UnsupportedError::log(llvm::raw_ostream &os) const { os << message; }

std::error_code UnsupportedError::convertToErrorCode() const {
  return std::make_error_code(std::errc::not_supported);
}

llvm::Error codegen::makeUnsupportedError(const llvm::Twine &message) {
  return llvm::make_error<UnsupportedError>(message.str());
}

BackendOptions BackendOptions::fromEnvironment() {
  BackendOptions options;
  options.fuse = runtime::env::flag("TGC_FUSION");
  options.enableOneDnn = runtime::env::flag("TGC_ENABLE_ONEDNN");
  options.winograd = runtime::env::flag("TGC_WINOGRAD");
  std::string layouts = runtime::env::text("TGC_BLOCKED_LAYOUTS");
  if (layouts == "1" || layouts == "any")
    options.activationLayouts = "any";
  else if (layouts == "blocked" || layouts == "16" || layouts == "nChw16c" ||
           layouts == "8" || layouts == "nChw8c")
    options.activationLayouts = "blocked";
  else if (layouts == "0" || layouts == "plain")
    options.activationLayouts = "plain";
  options.loopVectorize = runtime::env::flag("TGC_LOOP_VECTORIZE");
  int64_t tile = runtime::env::integer("TGC_LOOP_VECTOR_TILE").value_or(0);
  options.loopVectorTile = tile >= 8 ? tile : 64;
  options.dumpJit = runtime::env::flag("TGC_DUMP_JIT");
  options.cacheDir = runtime::env::text("TGC_CACHE_DIR");
  options.determinism = determinismFromEnvironment();
  options.precision = precisionFromEnvironment();
  return options;
}

CompiledFunction::~CompiledFunction() = default;
Backend::~Backend() = default;

llvm::Expected<std::unique_ptr<CompiledFunction>>
Backend::loadArtifact(const std::string &path) const {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "the " + name() + " backend loads no artifacts ('" + path + "')");
}

namespace {
struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Backend>> backends;
};

Registry &registry() {
  static Registry *instance = new Registry();
  return *instance;
}
} // namespace

void codegen::registerBackend(std::unique_ptr<Backend> backend) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  if (llvm::any_of(r.backends, [&](const std::unique_ptr<Backend> &b) {
        return b->name() == backend->name();
      }))
    return;
  r.backends.push_back(std::move(backend));
}

const Backend *codegen::lookupBackend(llvm::StringRef name) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  for (const std::unique_ptr<Backend> &backend : r.backends)
    if (backend->name() == name)
      return backend.get();
  return nullptr;
}

std::vector<std::string> codegen::registeredBackends() {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const std::unique_ptr<Backend> &backend : r.backends)
    names.push_back(backend->name().str());
  std::sort(names.begin(), names.end());
  return names;
}

llvm::StringRef codegen::noCudaCodegenMessage() {
  return "this build of tgc has no CUDA code generation (configure with the "
         "CUDA toolkit: TGC_ENABLE_CUDA=ON)";
}

llvm::Expected<const Backend *> codegen::getBackend(llvm::StringRef name) {
  if (const Backend *backend = lookupBackend(name))
    return backend;
  if (name == "cuda")
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   noCudaCodegenMessage());
  std::vector<std::string> names = registeredBackends();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown backend '" + name + "' (available: " +
                                     llvm::join(names, ", ") + ")");
}
