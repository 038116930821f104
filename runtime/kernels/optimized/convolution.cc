// aten::convolution.out for float32, not transposed: depthwise through the
// direct kernels (depthwise.h), everything else through the packed GEMM
// with the image read in place (1x1, stride 1, no padding) or packed patch
// by patch (conv_operands.h). NCHW and channels-last; 1-D as 2-D with H = 1.
// ConvolutionNhwc (convolution.h) is the same code on raw buffers.

#include "runtime/kernels/optimized/convolution.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/conv_fusion.h"
#include "runtime/kernels/optimized/conv_layout_bridge.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/conv_small_input.h"
#include "runtime/kernels/optimized/depthwise.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/grouped_conv.h"
#include "runtime/kernels/optimized/grouped_nhwc.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/small_input_nchw.h"
#include "runtime/kernels/optimized/small_plane_panels.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

enum class Layout { kNchw, kNhwc };

struct ConvCall {
  const float* x;
  const float* w;
  const float* bias;  // may be null
  float* y;
  Layout layout;
  ConvGeometry g;
  int64_t w_strides[4];  // oc, ic, kh, kw
  // The weight is a strided matrix over oc and the GEMM depth in the
  // layout's order: (ic, kh, kw) for NCHW, (kh, kw, ic) for channels-last.
  bool w_dense = false;
  // Channels-last, one group: the weight as the GEMM's B in column panels
  // (PackPanels over (oc, (kh, kw, ic))), read instead of w; null otherwise.
  const float* w_panels = nullptr;
  // NCHW: the weight's panels for SmallPlaneNchwPanels (small_plane_panels.h),
  // `panel_width` wide, or null.
  const float* small_plane_panels = nullptr;
  int panel_width = 0;
  // A fused activation: every output clamped to [lo, hi] (NaN stays).
  float lo = -__builtin_inff(), hi = __builtin_inff();
  PostOp post = PostOp::kNone;  // after the clamp
  // out starts at in's data (InPlaceCapable): only paths that read all of
  // the input before writing may run; the others fail with nothing written.
  bool in_place = false;
};

// The epilogue of group `grp`'s GEMM: its bias (per row for NCHW, per
// column for channels-last) and the activation.
GemmEpilogue EpilogueOf(const ConvCall& call, int64_t grp, bool rows) {
  GemmEpilogue e;
  if (call.bias != nullptr) {
    const float* b = call.bias + grp * call.g.out_c_per_group();
    (rows ? e.row_bias : e.col_bias) = b;
  }
  e.lo = call.lo;
  e.hi = call.hi;
  e.post = call.post;
  return e;
}

// Clamps n floats at y to the call's activation bounds.
void ClampAll(const ConvCall& call, float* y, int64_t n) {
  GemmEpilogue e;
  e.lo = call.lo;
  e.hi = call.hi;
  e.post = call.post;
  if (e.clamps()) e.Apply(y, n, 0, 1, 0, n);
}

// [h, w] from a per-spatial-dim list (1 entry repeats); `h_value` for 1-D.
bool SpatialPair(Span<const int64_t> list, int spatial, int64_t h_value, int64_t* out) {
  if (list.size() != 1 && list.size() != static_cast<size_t>(spatial)) {
    return false;
  }
  out[1] = list[list.size() - 1];
  out[0] = spatial == 2 ? list[0] : h_value;
  return true;
}

// The tensor layouts the fast path takes; dtypes are checked by the caller.
bool LayoutOf(const Tensor& in, const Tensor& out, Layout* layout) {
  if (in.IsDefaultDimOrder() && out.IsDefaultDimOrder()) {
    *layout = Layout::kNchw;
    return true;
  }
  if (IsChannelsLast(in) && IsChannelsLast(out)) {
    *layout = Layout::kNhwc;
    return true;
  }
  return false;
}

