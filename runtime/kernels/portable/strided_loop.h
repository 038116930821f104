// Strided iteration for the portable kernels.
//
// StridedView describes a (sub)tensor as data pointer, dtype, sizes and
// element strides; slicing, broadcasting and dim permutations are just edits
// of those arrays. StridedLoop walks one index space for N operands at once
// and calls a function with each operand's element offset, so a kernel is
// correct for any dim order (channels-last, permuted outputs, broadcast
// inputs with stride 0). Plain value types; no allocation.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_STRIDED_LOOP_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_STRIDED_LOOP_H_

#include <algorithm>
#include <cstdint>

#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"

namespace edgefleet {
namespace portable {

struct StridedView {
  char* data = nullptr;
  ScalarType dtype = ScalarType::kFloat;
  int dim = 0;
  int64_t sizes[kMaxTensorRank] = {};
  int64_t strides[kMaxTensorRank] = {};  // in elements

  static StridedView Of(const Tensor& t);
  int64_t numel() const;
  // Points the view at the slice [start, start + length) of dimension d.
  void Narrow(int d, int64_t start, int64_t length);
  // Removes dimension d, keeping index `index` of it.
  void Select(int d, int64_t index);
  // Inserts a dimension of `size` with `stride` before dimension d.
  void Insert(int d, int64_t size, int64_t stride);
};

// An index space of `dim` dimensions walked for N operands.
template <int N>
struct StridedLoop {
  int dim = 0;
  int64_t sizes[kMaxTensorRank] = {};
  int64_t strides[N][kMaxTensorRank] = {};

