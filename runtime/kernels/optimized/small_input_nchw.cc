#include "runtime/kernels/optimized/small_input_nchw.h"

#include "runtime/kernels/optimized/conv_small_input.h"
#include "runtime/kernels/optimized/transpose.h"

namespace edgefleet {
namespace optimized {

bool SmallInputNchwApplies(const ConvGeometry& g) {
  return g.groups == 1 && g.in_c <= kSmallInputMaxChannels && g.k_h > 1 &&
         g.taps() <= kMaxSmallInputNchwTaps;
}

bool ConvNchwSmallInput(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                        const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                        PostOp post) {
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_pixels();
  const int64_t taps = g.taps(), w_floats = taps * g.in_c * g.out_c;
  auto* xt = static_cast<float*>(
      ctx.AllocateTemp(sizeof(float) * (in_plane * g.in_c + w_floats + out_plane * g.out_c), 64));
  if (xt == nullptr) return false;
  float* wt = xt + in_plane * g.in_c;
  float* yt = wt + w_floats;
  // wt[((kh * k_w + kw) * in_c + ic) * out_c + oc]: output channels contiguous.
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t offset = t / g.k_w * w_strides[2] + t % g.k_w * w_strides[3];
    for (int64_t ic = 0; ic < g.in_c; ++ic) {
      for (int64_t oc = 0; oc < g.out_c; ++oc) {
        wt[(t * g.in_c + ic) * g.out_c + oc] = w[oc * w_strides[0] + ic * w_strides[1] + offset];
      }
    }
  }
  ConvGeometry one = g;
  one.batch = 1;
  for (int64_t n = 0; n < g.batch; ++n) {
    Transpose2dParallel<float>(x + n * g.in_c * in_plane, in_plane, xt, g.in_c, in_plane, g.in_c,
                               ctx.num_threads());
    ConvNhwcSmallInput(ctx, one, xt, wt, g.out_c, g.k_w * g.in_c * g.out_c, g.in_c * g.out_c, bias,
                       yt, lo, hi, post);
    Transpose2dParallel<float>(yt, g.out_c, y + n * g.out_c * out_plane, out_plane, g.out_c,
                               out_plane, ctx.num_threads());
  }
  return true;
}

}  // namespace optimized
}  // namespace edgefleet
