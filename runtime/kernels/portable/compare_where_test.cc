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
using B = std::vector<bool>;
using F = std::vector<float>;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

TEST(CompareTest, ScalarAllOpsWithNan) {
  TestTensor<float> x({5}, {-1, 0, 0.5f, 2, kNan});
  TestTensor<bool> out({5});
  EValue half = EValue::FromDouble(0.5);
  const struct {
    OpFunction fn;
    B want;
  } cases[] = {
      // torch.tensor([-1, 0, .5, 2, nan]) <op> 0.5
      {EqScalarOut, {false, false, true, false, false}},
      {NeScalarOut, {true, true, false, true, true}},
      {LtScalarOut, {true, true, false, false, false}},
      {LeScalarOut, {true, true, true, false, false}},
      {GtScalarOut, {false, false, false, true, false}},
      {GeScalarOut, {false, false, true, true, false}},
  };
  for (const auto& c : cases) {
    ASSERT_EQ(RunKernel(c.fn, {x.ev(), &half, out.ev(), out.ev()}), Error::kOk);
    EXPECT_EQ(out.Values(), c.want);
  }
  // x == -inf (the pattern of nn.MultiheadAttention's masked rows).
  EValue ninf = EValue::FromDouble(-std::numeric_limits<double>::infinity());
  TestTensor<float> y({3}, {-std::numeric_limits<float>::infinity(), 0, kNan});
  TestTensor<bool> o3({3});
  ASSERT_EQ(RunKernel(EqScalarOut, {y.ev(), &ninf, o3.ev(), o3.ev()}), Error::kOk);
  EXPECT_EQ(o3.Values(), (B{true, false, false}));
}

