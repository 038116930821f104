// The depthwise path of edgefleet::quantized_convolution (internal to
// quantized_conv.cc): groups == channels, exact float arithmetic on
// (x - zx) and integer weights; AVX-512 phased, channel-tile and VNNI+VBMI
// variants chosen per call. Stateless; threads via the kernel thread pool.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_DEPTHWISE_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_DEPTHWISE_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/quantized_conv_packed.h"

namespace edgefleet {
namespace optimized {
namespace internal {

// Most taps (kernel_h * kernel_w) of a depthwise convolution on this path.
inline constexpr int64_t kMaxDepthwiseTaps = 64;

// y = depthwise convolution of NCHW int8 x (batch x C x h x w) into
// batch x C x oh x ow. False if kernel scratch is missing.
bool RunDepthwise(KernelContext& ctx, const Packed& pk, const int8_t* x, int8_t* y, int64_t batch,
                  int64_t h, int64_t w, int64_t oh, int64_t ow);

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_DEPTHWISE_H_
