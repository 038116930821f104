// aten::convolution.out: 1-D, 2-D and 3-D convolution, regular and
// transposed, with groups (depthwise included), stride, padding, dilation
// and an optional bias; aten::convolution_backward.out: the gradients of a
// regular 1-D or 2-D one (input, weight, bias; output_mask selects). A rank-3
// (N, C, L) problem runs as 2-D with H = 1; a rank-5 (N, C, D, H, W) one as
// 2-D planes with an outer depth dim. Direct loops over strided data, so any
// dim order works (channels-last included). float16 and bfloat16 accumulate
// in float32 (the gradients in double) and round each result once.

#include <algorithm>

#include "runtime/kernels/portable/convolution_backward.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Problem geometry, every tensor seen as 4-D (a rank-5 one as its slice at
// depth 0).
struct ConvShape {
  Planes in, weight, out;
  int64_t groups;
  int64_t stride[2], pad[2], dilation[2];
};

// The depth dim of a 3-D problem: sizes and element strides of input,
// weight and output, and its stride, padding and dilation (for 1-D and 2-D
// problems every size is 1 and every stride 0).
struct Depth {
  int64_t in, k, out;
  int64_t s_in, s_w, s_out;
  int64_t stride, pad, dilation;
};

// Bias element c as OpMath<S>, or 0 if there is no bias.
template <typename S>
OpMath<S> BiasAt(const Tensor* bias, int64_t c) {
  if (bias == nullptr) return 0;
  return Convert<OpMath<S>>(bias->data_as<const S>()[c * bias->stride(0)]);
}

// Output rows are computed in chunks of this many elements, accumulated in
// OpMath<S> on the stack and rounded to S once.
constexpr int64_t kChunk = 64;

// First and one-past-last output index o with 0 <= o * s - p + k * d < in.
void ValidRange(int64_t in, int64_t out, int64_t s, int64_t p, int64_t kd, int64_t* lo,
                int64_t* hi) {
  const int64_t shift = p - kd;  // o * s >= shift and o * s < in + shift
  *lo = shift <= 0 ? 0 : (shift + s - 1) / s;
  const int64_t end = in + shift;  // o * s < end
  *hi = end <= 0 ? 0 : std::min(out, (end + s - 1) / s);
  if (*hi < *lo) *hi = *lo;
}

// One chunk of an output row: batch n, output channel oc, depth od and row
// oh, columns [c0, c1).
struct OutChunk {
  int64_t n, oc, od, oh, c0, c1;
};

// Calls f(chunk, row) for every chunk of every output row, row pointing at
// the row's first element in y.
template <typename S, typename F>
void ForEachOutChunk(const Planes& po, const Depth& dep, S* y, F&& f) {
  for (int64_t n = 0; n < po.n; ++n) {
    for (int64_t oc = 0; oc < po.c; ++oc) {
      for (int64_t od = 0; od < dep.out; ++od) {
        for (int64_t oh = 0; oh < po.h; ++oh) {
          S* row = y + n * po.sn + oc * po.sc + od * dep.s_out + oh * po.sh;
          for (int64_t c0 = 0; c0 < po.w; c0 += kChunk) {
            f(OutChunk{n, oc, od, oh, c0, std::min(po.w, c0 + kChunk)}, row);
          }
        }
      }
    }
  }
}

