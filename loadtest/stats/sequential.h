// Group-sequential monitoring: look at an experiment K times as it grows and
// stop at the first look where every verdict is decided, without inflating
// the false-positive rate.
//
// Design: K looks at equal increments of the fleet (look k analyses the
// devices of the first k of K hashed groups, so every look is a random
// sample of the spec's fleet). Every interval at a look is computed at
// confidence 1 - alpha/K (claims at 1 - alpha/(K k_claims)): a Bonferroni
// split of alpha over the looks. By the union bound the probability that any
// look makes a false claim (or a false clearance) is at most alpha, whatever
// the dependence between looks, so the rule stays valid under monitoring at
// every look; it is conservative (a Pocock boundary for independent
// increments would be tighter). Stopping rule: stop after look k if no
// comparison is inconclusive, or after look K.
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_SEQUENTIAL_H_
#define EDGEFLEET_LOADTEST_STATS_SEQUENTIAL_H_

#include <cstdint>

namespace edgefleet {
namespace loadtest {

// Confidence of every interval at each of `looks` looks for an overall
// confidence `confidence`. REQUIRES: looks >= 1, 0 < confidence < 1.
double PerLookConfidence(double confidence, int looks);

// Group 0..looks-1 of a device: which look first includes it. Derived from
// the assignment hash of (seed, device), so groups are random samples of
// every class, the same in every shard and rerun.
int LookOfDevice(uint64_t seed, uint64_t device_id, int looks);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_SEQUENTIAL_H_
