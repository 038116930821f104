#include "loadtest/stats/early_stopping.h"

#include <cmath>

#include "gtest/gtest.h"
#include "loadtest/stats/testdata/reference_data.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(EarlyStoppingTest, LoadGenMinimumQueryCounts) {
  // MLPerf: SingleStream p90 needs 64 queries, MultiStream p99 662, and a
  // Server p99 run with no over-latency query 459.
  EXPECT_EQ(MinQueriesForEarlyStopping(0.90, 0.99), 64);
  EXPECT_EQ(MinQueriesForEarlyStopping(0.99, 0.99), 662);
  EXPECT_EQ(QueriesNeededForLatencyBound(0, 0.99, 0.99), 459);
}

TEST(EarlyStoppingTest, MinPassingQueriesMatchesScipyScan) {
  const auto& ref = Reference()["early_stopping"];
  for (const auto& c : ref["min_passing"]) {
    EXPECT_EQ(MinPassingQueries(c["t"], c["p"], 0.0, c["c"]), c["h"].get<int64_t>()) << c.dump();
  }
  for (const auto& c : ref["min_queries"]) {
    EXPECT_EQ(MinQueriesForEarlyStopping(c["p"], c["c"]), c["queries"].get<int64_t>()) << c.dump();
  }
}

TEST(EarlyStoppingTest, EstimateMatchesLoadGenLoop) {
  for (const auto& c : Reference()["early_stopping"]["estimates"]) {
    const auto values = c["values"].get<std::vector<double>>();
    SCOPED_TRACE("n=" + std::to_string(values.size()) +
                 " p=" + std::to_string(c["p"].get<double>()));
    const EarlyStoppingEstimate e = EstimateWithEarlyStopping(values, c["p"], c["c"]);
    EXPECT_EQ(e.enough, c["enough"].get<bool>());
    if (!e.enough) {
      EXPECT_TRUE(std::isnan(e.estimate));
      continue;
    }
    EXPECT_EQ(e.discarded, c["discarded"].get<int64_t>());
    EXPECT_EQ(e.estimate, c["estimate"].get<double>());
  }
}

TEST(EarlyStoppingTest, OddsAreBinomialCdf) {
  // P(at most 1 of 64 queries over the p90) = 0.9^64 + 64 * 0.1 * 0.9^63.
  const double want = std::pow(0.9, 64) + 64 * 0.1 * std::pow(0.9, 63);
  EXPECT_NEAR(EarlyStoppingOdds(63, 1, 0.9, 0.0), want, 1e-15);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet
