#include "runtime/kernels/portable/view_shape.h"

#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {

bool InferViewShape(KernelArgs& args, Span<const int64_t> size, int64_t numel, int64_t* out) {
  if (size.size() > static_cast<size_t>(kMaxTensorRank)) {
    args.Fail(Error::kInvalidArgument, "view rank %zu is too high", size.size());
    return false;
  }
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < size.size(); ++i) {
    out[i] = size[i];
    if (size[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (size[i] < 0 || size[i] > INT32_MAX) {
      args.Fail(Error::kInvalidArgument, "invalid view size %lld", static_cast<long long>(size[i]));
      return false;
    } else if (__builtin_mul_overflow(known, size[i], &known)) {
      args.Fail(Error::kInvalidArgument, "view shape overflows");
      return false;
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) {
      args.Fail(Error::kInvalidArgument, "cannot view %lld elements as %s",
                static_cast<long long>(numel),
                FormatSizes(static_cast<int>(size.size()), out).text);
      return false;
    }
    out[infer] = numel / known;
    known = numel;
  }
  if (known != numel) {
    args.Fail(Error::kInvalidArgument, "cannot view %lld elements as %s",
              static_cast<long long>(numel), FormatSizes(static_cast<int>(size.size()), out).text);
    return false;
  }
  return true;
}

}  // namespace portable
}  // namespace edgefleet