// Regular convolution. Each output element sums from 0 over (kernel depth,
// input channel, kernel row, kernel column), then adds the bias, as the real
// runtime's portable kernel does for 1-D and 2-D problems, so float results
// are bit-identical.
template <typename S>
void Conv(const ConvShape& g, const Depth& dep, const S* x, const S* w, const Tensor* bias, S* y) {
  using T = OpMath<S>;
  const Planes &pi = g.in, &pw = g.weight, &po = g.out;
  const int64_t cin_g = pi.c / g.groups, cout_g = po.c / g.groups;
  T acc[kChunk];
  ForEachOutChunk(po, dep, y, [&](const OutChunk& c, S* row) {
    const int64_t group = c.oc / cout_g;
    std::fill(acc, acc + (c.c1 - c.c0), T(0));
    for (int64_t kd = 0; kd < dep.k; ++kd) {
      const int64_t id = c.od * dep.stride - dep.pad + kd * dep.dilation;
      if (id < 0 || id >= dep.in) continue;
      for (int64_t icg = 0; icg < cin_g; ++icg) {
        const S* xp = x + c.n * pi.sn + (group * cin_g + icg) * pi.sc + id * dep.s_in;
        const S* wp = w + c.oc * pw.sn + icg * pw.sc + kd * dep.s_w;
        for (int64_t kh = 0; kh < pw.h; ++kh) {
          const int64_t ih = c.oh * g.stride[0] - g.pad[0] + kh * g.dilation[0];
          if (ih < 0 || ih >= pi.h) continue;
          const S* xr = xp + ih * pi.sh;
          for (int64_t kw = 0; kw < pw.w; ++kw) {
            const T wv = Convert<T>(wp[kh * pw.sh + kw * pw.sw]);
            int64_t ow0, ow1;
            ValidRange(pi.w, po.w, g.stride[1], g.pad[1], kw * g.dilation[1], &ow0, &ow1);
            const int64_t off = kw * g.dilation[1] - g.pad[1];
            for (int64_t ow = std::max(ow0, c.c0); ow < std::min(ow1, c.c1); ++ow) {
              acc[ow - c.c0] += wv * Convert<T>(xr[(ow * g.stride[1] + off) * pi.sw]);
            }
          }
        }
      }
    }
    const T b = BiasAt<S>(bias, c.oc);
    for (int64_t ow = c.c0; ow < c.c1; ++ow) {
      const T v = acc[ow - c.c0];
      row[ow * po.sw] = Convert<S>(bias != nullptr ? v + b : v);
    }
  });
}

// Transposed convolution. Each output element sums from the bias (or 0)
// over (kernel depth, input channel, kernel row, kernel column) the weight
// times every input element that lands on it, in the order the real
// runtime's portable kernel scatters them.
template <typename S>
void ConvTransposed(const ConvShape& g, const Depth& dep, const S* x, const S* w,
                    const Tensor* bias, S* y) {
  using T = OpMath<S>;
  const Planes &pi = g.in, &pw = g.weight, &po = g.out;
  const int64_t cin_g = pi.c / g.groups, cout_g = po.c / g.groups;
  // The input index i with i * s - p + k * d == o, or -1.
  const auto source = [](int64_t o, int64_t k, int64_t s, int64_t p, int64_t d, int64_t in) {
    const int64_t t = o + p - k * d;
    if (t < 0 || t % s != 0 || t / s >= in) return int64_t{-1};
    return t / s;
  };
  T acc[kChunk];
  ForEachOutChunk(po, dep, y, [&](const OutChunk& c, S* row) {
    const int64_t group = c.oc / cout_g, ocg = c.oc % cout_g;
    std::fill(acc, acc + (c.c1 - c.c0), BiasAt<S>(bias, c.oc));
    for (int64_t kd = 0; kd < dep.k; ++kd) {
      const int64_t id = source(c.od, kd, dep.stride, dep.pad, dep.dilation, dep.in);
      if (id < 0) continue;
      for (int64_t ic = group * cin_g; ic < (group + 1) * cin_g; ++ic) {
        const S* xp = x + c.n * pi.sn + ic * pi.sc + id * dep.s_in;
        const S* wp = w + ic * pw.sn + ocg * pw.sc + kd * dep.s_w;
        for (int64_t kh = 0; kh < pw.h; ++kh) {
          const int64_t ih = source(c.oh, kh, g.stride[0], g.pad[0], g.dilation[0], pi.h);
          if (ih < 0) continue;
          for (int64_t kw = 0; kw < pw.w; ++kw) {
            const T wv = Convert<T>(wp[kh * pw.sh + kw * pw.sw]);
            for (int64_t ow = c.c0; ow < c.c1; ++ow) {
              const int64_t iw = source(ow, kw, g.stride[1], g.pad[1], g.dilation[1], pi.w);
              if (iw >= 0) acc[ow - c.c0] += wv * Convert<T>(xp[ih * pi.sh + iw * pi.sw]);
            }
          }
        }
      }
    }
    for (int64_t ow = c.c0; ow < c.c1; ++ow) row[ow * po.sw] = Convert<S>(acc[ow - c.c0]);
  });
}

