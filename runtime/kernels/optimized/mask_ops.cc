// The masking ops of attention's "safe softmax" as exported by torch
// (softmax rows whose every score is -inf come out as zeros):
// aten::eq.Scalar_out (float32 -> bool), aten::logical_not.out (bool ->
// bool), aten::any.out over the last dim (bool) and aten::where.self_out
// (bool condition, float32 operands). In an XNNPACK-lowered transformer the
// softmax runs in the delegate and these run between its delegates, on
// every attention score: on the portable kernels, a quarter of ViT-Tiny's
// time. Fast paths for contiguous operands in one dim order (where: each
// operand the out's shape, one element, or the out's shape with a last dim
// of 1), split over threads by contiguous ranges of elements or rows; every
// result is exact (a comparison, a negation, an or, a selection), so the
// same bits as the portable kernels at any thread count. Anything else
// runs the portable kernel, which also reports errors.

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

Tensor* PeekTyped(Span<EValue* const> args, size_t i, ScalarType dtype) {
  Tensor* t = PeekTensor(args, i);
  return t != nullptr && t->dtype() == dtype ? t : nullptr;
}

// `in` and `out` have the same sizes and dim order (both dense in it),
// out does not overlap in unless it is in.
bool Elementwise(const Tensor& in, const Tensor& out) {
  if (in.dim() != out.dim() || !SameDimOrder(in, out)) return false;
  for (int d = 0; d < in.dim(); ++d) {
    if (in.size(d) != out.size(d)) return false;
  }
  return in.data() == out.data() || !Overlaps(in, out);
}

bool EqScalarArgs(Span<EValue* const> args, Scalar* s) {
  if (args.size() != 4 || !PeekScalar(args, 1, s)) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekTyped(args, 2, ScalarType::kBool);
  return in != nullptr && out != nullptr && Elementwise(*in, *out) && in->data() != out->data();
}

bool LogicalNotArgs(Span<EValue* const> args) {
  if (args.size() != 3) return false;
  const Tensor* in = PeekTyped(args, 0, ScalarType::kBool);
  const Tensor* out = PeekTyped(args, 1, ScalarType::kBool);
  return in != nullptr && out != nullptr && Elementwise(*in, *out);
}

// any over the last dim of a default-order bool tensor: *rows x *n.
bool AnyLastDimArgs(Span<EValue* const> args, int64_t* rows, int64_t* n) {
  int64_t dim = 0;
  bool keepdim = false;
  if (args.size() != 5 || !PeekInt(args, 1, &dim) || !PeekBool(args, 2, &keepdim)) return false;
  const Tensor* in = PeekTyped(args, 0, ScalarType::kBool);
  const Tensor* out = PeekTyped(args, 3, ScalarType::kBool);
  if (in == nullptr || out == nullptr || in->dim() < 1 || !in->IsDefaultDimOrder() ||
      !out->IsDefaultDimOrder() || Overlaps(*in, *out)) {
    return false;
  }
  const int rank = in->dim();
  if (dim < 0) dim += rank;
  if (dim != rank - 1 || out->dim() != (keepdim ? rank : rank - 1)) return false;
  for (int d = 0; d + 1 < rank; ++d) {
    if (out->size(d) != in->size(d)) return false;
  }
  if (keepdim && out->size(rank - 1) != 1) return false;
  *n = in->size(rank - 1);
  *rows = *n == 0 ? out->numel() : in->numel() / *n;
  return true;
}

// How a where operand reads against the out: element by element, one
// value per row of the last dim, or one value.
enum class Reads { kEach, kRow, kOne };

bool WhereOperand(const Tensor& t, const Tensor& out, Reads* reads) {
  if (t.numel() == 1 && t.dim() <= out.dim()) {
    *reads = Reads::kOne;
    return !Overlaps(t, out);
  }
  if (t.dim() != out.dim() || !t.IsDefaultDimOrder()) return false;
  const int last = out.dim() - 1;
  for (int d = 0; d < last; ++d) {
    if (t.size(d) != out.size(d)) return false;
  }
  if (t.size(last) == out.size(last)) {
    *reads = Reads::kEach;
    return t.data() == out.data() || !Overlaps(t, out);
  }
  *reads = Reads::kRow;
  return t.size(last) == 1 && !Overlaps(t, out);
}

bool WhereArgs(Span<EValue* const> args, Reads reads[3]) {
  if (args.size() != 5) return false;
  const Tensor* cond = PeekTyped(args, 0, ScalarType::kBool);
  const Tensor* a = PeekFloatTensor(args, 1);
  const Tensor* b = PeekFloatTensor(args, 2);
  const Tensor* out = PeekFloatTensor(args, 3);
  return cond != nullptr && a != nullptr && b != nullptr && out != nullptr && out->dim() >= 1 &&
         out->numel() > 0 && out->IsDefaultDimOrder() && WhereOperand(*cond, *out, &reads[0]) &&
         WhereOperand(*a, *out, &reads[1]) && WhereOperand(*b, *out, &reads[2]) &&
         // The out's shape is the broadcast one: some operand has it.
         (reads[0] == Reads::kEach || reads[1] == Reads::kEach || reads[2] == Reads::kEach);
}

}  // namespace

