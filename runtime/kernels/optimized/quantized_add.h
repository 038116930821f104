// Fused quantized add: quantize(dequantize(a) + dequantize(b)), the residual
// connection of PT2E int8 programs, in one pass over the int8 tensors.
//
// The kernel "edgefleet::quantized_add" takes
//   (a, a_scale, a_zero_point, b, b_scale, b_zero_point,
//    out_scale, out_zero_point, quant_min, quant_max, out, out)
// where a and b are each an int8 tensor (dequantized with its scale and
// zero point, as dequantize_per_tensor does) or a float32 tensor (used as
// is; its scale and zero point are ignored), all of out's shape in the
// default dim order. It computes what the portable chain does, bit for bit:
//   x = float(q) - float(zp)) * float(scale)   (int8 operands)
//   y = clamp(round_half_even((xa + xb) * float(1 / out_scale)) + zp, qmin, qmax)
// Fails with kInvalidArgument on anything else. The plan pass
// (quantized_fusion.h) builds these calls.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_ADD_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_ADD_H_

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {
namespace optimized {

void QuantizedAddOut(KernelContext& ctx, Span<EValue*> args);
extern const Kernel kQuantizedAddKernel;

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_QUANTIZED_ADD_H_
