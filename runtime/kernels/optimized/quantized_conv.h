// Fused int8 convolution and linear: what a dequantize -> convolution /
// addmm -> quantize chain (with an optional activation between quantize
// and a second quantize) computes, on the int8 tensors directly.
//
//   x_q int8 (per-tensor scale sx, zero point zx), weights int8 symmetric
//   per output channel (scale sw[c]), float bias b[c]:
//   y_q[c, p] = requantize(sum (x_q - zx) * w_q[c]) with
//   v = float(acc) * (sx * sw[c]) + b[c],
//   y = clamp(round_half_even(v / sy) + zy, lo, hi)
//
// [lo, hi] is the quant range narrowed by a fused activation (hardtanh /
// relu / clamp between quantize and requantize, see quantized_fusion.cc).
// With power-of-two scales, biases on the grid of sx * sw[c] and sums
// below 2^24 units every product and sum is exact, and the kernel sums in
// int32 (the paths below). Otherwise (ordinary scales) it computes what
// the float chain computes, in the chain's order (quantized_conv_chain.h).
// Either way the result equals the portable chain's bit for bit.
//
// The weights, scales and bias are packed once (PackQuantizedConv, at
// method load by the plan pass) into one 64-byte aligned blob, handed to
// the kernel as a 1-D uint8 tensor. Integer paths: 1x1 stride-1 convolutions and
// linear layers run the VNNI GEMM (int8_gemm.h) on the image in place,
// other convolutions im2col first, depthwise (groups == channels) runs a
// direct kernel in exact float arithmetic. Layout: NCHW (default dim order)
// input and output; linear: [M, K] -> [M, N].

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {
namespace optimized {

enum class QuantizedOpKind : int32_t { kConv2d = 1, kLinear = 2 };

// What the packer needs: the op's geometry and quantization parameters.
struct QuantizedConvSpec {
  QuantizedOpKind kind = QuantizedOpKind::kConv2d;
  int32_t out_channels = 0;  // linear: N
  int32_t in_channels = 0;   // linear: K
  int32_t kernel_h = 1, kernel_w = 1, groups = 1;
  int32_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int32_t dilation_h = 1, dilation_w = 1;
  float in_scale = 1;  // as float(double scale) of the dequantize
  int32_t in_zero_point = 0;
  double out_scale = 1;  // the quantize's scale
  int32_t out_zero_point = 0;
  int32_t out_min = -128, out_max = 127;  // after any fused activation
};

// Bytes of the blob for `spec` and these weights (which decide between
// the integer and the float-chain arithmetic), or 0 if the spec is invalid
// (sizes, groups, zero points or ranges out of bounds). `weight`: int8
// [out_channels, in_channels / groups, kh, kw] (linear: [N, K])
// contiguous; `weight_scale`: float [out_channels]; `bias`: float
// [out_channels] or null.
size_t QuantizedConvPackedBytes(const QuantizedConvSpec& spec, const int8_t* weight,
                                const float* weight_scale, const float* bias);

// Writes the blob into `blob` (QuantizedConvPackedBytes bytes, 64-byte
// aligned). Returns false on an invalid spec.
bool PackQuantizedConv(const QuantizedConvSpec& spec, const int8_t* weight,
                       const float* weight_scale, const float* bias, void* blob);

// The kernel "edgefleet::quantized_convolution": args (x_q, packed, out,
// out): x_q int8 NCHW (linear: [M, K]), packed the blob as a 1-D uint8
// tensor, out int8 NCHW (linear: [M, N]), resized to the output shape when
// dynamic. Fails with kInvalidArgument on anything else.
void QuantizedConvolutionOut(KernelContext& ctx, Span<EValue*> args);
extern const Kernel kQuantizedConvolutionKernel;

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_CONV_H_
