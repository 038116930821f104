#include "loadtest/report/analysis.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "loadtest/report/format.h"
#include "loadtest/report/session_means.h"
#include "loadtest/stats/power.h"
#include "loadtest/stats/random.h"
#include "loadtest/stats/stratified.h"

namespace edgefleet {
namespace loadtest {
namespace {

// Above this many devices per arm the reasons call a metric undecidable in
// practice rather than print the number.
constexpr int64_t kPracticalSessions = 10'000'000;

// Probabilities of the CDF points kept for charts: dense in the tail.
std::vector<double> CdfGrid() {
  std::vector<double> grid;
  for (int i = 0; i <= 90; ++i) grid.push_back(i / 100.0);
  for (int i = 1; i <= 45; ++i) grid.push_back(0.9 + i * 0.002);
  for (int i = 1; i <= 18; ++i) grid.push_back(0.99 + i * 0.0005);
  grid.push_back(1.0);
  return grid;
}

std::vector<std::pair<double, double>> Cdf(const std::vector<double>& sorted) {
  std::vector<std::pair<double, double>> points;
  if (sorted.empty()) return points;
  for (double p : CdfGrid()) points.emplace_back(p, NearestRank(sorted, p));
  return points;
}

double Mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

// Rank test of metric m on one value per device: a device's sessions share
// its speed draw (and, hashed, its arm), so they are not independent
// observations. Paired: the mean over a device's sessions of B - A;
// hashed: each arm's device means (DeviceValues).
RankTestResult RankTest(const ArmAggregate& a, const ArmAggregate& b, Metric metric, bool paired,
                        std::string* name) {
  if (paired) {
    *name = "wilcoxon_signed_rank";
    const auto& ua = a.unit_values[static_cast<int>(metric)];
    const auto& ub = b.unit_values[static_cast<int>(metric)];
    std::vector<double> d;  // Per device, over units present in both arms.
    uint32_t device = 0;
    int count = 0;
    for (size_t i = 0, j = 0; i < ua.size() && j < ub.size();) {
      if (ua[i].first < ub[j].first) {
        ++i;
      } else if (ub[j].first < ua[i].first) {
        ++j;
      } else {
        // Both arms share the numbering: the unit's device is a's.
        const uint32_t unit_device = a.unit_device[ua[i].first];
        if (count > 0 && unit_device != device) {
          d.back() /= count;
          count = 0;
        }
        if (count == 0) d.push_back(0);
        device = unit_device;
        d.back() += ub[j++].second - ua[i++].second;
        ++count;
      }
    }
    if (count > 0) d.back() /= count;
    return WilcoxonSignedRank(d);
  }
  *name = "mann_whitney_u";
  std::vector<double> xa, xb;
  for (const auto& [device, v] : DeviceValues(a, metric)) xa.push_back(v);
  for (const auto& [device, v] : DeviceValues(b, metric)) xb.push_back(v);
  return MannWhitneyU(xb, xa);
}

// The strata of metric m for the overall scope: every class scope with a
// weight, or an explanation why the fleet cannot be stratified.
bool BuildStrata(const FleetAggregate& fleet, int m, const std::map<std::string, double>& weights,
                 std::vector<Stratum>* strata, std::string* note) {
  for (size_t i = 1; i < fleet.scopes.size(); ++i) {
    const ScopeAggregate& c = fleet.scopes[i];
    const auto w = weights.find(c.name);
    if (w == weights.end() || !(w->second > 0)) continue;
    const ClusteredSample& a = c.arms[0].samples[m];
    const ClusteredSample& b = c.arms[1].samples[m];
    if (a.empty() && b.empty()) continue;  // No data in the class: left out.
    if (a.empty() || b.empty()) {
      *note = "class " + c.name + " has data in one arm only";
      return false;
    }
    strata->push_back({&a, c.arms[0].devices, &b, c.arms[1].devices, w->second});
  }
  if (strata->empty()) *note = "no class with data and a population share";
  return !strata->empty();
}

// Devices per arm that would decide an undecided decision quantile
// (QuantileRow::units_to_decide).
int64_t UnitsToDecideRow(const QuantileRow& q, int64_t units, int64_t minimum, double theta) {
  const QuantileComparison& d = q.diff;
  if (!std::isfinite(d.rel) || !std::isfinite(d.rel_upper) || !std::isfinite(q.claim_lower)) {
    return -1;
  }
  int64_t n = 0;
  if (d.rel < theta) {
    // Needs clearance: the upper bound must come down to theta.
    n = UnitsToDecide(d.rel, std::log1p(d.rel_upper) - std::log1p(d.rel), units, theta);
  } else {
    // Needs a claim: the claim interval's lower bound must pass theta.
    n = UnitsToDecide(d.rel, std::log1p(d.rel) - std::log1p(q.claim_lower), units, theta);
  }
  return n < 0 ? -1 : std::max(n, minimum);
}

constexpr double kMaxBootstrapConfidence = 0.99;

// Re-expresses a comparison's intervals at confidence `from` at `to`.
void RescaleComparison(double from, double to, QuantileComparison* d) {
  if (from == to) return;
  std::tie(d->diff_lower, d->diff_upper) =
      RescaleInterval(d->diff, d->diff_lower, d->diff_upper, from, to);
  std::tie(d->rel_lower, d->rel_upper) =
      RescaleInterval(d->rel, d->rel_lower, d->rel_upper, from, to);
}

MetricReport AnalyzeMetric(const FleetAggregate& fleet, const ScopeAggregate& scope, Metric metric,
                           const AnalysisOptions& o, double claim_confidence,
                           const std::map<std::string, double>* weights) {
  const int m = static_cast<int>(metric);
  const ArmAggregate& arm_a = scope.arms[0];
  const ArmAggregate& arm_b = scope.arms[1];
  const ClusteredSample& a = arm_a.samples[m];
  const ClusteredSample& b = arm_b.samples[m];
  const bool paired = fleet.info.design == Design::kPaired;
  MetricReport r;
  r.metric = metric;
  r.n_a = static_cast<int64_t>(a.size());
  r.n_b = static_cast<int64_t>(b.size());
  r.mean_a = Mean(a.values());
  r.mean_b = Mean(b.values());
  r.cdf_a = Cdf(a.values());
  r.cdf_b = Cdf(b.values());
  if (a.empty() || b.empty()) return r;  // Verdict stays inconclusive.

  BootstrapOptions bo;
  const int64_t affordable =
      std::max<int64_t>(kMinReplicates, o.bootstrap_budget / (r.n_a + r.n_b));
  bo.replicates = static_cast<int>(std::min<int64_t>(o.bootstrap_replicates, affordable));
  // Tails beyond ~5 of 1000 replicates are not resolved: above
  // kMaxBootstrapConfidence (early sequential looks) the percentile interval
  // is taken there and rescaled (RescaleInterval, as the claim intervals).
  bo.confidence = std::min(o.confidence, kMaxBootstrapConfidence);
  bo.seed = MixSeed(fleet.info.seed, HashString(scope.name) + m);
  bo.paired = paired;
  bo.threads = o.threads;
  r.replicates = bo.replicates;
  std::vector<QuantileComparison> diffs =
      CompareQuantiles(a, arm_a.devices, b, arm_b.devices, o.quantiles, bo);
  for (QuantileComparison& d : diffs) {
    RescaleComparison(bo.confidence, o.confidence, &d);
  }
  const auto devices_a = static_cast<int64_t>(DeviceValues(arm_a, metric).size());
  const auto devices_b = static_cast<int64_t>(DeviceValues(arm_b, metric).size());
  std::vector<Stratum> strata;
  std::vector<StratifiedComparison> mixture;
  if (weights != nullptr && BuildStrata(fleet, m, *weights, &strata, &r.stratify_note)) {
    mixture = CompareStratifiedQuantiles(strata, o.quantiles, bo, o.fleet_quantile_bandwidth);
    for (StratifiedComparison& mix : mixture) {
      if (bo.confidence == o.confidence) break;
      RescaleComparison(bo.confidence, o.confidence, &mix.diff);
      std::tie(mix.a_lower, mix.a_upper) =
          RescaleInterval(mix.diff.a, mix.a_lower, mix.a_upper, bo.confidence, o.confidence);
      std::tie(mix.b_lower, mix.b_upper) =
          RescaleInterval(mix.diff.b, mix.b_lower, mix.b_upper, bo.confidence, o.confidence);
    }
    r.estimator = "stratified";
    r.pooled = diffs;
  }
  for (size_t j = 0; j < diffs.size(); ++j) {
    const QuantileComparison& d = mixture.empty() ? diffs[j] : mixture[j].diff;
    QuantileRow row{OrderStatisticInterval(a.values(), d.p, o.confidence),
                    OrderStatisticInterval(b.values(), d.p, o.confidence), d};
    if (!mixture.empty()) {
      const StratifiedComparison& s = mixture[j];
      row.a = QuantileInterval{d.p, d.a, 0, 0, s.a_lower, s.a_upper, NAN};
      row.b = QuantileInterval{d.p, d.b, 0, 0, s.b_lower, s.b_upper, NAN};
    }
    std::tie(row.claim_lower, row.claim_upper) =
        RescaleInterval(d.rel, d.rel_lower, d.rel_upper, o.confidence, claim_confidence);
    r.quantiles.push_back(row);
    SampleCount count;
    count.p = d.p;
    count.needed = MinQueriesForEarlyStopping(d.p, o.early_stopping_confidence);
    count.units_needed = std::max(count.needed, o.min_units);
    count.a = EstimateWithEarlyStopping(a.values(), d.p, o.early_stopping_confidence);
    count.b = EstimateWithEarlyStopping(b.values(), d.p, o.early_stopping_confidence);
    count.units_a = devices_a;
    count.units_b = devices_b;
    r.sample_counts.push_back(count);
  }
  r.rank = RankTest(arm_a, arm_b, metric, paired, &r.rank_test);

  std::vector<QuantileEvidence> evidence;
  for (double p : o.decision_quantiles) {
    QuantileEvidence e{p, NAN, NAN, NAN, NAN, false};
    for (size_t i = 0; i < r.quantiles.size(); ++i) {
      const QuantileRow& q = r.quantiles[i];
      if (q.diff.p == p) {
        e.clear_lower = q.diff.rel_lower;
        e.clear_upper = q.diff.rel_upper;
        e.claim_lower = q.claim_lower;
        e.claim_upper = q.claim_upper;
        e.enough_samples = r.sample_counts[i].Enough();
      }
    }
    evidence.push_back(e);
  }
  r.verdict = DecideQuantileVerdict(evidence, o.min_effect);
  if (r.verdict == Verdict::kInconclusive) {
    for (size_t i = 0; i < r.quantiles.size(); ++i) {
      QuantileRow& q = r.quantiles[i];
      const bool decision = std::find(o.decision_quantiles.begin(), o.decision_quantiles.end(),
                                      q.diff.p) != o.decision_quantiles.end();
      const bool cleared = q.diff.rel_upper <= o.min_effect;
      const bool claimed = q.claim_lower > o.min_effect || q.claim_upper < -o.min_effect;
      const SampleCount& c = r.sample_counts[i];
      if (!decision || ((cleared || claimed) && c.Enough())) continue;
      q.units_to_decide =
          UnitsToDecideRow(q, std::min(c.units_a, c.units_b), c.units_needed, o.min_effect);
    }
  }
  return r;
}

// A rate with a guardrail `ceiling` on B, or (ceiling < 0) compared
// between the arms with an absolute `margin`.
RateReport AnalyzeRate(const char* name, int64_t events_a, int64_t events_b,
                       const ScopeAggregate& scope, double ceiling, double margin,
                       const AnalysisOptions& o, double claim_confidence) {
  const int64_t trials_a = scope.arms[0].DeviceSessions();
  const int64_t trials_b = scope.arms[1].DeviceSessions();
  RateReport r;
  r.name = name;
  r.a = WilsonInterval(events_a, trials_a, o.confidence);
  r.b = WilsonInterval(events_b, trials_b, o.confidence);
  r.diff = NewcombeDifference(r.a, r.b);
  r.a_claim = WilsonInterval(events_a, trials_a, claim_confidence);
  r.b_claim = WilsonInterval(events_b, trials_b, claim_confidence);
  r.diff_claim = NewcombeDifference(r.a_claim, r.b_claim);
  r.ceiling = ceiling;
  if (ceiling >= 0) {
    r.guardrail_a = CheckGuardrail(r.a, r.a_claim, ceiling);
    r.guardrail_b = CheckGuardrail(r.b, r.b_claim, ceiling);
    r.verdict = GuardrailVerdict(r.guardrail_b);
  } else {
    r.verdict = DecideRateVerdict(r.diff, r.diff_claim, margin);
  }
  return r;
}

// Design effect of the session counts' sample-ratio check (stats/srm.h):
// the hashed design assigns devices, so a device's sessions move together,
// sum m_i^2 / sum m_i over devices; the paired design runs every device on
// both arms, 1.
double SessionDesignEffect(Design design, const ScopeAggregate& scope) {
  const ArmAggregate& a = scope.arms[0];
  const ArmAggregate& b = scope.arms[1];
  const int64_t sessions = a.sessions + b.sessions;
  if (design == Design::kPaired || sessions == 0) return 1;
  return static_cast<double>(a.sum_sq_sessions_per_device + b.sum_sq_sessions_per_device) /
         static_cast<double>(sessions);
}

ArmSummary Summarize(const ArmAggregate& a) {
  ArmSummary s;
  s.sessions = a.sessions;
  s.ok = a.ok;
  s.oom_killed = a.oom_killed;
  s.stack_errors = a.stack_errors;
  s.harness_errors = a.harness_errors;
  s.retries = a.retries;
  s.errors_by_cause = a.errors_by_cause;
  s.anr_total = a.anr_total;
  s.slow_frames = a.slow_frames;
  s.frozen_frames = a.frozen_frames;
  s.total_frames = a.total_frames;
  if (a.loaded > 0) {
    const double n = static_cast<double>(a.loaded);
    s.load_read_us = a.load_read_us / n;
    s.load_parse_us = a.load_parse_us / n;
    s.load_init_us = a.load_init_us / n;
  }
  return s;
}

std::string Reason(const ScopeReport& scope, const MetricReport& m) {
  std::string text = scope.name + " " + MetricName(m.metric) + ": " + VerdictName(m.verdict);
  for (const QuantileRow& q : m.quantiles) {
    text += "; p" + FormatNumber(100 * q.diff.p, 3) + " " + FormatSignedPercent(q.diff.rel) + " " +
            FormatPercentInterval(q.diff.rel_lower, q.diff.rel_upper);
  }
  if (m.quantiles.empty()) text += " (no data in one arm)";
  int64_t most = 0;
  for (const QuantileRow& q : m.quantiles) {
    if (q.units_to_decide < 0) most = -1;
    if (most >= 0) most = std::max(most, q.units_to_decide);
  }
  if (most > kPracticalSessions) {
    text +=
        "; no practical size would decide it (an estimate sits near "
        "the ±θ threshold)";
  } else if (most > 0) {
    text += "; ~" + std::to_string(most) + " devices per arm would decide it if the estimates held";
  } else if (most < 0) {
    text += "; no sample size would decide it at the current estimate";
  }
  return text;
}

std::string Reason(const ScopeReport& scope, const RateReport& r) {
  std::string text = scope.name + " " + r.name + " rate: " + VerdictName(r.verdict) + "; B " +
                     FormatPercent(r.b.rate) + " [" + FormatPercent(r.b.lower) + ", " +
                     FormatPercent(r.b.upper) + "]";
  if (r.ceiling >= 0) {
    text +=
        " vs ceiling " + FormatPercent(r.ceiling) + " (" + GuardrailStatusName(r.guardrail_b) + ")";
  }
  return text;
}

}  // namespace

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kPass:
      return "pass";
    case RunStatus::kRegression:
      return "regression";
    case RunStatus::kInconclusive:
      return "inconclusive";
    case RunStatus::kInvalid:
      return "invalid";
  }
  return "unknown";
}

