// aten::gather.out, scatter.src_out, scatter.value_out and scatter_add.out
// along one dim with an int64 index tensor of the input's rank. gather:
// out[..i..] = self[..index[..i..]..] (out has index's shape). scatter:
// out = self, then out[..index[..i..]..] = src[..i..] (or value); with
// scatter_add the src values are added. index may be smaller than self and
// src in every dim (except dim for self); out-of-range indices fail before
// anything is written. A 0-dim tensor counts as [1].

#include <cstring>

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// A view of `t` with at least one dim (0-dim tensors as [1]).
StridedView AtLeast1d(const Tensor& t) {
  StridedView v = StridedView::Of(t);
  if (v.dim == 0) v.Insert(0, 1, 1);
  return v;
}

// Checks index (int64, same rank as self, index.size(d) <= limit.size(d)
// for d != dim, and <= self.size(d) too) and every index value in
// [-n, n) where n = self.size(dim). Normalizes *dim. Returns args.ok().
bool CheckIndex(KernelArgs& args, const StridedView& self, const StridedView& index,
                const StridedView* limit, int64_t dim_arg, int* dim) {
  if (index.dtype != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument, "index must be int64, got %s", ScalarTypeName(index.dtype));
    return false;
  }
  if (!NormalizeDim(dim_arg, self.dim, dim) || index.dim != self.dim) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range or index rank %d != self rank %d",
              static_cast<long long>(dim_arg), index.dim, self.dim);
    return false;
  }
  for (int d = 0; d < self.dim; ++d) {
    const bool too_big = (d != *dim && index.sizes[d] > self.sizes[d]) ||
                         (limit != nullptr && index.sizes[d] > limit->sizes[d]);
    if (too_big) {
      args.Fail(Error::kInvalidArgument, "index %s is larger than the input in dim %d",
                FormatSizes(index).text, d);
      return false;
    }
  }
  const int64_t n = self.sizes[*dim];
  const StridedView* const views[1] = {&index};
  const StridedLoop<1> loop = BroadcastLoop<1>(index.dim, index.sizes, views);
  const int64_t* idx = reinterpret_cast<const int64_t*>(index.data);
  bool ok = true;
  int64_t bad = 0;
  ForEachOffset(loop, [&](const int64_t* o) {
    const int64_t i = idx[o[0]];
    if (ok && (i < -n || i >= n)) {
      ok = false;
      bad = i;
    }
  });
  if (!ok) {
    args.Fail(Error::kInvalidArgument,
              "index %lld is out of bounds for dimension %d with size %lld",
              static_cast<long long>(bad), *dim, static_cast<long long>(n));
  }
  return ok;
}

// A loop over index's shape for index, `a` and `b`, with b's stride along
// `dim` zeroed (the index supplies that coordinate).
StridedLoop<3> IndexLoop(const StridedView& index, const StridedView& a, const StridedView& b,
                         int dim) {
  StridedLoop<3> loop;
  loop.dim = index.dim;
  for (int d = 0; d < index.dim; ++d) {
    loop.sizes[d] = index.sizes[d];
    loop.strides[0][d] = index.strides[d];
    loop.strides[1][d] = a.strides[d];
    loop.strides[2][d] = d == dim ? 0 : b.strides[d];
  }
  return loop;
}

enum class ScatterMode { kSrc, kValue, kAdd };

