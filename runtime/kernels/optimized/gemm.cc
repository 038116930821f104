#include "runtime/kernels/optimized/gemm.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/gemm_microkernel.h"
#include "runtime/kernels/optimized/gemv.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr size_t kPanelAlignment = 64;
constexpr int kMaxTile = 16 * 32;
constexpr int kMaxTasks = ThreadPool::kMaxThreads;
// A is read through row pointers (GemmOperand::RowPointers) when each row
// holds at least this many depth indices contiguously. A depth block spans
// several runs, so short runs cost a pointer load per run, not C's loads
// and stores: SqueezeNet's 3 x 3 layers over 16 channels ran in 549 us
// this way against 846 packing A (the real runtime's IGEMM: 503).
constexpr int64_t kMinRowRun = 16;
// Most runs of A's row pointers in one depth block.
constexpr int64_t kMaxRuns = 16;
// With nothing to pack per block (A in place or through row pointers, B in
// panels packed ahead or in place), depth blocks are this many times the
// micro-kernel's kc: a tile's sums stay in registers over more of the
// depth. ResNet-18's 3 x 3 convolutions over 64 channels ran 3 % faster in
// one block of nine filter taps than in blocks of up to four, and a 7 x 7
// image's 1 x 1 convolution over 440 channels (RegNet's last stage) 7 %
// faster in one block: each panel of B streams from memory once, in order,
// instead of in pieces a block apart.
constexpr int64_t kDeepDepthBlocks = 4;

int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }
int64_t CeilDiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

// One panel of a depth-contiguous source: d[k * width + j] = src[j * rs + k]
// for j < cols, 0 for cols <= j < width.
void PackTransposed(const float* src, int64_t rs, int64_t nk, int cols, int width, float* d) {
  int j = 0;
  for (; j + 4 <= cols; j += 4) {
    const float* r0 = src + j * rs;
    int64_t k = 0;
    for (; k + 4 <= nk; k += 4) {
      Transpose4x4(r0 + k, r0 + rs + k, r0 + 2 * rs + k, r0 + 3 * rs + k, d + k * width + j, width);
    }
    for (; k < nk; ++k) {
      for (int t = 0; t < 4; ++t) d[k * width + j + t] = r0[t * rs + k];
    }
  }
  for (; j < cols; ++j) {
    for (int64_t k = 0; k < nk; ++k) d[k * width + j] = src[j * rs + k];
  }
  if (cols < width) {
    for (int64_t k = 0; k < nk; ++k) {
      std::fill(d + k * width + cols, d + (k + 1) * width, 0.0f);
    }
  }
}

// The blocks one thread computes: rows [m0, m1) x columns [n0, n1) of C.
struct GemmTask {
  int64_t m0, m1, n0, n1;
  float* a_panels;       // mc x kc
  float* b_panels;       // kc x nc
  const float** rows;    // kc row pointers of B read in place
  const float** a_rows;  // mc row pointers of A (indirect A)
};

struct GemmProblem {
  const MicroKernel* kernel;
  int64_t k, kc, mc, nc;
  const GemmOperand* a;
  const GemmOperand* b;
  // B's column panels (PanelOperand) of the micro-kernel's width, read in
  // place; null otherwise.
  const float* b_panels;
  // A read in place (full mr-row panels) when its rows are contiguous along
  // the depth: a_data[i * lda + p]; null otherwise.
  const float* a_data;
  int64_t lda;
  // A read through row pointers (full mr-row panels), depth blocks ending
  // where the rows' runs end; `zeros` is kc zero floats for its padding.
  bool a_indirect;
  const float* zeros;
  float* c;
  int64_t ldc;
  bool accumulate;
  const GemmEpilogue* epilogue;  // null: none
};

// Writes (or adds) the valid rows x cols of an mr x nr tile computed in
// scratch: the edges of C.
void AddTile(const GemmProblem& g, const float* tile, float* c, int rows, int cols,
             bool accumulate) {
  const int nr = g.kernel->nr;
  for (int r = 0; r < rows; ++r) {
    float* row = c + r * g.ldc;
    const float* t = tile + r * nr;
    if (accumulate) {
      for (int j = 0; j < cols; ++j) row[j] += t[j];
    } else {
      std::memcpy(row, t, sizeof(float) * cols);
    }
  }
}

