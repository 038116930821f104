#include "loadtest/stats/early_stopping.h"

#include <cassert>
#include <limits>

#include "loadtest/stats/distributions.h"

namespace edgefleet {
namespace loadtest {

double EarlyStoppingOdds(int64_t h, int64_t t, double p, double d) {
  return RegularizedBeta(p - d, static_cast<double>(h), static_cast<double>(t + 1));
}

int64_t MinPassingQueries(int64_t t, double p, double d, double c) {
  assert(t >= 0 && p - d > 0 && p - d < 1 && c > 0 && c < 1);
  const double limit = 1.0 - c;
  // The odds fall as h grows: double an upper bound, then bisect.
  int64_t lo = 1;
  int64_t hi = 1;
  while (EarlyStoppingOdds(hi, t, p, d) >= limit) {
    lo = hi + 1;
    hi *= 2;
  }
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (EarlyStoppingOdds(mid, t, p, d) < limit) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

int64_t MinQueriesForEarlyStopping(double p, double c) {
  return MinPassingQueries(1, p, 0.0, c) + 1;
}

int64_t QueriesNeededForLatencyBound(int64_t overlatency, double p, double c) {
  return MinPassingQueries(overlatency, p, 0.0, c) + overlatency;
}

EarlyStoppingEstimate EstimateWithEarlyStopping(const std::vector<double>& sorted, double p,
                                                double c) {
  EarlyStoppingEstimate out;
  const int64_t n = static_cast<int64_t>(sorted.size());
  out.queries = n;
  out.min_queries = MinQueriesForEarlyStopping(p, c);
  out.estimate = std::numeric_limits<double>::quiet_NaN();
  if (n < out.min_queries) return out;
  out.enough = true;
  // h(t) + t grows with t: bisect for the largest t with h(t) + t <= n.
  int64_t lo = 1;  // Known to satisfy it.
  int64_t hi = n;  // h(n) + n > n.
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (QueriesNeededForLatencyBound(mid, p, c) <= n) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  out.discarded = lo - 1;
  out.estimate = sorted[n - lo];
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet
