#include "loadtest/report/html_report.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "loadtest/report/charts.h"
#include "loadtest/report/device_model_note.h"
#include "loadtest/report/exit_code.h"
#include "loadtest/report/format.h"
#include "loadtest/report/svg.h"

namespace edgefleet {
namespace loadtest {
namespace {

constexpr char kStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 6px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.status { display: inline-block; padding: 3px 10px; border-radius: 4px; color: #fff; font-weight: 600; }
.status-pass { background: #2e7d32; } .status-regression { background: #c62828; }
.status-inconclusive { background: #ef6c00; } .status-invalid { background: #6a1b9a; }
table { border-collapse: collapse; margin: 6px 0; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; } td:first-child, td:nth-child(2) { text-align: left; }
.v-regression { color: #c62828; font-weight: 600; } .v-improvement { color: #2e7d32; }
.v-inconclusive { color: #ef6c00; } .v-neutral { color: #555; }
.grid { display: flex; flex-wrap: wrap; gap: 12px; }
.chart { background: #fff; border: 1px solid #e4e4e4; }
.chart .title { font-size: 13px; font-weight: 600; fill: #222; }
.chart .label { font-size: 12px; fill: #222; } .chart .small { font-size: 10px; fill: #555; }
.chart .axis { stroke: #888; stroke-width: 1; } .chart .guide { stroke: #ccc; stroke-dasharray: 3 3; }
.chart .arm-a { fill: #4e79a7; } .chart .arm-b { fill: #f28e2b; }
.chart .line-a { stroke: #4e79a7; stroke-width: 2; fill: none; }
.chart .line-b { stroke: #f28e2b; stroke-width: 2; fill: none; }
.chart .seg-read { fill: #76b7b2; } .chart .seg-parse { fill: #edc948; } .chart .seg-init { fill: #b07aa1; }
.chart .whisker { stroke: #333; stroke-width: 1.5; }
.chart .ceiling { stroke: #d62728; stroke-width: 2; } .chart .ceiling-text { fill: #d62728; }
)css";

std::string Esc(const std::string& s) { return EscapeXml(s); }

std::string VerdictSpan(Verdict v) {
  return std::string("<span class=\"v-") + VerdictName(v) + "\">" + VerdictName(v) + "</span>";
}

std::string ChangeCell(Metric metric, const QuantileRow& q) {
  return Esc(FormatValue(metric, q.diff.a) + " → " + FormatValue(metric, q.diff.b)) + "<br>" +
         Esc(FormatSignedPercent(q.diff.rel) + " " +
             FormatPercentInterval(q.diff.rel_lower, q.diff.rel_upper));
}

std::string RateCell(const RateInterval& r) {
  return Esc(FormatPercent(r.rate) + " [" + FormatPercent(r.lower) + ", " + FormatPercent(r.upper) +
             "]") +
         "<br><span class=\"small\">" + std::to_string(r.events) + " / " +
         std::to_string(r.trials) + "</span>";
}

void QuantileTable(const Report& report, std::ostringstream& html) {
  std::vector<double> ps = report.options.quantiles;
  std::sort(ps.begin(), ps.end());
  html << "<table><tr><th>scope</th><th>metric</th>";
  for (double p : ps) html << "<th>p" << FormatNumber(100 * p) << " A → B</th>";
  html << "<th>rank test p</th><th>verdict</th></tr>\n";
  for (const ScopeReport& s : report.scopes) {
    for (const MetricReport& m : s.metrics) {
      html << "<tr><td>" << Esc(s.name) << "</td><td>" << MetricName(m.metric) << "</td>";
      for (size_t i = 0; i < ps.size(); ++i) {
        html << "<td>" << (i < m.quantiles.size() ? ChangeCell(m.metric, m.quantiles[i]) : "—")
             << "</td>";
      }
      html << "<td>" << (m.quantiles.empty() ? "—" : Esc(FormatNumber(m.rank.p_value)))
           << "</td><td>" << VerdictSpan(m.verdict) << "</td></tr>\n";
    }
  }
  html << "</table>\n";
}

void RateTable(const Report& report, std::ostringstream& html) {
  html << "<table><tr><th>scope</th><th>ANR A</th><th>ANR B</th>"
          "<th>ceiling</th><th>guardrail B</th><th>OOM A</th><th>OOM B</th>"
          "<th>OOM B − A</th><th>failures A / B</th><th>verdict</th></tr>\n";
  for (const ScopeReport& s : report.scopes) {
    html << "<tr><td>" << Esc(s.name) << "</td><td>" << RateCell(s.anr.a) << "</td><td>"
         << RateCell(s.anr.b) << "</td><td>" << Esc(FormatPercent(s.anr.ceiling)) << "</td><td>"
         << GuardrailStatusName(s.anr.guardrail_b) << "</td><td>" << RateCell(s.oom.a)
         << "</td><td>" << RateCell(s.oom.b) << "</td><td>"
         << Esc(FormatSignedPercent(s.oom.diff.diff) + " " +
                FormatPercentInterval(s.oom.diff.lower, s.oom.diff.upper))
         << "</td><td>" << s.failure.a.events << " / " << s.failure.b.events << "</td><td>"
         << VerdictSpan(WorseVerdict(s.anr.verdict, WorseVerdict(s.oom.verdict, s.failure.verdict)))
         << "</td></tr>\n";
  }
  html << "</table>\n";
}

void ChecksTable(const Report& report, std::ostringstream& html) {
  html << "<table><tr><th>scope</th><th>metric</th><th>sessions A / B</th>"
          "<th>SRM χ² p</th>";
  std::vector<double> ps = report.options.quantiles;
  std::sort(ps.begin(), ps.end());
  for (double p : ps) {
    html << "<th>p" << FormatNumber(100 * p) << " n A / B (needs)</th>";
  }
  html << "</tr>\n";
  for (const ScopeReport& s : report.scopes) {
    for (const MetricReport& m : s.metrics) {
      html << "<tr><td>" << Esc(s.name) << "</td><td>" << MetricName(m.metric) << "</td><td>"
           << s.arms[0].sessions << " / " << s.arms[1].sessions << "</td><td>"
           << Esc(FormatNumber(s.srm.p_value)) << (s.srm.mismatch ? " <b>mismatch</b>" : "")
           << "</td>";
      for (const SampleCount& c : m.sample_counts) {
        html << "<td>" << (c.Enough() ? "✔ " : "✘ ") << c.a.queries << " / " << c.b.queries;
        if (c.units_a != c.a.queries || c.units_b != c.b.queries) {
          html << " in " << c.units_a << " / " << c.units_b << " devices";
        }
        html << " (" << c.needed << ")</td>";
      }
      html << "</tr>\n";
    }
  }
  html << "</table>\n";
}

void ExplanationTable(const char* what, const std::vector<ExplanationRow>& rows,
                      std::ostringstream& html) {
  const Metric duration = Metric::kSteadyLatency;  // formats microseconds
  html << "<table class=\"explain\"><tr><th>" << what
       << "</th><th>A</th><th>B</th><th>B − A</th><th>share of A</th><th>share of B</th>"
          "<th>share of the change</th></tr>\n";
  for (const ExplanationRow& r : rows) {
    html << "<tr><td><code>" << Esc(r.name) << "</code></td><td>" << FormatValue(duration, r.a_us)
         << "</td><td>" << FormatValue(duration, r.b_us) << "</td><td>"
         << FormatDelta(duration, r.b_us - r.a_us) << "</td><td>" << FormatPercent(r.share_a)
         << "</td><td>" << FormatPercent(r.share_b) << "</td><td>"
         << FormatSignedPercent(r.share_of_change) << "</td></tr>\n";
  }
  html << "</table>\n";
}

void Explanation(const Report& report, std::ostringstream& html) {
  if (report.explanation.empty()) return;
  html << "<h2>What explains the difference (predicted device time per inference)</h2>\n"
       << "<p>Per device class, the operator classes and operators whose device time "
          "changed most from A to B, as the emulator's device model predicts it "
          "(<code>edgefleet.v1.Emulator/Profile</code>: each arm's operators measured on "
          "the host, times the class's fitted per-operator-class factors; every operator "
          "includes its fixed per-operator overhead). Shares are of each arm's total and "
          "of the total's change.</p>\n";
  for (const ClassExplanation& e : report.explanation) {
    html << "<h3>" << Esc(e.device_class) << "</h3>\n" << ExplanationChart(e) << "\n";
    ExplanationTable("operator class", e.classes, html);
    ExplanationTable("operator", e.operators, html);
  }
}

}  // namespace

std::string RenderHtmlReport(const Report& report) {
  const ExperimentInfo& info = report.info;
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       << "<title>EdgeFleet A/B: " << Esc(info.name) << "</title><style>" << kStyle
       << "</style></head><body>\n";
  html << "<h1>EdgeFleet fleet A/B: " << Esc(info.name) << "</h1>\n<p><span "
       << "class=\"status status-" << RunStatusName(report.status) << "\">"
       << RunStatusName(report.status) << "</span> exit code " << ExitCodeFor(report.status)
       << ". A = <code>" << Esc(info.arm_a) << "</code>, B = <code>" << Esc(info.arm_b)
       << "</code>; " << DesignName(info.design) << " design, seed " << info.seed << "; "
       << (info.calibration.empty()
               ? ""
               : "host calibration <code>" + Esc(info.calibration) + "</code>; ")
       << FormatNumber(100 * report.options.confidence)
       << " % confidence intervals; minimum effect ±"
       << FormatNumber(100 * report.options.min_effect)
       << " %; claims of a change use Bonferroni-adjusted "
       << FormatNumber(100 * report.claim_confidence, 4) << " % intervals over "
       << report.comparisons << " comparisons.</p>\n";
  if (!report.reasons.empty()) {
    html << "<ul>";
    for (const std::string& r : report.reasons) html << "<li>" << Esc(r) << "</li>";
    html << "</ul>\n";
  }
  html << "<p>" << Esc(DeviceModelNote()) << "</p>\n";
  html << "<h2>B vs A per scope</h2>\n";
  QuantileTable(report, html);
  html << "<h2>Steady-state latency CDFs</h2>\n<div class=\"grid\">";
  for (const ScopeReport& s : report.scopes) {
    html << CdfChart(s, Metric::kSteadyLatency);
  }
  html << "</div>\n<h2>First-inference CDFs</h2>\n<div class=\"grid\">";
  for (const ScopeReport& s : report.scopes) {
    html << CdfChart(s, Metric::kFirstInference);
  }
  html << "</div>\n<h2>Model load time</h2>\n"
       << LoadSplitChart(report) << "\n<h2>Peak memory</h2>\n"
       << MemoryChart(report) << "\n<h2>ANR and OOM rates</h2>\n"
       << RateChart(report, /*anr=*/true) << "\n"
       << RateChart(report, /*anr=*/false) << "\n";
  RateTable(report, html);
  Explanation(report, html);
  html << "<h2>Sample ratio and sample counts (LoadGen early stopping, "
       << FormatNumber(100 * report.options.early_stopping_confidence) << " %)</h2>\n";
  ChecksTable(report, html);
  html << "</body></html>\n";
  return html.str();
}

}  // namespace loadtest
}  // namespace edgefleet
