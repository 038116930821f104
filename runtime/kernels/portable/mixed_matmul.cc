// quantized_decomposed::mixed_mm.out and mixed_linear.out, the real
// runtime's weight-only int8 products: a floating input times an int8
// weight dequantized on the fly, W = (w - zero_point) * scale (no zero
// points: 0), accumulated in the input's type (float32 or float64; scales
// and zero points of that type too):
//   mixed_mm      in [M, K] @ W, w [K, P], scales (and zero points) [K]
//                 (one per weight row), out [M, P] of the input's type;
//   mixed_linear  in [..., K] @ W^T, w [P, K], scales [P] (per output
//                 channel) or [P, G] (groups of ceil(K / G) along K, the
//                 last one possibly shorter), out [..., P] of `dtype` (or
//                 out's type when None; float32 or float64).
// Torch has no kernels for these ops (the exporter only declares them); the
// definition is the real runtime's (kernels/quantized/cpu/op_mixed_*.cpp),
// which rejects zero points; here they apply as the affine dequantization
// of the other quantized_decomposed ops. Any dim order.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// The weight's dequantization parameters: scale and zero point of weight
// element (r, k) are entry (r, k / group) of the [R] or [R, G] tensors.
template <typename T>
struct Dequant {
  const Tensor& scales;
  const Tensor* zero_points;  // null: all 0
  int64_t group;              // K for per-row scales

  T At(const Tensor& t, int64_t r, int64_t k) const {
    const T* p = t.data_as<const T>() + r * t.stride(0);
    return t.dim() == 2 ? p[(k / group) * t.stride(1)] : *p;
  }
  T Weight(int8_t w, int64_t r, int64_t k) const {
    const T zp = zero_points != nullptr ? At(*zero_points, r, k) : T(0);
    return (static_cast<T>(w) - zp) * At(scales, r, k);
  }
};

// Checks that the input, scales and zero points share a floating dtype,
// the weight is int8 and the zero points are shaped as the scales.
bool CheckMixedArgs(KernelArgs& args, const Tensor& in, const Tensor& weight, const Tensor& scales,
                    const Tensor* zero_points) {
  if (!IsBasicFloating(in.dtype()) || scales.dtype() != in.dtype() ||
      (zero_points != nullptr && zero_points->dtype() != in.dtype()) ||
      weight.dtype() != ScalarType::kChar) {
    args.Fail(Error::kInvalidArgument,
              "needs a float32/float64 input with scales and zero points of "
              "its dtype and an int8 weight");
    return false;
  }
  bool same_shape = zero_points == nullptr || zero_points->dim() == scales.dim();
  for (int d = 0; same_shape && zero_points != nullptr && d < scales.dim(); ++d) {
    same_shape = zero_points->size(d) == scales.size(d);
  }
  if (!same_shape) {
    args.Fail(Error::kInvalidArgument, "weight_zero_points must have the scales' shape");
    return false;
  }
  return true;
}

}  // namespace

void MixedMmOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::mixed_mm.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  Tensor* weight = args.GetTensor(1);
  Tensor* scales = args.GetTensor(2);
  Tensor* zero_points = args.GetOptionalTensor(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  if (!CheckMixedArgs(args, *in, *weight, *scales, zero_points)) return;
  if (out->dtype() != in->dtype()) {
    args.Fail(Error::kInvalidArgument, "out must have the input's dtype");
    return;
  }
  if (in->dim() != 2 || weight->dim() != 2 || scales->dim() != 1 ||
      in->size(1) != weight->size(0) || scales->size(0) != weight->size(0)) {
    args.Fail(Error::kInvalidArgument, "needs input [M, K], weight [K, P] and scales [K]");
    return;
  }
  const int32_t sizes[2] = {in->size(0), weight->size(1)};
  if (!args.ResizeOut(*out, sizes, "out")) return;
  const int64_t m = in->size(0), k_size = in->size(1), p = weight->size(1);
  SwitchFloating(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Dequant<T> dq{*scales, zero_points, k_size};
    const T* x = in->data_as<const T>();
    const int8_t* w = weight->data_as<const int8_t>();
    T* y = out->data_as<T>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        T acc = 0;
        for (int64_t k = 0; k < k_size; ++k) {
          acc += x[i * in->stride(0) + k * in->stride(1)] *
                 dq.Weight(w[k * weight->stride(0) + j * weight->stride(1)], k, 0);
        }
        y[i * out->stride(0) + j * out->stride(1)] = acc;
      }
    }
  });
}

void MixedLinearOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::mixed_linear.out", raw, 7);
  Tensor* in = args.GetTensor(0);
  Tensor* weight = args.GetTensor(1);
  Tensor* scales = args.GetTensor(2);
  Tensor* zero_points = args.GetOptionalTensor(3);
  int64_t dtype = -1;
  const bool has_dtype = args.GetOptionalInt(4, &dtype);
  Tensor* out = args.GetTensor(5);
  if (!args.ok()) return;
  if (!CheckMixedArgs(args, *in, *weight, *scales, zero_points)) return;
  if (!IsBasicFloating(out->dtype()) ||
      (has_dtype && dtype != static_cast<int64_t>(out->dtype()))) {
    args.Fail(Error::kInvalidArgument, "out must be float32/float64 and of dtype %lld when given",
              static_cast<long long>(dtype));
    return;
  }
  if (in->dim() < 1 || weight->dim() != 2 || in->size(in->dim() - 1) != weight->size(1) ||
      (scales->dim() != 1 && scales->dim() != 2) || scales->size(0) != weight->size(0) ||
      (scales->dim() == 2 && (scales->size(1) < 1 || scales->size(1) > weight->size(1)))) {
    args.Fail(Error::kInvalidArgument,
              "needs input [..., K], weight [P, K] and scales [P] or [P, G] "
              "with 1 <= G <= K");
    return;
  }
  const int64_t k_size = weight->size(1), p = weight->size(0);
  const int64_t groups = scales->dim() == 2 ? scales->size(1) : 1;
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d + 1 < in->dim(); ++d) sizes[d] = in->size(d);
  sizes[in->dim() - 1] = weight->size(0);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(in->dim())}, "out")) {
    return;
  }
  const int64_t m = p == 0 ? 0 : out->numel() / p;  // rows of in and out
  const StoreFn<double> store = GetStorer<double>(out->dtype());
  const int64_t out_elem = static_cast<int64_t>(ElementSize(out->dtype()));
  SwitchFloating(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Dequant<T> dq{*scales, zero_points, (k_size + groups - 1) / groups};
    const T* x = in->data_as<const T>();
    const int8_t* w = weight->data_as<const int8_t>();
    const int64_t x_step = in->stride(in->dim() - 1);
    const int64_t y_step = out->stride(out->dim() - 1);
    for (int64_t i = 0; i < m; ++i) {
      const T* xrow = x + LogicalOffset(*in, i, in->dim() - 1);
      char* yrow = out->data_as<char>() + LogicalOffset(*out, i, out->dim() - 1) * out_elem;
      for (int64_t j = 0; j < p; ++j) {
        T acc = 0;
        for (int64_t k = 0; k < k_size; ++k) {
          acc +=
              xrow[k * x_step] * dq.Weight(w[j * weight->stride(0) + k * weight->stride(1)], j, k);
        }
        store(static_cast<double>(acc), yrow + j * y_step * out_elem);
      }
    }
  });
}

}  // namespace portable
}  // namespace edgefleet
