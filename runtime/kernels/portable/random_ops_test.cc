// rand, randn and training-mode native_dropout (random_ops.cc): values
// cannot match torch's generator, so these check the distributions and the
// dropout invariants on large samples (bounds chosen > 6 standard errors
// from the exact moments, so a correct kernel fails with negligible
// probability).

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/test_tensors.h"

namespace edgefleet {
namespace portable {
namespace {

using testing::RunKernel;
using testing::TestIntList;
using testing::TestTensor;

constexpr int kN = 20000;

TEST(RandomOpsTest, RandIsUniformOnUnitInterval) {
  TestIntList size({100, kN / 100});
  TestTensor<float> out({100, kN / 100});
  ASSERT_EQ(RunKernel(RandOut, {size.ev(), out.ev(), out.ev()}), Error::kOk);
  double sum = 0, sq = 0;
  for (float v : out.Values()) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    sum += v;
    sq += v * v;
  }
  // Uniform: mean 1/2 (sd of the mean 0.29/sqrt(N) = 0.002), E[x^2] = 1/3.
  EXPECT_NEAR(sum / kN, 0.5, 0.013);
  EXPECT_NEAR(sq / kN, 1.0 / 3, 0.013);
  // A second call draws different values.
  TestTensor<float> again({100, kN / 100});
  ASSERT_EQ(RunKernel(RandOut, {size.ev(), again.ev(), again.ev()}), Error::kOk);
  EXPECT_NE(out.Values(), again.Values());
}

// A float16 or bfloat16 draw stays below 1: the kernel draws as many bits
// as the dtype's significand holds instead of rounding a wider draw.
template <typename T>
void ExpectUnitIntervalDraws() {
  TestIntList size({kN});
  TestTensor<T> out({kN});
  ASSERT_EQ(RunKernel(RandOut, {size.ev(), out.ev(), out.ev()}), Error::kOk);
  double sum = 0;
  for (T v : out.Values()) {
    const float f = static_cast<float>(v);
    ASSERT_GE(f, 0.0f);
    ASSERT_LT(f, 1.0f);
    sum += f;
  }
  EXPECT_NEAR(sum / kN, 0.5, 0.013);
}

TEST(RandomOpsTest, RandIsBelowOneInHalfAndBFloat16) {
  ExpectUnitIntervalDraws<Half>();
  ExpectUnitIntervalDraws<BFloat16>();
}

TEST(RandomOpsTest, RandnIsStandardNormal) {
  TestIntList size({kN});
  TestTensor<double> out({kN});
  ASSERT_EQ(RunKernel(RandnOut, {size.ev(), out.ev(), out.ev()}), Error::kOk);
  double sum = 0, sq = 0;
  int beyond_two = 0;
  for (double v : out.Values()) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sq += v * v;
    beyond_two += std::fabs(v) > 2;
  }
  EXPECT_NEAR(sum / kN, 0.0, 0.045);  // sd of the mean 0.007
  EXPECT_NEAR(sq / kN, 1.0, 0.07);    // sd of the mean square 0.01
  // P(|z| > 2) = 0.0455 (sd of the fraction 0.0015).
  EXPECT_NEAR(static_cast<double>(beyond_two) / kN, 0.0455, 0.01);
}

TEST(RandomOpsTest, RandRefusesIntegerOutAndNegativeSizes) {
  TestIntList size({3});
  TestTensor<int32_t> ints({3});
  EXPECT_EQ(RunKernel(RandOut, {size.ev(), ints.ev(), ints.ev()}), Error::kInvalidArgument);
  TestIntList negative({-1});
  TestTensor<float> out({1});
  EXPECT_EQ(RunKernel(RandnOut, {negative.ev(), out.ev(), out.ev()}), Error::kInvalidArgument);
}

TEST(RandomOpsTest, TrainingDropoutKeepsAndScalesByMask) {
  std::vector<float> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = 1.0f + static_cast<float>(i % 7);
  TestTensor<float> in({kN}, x);
  EValue p = EValue::FromDouble(0.25);
  EValue train = EValue::FromBool(true);
  TestTensor<float> out({kN});
  TestTensor<bool> mask({kN});
  testing::TestTensorList ret({out.ev(), mask.ev()});
  ASSERT_EQ(RunKernel(NativeDropoutOut, {in.ev(), &p, &train, out.ev(), mask.ev(), ret.ev()}),
            Error::kOk);
  const std::vector<float> y = out.Values();
  const std::vector<bool> m = mask.Values();
  int kept = 0;
  for (int i = 0; i < kN; ++i) {
    if (m[i]) {
      ++kept;
      EXPECT_FLOAT_EQ(y[i], x[i] / 0.75f) << i;
    } else {
      EXPECT_EQ(y[i], 0.0f) << i;
    }
  }
  // Kept with probability 0.75 (sd of the fraction 0.003).
  EXPECT_NEAR(static_cast<double>(kept) / kN, 0.75, 0.02);
}

}  // namespace
}  // namespace portable
}  // namespace edgefleet
