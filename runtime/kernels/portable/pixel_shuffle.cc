// aten::pixel_shuffle.out ([*, C*r*r, H, W] -> [*, C, H*r, W*r]) and
// aten::pixel_unshuffle.out (the inverse). Both are a permuted view of the
// input copied in logical order; any dtype and dim order.

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Reorders the 6 trailing dims of `v` (after its `batch` leading dims) by
// `order`.
void PermuteTail(StridedView* v, int batch, const int (&order)[6]) {
  int64_t sizes[6], strides[6];
  for (int i = 0; i < 6; ++i) {
    sizes[i] = v->sizes[batch + order[i]];
    strides[i] = v->strides[batch + order[i]];
  }
  for (int i = 0; i < 6; ++i) {
    v->sizes[batch + i] = sizes[i];
    v->strides[batch + i] = strides[i];
  }
}

// shuffle: in [*, C, r, r, H, W] viewed as [*, C, H, r, W, r].
// unshuffle: in [*, C, H, r, W, r] viewed as [*, C, r, r, H, W].
void Shuffle(KernelContext& ctx, Span<EValue*> raw, const char* name, bool unshuffle) {
  KernelArgs args(ctx, name, raw, 4);
  Tensor* in = args.GetTensor(0);
  const int64_t r = args.GetInt(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (in->dim() < 3 || in->dim() + 3 > kMaxTensorRank || r <= 0 || in->dtype() != out->dtype() ||
      in == out) {
    args.Fail(Error::kInvalidArgument,
              "needs rank >= 3, a factor > 0 and a distinct out of the "
              "input's dtype (rank %d, factor %lld)",
              in->dim(), static_cast<long long>(r));
    return;
  }
  const int batch = in->dim() - 3;
  const int64_t c = in->size(batch), h = in->size(batch + 1), w = in->size(batch + 2);
  if (unshuffle ? (h % r != 0 || w % r != 0) : c % (r * r) != 0) {
    args.Fail(Error::kInvalidArgument, "%s (%lld) must be divisible by the factor (%lld)%s",
              unshuffle ? "height and width" : "channels",
              static_cast<long long>(unshuffle ? h : c), static_cast<long long>(r),
              unshuffle ? "" : " squared");
    return;
  }
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d < batch; ++d) sizes[d] = in->size(d);
  const int64_t oc = unshuffle ? c * r * r : c / (r * r);
  const int64_t oh = unshuffle ? h / r : h * r;
  const int64_t ow = unshuffle ? w / r : w * r;
  if (oc > INT32_MAX || oh > INT32_MAX || ow > INT32_MAX) {
    args.Fail(Error::kInvalidArgument, "result too large");
    return;
  }
  sizes[batch] = static_cast<int32_t>(oc);
  sizes[batch + 1] = static_cast<int32_t>(oh);
  sizes[batch + 2] = static_cast<int32_t>(ow);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(in->dim())}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  StridedView v = StridedView::Of(*in);
  const int64_t sc = v.strides[batch], sh = v.strides[batch + 1], sw = v.strides[batch + 2];
  v.dim = batch + 6;
  if (!unshuffle) {
    // [C/(r*r), r, r, H, W] -> [C', H, r, W, r]
    const int64_t split[6] = {oc, r, r, h, w, 1};
    const int64_t strides[6] = {sc * r * r, sc * r, sc, sh, sw, 0};
    for (int i = 0; i < 6; ++i) {
      v.sizes[batch + i] = split[i];
      v.strides[batch + i] = strides[i];
    }
    PermuteTail(&v, batch, {0, 3, 1, 4, 2, 5});
  } else {
    // [C, H/r, r, W/r, r] -> [C, r, r, H/r, W/r]
    const int64_t split[6] = {c, oh, r, ow, r, 1};
    const int64_t strides[6] = {sc, sh * r, sh, sw * r, sw, 0};
    for (int i = 0; i < 6; ++i) {
      v.sizes[batch + i] = split[i];
      v.strides[batch + i] = strides[i];
    }
    PermuteTail(&v, batch, {0, 2, 4, 1, 3, 5});
  }
  v.dim = batch + 5;  // the trailing size-1 dim was padding
  CopyReshaped(v, StridedView::Of(*out));
}

}  // namespace

void PixelShuffleOut(KernelContext& ctx, Span<EValue*> args) {
  Shuffle(ctx, args, "aten::pixel_shuffle.out", false);
}

void PixelUnshuffleOut(KernelContext& ctx, Span<EValue*> args) {
  Shuffle(ctx, args, "aten::pixel_unshuffle.out", true);
}

}  // namespace portable
}  // namespace edgefleet