// Everything the fast path needs, or false for the portable kernel (which
// also reports invalid arguments).
bool ParseConv(Span<EValue* const> args, ConvCall* call) {
  if (args.size() != 11) return false;
  Tensor* in = PeekFloatTensor(args, 0);
  Tensor* weight = PeekFloatTensor(args, 1);
  Tensor* bias = PeekFloatTensor(args, 2);
  Tensor* out = PeekFloatTensor(args, 9);
  Span<const int64_t> stride, pad, dilation, out_pad;
  bool transposed = true;
  int64_t groups = 0;
  if (in == nullptr || weight == nullptr || out == nullptr ||
      (bias == nullptr && !PeekNone(args, 2)) || !PeekIntList(args, 3, &stride) ||
      !PeekIntList(args, 4, &pad) || !PeekIntList(args, 5, &dilation) ||
      !PeekBool(args, 6, &transposed) || !PeekIntList(args, 7, &out_pad) ||
      !PeekInt(args, 8, &groups) || transposed || (in->dim() != 3 && in->dim() != 4) ||
      weight->dim() != in->dim() || out->dim() != in->dim() ||
      !LayoutOf(*in, *out, &call->layout)) {
    return false;
  }
  const int spatial = in->dim() - 2;
  ConvGeometry& g = call->g;
  if (!SpatialPair(stride, spatial, 1, g.stride) || !SpatialPair(pad, spatial, 0, g.pad) ||
      !SpatialPair(dilation, spatial, 1, g.dilation)) {
    return false;
  }
  const bool rank4 = spatial == 2;
  g.batch = in->size(0);
  g.in_c = in->size(1);
  g.in_h = rank4 ? in->size(2) : 1;
  g.in_w = in->size(in->dim() - 1);
  g.out_c = weight->size(0);
  g.k_h = rank4 ? weight->size(2) : 1;
  g.k_w = weight->size(weight->dim() - 1);
  g.groups = groups;
  if (groups < 1 || groups > INT32_MAX || g.in_c % groups != 0 || g.out_c % groups != 0 ||
      weight->size(1) * groups != g.in_c ||
      (bias != nullptr && (bias->dim() != 1 || bias->size(0) != g.out_c))) {
    return false;
  }
  int64_t out_hw[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t in_size = i == 0 ? g.in_h : g.in_w;
    const int64_t k = i == 0 ? g.k_h : g.k_w;
    const int64_t s = g.stride[i], p = g.pad[i], d = g.dilation[i];
    if (s < 1 || d < 1 || p < 0 || s > INT32_MAX || d > INT32_MAX || p > INT32_MAX ||
        in_size + 2 * p < d * (k - 1) + 1) {
      return false;
    }
    out_hw[i] = (in_size + 2 * p - d * (k - 1) - 1) / s + 1;
    if (out_hw[i] < 1 || out_hw[i] > INT32_MAX) return false;
  }
  g.out_h = out_hw[0];
  g.out_w = out_hw[1];
  int32_t sizes[4] = {in->size(0), static_cast<int32_t>(g.out_c), 0, 0};
  if (rank4) sizes[2] = static_cast<int32_t>(g.out_h);
  sizes[in->dim() - 1] = static_cast<int32_t>(g.out_w);
  const Tensor* inputs[3] = {in, weight, bias};
  if (Overlaps(*out, *in) || Overlaps(*out, *weight) ||
      (bias != nullptr && Overlaps(*out, *bias)) ||
      !FitOut(*out, {sizes, static_cast<size_t>(in->dim())},
              {inputs, static_cast<size_t>(bias != nullptr ? 3 : 2)})) {
    return false;
  }
  call->x = in->data_as<const float>();
  call->w = weight->data_as<const float>();
  call->bias = bias != nullptr ? bias->data_as<const float>() : nullptr;
  call->y = out->data_as<float>();
  call->w_dense = call->layout == Layout::kNchw ? weight->IsDefaultDimOrder()
                                                : IsChannelsLast(*weight) || g.taps() == 1;
  call->w_strides[0] = weight->stride(0);
  call->w_strides[1] = weight->stride(1);
  call->w_strides[2] = rank4 ? weight->stride(2) : 0;
  call->w_strides[3] = weight->stride(weight->dim() - 1);
  return true;
}

