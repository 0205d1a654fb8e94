//===- SourceKey.cpp - persistent-cache keys of source files --------------===//

#include "runtime/cpu/SourceKey.h"

#include "runtime/Environment.h"
#include "runtime/Hash.h"
#include "runtime/cpu/Kernels.h"
#include "tgc/Version.h"

#include <sys/stat.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

namespace tgc::runtime::cpu {

std::string keyOfMaterial(std::string_view material) {
  char text[33];
  std::snprintf(
      text, sizeof text, "%016llx%016llx",
      static_cast<unsigned long long>(hash64(material, 0)),
      static_cast<unsigned long long>(hash64(material, 0x9E3779B97F4A7C15ULL)));
  return text;
}

std::string fileIdentity(const std::string &path) {
  char resolved[PATH_MAX];
  std::string real = ::realpath(path.c_str(), resolved) ? resolved : path;
  struct stat st;
  if (::stat(real.c_str(), &st) != 0)
    return real;
  return real + " " + std::to_string(st.st_size) + " " +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec));
}

std::string compileSettingsText() {
  std::string layouts = env::text("TGC_BLOCKED_LAYOUTS");
  if (layouts == "1" || layouts == "any")
    layouts = "any";
  else if (layouts == "blocked" || layouts == "16" || layouts == "nChw16c" ||
           layouts == "8" || layouts == "nChw8c")
    layouts = "blocked";
  else if (layouts == "0" || layouts == "plain")
    layouts = "plain";
  else
    layouts = "auto";
  int64_t tile = env::integer("TGC_LOOP_VECTOR_TILE").value_or(0);
  return std::string("optimize=1 fuse=") +
         (env::flag("TGC_FUSION") ? "1" : "0") +
         " onednn=" + (env::flag("TGC_ENABLE_ONEDNN") ? "1" : "0") +
         " layouts=" + layouts +
         " winograd=" + (env::flag("TGC_WINOGRAD") ? "1" : "0") +
         " loops=" + (env::flag("TGC_LOOP_VECTORIZE") ? "1" : "0") + "/" +
         std::to_string(tile >= 8 ? tile : 64);
}

std::optional<std::string> sourceFileKey(const std::string &path,
                                         const std::string &extra,
                                         const std::string &buildIdentity) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved))
    return std::nullopt;
  std::string material =
      std::string("tgc source plan v2\nfile=") + resolved + " " +
      std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
      std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) +
      "." + std::to_string(st.st_mtim.tv_nsec) + " " +
      std::to_string(st.st_ctim.tv_sec) + "." +
      std::to_string(st.st_ctim.tv_nsec) + "\nextra=" + extra +
      "\nenv=" + compileSettingsText() + "\nisa=" + cpuIsa().name +
      " tgc=" + TGC_VERSION + " " + buildIdentity;
  return keyOfMaterial(material);
}

std::string cachedPlanPath(const std::string &directory,
                           const std::string &key) {
  std::string path = directory;
  if (!path.empty() && path.back() != '/')
    path += '/';
  return path + key + ".tgcx";
}

} // namespace tgc::runtime::cpu
