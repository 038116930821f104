// One-group NCHW convolutions with small output planes (the 7 x 7 stage of
// 224-pixel networks) through the GEMM transposed, with the filter packed
// in column panels at load.
//
// NCHW makes a convolution C[oc][pixel] = W[oc][(ic, kh, kw)] *
// patches[(ic, kh, kw)][pixel]: with 49 pixels every row of tiles ends in a
// 17-wide edge tile, and the filter, by far the larger operand, is read in
// place row by row. Computed as C^T[pixel][oc] = patches^T * W^T instead (as
// the XNNPACK delegate's NHWC layers are: 49 rows in sevens, output
// channels across whole tiles, the filter one contiguous stream per
// panel), into scratch, then transposed into out. The patches (the image
// itself for a 1x1 / stride-1 layer) are packed by the GEMM.
// Measured (BM_Pointwise against the same shapes this way, AVX-512, one
// thread, hot caches): EfficientNet-B0's and MobileNetV2's 49-pixel 1x1
// layers 15-25 % faster, 1 x 1 planes (squeeze-and-excitation) about 2x;
// at 196 pixels the transpose costs more than the tiles gain, hence
// kMaxPanelPixels. Each output is still one dot product summed by the GEMM
// (other blocking than the untransposed call, so not the same bits: within
// the GEMM's dot-product bound of the portable kernel).
//
// Plan pass "pack_small_plane_panels" (after "fuse_convolution"): each
// float32 NCHW one-group convolution with a constant weight (default dim
// order, or any for 1x1 windows) whose output planes have at most
// kMaxPanelPixels pixels — aten::convolution.out or a fused convolution
// (conv_fusion.h) — becomes the fused kernel with one more argument before
// out, the weight's panels (PackPanels, gemm.h, over [out_c x (ic, kh,
// kw)]) as a [floats / width, width] tensor in method memory, width =
// PanelWidth() at load; the weight stays for the other paths. Leaves the
// plan untouched when memory runs out. The panels add the filters of these
// layers to the method's derived constants once more (ResNet-18's 7 x 7
// stage, 33 MiB, when it stays NCHW; channels_last_regions.h, which runs
// first, usually makes it channels-last and packs its own panels).
//
// Stateless; thread-compatible (uses the kernels' thread pool through ctx).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SMALL_PLANE_PANELS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SMALL_PLANE_PANELS_H_

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/epilogue.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

inline constexpr int64_t kMaxPanelPixels = 64;

// True for the geometries SmallPlaneNchwPanels computes: one group, out
// planes of at most kMaxPanelPixels pixels.
bool SmallPlanePanelsApply(const ConvGeometry& g);

// y [batch, out_c, out_h, out_w] = conv(x [batch, in_c, in_h, in_w]) +
// bias, then clamped to [lo, hi] and `post` (epilogue.h), with `panels` =
// PackPanels of the weight as an [out_c x (ic, kh, kw)] matrix made when
// PanelWidth() was `panel_width`. Returns false if ctx's scratch does
// not fit (y may then be partly written). REQUIRES:
// SmallPlanePanelsApply(g); y overlaps neither x nor panels.
bool SmallPlaneNchwPanels(KernelContext& ctx, const ConvGeometry& g, const float* x,
                          const float* panels, int panel_width, const float* bias, float* y,
                          float lo, float hi, PostOp post);

void PackSmallPlanePanels(PlanEditor& plan);

inline constexpr PlanPass kPackSmallPlanePanelsPass = {"pack_small_plane_panels",
                                                       PackSmallPlanePanels};

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SMALL_PLANE_PANELS_H_