bool EqScalarSupports(Span<EValue* const> args) {
  Scalar s;
  return EqScalarArgs(args, &s);
}

bool LogicalNotSupports(Span<EValue* const> args) { return LogicalNotArgs(args); }

bool AnySupports(Span<EValue* const> args) {
  int64_t rows = 0, n = 0;
  return AnyLastDimArgs(args, &rows, &n);
}

bool WhereSupports(Span<EValue* const> args) {
  Reads reads[3];
  return WhereArgs(args, reads);
}

void EqScalarOut(KernelContext& ctx, Span<EValue*> args) {
  Scalar s;
  if (!EqScalarArgs(args, &s) || s.kind == Scalar::Kind::kBool) {
    return portable::EqScalarOut(ctx, args);
  }
  // A float32 tensor against a number compares in float32 (the number
  // rounded to it), as torch's type promotion does.
  const float value = portable::ScalarTo<float>(s);
  const float* x = PeekTensor(args, 0)->data_as<const float>();
  bool* y = PeekTensor(args, 2)->data_as<bool>();
  ParallelForRanges(PeekTensor(args, 0)->numel(), kMinRangeElements, ctx.num_threads(),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t i = begin; i < end; ++i) y[i] = x[i] == value;
                    });
}

void LogicalNotOut(KernelContext& ctx, Span<EValue*> args) {
  if (!LogicalNotArgs(args)) return portable::LogicalNotOut(ctx, args);
  const auto* x = static_cast<const uint8_t*>(PeekTensor(args, 0)->data());
  auto* y = static_cast<uint8_t*>(PeekTensor(args, 1)->mutable_data());
  ParallelForRanges(PeekTensor(args, 0)->numel(), kMinRangeElements, ctx.num_threads(),
                    [&](int64_t begin, int64_t end) {
                      // Locals: a byte store may alias anything in memory,
                      // the captured pointers included. In place (ys ==
                      // xs) or apart, each byte is read before it is
                      // written.
                      const uint8_t* xs = x;
                      uint8_t* ys = y;
#pragma GCC ivdep
                      for (int64_t i = begin; i < end; ++i) ys[i] = xs[i] == 0;
                    });
}

void AnyOut(KernelContext& ctx, Span<EValue*> args) {
  int64_t rows = 0, n = 0;
  if (!AnyLastDimArgs(args, &rows, &n)) return portable::AnyOut(ctx, args);
  const auto* x = static_cast<const uint8_t*>(PeekTensor(args, 0)->data());
  bool* y = PeekTensor(args, 3)->data_as<bool>();
  ParallelForRanges(rows, n > 0 ? (kMinRangeElements + n - 1) / n : kMinRangeElements,
                    ctx.num_threads(), [&](int64_t begin, int64_t end) {
                      const uint8_t* xs = x;
                      for (int64_t r = begin; r < end; ++r) {
                        const uint8_t* row = xs + r * n;
                        uint8_t any = 0;
                        for (int64_t j = 0; j < n; ++j) any |= row[j];
                        y[r] = any != 0;
                      }
                    });
}

void WhereSelfOut(KernelContext& ctx, Span<EValue*> args) {
  Reads reads[3];
  if (!WhereArgs(args, reads)) return portable::WhereSelfOut(ctx, args);
  Tensor& out = *PeekTensor(args, 3);
  const int64_t n = out.size(out.dim() - 1), rows = out.numel() / n;
  const auto* c = static_cast<const uint8_t*>(PeekTensor(args, 0)->data());
  const float* a = PeekTensor(args, 1)->data_as<const float>();
  const float* b = PeekTensor(args, 2)->data_as<const float>();
  float* y = out.data_as<float>();
  // Offset of row r's first element and the step along it, per operand.
  const auto row = [&](Reads how, int64_t r) {
    return how == Reads::kEach ? r * n : how == Reads::kRow ? r : 0;
  };
  const int64_t step[3] = {reads[0] == Reads::kEach, reads[1] == Reads::kEach,
                           reads[2] == Reads::kEach};
  ParallelForRanges(rows, (kMinRangeElements + n - 1) / n, ctx.num_threads(),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t r = begin; r < end; ++r) {
                        const uint8_t* cr = c + row(reads[0], r);
                        const float* ar = a + row(reads[1], r);
                        const float* br = b + row(reads[2], r);
                        float* yr = y + r * n;
                        if (reads[0] != Reads::kEach) {
                          // One condition for the whole row (the masked rows of attention):
                          // the row of the chosen operand, copied or filled.
                          const bool take_a = cr[0] != 0;
                          const float* src = take_a ? ar : br;
                          if ((take_a ? step[1] : step[2]) != 0) {
                            std::memcpy(yr, src, sizeof(float) * n);
                          } else {
                            std::fill(yr, yr + n, src[0]);
                          }
                          continue;
                        }
                        for (int64_t j = 0; j < n; ++j) {
                          yr[j] = cr[j] != 0 ? ar[j * step[1]] : br[j * step[2]];
                        }
                      }
                    });
}

}  // namespace optimized
}  // namespace edgefleet
