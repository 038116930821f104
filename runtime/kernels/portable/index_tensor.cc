// aten::index.Tensor_out: PyTorch advanced indexing, self[indices].
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

bool IsMask(ScalarType t) {
  return t == ScalarType::kBool || t == ScalarType::kByte;
}

// Row-major multi-index of `flat` in `sizes`; returns the element offset
// for `strides`.
int64_t OffsetOf(int64_t flat, int dim, const int64_t* sizes,
                 const int64_t* strides, int64_t* index) {
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
bool ExpandMask(KernelArgs& args, const Tensor& self, const Tensor& mask,
                int first, IndexSource* sources, int* count) {
  const StridedView m = StridedView::Of(mask);
  for (int d = 0; d < m.dim; ++d) {
    if (m.sizes[d] != self.size(first + d)) {
      args.Fail(Error::kInvalidArgument, "mask %s does not match self's dim "
                "%d", FormatSizes(m).text, first + d);
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
      sizeof(int64_t) * static_cast<size_t>(trues * m.dim + 1),
      alignof(int64_t)));
  if (coords == nullptr) {
    args.Fail(Error::kMemoryAllocationFailed,
              "no temp memory for %lld mask coordinates",
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
  // The indexed dims and their value sources, in self's dim order.
  IndexSource sources[kMaxTensorRank];
  int num_sources = 0;
  int covered = 0;  // self dims consumed by the list so far
  for (const Tensor* t : indices) {
    const int span = t != nullptr && IsMask(t->dtype()) ? t->dim() : 1;
    if (covered + span > self->dim()) {
      args.Fail(Error::kInvalidArgument, "too many indices for a rank %d "
                "tensor", self->dim());
      return;
    }
    if (t == nullptr) {
      ++covered;
      continue;
    }
    if (t == out) {
      args.Fail(Error::kInvalidArgument, "out is also an index");
      return;
    }
    if (IsMask(t->dtype())) {
      if (!ExpandMask(args, *self, *t, covered, sources, &num_sources)) return;
    } else if (t->dtype() == ScalarType::kLong ||
               t->dtype() == ScalarType::kInt) {
      sources[num_sources++] = {covered, StridedView::Of(*t)};
    } else {
      args.Fail(Error::kInvalidArgument, "indices must be int64, int32 or "
                "bool tensors, got %s", ScalarTypeName(t->dtype()));
      return;
    }
    covered += span;
  }
  if (num_sources == 0) {
    args.Fail(Error::kNotSupported, "needs at least one index tensor");
    return;
  }
  // B: the broadcast shape of the index values.
  StridedView b = sources[0].values;
  for (int k = 1; k < num_sources; ++k) {
    StridedView next;
    if (!BroadcastShapes(b, sources[k].values, &next.dim, next.sizes)) {
      args.Fail(Error::kInvalidArgument, "index shapes %s and %s do not "
                "broadcast", FormatSizes(b).text,
                FormatSizes(sources[k].values).text);
      return;
    }
    b = next;
  }
  bool indexed[kMaxTensorRank] = {};
  for (int k = 0; k < num_sources; ++k) indexed[sources[k].self_dim] = true;
  const int first = sources[0].self_dim;
  const int last = sources[num_sources - 1].self_dim;
  const bool adjacent = last - first + 1 == num_sources;
  const int b_at = adjacent ? first : 0;  // where B sits in out's dims
  const int out_dim = b.dim + self->dim() - num_sources;
  if (out_dim > kMaxTensorRank) {
    args.Fail(Error::kInvalidArgument, "result rank %d is too high", out_dim);
    return;
  }
  int64_t out_sizes[kMaxTensorRank];
  StridedView rest = StridedView::Of(*self);  // self without indexed dims
  rest.dim = 0;
  int o = adjacent ? 0 : b.dim;
  for (int d = 0; d < self->dim(); ++d) {
    if (adjacent && d == first) o += b.dim;
    if (indexed[d]) continue;
    out_sizes[o++] = self->size(d);
    rest.sizes[rest.dim] = self->size(d);
    rest.strides[rest.dim++] = self->stride(d);
  }
  for (int d = 0; d < b.dim; ++d) out_sizes[b_at + d] = b.sizes[d];
  int32_t sizes[kMaxTensorRank];
  if (!ToTensorSizes(out_dim, out_sizes, sizes)) {
    args.Fail(Error::kInvalidArgument, "output size out of range");
    return;
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(out_dim)}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  // For each position in B: gather the source offset, copy the rest.
  const int64_t elem = static_cast<int64_t>(ElementSize(self->dtype()));
  const int64_t b_numel = b.numel();
  int64_t index[kMaxTensorRank];
  for (int64_t f = 0; f < b_numel; ++f) {
    OffsetOf(f, b.dim, b.sizes, b.strides, index);
    int64_t offset = 0;
    for (int k = 0; k < num_sources; ++k) {
      const StridedView& v = sources[k].values;
      int64_t at = 0;  // v's element for index (right-aligned broadcast)
      for (int d = 0; d < v.dim; ++d) {
        if (v.sizes[d] != 1) at += index[b.dim - v.dim + d] * v.strides[d];
      }
      const int64_t value = GetLoader<int64_t>(v.dtype)(
          v.data + at * static_cast<int64_t>(ElementSize(v.dtype)));
      const int64_t size = self->size(sources[k].self_dim);
      if (value < -size || value >= size) {
        args.Fail(Error::kInvalidArgument, "index %lld is out of bounds for "
                  "dim %d of size %lld", static_cast<long long>(value),
                  sources[k].self_dim, static_cast<long long>(size));
        return;
      }
      offset += (value < 0 ? value + size : value) *
                self->stride(sources[k].self_dim);
    }
    StridedView src = rest;
    src.data += offset * elem;
    StridedView dst = StridedView::Of(*out);
    for (int d = b.dim - 1; d >= 0; --d) dst.Select(b_at + d, index[d]);
    CopyView(src, dst);
  }
}

}  // namespace portable
}  // namespace edgefleet
