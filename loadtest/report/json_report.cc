#include "loadtest/report/json_report.h"

#include <cmath>

#include "loadtest/report/device_model_note.h"
#include "loadtest/report/exit_code.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

using Json = nlohmann::ordered_json;

Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json Interval(double estimate, double lower, double upper) {
  return {{"estimate", Number(estimate)}, {"lower", Number(lower)}, {"upper", Number(upper)}};
}

Json ArmQuantile(const QuantileInterval& q) {
  Json j = Interval(q.estimate, q.lower, q.upper);
  j["lower_rank"] = q.lower_rank;
  j["upper_rank"] = q.upper_rank;
  j["coverage"] = Number(q.coverage);
  return j;
}

Json EarlyStopping(const EarlyStoppingEstimate& e, int64_t units) {
  return {{"queries", e.queries},
          {"units", units},
          {"enough", e.enough},
          {"discarded", e.discarded},
          {"estimate", Number(e.estimate)}};
}

Json MetricJson(const MetricReport& m) {
  Json j;
  j["metric"] = MetricName(m.metric);
  j["unit"] = MetricUnit(m.metric);
  j["verdict"] = VerdictName(m.verdict);
  j["n"] = {{"A", m.n_a}, {"B", m.n_b}};
  j["mean"] = {{"A", Number(m.mean_a)}, {"B", Number(m.mean_b)}};
  j["bootstrap_replicates"] = m.replicates;
  Json quantiles = Json::array();
  for (const QuantileRow& q : m.quantiles) {
    quantiles.push_back({{"p", q.diff.p},
                         {"A", ArmQuantile(q.a)},
                         {"B", ArmQuantile(q.b)},
                         {"diff", Interval(q.diff.diff, q.diff.diff_lower, q.diff.diff_upper)},
                         {"relative", Interval(q.diff.rel, q.diff.rel_lower, q.diff.rel_upper)},
                         {"relative_claim", Interval(q.diff.rel, q.claim_lower, q.claim_upper)},
                         {"replicates", q.diff.replicates},
                         {"units_to_decide", q.units_to_decide}});
  }
  j["quantiles"] = std::move(quantiles);
  j["estimator"] = m.estimator;
  if (!m.stratify_note.empty()) j["stratify_note"] = m.stratify_note;
  if (!m.pooled.empty()) {
    Json pooled = Json::array();
    for (const QuantileComparison& q : m.pooled) {
      pooled.push_back({{"p", q.p},
                        {"A", Number(q.a)},
                        {"B", Number(q.b)},
                        {"relative", Interval(q.rel, q.rel_lower, q.rel_upper)}});
    }
    j["pooled"] = std::move(pooled);
  }
  if (m.session_mean.present) {
    const SessionMeanReport& sm = m.session_mean;
    Json adjusted = Json::array();
    for (const AdjustedMeanChange& a : sm.adjusted) {
      Json one = {{"covariate", a.covariate}};
      one.update(Interval(a.change.estimate, a.change.lower, a.change.upper));
      one["log_std_error"] = Number(a.change.log_std_error);
      one["variance_ratio"] = Number(a.variance_ratio);
      adjusted.push_back(std::move(one));
    }
    Json unadjusted = Interval(sm.unadjusted.estimate, sm.unadjusted.lower, sm.unadjusted.upper);
    unadjusted["log_std_error"] = Number(sm.unadjusted.log_std_error);
    j["session_mean"] = {{"units", {{"A", sm.units_a}, {"B", sm.units_b}}},
                         {"unadjusted", sm.adjusted.empty() ? Json(nullptr) : unadjusted},
                         {"adjusted", std::move(adjusted)}};
    if (!sm.note.empty()) j["session_mean"]["note"] = sm.note;
  }
  if (!m.quantiles.empty()) {
    j["rank_test"] = {{"name", m.rank_test},
                      {"method", m.rank.method == RankTestMethod::kExact ? "exact" : "normal"},
                      {"statistic", Number(m.rank.statistic)},
                      {"rank_sum", Number(m.rank.rank_sum)},
                      {"z", Number(m.rank.z)},
                      {"p_value", Number(m.rank.p_value)},
                      {"n", m.rank.n},
                      {"effect", Number(m.rank.effect)}};
  } else {
    j["rank_test"] = nullptr;
  }
  Json counts = Json::array();
  for (const SampleCount& c : m.sample_counts) {
    counts.push_back({{"p", c.p},
                      {"needed", c.needed},
                      {"units_needed", c.units_needed},
                      {"enough", c.Enough()},
                      {"A", EarlyStopping(c.a, c.units_a)},
                      {"B", EarlyStopping(c.b, c.units_b)}});
  }
  j["sample_counts"] = std::move(counts);
  Json cdf_p = Json::array(), cdf_a = Json::array(), cdf_b = Json::array();
  for (const auto& [p, v] : m.cdf_a) {
    cdf_p.push_back(p);
    cdf_a.push_back(v);
  }
  for (const auto& [p, v] : m.cdf_b) cdf_b.push_back(v);
  if (m.cdf_a.empty()) {
    for (const auto& [p, v] : m.cdf_b) cdf_p.push_back(p);
  }
  j["cdf"] = {{"p", cdf_p}, {"A", cdf_a}, {"B", cdf_b}};
  return j;
}

Json RateArm(const RateInterval& r, const RateInterval& claim, GuardrailStatus guardrail,
             bool has) {
  Json j = {{"events", r.events},        {"trials", r.trials}, {"rate", r.rate},
            {"lower", r.lower},          {"upper", r.upper},   {"claim_lower", claim.lower},
            {"claim_upper", claim.upper}};
  j["guardrail"] = has ? Json(GuardrailStatusName(guardrail)) : Json(nullptr);
  return j;
}

