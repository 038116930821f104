// The decision rule that turns confidence intervals into a verdict per metric.
//
// Every metric the fleet A/B compares (load time, first inference, steady
// latency, peak memory, ANR and OOM rates) is lower-is-better. Each decision
// compares an interval for B's change against a minimum effect θ (5 % for
// quantiles, an absolute margin for rates), with two intervals:
//
//  - A claim (regression: B worse by more than θ; improvement: better by
//    more than θ) needs the claim interval, computed at the Bonferroni
//    confidence 1 - α/k over the k claims one report can make. The chance
//    that a report with no real change claims anything is then at most α.
//  - Clearance ("no regression of θ or more") needs the ordinary 1 - α
//    interval below +θ. A run passes only if every comparison clears: an
//    intersection-union test, whose level needs no adjustment (Berger 1982).
//
// Per metric, over its decision quantiles (p50 and p90 by default):
//   regression    some claim interval lies entirely above +θ;
//   inconclusive  otherwise, if some quantile is not cleared, lacks enough
//                 samples, or has no interval;
//   improvement   otherwise, if some claim interval lies entirely below -θ;
//   neutral       otherwise.
// Rates use the same rule on rate_b - rate_a; guardrails map breach →
// regression, inconclusive → inconclusive, pass → neutral.
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_VERDICT_H_
#define EDGEFLEET_LOADTEST_STATS_VERDICT_H_

#include <utility>
#include <vector>

#include "loadtest/stats/proportion.h"

namespace edgefleet {
namespace loadtest {

enum class Verdict { kNeutral, kImprovement, kInconclusive, kRegression };

const char* VerdictName(Verdict verdict);

// The more severe of two verdicts for gating: regression > inconclusive >
// improvement > neutral.
Verdict WorseVerdict(Verdict a, Verdict b);

// 1 - (1 - confidence) / comparisons. REQUIRES: comparisons >= 1.
double BonferroniConfidence(double confidence, int comparisons);

// Re-expresses [lower, upper], an interval around `estimate` at confidence
// `from`, at confidence `to`: each side's distance from the estimate is
// scaled by z(to) / z(from). A normal approximation that keeps the
// interval's asymmetry; used to get claim intervals from bootstrap
// intervals, whose replicate count cannot resolve tails of α/k directly.
std::pair<double, double> RescaleInterval(double estimate, double lower, double upper, double from,
                                          double to);

struct QuantileEvidence {
  double p = 0;
  // Intervals of b/a - 1; NaN bounds when they could not be computed.
  double clear_lower = 0, clear_upper = 0;  // At the report's confidence.
  double claim_lower = 0, claim_upper = 0;  // At the Bonferroni confidence.
  bool enough_samples = false;
};

// The rule above over a metric's decision quantiles.
Verdict DecideQuantileVerdict(const std::vector<QuantileEvidence>& evidence, double min_effect);

// The rule above on rate_b - rate_a with absolute `margin`.
Verdict DecideRateVerdict(const RateDifference& clearance, const RateDifference& claim,
                          double margin);

Verdict GuardrailVerdict(GuardrailStatus status);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_VERDICT_H_
