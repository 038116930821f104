// Pairwise p-norm distances: aten::_cdist_forward.out (x1 [*, P, M] and
// x2 [*, R, M] -> [*, P, R], batch dims broadcast) and _pdist_forward.out
// ([N, M] -> the N*(N-1)/2 distances of rows i < j, row-major). p = 0
// counts differing coordinates, p = inf takes the largest difference.
// Floating dtypes; computed directly in double (compute_mode only selects
// torch's matrix-multiply shortcut for p = 2, which gives the same values up
// to rounding).

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// The p-norm distance of rows a and b (m elements, strides sa and sb).
template <typename T>
double Distance(const T* a, int64_t sa, const T* b, int64_t sb, int64_t m, double p) {
  double acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = std::fabs(static_cast<double>(a[k * sa]) - static_cast<double>(b[k * sb]));
    if (p == 0) {
      acc += d != 0 ? 1 : 0;
    } else if (std::isinf(p)) {
      acc = d > acc || std::isnan(d) ? d : acc;
    } else if (p == 1) {
      acc += d;
    } else if (p == 2) {
      acc += d * d;
    } else {
      acc += std::pow(d, p);
    }
  }
  if (p == 0 || p == 1 || std::isinf(p)) return acc;
  return p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p);
}

bool CheckP(KernelArgs& args, double p) {
  if (!(p >= 0)) {
    args.Fail(Error::kInvalidArgument, "only supports non-negative p values, got %g", p);
    return false;
  }
  return true;
}

}  // namespace

void CdistForwardOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_cdist_forward.out", raw, 6);
  Tensor* x1 = args.GetTensor(0);
  Tensor* x2 = args.GetTensor(1);
  const double p = args.GetDouble(2);
  int64_t compute_mode = 0;
  args.GetOptionalInt(3, &compute_mode);  // same values either way
  Tensor* out = args.GetTensor(4);
  if (!args.ok() || !CheckP(args, p)) return;
  if (x1->dim() < 2 || x2->dim() < 2 || !IsBasicFloating(x1->dtype()) ||
      x2->dtype() != x1->dtype() || out->dtype() != x1->dtype() ||
      x1->size(x1->dim() - 1) != x2->size(x2->dim() - 1)) {
    args.Fail(Error::kInvalidArgument,
              "needs floating x1 [*, P, M] and x2 [*, R, M] of one dtype and "
              "an out of that dtype");
    return;
  }
  // Broadcast the batch dims.
  StridedView b1 = StridedView::Of(*x1);
  StridedView b2 = StridedView::Of(*x2);
  b1.dim -= 2;
  b2.dim -= 2;
  int batch_dim = 0;
  int64_t shape[kMaxTensorRank];
  if (!BroadcastShapes(b1, b2, &batch_dim, shape)) {
    args.Fail(Error::kInvalidArgument, "batch dims %s and %s do not broadcast",
              FormatSizes(b1).text, FormatSizes(b2).text);
    return;
  }
  const int64_t rows1 = x1->size(x1->dim() - 2);
  const int64_t rows2 = x2->size(x2->dim() - 2);
  const int64_t m = x1->size(x1->dim() - 1);
  shape[batch_dim] = rows1;
  shape[batch_dim + 1] = rows2;
  int32_t sizes[kMaxTensorRank];
  if (batch_dim + 2 > kMaxTensorRank || !ToTensorSizes(batch_dim + 2, shape, sizes)) {
    args.Fail(Error::kInvalidArgument, "result too large");
    return;
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(batch_dim + 2)}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  StridedView ov = StridedView::Of(*out);
  ov.dim -= 2;
  const StridedView* const views[3] = {&b1, &b2, &ov};
  const StridedLoop<3> batches = BroadcastLoop<3>(batch_dim, shape, views);
  const int d1 = x1->dim(), d2 = x2->dim(), d0 = out->dim();
  SwitchFloating(x1->dtype(), [&](auto tag) {
    using T = decltype(tag);
    ForEachOffset(batches, [&](const int64_t* o) {
      const T* a = x1->data_as<const T>() + o[0];
      const T* b = x2->data_as<const T>() + o[1];
      T* y = out->data_as<T>() + o[2];
      for (int64_t i = 0; i < rows1; ++i) {
        for (int64_t j = 0; j < rows2; ++j) {
          y[i * out->stride(d0 - 2) + j * out->stride(d0 - 1)] =
              static_cast<T>(Distance(a + i * x1->stride(d1 - 2), x1->stride(d1 - 1),
                                      b + j * x2->stride(d2 - 2), x2->stride(d2 - 1), m, p));
        }
      }
    });
  });
}

void PdistForwardOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_pdist_forward.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  const double p = args.GetDouble(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok() || !CheckP(args, p)) return;
  if (in->dim() != 2 || !IsBasicFloating(in->dtype()) || out->dtype() != in->dtype()) {
    args.Fail(Error::kInvalidArgument, "needs a floating 2-D input and an out of its dtype");
    return;
  }
  const int64_t n = in->size(0), m = in->size(1);
  const int64_t count = n * (n - 1) / 2;
  if (count > INT32_MAX) {
    args.Fail(Error::kInvalidArgument, "too many pairs");
    return;
  }
  const int32_t size[1] = {static_cast<int32_t>(count)};
  if (!args.ResizeOut(*out, size, "out") || count == 0) return;
  SwitchFloating(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in->data_as<const T>();
    T* y = out->data_as<T>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) {
        y[(k++) * out->stride(0)] = static_cast<T>(Distance(
            x + i * in->stride(0), in->stride(1), x + j * in->stride(0), in->stride(1), m, p));
      }
    }
  });
}

}  // namespace portable
}  // namespace edgefleet
