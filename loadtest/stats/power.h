// Sample sizes: how many sessions an experiment needs before it runs
// (`edgefleet-loadtest plan`), and how many more an inconclusive comparison
// would need (the report).
//
// Quantile change: with two independent arms of n units each and a per-unit
// variance s2 of the log of the quantile estimate (Var(log q_hat) ~ s2 / n),
// a two-sided test at level alpha detects a relative change delta with power
// 1 - beta when
//     n = (z_{1-alpha/2} + z_{1-beta})^2 * 2 * s2 / log(1 + delta)^2.
// Guardrail: showing a rate r is below a ceiling c with the upper bound of a
// two-sided 1 - alpha interval needs (one-sample normal approximation)
//     n = (z_{1-alpha/2} sqrt(c (1 - c)) + z_{1-beta} sqrt(r (1 - r)))^2
//         / (c - r)^2.
// Both round up. Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_POWER_H_
#define EDGEFLEET_LOADTEST_STATS_POWER_H_

#include <cstdint>

namespace edgefleet {
namespace loadtest {

// Units per arm (formula above). REQUIRES: 0 < alpha < 1, 0 < power < 1,
// unit_variance > 0, effect > -1 and != 0.
int64_t UnitsPerArmForQuantileChange(double alpha, double power, double unit_variance,
                                     double effect);

// Sessions of the arm (formula above); -1 when rate >= ceiling (never).
// REQUIRES: 0 < alpha < 1, 0 < power < 1, 0 <= rate, 0 < ceiling < 1.
int64_t SessionsForRateBelowCeiling(double alpha, double power, double rate, double ceiling);

// Per-unit variance of log(q_hat) from a confidence interval [lower, upper]
// of the relative change b/a - 1 at `confidence` between two independent
// arms of n units each: half-width on the log scale h = z * sqrt(2 s2 / n).
// REQUIRES: -1 < lower < upper, n > 0, 0 < confidence < 1.
double UnitVarianceFromInterval(double lower, double upper, double n, double confidence);

// Units per arm for an interval around `estimate` (relative change) whose
// half-width on the log scale is `half_width` at n units to decide against
// threshold `theta`: the interval must shrink until it no longer straddles
// log(1 + theta), assuming the estimate stays. Half-widths scale as
// 1/sqrt(n), so n' = n (half_width / |log(1+estimate) - log(1+theta)|)^2.
// Returns -1 when the estimate sits on the threshold (no size decides it).
int64_t UnitsToDecide(double estimate, double half_width, int64_t n, double theta);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_POWER_H_