// out rows (NCHW: one per channel; NHWC: one per pixel) start as the bias.
void FillBias(const ConvCall& call, float* y, int64_t c0, int64_t channels) {
  const ConvGeometry& g = call.g;
  const float* b = call.bias + c0;
  if (call.layout == Layout::kNchw) {
    for (int64_t c = 0; c < channels; ++c) {
      std::fill(y + c * g.out_pixels(), y + (c + 1) * g.out_pixels(), b[c]);
    }
  } else {
    for (int64_t p = 0; p < g.out_pixels(); ++p) {
      std::copy(b, b + channels, y + p * g.out_c);
    }
  }
}

// Most junk a PhasedImage may add: its columns over the output pixels.
// Beyond that (large padding relative to the width) im2col is cheaper.
constexpr double kMaxPhasedWaste = 1.2;

// Whether the weight can be read in place over the GEMM depth: rows
// [oc][(ic, kh, kw)] (NCHW, all taps) or [oc][(kh, kw, ic)] (a channels-last
// weight, or 1 x 1, for NHWC). Otherwise ConvWeight packs it element by
// element.
bool WeightInPlace(const ConvCall& call, const TapList& taps) { return taps.all && call.w_dense; }

// The weight of group `grp` as a GEMM A (NCHW) or B (NHWC) operand: one of
// `rows` or `any`, both constructed by the caller from GroupWeightData.
const float* GroupWeightData(const ConvCall& call, int64_t grp) {
  return call.w + grp * call.g.out_c_per_group() * call.w_strides[0];
}

// NCHW through a PhasedImage (no im2col): per image and group, the GEMM
// writes C[oc][oh * row_len + ow] straight into out when row_len == out_w,
// else into scratch, from which the valid columns (plus bias) are copied.
// Returns false, with nothing written, if the scratch does not fit.
bool ConvPhasedNchw(KernelContext& ctx, const ConvCall& call, const TapList& taps) {
  const ConvGeometry& g = call.g;
  PhasedImage image(g, taps);
  const int64_t cin_g = g.in_c_per_group(), cout_g = g.out_c_per_group();
  const int64_t cols = image.columns();
  const bool in_place = image.row_len() == g.out_w;
  auto* data = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * image.floats(), 64));
  float* staging = nullptr;
  if (data != nullptr && !in_place) {
    staging = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * cout_g * cols, 64));
  }
  if (data == nullptr || (!in_place && staging == nullptr)) return false;
  const float* x = call.x;
  float* y = call.y;
  const int64_t depth = cin_g * taps.count;
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      image.Build(x + (n * g.in_c + grp * cin_g) * g.in_h * g.in_w, data);
      const float* wg = GroupWeightData(call, grp);
      const StridedOperand rows(wg, call.w_strides[0], 1);
      const ConvWeight any(g, taps, wg, call.w_strides, false);
      const GemmOperand& weight =
          WeightInPlace(call, taps) ? static_cast<const GemmOperand&>(rows) : any;
      float* yg = y + (n * g.out_c + grp * cout_g) * g.out_pixels();
      if (in_place) {
        const GemmEpilogue epilogue = EpilogueOf(call, grp, true);
        if (!Gemm(ctx, cout_g, cols, depth, weight, image, yg, cols, false, &epilogue)) {
          return false;
        }
        continue;
      }
      // The epilogue runs on every column (junk ones too, then dropped).
      const GemmEpilogue epilogue = EpilogueOf(call, grp, true);
      if (!Gemm(ctx, cout_g, cols, depth, weight, image, staging, cols, false, &epilogue)) {
        return false;
      }
      for (int64_t oc = 0; oc < cout_g; ++oc) {
        for (int64_t oh = 0; oh < g.out_h; ++oh) {
          std::memcpy(yg + (oc * g.out_h + oh) * g.out_w,
                      staging + oc * cols + oh * image.row_len(), sizeof(float) * g.out_w);
        }
      }
    }
  }
  return true;
}

