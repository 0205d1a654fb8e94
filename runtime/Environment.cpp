//===- Environment.cpp - the TGC_* environment variables ------------------===//

#include "runtime/Environment.h"
#include "tgc/Determinism.h"
#include "tgc/Precision.h"

#include "absl/strings/ascii.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>

extern char **environ;

using namespace tgc::runtime;
using Kind = env::Setting::Kind;

namespace {

constexpr std::array<env::Setting, 16> kSettings = {{
    {"TGC_NUM_THREADS", Kind::Integer, "0",
     "intra-op threads when no option or flag gives them (0 or unset: "
     "OMP_NUM_THREADS, then every core)"},
    {"TGC_THREAD_BUDGET", Kind::Integer, "0",
     "intra-op threads all running requests of a process's compiled models "
     "may use at once (0 or unset: the CPUs the process may run on)"},
    {"TGC_FUSION", Kind::Flag, "1",
     "compile with the tgc-cpu pipeline's fusions (0: tgc-cpu-unfused)"},
    {"TGC_ENABLE_ONEDNN", Kind::Flag, "1",
     "run contractions, pools and normalizations on oneDNN (0: every op on "
     "its reference kernel)"},
    {"TGC_WINOGRAD", Kind::Flag, "1",
     "Winograd kernels for eligible 3x3 convolutions where the ISA has them"},
    {"TGC_BLOCKED_LAYOUTS", Kind::Text, "auto",
     "activation layouts between convolutions: auto, plain (0), any (1, "
     "oneDNN's pick) or blocked (nChw16c/nChw8c)"},
    {"TGC_LOOP_VECTORIZE", Kind::Flag, "1",
     "vectorize the JIT-compiled loop fusions"},
    {"TGC_LOOP_VECTOR_TILE", Kind::Integer, "64",
     "elements per vectorized loop tile (at least 8)"},
    {"TGC_DETERMINISTIC", Kind::Text, "0",
     "the determinism contract when no option or flag gives one: 0 (none), "
     "1 or run-to-run (bitwise run to run at a fixed thread count), strict "
     "(also across thread counts)"},
    {"TGC_PRECISION", Kind::Text, "f32",
     "the precision policy when no option or flag gives one: f32, bf16 "
     "(contractions multiply in bfloat16 on AVX512_BF16/AMX CPUs), int8 or "
     "auto (bf16 where native, else f32)"},
    {"TGC_VERBOSE", Kind::Flag, "0",
     "print every executable step as it runs (to stderr)"},
    {"TGC_DUMP_JIT", Kind::Flag, "0",
     "print the LLVM dialect module of every JIT-compiled loop kernel"},
    {"TGC_CACHE_DIR", Kind::Text, "",
     "persistent compilation cache directory, shared by processes (empty: "
     "none)"},
    {"TGC_CUDA_DRIVER", Kind::Text, "libcuda.so.1",
     "the CUDA driver library to dlopen"},
    {"TGC_CUBLASLT_LIBRARY", Kind::Text, "libcublasLt.so.13",
     "the cuBLASLt library to dlopen"},
    {"TGC_CUDNN_LIBRARY", Kind::Text, "libcudnn.so.9",
     "the cuDNN library to dlopen"},
}};

const char *raw(std::string_view name) {
  return std::getenv(std::string(name).c_str());
}

} // namespace

std::span<const env::Setting> env::settings() {
  return {kSettings.data(), kSettings.size()};
}

const env::Setting *env::lookup(std::string_view name) {
  for (const Setting &setting : kSettings)
    if (setting.name == name)
      return &setting;
  return nullptr;
}

std::optional<bool> env::parseFlag(std::string_view value) {
  std::string lower(value);
  for (char &c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "1" || lower == "true" || lower == "on" || lower == "yes")
    return true;
  if (lower == "0" || lower == "false" || lower == "off" || lower == "no")
    return false;
  return std::nullopt;
}

