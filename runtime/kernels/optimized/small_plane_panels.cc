#include "runtime/kernels/optimized/small_plane_panels.h"

#include <cstring>

#include "runtime/kernels/optimized/conv_fusion.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/transpose.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {

bool SmallPlanePanelsApply(const ConvGeometry& g) {
  return g.groups == 1 && g.out_pixels() <= kMaxPanelPixels;
}

bool SmallPlaneNchwPanels(KernelContext& ctx, const ConvGeometry& g, const float* x,
                          const float* panels, int panel_width, const float* bias, float* y,
                          float lo, float hi, PostOp post) {
  const int64_t pixels = g.out_pixels(), in_image = g.in_c * g.in_h * g.in_w;
  auto* t = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * pixels * g.out_c, 64));
  if (t == nullptr) return false;
  const TapList taps = TapList::All(g);
  const int64_t depth = g.in_c * g.taps();
  const PanelOperand w(panels, depth, panel_width);
  GemmEpilogue e;
  e.col_bias = bias;
  e.lo = lo;
  e.hi = hi;
  e.post = post;
  for (int64_t n = 0; n < g.batch; ++n) {
    // A(pixel, (ic, kh, kw)), packed by the GEMM: the image itself for 1x1
    // windows (x[ic][pixel]), else its patches.
    const StridedOperand image(x + n * in_image, 1, pixels);
    const Im2colNchw patches(g, taps, x + n * in_image);
    const GemmOperand& a = g.pointwise() ? static_cast<const GemmOperand&>(image) : patches;
    if (!Gemm(ctx, pixels, g.out_c, depth, a, w, t, g.out_c, false, &e)) return false;
    Transpose2dParallel<float>(t, g.out_c, y + n * g.out_c * pixels, pixels, g.out_c, pixels,
                               ctx.num_threads());
  }
  return true;
}

namespace {

// The fused kernel `op` names (with clamp bounds at args 9, 10), or null.
const Kernel* FusedKernel(const char* op) {
  for (const Kernel* k : {&kFusedConvolutionKernel, &kFusedConvolutionHardswishKernel,
                          &kFusedConvolutionHardsigmoidKernel, &kFusedConvolutionSigmoidKernel,
                          &kFusedConvolutionSiluKernel}) {
    if (std::strcmp(op, k->name) == 0) return k;
  }
  return nullptr;
}

const Tensor* FloatTensorArg(const EValue* v) {
  if (v == nullptr || !v->is_tensor() || v->to_tensor().dtype() != ScalarType::kFloat) {
    return nullptr;
  }
  return &v->to_tensor();
}

// The convolution arguments 0-8 of `args` (with out = args.back()) name a
// float32 NCHW one-group convolution with a constant weight the panels
// apply to; `*depth_stride` is the weight's stride along (ic, kh, kw).
bool Applies(const PlanEditor& plan, Span<EValue*> args, int64_t* depth_stride) {
  const Tensor* x = FloatTensorArg(args[0]);
  const Tensor* w = FloatTensorArg(args[1]);
  const Tensor* y = FloatTensorArg(args[args.size() - 1]);
  if (x == nullptr || w == nullptr || y == nullptr || !plan.is_constant(args[1]) ||
      (x->dim() != 3 && x->dim() != 4) || w->dim() != x->dim() || y->dim() != x->dim() ||
      !x->IsDefaultDimOrder() || !y->IsDefaultDimOrder() || w->numel() == 0 ||
      w->data() == nullptr || !(args[2]->is_none() || FloatTensorArg(args[2]) != nullptr) ||
      !args[6]->is_bool() || args[6]->to_bool() || !args[8]->is_int() || args[8]->to_int() != 1) {
    return false;
  }
  int64_t taps = 1;
  for (int d = 2; d < w->dim(); ++d) taps *= w->size(d);
  if (taps == 1) {
    *depth_stride = w->stride(1);
  } else if (w->IsDefaultDimOrder()) {
    *depth_stride = 1;
  } else {
    return false;
  }
  if (w->size(1) != x->size(1) || y->size(1) != w->size(0) || x->size(0) < 1 ||
      y->size(0) != x->size(0)) {
    return false;
  }
  return y->numel() / (y->size(0) * static_cast<int64_t>(y->size(1))) <= kMaxPanelPixels;
}

}  // namespace

void PackSmallPlanePanels(PlanEditor& plan) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    const char* op = plan.op(pc);
    if (op == nullptr) continue;
    const Span<EValue*> args = plan.args(pc);
    const bool plain = std::strcmp(op, "aten::convolution.out") == 0 && args.size() == 11;
    const Kernel* fused = plain ? &kFusedConvolutionKernel : FusedKernel(op);
    if (fused == nullptr || (!plain && args.size() != 13) ||
        args[args.size() - 1] != args[args.size() - 2]) {
      continue;
    }
    int64_t depth_stride = 0;
    if (!Applies(plan, args, &depth_stride)) continue;
    const Tensor& w = args[1]->to_tensor();
    const int64_t oc = w.size(0), depth = w.numel() / oc;
    float* panels = nullptr;
    const int width = PanelWidth();
    EValue* panel_value = NewFloatMatrix(plan, PanelFloats(oc, depth) / width, width, &panels);
    EValue* none = plain ? plan.NewValue(EValue()) : nullptr;
    if (panel_value == nullptr || (plain && none == nullptr)) return;
    PackPanels(StridedOperand(w.data_as<const float>(), w.stride(0), depth_stride), oc, depth,
               panels);
    EValue* call[14];
    for (int i = 0; i < 9; ++i) call[i] = args[i];
    call[9] = plain ? none : args[9];
    call[10] = plain ? none : args[10];
    call[11] = panel_value;
    call[12] = call[13] = args[args.size() - 1];
    if (plan.Replace(pc, *fused, Span<EValue* const>(call, 14)) != Error::kOk) return;
  }
}

}  // namespace optimized
}  // namespace edgefleet
