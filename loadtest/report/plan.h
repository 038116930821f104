// Power planning: from a pilot (a small run of the spec's arms, usually in
// sampled mode, so the figures follow the arms' calibrated costs), how many
// devices an experiment needs to decide each class and the fleet.
//
// Per scope (every class, and the fleet as the stratified mixture at the
// spec's shares), for the metric and quantile asked:
//  - the pilot's per-session variance s2 of log(quantile): from the 95 %
//    interval of the relative change between the pilot's arms, treated as
//    independent (the hashed design's variance; stats/power.h);
//  - sessions per arm to *clear* (show the change is below +θ when it is
//    truly 0) and to *detect* a true change X: a regression claim (claim
//    interval above +θ at the Bonferroni confidence) when X > θ, else a
//    95 % interval excluding 0; both at the requested power
//    (stats/power.h UnitsPerArmForQuantileChange);
//  - both at least min_units devices' sessions (the report decides nothing
//    below min_units devices per arm);
//  - the fleet size that gives the class that many sessions per arm, given
//    its population share, sessions per device and the design;
//  - for the ANR guardrail, sessions of arm B to show the rate is below the
//    ceiling at the pilot's observed rate of B (SessionsForRateBelowCeiling).
// The pilot's variance is itself estimated; the answers are planning
// figures, not guarantees.
//
// Pure function of its inputs; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_PLAN_H_
#define EDGEFLEET_LOADTEST_REPORT_PLAN_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "loadtest/results/aggregate.h"

namespace edgefleet {
namespace loadtest {

struct PlanOptions {
  Metric metric = Metric::kSteadyLatency;
  double quantile = 0.9;
  double effect = 0.05;  // X: the change to detect (relative).
  double power = 0.8;
  double confidence = 0.95;  // Of the report's intervals.
  double min_effect = 0.05;  // θ of the decision rule.
  int comparisons = 1;       // k behind the Bonferroni claim confidence.
  // Floor on devices per arm: the report's min_units (the cluster
  // bootstrap undercovers below it), whatever the formula says; the
  // session sizes are at least min_units * sessions_per_device.
  int64_t min_units = 30;
  double anr_ceiling_overall = 0.0047;
  double anr_ceiling_class = 0.08;
  // The experiment to size (not the pilot's).
  std::map<std::string, double> class_shares;  // Normalized.
  bool hashed = true;
  double share_b = 0.5;
  uint32_t sessions_per_device = 1;
  int replicates = 1000;
  uint64_t seed = 1;
  int threads = 1;
};

struct ScopePlan {
  std::string name;              // "overall" or the class.
  double share = 1;              // Population share.
  int64_t pilot_units = 0;       // Pilot sessions per arm.
  double unit_variance = 0;      // s2 of log(quantile); NaN without data.
  int64_t clear_sessions = -1;   // Per arm; -1 when unknown.
  int64_t detect_sessions = -1;  // Per arm.
  bool detect_is_claim = false;  // Detect = regression claim (X > θ).
  int64_t clear_devices = -1;    // Fleet devices for the class to get it.
  int64_t detect_devices = -1;
  double anr_rate_b = 0;  // Pilot rate of arm B.
  double anr_ceiling = 0;
  int64_t anr_sessions = -1;  // Sessions of B; -1: rate >= ceiling.
  int64_t anr_devices = -1;
};

struct Plan {
  PlanOptions options;
  double claim_confidence = 0.95;
  std::vector<ScopePlan> scopes;  // [0] overall, then classes by name.
  // The fleet size that decides every scope's metric (max over scopes of
  // detect_devices) and the ANR guardrail everywhere; -1 when unknown.
  int64_t devices_for_metric = -1;
  int64_t devices_for_anr = -1;
};

Plan PlanExperiment(const FleetAggregate& pilot, const PlanOptions& options);

// Markdown table of the plan.
std::string RenderPlan(const Plan& plan);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_PLAN_H_
