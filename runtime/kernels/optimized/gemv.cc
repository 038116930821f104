#include "runtime/kernels/optimized/gemv.h"

#include <algorithm>

#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr size_t kAlignment = 64;
// A with fewer rows than this runs as matrix-vector products reading B in
// place: packing B would cost more than the arithmetic.
constexpr int64_t kGemvMaxRows = 4;
// Matrix-vector products over a B of at least this many bytes (about the
// per-core L2) stream B row by row (GemvStream).
constexpr int64_t kStreamBytes = int64_t{1} << 20;

int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }
int64_t CeilDiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

// out[j] = sum over p of x[p] * b[p * ldb + j] for j < n, for a B too big
// to stay in cache (kStreamBytes): B is read once, row after row, four rows
// at a time in address order — the prefetchers' best case, where GemvRows'
// runs of 16 vectors per row jump a whole row between reads. The partial
// sums live in `out`. Each output's sum has GemvRows' order (from zero, p
// ascending, one multiply-add per p), so the results are the same bits.
template <int W>
struct GemvStream {
  [[gnu::always_inline]] static inline void Run(int64_t n, int64_t k, const float* x,
                                                const float* b, int64_t ldb, float* out) {
    using V = Vf<W>;
    const int64_t vec_end = n / W * W;
    for (int64_t p = 0; p < k; p += 4) {
      const int rows = static_cast<int>(std::min<int64_t>(4, k - p));
      const float* r = b + p * ldb;
      const V x0 = Splat<W>(x[p]);
      const V x1 = Splat<W>(rows > 1 ? x[p + 1] : 0.0f);
      const V x2 = Splat<W>(rows > 2 ? x[p + 2] : 0.0f);
      const V x3 = Splat<W>(rows > 3 ? x[p + 3] : 0.0f);
      for (int64_t j = 0; j < vec_end; j += W) {
        V acc = p == 0 ? V{} : Load<W>(out + j);
        acc += x0 * Load<W>(r + j);
        if (rows > 1) acc += x1 * Load<W>(r + ldb + j);
        if (rows > 2) acc += x2 * Load<W>(r + 2 * ldb + j);
        if (rows > 3) acc += x3 * Load<W>(r + 3 * ldb + j);
        Store<W>(out + j, acc);
      }
      for (int64_t j = vec_end; j < n; ++j) {
        float acc = p == 0 ? 0.0f : out[j];
        for (int q = 0; q < rows; ++q) acc += x[p + q] * r[q * ldb + j];
        out[j] = acc;
      }
    }
  }
};

// c[j] (+)= sum over p of x[p] * b[p * ldb + j] for j < n: B's rows are
// contiguous, so the output is accumulated 16, 4 or 1 vectors at a time.
template <int W>
struct GemvRows {
  // Columns [j, j + kU * W): kU vectors of sums over the whole depth.
  template <int kU>
  [[gnu::always_inline]] static inline void Columns(int64_t j, int64_t k, const float* x,
                                                    const float* b, int64_t ldb, float* c,
                                                    bool accumulate) {
    using V = Vf<W>;
    V acc[kU] = {};
    for (int64_t p = 0; p < k; ++p) {
      const V xp = Splat<W>(x[p]);
      const float* row = b + p * ldb + j;
#pragma GCC unroll 16
      for (int u = 0; u < kU; ++u) acc[u] += xp * Load<W>(row + u * W);
    }
#pragma GCC unroll 16
    for (int u = 0; u < kU; ++u) {
      if (accumulate) acc[u] += Load<W>(c + j + u * W);
      Store<W>(c + j + u * W, acc[u]);
    }
  }

  [[gnu::always_inline]] static inline void Run(int64_t n, int64_t k, const float* x,
                                                const float* b, int64_t ldb, float* c,
                                                bool accumulate) {
    int64_t j = 0;
    // 16 vectors of columns per pass over the depth: each row of B is then
    // read in runs of 16 * W floats (long enough for the prefetchers when
    // B's rows are far apart, e.g. a transposed classifier weight).
    for (; j + 16 * W <= n; j += 16 * W) Columns<16>(j, k, x, b, ldb, c, accumulate);
    for (; j + 4 * W <= n; j += 4 * W) Columns<4>(j, k, x, b, ldb, c, accumulate);
    // Narrow outputs (a squeeze-excite layer's 24).
    for (; j + W <= n; j += W) Columns<1>(j, k, x, b, ldb, c, accumulate);
    for (; j < n; ++j) {
      float acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += x[p] * b[p * ldb + j];
      c[j] = accumulate ? c[j] + acc : acc;
    }
  }
};

