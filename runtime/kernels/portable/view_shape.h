// Shape inference for view-like ops (view_copy, et_view): a size list with
// at most one -1 resolved against the input's element count.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_VIEW_SHAPE_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_VIEW_SHAPE_H_

#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/kernels/portable/kernel_args.h"

namespace edgefleet {
namespace portable {

// Writes `size` into `out` (kMaxTensorRank entries) with a -1 entry replaced
// so that the product is `numel`. Fails through `args` if the rank is too
// high, a size is invalid, -1 appears twice or the product cannot match.
bool InferViewShape(KernelArgs& args, Span<const int64_t> size, int64_t numel, int64_t* out);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_VIEW_SHAPE_H_
