// Plan pass "fuse_quantized_convolution": rewrites the int8 patterns of a
// PT2E program exported without a partitioner into fused int8 kernels
// (quantized_conv.h) at Method::Load.
//
//   dequantize_per_tensor(x_q) -> convolution(x, dequantize_per_channel(W_q), b)
//     -> quantize_per_tensor -> y_q
//   [ -> dequantize_per_tensor -> hardtanh / relu / clamp -> quantize_per_tensor ]
//
// and the linear form addmm(b, dequantize_per_tensor(x_q),
// permute_copy(dequantize_per_channel(W_q), [1, 0])) -> quantize. The
// convolution (addmm) instruction becomes edgefleet::quantized_convolution
// over weights packed once into method memory, writing the last quantize's
// output; the quantize / activation instructions it absorbs are removed, and
// so are the dequantizes of x and W (and the permute) once nothing else
// reads them.
//
// It matches only exactly: int8 tensors in the default dim order; weights,
// weight scales and bias constant; weight zero points zero (symmetric) and
// the channel axis 0; every float intermediate read once and not method
// I/O; scalars constant; an activation only if quantize(act(dequantize(q)))
// is a clamp of q, checked on all 256 codes with the portable kernels
// themselves; and no planned-memory overlap that writing the output early
// (at the convolution instead of the last quantize) would make unsafe.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_FUSION_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_FUSION_H_

#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

void FuseQuantizedConvolution(PlanEditor& plan);

inline constexpr PlanPass kFuseQuantizedConvolutionPass = {"fuse_quantized_convolution",
                                                           FuseQuantizedConvolution};

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_FUSION_H_
