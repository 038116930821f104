#include "runtime/tools/latency_stats.h"

#include <algorithm>
#include <cmath>

namespace edgefleet {
namespace tools {

double NearestRankPercentile(const std::vector<double>& sorted, double p) {
  const double n = static_cast<double>(sorted.size());
  // Rank in [1, n]; the small tolerance keeps exact products (0.9 * 10)
  // from rounding up to the next rank.
  double rank = std::ceil(p / 100.0 * n - 1e-9);
  rank = std::min(std::max(rank, 1.0), n);
  return sorted[static_cast<size_t>(rank) - 1];
}

LatencySummary SummarizeLatencies(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  LatencySummary summary;
  summary.p50 = NearestRankPercentile(samples, 50);
  summary.p90 = NearestRankPercentile(samples, 90);
  summary.min = samples.front();
  summary.max = samples.back();
  double sum = 0;
  for (double s : samples) sum += s;
  summary.mean = sum / static_cast<double>(samples.size());
  return summary;
}

}  // namespace tools
}  // namespace edgefleet
