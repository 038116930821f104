// Whole-tensor copies and fills: clone, _to_copy, copy (broadcasting src
// into self's shape), the dim-order ops (_clone_dim_order,
// _to_dim_order_copy), full, full_like, scalar_tensor, arange, the plain
// copies alias_copy / detach_copy / lift_fresh_copy / et_copy's host-device
// copies, copy_ (in place), zeros, ones, empty, _empty_dim_order and fill
// (Scalar and 0-dim Tensor values). The
// output's dim order is the program's choice; these kernels write according
// to out's strides, which is how a dim-order conversion happens.

#include <cmath>

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Resizes out to in's shape and copies, converting dtype if allowed.
void CopyInto(KernelArgs& args, const Tensor& in, Tensor& out, bool convert_dtype) {
  if (!convert_dtype && in.dtype() != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
    return;
  }
  if (!args.ResizeOut(out, in.sizes(), "out")) return;
  if (!CopyView(StridedView::Of(in), StridedView::Of(out))) {
    args.Fail(Error::kNotSupported, "cannot convert %s to %s", ScalarTypeName(in.dtype()),
              ScalarTypeName(out.dtype()));
  }
}

// self, non_blocking, dim_order?, out, ret. A given dim_order must be out's.
void DimOrderCopy(KernelContext& ctx, Span<EValue*> raw, const char* name, bool convert_dtype) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* in = args.GetTensor(0);
  args.GetBool(1);  // non_blocking: copies are synchronous
  Span<const int64_t> dim_order;
  const bool has_dim_order = args.GetOptionalIntList(2, &dim_order);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (has_dim_order) {
    bool same = dim_order.size() == static_cast<size_t>(out->dim());
    for (size_t i = 0; same && i < dim_order.size(); ++i) {
      same = dim_order[i] == out->dim_order()[i];
    }
    if (!same) {
      args.Fail(Error::kInvalidArgument, "dim_order does not match the out tensor's dim order");
      return;
    }
  }
  CopyInto(args, *in, *out, convert_dtype);
}

// arange's element count: ceil((end - start) / step), exact for integers.
// Returns -1 for a zero step, a step of the wrong sign or a huge count.
template <typename T>
int64_t ArangeSize(T start, T end, T step) {
  if (step == 0 || IsNan(start) || IsNan(end) || IsNan(step) || (step > 0 && end < start) ||
      (step < 0 && end > start)) {
    return -1;
  }
  double n = 0;
  if constexpr (std::is_integral_v<T>) {
    // In double to avoid overflow; exact below 2^53.
    n = std::ceil((static_cast<double>(end) - static_cast<double>(start)) /
                  static_cast<double>(step));
  } else {
    n = std::ceil((end - start) / step);
  }
  return n >= 0 && n <= INT32_MAX ? static_cast<int64_t>(n) : -1;
}

// out[i] = start + i * step, computed in T (double for floating outs or
// arguments, as torch's accumulate type) and converted to out's dtype.
template <typename T>
void ArangeKernel(KernelArgs& args, T start, T end, T step, Tensor& out) {
  const int64_t n = ArangeSize(start, end, step);
  if (n < 0) {
    args.Fail(Error::kInvalidArgument,
              "invalid range: start %g, end %g, "
              "step %g",
              static_cast<double>(start), static_cast<double>(end), static_cast<double>(step));
    return;
  }
  const int32_t size[1] = {static_cast<int32_t>(n)};
  if (!args.ResizeOut(out, size, "out")) return;
  const StoreFn<T> store = GetStorer<T>(out.dtype());
  if (store == nullptr) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out.dtype()));
    return;
  }
  const int64_t elem = static_cast<int64_t>(ElementSize(out.dtype()));
  for (int64_t i = 0; i < n; ++i) {
    store(WrapAdd(start, WrapMul(static_cast<T>(i), step)),
          out.data_as<char>() + i * out.stride(0) * elem);
  }
}

void Arange(KernelArgs& args, const Scalar& start, const Scalar& end, const Scalar& step,
            Tensor& out) {
  if (IsFloatingType(out.dtype()) || start.kind == Scalar::Kind::kDouble ||
      end.kind == Scalar::Kind::kDouble || step.kind == Scalar::Kind::kDouble) {
    ArangeKernel<double>(args, start.AsDouble(), end.AsDouble(), step.AsDouble(), out);
  } else {
    ArangeKernel<int64_t>(args, ScalarTo<int64_t>(start), ScalarTo<int64_t>(end),
                          ScalarTo<int64_t>(step), out);
  }
}

}  // namespace

void CloneOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::clone.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  int64_t memory_format = 0;
  args.GetOptionalInt(1, &memory_format);  // out's dim order decides layout
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  CopyInto(args, *in, *out, /*convert_dtype=*/false);
}

void ToCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_to_copy.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  args.GetBool(1);  // non_blocking: copies are synchronous
  int64_t memory_format = 0;
  args.GetOptionalInt(2, &memory_format);  // out's dim order decides layout
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  CopyInto(args, *in, *out, /*convert_dtype=*/true);
}

namespace {

// out (self's shape) = src broadcast to self's shape, converted to out's
// dtype.
void BroadcastCopy(KernelArgs& args, const Tensor& self, const Tensor& src, Tensor& out) {
  StridedView from = StridedView::Of(src);
  const int rank = self.dim();
  const int shift = rank - src.dim();
  bool ok = shift >= 0;
  for (int d = rank - 1; ok && d >= 0; --d) {
    const int sd = d - shift;
    const int64_t size = sd >= 0 ? src.size(sd) : 1;
    ok = size == 1 || size == self.size(d);
    from.sizes[d] = self.size(d);
    from.strides[d] = sd >= 0 && size != 1 ? src.stride(sd) : 0;
  }
  if (!ok) {
    args.Fail(Error::kInvalidArgument, "src %s does not broadcast to %s",
              FormatSizes(StridedView::Of(src)).text, FormatSizes(StridedView::Of(self)).text);
    return;
  }
  from.dim = rank;
  if (!args.ResizeOut(out, self.sizes(), "out")) return;
  if (out.numel() > 0 && !CopyView(from, StridedView::Of(out))) {
    args.Fail(Error::kNotSupported, "cannot convert %s to %s", ScalarTypeName(src.dtype()),
              ScalarTypeName(out.dtype()));
  }
}

}  // namespace

void CopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::copy.out", raw, 5);
  Tensor* self = args.GetTensorAnyData(0);  // only the shape is read
  Tensor* src = args.GetTensor(1);
  args.GetBool(2);  // non_blocking: copies are synchronous
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  BroadcastCopy(args, *self, *src, *out);
}

// In place: self, src, non_blocking, ret.
void CopyInPlace(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::copy_", raw, 4);
  Tensor* self = args.GetTensor(0);
  Tensor* src = args.GetTensor(1);
  args.GetBool(2);  // non_blocking: copies are synchronous
  if (!args.ok()) return;
  BroadcastCopy(args, *self, *src, *self);
}

void CloneDimOrderOut(KernelContext& ctx, Span<EValue*> args) {
  DimOrderCopy(ctx, args, "dim_order_ops::_clone_dim_order.out",
               /*convert_dtype=*/false);
}

void ToDimOrderCopyOut(KernelContext& ctx, Span<EValue*> args) {
  DimOrderCopy(ctx, args, "dim_order_ops::_to_dim_order_copy.out",
               /*convert_dtype=*/true);
}

void FullOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::full.out", raw, 4);
  Span<const int64_t> size = args.GetIntList(0);
  const Scalar value = args.GetScalar(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  int32_t sizes[kMaxTensorRank];
  if (size.size() > static_cast<size_t>(kMaxTensorRank) ||
      !ToTensorSizes(static_cast<int>(size.size()), size.data(), sizes)) {
    args.Fail(Error::kInvalidArgument, "invalid size");
    return;
  }
  if (!args.ResizeOut(*out, {sizes, size.size()}, "out")) return;
  if (!FillView(StridedView::Of(*out), value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out->dtype()));
  }
}

void FullLikeOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::full_like.out", raw, 5);
  Tensor* in = args.GetTensorAnyData(0);  // only the shape is read
  const Scalar value = args.GetScalar(1);
  int64_t memory_format = 0;
  args.GetOptionalInt(2, &memory_format);  // out's dim order decides layout
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  if (!FillView(StridedView::Of(*out), value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out->dtype()));
  }
}

void ScalarTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::scalar_tensor.out", raw, 3);
  const Scalar value = args.GetScalar(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  if (!args.ResizeOut(*out, {}, "out")) return;
  if (!FillView(StridedView::Of(*out), value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out->dtype()));
  }
}

void ArangeOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::arange.out", raw, 3);
  const Scalar end = args.GetScalar(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  Arange(args, Scalar{Scalar::Kind::kInt, 0, 0.0}, end, Scalar{Scalar::Kind::kInt, 1, 1.0}, *out);
}

void ArangeStartOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::arange.start_out", raw, 5);
  const Scalar start = args.GetScalar(0);
  const Scalar end = args.GetScalar(1);
  const Scalar step = args.GetScalar(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  Arange(args, start, end, step, *out);
}

