// Depthwise convolution (groups == input channels) computed directly, per
// channel: no GEMM, since each output reads only taps x 1 input channel.
//
// Both kernels accumulate bias + sum over (kh, kw) of w * x in the order the
// portable kernel does, with separate multiply and add, so results are
// bit-identical to it (up to the sign of a zero: NCHW reads padding as
// zeros instead of skipping it).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_DEPTHWISE_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_DEPTHWISE_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"

namespace edgefleet {
namespace optimized {

// Most taps (k_h * k_w) the direct kernels take.
inline constexpr int64_t kMaxDepthwiseTaps = 64;

// NCHW, contiguous x and y; out_c = in_c * multiplier. `w_strides` are the
// weight's [oc, 1, kh, kw] strides; bias may be null. Returns false (nothing
// written) if the scratch memory is not available.
bool DepthwiseNchw(KernelContext& ctx, const ConvGeometry& g, const float* x,
                   const float* w, const int64_t* w_strides, const float* bias,
                   float* y);

// Channels-last x and y; out_c == in_c.
bool DepthwiseNhwc(KernelContext& ctx, const ConvGeometry& g, const float* x,
                   const float* w, const int64_t* w_strides, const float* bias,
                   float* y);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_DEPTHWISE_H_