// Rank-3 tensors as 4-D with H = 1, rank-5 ones as their slice at depth 0.
Planes ConvPlanes(const Tensor& t) {
  if (t.dim() == 4) return PlanesOf(t);
  if (t.dim() == 5) {
    return {t.size(0),   t.size(1),   t.size(3),   t.size(4),
            t.stride(0), t.stride(1), t.stride(3), t.stride(4)};
  }
  return {t.size(0), t.size(1), 1, t.size(2), t.stride(0), t.stride(1), 0, t.stride(2)};
}

// Reads a per-spatial-dim list (1 entry repeats) into [d, h, w] order; the
// dims a 1-D or 2-D problem lacks get `fill`.
bool SpatialList(KernelArgs& args, Span<const int64_t> list, int spatial, int64_t fill,
                 const char* name, int64_t* out) {
  if (list.size() != 1 && list.size() != static_cast<size_t>(spatial)) {
    args.Fail(Error::kInvalidArgument, "%s must have 1 or %d entries, got %zu", name, spatial,
              list.size());
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    const int entry = i - (3 - spatial);  // index into a full list
    out[i] = entry < 0 ? fill : list[list.size() == 1 ? 0 : entry];
  }
  return true;
}

// The gradients of a regular convolution y = conv(x, w) + b given dy
// (`g.out` = dy's planes), each element summed in double: gx gathers dy *
// w over every output position its input position feeds, gw sums dy * x
// over the batch and the output positions, gb sums dy. Null: not wanted.
template <typename T>
void ConvBackward(const ConvShape& g, const T* dy, const T* x, const T* w, const Planes* pgx, T* gx,
                  const Planes* pgw, T* gw, const Planes* pgb, T* gb) {
  const Planes &pi = g.in, &pw = g.weight, &po = g.out;
  const int64_t cin_g = pi.c / g.groups, cout_g = po.c / g.groups;
  // Output index o with o * s - p + k * d == i, or -1.
  auto source = [](int64_t i, int64_t k, int64_t s, int64_t p, int64_t d, int64_t out) {
    const int64_t t = i + p - k * d;
    if (t < 0 || t % s != 0 || t / s >= out) return int64_t{-1};
    return t / s;
  };
  if (gx != nullptr) {
    for (int64_t n = 0; n < pi.n; ++n) {
      for (int64_t ic = 0; ic < pi.c; ++ic) {
        const int64_t group = ic / cin_g, icg = ic % cin_g;
        for (int64_t ih = 0; ih < pi.h; ++ih) {
          for (int64_t iw = 0; iw < pi.w; ++iw) {
            double acc = 0;
            for (int64_t oc = group * cout_g; oc < (group + 1) * cout_g; ++oc) {
              for (int64_t kh = 0; kh < pw.h; ++kh) {
                const int64_t oh = source(ih, kh, g.stride[0], g.pad[0], g.dilation[0], po.h);
                if (oh < 0) continue;
                for (int64_t kw = 0; kw < pw.w; ++kw) {
                  const int64_t ow = source(iw, kw, g.stride[1], g.pad[1], g.dilation[1], po.w);
                  if (ow < 0) continue;
                  acc += Convert<double>(dy[n * po.sn + oc * po.sc + oh * po.sh + ow * po.sw]) *
                         Convert<double>(w[oc * pw.sn + icg * pw.sc + kh * pw.sh + kw * pw.sw]);
                }
              }
            }
            gx[n * pgx->sn + ic * pgx->sc + ih * pgx->sh + iw * pgx->sw] = Convert<T>(acc);
          }
        }
      }
    }
  }
  for (int64_t oc = 0; oc < po.c && (gw != nullptr || gb != nullptr); ++oc) {
    const int64_t group = oc / cout_g;
    if (gb != nullptr) {
      double acc = 0;
      for (int64_t n = 0; n < po.n; ++n) {
        for (int64_t oh = 0; oh < po.h; ++oh) {
          for (int64_t ow = 0; ow < po.w; ++ow) {
            acc += Convert<double>(dy[n * po.sn + oc * po.sc + oh * po.sh + ow * po.sw]);
          }
        }
      }
      gb[oc * pgb->sn] = Convert<T>(acc);
    }
    if (gw == nullptr) continue;
    for (int64_t icg = 0; icg < cin_g; ++icg) {
      const int64_t ic = group * cin_g + icg;
      for (int64_t kh = 0; kh < pw.h; ++kh) {
        for (int64_t kw = 0; kw < pw.w; ++kw) {
          double acc = 0;
          for (int64_t n = 0; n < po.n; ++n) {
            for (int64_t oh = 0; oh < po.h; ++oh) {
              const int64_t ih = oh * g.stride[0] - g.pad[0] + kh * g.dilation[0];
              if (ih < 0 || ih >= pi.h) continue;
              for (int64_t ow = 0; ow < po.w; ++ow) {
                const int64_t iw = ow * g.stride[1] - g.pad[1] + kw * g.dilation[1];
                if (iw < 0 || iw >= pi.w) continue;
                acc += Convert<double>(dy[n * po.sn + oc * po.sc + oh * po.sh + ow * po.sw]) *
                       Convert<double>(x[n * pi.sn + ic * pi.sc + ih * pi.sh + iw * pi.sw]);
              }
            }
          }
          gw[oc * pgw->sn + icg * pgw->sc + kh * pgw->sh + kw * pgw->sw] = Convert<T>(acc);
        }
      }
    }
  }
}

