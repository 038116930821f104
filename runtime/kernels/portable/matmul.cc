// Matrix-multiply kernels: mm, bmm, addmm (beta * self + alpha * m1 @ m2)
// and linear (input @ weight^T + bias). Floating dtypes; any strides. A
// plain triple loop ordered for unit-stride access: this is the readable
// reference, the optimized library provides blocked GEMM. float16 and
// bfloat16 accumulate in float32 and each output is rounded once (after
// alpha, beta and the bias), as PyTorch's CPU gemm does.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// A strided matrix.
template <typename T>
struct Mat {
  T* data;
  int64_t rows, cols, row_stride, col_stride;
  T& at(int64_t r, int64_t c) const { return data[r * row_stride + c * col_stride]; }
};

// out = alpha * (a @ b) + beta * bias, where `bias` is a view of out's
// shape (broadcast dims have stride 0) or null (absent, or beta == 0 so
// its NaNs do not propagate). Accumulates in OpMath<S>. REQUIRES: a is
// n x k, b is k x m, out and bias are n x m.
template <typename S>
void Gemm(const Mat<const S>& a, const Mat<const S>& b, const Mat<const S>* bias, OpMath<S> beta,
          OpMath<S> alpha, const Mat<S>& out) {
  using T = OpMath<S>;
  const int64_t n = a.rows, k = a.cols, m = b.cols;
  const auto finish = [&](T acc, int64_t i, int64_t j) {
    return Convert<S>(bias == nullptr ? alpha * acc
                                      : alpha * acc + beta * Convert<T>(bias->at(i, j)));
  };
  if constexpr (std::is_same_v<S, T>) {
    if (a.col_stride != 1 || b.row_stride != 1) {
      // Row updates out[i, :] += a[i, p] * b[p, :] (storage is exact here).
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < m; ++j) out.at(i, j) = 0;
        for (int64_t p = 0; p < k; ++p) {
          const T aip = a.at(i, p);
          for (int64_t j = 0; j < m; ++j) out.at(i, j) += aip * b.at(p, j);
        }
        for (int64_t j = 0; j < m; ++j) out.at(i, j) = finish(out.at(i, j), i, j);
      }
      return;
    }
  }
  // Dot products (unit stride when both operands are contiguous along k).
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      T acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += Convert<T>(a.at(i, p)) * Convert<T>(b.at(p, j));
      out.at(i, j) = finish(acc, i, j);
    }
  }
}

template <typename T>
Mat<T> MatOf(const Tensor& t, int row_dim, int col_dim, int64_t offset) {
  return {t.data_as<T>() + offset, t.size(row_dim), t.size(col_dim), t.stride(row_dim),
          t.stride(col_dim)};
}

// Fails unless every tensor has out's dtype and it is floating.
bool CheckFloatingSame(KernelArgs& args, const Tensor* const* tensors, int n, const Tensor& out) {
  for (int i = 0; i < n; ++i) {
    if (tensors[i] != nullptr && tensors[i]->dtype() != out.dtype()) {
      args.Fail(Error::kInvalidArgument, "dtype %s does not match out (%s)",
                ScalarTypeName(tensors[i]->dtype()), ScalarTypeName(out.dtype()));
      return false;
    }
  }
  if (!IsFloatingType(out.dtype())) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out.dtype()));
    return false;
  }
  return true;
}

// The stride of `bias` along out's dim `d` (of `rank`) when broadcast to
// out: 0 where bias lacks the dim or has size 1 there.
int64_t BroadcastStride(const Tensor& bias, int rank, int d) {
  const int bd = d - (rank - bias.dim());
  return bd < 0 || bias.size(bd) == 1 ? 0 : bias.stride(bd);
}

// True if `bias` broadcasts to out's shape.
bool Broadcasts(const Tensor& bias, const Tensor& out) {
  if (bias.dim() > out.dim()) return false;
  for (int d = 0; d < bias.dim(); ++d) {
    const int32_t s = bias.size(bias.dim() - 1 - d);
    if (s != 1 && s != out.size(out.dim() - 1 - d)) return false;
  }
  return true;
}

