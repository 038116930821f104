#include "loadtest/report/session_means.h"

#include <cmath>
#include <vector>

#include "loadtest/stats/cuped.h"

namespace edgefleet {
namespace loadtest {
namespace {

struct Covariate {
  const char* name;
  // log(covariate) of unit u of `arm`, or NaN when unknown.
  double (*log_of)(const ArmAggregate& arm, uint32_t u);
};

double LogDeviceFactor(const ArmAggregate& arm, uint32_t u) {
  const double f = u < arm.unit_device_time_factor.size() ? arm.unit_device_time_factor[u] : 0;
  return f > 0 ? std::log(f) : NAN;
}

double LogPrePeriod(const ArmAggregate& arm, uint32_t u) {
  const int64_t us = u < arm.unit_pre_period_us.size() ? arm.unit_pre_period_us[u] : -1;
  return us > 0 ? std::log(static_cast<double>(us)) : NAN;
}

constexpr Covariate kCovariates[] = {{"device_time_factor", LogDeviceFactor},
                                     {"pre_period", LogPrePeriod}};

MeanChange ToChange(const MeanDifference& d) {
  return {std::expm1(d.estimate), std::expm1(d.lower), std::expm1(d.upper), d.std_error};
}

}  // namespace

SessionMeanReport AnalyzeSessionMeans(const FleetAggregate& fleet, const ScopeAggregate& scope,
                                      Metric metric, const std::map<std::string, double>* weights,
                                      double confidence) {
  const int m = static_cast<int>(metric);
  // The strata: (scope, weight).
  std::vector<std::pair<const ScopeAggregate*, double>> strata;
  if (weights != nullptr) {
    for (size_t i = 1; i < fleet.scopes.size(); ++i) {
      const auto w = weights->find(fleet.scopes[i].name);
      if (w != weights->end() && w->second > 0) strata.emplace_back(&fleet.scopes[i], w->second);
    }
  } else {
    strata.emplace_back(&scope, 1.0);
  }
  SessionMeanReport out;
  std::vector<double> stratum_weights;
  for (const auto& [s, w] : strata) stratum_weights.push_back(w);
  for (const Covariate& cov : kCovariates) {
    std::vector<CovariateUnit> units;
    int64_t with = 0, without = 0, n[2] = {0, 0};
    for (size_t k = 0; k < strata.size(); ++k) {
      for (int arm = 0; arm < 2; ++arm) {
        const ArmAggregate& a = strata[k].first->arms[arm];
        for (const auto& [unit, value] : a.unit_values[m]) {
          if (!(value > 0)) continue;
          ++n[arm];
          const double x = cov.log_of(a, unit);
          if (std::isnan(x)) {
            ++without;
            continue;
          }
          ++with;
          units.push_back(
              {static_cast<uint32_t>(k), arm == 1, std::log(value), x, a.unit_device[unit]});
        }
      }
    }
    if (with == 0) continue;  // the records do not carry this covariate
    out.present = true;
    out.units_a = n[0];
    out.units_b = n[1];
    if (without > 0) {
      out.note += std::string(out.note.empty() ? "" : "; ") + cov.name + " missing for " +
                  std::to_string(without) + " sessions";
      continue;
    }
    const CupedComparison c = CupedCompare(units, stratum_weights, confidence);
    if (!c.valid) {
      out.note += std::string(out.note.empty() ? "" : "; ") + cov.name + ": " + c.note;
      continue;
    }
    out.unadjusted = ToChange(c.unadjusted);
    out.adjusted.push_back({cov.name, ToChange(c.adjusted), c.variance_ratio});
  }
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet
