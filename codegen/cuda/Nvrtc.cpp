//===- Nvrtc.cpp - CUDA C++ to PTX or cubin with NVRTC --------------------===//

#include "codegen/cuda/Nvrtc.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

#include <nvrtc.h>

#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <vector>

using namespace tgc::cuda;

namespace {
/// NVRTC's entry points, resolved from libnvrtc on first use. Loading it at
/// start-up cost every tgc process ~27 MiB of resident pages (its own LLVM
/// runs static initializers) whether or not it compiled for a GPU.
struct NvrtcApi {
  nvrtcResult (*version)(int *, int *) = nullptr;
  decltype(&::nvrtcGetErrorString) getErrorString = nullptr;
  decltype(&::nvrtcGetNumSupportedArchs) getNumSupportedArchs = nullptr;
  decltype(&::nvrtcGetSupportedArchs) getSupportedArchs = nullptr;
  decltype(&::nvrtcCreateProgram) createProgram = nullptr;
  decltype(&::nvrtcDestroyProgram) destroyProgram = nullptr;
  decltype(&::nvrtcCompileProgram) compileProgram = nullptr;
  decltype(&::nvrtcGetProgramLogSize) getProgramLogSize = nullptr;
  decltype(&::nvrtcGetProgramLog) getProgramLog = nullptr;
  decltype(&::nvrtcGetPTXSize) getPtxSize = nullptr;
  decltype(&::nvrtcGetPTX) getPtx = nullptr;
  decltype(&::nvrtcGetCUBINSize) getCubinSize = nullptr;
  decltype(&::nvrtcGetCUBIN) getCubin = nullptr;
};

template <typename Fn> bool lookup(void *handle, const char *symbol, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return fn != nullptr;
}

absl::StatusOr<const NvrtcApi *> loadNvrtc() {
  // The SONAME first (LD_LIBRARY_PATH, the binary's RUNPATH: a GPU machine
  // has its own toolkit), then the library this build found.
  void *handle = nullptr;
  std::string tried;
  for (const char *name : {TGC_NVRTC_SONAME, TGC_NVRTC_PATH}) {
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle)
      break;
    const char *error = dlerror();
    absl::StrAppend(&tried, tried.empty() ? "" : "; ", error ? error : name);
  }
  if (!handle)
    return absl::NotFoundError(
        absl::StrCat("NVRTC could not be loaded (", tried, ")"));
  auto api = std::make_unique<NvrtcApi>();
  const char *missing = nullptr;
#define TGC_LOOKUP(field, symbol)                                              \
  if (!missing && !lookup(handle, symbol, api->field))                         \
    missing = symbol;
  TGC_LOOKUP(version, "nvrtcVersion")
  TGC_LOOKUP(getErrorString, "nvrtcGetErrorString")
  TGC_LOOKUP(getNumSupportedArchs, "nvrtcGetNumSupportedArchs")
  TGC_LOOKUP(getSupportedArchs, "nvrtcGetSupportedArchs")
  TGC_LOOKUP(createProgram, "nvrtcCreateProgram")
  TGC_LOOKUP(destroyProgram, "nvrtcDestroyProgram")
  TGC_LOOKUP(compileProgram, "nvrtcCompileProgram")
  TGC_LOOKUP(getProgramLogSize, "nvrtcGetProgramLogSize")
  TGC_LOOKUP(getProgramLog, "nvrtcGetProgramLog")
  TGC_LOOKUP(getPtxSize, "nvrtcGetPTXSize")
  TGC_LOOKUP(getPtx, "nvrtcGetPTX")
  TGC_LOOKUP(getCubinSize, "nvrtcGetCUBINSize")
  TGC_LOOKUP(getCubin, "nvrtcGetCUBIN")
#undef TGC_LOOKUP
  if (missing) {
    dlclose(handle);
    return absl::NotFoundError(absl::StrCat("the loaded NVRTC library lacks ",
                                            missing, " (too old?)"));
  }
  return api.release();
}

