//===- DType.cpp - element types of host tensors --------------------------===//

#include "tgc/DType.h"

#include <cassert>

using namespace tgc::runtime;

size_t tgc::runtime::dtypeSize(DType type) {
  switch (type) {
  case DType::F32:
  case DType::I32:
  case DType::UI32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::UI16:
    return 2;
  case DType::F64:
  case DType::I64:
  case DType::UI64:
    return 8;
  case DType::I1:
  case DType::I8:
  case DType::UI8:
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
  case DType::I16:
    return "i16";
  case DType::UI8:
    return "ui8";
  case DType::UI16:
    return "ui16";
  case DType::UI32:
    return "ui32";
  case DType::UI64:
    return "ui64";
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
  case DType::I16:
  case DType::UI8:
  case DType::UI16:
  case DType::UI32:
  case DType::UI64:
    return false;
  }
  assert(false && "unknown DType");
  return false;
}

bool tgc::runtime::isUnsignedDType(DType type) {
  return type == DType::UI8 || type == DType::UI16 || type == DType::UI32 ||
         type == DType::UI64;
}

unsigned tgc::runtime::dtypeBits(DType type) {
  return type == DType::I1 ? 1 : static_cast<unsigned>(dtypeSize(type) * 8);
}
