// add, sub, mul and div (tensor and Scalar variants) for float32 with
// PyTorch broadcasting. The operands' index space is put in out's memory
// order and coalesced; when the innermost dimension is contiguous in out
// and contiguous or broadcast (stride 0) in each input, it runs as a
// vectorized loop per outer index; large calls split the outer indices (or
// the single run) over the kernels' threads in ranges of at least kMinRangeElements
// elements. Results are bit-identical to the portable kernel (same formula,
// a + alpha * b rounded twice) at any thread count. The fused kernels of
// the plan pass fuse_binary_activation (binary_fusion.h) run the same loops
// with the clamp of epilogue.h applied to each result before it is stored.

#include <algorithm>
#include <type_traits>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/binary_fusion.h"
#include "runtime/kernels/optimized/epilogue.h"
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

// Clamp bounds of a fused kernel; +-infinity for none.
struct Bounds {
  float lo, hi;
};

// o[i] = a[i * sa] op b[i * sb] for i < n, sa and sb each 0 or 1; with
// kClamp, then clamped to [c.lo, c.hi] as clamp.out does (epilogue.h).
template <Op kOp, bool kClamp>
struct Binary {
  template <int W>
  struct Body {
    [[gnu::always_inline]] static inline Vf<W> Finish(Vf<W> v, Vf<W> lo, Vf<W> hi) {
      if constexpr (kClamp) v = EpilogueV<W>(v, lo, hi, PostOp::kNone);
      return v;
    }
    [[gnu::always_inline]] static inline void Run(const float* a, int64_t sa, const float* b,
                                                  int64_t sb, float* o, int64_t n, float alpha,
                                                  Bounds c) {
      using V = Vf<W>;
      const V va = Splat<W>(alpha);
      V lo{}, hi{};
      if constexpr (kClamp) {
        lo = Splat<W>(c.lo);
        hi = Splat<W>(c.hi);
      }
      int64_t i = 0;
      if (sa == 1 && sb == 1) {
        for (; i + W <= n; i += W) {
          Store<W>(o + i, Finish(Apply<kOp>(Load<W>(a + i), Load<W>(b + i), va), lo, hi));
        }
      } else if (sa == 1) {
        const V vb = Splat<W>(b[0]);
        for (; i + W <= n; i += W) {
          Store<W>(o + i, Finish(Apply<kOp>(Load<W>(a + i), vb, va), lo, hi));
        }
      } else if (sb == 1) {
        const V vx = Splat<W>(a[0]);
        for (; i + W <= n; i += W) {
          Store<W>(o + i, Finish(Apply<kOp>(vx, Load<W>(b + i), va), lo, hi));
        }
      }
      for (; i < n; ++i) o[i] = Scalar1(a[i * sa], b[i * sb], alpha, c);
    }
  };
  [[gnu::always_inline]] static inline float Scalar1(float a, float b, float alpha, Bounds c) {
    const float v = Apply<kOp>(a, b, alpha);
    return kClamp ? EpilogueS(v, c.lo, c.hi, PostOp::kNone) : v;
  }
};

template <Op kOp, bool kClamp>
void RunLoop(KernelContext& ctx, const StridedLoop<3>& loop, const float* a, const float* b,
             float* o, float alpha, Bounds c) {
  using B = Binary<kOp, kClamp>;
  if (loop.dim == 0) {
    o[0] = B::Scalar1(a[0], b[0], alpha, c);
    return;
  }
  const int last = loop.dim - 1;
  const int64_t n = loop.sizes[last];
  const int64_t sa = loop.strides[0][last], sb = loop.strides[1][last];
  if (loop.dim == 1) {
    ParallelForRanges(n, kMinRangeElements, ctx.num_threads(), [&](int64_t i0, int64_t i1) {
      RunVectorized<B::template Body>(a + i0 * sa, sa, b + i0 * sb, sb, o + i0, i1 - i0, alpha, c);
    });
    return;
  }
  // Rows of the innermost dim, split into ranges of rows.
  StridedLoop<3> outer = loop;
  outer.dim = last;
  int64_t rows = 1;
  for (int d = 0; d < outer.dim; ++d) rows *= outer.sizes[d];
  const int64_t row_grain =
      n >= kMinRangeElements ? 1 : kMinRangeElements / std::max<int64_t>(n, 1);
  ParallelForRanges(rows, row_grain, ctx.num_threads(), [&](int64_t r0, int64_t r1) {
    portable::ForEachOffsetInRange(outer, r0, r1, [&](const int64_t* off) {
      RunVectorized<B::template Body>(a + off[0], sa, b + off[1], sb, o + off[2], n, alpha, c);
    });
  });
}

