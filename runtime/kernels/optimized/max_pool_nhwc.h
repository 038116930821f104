// aten::max_pool2d_with_indices.out over a float32 channels-last input
// (a channels_last_regions tensor, as ResNet's stem pool reads it): each
// output pixel takes the maximum over its window's valid taps one vector of
// channels at a time, so no plane is padded or transposed. The comparison
// (v > best or v is NaN, so the first maximum is kept and NaN wins) and the
// indices (h * W + w in the input plane, starting at the window's first
// valid tap) are the portable kernel's: the results are bit-identical.
//
// out may be channels-last or in any other 4-D dim order and the int64
// indices in any dim order: a block of output pixels is computed for all
// channels, then written per channel through the tensors' strides when
// they are not channels-last. Rows of output are split over the context's
// threads. Stateless; thread-compatible.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_MAX_POOL_NHWC_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_MAX_POOL_NHWC_H_

#include "runtime/core/tensor.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"

namespace edgefleet {
namespace optimized {

// The max pool with window `g` (batch, channels, sizes, kernel, stride,
// padding, dilation; parsed by the caller, pooling.cc) of `in`, float32
// [N, C, H, W] in dim order (0, 2, 3, 1) with H * W <= 2^24, into float32
// `out` and int64 `indices` ([N, C, out_h, out_w], any dim orders, not
// overlapping each other or in), or without indices when `indices` is null
// (no positions tracked: the values only). False, having written nothing,
// when the temp allocator has no room for the kernel's scratch.
bool MaxPoolNhwc(KernelContext& ctx, const ConvGeometry& g, const Tensor& in, Tensor& out,
                 Tensor* indices);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_MAX_POOL_NHWC_H_
