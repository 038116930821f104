// The replicate loop of the Poisson cluster bootstraps (bootstrap.h for the
// quantiles of two samples, stratified.h for mixture quantiles): weights,
// seeding, threading and percentile intervals, written once.
//
// Replicate r draws from its own stream MixSeed(options.seed, r): first a
// Poisson(1) weight for every unit of arm A, then (unpaired) for every unit
// of arm B; paired arms share A's weights. The caller turns the weights into
// the replicate's quantiles of each arm. Results do not depend on the thread
// count.
//
// Internal to loadtest/stats; thread-safe as long as `quantiles` is (it is
// called concurrently, each call with its own output rows and scratch).

#ifndef EDGEFLEET_LOADTEST_STATS_REPLICATES_H_
#define EDGEFLEET_LOADTEST_STATS_REPLICATES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "loadtest/stats/bootstrap.h"

namespace edgefleet {
namespace loadtest {

// The replicates' quantiles, [replicate * q + j]; NaN for a replicate the
// caller dropped (it left an arm without weight).
struct Replicates {
  size_t q = 0;
  std::vector<double> a, b;
};

// Writes the replicate's q quantiles of A to qa and of B to qb from the
// unit weights wa, wb; false drops the replicate. `scratch` is the calling
// thread's own.
using ReplicateQuantilesFn = std::function<bool(const uint8_t* wa, const uint8_t* wb, double* qa,
                                                double* qb, std::vector<double>* scratch)>;

// Runs options.replicates replicates over units_a and units_b units
// (options.paired: units_b is ignored, B shares A's weights).
Replicates RunReplicates(const BootstrapOptions& options, size_t units_a, size_t units_b, size_t q,
                         const ReplicateQuantilesFn& quantiles);

// Percentile interval of the finite entries of `v` (sorted in place);
// NaNs when there are none.
std::pair<double, double> PercentileInterval(std::vector<double>& v, double confidence);

// Fills c's diff and relative intervals and replicate count from quantile
// j's replicates (c.a, c.b and the estimates stay as the caller set them);
// the percentile intervals of A's and B's quantile go to *a and *b when
// not null.
void SummarizeReplicates(const Replicates& r, size_t j, double confidence, QuantileComparison* c,
                         std::pair<double, double>* a, std::pair<double, double>* b);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_REPLICATES_H_