bool ConvGemm(KernelContext& ctx, const ConvCall& call) {
  const ConvGeometry& g = call.g;
  const bool nchw = call.layout == Layout::kNchw;
  const TapList taps = nchw ? TapList::Used(g) : TapList::All(g);
  if (taps.count == 0) {  // every tap in the padding: out = bias
    const int64_t numel = g.batch * g.out_c * g.out_pixels();
    if (call.bias == nullptr) {
      std::fill(call.y, call.y + numel, 0.0f);
    } else {
      for (int64_t n = 0; n < g.batch; ++n) {
        FillBias(call, call.y + n * g.out_c * g.out_pixels(), 0, g.out_c);
      }
    }
    ClampAll(call, call.y, numel);
    return true;
  }
  if (nchw && !g.pointwise() && taps.count <= PhasedImage::kMaxTaps) {
    const PhasedImage probe(g, taps);
    if (probe.columns() <= kMaxPhasedWaste * g.out_pixels() && ConvPhasedNchw(ctx, call, taps)) {
      return true;
    }
  }
  if (call.in_place) return false;  // the paths below read x while writing
  const int64_t cin_g = g.in_c_per_group(), cout_g = g.out_c_per_group();
  const int64_t depth = cin_g * taps.count;
  const float* x = call.x;
  float* y = call.y;
  const int64_t in_image = g.in_c * g.in_h * g.in_w;
  const int64_t out_image = g.out_c * g.out_pixels();
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const float* wg = GroupWeightData(call, grp);
      const StridedOperand rows(wg, call.w_strides[0], nchw ? 1 : call.w_strides[1]);
      const ConvWeight any(g, taps, wg, call.w_strides, !nchw);
      const PanelOperand panels(call.w_panels, depth);
      const GemmOperand& weight = call.w_panels != nullptr ? static_cast<const GemmOperand&>(panels)
                                  : WeightInPlace(call, taps)
                                      ? static_cast<const GemmOperand&>(rows)
                                      : any;
      bool ok;
      if (nchw) {
        const float* xg = x + n * in_image + grp * cin_g * g.in_h * g.in_w;
        float* yg = y + n * out_image + grp * cout_g * g.out_pixels();
        const GemmEpilogue epilogue = EpilogueOf(call, grp, true);
        const StridedOperand direct(xg, 1, g.in_h * g.in_w);
        const Im2colNchw patches(g, taps, xg);
        ok = Gemm(ctx, cout_g, g.out_pixels(), depth, weight,
                  g.pointwise() ? static_cast<const GemmOperand&>(direct) : patches, yg,
                  g.out_pixels(), false, &epilogue);
      } else {
        const float* xg = x + n * in_image + grp * cin_g;
        float* yg = y + n * out_image + grp * cout_g;
        const GemmEpilogue epilogue = EpilogueOf(call, grp, false);
        const StridedOperand direct(xg, g.in_c, 1);
        const Im2colNhwc patches(g, xg);
        ok = Gemm(ctx, g.out_pixels(), cout_g, depth,
                  g.pointwise() ? static_cast<const GemmOperand&>(direct) : patches, weight, yg,
                  g.out_c, false, &epilogue);
      }
      if (!ok) return false;
    }
  }
  return true;
}

