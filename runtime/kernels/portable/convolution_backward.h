// aten::convolution_backward.out (implemented in convolution.cc beside the
// forward kernel, whose argument checks it shares): the gradients of a
// regular 1-D or 2-D convolution with respect to its input, weight and
// bias, as torch computes them; output_mask selects which are written (the
// others are left untouched). Transposed convolutions are refused with
// kNotSupported, as the real runtime's portable kernel refuses them.
// Floating dtypes; any dim order. Stateless.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_CONVOLUTION_BACKWARD_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_CONVOLUTION_BACKWARD_H_

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace portable {

void ConvolutionBackwardOut(KernelContext& ctx, Span<EValue*> args);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_CONVOLUTION_BACKWARD_H_