Report Analyze(const FleetAggregate& fleet, const AnalysisOptions& requested) {
  Report report;
  report.info = fleet.info;
  report.overall_confidence = requested.confidence;
  const double share_b = fleet.info.design == Design::kPaired ? 0.5 : fleet.info.share_b;
  report.comparisons = static_cast<int>(fleet.scopes.size() *
                                        (kMetricCount * requested.decision_quantiles.size() + 3));
  report.claim_confidence = requested.adjust_claims
                                ? BonferroniConfidence(requested.confidence, report.comparisons)
                                : requested.confidence;
  // Group-sequential look: every interval at its alpha-spending boundary.
  AnalysisOptions options = requested;
  if (requested.look_fractions.size() > 1) {
    report.looks = static_cast<int>(requested.look_fractions.size());
    report.look = requested.look;
    options.confidence = LookConfidence(requested.spending, requested.confidence,
                                        requested.look_fractions, requested.look);
    report.claim_confidence = LookConfidence(requested.spending, report.claim_confidence,
                                             requested.look_fractions, requested.look);
  }
  report.options = options;
  const double claim = report.claim_confidence;
  if (options.stratify && fleet.scopes.size() > 1) {
    if (!fleet.info.class_shares.empty()) {
      report.strata_weights = fleet.info.class_shares;
      report.strata_weights_source = "spec";
    } else {
      double total = 0;
      for (size_t i = 1; i < fleet.scopes.size(); ++i) {
        const ScopeAggregate& c = fleet.scopes[i];
        report.strata_weights[c.name] = c.arms[0].sessions + c.arms[1].sessions;
        total += c.arms[0].sessions + c.arms[1].sessions;
      }
      for (auto& [name, w] : report.strata_weights) w /= total;
      report.strata_weights_source = "observed";
    }
  }
  std::vector<std::string> srm_reasons, regressions, open_questions;
  for (const ScopeAggregate& scope : fleet.scopes) {
    ScopeReport s;
    s.name = scope.name;
    const bool overall = scope.name == kOverallScope;
    for (int arm = 0; arm < 2; ++arm) s.arms[arm] = Summarize(scope.arms[arm]);
    s.srm = SampleRatioCheck({s.arms[0].sessions, s.arms[1].sessions}, {1 - share_b, share_b},
                             options.srm_alarm_p, SessionDesignEffect(fleet.info.design, scope));
    if (s.srm.mismatch) {
      srm_reasons.push_back(
          s.name + ": sample-ratio mismatch, A " + std::to_string(s.arms[0].sessions) + " vs B " +
          std::to_string(s.arms[1].sessions) + " sessions, p = " + FormatNumber(s.srm.p_value));
    }
    s.verdict = Verdict::kNeutral;
    const std::map<std::string, double>* weights =
        overall && options.stratify && fleet.scopes.size() > 1 ? &report.strata_weights : nullptr;
    for (Metric metric : kAllMetrics) {
      s.metrics.push_back(AnalyzeMetric(fleet, scope, metric, options, claim, weights));
      s.metrics.back().session_mean =
          AnalyzeSessionMeans(fleet, scope, metric, weights, options.confidence);
      const MetricReport& m = s.metrics.back();
      s.verdict = WorseVerdict(s.verdict, m.verdict);
      if (m.verdict == Verdict::kRegression) regressions.push_back(Reason(s, m));
      if (m.verdict == Verdict::kInconclusive) {
        open_questions.push_back(Reason(s, m));
      }
    }
    s.anr = AnalyzeRate("anr", scope.arms[0].sessions_with_anr, scope.arms[1].sessions_with_anr,
                        scope, overall ? options.anr_ceiling_overall : options.anr_ceiling_class, 0,
                        options, claim);
    s.oom = AnalyzeRate("oom", scope.arms[0].oom_killed, scope.arms[1].oom_killed, scope, -1,
                        options.oom_margin, options, claim);
    s.failure = AnalyzeRate("failure", scope.arms[0].stack_errors, scope.arms[1].stack_errors,
                            scope, -1, options.failure_margin, options, claim);
    for (const RateReport* r : {&s.anr, &s.oom, &s.failure}) {
      s.verdict = WorseVerdict(s.verdict, r->verdict);
      if (r->verdict == Verdict::kRegression) regressions.push_back(Reason(s, *r));
      if (r->verdict == Verdict::kInconclusive) {
        open_questions.push_back(Reason(s, *r));
      }
    }
    report.scopes.push_back(std::move(s));
  }
  if (!srm_reasons.empty()) {
    report.status = RunStatus::kInvalid;
    report.reasons = std::move(srm_reasons);
  } else if (!regressions.empty()) {
    report.status = RunStatus::kRegression;
    report.reasons = std::move(regressions);
  } else if (!open_questions.empty()) {
    report.status = RunStatus::kInconclusive;
    report.reasons = std::move(open_questions);
  } else {
    report.status = RunStatus::kPass;
  }
  return report;
}

}  // namespace loadtest
}  // namespace edgefleet
