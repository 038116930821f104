// Depthwise convolution (groups == input channels) computed directly, per
// channel: no GEMM, since each output reads only taps x 1 input channel.
//
// Both kernels sum w * x over (kh, kw) from 0 and add the bias last, in the
// order the portable kernel (and the real runtime's) does, with separate
// multiply and add, so results are bit-identical to it (up to the sign of a
// zero: NCHW reads padding as zeros instead of skipping it).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_DEPTHWISE_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_DEPTHWISE_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/epilogue.h"

namespace edgefleet {
namespace optimized {

// Most taps (k_h * k_w) the direct kernels take.
inline constexpr int64_t kMaxDepthwiseTaps = 64;

// NCHW, contiguous x and y; out_c = in_c * multiplier. `w_strides` are the
// weight's [oc, 1, kh, kw] strides; bias may be null. Each output is then
// clamped to [lo, hi] (x < lo -> lo, then x > hi -> hi; NaN stays: a fused
// relu / hardtanh / clamp; the default bounds change nothing), then `post`
// is applied (epilogue.h). With
// `in_place`, y may start at x (batch 1, output planes no larger than
// input planes): every input plane is copied before the output bytes over
// it are written. Returns false (nothing written) if the scratch memory is
// not available.
bool DepthwiseNchw(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                   const int64_t* w_strides, const float* bias, float* y,
                   float lo = -__builtin_inff(), float hi = __builtin_inff(), bool in_place = false,
                   PostOp post = PostOp::kNone);

// Channels-last x and y; out_c == in_c.
bool DepthwiseNhwc(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                   const int64_t* w_strides, const float* bias, float* y,
                   float lo = -__builtin_inff(), float hi = __builtin_inff(),
                   PostOp post = PostOp::kNone);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_DEPTHWISE_H_