void RunTask(const GemmProblem& g, const GemmTask& t) {
  const MicroKernel& mk = *g.kernel;
  for (int64_t jc = t.n0; jc < t.n1; jc += g.nc) {
    const int64_t ncb = std::min(g.nc, t.n1 - jc);
    for (int64_t pc = 0, kcb = 0; pc < g.k; pc += kcb) {
      kcb = std::min(g.kc, g.k - pc);
      // Through row pointers: whole runs of the same length (a
      // convolution's taps), as many as the block holds.
      int64_t run = 0, runs = 1;
      if (g.a_indirect) {
        run = std::min(kcb, g.a->RowRun(pc));
        while (runs < kMaxRuns && (runs + 1) * run <= kcb && g.a->RowRun(pc + runs * run) >= run) {
          ++runs;
        }
        kcb = runs * run;
      }
      const bool accumulate = g.accumulate || pc > 0;
      // B in place: only the ragged last panel needs packing, and not even
      // that where the micro-kernel has masked edge tiles.
      const bool panels = g.b_panels != nullptr;
      const bool in_place = !panels && g.b->Rows(jc, pc, kcb, t.rows);
      const bool edges = mk.edge_fn[0] != nullptr;
      const int64_t direct_cols = !in_place ? 0 : edges ? ncb : ncb / mk.nr * mk.nr;
      if (!panels && direct_cols < ncb) {
        g.b->Pack(jc + direct_cols, ncb - direct_cols, pc, kcb, mk.nr, t.b_panels);
      }
      for (int64_t ic = t.m0; ic < t.m1; ic += g.mc) {
        const int64_t mcb = std::min(g.mc, t.m1 - ic);
        // Rows of A in place (or through pointers): only a ragged last
        // panel is packed.
        const AMode a_mode = g.a_data != nullptr ? kAStrided : g.a_indirect ? kAIndirect : kAPacked;
        const int64_t direct_rows = a_mode != kAPacked ? mcb / mk.mr * mk.mr : 0;
        if (a_mode == kAIndirect && direct_rows > 0) {
          for (int64_t r = 0; r < runs; ++r) {
            g.a->RowPointers(ic, direct_rows, pc + r * run, g.zeros, t.a_rows + r * direct_rows);
          }
        }
        if (direct_rows < mcb) {
          g.a->Pack(ic + direct_rows, mcb - direct_rows, pc, kcb, mk.mr, t.a_panels);
        }
        for (int64_t jr = 0; jr < ncb; jr += mk.nr) {
          const int cols = static_cast<int>(std::min<int64_t>(mk.nr, ncb - jr));
          // Panels packed ahead: jc + jr starts a panel (tasks and blocks
          // split B at whole panels).
          const float* b = panels ? g.b_panels + ((jc + jr) / mk.nr * g.k + pc) * mk.nr
                                  : t.b_panels + (jr - direct_cols) * kcb;
          const bool b_in_place = jr < direct_cols;
          const bool last = g.epilogue != nullptr && pc + kcb == g.k;
          // A strip narrower than a tile runs on the masked edge kernel.
          const bool narrow = cols < mk.nr && edges;
          // `tiles` tiles from row ir of the block into c (rows of A in
          // place or packed panels): one micro-kernel call.
          const auto call = [&](int64_t ir, int64_t tiles, AMode mode, float* c, int64_t ldc,
                                bool acc, const TileEpilogue* ep) {
            const AOperand a =
                mode == kAStrided    ? AOperand{g.a_data + (ic + ir) * g.lda + pc, g.lda}
                : mode == kAIndirect ? AOperand{nullptr, direct_rows, t.a_rows + ir, run}
                                     : AOperand{t.a_panels + (ir - direct_rows) * kcb, 0};
            if (narrow && b_in_place) {
              mk.edge_rows_fn[mode](kcb, tiles, a, t.rows, jr, cols, c, ldc, acc, ep);
            } else if (narrow) {
              mk.edge_fn[mode](kcb, tiles, a, b, mk.nr, cols, c, ldc, acc, ep);
            } else if (b_in_place) {
              mk.rows_fn[mode](kcb, tiles, a, t.rows, jr, c, ldc, acc, ep);
            } else {
              mk.fn[mode](kcb, tiles, a, b, mk.nr, c, ldc, acc, ep);
            }
          };
          // The epilogue of tiles from row i of the block in this strip
          // (REQUIRES: last).
          const auto epilogue_at = [&](int64_t i, bool col_bias) {
            const GemmEpilogue& e = *g.epilogue;
            return TileEpilogue{e.row_bias != nullptr ? e.row_bias + ic + i : nullptr,
                                col_bias && e.col_bias != nullptr ? e.col_bias + jc + jr : nullptr,
                                e.lo, e.hi, e.post};
          };
          // Full-height tiles, in runs that share this B strip (rows of A
          // in place, then packed full panels), straight into C.
          const auto run_full = [&](int64_t ir0, int64_t ir1, AMode mode) {
            if (ir1 <= ir0) return;
            TileEpilogue tile_ep;
            if (last) tile_ep = epilogue_at(ir0, true);
            call(ir0, (ir1 - ir0) / mk.mr, mode, g.c + (ic + ir0) * g.ldc + jc + jr, g.ldc,
                 accumulate, last ? &tile_ep : nullptr);
          };
          int64_t edge_from = 0;
          if (cols == mk.nr || narrow) {
            edge_from = mcb / mk.mr * mk.mr;
            run_full(0, direct_rows, a_mode);
            run_full(direct_rows, edge_from, kAPacked);
          }
          // Edge tiles: ragged rows, or ragged columns without an edge
          // kernel. The ragged rows' panel (packed) runs in short tiles
          // straight into C where the ISA has them; what remains goes
          // through a scratch tile.
          for (int64_t ir = edge_from; ir < mcb; ir += mk.mr) {
            const int64_t end = std::min<int64_t>(ir + mk.mr, mcb);
            const bool short_tiles = end - ir < mk.mr && mk.short_mr > 0;
            // Rows [i, i + short_mr) of the panel with B's strip into c.
            const auto short_call = [&](int64_t i, float* c, int64_t ldc, bool acc,
                                        const TileEpilogue* ep) {
              const AOperand a{t.a_panels + (ir - direct_rows) * kcb + (i - ir), 0};
              if (b_in_place) {
                mk.short_rows_fn(kcb, 1, a, t.rows, jr, cols, c, ldc, acc, ep);
              } else {
                mk.short_fn(kcb, 1, a, b, mk.nr, cols, c, ldc, acc, ep);
              }
            };
            int64_t i = ir;  // the first row not computed yet
            for (; short_tiles && i + mk.short_mr <= end; i += mk.short_mr) {
              TileEpilogue tile_ep;
              if (last) tile_ep = epilogue_at(i, true);
              short_call(i, g.c + (ic + i) * g.ldc + jc + jr, g.ldc, accumulate,
                         last ? &tile_ep : nullptr);
            }
            if (i == end) continue;
            const int rows = static_cast<int>(end - i);
            float* c = g.c + (ic + i) * g.ldc + jc + jr;
            alignas(64) float tile[kMaxTile];
            // The micro-kernel applies the epilogue in registers for an
            // edge tile of full rows computed from zero into the scratch
            // tile when only a row bias is read (a column bias would be
            // read past C's last column); other edge tiles get it after
            // AddTile.
            const bool in_registers =
                last && rows == mk.mr && !accumulate && g.epilogue->col_bias == nullptr;
            TileEpilogue tile_ep;
            if (in_registers) tile_ep = epilogue_at(i, false);
            if (short_tiles) {
              short_call(i, tile, mk.nr, false, nullptr);
            } else {
              call(i, 1, i < direct_rows ? a_mode : kAPacked, tile, mk.nr, false,
                   in_registers ? &tile_ep : nullptr);
            }
            AddTile(g, tile, c, rows, cols, accumulate);
            if (last && !in_registers) {
              g.epilogue->Apply(c, g.ldc, ic + i, rows, jc + jr, cols);
            }
          }
        }
      }
    }
  }
}

}  // namespace

