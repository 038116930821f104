// The per-plane state and the AVX-512 variants of the depthwise path
// (quantized_depthwise.h), shared by quantized_depthwise.cc (dispatch, the
// generic and phased variants), quantized_depthwise_tile.cc (channel
// tiles for small planes) and quantized_depthwise_vnni.cc (VNNI + VBMI for
// large planes). Internal to those files. Stateless; thread-compatible.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_DEPTHWISE_VARIANTS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_DEPTHWISE_VARIANTS_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/quantized_conv_packed.h"

namespace edgefleet {
namespace optimized {
namespace internal {

struct DepthwisePlane {
  const int8_t* x;  // one input plane, H x W
  int8_t* y;        // one output plane, OH x OW
  const float* w;   // kh * kw taps
  float scale, bias;
  float* plane;   // scratch: padded (x - zx), rows x row_width
  int8_t* dense;  // scratch: one dense output row (strided convolutions)
};

struct DepthwiseGeometry {
  int64_t h, w, oh, ow;
  int64_t row_width, rows, dense_width;
  const QuantizedConvSpec* s;
  float inv, lo, hi, zp;
  Isa isa;
};

#if defined(__x86_64__)
#define EF_AVX512_DW __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma")))
#define EF_VBMI_DW \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi,avx2,fma")))

// Small planes (quantized_depthwise_tile.cc): 16 channels at a time, one
// channel per lane.
constexpr int64_t kTileMaxPixels = 1024;

struct ChannelTileScratch {
  float* tile;  // [hp * wp][16]
  int8_t* out;  // [oh * ow + 16][16]
};

size_t ChannelTileBytes(int64_t hp, int64_t wp, int64_t oh, int64_t ow);

EF_AVX512_DW void DepthwiseChannelTileAvx512(const DepthwiseGeometry& g, const Packed& pk,
                                             const int8_t* x, int8_t* y, int64_t c0, int64_t nc,
                                             const ChannelTileScratch& sc);

// Large planes on AVX-512 VNNI + VBMI (quantized_depthwise_vnni.cc).
bool HostVbmi();
bool VnniDepthwiseApplies(const QuantizedConvSpec& s);
int64_t VnniDepthwiseRowBytes(const QuantizedConvSpec& s, int64_t w, int64_t ow);
EF_VBMI_DW void DepthwisePlaneVnni(const DepthwiseGeometry& g, const DepthwisePlane& p,
                                   uint8_t* plane);
#endif

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_DEPTHWISE_VARIANTS_H_
