// The analysed A/B report: every number the JSON, Markdown and HTML writers
// print, computed once by Analyze() (analysis.h). Writers only format.
//
// Plain value types; immutable once built, safe to read from many threads.

#ifndef EDGEFLEET_LOADTEST_REPORT_REPORT_MODEL_H_
#define EDGEFLEET_LOADTEST_REPORT_REPORT_MODEL_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loadtest/results/aggregate.h"
#include "loadtest/results/result_set.h"
#include "loadtest/stats/bootstrap.h"
#include "loadtest/stats/early_stopping.h"
#include "loadtest/stats/proportion.h"
#include "loadtest/stats/quantile.h"
#include "loadtest/stats/rank_tests.h"
#include "loadtest/stats/sequential.h"
#include "loadtest/stats/srm.h"
#include "loadtest/stats/verdict.h"

namespace edgefleet {
namespace loadtest {

// Knobs of the analysis; defaults are the documented policy
// (docs/statistics.md).
struct AnalysisOptions {
  double confidence = 0.95;  // All CIs, two-sided.
  double min_effect = 0.05;  // θ for quantile verdicts (relative).
  std::vector<double> quantiles = {0.5, 0.9, 0.99};
  std::vector<double> decision_quantiles = {0.5, 0.9};
  double early_stopping_confidence = 0.99;  // LoadGen's c.
  // Fewest devices per arm behind any quantile verdict: with fewer
  // clusters the bootstrap interval undercovers (docs/statistics.md).
  int64_t min_units = 30;
  int bootstrap_replicates = 1000;
  // Upper bound on replicates x observations per comparison; above it the
  // replicate count shrinks (not below kMinReplicates) so fleet-scale runs
  // stay fast. The count used is reported.
  int64_t bootstrap_budget = 2'000'000'000;
  int threads = 1;
  // Claims of regression or improvement use Bonferroni-adjusted intervals
  // over every claim the report can make (stats/verdict.h).
  bool adjust_claims = true;
  double anr_ceiling_overall = 0.0047;  // Android vitals bad-behaviour.
  double anr_ceiling_class = 0.08;      // Per device model.
  // Absolute margins on rate_b - rate_a. Clearing 1 pp with no events in
  // either arm takes ~400 device sessions per arm and scope.
  double oom_margin = 0.01;
  double failure_margin = 0.01;  // Stack errors.
  double srm_alarm_p = 0.001;
  // Fleet-wide ("overall") quantiles from the mixture of the classes at the
  // spec's population shares (stats/stratified.h); false: from the pooled
  // sessions only (the pooled figures are reported either way).
  bool stratify = true;
  // Half-width h of the smoothing window of the fleet-wide quantiles
  // (stats/stratified.h); 0 for the plain mixture quantile.
  double fleet_quantile_bandwidth = 0.01;
  // Group-sequential analysis (stats/sequential.h). With more than one
  // fraction this is look `look` (1-based) of looks at the information
  // fractions `look_fractions` (cumulative share of the planned sessions,
  // the last 1): every interval is at the look's alpha-spending boundary
  // for `confidence`, every claim interval at the boundary for the
  // Bonferroni share of it. Empty: a fixed-size analysis.
  std::vector<double> look_fractions;
  int look = 1;
  Spending spending = Spending::kObrienFleming;
};

inline constexpr int kMinReplicates = 200;

// "Enough samples for this percentile?" LoadGen counts queries
// (observations). Observations of one device are not independent (its
// sessions share its speed draw), and the cluster bootstrap undercovers with
// few clusters, so a verdict also needs units_needed = max(needed,
// min_units) devices per arm.
struct SampleCount {
  double p = 0;
  int64_t needed = 0;        // LoadGen minimum for this percentile.
  int64_t units_needed = 0;  // Devices per arm the verdict requires.
  EarlyStoppingEstimate a;   // Over observations, as LoadGen.
  EarlyStoppingEstimate b;
  int64_t units_a = 0;  // Devices contributing observations.
  int64_t units_b = 0;
  bool Enough() const {
    return a.enough && b.enough && units_a >= units_needed && units_b >= units_needed;
  }
};

struct QuantileRow {
  QuantileInterval a;  // Order-statistic CI of arm A's quantile.
  QuantileInterval b;
  QuantileComparison diff;  // Bootstrap CI of b - a and b / a - 1.
  // The relative change's interval at the claim confidence.
  double claim_lower = 0, claim_upper = 0;
  // Decision quantiles left undecided: devices per arm that would decide
  // it if the estimate stayed where it is (intervals shrink as 1/sqrt(n);
  // stats/power.h UnitsToDecide), at least the sample-count minimum.
  // 0 when decided or not a decision quantile; -1 when no size would (the
  // estimate sits on the threshold) or there is no interval.
  int64_t units_to_decide = 0;
};

// Relative change B/A - 1 of the geometric mean of the per-session values
// (log scale difference of means, stats/cuped.h), with its normal interval
// at the report's confidence.
struct MeanChange {
  double estimate = 0, lower = 0, upper = 0;
  double log_std_error = 0;  // of the difference of mean logs
};

// The same change adjusted for one pre-treatment covariate (CUPED within
// strata): "device_time_factor" (the emulator's per-device speed draw) or
// "pre_period" (the device's pre-period median steady latency on arm A);
// x = log of the covariate.
struct AdjustedMeanChange {
  std::string covariate;
  MeanChange change;
  double variance_ratio = 0;  // adjusted / unadjusted variance
};

// Variance reduction of one metric in one scope (report/session_means.h).
// Present only when the records carry a covariate.
struct SessionMeanReport {
  bool present = false;
  int64_t units_a = 0, units_b = 0;  // sessions with a value
  MeanChange unadjusted;             // the plain figure, same sessions
  std::vector<AdjustedMeanChange> adjusted;
  std::string note;  // why a present covariate could not be used
};

struct MetricReport {
  Metric metric = Metric::kLoadTime;
  int64_t n_a = 0, n_b = 0;  // Observations.
  double mean_a = 0, mean_b = 0;
  std::vector<QuantileRow> quantiles;  // Empty when an arm has no data.
  std::string rank_test;               // "wilcoxon_signed_rank" / ...
  RankTestResult rank;
  std::vector<SampleCount> sample_counts;
  int replicates = 0;
  // "stratified": the overall scope's rows (quantiles[].a/.b/.diff) come
  // from the class mixture at the report's strata weights; a, b hold the
  // mixture quantile with its bootstrap percentile interval (ranks 0,
  // coverage NaN). "pooled": all sessions of the scope in one sample (class
  // scopes, or overall when stratification is off or impossible).
  std::string estimator = "pooled";
  // Overall scope with estimator "stratified": the pooled comparison, as a
  // secondary figure (it moves with chance class imbalance between arms).
  std::vector<QuantileComparison> pooled;
  // Why the overall scope could not be stratified, if it could not.
  std::string stratify_note;
  // Covariate-adjusted change of the per-session geometric mean (secondary
  // figure; the verdict stays on the quantiles).
  SessionMeanReport session_mean;
  Verdict verdict = Verdict::kInconclusive;
  // Empirical CDF for charts: (probability, value) per arm.
  std::vector<std::pair<double, double>> cdf_a, cdf_b;
};

struct RateReport {
  std::string name;   // "anr" / "oom" / "failure".
  RateInterval a, b;  // At the report's confidence.
  RateDifference diff;
  RateInterval a_claim, b_claim;  // At the claim confidence.
  RateDifference diff_claim;
  double ceiling = -1;  // Guardrail on B; < 0 when there is none.
  GuardrailStatus guardrail_a = GuardrailStatus::kInconclusive;
  GuardrailStatus guardrail_b = GuardrailStatus::kInconclusive;
  Verdict verdict = Verdict::kInconclusive;
};

struct ArmSummary {
  int64_t sessions = 0, ok = 0, oom_killed = 0, stack_errors = 0;
  int64_t harness_errors = 0, retries = 0;
  std::map<std::string, int64_t> errors_by_cause;
  int64_t anr_total = 0;
  int64_t slow_frames = 0, frozen_frames = 0, total_frames = 0;
  // Mean load split over loaded sessions, microseconds.
  double load_read_us = 0, load_parse_us = 0, load_init_us = 0;
};

struct ScopeReport {
  std::string name;
  std::array<ArmSummary, 2> arms;
  SampleRatioResult srm;
  std::vector<MetricReport> metrics;  // In kAllMetrics order.
  RateReport anr;
  RateReport oom;
  RateReport failure;                        // Stack errors.
  Verdict verdict = Verdict::kInconclusive;  // Worst of metrics and rates.
};

// One arm's predicted device time per inference on one device class, from
// the emulator's Profile RPC (docs/service.md): per operator class and per
// operator name (summed over the operator's executions).
struct DeviceTimeBreakdown {
  std::string device_class;
  double device_us = 0;
  std::map<std::string, double> classes;    // class name -> device us
  std::map<std::string, double> operators;  // operator name -> device us
};

// An operator class or operator of the "what explains the difference"
// section (explanation.h).
struct ExplanationRow {
  std::string name;
  double a_us = 0, b_us = 0;        // device time per inference, arm A / B
  double share_a = 0, share_b = 0;  // of that arm's total device time
  // (b - a) over the change of the totals; 0 when the totals are equal.
  double share_of_change = 0;
};

struct ClassExplanation {
  std::string device_class;
  double a_us = 0, b_us = 0;              // totals
  std::vector<ExplanationRow> classes;    // largest |b - a| first
  std::vector<ExplanationRow> operators;  // the top ones by |b - a|
};

enum class RunStatus { kPass, kRegression, kInconclusive, kInvalid };

const char* RunStatusName(RunStatus status);  // "pass", ...

struct Report {
  ExperimentInfo info;
  AnalysisOptions options;
  std::vector<ScopeReport> scopes;  // [0] is overall.
  // Claims the report can make (scopes x (metrics x decision quantiles +
  // 3 rates)) and the confidence each claim interval has.
  int comparisons = 1;
  // Class weights of the stratified fleet-wide estimates, by class name,
  // and where they came from: "spec" (the fleet spec's population shares)
  // or "observed" (devices per class over both arms, when the results
  // carry no shares).
  std::map<std::string, double> strata_weights;
  std::string strata_weights_source;
  // Group-sequential monitoring (stats/sequential.h): the report is look
  // `look` of `looks`; options.confidence is then the look's boundary
  // confidence (LookConfidence of overall_confidence), claim_confidence the
  // boundary of the claims' Bonferroni share.
  int looks = 1;
  int look = 1;
  double overall_confidence = 0.95;
  double claim_confidence = 0.95;
  RunStatus status = RunStatus::kInconclusive;
  // One line per finding behind a non-pass status.
  std::vector<std::string> reasons;
  // "What explains the difference" per device class (explanation.h); empty
  // when the report was made without the arms' device-time profiles.
  std::vector<ClassExplanation> explanation;
};

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_REPORT_REPORT_MODEL_H_
