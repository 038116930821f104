// mm, bmm, addmm and linear through the packed GEMM (gemm.h). Operands are
// read through their strides (a transposed weight is packed, never
// copied); the bias epilogue computes alpha * (A @ B) + beta * bias exactly
// as the portable kernel does.

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/matmul_panels.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace optimized {
namespace {

using portable::ScalarTo;
using portable::StridedView;

// True if `bias` broadcasts to out's shape.
bool Broadcasts(const Tensor& bias, const Tensor& out) {
  if (bias.dim() > out.dim()) return false;
  for (int d = 0; d < bias.dim(); ++d) {
    const int32_t s = bias.size(bias.dim() - 1 - d);
    if (s != 1 && s != out.size(out.dim() - 1 - d)) return false;
  }
  return true;
}

// out = alpha * out + beta * bias (bias broadcast; ignored when beta == 0),
// element by element as the portable epilogue. REQUIRES: out contiguous.
void Epilogue(const Tensor* bias, float beta, float alpha, Tensor& out) {
  float* po = out.data_as<float>();
  const int64_t numel = out.numel();
  if (bias == nullptr || beta == 0.0f) {
    if (alpha != 1.0f) {
      for (int64_t i = 0; i < numel; ++i) po[i] *= alpha;
    }
    return;
  }
  const float* pb = bias->data_as<const float>();
  const int64_t n = out.dim() == 0 ? 1 : out.size(out.dim() - 1);
  // A row vector (every size 1 but the last, which is n) broadcast down.
  const bool row = n > 0 && bias->numel() == n &&
                   (bias->dim() == 0 ? n == 1
                                     : bias->size(bias->dim() - 1) == n &&
                                           (n == 1 || bias->stride(bias->dim() - 1) == 1));
  if (row && alpha == 1.0f && beta == 1.0f) {
    for (int64_t i = 0; i < numel; i += n) {
      for (int64_t j = 0; j < n; ++j) po[i + j] = po[i + j] + pb[j];
    }
    return;
  }
  if (row) {
    for (int64_t i = 0; i < numel; i += n) {
      for (int64_t j = 0; j < n; ++j) {
        po[i + j] = alpha * po[i + j] + beta * pb[j];
      }
    }
    return;
  }
  const StridedView bv = StridedView::Of(*bias);
  const StridedView ov = StridedView::Of(out);
  const StridedView* const views[2] = {&bv, &ov};
  portable::ForEachOffset(portable::BroadcastLoop<2>(ov.dim, ov.sizes, views),
                          [&](const int64_t* o) { po[o[1]] = alpha * po[o[1]] + beta * pb[o[0]]; });
}

// out[b] = a[b] @ m2[b] (+ epilogue) for rank-2 (or, batched, rank-3)
// operands; with `b_panels` (rank 2 only), B is read from those column
// panels of width PanelWidth() (matmul_panels.h) instead of b's data.
// Returns false, having written nothing, to leave the call to the portable
// kernel.
bool Matmul(KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor* bias, float beta,
            float alpha, Tensor& out, bool batched, const float* b_panels = nullptr) {
  const int rank = batched ? 3 : 2;
  const int off = batched ? 1 : 0;
  if (a.dim() != rank || b.dim() != rank || a.size(off + 1) != b.size(off) ||
      (batched && a.size(0) != b.size(0)) || !out.IsDefaultDimOrder() || out.dim() != rank) {
    return false;
  }
  const int32_t sizes[3] = {a.size(0), a.size(off), b.size(off + 1)};
  const int32_t sizes2[2] = {a.size(0), b.size(1)};
  const Tensor* inputs[3] = {&a, &b, bias};
  if (Overlaps(out, a) || Overlaps(out, b) || (bias != nullptr && Overlaps(out, *bias)) ||
      !FitOut(out, batched ? Span<const int32_t>(sizes) : sizes2,
              {inputs, static_cast<size_t>(bias != nullptr ? 3 : 2)})) {
    return false;
  }
  if (bias != nullptr && !Broadcasts(*bias, out)) return false;
  const int64_t batches = batched ? a.size(0) : 1;
  const int64_t m = a.size(off), k = a.size(off + 1), n = b.size(off + 1);
  for (int64_t i = 0; i < batches; ++i) {
    const int64_t ao = batched ? i * a.stride(0) : 0;
    const int64_t bo = batched ? i * b.stride(0) : 0;
    const StridedOperand av(a.data_as<const float>() + ao, a.stride(off), a.stride(off + 1));
    const StridedOperand bv(b.data_as<const float>() + bo, b.stride(off + 1), b.stride(off));
    const PanelOperand bp(b_panels, k);
    const GemmOperand& b_operand = b_panels != nullptr ? static_cast<const GemmOperand&>(bp) : bv;
    if (!Gemm(ctx, m, n, k, av, b_operand, out.data_as<float>() + i * m * n, n, false)) {
      return false;
    }
  }
  Epilogue(bias, beta, alpha, out);
  return true;
}

bool FloatMatmulArgs(Span<EValue* const> args, size_t count, const int* tensors, int num_tensors) {
  if (args.size() != count) return false;
  for (int i = 0; i < num_tensors; ++i) {
    if (PeekFloatTensor(args, tensors[i]) == nullptr) return false;
  }
  return true;
}

}  // namespace

bool MmSupports(Span<EValue* const> args) {
  const int tensors[] = {0, 1, 2};
  return FloatMatmulArgs(args, 4, tensors, 3) && PeekTensor(args, 2)->IsDefaultDimOrder();
}

bool BmmSupports(Span<EValue* const> args) { return MmSupports(args); }

bool AddmmSupports(Span<EValue* const> args) {
  const int tensors[] = {0, 1, 2, 5};
  return FloatMatmulArgs(args, 7, tensors, 4) && PeekTensor(args, 5)->IsDefaultDimOrder();
}

bool LinearSupports(Span<EValue* const> args) {
  const int tensors[] = {0, 1, 3};
  return FloatMatmulArgs(args, 5, tensors, 3) &&
         (PeekNone(args, 2) || PeekFloatTensor(args, 2) != nullptr) &&
         PeekTensor(args, 0)->IsDefaultDimOrder() && PeekTensor(args, 3)->IsDefaultDimOrder();
}

void MmOut(KernelContext& ctx, Span<EValue*> args) {
  if (MmSupports(args) && Matmul(ctx, *PeekTensor(args, 0), *PeekTensor(args, 1), nullptr, 1.0f,
                                 1.0f, *PeekTensor(args, 2), false)) {
    return;
  }
  portable::MmOut(ctx, args);
}

void BmmOut(KernelContext& ctx, Span<EValue*> args) {
  if (BmmSupports(args) && Matmul(ctx, *PeekTensor(args, 0), *PeekTensor(args, 1), nullptr, 1.0f,
                                  1.0f, *PeekTensor(args, 2), true)) {
    return;
  }
  portable::BmmOut(ctx, args);
}

void AddmmOut(KernelContext& ctx, Span<EValue*> args) {
  Scalar beta, alpha;
  if (AddmmSupports(args) && PeekScalar(args, 3, &beta) && PeekScalar(args, 4, &alpha) &&
      beta.kind != Scalar::Kind::kBool && alpha.kind != Scalar::Kind::kBool &&
      Matmul(ctx, *PeekTensor(args, 1), *PeekTensor(args, 2), PeekTensor(args, 0),
             ScalarTo<float>(beta), ScalarTo<float>(alpha), *PeekTensor(args, 5), false)) {
    return;
  }
  portable::AddmmOut(ctx, args);
}

// edgefleet::addmm_panels.out (matmul_panels.h): bias or None, mat1, mat2,
// beta, alpha, panels, out, out.
static void AddmmPanelsOut(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 8) {
    SetErrorDetail("edgefleet::addmm_panels.out: %zu arguments, not 8", args.size());
    ctx.Fail(Error::kInvalidArgument);
    return;
  }
  // As aten::addmm.out (with a bias) or aten::mm.out (without).
  const bool with_bias = !PeekNone(args, 0);
  EValue* call[7] = {args[0], args[1], args[2], args[3], args[4], args[6], args[7]};
  EValue* mm_call[4] = {args[1], args[2], args[6], args[7]};
  const Span<EValue*> addmm(call, 7), mm(mm_call, 4);
  const Tensor* panels = PeekFloatTensor(args, 5);
  Scalar beta, alpha;
  if ((with_bias ? AddmmSupports(addmm) : MmSupports(mm)) && panels != nullptr &&
      panels->dim() == 2 && panels->size(1) == PanelWidth() && PeekTensor(args, 2)->dim() == 2 &&
      panels->numel() == PanelFloats(PeekTensor(args, 2)->size(1), PeekTensor(args, 2)->size(0)) &&
      PeekScalar(args, 3, &beta) && PeekScalar(args, 4, &alpha) &&
      beta.kind != Scalar::Kind::kBool && alpha.kind != Scalar::Kind::kBool &&
      Matmul(ctx, *PeekTensor(args, 1), *PeekTensor(args, 2),
             with_bias ? PeekTensor(args, 0) : nullptr, ScalarTo<float>(beta),
             ScalarTo<float>(alpha), *PeekTensor(args, 6), false, panels->data_as<const float>())) {
    return;
  }
  if (with_bias) return AddmmOut(ctx, addmm);
  MmOut(ctx, mm);
}

