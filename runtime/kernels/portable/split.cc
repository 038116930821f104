// Ops that cut a tensor into a list of outputs along one dim:
// split_with_sizes_copy.out (given sizes), split_copy.Tensor_out (equal
// chunks, the last one smaller) and unbind_copy.int_out (every index, the
// dim removed). Each output is resized to its piece and must have the
// input's dtype; any dim order on either side.

#include <cstring>

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Copies in[..., start:start + length, ...] (along `d`) into `out`, both in
// the default dim order: one run of length * inner elements per index of
// the dims before `d`.
void CopyContiguousPiece(const Tensor& in, int d, int64_t start, int64_t length, Tensor& out) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= in.size(i);
  for (int i = d + 1; i < in.dim(); ++i) inner *= in.size(i);
  const size_t element = ElementSize(in.dtype());
  const size_t run = static_cast<size_t>(length * inner) * element;
  const size_t in_stride = static_cast<size_t>(in.size(d) * inner) * element;
  const char* src = static_cast<const char*>(in.data()) + start * inner * element;
  char* dst = static_cast<char*>(out.mutable_data());
  for (int64_t o = 0; o < outer; ++o) std::memmove(dst + o * run, src + o * in_stride, run);
}

// Copies consecutive pieces of `in` along `d` into outs[i]; piece i has
// length_of(i) elements (`drop_dim` removes the dim instead, for unbind).
// REQUIRES: the lengths sum to in.size(d).
template <typename LengthOf>
void CopyPieces(KernelArgs& args, const Tensor& in, int d, Span<Tensor* const> outs,
                LengthOf length_of, bool drop_dim) {
  for (const Tensor* out : outs) {
    if (out == &in) {
      args.Fail(Error::kInvalidArgument, "an output is also the input");
      return;
    }
    if (out->dtype() != in.dtype()) {
      args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
                ScalarTypeName(in.dtype()), ScalarTypeName(out->dtype()));
      return;
    }
  }
  bool all_contiguous = in.IsDefaultDimOrder();
  for (const Tensor* out : outs) all_contiguous = all_contiguous && out->IsDefaultDimOrder();
  int64_t start = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    const int64_t length = length_of(i);
    const int64_t piece_start = start;
    StridedView src = StridedView::Of(in);
    if (drop_dim) {
      src.Select(d, start);
    } else {
      src.Narrow(d, start, length);
    }
    start += length;
    int32_t sizes[kMaxTensorRank];
    ToTensorSizes(src.dim, src.sizes, sizes);
    if (!args.ResizeOut(*outs[i], {sizes, static_cast<size_t>(src.dim)}, "out")) {
      return;
    }
    if (outs[i]->numel() == 0) continue;
    if (all_contiguous) {
      CopyContiguousPiece(in, d, piece_start, length, *outs[i]);
    } else {
      CopyView(src, StridedView::Of(*outs[i]));
    }
  }
}

// Normalizes `dim` against a non-scalar input. Fails through args.
bool SplitDim(KernelArgs& args, const Tensor& in, int64_t dim, int* d) {
  if (in.dim() == 0 || !NormalizeDim(dim, in.dim(), d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), in.dim());
    return false;
  }
  return true;
}

}  // namespace

void SplitWithSizesCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::split_with_sizes_copy.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> split_sizes = args.GetIntList(1);
  const int64_t dim = args.GetInt(2);
  Span<Tensor* const> outs = args.GetTensorList(3);
  if (!args.ok()) return;
  int d = 0;
  if (!SplitDim(args, *in, dim, &d)) return;
  if (split_sizes.size() != outs.size()) {
    args.Fail(Error::kInvalidArgument, "%zu split sizes for %zu outputs", split_sizes.size(),
              outs.size());
    return;
  }
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    if (s < 0 || s > in->size(d)) {
      args.Fail(Error::kInvalidArgument, "invalid split size %lld", static_cast<long long>(s));
      return;
    }
    total += s;
  }
  if (total != in->size(d)) {
    args.Fail(Error::kInvalidArgument,
              "split sizes sum to %lld, dim %d has "
              "size %d",
              static_cast<long long>(total), d, in->size(d));
    return;
  }
  CopyPieces(
      args, *in, d, outs, [&](size_t i) { return split_sizes[i]; },
      /*drop_dim=*/false);
}

void SplitCopyTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::split_copy.Tensor_out", raw, 5);
  Tensor* in = args.GetTensor(0);
  const int64_t split_size = args.GetInt(1);
  const int64_t dim = args.GetInt(2);
  Span<Tensor* const> outs = args.GetTensorList(3);
  if (!args.ok()) return;
  int d = 0;
  if (!SplitDim(args, *in, dim, &d)) return;
  const int64_t size = in->size(d);
  // torch: ceil(size / split_size) pieces, at least one (size 0 gives one
  // empty piece); split_size 0 is only valid for an empty dim.
  if (split_size < 0 || (split_size == 0 && size != 0)) {
    args.Fail(Error::kInvalidArgument, "invalid split size %lld",
              static_cast<long long>(split_size));
    return;
  }
  const int64_t pieces = size == 0 ? 1 : (size - 1) / split_size + 1;
  if (pieces != static_cast<int64_t>(outs.size())) {
    args.Fail(Error::kInvalidArgument, "%lld pieces for %zu outputs",
              static_cast<long long>(pieces), outs.size());
    return;
  }
  CopyPieces(
      args, *in, d, outs,
      [&](size_t i) {
        const int64_t start = static_cast<int64_t>(i) * split_size;
        return size - start < split_size ? size - start : split_size;
      },
      /*drop_dim=*/false);
}

void UnbindCopyIntOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::unbind_copy.int_out", raw, 4);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  Span<Tensor* const> outs = args.GetTensorList(2);
  if (!args.ok()) return;
  int d = 0;
  if (!SplitDim(args, *in, dim, &d)) return;
  if (static_cast<int64_t>(outs.size()) != in->size(d)) {
    args.Fail(Error::kInvalidArgument, "dim %d has size %d but %zu outputs", d, in->size(d),
              outs.size());
    return;
  }
  CopyPieces(
      args, *in, d, outs, [](size_t) { return int64_t{1}; },
      /*drop_dim=*/true);
}

}  // namespace portable
}  // namespace edgefleet
