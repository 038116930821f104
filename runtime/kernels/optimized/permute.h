// A dimension permutation of a contiguous buffer, for callers that hold no
// Tensors (the XNNPACK delegate's static transposes): the code behind
// permute_copy.out's fast path (permute.cc) — dims merged where they stay
// adjacent, runs contiguous in both copied whole, a transpose by cache tiles
// (4 x 4 vector transposes for 4-byte elements), split over the kernels'
// threads above a grain. Bit-identical at any thread count.
//
// Stateless; buffers belong to the caller. Thread-compatible (uses the
// kernels' thread pool, or the runner installed on the calling thread).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_PERMUTE_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_PERMUTE_H_

#include <cstddef>
#include <cstdint>

namespace edgefleet {
namespace optimized {

// y = x with its dims permuted: y's dim i is x's dim perm[i]; x and y are
// contiguous (row-major) buffers of `elem_size`-byte elements that do not
// overlap. Returns false, copying nothing, for a rank above kMaxTensorRank or
// an element size other than 1, 2, 4 or 8. REQUIRES: perm is a permutation
// of 0..rank-1.
bool PermuteContiguous(const void* x, const int64_t* x_sizes, const int64_t* perm, int rank,
                       size_t elem_size, void* y, int threads);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_PERMUTE_H_
