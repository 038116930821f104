#include "loadtest/stats/cuped.h"

#include <cmath>
#include <map>
#include <utility>

#include "loadtest/stats/distributions.h"

namespace edgefleet {
namespace loadtest {
namespace {

// Per-stratum, per-arm running sums (two passes keep the variance stable:
// means first, then centred sums).
struct ArmSums {
  double n = 0;
  double sum_y = 0;
  double sum_x = 0;
};

// Residuals summed per cluster of one stratum and arm: (plain, adjusted).
using ClusterSums = std::map<uint32_t, std::pair<double, double>>;

// Cluster-robust variance of a mean of n units from its clusters' residual
// sums (`adjusted`: the second of each pair).
double MeanVariance(const ClusterSums& clusters, double n, bool adjusted) {
  double ss = 0;
  for (const auto& [cluster, e] : clusters) {
    const double sum = adjusted ? e.second : e.first;
    ss += sum * sum;
  }
  const double g = static_cast<double>(clusters.size());
  return g / (g - 1) * ss / (n * n);
}

}  // namespace

CupedComparison CupedCompare(const std::vector<CovariateUnit>& units,
                             const std::vector<double>& weights, double confidence) {
  CupedComparison out;
  const size_t strata = weights.size();
  out.theta.assign(strata, 0.0);
  double total_weight = 0;
  for (double w : weights) total_weight += w;

  // Pass 1: counts and means per stratum and arm, and their clusters.
  std::vector<ArmSums> sums(2 * strata);
  std::vector<ClusterSums> clusters(2 * strata);
  for (const CovariateUnit& u : units) {
    const size_t k = 2 * u.stratum + (u.arm_b ? 1 : 0);
    ArmSums& s = sums[k];
    s.n += 1;
    s.sum_y += u.y;
    s.sum_x += u.x;
    clusters[k][u.cluster];
  }
  for (size_t s = 0; s < strata; ++s) {
    if (weights[s] <= 0) continue;
    for (int arm = 0; arm < 2; ++arm) {
      if (clusters[2 * s + arm].size() < 2) {
        out.note = "stratum " + std::to_string(s) + " has fewer than 2 devices on arm " +
                   (arm == 0 ? "A" : "B");
        return out;
      }
    }
  }
  // Pooled means of x and y per stratum, then theta from centred sums.
  std::vector<double> mean_x(strata, 0), mean_y(strata, 0);
  for (size_t s = 0; s < strata; ++s) {
    const ArmSums& a = sums[2 * s];
    const ArmSums& b = sums[2 * s + 1];
    const double n = a.n + b.n;
    if (n == 0) continue;
    mean_x[s] = (a.sum_x + b.sum_x) / n;
    mean_y[s] = (a.sum_y + b.sum_y) / n;
  }
  // x constant within a stratum (compared exactly, so rounding in the mean
  // cannot make a slope out of nothing): theta 0.
  std::vector<double> sxy(strata, 0), sxx(strata, 0);
  std::vector<char> varies(strata, 0);
  std::vector<double> first_x(strata, std::nan(""));
  for (const CovariateUnit& u : units) {
    double& first = first_x[u.stratum];
    if (std::isnan(first)) first = u.x;
    if (u.x != first) varies[u.stratum] = 1;
    const double dx = u.x - mean_x[u.stratum];
    sxy[u.stratum] += dx * (u.y - mean_y[u.stratum]);
    sxx[u.stratum] += dx * dx;
  }
  for (size_t s = 0; s < strata; ++s) {
    out.theta[s] = varies[s] && sxx[s] > 0 ? sxy[s] / sxx[s] : 0.0;
  }

  // Pass 2: arm means of y and y' per stratum, then residuals per cluster.
  std::vector<double> arm_mean(2 * strata, 0), arm_mean_adj(2 * strata, 0);
  for (const CovariateUnit& u : units) {
    const size_t k = 2 * u.stratum + (u.arm_b ? 1 : 0);
    arm_mean[k] += u.y;
    arm_mean_adj[k] += u.y - out.theta[u.stratum] * (u.x - mean_x[u.stratum]);
  }
  for (size_t k = 0; k < 2 * strata; ++k) {
    if (sums[k].n > 0) {
      arm_mean[k] /= sums[k].n;
      arm_mean_adj[k] /= sums[k].n;
    }
  }
  for (const CovariateUnit& u : units) {
    const size_t k = 2 * u.stratum + (u.arm_b ? 1 : 0);
    std::pair<double, double>& e = clusters[k][u.cluster];
    e.first += u.y - arm_mean[k];
    e.second += u.y - out.theta[u.stratum] * (u.x - mean_x[u.stratum]) - arm_mean_adj[k];
  }

  double est = 0, var = 0, est_adj = 0, var_adj = 0;
  for (size_t s = 0; s < strata; ++s) {
    if (weights[s] <= 0) continue;
    const double w = weights[s] / total_weight;
    const double na = sums[2 * s].n;
    const double nb = sums[2 * s + 1].n;
    est += w * (arm_mean[2 * s + 1] - arm_mean[2 * s]);
    est_adj += w * (arm_mean_adj[2 * s + 1] - arm_mean_adj[2 * s]);
    var +=
        w * w *
        (MeanVariance(clusters[2 * s + 1], nb, false) + MeanVariance(clusters[2 * s], na, false));
    var_adj +=
        w * w *
        (MeanVariance(clusters[2 * s + 1], nb, true) + MeanVariance(clusters[2 * s], na, true));
  }
  const double z = NormalQuantile(0.5 + confidence / 2);
  auto fill = [z](double e, double v, MeanDifference* d) {
    d->estimate = e;
    d->std_error = std::sqrt(v);
    d->lower = e - z * d->std_error;
    d->upper = e + z * d->std_error;
  };
  fill(est, var, &out.unadjusted);
  fill(est_adj, var_adj, &out.adjusted);
  out.variance_ratio = var > 0 ? var_adj / var : std::nan("");
  out.valid = true;
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet
