// Int8 depthwise convolution (one channel per group, depth multiplier 1)
// over channels-last activations with fp32 requantization, the arithmetic
// of XNNPACK's int8 depthwise convolutions:
//
//   acc[p][c] = correction[c] + sum_t (x_t[p][c] + 128) * w[t][c]   (int32, wrapping)
//   y[p][c]   = min(max(round_half_even(float(acc) * scale[c]),
//                       out_min - zy), out_max - zy) + zy
//
// over the window's taps t, padding read as the input zero point zx; the
// caller folds its bias and zx into the correction
// (correction[c] = bias[c] - (zx + 128) * sum_t w[t][c]). Four taps at a
// time meet in one VNNI dot product per channel: the taps' bytes are
// interleaved per 128-bit lane, so the filter, corrections and scales are
// packed once (PackInt8Depthwise) in that lane order. AVX-512 VNNI only
// (Int8PointwiseAvailable(), int8_pointwise_nhwc.h).
//
// Stateless; thread-safe (callers split output pixels between threads).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_DEPTHWISE_NHWC_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_DEPTHWISE_NHWC_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/conv_operands.h"

namespace edgefleet {
namespace optimized {

inline constexpr int64_t kInt8DepthwiseBlock = 64;  // channels per block
inline constexpr int64_t kInt8DepthwiseMaxTaps = 64;

// Bytes of the packed filter, corrections and scales for `channels`
// channels and `taps` taps (kh * kw).
size_t Int8DepthwisePackedBytes(int64_t channels, int64_t taps);

// Packs w[t][c] (taps x channels, contiguous: the [1, kh, kw, C] filter),
// correction[c] and scale[c] into `packed` (Int8DepthwisePackedBytes,
// 64-byte aligned).
void PackInt8Depthwise(const int8_t* w, const int32_t* correction, const float* scale,
                       int64_t channels, int64_t taps, uint8_t* packed);

// y for output pixels [p0, p1) (batch-major) of the depthwise convolution
// with geometry `g` (in_c == out_c == groups) over the NHWC input x.
// `pad_row`: at least in_c bytes of the input zero point, rounded up to a
// whole block. REQUIRES: Int8PointwiseAvailable(), g.taps() <=
// kInt8DepthwiseMaxTaps, out_min <= out_max within int8.
void Int8DepthwiseRows(const ConvGeometry& g, const int8_t* x, const int8_t* pad_row,
                       const uint8_t* packed, int32_t out_zero_point, int32_t out_min,
                       int32_t out_max, int8_t* y, int64_t p0, int64_t p1);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_DEPTHWISE_NHWC_H_