void StridedOperand::Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width,
                          float* dst) const {
  const int64_t fs = m_.free_stride, ds = m_.depth_stride;
  for (int64_t p = 0; p * width < nf; ++p) {
    const int64_t fp = f0 + p * width;
    const int cols = static_cast<int>(std::min<int64_t>(width, nf - p * width));
    float* d = dst + p * nk * width;
    const float* src = m_.data + fp * fs + k0 * ds;
    if (fs == 1) {
      for (int64_t k = 0; k < nk; ++k) {
        std::memcpy(d + k * width, src + k * ds, sizeof(float) * cols);
        std::fill(d + k * width + cols, d + (k + 1) * width, 0.0f);
      }
    } else if (ds == 1) {
      PackTransposed(src, fs, nk, cols, width, d);
    } else {
      for (int64_t k = 0; k < nk; ++k) {
        for (int j = 0; j < width; ++j) {
          d[k * width + j] = j < cols ? src[j * fs + k * ds] : 0.0f;
        }
      }
    }
  }
}

bool StridedOperand::Rows(int64_t f0, int64_t k0, int64_t nk, const float** rows) const {
  if (m_.free_stride != 1) return false;
  for (int64_t kk = 0; kk < nk; ++kk) {
    rows[kk] = m_.data + f0 + (k0 + kk) * m_.depth_stride;
  }
  return true;
}