// self, dim, index, src-or-value, out, ret.
void Scatter(KernelContext& ctx, Span<EValue*> raw, const char* name, ScatterMode mode) {
  KernelArgs args(ctx, name, raw, 6);
  Tensor* self = args.GetTensor(0);
  const int64_t dim_arg = args.GetInt(1);
  Tensor* index = args.GetTensor(2);
  Tensor* src = mode == ScatterMode::kValue ? nullptr : args.GetTensor(3);
  const Scalar value = mode == ScatterMode::kValue ? args.GetScalar(3) : Scalar{};
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  if (!IsElementType(self->dtype()) || self->dtype() != out->dtype() ||
      (src != nullptr && src->dtype() != self->dtype()) || out == index || out == src) {
    args.Fail(Error::kInvalidArgument,
              "self, src and out must share a dtype and out must not be "
              "index or src");
    return;
  }
  const StridedView self_v = AtLeast1d(*self);
  const StridedView index_v = AtLeast1d(*index);
  StridedView src_v;
  if (src != nullptr) src_v = AtLeast1d(*src);
  int dim = 0;
  if (!CheckIndex(args, self_v, index_v, src != nullptr ? &src_v : nullptr, dim_arg, &dim)) {
    return;
  }
  if (src != nullptr && src_v.dim != self_v.dim) {
    args.Fail(Error::kInvalidArgument, "src rank %d != self rank %d", src_v.dim, self_v.dim);
    return;
  }
  if (!args.ResizeOut(*out, self->sizes(), "out")) return;
  if (out->numel() == 0) return;
  if (out != self) CopyView(StridedView::Of(*self), StridedView::Of(*out));
  const StridedView out_v = AtLeast1d(*out);
  const int64_t n = self_v.sizes[dim];
  const int64_t* idx = reinterpret_cast<const int64_t*>(index_v.data);
  SwitchElement(self->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    const T fill = ScalarTo<T>(value);
    // Offsets: index, src (or unused), out with dim's stride zeroed.
    const StridedLoop<3> loop = IndexLoop(index_v, src != nullptr ? src_v : index_v, out_v, dim);
    const int64_t out_step = out_v.strides[dim];
    ForEachOffset(loop, [&](const int64_t* o) {
      int64_t i = idx[o[0]];
      if (i < 0) i += n;
      char* target = out_v.data + (o[2] + i * out_step) * static_cast<int64_t>(sizeof(S));
      T v = fill;
      if (src != nullptr) {
        v = LoadAs<T, S>(src_v.data + o[1] * static_cast<int64_t>(sizeof(S)));
      }
      if (mode == ScatterMode::kAdd) {
        const T current = LoadAs<T, S>(target);
        if constexpr (std::is_same_v<T, bool>) {
          v = current || v;
        } else {
          v = WrapAdd(current, v);
        }
      }
      StoreAs<T, S>(v, target);
    });
  });
}

}  // namespace

void GatherOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::gather.out", raw, 6);
  Tensor* self = args.GetTensor(0);
  const int64_t dim_arg = args.GetInt(1);
  Tensor* index = args.GetTensor(2);
  args.GetBool(3);  // sparse_grad: no effect on the values
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  if (self->dtype() != out->dtype() || out == self || out == index) {
    args.Fail(Error::kInvalidArgument, "out must be a distinct tensor of self's dtype");
    return;
  }
  const StridedView self_v = AtLeast1d(*self);
  const StridedView index_v = AtLeast1d(*index);
  int dim = 0;
  if (!CheckIndex(args, self_v, index_v, nullptr, dim_arg, &dim)) return;
  if (!args.ResizeOut(*out, index->sizes(), "out")) return;
  if (out->numel() == 0) return;
  const StridedView out_v = AtLeast1d(*out);
  const StridedLoop<3> loop = IndexLoop(index_v, out_v, self_v, dim);
  const int64_t n = self_v.sizes[dim];
  const int64_t step = self_v.strides[dim];
  const int64_t elem = static_cast<int64_t>(ElementSize(self->dtype()));
  const int64_t* idx = reinterpret_cast<const int64_t*>(index_v.data);
  ForEachOffset(loop, [&](const int64_t* o) {
    int64_t i = idx[o[0]];
    if (i < 0) i += n;
    std::memcpy(out_v.data + o[1] * elem, self_v.data + (o[2] + i * step) * elem,
                static_cast<size_t>(elem));
  });
}

void ScatterSrcOut(KernelContext& ctx, Span<EValue*> args) {
  Scatter(ctx, args, "aten::scatter.src_out", ScatterMode::kSrc);
}
void ScatterValueOut(KernelContext& ctx, Span<EValue*> args) {
  Scatter(ctx, args, "aten::scatter.value_out", ScatterMode::kValue);
}
void ScatterAddOut(KernelContext& ctx, Span<EValue*> args) {
  Scatter(ctx, args, "aten::scatter_add.out", ScatterMode::kAdd);
}

}  // namespace portable
}  // namespace edgefleet
