#include "loadtest/tools/experiment_runner.h"

#include <utility>
#include <vector>

#include "loadtest/report/analysis.h"
#include "loadtest/stats/sequential.h"

namespace edgefleet {
namespace loadtest {

absl::StatusOr<ExperimentOutcome> RunExperiment(const FleetPlan& plan, const DriverOptions& driver,
                                                const AnalysisOptions& analysis, int looks) {
  if (looks < 1) return absl::InvalidArgumentError("looks must be >= 1");
  // Information fraction of look k: the share of the planned sessions in
  // the first k groups.
  std::vector<double> sessions(looks, 0.0);
  double experiment_sessions = 0;  // the pre-period's are not information
  for (const PlannedSession& s : plan.sessions) {
    if (s.pre_period) continue;
    ++experiment_sessions;
    ++sessions[looks == 1 ? 0 : LookOfDevice(plan.info.seed, s.device_id, looks)];
  }
  std::vector<double> fractions;
  double run = 0;
  for (double n : sessions) {
    run += n;
    fractions.push_back(run / experiment_sessions);
  }
  for (size_t k = 1; k < fractions.size(); ++k) {
    if (!(fractions[k] > fractions[k - 1]) || !(fractions[0] > 0)) {
      return absl::InvalidArgumentError(
          "a sequential look has no devices: use fewer --looks for this fleet");
    }
  }
  fractions.back() = 1;
  AnalysisOptions per_look = analysis;
  if (looks > 1) per_look.look_fractions = fractions;
  ExperimentOutcome out{ResultSet(plan.info, plan.shard), Report{}, DriverStats{}};
  for (int look = 0; look < looks; ++look) {
    FleetPlan group = plan;
    group.sessions.clear();
    for (const PlannedSession& s : plan.sessions) {
      if (looks == 1 || LookOfDevice(plan.info.seed, s.device_id, looks) == look) {
        group.sessions.push_back(s);
      }
    }
    DriverStats stats;
    absl::StatusOr<ResultSet> part = RunFleet(group, driver, &stats);
    if (!part.ok()) return part.status();
    for (const SessionRecord& r : part->records()) out.results.Add(r);
    if (absl::Status s = out.results.Canonicalize(); !s.ok()) return s;
    out.stats.sessions += stats.sessions;
    out.stats.pre_period_sessions += stats.pre_period_sessions;
    out.stats.calls += stats.calls;
    out.stats.retries += stats.retries;
    out.stats.harness_errors += stats.harness_errors;
    out.stats.sampled_sessions += stats.sampled_sessions;
    out.stats.wall_seconds += stats.wall_seconds;
    for (const auto& [code, n] : stats.failed_calls_by_code) {
      out.stats.failed_calls_by_code[code] += n;
    }
    per_look.look = look + 1;
    if (look > 0) out.earlier_looks.push_back(std::move(out.report));
    out.report = Analyze(Aggregate(out.results), per_look);
    if (out.report.status != RunStatus::kInconclusive) break;
  }
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet
