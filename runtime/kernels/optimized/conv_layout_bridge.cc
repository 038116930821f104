#include "runtime/kernels/optimized/conv_layout_bridge.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/grouped_conv.h"
#include "runtime/kernels/optimized/grouped_nhwc.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/transpose.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr size_t kMaxArgs = 16;

// A float32 tensor of `like`'s sizes over `data`, channels-last or NCHW,
// with `like`'s dynamism and bound: a copy standing for a kernel's out is
// resized by the kernel as out would be (a bounded-dynamic out keeps its
// previous execution's sizes until then), over temp memory of
// CapacityBytes(like).
struct LayoutCopy {
  int32_t sizes[4];
  uint8_t dim_order[4] = {0, 2, 3, 1};
  int32_t strides[4];
  alignas(Tensor) unsigned char storage[sizeof(Tensor)];

  Tensor* Make(const Tensor& like, void* data, bool channels_last = true) {
    for (int d = 0; d < 4; ++d) {
      sizes[d] = like.size(d);
      if (!channels_last) dim_order[d] = static_cast<uint8_t>(d);
    }
    Tensor* t = new (storage)
        Tensor(ScalarType::kFloat, 4, sizes, dim_order, strides, data, like.dynamism());
    t->set_numel_bound(std::max(like.numel(), like.numel_bound()));
    return t;
  }
};

// Bytes of a float32 tensor of `t`'s element capacity (its numel bound, at
// least its numel): what a copy standing for `t` as a kernel's out needs.
size_t CapacityBytes(const Tensor& t) {
  return static_cast<size_t>(std::max(t.numel(), t.numel_bound())) * sizeof(float);
}

// After a kernel wrote into `copy` (standing for `out`, with out's
// dynamism and bound): gives out the sizes the kernel gave the copy. False,
// with ctx failed, if out cannot take them.
bool FitToCopy(KernelContext& ctx, Tensor& out, const Tensor& copy) {
  const Error e = out.Resize(copy.sizes());
  if (e != Error::kOk) ctx.Fail(e);
  return e == Error::kOk;
}

// A grouped (not depthwise) convolution the direct NCHW kernel takes
// (grouped_conv.h) and the channels-last one does not (grouped_nhwc.h):
// faster on NCHW copies of a channels-last input and output than the
// channels-last GEMM group by group (RegNet-Y-400MF's grouped layers 0.4
// against 2.0 ms).
bool GroupedDirect(Span<EValue*> args, const Tensor& in, const Tensor& out) {
  const Tensor* w = PeekFloatTensor(args, 1);
  int64_t groups = 0;
  if (w == nullptr || w->dim() != 4 || !PeekInt(args, 8, &groups) || groups <= 1 ||
      w->size(1) == 1) {
    return false;
  }
  ConvGeometry g{};
  g.in_c = in.size(1);
  g.out_c = out.size(1);
  g.k_h = w->size(2);
  g.k_w = w->size(3);
  g.groups = groups;
  return g.in_c % groups == 0 && g.out_c % groups == 0 && GroupedDirectApplies(g) &&
         !GroupedNhwcApplies(g);
}

// Runs `conv` with each channels-last side of `in` and `out` replaced by
// an NCHW copy.
void ConvOnNchwCopies(KernelContext& ctx, Span<EValue*> args, OpFunction conv, Tensor& in,
                      Tensor& out) {
  const bool in_cl = IsChannelsLast(in), out_cl = IsChannelsLast(out);
  float* x = in_cl ? static_cast<float*>(ctx.AllocateTemp(in.nbytes() + 1, 64)) : nullptr;
  float* y = out_cl ? static_cast<float*>(ctx.AllocateTemp(CapacityBytes(out) + 1, 64)) : nullptr;
  if ((in_cl && x == nullptr) || (out_cl && y == nullptr)) {
    SetErrorDetail("convolution: temp memory for NCHW copies of %zu + %zu bytes", in.nbytes(),
                   CapacityBytes(out));
    ctx.Fail(Error::kMemoryAllocationFailed);
    return;
  }
  LayoutCopy in_copy, out_copy;
  EValue in_value, out_value;
  EValue* call[kMaxArgs];
  for (size_t i = 0; i < args.size(); ++i) call[i] = args[i];
  if (in_cl) {
    in_value = EValue::FromTensor(in_copy.Make(in, x, false));
    call[0] = &in_value;
    ToNchw(in, in.data_as<const float>(), x, ctx.num_threads());
  }
  if (out_cl) {
    out_value = EValue::FromTensor(out_copy.Make(out, y, false));
    call[args.size() - 2] = call[args.size() - 1] = &out_value;
  }
  conv(ctx, Span<EValue*>(call, args.size()));
  if (out_cl && !ctx.failed() && FitToCopy(ctx, out, out_value.to_tensor())) {
    ToChannelsLast(out, y, out.data_as<float>(), ctx.num_threads());
  }
}

}  // namespace

