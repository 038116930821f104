// Shared setup of the reductions over a set of dims (mean, sum, amax, amin,
// any, all): which dims reduce, the output shape (with or without kept
// size-1 dims) and the two index spaces a kernel walks — the kept dims (input
// and output offsets) and, for each output element, the reduced dims (input
// offsets). Any dim order works: offsets come from the tensors' strides.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_REDUCE_UTIL_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_REDUCE_UTIL_H_

#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {

struct ReducePlan {
  StridedLoop<2> kept;     // over kept dims: input offset, output offset
  StridedLoop<1> reduced;  // over reduced dims: input offset
  int64_t count = 1;       // elements per reduction (product of reduced sizes)
};

// Plans the reduction of `in` over `dims` (every dim when `all` is true, as
// for an absent or empty dim list), resizing `out` to the result shape.
// Fails through `args` on a dim out of range or repeated, or if out cannot
// take the shape. Returns args.ok().
bool PlanReduction(KernelArgs& args, const Tensor& in, Span<const int64_t> dims, bool all,
                   bool keepdim, Tensor& out, ReducePlan* plan);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_REDUCE_UTIL_H_
