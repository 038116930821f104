// Concatenation along one dim (aten::cat.out). As in PyTorch, 1-D inputs of
// size [0] are skipped whatever their rank relative to the others (the
// legacy empty-tensor rule). Inputs are promoted to out's dtype.

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

bool IsLegacyEmpty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

}  // namespace

void CatOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::cat.out", raw, 4);
  Span<Tensor* const> tensors = args.GetTensorList(0);
  const int64_t dim = args.GetInt(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (tensors.empty()) {
    args.Fail(Error::kInvalidArgument, "needs at least one tensor");
    return;
  }
  // The first non-skipped tensor fixes the rank and the other sizes.
  const Tensor* ref = nullptr;
  for (const Tensor* t : tensors) {
    if (!IsLegacyEmpty(*t)) {
      ref = t;
      break;
    }
  }
  if (ref == nullptr) {
    const int32_t empty[1] = {0};
    args.ResizeOut(*out, empty, "out");
    return;
  }
  int d = 0;
  if (ref->dim() == 0 || !NormalizeDim(dim, ref->dim(), &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), ref->dim());
    return;
  }
  int64_t total = 0;
  ScalarType common = ref->dtype();
  for (const Tensor* t : tensors) {
    if (t == out) {
      args.Fail(Error::kInvalidArgument, "out is also an input");
      return;
    }
    if (IsLegacyEmpty(*t)) continue;
    bool match = t->dim() == ref->dim();
    for (int i = 0; match && i < ref->dim(); ++i) {
      match = i == d || t->size(i) == ref->size(i);
    }
    if (!match) {
      args.Fail(Error::kInvalidArgument, "shape %s does not match %s",
                FormatSizes(StridedView::Of(*t)).text, FormatSizes(StridedView::Of(*ref)).text);
      return;
    }
    if (!IsElementType(t->dtype()) && t->dtype() != out->dtype()) {
      args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(t->dtype()));
      return;
    }
    if (IsElementType(t->dtype()) && IsElementType(common)) {
      common = PromoteTypes(common, t->dtype());
    }
    total += t->size(d);
  }
  if (IsElementType(common) && IsElementType(out->dtype()) && !CanCast(common, out->dtype())) {
    args.Fail(Error::kInvalidArgument,
              "result type %s can't be cast to the "
              "output dtype %s",
              ScalarTypeName(common), ScalarTypeName(out->dtype()));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  for (int i = 0; i < ref->dim(); ++i) sizes[i] = ref->size(i);
  if (total > INT32_MAX) {
    args.Fail(Error::kInvalidArgument, "output size out of range");
    return;
  }
  sizes[d] = static_cast<int32_t>(total);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(ref->dim())}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  int64_t start = 0;
  for (const Tensor* t : tensors) {
    if (IsLegacyEmpty(*t)) continue;
    StridedView dst = StridedView::Of(*out);
    dst.Narrow(d, start, t->size(d));
    if (!CopyView(StridedView::Of(*t), dst)) {
      args.Fail(Error::kNotSupported, "cannot convert %s to %s", ScalarTypeName(t->dtype()),
                ScalarTypeName(out->dtype()));
      return;
    }
    start += t->size(d);
  }
}

}  // namespace portable
}  // namespace edgefleet
