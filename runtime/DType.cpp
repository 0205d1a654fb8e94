//===- DType.cpp - element types of host tensors --------------------------===//

#include "runtime/DType.h"

#include <cassert>

using namespace tgc::runtime;

size_t tgc::runtime::dtypeSize(DType type) {
  switch (type) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::I1:
  case DType::I8:
    return 1;
  }
  assert(false && "unknown DType");
  return 0;
}

std::string_view tgc::runtime::dtypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F64:
    return "f64";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  assert(false && "unknown DType");
  return "<invalid>";
}

std::optional<DType> tgc::runtime::parseDType(std::string_view name) {
  for (DType type : kAllDTypes)
    if (dtypeName(type) == name)
      return type;
  return std::nullopt;
}

bool tgc::runtime::isFloatDType(DType type) {
  switch (type) {
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::F64:
    return true;
  case DType::I1:
  case DType::I8:
  case DType::I32:
  case DType::I64:
    return false;
  }
  assert(false && "unknown DType");
  return false;
}

unsigned tgc::runtime::dtypeBits(DType type) {
  return type == DType::I1 ? 1 : static_cast<unsigned>(dtypeSize(type) * 8);
}
