// The packed GEMM against a double-precision reference, and the matmul
// kernels (mm, bmm, addmm, linear) against the portable ones.
//
// Tolerance: a float dot product of length k with any summation order is
// within k * 2^-24 * sum |a_i b_i| of the exact value (for k * 2^-24 << 1);
// the tests allow twice that, relative to the double reference, and the same
// bound (from both sides) against the portable kernel.

#include "runtime/kernels/optimized/gemm.h"

#include <cstring>
#include <vector>

#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using testing::Call;
using testing::ExpectMatch;
using testing::ForEachIsa;
using testing::Random;
using testing::RandomTensor;
using testing::Supported;
using testing::TestTensor;
using testing::Tolerance;

constexpr double kUnit = 1.0 / (1 << 24);

// Gemm on a = m x k (row stride lda_r, column stride lda_c), b = k x n
// (strides ldb_r, ldb_c), compared with a double reference.
void CheckGemm(int64_t m, int64_t n, int64_t k, bool a_transposed, bool b_transposed,
               bool accumulate, int threads, size_t temp_bytes = 8 << 20) {
  SCOPED_TRACE(::testing::Message()
               << "m=" << m << " n=" << n << " k=" << k << " aT=" << a_transposed
               << " bT=" << b_transposed << " acc=" << accumulate << " threads=" << threads);
  const std::vector<float> a = Random<float>(m * k + 1, 1);
  const std::vector<float> b = Random<float>(k * n + 1, 2);
  std::vector<float> c = Random<float>(m * n + 1, 3);
  const std::vector<float> c0 = c;
  const int64_t a_r = a_transposed ? 1 : k, a_c = a_transposed ? m : 1;
  const int64_t b_r = b_transposed ? 1 : n, b_c = b_transposed ? k : 1;
  const StridedOperand av(a.data(), a_r, a_c);
  const StridedOperand bv(b.data(), b_c, b_r);
  std::vector<uint64_t> temp_memory(temp_bytes / 8 + 1);
  MemoryAllocator temp(temp_memory.data(), temp_bytes);
  KernelContext ctx(&temp, threads);
  ASSERT_TRUE(Gemm(ctx, m, n, k, av, bv, c.data(), n, accumulate));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double exact = accumulate ? c0[i * n + j] : 0.0, scale = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double t = double(a[i * a_r + p * a_c]) * b[p * b_r + j * b_c];
        exact += t;
        scale += std::fabs(t);
      }
      const double bound = 2 * (k + 1) * kUnit * (scale + std::fabs(exact));
      ASSERT_NEAR(c[i * n + j], exact, bound + 1e-30) << "at (" << i << ", " << j << ")";
    }
  }
  EXPECT_EQ(c[m * n], c0[m * n]) << "wrote past C";
}

TEST(GemmTest, MatchesReferenceOverShapes) {
  ForEachIsa([] {
    const int64_t shapes[][3] = {{1, 1, 1},     {1, 7, 5},      {3, 1, 9},     {2, 33, 17},
                                 {5, 64, 3},    {12, 32, 8},    {13, 33, 31},  {6, 16, 257},
                                 {25, 49, 96},  {200, 70, 300}, {4, 1000, 64}, {70, 1, 50},
                                 {0, 5, 5},     {5, 0, 5},      {5, 5, 0},     {25, 16, 40},
                                 {37, 24, 300}, {12, 7, 5},     {30, 47, 20}};
    for (const auto& s : shapes) {
      CheckGemm(s[0], s[1], s[2], false, false, false, 1);
      CheckGemm(s[0], s[1], s[2], true, true, true, 1);
    }
  });
}

TEST(GemmTest, CrossesCacheBlocks) {
  // Larger than one KC, MC and NC block of every micro-kernel: A packed,
  // and A and B in place (whose depth blocks are deeper).
  ForEachIsa([] {
    CheckGemm(203, 1100, 300, true, false, true, 1);
    CheckGemm(203, 1100, 1030, false, false, true, 1);
  });
  CheckGemm(130, 2100, 70, false, true, false, 1);
}

TEST(GemmTest, SmallRowsAndColumnsUseMatrixVectorPaths) {
  ForEachIsa([] {
    for (bool bt : {false, true}) {
      CheckGemm(1, 300, 200, false, bt, false, 1);
      CheckGemm(3, 77, 65, true, bt, true, 1);
      CheckGemm(130, 1, 90, bt, false, false, 1);
    }
    // B of 1.2 MB, streamed row by row (ragged columns; from zero and
    // accumulated).
    CheckGemm(1, 1001, 300, false, false, false, 1);
    CheckGemm(2, 1001, 300, false, false, true, 1);
  });
}

