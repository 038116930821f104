#include "loadtest/stats/power.h"

#include <cmath>

#include "loadtest/stats/distributions.h"

namespace edgefleet {
namespace loadtest {

int64_t UnitsPerArmForQuantileChange(double alpha, double power, double unit_variance,
                                     double effect) {
  const double z = NormalQuantile(1 - alpha / 2) + NormalQuantile(power);
  const double d = std::log1p(effect);
  return static_cast<int64_t>(std::ceil(z * z * 2 * unit_variance / (d * d)));
}

int64_t SessionsForRateBelowCeiling(double alpha, double power, double rate, double ceiling) {
  if (rate >= ceiling) return -1;
  const double a = NormalQuantile(1 - alpha / 2) * std::sqrt(ceiling * (1 - ceiling));
  const double b = NormalQuantile(power) * std::sqrt(rate * (1 - rate));
  const double gap = ceiling - rate;
  return static_cast<int64_t>(std::ceil((a + b) * (a + b) / (gap * gap)));
}

double UnitVarianceFromInterval(double lower, double upper, double n, double confidence) {
  const double h = (std::log1p(upper) - std::log1p(lower)) / 2;
  const double z = NormalQuantile(1 - (1 - confidence) / 2);
  return n * (h / z) * (h / z) / 2;
}

int64_t UnitsToDecide(double estimate, double half_width, int64_t n, double theta) {
  const double gap = std::fabs(std::log1p(estimate) - std::log1p(theta));
  if (!(gap > 0) || !std::isfinite(half_width)) return -1;
  const double ratio = half_width / gap;
  return static_cast<int64_t>(std::ceil(static_cast<double>(n) * ratio * ratio));
}

}  // namespace loadtest
}  // namespace edgefleet
