// A one-group float32 convolution over few input channels (an RGB image's
// three), channels-last, computed directly: for a block of output pixels
// and vectors of output channels (6 x 64 channels, 12 x 32 or 12 x 16 with
// AVX-512: 24 accumulators; 12 with 16 vector registers), each (kh, kw, ic)
// tap's input value is broadcast and multiply-added (fused, as the GEMM's
// micro-kernels do) into the block's accumulators; in the image's interior
// a row's (kw, ic) taps are one run of the input. The GEMM over packed
// patches would run at a depth of kh * kw * in_c (27 for a 3x3 RGB layer),
// where its micro-kernel spends much of its time in prologue and epilogue,
// after packing every patch.
//
// Stateless; buffers belong to the caller. Thread-compatible: output rows
// split over ctx's threads (the kernels' pool or the runner installed on the
// calling thread).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_SMALL_INPUT_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_SMALL_INPUT_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/epilogue.h"

namespace edgefleet {
namespace optimized {

// Input channels up to which ConvolutionNhwc computes a one-group
// convolution directly.
inline constexpr int64_t kSmallInputMaxChannels = 4;

// y [batch, out_h, out_w, out_c] = conv(x [batch, in_h, in_w, in_c], w) +
// bias, clamped to [lo, hi] (x < lo -> lo, then x > hi -> hi; NaN stays),
// then `post` (epilogue.h).
// `w` element (oc, ic, kh, kw) is at w[oc + ic * w_ic + kh * w_kh + kw *
// w_kw] (output channels contiguous); bias [out_c] or null. Each output is
// summed from zero over the taps that meet the input, in (kh, kw, ic)
// order, and the bias added last, as the GEMM path sums. REQUIRES: g valid
// with one group; y overlaps neither x nor w.
void ConvNhwcSmallInput(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                        int64_t w_ic, int64_t w_kh, int64_t w_kw, const float* bias, float* y,
                        float lo, float hi, PostOp post = PostOp::kNone);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_SMALL_INPUT_H_
