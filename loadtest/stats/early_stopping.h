// MLPerf LoadGen's early-stopping criterion: "are there enough samples to
// claim this percentile at this confidence?", and its conservative estimate.
//
// Definition (mlcommons/inference loadgen/early_stopping.cc, results.cc and
// the inference rules' "Early Stopping Criterion" appendix): with per-query
// pass probability p - d, the odds of seeing at most t over-threshold queries
// among h + t is the binomial CDF BetaRegularized(p - d; h, t + 1). h(t) is
// the smallest h with odds < 1 - c. A SingleStream run of n queries:
//   - needs n >= h(1) + 1 before any estimate exists (64 queries for p90,
//     662 for p99, at c = 0.99 and d = 0);
//   - takes the largest t with n >= h(t) + t, discards the t - 1 highest
//     values, and reports the largest remaining one, sorted[n - t]: an upper
//     confidence bound on the p-quantile.
// A Server run with t queries over its latency bound passes when
// n >= h(t) + t (459 queries for p99 with none over the bound).
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_EARLY_STOPPING_H_
#define EDGEFLEET_LOADTEST_STATS_EARLY_STOPPING_H_

#include <cstdint>
#include <vector>

namespace edgefleet {
namespace loadtest {

// BetaRegularized(p - d; h, t + 1). REQUIRES: h >= 1, t >= 0, 0 < p - d < 1.
double EarlyStoppingOdds(int64_t h, int64_t t, double p, double d);

// h(t): the smallest h >= 1 with EarlyStoppingOdds(h, t, p, d) < 1 - c.
int64_t MinPassingQueries(int64_t t, double p, double d, double c);

// h(1) + 1: the fewest queries for which an early-stopping estimate of the
// p-quantile exists at confidence c.
int64_t MinQueriesForEarlyStopping(double p, double c);

// h(t) + t: queries needed to show the p-quantile is within a latency bound
// when `overlatency` queries exceeded it (LoadGen's Server rule).
int64_t QueriesNeededForLatencyBound(int64_t overlatency, double p, double c);

struct EarlyStoppingEstimate {
  bool enough = false;  // queries >= min_queries.
  int64_t queries = 0;
  int64_t min_queries = 0;
  int64_t discarded = 0;  // t - 1 highest values set aside.
  double estimate = 0;    // sorted[queries - t]; NaN when !enough.
};

// LoadGen's SingleStream estimate of the p-quantile of `sorted` (ascending).
EarlyStoppingEstimate EstimateWithEarlyStopping(const std::vector<double>& sorted, double p,
                                                double c);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_EARLY_STOPPING_H_
