// add, sub, mul and div (tensor and Scalar variants) for float32 with
// PyTorch broadcasting. The operands' index space is put in out's memory
// order and coalesced; when the innermost dimension is contiguous in out
// and contiguous or broadcast (stride 0) in each input, it runs as a
// vectorized loop per outer index; large calls split the outer indices (or
// the single run) over the kernels' threads in ranges of at least kGrain
// elements. Results are bit-identical to the portable kernel (same formula,
// a + alpha * b rounded twice) at any thread count.

#include <algorithm>
#include <type_traits>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace optimized {
namespace {

using portable::StridedLoop;
using portable::StridedView;

enum class Op { kAdd, kAddAlpha, kSub, kSubAlpha, kMul, kDiv };

// Work is split over threads in ranges of at least this many output
// elements (ParallelForRanges): below twice this, one thread.
constexpr int64_t kGrain = 32 * 1024;

template <Op kOp, typename T>
[[gnu::always_inline]] inline T Apply(T a, T b, T alpha) {
  switch (kOp) {
    case Op::kAdd:
      return a + b;
    case Op::kAddAlpha:
      return a + alpha * b;
    case Op::kSub:
      return a - b;
    case Op::kSubAlpha:
      return a - alpha * b;
    case Op::kMul:
      return a * b;
    case Op::kDiv:
      return a / b;
  }
  return a;
}

// o[i] = a[i * sa] op b[i * sb] for i < n, sa and sb each 0 or 1.
template <Op kOp>
struct Binary {
  template <int W>
  struct Body {
    [[gnu::always_inline]] static inline void Run(const float* a, int64_t sa, const float* b,
                                                  int64_t sb, float* o, int64_t n, float alpha) {
      using V = Vf<W>;
      const V va = Splat<W>(alpha);
      int64_t i = 0;
      if (sa == 1 && sb == 1) {
        for (; i + W <= n; i += W) {
          Store<W>(o + i, Apply<kOp>(Load<W>(a + i), Load<W>(b + i), va));
        }
      } else if (sa == 1) {
        const V vb = Splat<W>(b[0]);
        for (; i + W <= n; i += W) {
          Store<W>(o + i, Apply<kOp>(Load<W>(a + i), vb, va));
        }
      } else if (sb == 1) {
        const V vx = Splat<W>(a[0]);
        for (; i + W <= n; i += W) {
          Store<W>(o + i, Apply<kOp>(vx, Load<W>(b + i), va));
        }
      }
      for (; i < n; ++i) o[i] = Apply<kOp>(a[i * sa], b[i * sb], alpha);
    }
  };
};

template <Op kOp>
void RunLoop(KernelContext& ctx, const StridedLoop<3>& loop, const float* a, const float* b,
             float* o, float alpha) {
  if (loop.dim == 0) {
    o[0] = Apply<kOp>(a[0], b[0], alpha);
    return;
  }
  const int last = loop.dim - 1;
  const int64_t n = loop.sizes[last];
  const int64_t sa = loop.strides[0][last], sb = loop.strides[1][last];
  if (loop.dim == 1) {
    ParallelForRanges(n, kGrain, ctx.num_threads(), [&](int64_t i0, int64_t i1) {
      RunVectorized<Binary<kOp>::template Body>(a + i0 * sa, sa, b + i0 * sb, sb, o + i0, i1 - i0,
                                                alpha);
    });
    return;
  }
  // Rows of the innermost dim, split into ranges of rows.
  StridedLoop<3> outer = loop;
  outer.dim = last;
  int64_t rows = 1;
  for (int d = 0; d < outer.dim; ++d) rows *= outer.sizes[d];
  const int64_t row_grain = n >= kGrain ? 1 : kGrain / std::max<int64_t>(n, 1);
  ParallelForRanges(rows, row_grain, ctx.num_threads(), [&](int64_t r0, int64_t r1) {
    portable::ForEachOffsetInRange(outer, r0, r1, [&](const int64_t* off) {
      RunVectorized<Binary<kOp>::template Body>(a + off[0], sa, b + off[1], sb, o + off[2], n,
                                                alpha);
    });
  });
}

// Calls f(std::integral_constant<Op, k>) for `op`, with the alpha-free
// variant when alpha is 1.
template <typename F>
void ForOp(Op op, float alpha, F&& f) {
  const bool unit = alpha == 1.0f;
  switch (op) {
    case Op::kAdd:
    case Op::kAddAlpha:
      unit ? f(std::integral_constant<Op, Op::kAdd>{})
           : f(std::integral_constant<Op, Op::kAddAlpha>{});
      break;
    case Op::kSub:
    case Op::kSubAlpha:
      unit ? f(std::integral_constant<Op, Op::kSub>{})
           : f(std::integral_constant<Op, Op::kSubAlpha>{});
      break;
    case Op::kMul:
      f(std::integral_constant<Op, Op::kMul>{});
      break;
    case Op::kDiv:
      f(std::integral_constant<Op, Op::kDiv>{});
      break;
  }
}

// True if `t`, right-aligned against `out`, has out's trailing sizes and
// out's extra leading sizes are 1: then t broadcasts to out element by
// element. Both in the default dim order.
bool AlignsWith(const Tensor& t, const Tensor& out) {
  const int shift = out.dim() - t.dim();
  if (shift < 0 || !t.IsDefaultDimOrder()) return false;
  for (int d = 0; d < shift; ++d) {
    if (out.size(d) != 1) return false;
  }
  for (int d = 0; d < t.dim(); ++d) {
    if (t.size(d) != out.size(d + shift)) return false;
  }
  return true;
}

// The common case without the broadcasting machinery: operands of out's
// shape (up to leading 1s), all contiguous, out already of the broadcast
// shape (its rank is the larger operand rank). Small tensors only (one
// thread's worth), where the machinery's cost shows (recurrent nets run
// hundreds of such ops).
bool TryFlatBinary(const Tensor& self, const Tensor* other, float scalar, Tensor& out, Op op,
                   float alpha) {
  const int64_t n = out.numel();
  if (n >= 2 * kGrain || !out.IsDefaultDimOrder() || !AlignsWith(self, out) ||
      (other != nullptr && !AlignsWith(*other, out))) {
    return false;
  }
  const int rank = other != nullptr && other->dim() > self.dim() ? other->dim() : self.dim();
  if (rank != out.dim()) return false;
  const float* a = self.data_as<const float>();
  const float* b = other != nullptr ? other->data_as<const float>() : &scalar;
  const int64_t sb = other != nullptr ? 1 : 0;
  float* o = out.data_as<float>();
  ForOp(op, alpha, [&](auto tag) {
    RunVectorized<Binary<decltype(tag)::value>::template Body>(a, 1, b, sb, o, n, alpha);
  });
  return true;
}

// out = a op b (b a Scalar when `scalar`), or false for the portable
// kernel.
bool TryBinary(KernelContext& ctx, Span<EValue*> args, Op op, bool has_alpha, bool scalar_other) {
  const size_t out_index = has_alpha ? 3 : 2;
  if (args.size() != out_index + 2) return false;
  const Tensor* self = PeekFloatTensor(args, 0);
  Tensor* out = PeekFloatTensor(args, out_index);
  const Tensor* other = scalar_other ? nullptr : PeekFloatTensor(args, 1);
  Scalar other_value{Scalar::Kind::kInt, 0, 0.0};
  Scalar alpha_value{Scalar::Kind::kInt, 1, 1.0};
  if (self == nullptr || out == nullptr ||
      (scalar_other ? !PeekScalar(args, 1, &other_value) : other == nullptr) ||
      (has_alpha &&
       (!PeekScalar(args, 2, &alpha_value) || alpha_value.kind == Scalar::Kind::kBool))) {
    return false;
  }
  const float alpha = portable::ScalarTo<float>(alpha_value);
  const float scalar = portable::ScalarTo<float>(other_value);
  if (TryFlatBinary(*self, other, scalar, *out, op, alpha)) return true;
  StridedView av = StridedView::Of(*self);
  StridedView bv;
  if (scalar_other) {
    bv.data = reinterpret_cast<char*>(const_cast<float*>(&scalar));
    bv.dim = 0;
  } else {
    bv = StridedView::Of(*other);
  }
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  int32_t sizes[kMaxTensorRank];
  const Tensor* inputs[2] = {self, other};
  if (!portable::BroadcastShapes(av, bv, &dim, shape) ||
      !portable::ToTensorSizes(dim, shape, sizes) ||
      !FitOut(*out, {sizes, static_cast<size_t>(dim)},
              {inputs, static_cast<size_t>(scalar_other ? 1 : 2)})) {
    return false;
  }
  if (out->numel() == 0) return true;
  const StridedView ov = StridedView::Of(*out);
  const StridedView* const views[3] = {&av, &bv, &ov};
  const StridedLoop<3> logical = portable::BroadcastLoop<3>(ov.dim, ov.sizes, views);
  // Walk out's memory order (dims by decreasing stride), so that a
  // channels-last out is one contiguous run too.
  int order[kMaxTensorRank];
  DimsByDecreasingStride(logical.strides[2], logical.dim, order);
  StridedLoop<3> loop;
  loop.dim = logical.dim;
  for (int d = 0; d < logical.dim; ++d) {
    loop.sizes[d] = logical.sizes[order[d]];
    for (int k = 0; k < 3; ++k) loop.strides[k][d] = logical.strides[k][order[d]];
  }
  loop.Coalesce();
  if (loop.dim > 0) {
    const int last = loop.dim - 1;
    if (loop.strides[2][last] != 1 || loop.strides[0][last] > 1 || loop.strides[1][last] > 1) {
      return false;
    }
  }
  const float* a = self->data_as<const float>();
  const float* b = scalar_other ? &scalar : other->data_as<const float>();
  float* o = out->data_as<float>();
  ForOp(op, alpha, [&](auto tag) { RunLoop<decltype(tag)::value>(ctx, loop, a, b, o, alpha); });
  return true;
}

}  // namespace

bool BinarySupports(Span<EValue* const> args) {
  // self, other, [alpha], out, ret
  const size_t out_index = args.size() == 5 ? 3 : 2;
  const Tensor* self = PeekFloatTensor(args, 0);
  const Tensor* other = PeekFloatTensor(args, 1);
  const Tensor* out = PeekFloatTensor(args, out_index);
  return (args.size() == 4 || args.size() == 5) && self != nullptr && other != nullptr &&
         out != nullptr &&
         (out->IsDefaultDimOrder() || (SameDimOrder(*self, *out) && SameDimOrder(*other, *out)));
}

bool BinaryScalarSupports(Span<EValue* const> args) {
  const size_t out_index = args.size() == 5 ? 3 : 2;
  const Tensor* self = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, out_index);
  Scalar s;
  return (args.size() == 4 || args.size() == 5) && self != nullptr && out != nullptr &&
         PeekScalar(args, 1, &s) && SameDimOrder(*self, *out);
}

void AddOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBinary(ctx, args, Op::kAddAlpha, true, false)) portable::AddOut(ctx, args);
}
void SubOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBinary(ctx, args, Op::kSubAlpha, true, false)) portable::SubOut(ctx, args);
}
void MulOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBinary(ctx, args, Op::kMul, false, false)) portable::MulOut(ctx, args);
}
void DivOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBinary(ctx, args, Op::kDiv, false, false)) portable::DivOut(ctx, args);
}
void AddScalarOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBinary(ctx, args, Op::kAddAlpha, true, true)) {
    portable::AddScalarOut(ctx, args);
  }
}
void SubScalarOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBinary(ctx, args, Op::kSubAlpha, true, true)) {
    portable::SubScalarOut(ctx, args);
  }
}
void MulScalarOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBinary(ctx, args, Op::kMul, false, true)) {
    portable::MulScalarOut(ctx, args);
  }
}
void DivScalarOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBinary(ctx, args, Op::kDiv, false, true)) {
    portable::DivScalarOut(ctx, args);
  }
}

}  // namespace optimized
}  // namespace edgefleet
