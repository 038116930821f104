// The float-chain path of edgefleet::quantized_convolution (internal to
// quantized_conv.cc): the arithmetic of the portable chain it replaces,
// bit for bit, for quantization parameters on which integer arithmetic
// would not be exact (ordinary, non power-of-two scales; biases off the
// products' grid).
//
//   x_f = float(q - zx) * sx (float), w_f = float(w_q) * sw[c] (float),
//   convolution: y = 0; y += w_f * x_f over (in channel, kh, kw) in that
//                order, each product rounded, no FMA; y = y + b (portable
//                aten::convolution.out, as the real runtime's; it skips
//                padded taps, here they add 0, which can only change the
//                sign of a zero sum);
//   linear:      the same over k (portable aten::addmm.out);
//   q = clamp(nearbyint(y * float(1 / sy)) + zy, lo, hi)
//
// Lanes run over output positions (convolution) or output features
// (linear), so each lane sums in exactly the chain's order. Stateless;
// threads via the kernel thread pool, results independent of their count.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_CHAIN_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_CHAIN_H_

#include <cstddef>
#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/quantized_conv_packed.h"

namespace edgefleet {
namespace optimized {
namespace internal {

// True if integer accumulation gives the chain's float result exactly:
// sx and every sw[c] powers of two (so every product and partial sum is an
// integer multiple of sx * sw[c]), every bias on that grid, and every
// partial sum below 2^24 units.
bool IntegerArithmeticIsExact(const QuantizedConvSpec& spec, const int8_t* weight,
                              const float* weight_scale, const float* bias);

// Bytes of the float weights of the chain path.
size_t ChainWeightBytes(const QuantizedConvSpec& spec);

// Writes them: convolution [out_channels][depth] (the weight's own order),
// linear [in_channels][out_channels rounded up to kChainLinearBlock].
void PackChainWeights(const QuantizedConvSpec& spec, const int8_t* weight,
                      const float* weight_scale, float* dst);

// Convolution of NCHW int8 x (batch x C x h x w) into batch x C' x oh x ow;
// linear [m, K] -> [m, N]. False if kernel scratch is missing.
bool RunConvChain(KernelContext& ctx, const Packed& pk, const int8_t* x, int8_t* y, int64_t batch,
                  int64_t h, int64_t w, int64_t oh, int64_t ow);
bool RunLinearChain(KernelContext& ctx, const Packed& pk, const int8_t* x, int8_t* y, int64_t m);

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_CHAIN_H_
