//===- DTypeMapping.cpp - runtime dtypes <-> MLIR element types -----------===//

#include "dialects/DTypeMapping.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using tgc::runtime::DType;

Type tgc::toElementType(DType dtype, MLIRContext &context) {
  switch (dtype) {
  case DType::F32:
    return Float32Type::get(&context);
  case DType::F16:
    return Float16Type::get(&context);
  case DType::BF16:
    return BFloat16Type::get(&context);
  case DType::F64:
    return Float64Type::get(&context);
  case DType::I1:
    return IntegerType::get(&context, 1);
  case DType::I8:
    return IntegerType::get(&context, 8);
  case DType::I32:
    return IntegerType::get(&context, 32);
  case DType::I64:
    return IntegerType::get(&context, 64);
  case DType::I16:
    return IntegerType::get(&context, 16);
  case DType::UI8:
    return IntegerType::get(&context, 8, IntegerType::Unsigned);
  case DType::UI16:
    return IntegerType::get(&context, 16, IntegerType::Unsigned);
  case DType::UI32:
    return IntegerType::get(&context, 32, IntegerType::Unsigned);
  case DType::UI64:
    return IntegerType::get(&context, 64, IntegerType::Unsigned);
  }
  return Float32Type::get(&context);
}

std::optional<DType> tgc::toDType(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF64())
    return DType::F64;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.isUnsigned()) {
      switch (integer.getWidth()) {
      case 8:
        return DType::UI8;
      case 16:
        return DType::UI16;
      case 32:
        return DType::UI32;
      case 64:
        return DType::UI64;
      default:
        return std::nullopt;
      }
    }
    if (!integer.isSignless())
      return std::nullopt;
    switch (integer.getWidth()) {
    case 1:
      return DType::I1;
    case 8:
      return DType::I8;
    case 16:
      return DType::I16;
    case 32:
      return DType::I32;
    case 64:
      return DType::I64;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string tgc::typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}
