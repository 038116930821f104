// aten::gather.out, scatter.src_out, scatter.value_out, scatter_add.out and
// scatter_reduce.two_out along one dim with an int64 index tensor of the
// input's rank. gather: out[..i..] = self[..index[..i..]..] (out has index's
// shape). scatter: out = self, then out[..index[..i..]..] = src[..i..] (or
// value); with scatter_add the src values are added; scatter_reduce reduces
// them (sum, prod, mean, amax, amin) into self's value, or, without
// include_self, into the reduction's identity at every position scattered
// to (mean divides by the number of values reduced, integers rounding down;
// amax / amin propagate NaN, as ATen's CPU kernel; float16 and bfloat16
// reduce in float32 and round once, as there, and so does scatter_add). index
// may be smaller than self and src in every dim (except dim for self);
// out-of-range indices fail before anything is written. A 0-dim tensor
// counts as [1].

#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

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

// For a float16 or bfloat16 out that scatter_add or scatter_reduce sums
// into, a float32 copy of out's elements (indexed by element offset: out is
// dense) from the kernel's temp allocator; ATen's CPU kernels reduce these
// dtypes in float32 and round once. Null for the other dtypes. False, with
// args failed, if there is no temp memory.
bool WideCopy(KernelContext& ctx, KernelArgs& args, const Tensor& out, float** wide) {
  *wide = nullptr;
  if (!IsReducedFloating(out.dtype())) return true;
  const size_t n = static_cast<size_t>(out.numel());
  *wide = static_cast<float*>(ctx.AllocateTemp(n * sizeof(float)));
  if (*wide == nullptr) {
    args.Fail(Error::kMemoryAllocationFailed, "no temp memory for %zu float32 sums", n);
    return false;
  }
  SwitchReducedFloating(out.dtype(), [&](auto tag) {
    using S = decltype(tag);
    const S* y = out.data_as<const S>();
    for (size_t k = 0; k < n; ++k) (*wide)[k] = Convert<float>(y[k]);
  });
  return true;
}

// Rounds WideCopy's sums back into out.
template <typename S>
void StoreWide(const float* wide, int64_t n, S* y) {
  if constexpr (kIsReducedFloat<S>) {
    for (int64_t k = 0; k < n; ++k) y[k] = Convert<S>(wide[k]);
  }
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
  float* wide = nullptr;
  if (mode == ScatterMode::kAdd && !WideCopy(ctx, args, *out, &wide)) return;
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
      const int64_t t = o[2] + i * out_step;  // element offset in out
      char* target = out_v.data + t * static_cast<int64_t>(sizeof(S));
      T v = fill;
      if (src != nullptr) {
        v = LoadAs<T, S>(src_v.data + o[1] * static_cast<int64_t>(sizeof(S)));
      }
      if constexpr (kIsReducedFloat<S>) {
        if (wide != nullptr) {
          wide[t] += v;
          return;
        }
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
    if (wide != nullptr) StoreWide<S>(wide, out->numel(), out->data_as<S>());
  });
}

enum class Reduce { kSum, kProd, kMean, kAmax, kAmin };

bool ParseReduce(Span<const char> name, Reduce* reduce) {
  const std::string_view n(name.data(), name.size());
  if (n == "sum")
    *reduce = Reduce::kSum;
  else if (n == "prod")
    *reduce = Reduce::kProd;
  else if (n == "mean")
    *reduce = Reduce::kMean;
  else if (n == "amax")
    *reduce = Reduce::kAmax;
  else if (n == "amin")
    *reduce = Reduce::kAmin;
  else
    return false;
  return true;
}

template <typename T>
T ReduceIdentity(Reduce reduce) {
  switch (reduce) {
    case Reduce::kProd:
      return T(1);
    case Reduce::kAmax:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    case Reduce::kAmin:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max();
    default:
      return T(0);
  }
}

template <typename T>
T ReduceStep(Reduce reduce, T acc, T v) {
  switch (reduce) {
    case Reduce::kProd:
      return WrapMul(acc, v);
    case Reduce::kAmax:
      return IsNan(v) ? v : (acc < v ? v : acc);  // NaN in acc stays
    case Reduce::kAmin:
      return IsNan(v) ? v : (v < acc ? v : acc);
    default:
      return WrapAdd(acc, v);
  }
}

}  // namespace

void ScatterReduceTwoOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::scatter_reduce.two_out", raw, 8);
  Tensor* self = args.GetTensor(0);
  const int64_t dim_arg = args.GetInt(1);
  Tensor* index = args.GetTensor(2);
  Tensor* src = args.GetTensor(3);
  Span<const char> reduce_name;
  const bool has_reduce = args.GetOptionalString(4, &reduce_name);
  const bool include_self = args.GetBool(5);
  Tensor* out = args.GetTensor(6);
  if (!args.ok()) return;
  Reduce reduce = Reduce::kSum;
  if (!has_reduce || !ParseReduce(reduce_name, &reduce)) {
    args.Fail(Error::kInvalidArgument, "reduce must be sum, prod, mean, amax or amin");
    return;
  }
  if (!IsElementType(self->dtype()) || self->dtype() == ScalarType::kBool ||
      self->dtype() != out->dtype() || src->dtype() != self->dtype() || out == index ||
      out == src) {
    args.Fail(Error::kInvalidArgument,
              "self, src and out must share a numeric dtype and out must not be index or src");
    return;
  }
  const StridedView self_v = AtLeast1d(*self);
  const StridedView index_v = AtLeast1d(*index);
  const StridedView src_v = AtLeast1d(*src);
  int dim = 0;
  if (!CheckIndex(args, self_v, index_v, &src_v, dim_arg, &dim)) return;
  if (src_v.dim != self_v.dim) {
    args.Fail(Error::kInvalidArgument, "src rank %d != self rank %d", src_v.dim, self_v.dim);
    return;
  }
  if (!args.ResizeOut(*out, self->sizes(), "out")) return;
  if (out->numel() == 0) return;
  int64_t* count = nullptr;  // values reduced per out element (mean only)
  if (reduce == Reduce::kMean) {
    count = static_cast<int64_t*>(
        ctx.AllocateTemp(static_cast<size_t>(out->numel()) * sizeof(int64_t)));
    if (count == nullptr) {
      args.Fail(Error::kMemoryAllocationFailed, "no temp memory for %lld counts",
                static_cast<long long>(out->numel()));
      return;
    }
    for (int64_t i = 0; i < out->numel(); ++i) count[i] = include_self ? 1 : 0;
  }
  if (out != self) CopyView(StridedView::Of(*self), StridedView::Of(*out));
  float* wide = nullptr;
  if (!WideCopy(ctx, args, *out, &wide)) return;
  const StridedView out_v = AtLeast1d(*out);
  const int64_t n = self_v.sizes[dim];
  const int64_t out_step = out_v.strides[dim];
  const int64_t* idx = reinterpret_cast<const int64_t*>(index_v.data);
  const StridedLoop<3> loop = IndexLoop(index_v, src_v, out_v, dim);
  SwitchRealElement(self->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    // The values reduced into: out itself, or its float32 copy.
    T* y;
    if constexpr (kIsReducedFloat<S>) {
      y = wide;
    } else {
      y = reinterpret_cast<T*>(out_v.data);
    }
    const S* x = reinterpret_cast<const S*>(src_v.data);
    const auto target = [&](const int64_t* o) {
      const int64_t i = idx[o[0]];
      return o[2] + (i < 0 ? i + n : i) * out_step;  // element offset in out
    };
    if (!include_self) {
      ForEachOffset(loop, [&](const int64_t* o) { y[target(o)] = ReduceIdentity<T>(reduce); });
    }
    ForEachOffset(loop, [&](const int64_t* o) {
      const int64_t t = target(o);
      y[t] = ReduceStep<T>(reduce, y[t], Convert<T>(x[o[1]]));
      if (count != nullptr) ++count[t];
    });
    S* ys = reinterpret_cast<S*>(out_v.data);
    StoreWide<S>(wide, out->numel(), ys);
    if (count == nullptr) return;
    // The mean divides the (rounded) sum.
    const StridedView* const views[1] = {&out_v};
    ForEachOffset(BroadcastLoop<1>(out_v.dim, out_v.sizes, views), [&](const int64_t* o) {
      const T c = static_cast<T>(count[o[0]] == 0 ? 1 : count[o[0]]);
      const T v = Convert<T>(ys[o[0]]);
      if constexpr (std::is_integral_v<T>) {
        const T q = static_cast<T>(v / c);
        ys[o[0]] = (v % c != 0 && (v < 0) != (c < 0)) ? static_cast<T>(q - 1) : q;
      } else {
        ys[o[0]] = Convert<S>(v / c);
      }
    });
  });
}

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