int PanelWidth() { return GetMicroKernel(HostIsa()).nr; }

int64_t PanelFloats(int64_t n, int64_t depth) { return RoundUp(n, PanelWidth()) * depth; }

void PackPanels(const GemmOperand& b, int64_t n, int64_t depth, float* dst) {
  if (n > 0 && depth > 0) b.Pack(0, n, 0, depth, PanelWidth(), dst);
}

void PanelOperand::Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width,
                        float* dst) const {
  const int w = width_;
  for (int64_t p = 0; p * width < nf; ++p) {
    float* d = dst + p * nk * width;
    for (int64_t k = 0; k < nk; ++k) {
      for (int lane = 0; lane < width; ++lane) {
        const int64_t j = f0 + p * width + lane;
        d[k * width + lane] = j < f0 + nf ? data_[(j / w * depth_ + k0 + k) * w + j % w] : 0.0f;
      }
    }
  }
}

namespace {

// c(r, j) = clamp(c(r, j) + rb[r] + cb[j]) over rows x cols; rb / cb may be
// null; one pass, W floats at a time.
template <int W>
struct EpilogueBody {
  [[gnu::always_inline]] static inline void Run(float* c, int64_t ldc, int64_t rows, int64_t cols,
                                                const float* rb, const float* cb, float lo_s,
                                                float hi_s, PostOp post) {
    using V = Vf<W>;
    const V lo = Splat<W>(lo_s), hi = Splat<W>(hi_s);
    for (int64_t r = 0; r < rows; ++r) {
      float* row = c + r * ldc;
      const float b = rb != nullptr ? rb[r] : 0.0f;
      const V bv = Splat<W>(b);
      int64_t j = 0;
      for (; j + W <= cols; j += W) {
        V v = Load<W>(row + j);
        if (rb != nullptr) v += bv;
        if (cb != nullptr) v += Load<W>(cb + j);
        Store<W>(row + j, EpilogueV<W>(v, lo, hi, post));
      }
      for (; j < cols; ++j) {
        float v = row[j];
        if (rb != nullptr) v += b;
        if (cb != nullptr) v += cb[j];
        row[j] = EpilogueS(v, lo_s, hi_s, post);
      }
    }
  }
};

}  // namespace

void GemmEpilogue::Apply(float* c, int64_t ldc, int64_t i0, int64_t rows, int64_t j0,
                         int64_t cols) const {
  RunVectorized<EpilogueBody>(c, ldc, rows, cols, row_bias != nullptr ? row_bias + i0 : nullptr,
                              col_bias != nullptr ? col_bias + j0 : nullptr, lo, hi, post);
}

