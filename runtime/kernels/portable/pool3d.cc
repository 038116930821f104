// 3-D pooling: aten::avg_pool3d.out (ceil_mode, count_include_pad,
// divisor_override) and aten::max_pool3d_with_indices.out (dilation,
// ceil_mode), over (N, C, D, H, W) or (C, D, H, W) inputs in any dim order,
// with PyTorch's semantics (aten/src/ATen/native/{AveragePool3d,
// DilatedMaxPool3d}.cpp). torch.export decomposes nn.LocalResponseNorm into
// avg_pool3d over a (N, 1, C, H, W) view. Max-pool indices are flat positions
// (d * H + h) * W + w within each input volume; NaN wins, as in PyTorch.
// Average sums accumulate in double.

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// A rank-4 or rank-5 tensor seen as N x C x D x H x W (N = 1 for rank 4).
struct Volumes {
  int64_t size[5];    // n, c, d, h, w
  int64_t stride[5];  // element strides (0 for the absent n)
};

Volumes VolumesOf(const Tensor& t) {
  const int o = t.dim() - 4;  // 0 for rank 4, 1 for rank 5
  Volumes v{};
  v.size[0] = o == 1 ? t.size(0) : 1;
  v.stride[0] = o == 1 ? t.stride(0) : 0;
  for (int i = 0; i < 4; ++i) {
    v.size[i + 1] = t.size(o + i);
    v.stride[i + 1] = t.stride(o + i);
  }
  return v;
}

int64_t Offset(const Volumes& v, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) {
  return n * v.stride[0] + c * v.stride[1] + d * v.stride[2] + h * v.stride[3] + w * v.stride[4];
}

// Reads the window lists into triples (k, s, pad, dilation), checks the
// input rank and window and resizes `outs` to the output volume. Returns
// args.ok().
bool PrepareVolumeOutputs(KernelArgs& args, const Tensor& in, const int64_t* k, const int64_t* s,
                          const int64_t* pad, const int64_t* d, bool ceil_mode, Tensor* const* outs,
                          int num_outs) {
  if (in.dim() != 4 && in.dim() != 5) {
    args.Fail(Error::kInvalidArgument, "input must have rank 4 or 5, got %d", in.dim());
    return false;
  }
  const Volumes v = VolumesOf(in);
  int32_t sizes[5];
  for (int i = 0; i < in.dim() - 3; ++i) sizes[i] = in.size(i);
  for (int i = 0; i < 3; ++i) {
    const int64_t o = PoolOutSize(v.size[i + 2], k[i], pad[i], s[i], d[i], ceil_mode);
    if (o < 1) {
      args.Fail(Error::kInvalidArgument, "invalid pooling window for input %s (dimension %d)",
                FormatSizes(StridedView::Of(in)).text, in.dim() - 3 + i);
      return false;
    }
    sizes[in.dim() - 3 + i] = static_cast<int32_t>(o);
  }
  for (int i = 0; i < num_outs; ++i) {
    if (!args.ResizeOut(*outs[i], {sizes, static_cast<size_t>(in.dim())},
                        i == 0 ? "out" : "indices")) {
      return false;
    }
  }
  return true;
}

// The window of output position `o` along one dimension: [lo, hi) clamped
// to the input, and its length counting the padding.
struct Span1d {
  int64_t lo, hi, padded;
};

Span1d AverageWindow(int64_t o, int64_t k, int64_t s, int64_t pad, int64_t in) {
  const int64_t lo = o * s - pad;
  const int64_t hi = std::min(lo + k, in + pad);
  return {std::max<int64_t>(lo, 0), std::min(hi, in), hi - lo};
}

template <typename T>
void AveragePool3d(const Tensor& in, const Tensor& out, const int64_t* k, const int64_t* s,
                   const int64_t* pad, bool count_include_pad, bool has_divisor,
                   int64_t divisor_override) {
  const Volumes vi = VolumesOf(in), vo = VolumesOf(out);
  const T* x = in.data_as<const T>();
  T* y = out.data_as<T>();
  const int64_t* st = vi.stride;
  for (int64_t n = 0; n < vi.size[0]; ++n) {
    for (int64_t c = 0; c < vi.size[1]; ++c) {
      const T* volume = x + n * st[0] + c * st[1];
      for (int64_t od = 0; od < vo.size[2]; ++od) {
        const Span1d wd = AverageWindow(od, k[0], s[0], pad[0], vi.size[2]);
        for (int64_t oh = 0; oh < vo.size[3]; ++oh) {
          const Span1d wh = AverageWindow(oh, k[1], s[1], pad[1], vi.size[3]);
          for (int64_t ow = 0; ow < vo.size[4]; ++ow) {
            const Span1d ww = AverageWindow(ow, k[2], s[2], pad[2], vi.size[4]);
            const int64_t inside = std::max<int64_t>(wd.hi - wd.lo, 0) *
                                   std::max<int64_t>(wh.hi - wh.lo, 0) *
                                   std::max<int64_t>(ww.hi - ww.lo, 0);
            double sum = 0;
            for (int64_t id = wd.lo; id < wd.hi; ++id) {
              for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
                const T* row = volume + id * st[2] + ih * st[3];
                for (int64_t iw = ww.lo; iw < ww.hi; ++iw) sum += row[iw * st[4]];
              }
            }
            const int64_t divisor = has_divisor         ? divisor_override
                                    : count_include_pad ? wd.padded * wh.padded * ww.padded
                                                        : inside;
            y[Offset(vo, n, c, od, oh, ow)] = inside > 0 ? static_cast<T>(sum / divisor) : T(0);
          }
        }
      }
    }
  }
}

