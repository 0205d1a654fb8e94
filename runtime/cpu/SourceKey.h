//===- SourceKey.h - persistent-cache keys of source files ------*- C++ -*-===//
//
// The key a model file's whole plan is filed under in the persistent
// compilation cache, from the file's identity (real path, device, inode,
// size, modification and change times: no read of its bytes), the compile
// settings of the environment, the CPU, tgc's version and the identity of
// the compiler build. Runtime-only, so that a process without the compiler
// (tgc-run's front end) finds the plans the compiler stored.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CPU_SOURCEKEY_H
#define TGC_RUNTIME_CPU_SOURCEKEY_H

#include <optional>
#include <string>
#include <string_view>

namespace tgc::runtime::cpu {

/// 32 hex digits: two XXH64 digests of `material`.
std::string keyOfMaterial(std::string_view material);

/// "REALPATH SIZE MTIME" of the file at `path` (seconds), or `path` when it
/// cannot be examined: identifies a build of a program or library.
std::string fileIdentity(const std::string &path);

/// The compile settings TGC_* variables give (what BackendOptions::
/// fromEnvironment reads), as text for keys.
std::string compileSettingsText();

/// The key of the regular file at `path` with `extra` (the client's
/// options) and `buildIdentity` (the compiler's fileIdentity); nullopt when
/// the file cannot be examined.
std::optional<std::string> sourceFileKey(const std::string &path,
                                         const std::string &extra,
                                         const std::string &buildIdentity);

/// Where a cache directory keeps the plan filed under `key`.
std::string cachedPlanPath(const std::string &directory,
                           const std::string &key);

} // namespace tgc::runtime::cpu

#endif // TGC_RUNTIME_CPU_SOURCEKEY_H
