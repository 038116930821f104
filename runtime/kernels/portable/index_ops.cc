// Indexing copies: slice_copy.Tensor_out, slice_scatter.out,
// select_copy.int_out, select_scatter.out, constant_pad_nd.out (negative
// pads crop), embedding.out and index_select.out. Each is a strided view of
// the input copied into out's own dim order (the scatters: self copied,
// then src copied into the slice).

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Resizes out to src's shape and copies src into it (same dtype).
void CopyViewToOut(KernelArgs& args, const StridedView& src, Tensor& out) {
  if (src.dtype != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(src.dtype), ScalarTypeName(out.dtype()));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  ToTensorSizes(src.dim, src.sizes, sizes);
  if (!args.ResizeOut(out, {sizes, static_cast<size_t>(src.dim)}, "out")) {
    return;
  }
  if (out.numel() > 0) CopyView(src, StridedView::Of(out));
}

// Narrows `view` to torch's slice [start:end:step] of dimension `dim`
// (start and end clamped as Python slices do). Fails through args for a
// 0-dim view, a dim out of range or a step < 1.
bool SliceView(KernelArgs& args, int64_t dim, int64_t start, int64_t end, int64_t step,
               StridedView* view) {
  int d = 0;
  if (view->dim == 0 || !NormalizeDim(dim, view->dim, &d) || step <= 0) {
    args.Fail(Error::kInvalidArgument,
              "invalid dim %lld or step %lld for "
              "rank %d",
              static_cast<long long>(dim), static_cast<long long>(step), view->dim);
    return false;
  }
  const int64_t size = view->sizes[d];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = start < 0 ? 0 : (start > size ? size : start);
  end = end < start ? start : (end > size ? size : end);
  const int64_t length = end == start ? 0 : (end - start - 1) / step + 1;
  view->Narrow(d, start, length);
  // With two or more elements step < size, so the product fits; with one
  // or none the stride is never used (and a huge step would overflow it).
  if (length > 1) view->strides[d] *= step;
  return true;
}

}  // namespace

void SliceCopyTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::slice_copy.Tensor_out", raw, 7);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  int64_t start = 0;
  int64_t end = INT64_MAX;
  args.GetOptionalInt(2, &start);  // None: from the start
  args.GetOptionalInt(3, &end);    // None: to the end
  const int64_t step = args.GetInt(4);
  Tensor* out = args.GetTensor(5);
  if (!args.ok()) return;
  StridedView src = StridedView::Of(*in);
  if (!SliceView(args, dim, start, end, step, &src)) return;
  CopyViewToOut(args, src, *out);
}

void SliceScatterOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::slice_scatter.out", raw, 8);
  Tensor* in = args.GetTensor(0);
  Tensor* src = args.GetTensor(1);
  const int64_t dim = args.GetInt(2);
  int64_t start = 0;
  int64_t end = INT64_MAX;
  args.GetOptionalInt(3, &start);  // None: from the start
  args.GetOptionalInt(4, &end);    // None: to the end
  const int64_t step = args.GetInt(5);
  Tensor* out = args.GetTensor(6);
  if (!args.ok()) return;
  if (in->dtype() != out->dtype() || src->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument,
              "input %s, src %s and out %s dtypes "
              "differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(src->dtype()),
              ScalarTypeName(out->dtype()));
    return;
  }
  if (src == out) {
    args.Fail(Error::kInvalidArgument, "out is also src");
    return;
  }
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  StridedView dst = StridedView::Of(*out);
  if (!SliceView(args, dim, start, end, step, &dst)) return;
  const StridedView from = StridedView::Of(*src);
  bool same = from.dim == dst.dim;
  for (int d = 0; same && d < dst.dim; ++d) {
    same = from.sizes[d] == dst.sizes[d];
  }
  if (!same) {
    args.Fail(Error::kInvalidArgument, "src %s does not match the slice %s", FormatSizes(from).text,
              FormatSizes(dst).text);
    return;
  }
  if (out->numel() == 0) return;
  if (in != out) CopyView(StridedView::Of(*in), StridedView::Of(*out));
  CopyView(from, dst);
}

void SelectCopyIntOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::select_copy.int_out", raw, 5);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  int64_t index = args.GetInt(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  int d = 0;
  if (in->dim() == 0 || !NormalizeDim(dim, in->dim(), &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), in->dim());
    return;
  }
  const int64_t size = in->size(d);
  if (index < -size || index >= size) {
    args.Fail(Error::kInvalidArgument, "index %lld out of range for size %lld",
              static_cast<long long>(index), static_cast<long long>(size));
    return;
  }
  if (index < 0) index += size;
  StridedView src = StridedView::Of(*in);
  src.Select(d, index);
  CopyViewToOut(args, src, *out);
}

void ConstantPadNdOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::constant_pad_nd.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> pad = args.GetIntList(1);
  const Scalar value = args.GetScalar(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (pad.size() % 2 != 0 || pad.size() / 2 > static_cast<size_t>(in->dim())) {
    args.Fail(Error::kInvalidArgument, "pad has %zu entries for rank %d", pad.size(), in->dim());
    return;
  }
  if (in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  // pad = [last_lo, last_hi, second_last_lo, ...].
  int64_t lo[kMaxTensorRank] = {}, hi[kMaxTensorRank] = {};
  int64_t sizes64[kMaxTensorRank];
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    lo[in->dim() - 1 - i] = pad[2 * i];
    hi[in->dim() - 1 - i] = pad[2 * i + 1];
  }
  for (int d = 0; d < in->dim(); ++d) {
    const int64_t s = in->size(d);
    if (lo[d] < -s || hi[d] < -s || lo[d] > INT32_MAX || hi[d] > INT32_MAX ||
        s + lo[d] + hi[d] < 0 || s + lo[d] + hi[d] > INT32_MAX) {
      args.Fail(Error::kInvalidArgument, "invalid padding for dim %d", d);
      return;
    }
    sizes64[d] = s + lo[d] + hi[d];
  }
  int32_t sizes[kMaxTensorRank];
  ToTensorSizes(in->dim(), sizes64, sizes);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(in->dim())}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  const StridedView dst_all = StridedView::Of(*out);
  if (!FillView(dst_all, value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out->dtype()));
    return;
  }
  // The part of the input that survives, and where it lands in out.
  StridedView src = StridedView::Of(*in);
  StridedView dst = dst_all;
  for (int d = 0; d < in->dim(); ++d) {
    const int64_t crop_lo = lo[d] < 0 ? -lo[d] : 0;
    const int64_t crop_hi = hi[d] < 0 ? -hi[d] : 0;
    const int64_t keep = in->size(d) - crop_lo - crop_hi;
    if (keep <= 0) return;  // nothing of the input remains
    src.Narrow(d, crop_lo, keep);
    dst.Narrow(d, lo[d] > 0 ? lo[d] : 0, keep);
  }
  CopyView(src, dst);
}

void EmbeddingOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::embedding.out", raw, 7);
  Tensor* weight = args.GetTensor(0);
  Tensor* indices = args.GetTensor(1);
  args.GetInt(2);   // padding_idx: affects gradients only
  args.GetBool(3);  // scale_grad_by_freq: gradients only
  args.GetBool(4);  // sparse: gradients only
  Tensor* out = args.GetTensor(5);
  if (!args.ok()) return;
  if (weight->dim() != 2 || indices->dim() >= kMaxTensorRank ||
      (indices->dtype() != ScalarType::kLong && indices->dtype() != ScalarType::kInt)) {
    args.Fail(Error::kInvalidArgument,
              "weight must be 2-D and indices int32 "
              "or int64 of rank < %d",
              kMaxTensorRank);
    return;
  }
  if (weight->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "weight %s and out %s dtypes differ",
              ScalarTypeName(weight->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d < indices->dim(); ++d) sizes[d] = indices->size(d);
  sizes[indices->dim()] = weight->size(1);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(indices->dim() + 1)}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  StridedLoop<2> loop;  // indices, out over the index dims
  loop.dim = indices->dim();
  for (int d = 0; d < indices->dim(); ++d) {
    loop.sizes[d] = indices->size(d);
    loop.strides[0][d] = indices->stride(d);
    loop.strides[1][d] = out->stride(d);
  }
  const LoadFn<int64_t> load = GetLoader<int64_t>(indices->dtype());
  const int64_t index_size = static_cast<int64_t>(ElementSize(indices->dtype()));
  const int64_t elem = static_cast<int64_t>(ElementSize(out->dtype()));
  const int64_t rows = weight->size(0);
  bool in_range = true;
  ForEachOffset(loop, [&](const int64_t* o) {
    const int64_t row = load(indices->data_as<const char>() + o[0] * index_size);
    if (row < 0 || row >= rows) {
      in_range = false;
      return;
    }
    StridedView src = StridedView::Of(*weight);
    src.Select(0, row);
    StridedView dst;
    dst.data = out->data_as<char>() + o[1] * elem;
    dst.dtype = out->dtype();
    dst.dim = 1;
    dst.sizes[0] = weight->size(1);
    dst.strides[0] = out->stride(indices->dim());
    CopyView(src, dst);
  });
  if (!in_range) {
    args.Fail(Error::kInvalidArgument, "index out of range for %lld rows",
              static_cast<long long>(rows));
  }
}

void IndexSelectOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::index_select.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  Tensor* index = args.GetTensor(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  int d = 0;
  if (!NormalizeDim(dim, in->dim(), &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), in->dim());
    return;
  }
  if (index->dim() > 1 ||
      (index->dtype() != ScalarType::kLong && index->dtype() != ScalarType::kInt)) {
    args.Fail(Error::kInvalidArgument, "index must be a 0-D or 1-D int32/int64 tensor");
    return;
  }
  if (in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  const int64_t count = index->numel();
  if (in->dim() == 0 && count != 1) {
    args.Fail(Error::kInvalidArgument, "a 0-D input takes one index");
    return;
  }
  int32_t sizes[kMaxTensorRank];
  for (int i = 0; i < in->dim(); ++i) sizes[i] = in->size(i);
  if (in->dim() > 0) sizes[d] = static_cast<int32_t>(count);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(in->dim())}, "out")) {
    return;
  }
  const int64_t rows = in->dim() == 0 ? 1 : in->size(d);
  const LoadFn<int64_t> load = GetLoader<int64_t>(index->dtype());
  const int64_t index_size = static_cast<int64_t>(ElementSize(index->dtype()));
  const int64_t index_stride = index->dim() == 0 ? 0 : index->stride(0);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t row = load(index->data_as<const char>() + i * index_stride * index_size);
    if (row < 0 || row >= rows) {
      args.Fail(Error::kInvalidArgument,
                "index %lld out of range for size "
                "%lld",
                static_cast<long long>(row), static_cast<long long>(rows));
      return;
    }
    StridedView src = StridedView::Of(*in);
    StridedView dst = StridedView::Of(*out);
    if (in->dim() > 0) {
      src.Narrow(d, row, 1);
      dst.Narrow(d, i, 1);
    }
    CopyView(src, dst);
  }
}

// self copied into out, then src into out's `index` along `dim`.
void SelectScatterOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::select_scatter.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  Tensor* src = args.GetTensor(1);
  const int64_t dim = args.GetInt(2);
  int64_t index = args.GetInt(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  if (in->dtype() != out->dtype() || src->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument,
              "input %s, src %s and out %s dtypes "
              "differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(src->dtype()),
              ScalarTypeName(out->dtype()));
    return;
  }
  if (src == out) {
    args.Fail(Error::kInvalidArgument, "out is also src");
    return;
  }
  int d = 0;
  if (in->dim() == 0 || !NormalizeDim(dim, in->dim(), &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), in->dim());
    return;
  }
  const int64_t size = in->size(d);
  if (index < -size || index >= size) {
    args.Fail(Error::kInvalidArgument, "index %lld out of range for dimension %d of size %lld",
              static_cast<long long>(index), d, static_cast<long long>(size));
    return;
  }
  if (index < 0) index += size;
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  StridedView dst = StridedView::Of(*out);
  dst.Select(d, index);
  const StridedView from = StridedView::Of(*src);
  bool same = from.dim == dst.dim;
  for (int i = 0; same && i < dst.dim; ++i) {
    same = from.sizes[i] == dst.sizes[i];
  }
  if (!same) {
    args.Fail(Error::kInvalidArgument, "src %s does not match the slice %s", FormatSizes(from).text,
              FormatSizes(dst).text);
    return;
  }
  if (out->numel() == 0) return;
  if (in != out) CopyView(StridedView::Of(*in), StridedView::Of(*out));
  CopyView(from, dst);
}

}  // namespace portable
}  // namespace edgefleet
