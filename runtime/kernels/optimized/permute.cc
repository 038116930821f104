// permute_copy, t_copy and the dim-order copies without a dtype change
// (_clone_dim_order, _to_dim_order_copy: a copy into out's dim order) as
// pure data movement for element sizes 1, 2, 4 and 8 (any dtype): the permuted input view and the
// output are walked in the output's memory order; runs contiguous in both are memcpy'd, and a
// transpose (the input's unit-stride dim elsewhere) goes by cache tiles,
// with 4 x 4 vector transposes for 4-byte elements. Large copies are split
// over the kernels' threads (runs, planes or tiles, at least kMinRangeElements
// elements each). Bit-identical at any thread count. PermuteContiguous
// (permute.h) is the same copy on raw buffers.

#include "runtime/kernels/optimized/permute.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/transpose.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace optimized {
namespace {

using portable::StridedLoop;
using portable::StridedView;

// Product of the sizes of loop's dims [0, dim).
template <int N>
int64_t Count(const StridedLoop<N>& loop, int dim) {
  int64_t n = 1;
  for (int d = 0; d < dim; ++d) n *= loop.sizes[d];
  return n;
}

template <typename T>
void Copy(const StridedLoop<2>& loop, const char* src, char* dst, int threads) {
  const T* s = reinterpret_cast<const T*>(src);
  T* d = reinterpret_cast<T*>(dst);
  const int last = loop.dim - 1;
  if (loop.dim == 0) {
    d[0] = s[0];
    return;
  }
  if (loop.strides[0][last] == 1 && loop.strides[1][last] == 1) {
    StridedLoop<2> outer = loop;
    outer.dim = last;
    const int64_t n = loop.sizes[last];
    if (outer.dim == 0) {
      ParallelForRanges(n, kMinRangeElements, threads, [&](int64_t i0, int64_t i1) {
        std::memcpy(d + i0, s + i0, sizeof(T) * (i1 - i0));
      });
      return;
    }
    ParallelForRanges(Count(outer, outer.dim), std::max<int64_t>(1, kMinRangeElements / n), threads,
                      [&](int64_t r0, int64_t r1) {
                        portable::ForEachOffsetInRange(outer, r0, r1, [&](const int64_t* o) {
                          std::memcpy(d + o[1], s + o[0], sizeof(T) * n);
                        });
                      });
    return;
  }
  // The input's unit-stride dim k, transposed against the last one.
  int k = -1;
  for (int i = 0; i < last; ++i) {
    if (loop.strides[0][i] == 1) k = i;
  }
  if (k < 0 || loop.strides[1][last] != 1) {
    ParallelForRanges(Count(loop, loop.dim), kMinRangeElements, threads,
                      [&](int64_t i0, int64_t i1) {
                        portable::ForEachOffsetInRange(
                            loop, i0, i1, [&](const int64_t* o) { d[o[1]] = s[o[0]]; });
                      });
    return;
  }
  StridedLoop<2> outer;
  for (int i = 0; i < last; ++i) {
    if (i == k) continue;
    outer.sizes[outer.dim] = loop.sizes[i];
    outer.strides[0][outer.dim] = loop.strides[0][i];
    outer.strides[1][outer.dim] = loop.strides[1][i];
    ++outer.dim;
  }
  // Enough whole planes for every thread: split the planes; else split each
  // plane's transpose.
  const int64_t planes = Count(outer, outer.dim);
  const int64_t plane = loop.sizes[k] * loop.sizes[last];
  const bool split_planes = planes >= 2 * threads || plane < kMinRangeElements;
  ParallelForRanges(planes, split_planes ? std::max<int64_t>(1, kMinRangeElements / plane) : planes,
                    threads, [&](int64_t p0, int64_t p1) {
                      portable::ForEachOffsetInRange(outer, p0, p1, [&](const int64_t* o) {
                        if (split_planes) {
                          Transpose2d<T>(s + o[0], loop.strides[0][last], d + o[1],
                                         loop.strides[1][k], loop.sizes[k], loop.sizes[last]);
                        } else {
                          Transpose2dParallel<T>(s + o[0], loop.strides[0][last], d + o[1],
                                                 loop.strides[1][k], loop.sizes[k],
                                                 loop.sizes[last], threads);
                        }
                      });
                    });
}

// Copies by `loop` (operand 0 the source, 1 the destination, in elements of
// `elem` bytes), after coalescing it; false for an element size Copy has no
// instance for.
bool CopyLoop(StridedLoop<2> loop, const char* s, char* d, size_t elem, int threads) {
  loop.Coalesce();
  switch (elem) {
    case 1:
      Copy<uint8_t>(loop, s, d, threads);
      return true;
    case 2:
      Copy<uint16_t>(loop, s, d, threads);
      return true;
    case 4:
      Copy<uint32_t>(loop, s, d, threads);
      return true;
    case 8:
      Copy<uint64_t>(loop, s, d, threads);
      return true;
    default:
      return false;
  }
}

// Copies the view `src` of `in` into out (shape src's), or false.
bool CopyView(const Tensor& in, const StridedView& src, Tensor& out, int threads) {
  if (in.dtype() != out.dtype() || Overlaps(in, out)) return false;
  int32_t sizes[kMaxTensorRank];
  const Tensor* inputs[1] = {&in};
  if (!portable::ToTensorSizes(src.dim, src.sizes, sizes) ||
      !FitOut(out, {sizes, static_cast<size_t>(src.dim)}, inputs)) {
    return false;
  }
  if (out.numel() == 0) return true;
  const StridedView dst = StridedView::Of(out);
  // Walk out's memory order: its dims sorted by decreasing stride.
  int order[kMaxTensorRank];
  DimsByDecreasingStride(dst.strides, dst.dim, order);
  StridedLoop<2> loop;
  loop.dim = dst.dim;
  for (int i = 0; i < dst.dim; ++i) {
    loop.sizes[i] = dst.sizes[order[i]];
    loop.strides[0][i] = src.strides[order[i]];
    loop.strides[1][i] = dst.strides[order[i]];
  }
  return CopyLoop(loop, in.data_as<const char>(), out.data_as<char>(), ElementSize(in.dtype()),
                  threads);
}

// permute_copy.out(self, dims, out, ret) and t_copy.out(self, out, ret):
// anything else (a malformed program) goes to the portable kernel, which
// reports it.
bool TryPermute(Span<EValue*> args, int threads) {
  if (args.size() != 4 || !PermuteSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Span<const int64_t> dims;
  if (!PeekIntList(args, 1, &dims) || dims.size() != static_cast<size_t>(in.dim())) {
    return false;
  }
  const StridedView view = StridedView::Of(in);
  StridedView src = view;
  bool seen[kMaxTensorRank] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    int d = 0;
    if (!portable::NormalizeDim(dims[i], in.dim(), &d) || seen[d]) return false;
    seen[d] = true;
    src.sizes[i] = view.sizes[d];
    src.strides[i] = view.strides[d];
  }
  return CopyView(in, src, *PeekTensor(args, 2), threads);
}

bool TryT(Span<EValue*> args, int threads) {
  if (args.size() != 3 || !PermuteSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  if (in.dim() > 2) return false;
  StridedView src = StridedView::Of(in);
  if (in.dim() == 2) {
    std::swap(src.sizes[0], src.sizes[1]);
    std::swap(src.strides[0], src.strides[1]);
  }
  return CopyView(in, src, *PeekTensor(args, 1), threads);
}

// _clone_dim_order.out / _to_dim_order_copy.out(self, non_blocking,
// dim_order?, out, ret) with out of self's dtype and of the dim order asked
// for; anything else (a dtype conversion, a mismatched dim order) goes to the
// portable kernel.
bool TryDimOrderCopy(Span<EValue*> args, int threads) {
  if (args.size() != 5 || !DimOrderCopySupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Tensor& out = *PeekTensor(args, 3);
  if (!PeekNone(args, 2)) {
    Span<const int64_t> order;
    if (!PeekIntList(args, 2, &order) || order.size() != static_cast<size_t>(out.dim())) {
      return false;
    }
    for (int d = 0; d < out.dim(); ++d) {
      if (order[d] != out.dim_order()[d]) return false;
    }
  }
  return CopyView(in, StridedView::Of(in), out, threads);
}

}  // namespace

bool PermuteContiguous(const void* x, const int64_t* x_sizes, const int64_t* perm, int rank,
                       size_t elem_size, void* y, int threads) {
  if (rank < 0 || rank > kMaxTensorRank) return false;
  int64_t x_strides[kMaxTensorRank];
  int64_t stride = 1;
  for (int i = rank; i-- > 0;) {
    x_strides[i] = stride;
    stride *= x_sizes[i];
  }
  if (stride == 0) return true;
  StridedLoop<2> loop;
  loop.dim = rank;
  stride = 1;
  for (int i = rank; i-- > 0;) {  // y's dims in its (row-major) memory order
    loop.sizes[i] = x_sizes[perm[i]];
    loop.strides[0][i] = x_strides[perm[i]];
    loop.strides[1][i] = stride;
    stride *= loop.sizes[i];
  }
  return CopyLoop(loop, static_cast<const char*>(x), static_cast<char*>(y), elem_size, threads);
}

bool PermuteSupports(Span<EValue* const> args) {
  if (args.size() != 3 && args.size() != 4) return false;
  const Tensor* in = PeekTensor(args, 0);
  const Tensor* out = PeekTensor(args, args.size() - 2);
  if (in == nullptr || out == nullptr || in->dtype() != out->dtype()) {
    return false;
  }
  const size_t e = ElementSize(in->dtype());
  return e == 1 || e == 2 || e == 4 || e == 8;
}

bool DimOrderCopySupports(Span<EValue* const> args) {
  if (args.size() != 5) return false;
  const Tensor* in = PeekTensor(args, 0);
  const Tensor* out = PeekTensor(args, 3);
  if (in == nullptr || out == nullptr || in->dtype() != out->dtype()) return false;
  const size_t e = ElementSize(in->dtype());
  return e == 1 || e == 2 || e == 4 || e == 8;
}

void CloneDimOrderOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryDimOrderCopy(args, ctx.num_threads())) portable::CloneDimOrderOut(ctx, args);
}

void ToDimOrderCopyOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryDimOrderCopy(args, ctx.num_threads())) portable::ToDimOrderCopyOut(ctx, args);
}

void PermuteCopyOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryPermute(args, ctx.num_threads())) portable::PermuteCopyOut(ctx, args);
}

void TCopyOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryT(args, ctx.num_threads())) portable::TCopyOut(ctx, args);
}

}  // namespace optimized
}  // namespace edgefleet
