// Distribution functions the A/B statistics need: the standard normal CDF and
// quantile, the regularized incomplete beta and gamma functions, and the
// binomial and chi-square distributions built on them.
//
// All functions are pure and thread-safe. They are written from the textbook
// definitions (DLMF chapters 7, 8) and checked against scipy in
// distributions_test.cc; they are not tuned for extreme tails beyond what the
// report needs (p-values down to ~1e-300, binomial n up to ~1e9).

#ifndef EDGEFLEET_LOADTEST_STATS_DISTRIBUTIONS_H_
#define EDGEFLEET_LOADTEST_STATS_DISTRIBUTIONS_H_

#include <cstdint>

namespace edgefleet {
namespace loadtest {

// P(Z <= x) for a standard normal Z.
double NormalCdf(double x);

// P(Z > x), accurate in the upper tail.
double NormalSurvival(double x);

// The x with NormalCdf(x) == p. REQUIRES: 0 < p < 1.
double NormalQuantile(double p);

// I_x(a, b), the regularized incomplete beta function (the CDF at x of a
// Beta(a, b) variable). REQUIRES: a > 0, b > 0, 0 <= x <= 1.
double RegularizedBeta(double x, double a, double b);

// Q(a, x) = Gamma(a, x) / Gamma(a), the regularized upper incomplete gamma
// function. REQUIRES: a > 0, x >= 0.
double RegularizedGammaUpper(double a, double x);

// P(X <= k) for X ~ Binomial(n, p). 0 for k < 0, 1 for k >= n.
// REQUIRES: n >= 0, 0 <= p <= 1.
double BinomialCdf(int64_t k, int64_t n, double p);

// The smallest k in [0, n] with BinomialCdf(k, n, p) >= q (scipy's
// binom.ppf). REQUIRES: 0 <= q <= 1.
int64_t BinomialQuantile(double q, int64_t n, double p);

// P(X > x) for X ~ chi-square with `df` degrees of freedom. REQUIRES: df > 0.
double ChiSquareSurvival(double x, double df);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_DISTRIBUTIONS_H_