bool RunConv(KernelContext& ctx, const ConvCall& call) {
  const ConvGeometry& g = call.g;
  if (g.batch * g.out_c * g.out_pixels() == 0) return true;
  const float* bias = call.bias;
  const bool depthwise = g.groups == g.in_c && g.groups > 1;
  if (depthwise && g.taps() <= kMaxDepthwiseTaps) {
    if (call.layout == Layout::kNchw) {
      return DepthwiseNchw(ctx, g, call.x, call.w, call.w_strides, bias, call.y, call.lo, call.hi,
                           call.in_place, call.post);
    }
    if (g.out_c == g.in_c) {
      return DepthwiseNhwc(ctx, g, call.x, call.w, call.w_strides, bias, call.y, call.lo, call.hi,
                           call.post);
    }
  }
  // The direct grouped kernels (each false when it does not apply).
  const auto grouped = call.layout == Layout::kNhwc ? GroupedNhwc : GroupedNchw;
  if (!call.in_place &&
      grouped(ctx, g, call.x, call.w, call.w_strides, bias, call.y, call.lo, call.hi, call.post)) {
    return true;
  }
  if (call.layout == Layout::kNhwc && g.groups == 1 && g.in_c <= kSmallInputMaxChannels &&
      call.w_strides[0] == 1) {
    ConvNhwcSmallInput(ctx, g, call.x, call.w, call.w_strides[1], call.w_strides[2],
                       call.w_strides[3], bias, call.y, call.lo, call.hi, call.post);
    return true;
  }
  if (call.layout == Layout::kNchw && !call.in_place && SmallInputNchwApplies(g) &&
      ConvNchwSmallInput(ctx, g, call.x, call.w, call.w_strides, bias, call.y, call.lo, call.hi,
                         call.post)) {
    return true;
  }
  // In place (batch 1) too: the patches are read into the GEMM's packing
  // and C goes to scratch before anything is written to out.
  if (call.layout == Layout::kNchw && call.small_plane_panels != nullptr &&
      (!call.in_place || g.batch == 1) && SmallPlanePanelsApply(g) &&
      SmallPlaneNchwPanels(ctx, g, call.x, call.small_plane_panels, call.panel_width, bias, call.y,
                           call.lo, call.hi, call.post)) {
    return true;
  }
  return ConvGemm(ctx, call);
}

// True if the fast path can compute `call` with out starting at in's data
// (reading all of the input before writing over it): one NCHW image, and
// a depthwise convolution whose planes do not grow, or a one-group one
// through a PhasedImage (a copy of the whole image).
bool InPlaceCapable(const ConvCall& call) {
  const ConvGeometry& g = call.g;
  if (call.layout != Layout::kNchw || g.batch != 1 || call.x != call.y) {
    return false;
  }
  if (g.groups == g.in_c && g.groups > 1 && g.taps() <= kMaxDepthwiseTaps) {
    return g.out_c == g.in_c && g.out_pixels() <= g.in_h * g.in_w;
  }
  if (g.groups != 1 || g.pointwise()) return false;
  const TapList taps = TapList::Used(g);
  if (taps.count == 0) return true;  // out = bias: x is not read
  if (taps.count > PhasedImage::kMaxTaps) return false;
  const PhasedImage probe(g, taps);
  return probe.columns() <= kMaxPhasedWaste * g.out_pixels();
}

// ParseConv for a call whose out starts at in's data, true if the fast
// path can run it so (call->in_place set).
bool ParseInPlace(Span<EValue* const> args, ConvCall* call) {
  if (args.size() != 11) return false;
  EValue* copy[11];
  for (int i = 0; i < 11; ++i) copy[i] = args[i];
  Tensor* in = PeekFloatTensor(args, 0);
  Tensor* out = PeekFloatTensor(args, 9);
  if (in == nullptr || out == nullptr || in->data() != out->data() || out->numel() == 0) {
    return false;
  }
  // ParseConv refuses overlapping tensors: parse against a stand-in output
  // with the same metadata, then put the real one back.
  alignas(Tensor) unsigned char storage[sizeof(Tensor)];
  Tensor* other = new (storage) Tensor(*out);
  float dummy = 0;
  other->set_data(&dummy);
  EValue other_value = EValue::FromTensor(other);
  copy[9] = copy[10] = &other_value;
  if (!ParseConv(Span<EValue* const>(copy, 11), call)) return false;
  call->y = out->data_as<float>();
  if (out->numel() != other->numel() || !InPlaceCapable(*call)) return false;
  call->in_place = true;
  return true;
}

}  // namespace

bool FusedConvolutionInPlace(Span<EValue* const> args) {
  ConvCall call;
  return ParseInPlace(args, &call);
}