TEST(CompareTest, PromotionIntTensorFloatScalar) {
  // torch.tensor([0, 1, 2], dtype=torch.int32) < 0.5 compares as float.
  TestTensor<int32_t> x({3}, {0, 1, 2});
  TestTensor<bool> out({3});
  EValue half = EValue::FromDouble(0.5);
  ASSERT_EQ(RunKernel(LtScalarOut, {x.ev(), &half, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (B{true, false, false}));
  // int64 vs a bool scalar: True == 1.
  TestTensor<int64_t> l({3}, {0, 1, 2});
  EValue yes = EValue::FromBool(true);
  ASSERT_EQ(RunKernel(EqScalarOut, {l.ev(), &yes, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (B{false, true, false}));
  // A float out gets 1.0 / 0.0 (torch.eq(x, 1, out=float_tensor)).
  TestTensor<float> fo({3});
  EValue one = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(EqScalarOut, {l.ev(), &one, fo.ev(), fo.ev()}), Error::kOk);
  EXPECT_EQ(fo.Values(), (F{0, 1, 0}));
}

TEST(CompareTest, TensorBroadcastAndDimOrder) {
  // a [2, 1, 2] (channels-last-like dim order), b [3, 1]: out [2, 3, 2].
  TestTensor<float> a({2, 1, 2}, {1, 2, 3, 4}, {0, 2, 1});
  TestTensor<int64_t> b({3, 1}, {1, 2, 3});
  TestTensor<bool> out({2, 3, 2}, {}, {2, 1, 0});
  ASSERT_EQ(RunKernel(GeTensorOut, {a.ev(), b.ev(), out.ev(), out.ev()}), Error::kOk);
  // (a >= b) for a = [[[1, 2]], [[3, 4]]], b = [[1], [2], [3]]
  EXPECT_EQ(out.Values(),
            (B{true, true, false, true, false, false, true, true, true, true, true, true}));
  TestTensor<float> c({4});
  EXPECT_EQ(RunKernel(EqTensorOut, {a.ev(), c.ev(), out.ev(), out.ev()}), Error::kInvalidArgument);
}

TEST(CompareTest, EmptyAndZeroDim) {
  TestTensor<float> empty({0, 3});
  TestTensor<float> row({3}, {1, 2, 3});
  TestTensor<bool> out({0, 3});
  ASSERT_EQ(RunKernel(NeTensorOut, {empty.ev(), row.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Sizes(), (std::vector<int32_t>{0, 3}));
  TestTensor<float> s({}, {2});
  TestTensor<bool> o3({3});
  ASSERT_EQ(RunKernel(GtTensorOut, {row.ev(), s.ev(), o3.ev(), o3.ev()}), Error::kOk);
  EXPECT_EQ(o3.Values(), (B{false, false, true}));
}

TEST(LogicalTest, NotAndOrXor) {
  TestTensor<float> x({4}, {0, -2, kNan, 0.5f});
  TestTensor<bool> out({4});
  ASSERT_EQ(RunKernel(LogicalNotOut, {x.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (B{true, false, false, false}));
  TestTensor<int32_t> io({4});
  ASSERT_EQ(RunKernel(LogicalNotOut, {x.ev(), io.ev(), io.ev()}), Error::kOk);
  EXPECT_EQ(io.Values(), (std::vector<int32_t>{1, 0, 0, 0}));
  TestTensor<bool> y({2, 1}, {true, false});
  TestTensor<bool> o8({2, 4});
  // torch.logical_and(y, x) etc. with y [[True], [False]] broadcast on x.
  ASSERT_EQ(RunKernel(LogicalAndOut, {y.ev(), x.ev(), o8.ev(), o8.ev()}), Error::kOk);
  EXPECT_EQ(o8.Values(), (B{false, true, true, true, false, false, false, false}));
  ASSERT_EQ(RunKernel(LogicalOrOut, {y.ev(), x.ev(), o8.ev(), o8.ev()}), Error::kOk);
  EXPECT_EQ(o8.Values(), (B{true, true, true, true, false, true, true, true}));
  ASSERT_EQ(RunKernel(LogicalXorOut, {y.ev(), x.ev(), o8.ev(), o8.ev()}), Error::kOk);
  EXPECT_EQ(o8.Values(), (B{true, false, false, false, false, true, true, true}));
  EXPECT_EQ(RunKernel(LogicalNotOut, {x.ev(), out.ev()}), Error::kInvalidArgument);
  TestTensor<bool> wrong({3});
  EXPECT_EQ(RunKernel(LogicalNotOut, {x.ev(), wrong.ev(), wrong.ev()}), Error::kInvalidArgument);
}

TEST(WhereTest, BroadcastPromotionAndDimOrder) {
  // torch.where(c, a, b), c [2, 1], a [1, 3] int64, b 0-dim float: float.
  TestTensor<bool> c({2, 1}, {true, false});
  TestTensor<int64_t> a({1, 3}, {1, 2, 3});
  TestTensor<float> b({}, {-0.5f});
  TestTensor<float> out({2, 3}, {}, {1, 0});
  ASSERT_EQ(RunKernel(WhereSelfOut, {c.ev(), a.ev(), b.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{1, 2, 3, -0.5f, -0.5f, -0.5f}));
  // The MHA pattern: where(mask, zeros, softmax) on [1, 2, 2] with a
  // [1, 2, 1] mask.
  TestTensor<bool> m({1, 2, 1}, {false, true});
  TestTensor<float> zeros({1, 2, 2}, {0, 0, 0, 0});
  TestTensor<float> p({1, 2, 2}, {0.25f, 0.75f, kNan, kNan});
  TestTensor<float> o({1, 2, 2});
  ASSERT_EQ(RunKernel(WhereSelfOut, {m.ev(), zeros.ev(), p.ev(), o.ev(), o.ev()}), Error::kOk);
  EXPECT_EQ(o.Values(), (F{0.25f, 0.75f, 0, 0}));
}

TEST(WhereTest, InvalidArguments) {
  TestTensor<float> cf({2}, {1, 0});
  TestTensor<float> a({2}, {1, 2});
  TestTensor<float> out({2});
  // A float condition is refused.
  EXPECT_EQ(RunKernel(WhereSelfOut, {cf.ev(), a.ev(), a.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  TestTensor<bool> c({3}, {true, false, true});
  EXPECT_EQ(RunKernel(WhereSelfOut, {c.ev(), a.ev(), a.ev(), out.ev(), out.ev()}),
            Error::kInvalidArgument);
  // A float result can't go into an int out.
  TestTensor<bool> c2({2}, {true, false});
  TestTensor<int32_t> io({2});
  EXPECT_EQ(RunKernel(WhereSelfOut, {c2.ev(), a.ev(), a.ev(), io.ev(), io.ev()}),
            Error::kInvalidArgument);
  // Empty tensors give an empty result.
  TestTensor<bool> ce({0});
  TestTensor<float> ae({0});
  TestTensor<float> oe({0});
  EXPECT_EQ(RunKernel(WhereSelfOut, {ce.ev(), ae.ev(), a.ev(), oe.ev(), oe.ev()}),
            Error::kInvalidArgument);  // [0] and [2] do not broadcast
  EXPECT_EQ(RunKernel(WhereSelfOut, {ce.ev(), ae.ev(), ae.ev(), oe.ev(), oe.ev()}), Error::kOk);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