  // Merges dimensions that are contiguous for every operand and drops
  // size-1 dimensions. Visiting order is unchanged.
  void Coalesce() {
    int kept = 0;
    for (int d = 0; d < dim; ++d) {
      if (sizes[d] == 1) continue;
      bool merge = kept > 0;
      for (int k = 0; k < N && merge; ++k) {
        merge = strides[k][kept - 1] == strides[k][d] * sizes[d];
      }
      if (merge) {
        sizes[kept - 1] *= sizes[d];
        for (int k = 0; k < N; ++k) strides[k][kept - 1] = strides[k][d];
      } else {
        sizes[kept] = sizes[d];
        for (int k = 0; k < N; ++k) strides[k][kept] = strides[k][d];
        ++kept;
      }
    }
    dim = kept;
  }
};

// Calls f(offsets) for every index in row-major order of loop.sizes, where
// offsets[k] is operand k's element offset. Nothing is visited if a size is
// 0; a 0-dim loop visits once.
template <int N, typename F>
void ForEachOffset(const StridedLoop<N>& loop, F&& f) {
  for (int d = 0; d < loop.dim; ++d) {
    if (loop.sizes[d] == 0) return;
  }
  int64_t offsets[N] = {};
  if (loop.dim == 0) {
    f(static_cast<const int64_t*>(offsets));
    return;
  }
  const int last = loop.dim - 1;
  int64_t base[N] = {};
  int64_t index[kMaxTensorRank] = {};
  while (true) {
    for (int k = 0; k < N; ++k) offsets[k] = base[k];
    for (int64_t i = 0; i < loop.sizes[last]; ++i) {
      f(static_cast<const int64_t*>(offsets));
      for (int k = 0; k < N; ++k) offsets[k] += loop.strides[k][last];
    }
    int d = last - 1;
    for (; d >= 0; --d) {
      for (int k = 0; k < N; ++k) base[k] += loop.strides[k][d];
      if (++index[d] < loop.sizes[d]) break;
      for (int k = 0; k < N; ++k) base[k] -= loop.strides[k][d] * index[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Calls f(offsets, n) for every run of at most `block` consecutive indices
// of the innermost dim, in row-major order: the run's elements are at
// offsets[k] + i * loop.strides[k][loop.dim - 1] for i < n (a 0-dim loop is
// one run of one element).
template <int N, typename F>
void ForEachRun(const StridedLoop<N>& loop, int64_t block, F&& f) {
  if (loop.dim == 0) {
    const int64_t offsets[N] = {};
    f(offsets, int64_t{1});
    return;
  }
  const int last = loop.dim - 1;
  StridedLoop<N> outer = loop;
  outer.dim = last;
  if (loop.sizes[last] == 0) return;
  ForEachOffset(outer, [&](const int64_t* base) {
    for (int64_t i = 0; i < loop.sizes[last]; i += block) {
      int64_t offsets[N];
      for (int k = 0; k < N; ++k) offsets[k] = base[k] + i * loop.strides[k][last];
      f(static_cast<const int64_t*>(offsets), std::min(block, loop.sizes[last] - i));
    }
  });
}

// ForEachOffset over the row-major indices [begin, end) of loop.sizes only
// (in the same order), so a loop can be split into ranges for threads.
// REQUIRES: 0 <= begin, end <= the product of loop.sizes.
template <int N, typename F>
void ForEachOffsetInRange(const StridedLoop<N>& loop, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  int64_t offsets[N] = {};
  if (loop.dim == 0) {
    f(static_cast<const int64_t*>(offsets));
    return;
  }
  int64_t index[kMaxTensorRank] = {};
  int64_t rest = begin;
  for (int d = loop.dim - 1; d >= 0; --d) {
    index[d] = rest % loop.sizes[d];
    rest /= loop.sizes[d];
    for (int k = 0; k < N; ++k) offsets[k] += index[d] * loop.strides[k][d];
  }
  const int last = loop.dim - 1;
  for (int64_t i = begin; i < end;) {
    const int64_t run = std::min(end - i, loop.sizes[last] - index[last]);
    for (int64_t j = 0; j < run; ++j) {
      f(static_cast<const int64_t*>(offsets));
      for (int k = 0; k < N; ++k) offsets[k] += loop.strides[k][last];
    }
    i += run;
    index[last] += run;
    if (index[last] < loop.sizes[last]) continue;
    for (int k = 0; k < N; ++k) offsets[k] -= loop.strides[k][last] * loop.sizes[last];
    index[last] = 0;
    for (int d = last - 1; d >= 0; --d) {
      for (int k = 0; k < N; ++k) offsets[k] += loop.strides[k][d];
      if (++index[d] < loop.sizes[d]) break;
      for (int k = 0; k < N; ++k) offsets[k] -= loop.strides[k][d] * index[d];
      index[d] = 0;
    }
  }
}

// A loop over `shape` (rank `dim`) for views whose strides are aligned to
// it: views[k] is right-aligned against the shape and dimensions of size 1
// broadcast with stride 0. REQUIRES: every view broadcasts to the shape.
template <int N>
StridedLoop<N> BroadcastLoop(int dim, const int64_t* shape, const StridedView* const (&views)[N]) {
  StridedLoop<N> loop;
  loop.dim = dim;
  for (int d = 0; d < dim; ++d) loop.sizes[d] = shape[d];
  for (int k = 0; k < N; ++k) {
    const StridedView& v = *views[k];
    const int shift = dim - v.dim;
    for (int d = 0; d < dim; ++d) {
      const int vd = d - shift;
      loop.strides[k][d] = vd < 0 || v.sizes[vd] == 1 ? 0 : v.strides[vd];
    }
  }
  return loop;
}

// The broadcast shape of a and b (PyTorch rules), or false if they do not
// broadcast. `shape` receives max(a.dim, b.dim) sizes.
bool BroadcastShapes(const StridedView& a, const StridedView& b, int* dim, int64_t* shape);

// The sizes as text, "[2, 3, 4]" (cut to fit), for error details.
struct SizesText {
  char text[96];
};
SizesText FormatSizes(int dim, const int64_t* sizes);
inline SizesText FormatSizes(const StridedView& v) { return FormatSizes(v.dim, v.sizes); }

// Copies `dim` sizes into int32 for Tensor::Resize; false on overflow.
bool ToTensorSizes(int dim, const int64_t* sizes, int32_t* out);

// The element offset of entry `index` of `t`'s first `dims` dims taken in
// logical row-major order (dims = t.dim(): element `index`; t.dim() - 1: the
// start of row `index`, whose last dim then has stride t.stride(t.dim() - 1)).
inline int64_t LogicalOffset(const Tensor& t, int64_t index, int dims) {
  int64_t offset = 0;
  for (int d = dims - 1; d >= 0; --d) {
    offset += (index % t.size(d)) * t.stride(d);
    index /= t.size(d);
  }
  return offset;
}

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_STRIDED_LOOP_H_
