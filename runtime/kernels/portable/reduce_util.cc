#include "runtime/kernels/portable/reduce_util.h"

namespace edgefleet {
namespace portable {

bool PlanReduction(KernelArgs& args, const Tensor& in, Span<const int64_t> dims, bool all,
                   bool keepdim, Tensor& out, ReducePlan* plan) {
  bool reduce[kMaxTensorRank] = {};
  for (int64_t dim : dims) {
    int d = 0;
    if (!NormalizeDim(dim, in.dim(), &d)) {
      args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
                static_cast<long long>(dim), in.dim());
      return false;
    }
    if (in.dim() > 0 && reduce[d]) {
      args.Fail(Error::kInvalidArgument, "dim %d appears twice", d);
      return false;
    }
    reduce[d] = true;
  }
  int32_t sizes[kMaxTensorRank];
  int out_dim = 0;
  int kept_dims[kMaxTensorRank];
  int num_kept = 0;
  *plan = ReducePlan();
  for (int d = 0; d < in.dim(); ++d) {
    if (all || reduce[d]) {
      StridedLoop<1>& r = plan->reduced;
      r.sizes[r.dim] = in.size(d);
      r.strides[0][r.dim++] = in.stride(d);
      plan->count *= in.size(d);
      if (keepdim) sizes[out_dim++] = 1;
    } else {
      kept_dims[num_kept++] = d;
      sizes[out_dim++] = in.size(d);
    }
  }
  if (!args.ResizeOut(out, {sizes, static_cast<size_t>(out_dim)}, "out")) {
    return false;
  }
  StridedLoop<2>& kept = plan->kept;
  for (int i = 0; i < num_kept; ++i) {
    const int d = kept_dims[i];
    kept.sizes[i] = in.size(d);
    kept.strides[0][i] = in.stride(d);
    kept.strides[1][i] = out.stride(keepdim ? d : i);
  }
  kept.dim = num_kept;
  plan->reduced.Coalesce();
  return true;
}

}  // namespace portable
}  // namespace edgefleet
