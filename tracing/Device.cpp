//===- Device.cpp - where a traced function runs and a tensor lives -------===//

#include "tgc/Device.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tgc/AbslStatus.h"

#include <cctype>

using namespace tgc;

tgc::StatusOr<Device> Device::parse(std::string_view spelled) {
  absl::string_view text(spelled.data(), spelled.size());
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid device '", text, "': ", why,
                     " (expected cpu, cuda or cuda:N)"));
  };
  if (text == "cpu")
    return Device::cpu();
  if (text == "cuda")
    return Device::cuda(0);
  if (!absl::StartsWith(text, "cuda:"))
    return invalid("unknown device kind");
  absl::string_view number = text.substr(5);
  if (number.empty())
    return invalid("missing ordinal after 'cuda:'");
  for (char c : number)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return invalid("the ordinal must be a non-negative decimal number");
  int ordinal = 0;
  if (!absl::SimpleAtoi(number, &ordinal))
    return invalid("the ordinal is out of range");
  return Device::cuda(ordinal);
}

std::string Device::str() const {
  if (kind == Kind::Cpu)
    return "cpu";
  return absl::StrCat("cuda:", ordinal);
}