void ToChannelsLast(const Tensor& t, const float* src, float* dst, int threads) {
  const int64_t c = t.size(1), pixels = static_cast<int64_t>(t.size(2)) * t.size(3);
  for (int64_t n = 0; n < t.size(0); ++n) {
    Transpose2dParallel<float>(src + n * c * pixels, pixels, dst + n * c * pixels, c, pixels, c,
                               threads);
  }
}
void ToNchw(const Tensor& t, const float* src, float* dst, int threads) {
  const int64_t c = t.size(1), pixels = static_cast<int64_t>(t.size(2)) * t.size(3);
  for (int64_t n = 0; n < t.size(0); ++n) {
    Transpose2dParallel<float>(src + n * c * pixels, c, dst + n * c * pixels, pixels, c, pixels,
                               threads);
  }
}

bool ConvAcrossLayouts(KernelContext& ctx, Span<EValue*> args, OpFunction conv) {
  if (args.size() < 3 || args.size() > kMaxArgs) return false;
  Tensor* in = PeekFloatTensor(args, 0);
  Tensor* out = PeekFloatTensor(args, args.size() - 2);
  if (in == nullptr || out == nullptr || in->dim() != 4 || out->dim() != 4 ||
      PeekFloatTensor(args, args.size() - 1) != out) {
    return false;
  }
  if ((IsChannelsLast(*in) || IsChannelsLast(*out)) && GroupedDirect(args, *in, *out)) {
    ConvOnNchwCopies(ctx, args, conv, *in, *out);
    return true;
  }
  const bool in_nchw = in->IsDefaultDimOrder() && IsChannelsLast(*out);
  // Channels-last over the input's memory: the output is computed into
  // temp and copied when it is no larger than the input (else the kernel
  // copies the input).
  const bool over_input = IsChannelsLast(*in) && IsChannelsLast(*out) && Overlaps(*in, *out) &&
                          out->nbytes() <= in->nbytes();
  if (!in_nchw && !over_input && !(IsChannelsLast(*in) && out->IsDefaultDimOrder())) {
    return false;
  }
  Tensor* replaced = in_nchw ? in : out;
  const size_t copy_bytes = in_nchw ? in->nbytes() : CapacityBytes(*out);
  void* data = ctx.AllocateTemp(copy_bytes + 1, 64);
  if (data == nullptr) {
    SetErrorDetail("convolution: temp memory for a %zu-byte channels-last copy", copy_bytes);
    ctx.Fail(Error::kMemoryAllocationFailed);
    return true;
  }
  LayoutCopy copy;
  Tensor* t = copy.Make(*replaced, data);
  EValue value = EValue::FromTensor(t);
  EValue* call[kMaxArgs];
  for (size_t i = 0; i < args.size(); ++i) call[i] = args[i];
  if (in_nchw) {
    ToChannelsLast(*in, in->data_as<const float>(), t->data_as<float>(), ctx.num_threads());
    call[0] = &value;
  } else {
    call[args.size() - 2] = call[args.size() - 1] = &value;
  }
  conv(ctx, Span<EValue*>(call, args.size()));
  if (ctx.failed() || in_nchw || !FitToCopy(ctx, *out, *t)) return true;
  if (over_input) {
    std::memcpy(out->mutable_data(), data, out->nbytes());
  } else {
    ToNchw(*out, t->data_as<const float>(), out->data_as<float>(), ctx.num_threads());
  }
  return true;
}

}  // namespace optimized
}  // namespace edgefleet