Json Rate(const RateReport& r) {
  const bool has = r.ceiling >= 0;
  return {{"verdict", VerdictName(r.verdict)},
          {"ceiling", has ? Json(r.ceiling) : Json(nullptr)},
          {"A", RateArm(r.a, r.a_claim, r.guardrail_a, has)},
          {"B", RateArm(r.b, r.b_claim, r.guardrail_b, has)},
          {"diff", Interval(r.diff.diff, r.diff.lower, r.diff.upper)},
          {"diff_claim", Interval(r.diff.diff, r.diff_claim.lower, r.diff_claim.upper)}};
}

Json ArmJson(const ArmSummary& a) {
  return {
      {"sessions", a.sessions},
      {"ok", a.ok},
      {"oom_killed", a.oom_killed},
      {"stack_errors", a.stack_errors},
      {"harness_errors", a.harness_errors},
      {"errors_by_cause", a.errors_by_cause},
      {"retries", a.retries},
      {"anr_total", a.anr_total},
      {"frames", {{"slow", a.slow_frames}, {"frozen", a.frozen_frames}, {"total", a.total_frames}}},
      {"load_split_mean_us",
       {{"read", a.load_read_us}, {"parse", a.load_parse_us}, {"init", a.load_init_us}}}};
}

}  // namespace

std::string RenderJsonReport(const Report& report) {
  const ExperimentInfo& info = report.info;
  const AnalysisOptions& o = report.options;
  Json j;
  j["schema"] = kReportSchema;
  j["experiment"] = {{"name", info.name},
                     {"seed", info.seed},
                     {"design", DesignName(info.design)},
                     {"arm_a", info.arm_a},
                     {"arm_b", info.arm_b},
                     {"share_b", info.share_b},
                     {"spec_digest", info.spec_digest}};
  if (!info.calibration.empty()) j["experiment"]["calibration"] = info.calibration;
  if (!info.class_shares.empty()) {
    j["experiment"]["class_shares"] = info.class_shares;
  }
  j["options"] = {{"confidence", o.confidence},
                  {"min_effect", o.min_effect},
                  {"quantiles", o.quantiles},
                  {"decision_quantiles", o.decision_quantiles},
                  {"early_stopping_confidence", o.early_stopping_confidence},
                  {"min_units", o.min_units},
                  {"adjust_claims", o.adjust_claims},
                  {"bootstrap_replicates", o.bootstrap_replicates},
                  {"anr_ceiling_overall", o.anr_ceiling_overall},
                  {"anr_ceiling_class", o.anr_ceiling_class},
                  {"oom_margin", o.oom_margin},
                  {"failure_margin", o.failure_margin},
                  {"srm_alarm_p", o.srm_alarm_p},
                  {"stratify", o.stratify},
                  {"fleet_quantile_bandwidth", o.fleet_quantile_bandwidth}};
  j["comparisons"] = report.comparisons;
  j["claim_confidence"] = report.claim_confidence;
  j["sequential"] = {{"looks", report.looks},
                     {"look", report.look},
                     {"overall_confidence", report.overall_confidence},
                     {"spending", report.looks > 1 ? SpendingName(o.spending) : ""},
                     {"fractions", o.look_fractions}};
  j["strata"] = {{"source", report.strata_weights_source}, {"weights", report.strata_weights}};
  j["status"] = RunStatusName(report.status);
  j["exit_code"] = ExitCodeFor(report.status);
  j["reasons"] = report.reasons;
  j["device_model_note"] = DeviceModelNote();
  Json scopes = Json::array();
  for (const ScopeReport& s : report.scopes) {
    Json metrics = Json::array();
    for (const MetricReport& m : s.metrics) metrics.push_back(MetricJson(m));
    scopes.push_back(
        {{"name", s.name},
         {"verdict", VerdictName(s.verdict)},
         {"arms", {{"A", ArmJson(s.arms[0])}, {"B", ArmJson(s.arms[1])}}},
         {"srm",
          {{"chi_square", s.srm.chi_square},
           {"design_effect", s.srm.design_effect},
           {"df", s.srm.degrees_of_freedom},
           {"p_value", s.srm.p_value},
           {"mismatch", s.srm.mismatch}}},
         {"metrics", std::move(metrics)},
         {"rates", {{"anr", Rate(s.anr)}, {"oom", Rate(s.oom)}, {"failure", Rate(s.failure)}}}});
  }
  j["scopes"] = std::move(scopes);
  // What explains the difference (explanation.h): device microseconds per
  // inference; shares as fractions.
  Json explanation = Json::array();
  for (const ClassExplanation& e : report.explanation) {
    auto rows = [](const std::vector<ExplanationRow>& list) {
      Json out = Json::array();
      for (const ExplanationRow& r : list) {
        out.push_back({{"name", r.name},
                       {"a_us", r.a_us},
                       {"b_us", r.b_us},
                       {"change_us", r.b_us - r.a_us},
                       {"share_a", r.share_a},
                       {"share_b", r.share_b},
                       {"share_of_change", r.share_of_change}});
      }
      return out;
    };
    explanation.push_back({{"device_class", e.device_class},
                           {"a_us", e.a_us},
                           {"b_us", e.b_us},
                           {"operator_classes", rows(e.classes)},
                           {"operators", rows(e.operators)}});
  }
  j["explanation"] = std::move(explanation);
  return j.dump(1) + "\n";
}

}  // namespace loadtest
}  // namespace edgefleet
