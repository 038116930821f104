#include "loadtest/report/markdown_report.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "loadtest/report/device_model_note.h"
#include "loadtest/report/exit_code.h"
#include "loadtest/report/format.h"

namespace edgefleet {
namespace loadtest {
namespace {

const char* StatusBadge(RunStatus status) {
  switch (status) {
    case RunStatus::kPass:
      return "✅ PASS";
    case RunStatus::kRegression:
      return "❌ REGRESSION";
    case RunStatus::kInconclusive:
      return "⚠️ INCONCLUSIVE";
    case RunStatus::kInvalid:
      return "⛔ INVALID (sample-ratio mismatch)";
  }
  return "?";
}

std::string VerdictCell(Verdict v) {
  switch (v) {
    case Verdict::kRegression:
      return "**regression**";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kInconclusive:
      return "_inconclusive_";
    case Verdict::kNeutral:
      return "neutral";
  }
  return "?";
}

// "18.0 ms → 20.7 ms<br>+15.0 % [+12.1 %, +17.3 %]"
std::string ChangeCell(Metric metric, const QuantileRow& q) {
  return FormatValue(metric, q.diff.a) + " → " + FormatValue(metric, q.diff.b) + "<br>" +
         FormatSignedPercent(q.diff.rel) + " " +
         FormatPercentInterval(q.diff.rel_lower, q.diff.rel_upper);
}

std::string RateCell(const RateInterval& r) {
  return FormatPercent(r.rate) + " [" + FormatPercent(r.lower) + ", " + FormatPercent(r.upper) +
         "] (" + std::to_string(r.events) + "/" + std::to_string(r.trials) + ")";
}

std::string OrderCi(Metric metric, const QuantileInterval& q) {
  return FormatValue(metric, q.estimate) + " [" + FormatValue(metric, q.lower) + ", " +
         FormatValue(metric, q.upper) + "]";
}

std::string EnoughCell(const SampleCount& c) {
  const auto side = [&c](const EarlyStoppingEstimate& e, int64_t units) {
    std::string text =
        (e.enough && units >= c.units_needed ? "✔ " : "✘ ") + std::to_string(e.queries);
    if (units != e.queries) text += " in " + std::to_string(units) + " sessions";
    return text;
  };
  return side(c.a, c.units_a) + " / " + side(c.b, c.units_b) + " (needs " +
         std::to_string(c.needed) + ")";
}

void Details(const ScopeReport& s, const AnalysisOptions& o, std::ostringstream& md) {
  md << "<details><summary><b>" << s.name << "</b> — details</summary>\n\n";
  md << "| metric | q | A [order-statistic CI] | B [order-statistic CI] | "
        "B − A [bootstrap CI] | enough samples A / B |\n"
        "|---|---|---|---|---|---|\n";
  for (const MetricReport& m : s.metrics) {
    for (size_t i = 0; i < m.quantiles.size(); ++i) {
      const QuantileRow& q = m.quantiles[i];
      md << "| " << MetricName(m.metric) << " | p" << FormatNumber(100 * q.diff.p) << " | "
         << OrderCi(m.metric, q.a) << " | " << OrderCi(m.metric, q.b) << " | "
         << FormatDelta(m.metric, q.diff.diff) << " [" << FormatDelta(m.metric, q.diff.diff_lower)
         << ", " << FormatDelta(m.metric, q.diff.diff_upper) << "] | "
         << EnoughCell(m.sample_counts[i]) << " |\n";
    }
  }
  for (const MetricReport& m : s.metrics) {
    if (m.estimator == "stratified") {
      md << "\nA and B of this scope are the stratified (class-mixture) "
            "quantiles with bootstrap percentile intervals, not order-statistic "
            "ones; rank tests and sample counts are over the pooled sessions.\n";
      break;
    }
  }
  md << "\n| metric | rank test | statistic | p-value | effect | n | "
        "bootstrap replicates |\n|---|---|---|---|---|---|---|\n";
  for (const MetricReport& m : s.metrics) {
    if (m.quantiles.empty()) continue;
    md << "| " << MetricName(m.metric) << " | " << m.rank_test << " ("
       << (m.rank.method == RankTestMethod::kExact ? "exact" : "normal") << ") | "
       << FormatNumber(m.rank.statistic, 6) << " | " << FormatNumber(m.rank.p_value) << " | "
       << FormatNumber(m.rank.effect) << " | " << m.rank.n << " | " << m.replicates << " |\n";
  }
  md << "\nSessions A / B: " << s.arms[0].sessions << " / " << s.arms[1].sessions << "; OOM-killed "
     << s.arms[0].oom_killed << " / " << s.arms[1].oom_killed << "; stack errors "
     << s.arms[0].stack_errors << " / " << s.arms[1].stack_errors << "; harness errors "
     << s.arms[0].harness_errors << " / " << s.arms[1].harness_errors << "; retries "
     << s.arms[0].retries << " / " << s.arms[1].retries << ".";
  for (int arm = 0; arm < 2; ++arm) {
    for (const auto& [cause, count] : s.arms[arm].errors_by_cause) {
      md << " " << (arm == 0 ? "A" : "B") << " `" << cause << "`: " << count << ".";
    }
  }
  md << " Confidence " << FormatNumber(100 * o.confidence) << " %.\n\n"
     << "</details>\n\n";
}

void ExplanationTable(const char* what, const std::vector<ExplanationRow>& rows,
                      std::ostringstream& md) {
  const Metric duration = Metric::kSteadyLatency;  // formats microseconds
  md << "| " << what << " | A | B | B − A | share of A | share of B | share of the change |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const ExplanationRow& r : rows) {
    md << "| `" << r.name << "` | " << FormatValue(duration, r.a_us) << " | "
       << FormatValue(duration, r.b_us) << " | " << FormatDelta(duration, r.b_us - r.a_us) << " | "
       << FormatPercent(r.share_a) << " | " << FormatPercent(r.share_b) << " | "
       << FormatSignedPercent(r.share_of_change) << " |\n";
  }
  md << "\n";
}

void Explanation(const Report& report, std::ostringstream& md) {
  if (report.explanation.empty()) return;
  const Metric duration = Metric::kSteadyLatency;
  md << "\n### What explains the difference (predicted device time per inference)\n\n"
     << "Per device class, the operator classes and operators whose device time "
        "changed most from A to B, as the emulator's device model predicts it "
        "(`edgefleet.v1.Emulator/Profile`: each arm's operators measured on the "
        "host, times the class's fitted per-operator-class factors; every "
        "operator includes its fixed per-operator overhead). Shares are of each "
        "arm's total and of the total's change.\n\n";
  for (const ClassExplanation& e : report.explanation) {
    md << "**" << e.device_class << "**: A " << FormatValue(duration, e.a_us) << ", B "
       << FormatValue(duration, e.b_us) << " ("
       << FormatSignedPercent(e.a_us > 0 ? e.b_us / e.a_us - 1 : 0) << ")\n\n";
    ExplanationTable("operator class", e.classes, md);
    ExplanationTable("operator", e.operators, md);
  }
}

}  // namespace

std::string RenderMarkdownReport(const Report& report) {
  const ExperimentInfo& info = report.info;
  const AnalysisOptions& o = report.options;
  std::ostringstream md;
  md << "## EdgeFleet fleet A/B: " << StatusBadge(report.status) << " (exit code "
     << ExitCodeFor(report.status) << ")\n\n"
     << "A = `" << info.arm_a << "`, B = `" << info.arm_b << "`; " << DesignName(info.design)
     << " design, seed " << info.seed << "; "
     << (info.calibration.empty() ? "" : "host calibration " + info.calibration + "; ")
     << FormatNumber(100 * o.confidence) << " % CIs; minimum effect ±"
     << FormatNumber(100 * o.min_effect) << " % on p"
     << FormatNumber(100 * o.decision_quantiles.front());
  for (size_t i = 1; i < o.decision_quantiles.size(); ++i) {
    md << "/p" << FormatNumber(100 * o.decision_quantiles[i]);
  }
  md << "; claims of a change use Bonferroni-adjusted "
     << FormatNumber(100 * report.claim_confidence, 4) << " % intervals over " << report.comparisons
     << " comparisons.\n\n";
  if (report.looks > 1) {
    md << "Group-sequential run: look " << report.look << " of " << report.looks
       << " (information fraction " << FormatNumber(o.look_fractions[report.look - 1], 3)
       << "). Stopping rule: stop at the first look where no comparison is "
       << "inconclusive, else after the last. Lan-DeMets " << SpendingName(o.spending)
       << " alpha spending: this look's "
       << "intervals are at " << FormatNumber(100 * o.confidence, 6) << " %, its claims at "
       << FormatNumber(100 * report.claim_confidence, 6)
       << " %, so over all looks each interval misses the truth with "
       << "probability " << FormatNumber(100 * (1 - report.overall_confidence))
       << " % at most (claims: their Bonferroni share of it).\n\n";
  }
  for (const std::string& reason : report.reasons) md << "- " << reason << "\n";
  if (!report.reasons.empty()) md << "\n";
  md << DeviceModelNote() << "\n\n";

  std::vector<double> ps = o.quantiles;
  std::sort(ps.begin(), ps.end());
  md << "### Latency, load time and memory (B vs A)\n\n| scope | metric |";
  for (double p : ps) md << " p" << FormatNumber(100 * p) << " |";
  md << " verdict |\n|---|---|";
  for (size_t i = 0; i < ps.size(); ++i) md << "---|";
  md << "---|\n";
  for (const ScopeReport& s : report.scopes) {
    for (const MetricReport& m : s.metrics) {
      md << "| " << s.name << " | " << MetricName(m.metric);
      for (size_t i = 0; i < ps.size(); ++i) {
        md << " | "
           << (i < m.quantiles.size() ? ChangeCell(m.metric, m.quantiles[i]) : std::string("—"));
      }
      md << " | " << VerdictCell(m.verdict) << " |\n";
    }
  }
  if (!report.strata_weights.empty()) {
    md << "\n`overall` rows are **stratified**: the mixture of the classes at "
       << (report.strata_weights_source == "spec"
               ? "the fleet spec's population shares"
               : "their observed device shares (the results carry no spec "
                 "shares)")
       << " (";
    bool first = true;
    for (const auto& [name, w] : report.strata_weights) {
      md << (first ? "" : ", ") << name << " " << FormatPercent(w);
      first = false;
    }
    md << "), the same weights for both arms. Pooled over all sessions "
          "(secondary; moves with chance class imbalance between arms):";
    for (const MetricReport& m : report.scopes.front().metrics) {
      if (!m.stratify_note.empty()) {
        md << " " << MetricName(m.metric) << " not stratified (" << m.stratify_note << ");";
      }
      for (const QuantileComparison& q : m.pooled) {
        md << " " << MetricName(m.metric) << " p" << FormatNumber(100 * q.p) << " "
           << FormatSignedPercent(q.rel) << " " << FormatPercentInterval(q.rel_lower, q.rel_upper)
           << ";";
      }
    }
    md << "\n";
  }

  // Variance reduction (secondary figures): the fleet row of each metric.
  bool any_adjusted = false;
  for (const MetricReport& m : report.scopes.front().metrics) {
    any_adjusted = any_adjusted || m.session_mean.present;
  }
  if (any_adjusted) {
    md << "\nChange of the per-session geometric mean, `overall`, "
       << FormatNumber(100 * o.confidence)
       << " % intervals (secondary; the verdict is on the quantiles), unadjusted "
          "and adjusted for covariates known before treatment (CUPED):";
    for (const MetricReport& m : report.scopes.front().metrics) {
      const SessionMeanReport& sm = m.session_mean;
      if (!sm.present) continue;
      md << " " << MetricName(m.metric);
      if (!sm.adjusted.empty()) {
        md << " unadjusted " << FormatSignedPercent(sm.unadjusted.estimate) << " "
           << FormatPercentInterval(sm.unadjusted.lower, sm.unadjusted.upper);
      }
      for (const AdjustedMeanChange& a : sm.adjusted) {
        md << ", by " << a.covariate << " " << FormatSignedPercent(a.change.estimate) << " "
           << FormatPercentInterval(a.change.lower, a.change.upper) << " (variance × "
           << FormatNumber(a.variance_ratio) << ")";
      }
      if (!sm.note.empty()) md << " (" << sm.note << ")";
      md << ";";
    }
    md << "\n";
  }

  md << "\n### ANR, OOM-kill and stack-failure rates (device sessions, "
        "Wilson "
     << FormatNumber(100 * o.confidence) << " % intervals)\n\n"
     << "| scope | ANR A | ANR B | ANR ceiling: B | OOM A | OOM B | OOM B − A "
        "| failures A / B | verdict |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const ScopeReport& s : report.scopes) {
    md << "| " << s.name << " | " << RateCell(s.anr.a) << " | " << RateCell(s.anr.b) << " | "
       << FormatPercent(s.anr.ceiling) << ": " << GuardrailStatusName(s.anr.guardrail_b) << " | "
       << RateCell(s.oom.a) << " | " << RateCell(s.oom.b) << " | "
       << FormatSignedPercent(s.oom.diff.diff) << " "
       << FormatPercentInterval(s.oom.diff.lower, s.oom.diff.upper) << " | " << s.failure.a.events
       << " / " << s.failure.b.events << " | "
       << VerdictCell(WorseVerdict(s.anr.verdict, WorseVerdict(s.oom.verdict, s.failure.verdict)))
       << " |\n";
  }

  Explanation(report, md);

  md << "\n### Sample ratio and sample counts\n\n"
     << "| scope | sessions A / B | χ² p-value | steady latency p90: enough? "
        "A / B | p99: enough? A / B |\n|---|---|---|---|---|\n";
  for (const ScopeReport& s : report.scopes) {
    const MetricReport& steady = s.metrics[static_cast<int>(Metric::kSteadyLatency)];
    md << "| " << s.name << " | " << s.arms[0].sessions << " / " << s.arms[1].sessions << " | "
       << FormatNumber(s.srm.p_value) << (s.srm.mismatch ? " **mismatch**" : "");
    for (double p : {0.9, 0.99}) {
      md << " | ";
      bool found = false;
      for (const SampleCount& c : steady.sample_counts) {
        if (c.p == p) {
          md << EnoughCell(c);
          found = true;
        }
      }
      if (!found) md << "—";
    }
    md << " |\n";
  }
  md << "\n";
  for (const ScopeReport& s : report.scopes) Details(s, o, md);
  return md.str();
}

}  // namespace loadtest
}  // namespace edgefleet
