// Int8 pointwise (1x1) convolution over channels-last activations with
// fp32 requantization, the arithmetic of XNNPACK's int8 convolutions:
//
//   acc[p][c] = correction[c] + sum_k (x[p][k] + 128) * w[c][k]   (int32, wrapping)
//   y[p][c]   = min(max(round_half_even(float(acc) * scale[c]),
//                       out_min - zy), out_max - zy) + zy
//
// The caller folds its bias and input zero point zx into the correction:
// correction[c] = bias[c] - (zx + 128) * sum_k w[c][k] gives
// bias[c] + sum_k (x - zx) * w. Rows of x (pixels) are read in place,
// `depth` bytes apart; the weights are packed once (PackInt8Pointwise) into
// panels of kInt8PointwiseNr output channels; each row of y is written with
// vector stores. AVX-512 VNNI only (Int8PointwiseAvailable()).
//
// Stateless; thread-safe (callers split rows between threads).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_POINTWISE_NHWC_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_POINTWISE_NHWC_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/conv_operands.h"

namespace edgefleet {
namespace optimized {

inline constexpr int64_t kInt8PointwiseNr = 64;  // output channels per weight panel

// Whether the host runs the kernel (AVX-512 VNNI, not capped by ForceIsa).
bool Int8PointwiseAvailable();

// Channels rounded up to whole panels (the length of the correction and
// scale arrays the kernel reads).
inline int64_t Int8PointwiseUnitsPadded(int64_t units) {
  return (units + kInt8PointwiseNr - 1) / kInt8PointwiseNr * kInt8PointwiseNr;
}

// Bytes of the packed weights for `units` x `depth`.
inline size_t Int8PointwisePackedBytes(int64_t units, int64_t depth) {
  return static_cast<size_t>(Int8PointwiseUnitsPadded(units) * ((depth + 3) / 4 * 4));
}

// Packs w[c][k] (units x depth, contiguous) into `packed`
// (Int8PointwisePackedBytes): panel p, group k4: 64 channels x 4 bytes,
// zeros past the edges.
void PackInt8Pointwise(const int8_t* w, int64_t units, int64_t depth, int8_t* packed);

struct Int8PointwiseParams {
  const int32_t* correction;  // Int8PointwiseUnitsPadded(units) entries
  const float* scale;         // as many
  int32_t out_zero_point;
  int32_t out_min, out_max;  // int8 bounds, out_min <= out_max
};

// y[p][c] for rows [p0, p1) (y rows are `units` bytes apart).
// REQUIRES: Int8PointwiseAvailable().
void Int8PointwiseRows(const int8_t* x, int64_t depth, const int8_t* packed, int64_t units,
                       const Int8PointwiseParams& params, int8_t* y, int64_t p0, int64_t p1);

// The patches of a one-group convolution with geometry `g` over an NHWC
// int8 input `x`, for output pixels [p0, p1) (batch-major), as rows of
// `row_bytes` bytes (>= k_h * k_w * in_c, in the filter's (kh, kw, channel)
// order; the rest zeros), padding read as `pad_value` (the input zero
// point): ready for Int8PointwiseRows with depth = row_bytes.
// REQUIRES: Int8PointwiseAvailable().
void GatherInt8Patches(const ConvGeometry& g, int8_t pad_value, const int8_t* x, int64_t p0,
                       int64_t p1, int64_t row_bytes, int8_t* dst);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_INT8_POINTWISE_NHWC_H_
