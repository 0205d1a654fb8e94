//===- InputQuantization.h - a contraction's quantized input ----*- C++ -*-===//
//
// tgc-absorb-fake-quant (passes/AbsorbFakeQuant.cpp) folds a quantize /
// dequantize pair (a QDQ ONNX model's QuantizeLinear + DequantizeLinear, as
// the importer spells them in elementwise ops) on a conv2d's or matmul's
// activation input into the contraction: the contraction then reads the
// float input and carries `tgc.input_quantization = {scale, zero_point,
// storage}` (ui8, or i8: signed), meaning that its input is first rounded
// to that grid,
//   x -> (clamp(round_half_even(x / scale) + zero_point, lo, hi) -
//         zero_point) * scale
// with [lo, hi] the storage type's range (ui8: [0, 255]; i8: [-128, 127]).
// The reference interpreter applies exactly that; the CPU backend runs the
// contraction as an int8 kernel with that scale and zero point.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_DIALECTS_INPUTQUANTIZATION_H
#define TGC_DIALECTS_INPUTQUANTIZATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace tgc {

struct InputQuantization {
  double scale = 1;
  int64_t zeroPoint = 0;
  /// ui8 storage (else i8).
  bool isUnsigned = true;

  double lowest() const { return isUnsigned ? 0 : -128; }
  double highest() const { return isUnsigned ? 255 : 127; }
  /// A positive finite scale and a zero point in the storage's range.
  bool valid() const {
    return scale > 0 && std::isfinite(scale) && zeroPoint >= lowest() &&
           zeroPoint <= highest();
  }
  /// `x` rounded to the grid, in float (QuantizeLinear then
  /// DequantizeLinear, computed in float as the importer's ops do).
  float apply(float x) const {
    float s = static_cast<float>(scale);
    float q = std::nearbyint(x / s) + static_cast<float>(zeroPoint);
    q = std::fmin(std::fmax(q, static_cast<float>(lowest())),
                  static_cast<float>(highest()));
    return (q - static_cast<float>(zeroPoint)) * s;
  }
};

inline constexpr llvm::StringLiteral kInputQuantizationAttr =
    "tgc.input_quantization";

/// The quantization `op` (a conv2d or matmul) applies to its input, if any;
/// nullopt also for a malformed attribute.
inline std::optional<InputQuantization>
getInputQuantization(mlir::Operation *op) {
  auto dict = op->getAttrOfType<mlir::DictionaryAttr>(kInputQuantizationAttr);
  if (!dict)
    return std::nullopt;
  auto scale = dict.getAs<mlir::FloatAttr>("scale");
  auto zeroPoint = dict.getAs<mlir::IntegerAttr>("zero_point");
  auto storage = dict.getAs<mlir::TypeAttr>("storage");
  if (!scale || !zeroPoint || !storage)
    return std::nullopt;
  auto type = mlir::dyn_cast<mlir::IntegerType>(storage.getValue());
  if (!type || type.getWidth() != 8)
    return std::nullopt;
  InputQuantization q;
  q.scale = scale.getValueAsDouble();
  q.zeroPoint = zeroPoint.getInt();
  q.isUnsigned = type.isUnsigned();
  if (!q.valid())
    return std::nullopt;
  return q;
}

inline void setInputQuantization(mlir::Operation *op,
                                 const InputQuantization &q) {
  mlir::Builder b(op->getContext());
  mlir::NamedAttribute entries[] = {
      b.getNamedAttr("scale", b.getF64FloatAttr(q.scale)),
      b.getNamedAttr("storage",
                     mlir::TypeAttr::get(mlir::IntegerType::get(
                         op->getContext(), 8,
                         q.isUnsigned ? mlir::IntegerType::Unsigned
                                      : mlir::IntegerType::Signless))),
      b.getNamedAttr("zero_point", b.getI64IntegerAttr(q.zeroPoint))};
  op->setAttr(kInputQuantizationAttr, b.getDictionaryAttr(entries));
}

} // namespace tgc

#endif // TGC_DIALECTS_INPUTQUANTIZATION_H
