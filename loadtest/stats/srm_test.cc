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

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
