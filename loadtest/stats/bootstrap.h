// Cluster (Poisson) bootstrap confidence intervals for the difference and the
// relative change of quantiles between two arms.
//
// Observations are grouped into resampling units: a unit is what was drawn
// independently (the report passes the device, results/aggregate.h: the unit
// of randomization, whose sessions share its speed). Observations of one
// unit are correlated, so resampling them singly would understate the
// variance; each replicate instead gives every unit a Poisson(1) weight and
// weighs all of the unit's observations by it (the Poisson bootstrap, Hanley
// & MacGibbon 2006; Chamandy et al. 2012). In the paired design the two arms
// share one unit space (a device run on both arms) and one weight per unit,
// which keeps the pairing; unpaired arms get independent weights. A unit
// present in only one arm (e.g. killed before its first inference on the
// other) is simply absent from the other arm's sample.
//
// The replicate quantile is the weighted nearest rank: the smallest value
// whose cumulative weight reaches ceil(p * W). The interval is the percentile
// interval of the replicate differences. Each replicate draws from its own
// stream MixSeed(seed, replicate), so results do not depend on the thread
// count. Cost: O(replicates * (units + 0.6 * observations)).
//
// ClusteredSample is a value type, not thread-safe while being built; the
// bootstrap reads it from several threads once sorted.

#ifndef EDGEFLEET_LOADTEST_STATS_BOOTSTRAP_H_
#define EDGEFLEET_LOADTEST_STATS_BOOTSTRAP_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace edgefleet {
namespace loadtest {

class ClusteredSample {
 public:
  // Adds an observation of resampling unit `unit`.
  void Add(double value, uint32_t unit) { pending_.emplace_back(value, unit); }
  // Sorts everything added so far by (value, unit), a total order, so equal
  // inputs in any insertion order give identical samples. The accessors
  // below see only what was added before the last Sort().
  void Sort();

  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  // Ascending values and the unit of each.
  const std::vector<double>& values() const { return values_; }
  const std::vector<uint32_t>& units() const { return units_; }

 private:
  std::vector<std::pair<double, uint32_t>> pending_;
  std::vector<double> values_;
  std::vector<uint32_t> units_;
};

struct BootstrapOptions {
  int replicates = 1000;
  double confidence = 0.95;  // Two-sided.
  uint64_t seed = 0;
  // Paired: both samples index one unit space and share weights.
  bool paired = true;
  int threads = 1;
};

struct QuantileComparison {
  double p = 0;
  double a = 0;     // Nearest-rank quantile of arm A.
  double b = 0;     // Nearest-rank quantile of arm B.
  double diff = 0;  // b - a.
  double diff_lower = 0;
  double diff_upper = 0;
  double rel = 0;  // b / a - 1; NaN when a == 0.
  double rel_lower = 0;
  double rel_upper = 0;
  int replicates = 0;  // Replicates with weight in both arms.
};

// Compares arm B with arm A at each quantile in `quantiles`.
// REQUIRES: a and b sorted and non-empty; every unit of a is < units_a and of
// b < units_b; units_a == units_b when options.paired; 0 < each p < 1.
std::vector<QuantileComparison> CompareQuantiles(const ClusteredSample& a, uint32_t units_a,
                                                 const ClusteredSample& b, uint32_t units_b,
                                                 const std::vector<double>& quantiles,
                                                 const BootstrapOptions& options);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_BOOTSTRAP_H_
