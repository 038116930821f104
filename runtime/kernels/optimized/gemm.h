// Packed single-precision matrix multiply (the GotoBLAS / BLIS scheme):
// C[m x n] (+)= A[m x k] * B[k x n], with C row-major.
//
// The driver walks cache-sized blocks (KC deep, MC rows of A, NC columns of
// B), packs each block into panels the micro-kernel reads contiguously, and
// runs a register-blocked MR x NR micro-kernel over every tile: AVX-512
// (12 x 32), AVX2+FMA (6 x 16) or a baseline 4 x 8, chosen by HostIsa().
// Operands already laid out for the micro-kernel are read in place instead
// of packed: rows of A contiguous along the depth (weights), A through row
// pointers where each filter tap's run of channels is contiguous (a
// channels-last image: the indirect GEMM of XNNPACK), rows of B
// contiguous along the columns (activations), and a B packed in column
// panels ahead of time (PanelOperand: a weight packed at load); only ragged
// edges are packed.
// C's edges narrower or shorter than a tile run on masked edge kernels and
// short tiles where the ISA has them (AVX-512, AVX2; B's ragged columns
// then stay in place too), on a scratch tile otherwise.
// With fewer than 4 rows of A (or one column of B) it runs matrix-vector
// products over the big operand in place.
//
// Operands are GemmOperands: anything that can pack a block of itself, so a
// convolution's input feeds the GEMM straight from the image (im2col is done
// block by block inside the packing, never materialized) and a transposed
// weight needs no copy. Scratch comes from the kernel's temp allocator;
// work is split over up to ctx.num_threads() threads.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/epilogue.h"

namespace edgefleet {
namespace optimized {

// A plain strided matrix: element(f, k) = data[f * free_stride + k *
// depth_stride].
struct StridedMatrix {
  const float* data;
  int64_t free_stride, depth_stride;
};

// One GEMM operand seen as a [free x depth] matrix: for A the free index is
// the row i and the depth k; for B the free index is the column j.
class GemmOperand {
 public:
  // Writes free indices [f0, f0 + nf) x depth [k0, k0 + nk) as
  // ceil(nf / width) panels of nk x width floats:
  //   dst[(p * nk + k) * width + j] = element(f0 + p * width + j, k0 + k)
  // and 0 for free indices at or past f0 + nf. REQUIRES: the block is
  // inside the operand. Called concurrently from several threads.
  virtual void Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width,
                    float* dst) const = 0;

  // The operand as a strided matrix, if it is one (the GEMM then reads it
  // in place where it can).
  virtual bool AsStrided(StridedMatrix* view) const { return false; }

  // For a B operand read in place: sets rows[kk] for kk < nk so that
  // element(f, k0 + kk) = rows[kk][f - f0] for every free index f >= f0 of
  // the operand, and returns true; false if the operand must be packed.
  virtual bool Rows(int64_t f0, int64_t k0, int64_t nk, const float** rows) const { return false; }

  // For an A operand read through row pointers (a channels-last image
  // under one filter tap: Im2colNhwc): how many depth indices from k0 on
  // every row holds contiguously; 0 if the operand must be packed.
  virtual int64_t RowRun(int64_t k0) const { return 0; }

  // Sets rows[f - f0] for f0 <= f < f0 + nf so that element(f, k0 + kk) =
  // rows[f - f0][kk] for kk < RowRun(k0), pointing rows outside the
  // operand's data (padding) at `zeros` (RowRun(k0) zero floats).
  // REQUIRES: RowRun(k0) > 0. Called concurrently from several threads.
  virtual void RowPointers(int64_t f0, int64_t nf, int64_t k0, const float* zeros,
                           const float** rows) const {}

  // For a B operand kept in column panels (PanelOperand): the panels, if
  // they are `width` columns wide; null otherwise.
  virtual const float* Panels(int width) const { return nullptr; }

 protected:
  ~GemmOperand() = default;
};

// A strided matrix: element(f, k) = data[f * free_stride + k * depth_stride].
class StridedOperand final : public GemmOperand {
 public:
  StridedOperand(const float* data, int64_t free_stride, int64_t depth_stride)
      : m_{data, free_stride, depth_stride} {}
  void Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const override;
  bool AsStrided(StridedMatrix* view) const override {
    *view = m_;
    return true;
  }
  bool Rows(int64_t f0, int64_t k0, int64_t nk, const float** rows) const override;

 private:
  StridedMatrix m_;
};

// The width of the column panels the GEMM reads in place on this host (its
// micro-kernel's tile width).
int PanelWidth();

// Floats of `n` columns of a depth-`depth` B as panels of PanelWidth().
int64_t PanelFloats(int64_t n, int64_t depth);

// Writes B (columns [0, n), depth [0, depth) of `b`) to `dst` as
// PanelFloats(n, depth) floats of column panels: panel q holds columns
// [q * w, (q + 1) * w), w = PanelWidth(), as depth rows of w floats, zero
// past column n. A weight packed so once (at load) is read by the
// micro-kernel as one contiguous stream per panel: on a weight that comes
// from DRAM or L3 (every layer of a model too big for the caches), the
// hardware prefetchers' best case, where a row-major B is read in short
// runs a whole row apart.
void PackPanels(const GemmOperand& b, int64_t n, int64_t depth, float* dst);

// B kept in column panels of `width` columns by PackPanels (width =
// PanelWidth() when it ran): element(j, k) = data[(j / width * depth + k) *
// width + j % width]. REQUIRES: the GEMM's depth is `depth`.
class PanelOperand final : public GemmOperand {
 public:
  PanelOperand(const float* data, int64_t depth, int width = PanelWidth())
      : data_(data), depth_(depth), width_(width) {}
  void Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const override;
  const float* Panels(int width) const override { return width == width_ ? data_ : nullptr; }

 private:
  const float* data_;
  int64_t depth_;
  int width_;
};

// What the GEMM does to each element of C once its sum is complete (while
// the tile is in cache): adds a per-row and / or per-column bias, then
// clamps to [lo, hi] (x < lo -> lo, then x > hi -> hi; NaN stays NaN, as
// in the portable relu / hardtanh / clamp), then `post` (epilogue.h). The
// default does nothing.
struct GemmEpilogue {
  const float* row_bias = nullptr;  // c(i, j) += row_bias[i]
  const float* col_bias = nullptr;  // c(i, j) += col_bias[j]
  float lo = -__builtin_inff();
  float hi = __builtin_inff();
  PostOp post = PostOp::kNone;

  bool clamps() const {
    return lo != -__builtin_inff() || hi != __builtin_inff() || post != PostOp::kNone;
  }
  bool active() const { return row_bias != nullptr || col_bias != nullptr || clamps(); }
  // Applies the epilogue to rows [i0, i0 + rows) x columns [j0, j0 + cols)
  // of C, whose element (i0, j0) is at `c`.
  void Apply(float* c, int64_t ldc, int64_t i0, int64_t rows, int64_t j0, int64_t cols) const;
};

// C[i * ldc + j] = (accumulate ? C[i * ldc + j] : 0) + sum over p < k of
// A(i, p) * B(p, j), for i < m, j < n, then the epilogue (if any). Uses
// scratch from `ctx` and up to ctx.num_threads() threads. Returns false,
// with C untouched, if the scratch memory is not available. REQUIRES:
// ldc >= n; C does not overlap the operands.
bool Gemm(KernelContext& ctx, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
          const GemmOperand& b, float* c, int64_t ldc, bool accumulate,
          const GemmEpilogue* epilogue = nullptr);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_H_
