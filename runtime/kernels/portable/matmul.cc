// Matrix-multiply kernels: mm, bmm, addmm (beta * self + alpha * m1 @ m2)
// and linear (input @ weight^T + bias). Floating dtypes; any strides. A
// plain triple loop ordered for unit-stride access: this is the readable
// reference, the optimized library provides blocked GEMM.

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

// out = a @ b. REQUIRES: a is n x k, b is k x m, out is n x m.
template <typename T>
void Gemm(const Mat<const T>& a, const Mat<const T>& b, const Mat<T>& out) {
  const int64_t n = a.rows, k = a.cols, m = b.cols;
  if (a.col_stride == 1 && b.row_stride == 1) {
    // Both operands are contiguous along k: dot products.
    for (int64_t i = 0; i < n; ++i) {
      const T* arow = &a.data[i * a.row_stride];
      for (int64_t j = 0; j < m; ++j) {
        const T* bcol = &b.data[j * b.col_stride];
        T acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += arow[p] * bcol[p];
        out.at(i, j) = acc;
      }
    }
    return;
  }
  // Row updates: out[i, :] += a[i, p] * b[p, :].
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) out.at(i, j) = 0;
    for (int64_t p = 0; p < k; ++p) {
      const T aip = a.at(i, p);
      for (int64_t j = 0; j < m; ++j) out.at(i, j) += aip * b.at(p, j);
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
  if (out.dtype() != ScalarType::kFloat && out.dtype() != ScalarType::kDouble) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(out.dtype()));
    return false;
  }
  return true;
}

// out = alpha * out + beta * bias (bias broadcast to out; ignored when
// beta == 0, so its NaNs do not propagate).
template <typename T>
void Epilogue(const Tensor* bias, T beta, T alpha, const Tensor& out) {
  const StridedView ov = StridedView::Of(out);
  T* po = out.data_as<T>();
  if (bias == nullptr || beta == T(0)) {
    if (alpha != T(1)) {
      const StridedView* const views[1] = {&ov};
      ForEachOffset(BroadcastLoop<1>(ov.dim, ov.sizes, views),
                    [&](const int64_t* o) { po[o[0]] *= alpha; });
    }
    return;
  }
  const StridedView bv = StridedView::Of(*bias);
  const T* pb = bias->data_as<T>();
  const StridedView* const views[2] = {&bv, &ov};
  ForEachOffset(BroadcastLoop<2>(ov.dim, ov.sizes, views),
                [&](const int64_t* o) { po[o[1]] = alpha * po[o[1]] + beta * pb[o[0]]; });
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
  SwitchFloating(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t batches = batched ? a.size(0) : 1;
    for (int64_t i = 0; i < batches; ++i) {
      Gemm<T>(MatOf<const T>(a, off, off + 1, batched ? i * a.stride(0) : 0),
              MatOf<const T>(b, off, off + 1, batched ? i * b.stride(0) : 0),
              MatOf<T>(out, off, off + 1, batched ? i * out.stride(0) : 0));
    }
    Epilogue<T>(bias, ScalarTo<T>(beta), ScalarTo<T>(alpha), out);
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
  // One 1 x k @ k x m product per row of the leading dimensions.
  StridedLoop<2> rows;
  rows.dim = rank - 1;
  for (int d = 0; d + 1 < rank; ++d) {
    rows.sizes[d] = in->size(d);
    rows.strides[0][d] = in->stride(d);
    rows.strides[1][d] = out->stride(d);
  }
  SwitchFloating(out->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t k = weight->size(1), m = weight->size(0);
    const Mat<const T> wt{weight->data_as<const T>(), k, m, weight->stride(1), weight->stride(0)};
    ForEachOffset(rows, [&](const int64_t* o) {
      const Mat<const T> row{in->data_as<const T>() + o[0], 1, k, 0, in->stride(rank - 1)};
      Gemm<T>(row, wt, Mat<T>{out->data_as<T>() + o[1], 1, m, 0, out->stride(rank - 1)});
    });
    Epilogue<T>(bias, T(1), T(1), *out);
  });
}

}  // namespace portable
}  // namespace edgefleet
