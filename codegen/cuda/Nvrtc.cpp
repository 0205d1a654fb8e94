//===- Nvrtc.cpp - CUDA C++ to PTX or cubin with NVRTC --------------------===//

#include "codegen/cuda/Nvrtc.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

#include <nvrtc.h>

#include <cstring>
#include <memory>
#include <vector>

using namespace tgc::cuda;

std::string tgc::cuda::nvrtcVersion() {
  int major = 0, minor = 0;
  if (::nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
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
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
    std::vector<int> archs(count);
    nvrtcGetSupportedArchs(archs.data());
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
  nvrtcProgram program = nullptr;
  if (nvrtcResult r = nvrtcCreateProgram(&program, source.c_str(),
                                         "tgc_kernels.cu", 0, nullptr, nullptr);
      r != NVRTC_SUCCESS)
    return absl::InternalError(
        absl::StrCat("nvrtcCreateProgram: ", nvrtcGetErrorString(r)));
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram *)> guard(
      &program, [](nvrtcProgram *p) { nvrtcDestroyProgram(p); });
  std::string archOption = absl::StrCat(
      "--gpu-architecture=", kind == ImageKind::Ptx ? "compute_" : "sm_", *cc);
  const char *options[] = {archOption.c_str(), "--std=c++17",
                           "--device-as-default-execution-space"};
  nvrtcResult compiled =
      nvrtcCompileProgram(program, std::size(options), options);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize > 1)
    nvrtcGetProgramLog(program, log.data());
  if (compiled != NVRTC_SUCCESS)
    return absl::InvalidArgumentError(absl::StrCat(
        "NVRTC failed to compile the generated CUDA code for ", arch, ": ",
        nvrtcGetErrorString(compiled), "\n", log.c_str()));
  auto getPtx = [&] {
    size_t size = 0;
    nvrtcGetPTXSize(program, &size);
    std::string text(size, '\0');
    nvrtcGetPTX(program, text.data());
    // PTX is NUL-terminated text; keep the string's own terminator only.
    if (!text.empty() && text.back() == '\0')
      text.pop_back();
    return text;
  };
  if (kind == ImageKind::Ptx)
    return getPtx();
  size_t size = 0;
  nvrtcGetCUBINSize(program, &size);
  std::string image(size, '\0');
  nvrtcGetCUBIN(program, image.data());
  if (ptx)
    *ptx = getPtx();
  return image;
}
