// Rank tests for "did anything change between the arms": the Wilcoxon
// signed-rank test for paired observations and the Mann–Whitney U test for
// independent samples. They test a shift of the whole distribution, not a
// particular quantile; the quantile CIs in bootstrap.h give the size.
//
// Conventions follow scipy.stats (wilcoxon with zero_method="wilcox",
// mannwhitneyu), so the committed scipy reference values check them:
//  - Average ranks for ties; zero differences are dropped (Wilcoxon's rule).
//  - Normal approximation with the tie-corrected variance and a continuity
//    correction of 1/2 towards the mean.
//  - Exact null distribution (two-sided p = 2 * min tail, capped at 1) when
//    there are no ties (and no zeros) and the sample is small: n <= 50 for
//    the signed-rank test, min(n1, n2) <= 8 for U, as scipy's "auto" does.
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_RANK_TESTS_H_
#define EDGEFLEET_LOADTEST_STATS_RANK_TESTS_H_

#include <cstddef>
#include <vector>

namespace edgefleet {
namespace loadtest {

enum class RankTestMethod { kAuto, kExact, kNormal };

struct RankTestResult {
  // Wilcoxon: min(W+, W-), scipy's two-sided statistic. Mann–Whitney: U of
  // the first sample, U_x = #(x > y) + #(x == y) / 2.
  double statistic = 0;
  // Wilcoxon: W+, the rank sum of positive differences. Mann–Whitney: equal
  // to `statistic`.
  double rank_sum = 0;
  // Continuity-corrected z of the normal approximation (NaN when exact).
  double z = 0;
  double p_value = 1;                               // Two-sided.
  RankTestMethod method = RankTestMethod::kNormal;  // kExact or kNormal.
  size_t n = 0;  // Wilcoxon: non-zero differences. Mann–Whitney: n_x + n_y.
  // Effect size. Wilcoxon: matched-pairs rank-biserial (W+ - W-)/(W+ + W-),
  // in [-1, 1], > 0 when the differences tend to be positive. Mann–Whitney:
  // probability of superiority U_x / (n_x n_y) = P(X > Y) + P(X = Y) / 2.
  double effect = 0;
};

// Signed-rank test of `differences` (e.g. B - A per paired unit) against a
// distribution symmetric about zero. With no non-zero differences the result
// has p_value 1 and n 0.
RankTestResult WilcoxonSignedRank(const std::vector<double>& differences,
                                  RankTestMethod method = RankTestMethod::kAuto);

// Mann–Whitney U test of x against y. REQUIRES: both non-empty.
RankTestResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y,
                            RankTestMethod method = RankTestMethod::kAuto);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_RANK_TESTS_H_
