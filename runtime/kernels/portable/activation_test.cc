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

// g = torch.tensor([-3., -1, 0, 0.5, 2, 4])
const F kG = {-3, -1, 0, 0.5f, 2, 4};

// Runs a `self, out, ret` kernel on kG and returns out's values.
F RunUnary(OpFunction fn) {
  TestTensor<float> x({6}, kG);
  TestTensor<float> out({6});
  EXPECT_EQ(RunKernel(fn, {x.ev(), out.ev(), out.ev()}), Error::kOk);
  return out.Values();
}

TEST(ActivationTest, ReluFloatIntAndNan) {
  EXPECT_EQ(RunUnary(ReluOut), (F{0, 0, 0, 0.5f, 2, 4}));
  TestTensor<int64_t> xi({3}, {-5, 0, 7});
  TestTensor<int64_t> oi({3});
  ASSERT_EQ(RunKernel(ReluOut, {xi.ev(), oi.ev(), oi.ev()}), Error::kOk);
  EXPECT_EQ(oi.Values(), (std::vector<int64_t>{0, 0, 7}));
  TestTensor<float> nan({1}, {std::numeric_limits<float>::quiet_NaN()});
  TestTensor<float> out({1});
  ASSERT_EQ(RunKernel(ReluOut, {nan.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_TRUE(std::isnan(out.Values()[0]));
  TestTensor<bool> b({1}, {true});
  TestTensor<bool> bo({1});
  EXPECT_EQ(RunKernel(ReluOut, {b.ev(), bo.ev(), bo.ev()}), Error::kInvalidArgument);
}

TEST(ActivationTest, HardtanhAndClamp) {
  TestTensor<float> x({6}, kG);
  TestTensor<float> out({6});
  EValue lo = EValue::FromDouble(-1.5);
  EValue hi = EValue::FromInt(1);
  ASSERT_EQ(RunKernel(HardtanhOut, {x.ev(), &lo, &hi, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{-1.5f, -1, 0, 0.5f, 1, 1}));
  EValue none;
  ASSERT_EQ(RunKernel(ClampOut, {x.ev(), &none, &hi, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{-3, -1, 0, 0.5f, 1, 1}));
  ASSERT_EQ(RunKernel(ClampOut, {x.ev(), &lo, &none, out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{-1.5f, -1, 0, 0.5f, 2, 4}));
  EXPECT_EQ(RunKernel(ClampOut, {x.ev(), &none, &none, out.ev(), out.ev()}),
            Error::kInvalidArgument);
  // torch.clamp(torch.tensor([1, 5, 9]), min=2, max=6) stays int.
  TestTensor<int32_t> xi({3}, {1, 5, 9});
  TestTensor<int32_t> oi({3});
  EValue two = EValue::FromInt(2);
  EValue six = EValue::FromInt(6);
  ASSERT_EQ(RunKernel(ClampOut, {xi.ev(), &two, &six, oi.ev(), oi.ev()}), Error::kOk);
  EXPECT_EQ(oi.Values(), (std::vector<int32_t>{2, 5, 6}));
  // A float bound promotes an int input to float: an int out is refused.
  EXPECT_EQ(RunKernel(ClampOut, {xi.ev(), &lo, &six, oi.ev(), oi.ev()}), Error::kInvalidArgument);
  TestTensor<float> fo({3});
  ASSERT_EQ(RunKernel(ClampOut, {xi.ev(), &lo, &six, fo.ev(), fo.ev()}), Error::kOk);
  EXPECT_EQ(fo.Values(), (F{1, 5, 6}));
}

TEST(ActivationTest, HardswishHardsigmoidGelu) {
  // F.hardswish(g), F.hardsigmoid(g)
  ExpectNear(RunUnary(HardswishOut), F{0, -0.333333343f, 0, 0.291666657f, 1.66666663f, 4});
  ExpectNear(RunUnary(HardsigmoidOut), F{0, 0.333333343f, 0.5f, 0.583333313f, 0.833333313f, 1});
  TestTensor<float> x({6}, kG);
  TestTensor<float> out({6});
  EValue none = EValue::FromString("none", 4);
  ASSERT_EQ(RunKernel(GeluOut, {x.ev(), &none, out.ev(), out.ev()}), Error::kOk);
  // F.gelu(g)
  ExpectNear(out.Values(),
             F{-0.00405022502f, -0.158655256f, 0, 0.345731229f, 1.95449972f, 3.99987364f});
  EValue tanh = EValue::FromString("tanh", 4);
  ASSERT_EQ(RunKernel(GeluOut, {x.ev(), &tanh, out.ev(), out.ev()}), Error::kOk);
  // F.gelu(g, approximate='tanh')
  ExpectNear(out.Values(),
             F{-0.00363743305f, -0.158807993f, 0, 0.345714003f, 1.95459771f, 3.9999299f});
  EValue bad = EValue::FromString("erf", 3);
  EXPECT_EQ(RunKernel(GeluOut, {x.ev(), &bad, out.ev(), out.ev()}), Error::kInvalidArgument);
}

TEST(UnaryMathTest, FloatingResults) {
  // torch.sigmoid(g), torch.tanh(g), torch.exp(g)
  ExpectNear(RunUnary(SigmoidOut),
             F{0.0474258736f, 0.268941432f, 0.5f, 0.622459352f, 0.880797029f, 0.982013762f});
  ExpectNear(RunUnary(TanhOut),
             F{-0.995054781f, -0.761594176f, 0, 0.462117165f, 0.964027584f, 0.999329329f});
  ExpectNear(RunUnary(ExpOut),
             F{0.0497870669f, 0.36787945f, 1, 1.64872122f, 7.38905621f, 54.5981483f});
  TestTensor<float> q({4}, {0.25f, 1, 4, 9});
  TestTensor<float> out({4});
  ASSERT_EQ(RunKernel(SqrtOut, {q.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{0.5f, 1, 2, 3}));
  ASSERT_EQ(RunKernel(RsqrtOut, {q.ev(), out.ev(), out.ev()}), Error::kOk);
  ExpectNear(out.Values(), F{2, 1, 0.5f, 0.333333343f});
  // torch.exp(torch.tensor([0, 1, 2])) is float32.
  TestTensor<int64_t> xi({3}, {0, 1, 2});
  TestTensor<float> fo({3});
  ASSERT_EQ(RunKernel(ExpOut, {xi.ev(), fo.ev(), fo.ev()}), Error::kOk);
  ExpectNear(fo.Values(), F{1, 2.71828175f, 7.38905621f});
  TestTensor<int64_t> io({3});
  EXPECT_EQ(RunKernel(ExpOut, {xi.ev(), io.ev(), io.ev()}), Error::kInvalidArgument);
}

TEST(UnaryMathTest, NegDtypesLayoutsAndErrors) {
  TestTensor<float> x({2, 2}, {1, -2, 3, -4}, {1, 0});
  TestTensor<float> out({2, 2});
  ASSERT_EQ(RunKernel(NegOut, {x.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{-1, 2, -3, 4}));
  TestTensor<int8_t> xi({2}, {-128, 5});
  TestTensor<int8_t> oi({2});
  ASSERT_EQ(RunKernel(NegOut, {xi.ev(), oi.ev(), oi.ev()}), Error::kOk);
  EXPECT_EQ(oi.Values(), (std::vector<int8_t>{-128, -5}));  // wraps
  ASSERT_EQ(RunKernel(AbsOut, {x.ev(), out.ev(), out.ev()}), Error::kOk);
  EXPECT_EQ(out.Values(), (F{1, 2, 3, 4}));
  ASSERT_EQ(RunKernel(AbsOut, {xi.ev(), oi.ev(), oi.ev()}), Error::kOk);
  EXPECT_EQ(oi.Values(), (std::vector<int8_t>{-128, 5}));
  // Signed zeros, as torch: neg(0.0) is -0.0, abs(-0.0) is +0.0 (1 / abs(-0.0)
  // is +inf).
  TestTensor<float> zeros({2}, {0.0f, -0.0f});
  TestTensor<float> zo({2});
  ASSERT_EQ(RunKernel(NegOut, {zeros.ev(), zo.ev(), zo.ev()}), Error::kOk);
  EXPECT_TRUE(std::signbit(zo.Values()[0]));
  EXPECT_FALSE(std::signbit(zo.Values()[1]));
  ASSERT_EQ(RunKernel(AbsOut, {zeros.ev(), zo.ev(), zo.ev()}), Error::kOk);
  EXPECT_FALSE(std::signbit(zo.Values()[0]));
  EXPECT_FALSE(std::signbit(zo.Values()[1]));
  TestTensor<float> empty({0, 2});
  TestTensor<float> eo({0, 2});
  EXPECT_EQ(RunKernel(NegOut, {empty.ev(), eo.ev(), eo.ev()}), Error::kOk);
  EXPECT_EQ(RunKernel(NegOut, {x.ev(), out.ev()}), Error::kInvalidArgument);
  TestTensor<float> fixed({3}, {}, {}, ShapeDynamism::kStatic);
  EXPECT_EQ(RunKernel(SigmoidOut, {x.ev(), fixed.ev(), fixed.ev()}),
            Error::kInvalidArgument);  // rank mismatch
  EValue not_tensor = EValue::FromInt(1);
  EXPECT_EQ(RunKernel(TanhOut, {&not_tensor, out.ev(), out.ev()}), Error::kInvalidArgument);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