bool ConvolutionSupports(Span<EValue* const> args) {
  if (args.size() != 11) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 9);
  bool transposed = true;
  Layout layout;
  return in != nullptr && out != nullptr && PeekFloatTensor(args, 1) != nullptr &&
         (PeekNone(args, 2) || PeekFloatTensor(args, 2) != nullptr) &&
         PeekBool(args, 6, &transposed) && !transposed && (in->dim() == 3 || in->dim() == 4) &&
         LayoutOf(*in, *out, &layout);
}

void ConvolutionOut(KernelContext& ctx, Span<EValue*> args) {
  if (ConvAcrossLayouts(ctx, args, ConvolutionOut)) return;
  ConvCall call;
  if (ParseConv(args, &call) && RunConv(ctx, call)) return;
  portable::ConvolutionOut(ctx, args);
}

namespace {

// args: the convolution's 0-8, min, max, [the weight's panels
// (small_plane_panels.h),] out, ret.
// `self`: the fused kernel (its name for errors; it runs again through
// ConvAcrossLayouts).
void FusedConvolution(KernelContext& ctx, Span<EValue*> args, PostOp post, const Kernel& self) {
  if (ConvAcrossLayouts(ctx, args, self.fn)) return;
  const char* name = self.name;
  const bool with_panels = args.size() == 14;
  float bounds[2] = {-__builtin_inff(), __builtin_inff()};
  for (int i = 0; i < 2; ++i) {
    Scalar s;
    if ((args.size() == 13 || with_panels) && PeekScalar(args, 9 + i, &s)) {
      bounds[i] = portable::ScalarTo<float>(s);
    } else if ((args.size() != 13 && !with_panels) || !PeekNone(args, 9 + i)) {
      SetErrorDetail("%s: bad arguments", name);
      ctx.Fail(Error::kInvalidArgument);
      return;
    }
  }
  const Tensor* panels = with_panels ? PeekFloatTensor(args, 11) : nullptr;
  // The convolution's own arguments, out twice.
  EValue* conv[11];
  for (int i = 0; i < 9; ++i) conv[i] = args[i];
  conv[9] = args[args.size() - 2];
  conv[10] = args[args.size() - 1];
  const Span<EValue*> conv_args(conv, 11);
  // The plan pass may let out take the input's memory (the memory planner
  // reuses a dead input for the output of the instruction it absorbed):
  // then the convolution reads a copy.
  const Tensor* in = PeekTensor(conv_args, 0);
  const Tensor* out = PeekTensor(conv_args, 9);
  alignas(Tensor) unsigned char copy_storage[sizeof(Tensor)];
  EValue copy_value;
  ConvCall call;
  const auto epilogue = [&](ConvCall& c) {
    c.lo = bounds[0];
    c.hi = bounds[1];
    c.post = post;
    if (panels != nullptr && panels->dim() == 2 && c.layout == Layout::kNhwc) {
      c.w_panels = panels->size(1) == PanelWidth() ? panels->data_as<const float>() : nullptr;
    } else if (panels != nullptr && panels->dim() == 2) {
      c.small_plane_panels = panels->data_as<const float>();
      c.panel_width = panels->size(1);
    }
  };
  if (in != nullptr && out != nullptr && Overlaps(*in, *out)) {
    if (ParseInPlace(conv_args, &call)) {
      epilogue(call);
      if (RunConv(ctx, call)) return;
      call = ConvCall();
    }
    void* data = ctx.AllocateTemp(in->nbytes() + 1, 64);
    if (data == nullptr) {
      SetErrorDetail("%s: temp memory for a %zu-byte copy of the input", name, in->nbytes());
      ctx.Fail(Error::kMemoryAllocationFailed);
      return;
    }
    std::memcpy(data, in->data(), in->nbytes());
    Tensor* copy = new (copy_storage) Tensor(*in);  // same metadata
    copy->set_data(data);
    copy_value = EValue::FromTensor(copy);
    conv[0] = &copy_value;
  }
  if (ParseConv(conv_args, &call)) {
    epilogue(call);
    if (RunConv(ctx, call)) return;
  }
  portable::ConvolutionOut(ctx, conv_args);
  if (ctx.failed()) return;
  Tensor& result = args[args.size() - 2]->to_tensor();
  call.lo = bounds[0];
  call.hi = bounds[1];
  call.post = post;
  ClampAll(call, result.data_as<float>(), result.numel());
}

}  // namespace

