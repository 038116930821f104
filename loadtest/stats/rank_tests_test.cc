#include "loadtest/stats/rank_tests.h"

#include <cmath>

#include "gtest/gtest.h"
#include "loadtest/stats/testdata/reference_data.h"

namespace edgefleet {
namespace loadtest {
namespace {

RankTestMethod MethodOf(const nlohmann::json& c) {
  return c["method"] == "exact" ? RankTestMethod::kExact : RankTestMethod::kNormal;
}

TEST(RankTestsTest, WilcoxonMatchesScipy) {
  ASSERT_GE(Reference()["wilcoxon"].size(), 8u);
  for (const auto& c : Reference()["wilcoxon"]) {
    const auto d = c["d"].get<std::vector<double>>();
    SCOPED_TRACE("n=" + std::to_string(d.size()) + " " + c["method"].get<std::string>());
    const RankTestResult r = WilcoxonSignedRank(d, MethodOf(c));
    EXPECT_DOUBLE_EQ(r.statistic, c["statistic"].get<double>());
    const double p = c["p_value"];
    EXPECT_NEAR(r.p_value, p, 1e-12 + 1e-9 * p);
    if (!c["abs_z"].is_null()) {
      EXPECT_NEAR(std::fabs(r.z), c["abs_z"].get<double>(), 1e-10);
    }
  }
}

TEST(RankTestsTest, MannWhitneyMatchesScipy) {
  ASSERT_GE(Reference()["mann_whitney"].size(), 6u);
  for (const auto& c : Reference()["mann_whitney"]) {
    const auto x = c["x"].get<std::vector<double>>();
    const auto y = c["y"].get<std::vector<double>>();
    SCOPED_TRACE("n=" + std::to_string(x.size()) + "+" + std::to_string(y.size()) + " " +
                 c["method"].get<std::string>());
    const RankTestResult r = MannWhitneyU(x, y, MethodOf(c));
    EXPECT_DOUBLE_EQ(r.statistic, c["statistic"].get<double>());
    const double p = c["p_value"];
    EXPECT_NEAR(r.p_value, p, 1e-12 + 1e-9 * p);
  }
}

TEST(RankTestsTest, AutoPicksExactOnlyForSmallUntiedSamples) {
  EXPECT_EQ(WilcoxonSignedRank({1, -2, 3, 4}).method, RankTestMethod::kExact);
  EXPECT_EQ(WilcoxonSignedRank({1, -1, 3, 4}).method, RankTestMethod::kNormal);
  EXPECT_EQ(WilcoxonSignedRank({0, 1, 3, 4}).method, RankTestMethod::kNormal);
  EXPECT_EQ(MannWhitneyU({1, 2}, {3, 4, 5}).method, RankTestMethod::kExact);
  EXPECT_EQ(MannWhitneyU({1, 2}, {2, 4, 5}).method, RankTestMethod::kNormal);
}

TEST(RankTestsTest, EffectSizes) {
  const RankTestResult all_positive = WilcoxonSignedRank({1, 2, 3, 4, 5});
  EXPECT_EQ(all_positive.effect, 1.0);
  EXPECT_EQ(all_positive.rank_sum, 15.0);
  const RankTestResult superior = MannWhitneyU({10, 11, 12}, {1, 2});
  EXPECT_EQ(superior.effect, 1.0);
  EXPECT_EQ(MannWhitneyU({1, 2}, {1, 2}).effect, 0.5);
}

TEST(RankTestsTest, AllZeroDifferencesAreNoEvidence) {
  const RankTestResult r = WilcoxonSignedRank({0, 0, 0});
  EXPECT_EQ(r.n, 0u);
  EXPECT_EQ(r.p_value, 1.0);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
