// Covariate-adjusted (CUPED) comparison of two arms' means, within strata.
//
// A covariate X known before treatment (a device's speed, what the device
// measured in a pre-period on arm A) is independent of the arm a device
// was assigned to, so subtracting the part of the outcome Y that X
// predicts changes no arm's expected mean difference but removes that part
// of the variance (Deng, Xu, Kohavi & Walker 2013, "CUPED"). Within each
// stratum s (device class):
//
//   theta_s = cov(Y, X) / var(X)   over the stratum's units of both arms
//   Y'      = Y - theta_s (X - mean_s X)
//   d_s     = mean_B(Y') - mean_A(Y'),  var(d_s) = v_B + v_A
//
// Units come in clusters (a device's sessions share its speed draw and its
// assignment), so an arm's mean has the cluster-robust variance
//
//   v = G / (G - 1) * sum_g (sum_{i in g} (Y'_i - mean Y'))^2 / n^2
//
// over its G clusters and n units; with one unit per cluster this is
// s^2 / n (s^2 the sample variance, n - 1 denominator). Theta comes
// from the pooled arms, never from one arm, so it carries no treatment
// effect. A stratum whose X does not vary gets theta_s = 0. The fleet
// estimate is sum_s w_s d_s with variance sum_s w_s^2 var(d_s), w_s the
// strata weights normalized over the strata given (the fleet spec's
// population shares, as stratified.h), and the interval is normal at
// `confidence`. The unadjusted comparison is the same with theta = 0, so
// the two are directly comparable: their variance ratio is the variance
// reduction, 1 - rho^2 within strata when the regression is linear.
//
// The variance treats the arms as independent samples (the hashed design);
// for paired units it is conservative. The uncertainty of theta itself is
// left out (O(1/n), as in CUPED).
//
// Thread-safe: reads its inputs only.

#ifndef EDGEFLEET_LOADTEST_STATS_CUPED_H_
#define EDGEFLEET_LOADTEST_STATS_CUPED_H_

#include <cstdint>
#include <string>
#include <vector>

namespace edgefleet {
namespace loadtest {

// One unit (a device session) of the comparison.
struct CovariateUnit {
  uint32_t stratum = 0;  // index into the weights
  bool arm_b = false;    // false: arm A
  double y = 0;          // outcome, finite
  double x = 0;          // pre-treatment covariate, finite
  // The unit's cluster (device) within its stratum and arm: units with the
  // same number are one cluster.
  uint32_t cluster = 0;
};

// A difference of means with its normal interval.
struct MeanDifference {
  double estimate = 0;
  double std_error = 0;
  double lower = 0;
  double upper = 0;
};

struct CupedComparison {
  // False when some stratum with a positive weight has fewer than two
  // clusters on an arm (its variance is undefined); `note` says which. The figures
  // below are then left at zero.
  bool valid = false;
  std::string note;
  MeanDifference unadjusted;  // theta = 0
  MeanDifference adjusted;
  std::vector<double> theta;  // per stratum (0 for strata without units)
  // adjusted.std_error^2 / unadjusted.std_error^2 (NaN when the unadjusted
  // variance is 0).
  double variance_ratio = 0;
};

// Compares arm B's mean of y with arm A's, adjusted for x within strata.
// REQUIRES: weights >= 0 with a positive sum, every unit's stratum <
// weights.size(), finite y and x, 0 < confidence < 1. Strata of weight 0
// are ignored.
CupedComparison CupedCompare(const std::vector<CovariateUnit>& units,
                             const std::vector<double>& weights, double confidence);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_CUPED_H_