/// Loaded once per process (and never unloaded: NVRTC keeps global state).
absl::StatusOr<const NvrtcApi *> nvrtc() {
  static const absl::StatusOr<const NvrtcApi *> api = loadNvrtc();
  return api;
}
} // namespace

std::string tgc::cuda::nvrtcVersion() {
  absl::StatusOr<const NvrtcApi *> api = nvrtc();
  if (!api.ok())
    return absl::StrCat("NVRTC (not loaded: ", api.status().message(), ")");
  int major = 0, minor = 0;
  if ((*api)->version(&major, &minor) != NVRTC_SUCCESS)
    return "NVRTC (unknown version)";
  return absl::StrCat("NVRTC ", major, ".", minor);
}

absl::StatusOr<int> tgc::cuda::parseArch(const std::string &arch) {
  std::string digits = arch;
  for (const char *prefix : {"sm_", "compute_"})
    if (absl::StartsWith(digits, prefix))
      digits = digits.substr(std::strlen(prefix));
  int cc = 0;
  if (digits.empty() || !absl::SimpleAtoi(digits, &cc) || cc <= 0)
    return absl::InvalidArgumentError(absl::StrCat(
        "bad CUDA arch '", arch, "' (expected sm_NN, e.g. sm_90)"));
  absl::StatusOr<const NvrtcApi *> api = nvrtc();
  if (!api.ok())
    return api.status();
  int count = 0;
  if ((*api)->getNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    std::vector<int> archs(count);
    (*api)->getSupportedArchs(archs.data());
    bool supported = false;
    for (int a : archs)
      supported |= a == cc;
    if (!supported)
      return absl::InvalidArgumentError(absl::StrCat(
          "CUDA arch '", arch, "' is not supported by ", nvrtcVersion(),
          " (sm_", archs.front(), " to sm_", archs.back(), ")"));
  }
  return cc;
}

absl::StatusOr<std::string> tgc::cuda::compileCuda(const std::string &source,
                                                   const std::string &arch,
                                                   ImageKind kind,
                                                   std::string *ptx) {
  absl::StatusOr<int> cc = parseArch(arch);
  if (!cc.ok())
    return cc.status();
  const NvrtcApi &api = **nvrtc(); // parseArch checked that it loaded.
  nvrtcProgram program = nullptr;
  if (nvrtcResult r = api.createProgram(&program, source.c_str(),
                                        "tgc_kernels.cu", 0, nullptr, nullptr);
      r != NVRTC_SUCCESS)
    return absl::InternalError(
        absl::StrCat("nvrtcCreateProgram: ", api.getErrorString(r)));
  auto destroy = api.destroyProgram;
  struct ProgramGuard {
    nvrtcProgram *program;
    decltype(destroy) destroyFn;
    ~ProgramGuard() { destroyFn(program); }
  } guard{&program, destroy};
  std::string archOption = absl::StrCat(
      "--gpu-architecture=", kind == ImageKind::Ptx ? "compute_" : "sm_", *cc);
  const char *options[] = {archOption.c_str(), "--std=c++17",
                           "--device-as-default-execution-space"};
  nvrtcResult compiled =
      api.compileProgram(program, std::size(options), options);
  size_t logSize = 0;
  api.getProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize > 1)
    api.getProgramLog(program, log.data());
  if (compiled != NVRTC_SUCCESS)
    return absl::InvalidArgumentError(absl::StrCat(
        "NVRTC failed to compile the generated CUDA code for ", arch, ": ",
        api.getErrorString(compiled), "\n", log.c_str()));
  auto getPtx = [&] {
    size_t size = 0;
    api.getPtxSize(program, &size);
    std::string text(size, '\0');
    api.getPtx(program, text.data());
    // PTX is NUL-terminated text; keep the string's own terminator only.
    if (!text.empty() && text.back() == '\0')
      text.pop_back();
    return text;
  };
  if (kind == ImageKind::Ptx)
    return getPtx();
  size_t size = 0;
  api.getCubinSize(program, &size);
  std::string image(size, '\0');
  api.getCubin(program, image.data());
  if (ptx)
    *ptx = getPtx();
  return image;
}
