//===- Precision.h - the arithmetic a compile may trade for speed -*- C++
//-*-===//
//
// The precision policy of a compile (docs/precision.md), chosen with
// FunctionOptions::precision, ModelOptions::precision,
// EngineOptions::precision, `tgc-run --precision=...`, `tgc-compile
// --precision=...` or TGC_PRECISION:
//
//   F32   every op in its own dtype (the default).
//   BF16  contractions (convolutions, matmuls) of f32 tensors multiply in
//         bfloat16 and accumulate in f32, on a CPU with native bf16
//         (AVX512_BF16 or AMX; elsewhere a compile error: oneDNN would
//         emulate it, slower than f32). Bias, post-ops, softmax, norms,
//         reductions, exp/log and every other op stay f32; activations
//         between bf16 convolutions in a blocked layout are kept in bf16.
//   Int8  post-training quantization with a calibration table (CPU;
//         docs/precision.md).
//   F16   the CUDA backend: convolutions and matmuls multiply IEEE half
//         values on tensor cores (cuDNN / cuBLASLt, f32 accumulation), and
//         the activations, biases and residual adds between them stay half
//         (tgc-reduce-precision); softmax, norms, reductions and exp/log
//         stay f32. The CPU backend has no f16 policy (a compile error).
//   Auto  CPU: BF16 where the CPU has native bf16, F32 elsewhere. CUDA:
//         F16.
//
// BF16 on the CUDA backend is F16's policy with bfloat16 values.
//
// Part of the public API: no MLIR, LLVM or oneDNN header.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_PRECISION_H
#define TGC_PRECISION_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tgc {

enum class Precision {
  /// Not asked for: TGC_PRECISION decides (unset: F32).
  Default,
  F32,
  BF16,
  Int8,
  Auto,
  F16,
};

/// "default", "f32", "bf16", "int8", "auto", "f16".
const char *toString(Precision precision);

/// Parses a policy: "default", "f32" / "fp32" / "float32", "bf16" /
/// "bfloat16", "f16" / "fp16" / "float16" / "half", "int8", "auto" (any
/// case); nullopt for anything else.
std::optional<Precision> parsePrecision(std::string_view text);

/// The policy TGC_PRECISION asks for (Default when unset or not
/// understood).
Precision precisionFromEnvironment();

/// How Model::calibrate and ConcreteFunction::calibrate make an int8
/// calibration table (docs/precision.md).
struct CalibrationOptions {
  /// "minmax", "entropy" (TensorRT's KL divergence) or "percentile"
  /// (99.99%).
  std::string calibrator = "entropy";
  /// Where the table is written (ModelOptions / FunctionOptions /
  /// EngineOptions::calibrationTable read it).
  std::string tablePath;
  /// Signed activations quantized symmetric (s8, zero point 0) rather than
  /// asymmetric (u8 with a zero point, the default).
  bool symmetricActivations = false;
  /// Contractions kept in f32, left out of the table (NNCF's ignored
  /// scope, quantize_static's nodes_to_exclude): ONNX node names ("#3"
  /// for the graph's unnamed node 3), or a traced op's source location
  /// ("file.cpp:12" or "file.cpp:12:7"). Each must name a calibrated
  /// contraction.
  std::vector<std::string> excludedNodes;
  /// Quantize the contractions whose result is a result of the function
  /// too (a classifier's logits). By default they stay f32, as in
  /// TensorRT's and NNCF's accuracy recipes: their error reaches the
  /// output undamped, and their work is small (ResNet-50's fc, an MLP's
  /// last layer: no measurable time; the MLP's top-1 agreement with f32
  /// 98.91% -> 99.08%, docs/precision.md).
  bool quantizeOutputLayers = false;
};

/// `requested` unless it is Default, else TGC_PRECISION's policy.
inline Precision resolvePrecision(Precision requested) {
  return requested != Precision::Default ? requested
                                         : precisionFromEnvironment();
}

} // namespace tgc

#endif // TGC_PRECISION_H
