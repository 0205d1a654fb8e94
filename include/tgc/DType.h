//===- DType.h - element types of host tensors ------------------*- C++ -*-===//
//
// The element types the tgc runtime understands, with their sizes and names.
// Pure C++, no LLVM/MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DTYPE_H
#define TGC_DTYPE_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tgc::runtime {

/// Element type of a HostTensor. I1 is stored as one byte holding 0 or 1.
/// I8..I64 are signed two's complement integers (signless in MLIR), UI8..UI64
/// unsigned integers (MLIR's `ui8` etc.).
enum class DType : uint8_t {
  F32,
  F16,
  BF16,
  F64,
  I1,
  I8,
  I32,
  I64,
  I16,
  UI8,
  UI16,
  UI32,
  UI64
};

/// Every DType, in declaration order (handy for tests and loops).
inline constexpr DType kAllDTypes[] = {
    DType::F32,  DType::F16,  DType::BF16, DType::F64, DType::I1,
    DType::I8,   DType::I32,  DType::I64,  DType::I16, DType::UI8,
    DType::UI16, DType::UI32, DType::UI64};

/// Bytes per element (I1 takes one byte).
size_t dtypeSize(DType type);

/// "f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64", "i16", "ui8",
/// "ui16", "ui32", "ui64" (the MLIR spelling of the element type).
std::string_view dtypeName(DType type);

/// Inverse of dtypeName; std::nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);

/// True for F32, F16, BF16 and F64.
bool isFloatDType(DType type);

/// True for UI8, UI16, UI32 and UI64.
bool isUnsignedDType(DType type);

/// Bit width: 32, 16, 16, 64, 1, 8, 32, 64, 16, 8, 16, 32, 64.
unsigned dtypeBits(DType type);

} // namespace tgc::runtime

#endif // TGC_DTYPE_H
