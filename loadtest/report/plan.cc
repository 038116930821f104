#include "loadtest/report/plan.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "loadtest/report/format.h"
#include "loadtest/stats/power.h"
#include "loadtest/stats/random.h"
#include "loadtest/stats/stratified.h"
#include "loadtest/stats/verdict.h"

namespace edgefleet {
namespace loadtest {
namespace {

// Fleet devices that give a scope of population share `share` `sessions`
// sessions per arm.
int64_t DevicesFor(int64_t sessions, double share, const PlanOptions& o) {
  if (sessions < 0 || !(share > 0)) return -1;
  const double per_arm_devices = std::ceil(static_cast<double>(sessions) / o.sessions_per_device);
  const double arm_share = o.hashed ? std::min(o.share_b, 1 - o.share_b) : 1.0;
  return static_cast<int64_t>(std::ceil(per_arm_devices / arm_share / share));
}

}  // namespace

Plan PlanExperiment(const FleetAggregate& pilot, const PlanOptions& o) {
  Plan plan;
  plan.options = o;
  plan.claim_confidence = BonferroniConfidence(o.confidence, o.comparisons);
  const int m = static_cast<int>(o.metric);
  const double alpha = 1 - o.confidence;
  const double claim_alpha = 1 - plan.claim_confidence;
  for (size_t i = 0; i < pilot.scopes.size(); ++i) {
    const ScopeAggregate& scope = pilot.scopes[i];
    const bool overall = i == 0;
    ScopePlan p;
    p.name = scope.name;
    if (!overall) {
      const auto w = o.class_shares.find(scope.name);
      p.share = w == o.class_shares.end() ? 0 : w->second;
    }
    // Strata: the classes for the fleet, the scope itself for a class.
    std::vector<Stratum> strata;
    for (size_t c = overall ? 1 : i; c < (overall ? pilot.scopes.size() : i + 1); ++c) {
      const ScopeAggregate& s = pilot.scopes[c];
      const auto w = o.class_shares.find(s.name);
      const double weight = overall ? (w == o.class_shares.end() ? 0 : w->second) : 1;
      if (weight <= 0 || s.arms[0].samples[m].empty() || s.arms[1].samples[m].empty()) {
        continue;
      }
      strata.push_back({&s.arms[0].samples[m], s.arms[0].devices, &s.arms[1].samples[m],
                        s.arms[1].devices, weight});
      p.pilot_units += std::min(s.arms[0].unit_values[m].size(), s.arms[1].unit_values[m].size());
    }
    p.unit_variance = NAN;
    if (!strata.empty() && p.pilot_units > 1) {
      BootstrapOptions bo;
      bo.replicates = o.replicates;
      bo.paired = false;  // The hashed design's variance.
      bo.seed = MixSeed(o.seed, HashString(scope.name));
      bo.threads = o.threads;
      const auto cmp =
          CompareStratifiedQuantiles(strata, {o.quantile}, bo, kFleetQuantileBandwidth);
      const QuantileComparison& d = cmp[0].diff;
      if (std::isfinite(d.rel_lower) && std::isfinite(d.rel_upper) && d.rel_upper > d.rel_lower) {
        p.unit_variance = UnitVarianceFromInterval(
            d.rel_lower, d.rel_upper, static_cast<double>(p.pilot_units), o.confidence);
      }
    }
    if (std::isfinite(p.unit_variance) && p.unit_variance > 0) {
      p.clear_sessions =
          UnitsPerArmForQuantileChange(alpha, o.power, p.unit_variance, o.min_effect);
      p.detect_is_claim = o.effect > o.min_effect;
      p.detect_sessions =
          p.detect_is_claim
              ? UnitsPerArmForQuantileChange(claim_alpha, o.power, p.unit_variance,
                                             (1 + o.effect) / (1 + o.min_effect) - 1)
              : UnitsPerArmForQuantileChange(alpha, o.power, p.unit_variance, o.effect);
      // min_units counts devices: its sessions at the spec's sessions per device.
      const int64_t min_sessions = o.min_units * o.sessions_per_device;
      p.clear_sessions = std::max(p.clear_sessions, min_sessions);
      p.detect_sessions = std::max(p.detect_sessions, min_sessions);
      p.clear_devices = DevicesFor(p.clear_sessions, p.share, o);
      p.detect_devices = DevicesFor(p.detect_sessions, p.share, o);
    }
    const ArmAggregate& b = scope.arms[1];
    const int64_t trials = b.DeviceSessions();
    p.anr_rate_b = trials > 0 ? static_cast<double>(b.sessions_with_anr) / trials : 0;
    p.anr_ceiling = overall ? o.anr_ceiling_overall : o.anr_ceiling_class;
    p.anr_sessions = SessionsForRateBelowCeiling(alpha, o.power, p.anr_rate_b, p.anr_ceiling);
    if (p.anr_sessions >= 0) p.anr_devices = DevicesFor(p.anr_sessions, p.share, o);
    plan.scopes.push_back(p);
  }
  for (const ScopePlan& p : plan.scopes) {
    const auto fold = [](int64_t acc, int64_t v) {
      return acc == -2 || v < 0 ? -2 : std::max(acc, v);
    };
    plan.devices_for_metric = fold(plan.devices_for_metric, p.detect_devices);
    plan.devices_for_metric = fold(plan.devices_for_metric, p.clear_devices);
    plan.devices_for_anr = fold(plan.devices_for_anr, p.anr_devices);
  }
  if (plan.devices_for_metric == -2) plan.devices_for_metric = -1;
  if (plan.devices_for_anr == -2) plan.devices_for_anr = -1;
  return plan;
}

std::string RenderPlan(const Plan& plan) {
  const PlanOptions& o = plan.options;
  const auto n = [](int64_t v) { return v < 0 ? std::string("—") : std::to_string(v); };
  std::ostringstream md;
  md << "## EdgeFleet power plan: " << MetricName(o.metric) << " p"
     << FormatNumber(100 * o.quantile) << ", change " << FormatSignedPercent(o.effect) << ", power "
     << FormatNumber(100 * o.power) << " %\n\n"
     << (o.hashed ? "Hashed" : "Paired") << " design"
     << (o.hashed ? ", share of B " + FormatNumber(o.share_b) : std::string()) << ", "
     << o.sessions_per_device << " session(s) per device; " << FormatNumber(100 * o.confidence)
     << " % intervals, θ = " << FormatSignedPercent(o.min_effect) << ", claims at "
     << FormatNumber(100 * plan.claim_confidence, 4) << " % (k = " << o.comparisons
     << "). `clear`: a true change of 0 passes (upper "
     << "bound < θ); `detect`: "
     << (o.effect > o.min_effect
             ? "a true change X is claimed as a regression (claim interval above θ)"
             : "a true change X gets a 95 % interval excluding 0 (X ≤ θ: no "
               "regression verdict at this θ)")
     << ". Sessions are per arm; devices are the whole fleet's size that "
        "gives the scope that many; quantile sizes are at least the "
        "report's min_units = "
     << o.min_units << " devices per arm.\n\n"
     << "| scope | share | pilot sessions/arm | s² of log q | clear: "
        "sessions / devices | detect: sessions / devices | ANR B (pilot) | "
        "ceiling | ANR below ceiling: sessions / devices |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  for (const ScopePlan& p : plan.scopes) {
    md << "| " << p.name << " | " << FormatPercent(p.share) << " | " << p.pilot_units << " | "
       << FormatNumber(p.unit_variance) << " | " << n(p.clear_sessions) << " / "
       << n(p.clear_devices) << " | " << n(p.detect_sessions) << " / " << n(p.detect_devices)
       << " | " << FormatPercent(p.anr_rate_b) << " | " << FormatPercent(p.anr_ceiling) << " | "
       << n(p.anr_sessions) << " / " << n(p.anr_devices) << " |\n";
  }
  md << "\nDevices to clear and detect in every scope: " << n(plan.devices_for_metric)
     << "; to show the ANR rate below its ceiling in every scope: " << n(plan.devices_for_anr)
     << (plan.devices_for_anr < 0 ? " (some scope's pilot rate is at or above "
                                    "its ceiling: no size shows it below)"
                                  : "")
     << ".\n";
  return md.str();
}

}  // namespace loadtest
}  // namespace edgefleet