// Calls f(std::integral_constant<Op, k>, std::bool_constant<clamp>) for
// `op`, with the alpha-free variant when alpha is 1.
template <typename F>
void ForOp(Op op, float alpha, bool clamp, F&& f) {
  const bool unit = alpha == 1.0f;
  const auto with = [&](auto op_tag) {
    clamp ? f(op_tag, std::true_type{}) : f(op_tag, std::false_type{});
  };
  switch (op) {
    case Op::kAdd:
    case Op::kAddAlpha:
      unit ? with(std::integral_constant<Op, Op::kAdd>{})
           : with(std::integral_constant<Op, Op::kAddAlpha>{});
      break;
    case Op::kSub:
    case Op::kSubAlpha:
      unit ? with(std::integral_constant<Op, Op::kSub>{})
           : with(std::integral_constant<Op, Op::kSubAlpha>{});
      break;
    case Op::kMul:
      with(std::integral_constant<Op, Op::kMul>{});
      break;
    case Op::kDiv:
      with(std::integral_constant<Op, Op::kDiv>{});
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
                   float alpha, const Bounds* clamp) {
  const int64_t n = out.numel();
  if (n >= 2 * kMinRangeElements || !out.IsDefaultDimOrder() || !AlignsWith(self, out) ||
      (other != nullptr && !AlignsWith(*other, out))) {
    return false;
  }
  const int rank = other != nullptr && other->dim() > self.dim() ? other->dim() : self.dim();
  if (rank != out.dim()) return false;
  const float* a = self.data_as<const float>();
  const float* b = other != nullptr ? other->data_as<const float>() : &scalar;
  const int64_t sb = other != nullptr ? 1 : 0;
  float* o = out.data_as<float>();
  const Bounds c = clamp != nullptr ? *clamp : Bounds{};
  ForOp(op, alpha, clamp != nullptr, [&](auto tag, auto clamped) {
    RunVectorized<Binary<decltype(tag)::value, decltype(clamped)::value>::template Body>(
        a, 1, b, sb, o, n, alpha, c);
  });
  return true;
}

// out = a op b (b a Scalar when `scalar`), then clamped to *clamp if not
// null, or false for the portable kernel.
bool TryBinary(KernelContext& ctx, Span<EValue*> args, Op op, bool has_alpha, bool scalar_other,
               const Bounds* clamp = nullptr) {
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
  if (TryFlatBinary(*self, other, scalar, *out, op, alpha, clamp)) return true;
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
  const Bounds c = clamp != nullptr ? *clamp : Bounds{};
  ForOp(op, alpha, clamp != nullptr, [&](auto tag, auto clamped) {
    RunLoop<decltype(tag)::value, decltype(clamped)::value>(ctx, loop, a, b, o, alpha, c);
  });
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

namespace {

// args: self, other, [alpha], min?, max?, out, ret. When the fast path does
// not take the call: `binary` (the portable kernel of the operator), then
// the optimized clamp.out over out in place, as the unfused chain runs.
void FusedBinaryClamp(KernelContext& ctx, Span<EValue*> args, Op op, bool has_alpha,
                      OpFunction binary, const char* name) {
  const size_t at = has_alpha ? 3 : 2;  // min
  Bounds c{-__builtin_inff(), __builtin_inff()};
  bool ok = args.size() == at + 4;
  for (size_t i = 0; i < 2 && ok; ++i) {
    Scalar s;
    if (PeekScalar(args, at + i, &s)) {
      (i == 0 ? c.lo : c.hi) = portable::ScalarTo<float>(s);
    } else {
      ok = PeekNone(args, at + i);
    }
  }
  if (!ok) {
    SetErrorDetail("%s: bad arguments", name);
    ctx.Fail(Error::kInvalidArgument);
    return;
  }
  EValue* call[5];
  size_t n = 0;
  for (size_t i = 0; i < at; ++i) call[n++] = args[i];
  call[n++] = args[at + 2];
  call[n++] = args[at + 3];
  const Span<EValue*> binary_args(call, n);
  if (TryBinary(ctx, binary_args, op, has_alpha, false, &c)) return;
  binary(ctx, binary_args);
  if (ctx.failed()) return;
  EValue* clamp[5] = {args[at + 2], args[at], args[at + 1], args[at + 2], args[at + 2]};
  ClampOut(ctx, Span<EValue*>(clamp, 5));
}

}  // namespace

void FusedAddClampOut(KernelContext& ctx, Span<EValue*> args) {
  FusedBinaryClamp(ctx, args, Op::kAddAlpha, true, portable::AddOut, kFusedAddClampKernel.name);
}
void FusedSubClampOut(KernelContext& ctx, Span<EValue*> args) {
  FusedBinaryClamp(ctx, args, Op::kSubAlpha, true, portable::SubOut, kFusedSubClampKernel.name);
}
void FusedMulClampOut(KernelContext& ctx, Span<EValue*> args) {
  FusedBinaryClamp(ctx, args, Op::kMul, false, portable::MulOut, kFusedMulClampKernel.name);
}

const Kernel kFusedAddClampKernel = {"edgefleet::fused_add_clamp.out", FusedAddClampOut, nullptr,
                                     KernelVariant::kOptimized};
const Kernel kFusedSubClampKernel = {"edgefleet::fused_sub_clamp.out", FusedSubClampOut, nullptr,
                                     KernelVariant::kOptimized};
const Kernel kFusedMulClampKernel = {"edgefleet::fused_mul_clamp.out", FusedMulClampOut, nullptr,
                                     KernelVariant::kOptimized};

}  // namespace optimized
}  // namespace edgefleet
