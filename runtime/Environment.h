//===- Environment.h - the TGC_* environment variables ----------*- C++ -*-===//
//
// Every environment variable tgc reads, in one table with one parsing rule.
// They are defaults for the options structs (cpu::CompileOptions,
// runtime::RunOptions, FunctionOptions) and the tools' flags, which are read
// once where a compile or a run starts; an explicit option or flag wins.
//
// Flags: 1, true, on, yes (any case) are true; 0, false, off, no are false;
// unset or empty is the default; anything else is the default too, and
// `tgc-run --print-settings` says it was not understood.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_ENVIRONMENT_H
#define TGC_RUNTIME_ENVIRONMENT_H

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tgc::runtime::env {

struct Setting {
  enum class Kind { Flag, Integer, Text };
  std::string_view name;
  Kind kind;
  /// The value when unset, as text ("1", "0", "auto", ...).
  std::string_view defaultValue;
  std::string_view description;
};

/// Every TGC_* variable, in the order docs and tools list them.
std::span<const Setting> settings();

/// The setting called `name`, or null.
const Setting *lookup(std::string_view name);

/// A flag's value under the one rule; `name` must be a Flag setting.
bool flag(std::string_view name);
/// An integer setting, or nullopt when unset or not a number.
std::optional<int64_t> integer(std::string_view name);
/// A text setting, or "" when unset.
std::string text(std::string_view name);

/// Parses a flag's text: true, false, or nullopt when not understood.
std::optional<bool> parseFlag(std::string_view value);

/// One line per TGC_* variable set in the environment: "NAME=value" with
/// what it means, or why it is ignored (unknown name, value not
/// understood).
std::vector<std::string> describeActive();

} // namespace tgc::runtime::env

#endif // TGC_RUNTIME_ENVIRONMENT_H
