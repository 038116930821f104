#include "loadtest/tools/experiment_runner.h"

#include <utility>

#include "loadtest/report/analysis.h"
#include "loadtest/stats/sequential.h"

namespace edgefleet {
namespace loadtest {

absl::StatusOr<ExperimentOutcome> RunExperiment(const FleetPlan& plan,
                                                const DriverOptions& driver,
                                                const AnalysisOptions& analysis,
                                                int looks) {
  if (looks < 1) return absl::InvalidArgumentError("looks must be >= 1");
  AnalysisOptions per_look = analysis;
  per_look.confidence = PerLookConfidence(analysis.confidence, looks);
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
    out.stats.calls += stats.calls;
    out.stats.retries += stats.retries;
    out.stats.harness_errors += stats.harness_errors;
    out.stats.sampled_sessions += stats.sampled_sessions;
    out.stats.wall_seconds += stats.wall_seconds;
    for (const auto& [code, n] : stats.failed_calls_by_code) {
      out.stats.failed_calls_by_code[code] += n;
    }
    out.report = Analyze(Aggregate(out.results), per_look);
    out.report.looks = looks;
    out.report.look = look + 1;
    out.report.overall_confidence = analysis.confidence;
    if (out.report.status != RunStatus::kInconclusive) break;
  }
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet
