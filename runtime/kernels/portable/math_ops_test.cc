// fmod, remainder, pow, maximum, minimum (elementwise_binary.cc) and log,
// sin, cos, erf, floor, ceil, round, trunc (unary_math.cc).

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::ExpectNear;
using testing::RunKernel;
using testing::TestTensor;
using F = std::vector<float>;
using I32 = std::vector<int32_t>;
using I64 = std::vector<int64_t>;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

template <typename T>
std::vector<T> RunBinary(OpFunction fn, TestTensor<T>& a, EValue* b, TestTensor<T>& out) {
  EXPECT_EQ(RunKernel(fn, {a.ev(), b, out.ev(), out.ev()}), Error::kOk);
  return out.Values();
}

TEST(ModTest, FmodAndRemainderSigns) {
  // a = [5.5, -5.5, 3, -3, 7.25], b = [2, 2, -2, -2, 0.5]
  TestTensor<float> a({5}, {5.5f, -5.5f, 3, -3, 7.25f});
  TestTensor<float> b({5}, {2, 2, -2, -2, 0.5f});
  TestTensor<float> out({5});
  EXPECT_EQ(RunBinary(FmodTensorOut, a, b.ev(), out), (F{1.5f, -1.5f, 1, -1, 0.25f}));
  EXPECT_EQ(RunBinary(RemainderTensorOut, a, b.ev(), out), (F{1.5f, 0.5f, -1, -1, 0.25f}));
  TestTensor<int32_t> ai({4}, {7, -7, 7, -7});
  TestTensor<int32_t> bi({4}, {3, 3, -3, -3});
  TestTensor<int32_t> oi({4});
  EXPECT_EQ(RunBinary(FmodTensorOut, ai, bi.ev(), oi), (I32{1, -1, 1, -1}));
  EXPECT_EQ(RunBinary(RemainderTensorOut, ai, bi.ev(), oi), (I32{1, 2, -2, -1}));
  // torch.remainder(torch.tensor([-1.5, 2.5]), 2)
  TestTensor<float> c({2}, {-1.5f, 2.5f});
  TestTensor<float> o2({2});
  EValue two = EValue::FromInt(2);
  EXPECT_EQ(RunBinary(RemainderScalarOut, c, &two, o2), (F{0.5f, 0.5f}));
  // Integer modulo by zero fails; INT_MIN % -1 is 0.
  TestTensor<int32_t> zero({4}, {0, 1, 1, 1});
  EXPECT_EQ(RunKernel(FmodTensorOut, {ai.ev(), zero.ev(), oi.ev(), oi.ev()}),
            Error::kInvalidArgument);
  TestTensor<int32_t> min({1}, {std::numeric_limits<int32_t>::min()});
  TestTensor<int32_t> o1({1});
  EValue minus_one = EValue::FromInt(-1);
  EXPECT_EQ(RunBinary(FmodScalarOut, min, &minus_one, o1), (I32{0}));
  // Bool operands are refused.
  TestTensor<bool> bb({1}, {true});
  TestTensor<bool> bo({1});
  EXPECT_EQ(RunKernel(FmodTensorOut, {bb.ev(), bb.ev(), bo.ev(), bo.ev()}),
            Error::kInvalidArgument);
}

TEST(PowTest, FloatIntAndScalarExponents) {
  // torch.pow([2., -8, 4], [0.5, 1/3, -1]) -> [1.41421354, nan, 0.25]
  TestTensor<float> a({3}, {2, -8, 4});
  TestTensor<float> e({3}, {0.5f, 1.0f / 3, -1});
  TestTensor<float> out({3});
  const F f = RunBinary(PowTensorTensorOut, a, e.ev(), out);
  EXPECT_FLOAT_EQ(f[0], 1.41421354f);
  EXPECT_TRUE(std::isnan(f[1]));
  EXPECT_EQ(f[2], 0.25f);
  // Integer pow, negative exponents as ATen: [1024, -27, 1, -1, 0].
  TestTensor<int64_t> ai({5}, {2, -3, 1, -1, 2});
  TestTensor<int64_t> ei({5}, {10, 3, -5, -3, -1});
  TestTensor<int64_t> oi({5});
  EXPECT_EQ(RunBinary(PowTensorTensorOut, ai, ei.ev(), oi), (I64{1024, -27, 1, -1, 0}));
  // A float exponent promotes an int tensor: [1, 1.41421354, 1.73205078].
  TestTensor<int64_t> b({3}, {1, 2, 3});
  TestTensor<float> fo({3});
  EValue half = EValue::FromDouble(0.5);
  ASSERT_EQ(RunKernel(PowTensorScalarOut, {b.ev(), &half, fo.ev(), fo.ev()}), Error::kOk);
  ExpectNear(fo.Values(), F{1, 1.41421354f, 1.73205078f});
  EValue two = EValue::FromInt(2);
  TestTensor<int64_t> o3({3});
  EXPECT_EQ(RunBinary(PowTensorScalarOut, b, &two, o3), (I64{1, 4, 9}));
  // ... but not into an int out.
  EXPECT_EQ(RunKernel(PowTensorScalarOut, {b.ev(), &half, o3.ev(), o3.ev()}),
            Error::kInvalidArgument);
}

TEST(MaxMinTest, NanPropagatesWithBroadcast) {
  // x = [[1, nan], [3, -1]], y = [2, 0]
  TestTensor<float> x({2, 2}, {1, kNan, 3, -1}, {1, 0});
  TestTensor<float> y({2}, {2, 0});
  TestTensor<float> out({2, 2});
  F v = RunBinary(MaximumOut, x, y.ev(), out);
  EXPECT_EQ(v[0], 2);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], 3);
  EXPECT_EQ(v[3], 0);
  v = RunBinary(MinimumOut, x, y.ev(), out);
  EXPECT_EQ(v[0], 1);
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], 2);
  EXPECT_EQ(v[3], -1);
  // int32 with int64 promotes to int64.
  TestTensor<int32_t> i({2}, {5, -5});
  TestTensor<int64_t> l({}, {0});
  TestTensor<int64_t> lo({2});
  ASSERT_EQ(RunKernel(MaximumOut, {i.ev(), l.ev(), lo.ev(), lo.ev()}), Error::kOk);
  // 0-dim tensors rank below dimensioned ones: the result stays int32
  // (out int64 is a valid cast).
  EXPECT_EQ(lo.Values(), (I64{5, 0}));
  TestTensor<float> bad({3});
  EXPECT_EQ(RunKernel(MaximumOut, {x.ev(), bad.ev(), out.ev(), out.ev()}), Error::kInvalidArgument);
}

TEST(UnaryMathTest, RoundingAndTranscendentals) {
  TestTensor<float> g({6}, {-2.5f, -0.5f, 0.5f, 1.5f, 2.5f, 0.3f});
  TestTensor<float> out({6});
  const auto run = [&](OpFunction fn) {
    EXPECT_EQ(RunKernel(fn, {g.ev(), out.ev(), out.ev()}), Error::kOk);
    return out.Values();
  };
  EXPECT_EQ(run(FloorOut), (F{-3, -1, 0, 1, 2, 0}));
  EXPECT_EQ(run(CeilOut), (F{-2, -0.0f, 1, 2, 3, 1}));
  EXPECT_EQ(run(RoundOut), (F{-2, -0.0f, 0, 2, 2, 0}));  // half to even
  EXPECT_EQ(run(TruncOut), (F{-2, -0.0f, 0, 1, 2, 0}));
  // Integers round to themselves.
  TestTensor<int64_t> i({2}, {-3, 7});
  TestTensor<int64_t> io({2});
  ASSERT_EQ(RunKernel(RoundOut, {i.ev(), io.ev(), io.ev()}), Error::kOk);
  EXPECT_EQ(io.Values(), (I64{-3, 7}));
  TestTensor<float> p({3}, {0.5f, 1, 2});
  TestTensor<float> po({3});
  const auto math = [&](OpFunction fn) {
    EXPECT_EQ(RunKernel(fn, {p.ev(), po.ev(), po.ev()}), Error::kOk);
    return po.Values();
  };
  ExpectNear(math(LogOut), F{-0.693147182f, 0, 0.693147182f});
  ExpectNear(math(SinOut), F{0.47942555f, 0.841470957f, 0.909297407f});
  ExpectNear(math(CosOut), F{0.87758255f, 0.540302336f, -0.416146845f});
  ExpectNear(math(ErfOut), F{0.520499885f, 0.842700779f, 0.995322287f});
  // Bool input to a rounding op is refused.
  TestTensor<bool> b({1}, {true});
  TestTensor<bool> bo({1});
  EXPECT_EQ(RunKernel(FloorOut, {b.ev(), bo.ev(), bo.ev()}), Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
