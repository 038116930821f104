// Variance reduction of a report's metrics: the change of each metric's
// per-session geometric mean between the arms, adjusted for covariates
// known before treatment (stats/cuped.h), next to the same change without
// adjustment.
//
// Per session (unit) the outcome is y = log(value) with the aggregate's
// per-unit value (steady latency: the session's median; the other metrics:
// the session's one value), so the difference of mean logs is the log of
// the ratio of geometric means. Covariates, each used on its own, x = log
// of: the device's compute-time factor as the emulator drew it
// ("device_time_factor"), the device's pre-period median steady latency on
// arm A ("pre_period"). A covariate is used in a scope only if every session
// with a value has it (else the report's note says so). Strata: a class
// scope is one stratum; the overall scope's strata are the classes at the
// report's strata weights (section 3 of docs/statistics.md), or the pooled
// sessions as one stratum when the report is not stratified.
//
// Pure function; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_SESSION_MEANS_H_
#define EDGEFLEET_LOADTEST_REPORT_SESSION_MEANS_H_

#include <map>
#include <string>

#include "loadtest/report/report_model.h"
#include "loadtest/results/aggregate.h"

namespace edgefleet {
namespace loadtest {

// `weights`: the strata weights by class for the overall scope, or null
// (class scopes, unstratified reports). Absent (present == false) when no
// session of the scope carries a covariate.
SessionMeanReport AnalyzeSessionMeans(const FleetAggregate& fleet, const ScopeAggregate& scope,
                                      Metric metric, const std::map<std::string, double>* weights,
                                      double confidence);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_SESSION_MEANS_H_
