// aten::index.Tensor_out: PyTorch advanced indexing, self[indices]; and
// aten::index_put.out / index_put_: self with self[indices] = values (or
// += values with accumulate), values broadcast to self[indices]'s shape.
//
// `indices` lists one optional tensor per leading dim of self (missing
// trailing entries and None mean a full slice). An int64/int32 tensor
// indexes one dim (negative values wrap); a bool (or uint8) mask indexes as
// many dims as it has, with its true positions in row-major order (their
// coordinates are gathered in the kernel's temp memory). All index tensors
// broadcast to one shape B. If the indexed dims are adjacent, B takes their
// place in the output; otherwise B comes first, followed by the remaining
// dims (torch's rule). Any dim order on every tensor.

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// One indexed dim of self and where its index values come from.
struct IndexSource {
  int self_dim;
  StridedView values;  // integer elements, broadcast against B
};

bool IsMask(ScalarType t) { return t == ScalarType::kBool || t == ScalarType::kByte; }

// Row-major multi-index of `flat` in `sizes`; returns the element offset
// for `strides`.
int64_t OffsetOf(int64_t flat, int dim, const int64_t* sizes, const int64_t* strides,
                 int64_t* index) {
  int64_t offset = 0;
  for (int d = dim - 1; d >= 0; --d) {
    index[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
    offset += index[d] * strides[d];
  }
  return offset;
}

// Appends one IndexSource per dim of `mask` (which covers self dims
// [first, first + mask.dim())), holding the coordinates of its true
// elements in temp memory. Returns false after failing args.
bool ExpandMask(KernelArgs& args, const Tensor& self, const Tensor& mask, int first,
                IndexSource* sources, int* count) {
  const StridedView m = StridedView::Of(mask);
  for (int d = 0; d < m.dim; ++d) {
    if (m.sizes[d] != self.size(first + d)) {
      args.Fail(Error::kInvalidArgument,
                "mask %s does not match self's dim "
                "%d",
                FormatSizes(m).text, first + d);
      return false;
    }
  }
  const int64_t numel = m.numel();
  int64_t index[kMaxTensorRank];
  int64_t trues = 0;
  for (int64_t f = 0; f < numel; ++f) {
    trues += m.data[OffsetOf(f, m.dim, m.sizes, m.strides, index)] != 0;
  }
  int64_t* coords = static_cast<int64_t*>(args.context().AllocateTemp(
      sizeof(int64_t) * static_cast<size_t>(trues * m.dim + 1), alignof(int64_t)));
  if (coords == nullptr) {
    args.Fail(Error::kMemoryAllocationFailed, "no temp memory for %lld mask coordinates",
              static_cast<long long>(trues * m.dim));
    return false;
  }
  int64_t n = 0;
  for (int64_t f = 0; f < numel; ++f) {
    if (m.data[OffsetOf(f, m.dim, m.sizes, m.strides, index)] == 0) continue;
    for (int d = 0; d < m.dim; ++d) coords[d * trues + n] = index[d];
    ++n;
  }
  for (int d = 0; d < m.dim; ++d) {
    IndexSource& s = sources[(*count)++];
    s.self_dim = first + d;
    s.values = StridedView();
    s.values.data = reinterpret_cast<char*>(coords + d * trues);
    s.values.dtype = ScalarType::kLong;
    s.values.dim = 1;
    s.values.sizes[0] = trues;
    s.values.strides[0] = 1;
  }
  return true;
}

// Where the index values put their result: the indexed dims, the
// broadcast index shape B and the shape R of self[indices].
struct IndexPlan {
  IndexSource sources[kMaxTensorRank];
  int num_sources = 0;
  bool indexed[kMaxTensorRank] = {};
  StridedView b;  // B (sizes only)
  int b_at = 0;   // where B sits in R's dims
  int out_dim = 0;
  int64_t out_sizes[kMaxTensorRank] = {};  // R
};

// Plans self[indices]; `out` must not be an index. Returns false after
// failing args.
bool PlanIndex(KernelArgs& args, const Tensor& self, Span<Tensor* const> indices, const Tensor* out,
               IndexPlan* plan) {
  int covered = 0;  // self dims consumed by the list so far
  for (const Tensor* t : indices) {
    const int span = t != nullptr && IsMask(t->dtype()) ? t->dim() : 1;
    if (covered + span > self.dim()) {
      args.Fail(Error::kInvalidArgument,
                "too many indices for a rank %d "
                "tensor",
                self.dim());
      return false;
    }
    if (t == nullptr) {
      ++covered;
      continue;
    }
    if (t == out) {
      args.Fail(Error::kInvalidArgument, "out is also an index");
      return false;
    }
    if (IsMask(t->dtype())) {
      if (!ExpandMask(args, self, *t, covered, plan->sources, &plan->num_sources)) {
        return false;
      }
    } else if (t->dtype() == ScalarType::kLong || t->dtype() == ScalarType::kInt) {
      plan->sources[plan->num_sources++] = {covered, StridedView::Of(*t)};
    } else {
      args.Fail(Error::kInvalidArgument,
                "indices must be int64, int32 or "
                "bool tensors, got %s",
                ScalarTypeName(t->dtype()));
      return false;
    }
    covered += span;
  }
  const int num_sources = plan->num_sources;
  if (num_sources == 0) {
    args.Fail(Error::kNotSupported, "needs at least one index tensor");
    return false;
  }
  StridedView& b = plan->b;
  b = plan->sources[0].values;
  for (int k = 1; k < num_sources; ++k) {
    StridedView next;
    if (!BroadcastShapes(b, plan->sources[k].values, &next.dim, next.sizes)) {
      args.Fail(Error::kInvalidArgument,
                "index shapes %s and %s do not "
                "broadcast",
                FormatSizes(b).text, FormatSizes(plan->sources[k].values).text);
      return false;
    }
    b = next;
  }
  for (int k = 0; k < num_sources; ++k) {
    plan->indexed[plan->sources[k].self_dim] = true;
  }
  const int first = plan->sources[0].self_dim;
  const int last = plan->sources[num_sources - 1].self_dim;
  const bool adjacent = last - first + 1 == num_sources;
  plan->b_at = adjacent ? first : 0;
  plan->out_dim = b.dim + self.dim() - num_sources;
  if (plan->out_dim > kMaxTensorRank) {
    args.Fail(Error::kInvalidArgument, "result rank %d is too high", plan->out_dim);
    return false;
  }
  int o = adjacent ? 0 : b.dim;
  for (int d = 0; d < self.dim(); ++d) {
    if (adjacent && d == first) o += b.dim;
    if (plan->indexed[d]) continue;
    plan->out_sizes[o++] = self.size(d);
  }
  for (int d = 0; d < b.dim; ++d) plan->out_sizes[plan->b_at + d] = b.sizes[d];
  return true;
}

// `t` (self's shape) without the indexed dims.
StridedView RestView(const Tensor& t, const IndexPlan& plan) {
  StridedView rest = StridedView::Of(t);
  rest.dim = 0;
  for (int d = 0; d < t.dim(); ++d) {
    if (plan.indexed[d]) continue;
    rest.sizes[rest.dim] = t.size(d);
    rest.strides[rest.dim++] = t.stride(d);
  }
  return rest;
}

// The element offset in self (strides of `t`, self's shape) that the index
// values select at B position `index`. Returns false after failing args.
bool IndexedOffset(KernelArgs& args, const Tensor& t, const IndexPlan& plan, const int64_t* index,
                   int64_t* offset) {
  *offset = 0;
  for (int k = 0; k < plan.num_sources; ++k) {
    const StridedView& v = plan.sources[k].values;
    int64_t at = 0;  // v's element for index (right-aligned broadcast)
    for (int d = 0; d < v.dim; ++d) {
      if (v.sizes[d] != 1) at += index[plan.b.dim - v.dim + d] * v.strides[d];
    }
    const int64_t value =
        GetLoader<int64_t>(v.dtype)(v.data + at * static_cast<int64_t>(ElementSize(v.dtype)));
    const int self_dim = plan.sources[k].self_dim;
    const int64_t size = t.size(self_dim);
    if (value < -size || value >= size) {
      args.Fail(Error::kInvalidArgument,
                "index %lld is out of bounds for "
                "dim %d of size %lld",
                static_cast<long long>(value), self_dim, static_cast<long long>(size));
      return false;
    }
    *offset += (value < 0 ? value + size : value) * t.stride(self_dim);
  }
  return true;
}

// out = self with out[indices] = values (or += when accumulating). values
// broadcast to the shape of self[indices].
void IndexPut(KernelArgs& args, Tensor& self, Span<Tensor* const> indices, const Tensor& values,
              bool accumulate, Tensor& out) {
  if (self.dtype() != out.dtype() || values.dtype() != self.dtype() ||
      !IsElementType(self.dtype())) {
    args.Fail(Error::kInvalidArgument,
              "self %s, values %s and out %s dtypes "
              "differ",
              ScalarTypeName(self.dtype()), ScalarTypeName(values.dtype()),
              ScalarTypeName(out.dtype()));
    return;
  }
  if (&values == &out) {
    args.Fail(Error::kInvalidArgument, "out is also values");
    return;
  }
  IndexPlan plan;
  if (!PlanIndex(args, self, indices, &out, &plan)) return;
  // values broadcast to R, then viewed per B position.
  const StridedView v = StridedView::Of(values);
  bool fits = v.dim <= plan.out_dim;
  StridedView vr = v;
  vr.dim = plan.out_dim;
  for (int d = 0; fits && d < plan.out_dim; ++d) {
    const int vd = d - (plan.out_dim - v.dim);
    const int64_t size = vd < 0 ? 1 : v.sizes[vd];
    fits = size == 1 || size == plan.out_sizes[d];
    vr.sizes[d] = plan.out_sizes[d];
    vr.strides[d] = vd < 0 || size == 1 ? 0 : v.strides[vd];
  }
  if (!fits) {
    args.Fail(Error::kInvalidArgument, "values %s do not broadcast to the indexed shape %s",
              FormatSizes(v).text, FormatSizes(plan.out_dim, plan.out_sizes).text);
    return;
  }
  if (!args.ResizeOut(out, self.sizes(), "out")) return;
  if (&out != &self && out.numel() > 0) {
    CopyView(StridedView::Of(self), StridedView::Of(out));
  }
  const StridedView rest = RestView(out, plan);
  const int64_t elem = static_cast<int64_t>(ElementSize(out.dtype()));
  const int64_t b_numel = plan.b.numel();
  int64_t index[kMaxTensorRank];
  for (int64_t f = 0; f < b_numel && rest.numel() > 0; ++f) {
    OffsetOf(f, plan.b.dim, plan.b.sizes, plan.b.strides, index);
    int64_t offset = 0;
    if (!IndexedOffset(args, out, plan, index, &offset)) return;
    StridedView dst = rest;
    dst.data += offset * elem;
    StridedView src = vr;
    for (int d = plan.b.dim - 1; d >= 0; --d) {
      src.Select(plan.b_at + d, index[d]);
    }
    if (!accumulate) {
      CopyView(src, dst);
      continue;
    }
    SwitchAll(ComputeType(out.dtype()), [&](auto tag) {
      using T = decltype(tag);
      BinaryLoop<T>(dst, src, dst, [](T a, T b) {
        if constexpr (std::is_same_v<T, bool>) {
          return a || b;
        } else {
          return WrapAdd(a, b);
        }
      });
    });
  }
}

}  // namespace

void IndexTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::index.Tensor_out", raw, 4);
  Tensor* self = args.GetTensor(0);
  Span<Tensor* const> indices = args.GetOptionalTensorList(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (self->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(self->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  IndexPlan plan;
  if (!PlanIndex(args, *self, indices, out, &plan)) return;
  int32_t sizes[kMaxTensorRank];
  if (!ToTensorSizes(plan.out_dim, plan.out_sizes, sizes)) {
    args.Fail(Error::kInvalidArgument, "output size out of range");
    return;
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(plan.out_dim)}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  // For each position in B: gather the source offset, copy the rest.
  const StridedView rest = RestView(*self, plan);
  const int64_t elem = static_cast<int64_t>(ElementSize(self->dtype()));
  const int64_t b_numel = plan.b.numel();
  int64_t index[kMaxTensorRank];
  for (int64_t f = 0; f < b_numel; ++f) {
    OffsetOf(f, plan.b.dim, plan.b.sizes, plan.b.strides, index);
    int64_t offset = 0;
    if (!IndexedOffset(args, *self, plan, index, &offset)) return;
    StridedView src = rest;
    src.data += offset * elem;
    StridedView dst = StridedView::Of(*out);
    for (int d = plan.b.dim - 1; d >= 0; --d) {
      dst.Select(plan.b_at + d, index[d]);
    }
    CopyView(src, dst);
  }
}

void IndexPutOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::index_put.out", raw, 6);
  Tensor* self = args.GetTensor(0);
  Span<Tensor* const> indices = args.GetOptionalTensorList(1);
  Tensor* values = args.GetTensor(2);
  const bool accumulate = args.GetBool(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  IndexPut(args, *self, indices, *values, accumulate, *out);
}

// In place: self, indices, values, accumulate, ret.
void IndexPutInPlace(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::index_put_", raw, 5);
  Tensor* self = args.GetTensor(0);
  Span<Tensor* const> indices = args.GetOptionalTensorList(1);
  Tensor* values = args.GetTensor(2);
  const bool accumulate = args.GetBool(3);
  if (!args.ok()) return;
  IndexPut(args, *self, indices, *values, accumulate, *self);
}

}  // namespace portable
}  // namespace edgefleet
