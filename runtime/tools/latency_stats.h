// Summary statistics of a latency sample (edgefleet-run's timed iterations).
//
// Percentiles use the nearest-rank method: the p-th percentile of n sorted
// samples is the ceil(p/100 * n)-th smallest (1-based), always an observed
// value. Stateless functions; thread-safe.

#ifndef EDGEFLEET_RUNTIME_TOOLS_LATENCY_STATS_H_
#define EDGEFLEET_RUNTIME_TOOLS_LATENCY_STATS_H_

#include <vector>

namespace edgefleet {
namespace tools {

struct LatencySummary {
  double p50 = 0;
  double p90 = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
};

// Nearest-rank percentile. REQUIRES: `sorted` is non-empty and ascending;
// 0 < p <= 100.
double NearestRankPercentile(const std::vector<double>& sorted, double p);

// REQUIRES: `samples` is non-empty.
LatencySummary SummarizeLatencies(std::vector<double> samples);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_LATENCY_STATS_H_