void MatmulKernel(KernelArgs& args, const Tensor& a, const Tensor& b, const Tensor* bias,
                  const Scalar& beta, const Scalar& alpha, Tensor& out, bool batched) {
  const int rank = batched ? 3 : 2;
  const Tensor* tensors[3] = {&a, &b, bias};
  if (!CheckFloatingSame(args, tensors, 3, out)) return;
  const int off = batched ? 1 : 0;
  if (a.dim() != rank || b.dim() != rank || a.size(off + 1) != b.size(off) ||
      (batched && a.size(0) != b.size(0))) {
    args.Fail(Error::kInvalidArgument, "cannot multiply shapes %s and %s",
              FormatSizes(StridedView::Of(a)).text, FormatSizes(StridedView::Of(b)).text);
    return;
  }
  int32_t sizes[3] = {a.size(0), a.size(off), b.size(off + 1)};
  if (!batched) sizes[1] = b.size(1);
  if (!args.ResizeOut(out, {sizes, static_cast<size_t>(rank)}, "out")) return;
  if (bias != nullptr && !Broadcasts(*bias, out)) {
    args.Fail(Error::kInvalidArgument, "self %s does not broadcast to %s",
              FormatSizes(StridedView::Of(*bias)).text, FormatSizes(StridedView::Of(out)).text);
    return;
  }
  SwitchFloatingElement(out.dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    const T beta_v = ScalarTo<T>(beta);
    const bool use_bias = bias != nullptr && beta_v != T(0);
    const Mat<const S> bias_mat =
        use_bias ? Mat<const S>{bias->data_as<const S>(), out.size(0), out.size(1),
                                BroadcastStride(*bias, 2, 0), BroadcastStride(*bias, 2, 1)}
                 : Mat<const S>{};
    const int64_t batches = batched ? a.size(0) : 1;
    for (int64_t i = 0; i < batches; ++i) {
      Gemm<S>(MatOf<const S>(a, off, off + 1, batched ? i * a.stride(0) : 0),
              MatOf<const S>(b, off, off + 1, batched ? i * b.stride(0) : 0),
              use_bias ? &bias_mat : nullptr, beta_v, ScalarTo<T>(alpha),
              MatOf<S>(out, off, off + 1, batched ? i * out.stride(0) : 0));
    }
  });
}

constexpr Scalar kOne = {Scalar::Kind::kInt, 1, 1.0};

}  // namespace

void MmOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::mm.out", raw, 4);
  Tensor* a = args.GetTensor(0);
  Tensor* b = args.GetTensor(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  MatmulKernel(args, *a, *b, nullptr, kOne, kOne, *out, false);
}

void BmmOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::bmm.out", raw, 4);
  Tensor* a = args.GetTensor(0);
  Tensor* b = args.GetTensor(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  MatmulKernel(args, *a, *b, nullptr, kOne, kOne, *out, true);
}

void AddmmOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::addmm.out", raw, 7);
  Tensor* self = args.GetTensor(0);
  Tensor* a = args.GetTensor(1);
  Tensor* b = args.GetTensor(2);
  const Scalar beta = args.GetScalar(3);
  const Scalar alpha = args.GetScalar(4);
  Tensor* out = args.GetTensor(5);
  if (!args.ok()) return;
  MatmulKernel(args, *a, *b, self, beta, alpha, *out, false);
}

void LinearOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::linear.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  Tensor* weight = args.GetTensor(1);
  Tensor* bias = args.GetOptionalTensor(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  const Tensor* tensors[3] = {in, weight, bias};
  if (!CheckFloatingSame(args, tensors, 3, *out)) return;
  if (in->dim() < 1 || weight->dim() != 2 || in->size(in->dim() - 1) != weight->size(1)) {
    args.Fail(Error::kInvalidArgument, "input %s does not match weight %s",
              FormatSizes(StridedView::Of(*in)).text, FormatSizes(StridedView::Of(*weight)).text);
    return;
  }
  const int rank = in->dim();
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d + 1 < rank; ++d) sizes[d] = in->size(d);
  sizes[rank - 1] = weight->size(0);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(rank)}, "out")) return;
  if (bias != nullptr && !Broadcasts(*bias, *out)) {
    args.Fail(Error::kInvalidArgument, "bias %s does not broadcast to %s",
              FormatSizes(StridedView::Of(*bias)).text, FormatSizes(StridedView::Of(*out)).text);
    return;
  }
  // One 1 x k @ k x m product per row of the leading dimensions (input,
  // out and the broadcast bias offsets).
  StridedLoop<3> rows;
  rows.dim = rank - 1;
  for (int d = 0; d + 1 < rank; ++d) {
    rows.sizes[d] = in->size(d);
    rows.strides[0][d] = in->stride(d);
    rows.strides[1][d] = out->stride(d);
    rows.strides[2][d] = bias != nullptr ? BroadcastStride(*bias, rank, d) : 0;
  }
  SwitchFloatingElement(out->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    const int64_t k = weight->size(1), m = weight->size(0);
    const Mat<const S> wt{weight->data_as<const S>(), k, m, weight->stride(1), weight->stride(0)};
    const int64_t bias_col = bias != nullptr ? BroadcastStride(*bias, rank, rank - 1) : 0;
    ForEachOffset(rows, [&](const int64_t* o) {
      const Mat<const S> row{in->data_as<const S>() + o[0], 1, k, 0, in->stride(rank - 1)};
      const Mat<const S> bias_row{bias != nullptr ? bias->data_as<const S>() + o[2] : nullptr, 1, m,
                                  0, bias_col};
      Gemm<S>(row, wt, bias != nullptr ? &bias_row : nullptr, T(1), T(1),
              Mat<S>{out->data_as<S>() + o[1], 1, m, 0, out->stride(rank - 1)});
    });
  });
}

}  // namespace portable
}  // namespace edgefleet
