// Turns a fleet aggregate into the A/B report: per scope and metric the
// nearest-rank quantiles with order-statistic CIs, the bootstrap CI of the
// difference and relative change, a rank test, LoadGen sample-count answers
// and a verdict; ANR and OOM rates with Wilson intervals and guardrails; the
// sample-ratio check; and the run status that decides the exit code.
//
// Run status, in order of precedence:
//   invalid       a scope's sample-ratio check fails (p < srm_alarm_p);
//   regression    any scope has a regression verdict (metric or rate);
//   inconclusive  any scope has an inconclusive verdict;
//   pass          otherwise (neutral or improvement everywhere).
//
// Deterministic: the bootstrap of (scope, metric) is seeded with
// MixSeed(experiment seed, HashString(scope) + metric), so one seed gives
// one report however the records were sharded or the work threaded.
// Thread-safe (no shared state); uses options.threads worker threads.

#ifndef EDGEFLEET_LOADTEST_REPORT_ANALYSIS_H_
#define EDGEFLEET_LOADTEST_REPORT_ANALYSIS_H_

#include "loadtest/report/report_model.h"
#include "loadtest/results/aggregate.h"

namespace edgefleet {
namespace loadtest {

Report Analyze(const FleetAggregate& fleet, const AnalysisOptions& options);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_ANALYSIS_H_