template <typename T>
void MaxPool3d(const Tensor& in, const int64_t* k, const int64_t* s, const int64_t* pad,
               const int64_t* dil, const Tensor& out, const Tensor& indices) {
  const Volumes vi = VolumesOf(in), vo = VolumesOf(out), vx = VolumesOf(indices);
  const T* x = in.data_as<const T>();
  T* y = out.data_as<T>();
  int64_t* idx = indices.data_as<int64_t>();
  for (int64_t n = 0; n < vi.size[0]; ++n) {
    for (int64_t c = 0; c < vi.size[1]; ++c) {
      for (int64_t od = 0; od < vo.size[2]; ++od) {
        for (int64_t oh = 0; oh < vo.size[3]; ++oh) {
          for (int64_t ow = 0; ow < vo.size[4]; ++ow) {
            const int64_t o[3] = {od, oh, ow};
            int64_t lo[3], hi[3];
            for (int i = 0; i < 3; ++i) {
              lo[i] = o[i] * s[i] - pad[i];
              hi[i] = std::min(lo[i] + (k[i] - 1) * dil[i] + 1, vi.size[i + 2]);
              if (lo[i] < 0) lo[i] += (-lo[i] + dil[i] - 1) / dil[i] * dil[i];
            }
            int64_t best_index = (lo[0] * vi.size[3] + lo[1]) * vi.size[4] + lo[2];
            T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                          : std::numeric_limits<T>::lowest();
            for (int64_t id = lo[0]; id < hi[0]; id += dil[0]) {
              for (int64_t ih = lo[1]; ih < hi[1]; ih += dil[1]) {
                for (int64_t iw = lo[2]; iw < hi[2]; iw += dil[2]) {
                  const T v = x[Offset(vi, n, c, id, ih, iw)];
                  bool nan = false;
                  if constexpr (std::is_floating_point_v<T>) nan = std::isnan(v);
                  if (v > best || nan) {
                    best = v;
                    best_index = (id * vi.size[3] + ih) * vi.size[4] + iw;
                  }
                }
              }
            }
            y[Offset(vo, n, c, od, oh, ow)] = best;
            idx[Offset(vx, n, c, od, oh, ow)] = best_index;
          }
        }
      }
    }
  }
}

}  // namespace

void AvgPool3dOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::avg_pool3d.out", raw, 9);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> kernel_list = args.GetIntList(1);
  Span<const int64_t> stride_list = args.GetIntList(2);
  Span<const int64_t> pad_list = args.GetIntList(3);
  const bool ceil_mode = args.GetBool(4);
  const bool count_include_pad = args.GetBool(5);
  int64_t divisor_override = 0;
  const bool has_divisor = args.GetOptionalInt(6, &divisor_override);
  Tensor* out = args.GetTensor(7);
  if (!args.ok()) return;
  int64_t k[3], s[3], pad[3];
  const int64_t d[3] = {1, 1, 1};
  if (!AvgPoolWindow(args, kernel_list, stride_list, pad_list, k, s, pad, 3) ||
      !CheckFloatingPool(args, *in, *out) ||
      !CheckDivisorOverride(args, has_divisor, divisor_override)) {
    return;
  }
  if (!SwitchFloating(in->dtype(), [](auto) {})) {  // no float16 / bfloat16 here
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
    return;
  }
  Tensor* const outs[1] = {out};
  if (!PrepareVolumeOutputs(args, *in, k, s, pad, d, ceil_mode, outs, 1)) return;
  SwitchFloating(in->dtype(), [&](auto tag) {
    AveragePool3d<decltype(tag)>(*in, *out, k, s, pad, count_include_pad, has_divisor,
                                 divisor_override);
  });
}

void MaxPool3dWithIndicesOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::max_pool3d_with_indices.out", raw, 9);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> kernel_list = args.GetIntList(1);
  Span<const int64_t> stride_list = args.GetIntList(2);
  Span<const int64_t> pad_list = args.GetIntList(3);
  Span<const int64_t> dilation_list = args.GetIntList(4);
  const bool ceil_mode = args.GetBool(5);
  Tensor* out = args.GetTensor(6);
  Tensor* indices = args.GetTensor(7);
  if (!args.ok()) return;
  int64_t k[3], s[3], pad[3], d[3];
  if (!MaxPoolWindow(args, kernel_list, stride_list, pad_list, dilation_list, k, s, pad, d, 3)) {
    return;
  }
  if (out->dtype() != in->dtype() || indices->dtype() != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument, "out must match the input dtype and indices must be int64");
    return;
  }
  Tensor* const outs[2] = {out, indices};
  if (!PrepareVolumeOutputs(args, *in, k, s, pad, d, ceil_mode, outs, 2)) return;
  if (!SwitchReal(in->dtype(),
                  [&](auto tag) { MaxPool3d<decltype(tag)>(*in, k, s, pad, d, *out, *indices); })) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