bool Gemm(KernelContext& ctx, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
          const GemmOperand& b, float* c, int64_t ldc, bool accumulate,
          const GemmEpilogue* epilogue) {
  if (m <= 0 || n <= 0) return true;
  if (epilogue != nullptr && !epilogue->active()) epilogue = nullptr;
  if (k <= 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    }
    if (epilogue != nullptr) epilogue->Apply(c, ldc, 0, m, 0, n);
    return true;
  }
  if (SmallGemm(ctx, m, n, k, a, b, c, ldc, accumulate)) {
    if (epilogue != nullptr) epilogue->Apply(c, ldc, 0, m, 0, n);
    return true;
  }
  StridedMatrix a_view;
  const bool a_strided = a.AsStrided(&a_view) && a_view.depth_stride == 1;
  const bool a_indirect = !a_strided && a.RowRun(0) >= kMinRowRun;
  const MicroKernel& mk = GetMicroKernel(HostIsa(), m, a_indirect);
  const float* b_panels = b.Panels(mk.nr);
  StridedMatrix b_view;
  const bool b_in_place = b_panels != nullptr || (b.AsStrided(&b_view) && b_view.free_stride == 1);
  const bool deep = (a_strided || a_indirect) && b_in_place;
  int threads = ctx.num_threads();
  if (!ParallelismAvailable() || m * n * k < kMinParallelMacs) {
    threads = 1;
  }
  GemmProblem g{&mk,
                k,
                std::min<int64_t>(deep ? kDeepDepthBlocks * mk.kc : mk.kc, k),
                0,
                0,
                &a,
                &b,
                b_panels,
                a_strided ? a_view.data : nullptr,
                a_strided ? a_view.free_stride : 0,
                a_indirect,
                nullptr,
                c,
                ldc,
                accumulate,
                epilogue};
  // Split the longer side of C (in tiles) into one chunk per thread; if the
  // scratch does not fit, fall back to fewer threads. Chunks are whole
  // steps of what the micro-kernel computes without waste: short tiles and
  // edge tiles' vectors (half a tile's columns) where the ISA has them,
  // whole tiles otherwise (MobileNetV2's 49 x 160 splits into two chunks of
  // 2.5 tiles, not 3 and 2); B's panels packed ahead split whole.
  const bool split_n = CeilDiv(n, mk.nr) >= CeilDiv(m, mk.mr);
  const int64_t m_step = mk.short_mr > 0 ? mk.short_mr : mk.mr;
  const int64_t n_step = mk.edge_fn[0] != nullptr && g.b_panels == nullptr ? mk.nr / 2 : mk.nr;
  GemmTask tasks[kMaxTasks];
  int num_tasks = 0;
  for (threads = std::clamp(threads, 1, kMaxTasks); threads >= 1; threads /= 2) {
    const int64_t m_chunk = split_n ? m : RoundUp(CeilDiv(m, threads), m_step);
    const int64_t n_chunk = split_n ? RoundUp(CeilDiv(n, threads), n_step) : n;
    g.mc = std::min<int64_t>(mk.mc, RoundUp(m_chunk, mk.mr));
    g.nc = std::min<int64_t>(mk.nc, RoundUp(n_chunk, mk.nr));
    // One block for every task's panels (a failed attempt leaves nothing
    // behind in the bump allocator).
    // A read in place or through pointers packs only a ragged last panel.
    const bool a_direct = g.a_data != nullptr || g.a_indirect;
    const int64_t a_floats = RoundUp((a_direct ? mk.mr : g.mc) * g.kc, 16);
    // B in place packs at most a ragged last panel (without edge kernels).
    const int64_t b_floats = g.b_panels != nullptr ? 0
                             : b_in_place          ? RoundUp(mk.nr * g.kc, 16)
                                                   : RoundUp(g.nc * g.kc, 16);
    const int64_t row_floats = RoundUp(g.kc * sizeof(float*) / sizeof(float), 16);
    const int64_t a_row_floats =
        g.a_indirect ? RoundUp(g.mc * kMaxRuns * sizeof(float*) / sizeof(float), 16) : 0;
    const int64_t zero_floats = g.a_indirect ? RoundUp(g.kc, 16) : 0;
    const int64_t task_floats = a_floats + b_floats + row_floats + a_row_floats;
    num_tasks = static_cast<int>(split_n ? CeilDiv(n, n_chunk) : CeilDiv(m, m_chunk));
    auto* panels = static_cast<float*>(
        ctx.AllocateTemp(sizeof(float) * (zero_floats + num_tasks * task_floats), kPanelAlignment));
    if (panels != nullptr) {
      std::fill(panels, panels + zero_floats, 0.0f);
      g.zeros = panels;
      for (int t = 0; t < num_tasks; ++t) {
        float* ap = panels + zero_floats + t * task_floats;
        tasks[t] = {split_n ? 0 : t * m_chunk,
                    split_n ? m : std::min(m, (t + 1) * m_chunk),
                    split_n ? t * n_chunk : 0,
                    split_n ? std::min(n, (t + 1) * n_chunk) : n,
                    ap,
                    ap + a_floats,
                    reinterpret_cast<const float**>(ap + a_floats + b_floats),
                    reinterpret_cast<const float**>(ap + a_floats + b_floats + row_floats)};
      }
      break;
    }
    if (threads == 1) return false;
  }
  ParallelFor(num_tasks, threads, [&](int64_t t) { RunTask(g, tasks[t]); });
  return true;
}

}  // namespace optimized
}  // namespace edgefleet
