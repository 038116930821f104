// Nearest-rank quantiles and their distribution-free confidence intervals.
//
// The p-quantile of n sorted values is the value of 1-based rank ceil(p * n)
// (clamped to [1, n]): always an observed value, never interpolated. It equals
// numpy's `percentile(..., method="inverted_cdf")`. MLPerf LoadGen indexes
// `sorted[floor(n * p)]` instead, which differs by one rank when n * p is an
// integer; the LoadGen-style early-stopping estimate lives in
// early_stopping.h.
//
// The confidence interval is the order-statistic (binomial) interval: the
// number of observations at or below the true quantile is Binomial(n, p), so
// [x_(l), x_(u)] covers it with probability F(u - 1) - F(l - 1), where F is the
// Binomial(n, p) CDF. l and u are chosen equal-tailed, as tight as possible
// while keeping coverage >= the requested confidence. It assumes independent
// observations from a continuous distribution; for clustered samples (many
// latencies per session) it is too narrow, which is why differences between
// arms use the cluster bootstrap in bootstrap.h.
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_QUANTILE_H_
#define EDGEFLEET_LOADTEST_STATS_QUANTILE_H_

#include <cstddef>
#include <vector>

namespace edgefleet {
namespace loadtest {

// 0-based index of the nearest-rank p-quantile among n sorted values.
// REQUIRES: n > 0, 0 <= p <= 1.
size_t NearestRankIndex(size_t n, double p);

// The nearest-rank p-quantile. REQUIRES: `sorted` is ascending and non-empty.
double NearestRank(const std::vector<double>& sorted, double p);

// The 1-based rank ceil(p * total), clamped to [1, total], for an integer
// total (also used for weighted samples whose weights sum to `total`).
// REQUIRES: total > 0.
long long NearestRankOf(long long total, double p);

struct QuantileInterval {
  double p = 0;
  double estimate = 0;
  // 1-based ranks of the bounds. lower_rank == 0 means the sample is too
  // small for a lower bound at this confidence (the bound is -infinity);
  // upper_rank == n + 1 means no upper bound (+infinity).
  size_t lower_rank = 0;
  size_t upper_rank = 0;
  double lower = 0;  // -infinity when lower_rank == 0.
  double upper = 0;  // +infinity when upper_rank == n + 1.
  // Exact coverage probability of [lower, upper] under the binomial model.
  double coverage = 0;
};

// Nearest-rank estimate with its equal-tailed order-statistic interval.
// REQUIRES: `sorted` ascending and non-empty, 0 < p < 1, 0 < confidence < 1.
QuantileInterval OrderStatisticInterval(const std::vector<double>& sorted, double p,
                                        double confidence);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_QUANTILE_H_
