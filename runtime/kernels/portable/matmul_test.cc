#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::RunKernel;
using testing::TestTensor;
using F = std::vector<float>;

// a = [[1, 2, 3], [4, 5, 6]], b = [[1, 0], [0, 1], [1, 1]]: a @ b =
// [[4, 5], [10, 11]].
const F kA = {1, 2, 3, 4, 5, 6};
const F kB = {1, 0, 0, 1, 1, 1};

TEST(MmTest, ContiguousAndTransposedLayouts) {
  TestTensor<float> a({2, 3}, kA);
  TestTensor<float> b({3, 2}, kB);
  TestTensor<float> out({2, 2});
  ASSERT_EQ(RunKernel(MmOut, {a.ev(), b.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{4, 5, 10, 11}));
  // b stored column-major (dim order [1, 0]) and a column-major output.
  TestTensor<float> bt({3, 2}, kB, {1, 0});
  TestTensor<float> out_t({2, 2}, {}, {1, 0});
  ASSERT_EQ(RunKernel(MmOut, {a.ev(), bt.ev(), out_t.ev(), out_t.ev()}), Error::kOk);
  EXPECT_EQ(out_t.Values(), (F{4, 5, 10, 11}));
}

TEST(MmTest, DoubleAndEmptyInnerDim) {
  TestTensor<double> a({1, 2}, {0.5, 0.25});
  TestTensor<double> b({2, 1}, {4, 8});
  TestTensor<double> out({1, 1});
  ASSERT_EQ(RunKernel(MmOut, {a.ev(), b.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (std::vector<double>{4}));
  TestTensor<float> e1({2, 0});
  TestTensor<float> e2({0, 3});
  TestTensor<float> zeros({2, 3}, {1, 1, 1, 1, 1, 1});
  ASSERT_EQ(RunKernel(MmOut, {e1.ev(), e2.ev(), zeros.ev(), zeros.ev()}), Error::kOk);
  EXPECT_EQ(zeros.Values(), (F{0, 0, 0, 0, 0, 0}));
}

TEST(MmTest, InvalidArguments) {
  TestTensor<float> a({2, 3}, kA);
  TestTensor<float> out({2, 2});
  EXPECT_EQ(RunKernel(MmOut, {a.ev(), a.ev(), out.ev(), out.ev()}), Error::kInvalidArgument);
  TestTensor<int64_t> ai({2, 3});
  TestTensor<int64_t> bi({3, 2});
  TestTensor<int64_t> oi({2, 2});
  EXPECT_EQ(RunKernel(MmOut, {ai.ev(), bi.ev(), oi.ev(), oi.ev()}), Error::kNotSupported);
  TestTensor<float> b({3, 2}, kB);
  EXPECT_EQ(RunKernel(MmOut, {a.ev(), bi.ev(), out.ev(), out.ev()}), Error::kInvalidArgument);
  TestTensor<float> fixed({3, 3}, {}, {}, ShapeDynamism::kStatic);
  EXPECT_EQ(RunKernel(MmOut, {a.ev(), b.ev(), fixed.ev(), fixed.ev()}), Error::kNotSupported);
}

TEST(BmmTest, TwoBatches) {
  F a2 = kA, b2 = kB;
  for (float v : kA) a2.push_back(-v);
  for (float v : kB) b2.push_back(2 * v);
  TestTensor<float> a({2, 2, 3}, a2);
  TestTensor<float> b({2, 3, 2}, b2);
  TestTensor<float> out({2, 2, 2});
  ASSERT_EQ(RunKernel(BmmOut, {a.ev(), b.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{4, 5, 10, 11, -8, -10, -20, -22}));
  TestTensor<float> b3({3, 3, 2});
  EXPECT_EQ(RunKernel(BmmOut, {a.ev(), b3.ev(), out.ev(), out.ev()}), Error::kInvalidArgument);
}

TEST(AddmmTest, BetaAlphaAndBroadcastBias) {
  TestTensor<float> bias({2}, {10, 20});
  TestTensor<float> a({2, 3}, kA);
  TestTensor<float> b({3, 2}, kB);
  TestTensor<float> out({2, 2});
  EValue beta = EValue::FromInt(2);
  EValue alpha = EValue::FromDouble(0.5);
  ASSERT_EQ(RunKernel(AddmmOut, {bias.ev(), a.ev(), b.ev(), &beta, &alpha, out.ev(), out.ev()}),
            Error::kOk);
  // 2 * bias + 0.5 * (a @ b)
  EXPECT_EQ(out.Values(), (F{22, 42.5, 25, 45.5}));
  // beta = 0 ignores the bias, even NaN.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor<float> nan_bias({2, 2}, {nan, nan, nan, nan});
  EValue zero = EValue::FromInt(0);
  EValue one = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(AddmmOut, {nan_bias.ev(), a.ev(), b.ev(), &zero, &one, out.ev(), out.ev()}),
            Error::kOk);
  EXPECT_EQ(out.Values(), (F{4, 5, 10, 11}));
  TestTensor<float> bad_bias({3});
  EXPECT_EQ(RunKernel(AddmmOut, {bad_bias.ev(), a.ev(), b.ev(), &one, &one, out.ev(), out.ev()}),
            Error::kInvalidArgument);
}

TEST(LinearTest, BiasRank3AndPermutedInput) {
  // x @ w.T + bias with w = [[1, 0, 1], [0, 1, 1]], bias = [1, -1].
  TestTensor<float> x({1, 2, 3}, kA, {0, 2, 1});
  TestTensor<float> w({2, 3}, {1, 0, 1, 0, 1, 1});
  TestTensor<float> bias({2}, {1, -1});
  TestTensor<float> out({1, 2, 2});
  ASSERT_EQ(RunKernel(LinearOut, {x.ev(), w.ev(), bias.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{5, 4, 11, 10}));
  EValue none;
  TestTensor<float> v({3}, {1, 2, 3});
  TestTensor<float> vo({2});
  ASSERT_EQ(RunKernel(LinearOut, {v.ev(), w.ev(), &none, vo.ev(), vo.ev()}), Error::kOk);
  EXPECT_EQ(vo.Values(), (F{4, 5}));
  TestTensor<float> w4({2, 4});
  EXPECT_EQ(RunKernel(LinearOut, {v.ev(), w4.ev(), &none, vo.ev(), vo.ev()}),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
