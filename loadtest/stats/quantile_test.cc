#include "loadtest/stats/quantile.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "loadtest/stats/testdata/reference_data.h"

namespace edgefleet {
namespace loadtest {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(QuantileTest, NearestRankIsCeilOfPTimesN) {
  EXPECT_EQ(NearestRankIndex(/*n=*/10, /*p=*/0.5), 4u);
  EXPECT_EQ(NearestRankIndex(10, 0.9), 8u);
  EXPECT_EQ(NearestRankIndex(10, 0.91), 9u);
  EXPECT_EQ(NearestRankIndex(1, 0.99), 0u);
  EXPECT_EQ(NearestRankIndex(10, 0.0), 0u);
  EXPECT_EQ(NearestRankIndex(10, 1.0), 9u);
  // 0.29 * 100 is 28.999999999999996 in binary floating point.
  EXPECT_EQ(NearestRankIndex(100, 0.29), 28u);
  EXPECT_EQ(NearestRankOf(1000000, 0.99), 990000);
}

TEST(QuantileTest, EstimatesMatchNumpyInvertedCdf) {
  for (const auto& sample : Reference()["quantile_intervals"]) {
    const std::vector<double> values = sample["values"].get<std::vector<double>>();
    for (const auto& c : sample["cases"]) {
      EXPECT_EQ(NearestRank(values, c["p"]), c["estimate"].get<double>())
          << "n=" << values.size() << " p=" << c["p"];
    }
  }
}

TEST(QuantileTest, OrderStatisticIntervalsMatchScipyBinomial) {
  for (const auto& sample : Reference()["quantile_intervals"]) {
    const std::vector<double> values = sample["values"].get<std::vector<double>>();
    for (const auto& c : sample["cases"]) {
      SCOPED_TRACE("n=" + std::to_string(values.size()) + " " + c.dump());
      const QuantileInterval ci = OrderStatisticInterval(values, c["p"], c["confidence"]);
      EXPECT_EQ(ci.lower_rank, c["lower_rank"].get<size_t>());
      EXPECT_EQ(ci.upper_rank, c["upper_rank"].get<size_t>());
      EXPECT_EQ(ci.lower, NumberOr(c["lower"], -kInf));
      EXPECT_EQ(ci.upper, NumberOr(c["upper"], kInf));
      EXPECT_NEAR(ci.coverage, c["coverage"].get<double>(), 1e-9);
      EXPECT_GE(ci.coverage, c["confidence"].get<double>() - 1e-12);
    }
  }
}

TEST(QuantileTest, SmallSampleHasNoUpperBoundForTailQuantile) {
  const std::vector<double> values = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const QuantileInterval ci = OrderStatisticInterval(values, 0.99, 0.95);
  EXPECT_EQ(ci.estimate, 10);
  EXPECT_EQ(ci.upper_rank, 11u);
  EXPECT_TRUE(std::isinf(ci.upper));
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
