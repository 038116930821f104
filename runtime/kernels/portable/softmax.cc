// Softmax and log-softmax along one dim (aten::_softmax.out,
// aten::_log_softmax.out), numerically stabilised by the slice maximum.
// Floating dtypes (float16 and bfloat16 computed in float32 and rounded
// once, as PyTorch's CPU kernels do); any dim order.

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

template <typename S>
void SoftmaxSlices(const Tensor& in, const Tensor& out, int dim, bool log) {
  using T = OpMath<S>;
  // Every dimension but `dim`; the slice runs along `dim`.
  StridedLoop<2> outer;
  for (int d = 0; d < in.dim(); ++d) {
    if (d == dim) continue;
    outer.sizes[outer.dim] = in.size(d);
    outer.strides[0][outer.dim] = in.stride(d);
    outer.strides[1][outer.dim] = out.stride(d);
    ++outer.dim;
  }
  outer.Coalesce();
  const int64_t n = in.dim() == 0 ? 1 : in.size(dim);
  const int64_t si = in.dim() == 0 ? 0 : in.stride(dim);
  const int64_t so = out.dim() == 0 ? 0 : out.stride(dim);
  const S* x = in.data_as<const S>();
  S* y = out.data_as<S>();
  // Storage keeps exp values between the passes only when it is exact.
  constexpr bool kStoreExp = std::is_same_v<S, T>;
  ForEachOffset(outer, [&](const int64_t* o) {
    if (n == 0) return;
    const S* xs = x + o[0];
    S* ys = y + o[1];
    const auto load = [xs, si](int64_t i) { return Convert<T>(xs[i * si]); };
    T max = load(0);
    for (int64_t i = 1; i < n; ++i) {
      if (load(i) > max || std::isnan(load(i))) max = load(i);
    }
    T sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T e = std::exp(load(i) - max);
      if (!log && kStoreExp) ys[i * so] = Convert<S>(e);
      sum += e;
    }
    if (log) {
      const T log_sum = std::log(sum);
      for (int64_t i = 0; i < n; ++i) ys[i * so] = Convert<S>(load(i) - max - log_sum);
    } else if constexpr (kStoreExp) {
      for (int64_t i = 0; i < n; ++i) ys[i * so] /= sum;
    } else {
      for (int64_t i = 0; i < n; ++i) ys[i * so] = Convert<S>(std::exp(load(i) - max) / sum);
    }
  });
}

// self, dim, half_to_float, out, ret.
void SoftmaxKernel(KernelContext& ctx, Span<EValue*> raw, const char* name, bool log) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  const bool half_to_float = args.GetBool(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (half_to_float) {
    args.Fail(Error::kNotSupported, "half_to_float is not supported");
    return;
  }
  int d = 0;
  if (!NormalizeDim(dim, in->dim(), &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), in->dim());
    return;
  }
  if (in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  if (!SwitchFloatingElement(in->dtype(),
                             [&](auto tag) { SoftmaxSlices<decltype(tag)>(*in, *out, d, log); })) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
  }
}

}  // namespace

void SoftmaxOut(KernelContext& ctx, Span<EValue*> args) {
  SoftmaxKernel(ctx, args, "aten::_softmax.out", /*log=*/false);
}

void LogSoftmaxOut(KernelContext& ctx, Span<EValue*> args) {
  SoftmaxKernel(ctx, args, "aten::_log_softmax.out", /*log=*/true);
}

}  // namespace portable
}  // namespace edgefleet
