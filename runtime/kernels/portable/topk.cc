// aten::topk.values: the k largest (or smallest) elements along a dim and
// their int64 indices; aten::sort.values: every element along the dim,
// ascending or descending, with its index. NaN ranks above every number, as
// in PyTorch. sort keeps ties in index order (torch's CPU sort is stable).
// topk picks and orders tied elements as PyTorch's CPU kernel (and the real
// runtime's portable one) do: the same standard-library selection on the
// same comparison of values alone, std::partial_sort when k * 64 <= n, else
// std::nth_element and, when sorted, std::sort of the first k - 1; so on
// ties its indices are neither stable nor arbitrary but torch's. Scratch:
// one int64 per element of the dim, from the kernel's temp allocator.

#include <algorithm>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {

namespace {

// The first k of in's elements along dim_arg in `largest` order (k < 0:
// all of them, stably sorted; else torch's topk selection, the first k - 1
// sorted only if `sorted`) into values and indices. Fails through args.
void SelectSorted(KernelContext& ctx, KernelArgs& args, Tensor* in, int64_t k, int64_t dim_arg,
                  bool largest, bool sorted, Tensor* values, Tensor* indices) {
  if (!IsElementType(in->dtype()) || in->dtype() == ScalarType::kBool ||
      values->dtype() != in->dtype() || indices->dtype() != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument,
              "needs a numeric input, values of its dtype and int64 indices "
              "(got %s, %s, %s)",
              ScalarTypeName(in->dtype()), ScalarTypeName(values->dtype()),
              ScalarTypeName(indices->dtype()));
    return;
  }
  int dim = 0;
  if (!NormalizeDim(dim_arg, in->dim(), &dim)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim_arg), in->dim());
    return;
  }
  const int64_t n = in->dim() == 0 ? 1 : in->size(dim);
  const bool all = k < 0;
  if (all) k = n;
  if (k > n) {
    args.Fail(Error::kInvalidArgument,
              "k (%lld) out of range for a dim of "
              "size %lld",
              static_cast<long long>(k), static_cast<long long>(n));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d < in->dim(); ++d) sizes[d] = in->size(d);
  if (in->dim() > 0) sizes[dim] = static_cast<int32_t>(k);
  const Span<const int32_t> out_sizes{sizes, static_cast<size_t>(in->dim())};
  if (!args.ResizeOut(*values, out_sizes, "values") ||
      !args.ResizeOut(*indices, out_sizes, "indices")) {
    return;
  }
  if (values->numel() == 0) return;
  int64_t* order =
      static_cast<int64_t*>(ctx.AllocateTemp(static_cast<size_t>(n) * sizeof(int64_t)));
  if (order == nullptr) {
    args.Fail(Error::kMemoryAllocationFailed, "no temp memory for %lld indices",
              static_cast<long long>(n));
    return;
  }
  StridedView iv = StridedView::Of(*in);
  StridedView vv = StridedView::Of(*values);
  StridedView xv = StridedView::Of(*indices);
  int64_t in_step = 0, v_step = 0, x_step = 0;
  if (in->dim() > 0) {
    in_step = iv.strides[dim];
    v_step = vv.strides[dim];
    x_step = xv.strides[dim];
    iv.Select(dim, 0);
    vv.Select(dim, 0);
    xv.Select(dim, 0);
  }
  const StridedView* const views[3] = {&iv, &vv, &xv};
  const StridedLoop<3> rows = BroadcastLoop<3>(iv.dim, iv.sizes, views);
  SwitchRealElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;  // float16 and bfloat16 compare as float32
    const S* x = reinterpret_cast<const S*>(iv.data);
    S* y = reinterpret_cast<S*>(vv.data);
    int64_t* yi = reinterpret_cast<int64_t*>(xv.data);
    ForEachOffset(rows, [&](const int64_t* o) {
      const S* row = x + o[0];
      // a's value ranks before b's: NaN first for largest (last for
      // smallest); PyTorch's topk comparison (no tie-break).
      const auto ranks = [&](int64_t a, int64_t b) {
        const T va = Convert<T>(row[a * in_step]);
        const T vb = Convert<T>(row[b * in_step]);
        return largest ? (IsNan(va) && !IsNan(vb)) || va > vb
                       : (!IsNan(va) && IsNan(vb)) || va < vb;
      };
      // ... and ties, NaN with NaN included, in index order.
      const auto before = [&](int64_t a, int64_t b) {
        return ranks(a, b) || (!ranks(b, a) && a < b);
      };
      for (int64_t i = 0; i < n; ++i) order[i] = i;
      if (all) {
        std::sort(order, order + n, before);  // `before` breaks ties: stable
      } else if (k * 64 <= n) {
        std::partial_sort(order, order + k, order + n, ranks);
      } else if (k > 0) {
        std::nth_element(order, order + k - 1, order + n, ranks);
        if (sorted) std::sort(order, order + k - 1, ranks);
      }
      for (int64_t i = 0; i < k; ++i) {
        y[o[1] + i * v_step] = row[order[i] * in_step];
        yi[o[2] + i * x_step] = order[i];
      }
    });
  });
}

}  // namespace

void TopkValues(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::topk.values", raw, 8);
  Tensor* in = args.GetTensor(0);
  const int64_t k = args.GetInt(1);
  const int64_t dim_arg = args.GetInt(2);
  const bool largest = args.GetBool(3);
  const bool sorted = args.GetBool(4);
  Tensor* values = args.GetTensor(5);
  Tensor* indices = args.GetTensor(6);
  if (!args.ok()) return;
  if (k < 0) {
    args.Fail(Error::kInvalidArgument, "k (%lld) must not be negative", static_cast<long long>(k));
    return;
  }
  SelectSorted(ctx, args, in, k, dim_arg, largest, sorted, values, indices);
}

void SortValues(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::sort.values", raw, 6);
  Tensor* in = args.GetTensor(0);
  const int64_t dim_arg = args.GetInt(1);
  const bool descending = args.GetBool(2);
  Tensor* values = args.GetTensor(3);
  Tensor* indices = args.GetTensor(4);
  if (!args.ok()) return;
  SelectSorted(ctx, args, in, -1, dim_arg, descending, true, values, indices);
}

}  // namespace portable
}  // namespace edgefleet