// Copies that are plain clones in a program without aliasing: self, out,
// ret.
void PlainCopy(KernelContext& ctx, Span<EValue*> raw, const char* name) {
  KernelArgs args(ctx, name, raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  CopyInto(args, *in, *out, /*convert_dtype=*/false);
}

void AliasCopyOut(KernelContext& ctx, Span<EValue*> args) {
  PlainCopy(ctx, args, "aten::alias_copy.out");
}
void DetachCopyOut(KernelContext& ctx, Span<EValue*> args) {
  PlainCopy(ctx, args, "aten::detach_copy.out");
}
void LiftFreshCopyOut(KernelContext& ctx, Span<EValue*> args) {
  PlainCopy(ctx, args, "aten::lift_fresh_copy.out");
}
// Host/device copies: host memory only here, so plain copies.
void H2dCopyOut(KernelContext& ctx, Span<EValue*> args) {
  PlainCopy(ctx, args, "et_copy::_h2d_copy.out");
}
void D2hCopyOut(KernelContext& ctx, Span<EValue*> args) {
  PlainCopy(ctx, args, "et_copy::_d2h_copy.out");
}

namespace {

// Resizes out to `size` (an int list argument) and, if `value` is given,
// fills it. Returns args.ok().
bool SizedFill(KernelArgs& args, Span<const int64_t> size, const Scalar* value, Tensor& out) {
  int32_t sizes[kMaxTensorRank];
  bool valid = size.size() <= static_cast<size_t>(kMaxTensorRank) &&
               ToTensorSizes(static_cast<int>(size.size()), size.data(), sizes);
  for (size_t i = 0; valid && i < size.size(); ++i) valid = size[i] >= 0;
  if (!valid) {
    args.Fail(Error::kInvalidArgument, "invalid size");
    return false;
  }
  if (!args.ResizeOut(out, {sizes, size.size()}, "out")) return false;
  if (value != nullptr && !FillView(StridedView::Of(out), *value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out.dtype()));
  }
  return args.ok();
}

// size, out, ret: out filled with `value`.
void ConstantOp(KernelContext& ctx, Span<EValue*> raw, const char* name, int64_t value) {
  KernelArgs args(ctx, name, raw, 3);
  Span<const int64_t> size = args.GetIntList(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  const Scalar fill{Scalar::Kind::kInt, value, static_cast<double>(value)};
  SizedFill(args, size, &fill, *out);
}

}  // namespace

void ZerosOut(KernelContext& ctx, Span<EValue*> args) {
  ConstantOp(ctx, args, "aten::zeros.out", 0);
}
void OnesOut(KernelContext& ctx, Span<EValue*> args) { ConstantOp(ctx, args, "aten::ones.out", 1); }

// size, memory_format?, out, ret. The contents are unspecified (left as
// they are).
void EmptyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::empty.out", raw, 4);
  Span<const int64_t> size = args.GetIntList(0);
  int64_t memory_format = 0;
  args.GetOptionalInt(1, &memory_format);  // out's dim order decides layout
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  SizedFill(args, size, nullptr, *out);
}

// size, dim_order?, out, ret: like empty; a given dim order must be out's.
void EmptyDimOrderOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "dim_order_ops::_empty_dim_order.out", raw, 4);
  Span<const int64_t> size = args.GetIntList(0);
  Span<const int64_t> dim_order;
  const bool has_dim_order = args.GetOptionalIntList(1, &dim_order);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (has_dim_order) {
    bool same = dim_order.size() == static_cast<size_t>(out->dim());
    for (size_t i = 0; same && i < dim_order.size(); ++i) {
      same = dim_order[i] == out->dim_order()[i];
    }
    if (!same) {
      args.Fail(Error::kInvalidArgument, "dim_order does not match the out tensor's dim order");
      return;
    }
  }
  SizedFill(args, size, nullptr, *out);
}

// self, value, out, ret: out (self's shape and dtype) filled with value.
void FillScalarOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::fill.Scalar_out", raw, 4);
  Tensor* in = args.GetTensorAnyData(0);  // only the shape is read
  const Scalar value = args.GetScalar(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  if (!FillView(StridedView::Of(*out), value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out->dtype()));
  }
}

// self, value (a 0-dim tensor), out, ret.
void FillTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::fill.Tensor_out", raw, 4);
  Tensor* in = args.GetTensorAnyData(0);  // only the shape is read
  Tensor* value = args.GetTensor(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (value->dim() != 0 || in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument,
              "value must be a 0-dim tensor (got rank %d) and out must have "
              "the input's dtype",
              value->dim());
    return;
  }
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  StridedView src = StridedView::Of(*value);
  const StridedView dst = StridedView::Of(*out);
  for (int d = 0; d < dst.dim; ++d) src.Insert(d, dst.sizes[d], 0);
  if (!CopyView(src, dst)) {
    args.Fail(Error::kNotSupported, "cannot convert %s to %s", ScalarTypeName(value->dtype()),
              ScalarTypeName(out->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
