// aten::cat.out over inputs of out's dtype, rank and dim order (any one:
// NCHW, channels-last, ...). In memory order the concatenation is one of
// rows: with the cat dim at position q of the dim order, out is `outer`
// rows (the product of the sizes before q), and out's row r is every
// input's row r in turn (an input's row: its size along the dim times the
// sizes after q). An NCHW image's channels are one row per input; a
// channels-last one's, one short row per pixel. Each row is one memcpy;
// the rows split over ctx's threads in ranges of about 64 KiB.

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr int64_t kMinParallelBytes = 64 * 1024;
// Most inputs the fast path takes (their offsets in a row live on the stack).
constexpr size_t kMaxInputs = 64;

// Argument 0's tensors, or an empty span when it is not a list of tensors.
Span<Tensor* const> Inputs(Span<EValue* const> args) {
  if (args.empty() || args[0]->tag() != Tag::kListTensor) return {};
  return args[0]->to_tensor_list().Get();
}

bool TryCat(Span<EValue*> args, int threads) {
  if (!CatSupports(args)) return false;
  const Span<Tensor* const> inputs = Inputs(args);
  Tensor& out = *PeekTensor(args, 2);
  const int rank = out.dim();
  int64_t dim = 0;
  if (!PeekInt(args, 1, &dim) || dim < -rank || dim >= rank) return false;
  const int d = static_cast<int>(dim < 0 ? dim + rank : dim);
  const Tensor& first = *inputs[0];
  int32_t sizes[kMaxTensorRank];
  int64_t total = 0;
  for (const Tensor* t : inputs) {
    for (int i = 0; i < rank; ++i) {
      if (i != d && t->size(i) != first.size(i)) return false;
    }
    total += t->size(d);
  }
  if (total > INT32_MAX) return false;
  for (int i = 0; i < rank; ++i) sizes[i] = i == d ? static_cast<int32_t>(total) : first.size(i);
  if (!FitOut(out, {sizes, static_cast<size_t>(rank)},
              {const_cast<const Tensor* const*>(inputs.data()), inputs.size()})) {
    return false;
  }
  if (out.numel() == 0) return true;
  int64_t outer = 1, inner = static_cast<int64_t>(ElementSize(out.dtype()));
  bool after = false;
  for (int q = 0; q < rank; ++q) {
    const int i = out.dim_order()[q];
    after = after || i == d;
    if (!after) {
      outer *= sizes[i];
    } else if (i != d) {
      inner *= sizes[i];
    }
  }
  const int64_t k = static_cast<int64_t>(inputs.size());
  int64_t offset[kMaxInputs + 1] = {0};  // input j's bytes in a row: [offset[j], offset[j + 1])
  for (int64_t j = 0; j < k; ++j) offset[j + 1] = offset[j] + inputs[j]->size(d) * inner;
  const int64_t row_bytes = offset[k];
  char* dst = out.data_as<char>();
  ParallelForRanges(outer * k, std::max<int64_t>(1, kMinParallelBytes * k / row_bytes), threads,
                    [&](int64_t t0, int64_t t1) {
                      for (int64_t t = t0; t < t1; ++t) {
                        const int64_t row = t / k, j = t % k;
                        const int64_t bytes = offset[j + 1] - offset[j];
                        if (bytes == 0) continue;
                        std::memcpy(dst + row * row_bytes + offset[j],
                                    inputs[j]->data_as<const char>() + row * bytes, bytes);
                      }
                    });
  return true;
}

}  // namespace

bool CatSupports(Span<EValue* const> args) {
  if (args.size() != 4) return false;
  const Span<Tensor* const> inputs = Inputs(args);
  const Tensor* out = PeekTensor(args, 2);
  if (inputs.empty() || inputs.size() > kMaxInputs || out == nullptr || out->dim() == 0) {
    return false;
  }
  const size_t e = ElementSize(out->dtype());
  if (e != 1 && e != 2 && e != 4 && e != 8) return false;
  for (const Tensor* t : inputs) {
    if (t == nullptr || t->dtype() != out->dtype() || t->dim() != out->dim() ||
        !SameDimOrder(*t, *out) || (t->numel() > 0 && t->data() == nullptr) || Overlaps(*t, *out)) {
      return false;
    }
  }
  return true;
}

void CatOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryCat(args, ctx.num_threads())) portable::CatOut(ctx, args);
}

}  // namespace optimized
}  // namespace edgefleet
