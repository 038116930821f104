// The report's charts as inline SVG (svg.h): latency CDFs per scope and arm,
// load-time split and peak-memory bars per scope, and ANR / OOM rates with
// Wilson whiskers against their guardrails. Each chart's root <svg> carries
// the class "chart" plus one of chart-cdf, chart-load, chart-memory,
// chart-rate-anr, chart-rate-oom, chart-explain, which the render test
// looks for.
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_REPORT_CHARTS_H_
#define EDGEFLEET_LOADTEST_REPORT_CHARTS_H_

#include <string>

#include "loadtest/report/report_model.h"

namespace edgefleet {
namespace loadtest {

// Empirical CDFs of `metric` in one scope, arm A and arm B.
std::string CdfChart(const ScopeReport& scope, Metric metric);

// Mean load time per scope and arm, split into read / parse / init.
std::string LoadSplitChart(const Report& report);

// Peak memory per scope and arm: p50 bar, whisker to p99, tick at p90.
std::string MemoryChart(const Report& report);

// ANR (anr == true) or OOM rate per scope and arm with Wilson intervals
// and, for ANR, the guardrail ceilings.
std::string RateChart(const Report& report, bool anr);

// One device class's predicted device time per operator class, arm A and
// arm B bars, classes by decreasing |B - A| (explanation.h).
std::string ExplanationChart(const ClassExplanation& explanation);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_CHARTS_H_