// Checks a (transposed) convolution's input, weight and parameters; fills
// `g` (all but its output planes), `depth` (all but its output stride), the
// output sizes (in's rank entries of `sizes`) and the output channels.
// False, with args failed, if invalid.
bool ConvGeometry(KernelArgs& args, const Tensor& in, const Tensor& weight,
                  Span<const int64_t> stride_list, Span<const int64_t> pad_list,
                  Span<const int64_t> dilation_list, bool transposed,
                  Span<const int64_t> out_pad_list, int64_t groups, ConvShape* g, Depth* depth,
                  int32_t* sizes, int64_t* cout) {
  if (in.dim() < 3 || in.dim() > 5 || weight.dim() != in.dim()) {
    args.Fail(Error::kInvalidArgument, "input %s and weight %s must both have rank 3, 4 or 5",
              FormatSizes(StridedView::Of(in)).text, FormatSizes(StridedView::Of(weight)).text);
    return false;
  }
  const int spatial = in.dim() - 2;
  int64_t stride[3], pad[3], dilation[3], out_pad[3] = {0, 0, 0};
  if (!SpatialList(args, stride_list, spatial, 1, "stride", stride) ||
      !SpatialList(args, pad_list, spatial, 0, "padding", pad) ||
      !SpatialList(args, dilation_list, spatial, 1, "dilation", dilation) ||
      (transposed && !SpatialList(args, out_pad_list, spatial, 0, "output_padding", out_pad))) {
    return false;
  }
  g->in = ConvPlanes(in);
  g->weight = ConvPlanes(weight);
  g->groups = groups;
  for (int i = 0; i < 2; ++i) {
    g->stride[i] = stride[i + 1];
    g->pad[i] = pad[i + 1];
    g->dilation[i] = dilation[i + 1];
  }
  const bool rank5 = spatial == 3;
  *depth = {rank5 ? in.size(2) : 1,
            rank5 ? weight.size(2) : 1,
            1,
            rank5 ? in.stride(2) : 0,
            rank5 ? weight.stride(2) : 0,
            0,
            stride[0],
            pad[0],
            dilation[0]};
  if (groups < 1 || groups > INT32_MAX) {
    args.Fail(Error::kInvalidArgument, "groups=%lld out of range", static_cast<long long>(groups));
    return false;
  }
  const int64_t cin = g->in.c;
  *cout = transposed ? g->weight.c * groups : g->weight.n;
  const int64_t weight_cin = transposed ? g->weight.n : g->weight.c * groups;
  if (cin % groups != 0 || *cout % groups != 0 || weight_cin != cin) {
    args.Fail(Error::kInvalidArgument, "weight %s does not fit input %s with groups=%lld",
              FormatSizes(StridedView::Of(weight)).text, FormatSizes(StridedView::Of(in)).text,
              static_cast<long long>(groups));
    return false;
  }
  const int64_t in_sizes[3] = {depth->in, g->in.h, g->in.w};
  const int64_t k_sizes[3] = {depth->k, g->weight.h, g->weight.w};
  int64_t out_sizes[3];
  for (int i = 0; i < 3; ++i) {
    const int64_t in_size = in_sizes[i], k = k_sizes[i];
    const int64_t s = stride[i], p = pad[i], d = dilation[i];
    const bool bad = s < 1 || d < 1 || p < 0 || s > INT32_MAX || d > INT32_MAX || p > INT32_MAX ||
                     out_pad[i] < 0 || (transposed && out_pad[i] >= s && out_pad[i] >= d);
    if (!bad) {
      out_sizes[i] = transposed ? (in_size - 1) * s - 2 * p + d * (k - 1) + out_pad[i] + 1
                                : (in_size + 2 * p - d * (k - 1) - 1) / s + 1;
    }
    if (bad || (!transposed && in_size + 2 * p < d * (k - 1) + 1) || out_sizes[i] < 1 ||
        out_sizes[i] > INT32_MAX) {
      args.Fail(Error::kInvalidArgument,
                "invalid stride/padding/dilation for input %s and weight %s",
                FormatSizes(StridedView::Of(in)).text, FormatSizes(StridedView::Of(weight)).text);
      return false;
    }
  }
  depth->out = out_sizes[0];
  sizes[0] = in.size(0);
  sizes[1] = static_cast<int32_t>(*cout);
  for (int i = 0; i < spatial; ++i) {
    sizes[2 + i] = static_cast<int32_t>(out_sizes[3 - spatial + i]);
  }
  return true;
}

}  // namespace

void ConvolutionOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::convolution.out", raw, 11);
  Tensor* in = args.GetTensor(0);
  Tensor* weight = args.GetTensor(1);
  Tensor* bias = args.GetOptionalTensor(2);
  Span<const int64_t> stride_list = args.GetIntList(3);
  Span<const int64_t> pad_list = args.GetIntList(4);
  Span<const int64_t> dilation_list = args.GetIntList(5);
  const bool transposed = args.GetBool(6);
  Span<const int64_t> out_pad_list = args.GetIntList(7);
  const int64_t groups = args.GetInt(8);
  Tensor* out = args.GetTensor(9);
  if (!args.ok()) return;
  ConvShape g;
  Depth depth;
  int32_t sizes[5];
  int64_t cout = 0;
  if (!ConvGeometry(args, *in, *weight, stride_list, pad_list, dilation_list, transposed,
                    out_pad_list, groups, &g, &depth, sizes, &cout)) {
    return;
  }
  if (bias != nullptr && (bias->dim() != 1 || bias->size(0) != cout)) {
    args.Fail(Error::kInvalidArgument, "bias must have shape [%lld]", static_cast<long long>(cout));
    return;
  }
  const Tensor* tensors[3] = {in, weight, bias};
  for (const Tensor* t : tensors) {
    if (t != nullptr && t->dtype() != out->dtype()) {
      args.Fail(Error::kInvalidArgument, "dtype %s does not match out (%s)",
                ScalarTypeName(t->dtype()), ScalarTypeName(out->dtype()));
      return;
    }
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(in->dim())}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  g.out = ConvPlanes(*out);
  if (out->dim() == 5) depth.s_out = out->stride(2);
  if (!SwitchFloatingElement(out->dtype(), [&](auto tag) {
        using S = decltype(tag);
        S* y = out->data_as<S>();
        const S* x = in->data_as<const S>();
        const S* w = weight->data_as<const S>();
        if (transposed) {
          ConvTransposed<S>(g, depth, x, w, bias, y);
        } else {
          Conv<S>(g, depth, x, w, bias, y);
        }
      })) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out->dtype()));
  }
}

void ConvolutionBackwardOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::convolution_backward.out", raw, 15);
  Tensor* grad_out = args.GetTensor(0);
  Tensor* in = args.GetTensor(1);
  Tensor* weight = args.GetTensor(2);
  Span<const int64_t> bias_sizes;
  const bool has_bias_sizes = args.GetOptionalIntList(3, &bias_sizes);
  Span<const int64_t> stride_list = args.GetIntList(4);
  Span<const int64_t> pad_list = args.GetIntList(5);
  Span<const int64_t> dilation_list = args.GetIntList(6);
  const bool transposed = args.GetBool(7);
  Span<const int64_t> out_pad_list = args.GetIntList(8);
  const int64_t groups = args.GetInt(9);
  Tensor* outs[3] = {args.GetTensor(11), args.GetTensor(12), args.GetTensor(13)};
  if (!args.ok()) return;
  if (raw[10] == nullptr || raw[10]->tag() != Tag::kListBool) {
    args.Fail(Error::kInvalidArgument, "output_mask must be a bool list");
    return;
  }
  const Span<const uint8_t> mask = raw[10]->to_bool_list();
  if (transposed) {
    // As the real runtime's portable kernel.
    args.Fail(Error::kNotSupported, "transposed convolution is not supported");
    return;
  }
  if (mask.size() != 3) {
    args.Fail(Error::kInvalidArgument, "output_mask must have 3 entries, got %zu", mask.size());
    return;
  }
  if (in->dim() == 5) {
    args.Fail(Error::kNotSupported, "3-D convolution_backward is not supported");
    return;
  }
  ConvShape g;
  Depth depth;
  int32_t sizes[5];
  int64_t cout = 0;
  if (!ConvGeometry(args, *in, *weight, stride_list, pad_list, dilation_list, transposed,
                    out_pad_list, groups, &g, &depth, sizes, &cout)) {
    return;
  }
  bool same = grad_out->dim() == in->dim();
  for (int d = 0; same && d < in->dim(); ++d) same = grad_out->size(d) == sizes[d];
  if (!same) {
    args.Fail(Error::kInvalidArgument, "grad_output %s is not the convolution's output shape",
              FormatSizes(StridedView::Of(*grad_out)).text);
    return;
  }
  if (has_bias_sizes && (bias_sizes.size() != 1 || bias_sizes[0] != cout)) {
    args.Fail(Error::kInvalidArgument, "bias_sizes must be [%lld]", static_cast<long long>(cout));
    return;
  }
  const Tensor* tensors[5] = {in, weight, mask[0] ? outs[0] : nullptr, mask[1] ? outs[1] : nullptr,
                              mask[2] ? outs[2] : nullptr};
  for (const Tensor* t : tensors) {
    if (t != nullptr && t->dtype() != grad_out->dtype()) {
      args.Fail(Error::kInvalidArgument, "dtype %s does not match grad_output (%s)",
                ScalarTypeName(t->dtype()), ScalarTypeName(grad_out->dtype()));
      return;
    }
  }
  const int32_t bias_len = static_cast<int32_t>(cout);
  if ((mask[0] && !args.ResizeOut(*outs[0], in->sizes(), "out0")) ||
      (mask[1] && !args.ResizeOut(*outs[1], weight->sizes(), "out1")) ||
      (mask[2] && !args.ResizeOut(*outs[2], {&bias_len, 1}, "out2"))) {
    return;
  }
  g.out = ConvPlanes(*grad_out);
  Planes pgx{}, pgw{}, pgb{};
  if (mask[0]) pgx = ConvPlanes(*outs[0]);
  if (mask[1]) pgw = ConvPlanes(*outs[1]);
  if (mask[2]) pgb = {cout, 1, 1, 1, outs[2]->stride(0), 0, 0, 0};
  if (!SwitchFloatingElement(grad_out->dtype(), [&](auto tag) {
        using T = decltype(tag);
        ConvBackward<T>(g, grad_out->data_as<const T>(), in->data_as<const T>(),
                        weight->data_as<const T>(), &pgx, mask[0] ? outs[0]->data_as<T>() : nullptr,
                        &pgw, mask[1] ? outs[1]->data_as<T>() : nullptr, &pgb,
                        mask[2] ? outs[2]->data_as<T>() : nullptr);
      })) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(grad_out->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
