// Data movement shared by the copy-like kernels: strided copies with dtype
// conversion, fills, and reshaping copies in logical (row-major) order.
// Functions take StridedViews, so callers express slices, permutations and
// broadcasts by editing views. No allocation; not tied to any kernel.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_COPY_UTIL_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_COPY_UTIL_H_

#include "runtime/core/evalue.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {

// Copies src into dst element by element, converting the dtype if they
// differ. Same-dtype copies work for every dtype (bytes are moved);
// converting copies need element types (dtype_util.h). src may broadcast
// (stride 0). REQUIRES: same dim and sizes. Returns false if the dtype
// conversion is unsupported (nothing is written then).
bool CopyView(const StridedView& src, const StridedView& dst);

// Writes `value`, converted to dst's dtype, into every element of dst.
// Returns false if dst's dtype is not an element type.
bool FillView(const StridedView& dst, const Scalar& value);

// Copies the elements of src into dst in row-major logical order, e.g. for
// view_copy where the shapes differ but numel and dtype agree.
// REQUIRES: src.numel() == dst.numel(), same dtype.
void CopyReshaped(const StridedView& src, const StridedView& dst);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_COPY_UTIL_H_
