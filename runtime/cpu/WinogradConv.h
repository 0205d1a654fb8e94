//===- WinogradConv.h - native Winograd convolution (private) ---*- C++ -*-===//
//
// A 3x3 convolution by Winograd's F(2x2, 3x3) algorithm for CPUs where
// oneDNN 2.6 has none (AVX2 without AVX-512): the input's 4x4 tiles and the
// filter are transformed, 16 independent GEMMs multiply them (oneDNN's
// sgemm), and the products transform back into 2x2 output tiles with the
// bias and a ReLU. Private to runtime/cpu.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CPU_WINOGRADCONV_H
#define TGC_RUNTIME_CPU_WINOGRADCONV_H

#include "runtime/cpu/Kernels.h"

namespace tgc::runtime::cpu::detail {

/// Whether `desc` runs on the native Winograd kernel here: asked for
/// (Conv2DDesc::winograd), a winogradCandidate in plain NHWC with a
/// constant f32 filter without NaN or infinities, at least 64 input and
/// output channels in multiples of 8, at most a ReLU after the bias, at
/// least 48 output tiles of 2x2, a transformed filter of at most 16 MiB, on a
/// CPU with AVX2 and FMA where oneDNN has no Winograd kernel (CpuIsa::winograd
/// false).
bool nativeWinogradPays(const Conv2DDesc &desc);

/// The native Winograd kernel for `desc` (nativeWinogradPays). Where the
/// input holds NaN or an infinity, which Winograd's transforms would spread
/// over a whole tile, the direct convolution runs instead (made on first
/// need, reading the filter from input 1). Inputs: input, filter, [bias].
/// Its name is "native.conv2d.winograd".
absl::StatusOr<KernelPtr> createNativeWinogradConv2D(const Conv2DDesc &desc);

} // namespace tgc::runtime::cpu::detail

#endif // TGC_RUNTIME_CPU_WINOGRADCONV_H
