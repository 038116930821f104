// A float32 2-D convolution on raw channels-last buffers, for callers that
// hold no Tensors (the XNNPACK delegate's nodes): the code behind
// aten::convolution.out's fast path (convolution.cc) — the direct depthwise
// kernels, a direct kernel for one-group convolutions over at most
// kSmallInputMaxChannels input channels with output channels contiguous in
// the filter (conv_small_input.h), else the packed GEMM reading 1x1 images in
// place or packing patches block by block.
//
// Stateless; buffers belong to the caller. Thread-compatible (uses the
// kernels' thread pool through ctx).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONVOLUTION_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONVOLUTION_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/epilogue.h"

namespace edgefleet {
namespace optimized {

// y [batch, out_h, out_w, out_c] = conv(x [batch, in_h, in_w, in_c], w) +
// bias, each output then clamped to [lo, hi] (x < lo -> lo, then x > hi ->
// hi; NaN stays), then `post` (epilogue.h). `w` element (oc, ic, kh, kw)
// (ic within the group) is at
// w[oc * w_strides[0] + ic * w_strides[1] + kh * w_strides[2] +
// kw * w_strides[3]]; bias [out_c] or null. Returns false, with y
// unspecified, if ctx's scratch memory does not fit. REQUIRES: `g` is a
// valid geometry (out_h / out_w follow from the others, groups divide both
// channel counts); y overlaps neither x nor w.
bool ConvolutionNhwc(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                     const int64_t* w_strides, const float* bias, float* y,
                     float lo = -__builtin_inff(), float hi = __builtin_inff(),
                     PostOp post = PostOp::kNone);

// The same for one group (REQUIRES: g.groups == 1) with the filter as
// the packed GEMM's B in column panels: PackPanels (gemm.h) over the
// [out_c x (kh, kw, in_c)] matrix of the OHWI filter, made once by the
// caller. Runs on the GEMM (reading a 1x1 image in place, packing
// patches otherwise).
bool ConvolutionNhwcPanels(KernelContext& ctx, const ConvGeometry& g, const float* x,
                           const float* w_panels, const float* bias, float* y,
                           float lo = -__builtin_inff(), float hi = __builtin_inff(),
                           PostOp post = PostOp::kNone);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONVOLUTION_H_
