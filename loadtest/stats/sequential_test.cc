#include "loadtest/stats/sequential.h"

#include <cmath>

#include "gtest/gtest.h"
#include "loadtest/stats/distributions.h"
#include "loadtest/stats/random.h"

namespace edgefleet {
namespace loadtest {
namespace {

// Monitors a two-arm experiment of normal observations at `looks` equally
// spaced looks, with a z-interval for the difference of means at confidence
// `per_look`, and stops at the first look whose interval excludes 0.
// Returns the share of runs that ever excluded 0 and the mean stopping look.
struct Monitoring {
  double rejected = 0;
  double mean_stop = 0;
};
Monitoring Monitor(int runs, int looks, int per_look_n, double per_look,
                   double effect, uint64_t seed) {
  const double z = NormalQuantile(1 - (1 - per_look) / 2);
  int rejected = 0;
  double stops = 0;
  for (int r = 0; r < runs; ++r) {
    Xoshiro256 rng(MixSeed(seed, r));
    double sum_a = 0, sum_b = 0;
    int stop = looks;
    for (int k = 1; k <= looks; ++k) {
      for (int i = 0; i < per_look_n; ++i) {
        sum_a += rng.NextNormal();
        sum_b += effect + rng.NextNormal();
      }
      const double n = static_cast<double>(k) * per_look_n;
      const double diff = sum_b / n - sum_a / n;
      if (std::fabs(diff) > z * std::sqrt(2 / n)) {
        ++rejected;
        stop = k;
        break;
      }
    }
    stops += stop;
  }
  return {rejected / static_cast<double>(runs), stops / runs};
}

TEST(SequentialTest, NaivePeekingInflatesTheFalsePositiveRate) {
  const Monitoring naive = Monitor(4000, 5, 40, 0.95, 0, 1);
  EXPECT_GT(naive.rejected, 0.10);  // ~14 % at five looks.
}

TEST(SequentialTest, PerLookConfidenceHoldsTheRateUnderMonitoring) {
  for (int looks : {1, 2, 5, 10}) {
    SCOPED_TRACE(looks);
    const Monitoring m =
        Monitor(4000, looks, 200 / looks, PerLookConfidence(0.95, looks), 0, 2);
    // Binomial SD at 4000 runs and 5 %: 0.34 %; allow 2 SD above nominal.
    EXPECT_LE(m.rejected, 0.05 + 0.007);
  }
}

TEST(SequentialTest, RealEffectStopsEarly) {
  // A clear effect (0.5 SD) is found, usually before the last look.
  const Monitoring m = Monitor(1000, 5, 40, PerLookConfidence(0.95, 5), 0.5, 3);
  EXPECT_GT(m.rejected, 0.95);
  EXPECT_LT(m.mean_stop, 3.0);
}

TEST(SequentialTest, LookGroupsAreBalanced) {
  int counts[4] = {0, 0, 0, 0};
  for (uint64_t d = 0; d < 40000; ++d) ++counts[LookOfDevice(7, d, 4)];
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
  EXPECT_EQ(LookOfDevice(7, 123, 1), 0);
  EXPECT_EQ(PerLookConfidence(0.95, 5), 1 - 0.01);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
