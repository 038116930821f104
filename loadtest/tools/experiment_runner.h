// Runs a fleet plan against servers and analyses it, optionally as a
// group-sequential experiment (stats/sequential.h): the plan's devices are
// split into `looks` hashed groups; after each group the accumulated results
// are analysed with every interval at the look's alpha-spending boundary
// (analysis.spending; information fraction = share of the planned sessions
// run so far), and the run stops at the first look whose status is not
// inconclusive.
// Used by `edgefleet-loadtest run --looks K` and `campaign`.
//
// Thread-compatible: one call at a time per DriverOptions.

#ifndef EDGEFLEET_LOADTEST_TOOLS_EXPERIMENT_RUNNER_H_
#define EDGEFLEET_LOADTEST_TOOLS_EXPERIMENT_RUNNER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "loadtest/driver/driver.h"
#include "loadtest/driver/fleet_plan.h"
#include "loadtest/report/report_model.h"
#include "loadtest/results/result_set.h"

namespace edgefleet {
namespace loadtest {

struct ExperimentOutcome {
  ResultSet results;  // Everything run, up to the stopping look.
  Report report;      // The analysis at the stopping look.
  DriverStats stats;  // Summed over looks (wall time too).
  // The analyses of the looks before the stopping one (a claim at any look
  // counts).
  std::vector<Report> earlier_looks;
};

// REQUIRES: looks >= 1; a whole-fleet plan (shards cannot stop early).
absl::StatusOr<ExperimentOutcome> RunExperiment(const FleetPlan& plan, const DriverOptions& driver,
                                                const AnalysisOptions& analysis, int looks);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_TOOLS_EXPERIMENT_RUNNER_H_
