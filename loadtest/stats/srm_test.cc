#include "loadtest/stats/srm.h"

#include "gtest/gtest.h"
#include "loadtest/stats/testdata/reference_data.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(SrmTest, MatchesScipyChisquare) {
  for (const auto& c : Reference()["srm"]) {
    const SampleRatioResult r = SampleRatioCheck(c["observed"].get<std::vector<int64_t>>(),
                                                 c["shares"].get<std::vector<double>>());
    EXPECT_NEAR(r.chi_square, c["chi_square"].get<double>(), 1e-9) << c.dump();
    const double p = c["p_value"];
    EXPECT_NEAR(r.p_value, p, 1e-14 + 1e-9 * p) << c.dump();
    EXPECT_EQ(r.mismatch, p < 0.001);
  }
}

TEST(SrmTest, DegenerateInputsAreNoMismatch) {
  EXPECT_FALSE(SampleRatioCheck({0, 0}, {1, 1}).mismatch);
  EXPECT_FALSE(SampleRatioCheck({10}, {1}).mismatch);
  EXPECT_EQ(SampleRatioCheck({500, 500}, {1, 1}).p_value, 1.0);
}

TEST(SrmTest, DetectsLostSessions) {
  // 5 % of arm B's sessions lost in a 10 000 + 10 000 run (p ~ 0.0003);
  // 3 % lost is within what chance allows at this size (p ~ 0.03).
  EXPECT_TRUE(SampleRatioCheck({10000, 9500}, {1, 1}).mismatch);
  EXPECT_FALSE(SampleRatioCheck({10000, 9700}, {1, 1}).mismatch);
}

TEST(SrmTest, DesignEffectDividesTheStatistic) {
  // 540 vs 460 devices of 2 sessions each: the sessions' Pearson chi-square
  // (12.8, p = 0.00035) is twice the devices' (6.4); with the design effect
  // 2 the session test is the device test, which chance explains (p = 0.011).
  const SampleRatioResult devices = SampleRatioCheck({540, 460}, {1, 1});
  const SampleRatioResult naive = SampleRatioCheck({1080, 920}, {1, 1});
  const SampleRatioResult clustered = SampleRatioCheck({1080, 920}, {1, 1}, 0.001, 2);
  EXPECT_NEAR(devices.chi_square, 6.4, 1e-12);
  EXPECT_NEAR(naive.chi_square, 12.8, 1e-12);
  EXPECT_TRUE(naive.mismatch);
  EXPECT_NEAR(clustered.chi_square, devices.chi_square, 1e-12);
  EXPECT_DOUBLE_EQ(clustered.p_value, devices.p_value);
  EXPECT_EQ(clustered.design_effect, 2);
  EXPECT_FALSE(clustered.mismatch);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
