#include "runtime/kernels/portable/pool_util.h"

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {

Planes PlanesOf(const Tensor& t) {
  const int o = t.dim() - 3;  // 0 for rank 3, 1 for rank 4
  return {o == 1 ? t.size(0) : 1,   t.size(o),   t.size(o + 1),   t.size(o + 2),
          o == 1 ? t.stride(0) : 0, t.stride(o), t.stride(o + 1), t.stride(o + 2)};
}

bool WindowList(KernelArgs& args, Span<const int64_t> list, const int64_t* fallback,
                const char* name, int count, int64_t* out) {
  if (list.empty() && fallback != nullptr) {
    for (int i = 0; i < count; ++i) out[i] = fallback[i];
    return true;
  }
  if (list.size() != 1 && list.size() != static_cast<size_t>(count)) {
    args.Fail(Error::kInvalidArgument, "%s must have 1 or %d entries, got %zu", name, count,
              list.size());
    return false;
  }
  for (int i = 0; i < count; ++i) out[i] = list.size() == 1 ? list[0] : list[i];
  return true;
}

bool Pair(KernelArgs& args, Span<const int64_t> list, const int64_t* fallback, const char* name,
          int64_t* out) {
  return WindowList(args, list, fallback, name, 2, out);
}

bool MaxPoolWindow(KernelArgs& args, Span<const int64_t> kernel_list,
                   Span<const int64_t> stride_list, Span<const int64_t> pad_list,
                   Span<const int64_t> dilation_list, int64_t* k, int64_t* s, int64_t* pad,
                   int64_t* d, int count) {
  return AvgPoolWindow(args, kernel_list, stride_list, pad_list, k, s, pad, count) &&
         WindowList(args, dilation_list, nullptr, "dilation", count, d);
}

bool AvgPoolWindow(KernelArgs& args, Span<const int64_t> kernel_list,
                   Span<const int64_t> stride_list, Span<const int64_t> pad_list, int64_t* k,
                   int64_t* s, int64_t* pad, int count) {
  return WindowList(args, kernel_list, nullptr, "kernel_size", count, k) &&
         WindowList(args, stride_list, k, "stride", count, s) &&
         WindowList(args, pad_list, nullptr, "padding", count, pad);
}

bool CheckFloatingPool(KernelArgs& args, const Tensor& in, const Tensor& out) {
  if (in.dtype() != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
    return false;
  }
  if (!SwitchFloatingElement(in.dtype(), [](auto) {})) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in.dtype()));
    return false;
  }
  return true;
}

bool CheckDivisorOverride(KernelArgs& args, bool has_divisor, int64_t divisor) {
  if (has_divisor && divisor == 0) {
    args.Fail(Error::kInvalidArgument, "divisor_override must be non-zero");
    return false;
  }
  return true;
}

int64_t PoolOutSize(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  // Ranges first: the padding bound below multiplies k by dilation.
  if (k <= 0 || stride <= 0 || dilation <= 0 || pad < 0 || in > INT32_MAX || k > INT32_MAX ||
      stride > INT32_MAX || dilation > INT32_MAX || pad > INT32_MAX ||
      pad > ((k - 1) * dilation + 1) / 2) {
    return -1;
  }
  const int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

bool PreparePoolOutputs(KernelArgs& args, const Tensor& in, const int64_t* kernel,
                        const int64_t* stride, const int64_t* pad, const int64_t* dilation,
                        bool ceil_mode, Tensor* const* outs, int num_outs) {
  if (in.dim() != 3 && in.dim() != 4) {
    args.Fail(Error::kInvalidArgument, "input must have rank 3 or 4, got %d", in.dim());
    return false;
  }
  const Planes p = PlanesOf(in);
  const int64_t oh = PoolOutSize(p.h, kernel[0], pad[0], stride[0], dilation[0], ceil_mode);
  const int64_t ow = PoolOutSize(p.w, kernel[1], pad[1], stride[1], dilation[1], ceil_mode);
  if (oh < 1 || ow < 1) {
    args.Fail(Error::kInvalidArgument,
              "invalid pooling window for input %s "
              "(output would be %lldx%lld)",
              FormatSizes(StridedView::Of(in)).text, static_cast<long long>(oh),
              static_cast<long long>(ow));
    return false;
  }
  int32_t sizes[4] = {in.size(0), in.size(1), 0, 0};
  sizes[in.dim() - 2] = static_cast<int32_t>(oh);
  sizes[in.dim() - 1] = static_cast<int32_t>(ow);
  for (int i = 0; i < num_outs; ++i) {
    if (!args.ResizeOut(*outs[i], {sizes, static_cast<size_t>(in.dim())},
                        i == 0 ? "out" : "indices")) {
      return false;
    }
  }
  return true;
}

}  // namespace portable
}  // namespace edgefleet
