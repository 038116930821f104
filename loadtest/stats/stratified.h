// Stratified (mixture) quantiles of a fleet and their cluster-bootstrap
// comparison between two arms.
//
// A fleet is a mixture of device classes (strata). Its distribution of a
// metric is F(x) = sum_c w_c F_c(x), where F_c is class c's empirical CDF
// (every observation of the class weighs the same) and w_c the class's
// population share from the fleet spec, normalized over the strata given.
// The same w_c are used for both arms, so chance imbalance in how many
// devices of each class an arm received (hashed assignment) cannot move the
// fleet estimate: only the per-class distributions can. The p-quantile is
// inf{x : F(x) >= p}, always an observed value; with one stratum it is the
// nearest-rank quantile of quantile.h.
//
// Smoothing: when p falls on a cumulative class share (two classes at 50/50
// and p50), F is flat at p across the gap between the classes' supports, the
// quantile is not unique, and inf{...} is the fast class's largest value: a
// sample maximum that swings from run to run. So the fleet estimate is the
// mean of the mixture's quantile function over [p - h, p + h] (a kernel
// quantile estimator with a uniform kernel, Sheather & Marron 1990), with
// h = min(bandwidth, p/2, (1-p)/2); the default bandwidth 0.01 gives
// [0.49, 0.51] for p50, [0.89, 0.91] for p90 and [0.985, 0.995] for p99. Its
// target is unique whatever the class shares; inside a class with a smooth
// distribution it differs from the plain quantile by O(h^2). bandwidth 0 gives
// the plain quantile inf{x : F(x) >= p}.
//
// The bootstrap resamples within strata: each replicate gives every unit of
// every stratum a Poisson(1) weight (shared between arms in the paired
// design, independent per arm in the hashed design); within a stratum the
// observations' weights are normalized by the stratum's replicate total, and
// the stratum keeps its share w_c. A replicate that leaves some stratum of an
// arm without weight is dropped (reported in `replicates`). The interval is
// the percentile interval of the replicates of B - A and B/A - 1, as in
// bootstrap.h, and replicate r draws from MixSeed(seed, r), so results do not
// depend on the thread count. Cost: O(replicates * (units + observations)).
//
// Thread-safe: reads its inputs only.

#ifndef EDGEFLEET_LOADTEST_STATS_STRATIFIED_H_
#define EDGEFLEET_LOADTEST_STATS_STRATIFIED_H_

#include <cstdint>
#include <vector>

#include "loadtest/stats/bootstrap.h"

namespace edgefleet {
namespace loadtest {

// One stratum: a class's samples on both arms and its population share.
struct Stratum {
  const ClusteredSample* a = nullptr;  // Sorted, non-empty.
  uint32_t units_a = 0;
  const ClusteredSample* b = nullptr;  // Sorted, non-empty.
  uint32_t units_b = 0;
  double weight = 0;  // > 0; normalized over the strata.
};

inline constexpr double kFleetQuantileBandwidth = 0.01;

// h of the smoothing window at p: min(bandwidth, p/2, (1-p)/2).
double FleetQuantileBandwidth(double p, double bandwidth);

// Quantile of one arm's mixture, without resampling (smoothed as above).
// REQUIRES: non-empty samples, weights > 0, same sizes, 0 < p < 1,
// bandwidth >= 0.
double MixtureQuantile(const std::vector<const ClusteredSample*>& samples,
                       const std::vector<double>& weights, double p, double bandwidth);

// Per-arm bootstrap percentile interval of the (smoothed) mixture quantile,
// next to the comparison of the arms.
struct StratifiedComparison {
  QuantileComparison diff;          // a, b: mixture quantiles; intervals as bootstrap.h
  double a_lower = 0, a_upper = 0;  // Percentile interval of A's quantile.
  double b_lower = 0, b_upper = 0;
};

// Compares B's mixture quantiles with A's at every p in `quantiles`
// (ascending in the output). options.paired requires units_a == units_b in
// each stratum.
// REQUIRES: strata non-empty and valid as above; 0 < each p < 1.
std::vector<StratifiedComparison> CompareStratifiedQuantiles(const std::vector<Stratum>& strata,
                                                             const std::vector<double>& quantiles,
                                                             const BootstrapOptions& options,
                                                             double bandwidth);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_STRATIFIED_H_
