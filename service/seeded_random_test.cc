#include "service/seeded_random.h"

#include <gtest/gtest.h>

#include <cmath>

namespace edgefleet {
namespace service {
namespace {

TEST(SeededRandomTest, SameSeedAndStreamSameNumbers) {
  SeededRandom a(/*seed=*/42, /*stream=*/7), b(/*seed=*/42, /*stream=*/7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.NextU64(), b.NextU64());
}

TEST(SeededRandomTest, StreamsDiffer) {
  SeededRandom a(/*seed=*/42, /*stream=*/1), b(/*seed=*/42, /*stream=*/2);
  EXPECT_NE(a.NextU64(), b.NextU64());
}

TEST(SeededRandomTest, KnownFirstValueIsStable) {
  // Pins the generator: emulated figures depend on it bit for bit.
  SeededRandom r(/*seed=*/0, /*stream=*/0);
  const uint64_t first = r.NextU64();
  SeededRandom again(/*seed=*/0, /*stream=*/0);
  EXPECT_EQ(first, again.NextU64());
  EXPECT_EQ(Mix64(0), 0xe220a8397b1dcdafULL);
}

TEST(SeededRandomTest, DistributionsHaveTheirMeans) {
  SeededRandom r(/*seed=*/1, /*stream=*/0);
  double u = 0, n = 0, n2 = 0, e = 0;
  const int kCount = 200000;
  for (int i = 0; i < kCount; ++i) {
    const double x = r.Uniform();
    ASSERT_GT(x, 0.0);
    ASSERT_LT(x, 1.0);
    u += x;
    const double z = r.Normal();
    n += z;
    n2 += z * z;
    e += r.Exponential(/*mean=*/3.0);
  }
  EXPECT_NEAR(u / kCount, 0.5, 0.01);
  EXPECT_NEAR(n / kCount, 0.0, 0.01);
  EXPECT_NEAR(n2 / kCount, 1.0, 0.02);
  EXPECT_NEAR(e / kCount, 3.0, 0.05);
  // Pareto(x_min, alpha) has mean alpha * x_min / (alpha - 1).
  double p = 0;
  for (int i = 0; i < kCount; ++i) p += r.Pareto(/*x_min=*/1.0, /*alpha=*/3.0);
  EXPECT_NEAR(p / kCount, 1.5, 0.05);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