// c[j] (+)= sum over p of x[p] * B(j, p) for the columns of panels
// [q0, q1) of a B kept in column panels of `width` columns (PanelOperand, a
// weight packed at load): each panel is one contiguous stream of depth rows
// of `width` floats, its width / W vectors of sums kept in registers over
// the whole depth. Each sum has GemvRows' order (from zero, p ascending,
// one multiply-add per p), so the results are the same bits as with B's
// rows. REQUIRES: width is 1 to 4 vectors of W.
template <int W>
struct GemvPanels {
  template <int kU>
  [[gnu::always_inline]] static inline void Panels(int64_t q0, int64_t q1, int64_t n, int64_t k,
                                                   const float* x, const float* panels, float* c,
                                                   bool accumulate) {
    using V = Vf<W>;
    constexpr int64_t kWidth = kU * W;
    for (int64_t q = q0; q < q1; ++q) {
      const float* panel = panels + q * k * kWidth;
      V acc[kU] = {};
      for (int64_t p = 0; p < k; ++p) {
        const V xp = Splat<W>(x[p]);
#pragma GCC unroll 4
        for (int u = 0; u < kU; ++u) acc[u] += xp * Load<W>(panel + p * kWidth + u * W);
      }
      const int64_t j0 = q * kWidth;
      if (j0 + kWidth <= n) {
#pragma GCC unroll 4
        for (int u = 0; u < kU; ++u) {
          if (accumulate) acc[u] += Load<W>(c + j0 + u * W);
          Store<W>(c + j0 + u * W, acc[u]);
        }
        continue;
      }
      for (int64_t j = j0; j < n; ++j) {  // the last, ragged panel
        const float sum = acc[(j - j0) / W][(j - j0) % W];
        c[j] = accumulate ? c[j] + sum : sum;
      }
    }
  }

  [[gnu::always_inline]] static inline void Run(int64_t q0, int64_t q1, int64_t n, int64_t k,
                                                const float* x, const float* panels, int width,
                                                float* c, bool accumulate) {
    switch (width / W) {
      case 1:
        return Panels<1>(q0, q1, n, k, x, panels, c, accumulate);
      case 2:
        return Panels<2>(q0, q1, n, k, x, panels, c, accumulate);
      case 3:
        return Panels<3>(q0, q1, n, k, x, panels, c, accumulate);
      default:
        return Panels<4>(q0, q1, n, k, x, panels, c, accumulate);
    }
  }
};

// c[j * cs] (+)= dot(x, b + j * ldb) for j < n: B's columns are
// contiguous, so four dot products run side by side over the depth.
template <int W>
struct GemvDots {
  [[gnu::always_inline]] static inline void Run(int64_t n, int64_t k, const float* x,
                                                const float* b, int64_t ldb, float* c, int64_t cs,
                                                bool accumulate) {
    using V = Vf<W>;
    for (int64_t j = 0; j < n; j += 4) {
      const int cols = static_cast<int>(std::min<int64_t>(4, n - j));
      const float* col[4];
      for (int u = 0; u < 4; ++u) col[u] = b + (j + std::min(u, cols - 1)) * ldb;
      V acc[4] = {};
      int64_t p = 0;
      for (; p + W <= k; p += W) {
        const V xp = Load<W>(x + p);
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u) acc[u] += xp * Load<W>(col[u] + p);
      }
      for (int u = 0; u < cols; ++u) {
        float sum = 0;
        for (int l = 0; l < W; ++l) sum += acc[u][l];
        for (int64_t q = p; q < k; ++q) sum += x[q] * col[u][q];
        float* out = c + (j + u) * cs;
        *out = accumulate ? *out + sum : sum;
      }
    }
  }
};

