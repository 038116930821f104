#include "runtime/kernels/optimized/grouped_conv.h"

#include <algorithm>

#include "runtime/kernels/optimized/phased_plane.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

// Output channels computed together: one accumulator vector each.
constexpr int kBlock = 8;
constexpr int64_t kMaxOutPerGroup = 2 * kBlock;
constexpr int64_t kMaxInPerGroup = 64;
constexpr int64_t kMaxTaps = 64;
// Below this many multiply-adds the call runs on one thread.
constexpr int64_t kMinParallelMacs = int64_t{1} << 17;

int64_t CeilDiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

// Planes start 64-byte aligned.
int64_t RoundUpTo16(int64_t x) { return CeilDiv(x, 16) * 16; }

// Up to kBlock output planes of one group (image): `planes` are the group's
// phased input planes, `plane_step` floats apart; wp[(ic * taps + t) *
// kBlock + o] the block's weights (0 past `nb`), b[o] its biases; y its
// first output plane. Outputs o < nb are written.
template <int W>
struct BlockBody {
  [[gnu::always_inline]] static inline void Run(const ConvGeometry* g, const float* planes,
                                                int64_t plane_step, int64_t row_step,
                                                const int64_t* tap_offset, const float* wp,
                                                const float* b, int nb, float* y, float lo_s,
                                                float hi_s, PostOp post) {
    // Narrow rows (7 x 7, 14 x 14 planes) waste fewer lanes in half vectors.
    if constexpr (W >= 8) {
      if (g->out_w <= W / 2) {
        Rows<W / 2>(g, planes, plane_step, row_step, tap_offset, wp, b, nb, y, lo_s, hi_s, post);
        return;
      }
    }
    Rows<W>(g, planes, plane_step, row_step, tap_offset, wp, b, nb, y, lo_s, hi_s, post);
  }

  template <int V>
  [[gnu::always_inline]] static inline void Rows(const ConvGeometry* g, const float* planes,
                                                 int64_t plane_step, int64_t row_step,
                                                 const int64_t* tap_offset, const float* wp,
                                                 const float* b, int nb, float* y, float lo_s,
                                                 float hi_s, PostOp post) {
    using T = Vf<V>;
    const T lo = Splat<V>(lo_s), hi = Splat<V>(hi_s);
    const int64_t cin = g->in_c_per_group(), taps = g->taps(), ow_n = g->out_w;
    const int64_t out_plane = g->out_pixels();
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      const float* base = planes + oh * row_step;
      for (int64_t ow = 0; ow < ow_n; ow += V) {
        // A vector past the row's end reads on into the plane's later rows
        // or its tail pad (kPlaneTailPad >= V); those lanes are not stored.
        T acc[kBlock];
#pragma GCC unroll 8
        for (int o = 0; o < kBlock; ++o) acc[o] = T{};
        const float* wk = wp;
        for (int64_t ic = 0; ic < cin; ++ic) {
          const float* p = base + ic * plane_step + ow;
          for (int64_t t = 0; t < taps; ++t, wk += kBlock) {
            const T v = Load<V>(p + tap_offset[t]);
#pragma GCC unroll 8
            for (int o = 0; o < kBlock; ++o) acc[o] += Splat<V>(wk[o]) * v;
          }
        }
        const int64_t valid = std::min<int64_t>(V, ow_n - ow);
        for (int o = 0; o < nb; ++o) {
          const T r = EpilogueV<V>(acc[o] + Splat<V>(b[o]), lo, hi, post);
          float* yr = y + o * out_plane + oh * ow_n + ow;
          if (valid == V) {
            Store<V>(yr, r);
          } else {
            float lanes[V];
            Store<V>(lanes, r);
            std::copy(lanes, lanes + valid, yr);
          }
        }
      }
    }
  }
};

}  // namespace

bool GroupedDirectApplies(const ConvGeometry& g) {
  return g.groups > 1 && g.groups != g.in_c && g.out_c_per_group() <= kMaxOutPerGroup &&
         g.in_c_per_group() <= kMaxInPerGroup && g.taps() <= kMaxTaps;
}

bool GroupedNchw(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                 const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                 PostOp post) {
  if (!GroupedDirectApplies(g)) return false;
  const int64_t cin = g.in_c_per_group(), cout = g.out_c_per_group(), taps = g.taps();
  const PhasedPlane shape = PhasedPlane::For(g);
  const int64_t plane_step = RoundUpTo16(shape.scratch_floats());
  const int64_t weight_floats = cin * taps * kBlock;
  const int64_t task_floats = cin * plane_step + weight_floats + kBlock;
  int64_t tap_offset[kMaxTaps];
  shape.TapOffsets(g, tap_offset);
  const int64_t tasks = g.batch * g.groups;
  const int64_t macs = g.batch * g.out_c * g.out_pixels() * cin * taps;
  const int threads = !ParallelismAvailable() || macs < kMinParallelMacs
                          ? 1
                          : static_cast<int>(std::min<int64_t>(
                                std::clamp(ctx.num_threads(), 1, ThreadPool::kMaxThreads), tasks));
  auto* scratch = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * task_floats * threads, 64));
  if (scratch == nullptr) return false;
  const int64_t chunk = CeilDiv(tasks, threads);
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_pixels();
  ParallelFor(CeilDiv(tasks, chunk), threads, [&](int64_t task) {
    float* planes = scratch + task * task_floats;
    float* wp = planes + cin * plane_step;
    float* bp = wp + weight_floats;
    const int64_t end = std::min(tasks, (task + 1) * chunk);
    for (int64_t i = task * chunk; i < end; ++i) {
      const int64_t n = i / g.groups, grp = i % g.groups;
      for (int64_t ic = 0; ic < cin; ++ic) {
        PhasedPlane p = shape;
        p.data = planes + ic * plane_step;
        BuildPhasedPlane(g, x + (n * g.in_c + grp * cin + ic) * in_plane, 0.0f, p, p.InitScratch());
      }
      for (int64_t o0 = 0; o0 < cout; o0 += kBlock) {
        const int nb = static_cast<int>(std::min<int64_t>(kBlock, cout - o0));
        const int64_t oc0 = grp * cout + o0;
        for (int o = 0; o < kBlock; ++o) {
          bp[o] = o < nb && bias != nullptr ? bias[oc0 + o] : 0.0f;
          for (int64_t ic = 0; ic < cin; ++ic) {
            for (int64_t t = 0; t < taps; ++t) {
              wp[(ic * taps + t) * kBlock + o] =
                  o < nb ? w[(oc0 + o) * w_strides[0] + ic * w_strides[1] +
                             t / g.k_w * w_strides[2] + t % g.k_w * w_strides[3]]
                         : 0.0f;
            }
          }
        }
        RunVectorized<BlockBody>(
            &g, static_cast<const float*>(planes), plane_step, g.stride[0] * shape.row_len,
            static_cast<const int64_t*>(tap_offset), static_cast<const float*>(wp),
            static_cast<const float*>(bp), nb, y + (n * g.out_c + oc0) * out_plane, lo, hi, post);
      }
    }
  });
  return true;
}

}  // namespace optimized
}  // namespace edgefleet