TEST(GemmTest, ThreadsSplitEitherSide) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  CheckGemm(300, 400, 100, false, false, false, 4);
  CheckGemm(1000, 40, 100, true, false, true, 3);
  CheckGemm(2, 5000, 100, false, true, false, 4);
}

// C = A * B (+ epilogue) on n columns, with B's rows read in place
// (b_transposed = false) or packed, A in place or packed, into a C of
// exactly m x n floats plus one guard.
// C = A * B (+ epilogue) with A m x k (rows contiguous along the depth, or
// transposed), B k x n with its rows `ldb` apart (read in place) or, when
// transposed, its columns k apart (packed); C has ldc columns.
void EpilogueGemm(int64_t m, int64_t n, int64_t k, const std::vector<float>& a, bool a_t,
                  const std::vector<float>& b, int64_t ldb, bool b_t, float* c, int64_t ldc,
                  bool accumulate, const GemmEpilogue& ep) {
  static std::vector<uint64_t> temp_memory(1 << 16);
  MemoryAllocator temp(temp_memory.data(), temp_memory.size() * 8);
  KernelContext ctx(&temp, 1);
  const StridedOperand av(a.data(), a_t ? 1 : k, a_t ? m : 1);
  const StridedOperand bv(b.data(), b_t ? k : 1, b_t ? 1 : ldb);
  ASSERT_TRUE(Gemm(ctx, m, n, k, av, bv, c, ldc, accumulate, &ep));
}

uint32_t BitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

TEST(GemmTest, EdgeTilesAreTheBitsOfFullTiles) {
  // The right and bottom edges of C, narrower or shorter than a tile (n =
  // 2 .. 40 against the 32, 16 and 8 wide tiles; m leaving 0 .. 11 rows
  // after the 12, 6 and 4 high ones), run on the masked edge kernels and
  // the short-tile kernels where the ISA has them: each element must be
  // the same bits as when it sits in a full tile of a bigger GEMM on the
  // same operands (A's rows, B's columns and the biases extended), under
  // every epilogue, and nothing past C's last column is written. (n = 1
  // runs as matrix-vector products, another sum order.)
  const std::vector<float> bias = Random<float>(128, 6);
  GemmEpilogue eps[4];
  eps[1].col_bias = bias.data();
  eps[1].lo = -0.25f;
  eps[1].hi = 0.5f;
  eps[2].row_bias = bias.data();
  eps[2].post = PostOp::kSilu;
  eps[3].col_bias = bias.data();
  eps[3].post = PostOp::kHardswish;
  ForEachIsa([&] {
    for (int64_t n = 2; n <= 40; ++n) {
      const int64_t n_full = (n + 31) / 32 * 32;
      for (int64_t m = 24; m <= 36; ++m) {
        if (m != 25 && m != 36 && n % 8 != 1) continue;  // every row edge on a few n
        const int64_t m_full = (m + 11) / 12 * 12;
        for (int64_t k : {16, 300}) {
          const std::vector<float> a_full = Random<float>(m_full * k, 7);
          const std::vector<float> b = Random<float>(k * n_full, 8);
          for (int v = 0; v < 8; ++v) {
            const bool a_t = (v & 1) != 0, b_t = (v & 2) != 0, acc = (v & 4) != 0;
            // A's first m rows, in A's layout (rows, or columns when
            // transposed).
            std::vector<float> a(m * k);
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t p = 0; p < k; ++p) {
                a[a_t ? p * m + i : i * k + p] = a_full[a_t ? p * m_full + i : i * k + p];
              }
            }
            for (const GemmEpilogue& ep : eps) {
              SCOPED_TRACE(::testing::Message()
                           << "m=" << m << " n=" << n << " k=" << k << " variant=" << v);
              const std::vector<float> c0 = Random<float>(m * n + 1, 5);
              std::vector<float> c = c0;
              EpilogueGemm(m, n, k, a, a_t, b, n_full, b_t, c.data(), n, acc, ep);
              // The full GEMM's C starts from the same values.
              std::vector<float> c_full = Random<float>(m_full * n_full, 9);
              for (int64_t i = 0; i < m; ++i) {
                for (int64_t j = 0; j < n; ++j) c_full[i * n_full + j] = c0[i * n + j];
              }
              EpilogueGemm(m_full, n_full, k, a_full, a_t, b, n_full, b_t, c_full.data(), n_full,
                           acc, ep);
              for (int64_t i = 0; i < m; ++i) {
                for (int64_t j = 0; j < n; ++j) {
                  ASSERT_EQ(BitsOf(c[i * n + j]), BitsOf(c_full[i * n_full + j]))
                      << "at (" << i << ", " << j << ")";
                }
              }
              EXPECT_EQ(BitsOf(c[m * n]), BitsOf(c0[m * n])) << "wrote past C";
            }
          }
        }
      }
    }
  });
}

