// NCHW 1x1 convolutions on small planes (the 7 x 7 stage of 224-pixel
// networks) through the GEMM transposed, with the filter packed in column
// panels at load.
//
// NCHW makes a 1x1 convolution C[oc][pixel] = W[oc][ic] * X[ic][pixel]:
// with 49 pixels every row of tiles ends in a 17-wide edge tile, and the
// filter, the larger operand, is read in place row by row. Computed as
// C^T[pixel][oc] = X^T * W^T instead (as the XNNPACK delegate's NHWC layers
// are: 49 rows in sevens, output channels across whole tiles, the filter one
// contiguous stream per panel), into scratch, then transposed into out.
// Measured (BM_Pointwise against the same shapes this way, AVX-512, one
// thread, hot caches): EfficientNet-B0's and MobileNetV2's 49-pixel layers
// 15-25 % faster, 1 x 1 planes (squeeze-and-excitation) about 2x; at 196
// pixels the transpose costs more than the tiles gain, hence
// kMaxPanelPixels. Each output is still one dot product summed by the GEMM
// (other blocking than the untransposed call, so not the same bits: within
// the GEMM's dot-product bound of the portable kernel).
// Plan pass "pack_pointwise_panels" (after "fuse_convolution"): each
// float32 NCHW convolution with a constant weight whose output planes have
// at most kMaxPanelPixels pixels, 1x1, stride 1, no padding, one group —
// aten::convolution.out or a fused convolution (conv_fusion.h) — becomes
// the fused kernel with one more argument before out, the weight's panels
// (PackPanels, gemm.h) as a [floats / width, width] tensor in method memory,
// width = PanelWidth() at load; the weight stays for the other paths. Leaves the plan untouched
// when memory runs out.
//
// Stateless; thread-compatible (uses the kernels' thread pool through ctx).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_POINTWISE_PANELS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_POINTWISE_PANELS_H_

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/epilogue.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

inline constexpr int64_t kMaxPanelPixels = 64;

// True for the geometries PointwiseNchwPanels computes: NCHW 1x1, stride
// 1, no padding, one group, out planes of at most kMaxPanelPixels pixels.
bool PointwisePanelsApply(const ConvGeometry& g);

// y [batch, out_c, pixels] = conv(x [batch, in_c, pixels]) + bias, then
// clamped to [lo, hi] and `post` (epilogue.h), with `panels` =
// PackPanels(StridedOperand(w, in_c, 1), out_c, in_c) of the weight made
// when PanelWidth() was `panel_width`. Returns false if ctx's scratch does
// not fit (y may then be partly written). REQUIRES:
// PointwisePanelsApply(g); y overlaps neither x nor panels.
bool PointwiseNchwPanels(KernelContext& ctx, const ConvGeometry& g, const float* x,
                         const float* panels, int panel_width, const float* bias, float* y,
                         float lo, float hi, PostOp post);

void PackPointwisePanels(PlanEditor& plan);

inline constexpr PlanPass kPackPointwisePanelsPass = {"pack_pointwise_panels", PackPointwisePanels};

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_POINTWISE_PANELS_H_
