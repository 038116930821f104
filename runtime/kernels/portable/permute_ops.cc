// Copies that rearrange dimensions: permute_copy, t_copy, transpose_copy,
// expand_copy and as_strided_copy. Each builds a strided view of the input
// in the output's logical shape and copies it into the output's own dim
// order.

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Resizes out to `src`'s shape and copies src into it. REQUIRES: src views
// `in`'s data.
void CopyToOut(KernelArgs& args, const Tensor& in, const StridedView& src, Tensor& out) {
  if (in.dtype() != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  if (!ToTensorSizes(src.dim, src.sizes, sizes)) {
    args.Fail(Error::kInvalidArgument, "output size out of range");
    return;
  }
  if (!args.ResizeOut(out, {sizes, static_cast<size_t>(src.dim)}, "out")) {
    return;
  }
  if (!CopyView(src, StridedView::Of(out))) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in.dtype()));
  }
}

// Copies `in` with dimensions d0 and d1 swapped.
void Transpose(KernelArgs& args, const Tensor& in, int64_t d0, int64_t d1, Tensor& out) {
  int a = 0;
  int b = 0;
  if (!NormalizeDim(d0, in.dim(), &a) || !NormalizeDim(d1, in.dim(), &b)) {
    args.Fail(Error::kInvalidArgument,
              "dims %lld, %lld out of range for "
              "rank %d",
              static_cast<long long>(d0), static_cast<long long>(d1), in.dim());
    return;
  }
  StridedView src = StridedView::Of(in);
  if (in.dim() > 0) {
    const int64_t size = src.sizes[a], stride = src.strides[a];
    src.sizes[a] = src.sizes[b];
    src.strides[a] = src.strides[b];
    src.sizes[b] = size;
    src.strides[b] = stride;
  }
  CopyToOut(args, in, src, out);
}

}  // namespace

void PermuteCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::permute_copy.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims = args.GetIntList(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (dims.size() != static_cast<size_t>(in->dim())) {
    args.Fail(Error::kInvalidArgument, "dims has %zu entries for rank %d", dims.size(), in->dim());
    return;
  }
  const StridedView view = StridedView::Of(*in);
  StridedView src = view;
  bool seen[kMaxTensorRank] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    int d = 0;
    if (!NormalizeDim(dims[i], in->dim(), &d) || seen[d]) {
      args.Fail(Error::kInvalidArgument, "dims is not a permutation");
      return;
    }
    seen[d] = true;
    src.sizes[i] = view.sizes[d];
    src.strides[i] = view.strides[d];
  }
  CopyToOut(args, *in, src, *out);
}

void TCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::t_copy.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  if (in->dim() > 2) {
    args.Fail(Error::kInvalidArgument, "input must have rank <= 2, got %d", in->dim());
    return;
  }
  Transpose(args, *in, 0, in->dim() < 2 ? 0 : 1, *out);
}

void TransposeCopyIntOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::transpose_copy.int_out", raw, 5);
  Tensor* in = args.GetTensor(0);
  const int64_t d0 = args.GetInt(1);
  const int64_t d1 = args.GetInt(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  Transpose(args, *in, d0, d1, *out);
}

void ExpandCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::expand_copy.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> size = args.GetIntList(1);
  args.GetBool(2);  // implicit: no effect on the result
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (size.size() < static_cast<size_t>(in->dim()) ||
      size.size() > static_cast<size_t>(kMaxTensorRank)) {
    args.Fail(Error::kInvalidArgument, "cannot expand rank %d to %zu dims", in->dim(), size.size());
    return;
  }
  const int rank = static_cast<int>(size.size());
  const int shift = rank - in->dim();
  StridedView src = StridedView::Of(*in);
  src.dim = rank;
  for (int d = rank - 1; d >= 0; --d) {
    const int id = d - shift;
    const int64_t cur = id >= 0 ? in->size(id) : 1;
    int64_t want = size[d];
    if (want == -1 && id >= 0) want = cur;
    if (want < 0 || (cur != 1 && want != cur)) {
      args.Fail(Error::kInvalidArgument,
                "cannot expand %s to size %lld at "
                "dim %d",
                FormatSizes(StridedView::Of(*in)).text, static_cast<long long>(size[d]), d);
      return;
    }
    src.sizes[d] = want;
    src.strides[d] = id >= 0 && cur != 1 ? in->stride(id) : 0;
  }
  CopyToOut(args, *in, src, *out);
}

void AsStridedCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::as_strided_copy.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> size = args.GetIntList(1);
  Span<const int64_t> stride = args.GetIntList(2);
  int64_t offset = 0;
  args.GetOptionalInt(3, &offset);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  if (size.size() != stride.size() || size.size() > static_cast<size_t>(kMaxTensorRank)) {
    args.Fail(Error::kInvalidArgument, "%zu sizes and %zu strides", size.size(), stride.size());
    return;
  }
  // The view reads in's storage (its memory, whatever the dim order) at
  // offset + sum(index[d] * stride[d]); every element read must exist.
  StridedView src;
  src.data = static_cast<char*>(in->mutable_data());
  src.dtype = in->dtype();
  src.dim = static_cast<int>(size.size());
  bool empty = false;
  bool ok = offset >= 0;
  for (int d = 0; ok && d < src.dim; ++d) {
    ok = size[d] >= 0 && size[d] <= INT32_MAX && stride[d] >= 0 && stride[d] <= INT32_MAX;
    src.sizes[d] = size[d];
    src.strides[d] = stride[d];
    empty = empty || size[d] == 0;
  }
  // Each term is below 2^62 and the sum stops once past numel (< 2^31).
  int64_t last = offset;
  for (int d = 0; ok && !empty && d < src.dim && last < in->numel(); ++d) {
    last += (size[d] - 1) * stride[d];
  }
  if (!ok || (!empty && last >= in->numel())) {
    args.Fail(Error::kInvalidArgument,
              "size %s, strides and offset %lld "
              "reach past the input's %lld elements",
              FormatSizes(src).text, static_cast<long long>(offset),
              static_cast<long long>(in->numel()));
    return;
  }
  if (!empty) {
    src.data += offset * static_cast<int64_t>(ElementSize(in->dtype()));
  }
  CopyToOut(args, *in, src, *out);
}

}  // namespace portable
}  // namespace edgefleet