TEST(GemmTest, PanelsAreTheBitsOfRowMajorB) {
  // B packed in column panels ahead (PackPanels, PanelOperand) is read in
  // place by the micro-kernels, and panel by panel by the matrix-vector
  // path under four rows: each element of C must be the same bits as with
  // B read from its rows, for ragged panels (n not a multiple of the
  // width), rows in sevens (the 7-row AVX-512 kernel), several cache blocks
  // of depth (past four kc: B in place, either form, takes deep blocks),
  // threads splitting either side, and an epilogue.
  const std::vector<float> bias = Random<float>(80, 6);
  GemmEpilogue ep;
  ep.col_bias = bias.data();
  ep.lo = -0.25f;
  ep.hi = 0.5f;
  std::vector<uint64_t> temp_memory(1 << 18);
  ForEachIsa([&] {
    for (int64_t m : {1, 3, 4, 12, 13, 28, 49, 50, 700}) {
      for (int64_t n : {2, 7, 32, 33, 70, 1100}) {
        for (int64_t k : {1, 17, 300, 1030}) {
          if (k > 300 && m * n > 5000) continue;  // several blocks deep: small C only
          for (int threads : {1, 3}) {
            SCOPED_TRACE(::testing::Message()
                         << "m=" << m << " n=" << n << " k=" << k << " threads=" << threads);
            const std::vector<float> a = Random<float>(m * k, 7);
            const std::vector<float> b = Random<float>(k * n, 8);
            const StridedOperand av(a.data(), k, 1), rows(b.data(), 1, n);
            std::vector<float> panels(PanelFloats(n, k), -1.0f);
            PackPanels(rows, n, k, panels.data());
            const PanelOperand bp(panels.data(), k);
            ASSERT_NE(bp.Panels(PanelWidth()), nullptr);
            std::vector<float> c_rows(m * n + 1, 3.0f), c_panels(m * n + 1, 3.0f);
            MemoryAllocator temp(temp_memory.data(), temp_memory.size() * 8);
            KernelContext ctx(&temp, threads);
            ASSERT_TRUE(Gemm(ctx, m, n, k, av, rows, c_rows.data(), n, false, &ep));
            temp.Reset();
            ASSERT_TRUE(Gemm(ctx, m, n, k, av, bp, c_panels.data(), n, false, &ep));
            for (int64_t i = 0; i < m * n; ++i) {
              ASSERT_EQ(BitsOf(c_panels[i]), BitsOf(c_rows[i])) << "at " << i;
            }
            EXPECT_EQ(c_panels[m * n], 3.0f) << "wrote past C";
          }
        }
      }
    }
  });
  // Packed under one width and read under another (or into a matrix-vector
  // product), the panels are unpacked through PanelOperand::Pack.
  const std::vector<float> a = Random<float>(3 * 40, 1), b = Random<float>(40 * 37, 2);
  const StridedOperand av(a.data(), 40, 1), rows(b.data(), 1, 37);
  std::vector<float> panels((37 + 7) / 8 * 8 * 40);
  rows.Pack(0, 37, 0, 40, 8, panels.data());
  const PanelOperand bp(panels.data(), 40, 8);
  std::vector<float> c_rows(3 * 37), c_panels(3 * 37);
  MemoryAllocator temp(temp_memory.data(), temp_memory.size() * 8);
  KernelContext ctx(&temp, 1);
  ASSERT_TRUE(Gemm(ctx, 3, 37, 40, av, rows, c_rows.data(), 37, false));
  ASSERT_TRUE(Gemm(ctx, 3, 37, 40, av, bp, c_panels.data(), 37, false));
  for (int64_t i = 0; i < 3 * 37; ++i) {
    ASSERT_NEAR(c_panels[i], c_rows[i], 1e-5f * (1.0f + std::fabs(c_rows[i]))) << "at " << i;
  }
}

