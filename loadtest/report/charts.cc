#include "loadtest/report/charts.h"

#include <algorithm>
#include <cmath>

#include "loadtest/report/format.h"
#include "loadtest/report/svg.h"

namespace edgefleet {
namespace loadtest {
namespace {

constexpr const char* kArmClass[2] = {"arm-a", "arm-b"};
constexpr const char* kArmStroke[2] = {"line-a", "line-b"};

// Rows of the horizontal per-scope charts: two bars (A, B) per scope.
struct RowLayout {
  static constexpr double kLeft = 170, kRight = 30, kTop = 44, kBottom = 34;
  static constexpr double kBar = 13, kGap = 10;
  double Y(size_t scope, int arm) const { return kTop + scope * (2 * kBar + kGap) + arm * kBar; }
  int Height(size_t scopes) const {
    return static_cast<int>(kTop + scopes * (2 * kBar + kGap) + kBottom);
  }
};

void RowLabels(Svg& svg, const Report& report, const RowLayout& rows) {
  for (size_t s = 0; s < report.scopes.size(); ++s) {
    svg.Text(RowLayout::kLeft - 26, rows.Y(s, 0) + RowLayout::kBar + 4, report.scopes[s].name,
             "label", "end");
    for (int arm = 0; arm < 2; ++arm) {
      svg.Text(RowLayout::kLeft - 6, rows.Y(s, arm) + RowLayout::kBar - 3, arm == 0 ? "A" : "B",
               "small", "end");
    }
  }
}

void XAxis(Svg& svg, const Scale& x, double y, Metric metric, bool percent) {
  // Byte axes tick at round MiB, not round bytes.
  const double unit = !percent && metric == Metric::kPeakMemory ? 1024.0 * 1024 : 1.0;
  std::vector<double> ticks =
      x.log() ? LogTicks(x.d0(), x.d1()) : NiceTicks(x.d0() / unit, x.d1() / unit, 5);
  if (!x.log()) {
    for (double& t : ticks) t *= unit;
  }
  svg.Line(x(x.d0()), y, x(x.d1()), y, "axis");
  double last = -1e9;
  for (double t : ticks) {
    if (x(t) - last < 48) continue;  // Keep labels from overlapping.
    last = x(t);
    svg.Line(x(t), y, x(t), y + 4, "axis");
    svg.Text(x(t), y + 16, percent ? FormatPercent(t) : FormatValue(metric, t), "small", "middle");
  }
}

void Legend(Svg& svg, double x, double y,
            const std::vector<std::pair<const char*, std::string>>& items) {
  for (const auto& [css_class, text] : items) {
    svg.Rect(x, y - 9, 12, 10, css_class);
    svg.Text(x + 16, y, text, "small");
    x += 24 + 7.0 * text.size();
  }
}

const QuantileRow* FindQuantile(const MetricReport& m, double p) {
  for (const QuantileRow& q : m.quantiles) {
    if (q.diff.p == p) return &q;
  }
  return nullptr;
}

}  // namespace

std::string CdfChart(const ScopeReport& scope, Metric metric) {
  const MetricReport& m = scope.metrics[static_cast<int>(metric)];
  constexpr int kWidth = 380, kHeight = 250;
  constexpr double kLeft = 44, kRight = 14, kTop = 30, kBottom = 40;
  Svg svg(kWidth, kHeight, "chart-cdf", scope.name + " " + MetricName(metric) + " CDF");
  svg.Text(kLeft, 18, scope.name + " — " + MetricName(metric), "title");
  double lo = INFINITY, hi = -INFINITY;
  for (const auto* cdf : {&m.cdf_a, &m.cdf_b}) {
    if (cdf->empty()) continue;
    lo = std::min(lo, cdf->front().second);
    hi = std::max(hi, cdf->back().second);
  }
  if (!(hi >= lo)) {
    svg.Text(kWidth / 2.0, kHeight / 2.0, "no data", "label", "middle");
    return svg.Finish();
  }
  const bool log = lo > 0 && hi / lo > 20;
  if (!log) lo = 0;
  const Scale x(lo, hi, kLeft, kWidth - kRight, log);
  const Scale y(0, 1, kHeight - kBottom, kTop);
  for (double p : {0.5, 0.9, 0.99}) {
    svg.Line(kLeft, y(p), kWidth - kRight, y(p), "guide");
    svg.Text(kWidth - kRight, y(p) - 2, "p" + FormatNumber(100 * p), "small", "end");
  }
  for (double p : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    svg.Text(kLeft - 4, y(p) + 4, FormatNumber(p, 2), "small", "end");
  }
  svg.Line(kLeft, y(0), kLeft, y(1), "axis");
  XAxis(svg, x, y(0), metric, /*percent=*/false);
  const std::vector<std::pair<double, double>>* cdfs[2] = {&m.cdf_a, &m.cdf_b};
  for (int arm = 0; arm < 2; ++arm) {
    if (cdfs[arm]->empty()) continue;
    std::vector<std::pair<double, double>> points;
    for (const auto& [p, v] : *cdfs[arm]) points.emplace_back(x(v), y(p));
    svg.Polyline(points, kArmStroke[arm], std::string("arm ") + (arm == 0 ? "A" : "B"));
  }
  Legend(svg, kLeft + 8, kTop + 12, {{"arm-a", "A"}, {"arm-b", "B"}});
  return svg.Finish();
}

std::string LoadSplitChart(const Report& report) {
  const RowLayout rows;
  constexpr int kWidth = 900;
  Svg svg(kWidth, rows.Height(report.scopes.size()), "chart-load",
          "mean load time split per scope and arm");
  svg.Text(10, 18, "Model load time (mean): read / parse / init", "title");
  double max_total = 0;
  for (const ScopeReport& s : report.scopes) {
    for (const ArmSummary& a : s.arms) {
      max_total = std::max(max_total, a.load_read_us + a.load_parse_us + a.load_init_us);
    }
  }
  const Scale x(0, max_total > 0 ? max_total * 1.05 : 1, RowLayout::kLeft,
                kWidth - RowLayout::kRight);
  RowLabels(svg, report, rows);
  for (size_t s = 0; s < report.scopes.size(); ++s) {
    for (int arm = 0; arm < 2; ++arm) {
      const ArmSummary& a = report.scopes[s].arms[arm];
      double start = 0;
      const struct {
        const char* css_class;
        const char* label;
        double value;
      } parts[] = {{"seg-read", "read", a.load_read_us},
                   {"seg-parse", "parse", a.load_parse_us},
                   {"seg-init", "init", a.load_init_us}};
      for (const auto& part : parts) {
        svg.Rect(x(start), rows.Y(s, arm) + 1, x(start + part.value) - x(start),
                 RowLayout::kBar - 2, part.css_class,
                 std::string(part.label) + " " + FormatValue(Metric::kLoadTime, part.value));
        start += part.value;
      }
    }
  }
  XAxis(svg, x, rows.Height(report.scopes.size()) - RowLayout::kBottom + 4, Metric::kLoadTime,
        false);
  Legend(svg, RowLayout::kLeft, 34,
         {{"seg-read", "read"}, {"seg-parse", "parse"}, {"seg-init", "init"}});
  return svg.Finish();
}

std::string MemoryChart(const Report& report) {
  const RowLayout rows;
  constexpr int kWidth = 900;
  Svg svg(kWidth, rows.Height(report.scopes.size()), "chart-memory",
          "peak memory per scope and arm");
  svg.Text(10, 18, "Peak memory: p50 bar, whisker to p99, tick at p90", "title");
  const int m = static_cast<int>(Metric::kPeakMemory);
  double max_value = 0;
  for (const ScopeReport& s : report.scopes) {
    if (const QuantileRow* q = FindQuantile(s.metrics[m], 0.99)) {
      max_value = std::max({max_value, q->diff.a, q->diff.b});
    }
  }
  const Scale x(0, max_value > 0 ? max_value * 1.05 : 1, RowLayout::kLeft,
                kWidth - RowLayout::kRight);
  RowLabels(svg, report, rows);
  for (size_t s = 0; s < report.scopes.size(); ++s) {
    const MetricReport& mem = report.scopes[s].metrics[m];
    const QuantileRow* q50 = FindQuantile(mem, 0.5);
    const QuantileRow* q90 = FindQuantile(mem, 0.9);
    const QuantileRow* q99 = FindQuantile(mem, 0.99);
    if (q50 == nullptr || q90 == nullptr || q99 == nullptr) continue;
    for (int arm = 0; arm < 2; ++arm) {
      const auto value = [arm](const QuantileRow* q) { return arm == 0 ? q->diff.a : q->diff.b; };
      const double top = rows.Y(s, arm) + 1;
      const double mid = top + (RowLayout::kBar - 2) / 2;
      svg.Rect(x(0), top, x(value(q50)) - x(0), RowLayout::kBar - 2, kArmClass[arm],
               "p50 " + FormatValue(Metric::kPeakMemory, value(q50)) + ", p90 " +
                   FormatValue(Metric::kPeakMemory, value(q90)) + ", p99 " +
                   FormatValue(Metric::kPeakMemory, value(q99)));
      svg.Line(x(value(q50)), mid, x(value(q99)), mid, "whisker");
      svg.Line(x(value(q90)), top, x(value(q90)), top + RowLayout::kBar - 2, "whisker");
      svg.Line(x(value(q99)), top + 2, x(value(q99)), top + RowLayout::kBar - 4, "whisker");
    }
  }
  XAxis(svg, x, rows.Height(report.scopes.size()) - RowLayout::kBottom + 4, Metric::kPeakMemory,
        false);
  Legend(svg, RowLayout::kLeft, 34, {{"arm-a", "A"}, {"arm-b", "B"}});
  return svg.Finish();
}

std::string RateChart(const Report& report, bool anr) {
  const RowLayout rows;
  constexpr int kWidth = 900;
  const char* name = anr ? "ANR" : "OOM-kill";
  Svg svg(kWidth, rows.Height(report.scopes.size()), anr ? "chart-rate-anr" : "chart-rate-oom",
          std::string(name) + " rate per scope and arm");
  svg.Text(10, 18,
           std::string(name) + " rate (sessions), Wilson interval" +
               (anr ? "; red: guardrail ceiling" : ""),
           "title");
  double max_rate = 0;
  for (const ScopeReport& s : report.scopes) {
    const RateReport& r = anr ? s.anr : s.oom;
    max_rate = std::max({max_rate, r.a.upper, r.b.upper});
  }
  const Scale x(0, max_rate > 0 ? max_rate * 1.1 : 0.01, RowLayout::kLeft,
                kWidth - RowLayout::kRight);
  RowLabels(svg, report, rows);
  for (size_t s = 0; s < report.scopes.size(); ++s) {
    const RateReport& r = anr ? report.scopes[s].anr : report.scopes[s].oom;
    if (r.ceiling >= 0) {
      const double y0 = rows.Y(s, 0), y1 = rows.Y(s, 1) + RowLayout::kBar;
      if (r.ceiling <= x.d1()) {
        svg.Line(x(r.ceiling), y0, x(r.ceiling), y1, "ceiling");
      } else {
        svg.Text(kWidth - RowLayout::kRight, y1 - 6, "ceiling " + FormatPercent(r.ceiling) + " →",
                 "small ceiling-text", "end");
      }
    }
    const RateInterval* arms[2] = {&r.a, &r.b};
    for (int arm = 0; arm < 2; ++arm) {
      const RateInterval& ri = *arms[arm];
      const double mid = rows.Y(s, arm) + RowLayout::kBar / 2;
      svg.Line(x(ri.lower), mid, x(ri.upper), mid, kArmStroke[arm]);
      svg.Line(x(ri.lower), mid - 3, x(ri.lower), mid + 3, kArmStroke[arm]);
      svg.Line(x(ri.upper), mid - 3, x(ri.upper), mid + 3, kArmStroke[arm]);
      svg.Circle(x(ri.rate), mid, 3.5, kArmClass[arm],
                 FormatPercent(ri.rate) + " [" + FormatPercent(ri.lower) + ", " +
                     FormatPercent(ri.upper) + "], " + std::to_string(ri.events) + "/" +
                     std::to_string(ri.trials));
    }
  }
  XAxis(svg, x, rows.Height(report.scopes.size()) - RowLayout::kBottom + 4, Metric::kLoadTime,
        /*percent=*/true);
  Legend(svg, RowLayout::kLeft, 34, {{"arm-a", "A"}, {"arm-b", "B"}});
  return svg.Finish();
}

std::string ExplanationChart(const ClassExplanation& e) {
  constexpr int kWidth = 640;
  constexpr double kLeft = 130, kRight = 90, kTop = 44, kBottom = 34, kBar = 12, kGap = 9;
  const size_t n = e.classes.size();
  const int height = static_cast<int>(kTop + n * (2 * kBar + kGap) + kBottom);
  Svg svg(kWidth, height, "chart-explain",
          e.device_class + " predicted device time per operator class");
  svg.Text(10, 18, e.device_class + ": device time per inference by operator class", "title");
  double max_us = 0;
  for (const ExplanationRow& r : e.classes) max_us = std::max({max_us, r.a_us, r.b_us});
  const Scale x(0, max_us > 0 ? max_us * 1.05 : 1, kLeft, kWidth - kRight);
  const Metric duration = Metric::kSteadyLatency;  // formats microseconds
  for (size_t i = 0; i < n; ++i) {
    const ExplanationRow& r = e.classes[i];
    const double y = kTop + i * (2 * kBar + kGap);
    svg.Text(kLeft - 6, y + kBar + 4, r.name, "label", "end");
    const double us[2] = {r.a_us, r.b_us}, share[2] = {r.share_a, r.share_b};
    for (int arm = 0; arm < 2; ++arm) {
      svg.Rect(kLeft, y + arm * kBar, x(us[arm]) - kLeft, kBar - 1, kArmClass[arm],
               std::string(arm == 0 ? "A " : "B ") + r.name + ": " +
                   FormatValue(duration, us[arm]) + " (" + FormatPercent(share[arm]) +
                   " of the total)");
    }
    svg.Text(x(std::max(r.a_us, r.b_us)) + 4, y + kBar + 4, FormatDelta(duration, r.b_us - r.a_us),
             "small");
  }
  XAxis(svg, x, kTop + n * (2 * kBar + kGap), duration, /*percent=*/false);
  Legend(svg, kLeft, 34,
         {{"arm-a", "A " + FormatValue(duration, e.a_us)},
          {"arm-b", "B " + FormatValue(duration, e.b_us)}});
  return svg.Finish();
}

}  // namespace loadtest
}  // namespace edgefleet
