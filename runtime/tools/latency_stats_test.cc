#include "runtime/tools/latency_stats.h"

#include "gtest/gtest.h"

namespace edgefleet {
namespace tools {
namespace {

TEST(LatencyStatsTest, NearestRankPercentiles) {
  const std::vector<double> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(NearestRankPercentile(ten, 50), 5);
  EXPECT_EQ(NearestRankPercentile(ten, 90), 9);
  EXPECT_EQ(NearestRankPercentile(ten, 91), 10);
  EXPECT_EQ(NearestRankPercentile(ten, 100), 10);
  EXPECT_EQ(NearestRankPercentile(ten, 1), 1);
  const std::vector<double> one = {4};
  EXPECT_EQ(NearestRankPercentile(one, 50), 4);
  EXPECT_EQ(NearestRankPercentile(one, 90), 4);
  const std::vector<double> three = {1, 2, 3};
  EXPECT_EQ(NearestRankPercentile(three, 50), 2);
  EXPECT_EQ(NearestRankPercentile(three, 90), 3);
}

TEST(LatencyStatsTest, SummarizesUnsortedSamples) {
  const LatencySummary s = SummarizeLatencies({5, 1, 4, 2, 3});
  EXPECT_EQ(s.p50, 3);
  EXPECT_EQ(s.p90, 5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
}

}  // namespace
}  // namespace tools
}  // namespace edgefleet