// An A read through row pointers in runs of depth `run` (as a channels-last
// image under each filter tap): run r of row f is its own block of `data`,
// or the GEMM's zero row where (f + r) % 5 == 0 (a tap in the padding).
class RunsOperand final : public GemmOperand {
 public:
  RunsOperand(const float* data, int64_t m, int64_t run) : data_(data), m_(m), run_(run) {}
  float Element(int64_t f, int64_t k) const {
    const int64_t r = k / run_;
    return (f + r) % 5 == 0 ? 0.0f : data_[(r * m_ + f) * run_ + k % run_];
  }
  void Pack(int64_t f0, int64_t nf, int64_t k0, int64_t nk, int width, float* dst) const override {
    for (int64_t p = 0; p * width < nf; ++p) {
      for (int64_t kk = 0; kk < nk; ++kk) {
        for (int j = 0; j < width; ++j) {
          const int64_t f = p * width + j;
          dst[(p * nk + kk) * width + j] = f < nf ? Element(f0 + f, k0 + kk) : 0.0f;
        }
      }
    }
  }
  int64_t RowRun(int64_t k0) const override { return run_ - k0 % run_; }
  void RowPointers(int64_t f0, int64_t nf, int64_t k0, const float* zeros,
                   const float** rows) const override {
    const int64_t r = k0 / run_;
    for (int64_t f = f0; f < f0 + nf; ++f) {
      rows[f - f0] = (f + r) % 5 == 0 ? zeros : data_ + (r * m_ + f) * run_ + k0 % run_;
    }
  }

 private:
  const float* data_;
  int64_t m_, run_;
};

TEST(GemmTest, RowPointersSpanRunsInOneDepthBlock) {
  // The micro-kernels keep a tile's sums in registers across runs of row
  // pointers (a convolution's taps) and take each run's pointers as it
  // starts: against a double reference, for runs of 16 to 300 (longer than
  // a depth block), 1 to 25 of them, B from rows (packed per block) and in
  // panels packed ahead (deeper blocks), ragged rows and columns, threads.
  std::vector<uint64_t> temp_memory(1 << 19);
  ForEachIsa([&] {
    for (int64_t run : {16, 24, 40, 64, 300}) {
      for (int64_t runs : {1, 3, 9, 25}) {
        for (int64_t m : {7, 13, 50, 150}) {
          for (int64_t n : {16, 70}) {
            for (int threads : {1, 3}) {
              const int64_t k = run * runs;
              if (k * m > 150000) continue;
              SCOPED_TRACE(::testing::Message() << "run=" << run << " runs=" << runs << " m=" << m
                                                << " n=" << n << " threads=" << threads);
              const std::vector<float> a = Random<float>(m * k, 11);
              const std::vector<float> b = Random<float>(k * n, 12);
              const RunsOperand av(a.data(), m, run);
              const StridedOperand rows(b.data(), 1, n);
              std::vector<float> panels(PanelFloats(n, k));
              PackPanels(rows, n, k, panels.data());
              const PanelOperand bp(panels.data(), k);
              for (const GemmOperand* bv :
                   {static_cast<const GemmOperand*>(&rows), static_cast<const GemmOperand*>(&bp)}) {
                std::vector<float> c(m * n + 1, 3.0f);
                MemoryAllocator temp(temp_memory.data(), temp_memory.size() * 8);
                KernelContext ctx(&temp, threads);
                ASSERT_TRUE(Gemm(ctx, m, n, k, av, *bv, c.data(), n, false));
                for (int64_t i = 0; i < m; ++i) {
                  for (int64_t j = 0; j < n; ++j) {
                    double exact = 0, scale = 0;
                    for (int64_t p = 0; p < k; ++p) {
                      const double t = double(av.Element(i, p)) * b[p * n + j];
                      exact += t;
                      scale += std::fabs(t);
                    }
                    ASSERT_NEAR(c[i * n + j], exact, 2 * (k + 1) * kUnit * scale + 1e-30)
                        << "at (" << i << ", " << j << ")";
                  }
                }
                EXPECT_EQ(c[m * n], 3.0f) << "wrote past C";
              }
            }
          }
        }
      }
    }
  });
}

