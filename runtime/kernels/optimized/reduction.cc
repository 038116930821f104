// aten::mean.out for float32 when either the reduced elements of each
// output form one contiguous run (H, W of NCHW) or the kept elements do (H,
// W of channels-last, or the sequence dim of [N, L, C]: float accumulators
// per channel). Every output is summed as the portable kernel sums it (and
// the real runtime's): in float32, from 0, in index order, then divided by
// the count in float32, so the bits are the same; the runs case interleaves
// several outputs' sums, the channels case vectorizes over channels. Large
// calls split the outputs (runs, or ranges of channels) over the kernels'
// threads; every output's sum order is the same at any thread count.

#include <algorithm>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace optimized {
namespace {

using portable::StridedLoop;

// Fewest outputs (channels) a range of a split mean holds.
constexpr int64_t kMinOutputs = 64;

// sums[j] = x[j * step + 0] + x[j * step + 1] + ... + x[j * step + count - 1]
// for j < n, each summed in float from 0 in index order. kLanes outputs at
// a time, so that their additions overlap: their runs are transposed
// kChunk elements at a time into a [kChunk][kLanes] tile (4 x 4 vector
// transposes), whose rows are then added lane by lane, so every lane keeps
// its output's order (a scalar loop over kLanes runs took twice as long:
// the squeeze-and-excitation means of EfficientNet-B0).
void SumRuns(const float* x, int64_t step, int64_t n, int64_t count, float* sums) {
  constexpr int kLanes = 16;
  constexpr int64_t kChunk = 64;
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    float s[kLanes] = {};
    alignas(64) float tile[kChunk * kLanes];
    int64_t i = 0;
    for (; i + kChunk <= count; i += kChunk) {
      for (int64_t a = 0; a < kChunk; a += 4) {
        for (int l = 0; l < kLanes; l += 4) {
          const float* r = x + (j + l) * step + i + a;
          Transpose4x4(r, r + step, r + 2 * step, r + 3 * step, tile + a * kLanes + l, kLanes);
        }
      }
      for (int64_t a = 0; a < kChunk; ++a) {
        for (int l = 0; l < kLanes; ++l) s[l] += tile[a * kLanes + l];
      }
    }
    for (; i < count; ++i) {
      for (int l = 0; l < kLanes; ++l) s[l] += x[(j + l) * step + i];
    }
    std::copy(s, s + kLanes, sums + j);
  }
  for (; j < n; ++j) {
    float s = 0;
    for (int64_t i = 0; i < count; ++i) s += x[j * step + i];
    sums[j] = s;
  }
}

// acc[c] += x[c] for c < n, in float.
template <int W>
struct AccumulateRow {
  [[gnu::always_inline]] static inline void Run(const float* x, int64_t n, float* acc) {
    int64_t c = 0;
    for (; c + W <= n; c += W) Store<W>(acc + c, Load<W>(acc + c) + Load<W>(x + c));
    for (; c < n; ++c) acc[c] += x[c];
  }
};

bool TryMean(KernelContext& ctx, Span<EValue*> args) {
  if (!MeanSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Tensor& out = *PeekTensor(args, 4);
  Span<const int64_t> dims;
  bool keepdim = false;
  int64_t dtype = 0;
  if (!PeekBool(args, 2, &keepdim) ||
      !(PeekNone(args, 3) ||
        (PeekInt(args, 3, &dtype) && dtype == static_cast<int64_t>(ScalarType::kFloat))) ||
      !(PeekNone(args, 1) || PeekIntList(args, 1, &dims))) {
    return false;
  }
  bool reduce[kMaxTensorRank] = {};
  for (int64_t dim : dims) {
    int d = 0;
    if (!portable::NormalizeDim(dim, in.dim(), &d) || (in.dim() > 0 && reduce[d])) {
      return false;
    }
    reduce[d] = true;
  }
  const bool all = dims.empty();
  int32_t sizes[kMaxTensorRank];
  int out_dim = 0;
  StridedLoop<1> reduced;
  StridedLoop<2> kept;
  for (int d = 0; d < in.dim(); ++d) {
    if (all || reduce[d]) {
      reduced.sizes[reduced.dim] = in.size(d);
      reduced.strides[0][reduced.dim++] = in.stride(d);
      if (keepdim) sizes[out_dim++] = 1;
    } else {
      kept.sizes[kept.dim] = in.size(d);
      kept.strides[0][kept.dim++] = in.stride(d);
      sizes[out_dim++] = in.size(d);
    }
  }
  const Tensor* inputs[1] = {&in};
  if (!FitOut(out, {sizes, static_cast<size_t>(out_dim)}, inputs) || !out.IsDefaultDimOrder()) {
    return false;
  }
  // Out is contiguous: kept dim i has out's stride of its position.
  for (int i = 0, d = 0; d < in.dim(); ++d) {
    if (all || reduce[d]) continue;
    kept.strides[1][i] = out.stride(keepdim ? d : i);
    ++i;
  }
  if (out.numel() == 0) return true;
  reduced.Coalesce();
  kept.Coalesce();
  int64_t count = 1;
  for (int d = 0; d < reduced.dim; ++d) count *= reduced.sizes[d];
  const float* x = in.data_as<const float>();
  float* y = out.data_as<float>();
  const int threads = in.numel() < kMinParallelElements ? 1 : ctx.num_threads();
  if (reduced.dim <= 1 && (reduced.dim == 0 || reduced.strides[0][0] == 1)) {
    // Each output averages one contiguous run.
    StridedLoop<2> outer = kept;
    int64_t inner = 1;
    if (outer.dim > 0 && outer.strides[1][outer.dim - 1] == 1) {
      inner = outer.sizes[outer.dim - 1];  // outputs contiguous: split them
      --outer.dim;
    }
    const int64_t in_step = inner > 1 ? kept.strides[0][kept.dim - 1] : 0;
    const float divisor = static_cast<float>(count);
    portable::ForEachOffset(outer, [&](const int64_t* o) {
      ParallelForRanges(inner, ItemGrain(kMinOutputs, count), threads, [&](int64_t j0, int64_t j1) {
        float* out_run = y + o[1] + j0;
        SumRuns(x + o[0] + j0 * in_step, in_step, j1 - j0, count, out_run);
        for (int64_t j = 0; j < j1 - j0; ++j) out_run[j] /= divisor;
      });
    });
    return true;
  }
  if (kept.dim == 1 && kept.strides[0][0] == 1 && kept.strides[1][0] == 1) {
    // Channels innermost: accumulate whole rows, in the portable order.
    const int64_t channels = kept.sizes[0];
    auto* acc = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * channels, 64));
    if (acc == nullptr) return false;
    // Threads take ranges of channels, each summed in the same order.
    ParallelForRanges(channels, ItemGrain(kMinOutputs, count), threads,
                      [&](int64_t c0, int64_t c1) {
                        std::fill(acc + c0, acc + c1, 0.0f);
                        portable::ForEachOffset(reduced, [&](const int64_t* r) {
                          RunVectorized<AccumulateRow>(x + r[0] + c0, c1 - c0, acc + c0);
                        });
                        for (int64_t c = c0; c < c1; ++c) {
                          y[c] = acc[c] / static_cast<float>(count);
                        }
                      });
    return true;
  }
  return false;
}

}  // namespace

bool MeanSupports(Span<EValue* const> args) {
  if (args.size() != 6) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 4);
  return in != nullptr && out != nullptr && out->IsDefaultDimOrder();
}

void MeanOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryMean(ctx, args)) portable::MeanOut(ctx, args);
}

}  // namespace optimized
}  // namespace edgefleet
