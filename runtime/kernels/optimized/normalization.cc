// Row normalizations of transformer blocks for float32 tensors in the
// default dim order, one contiguous row at a time:
//  - _softmax.out over the innermost dim: vectorized max, exp (vec_math.h,
//    within 1 ulp of expf) and sum; rows holding NaN or infinity take the
//    portable formula. Both sum a row of n floats, in different orders, so
//    results agree within about n + 8 ulp.
//  - native_layer_norm.out over the trailing dims: mean and variance summed
//    in double as the portable kernel does (in another order), then
//    ((x - mean) * rstd) * w + b per element in double, as it does: equal
//    to it but for rare 1-ulp differences.

#include <algorithm>
#include <cmath>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/optimized/vec_math.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

// Runs rows [0, rows) of `row_fn(r)` on the kernels' threads when large.
template <typename F>
void ForEachRow(KernelContext& ctx, int64_t rows, int64_t row_len, F&& row_fn) {
  ParallelFor(rows, rows * row_len < kMinParallelElements ? 1 : ctx.num_threads(), row_fn);
}

// Softmax of one row; false (nothing written) if the row holds NaN or
// infinity.
template <int W>
struct SoftmaxRow {
  [[gnu::always_inline]] static inline void Run(const float* x, float* y, int64_t n, bool* done) {
    using V = Vf<W>;
    V special = {};
    V vmax = Splat<W>(x[0]);
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      const V v = Load<W>(x + i);
      special += v - v;  // NaN for NaN and infinities
      vmax = Select<W>(v > vmax, v, vmax);
    }
    float max = x[0];
    bool nan = false;
    for (int l = 0; l < W; ++l) {
      nan |= special[l] != special[l];
      max = vmax[l] > max ? vmax[l] : max;
    }
    for (int64_t j = i; j < n; ++j) {
      nan |= !(x[j] - x[j] == 0.0f);
      max = x[j] > max ? x[j] : max;
    }
    if (nan) {
      *done = false;
      return;
    }
    const V vm = Splat<W>(max);
    V vsum = {};
    for (i = 0; i + W <= n; i += W) {
      const V e = Exp<W>(Load<W>(x + i) - vm);
      Store<W>(y + i, e);
      vsum += e;
    }
    float sum = 0;
    for (int l = 0; l < W; ++l) sum += vsum[l];
    for (int64_t j = i; j < n; ++j) {
      y[j] = std::exp(x[j] - max);
      sum += y[j];
    }
    const V vs = Splat<W>(sum);
    for (i = 0; i + W <= n; i += W) Store<W>(y + i, Load<W>(y + i) / vs);
    for (int64_t j = i; j < n; ++j) y[j] /= sum;
    *done = true;
  }
};

// The portable formula for one row (NaN and infinities propagate as torch).
void SoftmaxRowScalar(const float* x, float* y, int64_t n) {
  float max = x[0];
  for (int64_t i = 1; i < n; ++i) {
    if (x[i] > max || std::isnan(x[i])) max = x[i];
  }
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - max);
    sum += y[i];
  }
  for (int64_t i = 0; i < n; ++i) y[i] /= sum;
}

bool TrySoftmax(KernelContext& ctx, Span<EValue*> args) {
  if (!SoftmaxSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Tensor& out = *PeekTensor(args, 3);
  int64_t dim = 0;
  bool half_to_float = true;
  const Tensor* inputs[1] = {&in};
  if (!PeekInt(args, 1, &dim) || !PeekBool(args, 2, &half_to_float) || half_to_float ||
      in.dim() == 0 || (dim != -1 && dim != in.dim() - 1) || !FitOut(out, in.sizes(), inputs)) {
    return false;
  }
  const int64_t n = in.size(in.dim() - 1);
  if (n == 0 || in.numel() == 0) return true;
  const float* x = in.data_as<const float>();
  float* y = out.data_as<float>();
  ForEachRow(ctx, in.numel() / n, n, [&](int64_t r) {
    bool done = false;
    RunVectorized<SoftmaxRow>(x + r * n, y + r * n, n, &done);
    if (!done) SoftmaxRowScalar(x + r * n, y + r * n, n);
  });
  return true;
}

// mean and sum of squared deviations of a row, in double.
template <int W>
struct RowMoments {
  [[gnu::always_inline]] static inline void Run(const float* x, int64_t n, double* mean,
                                                double* sq) {
    using D = Vd<W>;
    // Four independent accumulators: the adds are not one chain of
    // dependent double additions.
    D acc[4] = {};
    int64_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
      for (int u = 0; u < 4; ++u) acc[u] += __builtin_convertvector(Load<W>(x + i + u * W), D);
    }
    for (; i + W <= n; i += W) acc[0] += __builtin_convertvector(Load<W>(x + i), D);
    const D total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    double sum = 0;
    for (int l = 0; l < W; ++l) sum += total[l];
    for (int64_t j = i; j < n; ++j) sum += x[j];
    const double mu = sum / static_cast<double>(n);
    const D vmu = D{} + mu;
    D dev[4] = {};
    for (i = 0; i + 4 * W <= n; i += 4 * W) {
      for (int u = 0; u < 4; ++u) {
        const D d = __builtin_convertvector(Load<W>(x + i + u * W), D) - vmu;
        dev[u] += d * d;
      }
    }
    for (; i + W <= n; i += W) {
      const D d = __builtin_convertvector(Load<W>(x + i), D) - vmu;
      dev[0] += d * d;
    }
    const D dev_total = (dev[0] + dev[1]) + (dev[2] + dev[3]);
    double s = 0;
    for (int l = 0; l < W; ++l) s += dev_total[l];
    for (int64_t j = i; j < n; ++j) s += (x[j] - mu) * (x[j] - mu);
    *mean = mu;
    *sq = s;
  }
};

// y = float(((x - mu) * inv) * w + b), w and b optional, in double.
template <int W>
struct NormalizeRow {
  [[gnu::always_inline]] static inline void Run(const float* x, float* y, int64_t n, double mu,
                                                double inv, const float* w, const float* b) {
    using D = Vd<W>;
    const D vmu = D{} + mu, vinv = D{} + inv;
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      D v = (__builtin_convertvector(Load<W>(x + i), D) - vmu) * vinv;
      if (w != nullptr) v *= __builtin_convertvector(Load<W>(w + i), D);
      if (b != nullptr) v += __builtin_convertvector(Load<W>(b + i), D);
      Store<W>(y + i, __builtin_convertvector(v, Vf<W>));
    }
    for (; i < n; ++i) {
      double v = (x[i] - mu) * inv;
      if (w != nullptr) v *= w[i];
      if (b != nullptr) v += b[i];
      y[i] = static_cast<float>(v);
    }
  }
};

bool TryLayerNorm(KernelContext& ctx, Span<EValue*> args) {
  if (!LayerNormSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  const Tensor* weight = PeekTensor(args, 2);
  const Tensor* bias = PeekTensor(args, 3);
  Tensor& out = *PeekTensor(args, 5);
  Tensor& mean = *PeekTensor(args, 6);
  Tensor& rstd = *PeekTensor(args, 7);
  Span<const int64_t> shape;
  double eps = 0;
  if (!PeekIntList(args, 1, &shape) || args[4] == nullptr) return false;
  if (args[4]->is_double()) {
    eps = args[4]->to_double();
  } else if (args[4]->is_int()) {
    eps = static_cast<double>(args[4]->to_int());
  } else {
    return false;
  }
  const int m = static_cast<int>(shape.size());
  if (m < 1 || m > in.dim()) return false;
  const int axis = in.dim() - m;
  int64_t n = 1;
  for (int i = 0; i < m; ++i) {
    if (shape[i] != in.size(axis + i)) return false;
    n *= shape[i];
  }
  for (const Tensor* p : {weight, bias}) {
    if (p == nullptr) continue;
    if (p->dim() != m || !p->IsDefaultDimOrder()) return false;
    for (int i = 0; i < m; ++i) {
      if (p->size(i) != shape[i]) return false;
    }
  }
  int32_t stat_sizes[kMaxTensorRank];
  for (int d = 0; d < in.dim(); ++d) stat_sizes[d] = d < axis ? in.size(d) : 1;
  const Span<const int32_t> stats(stat_sizes, static_cast<size_t>(in.dim()));
  const Tensor* inputs[3] = {&in, weight, bias};
  if (Overlaps(out, in) || !FitOut(out, in.sizes(), inputs) || !FitOut(mean, stats, inputs) ||
      !FitOut(rstd, stats, inputs) || !mean.IsDefaultDimOrder() || !rstd.IsDefaultDimOrder()) {
    return false;
  }
  if (n == 0 || in.numel() == 0) return false;  // the portable edge cases
  const float* x = in.data_as<const float>();
  float* y = out.data_as<float>();
  const float* w = weight != nullptr ? weight->data_as<const float>() : nullptr;
  const float* b = bias != nullptr ? bias->data_as<const float>() : nullptr;
  ForEachRow(ctx, in.numel() / n, n, [&](int64_t r) {
    double mu = 0, sq = 0;
    RunVectorized<RowMoments>(x + r * n, n, &mu, &sq);
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(n) + eps);
    RunVectorized<NormalizeRow>(x + r * n, y + r * n, n, mu, inv, w, b);
    mean.data_as<float>()[r] = static_cast<float>(mu);
    rstd.data_as<float>()[r] = static_cast<float>(inv);
  });
  return true;
}

}  // namespace

bool SoftmaxSupports(Span<EValue* const> args) {
  if (args.size() != 5) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 3);
  return in != nullptr && out != nullptr && in->IsDefaultDimOrder() && out->IsDefaultDimOrder();
}

bool LayerNormSupports(Span<EValue* const> args) {
  if (args.size() != 9) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  return in != nullptr && in->IsDefaultDimOrder() && PeekFloatTensor(args, 5) != nullptr &&
         PeekFloatTensor(args, 6) != nullptr && PeekFloatTensor(args, 7) != nullptr &&
         PeekTensor(args, 5)->IsDefaultDimOrder() &&
         (PeekNone(args, 2) || PeekFloatTensor(args, 2) != nullptr) &&
         (PeekNone(args, 3) || PeekFloatTensor(args, 3) != nullptr);
}

void SoftmaxOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TrySoftmax(ctx, args)) portable::SoftmaxOut(ctx, args);
}

void LayerNormOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryLayerNorm(ctx, args)) portable::NativeLayerNormOut(ctx, args);
}

}  // namespace optimized
}  // namespace edgefleet