TEST(GemmTest, TooLittleScratchIsReported) {
  const std::vector<float> a(64 * 64, 1.0f), b(64 * 64, 1.0f);
  std::vector<float> c(64 * 64, 7.0f);
  std::vector<uint64_t> temp_memory(16);
  MemoryAllocator temp(temp_memory.data(), 128);
  KernelContext ctx(&temp, 1);
  const StridedOperand av(a.data(), 64, 1), bv(b.data(), 1, 64);
  EXPECT_FALSE(Gemm(ctx, 64, 64, 64, av, bv, c.data(), 64, false));
  EXPECT_EQ(c[0], 7.0f) << "C must be untouched";
  KernelContext no_temp(nullptr, 1);
  EXPECT_FALSE(Gemm(no_temp, 64, 64, 64, av, bv, c.data(), 64, false));
}

// ---- matmul kernels against the portable ones ----

// Tolerance for comparing two float results of length-k dot products of
// values in [-1, 1].
Tolerance DotTolerance(int64_t k) { return {4.0 * (k + 2) * kUnit * k, 4.0 * (k + 2) * kUnit}; }

struct MatmulCase {
  std::vector<int32_t> a, b;
  std::vector<uint8_t> a_order, b_order;
};

TEST(MatmulKernelTest, MmMatchesPortable) {
  const MatmulCase cases[] = {{{1, 1}, {1, 1}, {}, {}},
                              {{4, 16}, {16, 8}, {}, {}},
                              {{7, 33}, {33, 65}, {1, 0}, {}},
                              {{50, 3}, {3, 70}, {}, {1, 0}},
                              {{3, 200}, {200, 5}, {1, 0}, {1, 0}},
                              {{0, 4}, {4, 3}, {}, {}},
                              {{5, 0}, {0, 6}, {}, {}},
                              {{129, 257}, {257, 31}, {}, {}}};
  ForEachIsa([&] {
    for (const MatmulCase& c : cases) {
      RandomTensor a(c.a, 11, c.a_order), b(c.b, 12, c.b_order);
      TestTensor<float> ref({c.a[0], c.b[1]}), opt({c.a[0], c.b[1]});
      ASSERT_EQ(Call(portable::MmOut, {a.t.ev(), b.t.ev(), ref.ev(), ref.ev()}), Error::kOk);
      ASSERT_TRUE(Supported(MmSupports, {a.t.ev(), b.t.ev(), opt.ev(), opt.ev()}));
      ASSERT_EQ(Call(MmOut, {a.t.ev(), b.t.ev(), opt.ev(), opt.ev()}), Error::kOk);
      ExpectMatch(opt.Values(), ref.Values(), DotTolerance(c.a[1]), "mm");
    }
  });
}

TEST(MatmulKernelTest, BmmMatchesPortable) {
  ForEachIsa([] {
    for (int32_t batch : {1, 3}) {
      RandomTensor a({batch, 17, 9}, 21), b({batch, 9, 40}, 22, {0, 2, 1});
      TestTensor<float> ref({batch, 17, 40}), opt({batch, 17, 40});
      ASSERT_EQ(Call(portable::BmmOut, {a.t.ev(), b.t.ev(), ref.ev(), ref.ev()}), Error::kOk);
      ASSERT_EQ(Call(BmmOut, {a.t.ev(), b.t.ev(), opt.ev(), opt.ev()}), Error::kOk);
      ExpectMatch(opt.Values(), ref.Values(), DotTolerance(9), "bmm");
    }
  });
}

TEST(MatmulKernelTest, AddmmBiasShapesAndScalars) {
  const std::vector<std::vector<int32_t>> bias_shapes = {{20}, {1, 20}, {6, 20}, {6, 1}, {1}, {}};
  const double scalars[][2] = {{1, 1}, {0.5, 2}, {0, 1}, {1, 0}, {-1, 3}};
  ForEachIsa([&] {
    for (const auto& bias_shape : bias_shapes) {
      for (const auto& ab : scalars) {
        RandomTensor bias(bias_shape, 31), a({6, 13}, 32), b({13, 20}, 33);
        EValue beta = EValue::FromDouble(ab[0]);
        EValue alpha = ab[1] == 3 ? EValue::FromInt(3) : EValue::FromDouble(ab[1]);
        TestTensor<float> ref({6, 20}), opt({6, 20});
        ASSERT_EQ(Call(portable::AddmmOut,
                       {bias.t.ev(), a.t.ev(), b.t.ev(), &beta, &alpha, ref.ev(), ref.ev()}),
                  Error::kOk);
        ASSERT_EQ(
            Call(AddmmOut, {bias.t.ev(), a.t.ev(), b.t.ev(), &beta, &alpha, opt.ev(), opt.ev()}),
            Error::kOk);
        ExpectMatch(opt.Values(), ref.Values(), DotTolerance(13 * 3), "addmm");
      }
    }
  });
}