// out[j * out_stride] (+)= sum over p of x[p] * M(j, p) for j < n, where
// M(j, p) = mat.data[j * mat.free_stride + p * mat.depth_stride], split
// over threads by output chunks. False if M has no unit stride (or the
// output is strided while M's free stride is the unit one).
bool MatVec(KernelContext& ctx, int64_t n, int64_t k, const float* x, const StridedMatrix& mat,
            float* out, int64_t out_stride, bool accumulate) {
  const bool rows = mat.free_stride == 1 && out_stride == 1;
  if (!rows && mat.depth_stride != 1) return false;
  const int64_t chunk = n * k < kMinParallelMacs ? n : RoundUp(CeilDiv(n, ctx.num_threads()), 64);
  // A streamed B sums into the output, or into scratch when accumulating.
  const bool stream = rows && n * k * static_cast<int64_t>(sizeof(float)) >= kStreamBytes;
  float* sums = out;
  if (stream && accumulate) {
    sums = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * n, kAlignment));
    if (sums == nullptr) return false;
  }
  ParallelFor(CeilDiv(n, chunk), ctx.num_threads(), [&](int64_t t) {
    const int64_t j0 = t * chunk, nj = std::min(chunk, n - j0);
    if (stream) {
      RunVectorized<GemvStream>(nj, k, x, mat.data + j0, mat.depth_stride, sums + j0);
      if (accumulate) {
        for (int64_t j = j0; j < j0 + nj; ++j) out[j] = sums[j] + out[j];
      }
    } else if (rows) {
      RunVectorized<GemvRows>(nj, k, x, mat.data + j0, mat.depth_stride, out + j0, accumulate);
    } else {
      RunVectorized<GemvDots>(nj, k, x, mat.data + j0 * mat.free_stride, mat.free_stride,
                              out + j0 * out_stride, out_stride, accumulate);
    }
  });
  return true;
}

// Rows of a small A times a B in column panels of `width` (GemvPanels),
// split over threads by panels. False when the width is not 1 to 4 vectors
// of this host's, or the scratch does not fit.
bool PanelMatVecs(KernelContext& ctx, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
                  const float* panels, int width, float* c, int64_t ldc, bool accumulate) {
  const int lanes = IsaLanes(HostIsa());
  if (width % lanes != 0 || width / lanes < 1 || width / lanes > 4) return false;
  auto* x = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * m * k, kAlignment));
  if (x == nullptr) return false;
  for (int64_t i = 0; i < m; ++i) a.Pack(i, 1, 0, k, 1, x + i * k);
  const int64_t num_panels = CeilDiv(n, width);
  const int threads = n * k < kMinParallelMacs ? 1 : ctx.num_threads();
  const int64_t chunk = CeilDiv(num_panels, threads);
  for (int64_t i = 0; i < m; ++i) {
    ParallelFor(CeilDiv(num_panels, chunk), threads, [&](int64_t t) {
      const int64_t q0 = t * chunk, q1 = std::min(num_panels, q0 + chunk);
      RunVectorized<GemvPanels>(q0, q1, n, k, x + i * k, panels, width, c + i * ldc, accumulate);
    });
  }
  return true;
}

}  // namespace

bool SmallGemm(KernelContext& ctx, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
               const GemmOperand& b, float* c, int64_t ldc, bool accumulate) {
  if (m < kGemvMaxRows) {
    const int width = PanelWidth();
    const float* panels = b.Panels(width);
    if (panels != nullptr && PanelMatVecs(ctx, m, n, k, a, panels, width, c, ldc, accumulate)) {
      return true;
    }
  }
  StridedMatrix view;
  if (m < kGemvMaxRows && b.AsStrided(&view) && (view.free_stride == 1 || view.depth_stride == 1)) {
    auto* x = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * m * k, kAlignment));
    if (x == nullptr) return false;
    for (int64_t i = 0; i < m; ++i) a.Pack(i, 1, 0, k, 1, x + i * k);
    for (int64_t i = 0; i < m; ++i) {
      MatVec(ctx, n, k, x + i * k, view, c + i * ldc, 1, accumulate);
    }
    return true;
  }
  if (n == 1 && a.AsStrided(&view) &&
      (view.depth_stride == 1 || (view.free_stride == 1 && ldc == 1))) {
    auto* x = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * k, kAlignment));
    if (x == nullptr) return false;
    b.Pack(0, 1, 0, k, 1, x);
    return MatVec(ctx, m, k, x, view, c, ldc, accumulate);
  }
  return false;
}

}  // namespace optimized
}  // namespace edgefleet
