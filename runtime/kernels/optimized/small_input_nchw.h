// A one-group NCHW convolution over few input channels (a network's RGB
// stem) through the channels-last direct kernel (conv_small_input.h): the
// image transposed to H x W x C, the filter to [kh][kw][ic][oc], the output
// computed channels-last into scratch, then transposed into out.
//
// The NCHW GEMM path runs such a layer at a depth of in_c * kh * kw (27 for
// a 3x3 RGB stem) over a stride-phase copy of the image, and for most
// strided stems through a staging copy of the output (its rows are one
// junk column longer): EfficientNet-B0's 3x3/2 stem took 845 us there,
// 736 this way (the channels-last kernel alone, through the XNNPACK
// delegate: 425; the rest is the two transposes). docs/performance-nchw.md.
//
// Stateless; buffers belong to the caller. Thread-compatible (ctx's threads).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SMALL_INPUT_NCHW_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SMALL_INPUT_NCHW_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/epilogue.h"

namespace edgefleet {
namespace optimized {

// Most taps of the windows taken: 3 x 3 stems gain 13-25 % (MobileNetV2,
// RegNet, EfficientNet-B0, MobileNetV3), ResNet's 7 x 7 / 2 stem stays
// level, and a ViT's 16 x 16 / 16 patch embedding (256 taps, each input
// read once) lost 50 % against the GEMM.
inline constexpr int64_t kMaxSmallInputNchwTaps = 25;

// True for the NCHW geometries ConvNchwSmallInput takes: one group, at most
// kSmallInputMaxChannels input channels, a 2-D window of at most
// kMaxSmallInputNchwTaps taps.
bool SmallInputNchwApplies(const ConvGeometry& g);

// y [batch, out_c, out_h, out_w] = conv(x [batch, in_c, in_h, in_w], w) +
// bias, clamped to [lo, hi], then `post`; `w` element (oc, ic, kh, kw) at
// w[oc * w_strides[0] + ic * w_strides[1] + kh * w_strides[2] + kw *
// w_strides[3]], bias [out_c] or null. Sums as ConvNhwcSmallInput does (from
// zero in (kh, kw, ic) order, fused multiply-adds, bias last). Returns false,
// with y untouched, if ctx's scratch does not fit. REQUIRES:
// SmallInputNchwApplies(g); y overlaps neither x nor w.
bool ConvNchwSmallInput(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                        const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                        PostOp post);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SMALL_INPUT_NCHW_H_
