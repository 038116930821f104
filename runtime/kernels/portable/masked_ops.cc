// Boolean-mask and selection kernels: aten::masked_fill.Scalar_out (mask
// broadcast to self), masked_select.out (the selected elements of the
// broadcast self and mask, in row-major order, as a 1-D out),
// masked_scatter.out (source elements written, in order, where the mask
// broadcast to self is set), nonzero.out ([count, rank] int64 indices in
// row-major order) and repeat_interleave.Tensor_out (index i repeated
// repeats[i] times). The data-dependent outputs are resized to their
// count, which must fit out's capacity.

#include <cstring>

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

bool CheckMask(KernelArgs& args, const Tensor& mask) {
  if (mask.dtype() != ScalarType::kBool) {
    args.Fail(Error::kInvalidArgument, "mask must be bool, got %s", ScalarTypeName(mask.dtype()));
    return false;
  }
  return true;
}

// The broadcast shape of a and b into (dim, shape); fails through args.
bool Broadcast(KernelArgs& args, const StridedView& a, const StridedView& b, int* dim,
               int64_t* shape) {
  if (!BroadcastShapes(a, b, dim, shape)) {
    args.Fail(Error::kInvalidArgument, "shapes %s and %s do not broadcast", FormatSizes(a).text,
              FormatSizes(b).text);
    return false;
  }
  return true;
}

// True if `a` broadcast to (dim, shape) keeps its own shape.
bool KeepsShape(const StridedView& a, int dim, const int64_t* shape) {
  if (a.dim != dim) return false;
  for (int d = 0; d < dim; ++d) {
    if (a.sizes[d] != shape[d]) return false;
  }
  return true;
}

}  // namespace

void MaskedFillScalarOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::masked_fill.Scalar_out", raw, 5);
  Tensor* self = args.GetTensor(0);
  Tensor* mask = args.GetTensor(1);
  const Scalar value = args.GetScalar(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok() || !CheckMask(args, *mask)) return;
  if (!IsElementType(self->dtype()) || self->dtype() != out->dtype() || out == mask) {
    args.Fail(Error::kInvalidArgument, "out must have self's dtype (%s) and not be the mask",
              ScalarTypeName(self->dtype()));
    return;
  }
  const StridedView sv = StridedView::Of(*self);
  const StridedView mv = StridedView::Of(*mask);
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  if (!Broadcast(args, sv, mv, &dim, shape)) return;
  if (!KeepsShape(sv, dim, shape)) {
    args.Fail(Error::kInvalidArgument, "mask %s must broadcast to self's shape %s",
              FormatSizes(mv).text, FormatSizes(sv).text);
    return;
  }
  if (!args.ResizeOut(*out, self->sizes(), "out")) return;
  const StridedView ov = StridedView::Of(*out);
  const StridedView* const views[3] = {&sv, &mv, &ov};
  StridedLoop<3> loop = BroadcastLoop<3>(dim, shape, views);
  loop.Coalesce();
  SwitchElement(self->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    const T fill = ScalarTo<T>(value);
    const int64_t e = static_cast<int64_t>(sizeof(S));
    ForEachOffset(loop, [&](const int64_t* o) {
      const bool m = mv.data[o[1]] != 0;
      StoreAs<T, S>(m ? fill : LoadAs<T, S>(sv.data + o[0] * e), ov.data + o[2] * e);
    });
  });
}

void MaskedSelectOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::masked_select.out", raw, 4);
  Tensor* self = args.GetTensor(0);
  Tensor* mask = args.GetTensor(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok() || !CheckMask(args, *mask)) return;
  if (self->dtype() != out->dtype() || out == self || out == mask) {
    args.Fail(Error::kInvalidArgument, "out must be a distinct tensor of self's dtype");
    return;
  }
  const StridedView sv = StridedView::Of(*self);
  const StridedView mv = StridedView::Of(*mask);
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  if (!Broadcast(args, sv, mv, &dim, shape)) return;
  const StridedView* const views[2] = {&sv, &mv};
  const StridedLoop<2> loop = BroadcastLoop<2>(dim, shape, views);
  int64_t count = 0;
  ForEachOffset(loop, [&](const int64_t* o) { count += mv.data[o[1]] != 0; });
  if (count > INT32_MAX) {
    args.Fail(Error::kInvalidArgument, "too many selected elements");
    return;
  }
  const int32_t size[1] = {static_cast<int32_t>(count)};
  if (!args.ResizeOut(*out, size, "out")) return;
  const int64_t elem = static_cast<int64_t>(ElementSize(self->dtype()));
  const int64_t step = out->dim() == 1 ? out->stride(0) : 1;
  char* dst = out->data_as<char>();
  int64_t i = 0;
  ForEachOffset(loop, [&](const int64_t* o) {
    if (mv.data[o[1]] == 0) return;
    std::memcpy(dst + i * step * elem, sv.data + o[0] * elem, static_cast<size_t>(elem));
    ++i;
  });
}

void MaskedScatterOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::masked_scatter.out", raw, 5);
  Tensor* self = args.GetTensor(0);
  Tensor* mask = args.GetTensor(1);
  Tensor* source = args.GetTensor(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok() || !CheckMask(args, *mask)) return;
  if (self->dtype() != out->dtype() || source->dtype() != self->dtype() || out == mask ||
      out == source) {
    args.Fail(Error::kInvalidArgument,
              "self, source and out must share a dtype; out must not be the "
              "mask or the source");
    return;
  }
  const StridedView sv = StridedView::Of(*self);
  const StridedView mv = StridedView::Of(*mask);
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  if (!Broadcast(args, sv, mv, &dim, shape)) return;
  if (!KeepsShape(sv, dim, shape)) {
    args.Fail(Error::kInvalidArgument, "mask %s must broadcast to self's shape %s",
              FormatSizes(mv).text, FormatSizes(sv).text);
    return;
  }
  if (!args.ResizeOut(*out, self->sizes(), "out")) return;
  const StridedView ov = StridedView::Of(*out);
  const StridedView* const views[2] = {&mv, &ov};
  const StridedLoop<2> loop = BroadcastLoop<2>(dim, shape, views);
  int64_t needed = 0;
  ForEachOffset(loop, [&](const int64_t* o) { needed += mv.data[o[0]] != 0; });
  if (needed > source->numel()) {
    args.Fail(Error::kInvalidArgument, "the mask selects %lld elements but source has %lld",
              static_cast<long long>(needed), static_cast<long long>(source->numel()));
    return;
  }
  if (out->numel() == 0) return;
  if (out != self) CopyView(sv, ov);
  // Source elements in row-major order.
  const StridedView src = StridedView::Of(*source);
  const int64_t elem = static_cast<int64_t>(ElementSize(self->dtype()));
  int64_t next = 0;
  ForEachOffset(loop, [&](const int64_t* o) {
    if (mv.data[o[0]] == 0) return;
    int64_t rest = next++, offset = 0;
    for (int d = src.dim - 1; d >= 0; --d) {
      offset += (rest % src.sizes[d]) * src.strides[d];
      rest /= src.sizes[d];
    }
    std::memcpy(ov.data + o[1] * elem, src.data + offset * elem, static_cast<size_t>(elem));
  });
}

void NonzeroOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::nonzero.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  if (!IsElementType(in->dtype()) || out->dtype() != ScalarType::kLong || in == out) {
    args.Fail(Error::kInvalidArgument,
              "needs a basic-dtype input and a distinct int64 out (got %s -> "
              "%s)",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  const LoadFn<bool> load = GetLoader<bool>(in->dtype());
  const StridedView v = StridedView::Of(*in);
  const int64_t elem = static_cast<int64_t>(ElementSize(in->dtype()));
  const StridedView* const views[1] = {&v};
  const StridedLoop<1> loop = BroadcastLoop<1>(v.dim, v.sizes, views);
  int64_t count = 0;
  ForEachOffset(loop, [&](const int64_t* o) { count += load(v.data + o[0] * elem); });
  if (count > INT32_MAX) {
    args.Fail(Error::kInvalidArgument, "too many nonzero elements");
    return;
  }
  const int32_t sizes[2] = {static_cast<int32_t>(count), static_cast<int32_t>(in->dim())};
  if (!args.ResizeOut(*out, sizes, "out") || count == 0) return;
  int64_t* dst = out->data_as<int64_t>();
  const int64_t row_step = out->stride(0);
  const int64_t col_step = out->stride(1);
  int64_t flat = 0, row = 0;
  ForEachOffset(loop, [&](const int64_t* o) {
    if (load(v.data + o[0] * elem)) {
      int64_t rest = flat;
      for (int d = v.dim - 1; d >= 0; --d) {
        dst[row * row_step + d * col_step] = rest % v.sizes[d];
        rest /= v.sizes[d];
      }
      ++row;
    }
    ++flat;
  });
}

void RepeatInterleaveTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::repeat_interleave.Tensor_out", raw, 4);
  Tensor* repeats = args.GetTensor(0);
  int64_t output_size = -1;
  const bool has_size = args.GetOptionalInt(1, &output_size);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (repeats->dim() > 1 ||
      (repeats->dtype() != ScalarType::kLong && repeats->dtype() != ScalarType::kInt) ||
      out->dtype() != repeats->dtype() || out == repeats) {
    args.Fail(Error::kInvalidArgument,
              "repeats must be a 0-dim or 1-D int32/int64 tensor and out a "
              "distinct tensor of its dtype");
    return;
  }
  const LoadFn<int64_t> load = GetLoader<int64_t>(repeats->dtype());
  const int64_t n = repeats->numel();
  const int64_t step = repeats->dim() == 1 ? repeats->stride(0) : 0;
  const int64_t elem = static_cast<int64_t>(ElementSize(repeats->dtype()));
  const char* r = repeats->data_as<const char>();
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = load(r + i * step * elem);
    if (k < 0 || total > INT32_MAX - k) {
      args.Fail(Error::kInvalidArgument,
                "repeats must be non-negative (and the total fit), got %lld",
                static_cast<long long>(k));
      return;
    }
    total += k;
  }
  if (has_size && output_size != total) {
    args.Fail(Error::kInvalidArgument,
              "output_size (%lld) does not match the sum of repeats (%lld)",
              static_cast<long long>(output_size), static_cast<long long>(total));
    return;
  }
  const int32_t size[1] = {static_cast<int32_t>(total)};
  if (!args.ResizeOut(*out, size, "out")) return;
  const StoreFn<int64_t> store = GetStorer<int64_t>(out->dtype());
  const int64_t out_step = out->dim() == 1 ? out->stride(0) : 1;
  char* dst = out->data_as<char>();
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = load(r + i * step * elem);
    for (int64_t c = 0; c < k; ++c) store(i, dst + (j++) * out_step * elem);
  }
}

}  // namespace portable
}  // namespace edgefleet