bool env::flag(std::string_view name) {
  const Setting *setting = lookup(name);
  bool fallback = setting && setting->defaultValue == "1";
  const char *value = raw(name);
  if (!value || !*value)
    return fallback;
  return parseFlag(value).value_or(fallback);
}

std::optional<int64_t> env::integer(std::string_view name) {
  const char *value = raw(name);
  if (!value || !*value)
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  long long result = std::strtoll(value, &end, 10);
  if (errno != 0 || *end != '\0')
    return std::nullopt;
  return static_cast<int64_t>(result);
}

std::string env::text(std::string_view name) {
  const char *value = raw(name);
  return value ? value : "";
}

std::vector<std::string> env::describeActive() {
  std::vector<std::string> lines;
  for (char **entry = environ; entry && *entry; ++entry) {
    std::string_view item(*entry);
    if (item.substr(0, 4) != "TGC_")
      continue;
    size_t eq = item.find('=');
    std::string_view name = item.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? "" : item.substr(eq + 1);
    const Setting *setting = lookup(name);
    std::string line = std::string(name) + "=" + std::string(value);
    if (!setting) {
      line += "  (unknown: ignored; see --print-settings)";
    } else if (setting->kind == Kind::Flag && !value.empty() &&
               !parseFlag(value)) {
      line += "  (not understood: " + std::string(setting->defaultValue) +
              " is used; flags take 1/0, true/false, on/off, yes/no)";
    } else if (setting->kind == Kind::Integer && !value.empty() &&
               !integer(name)) {
      line += "  (not a number: ignored)";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

//===----------------------------------------------------------------------===//
// Determinism levels (include/tgc/Determinism.h)
//===----------------------------------------------------------------------===//

const char *tgc::toString(Determinism level) {
  switch (level) {
  case Determinism::Default:
    return "default";
  case Determinism::RunToRun:
    return "run-to-run";
  case Determinism::Strict:
    return "strict";
  }
  return "default";
}

std::optional<tgc::Determinism> tgc::parseDeterminism(std::string_view text) {
  std::string lower;
  for (char c : text)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "default")
    return Determinism::Default;
  if (lower == "run-to-run")
    return Determinism::RunToRun;
  if (lower == "strict")
    return Determinism::Strict;
  if (std::optional<bool> flag = env::parseFlag(lower))
    return *flag ? Determinism::RunToRun : Determinism::Default;
  return std::nullopt;
}

tgc::Determinism tgc::determinismFromEnvironment() {
  return parseDeterminism(env::text("TGC_DETERMINISTIC"))
      .value_or(Determinism::Default);
}

//===----------------------------------------------------------------------===//
// Precision policies (include/tgc/Precision.h)
//===----------------------------------------------------------------------===//

const char *tgc::toString(Precision precision) {
  switch (precision) {
  case Precision::Default:
    return "default";
  case Precision::F32:
    return "f32";
  case Precision::BF16:
    return "bf16";
  case Precision::Int8:
    return "int8";
  case Precision::Auto:
    return "auto";
  case Precision::F16:
    return "f16";
  }
  return "default";
}

std::optional<tgc::Precision> tgc::parsePrecision(std::string_view text) {
  std::string lower = absl::AsciiStrToLower(std::string(text));
  if (lower == "default")
    return Precision::Default;
  if (lower == "f32" || lower == "fp32" || lower == "float32")
    return Precision::F32;
  if (lower == "bf16" || lower == "bfloat16")
    return Precision::BF16;
  if (lower == "f16" || lower == "fp16" || lower == "float16" ||
      lower == "half")
    return Precision::F16;
  if (lower == "int8")
    return Precision::Int8;
  if (lower == "auto")
    return Precision::Auto;
  return std::nullopt;
}

tgc::Precision tgc::precisionFromEnvironment() {
  return parsePrecision(env::text("TGC_PRECISION"))
      .value_or(Precision::Default);
}