void LinearOut(KernelContext& ctx, Span<EValue*> args) {
  if (!LinearSupports(args)) return portable::LinearOut(ctx, args);
  const Tensor& in = *PeekTensor(args, 0);
  const Tensor& weight = *PeekTensor(args, 1);
  const Tensor* bias = PeekTensor(args, 2);
  Tensor& out = *PeekTensor(args, 3);
  const int rank = in.dim();
  if (rank < 1 || weight.dim() != 2 || in.size(rank - 1) != weight.size(1) || out.dim() != rank ||
      Overlaps(out, in) || Overlaps(out, weight) || (bias != nullptr && Overlaps(out, *bias))) {
    return portable::LinearOut(ctx, args);
  }
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d + 1 < rank; ++d) sizes[d] = in.size(d);
  sizes[rank - 1] = weight.size(0);
  const Tensor* inputs[3] = {&in, &weight, bias};
  if (!FitOut(out, {sizes, static_cast<size_t>(rank)},
              {inputs, static_cast<size_t>(bias != nullptr ? 3 : 2)}) ||
      (bias != nullptr && !Broadcasts(*bias, out))) {
    return portable::LinearOut(ctx, args);
  }
  const int64_t k = weight.size(1), n = weight.size(0);
  const int64_t m = k == 0 ? (n == 0 ? 0 : out.numel() / n) : in.numel() / k;
  const StridedOperand av(in.data_as<const float>(), k, 1);
  const StridedOperand bv(weight.data_as<const float>(), weight.stride(0), weight.stride(1));
  if (!Gemm(ctx, m, n, k, av, bv, out.data_as<float>(), n, false)) {
    return portable::LinearOut(ctx, args);
  }
  Epilogue(bias, 1.0f, 1.0f, out);
}

const Kernel kAddmmPanelsKernel = {"edgefleet::addmm_panels.out", AddmmPanelsOut, nullptr,
                                   KernelVariant::kOptimized};

}  // namespace optimized
}  // namespace edgefleet
