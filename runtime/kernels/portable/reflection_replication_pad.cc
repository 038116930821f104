// aten::reflection_pad{1,2,3}d.out and replication_pad{1,2,3}d.out: pad
// the last N dims (padding lists (left, right) pairs from the last dim
// backwards) by mirroring without repeating the edge (reflection; each pad
// must be smaller than its dim) or by repeating the edge (replication; the
// dim must not be empty). The input has rank N + 1 or N + 2. Any dtype.

#include <cstring>

#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// The source index along a dim of size n for output index i - left.
int64_t SourceIndex(int64_t i, int64_t n, bool reflect) {
  if (reflect) {
    if (i < 0) return -i;
    if (i >= n) return 2 * (n - 1) - i;
    return i;
  }
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

void PadKernel(KernelContext& ctx, Span<EValue*> raw, const char* name, int n, bool reflect) {
  KernelArgs args(ctx, name, raw, 4);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> padding = args.GetIntList(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (padding.size() != static_cast<size_t>(2 * n) || (in->dim() != n + 1 && in->dim() != n + 2)) {
    args.Fail(Error::kInvalidArgument,
              "expects %d padding values and an input of rank %d or %d (got "
              "%zu, rank %d)",
              2 * n, n + 1, n + 2, padding.size(), in->dim());
    return;
  }
  if (in->dtype() != out->dtype() || in == out) {
    args.Fail(Error::kInvalidArgument, "out must be a distinct tensor of the input's dtype");
    return;
  }
  const int first = in->dim() - n;  // the first padded dim
  int64_t left[kMaxTensorRank] = {};
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d < in->dim(); ++d) sizes[d] = in->size(d);
  for (int k = 0; k < n; ++k) {
    const int d = in->dim() - 1 - k;
    const int64_t lo = padding[2 * k], hi = padding[2 * k + 1];
    const int64_t size = in->size(d);
    const bool valid =
        reflect ? lo < size && hi < size && lo >= 0 && hi >= 0 : size > 0 && lo >= 0 && hi >= 0;
    const int64_t padded = size + lo + hi;
    if (!valid || padded > INT32_MAX) {
      args.Fail(
          Error::kInvalidArgument, "padding (%lld, %lld) is invalid for dim %d of size %lld (%s)",
          static_cast<long long>(lo), static_cast<long long>(hi), d, static_cast<long long>(size),
          reflect ? "each pad must be in [0, size)" : "pads must be >= 0 and the dim non-empty");
      return;
    }
    left[d] = lo;
    sizes[d] = static_cast<int32_t>(padded);
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(in->dim())}, "out")) {
    return;
  }
  const int64_t numel = out->numel();
  const size_t elem = ElementSize(in->dtype());
  const char* src = in->data_as<const char>();
  char* dst = out->data_as<char>();
  for (int64_t flat = 0; flat < numel; ++flat) {
    int64_t rest = flat, in_offset = 0, out_offset = 0;
    for (int d = out->dim() - 1; d >= 0; --d) {
      const int64_t i = rest % out->size(d);
      rest /= out->size(d);
      out_offset += i * out->stride(d);
      const int64_t j = d >= first ? SourceIndex(i - left[d], in->size(d), reflect) : i;
      in_offset += j * in->stride(d);
    }
    std::memcpy(dst + out_offset * static_cast<int64_t>(elem),
                src + in_offset * static_cast<int64_t>(elem), elem);
  }
}

}  // namespace

void ReflectionPad1dOut(KernelContext& ctx, Span<EValue*> args) {
  PadKernel(ctx, args, "aten::reflection_pad1d.out", 1, true);
}
void ReflectionPad2dOut(KernelContext& ctx, Span<EValue*> args) {
  PadKernel(ctx, args, "aten::reflection_pad2d.out", 2, true);
}
void ReflectionPad3dOut(KernelContext& ctx, Span<EValue*> args) {
  PadKernel(ctx, args, "aten::reflection_pad3d.out", 3, true);
}
void ReplicationPad1dOut(KernelContext& ctx, Span<EValue*> args) {
  PadKernel(ctx, args, "aten::replication_pad1d.out", 1, false);
}
void ReplicationPad2dOut(KernelContext& ctx, Span<EValue*> args) {
  PadKernel(ctx, args, "aten::replication_pad2d.out", 2, false);
}
void ReplicationPad3dOut(KernelContext& ctx, Span<EValue*> args) {
  PadKernel(ctx, args, "aten::replication_pad3d.out", 3, false);
}

}  // namespace portable
}  // namespace edgefleet
