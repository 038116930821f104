// Group-sequential monitoring: look at an experiment K times as it grows and
// stop at the first look where every verdict is decided, with the
// false-positive rate held at the nominal level over all looks.
//
// Design: K looks at increasing information fractions t_1 < ... < t_K = 1
// (look k analyses the devices of the first k of K hashed groups, so every
// look is a random sample of the spec's fleet, and t_k is the share of the
// planned sessions run by then). The two-sided type-I error alpha is spent
// over the looks by a Lan-DeMets spending function alpha(t) (Lan & DeMets
// 1983, Biometrika 70:659):
//   O'Brien-Fleming type  alpha(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t))
//   Pocock type           alpha(t) = alpha ln(1 + (e - 1) t)
// The critical value c_k of look k solves
//   P(|Z_1| < c_1, ..., |Z_{k-1}| < c_{k-1}, |Z_k| >= c_k) = alpha(t_k) - alpha(t_{k-1})
// under the canonical joint distribution of sequential z-statistics
// (Z_k sqrt(t_k) a Brownian motion at times t_k: independent increments,
// which asymptotically normal estimators such as quantiles and rates have),
// computed by recursive numerical integration (Armitage, McPherson & Rowe
// 1969; Jennison & Turnbull 2000, ch. 19). Every interval at look k is then
// at confidence 2 Phi(c_k) - 1, and the probability that any look's
// interval excludes the truth is alpha. Boundaries of more than kMaxBound
// are capped there (the error spent by such a look is below 3e-12).
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_SEQUENTIAL_H_
#define EDGEFLEET_LOADTEST_STATS_SEQUENTIAL_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace edgefleet {
namespace loadtest {

enum class Spending { kObrienFleming, kPocock };

// "obrien-fleming" / "pocock".
const char* SpendingName(Spending spending);
// Parses a SpendingName; false for anything else.
bool ParseSpending(std::string_view name, Spending* spending);

inline constexpr double kMaxBound = 7.0;

// Cumulative two-sided error spent by information fraction t.
// REQUIRES: 0 < alpha < 1, 0 <= t <= 1.
double SpentAlpha(Spending spending, double alpha, double t);

// Under H0, the probability of exiting at each look: P(|Z_j| < bounds[j] for
// j < k, |Z_k| >= bounds[k]) for k = 0..K-1 (their sum is the probability of
// ever crossing). REQUIRES: fractions strictly increasing in (0, 1], bounds
// > 0, same sizes.
std::vector<double> ExitProbabilities(const std::vector<double>& fractions,
                                      const std::vector<double>& bounds);

// Critical values c_1..c_K of the spending design above.
// REQUIRES: fractions strictly increasing in (0, 1], 0 < alpha < 1.
std::vector<double> SpendingBoundary(Spending spending, double alpha,
                                     const std::vector<double>& fractions);

// Confidence of every interval at look `look` (1-based) for an overall
// confidence `confidence`: 2 Phi(c_look) - 1. With one look (fractions {1})
// it is `confidence` itself.
// REQUIRES: as SpendingBoundary, 1 <= look <= fractions.size().
double LookConfidence(Spending spending, double confidence, const std::vector<double>& fractions,
                      int look);

// Group 0..looks-1 of a device: which look first includes it. Derived from
// the assignment hash of (seed, device), so groups are random samples of
// every class, the same in every shard and rerun.
int LookOfDevice(uint64_t seed, uint64_t device_id, int looks);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_SEQUENTIAL_H_