TEST(MatmulKernelTest, LinearRanksAndBias) {
  const std::vector<std::vector<int32_t>> inputs = {{24},       {1, 24},       {5, 24},
                                                    {2, 3, 24}, {2, 2, 2, 24}, {0, 24}};
  ForEachIsa([&] {
    for (const auto& in_shape : inputs) {
      for (bool with_bias : {false, true}) {
        RandomTensor in(in_shape, 41), w({10, 24}, 42), bias({10}, 43);
        std::vector<int32_t> out_shape = in_shape;
        out_shape.back() = 10;
        TestTensor<float> ref(out_shape), opt(out_shape);
        EValue none;
        EValue* b = with_bias ? bias.t.ev() : &none;
        ASSERT_EQ(Call(portable::LinearOut, {in.t.ev(), w.t.ev(), b, ref.ev(), ref.ev()}),
                  Error::kOk);
        ASSERT_EQ(Call(LinearOut, {in.t.ev(), w.t.ev(), b, opt.ev(), opt.ev()}), Error::kOk);
        ExpectMatch(opt.Values(), ref.Values(), DotTolerance(24), "linear");
      }
    }
  });
}

TEST(MatmulKernelTest, ResizesDynamicOutputs) {
  RandomTensor a({3, 8}, 51), b({8, 5}, 52);
  TestTensor<float> out({6, 9}, {}, {}, ShapeDynamism::kDynamicBound);
  ASSERT_EQ(Call(MmOut, {a.t.ev(), b.t.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Sizes(), (std::vector<int32_t>{3, 5}));
}

TEST(MatmulKernelTest, InvalidArgumentsFailLikePortable) {
  RandomTensor a({3, 4}, 61), b({5, 6}, 62);
  TestTensor<float> ref({3, 6}), opt({3, 6});
  const Error expected = Call(portable::MmOut, {a.t.ev(), b.t.ev(), ref.ev(), ref.ev()});
  const std::string detail = LastErrorDetail();
  EXPECT_EQ(expected, Error::kInvalidArgument);
  EXPECT_EQ(Call(MmOut, {a.t.ev(), b.t.ev(), opt.ev(), opt.ev()}), expected);
  EXPECT_EQ(detail, LastErrorDetail());
  // Wrong argument count and non-float dtypes: supports() refuses; the
  // kernel still reports the portable error.
  TestTensor<int32_t> ints({3, 4});
  EXPECT_FALSE(Supported(MmSupports, {ints.ev(), b.t.ev(), opt.ev(), opt.ev()}));
  EXPECT_FALSE(Supported(MmSupports, {a.t.ev(), b.t.ev(), opt.ev()}));
  EXPECT_NE(Call(MmOut, {a.t.ev(), b.t.ev(), opt.ev()}), Error::kOk);
  EXPECT_NE(Call(LinearOut, {a.t.ev(), b.t.ev(), opt.ev(), opt.ev()}), Error::kOk);
  EXPECT_NE(Call(BmmOut, {a.t.ev(), b.t.ev(), opt.ev(), opt.ev()}), Error::kOk);
}

TEST(MatmulKernelTest, ThreadsAndScarceScratch) {
  ASSERT_EQ(RegisterOptimizedKernels(4), Error::kOk);
  RandomTensor a({150, 120}, 71), b({120, 170}, 72);
  TestTensor<float> ref({150, 170}), opt({150, 170}), tight({150, 170});
  ASSERT_EQ(Call(portable::MmOut, {a.t.ev(), b.t.ev(), ref.ev(), ref.ev()}), Error::kOk);
  ASSERT_EQ(Call(MmOut, {a.t.ev(), b.t.ev(), opt.ev(), opt.ev()}, 4), Error::kOk);
  // 1 KiB of scratch: the GEMM cannot run and the portable kernel does.
  ASSERT_EQ(Call(MmOut, {a.t.ev(), b.t.ev(), tight.ev(), tight.ev()}, 4, 1024), Error::kOk);
  ExpectMatch(opt.Values(), ref.Values(), DotTolerance(120), "threads");
  ExpectMatch(tight.Values(), ref.Values(), testing::kExact, "fallback");
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet
