#include "runtime/backends/xnnpack/float_binary_nodes.h"

#include <cstdint>

#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace xnnpack {
namespace {

// Fewest pixels (channel scale) and elements (add) a thread takes.
constexpr int64_t kPixelGrain = 16;
constexpr int64_t kElementGrain = 4096;

size_t Numel(const Dims& d) {
  size_t n = 1;
  for (size_t v : d) n *= v;
  return n;
}

// Whether s scales the channels of a tensor of shape `full`: s has no more
// dims, its last equals full's last, its first (when of full's rank) is 1
// or full's first, and every other is 1.
bool ScalesChannels(const Dims& s, const Dims& full) {
  if (full.empty() || s.empty() || s.size() > full.size() || s.back() != full.back()) {
    return false;
  }
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const bool batch = i == 0 && s.size() == full.size() && s[0] == full[0];
    if (s[i] != 1 && !batch) return false;
  }
  return true;
}

float Clamp(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

// y[p * c + j] = x[p * c + j] * s[j] for pixels [p0, p1) and j < c, clamped.
template <int W>
struct ScaleRows {
  [[gnu::always_inline]] static inline void Run(const float* x, const float* s, int64_t p0,
                                                int64_t p1, int64_t c, float lo_s, float hi_s,
                                                float* y) {
    using V = optimized::Vf<W>;
    const V lo = optimized::Splat<W>(lo_s), hi = optimized::Splat<W>(hi_s);
    for (int64_t p = p0; p < p1; ++p) {
      const float* xp = x + p * c;
      float* yp = y + p * c;
      int64_t j = 0;
      for (; j + W <= c; j += W) {
        V v = optimized::Load<W>(xp + j) * optimized::Load<W>(s + j);
        v = optimized::Select<W>(v < lo, lo, v);
        optimized::Store<W>(yp + j, optimized::Select<W>(v > hi, hi, v));
      }
      for (; j < c; ++j) yp[j] = Clamp(xp[j] * s[j], lo_s, hi_s);
    }
  }
};

// y[k] = a[k] + b[k] for k in [k0, k1), clamped.
template <int W>
struct AddRange {
  [[gnu::always_inline]] static inline void Run(const float* a, const float* b, int64_t k0,
                                                int64_t k1, float lo_s, float hi_s, float* y) {
    using V = optimized::Vf<W>;
    const V lo = optimized::Splat<W>(lo_s), hi = optimized::Splat<W>(hi_s);
    int64_t k = k0;
    for (; k + W <= k1; k += W) {
      V v = optimized::Load<W>(a + k) + optimized::Load<W>(b + k);
      v = optimized::Select<W>(v < lo, lo, v);
      optimized::Store<W>(y + k, optimized::Select<W>(v > hi, hi, v));
    }
    for (; k < k1; ++k) y[k] = Clamp(a[k] + b[k], lo_s, hi_s);
  }
};

// General broadcasting, element by element (right-aligned dims): y = op(a,
// b) clamped.
template <typename Op>
void BroadcastBinary(const Node& n, const Dims& ad, const Dims& bd, const Dims& yd, const float* a,
                     const float* b, float* y, Op op) {
  const size_t rank = yd.size();
  size_t a_stride[kMaxDims] = {}, b_stride[kMaxDims] = {};
  size_t as = 1, bs = 1;
  for (size_t i = rank; i-- > 0;) {
    const size_t ai = i + ad.size() >= rank ? ad[i + ad.size() - rank] : 1;
    const size_t bi = i + bd.size() >= rank ? bd[i + bd.size() - rank] : 1;
    a_stride[i] = ai == 1 ? 0 : as;
    b_stride[i] = bi == 1 ? 0 : bs;
    as *= ai;
    bs *= bi;
  }
  size_t index[kMaxDims] = {};
  const size_t total = Numel(yd);
  for (size_t k = 0; k < total; ++k) {
    size_t ao = 0, bo = 0;
    for (size_t i = 0; i < rank; ++i) {
      ao += index[i] * a_stride[i];
      bo += index[i] * b_stride[i];
    }
    y[k] = Clamp(op(a[ao], b[bo]), n.output_min, n.output_max);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < yd[i]) break;
      index[i] = 0;
    }
  }
}

// A node of two float32 inputs and one float32 output.
bool Fp32Binary(const Graph& g, const Node& n) {
  return n.inputs.size() == 2 && n.outputs.size() == 1 && n.inputs[0] != kInvalidId &&
         n.inputs[1] != kInvalidId && AllFp32(g, n);
}

}  // namespace

bool IsChannelScale(const Graph& g, const Node& n) {
  if (n.type != NodeType::kMultiply || !Fp32Binary(g, n)) return false;
  const Dims& a = g.values[n.inputs[0]].dims;
  const Dims& b = g.values[n.inputs[1]].dims;
  const Dims& y = g.values[n.outputs[0]].dims;
  return (a == y && ScalesChannels(b, y)) || (b == y && ScalesChannels(a, y));
}

void RunMultiply(KernelContext& ctx, const Node& n, const std::vector<Dims>& dims, const float* a,
                 const float* b, float* y) {
  const Dims& ad = dims[n.inputs[0]];
  const Dims& bd = dims[n.inputs[1]];
  const Dims& yd = dims[n.outputs[0]];
  const bool a_full = ad == yd && ScalesChannels(bd, yd);
  if (!a_full && !(bd == yd && ScalesChannels(ad, yd))) {
    BroadcastBinary(n, ad, bd, yd, a, b, y, [](float u, float v) { return u * v; });
    return;
  }
  const float* x = a_full ? a : b;
  const float* s = a_full ? b : a;
  const Dims& sd = a_full ? bd : ad;
  const int64_t c = static_cast<int64_t>(yd.back());
  const int64_t batch = sd.size() == yd.size() && sd[0] != 1 ? static_cast<int64_t>(yd[0]) : 1;
  const int64_t pixels = c == 0 ? 0 : static_cast<int64_t>(Numel(yd)) / c / batch;
  const int threads = pixels * c * batch < optimized::kMinParallelElements ? 1 : ctx.num_threads();
  for (int64_t i = 0; i < batch; ++i) {
    const float* xb = x + i * pixels * c;
    float* yb = y + i * pixels * c;
    const float* sb = s + i * c;
    optimized::ParallelForRanges(pixels, kPixelGrain, threads, [&](int64_t p0, int64_t p1) {
      optimized::RunVectorized<ScaleRows>(xb, sb, p0, p1, c, n.output_min, n.output_max, yb);
    });
  }
}

bool IsSameShapeAdd(const Graph& g, const Node& n) {
  if (n.type != NodeType::kAdd || !Fp32Binary(g, n)) return false;
  const Dims& y = g.values[n.outputs[0]].dims;
  return g.values[n.inputs[0]].dims == y && g.values[n.inputs[1]].dims == y;
}

void RunAdd(KernelContext& ctx, const Node& n, const std::vector<Dims>& dims, const float* a,
            const float* b, float* y) {
  const Dims& ad = dims[n.inputs[0]];
  const Dims& bd = dims[n.inputs[1]];
  const Dims& yd = dims[n.outputs[0]];
  if (ad != yd || bd != yd) {
    BroadcastBinary(n, ad, bd, yd, a, b, y, [](float u, float v) { return u + v; });
    return;
  }
  const int64_t total = static_cast<int64_t>(Numel(yd));
  const int threads = total < optimized::kMinParallelElements ? 1 : ctx.num_threads();
  optimized::ParallelForRanges(total, kElementGrain, threads, [&](int64_t k0, int64_t k1) {
    optimized::RunVectorized<AddRange>(a, b, k0, k1, n.output_min, n.output_max, y);
  });
}

}  // namespace xnnpack
}  // namespace edgefleet
