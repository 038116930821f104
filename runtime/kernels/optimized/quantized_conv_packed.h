// The packed weight blob of edgefleet::quantized_convolution (internal to
// quantized_conv.cc and quantized_depthwise.cc): a Packed header followed,
// at 64-byte aligned offsets, by per-channel corrections, scales, biases and
// the weights (int8 GEMM panels, float taps for depthwise, or the float
// chain's dequantized weights). Plain data.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_PACKED_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_PACKED_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/quantized_conv.h"

namespace edgefleet {
namespace optimized {
namespace internal {

inline constexpr size_t kAlign = 64;

inline size_t RoundUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

struct Packed {
  uint32_t magic;
  QuantizedConvSpec spec;
  float inv_out_scale;
  int32_t depthwise;     // 1: direct depthwise path (float weights)
  int32_t chain;         // 1: float-chain path (quantized_conv_chain.h)
  int64_t depth;         // per group: in_channels / groups * kh * kw
  int64_t depth_padded;  // multiple of 4
  int64_t rows_padded;   // per group: multiple of kQGemmMr
  uint64_t correction_offset, scale_offset, bias_offset, weight_offset;
  uint64_t panel_offset;  // linear: weights as kQGemmNr-column panels (GEMV)
  uint64_t total_bytes;

  const int32_t* correction() const {
    return reinterpret_cast<const int32_t*>(Bytes() + correction_offset);
  }
  const float* scale() const { return reinterpret_cast<const float*>(Bytes() + scale_offset); }
  const float* bias() const { return reinterpret_cast<const float*>(Bytes() + bias_offset); }
  const int8_t* weight() const { return reinterpret_cast<const int8_t*>(Bytes() + weight_offset); }
  const float* float_weight() const {
    return reinterpret_cast<const float*>(Bytes() + weight_offset);
  }
  const uint8_t* Bytes() const { return reinterpret_cast<const uint8_t*>(this); }
};

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_PACKED_H_