void FusedConvolutionOut(KernelContext& ctx, Span<EValue*> args) {
  FusedConvolution(ctx, args, PostOp::kNone, kFusedConvolutionKernel);
}
void FusedConvolutionHardswishOut(KernelContext& ctx, Span<EValue*> args) {
  FusedConvolution(ctx, args, PostOp::kHardswish, kFusedConvolutionHardswishKernel);
}
void FusedConvolutionHardsigmoidOut(KernelContext& ctx, Span<EValue*> args) {
  FusedConvolution(ctx, args, PostOp::kHardsigmoid, kFusedConvolutionHardsigmoidKernel);
}
void FusedConvolutionSigmoidOut(KernelContext& ctx, Span<EValue*> args) {
  FusedConvolution(ctx, args, PostOp::kSigmoid, kFusedConvolutionSigmoidKernel);
}
void FusedConvolutionSiluOut(KernelContext& ctx, Span<EValue*> args) {
  FusedConvolution(ctx, args, PostOp::kSilu, kFusedConvolutionSiluKernel);
}

namespace {

// A channels-last call without its filter.
ConvCall NhwcCall(const ConvGeometry& g, const float* x, const float* bias, float* y, float lo,
                  float hi, PostOp post) {
  ConvCall call{};
  call.x = x;
  call.bias = bias;
  call.y = y;
  call.layout = Layout::kNhwc;
  call.g = g;
  call.lo = lo;
  call.hi = hi;
  call.post = post;
  return call;
}

}  // namespace

bool ConvolutionNhwc(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                     const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                     PostOp post) {
  ConvCall call = NhwcCall(g, x, bias, y, lo, hi, post);
  call.w = w;
  for (int i = 0; i < 4; ++i) call.w_strides[i] = w_strides[i];
  const int64_t cin_g = g.in_c_per_group();
  // In place when the filter is a matrix over (oc, depth), depth =
  // (kh * k_w + kw) * cin_g + ic: OHWI, or the delegate's transposed copy.
  call.w_dense = g.taps() == 1 ||
                 (w_strides[3] == cin_g * w_strides[1] && w_strides[2] == g.k_w * w_strides[3]);
  return RunConv(ctx, call);
}

bool ConvolutionNhwcPanels(KernelContext& ctx, const ConvGeometry& g, const float* x,
                           const float* w_panels, const float* bias, float* y, float lo, float hi,
                           PostOp post) {
  ConvCall call = NhwcCall(g, x, bias, y, lo, hi, post);
  call.w_panels = w_panels;
  if (g.batch * g.out_c * g.out_pixels() == 0) return true;
  return ConvGemm(ctx, call);
}

const Kernel kFusedConvolutionKernel = {"edgefleet::fused_convolution.out", FusedConvolutionOut,
                                        nullptr, KernelVariant::kOptimized};
const Kernel kFusedConvolutionHardswishKernel = {"edgefleet::fused_convolution_hardswish.out",
                                                 FusedConvolutionHardswishOut, nullptr,
                                                 KernelVariant::kOptimized};
const Kernel kFusedConvolutionHardsigmoidKernel = {"edgefleet::fused_convolution_hardsigmoid.out",
                                                   FusedConvolutionHardsigmoidOut, nullptr,
                                                   KernelVariant::kOptimized};
const Kernel kFusedConvolutionSigmoidKernel = {"edgefleet::fused_convolution_sigmoid.out",
                                               FusedConvolutionSigmoidOut, nullptr,
                                               KernelVariant::kOptimized};
const Kernel kFusedConvolutionSiluKernel = {"edgefleet::fused_convolution_silu.out",
                                            FusedConvolutionSiluOut, nullptr,
                                            KernelVariant::kOptimized};

}  // namespace optimized
}  // namespace edgefleet
